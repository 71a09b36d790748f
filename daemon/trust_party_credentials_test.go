package daemon_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/axp-exchange/axp"
	"github.com/axp-exchange/axp/client"
	"github.com/axp-exchange/axp/contract"
	"github.com/axp-exchange/axp/daemon"
	"github.com/axp-exchange/axp/protocol"
	"github.com/axp-exchange/axp/store"
)

// partySecret is a made-up GitHub token: the shape the credential detector finds.
const partySecret = "ghp_aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3zA5"

// TestTrustCredentialsWithheldFromPartyTexts: every text one party writes and the other reads
// loses its credentials like a deliverable does: the reader gets a marker naming the kind, never
// the secret, and the writer's answer names the kind (screening.credentials).
func TestTrustCredentialsWithheldFromPartyTexts(t *testing.T) {
	t.Parallel()
	e := newMarket(t, func(c *daemon.Config) { c.ContactWarnAt, c.ContactSuspendAt = 50, 100 })
	seller := e.pullSeller("text-file", map[string]any{"payout_address": payoutAddress})
	secret := func(what string) string { return what + ", use token " + partySecret + " to get in" }

	created, _ := createTask(t, e.anon, map[string]any{"type": "text-file", "description": secret("a poem"),
		"params": map[string]any{"prompt": secret("about the sea")}})
	buyer := e.anon.With(created.BuyerToken)
	id := created.ID
	raw, _ := json.Marshal(created)
	if strings.Contains(string(raw), partySecret) || created.Screening == nil || len(created.Screening.Credentials) == 0 {
		t.Errorf("the buyer's brief answer %s", raw)
	}
	read := func(c *client.Client, op string, in map[string]any) func() string {
		return func() string {
			resp, err := do(c, op, in)
			if err != nil {
				t.Fatalf("%s: %v", op, err)
			}
			return string(resp.Body)
		}
	}
	sellerReads := read(seller.c, "list_quote_requests", nil)
	buyerReads := read(buyer, "get_task", map[string]any{"id": id})
	if got := sellerReads(); strings.Contains(got, partySecret) || !strings.Contains(got, "[credential removed: github token]") {
		t.Errorf("the seller reads the brief as %s", got)
	}

	type step struct {
		name   string
		writer *client.Client
		op     string
		in     map[string]any
		reader func() string
		told   func() string // where the writer reads what was removed, when not in the answer
	}
	messagesOf := func(c *client.Client) func() string {
		return read(c, "list_messages", map[string]any{"id": id})
	}
	steps := []step{
		{"clarifying questions", seller.c, "submit_offer", map[string]any{"id": id, "clarify": true, "questions": []string{secret("which sea")}}, buyerReads, nil},
		{"clarification answers", buyer, "answer_clarifications", map[string]any{"id": id, "answers": map[string]string{"Which sea?": secret("the north sea")}}, sellerReads, nil},
		{"offer note", seller.c, "submit_offer", map[string]any{"id": id, "price_usd": 4, "eta_minutes": 30, "note": secret("my offer")}, buyerReads, nil},
		{"buyer's message", buyer, "post_message", map[string]any{"id": id, "seller_id": seller.MemberID, "body": secret("hello")}, messagesOf(seller.c), nil},
		{"seller's message", seller.c, "post_message", map[string]any{"id": id, "body": secret("hi")}, messagesOf(buyer), nil},
	}
	run := func(steps []step) {
		for _, s := range steps {
			resp, err := do(s.writer, s.op, s.in)
			if err != nil {
				t.Fatalf("%s: %v", s.name, err)
			}
			got := string(resp.Body)
			if s.told != nil {
				got = s.told()
			}
			if strings.Contains(got, partySecret) || !strings.Contains(got, "github_token") {
				t.Errorf("%s: the writer is not told, or gets the secret back: %s", s.name, got)
			}
			if got := s.reader(); strings.Contains(got, partySecret) {
				t.Errorf("%s: the other party reads the secret: %s", s.name, got)
			}
		}
	}
	run(steps)

	var task axp.Task
	task = *callOp(t, buyer, contract.GetTask, axp.TaskQuery{TaskRef: axp.TaskRef{ID: id}})
	e.fund(buyer, id, offerOf(t, task.Offers, seller.MemberID).OfferID)
	deliverText(t, seller.c, id, "the sea is wide\n")
	retrieve(t, buyer, id)
	sellerTask := read(seller.c, "get_task", map[string]any{"id": id})
	timelineOf := func(c *client.Client) func() string { return read(c, "get_timeline", map[string]any{"id": id}) }
	run([]step{
		{"dispute reason", buyer, "dispute_task", map[string]any{"id": id, "reason": secret("too short")}, sellerTask, nil},
		{"settlement note", seller.c, "propose_settlement", map[string]any{"id": id, "refund_pct": 20, "note": secret("a fifth back")}, timelineOf(buyer), nil},
	})
	var med axp.Mediation
	resp, err := doOp(buyer, contract.Escalate, axp.EscalateBody{TaskRef: axp.TaskRef{ID: id}, Reason: secret("no deal"), Statement: secret("half is missing")})
	if err != nil {
		t.Fatalf("escalate: %v", err)
	}
	if err := json.Unmarshal(resp.Body, &med); err != nil {
		t.Fatal(err)
	}
	if got := string(resp.Body); strings.Contains(got, partySecret) || !strings.Contains(got, "github_token") {
		t.Errorf("escalate: the writer is not told, or gets the secret back: %s", got)
	}
	sellerMediation := read(seller.c, "get_mediation", map[string]any{"id": med.ID})
	if got := sellerMediation(); strings.Contains(got, partySecret) {
		t.Errorf("the seller reads the buyer's statement as %s", got)
	}
	run([]step{{"statement", seller.c, "submit_statement", map[string]any{"id": med.ID, "statement": secret("all there"), "proposed_refund_pct": 0},
		read(buyer, "get_mediation", map[string]any{"id": med.ID}), nil}})

	// A decline's reason, on a task of its own.
	other, _ := createTask(t, e.anon, map[string]any{"type": "text-file", "params": map[string]any{"prompt": "a riddle"}})
	run([]step{{"decline reason", seller.c, "submit_offer", map[string]any{"id": other.ID, "decline": true, "reason_code": "other", "reason": secret("busy")},
		read(e.anon.With(other.BuyerToken), "get_task", map[string]any{"id": other.ID}), nil}})

	// A redo reason and a review, on a task that ends well.
	third, _ := createTask(t, e.anon, map[string]any{"type": "text-file", "params": map[string]any{"prompt": "a haiku"}})
	buyer3 := e.anon.With(third.BuyerToken)
	var offer axp.Offer
	call(t, seller.c, "submit_offer", map[string]any{"id": third.ID, "price_usd": 3, "eta_minutes": 30,
		"guarantee": map[string]any{"free_redo": 1}}, &offer)
	e.fund(buyer3, third.ID, offer.OfferID)
	deliverText(t, seller.c, third.ID, "old pond\n")
	retrieve(t, buyer3, third.ID)
	run([]step{{"redo reason", buyer3, "request_redo", map[string]any{"id": third.ID, "reason": secret("longer please")},
		read(seller.c, "get_timeline", map[string]any{"id": third.ID}), read(buyer3, "get_timeline", map[string]any{"id": third.ID})}})
	deliverText(t, seller.c, third.ID, "old pond\na frog jumps in\nthe sound of water\n")
	retrieve(t, buyer3, third.ID)
	callOp(t, buyer3, contract.AcceptTask, axp.AcceptInput{TaskRef: axp.TaskRef{ID: third.ID}})
	run([]step{{"review comment", buyer3, "submit_review", map[string]any{"id": third.ID, "rating": 4, "comment": secret("good")},
		read(seller.c, "get_reputation", map[string]any{"id": seller.MemberID}), nil}})

	// A cancel reason (the buyer reads what was removed on its timeline).
	fourth, _ := createTask(t, e.anon, map[string]any{"type": "text-file", "params": map[string]any{"prompt": "a limerick"}})
	callOp(t, seller.c, contract.SubmitOffer, axp.OfferInput{ID: fourth.ID, QuoteAnswer: protocol.QuoteAnswer{PriceUSD: ptr(axp.USD(3, 0)), ETAMinutes: ptr(30)}})
	run([]step{{"cancel reason", e.anon.With(fourth.BuyerToken), "cancel_task", map[string]any{"id": fourth.ID, "reason": secret("found it")},
		read(e.anon.With(fourth.BuyerToken), "get_timeline", map[string]any{"id": fourth.ID}),
		read(e.anon.With(fourth.BuyerToken), "get_timeline", map[string]any{"id": fourth.ID})}})

	// Nothing of the secret is stored anywhere (the removal log keeps fingerprints only).
	e.d.DB().View(func(tx *store.Tx) error {
		for _, taskID := range []string{id, other.ID, third.ID, fourth.ID} {
			rec, _ := tx.Task(taskID)
			raw, _ := json.Marshal(rec)
			if strings.Contains(string(raw), partySecret) {
				t.Errorf("the task record holds the secret: %s", raw)
			}
		}
		return nil
	})
}

