package outbound

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/axp-exchange/axp/protocol"
)

func quoteInput() protocol.QuoteInput {
	return protocol.QuoteInput{
		TaskID: "t_1", TaskType: "text-file", Description: "a poem",
		Params:        map[string]any{"prompt": "a poem about the sea"},
		Buyer:         protocol.BuyerRef{ID: "anonymous", Name: "anonymous", Anonymous: true},
		PaymentMethod: "crypto", Test: true,
	}
}

// callError asserts err is a *CallError of the given kind.
func callError(t *testing.T, err error, kind string) *CallError {
	t.Helper()
	var ce *CallError
	if !errors.As(err, &ce) {
		t.Fatalf("want a *CallError of kind %s, got %T %v", kind, err, err)
	}
	if ce.Kind != kind {
		t.Fatalf("want kind %s, got %s: %v", kind, ce.Kind, err)
	}
	return ce
}

func TestCallQuoteRoundTrip(t *testing.T) {
	var args map[string]any
	m := newMember(t, mcpServer(t, map[string]toolFunc{
		"quote": func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			args = req.GetArguments()
			return structured(map[string]any{"price_usd": 12.25, "eta_minutes": 45, "availability": "high"}), nil
		},
	}))
	var ops []string
	c := &Caller{Observe: func(op string, elapsed time.Duration, err error) {
		if err != nil {
			t.Errorf("observe %s: %v", op, err)
		}
		ops = append(ops, op)
	}}
	var q protocol.QuoteAnswer
	res, err := c.Call(WithTrace(context.Background(), "trace-quote-1"), m.target(), "quote", quoteInput(), &q)
	if err != nil {
		t.Fatal(err)
	}
	if q.PriceUSD == nil || *q.PriceUSD != protocol.USD(12, 25) || q.ETAMinutes == nil || *q.ETAMinutes != 45 || q.Availability != "high" {
		t.Fatalf("answer %+v", q)
	}
	if args["task_id"] != "t_1" || args["payment_method"] != "crypto" {
		t.Fatalf("the member got %v", args)
	}
	if res.Latency <= 0 || res.Bytes <= 0 || res.Handshake || !strings.Contains(string(res.Answer), "12.25") {
		t.Fatalf("result %+v", res)
	}
	reqs := m.requests()
	if len(reqs) != 1 || reqs[0].RPCMethod != "tools/call" {
		t.Fatalf("want one stateless tools/call, got %+v", reqs)
	}
	if reqs[0].Auth != "" || reqs[0].Trace != "trace-quote-1" || reqs[0].Answered != "application/json" {
		t.Fatalf("request %+v", reqs[0])
	}
	if !slices.Equal(ops, []string{"mcp:quote"}) {
		t.Fatalf("observed %v", ops)
	}
}

func TestCallEveryMemberTool(t *testing.T) {
	m := newMember(t, mcpServer(t, nil))
	c := &Caller{}
	for _, tool := range protocol.MemberTools {
		if _, err := c.Call(context.Background(), m.target(), tool.Name, map[string]any{}, nil); err != nil {
			t.Errorf("%s: %v", tool.Name, err)
		}
	}
	var ct protocol.ContactTestOutput
	if _, err := c.Call(context.Background(), m.target(), "contact_test", protocol.ContactTestInput{Nonce: "n-1", MemberID: m.id}, &ct); err != nil {
		t.Fatal(err)
	}
	if ct.Nonce != "n-1" || ct.Signature != protocol.ContactTestSignature(m.key, "n-1") {
		t.Fatalf("contact_test %+v", ct)
	}
}

func TestCallTextBlockAnswer(t *testing.T) {
	m := newMember(t, mcpServer(t, map[string]toolFunc{
		"do_task": func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return mcp.NewToolResultText(`{"accepted": true, "reason": "on it"}`), nil
		},
	}))
	var out protocol.DoTaskOutput
	if _, err := (&Caller{}).Call(context.Background(), m.target(), "do_task", map[string]any{"task_id": "t_1"}, &out); err != nil {
		t.Fatal(err)
	}
	if !out.Accepted || out.Reason != "on it" {
		t.Fatalf("answer %+v", out)
	}
}

