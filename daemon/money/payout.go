package money

import (
	"cmp"
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/axp-exchange/axp"
	"github.com/axp-exchange/axp/daemon/chain"
	"github.com/axp-exchange/axp/daemon/kernel"
	"github.com/axp-exchange/axp/daemon/money/escrowbook"
	"github.com/axp-exchange/axp/daemon/pipeline"
	"github.com/axp-exchange/axp/store"
)

// sendSpec is what approving an item books: the task trigger, the refund taken from the price and
// the action recorded.
func sendSpec(t *axp.TaskRecord, a *axp.Approval) (tr axp.Trigger, refund axp.Money, action string) {
	switch a.Kind {
	case axp.ApproveRefund:
		return axp.TrigRefund, t.Price, "refund"
	case axp.ApproveSplit:
		if a.Booking == nil {
			return axp.TrigSettle, a.RefundUSD, "settle"
		}
		return axp.TrigSettle, a.PriceRefundUSD, "settle"
	}
	return axp.TrigRelease, 0, "release"
}

// planTransfers checks that approving a would book what it showed and returns the transfers still
// to send for it (parts confirmed by an earlier attempt are not sent again).
func planTransfers(tx *store.Tx, t *axp.TaskRecord, a *axp.Approval) ([]axp.OutTransfer, error) {
	if !a.Open() || a.Status == axp.ApprovalHeld {
		return nil, axp.Conflict("approval "+a.ID+" is "+a.Status, "only a pending or failed item is approved")
	}
	if a.Kind == axp.ApproveReturn {
		return returnParts(tx, a)
	}
	if a.Sending() {
		// A part still on its way (the buyer's part of a split, sent while the seller had no
		// payout address, or the other part of a failed attempt) is not sent a second time.
		return nil, axp.Conflict("a transfer of approval "+a.ID+" is on its way", "wait for its confirmations (axp admin approvals list), then approve again")
	}
	postings := a.Booking
	if !a.Booked {
		tr, refund, _ := sendSpec(t, a)
		if _, err := axp.Next(t.Status, tr, t.Facts()); err != nil {
			return nil, err
		}
		// Nothing is signed for a booking that cannot balance or that the operator did not see.
		var err error
		if postings, err = bookingOf(t, a, refund); err != nil {
			return nil, err
		}
	}
	if inContract(t) {
		return capturePlan(t, a)
	}
	done := a.SentParts()
	var out []axp.OutTransfer
	for _, p := range postings {
		switch p.Account {
		case axp.AcctSellerPaid:
			x := axp.OutTransfer{Part: "seller", To: a.PayoutAddress, Amount: p.Amount}
			if x.To == "" {
				return nil, axp.Conflict("the seller has no payout address", "the item waits for one; the seller sets it with axp member payout-address")
			}
			if x.Amount > 0 && !done[x.Part] {
				out = append(out, x)
			}
		case axp.AcctBuyerRefund:
			if a.BuyerPartTxHash != "" {
				continue // sent by hand before
			}
			parts, err := refundParts(t, p.Amount)
			if err != nil {
				return nil, err
			}
			for _, x := range parts {
				if x.Amount > 0 && !done[x.Part] {
					out = append(out, x)
				}
			}
		}
	}
	return out, nil
}

// planBuyerPart is what the hot wallet sends for the buyer's part of split a while its seller
// has no payout address: the refund back to the addresses that paid, less parts confirmed before.
func planBuyerPart(t *axp.TaskRecord, a *axp.Approval) ([]axp.OutTransfer, error) {
	if a.Sending() {
		return nil, axp.Conflict("the hot wallet is sending the buyer's part of split "+a.ID+" already", "wait for its confirmations")
	}
	if err := checkBuyerPart(t, a); err != nil {
		return nil, err
	}
	buyer, _ := splitParts(a.Booking)
	var amount axp.Money
	for _, p := range buyer {
		if p.Account == axp.AcctBuyerRefund {
			amount += p.Amount
		}
	}
	parts, err := refundParts(t, amount)
	if err != nil {
		return nil, err
	}
	done := a.SentParts()
	var out []axp.OutTransfer
	for _, x := range parts {
		if x.Amount > 0 && !done[x.Part] {
			out = append(out, x)
		}
	}
	return out, nil
}

