// Package outbound is the exchange's call path to members: MCP tool calls over Streamable HTTP
// (spec section 6), signed JSON posts to a task's callback_url, and a retrying pusher for events.
// Every HTTP request it sends is signed per spec section 5.
//
// It treats a member's server as untrusted: every call is bounded by one timeout, answers are
// capped in size and validated against the tool's output schema, and every failure comes back as
// a *CallError whose message can be shown to the member. It must not import the daemon or the
// store: the daemon hands it a Target and gets typed answers back.
package outbound

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"reflect"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/axp-exchange/axp/protocol"
)

// DefaultMaxAnswer caps the size of one HTTP answer from a member.
const DefaultMaxAnswer = 1 << 20

// Target is the member a call goes to.
type Target struct {
	MemberID    string
	MCPURL      string
	PlatformKey []byte
	AuthToken   string // sent as a Bearer token only when set
}

// Caller makes calls to members. The zero value is ready to use; a Caller is safe for concurrent
// use. Calls are stateless (spec section 6) unless a member's server insists on an MCP session:
// the Caller then keeps that session for the member's next calls (at most maxSessions of them).
type Caller struct {
	// HTTP is the client whose Transport carries the calls (nil, or a nil Transport: the
	// Caller's own pooled transport, see transport). Its redirect policy is not used: redirects
	// are never followed.
	HTTP *http.Client
	// Timeout bounds each whole call, handshake included (0: 10 s, spec section 8).
	Timeout time.Duration
	// MaxAnswer caps each HTTP answer in bytes (0: DefaultMaxAnswer).
	MaxAnswer int64
	// Now is the clock used for X-AX-Timestamp (nil: time.Now).
	Now func() time.Time
	// Observe, when set, is told of every call: op is "mcp:<tool>", "mcp:tools/list" or
	// "callback"; err is nil on success.
	Observe func(op string, elapsed time.Duration, err error)
	// Trace, when set, gives the trace id to send as X-Trace-Id (nil: TraceID, which reads
	// WithTrace).
	Trace func(context.Context) string
	// AllowPrivate lets the Caller's own transport dial private, link-local, carrier-grade NAT,
	// unique local and unspecified addresses (key outbound_private: allow). When false they are
	// refused at dial time with a refused_target CallError; loopback is allowed unless DenyLoopback. It does
	// not apply to a Transport given in HTTP, and must be set before the first call.
	AllowPrivate bool
	// DenyLoopback refuses loopback too (unless AllowPrivate): set when the exchange listens
	// beyond its own machine. Must be set before the first call.
	DenyLoopback bool
	// Trusted lists endpoints the operator configured (host:port, e.g. the AI provider's), which
	// may be private even when private targets are denied: no third party chose them. Must be
	// set before the first call.
	Trusted []string

	poolOnce sync.Once
	pool     *http.Transport // the Caller's own transport, made on first use

	sessMu   sync.Mutex
	sessions map[sessionKey]session // MCP sessions of the members whose servers keep them
}

// MaxParallel caps the connections the Caller's own transport opens to one host, and the calls a
// quote round has under way at once (a round of more sellers calls them as earlier calls end).
// A round of up to MaxParallel sellers calls them all at once, so its latency is the slowest
// seller's.
const MaxParallel = 1024

// Idle connections the Caller's own transport keeps for reuse: as many as a quote round has
// calls under way, so that the next round finds a connection to every push seller it called
// (MaxParallel bounds the pool; on a machine with fewer push sellers the pool holds fewer). A
// round that opens a thousand connections anew costs a dial, an accept and a close for each, on
// both sides; an idle connection costs two goroutines and its buffers (some 20 KB) until it is
// used again or idleTimeout passes.
const (
	maxIdleConns        = MaxParallel
	maxIdleConnsPerHost = MaxParallel
	idleTimeout         = 90 * time.Second
)

