package money

import (
	"fmt"
	"strings"

	"github.com/axp-exchange/axp"
	"github.com/axp-exchange/axp/daemon/kernel"
	"github.com/axp-exchange/axp/store"
)

// Returns: a transfer to the deposit address that pays no task (its amount names none and no
// sender's signature binds it, or the task it names no longer waits for payment, or it was mined
// before that task existed) is queued for the operator as a return item: approving it sends the
// money back to the address that sent it, and to no other (the hot wallet sends it, or the
// operator sends it by hand and the chain must show that). The ledger books it as received and
// returned in one entry; reconcile stops listing the transfer once it is returned.

// queueReturn queues the return of an incoming transfer that paid no task (taskID is the task it
// named, if any).
func queueReturn(ch *kernel.Change, recs []axp.InboundTransfer, amount axp.Money, taskID, why string) error {
	if amount <= 0 || recs[0].From == "" {
		return nil
	}
	a := &axp.Approval{ID: axp.NewID("apr", ch.Now), Kind: axp.ApproveReturn, Status: axp.ApprovalPending, TaskID: taskID,
		Amount: amount, RefundUSD: amount, PayoutAddress: recs[0].From, ReturnOf: recs[0].TxHash, CreatedAt: ch.Now,
		BuyerID: recs[0].From, Booking: returnBooking(amount),
		Reason: fmt.Sprintf("return %s to %s, which sent it in %s: %s", amount.Display(), recs[0].From, recs[0].TxHash, why)}
	return ch.Tx.PutApproval(a)
}

// returnBooking is the entry a return books: received from the sender, and sent back to it.
func returnBooking(amount axp.Money) []axp.Posting {
	return []axp.Posting{{Account: axp.AcctBuyerFunds, Amount: -amount}, {Account: axp.AcctBuyerRefund, Amount: amount}}
}

// returnOf is the return item of an incoming transfer, or nil.
func returnOf(tx *store.Tx, hash string) (*axp.Approval, error) {
	for _, id := range tx.TxHashUses(hash) {
		a, err := tx.Approval(id)
		if err != nil {
			return nil, err
		}
		if a != nil && a.Kind == axp.ApproveReturn && strings.EqualFold(a.ReturnOf, hash) && a.Status != axp.ApprovalRejected {
			return a, nil
		}
	}
	return nil, nil
}

// goingBack reports whether return item a is past recall: the operator approved it and some of
// its money may have left. A return still waiting, or one that failed before sending anything, can
// be closed when the transfer turns out to pay a task.
func goingBack(a *axp.Approval) bool {
	return a != nil && a.Status != axp.ApprovalPending && a.Status != axp.ApprovalHeld && a.Status != axp.ApprovalRejected &&
		(a.Status != axp.ApprovalFailed || a.PartlySent())
}

// returning reports whether an incoming transfer is being (or was) sent back: then it can fund no
// task. A return item still waiting is closed instead (the transfer pays a task after all).
func returning(ch *kernel.Change, hash, taskID string) (bool, error) {
	a, err := returnOf(ch.Tx, hash)
	if err != nil || a == nil {
		return false, err
	}
	if !goingBack(a) {
		if err := a.Close("closed", "closed: the transfer pays task "+taskID, ch.Now); err != nil {
			return false, err
		}
		return false, ch.Tx.PutApproval(a)
	}
	return true, nil
}

// returnParts is the transfer approving a return item sends: the amount back to its sender.
func returnParts(tx *store.Tx, a *axp.Approval) ([]axp.OutTransfer, error) {
	in, err := tx.InboundOf(a.ReturnOf)
	if err != nil {
		return nil, err
	}
	for _, r := range in {
		if r.Outcome == axp.InboundFunded || r.Outcome == axp.InboundPartial || r.Outcome == axp.InboundPaidCall {
			return nil, axp.Conflict("transaction "+a.ReturnOf+" was credited meanwhile ("+r.Outcome+"): there is nothing to return", "reject the item")
		}
	}
	if a.SentParts()["buyer"] {
		return nil, nil
	}
	return []axp.OutTransfer{{Part: "buyer", To: a.PayoutAddress, Amount: a.Amount, Returns: a.ReturnOf}}, nil
}

// bookReturn books an approved return and marks the incoming transfer returned.
func bookReturn(ch *kernel.Change, a *axp.Approval) error {
	if err := ch.Tx.PutLedger(&axp.LedgerEntry{ID: axp.NewID("led", ch.Now), TaskID: a.TaskID, Kind: axp.ApproveReturn,
		Postings: returnBooking(a.Amount), ApprovalID: a.ID, TxHash: a.TxHash, At: ch.Now}); err != nil {
		return err
	}
	in, err := ch.Tx.InboundOf(a.ReturnOf)
	if err != nil {
		return err
	}
	for i := range in {
		r := &in[i]
		r.Outcome, r.Note = axp.InboundReturned, "sent back to "+a.PayoutAddress+" in "+a.TxHash
		if err := ch.Tx.PutInbound(r); err != nil {
			return err
		}
	}
	return ch.Audit("transfer.returned", "transaction", a.ReturnOf, map[string]any{"approval": a.ID, "to": a.PayoutAddress,
		"amount_usd": a.Amount, "tx_hash": a.TxHash})
}

// taskOf is the task an item moves the money of. A return item moves no task's money (the
// transfer it sends back paid none): it gets a stand-in that is never saved.
func taskOf(tx *store.Tx, a *axp.Approval) (*axp.TaskRecord, error) {
	if a.Kind == axp.ApproveReturn {
		return &axp.TaskRecord{ID: a.TaskID}, nil
	}
	return kernel.LoadTask(tx, a.TaskID)
}
