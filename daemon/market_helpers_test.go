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
	"strings"
	"sync"
	"sync/atomic"
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

// Helpers of the marketplace tests (market_test.go): sellers of the three kinds, a buyer's callback
// sink, a controllable clock, and readers of the operator's queue and the ledger.

// depositAddress is the exchange's deposit address in the marketplace tests.
const depositAddress = "0xd0d0d0d0d0d0d0d0d0d0d0d0d0d0d0d0d0d0d0d0"

// payoutAddress is a seller wallet.
const payoutAddress = "0x5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e"

// quoteWindow is the quote window of the marketplace tests.
const quoteWindow = 2 * time.Second

// newMarket starts an exchange with a short quote window and a deposit address; the background
// sweeper is left to the tests (d.Sweep).
func newMarket(t *testing.T, mod ...func(*daemon.Config)) *env {
	t.Helper()
	return newEnv(t, append([]func(*daemon.Config){func(c *daemon.Config) {
		c.QuoteWindow = quoteWindow
		c.DepositAddress = depositAddress
		c.SweepEvery = time.Hour
	}}, mod...)...)
}

var txSeq atomic.Int64

// newTxHash is a fresh transaction hash.
func newTxHash() string { return fmt.Sprintf("0x%064x", 0xabc000+txSeq.Add(1)) }

// usd is an amount from a decimal string ("4.50").
func usd(t *testing.T, s string) axp.Money {
	t.Helper()
	var m axp.Money
	if err := json.Unmarshal([]byte(s), &m); err != nil {
		t.Fatalf("amount %s: %v", s, err)
	}
	return m
}

// feeOf is 1% of price rounded half-up to the micro-dollar, computed here independently.
func feeOf(price axp.Money) axp.Money { return (price*100 + 5000) / 10000 }

// verified registers a member and marks it verified (the handshake arrives with a later issue).
func (e *env) verified(reg map[string]any) *member {
	e.t.Helper()
	m := e.register(reg)
	e.setState(m.MemberID, axp.MemberVerified)
	return m
}

// instantSeller is a verified seller with a standing price for taskType; extra joins the skill.
func (e *env) instantSeller(taskType, price string, eta int, extra map[string]any, reg map[string]any) *member {
	e.t.Helper()
	skill := map[string]any{"task_type": taskType, "instant_price_usd": json.Number(price), "instant_eta_minutes": eta}
	for k, v := range extra {
		skill[k] = v
	}
	if reg == nil {
		reg = map[string]any{}
	}
	reg["roles"] = []string{"seller"}
	reg["skills"] = []map[string]any{skill}
	return e.verified(reg)
}

// pullSeller is a verified pull-mode seller (no MCP server) of taskType.
func (e *env) pullSeller(taskType string, reg map[string]any) *member {
	e.t.Helper()
	if reg == nil {
		reg = map[string]any{}
	}
	reg["roles"] = []string{"seller"}
	reg["skills"] = []map[string]any{{"task_type": taskType, "description": "does " + taskType}}
	return e.verified(reg)
}

// toolCall is one member tool call a push seller received.
type toolCall struct {
	Tool string
	Args map[string]any
}

// pushSeller is a verified seller with a real MCP server (mcp-go, Streamable HTTP, stateless) on
// 127.0.0.1 that offers every member tool with the schemas of protocol.MemberTools and refuses
// (401) every request whose signature protocol.VerifyRequest does not accept with the platform key
// the exchange returned at registration.
type pushSeller struct {
	*member
	t   *testing.T
	srv *httptest.Server
	now func() time.Time // the clock signatures are checked against

	mu      sync.Mutex
	id      string
	key     []byte
	calls   []toolCall
	refused int
	answers map[string]func(args map[string]any) any
	delays  map[string]time.Duration
	// specOnly checks what spec section 5 asks and no more: the timestamp and the signature,
	// not X-AX-Member-Id.
	specOnly bool
}

