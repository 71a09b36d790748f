// Package mcp is the MCP door of the exchange: Model Context Protocol over Streamable HTTP, stateless
// (mark3labs/mcp-go). Every operation of the catalog (contract.Ops) with a Tool name is a tool whose input
// and output schemas are derived from the operation's Go types, as /openapi.json is. Member tools
// are listed and callable only with a member secret. A plain tools/call or tools/list is answered
// by a fast path that writes the bytes mcp-go would (fast.go); everything else goes to mcp-go.
//
// The door changes no state itself and knows no other door: every tool call runs through the
// Backend, which authorizes, admits, validates and runs the same handler as the REST door.
package mcp

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/axp-exchange/axp"
	"github.com/axp-exchange/axp/contract"
	"github.com/axp-exchange/axp/daemon/pipeline"
	"github.com/axp-exchange/axp/protocol"
)

// Backend is what the MCP door needs from the exchange.
type Backend interface {
	// Authenticate establishes the caller from the request's credentials (Authorization: Bearer
	// with a member secret, the admin token or a buyer token).
	Authenticate(r *http.Request) (axp.Caller, error)
	// Run runs one call through the pipeline every door shares.
	Run(ctx context.Context, req pipeline.Request) (pipeline.Answer, error)
}

// Options tune the door.
type Options struct {
	// Name and Version are the serverInfo of the initialize answer.
	Name, Version string
	// Instructions are given to clients at initialize.
	Instructions string
	// MaxBodyBytes bounds a request body (default 1 MiB).
	MaxBodyBytes int64
}

// BuyerTokenArg is the tool argument that carries a task's buyer token (the REST door reads it from
// ?token= or the Bearer header).
const BuyerTokenArg = "buyer_token"

// Server is the MCP door, an http.Handler to mount at /mcp.
type Server struct {
	b          Backend
	o          Options
	ms         *server.MCPServer
	http       *server.StreamableHTTPServer
	memberOnly map[string]bool
	ops        map[string]toolOp // by tool name
	// lists are the tools/list results of the fast path, for callers without and with a member
	// secret (see fast.go).
	lists [2]toolList
	// meta is the _meta of a 2026-07-28 tools/call result (resultMeta).
	metaOnce sync.Once
	meta     []byte
	// slow serves every request through mcp-go (tests compare the fast path with it).
	slow bool
}

// toolOp is an operation with the route its MCP calls are recorded under.
type toolOp struct {
	op    *contract.Op
	route string
}

type ctxKey int

const (
	callerKey ctxKey = iota
	requestKey
)

// New builds the MCP door over a backend.
func New(b Backend, o Options) *Server {
	if o.Name == "" {
		o.Name = "axp"
	}
	if o.Version == "" {
		o.Version = "1"
	}
	if o.MaxBodyBytes <= 0 {
		o.MaxBodyBytes = 1 << 20
	}
	s := &Server{b: b, o: o, memberOnly: map[string]bool{}, ops: map[string]toolOp{}}
	opts := []server.ServerOption{server.WithToolCapabilities(false), server.WithToolFilter(s.filter), server.WithRecovery()}
	if o.Instructions != "" {
		opts = append(opts, server.WithInstructions(o.Instructions))
	}
	ms := server.NewMCPServer(o.Name, o.Version, opts...)
	for _, t := range Tools() {
		op := lookupTool(t.Name)
		if MemberOnly(op) {
			s.memberOnly[t.Name] = true
		}
		s.ops[t.Name] = toolOp{op: op, route: "MCP " + op.Tool}
		ms.AddTool(t, s.handler(op))
	}
	s.ms = ms
	s.http = server.NewStreamableHTTPServer(ms,
		server.WithStateLess(true),
		server.WithDisableStreaming(true),
		// The exchange checks Host and Origin itself, against its allowed hosts (daemon wires it).
		server.WithDisableLocalhostProtection(true),
		server.WithHTTPContextFunc(func(ctx context.Context, r *http.Request) context.Context {
			return context.WithValue(ctx, requestKey, r)
		}),
	)
	return s
}