func TestCallSSEAnswers(t *testing.T) {
	t.Run("mcp-go server streaming a notification first", func(t *testing.T) {
		m := newMember(t, mcpServer(t, map[string]toolFunc{
			"quote": func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				srv := server.ServerFromContext(ctx)
				if err := srv.SendNotificationToClient(ctx, "notifications/message", map[string]any{"level": "info", "data": "pricing"}); err != nil {
					return nil, err
				}
				return structured(map[string]any{"decline": true, "reason_code": "no_capacity"}), nil
			},
		}))
		var q protocol.QuoteAnswer
		if _, err := (&Caller{}).Call(context.Background(), m.target(), "quote", quoteInput(), &q); err != nil {
			t.Fatal(err)
		}
		if q.Kind() != "decline" || q.ReasonCode != "no_capacity" {
			t.Fatalf("answer %+v", q)
		}
		if reqs := m.requests(); len(reqs) != 1 || reqs[0].Answered != "text/event-stream" {
			t.Fatalf("want one SSE answer, got %+v", reqs)
		}
	})
	t.Run("hand-written stream with a text block", func(t *testing.T) {
		m := newMember(t, rpcAnswer(map[string]any{"content": []any{map[string]any{"type": "text", "text": `{"received":true}`}}}, true))
		var out protocol.Received
		if _, err := (&Caller{}).Call(context.Background(), m.target(), "task_update", protocol.TaskUpdateInput{TaskID: "t_1", Status: "paid"}, &out); err != nil {
			t.Fatal(err)
		}
		if !out.Received {
			t.Fatal("not received")
		}
	})
	t.Run("a request from the server inside the stream", func(t *testing.T) {
		// The server asks the exchange something in the middle of the stream; mcp-go posts its
		// answer (method not found: the exchange serves no requests) back while the call is under
		// way. That post is refused here, and must not count as the answer to the call.
		posted := make(chan struct{})
		m := newMember(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			body, _ := io.ReadAll(r.Body)
			if !strings.Contains(string(body), `"method"`) {
				close(posted)
				http.Error(w, "no thanks", http.StatusInternalServerError)
				return
			}
			w.Header().Set("Content-Type", "text/event-stream")
			w.WriteHeader(http.StatusOK)
			io.WriteString(w, "event: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":\"srv-1\",\"method\":\"roots/list\"}\n\n")
			w.(http.Flusher).Flush()
			select {
			case <-posted:
			case <-r.Context().Done():
				return
			}
			io.WriteString(w, "event: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"structuredContent\":{\"received\":true},\"content\":[]}}\n\n")
		}))
		got := taskUpdateRequests(t, m)
		if want := []string{"POST tools/call", "POST "}; !slices.Equal(got, want) {
			t.Fatalf("requests %q, want %q", got, want)
		}
	})
}

