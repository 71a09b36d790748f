package money

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/axp-exchange/axp"
	"github.com/axp-exchange/axp/daemon/chain"
	"github.com/axp-exchange/axp/daemon/chain/escrow"
	"github.com/axp-exchange/axp/store"
	"github.com/ethereum/go-ethereum/common"
)

// Paying out a task whose money the escrow contract holds: the hot wallet, the escrow's operator,
// calls capture for the whole buyer total at the task's fee; the contract pays the seller's
// address (the payment's receiver) the net and the fee receiver the fee. The call is one transfer
// of the item (part "capture", to the escrow), signed outside the transaction, recorded sent inside
// and followed by TrackSent, resent and re-checked after a reorg like any payout transfer; it is
// confirmed only by the escrow's PaymentCaptured event for the task's payment and amount.

// The parts of an item sent by a call of the escrow: a payout's capture, a refund's void.
const (
	partCapture = "capture"
	partVoid    = "void"
)

// escrowCall reports whether part is a call of the escrow, whose money the contract pays.
func escrowCall(part string) bool { return part == partCapture || part == partVoid }

// captureFee is the fee the escrow takes when it captures price at bps: rounded down, as the
// contract rounds (the exchange's FeeFor rounds half up). The ledger books what the contract pays.
func captureFee(price axp.Money, bps int64) axp.Money { return price * axp.Money(bps) / 10_000 }

// voidEntry books the void of task t's payment: the task's contract account back to the buyer.
func voidEntry(t *axp.TaskRecord) []axp.Posting {
	return []axp.Posting{{Account: axp.ContractAccount(t.ID), Amount: -t.Received}, {Account: axp.AcctBuyerRefund, Amount: t.Received}}
}

