package money

import (
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"

	"github.com/axp-exchange/axp"
	"github.com/axp-exchange/axp/daemon/chain"
	"github.com/axp-exchange/axp/daemon/chain/escrow"
	"github.com/axp-exchange/axp/daemon/kernel"
	"github.com/axp-exchange/axp/daemon/money/escrowbook"
	"github.com/axp-exchange/axp/store"
	"github.com/ethereum/go-ethereum/common"
)

// Paying out a task whose money the escrow contract holds: the hot wallet, the escrow's operator,
// calls capture for the whole buyer total at the task's fee; the contract pays the seller's
// address (the payment's receiver) the net and the fee receiver the fee. The call is one transfer
// of the item (part "capture", to the escrow), signed outside the transaction, recorded sent inside
// and followed by TrackSent, resent and re-checked after a reorg like any payout transfer; it is
// confirmed only by the escrow's PaymentCaptured event for the task's payment and amount.

// capturePlan is what approving item a of task t, whose money the contract holds, sends next
// (escrowbook.Plan); a split's void follows its confirmed capture (escrowRest).
func capturePlan(t *axp.TaskRecord, a *axp.Approval) ([]axp.OutTransfer, error) {
	_, refund, _ := sendSpec(t, a)
	plan, ok := escrowbook.Plan(t, a, refund)
	if !ok {
		return nil, contractRefusal(t)
	}
	return plan, nil
}

