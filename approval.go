package axp

import (
	"strconv"
	"strings"
	"time"
)

// Approval kinds: every money movement waits in the operator's queue (docs/design.md section 5).
const (
	ApprovePayment    = "payment"     // confirm a buyer's payment (manual verifier)
	ApprovePayout     = "payout"      // pay the seller after acceptance
	ApproveRefund     = "refund"      // refund the buyer in full
	ApproveSplit      = "split"       // part refund, part payout
	ApproveReleaseDue = "release_due" // the auto-release window passed: the operator decides
	// ApproveReturn sends back a transfer to the deposit address that pays no task (it names
	// none, or its task no longer waits for payment), to the address that sent it.
	ApproveReturn = "return"
)

// ApprovalKinds lists every approval kind.
var ApprovalKinds = []string{ApprovePayment, ApprovePayout, ApproveRefund, ApproveSplit, ApproveReleaseDue, ApproveReturn}

// SendsMoney reports whether approving an item of kind sends money out: a payout, refund or split.
func SendsMoney(kind string) bool {
	return kind == ApprovePayout || kind == ApproveRefund || kind == ApproveSplit || kind == ApproveReturn
}

// Approval states.
const (
	ApprovalPending  = "pending_approval"
	ApprovalHeld     = "held" // a payout waiting for the seller's payout address
	ApprovalApproved = "approved"
	ApprovalRejected = "rejected"
	// The evm payout rail: an approved payout, refund or split is "sent" while its transfers wait
	// for their confirmations, then "confirmed" (the money moved and is booked); a transfer that
	// cannot be sent or reverts makes it "failed", back in the queue to approve again or reject.
	ApprovalSent      = "sent"
	ApprovalConfirmed = "confirmed"
	ApprovalFailed    = "failed"
	// ApprovalReorged is a confirmed payment whose block left the canonical chain (a reorg deeper
	// than the confirmations): the money the exchange booked is not on chain. It stays open, first
	// in the queue, until the transfer is back in a canonical block (restored by the watcher).
	ApprovalReorged = "reorged"
	// ApprovalWrittenOff is a reorged payment whose transfer never came back, written off by the
	// operator (admin_write_off): closed, with the operator's note.
	ApprovalWrittenOff = "written_off"
)

// Why an item is held.
const (
	HoldPayoutAddress = "payout_address" // the seller has no payout address yet (also "")
	HoldReorg         = "reorg"          // a payment of the task left the canonical chain
)

// Transfer states of the evm payout rail.
const (
	TransferSent      = "sent"      // signed and stored, broadcast (again after a restart if the node lost it)
	TransferConfirmed = "confirmed" // mined, succeeded, with the configured confirmations
	TransferFailed    = "failed"    // refused by the node, replaced, or reverted
)

// OutTransfer is one stablecoin transfer the exchange's hot wallet sends for an approved item.
type OutTransfer struct {
	// Part is who receives it: "seller" (the payout, net of the fee) or "buyer" (a refund; a
	// refund over several incoming transfers sends one part each: "buyer", "buyer-2", ...).
	Part   string `json:"part"`
	To     string `json:"to"`
	Amount Money  `json:"amount_usd"`
	// Returns is the incoming transfer a buyer part gives back, to the address that sent it.
	Returns string `json:"returns_tx,omitempty"`
	// Block and BlockHash are where the transfer was confirmed, re-checked while recent: a reorg
	// deeper than the confirmations sends it again.
	Block     uint64 `json:"block,omitempty"`
	BlockHash string `json:"block_hash,omitempty"`
	TxHash    string `json:"tx_hash"`
	Nonce     uint64 `json:"nonce"`
	Status    string `json:"status"`
	Reason    string `json:"reason,omitempty"`
	// Raw is the signed transaction (hex), kept so a restart re-sends the very same transaction
	// instead of signing a second one.
	Raw    string     `json:"raw_tx,omitempty"`
	SentAt time.Time  `json:"sent_at"`
	DoneAt *time.Time `json:"done_at,omitempty"`
}

// PartlySent reports whether a transfer of the item is confirmed on chain (a failed split may have
// sent one part): such an item can only be completed.
func (a *Approval) PartlySent() bool {
	for _, x := range a.Transfers {
		if x.Status == TransferConfirmed {
			return true
		}
	}
	return false
}

// Sending reports whether a transfer of the item is on its way: sent, and neither confirmed nor
// failed yet. Its part must not be sent again meanwhile.
func (a *Approval) Sending() bool {
	for _, x := range a.Transfers {
		if x.Status == TransferSent {
			return true
		}
	}
	return false
}