// ServeHTTP authenticates the caller once per HTTP request, then serves MCP. Credentials that are
// given but wrong answer 401 (or 403 for a suspended member) before any MCP message is read; a body
// over the limit answers 413.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var body []byte
	if r.Method == http.MethodPost {
		if r.ContentLength > s.o.MaxBodyBytes {
			writeError(w, axp.TraceID(r.Context()), tooLarge(s.o.MaxBodyBytes), http.StatusRequestEntityTooLarge)
			return
		}
		var err error
		body, err = io.ReadAll(http.MaxBytesReader(w, r.Body, s.o.MaxBodyBytes))
		if err != nil {
			var mbe *http.MaxBytesError
			if errors.As(err, &mbe) {
				writeError(w, axp.TraceID(r.Context()), tooLarge(s.o.MaxBodyBytes), http.StatusRequestEntityTooLarge)
				return
			}
			writeError(w, axp.TraceID(r.Context()), axp.Invalid("body", "could not be read", ""), http.StatusBadRequest)
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
	}
	c, err := s.b.Authenticate(r)
	if err != nil {
		status := http.StatusUnauthorized
		var e *axp.Error
		if errors.As(err, &e) && (e.Code == axp.CodeForbidden || e.Code == axp.CodeUnavailable) {
			status = pipeline.Status(e.Code)
		}
		if status == http.StatusUnauthorized {
			w.Header().Set("WWW-Authenticate", `Bearer realm="axp"`)
		}
		writeError(w, axp.TraceID(r.Context()), err, status)
		return
	}
	r = r.WithContext(context.WithValue(r.Context(), callerKey, c))
	if r.Method == http.MethodPost && !s.slow && s.serveFast(w, r, body, c) {
		return
	}
	s.http.ServeHTTP(w, r)
}

func tooLarge(limit int64) *axp.Error {
	return &axp.Error{Code: axp.CodeTooLarge, Message: fmt.Sprintf("the request body is larger than %d bytes", limit),
		Hint: "send a smaller request; deliverables are limited to 256 KB of text"}
}

func writeError(w http.ResponseWriter, trace string, err error, status int) {
	var e *axp.Error
	if !errors.As(err, &e) {
		e = &axp.Error{Code: axp.CodeInternal, Message: "internal error", Hint: "report the trace id " + trace + " to the operator"}
	}
	body, _ := json.Marshal(protocol.ErrorBody{Error: *e, TraceID: trace})
	if e.RetryAfter > 0 {
		w.Header().Set("Retry-After", strconv.Itoa(e.RetryAfter))
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	w.Write(append(body, '\n'))
}

// MemberOnly reports whether an operation's tool is listed and callable only with a member secret.
func MemberOnly(op *contract.Op) bool {
	return op.Access == contract.MemberAuth || op.Access == contract.SellerAuth
}

// SetFastPath turns the fast path on (the default) or off (every request through mcp-go), for
// benchmarks that compare the two. Call it before serving.
func (s *Server) SetFastPath(on bool) { s.slow = !on }

// filter hides member tools from callers without a member secret; mcp-go applies it to tools/list
// and refuses calls of the hidden tools as unknown.
func (s *Server) filter(ctx context.Context, tools []mcp.Tool) []mcp.Tool {
	if c, _ := ctx.Value(callerKey).(axp.Caller); c.Kind == axp.MemberCall {
		return tools
	}
	out := make([]mcp.Tool, 0, len(tools))
	for _, t := range tools {
		if !s.memberOnly[t.Name] {
			out = append(out, t)
		}
	}
	return out
}

func (s *Server) handler(op *contract.Op) server.ToolHandlerFunc {
	route := s.ops[op.Tool].route
	return func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		c, _ := ctx.Value(callerKey).(axp.Caller)
		r, _ := ctx.Value(requestKey).(*http.Request)
		args, err := arguments(req)
		return s.invoke(ctx, route, op, c, args, err, r).toolResult(), nil
	}
}

// invoke runs one tool call (both paths, mcp-go's handler and the fast path, come here): args are
// the parsed arguments, or argErr says why they could not be read.
func (s *Server) invoke(ctx context.Context, route string, op *contract.Op, c axp.Caller, args map[string]any, argErr error, r *http.Request) answer {
	trace := axp.TraceID(ctx)
	if argErr != nil {
		return errorAnswer(trace, argErr)
	}
	if err := buyerToken(op, &c, args); err != nil {
		return errorAnswer(trace, err)
	}
	req := pipeline.Request{Op: op, Caller: c, Args: args, Door: pipeline.MCP, Route: route, HTTP: r}
	if r != nil {
		// As on REST: a retried tools/call with the same Idempotency-Key gets the first answer.
		req.IdempotencyKey = r.Header.Get("Idempotency-Key")
	}
	ans, err := s.b.Run(ctx, req)
	if err != nil {
		return errorAnswer(trace, err)
	}
	return result(ans.Out, trace)
}

// arguments parses the call's arguments with numbers kept exact, as the REST door parses bodies.
func arguments(req mcp.CallToolRequest) (map[string]any, error) {
	raw := req.Params.RawArguments
	if len(raw) == 0 {
		if req.Params.Arguments == nil {
			return map[string]any{}, nil
		}
		b, err := json.Marshal(req.Params.Arguments)
		if err != nil {
			return nil, axp.Invalid("arguments", "cannot be read: "+err.Error(), "")
		}
		raw = b
	}
	return parseArguments(raw)
}

