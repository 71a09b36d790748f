package daemon_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/axp-exchange/axp"
	"github.com/axp-exchange/axp/contract"
	"github.com/axp-exchange/axp/daemon"
	"github.com/axp-exchange/axp/daemon/mcp"
)

// rpcAnswer is a JSON-RPC answer with its HTTP status.
type rpcAnswer struct {
	status int
	header http.Header
	body   map[string]any
	raw    []byte
}

// rpc posts one raw JSON-RPC body to path with the given headers (Host overrides the Host header).
func (e *env) rpc(path, body string, header map[string]string) rpcAnswer {
	e.t.Helper()
	req, err := http.NewRequest(http.MethodPost, e.srv.URL+path, strings.NewReader(body))
	if err != nil {
		e.t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	for k, v := range header {
		if k == "Host" {
			req.Host = v
			continue
		}
		req.Header.Set(k, v)
	}
	resp, err := e.srv.Client().Do(req)
	if err != nil {
		e.t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	a := rpcAnswer{status: resp.StatusCode, header: resp.Header, raw: raw}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	dec.Decode(&a.body)
	return a
}

// mcpCall calls a tool over /mcp with an optional Bearer token and answers the JSON-RPC answer.
func (e *env) mcpCall(token, tool string, args any) rpcAnswer {
	e.t.Helper()
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": map[string]any{"name": tool, "arguments": args}})
	h := map[string]string{}
	if token != "" {
		h["Authorization"] = "Bearer " + token
	}
	return e.rpc("/mcp", string(b), h)
}

// toolResult is the result of a successful JSON-RPC tools/call.
func toolResult(t *testing.T, a rpcAnswer) map[string]any {
	t.Helper()
	if a.status != http.StatusOK {
		t.Fatalf("status %d: %s", a.status, a.raw)
	}
	res, ok := a.body["result"].(map[string]any)
	if !ok {
		t.Fatalf("no result: %s", a.raw)
	}
	return res
}

// toolOK is the structured content of a successful tool call; the text block holds the same JSON.
func toolOK(t *testing.T, a rpcAnswer) map[string]any {
	t.Helper()
	res := toolResult(t, a)
	if res["isError"] == true {
		t.Fatalf("tool error: %s", a.raw)
	}
	sc, ok := res["structuredContent"].(map[string]any)
	if !ok {
		t.Fatalf("no structuredContent: %s", a.raw)
	}
	content := res["content"].([]any)
	text := content[0].(map[string]any)["text"].(string)
	var fromText map[string]any
	dec := json.NewDecoder(strings.NewReader(text))
	dec.UseNumber()
	if err := dec.Decode(&fromText); err != nil || fmt.Sprint(fromText) != fmt.Sprint(sc) {
		t.Fatalf("the text block is not the structured content: %s", text)
	}
	return sc
}

// toolErr is the exchange error of a tool call that failed as a tool result (isError).
func toolErr(t *testing.T, a rpcAnswer, code axp.Code, field string) errorBody {
	t.Helper()
	res := toolResult(t, a)
	if res["isError"] != true {
		t.Fatalf("want a tool error %s, got %s", code, a.raw)
	}
	if _, has := res["structuredContent"]; has {
		t.Fatalf("an error result carries structuredContent: %s", a.raw)
	}
	text := res["content"].([]any)[0].(map[string]any)["text"].(string)
	var b errorBody
	dec := json.NewDecoder(strings.NewReader(text))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&b); err != nil {
		t.Fatalf("error text %q: %v", text, err)
	}
	if b.Error.Code != string(code) || (field != "-" && b.Error.Field != field) || b.Error.Message == "" || b.TraceID == "" {
		t.Fatalf("want %s on %q, got %+v", code, field, b)
	}
	return b
}

// rpcErrCode is the JSON-RPC error code of an answer (0 when it has none).
func rpcErrCode(t *testing.T, a rpcAnswer) int {
	t.Helper()
	e, ok := a.body["error"].(map[string]any)
	if !ok {
		return 0
	}
	n, _ := e["code"].(json.Number).Int64()
	return int(n)
}

func toolNames(t *testing.T, e *env, token string) []string {
	t.Helper()
	h := map[string]string{}
	if token != "" {
		h["Authorization"] = "Bearer " + token
	}
	a := e.rpc("/mcp", `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`, h)
	res := toolResult(t, a)
	var names []string
	for _, x := range res["tools"].([]any) {
		names = append(names, x.(map[string]any)["name"].(string))
	}
	return names
}

func taskCount(e *env) int {
	n := 0
	for _, c := range e.stats().Tasks {
		n += c
	}
	return n
}

// TestMCPDoor drives /mcp with raw JSON-RPC: public tools, the buyer token as an argument, member
// tools behind a member secret, errors as tool results naming the field, protocol errors for bad
// JSON-RPC, and nothing stored by refused calls.
func TestMCPDoor(t *testing.T) {
	t.Parallel()
	e := newMarket(t)
	seller := e.instantSeller("text-file", "3.00", 5, nil, nil)

	init := e.rpc("/mcp", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`, nil)
	if init.status != 200 || init.header.Get("X-Trace-Id") == "" {
		t.Fatalf("initialize: %d %s", init.status, init.raw)
	}
	if si := toolResult(t, init)["serverInfo"].(map[string]any); si["name"] != "axp" {
		t.Fatalf("serverInfo %v", si)
	}

	public := toolNames(t, e, "")
	if slices.Contains(public, "heartbeat") || !slices.Contains(public, "create_task") {
		t.Fatalf("public tools %v", public)
	}

	created := toolOK(t, e.mcpCall("", "create_task", map[string]any{"type": "text-file", "params": map[string]any{"prompt": "a haiku about moss"}}))
	id, token := created["id"].(string), created["buyer_token"].(string)
	offers := created["offers"].([]any)
	if len(offers) != 1 {
		t.Fatalf("offers %v", offers)
	}
	// The buyer token goes as an argument; the task is the REST door's task.
	viewed := toolOK(t, e.mcpCall("", "get_task", map[string]any{"id": id, "buyer_token": token}))
	rest := getTask(t, e.anon.With(token), id)
	if viewed["status"] != rest.Status || viewed["id"] != rest.ID {
		t.Fatalf("MCP sees %v, REST %+v", viewed["status"], rest.Status)
	}
	offerID := offers[0].(map[string]any)["offer_id"].(string)
	toolErr(t, e.mcpCall("", "choose_offer", map[string]any{"id": id, "offer_id": offerID}), axp.CodeUnauthorized, "-")
	toolErr(t, e.mcpCall("", "choose_offer", map[string]any{"id": id, "offer_id": offerID, "token": token}), axp.CodeInvalidInput, "token")
	chosen := toolOK(t, e.mcpCall("", "choose_offer", map[string]any{"id": id, "offer_id": offerID, "buyer_token": token}))
	if chosen["status"] != axp.TaskAwaitingPayment {
		t.Fatalf("chosen %v", chosen["status"])
	}
	// The seller's member tools see the job.
	jobs := toolOK(t, e.mcpCall(seller.MemberSecret, "list_jobs", map[string]any{"status": "all"}))
	if n := len(jobs["tasks"].([]any)); n != 1 {
		t.Fatalf("jobs %d", n)
	}

	before := taskCount(e)
	// Bad arguments: tool errors naming the field; nothing stored.
	toolErr(t, e.mcpCall("", "create_task", map[string]any{"type": "text-file", "params": map[string]any{"prompt": 5}}), axp.CodeInvalidInput, "params.prompt")
	toolErr(t, e.mcpCall("", "create_task", map[string]any{"type": "text-file", "deadline_minutes": "soon"}), axp.CodeInvalidInput, "deadline_minutes")
	toolErr(t, e.mcpCall("", "create_task", map[string]any{"type": "text-file", "surprise": 1}), axp.CodeInvalidInput, "surprise")
	toolErr(t, e.mcpCall("", "create_task", []any{1, 2}), axp.CodeInvalidInput, "arguments")
	toolErr(t, e.mcpCall("", "get_task", map[string]any{"id": id, "buyer_token": 7}), axp.CodeInvalidInput, "buyer_token")
	toolErr(t, e.mcpCall("", "get_quote", map[string]any{}), axp.CodeInvalidInput, "type")
	// A tool of a later issue (while there is one) answers unavailable.
	for _, op := range contract.Ops {
		if op.Later == "" || op.Tool == "" || op.Access != contract.Public {
			continue
		}
		b := toolErr(t, e.mcpCall("", op.Tool, map[string]any{}), axp.CodeUnavailable, "-")
		if !strings.Contains(b.Error.Message, "not available yet") {
			t.Fatalf("later tool: %+v", b)
		}
		break
	}
	// Member tools are hidden and refused without a member secret, also for a buyer token.
	for _, tok := range []string{"", token, adminToken} {
		if a := e.mcpCall(tok, "heartbeat", map[string]any{}); rpcErrCode(t, a) != -32602 {
			t.Fatalf("heartbeat with %q: %s", tok, a.raw)
		}
	}
	if a := e.mcpCall("", "no_such_tool", map[string]any{}); rpcErrCode(t, a) != -32602 {
		t.Fatalf("unknown tool: %s", a.raw)
	}
	// JSON-RPC itself: the protocol's codes, never a 500.
	for body, code := range map[string]int{
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":`: -32700,
		`{"jsonrpc":"2.0","id":1,"method":"no/such/method"}`:      -32601,
	} {
		a := e.rpc("/mcp", body, nil)
		if a.status >= 500 || rpcErrCode(t, a) != code {
			t.Fatalf("%s: %d %s", body, a.status, a.raw)
		}
	}
	// Wrong credentials are refused before any message is read.
	a := e.rpc("/mcp", `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`, map[string]string{"Authorization": "Bearer ss_nobody_" + strings.Repeat("0", 64)})
	if a.status != http.StatusUnauthorized || a.header.Get("WWW-Authenticate") == "" {
		t.Fatalf("bad secret: %d %s", a.status, a.raw)
	}
	big := e.mcpCall("", "create_task", map[string]any{"description": strings.Repeat("x", 2<<20)})
	if big.status != http.StatusRequestEntityTooLarge {
		t.Fatalf("a body over the limit: %d %.200s", big.status, big.raw)
	}
	if after := taskCount(e); after != before {
		t.Fatalf("refused calls stored tasks: %d -> %d", before, after)
	}
	// A stateless server has no stream to offer.
	resp, err := e.srv.Client().Get(e.srv.URL + "/mcp")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusMethodNotAllowed {
		t.Fatalf("GET /mcp: %d", resp.StatusCode)
	}
}

// specTools are the MCP tool names of spec section 4.1.
var specTools = strings.Fields(`list_services get_quote create_task get_task choose_offer accept_task dispute_task
register_interest heartbeat update_skills get_my_profile list_quote_requests submit_offer list_jobs deliver
list_my_tasks request_payment submit_review object_to_review propose_settlement escalate request_redo messages
favourites announcements message_operator get_reputation talk register payment_preference submit_feedback
answer_survey answer_clarifications request_connector board_list board_read board_post board_reply
find_paid_tools get_strategy_leaderboard`)

// TestDoorParity proves every catalog operation is reachable through each door it claims: every
// operation through REST, and every operation with a tool name through MCP (listed for a member,
// and a call reaches the operation: it answers a result or an exchange error, never "unknown
// tool"). The tool names are those of spec 4.1, each once.
func TestDoorParity(t *testing.T) {
	t.Parallel()
	e := newMarket(t)
	m := e.register(map[string]any{"roles": []string{"buyer", "seller"}})

	tools := map[string]string{}
	for _, op := range contract.Ops {
		if op.Tool == "" {
			continue
		}
		if prev, dup := tools[op.Tool]; dup {
			t.Errorf("tool %s is claimed by %s and %s", op.Tool, prev, op.Name)
		}
		tools[op.Tool] = op.Name
	}
	for _, name := range specTools {
		if _, ok := tools[name]; !ok {
			t.Errorf("spec tool %s is not in the catalog", name)
		}
	}
	// Beyond the spec's names, every step of a buyer or a member is a tool, so that an agent that
	// speaks only MCP can finish a job from either side (GET forms are the same operations).
	for _, op := range contract.Ops {
		// Paid tools are paid per HTTP call (x402); find_paid_tools is their MCP door.
		if op.Tool == "" && op.Access != contract.AdminAuth && op.Access != contract.Public && op.Access != contract.Paid && op.Later == "" {
			t.Errorf("%s (%s) is a buyer or member operation without an MCP tool", op.Name, op.Access)
		}
	}

	listed := toolNames(t, e, m.MemberSecret)
	publicListed := toolNames(t, e, "")
	for _, op := range contract.Ops {
		if op.Tool == "" {
			continue
		}
		if !slices.Contains(listed, op.Tool) {
			t.Errorf("tool %s (%s) is not listed for a member", op.Tool, op.Name)
		}
		if mcp.MemberOnly(op) == slices.Contains(publicListed, op.Tool) {
			t.Errorf("tool %s: member-only %v but listed publicly %v", op.Tool, mcp.MemberOnly(op), !mcp.MemberOnly(op))
		}
		a := e.mcpCall(m.MemberSecret, op.Tool, map[string]any{})
		if a.status != http.StatusOK || rpcErrCode(t, a) != 0 {
			t.Errorf("tool %s does not reach its operation: %d %s", op.Tool, a.status, a.raw)
		}
	}

	for _, op := range contract.Ops {
		path := op.Path
		for _, p := range op.PathParams() {
			path = strings.Replace(path, "{"+p+"}", "x", 1)
		}
		resp, _ := raw(e.anon, op.Method, path, nil, nil)
		if resp == nil {
			t.Errorf("%s %s: no answer", op.Method, path)
			continue
		}
		if resp.Status == http.StatusMethodNotAllowed || strings.Contains(string(resp.Body), "no such endpoint") {
			t.Errorf("operation %s is not routed over REST: %s %s -> %d %s", op.Name, op.Method, path, resp.Status, resp.Body)
		}
	}
}

// TestA2ADoor drives /a2a: the agent card, message/send with text (a suggested task) and with data
// (a posted task as an A2A Task), tasks/get, and the protocol's error codes for bad requests.
func TestA2ADoor(t *testing.T) {
	t.Parallel()
	e := newMarket(t)
	e.instantSeller("text-file", "2.50", 5, nil, nil)

	for _, p := range []string{"/.well-known/agent-card.json", "/.well-known/agent.json"} {
		resp, err := raw(e.anon, http.MethodGet, p, nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		var card map[string]any
		json.Unmarshal(resp.Body, &card)
		caps, _ := card["capabilities"].(map[string]any)
		if card["protocolVersion"] != "0.3.0" || card["version"] != "1.3.0" || card["preferredTransport"] != "JSONRPC" ||
			card["url"] != e.srv.URL+"/a2a" || caps["streaming"] != false || caps["pushNotifications"] != false {
			t.Fatalf("card %s", resp.Body)
		}
		var skills []string
		for _, s := range card["skills"].([]any) {
			skills = append(skills, s.(map[string]any)["id"].(string))
		}
		if !slices.Contains(skills, "public") || !slices.Contains(skills, "buyer") || slices.Contains(skills, "admin") {
			t.Fatalf("skills %v", skills)
		}
	}

	send := func(parts string) rpcAnswer {
		return e.rpc("/a2a", `{"jsonrpc":"2.0","id":"r1","method":"message/send","params":{"message":{"kind":"message","messageId":"m1","role":"user","parts":`+parts+`}}}`, nil)
	}
	sugg := send(`[{"kind":"text","text":"write a poem about the autumn sea"}]`)
	res, _ := sugg.body["result"].(map[string]any)
	if res["kind"] != "message" || sugg.header.Get("Content-Type") != "application/json" {
		t.Fatalf("suggestion: %s", sugg.raw)
	}
	data := res["parts"].([]any)[1].(map[string]any)["data"].(map[string]any)
	if st := data["suggested_task"].(map[string]any); st["type"] != "text-file" || st["quote"] == nil {
		t.Fatalf("suggested task %v", st)
	}

	posted := send(`[{"kind":"data","data":{"type":"text-file","params":{"prompt":"a poem about the autumn sea"}}}]`)
	task, _ := posted.body["result"].(map[string]any)
	if task["kind"] != "task" || task["status"].(map[string]any)["state"] != "input-required" {
		t.Fatalf("posted: %s", posted.raw)
	}
	id := task["id"].(string)
	view := task["artifacts"].([]any)[0].(map[string]any)["parts"].([]any)[0].(map[string]any)["data"].(map[string]any)
	token := view["buyer_token"].(string)
	if view["id"] != id || len(view["offers"].([]any)) != 1 || view["recommended_offer"] == nil {
		t.Fatalf("created task %v", view)
	}
	if got := getTask(t, e.anon.With(token), id); got.ID != id {
		t.Fatalf("REST does not see the A2A task")
	}
	read := e.rpc("/a2a", `{"jsonrpc":"2.0","id":2,"method":"tasks/get","params":{"id":"`+id+`","metadata":{"buyer_token":"`+token+`"}}}`, nil)
	if r, _ := read.body["result"].(map[string]any); r["id"] != id {
		t.Fatalf("tasks/get: %s", read.raw)
	}
	// tasks/cancel withdraws the task (cancel_task); a second cancel cannot (-32002 below).
	cancelled := e.rpc("/a2a", `{"jsonrpc":"2.0","id":3,"method":"tasks/cancel","params":{"id":"`+id+`","metadata":{"buyer_token":"`+token+`"}}}`, nil)
	if r, _ := cancelled.body["result"].(map[string]any); r["id"] != id || r["status"].(map[string]any)["state"] != "canceled" {
		t.Fatalf("tasks/cancel: %s", cancelled.raw)
	}
	if got := getTask(t, e.anon.With(token), id); got.Status != axp.TaskCancelled {
		t.Fatalf("after tasks/cancel the task is %s", got.Status)
	}

	before := taskCount(e)
	for _, c := range []struct {
		body string
		code int
		in   string
	}{
		{`{"jsonrpc":"2.0","id":1,"method":"message/send","params":`, -32700, ""},
		{`[{"jsonrpc":"2.0","id":1,"method":"message/send"}]`, -32600, ""},
		{`{"jsonrpc":"1.0","id":1,"method":"message/send","params":{}}`, -32600, ""},
		{`{"jsonrpc":"2.0","id":{},"method":"message/send","params":{}}`, -32600, ""},
		{`{"jsonrpc":"2.0","id":1,"params":{}}`, -32600, ""},
		{`{"jsonrpc":"2.0","id":1,"method":"tasks/delete","params":{}}`, -32601, ""},
		{`{"jsonrpc":"2.0","id":1,"method":"message/send","params":{"message":{"parts":"x"}}}`, -32602, ""},
		{`{"jsonrpc":"2.0","id":1,"method":"message/send","params":{}}`, -32602, ""},
		{`{"jsonrpc":"2.0","id":1,"method":"message/send","params":{"message":{"kind":"message","messageId":"m","role":"user","parts":[]}}}`, -32602, ""},
		{`{"jsonrpc":"2.0","id":1,"method":"message/send","params":{"message":{"kind":"message","messageId":"m","role":"user","parts":[{"kind":"data","data":{"type":"text-file","params":{"prompt":9}}}]}}}`, -32602, "message.parts[0].data.params.prompt"},
		{`{"jsonrpc":"2.0","id":1,"method":"message/send","params":{"message":{"kind":"message","messageId":"m","role":"user","parts":[{"kind":"data","data":{"bogus":1}}]}}}`, -32602, "message.parts[0].data.bogus"},
		{`{"jsonrpc":"2.0","id":1,"method":"message/stream","params":{}}`, -32004, ""},
		{`{"jsonrpc":"2.0","id":1,"method":"tasks/pushNotificationConfig/set","params":{}}`, -32003, ""},
		{`{"jsonrpc":"2.0","id":1,"method":"tasks/get","params":{"id":"tsk_nope","metadata":{"buyer_token":"bt_0123"}}}`, -32001, ""},
		{`{"jsonrpc":"2.0","id":1,"method":"tasks/get","params":{}}`, -32602, ""},
		{`{"jsonrpc":"2.0","id":1,"method":"tasks/cancel","params":{"id":"` + id + `","metadata":{"buyer_token":"` + token + `"}}}`, -32002, ""},
		{`{"jsonrpc":"2.0","id":1,"method":"tasks/cancel","params":{"id":"tsk_nope","metadata":{"buyer_token":"bt_0123"}}}`, -32001, ""},
		// The exchange's own refusals keep their message; code, field and hint are in data.
		{`{"jsonrpc":"2.0","id":1,"method":"tasks/get","params":{"id":"` + id + `"}}`, -32010, "buyer token"},
		{`{"jsonrpc":"2.0","id":1,"method":"tasks/get","params":{"id":"` + id + `","metadata":{"buyer_token":"bt_wrong"}}}`, -32010, "does not match"},
		{`{"jsonrpc":"2.0","id":1,"method":"tasks/cancel","params":{"id":"` + id + `"}}`, -32010, "buyer token"},
	} {
		a := e.rpc("/a2a", c.body, nil)
		if a.status >= 500 || rpcErrCode(t, a) != c.code {
			t.Errorf("%s: want %d, got %d %s", c.body, c.code, a.status, a.raw)
			continue
		}
		if c.in != "" && !strings.Contains(string(a.raw), c.in) {
			t.Errorf("%s: the error does not name %s: %s", c.body, c.in, a.raw)
		}
	}
	// A refusal reads like the exchange's: message, and code, hint and field in data.
	refused := e.rpc("/a2a", `{"jsonrpc":"2.0","id":3,"method":"tasks/get","params":{"id":"`+id+`"}}`, nil)
	re, _ := refused.body["error"].(map[string]any)
	rdata, _ := re["data"].(map[string]any)
	if re["message"] != "this call needs the task's buyer token or your member secret" || rdata["code"] != "unauthorized" ||
		!strings.Contains(fmt.Sprint(rdata["hint"]), "buyer_token") {
		t.Errorf("refusal over A2A: %s", refused.raw)
	}
	badRPC := e.rpc("/a2a", `{"jsonrpc":"2.0","id":4,"method":"message/send","params":{"message":{"kind":"message","messageId":"m","role":"user","parts":[{"kind":"data","data":{"type":"text-file","params":{"prompt":9}}}]}}}`, nil)
	be, _ := badRPC.body["error"].(map[string]any)
	if bd, _ := be["data"].(map[string]any); rpcErrCode(t, badRPC) != -32602 || bd["field"] != "message.parts[0].data.params.prompt" || be["message"] == "invalid params" {
		t.Errorf("invalid input over A2A: %s", badRPC.raw)
	}
	if resp, _ := raw(e.anon, http.MethodGet, "/a2a", nil, nil); resp == nil || resp.Status != http.StatusMethodNotAllowed {
		t.Errorf("GET /a2a: %+v", resp)
	}
	if after := taskCount(e); after != before {
		t.Fatalf("refused requests stored tasks: %d -> %d", before, after)
	}
}

// TestDNSRebinding: the JSON-RPC doors answer only loopback hosts, the base URL's host and the
// allowed_hosts; a foreign Host (or, on /mcp, Origin) is refused with 403 before anything runs.
// REST is not affected.
func TestDNSRebinding(t *testing.T) {
	t.Parallel()
	e := newEnv(t, func(c *daemon.Config) { c.AllowedHosts = []string{"exchange.example"} })
	ping := `{"jsonrpc":"2.0","id":1,"method":"ping"}`
	send := `{"jsonrpc":"2.0","id":1,"method":"tasks/get","params":{"id":"tsk_x"}}`
	for _, c := range []struct {
		path   string
		body   string
		header map[string]string
		status int
	}{
		{"/mcp", ping, nil, 200},
		{"/mcp", ping, map[string]string{"Host": "localhost:9"}, 200},
		{"/mcp", ping, map[string]string{"Host": "[::1]:9"}, 200},
		{"/mcp", ping, map[string]string{"Host": "exchange.example"}, 200},
		{"/mcp", ping, map[string]string{"Host": "exchange.example:8443", "Origin": "https://exchange.example"}, 200},
		{"/mcp", ping, map[string]string{"Host": "evil.example"}, 403},
		{"/mcp", ping, map[string]string{"Origin": "http://evil.example"}, 403},
		{"/a2a", send, map[string]string{"Host": "evil.example:80"}, 403},
		{"/a2a", send, map[string]string{"Host": "exchange.example"}, 200},
	} {
		a := e.rpc(c.path, c.body, c.header)
		if a.status != c.status {
			t.Errorf("%s %v: %d, want %d: %s", c.path, c.header, a.status, c.status, a.raw)
		}
		if c.status == 403 {
			var b errorBody
			if json.Unmarshal(a.raw, &b); b.Error.Code != "forbidden" || b.TraceID == "" {
				t.Errorf("refusal body %s", a.raw)
			}
		}
	}
	req, _ := http.NewRequest(http.MethodGet, e.srv.URL+"/healthz", nil)
	req.Host = "evil.example"
	resp, err := e.srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("REST with a foreign host: %d", resp.StatusCode)
	}
}