func TestCallAuthToken(t *testing.T) {
	m := newMember(t, mcpServer(t, nil, server.WithStateful(true)))
	tg := m.target()
	tg.AuthToken = "tok-123"
	res, err := (&Caller{}).Call(context.Background(), tg, "announcement", protocol.AnnouncementInput{AnnouncementID: "a1", From: "operator", Severity: "info", Title: "hi", Body: "hello"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !res.Handshake {
		t.Fatal("a session server should have needed the handshake")
	}
	reqs := m.requests()
	if len(reqs) < 4 {
		t.Fatalf("requests %+v", reqs)
	}
	for _, r := range reqs {
		if r.Auth != "Bearer tok-123" {
			t.Fatalf("%s %s carried Authorization %q", r.HTTPMethod, r.RPCMethod, r.Auth)
		}
	}
}

// A server that keeps sessions refuses a call without one; the caller then initializes, calls in
// the session and keeps it: the next calls go straight into it, and when the server has forgotten
// it (HTTP 404) the caller starts another. Every request is signed.
func TestCallSessionServer(t *testing.T) {
	m := newMember(t, mcpServer(t, nil, server.WithStateful(true)))
	c := &Caller{}
	var q protocol.QuoteAnswer
	res, err := c.Call(context.Background(), m.target(), "quote", quoteInput(), &q)
	if err != nil {
		t.Fatal(err)
	}
	if !res.Handshake || q.PriceUSD == nil || *q.PriceUSD != protocol.USD(4, 50) {
		t.Fatalf("result %+v answer %+v", res, q)
	}
	got := func() []string {
		var got []string
		for _, r := range m.requests() {
			got = append(got, r.HTTPMethod+" "+r.RPCMethod)
		}
		return got
	}
	want := []string{"POST tools/call", "POST initialize", "POST notifications/initialized", "POST tools/call"}
	if !slices.Equal(got(), want) {
		t.Fatalf("requests %q, want %q", got(), want)
	}
	reqs := m.requests()
	session := reqs[3].Session
	if session == "" || reqs[2].Session != session || reqs[0].Session != "" || reqs[1].Session != "" {
		t.Fatalf("sessions %q %q %q %q", reqs[0].Session, reqs[1].Session, reqs[2].Session, reqs[3].Session)
	}

	// The next call goes into the session, with the protocol version agreed.
	res, err = c.Call(context.Background(), m.target(), "task_update", protocol.TaskUpdateInput{TaskID: "t_1", Status: "paid"}, nil)
	if err != nil || res.Handshake {
		t.Fatalf("second call: %+v, %v", res, err)
	}
	reqs = m.requests()
	if len(reqs) != 5 || reqs[4].RPCMethod != "tools/call" || reqs[4].Session != session || reqs[4].Protocol == "" {
		t.Fatalf("second call's requests %+v", reqs[4:])
	}

	// The server ends the session; the next call starts a new one.
	del, _ := http.NewRequest(http.MethodDelete, m.target().MCPURL, nil)
	del.Header.Set("Mcp-Session-Id", session)
	protocol.SignRequest(del.Header, m.id, m.key, "", nil, time.Now())
	resp, err := http.DefaultClient.Do(del)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	res, err = c.Call(context.Background(), m.target(), "quote", quoteInput(), &q)
	if err != nil || !res.Handshake {
		t.Fatalf("call after the session ended: %+v, %v", res, err)
	}
	want = append(want, "POST tools/call", "DELETE ", "POST tools/call", "POST initialize", "POST notifications/initialized", "POST tools/call")
	if !slices.Equal(got(), want) {
		t.Fatalf("requests %q, want %q", got(), want)
	}
	if reqs := m.requests(); reqs[6].Session != session || reqs[9].Session == "" || reqs[9].Session == session {
		t.Fatalf("sessions: ended %q, used %q, then %q", session, reqs[6].Session, reqs[9].Session)
	}
	if m.refusals() != 0 {
		t.Fatalf("%d requests were refused", m.refusals())
	}
}

func TestCallRefusedSignature(t *testing.T) {
	m := newMember(t, mcpServer(t, nil))
	forged := m.target()
	forged.PlatformKey = []byte("not the key")
	_, err := (&Caller{}).Call(context.Background(), forged, "quote", quoteInput(), nil)
	ce := callError(t, err, KindHTTP)
	if ce.Status != http.StatusUnauthorized || !strings.Contains(ce.Message, "X-AX-Signature") || ce.Tool != "quote" {
		t.Fatalf("error %+v", ce)
	}
	if m.refusals() == 0 {
		t.Fatal("the member did not refuse the forged call")
	}

	// The member also refuses a call with no signature at all.
	resp, err := http.Post(m.target().MCPURL, "application/json", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized {
		t.Fatalf("unsigned call answered %d", resp.StatusCode)
	}

	// A clock more than 300 s off is refused too.
	skewed := &Caller{Now: func() time.Time { return time.Now().Add(-10 * time.Minute) }}
	_, err = skewed.Call(context.Background(), m.target(), "quote", quoteInput(), nil)
	callError(t, err, KindHTTP)
}

func TestCallTimeout(t *testing.T) {
	release := make(chan struct{})
	defer close(release)
	m := newMember(t, mcpServer(t, map[string]toolFunc{
		"quote": func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			select {
			case <-ctx.Done():
			case <-release:
			}
			return nil, ctx.Err()
		},
	}))
	done := make(chan error, 1)
	start := time.Now()
	go func() {
		_, err := (&Caller{Timeout: 150 * time.Millisecond}).Call(context.Background(), m.target(), "quote", quoteInput(), nil)
		done <- err
	}()
	err := within(t, done, 5*time.Second, "the call to time out")
	ce := callError(t, err, KindTimeout)
	if !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(ce.Message, "150ms") {
		t.Fatalf("error %v", err)
	}
	if d := time.Since(start); d > 3*time.Second {
		t.Fatalf("the call took %s", d)
	}

	// A caller's own cancellation ends the call too.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err = (&Caller{}).Call(ctx, m.target(), "quote", quoteInput(), nil)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled call: %v", err)
	}
}

// A server that holds an event stream open without answering is cut off by the timeout as well.
func TestCallTimeoutOnIdleStream(t *testing.T) {
	m := newMember(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(http.StatusOK)
		w.(http.Flusher).Flush()
		<-r.Context().Done()
	}))
	done := make(chan error, 1)
	go func() {
		_, err := (&Caller{Timeout: 150 * time.Millisecond}).Call(context.Background(), m.target(), "quote", quoteInput(), nil)
		done <- err
	}()
	callError(t, within(t, done, 5*time.Second, "the call to time out"), KindTimeout)
}

