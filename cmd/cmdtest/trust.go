package cmdtest

import (
	"context"
	"fmt"
	"time"

	"github.com/axp-exchange/axp"
	"github.com/axp-exchange/axp/client"
)

// Trust-and-safety fixtures: a task brought to a dispute, an appealed mediation and a review
// objection, each through the exchange's own operations.

// Deadline bounds every wait of the helpers for the exchange's background work (the Mediator
// decides in the background once both sides stated).
const Deadline = 15 * time.Second

// Poll calls f until it returns nil, failing the test with f's last error after Deadline.
func (e *Exchange) Poll(what string, f func() error) {
	e.t.Helper()
	deadline := time.Now().Add(Deadline)
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	for {
		err := f()
		if err == nil {
			return
		}
		if time.Now().After(deadline) {
			e.t.Fatalf("%s: still %v after %s", what, err, Deadline)
		}
		<-tick.C
	}
}

// confirmPayment approves the pending payment of a task.
func (e *Exchange) confirmPayment(taskID string) {
	e.t.Helper()
	var l axp.ApprovalList
	e.Call(e.Admin, "admin_approvals", map[string]any{"status": axp.ApprovalPending, "kind": axp.ApprovePayment, "task_id": taskID}, &l)
	if len(l.Approvals) != 1 {
		e.t.Fatalf("want one pending payment of %s, got %+v", taskID, l.Approvals)
	}
	e.Call(e.Admin, "admin_approve", map[string]any{"id": l.Approvals[0].ID}, nil)
}

// Delivered posts a text-file task through buyer (e.Anon for an anonymous buyer, or a buyer
// member's client), chooses seller's standing offer, pays, has the operator confirm the payment,
// the seller deliver content and the buyer retrieve it. It answers the task id and a client acting
// as the buyer (with the buyer token).
func (e *Exchange) Delivered(buyer *client.Client, seller *axp.Registered, content string) (string, *client.Client) {
	e.t.Helper()
	var created axp.CreatedTask
	e.Call(buyer, "create_task", map[string]any{"type": "text-file", "params": map[string]any{"prompt": "a short poem about the sea"}}, &created)
	offer := ""
	for _, o := range created.Offers {
		if o.Seller.ID == seller.MemberID {
			offer = o.OfferID
		}
	}
	if offer == "" {
		e.t.Fatalf("no offer of %s on %s: %+v", seller.MemberID, created.ID, created.Offers)
	}
	b := buyer.With(created.BuyerToken)
	e.Call(b, "choose_offer", map[string]any{"id": created.ID, "offer_id": offer}, nil)
	e.Call(b, "pay_crypto", map[string]any{"id": created.ID, "tx_hash": TxHash()}, nil)
	e.confirmPayment(created.ID)
	e.Call(e.Anon.With(seller.MemberSecret), "deliver", map[string]any{"id": created.ID, "content": content}, nil)
	e.Call(b, "get_deliverable", map[string]any{"id": created.ID}, new([]byte))
	return created.ID, b
}

// Disputed is Delivered by an anonymous buyer followed by a dispute. It answers the task id and
// its buyer token.
func (e *Exchange) Disputed(seller *axp.Registered) (taskID, buyerToken string) {
	e.t.Helper()
	id, b := e.Delivered(e.Anon, seller, "the sea is wide\nthe sea is deep\n")
	e.Call(b, "dispute_task", map[string]any{"id": id, "reason": "it is too short"}, nil)
	return id, b.Token
}

// Appealed is Disputed followed by an escalation (the buyer proposes an 80% refund), the seller's
// statement (20%), the Mediator's decision (the midpoint) and the seller's appeal. It answers the
// task id, its buyer token and the mediation id.
func (e *Exchange) Appealed(seller *axp.Registered) (taskID, buyerToken, mediationID string) {
	e.t.Helper()
	taskID, buyerToken = e.Disputed(seller)
	buyer, sc := e.Anon.With(buyerToken), e.Anon.With(seller.MemberSecret)
	var m axp.Mediation
	e.Call(buyer, "escalate", map[string]any{"id": taskID, "reason": "two lines instead of a poem",
		"statement": "The brief asked for a poem; two lines came.", "proposed_refund_pct": 80}, &m)
	e.Call(sc, "submit_statement", map[string]any{"id": m.ID, "statement": "Two lines are a poem.", "proposed_refund_pct": 20}, nil)
	e.WaitMediation(sc, m.ID, axp.MediationDecided)
	e.Call(sc, "appeal", map[string]any{"id": m.ID, "reason": "The brief set no length."}, nil)
	return taskID, buyerToken, m.ID
}

// WaitMediation polls a mediation through c until it reaches status.
func (e *Exchange) WaitMediation(c *client.Client, id, status string) axp.Mediation {
	e.t.Helper()
	var m axp.Mediation
	e.Poll("mediation "+id, func() error {
		if err := c.Call(context.Background(), "get_mediation", map[string]any{"id": id}, &m); err != nil {
			return err
		}
		if m.Status != status {
			return fmt.Errorf("%s, want %s", m.Status, status)
		}
		return nil
	})
	return m
}

// Objected runs a job of a buyer member to acceptance; the seller reviews the buyer (rating 2) and
// the buyer objects to the review, which opens a review_objection mediation waiting for the
// seller's statement. It answers the task id, the buyer member, the review id and the mediation.
func (e *Exchange) Objected(seller *axp.Registered) (taskID string, buyer *axp.Registered, reviewID string, m axp.Mediation) {
	e.t.Helper()
	buyer, err := e.Register(map[string]any{"roles": []string{"buyer"}})
	if err != nil {
		e.t.Fatal(err)
	}
	mc := e.Anon.With(buyer.MemberSecret)
	taskID, b := e.Delivered(mc, seller, "old pond\na frog jumps in\n")
	e.Call(b, "accept_task", map[string]any{"id": taskID}, nil)
	var r axp.ReviewResult
	e.Call(e.Anon.With(seller.MemberSecret), "submit_review", map[string]any{"id": taskID, "rating": 2, "comment": "Slow to answer."}, &r)
	e.Call(mc, "object_to_review", map[string]any{"id": r.ReviewID, "reason": "I answered within the hour.",
		"statement": "Every message was answered within the hour."}, &m)
	return taskID, buyer, r.ReviewID, m
}