// newPushSeller starts the seller's server, registers it with mcp_url pointing there and marks it
// verified. answers override the default answers per tool; delays make a tool answer late.
func (e *env) newPushSeller(taskType string, answers map[string]func(map[string]any) any, delays map[string]time.Duration, reg map[string]any) *pushSeller {
	e.t.Helper()
	p := &pushSeller{t: e.t, now: time.Now, answers: answers, delays: delays}
	s := server.NewMCPServer("push-seller", "1.0.0", server.WithToolCapabilities(false))
	for _, tool := range protocol.MemberTools {
		in, err := json.Marshal(protocol.SchemaOf(tool.In))
		if err != nil {
			e.t.Fatal(err)
		}
		out, err := json.Marshal(protocol.SchemaOf(tool.Out))
		if err != nil {
			e.t.Fatal(err)
		}
		def := mcp.NewToolWithRawSchema(tool.Name, tool.Description, in)
		def.RawOutputSchema = out
		s.AddTool(def, p.handler(tool.Name))
	}
	inner := server.NewStreamableHTTPServer(s, server.WithStateLess(true),
		server.WithStreamableHTTPLogger(slog.New(slog.DiscardHandler)))
	mux := http.NewServeMux()
	mux.Handle("/mcp", p.verify(inner))
	p.srv = httptest.NewServer(mux)
	e.t.Cleanup(p.srv.Close)

	if reg == nil {
		reg = map[string]any{}
	}
	if reg["roles"] == nil {
		reg["roles"] = []string{"seller"}
	}
	reg["mcp_url"] = p.srv.URL + "/mcp"
	if reg["skills"] == nil {
		reg["skills"] = []map[string]any{{"task_type": taskType, "description": "pushes " + taskType}}
	}
	p.member = e.register(reg)
	p.mu.Lock()
	p.id, p.key = p.MemberID, []byte(p.PlatformKey)
	p.mu.Unlock()
	e.setState(p.MemberID, axp.MemberVerified)
	return p
}

// useClock checks signatures against now instead of the real clock (an exchange on a test clock
// signs with that clock).
func (p *pushSeller) useClock(now func() time.Time) {
	p.mu.Lock()
	p.now = now
	p.mu.Unlock()
}

func (p *pushSeller) verify(inner http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		p.mu.Lock()
		id, key, now := p.id, p.key, p.now
		p.mu.Unlock()
		if id == "" {
			http.Error(w, "not registered yet", http.StatusServiceUnavailable)
			return
		}
		p.mu.Lock()
		specOnly := p.specOnly
		p.mu.Unlock()
		if specOnly && r.Header.Get(protocol.HeaderMemberID) != "" {
			r.Header.Set(protocol.HeaderMemberID, id)
		}
		if err := protocol.VerifyRequest(r.Header, id, key, body, now()); err != nil {
			p.mu.Lock()
			p.refused++
			p.mu.Unlock()
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusUnauthorized)
			json.NewEncoder(w).Encode(map[string]any{"error": map[string]string{"code": "unauthorized", "message": err.Message}})
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		inner.ServeHTTP(w, r)
	})
}

func (p *pushSeller) handler(tool string) server.ToolHandlerFunc {
	return func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		args := req.GetArguments()
		p.mu.Lock()
		p.calls = append(p.calls, toolCall{Tool: tool, Args: args})
		answer, delay := p.answers[tool], p.delays[tool]
		p.mu.Unlock()
		if delay > 0 {
			// A slow seller: its answer takes this long (bounded by the exchange's call).
			t := time.NewTimer(delay)
			select {
			case <-t.C:
			case <-ctx.Done():
				t.Stop()
				return nil, ctx.Err()
			}
		}
		var v any
		if answer != nil {
			v = answer(args)
		} else {
			v = defaultToolAnswer(tool, args)
		}
		b, _ := json.Marshal(v)
		return mcp.NewToolResultStructured(v, string(b)), nil
	}
}

func defaultToolAnswer(tool string, args map[string]any) any {
	switch tool {
	case "quote":
		return map[string]any{"price_usd": 4.5, "eta_minutes": 30, "note": "pushed quote"}
	case "do_task":
		return map[string]any{"accepted": true}
	case "get_skills":
		return map[string]any{"skills": []any{}}
	case "mediation":
		return map[string]any{"statement": "fine", "proposed_refund_pct": nil}
	case "review":
		return map[string]any{"skip": true}
	case "contact_test":
		return map[string]any{"nonce": args["nonce"], "signature": strings.Repeat("0", 64)}
	}
	return map[string]any{"received": true}
}

// received lists the calls of tool about taskID (all tasks when taskID is "").
func (p *pushSeller) received(tool, taskID string) []map[string]any {
	p.mu.Lock()
	defer p.mu.Unlock()
	var out []map[string]any
	for _, c := range p.calls {
		if c.Tool == tool && (taskID == "" || c.Args["task_id"] == taskID) {
			out = append(out, c.Args)
		}
	}
	return out
}

// waitCall waits for a call of tool about taskID and returns its arguments.
func (p *pushSeller) waitCall(tool, taskID string) map[string]any {
	p.t.Helper()
	var got map[string]any
	eventually(p.t, func() error {
		if l := p.received(tool, taskID); len(l) > 0 {
			got = l[len(l)-1]
			return nil
		}
		return fmt.Errorf("%s never received %s for %s", p.MemberID, tool, taskID)
	})
	return got
}