func TestCallBadAnswers(t *testing.T) {
	big := `{"jsonrpc":"2.0","id":1,"result":{"structuredContent":{"note":"` + strings.Repeat("x", 2<<20) + `"}}}`
	for _, tc := range []struct {
		name    string
		handler http.Handler
		want    string
	}{
		{"garbage JSON", raw(200, "application/json", `{"jsonrpc":"2.0","id":1,"result":`), "not a JSON-RPC response"},
		{"HTML", raw(200, "text/html", `<html>hello</html>`), "text/html"},
		{"no content type", raw(200, "", `{}`), "application/json or text/event-stream"},
		{"oversized", raw(200, "application/json", big), "larger than"},
		{"oversized stream", raw(200, "text/event-stream", "data: "+big+"\n\n"), "larger than"},
		{"stream without a response", raw(200, "text/event-stream", "data: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\"}\n\n"), "ended without a JSON-RPC response"},
		{"202 without a response", raw(202, "", ""), "202 Accepted"},
		{"no result", raw(200, "application/json", `{"jsonrpc":"2.0","id":1}`), "neither a result nor an error"},
		{"no content", rpcAnswer(map[string]any{"content": []any{}}, false), "neither structuredContent nor a text block"},
		{"text not JSON", rpcAnswer(map[string]any{"content": []any{map[string]any{"type": "text", "text": "4.50 USD, 30 min"}}}, false), "not JSON"},
		{"two blocks", rpcAnswer(map[string]any{"content": []any{map[string]any{"type": "text", "text": "{}"}, map[string]any{"type": "text", "text": "{}"}}}, false), "2 content blocks"},
		{"image block", rpcAnswer(map[string]any{"content": []any{map[string]any{"type": "image", "data": "AA==", "mimeType": "image/png"}}}, false), "not text"},
		{"result not an object", rpcAnswer("ok", false), "not an object"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := newMember(t, tc.handler)
			var q protocol.QuoteAnswer
			_, err := (&Caller{}).Call(context.Background(), m.target(), "quote", quoteInput(), &q)
			ce := callError(t, err, KindBadAnswer)
			if !strings.Contains(ce.Message, tc.want) {
				t.Fatalf("message %q does not say %q", ce.Message, tc.want)
			}
			if len(ce.Message) > 600 {
				t.Fatalf("message too long: %d bytes", len(ce.Message))
			}
		})
	}
}

func TestCallAnswerFailsOutputSchema(t *testing.T) {
	for _, tc := range []struct {
		tool   string
		answer map[string]any
		field  string
	}{
		{"quote", map[string]any{"price_usd": 4.5, "eta_minutes": 0}, "eta_minutes"},
		{"quote", map[string]any{"price_usd": 4.555, "eta_minutes": 10}, "price_usd"},
		{"quote", map[string]any{"decline": true, "reason_code": "bored"}, "reason_code"},
		{"quote", map[string]any{"clarify": true, "questions": []string{"1", "2", "3", "4", "5", "6"}}, "questions"},
		{"review", map[string]any{"rating": 9}, "rating"},
		{"contact_test", map[string]any{"nonce": "n", "signature": "zz"}, "signature"},
		{"mediation", map[string]any{"statement": "x", "proposed_refund_pct": 150}, "proposed_refund_pct"},
		{"task_update", map[string]any{"ok": true}, "received"},
	} {
		t.Run(tc.tool+" "+tc.field, func(t *testing.T) {
			m := newMember(t, mcpServer(t, map[string]toolFunc{
				tc.tool: func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
					return structured(tc.answer), nil
				},
			}))
			spec, _ := memberTool(tc.tool)
			// Checked only, and decoded into the tool's output type (validated once, by the
			// decoding): the same schema error either way, and nothing decoded.
			for _, out := range []any{nil, reflect.New(spec.Out).Interface()} {
				_, err := (&Caller{}).Call(context.Background(), m.target(), tc.tool, map[string]any{}, out)
				ce := callError(t, err, KindBadAnswer)
				if ce.Field != tc.field || !strings.Contains(ce.Message, tc.field) || !strings.Contains(ce.Message, "does not match the tool's output schema") {
					t.Fatalf("error %+v does not name %s", ce, tc.field)
				}
				if out != nil && !reflect.ValueOf(out).Elem().IsZero() {
					t.Fatalf("an answer that fails the schema was decoded: %+v", out)
				}
			}
		})
	}
}

// An answer that passes the schema but does not decode into the output type says it cannot be
// read, not that it breaks the schema: eta_minutes written 30.0 is a whole number to the schema,
// and the decoding may or may not take it for an integer.
func TestCallAnswerDecoding(t *testing.T) {
	m := newMember(t, mcpServer(t, map[string]toolFunc{
		"quote": func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return mcp.NewToolResultText(`{"price_usd": 4.5, "eta_minutes": 30.0}`), nil
		},
	}))
	var q protocol.QuoteAnswer
	_, err := (&Caller{}).Call(context.Background(), m.target(), "quote", quoteInput(), &q)
	if err != nil {
		ce := callError(t, err, KindBadAnswer)
		if ce.Field != "eta_minutes" || !strings.Contains(ce.Message, "the quote answer cannot be read") {
			t.Fatalf("error %+v", ce)
		}
		return
	}
	if q.ETAMinutes == nil || *q.ETAMinutes != 30 || q.PriceUSD == nil || *q.PriceUSD != protocol.USD(4, 50) {
		t.Fatalf("answer %+v", q)
	}
}

