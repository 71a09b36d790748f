// Package rest is the REST door of the exchange: routes, input decoding and validation, error bodies,
// trace ids, body limits and idempotent replays, all projected from the operation catalog (axp.Ops).
// It changes no state itself: every operation runs through the Backend's handler. Invoke runs an
// operation for the exchange's other doors (MCP, A2A) through the same steps.
package rest

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"reflect"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/axp-exchange/axp"
	"github.com/axp-exchange/axp/protocol"
)

// Call is one decoded operation call.
type Call struct {
	Op     *axp.Op
	Caller axp.Caller
	// In points to the decoded input (of type Op.In), or is nil for operations without input.
	In   any
	Path map[string]string
	// Request is the HTTP request that carried the call: the REST request, or the JSON-RPC request
	// of the MCP or A2A door (a POST whose input is typed JSON, never a query string).
	Request *http.Request
}

// Handler runs an operation.
type Handler func(ctx context.Context, c *Call) (any, error)

// Backend is what the REST door needs from the exchange.
type Backend interface {
	// Handler returns the handler of an operation, or nil when it has none yet.
	HandlerFor(op *axp.Op) Handler
	// Authenticate establishes the caller from the request's credentials.
	Authenticate(r *http.Request) (axp.Caller, error)
	// Admit applies rate limits to a call; a refusal is a rate_limited *axp.Error. refund, when not
	// nil, is called if the call then changes nothing (refused input, a replay, an error), so that
	// such calls do not use up a limit.
	Admit(op *axp.Op, c axp.Caller) (refund func(), err error)
	// Replay looks up an earlier answer to an idempotent call of caller c: the status and body, or
	// found=false.
	Replay(i *axp.Idempotency, c axp.Caller) (status int, body []byte, found bool, err error)
	// Observe records a finished request for metrics and the log.
	Observe(r *http.Request, route string, status int, elapsed time.Duration, c axp.Caller, err error)
	// Logger logs with trace ids.
	Logger() *slog.Logger
}

// Options tune the door.
type Options struct {
	MaxBodyBytes int64
	// IdempotencySecret derives the key that seals stored answers from each caller's raw key.
	IdempotencySecret []byte
}

// Server is the REST door.
type Server struct {
	b   Backend
	o   Options
	mux *http.ServeMux
	ops map[string]*route // method + " " + pattern -> route
	// handlers holds the handler of every operation by name, for Invoke.
	handlers map[string]Handler
	// inflight holds the idempotency keys of calls running now.
	inflight sync.Map
}

type route struct {
	op      *axp.Op
	handler Handler
	query   bool
}

// New builds the REST door over a backend.
func New(b Backend, o Options) *Server {
	if o.MaxBodyBytes == 0 {
		o.MaxBodyBytes = 1 << 20
	}
	s := &Server{b: b, o: o, mux: http.NewServeMux(), ops: map[string]*route{}, handlers: map[string]Handler{}}
	for i := range axp.Ops {
		op := &axp.Ops[i]
		h := b.HandlerFor(op)
		if h == nil {
			h = unavailable(op)
		}
		s.handlers[op.Name] = h
		s.add(op.Method, op.Path, op, h)
		if op.GETForm {
			s.add(http.MethodGet, op.GETFormPath(), op, h)
		}
	}
	s.mux.HandleFunc("/", s.notFound)
	return s
}

func unavailable(op *axp.Op) Handler {
	return func(context.Context, *Call) (any, error) {
		area := op.Later
		if area == "" {
			area = "a later release"
		}
		return nil, &axp.Error{Code: axp.CodeUnavailable, Message: op.Name + " is not available yet on this exchange",
			Hint: "it arrives with " + area + "; see /api/protocol for what is live"}
	}
}

func (s *Server) add(method, path string, op *axp.Op, h Handler) {
	pattern := method + " " + path
	rt := &route{op: op, handler: h, query: op.QueryInput(method)}
	s.ops[pattern] = rt
	s.mux.Handle(pattern, s.wrap(pattern, rt))
}

