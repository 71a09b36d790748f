package a2a

// A2A 1.0 beside 0.3. The 1.0 bindings (JSON-RPC at /a2a with the methods SendMessage, GetTask,
// ListTasks, CancelTask, ..., and HTTP+JSON under /a2a/v1) decode a request into the same a2a-go
// values the 0.3 door hands its handler, call the same handler methods (so the same pipeline
// calls: auth, limits, idempotency by messageId, screening), and encode the answer in 1.0's shapes:
// parts without kind, ROLE_* and TASK_STATE_* enums, RFC 3339 millisecond timestamps, and errors
// with a google.rpc.ErrorInfo. Only the wire codec differs between the versions.

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/a2aproject/a2a-go/a2a"

	"github.com/axp-exchange/axp"
	"github.com/axp-exchange/axp/contract"
	"github.com/axp-exchange/axp/protocol"
)

// A2A 1.0: the protocol version of the 1.0 interfaces, the header that names a request's version
// and the path prefix of the HTTP+JSON binding.
const (
	ProtocolVersionV1 = "1.0"
	HeaderVersion     = "A2A-Version"
	RESTPrefix        = "/a2a/v1"
)

// A2A error codes beyond those of the 0.3 door.
const (
	codeInternal                  = -32603
	codePushNotSupported          = -32003
	codeContentTypeNotSupported   = -32005
	codeExtendedCardNotConfigured = -32007
	codeVersionNotSupported       = -32009
)

// reasonUnavailable is the ErrorInfo reason of a call refused while the store is out of reach:
// 503 UNAVAILABLE with Retry-After on the HTTP+JSON binding, as on the exchange's other doors.
const reasonUnavailable = "UNAVAILABLE"

// Domains of the ErrorInfo of a 1.0 error: A2A's own reasons, and the exchange's beyond them.
const (
	errorInfoType  = "type.googleapis.com/google.rpc.ErrorInfo"
	domainA2A      = "a2a-protocol.org"
	domainExchange = "axp"
)

// version names the A2A version a request asks for by its A2A-Version header: "" when it names
// none, "0.3" or "1.0"; ok is false for a version this agent does not serve.
func version(r *http.Request) (v string, ok bool) {
	h := strings.TrimSpace(r.Header.Get(HeaderVersion))
	if h == "" {
		return "", true
	}
	major, rest, _ := strings.Cut(h, ".")
	minor, _, _ := strings.Cut(rest, ".")
	switch {
	case major == "0" && minor == "3":
		return "0.3", true
	case major == "1" && (minor == "" || minor == "0"):
		return ProtocolVersionV1, true
	}
	return "", false
}

// v1Methods are the JSON-RPC methods of A2A 1.0; a request that names no version is a 1.0 request
// when its method is one of them.
var v1Methods = map[string]bool{
	"SendMessage": true, "SendStreamingMessage": true, "GetTask": true, "ListTasks": true, "CancelTask": true,
	"SubscribeToTask": true, "CreateTaskPushNotificationConfig": true, "GetTaskPushNotificationConfig": true,
	"ListTaskPushNotificationConfigs": true, "DeleteTaskPushNotificationConfig": true, "GetExtendedAgentCard": true,
}

// v1Error is an error of the 1.0 bindings: a JSON-RPC code, and the ErrorInfo reason, domain and
// metadata both bindings carry.
type v1Error struct {
	code       int
	reason     string
	domain     string
	message    string
	meta       map[string]string
	retryAfter int
	// refusal is the HTTP status of a refused credential on the JSON-RPC binding (0: 200).
	refusal int
}

var v1Reasons = map[int]string{
	codeParseError: "PARSE_ERROR", codeInvalidRequest: "INVALID_REQUEST", codeMethodNotFound: "METHOD_NOT_FOUND",
	codeInvalidParams: "INVALID_PARAMS", codeInternal: "INTERNAL_ERROR", codeTaskNotFound: "TASK_NOT_FOUND",
	codeTaskNotCancelable: "TASK_NOT_CANCELABLE", codePushNotSupported: "PUSH_NOTIFICATION_NOT_SUPPORTED",
	codeUnsupportedOperation: "UNSUPPORTED_OPERATION", codeContentTypeNotSupported: "CONTENT_TYPE_NOT_SUPPORTED",
	codeExtendedCardNotConfigured: "EXTENDED_AGENT_CARD_NOT_CONFIGURED", codeVersionNotSupported: "VERSION_NOT_SUPPORTED",
	codeUnauthorized: "UNAUTHENTICATED", codeForbidden: "PERMISSION_DENIED", codeConflict: "CONFLICT",
	codeRateLimited: "RATE_LIMITED", codePaymentRequired: "PAYMENT_REQUIRED",
}