func TestCallToolError(t *testing.T) {
	m := newMember(t, mcpServer(t, map[string]toolFunc{
		"quote": func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return mcp.NewToolResultError("no capacity today\nsorry"), nil
		},
	}))
	_, err := (&Caller{}).Call(context.Background(), m.target(), "quote", quoteInput(), nil)
	ce := callError(t, err, KindToolError)
	if !strings.Contains(ce.Message, "no capacity today sorry") || !Retryable(err) {
		t.Fatalf("error %+v", ce)
	}
}

func TestCallHTTPAndRPCErrors(t *testing.T) {
	t.Run("500", func(t *testing.T) {
		m := newMember(t, raw(500, "text/plain", "database down\n"))
		_, err := (&Caller{}).Call(context.Background(), m.target(), "quote", quoteInput(), nil)
		ce := callError(t, err, KindHTTP)
		// The body is never read back: status and content type only.
		if ce.Status != 500 || !strings.Contains(ce.Message, "HTTP 500 (text/plain)") || strings.Contains(ce.Message, "database down") || !Retryable(err) {
			t.Fatalf("error %+v", ce)
		}
	})
	t.Run("500 with a JSON body", func(t *testing.T) {
		m := newMember(t, raw(500, "application/json", `{"detail":"boom"}`))
		_, err := (&Caller{}).Call(context.Background(), m.target(), "quote", quoteInput(), nil)
		if ce := callError(t, err, KindHTTP); ce.Status != 500 || strings.Contains(ce.Message, "boom") || !strings.Contains(ce.Message, "application/json") {
			t.Fatalf("error %+v", ce)
		}
	})
	t.Run("JSON-RPC error", func(t *testing.T) {
		m := newMember(t, raw(200, "application/json", `{"jsonrpc":"2.0","id":1,"error":{"code":-32603,"message":"internal trouble"}}`))
		_, err := (&Caller{}).Call(context.Background(), m.target(), "quote", quoteInput(), nil)
		ce := callError(t, err, KindRPC)
		if !strings.Contains(ce.Message, "-32603") || !strings.Contains(ce.Message, "internal trouble") || Retryable(err) {
			t.Fatalf("error %+v", ce)
		}
	})
	t.Run("tool not offered", func(t *testing.T) {
		s := server.NewMCPServer("buyer-only", "1.0.0", server.WithToolCapabilities(false))
		s.AddTool(mcp.NewTool("contact_test"), defaultAnswer("contact_test"))
		m := newMember(t, server.NewStreamableHTTPServer(s, server.WithStateLess(true), server.WithStreamableHTTPLogger(discard)))
		_, err := (&Caller{}).Call(context.Background(), m.target(), "quote", quoteInput(), nil)
		var ce *CallError
		if !errors.As(err, &ce) || (ce.Kind != KindRPC && ce.Kind != KindToolError) || !strings.Contains(ce.Message, "quote") {
			t.Fatalf("error %v", err)
		}
	})
	t.Run("redirect", func(t *testing.T) {
		var hit bool
		elsewhere := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { hit = true }))
		defer elsewhere.Close()
		m := newMember(t, http.RedirectHandler(elsewhere.URL+"/mcp", http.StatusTemporaryRedirect))
		_, err := (&Caller{}).Call(context.Background(), m.target(), "quote", quoteInput(), nil)
		ce := callError(t, err, KindHTTP)
		if ce.Status != http.StatusTemporaryRedirect || !strings.Contains(ce.Message, elsewhere.URL) || hit {
			t.Fatalf("error %+v (followed: %v)", ce, hit)
		}
	})
}

func TestCallUnreachable(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	_, err = (&Caller{}).Call(context.Background(), Target{MemberID: "m", MCPURL: "http://" + addr + "/mcp", PlatformKey: []byte("k")}, "quote", quoteInput(), nil)
	ce := callError(t, err, KindUnreachable)
	// Neutral words: a refused connection reads like any other failure, so calls cannot scan ports.
	if !strings.Contains(ce.Message, "could not reach the MCP server") || strings.Contains(ce.Message, "refused") || !Retryable(err) {
		t.Fatalf("error %+v", ce)
	}

	for _, bad := range []string{"", "ftp://example.com/mcp", "not a url", "http:///mcp"} {
		_, err := (&Caller{}).Call(context.Background(), Target{MemberID: "m", MCPURL: bad}, "quote", quoteInput(), nil)
		callError(t, err, KindUnreachable)
	}
}

