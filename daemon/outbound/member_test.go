package outbound

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/axp-exchange/axp/protocol"
)

// seen is one HTTP request a test member received (and accepted).
type seen struct {
	HTTPMethod string
	RPCMethod  string
	Auth       string
	Trace      string
	Session    string
	Protocol   string // MCP-Protocol-Version
	Answered   string // Content-Type of the answer
	Body       []byte
}

// member is a member's server on 127.0.0.1: it refuses (401) every request whose signature
// protocol.VerifyRequest does not accept, and records the others.
type member struct {
	t   *testing.T
	id  string
	key []byte
	srv *httptest.Server

	mu      sync.Mutex
	seen    []seen
	refused int
}

func newMember(t *testing.T, inner http.Handler) *member {
	t.Helper()
	m := &member{t: t, id: "m_test1", key: []byte("platform-key-of-m_test1")}
	mux := http.NewServeMux()
	mux.Handle("/mcp", m.verify(inner))
	m.srv = httptest.NewServer(mux)
	t.Cleanup(m.srv.Close)
	return m
}

func (m *member) target() Target {
	return Target{MemberID: m.id, MCPURL: m.srv.URL + "/mcp", PlatformKey: m.key}
}

func (m *member) verify(inner http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		if err := protocol.VerifyRequest(r.Header, m.id, m.key, body, time.Now()); err != nil {
			m.mu.Lock()
			m.refused++
			m.mu.Unlock()
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusUnauthorized)
			json.NewEncoder(w).Encode(map[string]any{"error": map[string]string{"code": "unauthorized", "message": err.Message}})
			return
		}
		var rpc struct {
			Method string `json:"method"`
		}
		json.Unmarshal(body, &rpc)
		r.Body = io.NopCloser(bytes.NewReader(body))
		// The request is recorded before it is answered (and its answer's Content-Type as the
		// headers go out): the caller may return as soon as it has read the answer, before this
		// handler does.
		m.mu.Lock()
		i := len(m.seen)
		m.seen = append(m.seen, seen{
			HTTPMethod: r.Method, RPCMethod: rpc.Method, Auth: r.Header.Get("Authorization"),
			Trace: r.Header.Get(protocol.HeaderTraceID), Session: r.Header.Get("Mcp-Session-Id"),
			Protocol: r.Header.Get("Mcp-Protocol-Version"), Body: body,
		})
		m.mu.Unlock()
		rec := &recorder{ResponseWriter: w, onHeader: func() {
			m.mu.Lock()
			m.seen[i].Answered = w.Header().Get("Content-Type")
			m.mu.Unlock()
		}}
		inner.ServeHTTP(rec, r)
		rec.header()
	})
}

func (m *member) requests() []seen {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]seen(nil), m.seen...)
}

func (m *member) refusals() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.refused
}

// recorder passes writes through, keeps streaming possible, and calls onHeader once, just before
// the headers are sent.
type recorder struct {
	http.ResponseWriter
	onHeader func()
	once     sync.Once
}

func (r *recorder) header() { r.once.Do(r.onHeader) }

func (r *recorder) WriteHeader(status int) {
	r.header()
	r.ResponseWriter.WriteHeader(status)
}

func (r *recorder) Write(b []byte) (int, error) {
	r.header()
	return r.ResponseWriter.Write(b)
}

func (r *recorder) Flush() {
	r.header()
	if f, ok := r.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

func (r *recorder) Unwrap() http.ResponseWriter { return r.ResponseWriter }

// discard drops the test servers' logs.
var discard = slog.New(slog.DiscardHandler)

// toolFunc answers one member tool in an mcp-go server.
type toolFunc = server.ToolHandlerFunc

// mcpServer is a real mcp-go MCP server exposing every member tool (schemas from protocol), with
// the given handlers and a default answer for the others.
func mcpServer(t *testing.T, handlers map[string]toolFunc, opts ...server.StreamableHTTPOption) http.Handler {
	t.Helper()
	s := server.NewMCPServer("test-member", "1.0.0", server.WithToolCapabilities(false))
	for _, tool := range protocol.MemberTools {
		in, err := json.Marshal(protocol.SchemaOf(tool.In))
		if err != nil {
			t.Fatal(err)
		}
		out, err := json.Marshal(protocol.SchemaOf(tool.Out))
		if err != nil {
			t.Fatal(err)
		}
		def := mcp.NewToolWithRawSchema(tool.Name, tool.Description, in)
		def.RawOutputSchema = out
		h := handlers[tool.Name]
		if h == nil {
			h = defaultAnswer(tool.Name)
		}
		s.AddTool(def, h)
	}
	if len(opts) == 0 {
		opts = []server.StreamableHTTPOption{server.WithStateLess(true)}
	}
	opts = append(opts, server.WithStreamableHTTPLogger(discard))
	return server.NewStreamableHTTPServer(s, opts...)
}

func defaultAnswer(tool string) toolFunc {
	return func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		switch tool {
		case "quote":
			return structured(map[string]any{"price_usd": 4.5, "eta_minutes": 30, "note": "can do"}), nil
		case "do_task":
			return structured(map[string]any{"accepted": true}), nil
		case "contact_test":
			args := req.GetArguments()
			nonce, _ := args["nonce"].(string)
			return structured(map[string]any{"nonce": nonce, "signature": protocol.ContactTestSignature([]byte("platform-key-of-m_test1"), nonce)}), nil
		case "get_skills":
			return structured(map[string]any{"skills": []any{map[string]any{"task_type": "text-file"}}}), nil
		case "mediation":
			return structured(map[string]any{"statement": "fine", "proposed_refund_pct": nil}), nil
		case "review":
			return structured(map[string]any{"skip": true}), nil
		}
		return structured(map[string]any{"received": true}), nil
	}
}

// structured answers with structuredContent and the same JSON as text, as MCP recommends.
func structured(v any) *mcp.CallToolResult {
	b, _ := json.Marshal(v)
	return mcp.NewToolResultStructured(v, string(b))
}

// rpcAnswer is a hand-written member server: it answers every JSON-RPC request with result
// (as JSON, or as one SSE event after a notification when sse is set).
func rpcAnswer(result any, sse bool) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			ID json.RawMessage `json:"id"`
		}
		json.NewDecoder(r.Body).Decode(&req)
		if len(req.ID) == 0 {
			w.WriteHeader(http.StatusAccepted)
			return
		}
		msg, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": req.ID, "result": result})
		if !sse {
			w.Header().Set("Content-Type", "application/json")
			w.Write(msg)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, "event: message\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{\"progress\":1}}\n\n")
		w.(http.Flusher).Flush()
		io.WriteString(w, "id: 1\nevent: message\ndata: "+string(msg)+"\n\n")
	})
}

// raw answers every request with the given status, content type and body.
func raw(status int, contentType, body string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if contentType != "" {
			w.Header().Set("Content-Type", contentType)
		}
		w.WriteHeader(status)
		io.WriteString(w, body)
	})
}

// within fails the test unless ch yields within d.
func within[T any](t *testing.T, ch <-chan T, d time.Duration, what string) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(d):
		t.Fatalf("timed out waiting for %s", what)
	}
	var zero T
	return zero
}
