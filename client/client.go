// Package client is the typed Go client of the exchange's REST API, and the only way the CLI and the
// TUI reach a daemon. It is package api under the CLI's names: the same Client, the same typed
// endpoints (GetTask, ChooseOffer, ..., re-exported in ops_gen.go) and the same by-name Call and Do
// for the few callers that only know the name at run time (`axp call`). memberkit calls the exchange
// through package api too, so there is one HTTP client of the exchange.
package client

import (
	"context"

	"github.com/axp-exchange/axp"
	"github.com/axp-exchange/axp/api"
)

// Client calls one exchange.
type Client = api.Client

// Response is the raw outcome of a call.
type Response = api.Response

// Options change one call.
type Options = api.Options

// UnreachableError says the exchange could not be reached at all.
type UnreachableError = api.UnreachableError

// None is the input of operations that take none.
type None = api.None

// Endpoint is one operation of the catalog with its input type I and output type O.
type Endpoint[I, O any] = api.Endpoint[I, O]

// New returns a client of the exchange at base, authenticating with token (may be empty).
func New(base, token string) *Client { return api.New(base, token) }

// Def is the endpoint of the operation called name (see api.Def).
func Def[I, O any](name string) Endpoint[I, O] { return api.Def[I, O](name) }

// Typed runs the operation called name and decodes its answer into a new O (see api.Typed).
func Typed[O any](ctx context.Context, c *Client, name string, in any, o ...Options) (*O, error) {
	return api.Typed[O](ctx, c, name, in, o...)
}

// IsCode reports whether err is an *axp.Error of code.
func IsCode(err error, code axp.Code) bool { return api.IsCode(err, code) }
