package daemon_test

import (
	"errors"
	"testing"
	"time"

	"github.com/axp-exchange/axp"
	"github.com/axp-exchange/axp/client"
	"github.com/axp-exchange/axp/contract"
	"github.com/axp-exchange/axp/daemon"
	"github.com/axp-exchange/axp/daemon/kernel/kerneltest"
)

// TestSweeperDecidesInTheTransactionThatActs: the sweeper reads what is due, then acts in write
// transactions. A buyer who chooses, pays or accepts in between must win: the sweeper decides again
// on what the acting transaction reads. The hook runs the buyer's steps exactly between the scan
// and the actions.
func TestSweeperDecidesInTheTransactionThatActs(t *testing.T) {
	eachStore(t, testSweeperDecidesInTheTransactionThatActs)
}

func testSweeperDecidesInTheTransactionThatActs(t *testing.T) {
	t.Parallel()
	clock := kerneltest.NewClock(time.Now().UTC())
	e := newMarket(t, func(c *daemon.Config) { c.Now = clock.Now })
	seller := e.instantSeller("text-file", "5.00", 10, nil, map[string]any{"payout_address": payoutAddress})
	post := func() (axp.CreatedTask, *client.Client) {
		c, _ := createTask(t, e.anon, map[string]any{"type": "text-file", "params": map[string]any{"prompt": "race"}})
		return c, e.anon.With(c.BuyerToken)
	}
	open, openBuyer := post()
	unpaid, unpaidBuyer := post()
	callOp(t, unpaidBuyer, contract.ChooseOffer, axp.ChooseInput{TaskRef: axp.TaskRef{ID: unpaid.ID}, OfferID: unpaid.Offers[0].OfferID})
	delivered, deliveredBuyer := post()
	e.fund(deliveredBuyer, delivered.ID, delivered.Offers[0].OfferID)
	content := "delivered before the race\n"
	deliverText(t, seller.c, delivered.ID, content)
	retrieve(t, deliveredBuyer, delivered.ID)

	// The open and payment windows pass. Between the scan and the actions the buyer of the open
	// task chooses and reports a payment, and the buyer of the unpaid task reports one.
	clock.Add(24*time.Hour + time.Minute)
	raced := 0
	e.d.SetAfterScan(func(what string) {
		if what != "tasks" || raced > 0 {
			return
		}
		raced++
		callOp(t, openBuyer, contract.ChooseOffer, axp.ChooseInput{TaskRef: axp.TaskRef{ID: open.ID}, OfferID: open.Offers[0].OfferID})
		callOp(t, openBuyer, contract.PayCryptoOp, axp.PayCryptoInput{TaskRef: axp.TaskRef{ID: open.ID}, TxHash: newTxHash()})
		callOp(t, unpaidBuyer, contract.PayCryptoOp, axp.PayCryptoInput{TaskRef: axp.TaskRef{ID: unpaid.ID}, TxHash: newTxHash()})
	})
	if n := e.d.Sweep(); n != 0 || raced != 1 {
		t.Fatalf("the sweep changed %d tasks (hook ran %d times); both buyers acted before it did", n, raced)
	}
	for _, c := range []struct {
		b  *client.Client
		id string
	}{{openBuyer, open.ID}, {unpaidBuyer, unpaid.ID}} {
		got := getTask(t, c.b, c.id)
		if got.Status != axp.TaskAwaitingPayment || got.Payment == nil || got.Payment.TxHash == "" {
			t.Fatalf("task %s after the race: %s %+v", c.id, got.Status, got.Payment)
		}
		// The reported payment is confirmed by the operator: the task is funded, not lost.
		for _, a := range e.approvals(c.id) {
			if a.Kind == axp.ApprovePayment && a.Status == axp.ApprovalPending {
				e.approve(a.ID, false)
			}
		}
		if got := getTask(t, c.b, c.id); got.Status == axp.TaskAwaitingPayment || got.Status == axp.TaskExpired {
			t.Fatalf("task %s after the operator confirmed its payment: %s", c.id, got.Status)
		}
	}

	// The auto-release window passes; the buyer accepts between the scan and the action.
	clock.Add(48 * time.Hour)
	raced = 0
	e.d.SetAfterScan(func(what string) {
		if what != "tasks" || raced > 0 {
			return
		}
		raced++
		callOp(t, deliveredBuyer, contract.AcceptTask, axp.AcceptInput{TaskRef: axp.TaskRef{ID: delivered.ID}, SHA256: sha256Hex(content)})
	})
	if n := e.d.Sweep(); n != 0 || raced != 1 {
		t.Fatalf("the sweep changed %d tasks (hook ran %d times); the buyer accepted before it acted", n, raced)
	}
	if got := getTask(t, deliveredBuyer, delivered.ID); got.Status != axp.TaskAccepted || got.ReleaseDue {
		t.Fatalf("accepted task after the sweep: %s release_due=%v", got.Status, got.ReleaseDue)
	}
	for _, a := range e.approvals(delivered.ID) {
		if a.Kind == axp.ApproveReleaseDue {
			t.Fatalf("a release-due item was queued for an accepted task: %+v", a)
		}
	}
	e.d.SetAfterScan(nil)
}