func TestCallProgrammerErrors(t *testing.T) {
	c := &Caller{}
	if _, err := c.Call(context.Background(), Target{MCPURL: "http://127.0.0.1:1/mcp"}, "no_such_tool", nil, nil); err == nil {
		t.Fatal("an unknown tool was called")
	}
	var q protocol.QuoteAnswer
	if _, err := c.Call(context.Background(), Target{MCPURL: "http://127.0.0.1:1/mcp"}, "quote", nil, q); err == nil {
		t.Fatal("a non-pointer out was accepted")
	}
	if _, err := c.Call(context.Background(), Target{MCPURL: "http://127.0.0.1:1/mcp"}, "quote", func() {}, nil); err == nil {
		t.Fatal("an unencodable input was accepted")
	}
}

func TestListTools(t *testing.T) {
	m := newMember(t, mcpServer(t, nil))
	names, err := (&Caller{}).ListTools(context.Background(), m.target())
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range protocol.RequiredTools([]string{protocol.RoleBuyer, protocol.RoleSeller}) {
		if !slices.Contains(names, want) {
			t.Fatalf("tools %v lack %s", names, want)
		}
	}

	// Pagination is followed, and a cursor that comes back is refused.
	pages := newMember(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			ID     json.RawMessage `json:"id"`
			Params struct {
				Cursor string `json:"cursor"`
			} `json:"params"`
		}
		json.NewDecoder(r.Body).Decode(&req)
		result := map[string]any{"tools": []any{map[string]any{"name": "a"}}, "nextCursor": "p2"}
		switch req.Params.Cursor {
		case "p2":
			result = map[string]any{"tools": []any{map[string]any{"name": "b"}}}
		}
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{"jsonrpc": "2.0", "id": req.ID, "result": result})
	}))
	names, err = (&Caller{}).ListTools(context.Background(), pages.target())
	if err != nil || !slices.Equal(names, []string{"a", "b"}) {
		t.Fatalf("paged tools %v, %v", names, err)
	}
	loop := newMember(t, rpcAnswer(map[string]any{"tools": []any{}, "nextCursor": "again"}, false))
	_, err = (&Caller{}).ListTools(context.Background(), loop.target())
	callError(t, err, KindBadAnswer)
}

func TestPostJSON(t *testing.T) {
	key := []byte("buyer-callback-key")
	var mu sync.Mutex
	var bodies []string
	status := http.StatusNoContent
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		if err := protocol.VerifyRequest(r.Header, "m_buyer", key, body, time.Now()); err != nil {
			http.Error(w, err.Message, http.StatusUnauthorized)
			return
		}
		if r.Header.Get("Content-Type") != "application/json" || r.Header.Get(protocol.HeaderTraceID) != "trace-cb" || r.Header.Get("Authorization") != "" {
			http.Error(w, "bad headers", http.StatusBadRequest)
			return
		}
		mu.Lock()
		bodies = append(bodies, string(body))
		s := status
		mu.Unlock()
		w.WriteHeader(s)
	}))
	defer srv.Close()
	ctx := WithTrace(context.Background(), "trace-cb")
	var ops []string
	c := &Caller{Observe: func(op string, _ time.Duration, _ error) { ops = append(ops, op) }}

	if err := c.PostJSON(ctx, srv.URL+"/cb", key, "m_buyer", map[string]any{"task_id": "t_1", "status": "delivered"}); err != nil {
		t.Fatal(err)
	}
	if len(bodies) != 1 || bodies[0] != `{"status":"delivered","task_id":"t_1"}` || !slices.Equal(ops, []string{"callback"}) {
		t.Fatalf("bodies %q ops %v", bodies, ops)
	}

	err := c.PostJSON(ctx, srv.URL+"/cb", []byte("wrong"), "m_buyer", map[string]any{})
	if ce := callError(t, err, KindHTTP); ce.Status != http.StatusUnauthorized || ce.Tool != "callback" || !strings.Contains(ce.Message, "callback URL") {
		t.Fatalf("error %+v", ce)
	}

	mu.Lock()
	status = http.StatusBadGateway
	mu.Unlock()
	err = c.PostJSON(ctx, srv.URL+"/cb", key, "m_buyer", map[string]any{})
	if ce := callError(t, err, KindHTTP); ce.Status != http.StatusBadGateway || !Retryable(err) {
		t.Fatalf("error %+v", ce)
	}

	err = c.PostJSON(ctx, "mailto:someone@example.com", key, "m_buyer", map[string]any{})
	callError(t, err, KindUnreachable)
}

func TestCallConcurrent(t *testing.T) {
	quoteConcurrently(t, newMember(t, mcpServer(t, nil)))
}