// TestTrustRemovalsCountOncePerText: a text counts once toward a suspension however many contact
// details it lost, and so does a field of several texts written in one call (a seller's
// clarifying questions).
func TestTrustRemovalsCountOncePerText(t *testing.T) {
	t.Parallel()
	e := newMarket(t, func(c *daemon.Config) { c.ContactWarnAt, c.ContactSuspendAt = 50, 100 })
	seller := e.pullSeller("text-file", nil)
	created, _ := createTask(t, e.anon, map[string]any{"type": "text-file", "params": map[string]any{"prompt": "a riddle"}})
	counted := func() int {
		var m *axp.Member
		e.d.DB().View(func(tx *store.Tx) error {
			var err error
			m, err = tx.Member(seller.MemberID)
			return err
		})
		return len(m.ContactRemovals)
	}
	var offer axp.Offer
	offer = *callOp(t, seller.c, contract.SubmitOffer, axp.OfferInput{
		ID:          created.ID,
		QuoteAnswer: protocol.QuoteAnswer{PriceUSD: ptr(axp.USD(4, 0)), ETAMinutes: ptr(30), Note: "Write to ana@corp.com, call +1 212 555 0199 or see https://corp.com/ana"},
	}).Offer
	if offer.Screening == nil || len(offer.Screening.Removed) != 3 {
		t.Fatalf("offer screening %+v", offer.Screening)
	}
	if n := counted(); n != 1 {
		t.Errorf("one offer note counted %d removals, want 1", n)
	}
	callOp(t, seller.c, contract.SubmitOffer, axp.OfferInput{
		ID:          created.ID,
		QuoteAnswer: protocol.QuoteAnswer{Clarify: true, Questions: []string{"Mail bob@corp.com?", "Or call +1 212 555 0100?", "Or see https://corp.com/bob?"}},
	})
	if n := counted(); n != 2 {
		t.Errorf("the questions of one call counted %d removals in all, want 2", n)
	}
}

