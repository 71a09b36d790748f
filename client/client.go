// Package client is the typed Go client of the exchange's REST API, and the only way the CLI and the
// TUI reach a daemon. It is package api under the CLI's names: the same Client, the same typed
// Call, Do and URL of an operation's declaration (client.Call(ctx, c, axp.GetTask, in)) and the
// same by-name Client.Call and Do for the few callers that only know the name at run time
// (`axp call`). memberkit calls the exchange through package api too, so there is one HTTP client
// of the exchange.
package client

import (
	"context"

	"github.com/axp-exchange/axp"
	"github.com/axp-exchange/axp/api"
	"github.com/axp-exchange/axp/contract"
)

// Client calls one exchange.
type Client = api.Client

// Response is the raw outcome of a call.
type Response = api.Response

// Options change one call.
type Options = api.Options

// UnreachableError says the exchange could not be reached at all.
type UnreachableError = api.UnreachableError

// New returns a client of the exchange at base, authenticating with token (may be empty).
func New(base, token string) *Client { return api.New(base, token) }

// Call runs the operation def declares and decodes its answer (see api.Call).
func Call[I, O any](ctx context.Context, c *Client, def contract.Def[I, O], in I, o ...Options) (*O, []byte, error) {
	return api.Call(ctx, c, def, in, o...)
}

// Do runs the operation def declares and returns the raw response (see api.Do).
func Do[I, O any](ctx context.Context, c *Client, def contract.Def[I, O], in I, o ...Options) (*Response, error) {
	return api.Do(ctx, c, def, in, o...)
}

// URL is the address of the operation def declares for input in (see api.URL).
func URL[I, O any](c *Client, def contract.Def[I, O], in I) (string, error) {
	return api.URL(c, def, in)
}

// Typed runs the operation called name and decodes its answer into a new O (see api.Typed).
func Typed[O any](ctx context.Context, c *Client, name string, in any, o ...Options) (*O, error) {
	return api.Typed[O](ctx, c, name, in, o...)
}

// IsCode reports whether err is an *axp.Error of code.
func IsCode(err error, code axp.Code) bool { return api.IsCode(err, code) }