// plan reads approval id and what approving it sends from the hot wallet; alone is set when that
// is the buyer's part of a split whose seller part is held.
func plan(tx *store.Tx, id string) (a *axp.Approval, t *axp.TaskRecord, out []axp.OutTransfer, alone bool, err error) {
	if a, err = tx.Approval(id); err != nil {
		return nil, nil, nil, false, err
	}
	if a != nil && buyerPartAlone(a) {
		if t, err = kernel.LoadTask(tx, a.TaskID); err != nil {
			return nil, nil, nil, false, err
		}
		if inContract(t) {
			// The escrow's calls move a split whole: the void returns everything the capture left.
			return nil, nil, nil, false, contractRefusal(t)
		}
		out, err = planBuyerPart(t, a)
		return a, t, out, true, err
	}
	if a, err = loadApproval(tx, id); err != nil {
		return nil, nil, nil, false, err
	}
	if t, err = taskOf(tx, a); err != nil {
		return nil, nil, nil, false, err
	}
	out, err = planTransfers(tx, t, a)
	return a, t, out, false, err
}

// refundParts sends a refund of amount back per incoming transfer, to the address that sent each
// (the latest transfer first): never to another address, and never more to an address than it
// sent. A refund of money confirmed by hand (no sender known) goes by hand too.
func refundParts(t *axp.TaskRecord, amount axp.Money) ([]axp.OutTransfer, error) {
	out := refundSplit(t, amount, "")
	var byHand axp.Money
	for _, x := range out {
		if x.To == "" {
			byHand += x.Amount
		}
	}
	if byHand > 0 {
		return nil, axp.Invalid("tx_hash", fmt.Sprintf("is required: %s of the refund returns money whose sender the chain did not show (a payment confirmed by hand)", byHand.Display()),
			"send the buyer's refund by hand and record its transaction hash here")
	}
	return out, nil
}

// refundSplit divides a refund of amount among the transfers that paid t, each part to the
// address that sent its transfer (the latest transfer first; parts "buyer", "buyer-2", ...). A
// transfer whose sender the task does not record (confirmed by hand) is refunded to fallback, ""
// when unknown.
func refundSplit(t *axp.TaskRecord, amount axp.Money, fallback string) []axp.OutTransfer {
	paid := slices.Clone(t.Paid)
	if len(paid) == 0 {
		// Funded before each transfer was recorded with its sender: one sender was.
		paid = []axp.PaidIn{{From: t.PayerAddress, Amount: max(t.Received, amount)}}
	}
	for i := range paid {
		if paid[i].From == "" {
			paid[i].From = fallback
		}
	}
	parts, byHand, rest := axp.Refunds(paid, amount)
	var out []axp.OutTransfer
	add := func(to, returns string, amount axp.Money) {
		if i := slices.IndexFunc(out, func(x axp.OutTransfer) bool { return x.To != "" && strings.EqualFold(x.To, to) }); i >= 0 {
			out[i].Amount += amount
			return
		}
		out = append(out, axp.OutTransfer{Part: axp.BuyerPart(len(out)), To: to, Amount: amount, Returns: returns})
	}
	for _, p := range parts {
		add(p.From, p.TxHash, p.Amount)
	}
	if byHand+rest > 0 {
		add("", "", byHand+rest)
	}
	return out
}

