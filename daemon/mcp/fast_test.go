package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/mark3labs/mcp-go/server"

	"github.com/axp-exchange/axp"
	"github.com/axp-exchange/axp/contract"
	"github.com/axp-exchange/axp/daemon/pipeline"
)

// fakeBackend answers every tool call with a fixed kind of answer per tool, and records whether
// the call came through mcp-go (its server is in the context) or through the fast path.
type fakeBackend struct {
	mu    sync.Mutex
	calls []fakeCall
}

type fakeCall struct {
	tool   string
	viaSDK bool
	caller axp.Caller
	args   map[string]any
}

func (b *fakeBackend) Authenticate(r *http.Request) (axp.Caller, error) {
	switch r.Header.Get("Authorization") {
	case "":
		return axp.Caller{Kind: axp.Anonymous}, nil
	case "Bearer member":
		return axp.Caller{Kind: axp.MemberCall, MemberID: "mbr_1"}, nil
	}
	return axp.Caller{}, axp.Unauthorized("bad secret", "")
}

func (b *fakeBackend) Run(ctx context.Context, req pipeline.Request) (pipeline.Answer, error) {
	out, err := b.invoke(ctx, req.Route, req.Op, req.Caller, req.Args, req.HTTP)
	return pipeline.Answer{Out: out, Status: 200}, err
}

func (b *fakeBackend) invoke(ctx context.Context, route string, op *contract.Op, c axp.Caller, args map[string]any, r *http.Request) (any, error) {
	b.mu.Lock()
	b.calls = append(b.calls, fakeCall{tool: op.Tool, viaSDK: server.ServerFromContext(ctx) != nil, caller: c, args: args})
	b.mu.Unlock()
	if route != "MCP "+op.Tool || r == nil || r.Method != http.MethodPost {
		return nil, errors.New("wrong route or request")
	}
	switch op.Tool {
	case "get_task":
		return map[string]any{"id": args["id"], "token": c.Token, "html": `<b>&"x"</b>`, "sep": "a\u2028b\u2029c", "accent": "é\x01\t",
			"n": json.Number("12345678901234567890123"), "list": []any{1, 2.5, nil, true}}, nil
	case "list_services":
		return json.RawMessage("{ \"a\" : [1, 2],\n \"b\":\"<x>\" }\n"), nil
	case "get_reputation":
		return &axp.Document{ContentType: "text/markdown", Body: []byte("# Hello <world> & co\n")}, nil
	case "create_task":
		return nil, axp.Invalid("params.prompt", "must be a string", "give a <prompt>")
	case "talk":
		return nil, errors.New("boom")
	case "register":
		panic("kaboom")
	}
	return map[string]any{"ok": true, "args": args}, nil
}