// parseArguments parses raw arguments (absent or null: none) into a map with exact numbers.
func parseArguments(raw []byte) (map[string]any, error) {
	if t := bytes.TrimSpace(raw); len(t) == 0 || bytes.Equal(t, []byte("null")) {
		return map[string]any{}, nil
	}
	v, perr := protocol.ParseJSON(raw)
	if perr != nil {
		perr.Field = "arguments"
		return nil, perr
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, notObject()
	}
	return m, nil
}

func notObject() error {
	return axp.Invalid("arguments", "must be a JSON object", "give the tool's arguments as named fields")
}

// buyerToken moves the buyer_token argument into the caller, as the REST door does with ?token=.
func buyerToken(op *contract.Op, c *axp.Caller, args map[string]any) error {
	if _, given := args["token"]; given && takesBuyerToken(op) {
		return axp.Invalid("token", "is not an argument of this tool", "send the task's buyer token as "+BuyerTokenArg)
	}
	v, given := args[BuyerTokenArg]
	if !given {
		return nil
	}
	if !takesBuyerToken(op) {
		return axp.Invalid(BuyerTokenArg, "is not an argument of this tool", "")
	}
	if err := protocol.Validate(buyerTokenSchema, v, BuyerTokenArg); err != nil {
		return err
	}
	delete(args, BuyerTokenArg)
	tok := v.(string)
	if tok == "" {
		return nil
	}
	c.Token = tok
	if c.Kind == axp.Anonymous {
		c.Kind = axp.BuyerToken
	}
	if op.In != nil && protocol.SchemaOf(op.In).Properties["token"] != nil {
		args["token"] = tok
	}
	return nil
}

var buyerTokenSchema = &protocol.Schema{Type: "string", MaxLength: intp(200),
	Description: "the task's buyer_token (returned once by create_task); a buyer member may instead send its member secret as Bearer"}

func intp(n int) *int { return &n }

// takesBuyerToken reports whether the tool takes a buyer_token argument: the steps of a task's
// buyer (or of either party), and reads whose answer depends on it (get_task shows the buyer's
// view).
func takesBuyerToken(op *contract.Op) bool {
	if op.Access == contract.BuyerAuth || op.Access == contract.TaskParty {
		return true
	}
	return op.In != nil && protocol.SchemaOf(op.In).Properties["token"] != nil
}

// answer is the outcome of a tool call before it is framed as an MCP result: text is the text
// block; structured says it is the JSON of the answer, sent as structuredContent too.
type answer struct {
	text       string
	structured bool
	isError    bool
	// compact says text is compact JSON (as json.Encoder writes it), so the fast path need not
	// compact it again.
	compact bool
}

// toolResult frames an answer as mcp-go's result.
func (a answer) toolResult() *mcp.CallToolResult {
	r := &mcp.CallToolResult{Content: []mcp.Content{mcp.NewTextContent(a.text)}, IsError: a.isError}
	if a.structured {
		r.StructuredContent = json.RawMessage(a.text)
	}
	return r
}

// result is the operation's answer as structuredContent, with the same JSON as a text block for
// clients that read only content.
func result(out any, trace string) answer {
	var b []byte
	switch v := out.(type) {
	case *axp.Document:
		body := v.Body
		if v.Stream != nil {
			var buf bytes.Buffer
			if err := v.Stream(&buf); err != nil {
				return errorAnswer(trace, err)
			}
			body = buf.Bytes()
		}
		return result(documentContent(v, body), trace)
	case json.RawMessage:
		return answer{text: string(bytes.TrimSpace(v)), structured: true}
	default:
		buf := getBuffer()
		defer putBuffer(buf)
		enc := json.NewEncoder(buf)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(out); err != nil {
			return errorAnswer(trace, err)
		}
		b = bytes.TrimSpace(buf.Bytes())
	}
	return answer{text: string(b), structured: true, compact: true}
}

// documentContent is a document as JSON: text as itself, other bytes as base64, with the SHA-256
// a client checks (and gives back to accept_task).
func documentContent(d *axp.Document, body []byte) *axp.DocumentContent {
	sum := sha256.Sum256(body)
	c := &axp.DocumentContent{MimeType: d.ContentType, SHA256: hex.EncodeToString(sum[:]), Size: len(body), Filename: d.Filename}
	mt, _, _ := strings.Cut(d.ContentType, ";")
	mt = strings.TrimSpace(mt)
	text := strings.HasPrefix(mt, "text/") || mt == "application/json" || strings.HasSuffix(mt, "+json") ||
		mt == "application/xml" || strings.HasSuffix(mt, "+xml") || mt == "application/x-ndjson"
	if text && utf8.Valid(body) {
		c.Content, c.Encoding = string(body), "utf-8"
	} else {
		c.Content, c.Encoding = base64.StdEncoding.EncodeToString(body), "base64"
	}
	return c
}