// Guard is what the Caller's own transport refuses to dial.
func (c *Caller) Guard() Guard {
	return Guard{AllowPrivate: c.AllowPrivate, DenyLoopback: c.DenyLoopback, Trusted: c.Trusted}
}

// transport is the Caller's own transport (NewTransport of its Guard), made on first use.
func (c *Caller) transport() *http.Transport {
	c.poolOnce.Do(func() { c.pool = NewTransport(c.Guard()) })
	return c.pool
}

// HTTPClient is a client for the exchange's outbound HTTP that is not a member tool call
// (conformance probes, the AI provider): the Caller's transport with its dial-time guard against
// denied addresses, no redirects followed (a 3xx is answered as it is), and timeout as a whole.
func (c *Caller) HTTPClient(timeout time.Duration) *http.Client {
	var base http.RoundTripper
	if c.HTTP != nil {
		base = c.HTTP.Transport
	}
	if base == nil {
		base = c.transport()
	}
	return NewClient(base, timeout)
}

// TrustedEndpoint is the host:port the transport dials for rawURL (the scheme's default port
// when none is given), as Trusted wants it; "" when rawURL has no host.
func TrustedEndpoint(rawURL string) string {
	u, err := url.Parse(strings.TrimSpace(rawURL))
	if err != nil || u.Hostname() == "" {
		return ""
	}
	port := u.Port()
	if port == "" {
		port = "80"
		if u.Scheme == "https" {
			port = "443"
		}
	}
	return net.JoinHostPort(strings.ToLower(u.Hostname()), port)
}

// CloseIdleConnections closes the idle connections of the Caller's own transport (calls under
// way are not affected; later calls open new ones).
func (c *Caller) CloseIdleConnections() {
	c.poolOnce.Do(func() {}) // nothing to close if no call was made
	if c.pool != nil {
		c.pool.CloseIdleConnections()
	}
}

// Result describes a successful call.
type Result struct {
	Latency time.Duration
	// Bytes is the size of the member's raw answers, summed over every HTTP request of the call.
	Bytes int64
	// Answer is the tool's answer as validated (structuredContent, or the JSON of the text block).
	Answer json.RawMessage
	// Handshake says the member's server refused a stateless call, so the call initialized an
	// MCP session first.
	Handshake bool
}

type traceKey struct{}

// WithTrace returns ctx carrying a trace id for the calls made with it.
func WithTrace(ctx context.Context, id string) context.Context {
	return context.WithValue(ctx, traceKey{}, id)
}

// TraceID returns the trace id WithTrace put in ctx, or "".
func TraceID(ctx context.Context) string {
	s, _ := ctx.Value(traceKey{}).(string)
	return s
}

func (c *Caller) timeout() time.Duration {
	if c.Timeout > 0 {
		return c.Timeout
	}
	return protocol.ToolCallTimeoutMillis * time.Millisecond
}

func (c *Caller) limit() int64 {
	if c.MaxAnswer > 0 {
		return c.MaxAnswer
	}
	return DefaultMaxAnswer
}

func (c *Caller) now() time.Time {
	if c.Now != nil {
		return c.Now()
	}
	return time.Now()
}

func (c *Caller) trace(ctx context.Context) string {
	if c.Trace != nil {
		return c.Trace(ctx)
	}
	return TraceID(ctx)
}

func (c *Caller) observe(op string, start time.Time, err error) time.Duration {
	elapsed := time.Since(start)
	if c.Observe != nil {
		c.Observe(op, elapsed, err)
	}
	return elapsed
}

// call is the state of one outbound call.
type call struct {
	c      *Caller
	op     string // the name errors carry: the tool, "tools/list" or "callback"
	parent context.Context
	ctx    context.Context
	target Target
	url    *url.URL // target.MCPURL, parsed once by checkURL for every request of the call
	stats  *httpStats
	client *http.Client
	// session is the MCP session of the message being sent (nil: none).
	session *session
}

