package money

import (
	"context"
	"slices"
	"strings"

	"github.com/axp-exchange/axp"
	"github.com/axp-exchange/axp/daemon/kernel"
	"github.com/axp-exchange/axp/daemon/pipeline"
)

// adminWriteOff closes the case of a reorged payment that never came back (admin_write_off). The
// money is not on chain, so the ledger must stop counting it received: one balanced write_off
// entry undoes the buyer's side of the payment, takes what the task still holds of it out of
// escrow, and books the rest (paid out before the reorg was noticed) to platform:losses. The
// task's open payouts, refunds and splits were computed on that money and are closed; the inbound
// record and the payment item say written_off with the operator's note. All in one transaction.
func (s *Service) adminWriteOff(ctx context.Context, c *pipeline.Call, in *axp.WriteOffInput) (*axp.WriteOff, error) {
	hash := strings.ToLower(in.TxHash)
	note := strings.TrimSpace(in.Note)
	if note == "" {
		return nil, axp.Invalid("note", "is required: say why the payment is written off", "the note is kept in the ledger, the audit trail and the task's timeline")
	}
	out, err := kernel.Apply(s.base, ctx, c, func(ch *kernel.Change) (*axp.WriteOff, error) {
		recs, err := ch.Tx.InboundOf(hash)
		if err != nil {
			return nil, err
		}
		var payments []*axp.LedgerEntry // the entries that booked the payment
		for _, id := range ch.Tx.TxHashUses(hash) {
			if !strings.HasPrefix(id, "led_") {
				continue
			}
			e, err := ch.Tx.LedgerEntry(id)
			if err != nil {
				return nil, err
			}
			if e == nil {
				continue
			}
			if e.Kind == "write_off" {
				return nil, axp.Conflict("payment "+hash+" was written off already (ledger entry "+e.ID+")", "see it with axp admin reconcile and the task's timeline")
			}
			if e.Kind == "payment" {
				payments = append(payments, e)
			}
		}
		if len(recs) == 0 && len(payments) == 0 {
			return nil, axp.NotFound("payment", hash)
		}
		var reorged []axp.InboundTransfer
		outcome := "confirmed by hand"
		for _, r := range recs {
			outcome = r.Outcome
			if r.Outcome == axp.InboundReorged {
				reorged = append(reorged, r)
			}
		}
		if len(reorged) == 0 || len(payments) == 0 {
			return nil, axp.Conflict("payment "+hash+" is not reorged (it is "+outcome+"): only a payment whose block left the canonical chain, and that never came back, can be written off",
				"axp admin reconcile lists the reorged payments among the missing transfers")
		}
		t, err := kernel.LoadTask(ch.Tx, reorged[0].TaskID)
		if err != nil {
			return nil, err
		}
		list, err := ch.Tx.TaskApprovals(t.ID)
		if err != nil {
			return nil, err
		}
		var item *axp.Approval
		still := false // another payment of the task is still off the chain
		for i := range list {
			a := &list[i]
			if a.Kind != axp.ApprovePayment || a.Status != axp.ApprovalReorged {
				continue
			}
			if strings.EqualFold(a.TxHash, hash) {
				item = a
			} else {
				still = true
			}
		}
		if item == nil {
			return nil, axp.Conflict("payment "+hash+" of task "+t.ID+" has no reorged payment item: there is nothing to write off",
				"see the task's items with axp admin approvals list --task "+t.ID+" --status all")
		}
		var amount axp.Money
		for _, e := range payments {
			for _, p := range e.Postings {
				if p.Account == axp.AcctBuyerFunds {
					amount -= p.Amount
				}
			}
		}
		entries, err := ch.Tx.Ledger()
		if err != nil {
			return nil, err
		}
		var escrow axp.Money
		for _, e := range entries {
			for _, p := range e.Postings {
				if p.Account == axp.EscrowAccount(t.ID) {
					escrow += p.Amount
				}
			}
		}
		postings, fromEscrow, loss := axp.WriteOffEntry(t.ID, amount, escrow)
		entry := &axp.LedgerEntry{ID: axp.NewID("led", ch.Now), TaskID: t.ID, Kind: "write_off", Postings: postings,
			ApprovalID: item.ID, TxHash: hash, Note: note, At: ch.Now}
		if err := ch.Tx.PutLedger(entry); err != nil {
			return nil, err
		}
		for i := range reorged {
			r := &reorged[i]
			r.Outcome, r.Note = axp.InboundWrittenOff, "written off by the operator: "+note
			if err := ch.Tx.PutInbound(r); err != nil {
				return nil, err
			}
		}
		now := ch.Now
		if err := axp.ApprovalMachine.Move(&item.Status, axp.ApprovalWriteOff); err != nil {
			return nil, err
		}
		item.DecidedAt, item.Note = &now, "written off: "+note
		if err := ch.Tx.PutApproval(item); err != nil {
			return nil, err
		}
		// The task's payouts, refunds and splits were computed on money it never received: closed,
		// unless another reorged payment still holds them and escrow did not change. An item whose
		// money left in part can only be completed: it stays, released from the reorg's hold once
		// no payment of the task is off the chain.
		closed := []string{}
		for i := range list {
			a := &list[i]
			if !axp.SendsMoney(a.Kind) || (a.Status != axp.ApprovalPending && a.Status != axp.ApprovalHeld && a.Status != axp.ApprovalFailed) {
				continue
			}
			if a.PartlySent() || a.BuyerPartTxHash != "" || a.Sending() {
				if !still && a.Status == axp.ApprovalHeld && a.HeldFor == axp.HoldReorg {
					if err := liftReorgHold(a); err != nil {
						return nil, err
					}
					if err := ch.Tx.PutApproval(a); err != nil {
						return nil, err
					}
				}
				continue
			}
			if still && fromEscrow == 0 {
				continue
			}
			if err := a.Close("closed", "closed: payment "+hash+" was written off ("+note+")", now); err != nil {
				return nil, err
			}
			a.HeldFor = ""
			if err := ch.Tx.PutApproval(a); err != nil {
				return nil, err
			}
			closed = append(closed, a.ID)
		}
		if fromEscrow > 0 {
			t.Received -= fromEscrow
			t.Paid = slices.DeleteFunc(slices.Clone(t.Paid), func(p axp.PaidIn) bool { return strings.EqualFold(p.TxHash, hash) })
		}
		t.WrittenOff += amount
		t.Reorged, t.UpdatedAt = still, ch.Now
		detail := map[string]any{"tx_hash": hash, "amount_usd": amount, "from_escrow_usd": fromEscrow, "loss_usd": loss,
			"note": note, "closed_approvals": closed, "ledger_entry": entry.ID}
		if err := ch.Save(t, t.Status, "payment_written_off", detail); err != nil {
			return nil, err
		}
		detail["task"] = t.ID
		if err := ch.Audit("payment.written_off", "transaction", hash, detail); err != nil {
			return nil, err
		}
		return &axp.WriteOff{TxHash: hash, TaskID: t.ID, AmountUSD: amount, FromEscrowUSD: fromEscrow, LossUSD: loss,
			Entry: *entry, Closed: closed, StillReorged: still, Note: note}, nil
	})
	if err == nil {
		s.base.Log.WarnContext(ctx, "a reorged payment was written off", "source", "payments", "task", out.TaskID, "tx_hash", hash,
			"amount_usd", out.AmountUSD.String(), "loss_usd", out.LossUSD.String(), "closed", out.Closed)
	}
	return out, err
}
