// Package pipeline runs every operation call of the exchange, whichever door it came through (REST,
// MCP, A2A): authorize by the operation's access level, admit under the rate limits, validate and
// decode the input against the operation's schema, apply idempotency, run the registered handler
// and record the call for metrics and the log. The doors only turn their protocol into a Request
// and the Answer back into their protocol; handlers take a Call and a typed input and know nothing
// of HTTP.
package pipeline

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"reflect"
	"sort"
	"sync"
	"time"

	"github.com/axp-exchange/axp"
	"github.com/axp-exchange/axp/contract"
	"github.com/axp-exchange/axp/protocol"
	"github.com/axp-exchange/axp/store"
)

// Door names the door a call came through.
type Door string

// The doors.
const (
	REST Door = "rest"
	MCP  Door = "mcp"
	A2A  Door = "a2a"
)

// Call is one operation call as its handler sees it.
type Call struct {
	Op     *contract.Op
	Caller axp.Caller
	// Path holds the path parameters the input type does not declare (e.g. {id} of an operation
	// whose input has no id field).
	Path map[string]string
	// FromQuery: the input came from a query string (a GET form), where every value is text.
	FromQuery bool
	Door      Door
	// Side is the caller's side of the record the operation acts on (axp.SideBuyer or
	// axp.SideSeller), as checked against the operation's declared owner before the handler ran;
	// "" when it declares none or the record does not exist.
	Side string
	// Seen is the task the owner check read, which the handler's change takes instead of decoding
	// it again while its stored bytes are unchanged (kernel.LoadOwned).
	Seen store.TaskSeen
	// Idem is the call's idempotency when the caller gave a key (nil otherwise): the handler's
	// change (kernel's MutateCall, Apply) stores the answer under it in its transaction. Work the
	// handler leaves to the background never takes it.
	Idem *axp.Idempotency
}

// Backend is what the pipeline needs from the exchange.
type Backend interface {
	// Admit applies rate limits to a call; a refusal is a rate_limited *axp.Error. refund, when
	// not nil, is called if the call then changes nothing (refused input, a replay, an error), so
	// that such calls do not use up a limit.
	Admit(op *contract.Op, c axp.Caller) (refund func(), err error)
	// Replay looks up an earlier answer to an idempotent call of caller c: the status and body,
	// status -1 when the key was used with another request, or found=false.
	Replay(i *axp.Idempotency, c axp.Caller) (status int, body []byte, found bool, err error)
	// Observe records a finished call for metrics and the log.
	Observe(r *http.Request, route string, status int, elapsed time.Duration, c axp.Caller, err error)
	// Measure records a finished call of an operation through a door in the Prometheus series;
	// it must be cheap (every call runs it).
	Measure(op *contract.Op, door Door, status int, err error, elapsed time.Duration)
	// Owns checks the caller against the owner the operation declares (axp.Owner) of the record
	// id names and answers the caller's side of it ("" when the operation declares no owner, or
	// the record does not exist: the handler answers that). The REST door's calls are checked from
	// the path before the body is read, so a stranger is refused without waiting for a slow body.
	// The task it read may be kept in call.Seen for the handler.
	Owns(call *Call, id string) (side string, err error)
	// Logger logs with trace ids.
	Logger() *slog.Logger
	// Charge takes the payment of a call of a Paid operation (x402, or a free trial call) before
	// its handler runs; a call without a valid payment is refused (402 with the terms). r is the
	// HTTP request that carried the call.
	Charge(ctx context.Context, c *Call, r *http.Request) (Charge, error)
}

// Charge is the payment held for one paid call.
type Charge interface {
	// Settle moves the money once the handler has answered; the headers it returns go with the
	// answer. A failed settlement is an error (402 again): the answer is not given.
	Settle(ctx context.Context) (map[string]string, error)
	// Release lets the payment go when the handler failed: nothing is charged. The headers it
	// returns go with the handler's error (an auth-capture payment's void).
	Release(ctx context.Context) map[string]string
}

// Pipeline runs calls over a registry of handlers.
type Pipeline struct {
	b   Backend
	reg *Registry
	// secret derives the key that seals stored answers from each caller's raw idempotency key.
	secret []byte
	// inflight holds the idempotency keys of calls running now.
	inflight sync.Map
}

// New returns a pipeline.
func New(b Backend, reg *Registry, idempotencySecret []byte) *Pipeline {
	return &Pipeline{b: b, reg: reg, secret: idempotencySecret}
}

// Registry is the pipeline's handler registry.
func (p *Pipeline) Registry() *Registry { return p.reg }

