// Package a2a is the A2A door of the exchange: Agent2Agent protocol 0.3 over JSON-RPC (a2a-go's
// server) and A2A 1.0 over JSON-RPC (the same path, /a2a) and HTTP+JSON (under /a2a/v1), with the
// agent card at /.well-known/agent-card.json. A JSON-RPC request's version is its A2A-Version
// header, or when it names none its method: 1.0's SendMessage, GetTask, ... or 0.3's message/send,
// tasks/get, ... (v1.go holds the 1.0 codec).
//
// message/send with a text part answers a suggested task (the catalog operation search); with a
// data part {type, params} or {description} it posts the task (create_task) and answers an A2A Task
// whose id is the exchange task id; tasks/get reads it back (get_task). The door changes no state
// itself and keeps nothing: every call runs through the Backend, which runs the same handlers as the
// REST door, and A2A tasks are the exchange's tasks.
package a2a

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"iter"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/a2aproject/a2a-go/a2a"
	"github.com/a2aproject/a2a-go/a2asrv"

	"github.com/axp-exchange/axp"
	"github.com/axp-exchange/axp/contract"
	"github.com/axp-exchange/axp/daemon/pipeline"
	"github.com/axp-exchange/axp/protocol"
)

// Versions of the agent card (spec section 9).
const (
	ProtocolVersion = "0.3.0"
	CardVersion     = "1.3.0"
)

// Backend is what the A2A door needs from the exchange.
type Backend interface {
	// Authenticate establishes the caller from the request's credentials.
	Authenticate(r *http.Request) (axp.Caller, error)
	// Run runs one call through the pipeline every door shares.
	Run(ctx context.Context, req pipeline.Request) (pipeline.Answer, error)
	// BaseURL is the public address of the exchange.
	BaseURL() string
}

// Options tune the door.
type Options struct {
	// MaxBodyBytes bounds a JSON-RPC request (default 1 MiB).
	MaxBodyBytes int64
	// Now is the clock of status timestamps (nil: time.Now).
	Now func() time.Time
}

// Server is the A2A door: ServeHTTP serves JSON-RPC at /a2a, Card serves the agent card.
type Server struct {
	b       Backend
	o       Options
	rpc     http.Handler
	search  *contract.Op
	create  *contract.Op
	getTask *contract.Op
	cancel  *contract.Op
}

type ctxKey int

const (
	callerKey ctxKey = iota
	requestKey
	failureKey
)

// New builds the A2A door over a backend.
func New(b Backend, o Options) *Server {
	if o.MaxBodyBytes <= 0 {
		o.MaxBodyBytes = 1 << 20
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	s := &Server{b: b, o: o, search: contract.Search.Op(), create: contract.CreateTask.Op(), getTask: contract.GetTask.Op(),
		cancel: contract.CancelTask.Op()}
	if s.search == nil || s.create == nil || s.getTask == nil || s.cancel == nil {
		panic("a2a: the catalog lacks search, create_task, get_task or cancel_task")
	}
	s.rpc = a2asrv.NewJSONRPCHandler(&handler{s: s})
	return s
}

// JSON-RPC error codes (JSON-RPC 2.0 and A2A 0.3 section 8).
const (
	codeParseError           = -32700
	codeInvalidRequest       = -32600
	codeMethodNotFound       = -32601
	codeInvalidParams        = -32602
	codeTaskNotFound         = -32001
	codeTaskNotCancelable    = -32002
	codeUnsupportedOperation = -32004
)

type rpcError struct {
	Code    int            `json:"code"`
	Message string         `json:"message"`
	Data    map[string]any `json:"data,omitempty"`
}

type rpcErrorResponse struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Error   rpcError        `json:"error"`
}

func writeRPCError(w http.ResponseWriter, status int, id json.RawMessage, code int, message, detail string) {
	if len(id) == 0 {
		id = json.RawMessage("null")
	}
	e := rpcError{Code: code, Message: message}
	if detail != "" {
		e.Data = map[string]any{"error": detail}
	}
	writeRPC(w, status, id, e)
}

