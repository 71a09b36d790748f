// Package api is the one HTTP client of the exchange's REST API, shared by the CLI's client package
// and by memberkit. Call, Do and URL take an operation's declaration (Call(ctx, c, axp.GetTask,
// in)), whose input and output types they take on; Client.Call and Do call by name for the few
// callers that only know the name at run time (`axp call`). Either way method, path and input come
// from the catalog, so callers and the daemon agree on them by construction. Error bodies come back
// as *axp.Error, so errors.As works across the wire. It imports only the domain package, protocol
// and the standard library: third parties build on it through memberkit.
package api

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"reflect"
	"strings"
	"time"

	"github.com/axp-exchange/axp"
	"github.com/axp-exchange/axp/contract"
	"github.com/axp-exchange/axp/protocol"
)

// Client calls one exchange.
type Client struct {
	// BaseURL is the exchange, e.g. http://127.0.0.1:8420.
	BaseURL string
	// Token is sent as a Bearer token: a member secret, a buyer token or the admin token.
	Token string
	// HTTP is the HTTP client (default: 30 s timeout).
	HTTP *http.Client
	// TraceID, when set, is sent as X-Trace-Id.
	TraceID string
	// UserAgent, when set, is sent as User-Agent.
	UserAgent string
	// MaxBody, when above zero, caps the bytes of an answer read; a longer answer is an error.
	MaxBody int64
}

// New returns a client of the exchange at base, authenticating with token (may be empty).
func New(base, token string) *Client {
	return &Client{BaseURL: strings.TrimRight(base, "/"), Token: token, HTTP: &http.Client{Timeout: 30 * time.Second}}
}

// With returns a copy of c using another token.
func (c *Client) With(token string) *Client {
	d := *c
	d.Token = token
	return &d
}

// Response is the raw outcome of a call.
type Response struct {
	Status  int
	Header  http.Header
	Body    []byte
	TraceID string
}

// Options change one call.
type Options struct {
	IdempotencyKey string
	// GET sends the call through the operation's plain GET form.
	GET bool
}

// UnreachableError says the exchange could not be reached at all.
type UnreachableError struct {
	URL string
	Err error
}

// Error names the exchange and the network's reason first ("connect: connection refused"), so a
// screen that shows one line shows why; the request itself (method, path) is left out.
func (e *UnreachableError) Error() string {
	return fmt.Sprintf("cannot reach the exchange at %s: %v", e.URL, netCause(e.Err))
}

// netCause is the innermost reason of a failed request: the network operation's error without
// the method and URL the HTTP client wraps it in.
func netCause(err error) error {
	var op *net.OpError
	if errors.As(err, &op) && op.Err != nil {
		return op.Err
	}
	var ue *url.Error
	if errors.As(err, &ue) && ue.Err != nil {
		return ue.Err
	}
	return err
}

func (e *UnreachableError) Unwrap() error { return e.Err }

// Call runs the operation named op with input in (a struct of the operation's input type, a map, or
// nil) and decodes the answer into out (nil to discard; a *[]byte or *string takes the body as it
// is). Errors are *axp.Error when the exchange answered with an error body.
func (c *Client) Call(ctx context.Context, op string, in, out any, o ...Options) error {
	resp, err := c.Do(ctx, op, in, o...)
	if err != nil {
		return err
	}
	if out == nil {
		return nil
	}
	switch p := out.(type) {
	case *[]byte:
		*p = resp.Body
		return nil
	case *string: // documents such as /join and /faq.md
		*p = string(resp.Body)
		return nil
	}
	if err := json.Unmarshal(resp.Body, out); err != nil {
		return fmt.Errorf("decode %s answer: %w", op, err)
	}
	return nil
}

// Do runs an operation and returns the raw response; an error status becomes an *axp.Error.
func (c *Client) Do(ctx context.Context, name string, in any, o ...Options) (*Response, error) {
	var opt Options
	if len(o) > 0 {
		opt = o[0]
	}
	method, path, body, err := contract.Route(name, in, opt.GET)
	if err != nil {
		return nil, err
	}
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	hdr := http.Header{}
	if op := contract.Lookup(name); op != nil && op.Out != reflect.TypeFor[string]() {
		hdr.Set("Accept", "application/json")
	}
	if opt.IdempotencyKey != "" {
		hdr.Set("Idempotency-Key", opt.IdempotencyKey)
	}
	return c.Raw(ctx, method, path, rd, hdr)
}