// ServeHTTP serves the door.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) { s.mux.ServeHTTP(w, r) }

var traceRe = regexp.MustCompile(`^[A-Za-z0-9._:\-]{1,128}$`)

// NewTraceID returns a fresh trace id.
func NewTraceID() string { return axp.RandomHex(12) }

// TraceOf returns the caller's trace id if it is well-formed, else a fresh one.
func TraceOf(r *http.Request) string {
	if t := r.Header.Get(protocol.HeaderTraceID); t != "" && traceRe.MatchString(t) {
		return t
	}
	return NewTraceID()
}

func (s *Server) notFound(w http.ResponseWriter, r *http.Request) {
	trace := TraceOf(r)
	w.Header().Set(protocol.HeaderTraceID, trace)
	var allowed []string
	for _, m := range []string{"GET", "POST", "PUT", "PATCH", "DELETE"} {
		probe := r.Clone(r.Context())
		probe.Method = m
		if _, p := s.mux.Handler(probe); p != "" && p != "/" {
			allowed = append(allowed, m)
		}
	}
	if len(allowed) > 0 {
		w.Header().Set("Allow", strings.Join(allowed, ", "))
		WriteError(w, trace, &axp.Error{Code: axp.CodeNotFound, Message: r.Method + " is not allowed on " + r.URL.Path,
			Hint: "use " + strings.Join(allowed, " or ")}, http.StatusMethodNotAllowed)
		s.b.Observe(r, "unmatched", http.StatusMethodNotAllowed, 0, axp.Caller{}, nil)
		return
	}
	WriteError(w, trace, &axp.Error{Code: axp.CodeNotFound, Message: "no such endpoint: " + r.Method + " " + r.URL.Path,
		Hint: "see /openapi.json for every endpoint"}, 0)
	s.b.Observe(r, "unmatched", http.StatusNotFound, 0, axp.Caller{}, nil)
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

// WriteError writes the error body. status 0 derives it from the code. Errors that are not typed
// are shown only as "internal error" with the trace id.
func WriteError(w http.ResponseWriter, trace string, err error, status int) {
	var e *axp.Error
	if !errors.As(err, &e) {
		e = &axp.Error{Code: axp.CodeInternal, Message: "internal error", Hint: "report the trace id " + trace + " to the operator"}
	}
	if status == 0 {
		status = Status(e.Code)
	}
	if e.RetryAfter > 0 {
		w.Header().Set("Retry-After", strconv.Itoa(e.RetryAfter))
	}
	body, _ := json.Marshal(protocol.ErrorBody{Error: *e, TraceID: trace})
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	w.Write(append(body, '\n'))
}

func (s *Server) wrap(pattern string, rt *route) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		trace := TraceOf(r)
		w.Header().Set(protocol.HeaderTraceID, trace)
		ctx := axp.WithTrace(r.Context(), trace)
		r = r.WithContext(ctx)
		status, caller, err := s.serve(w, r, trace, rt)
		s.b.Observe(r, pattern, status, time.Since(start), caller, err)
	})
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request, trace string, rt *route) (status int, caller axp.Caller, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("panic: %v", p)
			s.b.Logger().ErrorContext(r.Context(), "panic serving request", "source", "http", "route", rt.op.Name, "panic", fmt.Sprint(p))
			WriteError(w, trace, err, 0)
			status = http.StatusInternalServerError
		}
	}()
	fail := func(e error) (int, axp.Caller, error) {
		st := 0
		var te *axp.Error
		if errors.As(e, &te) {
			st = Status(te.Code)
		} else {
			st = http.StatusInternalServerError
		}
		WriteError(w, trace, e, st)
		return st, caller, e
	}
	caller, err = s.b.Authenticate(r)
	if err != nil {
		return fail(err)
	}
	refund, err := s.admit(rt.op, caller)
	if err != nil {
		return fail(err)
	}
	done := false
	if refund != nil {
		defer func() {
			if !done {
				refund()
			}
		}()
	}
	var raw []byte
	if !rt.query && rt.op.In != nil {
		if r.ContentLength > s.o.MaxBodyBytes {
			return fail(tooLarge(s.o.MaxBodyBytes))
		}
		raw, err = io.ReadAll(http.MaxBytesReader(w, r.Body, s.o.MaxBodyBytes))
		if err != nil {
			var mbe *http.MaxBytesError
			if errors.As(err, &mbe) {
				return fail(tooLarge(s.o.MaxBodyBytes))
			}
			return fail(axp.Invalid("body", "could not be read: "+err.Error(), ""))
		}
	}
	in, path, derr := s.decode(r, rt, raw)
	if derr != nil {
		return fail(derr)
	}
	ctx := r.Context()
	if key := r.Header.Get("Idempotency-Key"); key != "" && rt.op.Mutating() && !rt.query {
		if len(key) > 255 {
			return fail(axp.Invalid("Idempotency-Key", "is longer than 255 characters", "use a UUID"))
		}
		// An anonymous caller is known only by its address, which it may share (NAT, a proxy):
		// the key alone separates it from its neighbours, and a replay returns secrets (a
		// buyer token, a member secret). So the key must be long enough to be unguessable.
		if caller.Kind == axp.Anonymous && len(key) < minAnonymousKey {
			return fail(axp.Invalid("Idempotency-Key", fmt.Sprintf("must be at least %d characters for calls without credentials", minAnonymousKey),
				"use a new random UUID for each request, e.g. 5f0c3a9e-8d2b-4c1e-9a7f-2b6d8e4c1a03"))
		}
		idem := s.idempotency(rt.op, caller, key, r.URL.Path, raw)
		// One call per key at a time: a retry that arrives while the first call still runs would
		// otherwise miss the stored answer and run again.
		if _, busy := s.inflight.LoadOrStore(idem.Key, struct{}{}); busy {
			return fail(axp.Conflict("a request with this Idempotency-Key is still in progress",
				"wait for its answer, then retry with the same key to get it again"))
		}
		defer s.inflight.Delete(idem.Key)
		st, body, found, err := s.b.Replay(idem, caller)
		if err != nil {
			return fail(err)
		}
		if found {
			if st < 0 {
				return fail(axp.Conflict("this Idempotency-Key was used with a different request",
					"use a new key for a new request, or resend exactly the first body"))
			}
			w.Header().Set("Content-Type", "application/json")
			w.Header().Set("Idempotent-Replayed", "true")
			w.WriteHeader(st)
			w.Write(body)
			return st, caller, nil
		}
		ctx = axp.WithIdempotency(ctx, idem)
	}
	out, err := rt.handler(ctx, &Call{Op: rt.op, Caller: caller, In: in, Path: path, Request: r})
	if err != nil {
		return fail(err)
	}
	done = true
	status = rt.op.SuccessStatus()
	writeOut(w, status, out)
	return status, caller, nil
}

