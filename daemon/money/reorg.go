package money

import (
	"cmp"
	"context"
	"fmt"
	"strings"

	"github.com/axp-exchange/axp"
	"github.com/axp-exchange/axp/daemon/kernel"
	"github.com/axp-exchange/axp/store"
)

// reorgWindow is how many blocks past the watcher's confirmed head a credited transfer's block, and
// the cursor, are re-checked; the cursor goes back by as much when its block changed.
const reorgWindow = 64

// markCredits remembers the blocks of transfers just credited, for checkReorgs.
func markCredits(ch *kernel.Change, recs []axp.InboundTransfer) error {
	marks, err := ch.Tx.RecentCredits()
	if err != nil {
		return err
	}
	for _, r := range recs {
		if r.BlockHash == "" {
			continue
		}
		marks = append(marks, axp.ChainMark{TxHash: r.TxHash, LogIndex: r.LogIndex, Block: r.Block, BlockHash: r.BlockHash,
			TaskID: r.TaskID, Amount: r.Amount})
	}
	return ch.Tx.SetRecentCredits(marks)
}

// checkReorgs compares the recent credits and the cursor with the canonical chain (safe is the
// newest block with the configured confirmations), marks the transfers that left it, and rewinds
// the cursor when its block changed.
func (s *Service) checkReorgs(ctx context.Context, safe uint64) error {
	var marks []axp.ChainMark
	var cursor uint64
	var cursorHash string
	if err := s.base.Store.View(func(tx *store.Tx) error {
		var err error
		marks, err = tx.RecentCredits()
		cursor, _ = tx.ChainCursor()
		cursorHash = tx.ChainCursorHash()
		return err
	}); err != nil {
		return err
	}
	hashes := map[uint64]string{}
	canonical := func(n uint64) (string, error) {
		if h, ok := hashes[n]; ok {
			return h, nil
		}
		h, _, err := s.rail.Chain.BlockHash(ctx, n)
		if err == nil {
			hashes[n] = h
		}
		return h, err
	}
	key := func(m axp.ChainMark) string { return fmt.Sprintf("%s/%d", m.TxHash, m.LogIndex) }
	drop, moved := map[string]bool{}, map[string]axp.ChainMark{}
	var gone []axp.ChainMark
	for _, m := range marks {
		h, err := canonical(m.Block)
		if err != nil {
			return err
		}
		if h == m.BlockHash {
			if m.Block+reorgWindow < safe {
				drop[key(m)] = true // old enough: no longer re-checked
			}
			continue
		}
		// The block changed: the node may have mined the transaction again elsewhere.
		r, err := s.rail.Chain.Receipt(ctx, m.TxHash)
		if err != nil {
			return err
		}
		var found axp.Money
		for _, tr := range r.Transfers {
			if strings.EqualFold(tr.To, s.rail.Chain.Deposit()) {
				found += tr.Amount
			}
		}
		again := r.Found && r.Success && (found >= m.Amount || m.ApprovalID != "")
		if again && r.Confirmations < s.rail.Chain.Confirmations() {
			continue // mined again, not yet confirmed: looked at on the next pass
		}
		if again {
			if h, err := canonical(r.Block); err == nil && h == r.BlockHash {
				m.Block, m.BlockHash = r.Block, r.BlockHash
				moved[key(m)] = m
				s.base.Log.WarnContext(ctx, "a payment's block left the canonical chain, but the transaction is in another confirmed block",
					"source", "payments", "task", m.TaskID, "tx_hash", m.TxHash, "block", r.Block)
				continue
			}
		}
		gone = append(gone, m)
	}
	rewind := false
	for _, m := range gone {
		if m.ApprovalID != "" {
			if err := s.reorgSent(ctx, m); err != nil {
				return err
			}
			drop[key(m)] = true
			continue
		}
		if err := s.reorgPayment(ctx, m); err != nil {
			return err
		}
		drop[key(m)] = true
		rewind = true
	}
	if cursorHash != "" {
		h, err := canonical(cursor)
		if err != nil {
			return err
		}
		rewind = rewind || h != cursorHash
	}
	back := cursor
	if rewind {
		back = cursor - min(cursor, reorgWindow)
		for _, m := range gone {
			if m.ApprovalID == "" && m.Block > 0 && m.Block-1 < back {
				back = m.Block - 1
			}
		}
		back = min(back, safe)
	}
	var backHash string
	if rewind {
		h, err := canonical(back)
		if err != nil {
			return err
		}
		backHash = h
		s.base.Log.ErrorContext(ctx, "the chain reorganised below the payment watcher's cursor: it reads the blocks again",
			"source", "payments", "cursor", cursor, "from", back+1)
	}
	if len(drop) == 0 && len(moved) == 0 && !rewind {
		return nil
	}
	return s.base.Store.Update(func(tx *store.Tx) error {
		cur, err := tx.RecentCredits()
		if err != nil {
			return err
		}
		keep := cur[:0]
		for _, m := range cur {
			if drop[key(m)] {
				continue
			}
			if to, ok := moved[key(m)]; ok {
				m = to
			}
			keep = append(keep, m)
		}
		if err := tx.SetRecentCredits(keep); err != nil {
			return err
		}
		if !rewind {
			return nil
		}
		if err := tx.SetChainCursor(back); err != nil {
			return err
		}
		return tx.SetChainCursorHash(backHash)
	})
}