func (c *Caller) newCall(parent context.Context, t Target, op string) (*call, context.CancelFunc) {
	return c.newCallTracking(parent, t, op, false)
}

func (c *Caller) newCallTracking(parent context.Context, t Target, op string, trackAll bool) (*call, context.CancelFunc) {
	ctx, cancel := context.WithTimeout(parent, c.timeout())
	var base http.RoundTripper
	var clientTimeout time.Duration
	if c.HTTP != nil {
		base = c.HTTP.Transport
		clientTimeout = c.HTTP.Timeout
	}
	if base == nil {
		base = c.transport()
	}
	k := &call{c: c, op: op, parent: parent, ctx: ctx, target: t, stats: &httpStats{}}
	// Redirects are answered as they are, never followed (see noRedirect).
	k.client = NewClient(&signer{base: base, ctx: ctx, target: t, now: c.now, trace: c.trace(parent), limit: c.limit(), stats: k.stats, trackAll: trackAll}, clientTimeout)
	return k, cancel
}

// Args is a tool input already encoded as compact JSON (json.Marshal's output), sent as it is
// without a second look: a quote round encodes its input once and sends it to every seller.
type Args []byte

// Call calls one member tool and decodes its answer into out (a pointer, or nil to check the
// answer only). in is the tool's input, encoded as JSON; Args are sent as they are, and a
// json.RawMessage compacted (and checked) first. The answer is validated against the
// tool's output schema, so a member that answers nonsense gets an error naming the field. Every
// failure is a *CallError.
func (c *Caller) Call(ctx context.Context, t Target, tool string, in any, out any) (Result, error) {
	start := time.Now()
	res, err := c.doCall(ctx, t, tool, in, out)
	res.Latency = c.observe("mcp:"+tool, start, err)
	return res, err
}

func (c *Caller) doCall(ctx context.Context, t Target, tool string, in any, out any) (Result, error) {
	spec, ok := memberTool(tool)
	if !ok {
		return Result{}, fmt.Errorf("outbound: %q is not a member tool", tool)
	}
	if out != nil {
		if v := reflect.ValueOf(out); v.Kind() != reflect.Pointer || v.IsNil() {
			return Result{}, fmt.Errorf("outbound: out must be a non-nil pointer, not %T", out)
		}
	}
	args := []byte("{}")
	switch v := in.(type) {
	case nil:
	case Args:
		args = v
	case json.RawMessage:
		// Compacted, as encoding/json would send it (which checks it too).
		var buf bytes.Buffer
		buf.Grow(len(v))
		if json.Compact(&buf, v) != nil {
			return Result{}, fmt.Errorf("outbound: the %s input is not valid JSON", tool)
		}
		args = buf.Bytes()
	default:
		b, err := json.Marshal(in)
		if err != nil {
			return Result{}, fmt.Errorf("outbound: encoding the %s input: %w", tool, err)
		}
		args = b
	}
	k, cancel := c.newCall(ctx, t, tool)
	defer cancel()

	raw, handshake, cerr := k.request(string(mcp.MethodToolsCall), toolParams{name: tool, args: args})
	res := Result{Bytes: k.stats.total(), Handshake: handshake}
	if cerr != nil {
		return res, cerr
	}
	answer, cerr := k.toolAnswer(raw)
	if cerr != nil {
		return res, cerr
	}
	res.Answer = answer

	v, perr := protocol.ParseJSON(answer)
	if perr != nil {
		return res, k.fail(KindBadAnswer, 0, "the answer is not valid JSON: "+perr.Message, nil)
	}
	schema := protocol.Lenient(protocol.SchemaOf(spec.Out))
	schemaErr := func(verr *protocol.Error) *CallError {
		e := k.fail(KindBadAnswer, 0, fmt.Sprintf("the %s answer does not match the tool's output schema: %s", tool, verr.Error()), verr)
		e.Field = verr.Field
		return e
	}
	// DecodeAnswer validates against the lenient schema of out's type before it decodes. When
	// that is the tool's output type (the usual case), the answer is validated once, by
	// DecodeAnswer, and only a failure is validated again to tell a schema mismatch (out is then
	// untouched) from an answer that cannot be read.
	sameSchema := out != nil && reflect.TypeOf(out).Elem() == spec.Out
	if !sameSchema {
		if verr := protocol.Validate(schema, v, ""); verr != nil {
			return res, schemaErr(verr)
		}
	}
	if out != nil {
		if derr := protocol.DecodeAnswer(v, out); derr != nil {
			if sameSchema {
				if verr := protocol.Validate(schema, v, ""); verr != nil {
					return res, schemaErr(verr)
				}
			}
			e := k.fail(KindBadAnswer, 0, fmt.Sprintf("the %s answer cannot be read: %s", tool, derr.Error()), derr)
			e.Field = derr.Field
			return res, e
		}
	}
	return res, nil
}