// Typed runs the operation called name and decodes its answer into a new O, which must be the
// operation's declared output type (checked at the call: a mismatch is an error, never a silently
// half-filled value).
func Typed[O any](ctx context.Context, c *Client, name string, in any, o ...Options) (*O, error) {
	op := contract.Lookup(name)
	if op == nil {
		return nil, fmt.Errorf("no operation %q", name)
	}
	if want := reflect.TypeFor[O](); op.Out != want {
		return nil, fmt.Errorf("%s answers %v, not %v", name, op.Out, want)
	}
	out := new(O)
	if err := c.Call(ctx, name, in, out, o...); err != nil {
		return nil, err
	}
	return out, nil
}

// Raw sends one request to path (which may carry a query string) with body and extra headers, for
// bodies the typed path cannot produce (scripts, the CLI's raw call, tests of bad input). A body
// that is not a *bytes.Reader, *bytes.Buffer or *strings.Reader is sent chunked. As with Do, an
// error status becomes an *axp.Error beside the raw response.
func (c *Client) Raw(ctx context.Context, method, path string, body io.Reader, header http.Header) (*Response, error) {
	req, err := http.NewRequestWithContext(ctx, method, c.BaseURL+path, body)
	if err != nil {
		return nil, err
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if c.Token != "" {
		req.Header.Set("Authorization", "Bearer "+c.Token)
	}
	if c.TraceID != "" {
		req.Header.Set(protocol.HeaderTraceID, c.TraceID)
	}
	if c.UserAgent != "" {
		req.Header.Set("User-Agent", c.UserAgent)
	}
	for k, vals := range header {
		req.Header.Del(k)
		for _, v := range vals {
			req.Header.Add(k, v)
		}
	}
	return c.send(req)
}

func (c *Client) send(req *http.Request) (*Response, error) {
	hc := c.HTTP
	if hc == nil {
		hc = http.DefaultClient
	}
	res, err := hc.Do(req)
	if err != nil {
		if ctx := req.Context(); ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, &UnreachableError{URL: c.BaseURL, Err: err}
	}
	defer res.Body.Close()
	var rd io.Reader = res.Body
	if c.MaxBody > 0 {
		rd = io.LimitReader(res.Body, c.MaxBody+1)
	}
	raw, err := io.ReadAll(rd)
	if err != nil {
		return nil, &UnreachableError{URL: c.BaseURL, Err: err}
	}
	if c.MaxBody > 0 && int64(len(raw)) > c.MaxBody {
		return nil, fmt.Errorf("%s %s: the answer is longer than %d bytes", req.Method, req.URL.Path, c.MaxBody)
	}
	r := &Response{Status: res.StatusCode, Header: res.Header, Body: raw, TraceID: res.Header.Get(protocol.HeaderTraceID)}
	if res.StatusCode >= 400 {
		return r, decodeError(res, raw)
	}
	return r, nil
}

func decodeError(res *http.Response, raw []byte) error {
	var body protocol.ErrorBody
	if err := json.Unmarshal(raw, &body); err != nil || body.Error.Code == "" {
		return &axp.Error{Code: codeFor(res.StatusCode), Message: fmt.Sprintf("the exchange answered %s", res.Status)}
	}
	e := body.Error
	if ra := res.Header.Get("Retry-After"); ra != "" {
		fmt.Sscan(ra, &e.RetryAfter)
	}
	return &e
}

func codeFor(status int) axp.Code {
	switch status {
	case 400:
		return axp.CodeInvalidInput
	case 401:
		return axp.CodeUnauthorized
	case 402:
		return axp.CodePaymentRequired
	case 403:
		return axp.CodeForbidden
	case 404:
		return axp.CodeNotFound
	case 409:
		return axp.CodeConflict
	case 413:
		return axp.CodeTooLarge
	case 429:
		return axp.CodeRateLimited
	case 503:
		return axp.CodeUnavailable
	}
	return axp.CodeInternal
}

// IsCode reports whether err is an *axp.Error of code.
func IsCode(err error, code axp.Code) bool {
	var e *axp.Error
	return errors.As(err, &e) && e.Code == code
}
