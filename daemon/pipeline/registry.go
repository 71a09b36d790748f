package pipeline

import (
	"context"
	"sort"

	"github.com/axp-exchange/axp"
	"github.com/axp-exchange/axp/contract"
)

// Handler runs an operation with its decoded input (a pointer to a new value of Op.In, or nil).
type Handler func(ctx context.Context, c *Call, in any) (any, error)

// Registry holds the handler of every operation of the catalog. Handlers are registered against
// the operation's typed declaration (axp.Def) with Handle or HandleNoInput, so a handler whose
// input or output type differs from the declaration does not compile; a second handler for one
// operation panics when the exchange starts, and Missing names the operations left without one.
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
func Precheck[I, O any](r *Registry, def contract.Def[I, O], fn func(in *I) error) {
	r.pre[def.Op().Name] = func(in any) error { return fn(in.(*I)) }
}

// Prechecked runs the precheck registered for op on its decoded input (nil when there is none).
func (r *Registry) Prechecked(op *contract.Op, in any) error {
	if pre := r.pre[op.Name]; pre != nil {
		return pre(in)
	}
	return nil
}

// Handle registers the handler of the operation def declares.
func Handle[I, O any](r *Registry, def contract.Def[I, O], fn func(ctx context.Context, c *Call, in *I) (*O, error)) {
	r.h[r.claim(def.Op())] = func(ctx context.Context, c *Call, in any) (any, error) { return answer(fn(ctx, c, in.(*I))) }
}

// HandleNoInput registers the handler of an operation that takes no input.
func HandleNoInput[O any](r *Registry, def contract.Def[contract.NoInput, O], fn func(ctx context.Context, c *Call) (*O, error)) {
	r.h[r.claim(def.Op())] = func(ctx context.Context, c *Call, _ any) (any, error) { return answer(fn(ctx, c)) }
}

// answer is a handler's typed answer as the pipeline passes it on: a nil answer stays nil.
func answer[O any](out *O, err error) (any, error) {
	if out == nil {
		return nil, err
	}
	return out, err
}

func (r *Registry) claim(op *contract.Op) string {
	if _, dup := r.h[op.Name]; dup {
		panic("pipeline: a second handler for " + op.Name)
	}
	return op.Name
}

// For returns the handler of op: the registered one, or one that answers unavailable naming the
// area that brings the operation.
func (r *Registry) For(op *contract.Op) Handler {
	if h := r.h[op.Name]; h != nil {
		return h
	}
	return unavailable(op)
}

// Missing lists the operations of the catalog that are live (no Later) but have no handler, and
// those with a handler although the catalog says they come later.
func (r *Registry) Missing() []string {
	var out []string
	for i := range contract.Ops {
		op := contract.Ops[i]
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

func unavailable(op *contract.Op) Handler {
	return func(context.Context, *Call, any) (any, error) {
		area := op.Later
		if area == "" {
			area = "a later release"
		}
		return nil, &axp.Error{Code: axp.CodeUnavailable, Message: op.Name + " is not available yet on this exchange",
			Hint: "it arrives with " + area + "; see /api/protocol for what is live"}
	}
}