func memberTool(name string) (protocol.MemberTool, bool) {
	for _, t := range protocol.MemberTools {
		if t.Name == name {
			return t, true
		}
	}
	return protocol.MemberTool{}, false
}

// maxToolPages bounds tools/list pagination, so that a server handing out cursors forever cannot
// keep a verification busy (the timeout bounds it too).
const maxToolPages = 20

// ListTools lists the names of the tools the member's server offers, following pagination.
func (c *Caller) ListTools(ctx context.Context, t Target) ([]string, error) {
	start := time.Now()
	names, err := c.listTools(ctx, t)
	c.observe("mcp:tools/list", start, err)
	return names, err
}

func (c *Caller) listTools(ctx context.Context, t Target) ([]string, error) {
	k, cancel := c.newCall(ctx, t, "tools/list")
	defer cancel()
	var names []string
	seen := map[string]bool{}
	cursor := ""
	for page := 0; ; page++ {
		if page == maxToolPages {
			return names, k.fail(KindBadAnswer, 0, fmt.Sprintf("tools/list is still paginating after %d pages", maxToolPages), nil)
		}
		params := map[string]any{}
		if cursor != "" {
			params["cursor"] = cursor
		}
		raw, _, cerr := k.request(string(mcp.MethodToolsList), params)
		if cerr != nil {
			return names, cerr
		}
		var list struct {
			Tools []struct {
				Name string `json:"name"`
			} `json:"tools"`
			NextCursor string `json:"nextCursor"`
		}
		if err := json.Unmarshal(raw, &list); err != nil {
			return names, k.fail(KindBadAnswer, 0, "the tools/list result cannot be read: "+err.Error(), err)
		}
		for _, tool := range list.Tools {
			names = append(names, tool.Name)
		}
		if list.NextCursor == "" {
			return names, nil
		}
		if seen[list.NextCursor] {
			return names, k.fail(KindBadAnswer, 0, "tools/list repeats the cursor "+clip(list.NextCursor), nil)
		}
		seen[list.NextCursor] = true
		cursor = list.NextCursor
	}
}

// PostJSON posts payload as JSON to url, signed like a member call with key and memberID (for a
// task's callback_url). Any 2xx answer is success; anything else is a *CallError.
func (c *Caller) PostJSON(ctx context.Context, url string, key []byte, memberID string, payload any) error {
	start := time.Now()
	err := c.postJSON(ctx, url, key, memberID, payload)
	c.observe("callback", start, err)
	return err
}

func (c *Caller) postJSON(ctx context.Context, rawURL string, key []byte, memberID string, payload any) error {
	body, err := json.Marshal(payload)
	if err != nil {
		return fmt.Errorf("outbound: encoding the callback payload: %w", err)
	}
	k, cancel := c.newCallTracking(ctx, Target{MemberID: memberID, MCPURL: rawURL, PlatformKey: key}, "callback", true)
	defer cancel()
	if cerr := k.checkURL(); cerr != nil {
		return cerr
	}
	req, err := http.NewRequestWithContext(k.ctx, http.MethodPost, rawURL, bytes.NewReader(body))
	if err != nil {
		return k.fail(KindUnreachable, 0, "the callback URL cannot be used: "+err.Error(), err)
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := k.client.Do(req)
	if err != nil {
		return k.classify(err)
	}
	// The answer is read (up to the cap) only for the error message and to reuse the connection.
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return k.httpError(resp.StatusCode)
	}
	return nil
}