// signEscrowCall signs the escrow's call x of task t's payment: the capture of x's amount at the
// task's fee, or the void.
func (s *Service) signEscrowCall(ctx context.Context, t *axp.TaskRecord, x axp.OutTransfer) (chain.Signed, error) {
	part := x.Part
	e := t.Authorization.Escrow
	info, err := escrow.ParseTerms(e.PaymentInfo)
	if err != nil {
		return chain.Signed{}, fmt.Errorf("task %s's escrow terms: %w", t.ID, err)
	}
	if part == escrowbook.PartCapture {
		if err := s.captureExpired(ctx, t); err != nil {
			return chain.Signed{}, err
		}
	}
	data, err := escrow.Capture(info, s.rail.Chain.Units(x.Amount), info.MinFeeBps, info.FeeReceiver)
	if part == escrowbook.PartVoid {
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
	return escrow.Emitted(r.Logs, common.HexToAddress(escrowAddr), event, common.HexToHash(hash), s.rail.Chain.Units(amount))
}

// contractRefusal refuses to move money of task t, held by the escrow contract, other than by the
// escrow's capture and void sent from the hot wallet.
func contractRefusal(t *axp.TaskRecord) error {
	return axp.Conflict(fmt.Sprintf("task %s's money is held by the escrow contract (%s, payment %s): this exchange moves it only by the escrow's capture (a payout), void (a refund) or capture then void (a split), approved without tx_hash on an exchange with a hot wallet",
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
	if x.Part == escrowbook.PartVoid {
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
	axp.ApproveSplit: "PaymentCaptured", kindSplitRefund: "PaymentVoided", reclaimKind: "PaymentReclaimed"}

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
			if escrowbook.IsCall(x.Part) && strings.EqualFold(x.TxHash, txHash) {
				return a.ID
			}
		}
	}
	return ""
}

// kindSplitRefund is the ledger kind of a split's part back to the buyer, booked apart.
const kindSplitRefund = "split_refund"

// bookContractSplit books split a of task t, whose money the escrow held, once its calls are
// confirmed: the capture's part (the seller's net and the fee) with the capture's transaction, the
// void's part (the buyer's refund) with the void's, two entries written together.
func bookContractSplit(ch *kernel.Change, t *axp.TaskRecord, a *axp.Approval, postings []axp.Posting) error {
	buyer, seller := splitParts(postings)
	hashes := map[string]string{}
	for _, x := range a.Transfers {
		if x.Status == axp.TransferConfirmed {
			hashes[x.Part] = x.TxHash
		}
	}
	for _, e := range []struct {
		kind, part string
		postings   []axp.Posting
	}{{a.Kind, escrowbook.PartCapture, seller}, {kindSplitRefund, escrowbook.PartVoid, buyer}} {
		if len(e.postings) == 0 {
			continue
		}
		if err := ch.Tx.PutLedger(&axp.LedgerEntry{ID: axp.NewID("led", ch.Now), TaskID: t.ID, Kind: e.kind,
			Postings: e.postings, ApprovalID: a.ID, TxHash: hashes[e.part], At: ch.Now}); err != nil {
			return err
		}
	}
	return nil
}

// escrowRest is the escrow call still to send for sent item id once its confirmed calls are
// mined (the void of a split whose capture is confirmed), with the item and the task; nil when
// there is none.
func escrowRest(tx *store.Tx, id string) (*axp.Approval, *axp.TaskRecord, []axp.OutTransfer, error) {
	a, err := tx.Approval(id)
	if err != nil || a == nil {
		return nil, nil, nil, err
	}
	t, rest, err := restOf(tx, a)
	return a, t, rest, err
}

// restOf is the escrow call still to send for item a, as it stands: see escrowRest.
func restOf(tx *store.Tx, a *axp.Approval) (*axp.TaskRecord, []axp.OutTransfer, error) {
	if a.Status != axp.ApprovalSent || a.Kind != axp.ApproveSplit || a.Sending() {
		return nil, nil, nil
	}
	t, err := tx.Task(a.TaskID)
	if err != nil || t == nil || !inContract(t) || reclaimedTask(t) {
		return nil, nil, err // reclaimed: the buyer took back what a void would return (settleReclaimedSplit)
	}
	rest, err := capturePlan(t, a)
	return t, rest, err
}

// sendEscrowRest sends the void of split id after its confirmed capture, as approving it sends a
// call: signed under the wallet's lock, recorded sent in one transaction, then broadcast. A crash
// before the record sends nothing (the next pass signs it again); after it, the stored bytes are
// broadcast again like any transfer in flight.
func (s *Service) sendEscrowRest(ctx context.Context, id string) {
	var rest []axp.OutTransfer
	if s.base.Store.View(func(tx *store.Tx) error { _, _, rest, _ = escrowRest(tx, id); return nil }); len(rest) == 0 {
		return
	}
	release, err := s.rail.Wallet.Acquire(ctx)
	if err != nil {
		return
	}
	defer release()
	var t *axp.TaskRecord
	if err := s.base.Store.View(func(tx *store.Tx) (err error) { _, t, rest, err = escrowRest(tx, id); return err }); err != nil || len(rest) == 0 {
		return
	}
	x := rest[0]
	signed, err := s.signEscrowCall(ctx, t, x)
	if e := (*axp.Error)(nil); errors.As(err, &e) && e.Code == axp.CodeConflict { // signEscrowCall's answer to a revert
		// The escrow would revert it (what it held was moved behind the exchange's back): the
		// item goes back to the operator with the reason, rather than being tried on every pass.
		s.failRest(ctx, id, err)
		return
	}
	if err != nil {
		s.base.Log.ErrorContext(ctx, "the escrow's "+x.Part+" of a split whose capture is confirmed cannot be signed; it is tried again on the next pass",
			"source", "payments", "approval", id, "task", t.ID, "err", err)
		return
	}
	x.TxHash, x.Nonce, x.Raw, x.Status = signed.Hash, signed.Nonce, hex.EncodeToString(signed.Raw), axp.TransferSent
	recorded := false
	if _, err := s.base.Mutate(ctx, "rail:evm", func(ch *kernel.Change) (any, error) {
		a, _, again, err := escrowRest(ch.Tx, id)
		if err != nil || len(again) != 1 || again[0].Part != x.Part {
			return nil, err
		}
		x.SentAt = ch.Now
		a.Attempt([]axp.OutTransfer{x})
		if err := ch.Tx.PutApproval(a); err != nil {
			return nil, err
		}
		recorded = true
		return nil, ch.Audit("approval.send_part", "approval", a.ID, map[string]any{"kind": a.Kind, "task": a.TaskID, "part": x.Part,
			"tx_hashes": []string{x.TxHash}, "amount_usd": x.Amount, "from": s.rail.Wallet.Address()})
	}); err != nil {
		s.base.Log.ErrorContext(ctx, "recording the escrow's "+x.Part+" of a split failed; it is tried again on the next pass", "source", "payments", "approval", id, "err", err)
		return
	}
	if !recorded {
		return
	}
	s.base.AfterScan("send-rest") // tests: between the record of the signed call and its broadcast
	raw, _ := hex.DecodeString(x.Raw)
	if berr := s.rail.Wallet.Broadcast(ctx, raw); errors.Is(berr, chain.ErrUnanswered) {
		s.base.Log.WarnContext(ctx, "the node did not answer the escrow's "+x.Part+"; it stays sent and is checked on every pass",
			"source", "payments", "approval", id, "tx_hash", x.TxHash, "err", berr)
	} else if berr != nil {
		s.base.Log.WarnContext(ctx, "the escrow's "+x.Part+" was refused", "source", "payments", "approval", id, "tx_hash", x.TxHash, "err", berr)
		s.failTransfer(ctx, id, x.TxHash, "the node refused the transaction: "+berr.Error())
	}
}

// BoundToSeller refuses a new choice of offer on task t while the escrow contract holds its
// money: the payment's receiver, fixed by the terms the buyer signed, is the address of the seller
// the task was paid for, so a capture could pay no other. The buyer cancels (the operator approves
// the void back to the payer) and posts again, authorizing a new payment for the new offer.
func BoundToSeller(t *axp.TaskRecord) error {
	if !inContract(t) || t.Received == 0 {
		return nil
	}
	e := t.Authorization.Escrow
	return axp.Conflict(fmt.Sprintf("task %s's payment is held by the escrow contract (%s, payment %s) for the seller it was paid for: the escrow can pay that seller's address only, not another offer's",
		t.ID, e.EscrowAddress, e.PaymentHash),
		"cancel the task (cancel_task): the escrow's void returns the payment to the address that paid once the operator approves it; then post the task again and pay the offer you choose")
}

// failRest puts sent split id back in the queue, failed, when the escrow refuses the call that
// follows its confirmed capture (err).
func (s *Service) failRest(ctx context.Context, id string, err error) {
	reason := "the escrow refuses the void after the confirmed capture: " + err.Error()
	s.base.Log.ErrorContext(ctx, reason, "source", "payments", "approval", id)
	if _, merr := s.base.Mutate(ctx, "rail:evm", func(ch *kernel.Change) (any, error) {
		a, _, rest, err := escrowRest(ch.Tx, id)
		if err != nil || len(rest) == 0 {
			return nil, err
		}
		if err := axp.ApprovalMachine.Move(&a.Status, axp.ApprovalFail); err != nil {
			return nil, err
		}
		a.Failure = reason
		if err := ch.Tx.PutApproval(a); err != nil {
			return nil, err
		}
		if err := ch.Audit("approval.fail", "approval", a.ID, map[string]any{"kind": a.Kind, "task": a.TaskID, "reason": reason}); err != nil {
			return nil, err
		}
		return nil, closeFailedReclaimed(ch, a)
	}); merr != nil {
		s.base.Log.ErrorContext(ctx, "recording the refused void failed; it is tried again on the next pass", "source", "payments", "approval", id, "err", merr)
	}
}