// approveOnChain approves a payout, refund or split by sending it from the hot wallet.
func (s *Service) approveOnChain(ctx context.Context, c *pipeline.Call, in *axp.ApproveBody) (*axp.Approval, error) {
	release, err := s.rail.Wallet.Acquire(ctx)
	if err != nil {
		return nil, err
	}
	defer release()
	var sends []axp.OutTransfer
	var before *axp.Approval
	var task *axp.TaskRecord
	err = s.base.Store.View(func(tx *store.Tx) error {
		before, task, sends, _, err = plan(tx, in.ID)
		return err
	})
	if err != nil {
		return nil, err
	}
	if len(sends) == 0 {
		return nil, axp.Conflict("approval "+in.ID+" has nothing left to send", "look at it again: axp admin approvals list")
	}
	if err := s.refusedStillRefused(ctx, before, sends); err != nil {
		return nil, err
	}
	var total axp.Money
	for _, x := range sends {
		if !escrowbook.IsCall(x.Part) { // the escrow pays a capture or a void, the hot wallet only its gas
			total += x.Amount
		}
	}
	if bal, err := s.rail.Chain.BalanceOf(ctx, s.rail.Wallet.Address()); err == nil && s.rail.Chain.Money(bal) < total {
		return nil, axp.Conflict(fmt.Sprintf("%s: the hot wallet %s holds %s of the stablecoin, approving %s needs %s", chain.ErrInsufficient,
			s.rail.Wallet.Address(), s.rail.Chain.Money(bal).Display(), in.ID, total.Display()),
			"fund the hot wallet with the stablecoin and approve again, or send by hand and approve with --tx")
	}
	for i := range sends {
		if escrowbook.IsCall(sends[i].Part) {
			signed, err := s.signEscrowCall(ctx, task, sends[i])
			if err != nil {
				return nil, err
			}
			sends[i].TxHash, sends[i].Nonce, sends[i].Raw, sends[i].Status = signed.Hash, signed.Nonce, hex.EncodeToString(signed.Raw), axp.TransferSent
			continue
		}
		signed, err := s.rail.Wallet.Sign(ctx, sends[i].To, sends[i].Amount, uint64(i))
		if err != nil {
			reason := err.Error()
			if errors.Is(err, chain.ErrInsufficient) {
				return nil, axp.Conflict(reason, "fund the hot wallet with the stablecoin and approve again, or send by hand and approve with --tx")
			}
			return nil, axp.Errorf(axp.CodeUnavailable, "the hot wallet cannot send: %s", reason)
		}
		sends[i].TxHash, sends[i].Nonce, sends[i].Raw, sends[i].Status = signed.Hash, signed.Nonce, hex.EncodeToString(signed.Raw), axp.TransferSent
	}
	out, err := kernel.Apply(s.base, ctx, c, func(ch *kernel.Change) (*axp.Approval, error) {
		a, t, again, alone, err := plan(ch.Tx, in.ID)
		if err != nil {
			return nil, err
		}
		if len(again) != len(sends) {
			return nil, axp.Conflict("approval "+a.ID+" changed while it was being sent", "look at it again and approve")
		}
		now := ch.Now
		for i := range sends {
			sends[i].SentAt = now
		}
		a.Attempt(sends) // a retry replaces the failed transfer of each part it sends again
		a.Rail, a.Note, a.Failure = "evm", in.Note, ""
		event := "approval.send"
		if alone {
			// The item stays held for the seller's part; the buyer's part is booked once confirmed.
			event, a.Note = "approval.send_part", cmp.Or(in.Note, "the buyer's part is on its way; the seller's part waits for a payout address")
		} else {
			if err := axp.ApprovalMachine.Move(&a.Status, axp.ApprovalSend); err != nil {
				return nil, err
			}
			a.DecidedAt, a.TxHash = &now, sends[0].TxHash
		}
		if err := ch.Tx.PutApproval(a); err != nil {
			return nil, err
		}
		hashes := make([]string, len(sends))
		amount := a.Amount
		if alone {
			amount = 0
		}
		for i, x := range sends {
			hashes[i] = x.TxHash
			if alone {
				amount += x.Amount
			}
		}
		if err := ch.Audit(event, "approval", a.ID, map[string]any{"kind": a.Kind, "task": t.ID, "tx_hashes": hashes,
			"amount_usd": amount, "from": s.rail.Wallet.Address()}); err != nil {
			return nil, err
		}
		return a, nil
	})
	if err != nil {
		return nil, err
	}
	s.base.AfterScan("send") // tests: between the record of the signed transfers and their broadcast
	for _, x := range sends {
		raw, _ := hex.DecodeString(x.Raw)
		if berr := s.rail.Wallet.Broadcast(ctx, raw); errors.Is(berr, chain.ErrUnanswered) {
			// It may have reached the node: the item stays sent, and every pass of the watcher
			// looks for it and broadcasts the same bytes again (same nonce: it pays once).
			s.base.Log.WarnContext(ctx, "the node did not answer a payout transaction; it stays sent and is checked on every pass",
				"source", "payments", "approval", in.ID, "tx_hash", x.TxHash, "err", berr)
		} else if berr != nil {
			s.base.Log.WarnContext(ctx, "a payout transaction was refused", "source", "payments", "approval", in.ID, "tx_hash", x.TxHash, "err", berr)
			if a := s.failTransfer(ctx, in.ID, x.TxHash, "the node refused the transaction: "+berr.Error()); a != nil {
				out = a
			}
		}
	}
	if out == nil {
		return nil, nil
	}
	return redactRaw(out), nil
}

