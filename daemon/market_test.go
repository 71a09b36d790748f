package daemon_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/axp-exchange/axp"
	"github.com/axp-exchange/axp/client"
	"github.com/axp-exchange/axp/contract"
	"github.com/axp-exchange/axp/daemon"
	"github.com/axp-exchange/axp/daemon/kernel/kerneltest"
	"github.com/axp-exchange/axp/protocol"
)

// End-to-end tests of the marketplace: every call goes through the real client to a real exchange
// on 127.0.0.1, sellers of all three kinds included (instant, push with a real MCP server, pull).

// TestMarketThreeSellersAndCryptoLifecycle puts an instant, a push and a pull seller on one task,
// then runs two full crypto lifecycles (pull seller, push seller) to released and checks that the
// ledger balances to the micro-dollar.
func TestMarketThreeSellersAndCryptoLifecycle(t *testing.T) {
	eachStore(t, testMarketThreeSellersAndCryptoLifecycle)
}

func testMarketThreeSellersAndCryptoLifecycle(t *testing.T) {
	t.Parallel()
	e := newMarket(t)
	instant := e.instantSeller("text-file", "3.00", 10, nil, nil)
	push := e.newPushSeller("text-file", nil, map[string]time.Duration{"quote": 300 * time.Millisecond},
		map[string]any{"payout_address": payoutAddress})
	pull := e.pullSeller("text-file", nil)

	// --- three sellers on one task ---
	created, took := createTask(t, e.anon, map[string]any{"type": "text-file", "params": map[string]any{"prompt": "a haiku about the sea"}})
	if took < 300*time.Millisecond || took >= quoteWindow {
		t.Fatalf("creation took %v: it should wait for the push seller's answer (300 ms) and no longer", took)
	}
	if !strings.HasPrefix(created.BuyerToken, "bt_") || created.Status != axp.TaskOpen {
		t.Fatalf("created %+v", created)
	}
	if len(created.Offers) != 2 {
		t.Fatalf("want the instant and the push offer at creation, got %+v", created.Offers)
	}
	q := push.waitCall("quote", created.ID)
	if q["task_type"] != "text-file" || q["payment_method"] != "crypto" {
		t.Fatalf("quote input %v", q)
	}
	if b, _ := q["buyer"].(map[string]any); b["id"] != "anonymous" {
		t.Fatalf("quote buyer %v", q["buyer"])
	}
	buyer := e.anon.With(created.BuyerToken)

	// The pull seller finds the task among its quote requests and offers (twice: the second offer
	// replaces the first).
	var reqs axp.TaskList
	reqs = *callOp(t, pull.c, contract.ListQuoteRequests, contract.NoInput{})
	if !slices.ContainsFunc(reqs.Tasks, func(x axp.Task) bool { return x.ID == created.ID }) {
		t.Fatalf("the pull seller does not see the task: %+v", reqs.Tasks)
	}
	var first, pulled axp.Offer
	call(t, pull.c, "submit_offer", map[string]any{"id": created.ID, "price_usd": 2.9, "eta_minutes": 60}, &first)
	resp, err := doOp(pull.c, contract.SubmitOffer, axp.OfferInput{
		ID:          created.ID,
		QuoteAnswer: protocol.QuoteAnswer{PriceUSD: ptr(axp.USD(2, 75)), ETAMinutes: ptr(60), Note: "careful work", Availability: "high", Details: map[string]any{"lines": 3}},
	})
	if err != nil || resp.Status != http.StatusCreated {
		t.Fatalf("submit_offer: %v", err)
	}
	if err := json.Unmarshal(resp.Body, &pulled); err != nil {
		t.Fatal(err)
	}
	if pulled.OfferID == first.OfferID || pulled.PriceUSD != usd(t, "2.75") {
		t.Fatalf("replacing offer %+v (first %s)", pulled, first.OfferID)
	}

	task := getTask(t, buyer, created.ID)
	if len(task.Offers) != 3 {
		t.Fatalf("want 3 offers, got %+v", task.Offers)
	}
	for _, o := range task.Offers {
		fee := feeOf(o.PriceUSD)
		if o.Fee.BuyerTotal != o.PriceUSD || o.Fee.PlatformFee != fee || o.Fee.SellerNet != o.PriceUSD-fee || o.Fee.FeeBPS != 100 {
			t.Fatalf("fee breakdown of %s at %s: %+v (want fee %s)", o.Seller.ID, o.PriceUSD, o.Fee, fee)
		}
		if o.Instant != (o.Seller.ID == instant.MemberID) {
			t.Fatalf("instant flag of %+v", o)
		}
		if !slices.Contains(o.Badges, "new") {
			t.Fatalf("a seller with no history should be new: %+v", o.Badges)
		}
	}
	if o := offerOf(t, task.Offers, pull.MemberID); o.Note != "careful work" || o.Availability != "high" || o.Details["lines"] == nil {
		t.Fatalf("pull offer lost its fields: %+v", o)
	}
	if o := offerOf(t, task.Offers, push.MemberID); o.PriceUSD != usd(t, "4.50") || o.ETAMinutes != 30 || o.Reliability.MedianQuoteMillis == nil {
		t.Fatalf("push offer %+v", o)
	}
	// Value ranking (price 50%, ETA 30%, reliability 20%, all sellers new so reliability ties):
	// instant 3.00/10 min scores 0.5*0.14 + 0 = 0.07, pull 2.75/60 min 0 + 0.3 = 0.30, push 4.50/30
	// min 0.5 + 0.3*0.4 = 0.62.
	order := []string{task.Offers[0].Seller.ID, task.Offers[1].Seller.ID, task.Offers[2].Seller.ID}
	if !slices.Equal(order, []string{instant.MemberID, pull.MemberID, push.MemberID}) {
		t.Fatalf("ranking %v, want instant, pull, push", order)
	}
	if task.RecommendedOffer == nil || *task.RecommendedOffer != task.Offers[0].OfferID {
		t.Fatalf("recommended_offer %v", task.RecommendedOffer)
	}

	// Without a push seller to wait for, creation answers at once.
	_, took = createTask(t, e.anon, map[string]any{"type": "text-file", "params": map[string]any{"prompt": "two lines"},
		"invite_sellers": []string{instant.MemberID, pull.MemberID}})
	if took > quoteWindow/2 {
		t.Fatalf("creation with no push seller invited took %v", took)
	}
	_, took = createTask(t, e.anon, map[string]any{"type": "image", "params": map[string]any{"prompt": "a red kite"}})
	if took > quoteWindow/2 {
		t.Fatalf("creation with no seller at all took %v", took)
	}

	// --- crypto lifecycle with the pull seller ---
	if _, err := doOp(buyer, contract.ChooseOffer, axp.ChooseInput{TaskRef: axp.TaskRef{ID: created.ID}, OfferID: first.OfferID}); err == nil {
		t.Fatal("a replaced offer was chosen")
	} else {
		apiErr(t, err, axp.CodeInvalidInput, "offer_id")
	}
	var chosen axp.Task
	chosen = *callOp(t, buyer, contract.ChooseOffer, axp.ChooseInput{TaskRef: axp.TaskRef{ID: created.ID}, OfferID: pulled.OfferID})
	price := usd(t, "2.75")
	fee := feeOf(price)
	p := chosen.Payment
	if chosen.Status != axp.TaskAwaitingPayment || p == nil || p.AmountUSD != price || p.PayableUSD >= price ||
		p.PayableUSD < price-fee || p.DepositAddress != depositAddress || p.Currency != "USD" || p.Status != "unpaid" || p.PayBy == nil {
		t.Fatalf("after choose: %s %+v", chosen.Status, p)
	}
	if chosen.RecommendedOffer != nil || chosen.Seller == nil || chosen.Seller.ID != pull.MemberID {
		t.Fatalf("chosen task %+v", chosen)
	}
	payable := p.PayableUSD
	// Quotes are taken while the task is open only.
	_, err = doOp(pull.c, contract.SubmitOffer, axp.OfferInput{ID: created.ID, QuoteAnswer: protocol.QuoteAnswer{PriceUSD: ptr(axp.USD(2, 50)), ETAMinutes: ptr(60)}})
	apiErr(t, err, axp.CodeConflict, "-")

	tx := newTxHash()
	var paid map[string]any
	call(t, buyer, "pay_crypto", map[string]any{"id": created.ID, "tx_hash": "0x" + strings.ToUpper(tx[2:])}, &paid)
	if paid["status"] != axp.TaskAwaitingPayment {
		t.Fatalf("pay_crypto %v", paid)
	}
	if pm, _ := paid["payment"].(map[string]any); pm["status"] != "reported" {
		t.Fatalf("payment after report %v", paid["payment"])
	}
	item := e.approvalOf(created.ID, axp.ApprovePayment)
	if item.Status != axp.ApprovalPending || item.Amount != payable || item.TxHash != strings.ToLower(tx) || item.TaskID != created.ID || item.Reason == "" {
		t.Fatalf("payment item %+v", item)
	}
	// The operator's queue lists it among the open items.
	var open axp.ApprovalList
	open = *callOp(t, e.admin, contract.AdminApprovals, axp.ApprovalsQuery{})
	if !slices.ContainsFunc(open.Approvals, func(a axp.Approval) bool { return a.ID == item.ID }) {
		t.Fatalf("the payment item is not in the open queue")
	}
	e.approve(item.ID, false)
	if got := getTask(t, buyer, created.ID); got.Status != axp.TaskPaid || got.Payment.Status != "confirmed" || got.Payment.ReceivedUSD != payable {
		t.Fatalf("after confirmation: %s %+v", got.Status, got.Payment)
	}
	var jobs axp.TaskList
	jobs = *callOp(t, pull.c, contract.ListJobs, axp.JobsQuery{Status: "active"})
	if len(jobs.Tasks) != 1 || jobs.Tasks[0].ID != created.ID || jobs.Tasks[0].PayoutUSD == nil || *jobs.Tasks[0].PayoutUSD != price-fee {
		t.Fatalf("pull seller's jobs %+v", jobs.Tasks)
	}
	if len(push.received("do_task", created.ID)) != 0 {
		t.Fatal("do_task went to a seller that was not chosen")
	}

	// Delivery: links elsewhere are refused with a hint; only the chosen seller delivers.
	_, err = doOp(pull.c, contract.Deliver, axp.DeliverInput{ID: created.ID, URL: "https://files.example.com/result.txt"})
	if ae := apiErr(t, err, axp.CodeInvalidInput, "url"); ae.Hint == "" {
		t.Fatalf("no hint: %+v", ae)
	}
	_, err = doOp(instant.c, contract.Deliver, axp.DeliverInput{ID: created.ID, Content: "not mine"})
	apiErr(t, err, axp.CodeForbidden, "-")
	_, err = doOp(pull.c, contract.RequestPayment, axp.IDPath{ID: created.ID})
	apiErr(t, err, axp.CodeConflict, "-")
	content := "the sea is wide\nthe sea is deep\nthe sea is blue\n"
	delivered := deliverText(t, pull.c, created.ID, content)
	if delivered.Status != axp.TaskDelivered || delivered.Deliverable == nil || delivered.Deliverable.SHA256 != sha256Hex(content) || delivered.AutoReleaseAt == nil {
		t.Fatalf("delivered %+v", delivered)
	}

	// Accepting needs the deliverable retrieved first, and a matching sha256 when one is given.
	_, err = doOp(buyer, contract.AcceptTask, axp.AcceptInput{TaskRef: axp.TaskRef{ID: created.ID}})
	apiErr(t, err, axp.CodeConflict, "-")
	if body := retrieve(t, buyer, created.ID); string(body) != content {
		t.Fatalf("deliverable %q", body)
	}
	_, err = doOp(buyer, contract.AcceptTask, axp.AcceptInput{TaskRef: axp.TaskRef{ID: created.ID}, SHA256: sha256Hex("something else")})
	apiErr(t, err, axp.CodeConflict, "-")
	_, err = doOp(pull.c, contract.RequestPayment, axp.IDPath{ID: created.ID})
	apiErr(t, err, axp.CodeConflict, "-")
	var accepted axp.Task
	accepted = *callOp(t, buyer, contract.AcceptTask, axp.AcceptInput{TaskRef: axp.TaskRef{ID: created.ID}, SHA256: sha256Hex(content)})
	if accepted.Status != axp.TaskAccepted {
		t.Fatalf("after accept: %s", accepted.Status)
	}

	// Payment request: held without a payout address, pending once one is added.
	_, err = doOp(instant.c, contract.RequestPayment, axp.IDPath{ID: created.ID})
	apiErr(t, err, axp.CodeForbidden, "-")
	callOp(t, pull.c, contract.RequestPayment, axp.IDPath{ID: created.ID})
	payout := e.approvalOf(created.ID, axp.ApprovePayout)
	if payout.Status != axp.ApprovalHeld || payout.Amount != price-fee || payout.FeeUSD != fee-(price-payable) || payout.SellerNetUSD != price-fee || payout.SellerID != pull.MemberID {
		t.Fatalf("payout item %+v", payout)
	}
	_, err = doOp(e.admin, contract.AdminApprove, axp.ApproveBody{ID: payout.ID, TxHash: newTxHash()})
	apiErr(t, err, axp.CodeConflict, "-")
	callOp(t, pull.c, contract.UpdateProfile, axp.ProfileUpdate{PayoutAddress: given(payoutAddress)})
	payout = e.approvalOf(created.ID, axp.ApprovePayout)
	if payout.Status != axp.ApprovalPending || payout.PayoutAddress != payoutAddress {
		t.Fatalf("payout after adding an address %+v", payout)
	}
	_, err = doOp(e.admin, contract.AdminApprove, axp.ApproveBody{ID: payout.ID})
	apiErr(t, err, axp.CodeInvalidInput, "tx_hash")
	if a := e.approve(payout.ID, true); a.Status != axp.ApprovalApproved || a.TxHash == "" {
		t.Fatalf("approved payout %+v", a)
	}
	if got := getTask(t, buyer, created.ID); got.Status != axp.TaskReleased {
		t.Fatalf("after payout: %s", got.Status)
	}
	_, err = doOp(pull.c, contract.RequestPayment, axp.IDPath{ID: created.ID})
	apiErr(t, err, axp.CodeConflict, "-")

	st := e.stats()
	// The buyer paid the price less the tag; the platform's fee gave the tag up.
	tag := price - payable
	if st.Money.PaymentsIn != payable || st.Money.Fees != fee-tag || st.Money.PayoutsSent != price-fee || st.Money.RefundsSent != 0 ||
		st.Money.Held != 0 || st.Money.LedgerSum != 0 {
		t.Fatalf("money totals %+v (payable %s, fee %s)", st.Money, payable, fee)
	}
	bal := e.balances()
	if bal[axp.EscrowAccount(created.ID)] != 0 || bal[axp.AcctExcess] != 0 || bal[axp.AcctSellerPaid] != price-fee {
		t.Fatalf("balances %v", bal)
	}

	// --- crypto lifecycle with the push seller: do_task is pushed to its MCP server ---
	second, _ := createTask(t, e.anon, map[string]any{"type": "text-file", "params": map[string]any{"prompt": "a limerick"}})
	buyer2 := e.anon.With(second.BuyerToken)
	pushOffer := offerOf(t, second.Offers, push.MemberID)
	received2 := e.fund(buyer2, second.ID, pushOffer.OfferID)
	dt := push.waitCall("do_task", second.ID)
	if dt["deliver_url"] != e.srv.URL+"/api/members/me/jobs/"+second.ID+"/deliver" || dt["task_type"] != "text-file" || fmt.Sprint(dt["price_usd"]) != "4.5" {
		t.Fatalf("do_task input %v", dt)
	}
	waitStatus(t, buyer2, second.ID, axp.TaskInProgress)
	body := "There once was a seller of verse\n"
	var viaData axp.Task
	viaData = *callOp(t, push.c, contract.Deliver, axp.DeliverInput{ID: second.ID, URL: "data:text/plain;base64," + base64.StdEncoding.EncodeToString([]byte(body))})
	if viaData.Status != axp.TaskDelivered || viaData.Deliverable.SHA256 != sha256Hex(body) {
		t.Fatalf("delivered by data: URL %+v", viaData)
	}
	eventually(t, func() error {
		for _, u := range push.received("task_update", second.ID) {
			if d, _ := u["deliverable"].(map[string]any); u["status"] == axp.TaskDelivered && d["sha256"] == sha256Hex(body) {
				return nil
			}
		}
		return fmt.Errorf("no task_update delivered reached the seller: %v", push.received("task_update", second.ID))
	})
	if got := retrieve(t, buyer2, second.ID); string(got) != body {
		t.Fatalf("deliverable %q", got)
	}
	callOp(t, buyer2, contract.AcceptTask, axp.AcceptInput{TaskRef: axp.TaskRef{ID: second.ID}})
	callOp(t, push.c, contract.RequestPayment, axp.IDPath{ID: second.ID})
	payout2 := e.approvalOf(second.ID, axp.ApprovePayout)
	if payout2.Status != axp.ApprovalPending {
		t.Fatalf("a seller with a payout address should not be held: %+v", payout2)
	}
	e.approve(payout2.ID, true)
	waitStatus(t, buyer2, second.ID, axp.TaskReleased)

	price2 := usd(t, "4.50")
	st = e.stats()
	tag2 := price2 - received2
	if st.Money.PaymentsIn != payable+received2 || st.Money.Fees != fee-tag+feeOf(price2)-tag2 || st.Money.PayoutsSent != price-fee+price2-feeOf(price2) ||
		st.Money.Held != 0 || st.Money.LedgerSum != 0 || st.Tasks[axp.TaskReleased] != 2 {
		t.Fatalf("money totals %+v, tasks %v", st.Money, st.Tasks)
	}
	bal = e.balances()
	if bal[axp.EscrowAccount(second.ID)] != 0 || bal[axp.AcctExcess] != 0 {
		t.Fatalf("balances %v", bal)
	}
	if n := push.refusedCount(); n != 0 {
		t.Fatalf("the push seller refused %d calls as badly signed", n)
	}
	// The seller's check is real: a call signed with another key is refused.
	forged := []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"do_task","arguments":{}}}`)
	req, _ := http.NewRequest(http.MethodPost, push.srv.URL+"/mcp", bytes.NewReader(forged))
	protocol.SignRequest(req.Header, push.MemberID, []byte("pk_not_the_key"), "", forged, time.Now())
	if res, err := http.DefaultClient.Do(req); err != nil || res.StatusCode != http.StatusUnauthorized || push.refusedCount() != 1 {
		t.Fatalf("a forged call was not refused: %v %v", res, err)
	} else {
		res.Body.Close()
	}
}

// TestMarketFreeJob runs a free job: sellers that accept free jobs quote 0, choosing starts the job
// at once, and acceptance ends it released with no payout item and no ledger entry.
func TestMarketFreeJob(t *testing.T) {
	t.Parallel()
	e := newMarket(t)
	free := map[string]any{"payment_methods": []string{"crypto", "free"}}
	instant := e.instantSeller("text-file", "1.00", 5, nil, map[string]any{"payment_methods": []string{"crypto", "free"}})
	pull := e.pullSeller("text-file", free)
	paidOnly := e.pullSeller("text-file", nil)

	sink := newCallbackSink(t)
	created, _ := createTask(t, e.anon, map[string]any{"type": "text-file", "payment_method": "free", "params": map[string]any{"prompt": "a free haiku"},
		"callback_url": sink.srv.URL + "/hook"})
	if created.PaymentMethod != axp.PayFree || len(created.Offers) != 1 || created.Offers[0].PriceUSD != 0 || created.Offers[0].Seller.ID != instant.MemberID {
		t.Fatalf("free task %+v", created)
	}
	buyer := e.anon.With(created.BuyerToken)

	// Sellers who do not accept free jobs neither see nor quote them.
	var reqs axp.TaskList
	reqs = *callOp(t, paidOnly.c, contract.ListQuoteRequests, contract.NoInput{})
	if slices.ContainsFunc(reqs.Tasks, func(x axp.Task) bool { return x.ID == created.ID }) {
		t.Fatal("a seller without free in its payment methods sees the free task")
	}
	_, err := doOp(paidOnly.c, contract.SubmitOffer, axp.OfferInput{ID: created.ID, QuoteAnswer: protocol.QuoteAnswer{PriceUSD: ptr(axp.USD(0, 0)), ETAMinutes: ptr(5)}})
	apiErr(t, err, axp.CodeForbidden, "-")
	// A price above 0 on a free job is refused, 0 is taken.
	_, err = doOp(pull.c, contract.SubmitOffer, axp.OfferInput{ID: created.ID, QuoteAnswer: protocol.QuoteAnswer{PriceUSD: ptr(axp.USD(1, 0)), ETAMinutes: ptr(5)}})
	apiErr(t, err, axp.CodeInvalidInput, "price_usd")
	var offer axp.Offer
	offer = *callOp(t, pull.c, contract.SubmitOffer, axp.OfferInput{ID: created.ID, QuoteAnswer: protocol.QuoteAnswer{PriceUSD: ptr(axp.USD(0, 0)), ETAMinutes: ptr(5)}}).Offer
	if offer.PriceUSD != 0 || offer.Fee.PlatformFee != 0 || offer.Fee.SellerNet != 0 {
		t.Fatalf("free offer %+v", offer)
	}
	// 0 on a paid job is refused.
	paidTask, _ := createTask(t, e.anon, map[string]any{"type": "text-file", "params": map[string]any{"prompt": "a paid haiku"}})
	_, err = doOp(pull.c, contract.SubmitOffer, axp.OfferInput{ID: paidTask.ID, QuoteAnswer: protocol.QuoteAnswer{PriceUSD: ptr(axp.USD(0, 0)), ETAMinutes: ptr(5)}})
	apiErr(t, err, axp.CodeInvalidInput, "price_usd")

	var chosen axp.Task
	chosen = *callOp(t, buyer, contract.ChooseOffer, axp.ChooseInput{TaskRef: axp.TaskRef{ID: created.ID}, OfferID: offer.OfferID})
	if chosen.Status != axp.TaskPaid || chosen.Payment != nil {
		t.Fatalf("a chosen free job starts at once: %s %+v", chosen.Status, chosen.Payment)
	}
	_, err = doOp(buyer, contract.PayCryptoOp, axp.PayCryptoInput{TaskRef: axp.TaskRef{ID: created.ID}, TxHash: newTxHash()})
	apiErr(t, err, axp.CodeConflict, "-")
	var jobs axp.TaskList
	jobs = *callOp(t, pull.c, contract.ListJobs, axp.JobsQuery{})
	if len(jobs.Tasks) != 1 || jobs.Tasks[0].ID != created.ID || jobs.Tasks[0].PayoutUSD == nil || *jobs.Tasks[0].PayoutUSD != 0 {
		t.Fatalf("jobs %+v", jobs.Tasks)
	}
	deliverText(t, pull.c, created.ID, "free as a bird\n")
	retrieve(t, buyer, created.ID)
	var done axp.Task
	done = *callOp(t, buyer, contract.AcceptTask, axp.AcceptInput{TaskRef: axp.TaskRef{ID: created.ID}})
	if done.Status != axp.TaskReleased {
		t.Fatalf("an accepted free job ends released, got %s", done.Status)
	}
	// The buyer heard of each status passed through, accepted included, in the order they
	// happened (they are sent back to back: the pusher keeps one destination's posts in order).
	for _, status := range []string{axp.TaskAccepted, axp.TaskReleased} {
		sink.waitFor("task_update", func(doc map[string]any) bool {
			u, _ := doc["task_update"].(map[string]any)
			return u["status"] == status
		})
	}
	if got := sink.statuses("task_update"); !slices.Equal(got, []string{axp.TaskPaid, axp.TaskDelivered, axp.TaskAccepted, axp.TaskReleased}) {
		t.Fatalf("the buyer heard the statuses in the order %v", got)
	}
	_, err = doOp(pull.c, contract.RequestPayment, axp.IDPath{ID: created.ID})
	apiErr(t, err, axp.CodeConflict, "-")
	if items := e.approvals(created.ID); len(items) != 0 {
		t.Fatalf("a free job made queue items: %+v", items)
	}
	if entries := e.entriesOf(created.ID); len(entries) != 0 {
		t.Fatalf("a free job made ledger entries: %+v", entries)
	}
	if st := e.stats(); st.Money.Entries != 0 || st.Money.LedgerSum != 0 {
		t.Fatalf("money %+v", st.Money)
	}
	var all axp.TaskList
	all = *callOp(t, pull.c, contract.ListJobs, axp.JobsQuery{Status: "all"})
	jobs = *callOp(t, pull.c, contract.ListJobs, axp.JobsQuery{})
	if len(all.Tasks) != 1 || len(jobs.Tasks) != 0 {
		t.Fatalf("released job: all %d, active %d", len(all.Tasks), len(jobs.Tasks))
	}
}

// TestMarketDisputeRefundAndRedo: failed checks on an offer guaranteeing a refund make the dispute
// decide a refund at once (still approved by the operator); redos are limited to free_redo.
func TestMarketDisputeRefundAndRedo(t *testing.T) { eachStore(t, testMarketDisputeRefundAndRedo) }

func testMarketDisputeRefundAndRedo(t *testing.T) {
	t.Parallel()
	e := newMarket(t)
	pull := e.pullSeller("text-file", map[string]any{"payout_address": payoutAddress})

	created, _ := createTask(t, e.anon, map[string]any{"type": "text-file", "params": map[string]any{"prompt": "a report"},
		"acceptance_checks": map[string]any{"must_contain": "DONE", "max_bytes": 1000}})
	buyer := e.anon.With(created.BuyerToken)
	var offer axp.Offer
	call(t, pull.c, "submit_offer", map[string]any{"id": created.ID, "price_usd": 7.25, "eta_minutes": 30,
		"guarantee": map[string]any{"free_redo": 1, "refund_if_fails_checks": true}}, &offer)
	if !offer.Guarantee.RefundIfFailsChecks || offer.Guarantee.FreeRedo != 1 {
		t.Fatalf("offer guarantee %+v", offer.Guarantee)
	}
	received := e.fund(buyer, created.ID, offer.OfferID)
	price := usd(t, "7.25")

	delivered := deliverText(t, pull.c, created.ID, "not finished\n")
	if delivered.ChecksPassed == nil || *delivered.ChecksPassed || len(delivered.Checks) == 0 {
		t.Fatalf("the seller should see the failed checks: %+v %+v", delivered.ChecksPassed, delivered.Checks)
	}
	if got := getTask(t, buyer, created.ID); got.ChecksPassed == nil || *got.ChecksPassed || got.RedosLeft != 1 {
		t.Fatalf("the buyer should see the failed checks: %+v, redos_left %d", got.ChecksPassed, got.RedosLeft)
	}

	// One free redo, then no more.
	var redone axp.Task
	redone = *callOp(t, buyer, contract.RequestRedo, axp.RedoBody{TaskRef: axp.TaskRef{ID: created.ID}, Reason: "it says not finished"})
	if redone.Status != axp.TaskInProgress || redone.RedosLeft != 0 || redone.AutoReleaseAt != nil {
		t.Fatalf("after redo %s, redos_left %d, auto_release_at %v", redone.Status, redone.RedosLeft, redone.AutoReleaseAt)
	}
	deliverText(t, pull.c, created.ID, "still not finished\n")
	_, err := doOp(buyer, contract.RequestRedo, axp.RedoBody{TaskRef: axp.TaskRef{ID: created.ID}, Reason: "again"})
	apiErr(t, err, axp.CodeConflict, "-")

	// A dispute needs a reason (POST and GET forms).
	_, err = do(buyer, "dispute_task", map[string]any{"id": created.ID})
	apiErr(t, err, axp.CodeInvalidInput, "reason")
	_, err = doOp(e.anon, contract.DisputeTask, axp.DisputeInput{TaskRef: axp.TaskRef{ID: created.ID, Token: created.BuyerToken}, Reason: "   "}, client.Options{GET: true})
	apiErr(t, err, axp.CodeInvalidInput, "reason")
	var disputed axp.Task
	disputed = *callOp(t, buyer, contract.DisputeTask, axp.DisputeInput{TaskRef: axp.TaskRef{ID: created.ID}, Reason: "the checks failed twice"})
	if disputed.Status != axp.TaskDisputed {
		t.Fatalf("after dispute %s", disputed.Status)
	}
	refund := e.approvalOf(created.ID, axp.ApproveRefund)
	if refund.Status != axp.ApprovalPending || refund.Amount != received || refund.RefundUSD != received || refund.PriceRefundUSD != price ||
		len(refund.Checks) == 0 {
		t.Fatalf("refund item %+v (received %s)", refund, received)
	}
	if got := getTask(t, buyer, created.ID); got.Status != axp.TaskDisputed {
		t.Fatalf("a refund waits for the operator; task is %s", got.Status)
	}
	_, err = doOp(e.admin, contract.AdminApprove, axp.ApproveBody{ID: refund.ID})
	apiErr(t, err, axp.CodeInvalidInput, "tx_hash")
	e.approve(refund.ID, true)
	if got := getTask(t, buyer, created.ID); got.Status != axp.TaskRefunded {
		t.Fatalf("after the refund %s", got.Status)
	}
	bal := e.balances()
	if bal[axp.EscrowAccount(created.ID)] != 0 || bal[axp.AcctBuyerRefund] != received || bal[axp.AcctFees] != 0 || bal[axp.AcctSellerPaid] != 0 {
		t.Fatalf("balances after the refund %v (received %s)", bal, received)
	}
	if st := e.stats(); st.Money.RefundsSent != received || st.Money.PaymentsIn != received || st.Money.LedgerSum != 0 || st.Money.Held != 0 {
		t.Fatalf("money %+v", st.Money)
	}
	_, err = doOp(pull.c, contract.RequestPayment, axp.IDPath{ID: created.ID})
	apiErr(t, err, axp.CodeConflict, "-")

	// A dispute of a delivery that passed its checks (or without the guarantee) decides nothing.
	plain, _ := createTask(t, e.anon, map[string]any{"type": "text-file", "params": map[string]any{"prompt": "another report"},
		"acceptance_checks": map[string]any{"must_contain": "DONE"}})
	buyer2 := e.anon.With(plain.BuyerToken)
	call(t, pull.c, "submit_offer", map[string]any{"id": plain.ID, "price_usd": 5, "eta_minutes": 30, "guarantee": map[string]any{"refund_if_fails_checks": true}}, &offer)
	e.fund(buyer2, plain.ID, offer.OfferID)
	deliverText(t, pull.c, plain.ID, "DONE\n")
	_, err = doOp(buyer2, contract.RequestRedo, axp.RedoBody{TaskRef: axp.TaskRef{ID: plain.ID}, Reason: "no redo promised"})
	apiErr(t, err, axp.CodeConflict, "-")
	callOp(t, buyer2, contract.DisputeTask, axp.DisputeInput{TaskRef: axp.TaskRef{ID: plain.ID}, Reason: "I changed my mind"})
	for _, a := range e.approvals(plain.ID) {
		if a.Kind != axp.ApprovePayment {
			t.Fatalf("a dispute with passed checks made a %s item", a.Kind)
		}
	}
	if bal := e.balances(); bal[axp.EscrowAccount(plain.ID)] == 0 {
		t.Fatal("the disputed task's funds should stay in escrow")
	}
}

// TestMarketAuth checks who may do what: buyer tokens (Bearer and ?token=), buyer members, the
// chosen seller and everyone else.
func TestMarketAuth(t *testing.T) {
	t.Parallel()
	e := newMarket(t)
	seller := e.pullSeller("text-file", map[string]any{"payout_address": payoutAddress})
	other := e.pullSeller("text-file", nil)
	stranger := e.pullSeller("video", nil)

	created, _ := createTask(t, e.anon, map[string]any{"type": "text-file", "params": map[string]any{"prompt": "auth poem"}})
	id := created.ID
	var offer, otherOffer axp.Offer
	offer = *callOp(t, seller.c, contract.SubmitOffer, axp.OfferInput{ID: id, QuoteAnswer: protocol.QuoteAnswer{PriceUSD: ptr(axp.USD(2, 0)), ETAMinutes: ptr(10)}}).Offer
	otherOffer = *callOp(t, other.c, contract.SubmitOffer, axp.OfferInput{ID: id, QuoteAnswer: protocol.QuoteAnswer{PriceUSD: ptr(axp.USD(3, 0)), ETAMinutes: ptr(10)}}).Offer

	wrong := e.anon.With("bt_" + strings.Repeat("0", 48))
	// get_task: no credentials, a wrong token (Bearer or query): 401; a member who is neither the
	// buyer nor a seller who may quote: 403.
	_, err := doOp(e.anon, contract.GetTask, axp.TaskQuery{TaskRef: axp.TaskRef{ID: id}})
	apiErr(t, err, axp.CodeUnauthorized, "-")
	_, err = doOp(wrong, contract.GetTask, axp.TaskQuery{TaskRef: axp.TaskRef{ID: id}})
	apiErr(t, err, axp.CodeUnauthorized, "-")
	_, err = doOp(e.anon, contract.GetTask, axp.TaskQuery{TaskRef: axp.TaskRef{ID: id, Token: "bt_nope"}})
	apiErr(t, err, axp.CodeUnauthorized, "-")
	_, err = doOp(stranger.c, contract.GetTask, axp.TaskQuery{TaskRef: axp.TaskRef{ID: id}})
	apiErr(t, err, axp.CodeForbidden, "-")
	var viaQuery axp.Task
	viaQuery = *callOp(t, e.anon, contract.GetTask, axp.TaskQuery{TaskRef: axp.TaskRef{ID: id, Token: created.BuyerToken}})
	if viaQuery.ID != id || len(viaQuery.Offers) != 2 {
		t.Fatalf("task by ?token= %+v", viaQuery)
	}
	// A seller who may quote sees the task, but not the other offers.
	if sv := getTask(t, other.c, id); len(sv.Offers) != 0 || sv.RecommendedOffer != nil {
		t.Fatalf("a seller saw the offers: %+v", sv.Offers)
	}

	// Buyer steps with a wrong token, or none, are 401 (POST and GET forms).
	_, err = doOp(wrong, contract.ChooseOffer, axp.ChooseInput{TaskRef: axp.TaskRef{ID: id}, OfferID: offer.OfferID})
	apiErr(t, err, axp.CodeUnauthorized, "-")
	_, err = doOp(e.anon, contract.ChooseOffer, axp.ChooseInput{TaskRef: axp.TaskRef{ID: id}, OfferID: offer.OfferID})
	apiErr(t, err, axp.CodeUnauthorized, "-")
	_, err = doOp(e.anon, contract.ChooseOffer, axp.ChooseInput{TaskRef: axp.TaskRef{ID: id, Token: "bt_nope"}, OfferID: offer.OfferID}, client.Options{GET: true})
	apiErr(t, err, axp.CodeUnauthorized, "-")
	_, err = doOp(other.c, contract.ChooseOffer, axp.ChooseInput{TaskRef: axp.TaskRef{ID: id}, OfferID: otherOffer.OfferID})
	apiErr(t, err, axp.CodeForbidden, "-")

	// The GET form of choose with ?token=.
	var chosen axp.Task
	chosen = *callOp(t, e.anon, contract.ChooseOffer, axp.ChooseInput{TaskRef: axp.TaskRef{ID: id, Token: created.BuyerToken}, OfferID: offer.OfferID}, client.Options{GET: true})
	if chosen.Status != axp.TaskAwaitingPayment || chosen.Seller.ID != seller.MemberID {
		t.Fatalf("GET choose %s %+v", chosen.Status, chosen.Seller)
	}
	_, err = doOp(wrong, contract.PayCryptoOp, axp.PayCryptoInput{TaskRef: axp.TaskRef{ID: id}, TxHash: newTxHash()})
	apiErr(t, err, axp.CodeUnauthorized, "-")
	buyer := e.anon.With(created.BuyerToken)
	callOp(t, buyer, contract.PayCryptoOp, axp.PayCryptoInput{TaskRef: axp.TaskRef{ID: id}, TxHash: newTxHash()})
	e.approve(e.approvalOf(id, axp.ApprovePayment).ID, false)

	// Only the chosen seller delivers and requests payment; the other seller may no longer read
	// the task.
	_, err = doOp(other.c, contract.Deliver, axp.DeliverInput{ID: id, Content: "me too"})
	apiErr(t, err, axp.CodeForbidden, "-")
	_, err = doOp(other.c, contract.GetTask, axp.TaskQuery{TaskRef: axp.TaskRef{ID: id}})
	apiErr(t, err, axp.CodeForbidden, "-")
	_, err = doOp(e.anon, contract.Deliver, axp.DeliverInput{ID: id, Content: "anonymous"})
	apiErr(t, err, axp.CodeUnauthorized, "-")
	deliverText(t, seller.c, id, "auth poem\n")
	if sv := getTask(t, seller.c, id); sv.PayoutUSD == nil || sv.Status != axp.TaskDelivered {
		t.Fatalf("the chosen seller's view %+v", sv)
	}

	// Deliverable and timeline: the buyer (token in the query or Bearer) and the chosen seller.
	_, err = doOp(wrong, contract.GetDeliverable, axp.TaskRef{ID: id})
	apiErr(t, err, axp.CodeUnauthorized, "-")
	_, err = doOp(e.anon, contract.GetDeliverable, axp.TaskRef{ID: id, Token: "bt_nope"})
	apiErr(t, err, axp.CodeUnauthorized, "-")
	_, err = doOp(other.c, contract.GetDeliverable, axp.TaskRef{ID: id})
	apiErr(t, err, axp.CodeForbidden, "-")
	// The seller reading its own delivery does not count as the buyer's retrieval.
	if _, err := doOp(seller.c, contract.GetDeliverable, axp.TaskRef{ID: id}); err != nil {
		t.Fatalf("the seller reads its delivery: %v", err)
	}
	_, err = doOp(e.anon, contract.AcceptTask, axp.AcceptInput{TaskRef: axp.TaskRef{ID: id, Token: created.BuyerToken}}, client.Options{GET: true})
	apiErr(t, err, axp.CodeConflict, "-")
	resp, err := doOp(e.anon, contract.GetDeliverable, axp.TaskRef{ID: id, Token: created.BuyerToken})
	if err != nil || string(resp.Body) != "auth poem\n" || resp.Header.Get("X-Content-SHA256") != sha256Hex("auth poem\n") {
		t.Fatalf("deliverable by ?token=: %v", err)
	}
	kinds, _ := timelineKinds(t, seller.c, id)
	if !slices.Contains(kinds, "retrieve") || !slices.Contains(kinds, "deliver") {
		t.Fatalf("timeline %v", kinds)
	}
	_, err = doOp(other.c, contract.GetTimeline, axp.TaskRef{ID: id})
	apiErr(t, err, axp.CodeForbidden, "-")
	_, err = doOp(wrong, contract.GetTimeline, axp.TaskRef{ID: id})
	apiErr(t, err, axp.CodeUnauthorized, "-")

	_, err = doOp(seller.c, contract.RequestPayment, axp.IDPath{ID: id})
	apiErr(t, err, axp.CodeConflict, "-")
	_, err = doOp(wrong, contract.AcceptTask, axp.AcceptInput{TaskRef: axp.TaskRef{ID: id}})
	apiErr(t, err, axp.CodeUnauthorized, "-")
	// The GET form of accept with ?token=.
	var accepted axp.Task
	accepted = *callOp(t, e.anon, contract.AcceptTask, axp.AcceptInput{TaskRef: axp.TaskRef{ID: id, Token: created.BuyerToken}}, client.Options{GET: true})
	if accepted.Status != axp.TaskAccepted {
		t.Fatalf("GET accept: %s", accepted.Status)
	}
	_, err = doOp(other.c, contract.RequestPayment, axp.IDPath{ID: id})
	apiErr(t, err, axp.CodeForbidden, "-")
	_, err = doOp(e.anon, contract.RequestPayment, axp.IDPath{ID: id})
	apiErr(t, err, axp.CodeUnauthorized, "-")
	callOp(t, seller.c, contract.RequestPayment, axp.IDPath{ID: id})

	// A buyer member posts with its member secret and sees its tasks; another member may not
	// act for it.
	bm := e.register(map[string]any{"roles": []string{"buyer"}})
	bm2 := e.register(map[string]any{"roles": []string{"buyer"}})
	mine, _ := createTask(t, bm.c, map[string]any{"type": "text-file", "params": map[string]any{"prompt": "a member's poem"}})
	if mine.AlsoSell == nil {
		t.Fatal("a buyer member who does not sell should get also_sell")
	}
	var list axp.TaskList
	list = *callOp(t, bm.c, contract.ListMyTasks, axp.MyTasksQuery{})
	if len(list.Tasks) != 1 || list.Tasks[0].ID != mine.ID {
		t.Fatalf("my tasks %+v", list.Tasks)
	}
	list = *callOp(t, bm2.c, contract.ListMyTasks, axp.MyTasksQuery{})
	if len(list.Tasks) != 0 {
		t.Fatalf("another member's tasks %+v", list.Tasks)
	}
	offer = *callOp(t, seller.c, contract.SubmitOffer, axp.OfferInput{ID: mine.ID, QuoteAnswer: protocol.QuoteAnswer{PriceUSD: ptr(axp.USD(2, 0)), ETAMinutes: ptr(10)}}).Offer
	_, err = doOp(bm2.c, contract.GetTask, axp.TaskQuery{TaskRef: axp.TaskRef{ID: mine.ID}})
	apiErr(t, err, axp.CodeForbidden, "-")
	_, err = doOp(bm2.c, contract.ChooseOffer, axp.ChooseInput{TaskRef: axp.TaskRef{ID: mine.ID}, OfferID: offer.OfferID})
	apiErr(t, err, axp.CodeForbidden, "-")
	chosen = *callOp(t, bm.c, contract.ChooseOffer, axp.ChooseInput{TaskRef: axp.TaskRef{ID: mine.ID}, OfferID: offer.OfferID})
	if chosen.Status != axp.TaskAwaitingPayment {
		t.Fatalf("member choose: %s", chosen.Status)
	}
	// The buyer token of the member's task works too.
	if got := getTask(t, e.anon.With(mine.BuyerToken), mine.ID); got.Status != axp.TaskAwaitingPayment {
		t.Fatalf("member task by token: %s", got.Status)
	}

	// The GET form of dispute with ?token=.
	d, _ := createTask(t, e.anon, map[string]any{"type": "text-file", "params": map[string]any{"prompt": "to dispute"}})
	offer = *callOp(t, seller.c, contract.SubmitOffer, axp.OfferInput{ID: d.ID, QuoteAnswer: protocol.QuoteAnswer{PriceUSD: ptr(axp.USD(2, 0)), ETAMinutes: ptr(10)}}).Offer
	e.fund(e.anon.With(d.BuyerToken), d.ID, offer.OfferID)
	deliverText(t, seller.c, d.ID, "meh\n")
	_, err = doOp(wrong, contract.DisputeTask, axp.DisputeInput{TaskRef: axp.TaskRef{ID: d.ID}, Reason: "bad"})
	apiErr(t, err, axp.CodeUnauthorized, "-")
	var disputed axp.Task
	disputed = *callOp(t, e.anon, contract.DisputeTask, axp.DisputeInput{TaskRef: axp.TaskRef{ID: d.ID, Token: d.BuyerToken}, Reason: "not what I asked for"}, client.Options{GET: true})
	if disputed.Status != axp.TaskDisputed {
		t.Fatalf("GET dispute: %s", disputed.Status)
	}
}

// TestMarketConcurrentChooseAndAccept: of 50 concurrent chooses (of different offers) and of 50
// concurrent accepts on one task, exactly one wins and the rest are 409.
func TestMarketConcurrentChooseAndAccept(t *testing.T) {
	eachStore(t, testMarketConcurrentChooseAndAccept)
}

func testMarketConcurrentChooseAndAccept(t *testing.T) {
	t.Parallel()
	e := newMarket(t)
	const n = 50
	var sellers []*member
	for i := range n {
		sellers = append(sellers, e.instantSeller("text-file", fmt.Sprintf("%d.%02d", 1+i/10, i%100), 10+i, nil, map[string]any{"payout_address": payoutAddress}))
	}
	created, _ := createTask(t, e.anon, map[string]any{"type": "text-file", "params": map[string]any{"prompt": "race"}})
	if len(created.Offers) != n {
		t.Fatalf("want %d instant offers, got %d", n, len(created.Offers))
	}
	buyer := e.anon.With(created.BuyerToken)
	wins, conflicts := race(t, n, func(i int) error {
		_, err := doOp(buyer, contract.ChooseOffer, axp.ChooseInput{TaskRef: axp.TaskRef{ID: created.ID}, OfferID: created.Offers[i].OfferID})
		return err
	})
	if len(wins) != 1 || conflicts != n-1 {
		t.Fatalf("choose: %d wins, %d conflicts", len(wins), conflicts)
	}
	task := getTask(t, buyer, created.ID)
	if task.Status != axp.TaskAwaitingPayment || task.ChosenOfferID != created.Offers[wins[0]].OfferID {
		t.Fatalf("after the race: %s, chose %s, winner %s", task.Status, task.ChosenOfferID, created.Offers[wins[0]].OfferID)
	}

	var winner *member
	for _, s := range sellers {
		if s.MemberID == task.Seller.ID {
			winner = s
		}
	}
	callOp(t, buyer, contract.PayCryptoOp, axp.PayCryptoInput{TaskRef: axp.TaskRef{ID: created.ID}, TxHash: newTxHash()})
	e.approve(e.approvalOf(created.ID, axp.ApprovePayment).ID, false)
	deliverText(t, winner.c, created.ID, "won\n")
	retrieve(t, buyer, created.ID)
	wins, conflicts = race(t, n, func(i int) error {
		_, err := doOp(buyer, contract.AcceptTask, axp.AcceptInput{TaskRef: axp.TaskRef{ID: created.ID}})
		return err
	})
	if len(wins) != 1 || conflicts != n-1 {
		t.Fatalf("accept: %d wins, %d conflicts", len(wins), conflicts)
	}
	kinds, _ := timelineKinds(t, buyer, created.ID)
	if c := count(kinds, "accept"); c != 1 {
		t.Fatalf("%d accept events on the timeline", c)
	}
	// And the seller's payment request is made once however often it is sent.
	race(t, 10, func(int) error {
		_, err := doOp(winner.c, contract.RequestPayment, axp.IDPath{ID: created.ID})
		return err
	})
	e.approvalOf(created.ID, axp.ApprovePayout)
}

// race runs fn(i) for i < n at once and returns the indexes that succeeded and the number of
// conflicts; any other error fails the test.
func race(t *testing.T, n int, fn func(i int) error) (wins []int, conflicts int) {
	t.Helper()
	errs := make([]error, n)
	start := make(chan struct{})
	done := make(chan int, n)
	for i := range n {
		go func() {
			<-start
			errs[i] = fn(i)
			done <- i
		}()
	}
	close(start)
	for range n {
		<-done
	}
	for i, err := range errs {
		switch {
		case err == nil:
			wins = append(wins, i)
		case client.IsCode(err, axp.CodeConflict):
			conflicts++
		default:
			t.Fatalf("call %d: %v", i, err)
		}
	}
	return wins, conflicts
}

func count(l []string, s string) int {
	n := 0
	for _, x := range l {
		if x == s {
			n++
		}
	}
	return n
}

// TestMarketIdempotentRetries: choose and pay/crypto retried with the same Idempotency-Key replay
// the first answer and change nothing more; one transaction funds one task.
func TestMarketIdempotentRetries(t *testing.T) { eachStore(t, testMarketIdempotentRetries) }

func testMarketIdempotentRetries(t *testing.T) {
	t.Parallel()
	e := newMarket(t)
	a := e.instantSeller("text-file", "2.00", 10, nil, nil)
	b := e.instantSeller("text-file", "2.50", 10, nil, nil)
	created, _ := createTask(t, e.anon, map[string]any{"type": "text-file", "params": map[string]any{"prompt": "retry me"}})
	buyer := e.anon.With(created.BuyerToken)
	offerA, offerB := offerOf(t, created.Offers, a.MemberID), offerOf(t, created.Offers, b.MemberID)

	in := map[string]any{"id": created.ID, "offer_id": offerA.OfferID}
	r1, err := do(buyer, "choose_offer", in, client.Options{IdempotencyKey: "choose-1"})
	if err != nil {
		t.Fatal(err)
	}
	r2, err := do(buyer, "choose_offer", in, client.Options{IdempotencyKey: "choose-1"})
	if err != nil {
		t.Fatalf("retry: %v", err)
	}
	if r2.Header.Get("Idempotent-Replayed") != "true" || string(r1.Body) != string(r2.Body) || r1.Status != r2.Status {
		t.Fatalf("the retry was not a replay: %d %s / %d %s", r1.Status, r1.Body, r2.Status, r2.Body)
	}
	_, err = doOp(buyer, contract.ChooseOffer, axp.ChooseInput{TaskRef: axp.TaskRef{ID: created.ID}, OfferID: offerB.OfferID}, client.Options{IdempotencyKey: "choose-2"})
	apiErr(t, err, axp.CodeConflict, "-")
	kinds, _ := timelineKinds(t, buyer, created.ID)
	if c := count(kinds, "choose"); c != 1 {
		t.Fatalf("%d choose events", c)
	}

	tx := newTxHash()
	pay := map[string]any{"id": created.ID, "tx_hash": tx}
	p1, err := do(buyer, "pay_crypto", pay, client.Options{IdempotencyKey: "pay-1"})
	if err != nil {
		t.Fatal(err)
	}
	p2, err := do(buyer, "pay_crypto", pay, client.Options{IdempotencyKey: "pay-1"})
	if err != nil {
		t.Fatalf("retry: %v", err)
	}
	if p2.Header.Get("Idempotent-Replayed") != "true" || string(p1.Body) != string(p2.Body) {
		t.Fatalf("the pay retry was not a replay: %s / %s", p1.Body, p2.Body)
	}
	// A plain resend of the same transaction is harmless too; another transaction is refused.
	call(t, buyer, "pay_crypto", pay, nil)
	_, err = doOp(buyer, contract.PayCryptoOp, axp.PayCryptoInput{TaskRef: axp.TaskRef{ID: created.ID}, TxHash: newTxHash()})
	apiErr(t, err, axp.CodeConflict, "-")
	if items := e.approvals(created.ID); len(items) != 1 {
		t.Fatalf("want one payment item, got %+v", items)
	}

	// The same transaction cannot fund another task.
	other, _ := createTask(t, e.anon, map[string]any{"type": "text-file", "params": map[string]any{"prompt": "second"}})
	otherBuyer := e.anon.With(other.BuyerToken)
	callOp(t, otherBuyer, contract.ChooseOffer, axp.ChooseInput{TaskRef: axp.TaskRef{ID: other.ID}, OfferID: other.Offers[0].OfferID})
	_, err = doOp(otherBuyer, contract.PayCryptoOp, axp.PayCryptoInput{TaskRef: axp.TaskRef{ID: other.ID}, TxHash: tx})
	apiErr(t, err, axp.CodeConflict, "-")

	// A rejected payment frees its transaction hash and lets the buyer report another.
	var rejected axp.Approval
	rejected = *callOp(t, e.admin, contract.AdminReject, axp.RejectBody{ID: e.approvalOf(created.ID, axp.ApprovePayment).ID, Reason: "not found on chain"})
	if rejected.Status != axp.ApprovalRejected {
		t.Fatalf("rejected %+v", rejected)
	}
	callOp(t, buyer, contract.PayCryptoOp, axp.PayCryptoInput{TaskRef: axp.TaskRef{ID: created.ID}, TxHash: newTxHash()})
	var pending int
	for _, a := range e.approvals(created.ID) {
		if a.Status == axp.ApprovalPending {
			pending++
		}
	}
	if pending != 1 {
		t.Fatalf("want one pending payment after the rejection, got %d", pending)
	}
}

// TestMarketIdempotentCreate: a task posted with an Idempotency-Key is stored with its record in one
// transaction; a retry answers with the same task and buyer token, as the task is now.
func TestMarketIdempotentCreate(t *testing.T) { eachStore(t, testMarketIdempotentCreate) }

func testMarketIdempotentCreate(t *testing.T) {
	t.Parallel()
	e := newMarket(t)
	e.instantSeller("text-file", "2.00", 10, nil, nil)
	key := client.Options{IdempotencyKey: "7d1c2b9e-create-0001"}
	body := map[string]any{"type": "text-file", "params": map[string]any{"prompt": "only once"}}
	r1, err := do(e.anon, "create_task", body, key)
	if err != nil || r1.Status != 201 {
		t.Fatal(err)
	}
	var first axp.CreatedTask
	json.Unmarshal(r1.Body, &first)
	replay := func() axp.CreatedTask {
		t.Helper()
		r, err := do(e.anon, "create_task", body, key)
		if err != nil || r.Status != 201 || r.Header.Get("Idempotent-Replayed") != "true" {
			t.Fatalf("the retry was not a replay: %v", err)
		}
		var c axp.CreatedTask
		json.Unmarshal(r.Body, &c)
		if c.ID != first.ID || c.BuyerToken != first.BuyerToken || c.BuyerToken == "" {
			t.Fatalf("the replay answered task %s token %q, want %s %q", c.ID, c.BuyerToken, first.ID, first.BuyerToken)
		}
		return c
	}
	if again := replay(); again.Status != axp.TaskOpen || len(again.Offers) != len(first.Offers) {
		t.Fatalf("replay %s with %d offers", again.Status, len(again.Offers))
	}
	buyer := e.anon.With(first.BuyerToken)
	callOp(t, buyer, contract.ChooseOffer, axp.ChooseInput{TaskRef: axp.TaskRef{ID: first.ID}, OfferID: first.Offers[0].OfferID})
	if again := replay(); again.Status != axp.TaskAwaitingPayment {
		t.Fatalf("the replay shows %s, not the task as it is now", again.Status)
	}
	if st := e.stats(); st.Tasks[axp.TaskOpen]+st.Tasks[axp.TaskAwaitingPayment] != 1 {
		t.Fatalf("tasks after retries: %v", st.Tasks)
	}
	// Follow-up work of the same call (auto_choose) does not replace the record.
	auto := client.Options{IdempotencyKey: "7d1c2b9e-create-0002"}
	autoBody := map[string]any{"type": "text-file", "params": map[string]any{"prompt": "pick for me"}, "auto_choose": "cheapest"}
	if _, err := do(e.anon, "create_task", autoBody, auto); err != nil {
		t.Fatal(err)
	}
	r, err := do(e.anon, "create_task", autoBody, auto)
	var c axp.CreatedTask
	if err == nil {
		err = json.Unmarshal(r.Body, &c)
	}
	if err != nil || c.ID == "" || c.BuyerToken == "" || c.Status != axp.TaskAwaitingPayment {
		t.Fatalf("replay of an auto-chosen task: %v %s", err, r.Body)
	}
}

// TestMarketSweeper drives the windows with a hand-moved clock: open and unpaid tasks expire,
// delivered tasks become release-due (funds do not move) and the operator's decision releases them.
func TestMarketSweeper(t *testing.T) { eachStore(t, testMarketSweeper) }

func testMarketSweeper(t *testing.T) {
	t.Parallel()
	clock := kerneltest.NewClock(time.Now().UTC())
	e := newMarket(t, func(c *daemon.Config) { c.Now = clock.Now })
	seller := e.instantSeller("text-file", "5.00", 10, nil, map[string]any{"payout_address": payoutAddress})
	sink := newCallbackSink(t)

	post := func(extra map[string]any) (axp.CreatedTask, *client.Client) {
		body := map[string]any{"type": "text-file", "params": map[string]any{"prompt": "sweep"}}
		for k, v := range extra {
			body[k] = v
		}
		c, _ := createTask(t, e.anon, body)
		return c, e.anon.With(c.BuyerToken)
	}
	open, openBuyer := post(nil)
	unpaid, unpaidBuyer := post(nil)
	callOp(t, unpaidBuyer, contract.ChooseOffer, axp.ChooseInput{TaskRef: axp.TaskRef{ID: unpaid.ID}, OfferID: unpaid.Offers[0].OfferID})
	reported, reportedBuyer := post(nil)
	callOp(t, reportedBuyer, contract.ChooseOffer, axp.ChooseInput{TaskRef: axp.TaskRef{ID: reported.ID}, OfferID: reported.Offers[0].OfferID})
	callOp(t, reportedBuyer, contract.PayCryptoOp, axp.PayCryptoInput{TaskRef: axp.TaskRef{ID: reported.ID}, TxHash: newTxHash()})
	quiet, quietBuyer := post(map[string]any{"callback_url": sink.srv.URL + "/hook"})
	received := e.fund(quietBuyer, quiet.ID, quiet.Offers[0].OfferID)
	deliverText(t, seller.c, quiet.ID, "delivered to a quiet buyer\n")
	late, lateBuyer := post(nil)
	e.fund(lateBuyer, late.ID, late.Offers[0].OfferID)
	deliverText(t, seller.c, late.ID, "delivered to a late buyer\n")
	// A paid task whose seller refused the job goes back to open holding the payment.
	refuser := e.newPushSeller("sweep-refusal", map[string]func(map[string]any) any{
		"do_task": func(map[string]any) any { return map[string]any{"accepted": false, "reason": "no"} },
	}, nil, nil)
	refuser.useClock(clock.Now)
	refused, refusedBuyer := post(map[string]any{"type": "sweep-refusal", "description": "a job nobody does"})
	held := e.fund(refusedBuyer, refused.ID, refused.Offers[0].OfferID)
	waitStatus(t, refusedBuyer, refused.ID, axp.TaskOpen)

	if n := e.d.Sweep(); n != 0 {
		t.Fatalf("nothing is due yet, the sweep changed %d tasks", n)
	}
	clock.Add(24*time.Hour + time.Minute)
	if n := e.d.Sweep(); n != 3 {
		t.Fatalf("want the open, the unpaid and the refused task expired, the sweep changed %d", n)
	}
	// The refused task expired holding the buyer's payment: a refund item gives it back.
	if got := getTask(t, refusedBuyer, refused.ID); got.Status != axp.TaskExpired {
		t.Fatalf("refused task %s", got.Status)
	}
	back := e.approvalOf(refused.ID, axp.ApproveRefund)
	if back.Status != axp.ApprovalPending || back.Amount != held {
		t.Fatalf("refund of an expired task %+v (held %s)", back, held)
	}
	e.approve(back.ID, true)
	if got := getTask(t, refusedBuyer, refused.ID); got.Status != axp.TaskRefunded {
		t.Fatalf("after the refund %s", got.Status)
	}
	if bal := e.balances(); bal[axp.EscrowAccount(refused.ID)] != 0 || bal[axp.AcctBuyerRefund] != held {
		t.Fatalf("balances after the refund %v", bal)
	}
	for _, c := range []struct {
		b      *client.Client
		id     string
		status string
	}{{openBuyer, open.ID, axp.TaskExpired}, {unpaidBuyer, unpaid.ID, axp.TaskExpired},
		{reportedBuyer, reported.ID, axp.TaskAwaitingPayment}, {quietBuyer, quiet.ID, axp.TaskDelivered}} {
		if got := getTask(t, c.b, c.id); got.Status != c.status {
			t.Fatalf("task %s is %s, want %s", c.id, got.Status, c.status)
		}
	}
	_, err := doOp(openBuyer, contract.ChooseOffer, axp.ChooseInput{TaskRef: axp.TaskRef{ID: open.ID}, OfferID: open.Offers[0].OfferID})
	apiErr(t, err, axp.CodeConflict, "-")

	// The auto-release window passes: release-due items, reminders, and no money moves.
	clock.Add(48 * time.Hour)
	if n := e.d.Sweep(); n != 2 {
		t.Fatalf("want two release-due tasks, the sweep changed %d", n)
	}
	if n := e.d.Sweep(); n != 0 {
		t.Fatalf("a second sweep changed %d tasks", n)
	}
	got := getTask(t, quietBuyer, quiet.ID)
	if got.Status != axp.TaskDelivered || !got.ReleaseDue {
		t.Fatalf("release-due task: %s, release_due %v", got.Status, got.ReleaseDue)
	}
	due := e.approvalOf(quiet.ID, axp.ApproveReleaseDue)
	if due.Status != axp.ApprovalPending {
		t.Fatalf("release-due item %+v", due)
	}
	for _, a := range e.approvals(quiet.ID) {
		if a.Kind == axp.ApprovePayout {
			t.Fatal("a payout was queued without the operator's decision")
		}
	}
	if bal := e.balances(); bal[axp.EscrowAccount(quiet.ID)] != received {
		t.Fatalf("funds moved: escrow %s, received %s", bal[axp.EscrowAccount(quiet.ID)], received)
	}
	reminder := sink.waitFor("reminder", nil)
	if u, _ := reminder["task_update"].(map[string]any); u["event"] != "reminder" || u["status"] != axp.TaskDelivered {
		t.Fatalf("reminder %v", reminder)
	}

	// The operator releases the quiet buyer's task: accepted, and a payout item to approve.
	e.approve(due.ID, false)
	if got := getTask(t, quietBuyer, quiet.ID); got.Status != axp.TaskAccepted || got.ReleaseDue {
		t.Fatalf("after the operator's release: %s, release_due %v", got.Status, got.ReleaseDue)
	}
	payout := e.approvalOf(quiet.ID, axp.ApprovePayout)
	if payout.Status != axp.ApprovalPending || payout.Amount != usd(t, "5.00")-feeOf(usd(t, "5.00")) {
		t.Fatalf("payout %+v", payout)
	}
	// The seller's request changes nothing more.
	callOp(t, seller.c, contract.RequestPayment, axp.IDPath{ID: quiet.ID})
	e.approvalOf(quiet.ID, axp.ApprovePayout)
	e.approve(payout.ID, true)
	if got := getTask(t, quietBuyer, quiet.ID); got.Status != axp.TaskReleased {
		t.Fatalf("after the payout %s", got.Status)
	}

	// The late buyer answers after the window passed: its acceptance closes the release-due item.
	retrieve(t, lateBuyer, late.ID)
	callOp(t, lateBuyer, contract.AcceptTask, axp.AcceptInput{TaskRef: axp.TaskRef{ID: late.ID}})
	lateDue := e.approvalOf(late.ID, axp.ApproveReleaseDue)
	if lateDue.Status == axp.ApprovalPending || lateDue.Status == axp.ApprovalHeld {
		t.Fatalf("the release-due item stays open after the buyer accepted: %+v", lateDue)
	}
	if got := getTask(t, lateBuyer, late.ID); got.ReleaseDue {
		t.Fatal("an accepted task is still release-due")
	}
	callOp(t, seller.c, contract.RequestPayment, axp.IDPath{ID: late.ID})
	e.approve(e.approvalOf(late.ID, axp.ApprovePayout).ID, true)

	bal := e.balances()
	for _, id := range []string{quiet.ID, late.ID, open.ID, unpaid.ID, refused.ID} {
		if bal[axp.EscrowAccount(id)] != 0 {
			t.Fatalf("escrow of %s holds %s", id, bal[axp.EscrowAccount(id)])
		}
	}
}

// TestMarketCallbacksAndSellerRefusal: a buyer's callback_url gets signed posts (offers and
// task_update); a push seller refusing do_task returns the task to the buyer's choice, and the
// funds already received count toward the next offer.
func TestMarketCallbacksAndSellerRefusal(t *testing.T) {
	t.Parallel()
	e := newMarket(t)
	sink := newCallbackSink(t)
	refuser := e.newPushSeller("text-file", map[string]func(map[string]any) any{
		"do_task": func(map[string]any) any { return map[string]any{"accepted": false, "reason": "fully booked today"} },
	}, nil, nil)
	pull := e.pullSeller("text-file", map[string]any{"payout_address": payoutAddress})

	created, _ := createTask(t, e.anon, map[string]any{"type": "text-file", "params": map[string]any{"prompt": "call me back"},
		"callback_url": sink.srv.URL + "/hook", "agent_name": "callback buyer"})
	buyer := e.anon.With(created.BuyerToken)
	key := []byte(sha256Hex(created.BuyerToken))
	if q := refuser.waitCall("quote", created.ID); q["buyer"].(map[string]any)["name"] != "callback buyer" {
		t.Fatalf("quote buyer %v", q["buyer"])
	}

	var pulled axp.Offer
	pulled = *callOp(t, pull.c, contract.SubmitOffer, axp.OfferInput{ID: created.ID, QuoteAnswer: protocol.QuoteAnswer{PriceUSD: ptr(axp.USD(6, 0)), ETAMinutes: ptr(20)}}).Offer
	// The offers collected at creation, then the late (pull) offer, reach the callback.
	pushed := offerOf(t, created.Offers, refuser.MemberID)
	for _, id := range []string{pushed.OfferID, pulled.OfferID} {
		offers := sink.waitFor("offers", func(d map[string]any) bool { return strings.Contains(fmt.Sprint(d["offers"]), id) })
		if o, _ := offers["offers"].(map[string]any); o == nil || o["choose_url"] != e.srv.URL+"/api/tasks/"+created.ID+"/choose" || offers["task_id"] != created.ID {
			t.Fatalf("offers callback %v", offers)
		}
	}

	// The push seller is chosen and paid, then refuses the job.
	first := e.fund(buyer, created.ID, offerOf(t, created.Offers, refuser.MemberID).OfferID)
	refuser.waitCall("do_task", created.ID)
	back := waitStatus(t, buyer, created.ID, axp.TaskOpen)
	if back.Seller != nil || slices.ContainsFunc(back.Offers, func(o axp.Offer) bool { return o.Seller.ID == refuser.MemberID }) {
		t.Fatalf("the refusing seller is still on the task: %+v", back)
	}
	_, events := timelineKinds(t, buyer, created.ID)
	var note *axp.Event
	for i := range events {
		if events[i].Kind == "seller_decline" {
			note = &events[i]
		}
	}
	if note == nil || note.Detail["reason"] != "fully booked today" || note.Detail["seller"] != refuser.MemberID {
		t.Fatalf("no seller_decline note on the timeline: %+v", events)
	}
	var jobs axp.TaskList
	jobs = *callOp(t, refuser.c, contract.ListJobs, axp.JobsQuery{Status: "all"})
	if len(jobs.Tasks) != 0 {
		t.Fatalf("the refused job is still in the seller's list: %+v", jobs.Tasks)
	}

	// The buyer chooses the dearer pull offer and pays the difference (less a new tag).
	var chosen axp.Task
	chosen = *callOp(t, buyer, contract.ChooseOffer, axp.ChooseInput{TaskRef: axp.TaskRef{ID: created.ID}, OfferID: pulled.OfferID})
	price := usd(t, "6.00")
	if chosen.Status != axp.TaskAwaitingPayment || chosen.Payment.PayableUSD >= price-first || chosen.Payment.PayableUSD <= price-first-usd(t, "0.01") {
		t.Fatalf("top-up: %s %+v (first payment %s)", chosen.Status, chosen.Payment, first)
	}
	callOp(t, buyer, contract.PayCryptoOp, axp.PayCryptoInput{TaskRef: axp.TaskRef{ID: created.ID}, TxHash: newTxHash()})
	var topUp axp.Approval
	for _, a := range e.approvals(created.ID) {
		if a.Kind == axp.ApprovePayment && a.Status == axp.ApprovalPending {
			topUp = a
		}
	}
	if topUp.ID == "" || topUp.Amount != chosen.Payment.PayableUSD {
		t.Fatalf("top-up payment item %+v", topUp)
	}
	e.approve(topUp.ID, false)
	if got := getTask(t, buyer, created.ID); got.Status != axp.TaskPaid || got.Payment.ReceivedUSD != first+topUp.Amount {
		t.Fatalf("after the top-up: %s %+v", got.Status, got.Payment)
	}
	deliverText(t, pull.c, created.ID, "called back\n")
	retrieve(t, buyer, created.ID)
	callOp(t, buyer, contract.AcceptTask, axp.AcceptInput{TaskRef: axp.TaskRef{ID: created.ID}})
	callOp(t, pull.c, contract.RequestPayment, axp.IDPath{ID: created.ID})
	e.approve(e.approvalOf(created.ID, axp.ApprovePayout).ID, true)

	// Every post was signed with the hex SHA-256 of the buyer token as "buyer:<task id>".
	eventually(t, func() error {
		got := sink.statuses("task_update")
		for _, want := range []string{axp.TaskPaid, axp.TaskOpen, axp.TaskDelivered, axp.TaskAccepted, axp.TaskReleased} {
			if !slices.Contains(got, want) {
				return fmt.Errorf("task_update callbacks %v lack %s", got, want)
			}
		}
		return nil
	})
	for _, p := range sink.posts() {
		if err := verifyPost(p, "buyer:"+created.ID, key); err != nil {
			t.Fatalf("callback %s: %v", p.Body, err)
		}
		if p.Doc["task_id"] != created.ID {
			t.Fatalf("callback without the task id: %s", p.Body)
		}
	}
	bal := e.balances()
	if bal[axp.EscrowAccount(created.ID)] != 0 || bal[axp.AcctSellerPaid] != price-feeOf(price) {
		t.Fatalf("balances %v", bal)
	}

	// A callback that refuses the post is recorded on the task's timeline.
	refusing := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "go away", http.StatusForbidden)
	}))
	defer refusing.Close()
	rejected, _ := createTask(t, e.anon, map[string]any{"type": "text-file", "params": map[string]any{"prompt": "nobody listens"},
		"callback_url": refusing.URL})
	eventually(t, func() error {
		var tl axp.Timeline
		if err := e.anon.Call(context.Background(), "get_timeline", map[string]any{"id": rejected.ID, "token": rejected.BuyerToken}, &tl); err != nil {
			return err
		}
		for _, ev := range tl.Events {
			if ev.Kind == "push_failed" && strings.Contains(fmt.Sprint(ev.Detail["push"]), "callback") && strings.Contains(fmt.Sprint(ev.Detail["error"]), "403") {
				return nil
			}
		}
		return fmt.Errorf("no push_failed event: %+v", tl.Events)
	})
	if n := refuser.refusedCount(); n != 0 {
		t.Fatalf("%d badly signed calls", n)
	}
}

// TestMarketLateQuotes: a push seller answering after the quote window is not waited for; its offer
// is stored when it arrives and pushed to the buyer's callback and to a buyer member's
// receive_offers.
func TestMarketLateQuotes(t *testing.T) {
	t.Parallel()
	e := newMarket(t, func(c *daemon.Config) { c.QuoteWindow = 300 * time.Millisecond })
	sink := newCallbackSink(t)
	slow := e.newPushSeller("text-file", nil, map[string]time.Duration{"quote": 900 * time.Millisecond}, nil)
	buyerMember := e.newPushSeller("video", nil, nil, map[string]any{"roles": []string{"buyer", "seller"}})

	created, took := createTask(t, buyerMember.c, map[string]any{"type": "text-file", "params": map[string]any{"prompt": "slowly"},
		"callback_url": sink.srv.URL})
	if took >= 900*time.Millisecond || len(created.Offers) != 0 {
		t.Fatalf("creation waited %v for a late seller (offers %d)", took, len(created.Offers))
	}
	task := waitFor(t, func() (axp.Task, error) {
		var got axp.Task
		err := buyerMember.c.Call(context.Background(), "get_task", map[string]any{"id": created.ID}, &got)
		if err == nil && len(got.Offers) == 0 {
			err = fmt.Errorf("no offer yet")
		}
		return got, err
	})
	late := offerOf(t, task.Offers, slow.MemberID)
	sink.waitFor("offers", func(d map[string]any) bool { return strings.Contains(fmt.Sprint(d["offers"]), late.OfferID) })
	ro := buyerMember.waitCall("receive_offers", created.ID)
	if !strings.Contains(fmt.Sprint(ro["offers"]), late.OfferID) || ro["choose_url"] != e.srv.URL+"/api/tasks/"+created.ID+"/choose" {
		t.Fatalf("receive_offers %v", ro)
	}
	if ro["also_sell"] != nil {
		t.Fatalf("a buyer that already sells was invited to sell: %v", ro["also_sell"])
	}
	// Callbacks of a buyer member's task are signed with its platform key.
	for _, p := range sink.posts() {
		if err := verifyPost(p, buyerMember.MemberID, []byte(buyerMember.PlatformKey)); err != nil {
			t.Fatalf("callback: %v", err)
		}
	}
}

// TestMarketCreationRules: invitations limit who quotes; acceptance checks and catalog params are
// validated; vague briefs get questions; the type is inferred from the description.
func TestMarketCreationRules(t *testing.T) {
	t.Parallel()
	e := newMarket(t)
	instant := e.instantSeller("text-file", "1.00", 5, nil, nil)
	pullA := e.pullSeller("text-file", nil)
	pullB := e.pullSeller("text-file", nil)

	// invite_sellers by ids.
	invited, _ := createTask(t, e.anon, map[string]any{"type": "text-file", "params": map[string]any{"prompt": "for A only"},
		"invite_sellers": []string{pullA.MemberID}})
	if len(invited.Offers) != 0 {
		t.Fatalf("an uninvited instant seller offered: %+v", invited.Offers)
	}
	var reqs axp.TaskList
	reqs = *callOp(t, pullB.c, contract.ListQuoteRequests, contract.NoInput{})
	if slices.ContainsFunc(reqs.Tasks, func(x axp.Task) bool { return x.ID == invited.ID }) {
		t.Fatal("an uninvited seller sees the task")
	}
	_, err := doOp(pullB.c, contract.SubmitOffer, axp.OfferInput{ID: invited.ID, QuoteAnswer: protocol.QuoteAnswer{PriceUSD: ptr(axp.USD(1, 0)), ETAMinutes: ptr(5)}})
	apiErr(t, err, axp.CodeForbidden, "-")
	reqs = *callOp(t, pullA.c, contract.ListQuoteRequests, contract.NoInput{})
	if !slices.ContainsFunc(reqs.Tasks, func(x axp.Task) bool { return x.ID == invited.ID }) {
		t.Fatal("the invited seller does not see the task")
	}
	callOp(t, pullA.c, contract.SubmitOffer, axp.OfferInput{ID: invited.ID, QuoteAnswer: protocol.QuoteAnswer{PriceUSD: ptr(axp.USD(1, 0)), ETAMinutes: ptr(5)}})
	_, err = do(e.anon, "create_task", map[string]any{"type": "text-file", "params": map[string]any{"prompt": "x y z"},
		"invite_sellers": []string{"mem_nobody"}})
	apiErr(t, err, axp.CodeInvalidInput, "invite_sellers[0]")

	// invite_sellers: favourites of a buyer member.
	bm := e.register(map[string]any{"roles": []string{"buyer"}})
	_, err = do(bm.c, "create_task", map[string]any{"type": "text-file", "params": map[string]any{"prompt": "favs"}, "invite_sellers": "favourites"})
	apiErr(t, err, axp.CodeInvalidInput, "invite_sellers")
	callOp(t, bm.c, contract.FavouritesOp, axp.Favourites{SellerIDs: []string{instant.MemberID}})
	favs, _ := createTask(t, bm.c, map[string]any{"type": "text-file", "params": map[string]any{"prompt": "favs"}, "invite_sellers": "favourites"})
	if len(favs.Offers) != 1 || favs.Offers[0].Seller.ID != instant.MemberID {
		t.Fatalf("favourites task offers %+v", favs.Offers)
	}
	_, err = doOp(pullA.c, contract.SubmitOffer, axp.OfferInput{ID: favs.ID, QuoteAnswer: protocol.QuoteAnswer{PriceUSD: ptr(axp.USD(1, 0)), ETAMinutes: ptr(5)}})
	apiErr(t, err, axp.CodeForbidden, "-")
	_, err = do(e.anon, "create_task", map[string]any{"type": "text-file", "params": map[string]any{"prompt": "favs"}, "invite_sellers": "favourites"})
	apiErr(t, err, axp.CodeInvalidInput, "invite_sellers")

	// Acceptance checks: unknown keys and bad values are refused, naming the key.
	_, err = doOp(e.anon, contract.CreateTask, axp.NewTask{
		Type:             "text-file",
		Params:           map[string]any{"prompt": "checked"},
		AcceptanceChecks: map[string]any{"must_contain": "x", "smells_nice": true},
	})
	apiErr(t, err, axp.CodeInvalidInput, "acceptance_checks.smells_nice")
	_, err = doOp(e.anon, contract.CreateTask, axp.NewTask{
		Type:             "text-file",
		Params:           map[string]any{"prompt": "checked"},
		AcceptanceChecks: map[string]any{"max_bytes": "lots"},
	})
	apiErr(t, err, axp.CodeInvalidInput, "acceptance_checks.max_bytes")

	// Vague briefs get questions; the type is inferred from a description.
	vague, _ := createTask(t, e.anon, map[string]any{"description": "help me out"})
	if len(vague.Questions) == 0 || vague.Type != "custom" {
		t.Fatalf("vague brief: type %q, questions %v", vague.Type, vague.Questions)
	}
	inferred, _ := createTask(t, e.anon, map[string]any{"description": "write a short poem about autumn"})
	if inferred.Type != "text-file" || inferred.Params["prompt"] != "write a short poem about autumn" || len(inferred.Questions) != 0 {
		t.Fatalf("inferred %q %v %v", inferred.Type, inferred.Params, inferred.Questions)
	}
	if len(inferred.Offers) != 1 || inferred.Offers[0].Seller.ID != instant.MemberID {
		t.Fatalf("the inferred type should match the text-file seller: %+v", inferred.Offers)
	}
	other, _ := createTask(t, e.anon, map[string]any{"type": "dog-walking", "description": "walk my dog twice"})
	if other.Type != "dog-walking" {
		t.Fatalf("any lowercase type is allowed: %q", other.Type)
	}

	// Catalog params: bounds and defaults, in the body and in the GET form.
	_, err = doOp(e.anon, contract.CreateTask, axp.NewTask{Type: "video", Params: map[string]any{"prompt": "a cat", "duration": 99}})
	apiErr(t, err, axp.CodeInvalidInput, "params.duration")
	_, err = doOp(e.anon, contract.CreateTask, axp.NewTask{Type: "video", Params: map[string]any{"duration": 10}})
	apiErr(t, err, axp.CodeInvalidInput, "params.prompt")
	video, _ := createTask(t, e.anon, map[string]any{"type": "video", "params": map[string]any{"prompt": "a cat"}})
	if fmt.Sprint(video.Params["duration"]) != "8" || video.Params["aspect"] != "16:9" {
		t.Fatalf("video defaults %v", video.Params)
	}
	_, err = do(e.anon, "create_task_get", map[string]any{"type": "video", "params": map[string]any{"prompt": "a cat", "duration": "99"}})
	apiErr(t, err, axp.CodeInvalidInput, "-")
	var viaGet axp.CreatedTask
	call(t, e.anon, "create_task_get", map[string]any{"type": "text-file", "params": map[string]any{"prompt": "a haiku by GET"}}, &viaGet)
	if viaGet.Params["prompt"] != "a haiku by GET" || viaGet.BuyerToken == "" || len(viaGet.Offers) != 1 {
		t.Fatalf("GET creation %+v", viaGet)
	}
}

// TestMarketQuoteShapes: the three quote shapes of spec 2.4 from push and pull sellers, validated
// exactly; declines are listed, questions shown, and answering them runs a new quote round.
func TestMarketQuoteShapes(t *testing.T) {
	t.Parallel()
	e := newMarket(t)
	clarifier := e.newPushSeller("text-file", map[string]func(map[string]any) any{
		"quote": func(args map[string]any) any {
			if strings.Contains(fmt.Sprint(args["description"]), "the Baltic") {
				return map[string]any{"price_usd": 3, "eta_minutes": 15, "note": "Baltic it is"}
			}
			return map[string]any{"clarify": true, "questions": []string{"Which sea?"}}
		},
	}, nil, nil)
	decliner := e.newPushSeller("text-file", map[string]func(map[string]any) any{
		"quote": func(map[string]any) any {
			return map[string]any{"decline": true, "reason_code": "no_capacity", "reason": "fully booked"}
		},
	}, nil, nil)
	sloppy := e.newPushSeller("text-file", map[string]func(map[string]any) any{
		"quote": func(map[string]any) any { return map[string]any{"price_usd": 1.234, "eta_minutes": 15} },
	}, nil, nil)
	pull := e.pullSeller("text-file", nil)

	sink := newCallbackSink(t)
	created, _ := createTask(t, e.anon, map[string]any{"type": "text-file", "description": "a poem about the sea",
		"params": map[string]any{"prompt": "a poem about the sea"}, "callback_url": sink.srv.URL + "/hook"})
	buyer := e.anon.With(created.BuyerToken)
	if len(created.Offers) != 0 {
		t.Fatalf("no push seller gave a valid price, yet %+v", created.Offers)
	}
	if len(created.Declined) != 1 || created.Declined[0].Seller.ID != decliner.MemberID || created.Declined[0].ReasonCode != "no_capacity" || created.Declined[0].Reason != "fully booked" {
		t.Fatalf("declined %+v", created.Declined)
	}
	if len(created.Clarifications) != 1 || created.Clarifications[0].Seller.ID != clarifier.MemberID || created.Clarifications[0].Questions[0] != "Which sea?" {
		t.Fatalf("clarifications %+v", created.Clarifications)
	}
	_, events := timelineKinds(t, buyer, created.ID)
	if !slices.ContainsFunc(events, func(ev axp.Event) bool {
		return ev.Kind == "quote_failed" && ev.Detail["seller"] == sloppy.MemberID && strings.Contains(fmt.Sprint(ev.Detail["error"]), "decimals")
	}) {
		t.Fatalf("the refused push quote is not on the timeline: %+v", events)
	}

	// Pull quotes are validated exactly.
	price := func(extra map[string]any) map[string]any {
		in := map[string]any{"id": created.ID, "price_usd": 2, "eta_minutes": 10}
		for k, v := range extra {
			in[k] = v
		}
		return in
	}
	for _, c := range []struct {
		in    map[string]any
		field string
	}{
		{price(map[string]any{"price_usd": 1.234}), "price_usd"},
		{price(map[string]any{"price_usd": 100000.01}), "price_usd"},
		{price(map[string]any{"price_usd": 0}), "price_usd"},
		{price(map[string]any{"eta_minutes": 0}), "eta_minutes"},
		{price(map[string]any{"eta_minutes": 43201}), "eta_minutes"},
		{price(map[string]any{"valid_until": "2001-01-01T00:00:00Z"}), "valid_until"},
		{price(map[string]any{"details": map[string]any{"nested": map[string]any{"x": 1}}}), "details.nested"},
		{price(map[string]any{"guarantee": map[string]any{"free_redo": 4}}), "guarantee.free_redo"},
		{price(map[string]any{"decline": true, "reason_code": "other"}), "-"},
		{map[string]any{"id": created.ID, "clarify": true, "questions": []string{"1", "2", "3", "4", "5", "6"}}, "questions"},
		{map[string]any{"id": created.ID, "decline": true, "reason_code": "bored"}, "reason_code"},
		{map[string]any{"id": created.ID, "decline": true}, "reason_code"},
	} {
		_, err := do(pull.c, "submit_offer", c.in)
		apiErr(t, err, axp.CodeInvalidInput, c.field)
	}
	callOp(t, pull.c, contract.SubmitOffer, axp.OfferInput{ID: created.ID, QuoteAnswer: protocol.QuoteAnswer{Decline: true, ReasonCode: "too_expensive", Reason: "not worth it"}})
	if got := getTask(t, buyer, created.ID); len(got.Declined) != 2 {
		t.Fatalf("declined %+v", got.Declined)
	}

	// The buyer answers: a new round, and the clarifier now prices the job.
	// Sent with an Idempotency-Key and retried: one round of answers, one quote round.
	var clarified axp.Task
	answers := map[string]any{"id": created.ID, "answers": map[string]string{"Which sea?": "the Baltic"}}
	first, err := do(buyer, "answer_clarifications", answers, client.Options{IdempotencyKey: "clarify-1"})
	if err != nil {
		t.Fatal(err)
	}
	json.Unmarshal(first.Body, &clarified)
	again, err := do(buyer, "answer_clarifications", answers, client.Options{IdempotencyKey: "clarify-1"})
	if err != nil || again.Header.Get("Idempotent-Replayed") != "true" {
		t.Fatalf("the retried answers were not a replay: %v", err)
	}
	if kinds, _ := timelineKinds(t, buyer, created.ID); count(kinds, "clarify") != 1 {
		t.Fatalf("%d clarify events after a retry", count(kinds, "clarify"))
	}
	o := offerOf(t, clarified.Offers, clarifier.MemberID)
	if o.PriceUSD != usd(t, "3") || o.Note != "Baltic it is" || len(clarified.Clarifications) != 0 {
		t.Fatalf("after clarifying: offer %+v, clarifications %+v", o, clarified.Clarifications)
	}
	// The offer made after clarification reaches the buyer the way every new offer does.
	sink.waitFor("offers", func(d map[string]any) bool { return strings.Contains(fmt.Sprint(d["offers"]), o.OfferID) })
	if calls := clarifier.received("quote", created.ID); len(calls) != 2 {
		t.Fatalf("the clarifier was asked %d times", len(calls))
	}
	// Pull sellers see the answers in the brief of their quote requests.
	var reqs axp.TaskList
	reqs = *callOp(t, pull.c, contract.ListQuoteRequests, contract.NoInput{})
	if !slices.ContainsFunc(reqs.Tasks, func(x axp.Task) bool { return x.ID == created.ID && strings.Contains(x.Description, "the Baltic") }) {
		t.Fatalf("the pull seller's quote requests lack the task with the buyer's answers: %+v", reqs.Tasks)
	}
	var seen axp.Task
	seen = *callOp(t, pull.c, contract.GetTask, axp.TaskQuery{TaskRef: axp.TaskRef{ID: created.ID}})
	if !strings.Contains(seen.Description, "Which sea?: the Baltic") {
		t.Fatalf("the pull seller's view of the task lacks the answers: %q", seen.Description)
	}
	// The chosen seller's do_task carries them too.
	e.fund(buyer, created.ID, o.OfferID)
	job := clarifier.waitCall("do_task", created.ID)
	if !strings.Contains(fmt.Sprint(job["description"]), "Which sea?: the Baltic") {
		t.Fatalf("do_task without the buyer's answers: %v", job["description"])
	}
	var jobs axp.TaskList
	jobs = *callOp(t, clarifier.c, contract.ListJobs, axp.JobsQuery{})
	if len(jobs.Tasks) != 1 || !strings.Contains(jobs.Tasks[0].Description, "the Baltic") {
		t.Fatalf("the seller's job view lacks the answers: %+v", jobs.Tasks)
	}
	// An unverified seller gets no quote requests and may not quote.
	unverified := e.register(map[string]any{"roles": []string{"seller"}, "skills": []map[string]any{{"task_type": "text-file"}}})
	_, err = doOp(unverified.c, contract.ListQuoteRequests, contract.NoInput{})
	apiErr(t, err, axp.CodeForbidden, "-")
	_, err = do(unverified.c, "submit_offer", price(nil))
	apiErr(t, err, axp.CodeForbidden, "-")
	if n := clarifier.refusedCount() + decliner.refusedCount() + sloppy.refusedCount(); n != 0 {
		t.Fatalf("%d badly signed calls", n)
	}
}

// TestMarketAutoChoose: auto_choose picks the cheapest or the fastest offer when the quote window
// closes; a free job then starts at once.
func TestMarketAutoChoose(t *testing.T) {
	t.Parallel()
	e := newMarket(t)
	free := map[string]any{"payment_methods": []string{"crypto", "free"}}
	cheap := e.instantSeller("text-file", "1.00", 120, nil, free)
	fast := e.instantSeller("text-file", "9.00", 2, nil, map[string]any{"payment_methods": []string{"crypto", "free"}})
	for _, c := range []struct {
		mode, method, seller, status string
	}{
		{"cheapest", "crypto", cheap.MemberID, axp.TaskAwaitingPayment},
		{"fastest", "crypto", fast.MemberID, axp.TaskAwaitingPayment},
		{"cheapest", "free", "", axp.TaskPaid},
	} {
		created, _ := createTask(t, e.anon, map[string]any{"type": "text-file", "params": map[string]any{"prompt": "auto"},
			"auto_choose": c.mode, "payment_method": c.method})
		if created.Status != c.status || created.Seller == nil || (c.seller != "" && created.Seller.ID != c.seller) {
			t.Fatalf("auto_choose %s (%s): %s, seller %+v", c.mode, c.method, created.Status, created.Seller)
		}
		if c.method == "crypto" && (created.Payment == nil || created.Payment.PayableUSD >= *created.PriceUSD) {
			t.Fatalf("auto-chosen task without payment details: %+v", created.Payment)
		}
	}
}

// TestMarketPaymentApprovalTxHash: a payment item confirms the transaction the buyer reported. The
// operator may repeat that hash (any case) or leave it out; another hash is refused naming the
// field, and nothing changes.
func TestMarketPaymentApprovalTxHash(t *testing.T) {
	t.Parallel()
	e := newMarket(t)
	e.instantSeller("text-file", "2.00", 10, nil, nil)
	created, _ := createTask(t, e.anon, map[string]any{"type": "text-file", "params": map[string]any{"prompt": "pay me"}})
	buyer := e.anon.With(created.BuyerToken)
	callOp(t, buyer, contract.ChooseOffer, axp.ChooseInput{TaskRef: axp.TaskRef{ID: created.ID}, OfferID: created.Offers[0].OfferID})
	tx := newTxHash()
	callOp(t, buyer, contract.PayCryptoOp, axp.PayCryptoInput{TaskRef: axp.TaskRef{ID: created.ID}, TxHash: tx})
	item := e.approvalOf(created.ID, axp.ApprovePayment)
	_, err := doOp(e.admin, contract.AdminApprove, axp.ApproveBody{ID: item.ID, TxHash: newTxHash()})
	if ae := apiErr(t, err, axp.CodeInvalidInput, "tx_hash"); !strings.Contains(ae.Message, tx) {
		t.Fatalf("the refusal does not name the reported transaction: %+v", ae)
	}
	if got := e.approvalOf(created.ID, axp.ApprovePayment); got.Status != axp.ApprovalPending {
		t.Fatalf("after a refused approval the item is %s", got.Status)
	}
	var ok axp.Approval
	ok = *callOp(t, e.admin, contract.AdminApprove, axp.ApproveBody{ID: item.ID, TxHash: tx[:2] + strings.ToUpper(tx[2:])})
	if ok.Status != axp.ApprovalApproved || getTask(t, buyer, created.ID).Status == axp.TaskAwaitingPayment {
		t.Fatalf("approval with the reported hash: %+v", ok)
	}
}

// TestMarketBuyerSeesWhatItGave: the fields a buyer gives at creation come back in its view of the
// task, and never in a seller's.
func TestMarketBuyerSeesWhatItGave(t *testing.T) {
	t.Parallel()
	e := newMarket(t)
	s := e.instantSeller("text-file", "2.00", 10, nil, nil)
	sink := newCallbackSink(t)
	created, _ := createTask(t, e.anon, map[string]any{"type": "text-file", "params": map[string]any{"prompt": "a limerick"},
		"contact": "reach me through this exchange", "callback_url": sink.srv.URL + "/hook", "agent_name": "Limerick Bot",
		"preferred_payment": "USDC on Base", "invite_sellers": []string{s.MemberID}})
	buyer := e.anon.With(created.BuyerToken)
	for _, got := range []axp.Task{created.Task, getTask(t, buyer, created.ID)} {
		if got.Contact == "" || got.CallbackURL != sink.srv.URL+"/hook" || got.AgentName != "Limerick Bot" ||
			got.PreferredPayment != "USDC on Base" || !slices.Equal(got.InviteSellers.IDs, []string{s.MemberID}) {
			t.Fatalf("the buyer's view lacks what it gave: %+v", got)
		}
	}
	// The offers pushed to a buyer that does not sell invite it to (spec 6: also_sell).
	pushed := sink.waitFor("offers", nil)
	if o, _ := pushed["offers"].(map[string]any); o == nil || o["also_sell"] == nil ||
		!strings.HasSuffix(fmt.Sprint(o["also_sell"].(map[string]any)["join_url"]), "/join") {
		t.Fatalf("offers callback without also_sell: %v", pushed)
	}
	callOp(t, buyer, contract.ChooseOffer, axp.ChooseInput{TaskRef: axp.TaskRef{ID: created.ID}, OfferID: created.Offers[0].OfferID})
	resp, err := raw(s.c, "GET", "/api/tasks/"+created.ID, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{`"contact"`, `"callback_url"`, `"preferred_payment"`, `"invite_sellers"`, `"agent_name"`} {
		if strings.Contains(string(resp.Body), k) {
			t.Fatalf("the seller's view shows %s: %s", k, resp.Body)
		}
	}
}

// TestMarketPullQuoteLatency: a pull seller's quote latency is measured from when the task became
// visible to it, so pull sellers earn fast_quotes like push sellers; a replaced offer does not count.
func TestMarketPullQuoteLatency(t *testing.T) {
	t.Parallel()
	clock := kerneltest.NewClock(time.Now().UTC())
	e := newMarket(t, func(c *daemon.Config) { c.Now = clock.Now })
	pull := e.pullSeller("text-file", nil)
	var last axp.CreatedTask
	for i := range 5 {
		last, _ = createTask(t, e.anon, map[string]any{"type": "text-file", "params": map[string]any{"prompt": fmt.Sprint("quick ", i)}})
		clock.Add(200 * time.Millisecond)
		callOp(t, pull.c, contract.SubmitOffer, axp.OfferInput{ID: last.ID, QuoteAnswer: protocol.QuoteAnswer{PriceUSD: ptr(axp.USD(2, 0)), ETAMinutes: ptr(10)}})
	}
	clock.Add(time.Hour)
	callOp(t, pull.c, contract.SubmitOffer, axp.OfferInput{ID: last.ID, QuoteAnswer: protocol.QuoteAnswer{PriceUSD: ptr(axp.USD(1, 50)), ETAMinutes: ptr(10)}}) // replaced: not counted
	var rep axp.Reputation
	rep = *callOp(t, e.anon, contract.GetReputation, axp.IDPath{ID: pull.MemberID})
	if rep.QuoteCount != 5 || rep.MedianQuoteMillis == nil || *rep.MedianQuoteMillis != 200 {
		t.Fatalf("pull quote latency: %d quotes, median %v", rep.QuoteCount, rep.MedianQuoteMillis)
	}
	got := getTask(t, e.anon.With(last.BuyerToken), last.ID)
	if o := offerOf(t, got.Offers, pull.MemberID); !slices.Contains(o.Badges, "fast_quotes") {
		t.Fatalf("a pull seller quoting in 200 ms has badges %v", o.Badges)
	}
}

// TestMarketAnnouncementsPushed: an operator announcement is pushed to the push members of its
// audience (spec 6) and stays readable by pull; the operator sees each member's delivery: delivered,
// failed with the reason, or waiting for a pull, and who read it.
func TestMarketAnnouncementsPushed(t *testing.T) {
	t.Parallel()
	e := newMarket(t)
	push := e.newPushSeller("text-file", nil, nil, nil)
	gone := httptest.NewServer(http.NotFoundHandler())
	defer gone.Close()
	broken := e.register(map[string]any{"roles": []string{"seller"}, "mcp_url": gone.URL + "/mcp",
		"skills": []map[string]any{{"task_type": "text-file"}}})
	pull := e.pullSeller("text-file", nil)
	var ann axp.Announcement
	ann = *callOp(t, e.admin, contract.AdminAnnounce, axp.NewAnnouncement{Severity: "important", Title: "Fees change", Body: "From Monday.", Audience: "sellers"})

	got := push.waitCall("announcement", "")
	if got["announcement_id"] != ann.ID || got["title"] != "Fees change" || got["from"] != "operator" {
		t.Fatalf("pushed announcement %v", got)
	}
	status := waitFor(t, func() (axp.AnnouncementStatus, error) {
		var l axp.AnnouncementStatusList
		if err := e.admin.Call(context.Background(), "admin_announcements", nil, &l); err != nil {
			return axp.AnnouncementStatus{}, err
		}
		for _, a := range l.Announcements {
			if a.ID == ann.ID && a.Pending == 0 {
				return a, nil
			}
		}
		return axp.AnnouncementStatus{}, fmt.Errorf("pushes still pending")
	})
	by := map[string]axp.AnnouncementDelivery{}
	for _, d := range status.Deliveries {
		by[d.MemberID] = d
	}
	if d := by[push.MemberID]; d.Via != "push" || d.Status != "delivered" || d.At == nil {
		t.Fatalf("push member's delivery %+v", d)
	}
	if d := by[broken.MemberID]; d.Via != "push" || d.Status != "failed" || !strings.Contains(d.Error, "404") {
		t.Fatalf("unreachable member's delivery %+v", d)
	}
	if d := by[pull.MemberID]; d.Via != "pull" || d.Status != "waiting" || d.ReadAt != nil {
		t.Fatalf("pull member's delivery %+v", d)
	}
	if status.Delivered != 1 || status.Failed != 1 || status.Read != 0 {
		t.Fatalf("counts %+v", status)
	}
	// The pull member reads it; the operator sees the receipt.
	callOp(t, pull.c, contract.ReadAnnouncement, axp.IDPath{ID: ann.ID})
	var l axp.AnnouncementStatusList
	l = *callOp(t, e.admin, contract.AdminAnnouncements, contract.NoInput{})
	if l.Announcements[0].ID != ann.ID || l.Announcements[0].Read != 1 {
		t.Fatalf("after the read %+v", l.Announcements[0])
	}
}

// TestMarketBuyerByLinksOnly: a buyer agent that can only follow links (plain GETs, spec 4.2) posts,
// answers a seller's question, chooses, pays, messages the seller, retrieves and accepts.
func TestMarketBuyerByLinksOnly(t *testing.T) {
	t.Parallel()
	e := newMarket(t)
	pull := e.pullSeller("text-file", map[string]any{"payout_address": payoutAddress})
	get := func(path string, q url.Values, out any) {
		t.Helper()
		resp, err := raw(e.anon, "GET", path+"?"+q.Encode(), nil, nil)
		if err != nil {
			t.Fatalf("GET %s?%s: %v", path, q.Encode(), err)
		}
		if out != nil {
			if err := json.Unmarshal(resp.Body, out); err != nil {
				t.Fatal(err)
			}
		}
	}
	var created axp.CreatedTask
	get("/api/tasks/new", url.Values{"type": {"text-file"}, "prompt": {"a poem about links"}}, &created)
	tok := created.BuyerToken
	// A seller asks; the buyer answers with the answers object as JSON in one key.
	callOp(t, pull.c, contract.SubmitOffer, axp.OfferInput{ID: created.ID, QuoteAnswer: protocol.QuoteAnswer{Clarify: true, Questions: []string{"How long?"}}})
	var clarified axp.Task
	get("/api/tasks/"+created.ID+"/clarify", url.Values{"token": {tok}, "answers": {`{"How long?": "four lines"}`}}, &clarified)
	if !strings.Contains(getTaskAs(t, pull.c, created.ID).Description, "four lines") {
		t.Fatal("the answers given by GET did not reach the seller")
	}
	var offer axp.Offer
	offer = *callOp(t, pull.c, contract.SubmitOffer, axp.OfferInput{ID: created.ID, QuoteAnswer: protocol.QuoteAnswer{PriceUSD: ptr(axp.USD(2, 0)), ETAMinutes: ptr(10)}}).Offer
	var chosen axp.Task
	get("/api/tasks/"+created.ID+"/choose", url.Values{"token": {tok}, "offer_id": {offer.OfferID}}, &chosen)
	if chosen.Status != axp.TaskAwaitingPayment {
		t.Fatalf("after the GET choose: %s", chosen.Status)
	}
	get("/api/tasks/"+created.ID+"/pay/crypto", url.Values{"token": {tok}, "tx_hash": {newTxHash()}}, nil)
	e.approve(e.approvalOf(created.ID, axp.ApprovePayment).ID, false)
	var msg axp.Message
	get("/api/tasks/"+created.ID+"/messages/send", url.Values{"token": {tok}, "body": {"Thanks, looking forward to it."}}, &msg)
	if msg.Body == "" {
		t.Fatalf("message by GET: %+v", msg)
	}
	content := "links, links\nfollowed one by one\nto the end\nof the web\n"
	deliverText(t, pull.c, created.ID, content)
	get("/api/tasks/"+created.ID+"/deliverable", url.Values{"token": {tok}}, nil)
	var accepted axp.Task
	get("/api/tasks/"+created.ID+"/accept", url.Values{"token": {tok}, "sha256": {sha256Hex(content)}}, &accepted)
	if accepted.Status != axp.TaskAccepted {
		t.Fatalf("after the GET accept: %s", accepted.Status)
	}
	var review axp.ReviewResult
	get("/api/tasks/"+created.ID+"/review", url.Values{"token": {tok}, "rating": {"5"}, "comment": {"Quick and right."}}, &review)
	if review.ReviewID == "" {
		t.Fatalf("review by GET: %+v", review)
	}
	// /openapi.json lists the GET forms.
	resp, _ := raw(e.anon, "GET", "/openapi.json", nil, nil)
	for _, id := range []string{`"pay_crypto_get"`, `"post_message_get"`, `"answer_clarifications_get"`, `"submit_review_get"`} {
		if !strings.Contains(string(resp.Body), id) {
			t.Fatalf("/openapi.json lacks %s", id)
		}
	}
}

func getTaskAs(t *testing.T, c *client.Client, id string) axp.Task {
	t.Helper()
	var out axp.Task
	out = *callOp(t, c, contract.GetTask, axp.TaskQuery{TaskRef: axp.TaskRef{ID: id}})
	return out
}

// TestListMyTasksPages: list_my_tasks answers a buyer member's tasks newest first, a page at a
// time; following next_cursor reads each task once, and the other members' tasks never.
func TestListMyTasksPages(t *testing.T) {
	t.Parallel()
	e := newMarket(t)
	bm := e.register(map[string]any{"roles": []string{"buyer"}})
	other := e.register(map[string]any{"roles": []string{"buyer"}})
	var ids []string
	for i := range 5 {
		created, _ := createTask(t, bm.c, map[string]any{"type": "text-file", "params": map[string]any{"prompt": fmt.Sprintf("poem number %d", i)}})
		ids = append(ids, created.ID)
		createTask(t, other.c, map[string]any{"type": "text-file", "params": map[string]any{"prompt": "someone else's poem"}})
	}
	slices.Reverse(ids)
	var got []string
	cursor := ""
	for pages := 0; ; pages++ {
		if pages > 3 {
			t.Fatalf("still paging after 3 pages of 2: %v", got)
		}
		in := map[string]any{"limit": 2}
		if cursor != "" {
			in["cursor"] = cursor
		}
		var list axp.TaskList
		call(t, bm.c, "list_my_tasks", in, &list, client.Options{GET: true})
		if len(list.Tasks) > 2 {
			t.Fatalf("a page of %d tasks, the limit is 2", len(list.Tasks))
		}
		for _, task := range list.Tasks {
			got = append(got, task.ID)
		}
		if list.NextCursor == "" {
			break
		}
		cursor = list.NextCursor
	}
	if !slices.Equal(got, ids) {
		t.Fatalf("pages read %v, want the member's tasks newest first %v", got, ids)
	}
	var list axp.TaskList
	list = *callOp(t, bm.c, contract.ListMyTasks, axp.MyTasksQuery{})
	if !slices.Equal(taskIDs(list.Tasks), ids) || list.NextCursor != "" {
		t.Fatalf("one default page: %v, next %q", taskIDs(list.Tasks), list.NextCursor)
	}
	_, err := doOp(bm.c, contract.ListMyTasks, axp.MyTasksQuery{Cursor: "nonsense"})
	apiErr(t, err, axp.CodeInvalidInput, "cursor")
}

func taskIDs(ts []axp.Task) []string {
	out := make([]string, len(ts))
	for i, t := range ts {
		out[i] = t.ID
	}
	return out
}

// TestMarketSkillGuaranteeDefault: an offer whose answer says nothing of guarantees carries the
// skill's; an answer that names one overrides it.
func TestMarketSkillGuaranteeDefault(t *testing.T) {
	t.Parallel()
	e := newMarket(t)
	pull := e.verified(map[string]any{"roles": []string{"seller"}, "payout_address": payoutAddress,
		"skills": []map[string]any{{"task_type": "text-file", "description": "writes",
			"guarantee": map[string]any{"free_redo": 2, "refund_if_fails_checks": true}}}})
	created, _ := createTask(t, e.anon, map[string]any{"type": "text-file", "params": map[string]any{"prompt": "a report"}})
	var offer axp.Offer
	offer = *callOp(t, pull.c, contract.SubmitOffer, axp.OfferInput{ID: created.ID, QuoteAnswer: protocol.QuoteAnswer{PriceUSD: ptr(axp.USD(3, 0)), ETAMinutes: ptr(30)}}).Offer
	if offer.Guarantee.FreeRedo != 2 || !offer.Guarantee.RefundIfFailsChecks {
		t.Fatalf("an offer without a guarantee should carry the skill's: %+v", offer.Guarantee)
	}
	call(t, pull.c, "submit_offer", map[string]any{"id": created.ID, "price_usd": 3, "eta_minutes": 30,
		"guarantee": map[string]any{"free_redo": 0}}, &offer)
	if offer.Guarantee.FreeRedo != 0 || offer.Guarantee.RefundIfFailsChecks {
		t.Fatalf("the answer's own guarantee should win: %+v", offer.Guarantee)
	}
}

// TestMarketInferTranslationLanguage: a brief inferred as a translation fills target_language from
// the language it names and words from its text; one that names no language is refused with the
// param to add.
func TestMarketInferTranslationLanguage(t *testing.T) {
	t.Parallel()
	e := newMarket(t)
	created, _ := createTask(t, e.anon, map[string]any{"description": "Translate this paragraph into French: the weather is fine today."})
	if created.Type != "translation" || created.Params["target_language"] != "French" || fmt.Sprint(created.Params["words"]) != "10" {
		t.Fatalf("inferred %s with params %v (want French, and the 10 words of the text)", created.Type, created.Params)
	}
	given, _ := createTask(t, e.anon, map[string]any{"type": "translation", "params": map[string]any{"text": "bonjour tout le monde", "target_language": "en"}})
	if fmt.Sprint(given.Params["words"]) != "4" {
		t.Fatalf("a text of 4 words is priced as %v words", given.Params["words"])
	}
	_, err := doOp(e.anon, contract.CreateTask, axp.NewTask{Description: "Please translate this paragraph: the weather is fine today."})
	apiErr(t, err, axp.CodeInvalidInput, "params.target_language")
}