// A server may end an event stream before the response once it has sent an event id; the call
// then reopens the stream with a GET carrying Last-Event-ID, after the wait the server asked for.
func TestCallResumesStream(t *testing.T) {
	m := newMember(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		if r.Method == http.MethodGet {
			if r.Header.Get("Last-Event-ID") != "ev-7" || r.Header.Get("Accept") != "text/event-stream" {
				http.Error(w, "bad resume", http.StatusBadRequest)
				return
			}
			io.WriteString(w, "id: ev-8\ndata: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"structuredContent\":{\"received\":true}}}\n\n")
			return
		}
		io.WriteString(w, "retry: 10\nid: ev-7\ndata:\n\n")
	}))
	got := taskUpdateRequests(t, m)
	if want := []string{"POST tools/call", "GET "}; !slices.Equal(got, want) {
		t.Fatalf("requests %q, want %q", got, want)
	}

	// A stream ended early without an event id cannot be resumed.
	bare := newMember(t, raw(200, "text/event-stream", "data: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\"}\n\n"))
	_, err := (&Caller{}).Call(context.Background(), bare.target(), "task_update", protocol.TaskUpdateInput{TaskID: "t_1", Status: "paid"}, nil)
	if ce := callError(t, err, KindBadAnswer); !strings.Contains(ce.Message, "ended without a JSON-RPC response") {
		t.Fatalf("error %+v", ce)
	}
	if n := len(bare.requests()); n != 1 {
		t.Fatalf("%d requests, want 1", n)
	}
}

// An HTTP error whose body is a JSON-RPC error is reported as that JSON-RPC error, with the status.
func TestCallRPCErrorInHTTPError(t *testing.T) {
	m := newMember(t, raw(400, "application/json", `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"bad request shape"}}`))
	_, err := (&Caller{}).Call(context.Background(), m.target(), "quote", quoteInput(), nil)
	ce := callError(t, err, KindRPC)
	if ce.Status != 400 || !strings.Contains(ce.Message, "bad request shape") {
		t.Fatalf("error %+v", ce)
	}
}

// Calls to the same member reuse one connection: the answer is read to its end, so the transport
// keeps the connection for the next call.
func TestCallReusesConnections(t *testing.T) {
	var mu sync.Mutex
	conns := map[string]bool{}
	inner := mcpServer(t, nil)
	m := newMember(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		conns[r.RemoteAddr] = true
		mu.Unlock()
		inner.ServeHTTP(w, r)
	}))
	c := &Caller{}
	for range 5 {
		var q protocol.QuoteAnswer
		if _, err := c.Call(context.Background(), m.target(), "quote", quoteInput(), &q); err != nil {
			t.Fatal(err)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if len(conns) != 1 {
		t.Fatalf("5 calls in a row used %d connections", len(conns))
	}
}

// Concurrent calls to a server that keeps sessions all succeed, however many of them start one.
func TestCallSessionServerConcurrent(t *testing.T) {
	m := newMember(t, mcpServer(t, nil, server.WithStateful(true)))
	c := quoteConcurrently(t, m)
	if _, ok := c.session(sessionKey{member: m.id, url: m.target().MCPURL}); !ok {
		t.Fatal("no session kept")
	}
}

// TestCallReplaySafeHeader: calls that ask and change nothing carry an Idempotency-Key (so net/http
// sends them again when a kept-alive connection was closed under them), a fresh one per call;
// do_task and the other calls that act never do.
func TestCallReplaySafeHeader(t *testing.T) {
	var mu sync.Mutex
	keys := map[string][]string{}
	inner := mcpServer(t, nil)
	m := newMember(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		var msg struct {
			Params struct {
				Name string `json:"name"`
			} `json:"params"`
		}
		json.Unmarshal(body, &msg)
		mu.Lock()
		keys[msg.Params.Name] = append(keys[msg.Params.Name], r.Header.Get("Idempotency-Key"))
		mu.Unlock()
		r.Body = io.NopCloser(bytes.NewReader(body))
		inner.ServeHTTP(w, r)
	}))
	c := &Caller{}
	for range 2 {
		for _, tool := range []string{"quote", "get_skills", "do_task", "task_update"} {
			c.Call(context.Background(), m.target(), tool, map[string]any{}, nil)
		}
	}
	for _, tool := range []string{"quote", "get_skills"} {
		k := keys[tool]
		if len(k) != 2 || !strings.HasPrefix(k[0], "axp-") || k[0] == k[1] {
			t.Errorf("%s sent keys %q", tool, k)
		}
	}
	for _, tool := range []string{"do_task", "task_update"} {
		if k := keys[tool]; len(k) != 2 || k[0] != "" || k[1] != "" {
			t.Errorf("%s sent keys %q", tool, k)
		}
	}
}