func writeRPC(w http.ResponseWriter, status int, id json.RawMessage, e rpcError) {
	if len(id) == 0 {
		id = json.RawMessage("null")
	}
	body, _ := json.Marshal(rpcErrorResponse{JSONRPC: "2.0", ID: id, Error: e})
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	w.Write(append(body, '\n'))
}

// envelope is the part of a JSON-RPC request the door checks before a2a-go's handler reads it.
type envelope struct {
	JSONRPC *string         `json:"jsonrpc"`
	Method  *string         `json:"method"`
	ID      json.RawMessage `json:"id"`
	Params  json.RawMessage `json:"params"`
}

// ServeHTTP serves A2A JSON-RPC, 1.0 or 0.3 as the request asks (see the package comment); an
// A2A-Version this agent does not serve is -32009. The request is checked here first so that every malformed request
// answers the protocol's own error code (never a 500) and reaches no operation: unparsable JSON is
// -32700, a request that is not a JSON-RPC 2.0 call -32600, an unknown method -32601, params of the
// wrong shape -32602, and the streaming and push-notification methods the card turns off -32004 /
// -32003.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	ver, known := version(r)
	v1 := ver == ProtocolVersionV1
	// refuse answers in the shape of the version chosen so far: 1.0 when the header names it.
	refuse := func(status int, id json.RawMessage, code int, message, detail string) {
		if v1 {
			writeV1RPCError(w, status, id, newV1Error(code, detail))
			return
		}
		writeRPCError(w, status, id, code, message, detail)
	}
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", http.MethodPost)
		refuse(http.StatusMethodNotAllowed, nil, codeInvalidRequest, "invalid request", "A2A JSON-RPC requests are POSTed")
		return
	}
	raw, err := io.ReadAll(http.MaxBytesReader(w, r.Body, s.o.MaxBodyBytes))
	if err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			refuse(http.StatusRequestEntityTooLarge, nil, codeInvalidRequest, "invalid request",
				fmt.Sprintf("the request is larger than %d bytes", s.o.MaxBodyBytes))
			return
		}
		refuse(http.StatusBadRequest, nil, codeParseError, "parse error", "the request body could not be read")
		return
	}
	trimmed := bytes.TrimSpace(raw)
	if !json.Valid(trimmed) {
		refuse(http.StatusOK, nil, codeParseError, "parse error", "the request is not valid JSON")
		return
	}
	if len(trimmed) > 0 && trimmed[0] == '[' {
		refuse(http.StatusOK, nil, codeInvalidRequest, "invalid request", "batch requests are not supported: send one JSON-RPC request per call")
		return
	}
	var env envelope
	if trimmed[0] != '{' || json.Unmarshal(trimmed, &env) != nil {
		refuse(http.StatusOK, nil, codeInvalidRequest, "invalid request", "a JSON-RPC request is a JSON object")
		return
	}
	id := env.ID
	if !validID(id) {
		refuse(http.StatusOK, nil, codeInvalidRequest, "invalid request", "id must be a string, a number or null")
		return
	}
	if !known {
		writeV1RPCError(w, http.StatusOK, id, newV1Error(codeVersionNotSupported, fmt.Sprintf(
			"%s %q is not served: this agent speaks A2A 1.0 and 0.3", HeaderVersion, clip(r.Header.Get(HeaderVersion)))))
		return
	}
	if env.JSONRPC == nil || *env.JSONRPC != "2.0" {
		refuse(http.StatusOK, id, codeInvalidRequest, "invalid request", `jsonrpc must be "2.0"`)
		return
	}
	if env.Method == nil || *env.Method == "" {
		refuse(http.StatusOK, id, codeInvalidRequest, "invalid request", "method is required")
		return
	}
	// A request that names no version is 1.0 when its method is a 1.0 method, else 0.3.
	if v1 || ver == "" && v1Methods[*env.Method] {
		s.serveV1RPC(w, r, id, *env.Method, env.Params)
		return
	}
	switch method := *env.Method; method {
	case "message/send":
		var p a2a.MessageSendParams
		if err := strictParams(env.Params, &p); err != nil {
			writeRPCError(w, http.StatusOK, id, codeInvalidParams, "invalid params", err.Error())
			return
		}
		if p.Message == nil {
			writeRPCError(w, http.StatusOK, id, codeInvalidParams, "invalid params", "params.message is required")
			return
		}
	case "tasks/get":
		var p a2a.TaskQueryParams
		if err := strictParams(env.Params, &p); err != nil {
			writeRPCError(w, http.StatusOK, id, codeInvalidParams, "invalid params", err.Error())
			return
		}
		if p.ID == "" {
			writeRPCError(w, http.StatusOK, id, codeInvalidParams, "invalid params", "params.id (the task id) is required")
			return
		}
	case "tasks/cancel":
		var p a2a.TaskIDParams
		if err := strictParams(env.Params, &p); err != nil {
			writeRPCError(w, http.StatusOK, id, codeInvalidParams, "invalid params", err.Error())
			return
		}
	case "message/stream", "tasks/resubscribe":
		writeRPCError(w, http.StatusOK, id, codeUnsupportedOperation, "this operation is not supported",
			"streaming is off (capabilities.streaming is false): use message/send, then tasks/get")
		return
	case "tasks/pushNotificationConfig/get", "tasks/pushNotificationConfig/set", "tasks/pushNotificationConfig/list",
		"tasks/pushNotificationConfig/delete":
		writeRPCError(w, http.StatusOK, id, -32003, "push notification not supported",
			"push notifications are off (capabilities.pushNotifications is false): poll with tasks/get")
		return
	case "agent/getAuthenticatedExtendedCard":
	default:
		writeRPCError(w, http.StatusOK, id, codeMethodNotFound, "method not found",
			fmt.Sprintf("%q is not an A2A method of this agent: use message/send or tasks/get", clip(method)))
		return
	}
	c, err := s.b.Authenticate(r)
	if err != nil {
		var e *axp.Error
		if errors.As(err, &e) && e.Code == axp.CodeUnavailable {
			// The store is out of reach: said as a call's failure is (code, hint, retry_after).
			w.Header().Set("Retry-After", strconv.Itoa(e.RetryAfter))
			writeRPC(w, http.StatusServiceUnavailable, id, rpcError{Code: rpcCode(e, 0), Message: e.Message,
				Data: map[string]any{"code": e.Code, "error": errorText(e), "hint": e.Hint, "retry_after": e.RetryAfter}})
			return
		}
		writeRPCError(w, authStatus(err), id, codeInvalidRequest, "invalid request", errorText(err))
		return
	}
	f := &failure{}
	ctx := context.WithValue(context.WithValue(context.WithValue(r.Context(), callerKey, c), requestKey, r), failureKey, f)
	r = r.WithContext(ctx)
	r.Body = io.NopCloser(bytes.NewReader(trimmed))
	r.ContentLength = int64(len(trimmed))
	rec := &recorder{header: http.Header{}}
	s.rpc.ServeHTTP(rec, r)
	for k, v := range rec.header {
		w.Header()[k] = v
	}
	// a2a-go writes JSON without naming it.
	w.Header().Set("Content-Type", "application/json")
	body := rec.body.Bytes()
	if f.err != nil {
		body = f.rewrite(w, body)
	}
	status := rec.status
	if status == 0 {
		status = http.StatusOK
	}
	w.WriteHeader(status)
	w.Write(body)
}