// reorgPayment marks a credited transfer whose block left the canonical chain: the transfer and
// its payment item are reorged, the task's payment says so, and every money item of the task whose
// money has not left is held.
func (s *Service) reorgPayment(ctx context.Context, m axp.ChainMark) error {
	var task string
	var inFlight []string
	var paidCall bool // the transfer settled a pay-per-call payment, not a task's
	_, err := s.base.Mutate(ctx, "verifier:evm", func(ch *kernel.Change) (any, error) {
		in, err := ch.Tx.Inbound(m.TxHash, m.LogIndex)
		if err != nil || in == nil || (in.Outcome != axp.InboundFunded && in.Outcome != axp.InboundPartial && in.Outcome != axp.InboundPaidCall) {
			return nil, err
		}
		paidCall = in.Outcome == axp.InboundPaidCall
		in.Before, in.Outcome = in.Outcome, axp.InboundReorged
		in.Note = fmt.Sprintf("its block %d (%s) left the canonical chain: the money is not on chain", m.Block, m.BlockHash)
		if err := ch.Tx.PutInbound(in); err != nil {
			return nil, err
		}
		if paidCall {
			// A pay-per-call settlement: the caller had its answer; reconcile names the money
			// missing until the transfer is back.
			return nil, ch.Audit("paid_call.reorged", "transaction", m.TxHash, map[string]any{"block": m.Block,
				"block_hash": m.BlockHash, "amount_usd": m.Amount})
		}
		t, err := kernel.LoadTask(ch.Tx, in.TaskID)
		if err != nil {
			return nil, err
		}
		task = t.ID
		list, err := ch.Tx.TaskApprovals(t.ID)
		if err != nil {
			return nil, err
		}
		for i := range list {
			a := &list[i]
			switch {
			case a.Kind == axp.ApprovePayment && a.Status == axp.ApprovalApproved && strings.EqualFold(a.TxHash, m.TxHash):
				if err := axp.ApprovalMachine.Move(&a.Status, axp.ApprovalReorg); err != nil {
					return nil, err
				}
				a.Note = "reorged: " + in.Note
			case a.Kind == axp.ApproveReturn:
				continue // it sends back a transfer of its own, not the task's money
			case axp.SendsMoney(a.Kind) && (a.Status == axp.ApprovalPending || a.Status == axp.ApprovalFailed || a.Status == axp.ApprovalHeld):
				if err := a.Hold(axp.HoldReorg); err != nil {
					return nil, err
				}
			case axp.SendsMoney(a.Kind) && a.Status == axp.ApprovalSent:
				inFlight = append(inFlight, a.ID)
				continue
			default:
				continue
			}
			if err := ch.Tx.PutApproval(a); err != nil {
				return nil, err
			}
		}
		t.Reorged, t.UpdatedAt = true, ch.Now
		if err := ch.Save(t, t.Status, "payment_reorged", map[string]any{"tx_hash": m.TxHash, "block": m.Block,
			"amount_usd": m.Amount}); err != nil {
			return nil, err
		}
		return nil, ch.Audit("payment.reorged", "transaction", m.TxHash, map[string]any{"task": t.ID, "block": m.Block,
			"block_hash": m.BlockHash, "amount_usd": m.Amount, "in_flight": inFlight})
	})
	if err == nil && paidCall {
		s.base.Log.ErrorContext(ctx, "a pay-per-call settlement left the canonical chain (a reorg deeper than confirmations): its money is not on chain; see axp admin reconcile",
			"source", "payments", "tx_hash", m.TxHash, "block", m.Block, "amount_usd", m.Amount.String())
		return nil
	}
	if err == nil && task != "" {
		s.base.Log.ErrorContext(ctx, "a payment left the canonical chain (a reorg deeper than confirmations): the task's payouts, refunds and splits are held; see axp admin reconcile",
			"source", "payments", "task", task, "tx_hash", m.TxHash, "block", m.Block, "amount_usd", m.Amount.String(), "sent_already", inFlight)
	}
	return err
}