// errorAnswer is a failed call as the tool result MCP asks for (isError, so that a model can read
// it and correct itself): a text block holding the exchange's error body with the code, message,
// offending field and hint. It carries no structuredContent, which would have to match the tool's
// output schema.
func errorAnswer(trace string, err error) answer {
	var e *axp.Error
	if !errors.As(err, &e) {
		e = &axp.Error{Code: axp.CodeInternal, Message: "internal error", Hint: "report the trace id " + trace + " to the operator"}
	}
	body, _ := json.Marshal(protocol.ErrorBody{Error: *e, TraceID: trace})
	return answer{text: string(body), isError: true}
}

// Tools is the tool list projected from the catalog, in catalog order.
func Tools() []mcp.Tool {
	var out []mcp.Tool
	for i := range contract.Ops {
		op := contract.Ops[i]
		if op.Tool == "" {
			continue
		}
		out = append(out, tool(op))
	}
	return out
}

func lookupTool(name string) *contract.Op {
	for i := range contract.Ops {
		if contract.Ops[i].Tool == name {
			return contract.Ops[i]
		}
	}
	return nil
}

func tool(op *contract.Op) mcp.Tool {
	in, err := json.Marshal(InputSchema(op))
	if err != nil {
		panic(fmt.Sprintf("mcp: input schema of %s: %v", op.Tool, err))
	}
	t := mcp.Tool{Name: op.Tool, Description: description(op), RawInputSchema: in}
	if os := OutputSchema(op); os != nil {
		b, err := json.Marshal(os)
		if err != nil {
			panic(fmt.Sprintf("mcp: output schema of %s: %v", op.Tool, err))
		}
		t.RawOutputSchema = b
	}
	get := op.Method == http.MethodGet
	idem := get || op.Method == http.MethodPut
	t.Annotations = mcp.ToolAnnotation{
		Title:           title(op),
		ReadOnlyHint:    &get,
		DestructiveHint: boolp(false),
		IdempotentHint:  &idem,
		OpenWorldHint:   boolp(false),
	}
	return t
}

func boolp(b bool) *bool { return &b }

func title(op *contract.Op) string {
	s := strings.ReplaceAll(op.Tool, "_", " ")
	return strings.ToUpper(s[:1]) + s[1:]
}

func description(op *contract.Op) string {
	var b strings.Builder
	b.WriteString(op.Summary)
	fmt.Fprintf(&b, " REST: %s %s.", op.Method, op.Path)
	switch op.Access {
	case contract.BuyerAuth:
		b.WriteString(" A buyer step: give the task's " + BuyerTokenArg + ", or call with your member secret as Bearer if you posted the task as a buyer member.")
	case contract.TaskParty:
		b.WriteString(" Give the task's " + BuyerTokenArg + ", or call with your member secret as Bearer as the buyer member or a seller the task concerns.")
	case contract.MemberAuth:
		b.WriteString(" Needs your member secret as Bearer.")
	case contract.SellerAuth:
		b.WriteString(" Needs a seller's member secret as Bearer.")
	}
	if op.Later != "" {
		b.WriteString(" Not available yet on this exchange: arrives with " + op.Later + ".")
	}
	return b.String()
}

// InputSchema is the tool's input schema: the operation's input type, with its path parameters as
// arguments and the buyer token as buyer_token.
func InputSchema(op *contract.Op) *protocol.Schema {
	out := &protocol.Schema{Type: "object", AdditionalProperties: false}
	var in *protocol.Schema
	if op.In != nil {
		in = protocol.SchemaOf(op.In)
		out.Description = in.Description
	}
	for _, n := range op.PathParams() {
		if in == nil || in.Properties[n] == nil {
			out.AddProperty(n, &protocol.Schema{Type: "string", MaxLength: intp(100)}, true)
		}
	}
	if in != nil {
		for _, n := range in.PropertyOrder() {
			if n == "token" && takesBuyerToken(op) {
				continue
			}
			out.AddProperty(n, in.Properties[n], contains(in.Required, n))
		}
	}
	if takesBuyerToken(op) {
		out.AddProperty(BuyerTokenArg, buyerTokenSchema, false)
	}
	return out
}

// OutputSchema is the tool's output schema, the operation's output type; nil when the answer is not
// a JSON object (MCP output schemas describe objects). protocol.SchemaOf admits null wherever the Go
// type writes null, so MCP clients that validate structuredContent accept every answer.
func OutputSchema(op *contract.Op) *protocol.Schema {
	if op.Out == nil {
		return nil
	}
	if op.ContentType != "" {
		return protocol.SchemaOf(reflect.TypeFor[axp.DocumentContent]())
	}
	s := protocol.SchemaOf(op.Out)
	if s.PrimaryType() != "object" {
		return nil
	}
	return s
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