func newV1Error(code int, message string) *v1Error {
	e := &v1Error{code: code, reason: v1Reasons[code], domain: domainA2A, message: message}
	if code <= codeUnauthorized && code >= codePaymentRequired {
		e.domain = domainExchange
	}
	if e.reason == "" {
		e.reason = "INTERNAL_ERROR"
	}
	return e
}

// errorInfo is the google.rpc.ErrorInfo of the error.
func (e *v1Error) errorInfo() map[string]any {
	info := map[string]any{"@type": errorInfoType, "reason": e.reason, "domain": e.domain}
	if len(e.meta) > 0 {
		info["metadata"] = e.meta
	}
	return info
}

// httpStatus is the HTTP status and google.rpc status name of the error on the HTTP+JSON binding.
func (e *v1Error) httpStatus() (int, string) {
	if e.reason == reasonUnavailable {
		return http.StatusServiceUnavailable, "UNAVAILABLE"
	}
	switch e.code {
	case codeParseError, codeInvalidRequest, codeInvalidParams, codeContentTypeNotSupported:
		return http.StatusBadRequest, "INVALID_ARGUMENT"
	case codeMethodNotFound, codeTaskNotFound:
		return http.StatusNotFound, "NOT_FOUND"
	case codeTaskNotCancelable, codePushNotSupported, codeUnsupportedOperation, codeExtendedCardNotConfigured,
		codeVersionNotSupported:
		return http.StatusBadRequest, "FAILED_PRECONDITION"
	case codeUnauthorized:
		return http.StatusUnauthorized, "UNAUTHENTICATED"
	case codeForbidden:
		return http.StatusForbidden, "PERMISSION_DENIED"
	case codeConflict:
		return http.StatusConflict, "ABORTED"
	case codeRateLimited:
		return http.StatusTooManyRequests, "RESOURCE_EXHAUSTED"
	case codePaymentRequired:
		return http.StatusPaymentRequired, "FAILED_PRECONDITION"
	}
	return http.StatusInternalServerError, "INTERNAL"
}