// requestIDs numbers the JSON-RPC requests of this process from a random start, so that no two
// calls to a member ever have the same body: a member refusing replayed signatures (memberkit does
// by default) cannot take two identical calls signed in the same second for a replay.
var requestIDs atomic.Int64

func init() {
	var b [6]byte
	rand.Read(b[:])
	requestIDs.Store(int64(b[0])<<40 | int64(b[1])<<32 | int64(b[2])<<24 | int64(b[3])<<16 | int64(b[4])<<8 | int64(b[5]))
}

// NextRequestID is the id of the next JSON-RPC request the exchange sends (unique in the process).
func NextRequestID() int64 { return requestIDs.Add(1) }

// request sends one JSON-RPC request and returns its result. A member whose server keeps MCP
// sessions (spec section 6) is called in the session the Caller keeps for it; any other is called
// statelessly first (see post). When the server insists on a session, or has forgotten the one
// kept (HTTP 404), the call starts one (initialize, notifications/initialized), keeps it for the
// next calls and sends the request in it; handshake reports that.
func (k *call) request(method string, params any) (json.RawMessage, bool, *CallError) {
	if cerr := k.checkURL(); cerr != nil {
		return nil, false, cerr
	}
	key := sessionKey{member: k.target.MemberID, url: k.target.MCPURL, token: k.target.AuthToken}
	if s, ok := k.c.session(key); ok {
		raw, _, cerr := k.post(&s, NextRequestID(), method, params)
		if cerr == nil || cerr.Kind != KindHTTP || cerr.Status != http.StatusNotFound {
			return raw, false, cerr
		}
		// The server no longer knows the session: a new one.
		k.c.forget(key, s)
		return k.handshake(key, method, params, cerr)
	}
	raw, _, first := k.post(nil, NextRequestID(), method, params)
	if first == nil || !wantsSession(first) {
		return raw, false, first
	}
	return k.handshake(key, method, params, first)
}

// handshake starts an MCP session, keeps it under key and sends the request in it. first is the
// failure that called for it.
func (k *call) handshake(key sessionKey, method string, params any, first *CallError) (json.RawMessage, bool, *CallError) {
	init := map[string]any{
		"protocolVersion": mcp.ProtocolVersion20251125,
		"capabilities":    map[string]any{},
		"clientInfo":      map[string]any{"name": "axp-exchange", "version": protocol.ProtocolVersion},
	}
	initRaw, id, ierr := k.post(nil, NextRequestID(), string(mcp.MethodInitialize), init)
	if ierr != nil {
		// A server that refuses initialize as well did not want a session: the first answer says
		// more, unless the handshake ran out of time or lost the server.
		if ierr.Kind == KindTimeout || ierr.Kind == KindUnreachable {
			return nil, true, ierr
		}
		return nil, false, first
	}
	s := session{id: id}
	var ir struct {
		ProtocolVersion string `json:"protocolVersion"`
	}
	if json.Unmarshal(initRaw, &ir) == nil {
		s.version = ir.ProtocolVersion
	}
	if cerr := k.notify(&s, string(mcp.MethodNotificationInitialized)); cerr != nil {
		cerr.Message = "notifications/initialized: " + cerr.Message
		return nil, true, cerr
	}
	k.c.keep(key, s)
	raw, _, cerr := k.post(&s, NextRequestID(), method, params)
	return raw, true, cerr
}