// refusedStillRefused checks, before the parts in sends are signed again, that the node holds none
// of their earlier transfers recorded failed because it refused them: a refused transaction that
// reached the chain after all (a node behind a balancer that answered for another, a broadcast
// from elsewhere) would be paid a second time by its replacement, under the next nonce. Such a
// transfer is followed as sent again, and the approval refused until the chain decides it.
func (s *Service) refusedStillRefused(ctx context.Context, a *axp.Approval, sends []axp.OutTransfer) error {
	for _, x := range a.Transfers {
		if x.Status != axp.TransferFailed || x.TxHash == "" || !slices.ContainsFunc(sends, func(y axp.OutTransfer) bool { return y.Part == x.Part }) {
			continue
		}
		known, err := s.rail.Wallet.Known(ctx, x.TxHash)
		if err != nil {
			return axp.Errorf(axp.CodeUnavailable, "the chain's node cannot say whether the earlier transfer %s was refused: %v", x.TxHash, err)
		}
		if !known {
			continue
		}
		// One mined and reverted was not refused: the chain decided it and it moved nothing (a
		// capture mined after the authorization expiry). Reviving it would only fail it again.
		if r, err := s.rail.Chain.Receipt(ctx, x.TxHash); err == nil && r.Found && !r.Success {
			continue
		}
		// A refused transaction's nonce stays free, so another item sending the same amount to
		// the same address may have signed the very same bytes since: then the transaction the
		// node holds is that item's, not a revival of this one's.
		var elsewhere bool
		if err := s.base.Store.View(func(tx *store.Tx) error {
			elsewhere, err = sentByAnother(tx, a.ID, x.TxHash)
			return err
		}); err != nil {
			return err
		}
		if elsewhere {
			continue
		}
		if _, err := s.base.Mutate(ctx, "rail:evm", func(ch *kernel.Change) (any, error) {
			return nil, reviveTransfer(ch, a.ID, x.TxHash)
		}); err != nil {
			return err
		}
		s.base.Log.ErrorContext(ctx, "a payout transaction recorded as refused is on chain after all: it is followed as sent, not signed again",
			"source", "payments", "approval", a.ID, "tx_hash", x.TxHash)
		return axp.Conflict("the "+x.Part+" transfer "+x.TxHash+" of approval "+a.ID+", recorded as refused, is known to the chain after all",
			"it is followed as sent; wait for its confirmations (axp admin approvals list)")
	}
	return nil
}

// sentByAnother reports whether an item other than id holds transfer txHash in flight or sent.
func sentByAnother(tx *store.Tx, id, txHash string) (bool, error) {
	for _, use := range tx.TxHashUses(txHash) {
		if use == id {
			continue
		}
		b, err := tx.Approval(use)
		if err != nil {
			return false, err
		}
		if b != nil && slices.ContainsFunc(b.Transfers, func(y axp.OutTransfer) bool {
			return y.Status != axp.TransferFailed && strings.EqualFold(y.TxHash, txHash)
		}) {
			return true, nil
		}
	}
	return false, nil
}