// Request is one call as a door hands it to the pipeline.
type Request struct {
	Op     *contract.Op
	Caller axp.Caller
	// Args are the input fields. When Path is nil, the path parameters are among them (MCP and
	// A2A give every value as an argument); a path parameter the input type does not declare is
	// taken out and given to the handler in Call.Path.
	Args map[string]any
	// Parse, when set, reads the arguments (Args is then ignored): the REST door reads and parses
	// the body only once the caller is authorized and admitted.
	Parse func() (map[string]any, error)
	// Path holds the path parameters the door has already separated (REST routes).
	Path map[string]string
	// FromQuery: Args came from a query string.
	FromQuery bool
	Door      Door
	// IdempotencyKey is the caller's key (the Idempotency-Key header, an A2A messageId), or "".
	// It applies to mutating calls whose input is a body.
	IdempotencyKey string
	// Route names the call in metrics and the log; HTTP is the request that carried it.
	Route string
	HTTP  *http.Request
}

// Answer is the outcome of a call.
type Answer struct {
	Out    any
	Status int
	// Header holds headers to send with the answer (a paid call's settlement).
	Header map[string]string
	// Replayed: Out is the stored answer (a json.RawMessage) of an earlier call with the same key.
	Replayed bool
}

// MinAnonymousKey is the shortest idempotency key accepted from a caller without credentials.
const MinAnonymousKey = 16

// Run runs one call through every step.
func (p *Pipeline) Run(ctx context.Context, req Request) (a Answer, err error) {
	start := time.Now()
	defer p.finish(ctx, req, start, &a, &err)
	op := req.Op
	if err := Authorize(op, req.Caller); err != nil {
		return a, err
	}
	refund, err := p.b.Admit(op, req.Caller)
	if err != nil {
		return a, err
	}
	done := false // a call that changed nothing gives its admission back
	defer func() {
		if !done && refund != nil {
			refund()
		}
	}()
	call := &Call{Op: op, Caller: req.Caller, FromQuery: req.FromQuery, Door: req.Door}
	owned := req.Path != nil
	if owned {
		// The door separated the path: the owner is checked before the body is read.
		if call.Side, err = p.b.Owns(call, req.Path["id"]); err != nil {
			return a, err
		}
	}
	in, idem, err := p.input(req, call)
	if err != nil {
		return a, err
	}
	if !owned {
		if call.Side, err = p.b.Owns(call, call.Path["id"]); err != nil {
			return a, err
		}
	}
	if idem != nil {
		release, replayed, err := p.replay(idem, req.Caller)
		if err != nil || replayed != nil {
			return answerOr(replayed), err
		}
		defer release()
		call.Idem = idem
	}
	out, header, err := p.call(ctx, req, call, in)
	if err != nil {
		a.Header = header
		return a, err
	}
	done = true
	return Answer{Out: out, Status: op.SuccessStatus(), Header: header}, nil
}

// finish ends a call: a panic in it is an internal error, logged; the call is observed.
func (p *Pipeline) finish(ctx context.Context, req Request, start time.Time, a *Answer, err *error) {
	if v := recover(); v != nil {
		*err = fmt.Errorf("panic: %v", v)
		p.b.Logger().ErrorContext(ctx, "panic serving call", "source", "http", "route", req.Route, "panic", fmt.Sprint(v))
	}
	*err = Outage(*err)
	p.observe(req, start, a.Status, *err)
}

// observe records a finished call for metrics and the log.
func (p *Pipeline) observe(req Request, start time.Time, status int, err error) {
	if err != nil {
		status = http.StatusInternalServerError
		var e *axp.Error
		if errors.As(err, &e) {
			status = Status(e.Code)
		}
	}
	if req.HTTP == nil {
		return
	}
	elapsed := time.Since(start)
	p.b.Measure(req.Op, req.Door, status, err, elapsed)
	// The call is logged as the operation it is (a read is a GET whatever the door's HTTP
	// method), so that reads through every door log and cost alike.
	obs := req.HTTP
	if obs.Method != req.Op.Method && !req.FromQuery {
		obs = obs.WithContext(obs.Context())
		obs.Method = req.Op.Method
	}
	p.b.Observe(obs, req.Route, status, elapsed, req.Caller, err)
}

// Refused records a call a door refused before it reached the pipeline (credentials that do not
// authenticate): it counts as a call of its operation like any other.
func (p *Pipeline) Refused(op *contract.Op, door Door, status int, err error, elapsed time.Duration) {
	p.b.Measure(op, door, status, err, elapsed)
}

