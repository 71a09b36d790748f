package daemon_test

import (
	"context"
	"testing"

	"github.com/axp-exchange/axp"
)

// TestCancelTask: the buyer withdraws an open task and one awaiting payment; a task whose job has
// started, and one whose reported payment awaits confirmation, cannot be withdrawn; a task that
// went back to open holding a payment (the seller refused the job) is cancelled with a refund the
// operator approves, and the ledger balances.
func TestCancelTask(t *testing.T) {
	t.Parallel()
	e := newMarket(t)
	e.instantSeller("text-file", "5.00", 10, nil, map[string]any{"payout_address": payoutAddress})
	post := func(typ string) (axp.CreatedTask, func(op string, in map[string]any) (axp.Task, error)) {
		c, _ := createTask(t, e.anon, map[string]any{"type": typ, "params": map[string]any{"prompt": "cancel me"}, "description": "a job to withdraw"})
		buyer := e.anon.With(c.BuyerToken)
		return c, func(op string, in map[string]any) (axp.Task, error) {
			in["id"] = c.ID
			var out axp.Task
			err := buyer.Call(context.Background(), op, in, &out)
			return out, err
		}
	}

	open, act := post("text-file")
	got, err := act("cancel_task", map[string]any{"reason": "found it elsewhere"})
	if err != nil || got.Status != axp.TaskCancelled {
		t.Fatalf("cancel an open task: %v %+v", err, got)
	}
	_, err = act("cancel_task", map[string]any{})
	apiErr(t, err, axp.CodeConflict, "-")
	_, err = act("choose_offer", map[string]any{"offer_id": open.Offers[0].OfferID})
	apiErr(t, err, axp.CodeConflict, "-")

	unpaid, act := post("text-file")
	if _, err := act("choose_offer", map[string]any{"offer_id": unpaid.Offers[0].OfferID}); err != nil {
		t.Fatal(err)
	}
	if got, err := act("cancel_task", map[string]any{}); err != nil || got.Status != axp.TaskCancelled {
		t.Fatalf("cancel a task awaiting payment: %v %+v", err, got)
	}

	reported, act := post("text-file")
	act("choose_offer", map[string]any{"offer_id": reported.Offers[0].OfferID})
	if _, err := act("pay_crypto", map[string]any{"tx_hash": newTxHash()}); err != nil {
		t.Fatal(err)
	}
	_, err = act("cancel_task", map[string]any{})
	apiErr(t, err, axp.CodeConflict, "-")

	started, act := post("text-file")
	e.fund(e.anon.With(started.BuyerToken), started.ID, started.Offers[0].OfferID)
	_, err = act("cancel_task", map[string]any{})
	apiErr(t, err, axp.CodeConflict, "-")

	// A paid task whose seller refused the job goes back to open holding the payment.
	e.newPushSeller("cancel-refusal", map[string]func(map[string]any) any{
		"do_task": func(map[string]any) any { return map[string]any{"accepted": false, "reason": "no"} },
	}, nil, nil)
	refused, act := post("cancel-refusal")
	refusedBuyer := e.anon.With(refused.BuyerToken)
	held := e.fund(refusedBuyer, refused.ID, refused.Offers[0].OfferID)
	waitStatus(t, refusedBuyer, refused.ID, axp.TaskOpen)
	if got, err := act("cancel_task", map[string]any{}); err != nil || got.Status != axp.TaskCancelled {
		t.Fatalf("cancel a task holding a payment: %v %+v", err, got)
	}
	back := e.approvalOf(refused.ID, axp.ApproveRefund)
	if back.Status != axp.ApprovalPending || back.Amount != held {
		t.Fatalf("refund of a cancelled task %+v (held %s)", back, held)
	}
	if bal := e.balances(); bal[axp.EscrowAccount(refused.ID)] != held {
		t.Fatalf("the payment left escrow before the operator approved: %v", bal)
	}
	e.approve(back.ID, true)
	if got := getTask(t, refusedBuyer, refused.ID); got.Status != axp.TaskRefunded {
		t.Fatalf("after the refund %s", got.Status)
	}
	if bal := e.balances(); bal[axp.EscrowAccount(refused.ID)] != 0 || bal[axp.AcctBuyerRefund] != held {
		t.Fatalf("balances after the refund %v", bal)
	}
	kinds, _ := timelineKinds(t, refusedBuyer, refused.ID)
	if !containsKind(kinds, "cancel") {
		t.Fatalf("timeline %v has no cancel event", kinds)
	}
}

func containsKind(kinds []string, k string) bool {
	for _, x := range kinds {
		if x == k {
			return true
		}
	}
	return false
}