// wantsSession reports whether a failed stateless request looks like a server that insists on an
// MCP session: HTTP 400 or 404 (what session-keeping servers answer a request without
// Mcp-Session-Id), or a JSON-RPC error that speaks of sessions or initialization.
func wantsSession(e *CallError) bool {
	switch e.Kind {
	case KindHTTP:
		return e.Status == http.StatusBadRequest || e.Status == http.StatusNotFound
	case KindRPC:
		m := strings.ToLower(e.Message)
		return strings.Contains(m, "session") || strings.Contains(m, "initializ")
	}
	return false
}

func (k *call) checkURL() *CallError {
	u, err := url.Parse(k.target.MCPURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return k.fail(KindUnreachable, 0, fmt.Sprintf("%q is not an http or https URL", clip(k.target.MCPURL)), err)
	}
	k.url = u
	return nil
}

// classify turns an error of the HTTP or MCP layer into a CallError, from what the HTTP layer saw.
func (k *call) classify(err error) *CallError {
	status, ctype, _, oversized := k.stats.get()
	switch {
	case oversized:
		return k.fail(KindBadAnswer, status, fmt.Sprintf("the answer is larger than %d bytes", k.c.limit()), errTooLarge)
	case k.parent.Err() != nil:
		// The exchange gave up (its own deadline, or shutdown), not the call's timeout.
		return k.fail(KindTimeout, status, "the exchange stopped waiting before the member answered", k.parent.Err())
	case k.ctx.Err() != nil:
		return k.fail(KindTimeout, status, fmt.Sprintf("no answer within %s; answer tool calls within %d s and do long work after answering", k.c.timeout(), protocol.ToolCallTimeoutMillis/1000), context.DeadlineExceeded)
	case status == 0 && refused(err) != nil:
		return k.fail(KindRefusedTarget, 0, "cannot call "+k.where()+": "+refused(err).Error(), err)
	case status == 0:
		// One message whatever happened on the wire (refused, closed, reset, TLS): the words of a
		// failed connection tell an open port from a closed one, which is a port scan.
		return k.fail(KindUnreachable, 0, "cannot reach "+k.where()+": "+netReason(err, k.op == "callback")+"; check that the server is running and reachable from the internet", err)
	case status < 200 || status > 299:
		return k.httpError(status)
	case status == http.StatusAccepted:
		return k.fail(KindBadAnswer, status, "the server answered 202 Accepted with no JSON-RPC response; answer the request with a result", err)
	}
	mt := mediaType(ctype)
	if k.op != "callback" && mt != "application/json" && mt != "text/event-stream" {
		if mt == "" {
			mt = "no Content-Type"
		}
		return k.fail(KindBadAnswer, status, fmt.Sprintf("the answer is %s; answer application/json or text/event-stream", mt), err)
	}
	msg := err.Error()
	switch {
	case strings.Contains(msg, "unexpected nil response"):
		msg = "the event stream ended without a JSON-RPC response"
	case strings.Contains(msg, "failed to decode response"):
		msg = "the answer is not a JSON-RPC response: " + strings.TrimPrefix(msg, "failed to decode response: ")
	default:
		msg = "the answer cannot be read: " + msg
	}
	return k.fail(KindBadAnswer, status, clip(msg), err)
}

func (k *call) httpError(status int) *CallError {
	// The body is not shown: it is not a JSON-RPC answer (those are reported as one), and what
	// an address serves is not for whoever registered it to read.
	_, ctype, location, _ := k.stats.get()
	msg := fmt.Sprintf("%s answered HTTP %d", k.where(), status)
	if mt := mediaType(ctype); mt != "" {
		msg += " (" + clip(printable(mt)) + ")"
	}
	switch {
	case status >= 300 && status < 400:
		msg += " redirecting to " + clip(location) + "; register the final URL (redirects are not followed)"
	case status == http.StatusUnauthorized || status == http.StatusForbidden:
		msg += "; if your server refused the exchange's signature, check that it verifies X-AX-Signature as hex HMAC-SHA256 with your platform_key over \"<X-AX-Timestamp>.<raw body>\""
		if k.op != "callback" {
			msg += " and accepts the Bearer auth_token you registered, if any"
		}
	case status == http.StatusNotFound && k.op != "callback":
		msg += "; check mcp_url points at the MCP endpoint (often /mcp)"
	}
	return k.fail(KindHTTP, status, msg, nil)
}

