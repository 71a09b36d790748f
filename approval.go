package axp

import (
	"strings"
	"time"
)

// Approval kinds: every money movement waits in the operator's queue (DESIGN.md section 5).
const (
	ApprovePayment    = "payment"     // confirm a buyer's payment (manual verifier)
	ApprovePayout     = "payout"      // pay the seller after acceptance
	ApproveRefund     = "refund"      // refund the buyer in full
	ApproveSplit      = "split"       // part refund, part payout
	ApproveReleaseDue = "release_due" // the auto-release window passed: the operator decides
)

// Approval states.
const (
	ApprovalPending  = "pending_approval"
	ApprovalHeld     = "held" // a payout waiting for the seller's payout address
	ApprovalApproved = "approved"
	ApprovalRejected = "rejected"
)

// Approval is one item of the operator's queue.
type Approval struct {
	V        int    `json:"v"`
	ID       string `json:"approval_id"`
	Kind     string `json:"kind"`
	Status   string `json:"status"`
	TaskID   string `json:"task_id"`
	TaskType string `json:"task_type"`
	// Amount is what moves: the payment received, the payout (seller net), or the refund.
	Amount   Money `json:"amount_usd"`
	PriceUSD Money `json:"price_usd"`
	// RefundUSD, SellerNetUSD and FeeUSD are what the buyer, the seller and the platform receive,
	// exactly as Booking books them (the buyer's refund includes the payable tag and any
	// overpayment).
	RefundUSD    Money `json:"refund_usd"`
	SellerNetUSD Money `json:"seller_net_usd"`
	FeeUSD       Money `json:"platform_fee_usd"`
	RefundPct    *int  `json:"refund_pct,omitempty"`
	// PriceRefundUSD is the part of the price given back (the agreed refund), from which the
	// booking is computed.
	PriceRefundUSD Money `json:"price_refund_usd,omitempty"`
	// Booking is the ledger entry approving this item books, account by account (payouts, refunds
	// and splits).
	Booking []Posting `json:"booking,omitempty"`
	// BuyerPartTxHash records the buyer's refund of a split sent on its own, while the seller's part
	// is held for a payout address (the buyer's refund never waits for the seller).
	BuyerPartTxHash string     `json:"buyer_part_tx_hash,omitempty"`
	BuyerPartAt     *time.Time `json:"buyer_part_at,omitempty"`
	BuyerID         string     `json:"buyer_id"`
	SellerID        string     `json:"seller_id,omitempty"`
	SellerName      string     `json:"seller_name,omitempty"`
	// PayoutAddress is where a payout goes (operator eyes only).
	PayoutAddress string        `json:"payout_address,omitempty"`
	TxHash        string        `json:"tx_hash,omitempty"`
	Reason        string        `json:"reason"`
	Note          string        `json:"note,omitempty"`
	Checks        []CheckResult `json:"checks,omitempty"`
	CreatedAt     time.Time     `json:"created_at"`
	DecidedAt     *time.Time    `json:"decided_at,omitempty"`
	AgeSeconds    int64         `json:"age_seconds"`
}

// ApprovalsQuery filters the queue.
type ApprovalsQuery struct {
	Status string `json:"status,omitempty" schema:"enum=pending_approval|held|approved|rejected|open|all" doc:"default open (pending and held)"`
	Kind   string `json:"kind,omitempty" schema:"enum=payment|payout|refund|split|release_due"`
	TaskID string `json:"task_id,omitempty" schema:"maxLength=100"`
}

// ApprovalList is the operator's queue.
type ApprovalList struct {
	Approvals []Approval `json:"approvals"`
}

// ApproveBody approves an item.
type ApproveBody struct {
	ID     string `json:"id" schema:"required;maxLength=100"`
	TxHash string `json:"tx_hash,omitempty" schema:"pattern=^0x[0-9a-fA-F]{64}$" doc:"the transaction that sent the money (payouts, refunds, splits)"`
	Note   string `json:"note,omitempty" schema:"maxLength=2000"`
}

// RejectBody rejects an item.
type RejectBody struct {
	ID     string `json:"id" schema:"required;maxLength=100"`
	Reason string `json:"reason" schema:"required;minLength=1;maxLength=2000"`
}

// Recipients says who receives what when the item is approved, exactly as its Booking books it:
// "buyer 2.400002 · seller 5.544 · fee 0.056". It is "" for items that book nothing themselves.
func (a *Approval) Recipients() string {
	var parts []string
	for _, p := range a.Booking {
		name := ""
		switch p.Account {
		case AcctBuyerRefund:
			name = "buyer"
		case AcctSellerPaid:
			name = "seller"
		case AcctFees:
			name = "fee"
		case AcctExcess:
			name = "platform (payment tag)"
		default:
			continue
		}
		parts = append(parts, name+" "+p.Amount.Display())
	}
	return strings.Join(parts, " · ")
}