// Attempt records the transfers of a sending attempt: each takes the place of the failed transfer
// of its part, so the item lists one transfer per part, the attempt in force (a retry of a transfer
// the node refused usually signs the very same transaction again: same nonce, same hash). Earlier
// attempts and why they failed stay in the audit trail (approval.send, approval.fail); confirmed
// parts are never sent again, so they are kept as they are.
func (a *Approval) Attempt(sent []OutTransfer) {
	kept := a.Transfers[:0:0]
	for _, x := range a.Transfers {
		if x.Status != TransferFailed || !sendsPart(sent, x.Part) {
			kept = append(kept, x)
		}
	}
	a.Transfers = append(kept, sent...)
}

func sendsPart(sent []OutTransfer, part string) bool {
	for _, x := range sent {
		if x.Part == part {
			return true
		}
	}
	return false
}

// SentParts are the parts of an item whose money left already: transfers of the evm rail confirmed
// on chain, and the buyer's part of a split sent by hand while the seller's part waited.
func (a *Approval) SentParts() map[string]bool {
	done := map[string]bool{}
	for _, x := range a.Transfers {
		if x.Status == TransferConfirmed {
			done[x.Part] = true
		}
	}
	if a.BuyerPartTxHash != "" {
		done["buyer"] = true
	}
	return done
}

// BuyerPart names the i-th buyer part of an item (0: "buyer").
func BuyerPart(i int) string {
	if i == 0 {
		return "buyer"
	}
	return "buyer-" + strconv.Itoa(i+1)
}

// IsBuyerPart reports whether part is a buyer part (a refund).
func IsBuyerPart(part string) bool { return part == "buyer" || strings.HasPrefix(part, "buyer-") }

// Open reports whether an item waits for the operator: pending, held, failed or reorged.
func (a *Approval) Open() bool {
	return a.Status == ApprovalPending || a.Status == ApprovalHeld || a.Status == ApprovalFailed || a.Status == ApprovalReorged
}

// Close ends an open item that needs no decision any more (how: "replaced" or "closed"), with
// note saying why; nothing moves.
func (a *Approval) Close(how, note string, at time.Time) *Error {
	if err := ApprovalMachine.Move(&a.Status, ApprovalReject); err != nil {
		return err
	}
	a.ClosedAs, a.DecidedAt, a.Note = how, &at, note
	return nil
}

// Shown is the item's status as a person reads it: how it was closed when it ended without the
// operator's rejection ("replaced", "closed"), else its status.
func (a *Approval) Shown() string {
	if a.Status == ApprovalRejected && a.ClosedAs != "" {
		return a.ClosedAs
	}
	return a.Status
}

// Hold holds a pending or failed item for why (HoldPayoutAddress, HoldReorg); an item already
// held stays held, and a reorg's hold takes precedence over the wait for a payout address.
func (a *Approval) Hold(why string) *Error {
	if a.Status != ApprovalHeld {
		if err := ApprovalMachine.Move(&a.Status, ApprovalHold); err != nil {
			return err
		}
		a.HeldFor = why
		return nil
	}
	if why == HoldReorg || a.HeldFor == "" {
		a.HeldFor = why
	}
	return nil
}

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
	PayoutAddress string `json:"payout_address,omitempty"`
	TxHash        string `json:"tx_hash,omitempty"`
	// ReturnOf is the incoming transfer a return item sends back (to PayoutAddress, its sender).
	ReturnOf string `json:"return_of,omitempty"`
	// Rail is how the money of an approved payout, refund or split moved: "manual" (the operator
	// sent it and recorded the hash) or "evm" (the exchange's hot wallet sent Transfers).
	Rail      string        `json:"rail,omitempty"`
	Transfers []OutTransfer `json:"transfers,omitempty"`
	// Booked is set once the ledger booked the item: a transfer of it that a reorg removed is sent
	// again without booking the item twice.
	Booked bool `json:"booked,omitempty"`
	// Reorged counts the times a confirmed transfer of the item left the canonical chain (a reorg
	// deeper than the confirmations); the item was then sent again, first in the queue until
	// confirmed.
	Reorged int `json:"reorged,omitempty"`
	// Failure says why the last sending failed (status failed).
	Failure string `json:"failure,omitempty"`
	// HeldFor says why a held item waits: "payout_address" (or empty) or "reorg".
	HeldFor string `json:"held_for,omitempty"`
	Reason  string `json:"reason"`
	Note    string `json:"note,omitempty"`
	// ClosedAs says how an item that ended rejected without the operator's rejection ended:
	// "replaced" (a Mediator's decision the operator's decision replaced, after an appeal) or
	// "closed" (nothing was left to decide: the task was funded otherwise, the transfer paid a
	// task after all, a payment was written off). Empty when the operator rejected it.
	ClosedAs   string        `json:"closed_as,omitempty" schema:"enum=replaced|closed"`
	Checks     []CheckResult `json:"checks,omitempty"`
	CreatedAt  time.Time     `json:"created_at"`
	DecidedAt  *time.Time    `json:"decided_at,omitempty"`
	AgeSeconds int64         `json:"age_seconds"`
}