// TestFastPathAnswersAsMCPGo sends the same requests to the door with and without its fast path
// and wants byte-identical answers (status, Content-Type, body), and the fast path taken exactly
// where it should be.
func TestFastPathAnswersAsMCPGo(t *testing.T) {
	call := func(id, params string) string {
		return `{"jsonrpc":"2.0","id":` + id + `,"method":"tools/call","params":` + params + `}`
	}
	const v = "2025-06-18"
	// A stateless 2026-07-28 call: the version in the header and in _meta, with the client's
	// capabilities, and the method and tool name in headers too.
	const mv = "2026-07-28"
	modern := func(id, name, args, meta string) string {
		if meta == "" {
			meta = `{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"sampling":{}},"io.modelcontextprotocol/clientInfo":{"name":"agent","version":"1"}}`
		}
		return call(id, `{"name":"`+name+`","arguments":`+args+`,"_meta":`+meta+`}`)
	}
	mh := func(method, name string) map[string]string {
		return map[string]string{"Mcp-Method": method, "Mcp-Name": name}
	}
	cases := []struct {
		name, body, auth, version, ctype, session string
		headers                                   map[string]string
		fast                                      bool // served by the fast path (tools/call: reaches Run)
	}{
		{name: "modern get_task", body: modern("1", "get_task", `{"id":"tsk_1","buyer_token":"bt_x"}`, ""), version: mv, headers: mh("tools/call", "get_task"), fast: true},
		{name: "modern string id", body: modern(`"a<b>"`, "get_task", `{"id":"tsk_1"}`, ""), version: mv, headers: mh("tools/call", "get_task"), fast: true},
		{name: "modern raw message", body: modern("2", "list_services", `null`, ""), version: mv, headers: mh("tools/call", "list_services"), fast: true},
		{name: "modern document", body: modern("3", "get_reputation", `{"id":"mbr_1"}`, ""), version: mv, headers: mh("tools/call", "get_reputation"), fast: true},
		{name: "modern exchange error", body: modern("4", "create_task", `{"type":"text-file"}`, ""), version: mv, headers: mh("tools/call", "create_task"), fast: true},
		{name: "modern internal error", body: modern("5", "talk", `{"message":"hi"}`, ""), version: mv, headers: mh("tools/call", "talk"), fast: true},
		{name: "modern panic", body: modern("6", "register", `{}`, ""), version: mv, headers: mh("tools/call", "register"), fast: true},
		{name: "modern array arguments", body: modern("7", "create_task", `[1]`, ""), version: mv, headers: mh("tools/call", "create_task"), fast: true},
		{name: "modern member tool", body: modern("8", "heartbeat", `{}`, ""), auth: "Bearer member", version: mv, headers: mh("tools/call", "heartbeat"), fast: true},
		{name: "modern hidden member tool", body: modern("8", "heartbeat", `{}`, ""), version: mv, headers: mh("tools/call", "heartbeat")},
		{name: "modern unknown tool", body: modern("9", "no_such_tool", `{}`, ""), version: mv, headers: mh("tools/call", "no_such_tool")},
		{name: "modern empty capabilities", body: modern("1", "get_task", `{"id":"t"}`, `{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}`), version: mv, headers: mh("tools/call", "get_task"), fast: true},
		{name: "modern no capabilities", body: modern("1", "get_task", `{"id":"t"}`, `{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}`), version: mv, headers: mh("tools/call", "get_task")},
		{name: "modern capabilities not an object", body: modern("1", "get_task", `{"id":"t"}`, `{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":7}`), version: mv, headers: mh("tools/call", "get_task")},
		{name: "modern capability of the wrong type", body: modern("1", "get_task", `{"id":"t"}`, `{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"sampling":5}}`), version: mv, headers: mh("tools/call", "get_task")},
		{name: "modern unknown capability", body: modern("1", "get_task", `{"id":"t"}`, `{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"x-new":{"a":[1,2.5]}}}`), version: mv, headers: mh("tools/call", "get_task"), fast: true},
		{name: "modern name not a string", body: call("1", `{"name":5,"arguments":{},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}`), version: mv, headers: mh("tools/call", "5")},
		{name: "modern clientInfo not an object", body: modern("1", "get_task", `{"id":"t"}`, `{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":"x"}`), version: mv, headers: mh("tools/call", "get_task")},
		{name: "modern log level", body: modern("1", "get_task", `{"id":"t"}`, `{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/logLevel":"debug"}`), version: mv, headers: mh("tools/call", "get_task")},
		{name: "modern progress token", body: modern("1", "get_task", `{"id":"t"}`, `{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"progressToken":1}`), version: mv, headers: mh("tools/call", "get_task")},
		{name: "modern meta version differs", body: modern("1", "get_task", `{"id":"t"}`, `{"io.modelcontextprotocol/protocolVersion":"2025-06-18","io.modelcontextprotocol/clientCapabilities":{}}`), version: mv, headers: mh("tools/call", "get_task")},
		{name: "modern meta only", body: modern("1", "get_task", `{"id":"t"}`, ""), headers: mh("tools/call", "get_task")},
		{name: "modern no headers", body: modern("1", "get_task", `{"id":"t"}`, ""), version: mv},
		{name: "modern wrong method header", body: modern("1", "get_task", `{"id":"t"}`, ""), version: mv, headers: mh("tools/list", "get_task")},
		{name: "modern wrong name header", body: modern("1", "get_task", `{"id":"t"}`, ""), version: mv, headers: mh("tools/call", "list_services")},
		{name: "modern session id", body: modern("1", "get_task", `{"id":"t"}`, ""), version: mv, headers: mh("tools/call", "get_task"), session: "abc"},
		{name: "modern last event id", body: modern("1", "get_task", `{"id":"t"}`, ""), version: mv, headers: map[string]string{"Mcp-Method": "tools/call", "Mcp-Name": "get_task", "Last-Event-ID": "1"}},
		{name: "modern param header", body: modern("1", "get_task", `{"id":"t"}`, ""), version: mv, headers: map[string]string{"Mcp-Method": "tools/call", "Mcp-Name": "get_task", "Mcp-Param-Id": "t"}},
		{name: "modern tools/list", body: `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`, version: mv, headers: map[string]string{"Mcp-Method": "tools/list"}},
		{name: "get_task", body: call("1", `{"name":"get_task","arguments":{"id":"tsk_1","buyer_token":"bt_x"}}`), fast: true},
		{name: "string id", body: call(`"a<b>&"`, `{"name":"get_task","arguments":{"id":"tsk_1"}}`), version: v, fast: true},
		{name: "float id", body: call("1.5", `{"name":"get_task","arguments":{"id":"tsk_1"}}`), fast: true},
		{name: "big id", body: call("12345678901234567890", `{"name":"get_task","arguments":{"id":"tsk_1"}}`), fast: true},
		{name: "exponent id", body: call("-1e2", `{"name":"get_task","arguments":{}}`), fast: true},
		{name: "raw message", body: call("2", `{"name":"list_services"}`), fast: true},
		{name: "null arguments", body: call("2", `{"name":"list_services","arguments":null}`), fast: true},
		{name: "document", body: call("3", `{"name":"get_reputation","arguments":{"id":"mbr_1"}}`), fast: true},
		{name: "exchange error", body: call("4", `{"name":"create_task","arguments":{"type":"text-file"}}`), fast: true},
		{name: "internal error", body: call("5", `{"name":"talk","arguments":{"message":"hi"}}`), fast: true},
		{name: "panic", body: call("6", `{"name":"register","arguments":{}}`), fast: true},
		{name: "array arguments", body: call("7", `{"name":"create_task","arguments":[1,2]}`), fast: true},
		{name: "string arguments", body: call("7", `{"name":"create_task","arguments":"x"}`), fast: true},
		{name: "bad buyer_token", body: call("7", `{"name":"get_task","arguments":{"id":"t","buyer_token":7}}`), fast: true},
		{name: "token argument", body: call("7", `{"name":"choose_offer","arguments":{"id":"t","token":"bt"}}`), fast: true},
		{name: "exact numbers", body: call("7", `{"name":"get_quote","arguments":{"n":123456789012345678901234567890,"m":[1e300]}}`), fast: true},
		{name: "number beyond float64", body: call("7", `{"name":"get_quote","arguments":{"n":1e999}}`)},
		{name: "member tool", body: call("8", `{"name":"heartbeat","arguments":{}}`), auth: "Bearer member", fast: true},
		{name: "hidden member tool", body: call("8", `{"name":"heartbeat","arguments":{}}`)},
		{name: "unknown tool", body: call("9", `{"name":"no_such_tool","arguments":{}}`)},
		{name: "no name", body: call("9", `{"arguments":{}}`)},
		{name: "name not a string", body: call("9", `{"name":5}`)},
		{name: "params null", body: call("9", `null`)},
		{name: "params array", body: call("9", `[1]`)},
		{name: "meta", body: call("10", `{"name":"get_task","arguments":{"id":"t"},"_meta":{"progressToken":1}}`)},
		{name: "modern meta", body: call("10", `{"name":"get_task","arguments":{"id":"t"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}`)},
		{name: "task", body: call("10", `{"name":"get_task","arguments":{"id":"t"},"task":{}}`)},
		{name: "modern header", body: call("11", `{"name":"get_task","arguments":{"id":"t"}}`), version: "2026-07-28"},
		{name: "unknown version", body: call("11", `{"name":"get_task","arguments":{"id":"t"}}`), version: "1999-01-01"},
		{name: "content type with charset", body: call("12", `{"name":"get_task","arguments":{"id":"t"}}`), ctype: "application/json; charset=utf-8", fast: true},
		{name: "content type text", body: call("12", `{"name":"get_task","arguments":{"id":"t"}}`), ctype: "text/plain"},
		{name: "session id", body: call("13", `{"name":"get_task","arguments":{"id":"t"}}`), session: "abc"},
		{name: "null id", body: call("null", `{"name":"get_task","arguments":{"id":"t"}}`)},
		{name: "object id", body: call(`{}`, `{"name":"get_task","arguments":{"id":"t"}}`)},
		{name: "notification", body: `{"jsonrpc":"2.0","method":"tools/call","params":{"name":"get_task","arguments":{"id":"t"}}}`},
		{name: "result member", body: `{"jsonrpc":"2.0","id":1,"method":"tools/call","result":{},"params":{"name":"get_task"}}`},
		{name: "wrong version", body: `{"jsonrpc":"1.0","id":1,"method":"tools/call","params":{"name":"get_task"}}`},
		{name: "batch", body: `[` + call("1", `{"name":"get_task","arguments":{"id":"t"}}`) + `]`},
		{name: "trailing data", body: call("1", `{"name":"get_task","arguments":{"id":"t"}}`) + `x`},
		{name: "bad json", body: `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":`},
		{name: "initialize", body: `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`},
		{name: "ping", body: `{"jsonrpc":"2.0","id":1,"method":"ping"}`},
		{name: "initialized", body: `{"jsonrpc":"2.0","method":"notifications/initialized"}`},
		{name: "unknown method", body: `{"jsonrpc":"2.0","id":1,"method":"no/such/method"}`},
		{name: "tools/list", body: `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`, fast: true},
		{name: "tools/list member", body: `{"jsonrpc":"2.0","id":"x","method":"tools/list","params":{}}`, auth: "Bearer member", fast: true},
		{name: "tools/list null params", body: `{"jsonrpc":"2.0","id":2,"method":"tools/list","params":null}`, version: v, fast: true},
		{name: "tools/list cursor", body: `{"jsonrpc":"2.0","id":3,"method":"tools/list","params":{"cursor":"Z2V0X3Rhc2s="}}`},
		{name: "tools/list bad cursor", body: `{"jsonrpc":"2.0","id":3,"method":"tools/list","params":{"cursor":"!"}}`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var answers [2]*httptest.ResponseRecorder
			var backends [2]*fakeBackend
			for i, slow := range []bool{true, false} {
				b := &fakeBackend{}
				s := New(b, Options{Name: "axp", Version: "1", Instructions: "hello"})
				s.slow = slow
				r := httptest.NewRequest(http.MethodPost, "/mcp", strings.NewReader(tc.body))
				r = r.WithContext(axp.WithTrace(r.Context(), "trace-1"))
				ctype := tc.ctype
				if ctype == "" {
					ctype = "application/json"
				}
				r.Header.Set("Content-Type", ctype)
				r.Header.Set("Accept", "application/json, text/event-stream")
				for k, v := range map[string]string{"Authorization": tc.auth, "Mcp-Protocol-Version": tc.version, "Mcp-Session-Id": tc.session} {
					if v != "" {
						r.Header.Set(k, v)
					}
				}
				for k, v := range tc.headers {
					r.Header.Set(k, v)
				}
				w := httptest.NewRecorder()
				s.ServeHTTP(w, r)
				answers[i], backends[i] = w, b
				if !slow && strings.Contains(tc.body, `"tools/list"`) {
					cached := s.lists[0].result != nil || s.lists[1].result != nil
					if cached != tc.fast {
						t.Errorf("tools/list served from the cache: %v, want %v", cached, tc.fast)
					}
				}
			}
			slow, fast := answers[0], answers[1]
			if slow.Code != fast.Code || slow.Header().Get("Content-Type") != fast.Header().Get("Content-Type") || slow.Body.String() != fast.Body.String() {
				t.Fatalf("mcp-go answers %d %s\n%s\nthe fast path answers %d %s\n%s", slow.Code, slow.Header().Get("Content-Type"), slow.Body,
					fast.Code, fast.Header().Get("Content-Type"), fast.Body)
			}
			for _, c := range backends[0].calls {
				if !c.viaSDK {
					t.Errorf("with the fast path off, %s did not go through mcp-go", c.tool)
				}
			}
			if len(backends[0].calls) != len(backends[1].calls) {
				t.Fatalf("calls: %d through mcp-go, %d with the fast path", len(backends[0].calls), len(backends[1].calls))
			}
			for i, c := range backends[1].calls {
				if c.viaSDK == tc.fast {
					t.Errorf("%s: through mcp-go %v, want %v", c.tool, c.viaSDK, !tc.fast)
				}
				if s := backends[0].calls[i]; !jsonEqual(s.caller, c.caller) || !jsonEqual(s.args, c.args) {
					t.Errorf("%s: caller %+v args %v through mcp-go, caller %+v args %v with the fast path", c.tool, s.caller, s.args, c.caller, c.args)
				}
			}
		})
	}
}

func jsonEqual(a, b any) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return string(x) == string(y)
}
