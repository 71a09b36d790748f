package pipeline

import (
	"context"
	"fmt"
	"reflect"
	"sort"

	"github.com/axp-exchange/axp"
)

// Handler runs an operation with its decoded input (a pointer to a new value of Op.In, or nil).
type Handler func(ctx context.Context, c *Call, in any) (any, error)

// Registry holds the handler of every operation of the catalog. Handlers are registered with
// Handle or HandleNoInput, which check the handler's input type against the operation's declared
// input when the exchange starts: a misspelled name, a handler of the wrong type or a second
// handler for one operation panic at once, and Missing names the operations left without one.
type Registry struct {
	h   map[string]Handler
	pre map[string]func(in any) error
}

// NewRegistry returns an empty registry.
func NewRegistry() *Registry {
	return &Registry{h: map[string]Handler{}, pre: map[string]func(any) error{}}
}

// Precheck registers a check of an operation's decoded input beyond its schema, run before the
// call is charged (pay-per-call tools): input the handler would refuse is refused first, and
// nothing is paid for it. fn must be cheap and change nothing.
func Precheck[I any](r *Registry, name string, fn func(in *I) error) {
	mustTake[I](lookup(name), "precheck")
	r.pre[name] = func(in any) error { return fn(in.(*I)) }
}

// Handle registers the handler of the operation called name, whose input type is I.
func Handle[I any](r *Registry, name string, fn func(ctx context.Context, c *Call, in *I) (any, error)) {
	mustTake[I](r.claim(name), "handler")
	r.h[name] = func(ctx context.Context, c *Call, in any) (any, error) { return fn(ctx, c, in.(*I)) }
}

// HandleNoInput registers the handler of an operation that takes no input.
func HandleNoInput(r *Registry, name string, fn func(ctx context.Context, c *Call) (any, error)) {
	op := r.claim(name)
	if op.In != nil {
		panic(fmt.Sprintf("pipeline: %s takes %v, its handler takes no input", name, op.In))
	}
	r.h[name] = func(ctx context.Context, c *Call, _ any) (any, error) { return fn(ctx, c) }
}

// lookup is the catalog's operation called name; a name the catalog lacks panics at start.
func lookup(name string) *axp.Op {
	op := axp.Lookup(name)
	if op == nil {
		panic("pipeline: no operation " + name + " in the catalog")
	}
	return op
}

// mustTake panics unless op's declared input is I.
func mustTake[I any](op *axp.Op, what string) {
	if want := reflect.TypeFor[I](); op.In != want {
		panic(fmt.Sprintf("pipeline: %s takes %v, its %s takes %v", op.Name, op.In, what, want))
	}
}

func (r *Registry) claim(name string) *axp.Op {
	op := lookup(name)
	if _, dup := r.h[name]; dup {
		panic("pipeline: a second handler for " + name)
	}
	return op
}

// For returns the handler of op: the registered one, or one that answers unavailable naming the
// area that brings the operation.
func (r *Registry) For(op *axp.Op) Handler {
	if h := r.h[op.Name]; h != nil {
		return h
	}
	return unavailable(op)
}

// Missing lists the operations of the catalog that are live (no Later) but have no handler, and
// those with a handler although the catalog says they come later.
func (r *Registry) Missing() []string {
	var out []string
	for i := range axp.Ops {
		op := axp.Ops[i]
		_, has := r.h[op.Name]
		switch {
		case op.Later == "" && !has:
			out = append(out, op.Name+" has no handler")
		case op.Later != "" && has:
			out = append(out, op.Name+" has a handler but is marked Later")
		}
	}
	sort.Strings(out)
	return out
}

func unavailable(op *axp.Op) Handler {
	return func(context.Context, *Call, any) (any, error) {
		area := op.Later
		if area == "" {
			area = "a later release"
		}
		return nil, &axp.Error{Code: axp.CodeUnavailable, Message: op.Name + " is not available yet on this exchange",
			Hint: "it arrives with " + area + "; see /api/protocol for what is live"}
	}
}