// reviveTransfer puts a failed transfer of approval id back on its way, and the item with it when
// that failure had failed the item.
func reviveTransfer(ch *kernel.Change, id, txHash string) error {
	a, err := ch.Tx.Approval(id)
	if err != nil || a == nil {
		return err
	}
	i := slices.IndexFunc(a.Transfers, func(x axp.OutTransfer) bool {
		return x.Status == axp.TransferFailed && strings.EqualFold(x.TxHash, txHash)
	})
	if i < 0 {
		return nil
	}
	x := &a.Transfers[i]
	x.Status, x.DoneAt, x.Reason = axp.TransferSent, nil, "recorded as refused, then found on chain: followed as sent"
	if a.Status == axp.ApprovalFailed {
		if err := axp.ApprovalMachine.Move(&a.Status, axp.ApprovalSend); err != nil {
			return err
		}
	}
	a.Failure = ""
	if err := ch.Tx.PutApproval(a); err != nil {
		return err
	}
	return ch.Audit("approval.revive", "approval", a.ID, map[string]any{"kind": a.Kind, "task": a.TaskID, "tx_hash": txHash})
}

// redactRaw drops the signed bytes from an answer: they are the rail's business.
func redactRaw(a *axp.Approval) *axp.Approval {
	b := *a
	b.Transfers = slices.Clone(a.Transfers)
	for i := range b.Transfers {
		b.Transfers[i].Raw = ""
	}
	return &b
}

// failTransfer marks one transfer of a sent item failed, and the item with it (back in the queue).
func (s *Service) failTransfer(ctx context.Context, approvalID, txHash, reason string) *axp.Approval {
	out, err := s.base.Mutate(ctx, "rail:evm", func(ch *kernel.Change) (any, error) {
		a, err := ch.Tx.Approval(approvalID)
		if err != nil || a == nil || (a.Status != axp.ApprovalSent && !a.Sending()) {
			return nil, err
		}
		return a, s.settleTransfers(ch, a, map[string]transferOutcome{txHash: {status: axp.TransferFailed, reason: reason}})
	})
	if err != nil {
		s.base.Log.ErrorContext(ctx, "recording a failed payout transaction failed", "source", "payments", "approval", approvalID, "err", err)
	}
	a, _ := out.(*axp.Approval)
	return a
}

type transferOutcome struct {
	status, reason string
	block          uint64 // where a confirmed transfer is
	blockHash      string
}

// settleTransfers applies what the chain said of a sent item's transfers: any failure fails the
// item; all confirmed confirms it and books it exactly as a manual approval would.
func (s *Service) settleTransfers(ch *kernel.Change, a *axp.Approval, got map[string]transferOutcome) error {
	now := ch.Now
	failed, pending := "", false
	for i := range a.Transfers {
		x := &a.Transfers[i]
		if o, ok := got[x.TxHash]; ok && x.Status == axp.TransferSent {
			x.Status, x.Reason, x.DoneAt = o.status, o.reason, &now
			x.Block, x.BlockHash = o.block, o.blockHash
			if o.status == axp.TransferFailed {
				failed = x.Part + " transfer " + x.TxHash + ": " + x.Reason
			}
		}
		if x.Status == axp.TransferSent {
			pending = true
		}
	}
	if a.Status != axp.ApprovalSent {
		return settlePart(ch, a, failed, pending)
	}
	switch {
	case failed != "":
		if err := axp.ApprovalMachine.Move(&a.Status, axp.ApprovalFail); err != nil {
			return err
		}
		a.Failure = failed
		if err := ch.Tx.PutApproval(a); err != nil {
			return err
		}
		if err := ch.Audit("approval.fail", "approval", a.ID, map[string]any{"kind": a.Kind, "task": a.TaskID, "reason": failed}); err != nil {
			return err
		}
		return closeFailedReclaimed(ch, a)
	case pending:
		return ch.Tx.PutApproval(a)
	}
	if a.Kind == axp.ApproveSplit {
		if t, err := ch.Tx.Task(a.TaskID); err != nil {
			return err
		} else if t != nil {
			if done, err := settleReclaimedSplit(ch, t, a); done || err != nil {
				return err
			}
		}
	}
	if _, rest, err := restOf(ch.Tx, a); err != nil || len(rest) > 0 {
		// A split's capture is confirmed, its void not sent yet (TrackSent sends it): the item is
		// confirmed and booked with both. The capture's block is watched meanwhile (checkReorgs).
		if err != nil {
			return err
		}
		if err := markSent(ch, a); err != nil {
			return err
		}
		return ch.Tx.PutApproval(a)
	}
	t, err := taskOf(ch.Tx, a)
	if err != nil {
		return err
	}
	if err := axp.ApprovalMachine.Move(&a.Status, axp.ApprovalConfirm); err != nil {
		return err
	}
	if !a.Booked {
		// A transfer sent again after a reorg confirms what was booked before: booked once.
		if err := s.book(ch, t, a); err != nil {
			return err
		}
		a.Booked = true
	}
	if err := markSent(ch, a); err != nil {
		return err
	}
	if err := ch.Tx.PutApproval(a); err != nil {
		return err
	}
	return ch.Audit("approval.confirm", "approval", a.ID, map[string]any{"kind": a.Kind, "task": t.ID, "tx_hash": a.TxHash, "amount_usd": a.Amount})
}

