package api

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"

	"github.com/axp-exchange/axp"
)

//go:generate go run ./internal/gen -o ops_gen.go -reexport ../client/ops_gen.go

// None is the input of operations that take none (the catalog's In is nil).
type None = struct{}

// Endpoint is one operation of the catalog with its input type I and output type O, checked against
// axp.Ops when it is made: a call through it cannot send the wrong input or decode into the wrong
// output. ops_gen.go declares one for every operation (GetTask, ChooseOffer, ...).
type Endpoint[I, O any] struct {
	name string
}

// Def is the endpoint of the operation called name. It panics at once when the catalog has no such
// operation, when I is not the operation's input type (None when it takes none) or when O is not
// its output type ([]byte is accepted too for documents, whose output is a string): the generated
// endpoints are made at package load, so a catalog change that breaks one fails every program and
// test that imports the package, not a call in production.
func Def[I, O any](name string) Endpoint[I, O] {
	op := axp.Lookup(name)
	if op == nil {
		panic(fmt.Sprintf("api.Def: the catalog has no operation %q", name))
	}
	in, out := reflect.TypeFor[I](), reflect.TypeFor[O]()
	wantIn := op.In
	if wantIn == nil {
		wantIn = reflect.TypeFor[None]()
	}
	if in != wantIn {
		panic(fmt.Sprintf("api.Def: %s takes %v, not %v", name, wantIn, in))
	}
	if out != op.Out && !(op.Out == reflect.TypeFor[string]() && out == reflect.TypeFor[[]byte]()) {
		panic(fmt.Sprintf("api.Def: %s answers %v, not %v", name, op.Out, out))
	}
	return Endpoint[I, O]{name: name}
}

// Name is the operation's name in the catalog.
func (e Endpoint[I, O]) Name() string { return e.name }

// Op is the operation's catalog entry.
func (e Endpoint[I, O]) Op() *axp.Op { return axp.Lookup(e.name) }

// Call runs the operation with c and returns its answer decoded, and the body as it came (what the
// CLI prints for --json). A document (output string or []byte) is the body itself. Errors are
// *axp.Error when the exchange answered with an error body.
func (e Endpoint[I, O]) Call(ctx context.Context, c *Client, in I, o ...Options) (*O, []byte, error) {
	resp, err := e.Do(ctx, c, in, o...)
	if err != nil {
		return nil, nil, err
	}
	out := new(O)
	switch p := any(out).(type) {
	case *string:
		*p = string(resp.Body)
	case *[]byte:
		*p = resp.Body
	default:
		if err := json.Unmarshal(resp.Body, out); err != nil {
			return nil, resp.Body, fmt.Errorf("decode the %s answer: %w", e.name, err)
		}
	}
	return out, resp.Body, nil
}

// URL is the address of the operation on the exchange of c for input in (path parameters filled
// in, a query input on the query string): what the exchange hands members as a deliver_url or
// choose_url.
func (e Endpoint[I, O]) URL(c *Client, in I) (string, error) {
	_, path, _, err := axp.Route(e.name, in, false)
	if err != nil {
		return "", err
	}
	return c.BaseURL + path, nil
}

// Do runs the operation with c and returns the raw response, for callers that need its headers
// (a deliverable's X-Content-SHA256); an error status becomes an *axp.Error.
func (e Endpoint[I, O]) Do(ctx context.Context, c *Client, in I, o ...Options) (*Response, error) {
	return c.Do(ctx, e.name, in, o...)
}
