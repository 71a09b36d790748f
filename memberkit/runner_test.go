package memberkit_test

import (
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/axp-exchange/axp"
	"github.com/axp-exchange/axp/memberkit"
	"github.com/axp-exchange/axp/protocol"
)

// fakeExchange answers the REST calls of a pull seller from state the test sets.
type fakeExchange struct {
	mu        sync.Mutex
	requests  []axp.Task
	forbidden bool
	jobs      []axp.Task
	offers    []string // "task:kind"
	auth      []string
}

func (f *fakeExchange) handler(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.auth = append(f.auth, r.Header.Get("Authorization"))
	w.Header().Set("Content-Type", "application/json")
	switch {
	case r.URL.Path == "/api/members/me/heartbeat":
		json.NewEncoder(w).Encode(axp.Heartbeat{MemberID: memberID})
	case r.URL.Path == "/api/members/me/quote-requests":
		if f.forbidden {
			w.WriteHeader(http.StatusForbidden)
			json.NewEncoder(w).Encode(protocol.ErrorBody{Error: protocol.Error{Code: protocol.CodeForbidden, Message: "only verified sellers"}})
			return
		}
		json.NewEncoder(w).Encode(axp.TaskList{Tasks: f.requests})
	case strings.HasSuffix(r.URL.Path, "/offers"):
		var q protocol.QuoteAnswer
		json.NewDecoder(r.Body).Decode(&q)
		id := strings.TrimSuffix(strings.TrimPrefix(r.URL.Path, "/api/tasks/"), "/offers")
		f.offers = append(f.offers, id+":"+q.Kind())
		json.NewEncoder(w).Encode(map[string]any{"task_id": id, "kind": q.Kind(), "recorded": true})
	case r.URL.Path == "/api/members/me/jobs":
		json.NewEncoder(w).Encode(axp.TaskList{Tasks: f.jobs})
	case r.URL.Path == "/api/members/me/announcements":
		json.NewEncoder(w).Encode(axp.AnnouncementList{Announcements: []axp.Announcement{}})
	default:
		w.WriteHeader(http.StatusNotFound)
		json.NewEncoder(w).Encode(protocol.ErrorBody{Error: protocol.Error{Code: protocol.CodeNotFound, Message: r.URL.Path}})
	}
}

func (f *fakeExchange) set(fn func()) {
	f.mu.Lock()
	defer f.mu.Unlock()
	fn()
}

func (f *fakeExchange) offered() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.offers...)
}

// askingSeller asks questions on tasks whose description says "vague", and records do_task calls.
type askingSeller struct {
	memberkit.Defaults
	mu   sync.Mutex
	jobs []string
}

func (s *askingSeller) Quote(ctx context.Context, in protocol.QuoteInput) (protocol.QuoteAnswer, error) {
	if strings.Contains(in.Description, "vague") {
		return memberkit.Clarify("which language?"), nil
	}
	return memberkit.Price(protocol.USD(3, 0), 10, ""), nil
}

func (s *askingSeller) DoTask(ctx context.Context, job *memberkit.Job) (protocol.DoTaskOutput, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.jobs = append(s.jobs, job.TaskID)
	return protocol.DoTaskOutput{Accepted: true}, nil
}

func (s *askingSeller) done() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.jobs...)
}