// taskUpdateRequests sends m a task_update that must be received and lists the requests m saw
// ("METHOD rpc-method").
func taskUpdateRequests(t *testing.T, m *member) []string {
	t.Helper()
	var out protocol.Received
	if _, err := (&Caller{}).Call(context.Background(), m.target(), "task_update", protocol.TaskUpdateInput{TaskID: "t_1", Status: "paid"}, &out); err != nil {
		t.Fatal(err)
	}
	if !out.Received {
		t.Fatal("not received")
	}
	var got []string
	for _, r := range m.requests() {
		got = append(got, r.HTTPMethod+" "+r.RPCMethod)
	}
	return got
}

// quoteConcurrently asks m for 20 quotes at once through one Caller, which it returns; every one
// must succeed.
func quoteConcurrently(t *testing.T, m *member) *Caller {
	t.Helper()
	c := &Caller{}
	var wg sync.WaitGroup
	errs := make(chan error, 20)
	for range 20 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var q protocol.QuoteAnswer
			_, err := c.Call(context.Background(), m.target(), "quote", quoteInput(), &q)
			errs <- err
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	return c
}

// Whatever an address serves that is not a JSON-RPC answer is never shown to whoever registered
// it, and failed connections read alike whatever happened on the wire (no port scan through
// verification).
func TestCallDoesNotReadBack(t *testing.T) {
	const secret = "root:x:0:0:secret-token-42"
	for name, h := range map[string]http.Handler{
		"html 200":            raw(200, "text/html", "<html>"+secret+"</html>"),
		"json 200 without id": raw(200, "application/json", `{"users":["`+secret+`"]}`),
		"bad json 200":        raw(200, "application/json", secret),
		"text 404":            raw(404, "text/plain", secret),
		"json 500":            raw(500, "application/json", `{"detail":"`+secret+`"}`),
	} {
		m := newMember(t, h)
		_, err := (&Caller{}).Call(context.Background(), m.target(), "quote", quoteInput(), nil)
		if err == nil || strings.Contains(err.Error(), "secret-token") || strings.Contains(err.Error(), "root:") {
			t.Errorf("%s: %v", name, err)
		}
	}
	// A closed port and a server that closes the connection read the same.
	closed, _ := net.Listen("tcp", "127.0.0.1:0")
	closedAddr := closed.Addr().String()
	closed.Close()
	eof, _ := net.Listen("tcp", "127.0.0.1:0")
	defer eof.Close()
	go func() {
		for {
			c, err := eof.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	var msgs []string
	for _, addr := range []string{closedAddr, eof.Addr().String()} {
		_, err := (&Caller{}).Call(context.Background(), Target{MemberID: "m", MCPURL: "http://" + addr + "/mcp", PlatformKey: []byte("k")}, "quote", quoteInput(), nil)
		ce := callError(t, err, KindUnreachable)
		msgs = append(msgs, strings.ReplaceAll(ce.Message, addr, "ADDR"))
	}
	if msgs[0] != msgs[1] {
		t.Errorf("a closed port and a closed connection read differently:\n%s\n%s", msgs[0], msgs[1])
	}
}

// TestCallSendsArgsAsEncoded: input given as Args (a quote round's, encoded once for every seller)
// reaches the member byte for byte as the tool's arguments, signed, at the URL registered (query
// included), as the request of every call is built from that URL parsed once.
func TestCallSendsArgsAsEncoded(t *testing.T) {
	var mu sync.Mutex
	var urls []string
	inner := mcpServer(t, nil)
	m := newMember(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		urls = append(urls, r.Host+" "+r.URL.String())
		mu.Unlock()
		inner.ServeHTTP(w, r)
	}))
	in, err := json.Marshal(quoteInput())
	if err != nil {
		t.Fatal(err)
	}
	target := m.target()
	target.MCPURL += "?seller=7"
	c := &Caller{}
	for range 2 {
		var q protocol.QuoteAnswer
		if _, err := c.Call(context.Background(), target, "quote", Args(in), &q); err != nil {
			t.Fatal(err)
		}
	}
	reqs := m.requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests, want 2", len(reqs))
	}
	for _, r := range reqs {
		var body struct {
			Params struct {
				Arguments json.RawMessage `json:"arguments"`
			} `json:"params"`
		}
		if err := json.Unmarshal(r.Body, &body); err != nil || !bytes.Equal(body.Params.Arguments, in) {
			t.Fatalf("the member got arguments %s (%v), want %s", body.Params.Arguments, err, in)
		}
	}
	host := strings.TrimPrefix(m.srv.URL, "http://")
	mu.Lock()
	defer mu.Unlock()
	for _, u := range urls {
		if u != host+" /mcp?seller=7" {
			t.Fatalf("a call went to %q, want %q", u, host+" /mcp?seller=7")
		}
	}
}
