package money

import (
	"fmt"
	"time"

	"github.com/axp-exchange/axp"
	"github.com/axp-exchange/axp/daemon/money/escrowbook"
)

// MoneyApproval builds a queue item that moves a task's funds: refund is the part of the price
// going back to the buyer (0 for a payout, the price for a full refund). Its figures are the
// booking approving it makes, computed from what the task received: an item whose booking cannot
// balance (a seller's part the task never received) is never queued.
func (s *Service) MoneyApproval(t *axp.TaskRecord, kind string, refund axp.Money, reason string, now time.Time) (*axp.Approval, error) {
	fee := axp.FeeFor(t.Price-refund, t.Fee.FeeBPS)
	a := &axp.Approval{ID: axp.NewID("apr", now), Kind: kind, Status: axp.ApprovalPending, TaskID: t.ID, TaskType: t.Type,
		PriceUSD: t.Price, RefundUSD: refund, SellerNetUSD: fee.SellerNet, FeeUSD: fee.PlatformFee,
		BuyerID: t.BuyerLabel(), SellerID: t.SellerID, SellerName: t.SellerName, Reason: reason, CreatedAt: now}
	switch kind {
	case axp.ApprovePayout:
		a.Amount = fee.SellerNet
		// Funds beyond the price (left after a cheaper re-choice, or overpaid) go back to the buyer
		// with the payout; a tag under one cent stays with the platform.
		if _, owed := axp.Excess(t.Received, t.Price); owed > 0 {
			a.Reason += fmt.Sprintf("; also return %s the buyer paid beyond the price", owed.Display())
		}
	default:
		a.Amount = t.Received
	}
	if axp.SendsMoney(kind) {
		// What the operator sees is what approving books: the same entry, computed now.
		a.PriceRefundUSD = refund
		booking, err := axp.SplitEntry(t.ID, t.Received, t.Price, refund, t.Fee.FeeBPS)
		if c := escrowbook.Entry(t, kind, refund); inContract(t) && c != nil {
			booking, err = c, nil // the escrow contract pays it: what the contract moves
		}
		if err != nil {
			return nil, err
		}
		a.Booking = booking
		a.RefundUSD, a.SellerNetUSD, a.FeeUSD = 0, 0, 0
		for _, p := range a.Booking {
			switch p.Account {
			case axp.AcctBuyerRefund:
				a.RefundUSD = p.Amount
			case axp.AcctSellerPaid:
				a.SellerNetUSD = p.Amount
			case axp.AcctFees:
				a.FeeUSD = p.Amount
			}
		}
		switch {
		case kind == axp.ApproveRefund:
			a.Amount = a.RefundUSD
		case kind == axp.ApprovePayout && inContract(t):
			a.Amount = a.SellerNetUSD
		}
		// A task whose payment left the canonical chain moves no money until it is back.
		if t.Reorged {
			if err := a.Hold(axp.HoldReorg); err != nil {
				return nil, err
			}
		}
	}
	if dl := t.LastDelivery(); dl != nil {
		a.Checks = dl.Checks
	}
	return a, nil
}