// minAnonymousKey is the shortest Idempotency-Key accepted from a caller without credentials.
const minAnonymousKey = 16

func tooLarge(limit int64) *axp.Error {
	return &axp.Error{Code: axp.CodeTooLarge, Message: fmt.Sprintf("the request body is larger than %d bytes", limit),
		Hint: "send a smaller body; deliverables are limited to 256 KB of text"}
}

// idempotency describes a call made with an Idempotency-Key. The request hash covers the path as
// well as the body, so the same key sent to another resource is a different request (409).
func (s *Server) idempotency(op *axp.Op, c axp.Caller, key, path string, raw []byte) *axp.Idempotency {
	scope := c.Actor()
	if c.Kind == axp.Anonymous || c.Kind == axp.BuyerToken {
		scope += "|" + protocol.Fingerprint(c.IP+"|"+c.Token)
	}
	k := sha256.Sum256([]byte(scope + "\x00" + op.Name + "\x00" + key))
	b := sha256.Sum256(append([]byte(path+"\x00"), raw...))
	seal := sha256.Sum256(append(append([]byte(nil), s.o.IdempotencySecret...), key...))
	return &axp.Idempotency{Key: hex.EncodeToString(k[:]), BodyHash: hex.EncodeToString(b[:]), Op: op.Name,
		Status: op.SuccessStatus(), Seal: seal[:]}
}

