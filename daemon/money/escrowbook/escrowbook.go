// Package escrowbook is what the escrow contract does with a task's payment, as the ledger books
// it and the hot wallet sends it: a payout's capture (the fee rounded down, as the contract takes
// it), a refund's void, and a split's capture of the seller's share then void of the rest, in that
// order.
package escrowbook

import "github.com/axp-exchange/axp"

// The parts of an item sent by a call of the escrow: a payout's capture, a refund's void.
const (
	PartCapture = "capture"
	PartVoid    = "void"
)

// IsCall reports whether part is a call of the escrow, whose money the contract pays.
func IsCall(part string) bool { return part == PartCapture || part == PartVoid }

// captureFee is the fee the escrow takes when it captures price at bps: rounded down, as the
// contract rounds (the exchange's FeeFor rounds half up). The ledger books what the contract pays.
func captureFee(price axp.Money, bps int64) axp.Money { return price * axp.Money(bps) / 10_000 }

// Entry is what approving item kind of task t, whose money the escrow holds, books (refund: the
// buyer's agreed part of the price), or nil when the escrow cannot move it.
func Entry(t *axp.TaskRecord, kind string, refund axp.Money) []axp.Posting {
	switch kind {
	case axp.ApprovePayout:
		return captureEntry(t)
	case axp.ApproveRefund:
		return voidEntry(t)
	case axp.ApproveSplit:
		return splitEntry(t, refund)
	}
	return nil
}

// voidEntry books the void of task t's payment: the task's contract account back to the buyer.
func voidEntry(t *axp.TaskRecord) []axp.Posting {
	return []axp.Posting{{Account: axp.ContractAccount(t.ID), Amount: -t.Received}, {Account: axp.AcctBuyerRefund, Amount: t.Received}}
}

// captureEntry books the capture of task t's payment: the task's contract account emptied into the
// platform's fee and the seller's payout, as the contract splits them.
func captureEntry(t *axp.TaskRecord) []axp.Posting {
	fee := captureFee(t.Received, t.Fee.FeeBPS)
	ps := []axp.Posting{{Account: axp.ContractAccount(t.ID), Amount: -t.Received}}
	if fee != 0 {
		ps = append(ps, axp.Posting{Account: axp.AcctFees, Amount: fee})
	}
	return append(ps, axp.Posting{Account: axp.AcctSellerPaid, Amount: t.Received - fee})
}

// splitAmounts divides task t's payment for a split giving the buyer refund of the price: what the
// escrow captures for the seller (the seller's share, fee included) and what its void returns.
func splitAmounts(t *axp.TaskRecord, refund axp.Money) (capture, void axp.Money) {
	capture = min(max(t.Price-refund, 0), t.Received)
	return capture, t.Received - capture
}

// splitEntry books a split of task t's payment: a capture of the seller's share (the fee rounded
// down, as the contract takes it) and the void of the rest back to the buyer.
func splitEntry(t *axp.TaskRecord, refund axp.Money) []axp.Posting {
	capture, void := splitAmounts(t, refund)
	fee := captureFee(capture, t.Fee.FeeBPS)
	ps := []axp.Posting{{Account: axp.ContractAccount(t.ID), Amount: -t.Received}}
	for _, p := range []axp.Posting{{Account: axp.AcctBuyerRefund, Amount: void}, {Account: axp.AcctFees, Amount: fee},
		{Account: axp.AcctSellerPaid, Amount: capture - fee}} {
		if p.Amount != 0 {
			ps = append(ps, p)
		}
	}
	return ps
}

// Plan is what approving item a of task t, whose money the contract holds, sends (refund: the
// buyer's part of the price in a split): a payout's capture, a refund's void, unless an earlier
// attempt's was confirmed. A split sends its capture, then its void once the capture is
// confirmed: the void returns whatever is still held, so it must never be mined before the
// capture. ok is false for an item the escrow cannot send.
func Plan(t *axp.TaskRecord, a *axp.Approval, refund axp.Money) (plan []axp.OutTransfer, ok bool) {
	to := t.Authorization.Escrow.EscrowAddress
	var parts []axp.OutTransfer
	switch a.Kind {
	case axp.ApprovePayout:
		parts = []axp.OutTransfer{{Part: PartCapture, To: to, Amount: t.Received}}
	case axp.ApproveRefund:
		parts = []axp.OutTransfer{{Part: PartVoid, To: to, Amount: t.Received}}
	case axp.ApproveSplit:
		capture, void := splitAmounts(t, refund)
		parts = []axp.OutTransfer{{Part: PartCapture, To: to, Amount: capture}, {Part: PartVoid, To: to, Amount: void}}
	default:
		return nil, false
	}
	done := a.SentParts()
	for _, x := range parts {
		if x.Amount > 0 && !done[x.Part] {
			return []axp.OutTransfer{x}, true
		}
	}
	return nil, true
}