// v1ErrorOf is the 1.0 error of a handler's failure: the exchange's error when the call ended
// with one (its message, and code, field, hint and text in the metadata), else the A2A error kind
// the handler answered.
func v1ErrorOf(err error, f *failure) *v1Error {
	if f != nil && f.err != nil {
		e := f.err
		code := rpcCode(e, f.notFound)
		if e.Code == axp.CodeInternal || code == codeInternal {
			out := newV1Error(codeInternal, "internal error")
			out.meta = map[string]string{"code": string(axp.CodeInternal)}
			return out
		}
		msg := e.Message
		if e.Field != "" {
			msg = e.Field + ": " + e.Message
		}
		out := newV1Error(code, msg)
		if e.Code == axp.CodeUnavailable {
			out.reason, out.domain = reasonUnavailable, domainExchange
		}
		out.meta = map[string]string{"code": string(e.Code), "error": errorText(e)}
		if e.Field != "" {
			out.meta["field"] = e.Field
		}
		if e.Hint != "" {
			out.meta["hint"] = e.Hint
		}
		if e.RetryAfter > 0 {
			out.retryAfter = e.RetryAfter
			out.meta["retry_after"] = strconv.Itoa(e.RetryAfter)
		}
		return out
	}
	kinds := []struct {
		err  error
		code int
	}{
		{a2a.ErrInvalidParams, codeInvalidParams}, {a2a.ErrTaskNotFound, codeTaskNotFound},
		{a2a.ErrTaskNotCancelable, codeTaskNotCancelable}, {a2a.ErrPushNotificationNotSupported, codePushNotSupported},
		{a2a.ErrUnsupportedOperation, codeUnsupportedOperation}, {a2a.ErrUnsupportedContentType, codeContentTypeNotSupported},
		{a2a.ErrAuthenticatedExtendedCardNotConfigured, codeExtendedCardNotConfigured},
	}
	for _, k := range kinds {
		if errors.Is(err, k.err) {
			msg := strings.TrimPrefix(err.Error(), k.err.Error()+": ")
			return newV1Error(k.code, msg)
		}
	}
	return newV1Error(codeInternal, "internal error")
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	body, err := json.Marshal(v)
	if err != nil {
		status, body = http.StatusInternalServerError, []byte(`{"error":{"code":500,"status":"INTERNAL","message":"internal error"}}`)
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	w.Write(append(body, '\n'))
}

// writeV1RPCError answers a 1.0 JSON-RPC error: the code, the message and, in data, the ErrorInfo.
func writeV1RPCError(w http.ResponseWriter, status int, id json.RawMessage, e *v1Error) {
	if len(id) == 0 {
		id = json.RawMessage("null")
	}
	if e.retryAfter > 0 {
		w.Header().Set("Retry-After", strconv.Itoa(e.retryAfter))
	}
	writeJSON(w, status, map[string]any{"jsonrpc": "2.0", "id": id,
		"error": map[string]any{"code": e.code, "message": e.message, "data": []any{e.errorInfo()}}})
}

// writeV1RESTError answers a 1.0 HTTP+JSON error: a google.rpc.Status with the ErrorInfo in details.
func writeV1RESTError(w http.ResponseWriter, e *v1Error) {
	status, name := e.httpStatus()
	if e.retryAfter > 0 {
		w.Header().Set("Retry-After", strconv.Itoa(e.retryAfter))
	}
	writeJSON(w, status, map[string]any{"error": map[string]any{"code": status, "status": name, "message": e.message,
		"details": []any{e.errorInfo()}}})
}

// The 1.0 wire shapes (a2a.proto's JSON).

type v1PartIn struct {
	Text      *string         `json:"text"`
	Raw       *string         `json:"raw"`
	URL       *string         `json:"url"`
	Data      json.RawMessage `json:"data"`
	Metadata  map[string]any  `json:"metadata"`
	Filename  string          `json:"filename"`
	MediaType string          `json:"mediaType"`
}

type v1MessageIn struct {
	MessageID        string         `json:"messageId"`
	ContextID        string         `json:"contextId"`
	TaskID           string         `json:"taskId"`
	Role             string         `json:"role"`
	Parts            []v1PartIn     `json:"parts"`
	Metadata         map[string]any `json:"metadata"`
	Extensions       []string       `json:"extensions"`
	ReferenceTaskIDs []string       `json:"referenceTaskIds"`
}

type v1SendParams struct {
	Tenant        string       `json:"tenant"`
	Message       *v1MessageIn `json:"message"`
	Configuration *struct {
		AcceptedOutputModes        []string        `json:"acceptedOutputModes"`
		TaskPushNotificationConfig json.RawMessage `json:"taskPushNotificationConfig"`
		HistoryLength              *int            `json:"historyLength"`
		ReturnImmediately          bool            `json:"returnImmediately"`
	} `json:"configuration"`
	Metadata map[string]any `json:"metadata"`
}

type v1TaskParams struct {
	Tenant        string         `json:"tenant"`
	ID            string         `json:"id"`
	HistoryLength *int           `json:"historyLength"`
	Metadata      map[string]any `json:"metadata"`
}

type v1ListParams struct {
	Tenant               string `json:"tenant"`
	ContextID            string `json:"contextId"`
	Status               string `json:"status"`
	PageSize             *int   `json:"pageSize"`
	PageToken            string `json:"pageToken"`
	HistoryLength        *int   `json:"historyLength"`
	StatusTimestampAfter string `json:"statusTimestampAfter"`
	IncludeArtifacts     bool   `json:"includeArtifacts"`
}

type v1Part struct {
	Text      *string        `json:"text,omitempty"`
	Raw       string         `json:"raw,omitempty"`
	URL       string         `json:"url,omitempty"`
	Data      any            `json:"data,omitempty"`
	Metadata  map[string]any `json:"metadata,omitempty"`
	Filename  string         `json:"filename,omitempty"`
	MediaType string         `json:"mediaType,omitempty"`
}

type v1Message struct {
	MessageID        string         `json:"messageId"`
	ContextID        string         `json:"contextId,omitempty"`
	TaskID           string         `json:"taskId,omitempty"`
	Role             string         `json:"role"`
	Parts            []v1Part       `json:"parts"`
	Metadata         map[string]any `json:"metadata,omitempty"`
	Extensions       []string       `json:"extensions,omitempty"`
	ReferenceTaskIDs []string       `json:"referenceTaskIds,omitempty"`
}

type v1Status struct {
	State     string     `json:"state"`
	Message   *v1Message `json:"message,omitempty"`
	Timestamp string     `json:"timestamp,omitempty"`
}

type v1Artifact struct {
	ArtifactID  string         `json:"artifactId"`
	Name        string         `json:"name,omitempty"`
	Description string         `json:"description,omitempty"`
	Parts       []v1Part       `json:"parts"`
	Metadata    map[string]any `json:"metadata,omitempty"`
}

type v1Task struct {
	ID        string         `json:"id"`
	ContextID string         `json:"contextId"`
	Status    v1Status       `json:"status"`
	Artifacts []v1Artifact   `json:"artifacts,omitempty"`
	History   []v1Message    `json:"history,omitempty"`
	Metadata  map[string]any `json:"metadata,omitempty"`
}

type v1ListResponse struct {
	Tasks         []v1Task `json:"tasks"`
	NextPageToken string   `json:"nextPageToken"`
	PageSize      int      `json:"pageSize"`
	TotalSize     *int     `json:"totalSize,omitempty"`
}

// V1State is the TASK_STATE_* name of an A2A task state.
func V1State(s a2a.TaskState) string {
	switch s {
	case a2a.TaskStateUnknown, a2a.TaskStateUnspecified:
		return "TASK_STATE_UNSPECIFIED"
	}
	return "TASK_STATE_" + strings.ToUpper(strings.ReplaceAll(string(s), "-", "_"))
}

func v1Role(r a2a.MessageRole) string {
	switch r {
	case a2a.MessageRoleUser:
		return "ROLE_USER"
	case a2a.MessageRoleAgent:
		return "ROLE_AGENT"
	}
	return "ROLE_UNSPECIFIED"
}

// v1Time is an RFC 3339 timestamp in UTC with milliseconds.
func v1Time(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05.000Z07:00") }

func v1Parts(parts a2a.ContentParts) []v1Part {
	out := make([]v1Part, 0, len(parts))
	for _, p := range parts {
		switch v := p.(type) {
		case a2a.TextPart:
			text := v.Text
			out = append(out, v1Part{Text: &text, Metadata: v.Metadata})
		case a2a.DataPart:
			out = append(out, v1Part{Data: v.Data, Metadata: v.Metadata})
		case a2a.FilePart:
			switch f := v.File.(type) {
			case a2a.FileBytes:
				out = append(out, v1Part{Raw: f.Bytes, Filename: f.Name, MediaType: f.MimeType, Metadata: v.Metadata})
			case a2a.FileURI:
				out = append(out, v1Part{URL: f.URI, Filename: f.Name, MediaType: f.MimeType, Metadata: v.Metadata})
			}
		}
	}
	return out
}

func toV1Message(m *a2a.Message) *v1Message {
	if m == nil {
		return nil
	}
	out := &v1Message{MessageID: m.ID, ContextID: m.ContextID, TaskID: string(m.TaskID), Role: v1Role(m.Role),
		Parts: v1Parts(m.Parts), Metadata: m.Metadata, Extensions: m.Extensions}
	for _, id := range m.ReferenceTasks {
		out.ReferenceTaskIDs = append(out.ReferenceTaskIDs, string(id))
	}
	return out
}

func toV1Task(t *a2a.Task) v1Task {
	out := v1Task{ID: string(t.ID), ContextID: t.ContextID, Metadata: t.Metadata,
		Status: v1Status{State: V1State(t.Status.State), Message: toV1Message(t.Status.Message)}}
	if t.Status.Timestamp != nil {
		out.Status.Timestamp = v1Time(*t.Status.Timestamp)
	}
	for _, a := range t.Artifacts {
		out.Artifacts = append(out.Artifacts, v1Artifact{ArtifactID: string(a.ID), Name: a.Name, Description: a.Description,
			Parts: v1Parts(a.Parts), Metadata: a.Metadata})
	}
	for _, m := range t.History {
		out.History = append(out.History, *toV1Message(m))
	}
	return out
}

// fromV1Message is a 1.0 message as the a2a-go message the handler takes; bad input is an
// invalid-params error naming the field.
func fromV1Message(m *v1MessageIn) (*a2a.Message, *v1Error) {
	bad := func(format string, args ...any) (*a2a.Message, *v1Error) {
		return nil, newV1Error(codeInvalidParams, fmt.Sprintf(format, args...))
	}
	if m == nil {
		return bad("params.message is required")
	}
	if strings.TrimSpace(m.MessageID) == "" {
		return bad("message.messageId is required (a unique id, such as a UUID)")
	}
	if m.Role != "ROLE_USER" {
		return bad("message.role must be ROLE_USER, not %q", clip(m.Role))
	}
	if len(m.Parts) == 0 {
		return bad("message.parts: give a text part (what you want done) or a data part {type, params} or {description} to post a task")
	}
	out := &a2a.Message{ID: m.MessageID, ContextID: m.ContextID, TaskID: a2a.TaskID(m.TaskID), Role: a2a.MessageRoleUser,
		Metadata: m.Metadata, Extensions: m.Extensions}
	for _, id := range m.ReferenceTaskIDs {
		out.ReferenceTasks = append(out.ReferenceTasks, a2a.TaskID(id))
	}
	for i, p := range m.Parts {
		hasData := len(p.Data) > 0 && !bytes.Equal(p.Data, []byte("null"))
		n := 0
		for _, set := range []bool{p.Text != nil, p.Raw != nil, p.URL != nil, hasData} {
			if set {
				n++
			}
		}
		if n != 1 {
			return bad("message.parts[%d] must hold exactly one of text, data, raw or url", i)
		}
		meta := a2a.FileMeta{MimeType: p.MediaType, Name: p.Filename}
		switch {
		case p.Text != nil:
			out.Parts = append(out.Parts, a2a.TextPart{Text: *p.Text, Metadata: p.Metadata})
		case p.Raw != nil:
			out.Parts = append(out.Parts, a2a.FilePart{File: a2a.FileBytes{FileMeta: meta, Bytes: *p.Raw}, Metadata: p.Metadata})
		case p.URL != nil:
			out.Parts = append(out.Parts, a2a.FilePart{File: a2a.FileURI{FileMeta: meta, URI: *p.URL}, Metadata: p.Metadata})
		default:
			v, perr := protocol.ParseJSON(p.Data)
			obj, isObject := v.(map[string]any)
			if perr != nil || !isObject {
				return bad("message.parts[%d].data must be an object: {type, params} or {description}", i)
			}
			out.Parts = append(out.Parts, a2a.DataPart{Data: obj, Metadata: p.Metadata})
		}
	}
	return out, nil
}

// begin authenticates a 1.0 call and gives it the context the handler reads (caller, request,
// failure).
func (s *Server) begin(r *http.Request) (context.Context, *failure, *v1Error) {
	c, err := s.b.Authenticate(r)
	if err != nil {
		var e *axp.Error
		if !errors.As(err, &e) {
			return nil, nil, newV1Error(codeInternal, "internal error")
		}
		out := v1ErrorOf(err, &failure{err: e})
		out.refusal = authStatus(err)
		return nil, nil, out
	}
	f := &failure{}
	ctx := context.WithValue(context.WithValue(context.WithValue(r.Context(), callerKey, c), requestKey, r), failureKey, f)
	return ctx, f, nil
}

// v1Send is SendMessage: the answer is a SendMessageResponse ({task} or {message}).
func (s *Server) v1Send(r *http.Request, p *v1SendParams) (any, *v1Error) {
	if p.Configuration != nil && len(p.Configuration.TaskPushNotificationConfig) > 0 &&
		!bytes.Equal(p.Configuration.TaskPushNotificationConfig, []byte("null")) {
		return nil, newV1Error(codePushNotSupported, "push notifications are off (capabilities.pushNotifications is false): poll with GetTask")
	}
	msg, verr := fromV1Message(p.Message)
	if verr != nil {
		return nil, verr
	}
	ctx, f, verr := s.begin(r)
	if verr != nil {
		return nil, verr
	}
	res, err := (&handler{s: s}).OnSendMessage(ctx, &a2a.MessageSendParams{Message: msg, Metadata: p.Metadata})
	if err != nil {
		return nil, v1ErrorOf(err, f)
	}
	switch v := res.(type) {
	case *a2a.Task:
		return map[string]any{"task": toV1Task(v)}, nil
	case *a2a.Message:
		return map[string]any{"message": toV1Message(v)}, nil
	}
	return nil, newV1Error(codeInternal, "internal error")
}

// v1GetTask is GetTask (cancel false) or CancelTask. The buyer token travels as the Bearer token
// (or ?token=, or metadata.buyer_token as on 0.3).
func (s *Server) v1GetTask(r *http.Request, p *v1TaskParams, cancel bool) (any, *v1Error) {
	if strings.TrimSpace(p.ID) == "" {
		return nil, newV1Error(codeInvalidParams, "params.id (the task id) is required")
	}
	ctx, f, verr := s.begin(r)
	if verr != nil {
		return nil, verr
	}
	h := &handler{s: s}
	var t *a2a.Task
	var err error
	if cancel {
		t, err = h.OnCancelTask(ctx, &a2a.TaskIDParams{ID: a2a.TaskID(p.ID), Metadata: p.Metadata})
	} else {
		t, err = h.OnGetTask(ctx, &a2a.TaskQueryParams{ID: a2a.TaskID(p.ID), Metadata: p.Metadata})
	}
	if err != nil {
		return nil, v1ErrorOf(err, f)
	}
	return toV1Task(t), nil
}

// v1ListTasks is ListTasks: a buyer member's tasks (list_my_tasks), newest first, a page at a
// time; contextId (a task's context is its id) and status filter the page.
func (s *Server) v1ListTasks(r *http.Request, p *v1ListParams) (any, *v1Error) {
	args := map[string]any{}
	if p.PageSize != nil {
		if *p.PageSize < 1 || *p.PageSize > axp.MyTasksPageMax {
			return nil, newV1Error(codeInvalidParams, fmt.Sprintf("pageSize must be from 1 to %d", axp.MyTasksPageMax))
		}
		args["limit"] = json.Number(strconv.Itoa(*p.PageSize))
	}
	if p.PageToken != "" {
		args["cursor"] = p.PageToken
	}
	// An unset status is "" or TASK_STATE_UNSPECIFIED; @a2a-js/sdk 1.x sends UNRECOGNIZED for it.
	switch p.Status {
	case "TASK_STATE_UNSPECIFIED", "UNRECOGNIZED":
		p.Status = ""
	}
	if p.Status != "" && !strings.HasPrefix(p.Status, "TASK_STATE_") {
		return nil, newV1Error(codeInvalidParams, "status must be a TASK_STATE_* name")
	}
	ctx, f, verr := s.begin(r)
	if verr != nil {
		return nil, verr
	}
	h := &handler{s: s}
	out, err := h.call(ctx, contract.ListMyTasks.Op(), args)
	if err != nil {
		fail(ctx, renamed(err, "params", map[string]string{"limit": "params.pageSize", "cursor": "params.pageToken"}), 0)
		return nil, v1ErrorOf(err, f)
	}
	m, err := asMap(out)
	if err != nil {
		return nil, newV1Error(codeInternal, "internal error")
	}
	resp := v1ListResponse{Tasks: []v1Task{}, PageSize: axp.MyTasksPageDefault}
	if p.PageSize != nil {
		resp.PageSize = *p.PageSize
	}
	resp.NextPageToken, _ = m["next_cursor"].(string)
	tasks, _ := m["tasks"].([]any)
	for _, v := range tasks {
		tm, ok := v.(map[string]any)
		if !ok {
			continue
		}
		t := toV1Task(s.task(tm, "", "The task as the exchange shows it to you."))
		if (p.ContextID != "" && t.ContextID != p.ContextID) || (p.Status != "" && t.Status.State != p.Status) {
			continue
		}
		if !p.IncludeArtifacts {
			t.Artifacts = nil
		}
		resp.Tasks = append(resp.Tasks, t)
	}
	if resp.NextPageToken == "" && p.PageToken == "" {
		n := len(resp.Tasks)
		resp.TotalSize = &n
	}
	return resp, nil
}

// serveV1RPC answers one 1.0 JSON-RPC call whose envelope the door has checked.
func (s *Server) serveV1RPC(w http.ResponseWriter, r *http.Request, id json.RawMessage, method string, params json.RawMessage) {
	var res any
	var verr *v1Error
	decode := func(dst any) bool {
		if err := strictParams(params, dst); err != nil {
			verr = newV1Error(codeInvalidParams, err.Error())
			return false
		}
		return true
	}
	switch method {
	case "SendMessage":
		var p v1SendParams
		if decode(&p) {
			res, verr = s.v1Send(r, &p)
		}
	case "GetTask", "CancelTask":
		var p v1TaskParams
		if decode(&p) {
			res, verr = s.v1GetTask(r, &p, method == "CancelTask")
		}
	case "ListTasks":
		var p v1ListParams
		if len(params) == 0 || bytes.Equal(params, []byte("null")) {
			params = json.RawMessage("{}")
		}
		if decode(&p) {
			res, verr = s.v1ListTasks(r, &p)
		}
	case "SendStreamingMessage", "SubscribeToTask":
		verr = newV1Error(codeUnsupportedOperation, "streaming is off (capabilities.streaming is false): use SendMessage, then GetTask")
	case "CreateTaskPushNotificationConfig", "GetTaskPushNotificationConfig", "ListTaskPushNotificationConfigs",
		"DeleteTaskPushNotificationConfig":
		verr = newV1Error(codePushNotSupported, "push notifications are off (capabilities.pushNotifications is false): poll with GetTask")
	case "GetExtendedAgentCard":
		verr = newV1Error(codeExtendedCardNotConfigured, "there is no extended agent card: the public card at /.well-known/agent-card.json is the whole card")
	default:
		verr = newV1Error(codeMethodNotFound, fmt.Sprintf("%q is not an A2A 1.0 method of this agent: use SendMessage, GetTask, ListTasks or CancelTask (0.3 clients: send A2A-Version: 0.3 or no version)", clip(method)))
	}
	w.Header().Set(HeaderVersion, ProtocolVersionV1)
	if verr != nil {
		// Only a refused credential (before any operation) is an HTTP refusal, as on 0.3.
		status := http.StatusOK
		if verr.refusal != 0 {
			status = verr.refusal
		}
		writeV1RPCError(w, status, id, verr)
		return
	}
	if len(id) == 0 {
		id = json.RawMessage("null")
	}
	writeJSON(w, http.StatusOK, map[string]any{"jsonrpc": "2.0", "id": id, "result": res})
}

// RESTHandler serves the HTTP+JSON binding of A2A 1.0 under RESTPrefix: POST /message:send,
// GET /tasks/{id}, POST /tasks/{id}:cancel, GET /tasks; the streaming, push-notification and
// extended-card paths answer their 1.0 errors.
func (s *Server) RESTHandler() http.Handler {
	return http.HandlerFunc(s.serveREST)
}

func (s *Server) serveREST(w http.ResponseWriter, r *http.Request) {
	w.Header().Set(HeaderVersion, ProtocolVersionV1)
	if v, ok := version(r); !ok || v == "0.3" {
		writeV1RESTError(w, newV1Error(codeVersionNotSupported, fmt.Sprintf(
			"%s %q is not served here: the HTTP+JSON binding at %s is A2A 1.0 (0.3 clients use JSON-RPC at /a2a)",
			HeaderVersion, clip(r.Header.Get(HeaderVersion)), RESTPrefix)))
		return
	}
	path := strings.TrimPrefix(r.URL.Path, RESTPrefix)
	method := func(allowed string) bool {
		if r.Method == allowed {
			return true
		}
		w.Header().Set("Allow", allowed)
		e := newV1Error(codeInvalidRequest, fmt.Sprintf("%s %s takes %s", r.Method, RESTPrefix+path, allowed))
		_, name := e.httpStatus()
		writeJSON(w, http.StatusMethodNotAllowed, map[string]any{"error": map[string]any{"code": http.StatusMethodNotAllowed,
			"status": name, "message": e.message, "details": []any{e.errorInfo()}}})
		return false
	}
	var res any
	var verr *v1Error
	rest, isTask := strings.CutPrefix(path, "/tasks/")
	switch {
	case path == "/message:send":
		if !method(http.MethodPost) {
			return
		}
		var p v1SendParams
		if verr = s.readBody(w, r, &p, false); verr == nil {
			res, verr = s.v1Send(r, &p)
		}
	case path == "/message:stream" || isTask && strings.HasSuffix(rest, ":subscribe"):
		verr = newV1Error(codeUnsupportedOperation, "streaming is off (capabilities.streaming is false): use message:send, then GET tasks/{id}")
	case path == "/extendedAgentCard":
		verr = newV1Error(codeExtendedCardNotConfigured, "there is no extended agent card: the public card at /.well-known/agent-card.json is the whole card")
	case path == "/tasks":
		if !method(http.MethodGet) {
			return
		}
		var p v1ListParams
		if p, verr = listQuery(r); verr == nil {
			res, verr = s.v1ListTasks(r, &p)
		}
	case isTask && strings.Contains(rest, "/pushNotificationConfigs"):
		verr = newV1Error(codePushNotSupported, "push notifications are off (capabilities.pushNotifications is false): poll with GET tasks/{id}")
	case isTask && strings.HasSuffix(rest, ":cancel") && !strings.Contains(rest, "/"):
		if !method(http.MethodPost) {
			return
		}
		p := v1TaskParams{}
		if verr = s.readBody(w, r, &p, true); verr == nil {
			p.ID = strings.TrimSuffix(rest, ":cancel")
			res, verr = s.v1GetTask(r, &p, true)
		}
	case isTask && rest != "" && !strings.ContainsAny(rest, "/:"):
		if !method(http.MethodGet) {
			return
		}
		res, verr = s.v1GetTask(r, &v1TaskParams{ID: rest}, false)
	default:
		verr = newV1Error(codeMethodNotFound, fmt.Sprintf("%s is not a path of the A2A 1.0 HTTP+JSON binding: use POST %s/message:send, GET %s/tasks/{id}, POST %s/tasks/{id}:cancel or GET %s/tasks",
			clip(r.URL.Path), RESTPrefix, RESTPrefix, RESTPrefix, RESTPrefix))
	}
	if verr != nil {
		writeV1RESTError(w, verr)
		return
	}
	writeJSON(w, http.StatusOK, res)
}

// readBody decodes a JSON body into dst; an empty body is an empty object when optional.
func (s *Server) readBody(w http.ResponseWriter, r *http.Request, dst any, optional bool) *v1Error {
	raw, err := io.ReadAll(http.MaxBytesReader(w, r.Body, s.o.MaxBodyBytes))
	if err != nil {
		return newV1Error(codeInvalidRequest, fmt.Sprintf("the request body could not be read (at most %d bytes)", s.o.MaxBodyBytes))
	}
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 && optional {
		return nil
	}
	if !json.Valid(raw) {
		return newV1Error(codeParseError, "the request body is not valid JSON")
	}
	if err := strictParams(raw, dst); err != nil {
		return newV1Error(codeInvalidParams, strings.Replace(err.Error(), "params", "the body", 1))
	}
	return nil
}

// listQuery reads ListTasks' parameters from the query of GET /tasks.
func listQuery(r *http.Request) (v1ListParams, *v1Error) {
	q := r.URL.Query()
	p := v1ListParams{ContextID: q.Get("contextId"), Status: q.Get("status"), PageToken: q.Get("pageToken"),
		StatusTimestampAfter: q.Get("statusTimestampAfter")}
	for name, dst := range map[string]**int{"pageSize": &p.PageSize, "historyLength": &p.HistoryLength} {
		if v := q.Get(name); v != "" {
			n, err := strconv.Atoi(v)
			if err != nil {
				return p, newV1Error(codeInvalidParams, name+" must be a whole number")
			}
			*dst = &n
		}
	}
	if v := q.Get("includeArtifacts"); v != "" {
		b, err := strconv.ParseBool(v)
		if err != nil {
			return p, newV1Error(codeInvalidParams, "includeArtifacts must be true or false")
		}
		p.IncludeArtifacts = b
	}
	return p, nil
}