// settlePart applies what the chain said of a transfer of an item that is not sent as a whole: the
// buyer's part of a split sent while the seller's part is held (booked once confirmed), or the
// other part of an attempt that failed. A failure is noted on the item, which stays where it is
// in the queue.
func settlePart(ch *kernel.Change, a *axp.Approval, failed string, pending bool) error {
	switch {
	case failed != "":
		a.Failure = failed
		if err := ch.Tx.PutApproval(a); err != nil {
			return err
		}
		return ch.Audit("approval.fail_part", "approval", a.ID, map[string]any{"kind": a.Kind, "task": a.TaskID, "reason": failed})
	case pending:
		return ch.Tx.PutApproval(a)
	}
	if a.Kind == axp.ApproveSplit && a.BuyerPartTxHash == "" && (a.Status == axp.ApprovalHeld || a.Status == axp.ApprovalPending) && len(a.Transfers) > 0 {
		t, err := kernel.LoadTask(ch.Tx, a.TaskID)
		if err != nil {
			return err
		}
		if err := bookBuyerPart(ch, t, a, a.Transfers[0].TxHash); err != nil {
			return err
		}
		if err := ch.Audit("approval.confirm_part", "approval", a.ID, map[string]any{"kind": a.Kind, "task": a.TaskID, "part": "buyer",
			"tx_hash": a.BuyerPartTxHash, "amount_usd": a.RefundUSD}); err != nil {
			return err
		}
	}
	if err := markSent(ch, a); err != nil {
		return err
	}
	return ch.Tx.PutApproval(a)
}

// TrackSent follows the transfers in flight: broadcast again what the node lost, and settle what
// the chain decided.
func (s *Service) TrackSent(ctx context.Context) {
	var sent []axp.Approval
	s.base.Store.View(func(tx *store.Tx) error {
		if err := tx.SentApprovals(func(a *axp.Approval) bool { sent = append(sent, *a); return true }); err != nil {
			return err
		}
		// Parts on their way of items still in the queue (the buyer's part of a held split).
		return tx.OpenApprovals(func(a *axp.Approval) bool {
			if a.Status != axp.ApprovalSent && a.Sending() {
				sent = append(sent, *a)
			}
			return true
		})
	})
	for _, a := range sent {
		got := map[string]transferOutcome{}
		for _, x := range a.Transfers {
			if x.Status != axp.TransferSent {
				continue
			}
			r, err := s.rail.Chain.Receipt(ctx, x.TxHash)
			if err != nil {
				continue
			}
			switch {
			case !r.Found:
				tried, berr := s.resend(ctx, x.TxHash, x.Raw, transferInFlight(a.ID, x.TxHash))
				if !tried {
					continue
				}
				if errors.Is(berr, chain.ErrReplaced) {
					got[x.TxHash] = transferOutcome{status: axp.TransferFailed, reason: "never mined: " + berr.Error()}
				} else if berr != nil {
					s.base.Log.WarnContext(ctx, "re-sending a payout transaction failed; it is tried again", "source", "payments",
						"approval", a.ID, "tx_hash", x.TxHash, "err", berr)
				} else {
					s.base.Log.InfoContext(ctx, "payout transaction sent again (the node had lost it)", "source", "payments",
						"approval", a.ID, "tx_hash", x.TxHash)
				}
			case !r.Success:
				got[x.TxHash] = transferOutcome{status: axp.TransferFailed, reason: fmt.Sprintf("reverted in block %d", r.Block)}
			case r.Confirmations >= s.rail.Chain.Confirmations():
				if escrowbook.IsCall(x.Part) && !s.calledFor(a.TaskID, r, x) {
					got[x.TxHash] = transferOutcome{status: axp.TransferFailed, reason: fmt.Sprintf("mined in block %d without the escrow's event of the task's payment (%s)", r.Block, x.Part)}
					continue
				}
				got[x.TxHash] = transferOutcome{status: axp.TransferConfirmed, block: r.Block, blockHash: r.BlockHash}
			}
		}
		if len(got) == 0 {
			continue
		}
		id := a.ID
		if _, err := s.base.Mutate(ctx, "rail:evm", func(ch *kernel.Change) (any, error) {
			cur, err := ch.Tx.Approval(id)
			if err != nil || cur == nil || (cur.Status != axp.ApprovalSent && !cur.Sending()) {
				return nil, err
			}
			return nil, s.settleTransfers(ch, cur, got)
		}); err != nil {
			s.base.Log.ErrorContext(ctx, "settling a payout failed; it is tried again", "source", "payments", "approval", id, "err", err)
		}
	}
	// A split of the escrow's money whose capture is confirmed sends its void.
	for _, a := range sent {
		if a.Kind == axp.ApproveSplit && a.Status == axp.ApprovalSent {
			s.sendEscrowRest(ctx, a.ID)
		}
	}
}

