package daemon_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/axp-exchange/axp"
	"github.com/axp-exchange/axp/daemon"
	"github.com/axp-exchange/axp/protocol"
)

type sellerIDKey struct{}

// TestQuoteRoundLarge: a round of 120 push sellers (large enough to be stored in two
// transactions) stores every valid offer once, and its timeline says which seller did what: one
// quote event per offer and one quote_failed per refused answer, each naming its seller.
func TestQuoteRoundLarge(t *testing.T) {
	t.Parallel()
	e := newMarket(t, func(c *daemon.Config) { c.QuoteWindow = 30 * time.Second })

	var mu sync.Mutex
	keys := map[string][]byte{}
	bad := map[string]bool{}
	s := server.NewMCPServer("sellers", "1.0.0", server.WithToolCapabilities(false))
	for _, tool := range protocol.MemberTools {
		in, _ := json.Marshal(protocol.SchemaOf(tool.In))
		name := tool.Name
		s.AddTool(mcp.NewToolWithRawSchema(tool.Name, tool.Description, in), func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			id, _ := ctx.Value(sellerIDKey{}).(string)
			mu.Lock()
			wrong := bad[id]
			mu.Unlock()
			var v any = map[string]any{"received": true}
			if name == "quote" {
				v = map[string]any{"price_usd": 4.5, "eta_minutes": 30}
				if wrong {
					v = map[string]any{"price_usd": 4.555, "eta_minutes": 30} // three decimals
				}
			}
			raw, _ := json.Marshal(v)
			return mcp.NewToolResultStructured(v, string(raw)), nil
		})
	}
	inner := server.NewStreamableHTTPServer(s, server.WithStateLess(true),
		server.WithStreamableHTTPLogger(slog.New(slog.DiscardHandler)),
		server.WithHTTPContextFunc(func(ctx context.Context, r *http.Request) context.Context {
			return context.WithValue(ctx, sellerIDKey{}, r.Header.Get(protocol.HeaderMemberID))
		}))
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		id := r.Header.Get(protocol.HeaderMemberID)
		mu.Lock()
		key := keys[id]
		mu.Unlock()
		if key == nil || protocol.VerifyRequest(r.Header, id, key, body, time.Now()) != nil {
			http.Error(w, "unauthorized", http.StatusUnauthorized)
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		inner.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)

	const n = 120
	good := map[string]bool{}
	for i := range n {
		m := e.register(map[string]any{"roles": []string{"seller"}, "mcp_url": srv.URL + "/mcp",
			"skills": []map[string]any{{"task_type": "text-file", "description": "pushes text"}}})
		mu.Lock()
		keys[m.MemberID] = []byte(m.PlatformKey)
		bad[m.MemberID] = i%10 == 3
		mu.Unlock()
		if i%10 != 3 {
			good[m.MemberID] = true
		}
		e.setState(m.MemberID, axp.MemberVerified)
	}

	created, _ := createTask(t, e.anon, map[string]any{"type": "text-file", "params": map[string]any{"prompt": "a haiku for many"}})
	seen := map[string]bool{}
	for _, o := range created.Offers {
		if !good[o.Seller.ID] || seen[o.Seller.ID] {
			t.Fatalf("offer of %s: refused seller or twice", o.Seller.ID)
		}
		seen[o.Seller.ID] = true
	}
	if len(seen) != len(good) {
		t.Fatalf("%d offers, want %d", len(seen), len(good))
	}

	_, events := timelineKinds(t, e.anon.With(created.BuyerToken), created.ID)
	quoted, failed := map[string]int{}, map[string]int{}
	for _, ev := range events {
		seller := fmt.Sprint(ev.Detail["seller"])
		switch ev.Kind {
		case "quote":
			quoted[seller]++
			if !good[seller] || ev.Detail["offer_id"] == nil {
				t.Fatalf("quote event %+v", ev)
			}
		case "quote_failed":
			failed[seller]++
			if good[seller] {
				t.Fatalf("quote_failed for a good seller: %+v", ev)
			}
		}
	}
	if len(quoted) != len(good) || len(failed) != n-len(good) {
		t.Fatalf("%d sellers quoted and %d failed on the timeline, want %d and %d", len(quoted), len(failed), len(good), n-len(good))
	}
	for id, c := range quoted {
		if c != 1 {
			t.Fatalf("%s quoted %d times on the timeline", id, c)
		}
	}
	for id, c := range failed {
		if c != 1 {
			t.Fatalf("%s failed %d times on the timeline", id, c)
		}
	}
}
