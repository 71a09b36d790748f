// Package rest is the REST door of the exchange: a route for every operation of the catalog
// (contract.Ops) and its GET form, trace ids, body limits, error bodies and the OpenAPI description.
// It reads the caller and the input fields from HTTP and hands the call to the pipeline, which runs
// it as it runs the calls of every other door.
package rest

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/axp-exchange/axp"
	"github.com/axp-exchange/axp/contract"
	"github.com/axp-exchange/axp/daemon/pipeline"
	"github.com/axp-exchange/axp/protocol"
)

// Backend is what the REST door needs from the exchange besides the pipeline.
type Backend interface {
	// Authenticate establishes the caller from the request's credentials.
	Authenticate(r *http.Request) (axp.Caller, error)
	// Observe records a request refused before it reached the pipeline.
	Observe(r *http.Request, route string, status int, elapsed time.Duration, c axp.Caller, err error)
	// Logger logs with trace ids.
	Logger() *slog.Logger
}

// Options tune the door.
type Options struct {
	MaxBodyBytes int64
}

// Server is the REST door.
type Server struct {
	b   Backend
	p   *pipeline.Pipeline
	o   Options
	mux *http.ServeMux
	ops map[string]*route // method + " " + pattern -> route
}

type route struct {
	op    *contract.Op
	query bool
}

// New builds the REST door: a route for every operation of the catalog (and its GET form), each
// served through the pipeline.
func New(b Backend, p *pipeline.Pipeline, o Options) *Server {
	if o.MaxBodyBytes == 0 {
		o.MaxBodyBytes = 1 << 20
	}
	s := &Server{b: b, p: p, o: o, mux: http.NewServeMux(), ops: map[string]*route{}}
	for i := range contract.Ops {
		op := contract.Ops[i]
		s.add(op.Method, op.Path, op)
		if op.GETForm {
			s.add(http.MethodGet, op.GETFormPath(), op)
		}
	}
	s.mux.HandleFunc("/", s.notFound)
	return s
}

func (s *Server) add(method, path string, op *contract.Op) {
	pattern := method + " " + path
	if path == "/" {
		pattern += "{$}" // the front door alone, not every path under it
	}
	rt := &route{op: op, query: op.QueryInput(method)}
	s.ops[pattern] = rt
	s.mux.Handle(pattern, s.wrap(pattern, rt))
}

// ServeHTTP serves the door.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) { s.mux.ServeHTTP(w, r) }

var traceRe = regexp.MustCompile(`^[A-Za-z0-9._:\-]{1,128}$`)

// NewTraceID returns a fresh trace id (axp.NewTraceID).
func NewTraceID() string { return axp.NewTraceID(time.Now()) }

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
func Status(code axp.Code) int { return pipeline.Status(code) }

// WriteError writes the error body. status 0 derives it from the code. Errors that are not typed
// are shown only as "internal error" with the trace id.
func WriteError(w http.ResponseWriter, trace string, err error, status int) {
	h := w.Header()
	var body []byte
	var demand *axp.PaymentDemand
	if errors.As(err, &demand) {
		// x402: the terms travel in the headers (v2) and the body (v1), in the protocol's shape.
		for k, v := range demand.Header {
			h.Set(k, v)
		}
		body, _ = json.Marshal(demand.Body)
		status = http.StatusPaymentRequired
	} else {
		var e *axp.Error
		if !errors.As(err, &e) {
			e = &axp.Error{Code: axp.CodeInternal, Message: "internal error", Hint: "report the trace id " + trace + " to the operator"}
		}
		if status == 0 {
			status = Status(e.Code)
		}
		if e.RetryAfter > 0 {
			h.Set("Retry-After", strconv.Itoa(e.RetryAfter))
		}
		body, _ = json.Marshal(protocol.ErrorBody{Error: *e, TraceID: trace})
	}
	h.Set("Content-Type", "application/json")
	h.Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	w.Write(append(body, '\n'))
}