// input reads the call's arguments, separates its path parameters into call.Path, describes its
// idempotency key, and decodes the input (a pointer to a new value of Op.In, or nil).
func (p *Pipeline) input(req Request, call *Call) (in any, idem *axp.Idempotency, err error) {
	op := req.Op
	args := req.Args
	if req.Parse != nil {
		if args, err = req.Parse(); err != nil {
			return nil, nil, err
		}
	}
	if args == nil {
		args = map[string]any{}
	}
	var schema *protocol.Schema
	if op.In != nil {
		schema = protocol.SchemaOf(op.In)
	}
	if err := pathParams(req, call, schema, args); err != nil {
		return nil, nil, err
	}
	if req.IdempotencyKey != "" && op.Mutating() && !req.FromQuery && op.Access != contract.Paid {
		if idem, err = p.idempotency(op, req.Caller, req.IdempotencyKey, call.Path, args); err != nil {
			return nil, nil, err
		}
	}
	in, err = decode(op, args)
	return in, idem, err
}

// pathParams fills call.Path: from the door's route, or taken out of the arguments (MCP and A2A
// give every value as an argument) when the input type does not declare them.
func pathParams(req Request, call *Call, schema *protocol.Schema, args map[string]any) error {
	if req.Path != nil {
		call.Path = req.Path
		for n, v := range req.Path {
			if schema != nil && schema.Properties[n] != nil {
				args[n] = v
			}
		}
		return nil
	}
	names := req.Op.PathParams()
	if len(names) == 0 {
		return nil
	}
	call.Path = make(map[string]string, len(names))
	for _, n := range names {
		v, given := args[n]
		sv, isString := v.(string)
		if schema == nil || schema.Properties[n] == nil {
			if !given || !isString || sv == "" {
				return axp.Invalid(n, "is required (a string)", "give the "+n+" the call is about")
			}
			delete(args, n)
		}
		if isString {
			call.Path[n] = sv
		}
	}
	return nil
}