// admit authorizes a call by the operation's access level and applies the rate limits; every door
// runs it before decoding the input.
func (s *Server) admit(op *axp.Op, c axp.Caller) (refund func(), err error) {
	if err := authorize(op, c); err != nil {
		return nil, err
	}
	return s.b.Admit(op, c)
}

func authorize(op *axp.Op, c axp.Caller) error {
	switch op.Access {
	case axp.MemberAuth:
		if c.Kind != axp.MemberCall {
			return axp.Unauthorized("this call needs a member secret", "send Authorization: Bearer <member_secret>; register at POST /api/members/register")
		}
	case axp.SellerAuth:
		if c.Kind != axp.MemberCall {
			return axp.Unauthorized("this call needs a seller's member secret", "send Authorization: Bearer <member_secret>")
		}
		if !c.HasRole(protocol.RoleSeller) {
			return axp.Forbidden("only sellers may do this", `add "seller" to your roles with PATCH /api/members/me`)
		}
	case axp.BuyerAuth, axp.TaskParty:
		if c.Kind != axp.MemberCall && c.Kind != axp.BuyerToken {
			return axp.Unauthorized("this call needs the task's buyer token or your member secret",
				"send ?token=<buyer_token> or Authorization: Bearer <buyer_token>")
		}
	case axp.AdminAuth:
		if c.Kind != axp.Operator {
			return axp.Unauthorized("this call needs the admin token", "send Authorization: Bearer <admin token>")
		}
	}
	return nil
}

// decode builds the input of a call from path, query and body, validated against the input schema.
func (s *Server) decode(r *http.Request, rt *route, raw []byte) (any, map[string]string, error) {
	op := rt.op
	var path map[string]string
	if names := op.PathParams(); len(names) > 0 {
		path = make(map[string]string, len(names))
		for _, n := range names {
			path[n] = r.PathValue(n)
		}
	}
	if op.In == nil {
		return nil, path, nil
	}
	schema := protocol.SchemaOf(op.In)
	query := r.URL.Query()
	var obj map[string]any
	if rt.query {
		var extra map[string]any
		if op.ExtraQuery != "" {
			extra = map[string]any{}
		}
		obj = protocol.FromQuery(schema, query, extra, "token")
		if len(extra) > 0 {
			// Extra keys join an object given under the field's own name (params={...}).
			if given, ok := obj[op.ExtraQuery].(map[string]any); ok {
				for k, v := range extra {
					given[k] = v
				}
			} else {
				obj[op.ExtraQuery] = extra
			}
		}
	} else {
		if len(strings.TrimSpace(string(raw))) == 0 {
			raw = []byte("{}")
		}
		// The body is read as JSON whatever its Content-Type says (curl -d sends a form type);
		// a body that is not JSON is refused by the parser with the position of the error. JSON
		// is UTF-8 (RFC 8259): the parser would silently turn bad bytes into U+FFFD.
		if !utf8.Valid(raw) {
			return nil, nil, axp.Invalid("body", "is not valid UTF-8", "send the body encoded as UTF-8")
		}
		v, err := protocol.ParseJSON(raw)
		if err != nil {
			return nil, nil, err
		}
		m, ok := v.(map[string]any)
		if !ok {
			return nil, nil, axp.Invalid("body", "must be a JSON object", "wrap the fields in {...}")
		}
		obj = m
	}
	for n, v := range path {
		if _, declared := schema.Properties[n]; declared {
			obj[n] = v
		}
	}
	if tok := query.Get("token"); tok != "" {
		if _, declared := schema.Properties["token"]; declared {
			obj["token"] = tok
		}
	}
	in, err := input(op, obj)
	if err != nil {
		return nil, nil, err
	}
	return in, path, nil
}

