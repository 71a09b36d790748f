package axp

import (
	"fmt"
	"time"
)

// Ledger accounts. Money moves between them in balanced entries: the postings of every entry sum
// to zero, so the sum over the whole ledger is always zero.
const (
	AcctBuyerFunds  = "external:buyer"  // what buyers sent in, negative
	AcctSellerPaid  = "external:seller" // payouts sent to sellers
	AcctBuyerRefund = "external:refund" // refunds sent to buyers
	AcctFees        = "platform:fees"   // platform fees earned
	AcctExcess      = "platform:excess" // payment tags and overpayments kept on release
	acctEscrow      = "escrow:"         // + task id: funds held for one task
)

// EscrowAccount is the account holding a task's funds.
func EscrowAccount(taskID string) string { return acctEscrow + taskID }

// Posting is one leg of a ledger entry.
type Posting struct {
	Account string `json:"account"`
	Amount  Money  `json:"amount_usd"`
}

// LedgerEntry is one balanced movement of money.
type LedgerEntry struct {
	V          int       `json:"v"`
	ID         string    `json:"id"`
	TaskID     string    `json:"task_id"`
	Kind       string    `json:"kind"` // payment, payout, refund, split
	Postings   []Posting `json:"postings"`
	ApprovalID string    `json:"approval_id,omitempty"`
	TxHash     string    `json:"tx_hash,omitempty"`
	At         time.Time `json:"at"`
}

// Sum is the sum of the entry's postings (zero for a balanced entry).
func (e *LedgerEntry) Sum() Money {
	var s Money
	for _, p := range e.Postings {
		s += p.Amount
	}
	return s
}

// Check refuses an unbalanced entry or a negative amount where none belongs.
func (e *LedgerEntry) Check() error {
	if s := e.Sum(); s != 0 {
		return fmt.Errorf("ledger entry %s (%s) does not balance: sum %s", e.ID, e.Kind, s)
	}
	return nil
}

// PaymentEntry books a confirmed payment into the task's escrow.
func PaymentEntry(taskID string, received Money) []Posting {
	return []Posting{{AcctBuyerFunds, -received}, {EscrowAccount(taskID), received}}
}

// TagLimit bounds the payable-amount tag: received amounts above the price by less than this are
// the tag; more than that is the buyer's money (an overpayment, or funds left after a cheaper
// re-choice) and goes back to the buyer.
const TagLimit Money = 10_000 // one cent

// Excess splits what escrow holds beyond the price into the tag the platform keeps on a release
// and the part owed back to the buyer.
func Excess(received, price Money) (tag, owed Money) {
	excess := received - price
	if excess <= 0 {
		return 0, 0
	}
	if excess < TagLimit {
		return excess, 0
	}
	return 0, excess
}

// SplitEntry empties a task's escrow (which holds received) into a refund to the buyer, the
// platform fee and the seller's payout. refund is taken from the price; the seller's part
// (price - refund) pays the fee frozen on the offer (bps). Anything received beyond the price goes
// back to the buyer, except a tag under one cent on a plain payout, which goes to platform:excess.
// A refund of 0 is a plain payout; a refund of the whole price is a plain refund.
func SplitEntry(taskID string, received, price, refund Money, bps int64) []Posting {
	sellerPart := price - refund
	fee := FeeFor(sellerPart, bps)
	tag, owed := Excess(received, price)
	if refund > 0 {
		owed, tag = owed+tag, 0
	}
	var ps []Posting
	ps = append(ps, Posting{EscrowAccount(taskID), -received})
	if buyer := refund + owed; buyer != 0 {
		ps = append(ps, Posting{AcctBuyerRefund, buyer})
	}
	if fee.PlatformFee != 0 {
		ps = append(ps, Posting{AcctFees, fee.PlatformFee})
	}
	if fee.SellerNet != 0 {
		ps = append(ps, Posting{AcctSellerPaid, fee.SellerNet})
	}
	if tag != 0 {
		ps = append(ps, Posting{AcctExcess, tag})
	}
	return ps
}

// Balances sums postings per account.
func Balances(entries []LedgerEntry) map[string]Money {
	b := map[string]Money{}
	for _, e := range entries {
		for _, p := range e.Postings {
			b[p.Account] += p.Amount
		}
	}
	return b
}