// recorder holds a2a-go's answer so that an exchange error can be written in full.
type recorder struct {
	header http.Header
	body   bytes.Buffer
	status int
}

func (r *recorder) Header() http.Header         { return r.header }
func (r *recorder) Write(b []byte) (int, error) { return r.body.Write(b) }
func (r *recorder) WriteHeader(status int)      { r.status = status }

// failure is the exchange error a call ended with (a2a-go reports only its own error kinds).
type failure struct {
	err      *axp.Error
	notFound int
}

// JSON-RPC codes of the exchange's errors beyond A2A's own (-32001 to -32007). Each answer carries
// the exchange's message, and in data its code, field, hint and the whole text.
const (
	codeUnauthorized    = -32010
	codeForbidden       = -32011
	codeConflict        = -32012
	codeRateLimited     = -32013
	codePaymentRequired = -32014
)

// rpcCode maps an exchange error code to the JSON-RPC error code of the door.
func rpcCode(e *axp.Error, notFound int) int {
	switch e.Code {
	case axp.CodeInvalidInput, axp.CodeTooLarge:
		return codeInvalidParams
	case axp.CodeNotFound:
		if notFound != 0 {
			return notFound
		}
		return codeInvalidParams
	case axp.CodeUnauthorized:
		return codeUnauthorized
	case axp.CodeForbidden:
		return codeForbidden
	case axp.CodeConflict:
		return codeConflict
	case axp.CodeRateLimited:
		return codeRateLimited
	case axp.CodePaymentRequired:
		return codePaymentRequired
	case axp.CodeUnavailable:
		return codeUnsupportedOperation
	}
	return -32603
}