// TestSweeperLivenessSparesAMemberHeardFrom: a pull member that checks in between the liveness scan
// and its action is not charged with a missed check-in (two misses make it unreachable).
func TestSweeperLivenessSparesAMemberHeardFrom(t *testing.T) {
	t.Parallel()
	clock := kerneltest.NewClock(time.Now().UTC())
	e := newMarket(t, func(c *daemon.Config) { c.Now = clock.Now })
	seller := e.pullSeller("text-file", nil)
	clock.Add(25 * time.Hour)
	e.d.Liveness() // one missed check-in
	clock.Add(24 * time.Hour)
	e.d.SetAfterScan(func(what string) {
		if what == "liveness" {
			callOp(t, seller.c, contract.HeartbeatOp, axp.EmptyInput{})
		}
	})
	e.d.Liveness()
	e.d.SetAfterScan(nil)
	var p axp.PrivateMember
	p = *callOp(t, seller.c, contract.GetMyProfile, contract.NoInput{})
	if p.State != axp.MemberVerified {
		t.Fatalf("a member that checked in during the sweep is %s", p.State)
	}
}

// TestSweeperMediationSeesALateStatement: the statement window ended with only the buyer's
// statement; the seller's arrives while the Mediator decides. The decision is taken again with it.
func TestSweeperMediationSeesALateStatement(t *testing.T) {
	t.Parallel()
	clock := kerneltest.NewClock(time.Now().UTC())
	e := newMarket(t, func(c *daemon.Config) { c.Now = clock.Now; c.MediationWindow = 2 * time.Hour })
	seller := e.pullSeller("text-file", map[string]any{"payout_address": payoutAddress})
	created, buyer, _ := e.disputedTask(seller, "6.00", nil)
	var med axp.Mediation
	med = *callOp(t, buyer, contract.Escalate, axp.EscalateBody{TaskRef: axp.TaskRef{ID: created.ID}, Reason: "nothing useful", Statement: "Half of the lines are missing."})
	clock.Add(2*time.Hour + time.Minute)
	stated := 0
	e.d.SetAfterScan(func(what string) {
		if what == "mediation" && stated == 0 {
			stated++
			callOp(t, seller.c, contract.SubmitStatement, axp.StatementBody{
				TaskRef:           axp.TaskRef{ID: med.ID},
				Statement:         "Every line the prompt asked for is there.",
				ProposedRefundPct: ptr(0),
			})
		}
	})
	e.d.Sweep()
	e.d.SetAfterScan(nil)
	m := waitFor(t, func() (axp.Mediation, error) {
		m := getMediation(t, buyer, med.ID)
		if m.Status != axp.MediationDecided {
			return m, errors.New("not decided yet")
		}
		return m, nil
	})
	if m.Decision.Rule == "seller_silent" || len(m.Statements) != 2 {
		t.Fatalf("the decision ignored the seller's statement: rule %s, %d statements", m.Decision.Rule, len(m.Statements))
	}
}