func (k *call) where() string {
	if k.op == "callback" {
		return "the callback URL"
	}
	return "mcp_url"
}

func (k *call) fail(kind string, status int, msg string, cause error) *CallError {
	return &CallError{Tool: k.op, Kind: kind, Message: msg, Status: status, cause: cause}
}

// toolAnswer picks the answer out of a tools/call result: structuredContent, or else the JSON held
// by a single text content block. An isError result is a tool_error carrying the tool's text.
func (k *call) toolAnswer(raw json.RawMessage) (json.RawMessage, *CallError) {
	var r struct {
		Content           []json.RawMessage `json:"content"`
		StructuredContent json.RawMessage   `json:"structuredContent"`
		IsError           bool              `json:"isError"`
	}
	if err := json.Unmarshal(raw, &r); err != nil {
		return nil, k.fail(KindBadAnswer, 0, "the tools/call result is not an object with content: "+clip(err.Error()), err)
	}
	var texts []string
	for _, c := range r.Content {
		var block struct {
			Type string `json:"type"`
			Text string `json:"text"`
		}
		if json.Unmarshal(c, &block) == nil && block.Type == "text" {
			texts = append(texts, block.Text)
		}
	}
	if r.IsError {
		msg := strings.TrimSpace(printable(strings.Join(texts, " ")))
		if msg == "" {
			msg = "(no text)"
		}
		return nil, k.fail(KindToolError, 0, "the tool reported an error: "+clip(msg), nil)
	}
	if s := bytes.TrimSpace(r.StructuredContent); len(s) > 0 && string(s) != "null" {
		return s, nil
	}
	switch {
	case len(r.Content) == 0:
		return nil, k.fail(KindBadAnswer, 0, "the result has neither structuredContent nor a text block; return the answer as structuredContent", nil)
	case len(r.Content) > 1:
		return nil, k.fail(KindBadAnswer, 0, fmt.Sprintf("the result has no structuredContent and %d content blocks; return the answer as structuredContent or as a single text block holding JSON", len(r.Content)), nil)
	case len(texts) != 1:
		return nil, k.fail(KindBadAnswer, 0, "the result has no structuredContent and its content block is not text; return the answer as structuredContent or as a single text block holding JSON", nil)
	}
	text := []byte(strings.TrimSpace(texts[0]))
	if !json.Valid(text) {
		return nil, k.fail(KindBadAnswer, 0, fmt.Sprintf("the text block is not JSON (%q); return the answer as structuredContent or as JSON text", clip(printable(texts[0]))), nil)
	}
	return text, nil
}

// netReason says why a connection failed, in words that do not tell a closed port from an open
// one: a name that does not resolve, or else that no server answered.
func netReason(err error, callback bool) string {
	var dnsErr *net.DNSError
	if errors.As(err, &dnsErr) {
		return "the host name does not resolve (" + dnsErr.Name + ")"
	}
	if callback {
		return "could not reach the server (no HTTP answer)"
	}
	return "could not reach the MCP server (no HTTP answer)"
}

// clip shortens text shown to members.
func clip(s string) string {
	const max = 300
	if len(s) <= max {
		return s
	}
	cut := max
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "..."
}

// printable keeps a member's text to one line of valid, printable UTF-8.
func printable(s string) string {
	s = strings.ToValidUTF8(s, "?")
	return strings.Map(func(r rune) rune {
		switch {
		case r == '\n' || r == '\r' || r == '\t':
			return ' '
		case r < 0x20 || r == 0x7f:
			return -1
		}
		return r
	}, s)
}