// rewrite replaces the error of a2a-go's answer with the exchange's: its message in message, and
// code, field, hint and text in data. A rate limit also sets Retry-After.
func (f *failure) rewrite(w http.ResponseWriter, body []byte) []byte {
	var resp map[string]json.RawMessage
	if json.Unmarshal(body, &resp) != nil || resp["error"] == nil {
		return body
	}
	e := f.err
	out := rpcError{Code: rpcCode(e, f.notFound), Message: e.Message, Data: map[string]any{"code": e.Code, "error": errorText(e)}}
	if e.Code == axp.CodeInternal || out.Code == -32603 {
		out.Message, out.Data = "internal error", map[string]any{"code": axp.CodeInternal}
	}
	if e.Field != "" && out.Code != -32603 {
		out.Message = e.Field + ": " + e.Message
		out.Data["field"] = e.Field
	}
	if e.Hint != "" && out.Code != -32603 {
		out.Data["hint"] = e.Hint
	}
	if e.RetryAfter > 0 {
		out.Data["retry_after"] = e.RetryAfter
		w.Header().Set("Retry-After", strconv.Itoa(e.RetryAfter))
	}
	b, err := json.Marshal(out)
	if err != nil {
		return body
	}
	resp["error"] = b
	body, _ = json.Marshal(resp)
	return append(body, '\n')
}

// fail records err (an exchange error) for the answer and returns the a2a-go error that makes the
// handler answer with an error at all. notFound is the code of a missing resource (0: invalid params).
func fail(ctx context.Context, err error, notFound int) error {
	var e *axp.Error
	if f, ok := ctx.Value(failureKey).(*failure); ok && errors.As(err, &e) {
		f.err, f.notFound = e, notFound
	}
	return rpcErr(err, nil)
}

// authStatus is the HTTP status of a refused authentication: 401, 403 for a suspended member, 503
// when the store that holds the credentials is out of reach.
func authStatus(err error) int {
	var e *axp.Error
	if errors.As(err, &e) && (e.Code == axp.CodeForbidden || e.Code == axp.CodeUnavailable) {
		return pipeline.Status(e.Code)
	}
	return http.StatusUnauthorized
}

// validID accepts the id forms of JSON-RPC 2.0: absent, null, a string or a number.
func validID(id json.RawMessage) bool {
	if len(id) == 0 {
		return true
	}
	switch id[0] {
	case '"', 'n', '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
		return true
	}
	return false
}

// strictParams decodes params into dst, answering a message fit for an invalid-params error.
func strictParams(raw json.RawMessage, dst any) error {
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		return errors.New("params is required (a JSON object)")
	}
	if raw[0] != '{' {
		return errors.New("params must be a JSON object")
	}
	if err := json.Unmarshal(raw, dst); err != nil {
		var ute *json.UnmarshalTypeError
		if errors.As(err, &ute) {
			return fmt.Errorf("params.%s must be %s, not %s", ute.Field, article(ute.Type.Kind().String()), ute.Value)
		}
		return fmt.Errorf("params cannot be read: %s", err.Error())
	}
	return nil
}

func article(kind string) string {
	switch kind {
	case "struct", "map":
		return "an object"
	case "slice", "array":
		return "an array"
	case "int", "int64", "float64":
		return "a number"
	case "bool":
		return "a boolean"
	}
	return "a " + kind
}

func clip(s string) string {
	if len(s) > 80 {
		return s[:77] + "..."
	}
	return s
}