// TestRunnerPolls: each quote request is answered once, again only after the buyer answered our
// questions; each job goes to DoTask once, again on a redo; an unverified seller's 403 is quiet.
func TestRunnerPolls(t *testing.T) {
	fx := &fakeExchange{}
	srv := httptest.NewServer(http.HandlerFunc(fx.handler))
	defer srv.Close()
	seller := &askingSeller{}
	r, err := memberkit.NewRunner(memberkit.NewClient(srv.URL, secret), memberkit.Options{Roles: []string{"seller"}, Seller: seller, Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	poll := func() {
		t.Helper()
		if err := r.Poll(ctx); err != nil {
			t.Fatal(err)
		}
	}
	mine := []axp.Clarification{{Seller: protocol.SellerRef{ID: memberID, Name: "me"}, Questions: []string{"which language?"}}}
	fx.set(func() {
		fx.requests = []axp.Task{{ID: "tsk_a", Type: "text-file", PaymentMethod: "crypto"},
			{ID: "tsk_c", Type: "text-file", Description: "something vague", PaymentMethod: "crypto"}}
	})
	poll()
	fx.set(func() { fx.requests[1].Clarifications = mine })
	poll()
	if got := strings.Join(fx.offered(), " "); got != "tsk_a:price tsk_c:clarify" {
		t.Fatalf("offers after two polls: %s", got)
	}
	// The buyer answers: our questions are gone from the task, which now says what it wants.
	fx.set(func() {
		fx.requests[1].Clarifications = nil
		fx.requests[1].Description = "French, please"
	})
	poll()
	poll()
	if got := strings.Join(fx.offered(), " "); got != "tsk_a:price tsk_c:clarify tsk_c:price" {
		t.Fatalf("offers after the answers: %s", got)
	}

	price := protocol.USD(3, 0)
	fx.set(func() {
		fx.jobs = []axp.Task{{ID: "tsk_a", Type: "text-file", Status: axp.TaskPaid, PriceUSD: &price, ChosenOfferID: "ofr_1",
			Offers: []axp.Offer{{OfferID: "ofr_1", ETAMinutes: 10}}}}
	})
	poll()
	poll()
	fx.set(func() { fx.jobs[0].Status, fx.jobs[0].Deliveries = axp.TaskInProgress, 1 }) // a redo
	poll()
	fx.set(func() { fx.jobs[0].Status = axp.TaskDelivered })
	poll()
	if got := strings.Join(seller.done(), " "); got != "tsk_a tsk_a" {
		t.Fatalf("do_task calls: %s", got)
	}

	fx.set(func() { fx.forbidden = true })
	poll()
	for _, a := range fx.auth {
		if a != "Bearer "+secret {
			t.Fatalf("a call went without the member secret: %q", a)
		}
	}
}

func TestNewRunnerNeedsAMemberSecret(t *testing.T) {
	if _, err := memberkit.NewRunner(memberkit.NewClient("http://127.0.0.1:1", "nope"), memberkit.Options{Roles: []string{"buyer"}}); err == nil {
		t.Fatal("a runner without a member secret was built")
	}
}

// buyerSeller records the buyer each quote request names.
type buyerSeller struct {
	memberkit.Defaults
	mu     sync.Mutex
	buyers map[string]protocol.BuyerRef
}

func (s *buyerSeller) Quote(ctx context.Context, in protocol.QuoteInput) (protocol.QuoteAnswer, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.buyers[in.TaskID] = in.Buyer
	return memberkit.Price(protocol.USD(3, 0), 10, ""), nil
}

// TestRunnerQuotesWithTheBuyer: a pulled quote request reaches Quote with the buyer the exchange
// names in it, as a pushed quote call would; a request that names none (an older exchange) has the
// anonymous marker.
func TestRunnerQuotesWithTheBuyer(t *testing.T) {
	fx := &fakeExchange{}
	srv := httptest.NewServer(http.HandlerFunc(fx.handler))
	defer srv.Close()
	seller := &buyerSeller{buyers: map[string]protocol.BuyerRef{}}
	r, err := memberkit.NewRunner(memberkit.NewClient(srv.URL, secret), memberkit.Options{Roles: []string{"seller"}, Seller: seller, Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	rating := 4.5
	named := protocol.BuyerRef{ID: "mem_buyer", Name: "careful buyer",
		Reputation: &protocol.BuyerReputation{AsBuyer: protocol.ReputationSummary{Rating: &rating, Reviews: 2, CompletedJobs: 3}}}
	fx.set(func() {
		fx.requests = []axp.Task{{ID: "tsk_named", Type: "text-file", PaymentMethod: "crypto", Buyer: &named},
			{ID: "tsk_unnamed", Type: "text-file", PaymentMethod: "crypto"}}
	})
	if err := r.Poll(context.Background()); err != nil {
		t.Fatal(err)
	}
	seller.mu.Lock()
	defer seller.mu.Unlock()
	got := seller.buyers["tsk_named"]
	if got.ID != named.ID || got.Name != named.Name || got.Anonymous || got.Reputation == nil ||
		*got.Reputation.AsBuyer.Rating != rating || got.Reputation.AsBuyer.CompletedJobs != 3 {
		t.Fatalf("buyer of the named request %+v", got)
	}
	if got := seller.buyers["tsk_unnamed"]; got.ID != "anonymous" || !got.Anonymous || got.Reputation != nil {
		t.Fatalf("buyer of the unnamed request %+v", got)
	}
}

// TestRunnerAsksForPaymentAgain: an accepted job whose payment request failed (the seller was
// suspended) is asked for again on a later poll, and no more once the exchange took it.
func TestRunnerAsksForPaymentAgain(t *testing.T) {
	var mu sync.Mutex
	refuse, asked := true, 0
	fx := &fakeExchange{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasSuffix(r.URL.Path, "/request-payment") {
			mu.Lock()
			defer mu.Unlock()
			asked++
			w.Header().Set("Content-Type", "application/json")
			if refuse {
				w.WriteHeader(http.StatusForbidden)
				json.NewEncoder(w).Encode(protocol.ErrorBody{Error: protocol.Error{Code: protocol.CodeForbidden, Message: "this member is suspended"}})
				return
			}
			json.NewEncoder(w).Encode(axp.PaymentRequested{Message: "the operator approves the payout"})
			return
		}
		fx.handler(w, r)
	}))
	defer srv.Close()
	r, err := memberkit.NewRunner(memberkit.NewClient(srv.URL, secret), memberkit.Options{Roles: []string{"seller"}, Seller: &askingSeller{}, Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	fx.set(func() { fx.jobs = []axp.Task{{ID: "tsk_acc", Type: "text-file", Status: axp.TaskAccepted}} })
	count := func() int { mu.Lock(); defer mu.Unlock(); return asked }
	ctx := context.Background()
	r.Poll(ctx)
	if n := count(); n != 1 {
		t.Fatalf("payment requests after acceptance: %d", n)
	}
	r.Poll(ctx)
	if n := count(); n != 2 {
		t.Fatalf("a refused payment request was not asked again: %d", n)
	}
	mu.Lock()
	refuse = false // the operator reinstated the seller
	mu.Unlock()
	r.Poll(ctx)
	r.Poll(ctx)
	if n := count(); n != 3 {
		t.Fatalf("payment requests after reinstatement: %d, want one more", n)
	}
}

// TestRunnerSaysWhenSuspended: a suspended member's refused polls are logged once, in plain words.
func TestRunnerSaysWhenSuspended(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusForbidden)
		json.NewEncoder(w).Encode(protocol.ErrorBody{Error: protocol.Error{Code: protocol.CodeForbidden, Message: "this member is suspended",
			Hint: "send a message to the operator through the contact on /api/faq"}})
	}))
	defer srv.Close()
	logs := &lockedBuffer{}
	log := slog.New(slog.NewTextHandler(logs, nil))
	r, err := memberkit.NewRunner(memberkit.NewClient(srv.URL, secret), memberkit.Options{Roles: []string{"seller"}, Seller: &askingSeller{}, Logger: log})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	r.PollEvery = time.Millisecond
	r.OnVerify = func(*axp.Verification, error) {}
	done := make(chan struct{})
	go func() { r.Run(ctx); close(done) }()
	deadline := time.Now().Add(10 * time.Second)
	for !strings.Contains(logs.String(), "this member is suspended") && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	cancel()
	<-done
	if s := logs.String(); strings.Count(s, "this member is suspended") != 1 || !strings.Contains(s, "Write to the operator") {
		t.Fatalf("log:\n%s", s)
	}
}

// lockedBuffer is a log sink read while the runner writes to it.
type lockedBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}