// contractEntry is what approving item kind of task t, whose money the escrow holds, books, or nil
// when the escrow cannot move it yet.
func contractEntry(t *axp.TaskRecord, kind string) []axp.Posting {
	switch kind {
	case axp.ApprovePayout:
		return captureEntry(t)
	case axp.ApproveRefund:
		return voidEntry(t)
	}
	return nil
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

// capturePlan is what approving the payout a of task t, whose money the contract holds, sends:
// the capture, unless an earlier attempt's was confirmed.
func capturePlan(t *axp.TaskRecord, a *axp.Approval) ([]axp.OutTransfer, error) {
	part := partCapture
	switch a.Kind {
	case axp.ApprovePayout:
	case axp.ApproveRefund:
		part = partVoid
	default:
		return nil, contractRefusal(t)
	}
	if a.SentParts()[part] {
		return nil, nil
	}
	return []axp.OutTransfer{{Part: part, To: t.Authorization.Escrow.EscrowAddress, Amount: t.Received}}, nil
}

// signEscrowCall signs the escrow's call part of task t's payment: the capture of the whole
// payment at the task's fee, or its void.
func (s *Service) signEscrowCall(ctx context.Context, t *axp.TaskRecord, part string) (chain.Signed, error) {
	e := t.Authorization.Escrow
	info, err := escrow.ParseTerms(e.PaymentInfo)
	if err != nil {
		return chain.Signed{}, fmt.Errorf("task %s's escrow terms: %w", t.ID, err)
	}
	if part == partCapture {
		if err := s.captureExpired(ctx, t); err != nil {
			return chain.Signed{}, err
		}
	}
	data, err := escrow.Capture(info, info.MaxAmount, info.MinFeeBps, info.FeeReceiver)
	if part == partVoid {
		data, err = escrow.Void(info)
	}
	if err != nil {
		return chain.Signed{}, err
	}
	signed, err := s.rail.Wallet.SignCall(ctx, common.HexToAddress(e.EscrowAddress), data, "the escrow's "+part)
	if err == nil {
		return signed, nil
	}
	if errors.Is(err, chain.ErrUnanswered) {
		return signed, axp.Errorf(axp.CodeUnavailable, "the chain's node did not answer: %v", err)
	}
	if r, ok := escrow.RevertOf(err); ok {
		return signed, axp.Conflict(fmt.Sprintf("the escrow %s refuses the %s of task %s's payment %s: %s", e.EscrowAddress, part, t.ID, e.PaymentHash, r.Error()),
			"read the payment's state on the escrow (axp admin reconcile); nothing was sent")
	}
	return signed, axp.Errorf(axp.CodeUnavailable, "the hot wallet cannot send the escrow's %s: %v", part, err)
}

// called reports whether receipt r holds the escrow's event (PaymentCaptured, PaymentVoided) of
// payment hash for the whole amount.
func (s *Service) called(r chain.Receipt, event, escrowAddr, hash string, amount axp.Money) bool {
	units := s.rail.Chain.Units(amount)
	for _, l := range r.Logs {
		e, ok, err := escrow.Decode(l)
		if err != nil || !ok || e.Name != event || !chain.SameAddress(l.Address.Hex(), escrowAddr) {
			continue
		}
		if strings.EqualFold(e.Hash.Hex(), hash) && e.Amount != nil && e.Amount.Cmp(units) == 0 {
			return true
		}
	}
	return false
}

// contractRefusal refuses to move money of task t, held by the escrow contract, other than by a
// payout (capture) or a refund (void) from the hot wallet: splits are not built yet.
func contractRefusal(t *axp.TaskRecord) error {
	return axp.Conflict(fmt.Sprintf("task %s's money is held by the escrow contract (%s, payment %s): this exchange moves it only by the escrow's capture (a payout) or void (a refund), approved without tx_hash on an exchange with a hot wallet; a split is not built yet",
		t.ID, t.Authorization.Escrow.EscrowAddress, t.Authorization.Escrow.PaymentHash),
		"leave the item queued; nothing was sent")
}

// calledFor reports whether receipt r of the escrow call x (a capture or a void) confirms it for
// task taskID's payment.
func (s *Service) calledFor(taskID string, r chain.Receipt, x axp.OutTransfer) bool {
	var hash string
	s.base.Store.View(func(tx *store.Tx) error {
		if t, err := tx.Task(taskID); err == nil && t != nil && t.Authorization != nil && t.Authorization.Escrow != nil {
			hash = t.Authorization.Escrow.PaymentHash
		}
		return nil
	})
	event := "PaymentCaptured"
	if x.Part == partVoid {
		event = "PaymentVoided"
	}
	return hash != "" && s.called(r, event, x.To, hash, x.Amount)
}

// contractHeld is the amount an entry moves into or out of a task's contract account, or nil when
// it touches none.
func contractHeld(e *axp.LedgerEntry) *axp.Money {
	for _, p := range e.Postings {
		if p.Account == axp.ContractAccount(e.TaskID) {
			m := max(p.Amount, -p.Amount)
			return &m
		}
	}
	return nil
}

// contractTasks reads the escrow payment of every task the ledger has a contract account for.
func contractTasks(tx *store.Tx, entries []axp.LedgerEntry) (map[string]*axp.EscrowPayment, error) {
	out := map[string]*axp.EscrowPayment{}
	for i := range entries {
		e := &entries[i]
		if _, seen := out[e.TaskID]; seen || contractHeld(e) == nil {
			continue
		}
		t, err := tx.Task(e.TaskID)
		if err != nil {
			return nil, err
		}
		out[e.TaskID] = nil
		if t != nil && t.Authorization != nil && t.Authorization.Escrow != nil {
			out[e.TaskID] = t.Authorization.Escrow
		}
	}
	return out, nil
}

// escrowEvents is the escrow's event that a ledger entry of a contract account stands for.
var escrowEvents = map[string]string{"payment": "PaymentAuthorized", axp.ApprovePayout: "PaymentCaptured", axp.ApproveRefund: "PaymentVoided",
	reclaimKind: "PaymentReclaimed"}

// escrowGap says why the chain does not show ledger entry e of a task's contract account (its
// escrow payment p): its transaction must hold the escrow's event of the payment for the amount.
func (s *Service) escrowGap(ctx context.Context, e *axp.LedgerEntry, p *axp.EscrowPayment) string {
	event := escrowEvents[e.Kind]
	switch {
	case p == nil:
		return "the task records no escrow payment for its contract account"
	case event == "":
		return "the escrow has no such movement as " + e.Kind
	case e.TxHash == "":
		return "the entry names no transaction of the escrow"
	}
	r, gap := s.minedReceipt(ctx, e.TxHash)
	if gap != "" {
		return gap
	}
	if !s.called(r, event, p.EscrowAddress, p.PaymentHash, *contractHeld(e)) {
		return fmt.Sprintf("the transaction holds no %s of the task's escrow payment %s for %s", event, p.PaymentHash, contractHeld(e).Display())
	}
	return ""
}

// escrowDifferences compares each task's contract account with what the escrow holds for its
// payment (capturable), naming the task of any difference.
func (s *Service) escrowDifferences(ctx context.Context, entries []axp.LedgerEntry, tasks map[string]*axp.EscrowPayment) []axp.LedgerGap {
	bal := axp.Balances(entries)
	var out []axp.LedgerGap
	for id, p := range tasks {
		if p == nil {
			continue
		}
		want := bal[axp.ContractAccount(id)]
		st, err := escrow.ReadState(ctx, s.rail.Chain.Eth(), common.HexToAddress(p.EscrowAddress), common.HexToHash(p.PaymentHash))
		why := ""
		switch {
		case err != nil:
			why = "cannot read the escrow's state of the payment: " + err.Error()
		case s.rail.Chain.Money(st.Capturable) != want:
			why = fmt.Sprintf("the ledger's %s holds %s, the escrow %s holds %s capturable for payment %s",
				axp.ContractAccount(id), want.Display(), p.EscrowAddress, s.rail.Chain.Money(st.Capturable).Display(), p.PaymentHash)
		}
		if why != "" {
			out = append(out, axp.LedgerGap{TaskID: id, Kind: "escrow", Amount: want, Why: why})
		}
	}
	return out
}

// escrowCallOf is the approval whose escrow call (a capture) is transaction txHash, or "".
func escrowCallOf(tx *store.Tx, txHash string) string {
	for _, id := range tx.TxHashUses(txHash) {
		a, err := tx.Approval(id)
		if err != nil || a == nil {
			continue
		}
		for _, x := range a.Transfers {
			if escrowCall(x.Part) && strings.EqualFold(x.TxHash, txHash) {
				return a.ID
			}
		}
	}
	return ""
}