// decode validates the arguments against the operation's input schema and decodes them; an
// operation without input refuses any argument.
func decode(op *contract.Op, args map[string]any) (any, error) {
	if op.In != nil {
		in := reflect.New(op.In).Interface()
		if err := protocol.DecodeValue(args, in); err != nil {
			return nil, err
		}
		return in, nil
	}
	if len(args) > 0 {
		keys := make([]string, 0, len(args))
		for k := range args {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		return nil, axp.Invalid(keys[0], "is not a known field", "this call takes no input")
	}
	return nil, nil
}

// replay holds the idempotency key for this call (release lets it go) and finds an earlier
// answer to the same key: replayed is that answer, or nil when the call is new.
func (p *Pipeline) replay(idem *axp.Idempotency, c axp.Caller) (release func(), replayed *Answer, err error) {
	// One call per key at a time: a retry that arrives while the first call still runs would
	// otherwise miss the stored answer and run again.
	if _, busy := p.inflight.LoadOrStore(idem.Key, struct{}{}); busy {
		return nil, nil, axp.Conflict("a request with this idempotency key is still in progress",
			"wait for its answer, then retry with the same key to get it again")
	}
	release = func() { p.inflight.Delete(idem.Key) }
	st, body, found, err := p.b.Replay(idem, c)
	if err != nil || !found {
		if err != nil {
			release()
		}
		return release, nil, err
	}
	release()
	if st < 0 {
		return nil, nil, axp.Conflict("this idempotency key was used with a different request",
			"use a new key for a new request, or resend exactly the first one")
	}
	return nil, &Answer{Out: json.RawMessage(body), Status: st, Replayed: true}, nil
}

func answerOr(a *Answer) Answer {
	if a == nil {
		return Answer{}
	}
	return *a
}

// call runs the precheck, takes the payment of a paid call, runs the handler and settles the
// payment once it has answered (or releases it when it failed).
func (p *Pipeline) call(ctx context.Context, req Request, call *Call, in any) (out any, header map[string]string, err error) {
	op := req.Op
	if err := p.reg.Prechecked(op, in); err != nil {
		return nil, nil, err
	}
	var charge Charge
	if op.Access == contract.Paid {
		if charge, err = p.b.Charge(ctx, call, req.HTTP); err != nil {
			return nil, nil, err
		}
	}
	if out, err = p.reg.For(op)(ctx, call, in); err != nil {
		if charge != nil {
			header = charge.Release(ctx)
		}
		return nil, header, err
	}
	if charge != nil {
		if header, err = charge.Settle(ctx); err != nil {
			return nil, nil, err
		}
	}
	return out, header, nil
}

// idempotency describes a call made with an idempotency key. The request hash covers the
// operation's path parameters and its arguments (as canonical JSON: the same fields in another
// order or spacing are the same request), so the same key sent about another resource or with
// other fields is a different request (409).
func (p *Pipeline) idempotency(op *contract.Op, c axp.Caller, key string, path map[string]string, args map[string]any) (*axp.Idempotency, error) {
	if len(key) > 255 {
		return nil, axp.Invalid("Idempotency-Key", "is longer than 255 characters", "use a UUID")
	}
	// An anonymous caller is known only by its address, which it may share (NAT, a proxy): the
	// key alone separates it from its neighbours, and a replay returns secrets (a buyer token, a
	// member secret). So the key must be long enough to be unguessable.
	if c.Kind == axp.Anonymous && len(key) < MinAnonymousKey {
		return nil, axp.Invalid("Idempotency-Key", fmt.Sprintf("must be at least %d characters for calls without credentials", MinAnonymousKey),
			"use a new random UUID for each request, e.g. 5f0c3a9e-8d2b-4c1e-9a7f-2b6d8e4c1a03")
	}
	scope := c.Actor()
	if c.Kind == axp.Anonymous || c.Kind == axp.BuyerToken {
		scope += "|" + protocol.Fingerprint(c.IP+"|"+c.Token)
	}
	canon, err := json.Marshal(struct {
		Path map[string]string `json:"path"`
		Args map[string]any    `json:"args"`
	}{path, args})
	if err != nil {
		return nil, axp.Invalid("body", "cannot be read: "+err.Error(), "")
	}
	k := sha256.Sum256([]byte(scope + "\x00" + op.Name + "\x00" + key))
	b := sha256.Sum256(canon)
	seal := sha256.Sum256(append(append([]byte(nil), p.secret...), key...))
	return &axp.Idempotency{Key: hex.EncodeToString(k[:]), BodyHash: hex.EncodeToString(b[:]), Op: op.Name,
		Status: op.SuccessStatus(), Seal: seal[:]}, nil
}

// Authorize checks the caller against the operation's access level; every call runs it before its
// input is read.
func Authorize(op *contract.Op, c axp.Caller) error {
	switch op.Access {
	case contract.MemberAuth:
		if c.Kind == axp.BuyerToken && c.Token != "" {
			return axp.Unauthorized("the token sent is not a valid member secret (a member secret starts with ss_)",
				"send Authorization: Bearer <member_secret>; register at POST /api/members/register")
		}
		if c.Kind != axp.MemberCall {
			return axp.Unauthorized("this call needs a member secret", "send Authorization: Bearer <member_secret>; register at POST /api/members/register")
		}
	case contract.SellerAuth:
		if c.Kind != axp.MemberCall {
			return axp.Unauthorized("this call needs a seller's member secret", "send Authorization: Bearer <member_secret>")
		}
		if !c.HasRole(protocol.RoleSeller) {
			return axp.Forbidden("only sellers may do this", `add "seller" to your roles with PATCH /api/members/me`)
		}
	case contract.BuyerAuth, contract.TaskParty:
		if c.Kind != axp.MemberCall && c.Kind != axp.BuyerToken {
			return axp.Unauthorized("this call needs the task's buyer token or your member secret",
				"send ?token=<buyer_token> or Authorization: Bearer <buyer_token>")
		}
	case contract.AdminAuth:
		if c.Kind == axp.BuyerToken && c.Token != "" {
			return axp.Unauthorized("the token sent is not a valid admin token of this exchange",
				"send Authorization: Bearer <admin token>; a lost admin token is replaced with axp admin token rotate on the stopped exchange")
		}
		if c.Kind != axp.Operator {
			return axp.Unauthorized("this call needs the admin token", "send Authorization: Bearer <admin token>")
		}
	}
	return nil
}

// Status maps an error code to its HTTP status.
func Status(code axp.Code) int {
	switch code {
	case axp.CodeInvalidInput:
		return http.StatusBadRequest
	case axp.CodeUnauthorized:
		return http.StatusUnauthorized
	case axp.CodePaymentRequired:
		return http.StatusPaymentRequired
	case axp.CodeForbidden:
		return http.StatusForbidden
	case axp.CodeNotFound:
		return http.StatusNotFound
	case axp.CodeConflict:
		return http.StatusConflict
	case axp.CodeTooLarge:
		return http.StatusRequestEntityTooLarge
	case axp.CodeRateLimited:
		return http.StatusTooManyRequests
	case axp.CodeUnavailable:
		return http.StatusServiceUnavailable
	}
	return http.StatusInternalServerError
}