// The public texts members write lose their credentials too: a board thread and its replies as
// another member reads them, and a profile's description and skills in the public seller list.
func TestCredentialsWithheldFromBoardAndProfile(t *testing.T) {
	t.Parallel()
	e := newMarket(t)
	a := e.pullSeller("text-file", nil)
	b := e.pullSeller("text-file", nil)
	thread := boardPost(t, a.c, "Sharing access", "use token "+partySecret+" for the repo")
	boardReply(t, b.c, thread.ID, "thanks, mine is "+partySecret)
	raw, _ := json.Marshal(boardRead(t, b.c, thread.ID))
	if strings.Contains(string(raw), partySecret) || strings.Count(string(raw), "[credential removed: github token]") != 2 {
		t.Errorf("another member reads the thread as %s", raw)
	}
	call(t, a.c, "update_profile", map[string]any{"description": "my CI token is " + partySecret,
		"skills": []map[string]any{{"task_type": "text-file", "description": "clone with " + partySecret}}}, nil)
	var pub axp.SellerList
	pub = *callOp(t, e.anon, contract.ListSellers, axp.SellersQuery{})
	raw, _ = json.Marshal(pub)
	if strings.Contains(string(raw), partySecret) || !strings.Contains(string(raw), "[credential removed: github token]") {
		t.Errorf("the public seller list shows %s", raw)
	}
}