func (p *pushSeller) refusedCount() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.refused
}

// callbackPost is one post a buyer's callback server received.
type callbackPost struct {
	Header http.Header
	Body   []byte
	Doc    map[string]any
}

// callbackSink is a buyer's callback server on 127.0.0.1 that records every post.
type callbackSink struct {
	t   *testing.T
	srv *httptest.Server
	mu  sync.Mutex
	got []callbackPost
}

func newCallbackSink(t *testing.T) *callbackSink {
	s := &callbackSink{t: t}
	s.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		var doc map[string]any
		json.Unmarshal(body, &doc)
		s.mu.Lock()
		s.got = append(s.got, callbackPost{Header: r.Header.Clone(), Body: body, Doc: doc})
		s.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"received":true}`)
	}))
	t.Cleanup(s.srv.Close)
	return s
}

func (s *callbackSink) posts() []callbackPost {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]callbackPost(nil), s.got...)
}

// statuses lists the statuses of the task_update posts received, in arrival order.
func (s *callbackSink) statuses(event string) []string {
	var out []string
	for _, p := range s.posts() {
		if p.Doc["event"] != event {
			continue
		}
		if u, ok := p.Doc["task_update"].(map[string]any); ok {
			out = append(out, fmt.Sprint(u["status"]))
		}
	}
	return out
}

// waitFor waits until a post of event arrives for which match (nil: any) holds.
func (s *callbackSink) waitFor(event string, match func(map[string]any) bool) map[string]any {
	s.t.Helper()
	var got map[string]any
	eventually(s.t, func() error {
		for _, p := range s.posts() {
			if p.Doc["event"] == event && (match == nil || match(p.Doc)) {
				got = p.Doc
				return nil
			}
		}
		return fmt.Errorf("no %s callback yet (got %d posts)", event, len(s.posts()))
	})
	return got
}

// createTask posts a task and reports how long the call took.
func createTask(t *testing.T, c *client.Client, body map[string]any) (axp.CreatedTask, time.Duration) {
	t.Helper()
	var out axp.CreatedTask
	start := time.Now()
	call(t, c, "create_task", body, &out)
	return out, time.Since(start)
}

// getTask reads a task as the caller of c.
func getTask(t *testing.T, c *client.Client, id string) axp.Task {
	t.Helper()
	var out axp.Task
	out = *callOp(t, c, contract.GetTask, axp.TaskQuery{TaskRef: axp.TaskRef{ID: id}})
	return out
}

// waitStatus polls a task until it reaches status.
func waitStatus(t *testing.T, c *client.Client, id, status string) axp.Task {
	t.Helper()
	var got axp.Task
	eventually(t, func() error {
		got = axp.Task{}
		if err := c.Call(context.Background(), "get_task", map[string]any{"id": id}, &got); err != nil {
			return err
		}
		if got.Status != status {
			return fmt.Errorf("task %s is %s, want %s", id, got.Status, status)
		}
		return nil
	})
	return got
}

// offerOf finds the offer of seller among offers.
func offerOf(t *testing.T, offers []axp.Offer, sellerID string) axp.Offer {
	t.Helper()
	for _, o := range offers {
		if o.Seller.ID == sellerID {
			return o
		}
	}
	t.Fatalf("no offer from %s among %d offers", sellerID, len(offers))
	return axp.Offer{}
}

// approvals lists the operator's queue items of a task (every status).
func (e *env) approvals(taskID string) []axp.Approval {
	e.t.Helper()
	var l axp.ApprovalList
	l = *callOp(e.t, e.admin, contract.AdminApprovals, axp.ApprovalsQuery{Status: "all", TaskID: taskID})
	return l.Approvals
}

// approvalOf is the single queue item of kind for a task.
func (e *env) approvalOf(taskID, kind string) axp.Approval {
	e.t.Helper()
	var found []axp.Approval
	for _, a := range e.approvals(taskID) {
		if a.Kind == kind {
			found = append(found, a)
		}
	}
	if len(found) != 1 {
		e.t.Fatalf("want one %s item for %s, got %+v", kind, taskID, found)
	}
	return found[0]
}

// approve approves a queue item, with a transaction hash when tx is true.
func (e *env) approve(id string, tx bool) axp.Approval {
	e.t.Helper()
	in := map[string]any{"id": id}
	if tx {
		in["tx_hash"] = newTxHash()
	}
	var a axp.Approval
	call(e.t, e.admin, "admin_approve", in, &a)
	return a
}

// ledger reads the ledger straight from the store.
func (e *env) ledger() []axp.LedgerEntry {
	e.t.Helper()
	var entries []axp.LedgerEntry
	if err := e.d.DB().View(func(tx *store.Tx) error {
		var err error
		entries, err = tx.Ledger()
		return err
	}); err != nil {
		e.t.Fatalf("ledger: %v", err)
	}
	return entries
}

// balances checks that every entry and the whole ledger sum to exactly zero and returns the balance
// of each account.
func (e *env) balances() map[string]axp.Money {
	e.t.Helper()
	entries := e.ledger()
	var total axp.Money
	for _, en := range entries {
		if s := en.Sum(); s != 0 {
			e.t.Fatalf("ledger entry %s (%s) sums to %s", en.ID, en.Kind, s)
		}
		for _, p := range en.Postings {
			total += p.Amount
		}
	}
	if total != 0 {
		e.t.Fatalf("the ledger sums to %s", total)
	}
	return axp.Balances(entries)
}

// entriesOf lists the ledger entries of a task.
func (e *env) entriesOf(taskID string) []axp.LedgerEntry {
	var out []axp.LedgerEntry
	for _, en := range e.ledger() {
		if en.TaskID == taskID {
			out = append(out, en)
		}
	}
	return out
}

// fund chooses offerID for the buyer, reports a payment and has the operator confirm it; the task
// is then paid. It returns the amount received.
func (e *env) fund(buyer *client.Client, taskID, offerID string) axp.Money {
	e.t.Helper()
	var chosen axp.Task
	chosen = *callOp(e.t, buyer, contract.ChooseOffer, axp.ChooseInput{TaskRef: axp.TaskRef{ID: taskID}, OfferID: offerID})
	if chosen.Status != axp.TaskAwaitingPayment || chosen.Payment == nil {
		e.t.Fatalf("after choose: %s %+v", chosen.Status, chosen.Payment)
	}
	callOp(e.t, buyer, contract.PayCryptoOp, axp.PayCryptoInput{TaskRef: axp.TaskRef{ID: taskID}, TxHash: newTxHash()})
	var pending []axp.Approval
	for _, a := range e.approvals(taskID) {
		if a.Kind == axp.ApprovePayment && a.Status == axp.ApprovalPending {
			pending = append(pending, a)
		}
	}
	if len(pending) != 1 {
		e.t.Fatalf("want one pending payment item, got %+v", pending)
	}
	e.approve(pending[0].ID, false)
	return chosen.Payment.PayableUSD
}

// deliverText delivers content inline as the seller.
func deliverText(t *testing.T, seller *client.Client, taskID, content string) axp.Task {
	t.Helper()
	var out axp.Task
	out = *callOp(t, seller, contract.Deliver, axp.DeliverInput{ID: taskID, Content: content, Filename: "result.txt", MimeType: "text/plain"})
	return out
}

// retrieve fetches the deliverable as the buyer and checks its hash header.
func retrieve(t *testing.T, buyer *client.Client, taskID string) []byte {
	t.Helper()
	resp, err := doOp(buyer, contract.GetDeliverable, axp.TaskRef{ID: taskID})
	if err != nil {
		t.Fatalf("get_deliverable: %v", err)
	}
	if got, want := resp.Header.Get("X-Content-SHA256"), sha256Hex(string(resp.Body)); got != want {
		t.Fatalf("X-Content-SHA256 %q, body hashes to %q", got, want)
	}
	return resp.Body
}

// timelineKinds lists the kinds of a task's timeline events.
func timelineKinds(t *testing.T, c *client.Client, taskID string) ([]string, []axp.Event) {
	t.Helper()
	var tl axp.Timeline
	tl = *callOp(t, c, contract.GetTimeline, axp.TaskRef{ID: taskID})
	kinds := make([]string, len(tl.Events))
	for i, ev := range tl.Events {
		kinds[i] = ev.Kind
	}
	return kinds, tl.Events
}

// verifyPost checks a callback post's signature as its receiver would.
func verifyPost(p callbackPost, memberID string, key []byte) error {
	if err := protocol.VerifyRequest(p.Header, memberID, key, p.Body, time.Now()); err != nil {
		return err
	}
	return nil
}

// waitFor polls f until it answers without an error and returns its value.
func waitFor[T any](t *testing.T, f func() (T, error)) T {
	t.Helper()
	var v T
	eventually(t, func() error {
		var err error
		v, err = f()
		return err
	})
	return v
}
