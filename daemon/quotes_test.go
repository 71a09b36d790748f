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
	"reflect"
	"sync"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/axp-exchange/axp"
	"github.com/axp-exchange/axp/client"
	"github.com/axp-exchange/axp/contract"
	"github.com/axp-exchange/axp/daemon"
	"github.com/axp-exchange/axp/protocol"
	"github.com/axp-exchange/axp/store"
)

type sellerIDKey struct{}

// quoteSellers is one MCP endpoint serving many push sellers, each checked by its signature.
type quoteSellers struct {
	url   string
	mu    sync.Mutex
	keys  map[string][]byte
	conns map[string]bool // the connections quote calls came on (their remote addresses)
}

// newQuoteSellers serves quote with answer(seller id) and every other member tool with a receipt.
func newQuoteSellers(t *testing.T, answer func(ctx context.Context, id string) any) *quoteSellers {
	q := &quoteSellers{keys: map[string][]byte{}, conns: map[string]bool{}}
	s := server.NewMCPServer("sellers", "1.0.0", server.WithToolCapabilities(false))
	for _, tool := range protocol.MemberTools {
		in, _ := json.Marshal(protocol.SchemaOf(tool.In))
		name := tool.Name
		s.AddTool(mcp.NewToolWithRawSchema(tool.Name, tool.Description, in), func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			var v any = map[string]any{"received": true}
			if name == "quote" {
				v = answer(ctx, ctx.Value(sellerIDKey{}).(string))
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
		q.mu.Lock()
		key := q.keys[id]
		q.mu.Unlock()
		if key == nil || protocol.VerifyRequest(r.Header, id, key, body, time.Now()) != nil {
			http.Error(w, "unauthorized", http.StatusUnauthorized)
			return
		}
		if bytes.Contains(body, []byte(`"name":"quote"`)) {
			q.mu.Lock()
			q.conns[r.RemoteAddr] = true
			q.mu.Unlock()
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		inner.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	q.url = srv.URL + "/mcp"
	return q
}

// add registers a verified push seller of text files served by q.
func (q *quoteSellers) add(e *env) string {
	m := e.register(map[string]any{"roles": []string{"seller"}, "mcp_url": q.url,
		"skills": []map[string]any{{"task_type": "text-file", "description": "pushes text"}}})
	q.mu.Lock()
	q.keys[m.MemberID] = []byte(m.PlatformKey)
	q.mu.Unlock()
	e.setState(m.MemberID, axp.MemberVerified)
	return m.MemberID
}

// TestQuoteRoundLarge: a round of 120 push sellers (large enough to be stored in batches as the
// answers arrive) stores every valid offer once, and its timeline says which seller did what: one
// quote event per offer and one quote_failed per refused answer, each naming its seller.
func TestQuoteRoundLarge(t *testing.T) {
	t.Parallel()
	e := newMarket(t, func(c *daemon.Config) { c.QuoteWindow = 30 * time.Second })

	var mu sync.Mutex
	bad := map[string]bool{}
	sellers := newQuoteSellers(t, func(_ context.Context, id string) any {
		mu.Lock()
		defer mu.Unlock()
		if bad[id] {
			return map[string]any{"price_usd": 4.555, "eta_minutes": 30} // three decimals
		}
		return map[string]any{"price_usd": 4.5, "eta_minutes": 30}
	})

	const n = 120
	good := map[string]bool{}
	for i := range n {
		mu.Lock() // the seller may be called (by a conformance check) before it is marked
		id := sellers.add(e)
		bad[id] = i%10 == 3
		mu.Unlock()
		if i%10 != 3 {
			good[id] = true
		}
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

// TestQuoteRoundCapsParallelCalls: a round calls at most quoteParallel sellers at once, and still
// collects every seller's offer (the later calls start as earlier ones end).
func TestQuoteRoundCapsParallelCalls(t *testing.T) {
	t.Parallel()
	e := newMarket(t, func(c *daemon.Config) { c.QuoteWindow = 30 * time.Second })
	const n, limit = 24, 4
	e.d.SetQuoteParallel(limit)
	var mu sync.Mutex
	inFlight, most := 0, 0
	sellers := newQuoteSellers(t, func(ctx context.Context, _ string) any {
		mu.Lock()
		inFlight++
		most = max(most, inFlight)
		mu.Unlock()
		select { // long enough for calls to overlap if nothing held them back
		case <-time.After(20 * time.Millisecond):
		case <-ctx.Done():
		}
		mu.Lock()
		inFlight--
		mu.Unlock()
		return map[string]any{"price_usd": 3, "eta_minutes": 10}
	})
	ids := map[string]bool{}
	for range n {
		ids[sellers.add(e)] = true
	}
	mu.Lock()
	most = 0 // registration's conformance calls do not count
	mu.Unlock()
	created, _ := createTask(t, e.anon, map[string]any{"type": "text-file", "params": map[string]any{"prompt": "a haiku, four at a time"}})
	got := map[string]bool{}
	for _, o := range created.Offers {
		got[o.Seller.ID] = true
	}
	if len(got) != n {
		t.Fatalf("%d offers, want %d", len(got), n)
	}
	mu.Lock()
	defer mu.Unlock()
	if most > limit {
		t.Fatalf("%d quote calls under way at once, the cap is %d", most, limit)
	}
}

// TestQuoteRoundsReuseConnections: push sellers on one host are called over kept connections: a
// second round opens none, though its calls are under way at once (the transport keeps an idle
// connection for each call of a round, not the two per host net/http keeps by default).
func TestQuoteRoundsReuseConnections(t *testing.T) {
	t.Parallel()
	e := newMarket(t, func(c *daemon.Config) { c.QuoteWindow = 30 * time.Second })
	const n = 40
	// During a round, every call is under way before any is answered, so each holds a connection
	// of its own. (Registration's calls are answered at once.)
	var mu sync.Mutex
	var all chan struct{} // closed when the round's n-th call arrives; nil between rounds
	arrived := 0
	sellers := newQuoteSellers(t, func(ctx context.Context, _ string) any {
		mu.Lock()
		wait := all
		if arrived++; arrived == n && all != nil {
			close(all)
		}
		mu.Unlock()
		if wait != nil {
			select {
			case <-wait:
			case <-ctx.Done():
			}
		}
		return map[string]any{"price_usd": 3, "eta_minutes": 10}
	})
	for range n {
		sellers.add(e)
	}
	rounds := map[int]int{}
	for round := range 2 {
		mu.Lock()
		all, arrived = make(chan struct{}), 0
		mu.Unlock()
		created, _ := createTask(t, e.anon, map[string]any{"type": "text-file", "params": map[string]any{"prompt": "a haiku, again"}})
		if len(created.Offers) != n {
			t.Fatalf("round %d: %d offers, want %d", round+1, len(created.Offers), n)
		}
		sellers.mu.Lock()
		rounds[round] = len(sellers.conns)
		sellers.mu.Unlock()
	}
	if rounds[0] < n || rounds[1] != rounds[0] {
		t.Fatalf("quote calls came on %d connections in the first round and %d more in the second, want %d and none",
			rounds[0], rounds[1]-rounds[0], n)
	}
}

// TestPullQuoteRequestsNameTheBuyer: a pull seller's quote requests name each task's buyer with the
// very object a push seller's quote call carries for the same task: a buyer member's id, name and
// reputation as a buyer; the anonymous marker, without reputation, for token buyers (named by
// agent_name when the buyer gave one). A seller that may quote reads the same buyer in the task.
func TestPullQuoteRequestsNameTheBuyer(t *testing.T) {
	t.Parallel()
	e := newMarket(t)
	push := e.newPushSeller("text-file", nil, nil, nil)
	pull := e.pullSeller("text-file", nil)
	buyer := e.register(map[string]any{"roles": []string{"buyer"}, "name": "careful buyer"})
	// A seller reviewed the buyer once, so its reputation as a buyer has a rating to compare.
	err := e.d.DB().Update(func(tx *store.Tx) error {
		return tx.PutReview(&store.ReviewRecord{ReviewView: axp.ReviewView{ReviewID: "rev_buyer_1", TaskID: "tsk_old",
			Role: protocol.RoleSeller, Rating: 4}, ReviewerID: push.MemberID, RevieweeID: buyer.MemberID})
	})
	if err != nil {
		t.Fatal(err)
	}

	// pulled is the buyer object of the task in the pull seller's quote requests, as sent.
	pulled := func(taskID string) map[string]any {
		t.Helper()
		resp, err := doOp(pull.c, contract.ListQuoteRequests, contract.NoInput{})
		if err != nil {
			t.Fatal(err)
		}
		var list struct {
			Tasks []map[string]any `json:"tasks"`
		}
		if err := json.Unmarshal(resp.Body, &list); err != nil {
			t.Fatal(err)
		}
		for _, x := range list.Tasks {
			if x["id"] == taskID {
				b, _ := x["buyer"].(map[string]any)
				return b
			}
		}
		t.Fatalf("the pull seller's quote requests lack %s: %s", taskID, resp.Body)
		return nil
	}
	prompt := map[string]any{"prompt": "a haiku about who asks"}
	for _, c := range []struct {
		name   string
		poster *client.Client
		extra  map[string]any
		check  func(b map[string]any) bool
	}{
		{"buyer member", buyer.c, nil, func(b map[string]any) bool {
			rep, _ := b["reputation"].(map[string]any)
			asBuyer, _ := rep["as_buyer"].(map[string]any)
			return b["id"] == buyer.MemberID && b["name"] == "careful buyer" && b["anonymous"] == nil &&
				asBuyer["rating"] == 4.0 && asBuyer["reviews"] == 1.0
		}},
		{"anonymous", e.anon, nil, func(b map[string]any) bool {
			return b["id"] == "anonymous" && b["name"] == "anonymous buyer" && b["anonymous"] == true && b["reputation"] == nil
		}},
		{"anonymous with agent_name", e.anon, map[string]any{"agent_name": "night owl"}, func(b map[string]any) bool {
			return b["id"] == "anonymous" && b["name"] == "night owl" && b["anonymous"] == true && b["reputation"] == nil
		}},
	} {
		body := map[string]any{"type": "text-file", "params": prompt}
		for k, v := range c.extra {
			body[k] = v
		}
		created, _ := createTask(t, c.poster, body)
		pushed, _ := push.waitCall("quote", created.ID)["buyer"].(map[string]any)
		if !c.check(pushed) {
			t.Fatalf("%s: the push quote call's buyer %v", c.name, pushed)
		}
		if got := pulled(created.ID); !reflect.DeepEqual(got, pushed) {
			t.Fatalf("%s: the pull seller's quote request names the buyer %v, the push quote call %v", c.name, got, pushed)
		}
		resp, err := doOp(pull.c, contract.GetTask, axp.TaskQuery{TaskRef: axp.TaskRef{ID: created.ID}})
		if err != nil {
			t.Fatal(err)
		}
		var task map[string]any
		if err := json.Unmarshal(resp.Body, &task); err != nil {
			t.Fatal(err)
		}
		if got, _ := task["buyer"].(map[string]any); !reflect.DeepEqual(got, pushed) {
			t.Fatalf("%s: a quoting seller's get_task names the buyer %v, the push quote call %v", c.name, got, pushed)
		}
	}
}
