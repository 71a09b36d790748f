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
	AcctLosses      = "platform:losses" // payments written off after they left the chain, negative
	acctEscrow      = "escrow:"         // + task id: funds held for one task
	acctContract    = "contract:"       // + task id: funds the escrow contract holds for one task
)

// EscrowAccount is the account holding a task's funds.
func EscrowAccount(taskID string) string { return acctEscrow + taskID }

// ContractAccount is the account of a task's funds held by the escrow contract (paid by
// pay_escrow): the buyer's money is in the contract, at no address of the exchange, so it is kept
// apart from the custodial escrow account.
func ContractAccount(taskID string) string { return acctContract + taskID }

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
	Kind       string    `json:"kind"` // payment, payout, refund, split, write_off, ...
	Postings   []Posting `json:"postings"`
	ApprovalID string    `json:"approval_id,omitempty"`
	TxHash     string    `json:"tx_hash,omitempty"`
	// Note is the operator's reason, on entries the operator books by hand (a write-off).
	Note string    `json:"note,omitempty"`
	At   time.Time `json:"at"`
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

// ContractPaymentEntry books a payment the escrow contract holds for the task.
func ContractPaymentEntry(taskID string, received Money) []Posting {
	return []Posting{{AcctBuyerFunds, -received}, {ContractAccount(taskID), received}}
}

// WriteOffEntry takes a payment of amount that never arrived (its block left the canonical chain and
// the transfer did not come back) out of the books: the buyer's side of the payment is undone, so
// the ledger no longer counts it received, and the other side comes out of the task's escrow as far
// as escrow (what the task still holds) goes; the rest left already, paid out on money that never
// came, and is the platform's loss (platform:losses, negative).
func WriteOffEntry(taskID string, amount, escrow Money) (ps []Posting, fromEscrow, loss Money) {
	fromEscrow = min(max(escrow, 0), amount)
	loss = amount - fromEscrow
	ps = []Posting{{AcctBuyerFunds, amount}}
	if fromEscrow != 0 {
		ps = append(ps, Posting{EscrowAccount(taskID), -fromEscrow})
	}
	if loss != 0 {
		ps = append(ps, Posting{AcctLosses, -loss})
	}
	return ps, fromEscrow, loss
}

// TagLimit bounds the payable-amount tag: received amounts above the price by less than this are
// kept on a release (sending back less than a cent would cost more in gas than it returns); more
// than that is the buyer's money (an overpayment, or funds left after a cheaper re-choice) and goes
// back to the buyer. Any refund returns all of the excess.
const TagLimit Money = 10_000 // one cent

// PaymentTag is the tag of a payable amount: a discount under one cent, and never more than the
// platform fee on the price (the platform gives it up, so a buyer never pays more than the price
// and the seller's net is whole), chosen from seq so that tasks awaiting payment at the same price
// have distinct payable amounts. A price with no fee gets no tag (its payment is matched by the
// reported hash, or by the exact amount when only one task waits for it).
func PaymentTag(seq uint64, price Money, bps int64) Money {
	limit := TagRoom(price, bps)
	if limit <= 0 {
		return 0
	}
	return Money(seq%uint64(limit)) + 1
}

// TagRoom is the largest payable tag at a price: under one cent, and no more than the fee.
func TagRoom(price Money, bps int64) Money {
	return max(0, min(FeeFor(price, bps).PlatformFee, TagLimit-1))
}

// Excess splits what escrow holds beyond the price into the part the platform keeps on a release
// (under one cent) and the part owed back to the buyer.
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

// SplitEntry empties a task's escrow, which holds received (what the task actually received: the
// booked payments), into a refund to the buyer, the platform fee and the seller's payout. refund is
// taken from the price; the seller's part (price - refund) pays the fee frozen on the offer (bps).
// Anything received beyond the price goes back to the buyer, except less than a cent on a plain
// payout, which goes to platform:excess. What is missing of the price (the payable tag the buyer
// did not pay, or a task paid in part) comes out of the buyer's refund first, then out of the
// platform's fee; a seller's part the task did not receive cannot be booked, and is an error: no
// booking ever sends more than came in. A refund of 0 is a plain payout; a refund of the whole price
// is a plain refund (all that was received goes back).
func SplitEntry(taskID string, received, price, refund Money, bps int64) ([]Posting, error) {
	if received < 0 || refund < 0 || refund > price {
		return nil, fmt.Errorf("task %s: no booking for received %s, price %s, refund %s", taskID, received, price, refund)
	}
	fee := FeeFor(price-refund, bps)
	buyer, platform, seller, kept := refund, fee.PlatformFee, fee.SellerNet, Money(0)
	if received >= price {
		tag, owed := Excess(received, price)
		if refund > 0 {
			owed, tag = owed+tag, 0
		}
		buyer, kept = buyer+owed, tag
	} else {
		short := price - received
		take := min(short, buyer)
		buyer, short = buyer-take, short-take
		take = min(short, platform)
		platform, short = platform-take, short-take
		if short > 0 {
			return nil, fmt.Errorf("task %s received %s: %s short of the seller's part %s, which cannot be paid",
				taskID, received.Display(), short.Display(), seller.Display())
		}
	}
	ps := []Posting{{EscrowAccount(taskID), -received}}
	if buyer != 0 {
		ps = append(ps, Posting{AcctBuyerRefund, buyer})
	}
	if platform != 0 {
		ps = append(ps, Posting{AcctFees, platform})
	}
	if seller != 0 {
		ps = append(ps, Posting{AcctSellerPaid, seller})
	}
	if kept != 0 {
		ps = append(ps, Posting{AcctExcess, kept})
	}
	if e := (LedgerEntry{ID: "booking", TaskID: taskID, Postings: ps}); e.Check() != nil {
		return nil, e.Check()
	}
	return ps, nil
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