// railName is the payout rail: "evm" with a hot wallet, else "manual".
func (s *Service) railName() string {
	if s.rail.Wallet != nil {
		return "evm"
	}
	return "manual"
}

// markSent remembers the blocks of a confirmed item's transfers, for checkReorgs: a transfer that
// leaves the canonical chain is sent again.
func markSent(ch *kernel.Change, a *axp.Approval) error {
	marks, err := ch.Tx.RecentCredits()
	if err != nil {
		return err
	}
	for _, x := range a.Transfers {
		if x.Status != axp.TransferConfirmed || x.BlockHash == "" || slices.ContainsFunc(marks, func(m axp.ChainMark) bool {
			return strings.EqualFold(m.TxHash, x.TxHash) && m.BlockHash == x.BlockHash
		}) {
			continue // a part confirmed before the rest is watched once
		}
		marks = append(marks, axp.ChainMark{TxHash: x.TxHash, Block: x.Block, BlockHash: x.BlockHash, TaskID: a.TaskID,
			Amount: x.Amount, ApprovalID: a.ID})
	}
	return ch.Tx.SetRecentCredits(marks)
}

// resend broadcasts a transaction the hot wallet signed before (a payout's, or the submission of a
// buyer's authorization) again when the node does not know it (it lost it, or a reorg dropped it):
// the same bytes, so it can be mined once. tried is false when the node knows it, or could not say,
// or when the store no longer holds it in flight: still reads that, once the wallet is taken, so a
// transfer recorded failed while this pass waited for the wallet (the node refused it, and the
// operator may already have signed its replacement) is never broadcast after all.
func (s *Service) resend(ctx context.Context, txHash, rawHex string, still func(tx *store.Tx) bool) (tried bool, err error) {
	if known, err := s.rail.Wallet.Known(ctx, txHash); err != nil || known {
		return false, nil
	}
	s.base.AfterScan("resend")
	defer s.base.AfterScan("resent")
	raw, _ := hex.DecodeString(rawHex)
	release, err := s.rail.Wallet.Acquire(ctx)
	if err != nil {
		return true, err
	}
	defer release()
	inFlight := false
	if err := s.base.Store.View(func(tx *store.Tx) error { inFlight = still(tx); return nil }); err != nil || !inFlight {
		return false, err
	}
	return true, s.rail.Wallet.Broadcast(ctx, raw)
}

// transferInFlight reads whether transfer txHash of approval id is still on its way.
func transferInFlight(id, txHash string) func(tx *store.Tx) bool {
	return func(tx *store.Tx) bool {
		a, err := tx.Approval(id)
		if err != nil || a == nil {
			return false
		}
		return slices.ContainsFunc(a.Transfers, func(x axp.OutTransfer) bool {
			return x.Status == axp.TransferSent && strings.EqualFold(x.TxHash, txHash)
		})
	}
}