// input validates the input object of a call against the operation's input schema and decodes it
// into a new value of type Op.In; every door decodes through it.
func input(op *axp.Op, obj map[string]any) (any, error) {
	in := newOf(op)
	if err := protocol.DecodeValue(obj, in); err != nil {
		return nil, err
	}
	return in, nil
}

func writeOut(w http.ResponseWriter, status int, out any) {
	switch v := out.(type) {
	case *axp.Document:
		for k, val := range v.Header {
			w.Header().Set(k, val)
		}
		w.Header().Set("Content-Type", v.ContentType)
		w.WriteHeader(status)
		if v.Stream != nil {
			v.Stream(w)
			return
		}
		w.Write(v.Body)
		return
	case json.RawMessage:
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		w.Write(v)
		return
	}
	buf := bufPool.Get().(*bytes.Buffer)
	defer bufPool.Put(buf)
	buf.Reset()
	enc := json.NewEncoder(buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(out); err != nil {
		WriteError(w, w.Header().Get(protocol.HeaderTraceID), err, 0)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	w.Write(buf.Bytes())
}

var bufPool = sync.Pool{New: func() any { return new(bytes.Buffer) }}

func newOf(op *axp.Op) any { return reflect.New(op.In).Interface() }

// Invoke runs one call of op for another door of the exchange (MCP, A2A) through the same steps as
// a REST request once the door has established the caller and parsed the input: authorize by the
// operation's access level, Admit, validate and decode args against the input schema, run the
// Backend's handler. args holds the input fields, path parameters included (a path parameter the
// input type does not declare is taken out of args and given to the handler in Call.Path). r is the
// door's HTTP request; the call is recorded under route for metrics and the log.
func (s *Server) Invoke(ctx context.Context, route string, op *axp.Op, caller axp.Caller, args map[string]any, r *http.Request) (out any, err error) {
	start := time.Now()
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("panic: %v", p)
			s.b.Logger().ErrorContext(ctx, "panic serving call", "source", "http", "route", route, "panic", fmt.Sprint(p))
		}
		status := op.SuccessStatus()
		if err != nil {
			status = http.StatusInternalServerError
			var e *axp.Error
			if errors.As(err, &e) {
				status = Status(e.Code)
			}
		}
		// The call is logged as the operation it is (a read is a GET whatever the door's HTTP
		// method), so that reads through every door log and cost alike.
		obs := r
		if r != nil && r.Method != op.Method {
			obs = r.WithContext(r.Context())
			obs.Method = op.Method
		}
		s.b.Observe(obs, route, status, time.Since(start), caller, err)
	}()
	h := s.handlers[op.Name]
	if h == nil {
		return nil, axp.NotFound("operation", op.Name)
	}
	refund, err := s.admit(op, caller)
	if err != nil {
		return nil, err
	}
	done := false
	if refund != nil {
		defer func() {
			if !done {
				refund()
			}
		}()
	}
	if args == nil {
		args = map[string]any{}
	}
	var path map[string]string
	var schema *protocol.Schema
	if op.In != nil {
		schema = protocol.SchemaOf(op.In)
	}
	for _, n := range op.PathParams() {
		if path == nil {
			path = map[string]string{}
		}
		v, given := args[n]
		sv, isString := v.(string)
		if schema == nil || schema.Properties[n] == nil {
			if !given || !isString || sv == "" {
				return nil, axp.Invalid(n, "is required (a string)", "give the "+n+" the call is about")
			}
			delete(args, n)
		}
		if isString {
			path[n] = sv
		}
	}
	var in any
	if op.In != nil {
		if in, err = input(op, args); err != nil {
			return nil, err
		}
	} else if len(args) > 0 {
		keys := make([]string, 0, len(args))
		for k := range args {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		return nil, axp.Invalid(keys[0], "is not a known field", "this call takes no input")
	}
	out, err = h(ctx, &Call{Op: op, Caller: caller, In: in, Path: path, Request: r})
	if err != nil {
		return nil, err
	}
	done = true
	return out, nil
}