// restorePayment undoes reorgPayment for a transaction the chain shows again, confirmed: its
// records take the new block, its payment item is approved again, and once no payment of the task
// is reorged the holds of the reorg are lifted.
func (s *Service) restorePayment(ch *kernel.Change, seen []axp.InboundTransfer, recs []axp.InboundTransfer) error {
	var taskID string
	for i := range seen {
		in := &seen[i]
		if in.Outcome != axp.InboundReorged {
			continue
		}
		taskID = in.TaskID
		in.Outcome, in.Before = cmp.Or(in.Before, axp.InboundFunded), ""
		in.Block, in.BlockHash, in.BlockTime = recs[0].Block, recs[0].BlockHash, recs[0].BlockTime
		in.Note = fmt.Sprintf("back on the canonical chain in block %d", recs[0].Block)
		if err := ch.Tx.PutInbound(in); err != nil {
			return err
		}
		if err := markCredits(ch, []axp.InboundTransfer{*in}); err != nil {
			return err
		}
	}
	if taskID == "" {
		return nil
	}
	t, err := kernel.LoadTask(ch.Tx, taskID)
	if err != nil {
		return err
	}
	list, err := ch.Tx.TaskApprovals(t.ID)
	if err != nil {
		return err
	}
	still := false
	for i := range list {
		a := &list[i]
		if a.Kind == axp.ApprovePayment && a.Status == axp.ApprovalReorged {
			if !strings.EqualFold(a.TxHash, recs[0].TxHash) {
				still = true
				continue
			}
			if err := axp.ApprovalMachine.Move(&a.Status, axp.ApprovalRestore); err != nil {
				return err
			}
			a.Note = "restored: the transaction is back on the canonical chain"
			if err := ch.Tx.PutApproval(a); err != nil {
				return err
			}
		}
	}
	if !still {
		t.Reorged = false
		for i := range list {
			a := &list[i]
			if a.Status != axp.ApprovalHeld || a.HeldFor != axp.HoldReorg {
				continue
			}
			if err := liftReorgHold(a); err != nil {
				return err
			}
			if err := ch.Tx.PutApproval(a); err != nil {
				return err
			}
		}
	}
	t.UpdatedAt = ch.Now
	if err := ch.Save(t, t.Status, "payment_restored", map[string]any{"tx_hash": recs[0].TxHash, "block": recs[0].Block}); err != nil {
		return err
	}
	s.base.Log.Warn("a reorged payment is back on the canonical chain", "source", "payments", "task", t.ID,
		"tx_hash", recs[0].TxHash, "block", recs[0].Block, "still_reorged", still)
	return ch.Audit("payment.restored", "transaction", recs[0].TxHash, map[string]any{"task": t.ID, "block": recs[0].Block})
}