func errorText(err error) string {
	var e *axp.Error
	if !errors.As(err, &e) {
		return "internal error"
	}
	var b strings.Builder
	b.WriteString(string(e.Code))
	b.WriteString(": ")
	if e.Field != "" {
		b.WriteString(e.Field + ": ")
	}
	b.WriteString(e.Message)
	if e.Hint != "" {
		b.WriteString(" (hint: " + e.Hint + ")")
	}
	return b.String()
}

// rpcErr turns an exchange error into the A2A error a2a-go answers: the JSON-RPC code from the
// error class, with the exchange's code, field, message and hint in data.error.
func rpcErr(err error, notFound error) error {
	var e *axp.Error
	if !errors.As(err, &e) {
		return a2a.ErrInternalError
	}
	kind := a2a.ErrServerError
	switch e.Code {
	case axp.CodeInvalidInput, axp.CodeTooLarge:
		kind = a2a.ErrInvalidParams
	case axp.CodeNotFound:
		if notFound != nil {
			kind = notFound
		}
	case axp.CodeUnavailable:
		kind = a2a.ErrUnsupportedOperation
	case axp.CodeInternal:
		return a2a.ErrInternalError
	}
	return fmt.Errorf("%w: %s", kind, errorText(err))
}

// handler implements a2a-go's RequestHandler over the exchange's operations.
type handler struct{ s *Server }

func (h *handler) call(ctx context.Context, op *contract.Op, args map[string]any) (any, error) {
	return h.callKeyed(ctx, op, args, "")
}

// callKeyed runs a call with an idempotency key (a message's messageId): a message/send sent again
// with the same messageId answers the first call's result instead of running it again.
func (h *handler) callKeyed(ctx context.Context, op *contract.Op, args map[string]any, key string) (any, error) {
	c, _ := ctx.Value(callerKey).(axp.Caller)
	r, _ := ctx.Value(requestKey).(*http.Request)
	if c.Kind == axp.Anonymous && len(key) < pipeline.MinAnonymousKey {
		// Too short to be unguessable for a caller known only by its address (see the pipeline);
		// such a message is not deduplicated. A2A clients send UUIDs.
		key = ""
	}
	ans, err := h.s.b.Run(ctx, pipeline.Request{Op: op, Caller: c, Args: args, Door: pipeline.A2A,
		IdempotencyKey: key, Route: "A2A " + op.Name, HTTP: r})
	return ans.Out, err
}

// OnSendMessage posts a task from a data part, or suggests one from text.
func (h *handler) OnSendMessage(ctx context.Context, p *a2a.MessageSendParams) (a2a.SendMessageResult, error) {
	msg := p.Message
	if msg.TaskID != "" {
		return nil, fmt.Errorf("%w: message.taskId: follow-up messages on a task are not taken over A2A yet (hint: read it with tasks/get; choose, accept or dispute with the buyer steps over REST or MCP)", a2a.ErrUnsupportedOperation)
	}
	var texts []string
	dataAt := -1
	var data map[string]any
	for i, part := range msg.Parts {
		switch v := part.(type) {
		case a2a.TextPart:
			if t := strings.TrimSpace(v.Text); t != "" {
				texts = append(texts, t)
			}
		case a2a.DataPart:
			if dataAt >= 0 {
				return nil, fmt.Errorf("%w: message.parts[%d]: give one data part (the task) per message", a2a.ErrInvalidParams, i)
			}
			dataAt, data = i, v.Data
		case a2a.FilePart:
			return nil, fmt.Errorf("%w: message.parts[%d]: file parts are not taken: send text, or a data part {type, params} or {description}", a2a.ErrUnsupportedContentType, i)
		}
	}
	switch {
	case dataAt >= 0:
		return h.post(ctx, msg, dataAt, data)
	case len(texts) > 0:
		return h.suggest(ctx, msg, strings.Join(texts, "\n"))
	}
	return nil, fmt.Errorf("%w: message.parts: give a text part (what you want done) or a data part {type, params} or {description} to post a task", a2a.ErrInvalidParams)
}

// exact re-reads a decoded JSON object with numbers kept exact (json.Number), as the exchange
// validates them.
func exact(m map[string]any) (map[string]any, error) {
	b, err := json.Marshal(m)
	if err != nil {
		return nil, err
	}
	v, perr := protocol.ParseJSON(b)
	if perr != nil {
		return nil, perr
	}
	out, _ := v.(map[string]any)
	if out == nil {
		out = map[string]any{}
	}
	return out, nil
}