func (s *Server) wrap(pattern string, rt *route) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		trace := TraceOf(r)
		w.Header().Set(protocol.HeaderTraceID, trace)
		r = r.WithContext(axp.WithTrace(r.Context(), trace))
		s.serve(w, r, trace, pattern, rt)
	})
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request, trace, pattern string, rt *route) {
	start := time.Now()
	caller, err := s.b.Authenticate(r)
	if err != nil {
		if r.ContentLength != 0 {
			w.Header().Set("Connection", "close") // answered without waiting for the body
		}
		WriteError(w, trace, err, 0)
		elapsed := time.Since(start)
		s.p.Refused(rt.op, pipeline.REST, errStatus(err), err, elapsed)
		s.b.Observe(r, pattern, errStatus(err), elapsed, caller, err)
		return
	}
	op := rt.op
	var path map[string]string
	if names := op.PathParams(); len(names) > 0 {
		path = make(map[string]string, len(names))
		for _, n := range names {
			path[n] = r.PathValue(n)
		}
	}
	parsed := false
	req := pipeline.Request{Op: op, Caller: caller, Path: path, FromQuery: rt.query, Door: pipeline.REST,
		IdempotencyKey: r.Header.Get("Idempotency-Key"), Route: pattern, HTTP: r,
		Parse: func() (map[string]any, error) { parsed = true; return s.args(w, r, rt) }}
	ans, err := s.p.Run(r.Context(), req)
	if err != nil {
		if !parsed && r.ContentLength != 0 {
			// Refused before the body was read (unauthorized, over a limit): answer now and close
			// the connection, or net/http reads what is left of a slow body first.
			w.Header().Set("Connection", "close")
		}
		for k, v := range ans.Header {
			w.Header().Set(k, v) // a paid call's void
		}
		WriteError(w, trace, err, 0)
		return
	}
	if ans.Replayed {
		w.Header().Set("Idempotent-Replayed", "true")
	}
	for k, v := range ans.Header {
		w.Header().Set(k, v)
	}
	if n, ok := ans.Out.(axp.Negotiated); ok {
		w.Header().Add("Vary", "Accept")
		ans.Out = n.Negotiate(r.Header.Get("Accept"))
	}
	writeOut(w, ans.Status, ans.Out)
}

func errStatus(err error) int {
	var e *axp.Error
	if errors.As(err, &e) {
		return Status(e.Code)
	}
	return http.StatusInternalServerError
}

func tooLarge(limit int64) *axp.Error {
	return &axp.Error{Code: axp.CodeTooLarge, Message: fmt.Sprintf("the request body is larger than %d bytes", limit),
		Hint: "send a smaller body; deliverables are limited to 256 KB of text"}
}

// args reads the input fields of a call from the query string or the JSON body.
func (s *Server) args(w http.ResponseWriter, r *http.Request, rt *route) (map[string]any, error) {
	op := rt.op
	if op.In == nil {
		return nil, nil
	}
	schema := protocol.SchemaOf(op.In)
	query := r.URL.Query()
	var obj map[string]any
	if rt.query {
		var extra map[string]any
		if op.ExtraQuery != "" {
			extra = map[string]any{}
		}
		ignore := []string{"token"}
		if op.Access == contract.Paid {
			ignore = append(ignore, "trial") // ?trial=1 asks for a free trial call
		}
		obj = protocol.FromQuery(schema, query, extra, ignore...)
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
		if r.ContentLength > s.o.MaxBodyBytes {
			return nil, tooLarge(s.o.MaxBodyBytes)
		}
		raw, err := io.ReadAll(http.MaxBytesReader(w, r.Body, s.o.MaxBodyBytes))
		if err != nil {
			var mbe *http.MaxBytesError
			if errors.As(err, &mbe) {
				return nil, tooLarge(s.o.MaxBodyBytes)
			}
			return nil, axp.Invalid("body", "could not be read: "+err.Error(), "")
		}
		if len(strings.TrimSpace(string(raw))) == 0 {
			raw = []byte("{}")
		}
		// The body is read as JSON whatever its Content-Type says (curl -d sends a form type);
		// a body that is not JSON is refused by the parser with the position of the error. JSON
		// is UTF-8 (RFC 8259): the parser would silently turn bad bytes into U+FFFD.
		if !utf8.Valid(raw) {
			return nil, axp.Invalid("body", "is not valid UTF-8", "send the body encoded as UTF-8")
		}
		v, perr := protocol.ParseJSON(raw)
		if perr != nil {
			return nil, perr
		}
		m, ok := v.(map[string]any)
		if !ok {
			return nil, axp.Invalid("body", "must be a JSON object", "wrap the fields in {...}")
		}
		obj = m
	}
	if tok := query.Get("token"); tok != "" {
		if _, declared := schema.Properties["token"]; declared {
			obj["token"] = tok
		}
	}
	return obj, nil
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
	case interface{ SealedJSON() []byte }:
		// An answer encoded once when it was cached (the catalog of services).
		if b := v.SealedJSON(); b != nil {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(status)
			w.Write(b)
			w.Write(newline)
			return
		}
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

var newline = []byte("\n")

var bufPool = sync.Pool{New: func() any { return new(bytes.Buffer) }}