// liftReorgHold releases an item held by a reorg: pending again, or still held for the seller's
// payout address.
func liftReorgHold(a *axp.Approval) error {
	a.HeldFor = ""
	if a.Kind != axp.ApproveRefund && a.PayoutAddress == "" && a.SellerNetUSD > 0 {
		a.HeldFor = axp.HoldPayoutAddress // still waits for the seller's payout address
		return nil
	}
	if err := axp.ApprovalMachine.Move(&a.Status, axp.ApprovalUnhold); err != nil {
		return err
	}
	return nil // not a nil *axp.Error in an error
}

// reorgSent handles a transfer the exchange sent (a payout, refund or split part) whose block left
// the canonical chain and that the chain does not show again: the money did not leave after all.
// The item goes back to sent, first in the operator's queue, and its transfer is broadcast again
// from the same signed bytes by the next pass (same nonce: it can pay once); its booking stands. If
// the nonce was taken meanwhile, the transfer fails and the item waits for the operator's approval
// to send that part once more.
func (s *Service) reorgSent(ctx context.Context, m axp.ChainMark) error {
	var amount axp.Money
	_, err := s.base.Mutate(ctx, "rail:evm", func(ch *kernel.Change) (any, error) {
		a, err := ch.Tx.Approval(m.ApprovalID)
		if err != nil || a == nil {
			return nil, err
		}
		// The buyer's part of a split, confirmed while the seller's part waits, is sent again the
		// same way; the item stays where it is in the queue.
		// So is a split's capture confirmed while its void is on its way: the void (the next
		// nonce) waits for it.
		part := a.Status != axp.ApprovalConfirmed
		capture := a.Status == axp.ApprovalSent && a.Kind == axp.ApproveSplit
		if part && !capture && (a.BuyerPartTxHash == "" || (!a.Open() && a.Status != axp.ApprovalSent)) {
			return nil, nil
		}
		found := false
		for i := range a.Transfers {
			x := &a.Transfers[i]
			if strings.EqualFold(x.TxHash, m.TxHash) && x.Status == axp.TransferConfirmed {
				x.Status, x.DoneAt, x.Block, x.BlockHash = axp.TransferSent, nil, 0, ""
				x.Reason = fmt.Sprintf("its block %d left the canonical chain (a reorg deeper than the confirmations): sent again", m.Block)
				amount += x.Amount
				found = true
			}
		}
		if !found {
			return nil, nil
		}
		if !part {
			if err := axp.ApprovalMachine.Move(&a.Status, axp.ApprovalUnconfirm); err != nil {
				return nil, err
			}
			a.Booked = true
		}
		a.Reorged++
		a.Note = fmt.Sprintf("reorged: transfer %s (%s) left the canonical chain in block %d; the exchange sends it again", m.TxHash, amount.Display(), m.Block)
		if err := ch.Tx.PutApproval(a); err != nil {
			return nil, err
		}
		return nil, ch.Audit("approval.reorged", "approval", a.ID, map[string]any{"kind": a.Kind, "task": a.TaskID, "tx_hash": m.TxHash,
			"block": m.Block, "amount_usd": amount})
	})
	if err == nil && amount > 0 {
		s.prom.SentReorged()
		s.base.Log.ErrorContext(ctx, "a payout, refund or split transfer left the canonical chain (a reorg deeper than confirmations): it is sent again from the same signed bytes; see axp admin approvals list",
			"source", "payments", "approval", m.ApprovalID, "task", m.TaskID, "tx_hash", m.TxHash, "block", m.Block, "amount_usd", amount.String())
	}
	return err
}
