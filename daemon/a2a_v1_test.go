package daemon_test

import (
	"encoding/json"
	"io"
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/axp-exchange/axp"
)

// v1Call is one request to the A2A 1.0 bindings: its status, body and raw text.
type v1Call struct {
	status int
	header http.Header
	body   map[string]any
	raw    string
}

func (e *env) a2a1(method, path, body string, header map[string]string) v1Call {
	e.t.Helper()
	req, err := http.NewRequest(method, e.srv.URL+path, strings.NewReader(body))
	if err != nil {
		e.t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		e.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	c := v1Call{status: resp.StatusCode, header: resp.Header, raw: string(b)}
	dec := json.NewDecoder(strings.NewReader(c.raw))
	dec.UseNumber()
	dec.Decode(&c.body)
	return c
}

// errorInfo is the ErrorInfo of a 1.0 error answer on either binding.
func errorInfo(t *testing.T, c v1Call) (code int, reason string, meta map[string]any) {
	t.Helper()
	e, _ := c.body["error"].(map[string]any)
	var details []any
	if d, ok := e["data"].([]any); ok {
		details = d
	} else {
		details, _ = e["details"].([]any)
	}
	if len(details) != 1 {
		t.Fatalf("no ErrorInfo in %s", c.raw)
	}
	info := details[0].(map[string]any)
	if info["@type"] != "type.googleapis.com/google.rpc.ErrorInfo" || info["domain"] == nil {
		t.Fatalf("ErrorInfo %v", info)
	}
	n, _ := e["code"].(json.Number).Int64()
	meta, _ = info["metadata"].(map[string]any)
	return int(n), info["reason"].(string), meta
}

var rfc3339ms = regexp.MustCompile(`^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$`)

// TestA2AV1JSONRPC drives A2A 1.0 over JSON-RPC at /a2a: the 1.0 card, SendMessage with text and
// with a data part, GetTask, CancelTask, ListTasks, idempotency by messageId, and bad input in
// 1.0's error shape (never a 500); a 0.3 request on the same path still gets 0.3's answer.
func TestA2AV1JSONRPC(t *testing.T) {
	t.Parallel()
	e := newMarket(t)
	e.instantSeller("text-file", "2.50", 5, nil, nil)
	v1 := map[string]string{"A2A-Version": "1.0"}

	card := e.a2a1(http.MethodGet, "/.well-known/agent-card.json", "", v1)
	ifs, _ := card.body["supportedInterfaces"].([]any)
	if len(ifs) != 3 || card.body["protocolVersion"] != nil || card.body["url"] != nil || card.header.Get("Vary") != "A2A-Version" {
		t.Fatalf("1.0 card %s", card.raw)
	}
	first := ifs[0].(map[string]any)
	if first["protocolBinding"] != "JSONRPC" || first["protocolVersion"] != "1.0" || first["url"] != e.srv.URL+"/a2a" {
		t.Fatalf("interfaces %v", ifs)
	}
	if s, _ := card.body["securitySchemes"].(map[string]any); s["memberSecret"] == nil || s["buyerToken"] == nil {
		t.Fatalf("security schemes %s", card.raw)
	}
	both := e.a2a1(http.MethodGet, "/.well-known/agent-card.json", "", nil)
	if both.body["protocolVersion"] != "0.3.0" || len(both.body["supportedInterfaces"].([]any)) != 3 {
		t.Fatalf("the card both versions read %s", both.raw)
	}

	send := func(messageID, parts string, h map[string]string) v1Call {
		return e.a2a1(http.MethodPost, "/a2a", `{"jsonrpc":"2.0","id":7,"method":"SendMessage","params":{"message":{"messageId":"`+
			messageID+`","role":"ROLE_USER","parts":`+parts+`}}}`, h)
	}
	sugg := send("5b0e1f2a-0000-4000-8000-000000000001", `[{"text":"write a poem about the autumn sea"}]`, nil)
	msg, _ := sugg.body["result"].(map[string]any)["message"].(map[string]any)
	if msg["role"] != "ROLE_AGENT" || sugg.header.Get("A2A-Version") != "1.0" {
		t.Fatalf("suggestion %s", sugg.raw)
	}
	parts := msg["parts"].([]any)
	if _, ok := parts[0].(map[string]any)["text"].(string); !ok || parts[1].(map[string]any)["data"] == nil || parts[0].(map[string]any)["kind"] != nil {
		t.Fatalf("parts %v", parts)
	}

	before := taskCount(e)
	post := `[{"data":{"type":"text-file","params":{"prompt":"a poem about the autumn sea"}}}]`
	posted := send("5b0e1f2a-0000-4000-8000-000000000002", post, v1)
	task, _ := posted.body["result"].(map[string]any)["task"].(map[string]any)
	status, _ := task["status"].(map[string]any)
	if status["state"] != "TASK_STATE_INPUT_REQUIRED" || !rfc3339ms.MatchString(status["timestamp"].(string)) ||
		status["message"].(map[string]any)["role"] != "ROLE_AGENT" {
		t.Fatalf("posted %s", posted.raw)
	}
	id := task["id"].(string)
	view := task["artifacts"].([]any)[0].(map[string]any)["parts"].([]any)[0].(map[string]any)["data"].(map[string]any)
	token := view["buyer_token"].(string)
	if view["id"] != id || task["history"].([]any)[0].(map[string]any)["role"] != "ROLE_USER" {
		t.Fatalf("posted %s", posted.raw)
	}
	// The same messageId answers the first task; a 0.3 message/send with its own id posts another.
	if again := send("5b0e1f2a-0000-4000-8000-000000000002", post, nil); !strings.Contains(again.raw, id) || taskCount(e) != before+1 {
		t.Fatalf("a resent SendMessage posted again: %s", again.raw)
	}
	old := e.a2a1(http.MethodPost, "/a2a", `{"jsonrpc":"2.0","id":1,"method":"message/send","params":{"message":{"kind":"message","messageId":"m03","role":"user","parts":[{"kind":"text","text":"a poem"}]}}}`, nil)
	if res, _ := old.body["result"].(map[string]any); res["kind"] != "message" {
		t.Fatalf("0.3 beside 1.0: %s", old.raw)
	}

	bearer := map[string]string{"A2A-Version": "1.0", "Authorization": "Bearer " + token}
	read := e.a2a1(http.MethodPost, "/a2a", `{"jsonrpc":"2.0","id":2,"method":"GetTask","params":{"id":"`+id+`"}}`, bearer)
	if r, _ := read.body["result"].(map[string]any); r["id"] != id || r["status"].(map[string]any)["state"] != "TASK_STATE_INPUT_REQUIRED" {
		t.Fatalf("GetTask %s", read.raw)
	}
	cancelled := e.a2a1(http.MethodPost, "/a2a", `{"jsonrpc":"2.0","id":3,"method":"CancelTask","params":{"id":"`+id+`"}}`, bearer)
	if r, _ := cancelled.body["result"].(map[string]any); r["status"].(map[string]any)["state"] != "TASK_STATE_CANCELED" {
		t.Fatalf("CancelTask %s", cancelled.raw)
	}
	if got := getTask(t, e.anon.With(token), id); got.Status != axp.TaskCancelled {
		t.Fatalf("after CancelTask the task is %s", got.Status)
	}

	bm := e.register(map[string]any{"roles": []string{"buyer"}})
	mine := e.a2a1(http.MethodPost, "/a2a", `{"jsonrpc":"2.0","id":4,"method":"SendMessage","params":{"message":{"messageId":"5b0e1f2a-0000-4000-8000-000000000003","role":"ROLE_USER","parts":`+post+`}}}`,
		map[string]string{"Authorization": "Bearer " + bm.MemberSecret})
	mineID := mine.body["result"].(map[string]any)["task"].(map[string]any)["id"]
	list := e.a2a1(http.MethodPost, "/a2a", `{"jsonrpc":"2.0","id":5,"method":"ListTasks","params":{"pageSize":10}}`,
		map[string]string{"Authorization": "Bearer " + bm.MemberSecret})
	lr, _ := list.body["result"].(map[string]any)
	tasks, _ := lr["tasks"].([]any)
	if len(tasks) != 1 || tasks[0].(map[string]any)["id"] != mineID || tasks[0].(map[string]any)["artifacts"] != nil {
		t.Fatalf("ListTasks %s", list.raw)
	}

	before = taskCount(e)
	for _, c := range []struct {
		body   string
		header map[string]string
		status int
		code   int
		reason string
		in     string
	}{
		{`{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":`, v1, 200, -32700, "PARSE_ERROR", ""},
		{`{"jsonrpc":"2.0","id":1,"method":"message/send","params":{}}`, v1, 200, -32601, "METHOD_NOT_FOUND", "A2A-Version: 0.3"},
		{`{"jsonrpc":"2.0","id":1,"method":"GetTask","params":{}}`, map[string]string{"A2A-Version": "2.0"}, 200, -32009, "VERSION_NOT_SUPPORTED", ""},
		{`{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{"message":"hi"}}`, nil, 200, -32602, "INVALID_PARAMS", "params.message"},
		{`{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{"message":{"messageId":"m","role":"user","parts":[{"text":"x"}]}}}`, nil, 200, -32602, "INVALID_PARAMS", "ROLE_USER"},
		{`{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{"message":{"role":"ROLE_USER","parts":[{"text":"x"}]}}}`, nil, 200, -32602, "INVALID_PARAMS", "messageId"},
		{`{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{"message":{"messageId":"m","role":"ROLE_USER","parts":[{"text":"x","data":{}}]}}}`, nil, 200, -32602, "INVALID_PARAMS", "exactly one"},
		{`{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{"message":{"messageId":"m","role":"ROLE_USER","parts":[{"data":[1]}]}}}`, nil, 200, -32602, "INVALID_PARAMS", "must be an object"},
		{`{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{"message":{"messageId":"m","role":"ROLE_USER","parts":[{"data":{"type":"text-file","params":{"prompt":9}}}]}}}`, nil, 200, -32602, "INVALID_PARAMS", "message.parts[0].data.params.prompt"},
		{`{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{"message":{"messageId":"m","role":"ROLE_USER","parts":[{"url":"https://x.example/a.pdf"}]}}}`, nil, 200, -32005, "CONTENT_TYPE_NOT_SUPPORTED", ""},
		{`{"jsonrpc":"2.0","id":1,"method":"SendStreamingMessage","params":{}}`, nil, 200, -32004, "UNSUPPORTED_OPERATION", ""},
		{`{"jsonrpc":"2.0","id":1,"method":"CreateTaskPushNotificationConfig","params":{}}`, nil, 200, -32003, "PUSH_NOTIFICATION_NOT_SUPPORTED", ""},
		{`{"jsonrpc":"2.0","id":1,"method":"GetExtendedAgentCard","params":{}}`, nil, 200, -32007, "EXTENDED_AGENT_CARD_NOT_CONFIGURED", ""},
		{`{"jsonrpc":"2.0","id":1,"method":"GetTask","params":{"id":"tsk_nope"}}`, map[string]string{"Authorization": "Bearer bt_0123"}, 200, -32001, "TASK_NOT_FOUND", ""},
		{`{"jsonrpc":"2.0","id":1,"method":"GetTask","params":{"id":"` + id + `"}}`, nil, 200, -32010, "UNAUTHENTICATED", "buyer token"},
		{`{"jsonrpc":"2.0","id":1,"method":"CancelTask","params":{"id":"` + id + `"}}`, map[string]string{"Authorization": "Bearer " + token}, 200, -32002, "TASK_NOT_CANCELABLE", ""},
		{`{"jsonrpc":"2.0","id":1,"method":"ListTasks","params":{}}`, nil, 200, -32010, "UNAUTHENTICATED", ""},
		{`{"jsonrpc":"2.0","id":1,"method":"ListTasks","params":{"pageSize":"ten"}}`, nil, 200, -32602, "INVALID_PARAMS", "pageSize"},
		{`{"jsonrpc":"2.0","id":1,"method":"GetTask","params":{"id":"x"}}`, map[string]string{"Authorization": "Bearer ss_nobody_00"}, 401, -32010, "UNAUTHENTICATED", ""},
	} {
		a := e.a2a1(http.MethodPost, "/a2a", c.body, c.header)
		if a.status != c.status {
			t.Errorf("%s: status %d, want %d: %s", c.body, a.status, c.status, a.raw)
			continue
		}
		code, reason, _ := errorInfo(t, a)
		if code != c.code || reason != c.reason || !strings.Contains(a.raw, c.in) {
			t.Errorf("%s: got %d %s, want %d %s naming %q: %s", c.body, code, reason, c.code, c.reason, c.in, a.raw)
		}
	}
	if after := taskCount(e); after != before {
		t.Fatalf("refused requests stored tasks: %d -> %d", before, after)
	}
}

// TestA2AV1REST drives the HTTP+JSON binding of A2A 1.0 under /a2a/v1: message:send, GET
// tasks/{id}, tasks/{id}:cancel, GET tasks, and its errors as google.rpc.Status bodies.
func TestA2AV1REST(t *testing.T) {
	t.Parallel()
	e := newMarket(t)
	e.instantSeller("text-file", "2.50", 5, nil, nil)

	posted := e.a2a1(http.MethodPost, "/a2a/v1/message:send", `{"message":{"messageId":"5b0e1f2a-0000-4000-8000-000000000010","role":"ROLE_USER","parts":[{"data":{"type":"text-file","params":{"prompt":"a limerick about a lighthouse keeper"}}}]}}`, nil)
	task, _ := posted.body["task"].(map[string]any)
	if posted.status != 200 || task == nil {
		t.Fatalf("message:send %d %s", posted.status, posted.raw)
	}
	id := task["id"].(string)
	token := task["artifacts"].([]any)[0].(map[string]any)["parts"].([]any)[0].(map[string]any)["data"].(map[string]any)["buyer_token"].(string)
	bearer := map[string]string{"Authorization": "Bearer " + token}
	if read := e.a2a1(http.MethodGet, "/a2a/v1/tasks/"+id, "", bearer); read.status != 200 || read.body["id"] != id {
		t.Fatalf("GET tasks/{id} %d %s", read.status, read.raw)
	}
	if c := e.a2a1(http.MethodPost, "/a2a/v1/tasks/"+id+":cancel", "", bearer); c.status != 200 ||
		c.body["status"].(map[string]any)["state"] != "TASK_STATE_CANCELED" {
		t.Fatalf("tasks/{id}:cancel %d %s", c.status, c.raw)
	}
	text := e.a2a1(http.MethodPost, "/a2a/v1/message:send", `{"message":{"messageId":"5b0e1f2a-0000-4000-8000-000000000011","role":"ROLE_USER","parts":[{"text":"a haiku about autumn"}]}}`, nil)
	if m, _ := text.body["message"].(map[string]any); m["role"] != "ROLE_AGENT" {
		t.Fatalf("text %s", text.raw)
	}

	for _, c := range []struct {
		method, path, body string
		header             map[string]string
		status             int
		reason             string
	}{
		{"POST", "/a2a/v1/message:send", `{not json`, nil, 400, "PARSE_ERROR"},
		{"POST", "/a2a/v1/message:send", `{"message":{"messageId":"m","role":"ROLE_USER","parts":[{"data":{"type":"text-file","params":{"prompt":9}}}]}}`, nil, 400, "INVALID_PARAMS"},
		{"POST", "/a2a/v1/message:send", `{"message":7}`, nil, 400, "INVALID_PARAMS"},
		{"GET", "/a2a/v1/message:send", ``, nil, 405, "INVALID_REQUEST"},
		{"GET", "/a2a/v1/tasks/tsk_nope", ``, map[string]string{"Authorization": "Bearer bt_0123"}, 404, "TASK_NOT_FOUND"},
		{"GET", "/a2a/v1/tasks/" + id, ``, nil, 401, "UNAUTHENTICATED"},
		{"POST", "/a2a/v1/tasks/" + id + ":cancel", ``, bearer, 400, "TASK_NOT_CANCELABLE"},
		{"GET", "/a2a/v1/tasks", ``, nil, 401, "UNAUTHENTICATED"},
		{"GET", "/a2a/v1/tasks?pageSize=x", ``, nil, 400, "INVALID_PARAMS"},
		{"POST", "/a2a/v1/message:stream", `{}`, nil, 400, "UNSUPPORTED_OPERATION"},
		{"GET", "/a2a/v1/tasks/" + id + "/pushNotificationConfigs", ``, nil, 400, "PUSH_NOTIFICATION_NOT_SUPPORTED"},
		{"GET", "/a2a/v1/nowhere", ``, nil, 404, "METHOD_NOT_FOUND"},
		{"POST", "/a2a/v1/message:send", `{}`, map[string]string{"A2A-Version": "0.3"}, 400, "VERSION_NOT_SUPPORTED"},
	} {
		a := e.a2a1(c.method, c.path, c.body, c.header)
		if a.status != c.status {
			t.Errorf("%s %s: status %d, want %d: %s", c.method, c.path, a.status, c.status, a.raw)
			continue
		}
		if _, reason, _ := errorInfo(t, a); reason != c.reason {
			t.Errorf("%s %s: reason %s, want %s: %s", c.method, c.path, reason, c.reason, a.raw)
		}
	}
}