// ApprovalsQuery filters the queue.
type ApprovalsQuery struct {
	Status string `json:"status,omitempty" schema:"enum=pending_approval|held|approved|rejected|sent|confirmed|failed|reorged|written_off|open|all" doc:"default open (pending, held, failed and reorged)"`
	Kind   string `json:"kind,omitempty" schema:"enum=payment|payout|refund|split|release_due|return"`
	TaskID string `json:"task_id,omitempty" schema:"maxLength=100"`
}

// ApprovalList is the operator's queue.
type ApprovalList struct {
	Approvals []Approval `json:"approvals"`
	// Rail is how approved payouts, refunds and splits move on this exchange: "evm" (its hot wallet
	// sends them) or "manual" (the operator sends them and records the transaction hash).
	Rail string `json:"rail" schema:"enum=evm|manual"`
	// Float is the hot wallet against the open queue (evm rail, open queue only).
	Float *Float `json:"float,omitempty"`
}

// Float compares the hot wallet's balance with what approving the open queue would send: payouts
// leave from the hot wallet's own balance while payments stay at the deposit address.
type Float struct {
	HotWalletAddress string `json:"hot_wallet_address"`
	BalanceUSD       Money  `json:"balance_usd"`
	QueuedUSD        Money  `json:"queued_usd" doc:"what approving every open payout, refund and split would send"`
	ShortUSD         Money  `json:"short_usd" doc:"what the hot wallet lacks to cover the queue (0 when it covers it)"`
	Problem          string `json:"problem,omitempty" doc:"why the balance could not be read"`
}

// ApproveBody approves an item.
type ApproveBody struct {
	ID     string `json:"id" schema:"required;maxLength=100"`
	TxHash string `json:"tx_hash,omitempty" schema:"pattern=^0x[0-9a-fA-F]{64}$" doc:"the transaction that sent the money (payouts, refunds, splits), checked on the exchange's chain when it has one; leave it out on an exchange with a hot wallet and the exchange sends it"`
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
			if a.Kind == ApproveReturn {
				name = "sender " + a.PayoutAddress
			}
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

// The approval operations.

// Earnings is what a seller's jobs paid and what is still on its way (spec 4.4: sellers see their
// money). Totals count every job; Jobs lists the newest.
type Earnings struct {
	PayoutAddress string `json:"payout_address,omitempty" doc:"where payouts go; without one, payouts are held until you set it (axp member payout-address)"`
	// PaidUSD is what was sent (payouts and the seller's parts of splits); PendingUSD waits for the
	// operator's approval or for its transfer to confirm; HeldUSD waits for a payout address or for
	// a payment whose block left the chain.
	PaidUSD    Money       `json:"paid_usd"`
	PendingUSD Money       `json:"pending_usd"`
	HeldUSD    Money       `json:"held_usd"`
	Jobs       []EarnedJob `json:"jobs" doc:"the newest 100 jobs, newest first"`
	// PayoutBalanceUSD is the payout address's stablecoin balance on the exchange's chain, when
	// the exchange has one and the node answered.
	PayoutBalanceUSD *Money `json:"payout_balance_usd,omitempty"`
	// TestMode says the exchange runs in test mode: these amounts are test money.
	TestMode bool `json:"test_mode,omitempty"`
}

// EarnedJob is one job's money as its seller sees it.
type EarnedJob struct {
	TaskID   string `json:"task_id"`
	TaskType string `json:"task_type"`
	Status   string `json:"status" doc:"the task's status"`
	PriceUSD Money  `json:"price_usd"`
	// NetUSD is the seller's part: the price after the platform fee, or its part of a split.
	NetUSD Money `json:"net_usd"`
	// Payout says where the payout stands: none (the job is not finished, or pays nothing), paid,
	// pending (awaiting approval, sent and not yet confirmed, or failed and back in the queue),
	// held (HeldFor says why) or rejected.
	Payout  string     `json:"payout" schema:"enum=none|paid|pending|held|rejected"`
	HeldFor string     `json:"held_for,omitempty" schema:"enum=payout_address|reorg"`
	TxHash  string     `json:"tx_hash,omitempty"`
	PaidAt  *time.Time `json:"paid_at,omitempty"`
}