// asMap is an operation's answer as a JSON object.
func asMap(out any) (map[string]any, error) {
	var b []byte
	if raw, ok := out.(json.RawMessage); ok {
		b = raw
	} else {
		var err error
		if b, err = json.Marshal(out); err != nil {
			return nil, err
		}
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var m map[string]any
	if err := dec.Decode(&m); err != nil {
		return nil, err
	}
	return m, nil
}

// renamed rewrites the field of an invalid-input error to its place in the A2A message.
func renamed(err error, prefix string, from map[string]string) error {
	var e *axp.Error
	if !errors.As(err, &e) {
		return err
	}
	c := *e
	if to, ok := from[c.Field]; ok {
		c.Field = to
	} else if c.Field != "" && c.Field != "body" {
		c.Field = prefix + "." + c.Field
	} else if c.Field == "body" {
		c.Field = prefix
	}
	return &c
}

func (h *handler) post(ctx context.Context, msg *a2a.Message, at int, data map[string]any) (a2a.SendMessageResult, error) {
	args, err := exact(data)
	if err != nil {
		return nil, fmt.Errorf("%w: message.parts[%d].data cannot be read", a2a.ErrInvalidParams, at)
	}
	out, err := h.callKeyed(ctx, h.s.create, args, msg.ID)
	if err != nil {
		return nil, fail(ctx, renamed(err, fmt.Sprintf("message.parts[%d].data", at), nil), 0)
	}
	m, err := asMap(out)
	if err != nil {
		return nil, a2a.ErrInternalError
	}
	ctxID := msg.ContextID
	if ctxID == "" {
		ctxID, _ = m["id"].(string)
	}
	t := h.s.task(m, ctxID, "The task as posted: keep buyer_token (shown once) for the buyer steps.")
	hist := *msg
	hist.TaskID, hist.ContextID = t.ID, ctxID
	t.History = []*a2a.Message{&hist}
	return t, nil
}

// State maps an exchange task status to the A2A task state. A task that waits for its buyer (to
// choose an offer, pay, or accept or dispute a delivery) is input-required; one the seller or the
// operator works on is working; accepted and released tasks are completed, refunded ones failed,
// and cancelled or expired ones canceled.
func State(status string) a2a.TaskState {
	switch status {
	case axp.TaskOpen, axp.TaskAwaitingPayment, axp.TaskDelivered:
		return a2a.TaskStateInputRequired
	case axp.TaskPaid, axp.TaskInProgress, axp.TaskDisputed:
		return a2a.TaskStateWorking
	case axp.TaskAccepted, axp.TaskReleased:
		return a2a.TaskStateCompleted
	case axp.TaskRefunded:
		return a2a.TaskStateFailed
	case axp.TaskCancelled, axp.TaskExpired:
		return a2a.TaskStateCanceled
	}
	return a2a.TaskStateUnknown
}

// task is an exchange task (its JSON view) as an A2A Task: same id, the status mapped, the view as
// a data artifact and the next steps as the status message.
func (s *Server) task(m map[string]any, contextID, artifactNote string) *a2a.Task {
	id, _ := m["id"].(string)
	status, _ := m["status"].(string)
	if contextID == "" {
		contextID = id
	}
	now := s.o.Now().UTC()
	text := statusText(m)
	t := &a2a.Task{
		ID:        a2a.TaskID(id),
		ContextID: contextID,
		Status: a2a.TaskStatus{State: State(status), Timestamp: &now, Message: &a2a.Message{
			ID: a2a.NewMessageID(), Role: a2a.MessageRoleAgent, TaskID: a2a.TaskID(id), ContextID: contextID,
			Parts: a2a.ContentParts{a2a.TextPart{Text: text}},
		}},
		Artifacts: []*a2a.Artifact{{ID: "task", Name: "task", Description: artifactNote, Parts: a2a.ContentParts{a2a.DataPart{Data: m}}}},
		Metadata:  map[string]any{"exchange_status": status, "task_url": s.b.BaseURL() + "/api/tasks/" + id},
	}
	return t
}

func statusText(m map[string]any) string {
	id, _ := m["id"].(string)
	status, _ := m["status"].(string)
	var b strings.Builder
	fmt.Fprintf(&b, "Task %s is %s.", id, status)
	if offers, ok := m["offers"].([]any); ok && status == axp.TaskOpen {
		fmt.Fprintf(&b, " %d offer(s).", len(offers))
		if rec, ok := m["recommended_offer"].(string); ok && rec != "" {
			fmt.Fprintf(&b, " Recommended offer: %s.", rec)
		}
	}
	if qs, ok := m["questions"].([]any); ok {
		for _, q := range qs {
			if s, ok := q.(string); ok {
				b.WriteString(" " + s)
			}
		}
	}
	if steps, ok := m["next_steps"].([]any); ok {
		for _, st := range steps {
			if s, ok := st.(string); ok {
				b.WriteString(" " + s)
			}
		}
	}
	return b.String()
}

func (h *handler) suggest(ctx context.Context, msg *a2a.Message, text string) (a2a.SendMessageResult, error) {
	out, err := h.call(ctx, h.s.search, map[string]any{"q": text})
	if err != nil {
		return nil, fail(ctx, renamed(err, "message.parts", map[string]string{"q": "message.parts.text"}), 0)
	}
	m, err := asMap(out)
	if err != nil {
		return nil, a2a.ErrInternalError
	}
	base := h.s.b.BaseURL()
	var b strings.Builder
	post := map[string]any{"a2a": "message/send with a data part {type, params} or {description}",
		"rest": "POST " + base + "/api/tasks", "mcp": "tools/call create_task at " + base + "/mcp"}
	if st, ok := m["suggested_task"].(map[string]any); ok {
		typ, _ := st["type"].(string)
		fmt.Fprintf(&b, "Suggested task: type %s.", typ)
		if q, ok := st["quote"].(map[string]any); ok {
			if p, ok := q["price"].(map[string]any); ok && p["amount"] != nil {
				fmt.Fprintf(&b, " Catalog quote: %v USD", p["amount"])
				if eta, ok := q["eta_minutes"]; ok {
					fmt.Fprintf(&b, ", about %v minutes", eta)
				}
				b.WriteString(".")
			}
		}
		b.WriteString(" To post it, send message/send with a data part {type, params} (the suggested_task below), or {description} in your own words.")
		post["data"] = map[string]any{"type": typ, "params": st["params"]}
		if u, ok := st["create_url"].(string); ok {
			post["create_url"] = u
		}
	} else {
		b.WriteString("No catalog service matches yet. To post it anyway, send message/send with a data part {description}; sellers quote on it.")
		post["data"] = map[string]any{"description": text}
	}
	if qs, ok := m["questions"].([]any); ok {
		for _, q := range qs {
			if s, ok := q.(string); ok {
				b.WriteString(" " + s)
			}
		}
	}
	m["how_to_post"] = post
	ctxID := msg.ContextID
	if ctxID == "" {
		ctxID = a2a.NewContextID()
	}
	return &a2a.Message{ID: a2a.NewMessageID(), Role: a2a.MessageRoleAgent, ContextID: ctxID,
		Parts: a2a.ContentParts{a2a.TextPart{Text: b.String()}, a2a.DataPart{Data: m}}}, nil
}

// OnGetTask reads an exchange task; the buyer token, given in params.metadata.buyer_token or as the
// Bearer token, shows the buyer's view. The door keeps nothing, so the contextId of the answer is
// the task id (message/send uses it too when the message names no context).
func (h *handler) OnGetTask(ctx context.Context, q *a2a.TaskQueryParams) (*a2a.Task, error) {
	ctx, args, err := withBuyerToken(ctx, string(q.ID), q.Metadata)
	if err != nil {
		return nil, err
	}
	out, err := h.call(ctx, h.s.getTask, args)
	if err != nil {
		return nil, fail(ctx, renamed(err, "params", map[string]string{"id": "params.id", "token": "params.metadata.buyer_token"}), codeTaskNotFound)
	}
	m, err := asMap(out)
	if err != nil {
		return nil, a2a.ErrInternalError
	}
	return h.s.task(m, "", "The task as the exchange shows it to you."), nil
}

// withBuyerToken makes the buyer token of params.metadata.buyer_token the caller's, and the args of
// get_task for task id.
func withBuyerToken(ctx context.Context, id string, meta map[string]any) (context.Context, map[string]any, error) {
	args := map[string]any{"id": id}
	v, ok := meta["buyer_token"]
	if !ok {
		return ctx, args, nil
	}
	tok, isString := v.(string)
	if !isString {
		return ctx, nil, fmt.Errorf("%w: params.metadata.buyer_token must be a string", a2a.ErrInvalidParams)
	}
	if c, _ := ctx.Value(callerKey).(axp.Caller); tok != "" {
		c.Token = tok
		if c.Kind == axp.Anonymous {
			c.Kind = axp.BuyerToken
		}
		ctx = context.WithValue(ctx, callerKey, c)
		args["token"] = tok
	}
	return ctx, args, nil
}

// OnCancelTask withdraws the task (cancel_task): a task that is not there (or not the caller's to
// see) is told apart from one that cannot be cancelled any more.
func (h *handler) OnCancelTask(ctx context.Context, id *a2a.TaskIDParams) (*a2a.Task, error) {
	ctx, args, err := withBuyerToken(ctx, string(id.ID), id.Metadata)
	if err != nil {
		return nil, err
	}
	if _, err := h.call(ctx, h.s.getTask, args); err != nil {
		return nil, fail(ctx, renamed(err, "params", map[string]string{"id": "params.id"}), codeTaskNotFound)
	}
	out, err := h.call(ctx, h.s.cancel, args)
	var e *axp.Error
	if errors.As(err, &e) && e.Code == axp.CodeConflict {
		return nil, fmt.Errorf("%w: %s", a2a.ErrTaskNotCancelable, errorText(err))
	}
	if err != nil {
		return nil, fail(ctx, renamed(err, "params", map[string]string{"id": "params.id"}), codeTaskNotFound)
	}
	m, err := asMap(out)
	if err != nil {
		return nil, a2a.ErrInternalError
	}
	return h.s.task(m, "", "The task is withdrawn."), nil
}

// OnResubscribeToTask: streaming is off (the door answers before a2a-go gets here).
func (h *handler) OnResubscribeToTask(ctx context.Context, id *a2a.TaskIDParams) iter.Seq2[a2a.Event, error] {
	return func(yield func(a2a.Event, error) bool) { yield(nil, a2a.ErrUnsupportedOperation) }
}

// OnSendMessageStream: streaming is off (the door answers before a2a-go gets here).
func (h *handler) OnSendMessageStream(ctx context.Context, p *a2a.MessageSendParams) iter.Seq2[a2a.Event, error] {
	return func(yield func(a2a.Event, error) bool) { yield(nil, a2a.ErrUnsupportedOperation) }
}

// OnGetTaskPushConfig: push notifications are off.
func (h *handler) OnGetTaskPushConfig(ctx context.Context, p *a2a.GetTaskPushConfigParams) (*a2a.TaskPushConfig, error) {
	return nil, a2a.ErrPushNotificationNotSupported
}

// OnListTaskPushConfig: push notifications are off.
func (h *handler) OnListTaskPushConfig(ctx context.Context, p *a2a.ListTaskPushConfigParams) ([]*a2a.TaskPushConfig, error) {
	return nil, a2a.ErrPushNotificationNotSupported
}

// OnSetTaskPushConfig: push notifications are off.
func (h *handler) OnSetTaskPushConfig(ctx context.Context, p *a2a.TaskPushConfig) (*a2a.TaskPushConfig, error) {
	return nil, a2a.ErrPushNotificationNotSupported
}

// OnDeleteTaskPushConfig: push notifications are off.
func (h *handler) OnDeleteTaskPushConfig(ctx context.Context, p *a2a.DeleteTaskPushConfigParams) error {
	return a2a.ErrPushNotificationNotSupported
}

// OnGetExtendedAgentCard: there is no extended card.
func (h *handler) OnGetExtendedAgentCard(ctx context.Context) (*a2a.AgentCard, error) {
	return nil, a2a.ErrAuthenticatedExtendedCardNotConfigured
}
