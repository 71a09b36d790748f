package money

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/axp-exchange/axp"
	"github.com/axp-exchange/axp/contract"
	"github.com/axp-exchange/axp/daemon/kernel"
	"github.com/axp-exchange/axp/daemon/money/escrowbook"
	"github.com/axp-exchange/axp/daemon/pipeline"
	"github.com/axp-exchange/axp/store"
)

// Register binds the operations of the money service to their handlers and subscribes it to the
// events it handles.
func (s *Service) Register(r *pipeline.Registry) {
	pipeline.Handle(r, contract.AdminApprovals, s.adminApprovals)
	pipeline.Handle(r, contract.AdminApprove, s.adminApprove)
	pipeline.Handle(r, contract.AdminReject, s.adminReject)
	pipeline.HandleNoInput(r, contract.AdminReconcile, s.adminReconcile)
	pipeline.Handle(r, contract.AdminWriteOff, s.adminWriteOff)
	pipeline.HandleNoInput(r, contract.GetMyEarnings, s.getMyEarnings)
	pipeline.Handle(r, contract.TestFund, s.testFund)
	s.subscribeMoney()
}

func (s *Service) adminApprovals(ctx context.Context, c *pipeline.Call, in *axp.ApprovalsQuery) (*axp.ApprovalList, error) {
	out := &axp.ApprovalList{Approvals: []axp.Approval{}, Rail: s.railName()}
	now := s.base.Now()
	err := s.base.Store.View(func(tx *store.Tx) error {
		keep := func(a *axp.Approval) bool {
			switch in.Status {
			case "", "open":
				if !a.Open() {
					return true
				}
			case "all":
			default:
				if a.Status != in.Status {
					return true
				}
			}
			if (in.Kind != "" && a.Kind != in.Kind) || (in.TaskID != "" && a.TaskID != in.TaskID) {
				return true
			}
			v := *a
			v.AgeSeconds = int64(now.Sub(a.CreatedAt).Seconds())
			out.Approvals = append(out.Approvals, v)
			return len(out.Approvals) < 1000
		}
		switch {
		case in.TaskID != "":
			list, err := tx.TaskApprovals(in.TaskID)
			for i := range list {
				if !keep(&list[i]) {
					break
				}
			}
			return err
		case in.Status == "" || in.Status == "open":
			if err := tx.OpenApprovals(keep); err != nil {
				return err
			}
			// A confirmed transfer a reorg removed is in flight again: the operator sees it first.
			return tx.SentApprovals(func(a *axp.Approval) bool {
				if a.Reorged > 0 && (in.Kind == "" || a.Kind == in.Kind) {
					v := *a
					v.AgeSeconds = int64(now.Sub(a.CreatedAt).Seconds())
					out.Approvals = append(out.Approvals, v)
				}
				return len(out.Approvals) < 1000
			})
		case in.Status == axp.ApprovalPending || in.Status == axp.ApprovalHeld || in.Status == axp.ApprovalFailed:
			return tx.OpenApprovals(keep)
		}
		return tx.Approvals(keep)
	})
	// What the chain took back comes first: reorged payments, then the items they hold.
	slices.SortStableFunc(out.Approvals, func(a, b axp.Approval) int { return urgency(a) - urgency(b) })
	if err == nil && s.rail.Wallet != nil && in.TaskID == "" && in.Kind == "" && (in.Status == "" || in.Status == "open") {
		out.Float = s.float(ctx, out.Approvals)
	}
	return out, err
}

// float compares the hot wallet's balance with what approving the open items would send.
func (s *Service) float(ctx context.Context, open []axp.Approval) *axp.Float {
	f := &axp.Float{HotWalletAddress: s.rail.Wallet.Address()}
	for i := range open {
		f.QueuedUSD += stillToSend(&open[i])
	}
	bal, err := s.rail.Chain.BalanceOf(ctx, s.rail.Wallet.Address())
	if err != nil {
		f.Problem = "cannot read the hot wallet's balance: " + err.Error()
		return f
	}
	f.BalanceUSD = s.rail.Chain.Money(bal)
	f.ShortUSD = max(0, f.QueuedUSD-f.BalanceUSD)
	return f
}

// urgency orders the queue: 0 for a reorged payment or a payout sent again after a reorg, 1 for an
// item held by a reorg, 2 otherwise.
func urgency(a axp.Approval) int {
	switch {
	case a.Status == axp.ApprovalReorged, a.Reorged > 0 && a.Status != axp.ApprovalConfirmed:
		return 0
	case a.Status == axp.ApprovalHeld && a.HeldFor == axp.HoldReorg:
		return 1
	}
	return 2
}

// loadApproval reads an open queue item, as not_found or conflict.
func loadApproval(tx *store.Tx, id string) (*axp.Approval, error) {
	a, err := tx.Approval(id)
	if err != nil {
		return nil, err
	}
	return openApproval(a, id)
}

// openApproval answers a (item id as read, nil when there is none) when it is open, or why not,
// as not_found or conflict.
func openApproval(a *axp.Approval, id string) (*axp.Approval, error) {
	if a == nil {
		return nil, axp.NotFound("approval", id)
	}
	switch a.Status {
	case axp.ApprovalPending, axp.ApprovalFailed:
		return a, nil
	case axp.ApprovalHeld:
		if a.HeldFor == axp.HoldReorg {
			return nil, axp.Conflict("approval "+id+" is held: a payment of task "+a.TaskID+" left the canonical chain (a reorg), so its money is not on chain",
				"it becomes pending by itself when the transfer is back on chain (see axp admin reconcile); if it never is, write the payment off: axp admin payments write-off TX_HASH --note TEXT")
		}
		return nil, axp.Conflict("approval "+id+" is held: the seller has no payout address yet", "it becomes pending when the seller adds one")
	case axp.ApprovalReorged:
		return nil, axp.Conflict("payment "+id+" left the canonical chain (a reorg): there is nothing to approve",
			"it is approved again by itself when the transfer is back on chain (see axp admin reconcile); if it never is, write it off: axp admin payments write-off "+a.TxHash+" --note TEXT")
	}
	return nil, axp.Conflict("approval "+id+" was already "+a.Status, "")
}

// buyerPartAlone reports whether approving a is sending the buyer's part of a split on its own: the
// seller's part is held for a payout address, the buyer's has not been sent yet.
func buyerPartAlone(a *axp.Approval) bool {
	if a.Kind != axp.ApproveSplit || a.Status != axp.ApprovalHeld || a.HeldFor == axp.HoldReorg || a.BuyerPartTxHash != "" || a.Booking == nil {
		return false
	}
	buyer, _ := splitParts(a.Booking)
	return len(buyer) > 0
}

// splitParts divides a split's booking into the buyer's part and the rest (fee, seller, payment
// tag), each balanced by its share of the escrow.
func splitParts(booking []axp.Posting) (buyer, seller []axp.Posting) {
	escrow := ""
	var toBuyer, toRest axp.Money
	for _, p := range booking {
		switch {
		case p.Amount < 0:
			escrow = p.Account
		case p.Account == axp.AcctBuyerRefund:
			toBuyer += p.Amount
			buyer = append(buyer, p)
		default:
			toRest += p.Amount
			seller = append(seller, p)
		}
	}
	if toBuyer > 0 {
		buyer = append([]axp.Posting{{Account: escrow, Amount: -toBuyer}}, buyer...)
	}
	if toRest > 0 {
		seller = append([]axp.Posting{{Account: escrow, Amount: -toRest}}, seller...)
	}
	return buyer, seller
}

func (s *Service) adminApprove(ctx context.Context, c *pipeline.Call, in *axp.ApproveBody) (*axp.Approval, error) {
	// An approval that calls out first (the hot wallet sends, or the chain is asked about a
	// transaction sent by hand) is refused for contract money before it does; any other is
	// refused in its change, on the item and task the change reads anyway.
	callsOut := (in.TxHash == "" && s.rail.Wallet != nil) || (in.TxHash != "" && s.rail.Chain != nil)
	if callsOut {
		if err := s.refuseContractMoney(in); err != nil {
			return nil, err
		}
	}
	if in.TxHash == "" && s.rail.Wallet != nil {
		// The hot wallet sends what the item moves: all of it, or the buyer's part of a split
		// whose seller has no payout address yet.
		var kind string
		s.base.Store.View(func(tx *store.Tx) error {
			if a, _ := tx.Approval(in.ID); a != nil {
				kind = a.Kind
			}
			return nil
		})
		if axp.SendsMoney(kind) {
			return s.approveOnChain(ctx, c, in)
		}
	}
	// With a chain, the transaction recorded for money sent by hand is checked on it first (manual.go).
	var checked *manualCheck
	if in.TxHash != "" && s.rail.Chain != nil {
		var err error
		if checked, err = s.checkManual(ctx, in); err != nil {
			return nil, err
		}
	}
	return kernel.Apply(s.base, ctx, c, func(ch *kernel.Change) (*axp.Approval, error) {
		a, err := ch.Tx.Approval(in.ID)
		if err != nil {
			return nil, err
		}
		var t *axp.TaskRecord // the item's task, when the refusal read it
		if !callsOut && a != nil && a.TaskID != "" && axp.SendsMoney(a.Kind) {
			if t, err = ch.Tx.Task(a.TaskID); err != nil {
				return nil, err
			}
			if err := s.refuseContractTask(t, a.Kind, in); err != nil {
				return nil, err
			}
		}
		if a != nil && buyerPartAlone(a) {
			return s.approveBuyerPart(ch, a, in, checked)
		}
		if a, err = openApproval(a, in.ID); err != nil {
			return nil, err
		}
		if t == nil || a.Kind == axp.ApproveReturn {
			if t, err = taskOf(ch.Tx, a); err != nil {
				return nil, err
			}
		}
		sends := axp.SendsMoney(a.Kind)
		if sends && in.TxHash == "" {
			return nil, axp.Invalid("tx_hash", "is required to approve a "+a.Kind+" on an exchange without a hot wallet (payout_key_file)",
				"send the money, then record the transaction hash here")
		}
		if a.Kind == axp.ApprovePayment && in.TxHash != "" && !strings.EqualFold(in.TxHash, a.TxHash) {
			// A payment item confirms the transaction the buyer reported; another hash would
			// confirm money nobody reported.
			return nil, axp.Invalid("tx_hash", "differs from the transaction this payment item confirms ("+a.TxHash+")",
				"leave tx_hash out to confirm the reported transaction, or reject the item if it was not received")
		}
		if sends {
			if err := checked.recheck(ch.Tx, t, a); err != nil {
				return nil, err
			}
		}
		now := ch.Now
		if err := axp.ApprovalMachine.Move(&a.Status, axp.ApprovalApprove); err != nil {
			return nil, err
		}
		a.DecidedAt, a.Note = &now, in.Note
		if sends {
			a.Rail = "manual"
		}
		if in.TxHash != "" {
			a.TxHash = strings.ToLower(in.TxHash)
		}
		switch a.Kind {
		case axp.ApprovePayment:
			err = s.confirmPayment(ch, t, a, "")
		case axp.ApprovePayout, axp.ApproveRefund, axp.ApproveSplit, axp.ApproveReturn:
			err = s.book(ch, t, a)
		case axp.ApproveReleaseDue:
			err = s.releaseDue(ch, t)
		default:
			err = fmt.Errorf("unknown approval kind %q", a.Kind)
		}
		if err != nil {
			return nil, err
		}
		if err := ch.Tx.PutApproval(a); err != nil {
			return nil, err
		}
		if err := ch.Audit("approval.approve", "approval", a.ID, map[string]any{"kind": a.Kind, "task": t.ID, "tx_hash": a.TxHash, "amount_usd": a.Amount,
			"checked_on_chain": checked != nil}); err != nil {
			return nil, err
		}
		return a, nil
	})
}

// confirmPayment books a confirmed payment, sent from the address from ("" when confirmed by
// hand), and starts the job.
func (s *Service) confirmPayment(ch *kernel.Change, t *axp.TaskRecord, a *axp.Approval, from string) error {
	if t.Status != axp.TaskAwaitingPayment || t.TxHash != a.TxHash {
		return axp.Conflict("the task is "+t.Status+" and no longer waits for this payment", "reject it and refund the sender")
	}
	prev := t.Status
	if err := t.Move(axp.TrigPay, "", ch.Now); err != nil {
		return err
	}
	t.Received += a.Amount
	t.Paid = append(t.Paid, axp.PaidIn{TxHash: a.TxHash, From: from, Amount: a.Amount})
	postings := axp.PaymentEntry(t.ID, a.Amount)
	if e := t.Authorization; e != nil && e.Escrow != nil && strings.EqualFold(e.TxHash, a.TxHash) {
		// Paid into the escrow contract: the money is there, not at the deposit address.
		postings = axp.ContractPaymentEntry(t.ID, a.Amount)
	}
	if err := ch.Tx.PutLedger(&axp.LedgerEntry{ID: axp.NewID("led", ch.Now), TaskID: t.ID, Kind: "payment",
		Postings: postings, ApprovalID: a.ID, TxHash: a.TxHash, At: ch.Now}); err != nil {
		return err
	}
	// Other reports still waiting (another transaction the buyer named) have nothing left to pay:
	// they are closed, and a transfer they name that arrives later is listed for the operator.
	list, err := ch.Tx.TaskApprovals(t.ID)
	if err != nil {
		return err
	}
	for i := range list {
		o := &list[i]
		if o.Kind != axp.ApprovePayment || o.Status != axp.ApprovalPending || o.ID == a.ID || strings.EqualFold(o.TxHash, a.TxHash) {
			continue
		}
		if err := o.Close("closed", "closed: the task was funded by transaction "+a.TxHash, ch.Now); err != nil {
			return err
		}
		if err := ch.Tx.PutApproval(o); err != nil {
			return err
		}
		if ch.Tx.TxHashTask(o.TxHash) == t.ID {
			if err := ch.Tx.ReleaseTxHash(o.TxHash); err != nil {
				return err
			}
		}
	}
	seller, err := kernel.LoadMember(ch.Tx, t.SellerID)
	if err != nil {
		return err
	}
	// The job's start changes the task too: it is saved once, after.
	if err := kernel.Emit(ch, kernel.PaymentConfirmed{Task: t, Seller: seller}); err != nil {
		return err
	}
	return ch.Save(t, prev, "pay", map[string]any{"received_usd": a.Amount, "tx_hash": a.TxHash})
}

// approveBuyerPart sends the buyer's refund of a split whose seller part waits for a payout
// address: the item stays held for the seller's part, and the task disputed until it is sent. On an
// exchange with a chain, checked is the check of its transaction on chain.
func (s *Service) approveBuyerPart(ch *kernel.Change, a *axp.Approval, in *axp.ApproveBody, checked *manualCheck) (*axp.Approval, error) {
	if in.TxHash == "" {
		return nil, axp.Invalid("tx_hash", "is required to send the buyer's part of a split",
			"send the buyer's refund, then record its transaction hash here; the seller's part waits for a payout address")
	}
	t, err := kernel.LoadTask(ch.Tx, a.TaskID)
	if err != nil {
		return nil, err
	}
	if a.Sending() {
		return nil, axp.Conflict("the hot wallet is sending the buyer's part of split "+a.ID+" already", "wait for its confirmations")
	}
	if err := checkBuyerPart(t, a); err != nil {
		return nil, err
	}
	if err := checked.recheck(ch.Tx, t, a); err != nil {
		return nil, err
	}
	if err := bookBuyerPart(ch, t, a, in.TxHash); err != nil {
		return nil, err
	}
	if err := ch.Tx.PutApproval(a); err != nil {
		return nil, err
	}
	if err := ch.Audit("approval.approve_part", "approval", a.ID, map[string]any{"kind": a.Kind, "task": t.ID, "part": "buyer",
		"tx_hash": a.BuyerPartTxHash, "amount_usd": a.RefundUSD, "checked_on_chain": checked != nil}); err != nil {
		return nil, err
	}
	return a, nil
}

// checkBuyerPart refuses to send the buyer's part of split a unless the task can still be settled
// on the amounts the item shows.
func checkBuyerPart(t *axp.TaskRecord, a *axp.Approval) error {
	if _, err := axp.Next(t.Status, axp.TrigSettle, t.Facts()); err != nil {
		return err
	}
	if full, err := axp.SplitEntry(t.ID, t.Received, t.Price, a.PriceRefundUSD, t.Fee.FeeBPS); err != nil || !slices.Equal(full, a.Booking) {
		return axp.Conflict("the amounts of approval "+a.ID+" changed since it was queued",
			"reject it and decide again on the task's current funds")
	}
	return nil
}

// bookBuyerPart books the buyer's part of split a, sent in transaction hash (by hand, or by the hot
// wallet and now confirmed): the item stays held for the seller's part, the task disputed.
func bookBuyerPart(ch *kernel.Change, t *axp.TaskRecord, a *axp.Approval, hash string) error {
	buyer, _ := splitParts(a.Booking)
	now := ch.Now
	a.BuyerPartTxHash, a.BuyerPartAt = strings.ToLower(hash), &now
	a.Note = "the buyer's part was sent; the seller's part waits for a payout address"
	if err := ch.Tx.PutLedger(&axp.LedgerEntry{ID: axp.NewID("led", ch.Now), TaskID: t.ID, Kind: "split_refund",
		Postings: buyer, ApprovalID: a.ID, TxHash: a.BuyerPartTxHash, At: ch.Now}); err != nil {
		return err
	}
	return ch.Save(t, t.Status, "refund_part", map[string]any{"approval_id": a.ID, "tx_hash": a.BuyerPartTxHash,
		"refund_usd": a.RefundUSD})
}

// bookingOf is what approving a books now, computed from what the task received: a conflict when it
// cannot balance, or when the item showed other amounts (the task's funds changed since it was
// queued): nothing moves on figures the operator did not see.
func bookingOf(t *axp.TaskRecord, a *axp.Approval, refund axp.Money) ([]axp.Posting, error) {
	postings, err := axp.SplitEntry(t.ID, t.Received, t.Price, refund, t.Fee.FeeBPS)
	if inContract(t) {
		if postings = escrowbook.Entry(t, a.Kind, refund); postings == nil {
			return nil, contractRefusal(t)
		}
		err = nil
	}
	if err != nil {
		return nil, axp.Conflict("approval "+a.ID+" cannot be booked: "+err.Error(), "reject it and decide again on the task's current funds")
	}
	if a.Booking != nil && !slices.Equal(postings, a.Booking) {
		return nil, axp.Conflict("the amounts of approval "+a.ID+" changed since it was queued",
			"reject it and decide again on the task's current funds")
	}
	return postings, nil
}

// book books an approved payout, refund or split and ends the task (the manual rail on approval,
// the evm rail once its transfers are confirmed): the seller's part alone when the buyer's part of
// a split was sent before.
func (s *Service) book(ch *kernel.Change, t *axp.TaskRecord, a *axp.Approval) error {
	if a.Kind == axp.ApproveReturn {
		return bookReturn(ch, a)
	}
	tr, refund, action := sendSpec(t, a)
	if a.BuyerPartTxHash != "" {
		return s.sendSellerPart(ch, t, a, refund)
	}
	return s.sendMoney(ch, t, a, refund, tr, action)
}

// sendSellerPart books the rest of a split whose buyer's part was sent on its own, and ends the task.
func (s *Service) sendSellerPart(ch *kernel.Change, t *axp.TaskRecord, a *axp.Approval, refund axp.Money) error {
	if _, err := axp.Next(t.Status, axp.TrigSettle, t.Facts()); err != nil {
		return err
	}
	if full, err := axp.SplitEntry(t.ID, t.Received, t.Price, refund, t.Fee.FeeBPS); err != nil || !slices.Equal(full, a.Booking) {
		return axp.Conflict("the amounts of approval "+a.ID+" changed since it was queued",
			"reject it and decide again on the task's current funds")
	}
	_, seller := splitParts(a.Booking)
	if err := ch.Tx.PutLedger(&axp.LedgerEntry{ID: axp.NewID("led", ch.Now), TaskID: t.ID, Kind: a.Kind,
		Postings: seller, ApprovalID: a.ID, TxHash: a.TxHash, At: ch.Now}); err != nil {
		return err
	}
	return s.tasks.Finish(ch, t, axp.TrigSettle, "settle", map[string]any{"approval_id": a.ID, "tx_hash": a.TxHash,
		"refund_usd": refund, "buyer_part_tx_hash": a.BuyerPartTxHash})
}

// sendMoney books the payout, refund or split of a task's escrow and ends the task.
func (s *Service) sendMoney(ch *kernel.Change, t *axp.TaskRecord, a *axp.Approval, refund axp.Money, tr axp.Trigger, action string) error {
	if _, err := axp.Next(t.Status, tr, t.Facts()); err != nil {
		return err
	}
	postings, err := bookingOf(t, a, refund)
	if err != nil {
		return err
	}
	if a.Kind == axp.ApproveSplit && inContract(t) {
		err = bookContractSplit(ch, t, a, postings)
	} else {
		err = ch.Tx.PutLedger(&axp.LedgerEntry{ID: axp.NewID("led", ch.Now), TaskID: t.ID, Kind: a.Kind,
			Postings: postings, ApprovalID: a.ID, TxHash: a.TxHash, At: ch.Now})
	}
	if err != nil {
		return err
	}
	return s.tasks.Finish(ch, t, tr, action, map[string]any{"approval_id": a.ID, "tx_hash": a.TxHash, "refund_usd": refund})
}

// releaseDue: the operator releases a delivered task whose auto-release window passed; the payout
// then waits for its own approval.
func (s *Service) releaseDue(ch *kernel.Change, t *axp.TaskRecord) error {
	prev := t.Status
	if err := t.Move(axp.TrigOperatorAccept, "", ch.Now); err != nil {
		return err
	}
	t.ReleaseDue = false
	if err := ch.Save(t, prev, "operator_accept", nil); err != nil {
		return err
	}
	if t.Free() {
		s.tasks.StatusNotices(ch, t)
		return s.tasks.Finish(ch, t, axp.TrigRelease, "release", nil)
	}
	p, err := s.MoneyApproval(t, axp.ApprovePayout, 0, "the operator released the task after its auto-release window", ch.Now)
	if err != nil {
		return err
	}
	seller, err := kernel.LoadMember(ch.Tx, t.SellerID)
	if err != nil {
		return err
	}
	p.PayoutAddress = seller.PayoutAddress
	if p.PayoutAddress == "" {
		if err := p.Hold(axp.HoldPayoutAddress); err != nil {
			return err
		}
	}
	s.tasks.StatusNotices(ch, t)
	return ch.Tx.PutApproval(p)
}

func (s *Service) adminReject(ctx context.Context, c *pipeline.Call, in *axp.RejectBody) (*axp.Approval, error) {
	return kernel.Apply(s.base, ctx, c, func(ch *kernel.Change) (*axp.Approval, error) {
		a, err := ch.Tx.Approval(in.ID)
		if err != nil {
			return nil, err
		}
		if a == nil {
			return nil, axp.NotFound("approval", in.ID)
		}
		if !a.Open() {
			return nil, axp.Conflict("approval "+a.ID+" was already "+a.Status, "")
		}
		if a.PartlySent() {
			return nil, axp.Conflict("part of approval "+a.ID+" was sent on chain: it can only be completed",
				"approve it again to send the rest")
		}
		if a.BuyerPartTxHash != "" {
			return nil, axp.Conflict("the buyer's part of split "+a.ID+" was sent ("+a.BuyerPartTxHash+"): the split can only be completed",
				"approve the seller's part once the seller has a payout address")
		}
		if a.Sending() {
			return nil, axp.Conflict("a transfer of approval "+a.ID+" is on its way: it can only be completed",
				"wait for its confirmations (axp admin approvals list), then approve the rest")
		}
		t, err := taskOf(ch.Tx, a)
		if err != nil {
			return nil, err
		}
		now := ch.Now
		if err := axp.ApprovalMachine.Move(&a.Status, axp.ApprovalReject); err != nil {
			return nil, err
		}
		a.DecidedAt, a.Note = &now, in.Reason
		if a.Kind == axp.ApprovePayment && t.TxHash == a.TxHash {
			// The payment was not found: the buyer may report another transaction.
			if err := ch.Tx.ReleaseTxHash(a.TxHash); err != nil {
				return nil, err
			}
			t.TxHash = ""
		}
		if a.Kind != axp.ApproveReturn {
			if err := ch.Save(t, t.Status, "approval_rejected", map[string]any{"approval_id": a.ID, "kind": a.Kind, "reason": in.Reason}); err != nil {
				return nil, err
			}
		}
		if err := ch.Tx.PutApproval(a); err != nil {
			return nil, err
		}
		if err := ch.Audit("approval.reject", "approval", a.ID, map[string]any{"kind": a.Kind, "task": t.ID, "reason": in.Reason}); err != nil {
			return nil, err
		}
		return a, nil
	})
}

// CloseReleaseDue closes the open release_due item of a task the buyer answered after its
// auto-release window passed (accept, dispute or redo): the operator has nothing left to decide,
// and an item left open could never be approved. Nothing moves; the item is marked rejected with
// the reason.
func CloseReleaseDue(ch *kernel.Change, t *axp.TaskRecord, why string) error {
	if !t.ReleaseDue {
		return nil
	}
	t.ReleaseDue = false
	list, err := ch.Tx.TaskApprovals(t.ID)
	if err != nil {
		return err
	}
	for i := range list {
		a := &list[i]
		if a.Kind != axp.ApproveReleaseDue || a.Status != axp.ApprovalPending {
			continue
		}
		if err := a.Close("closed", "closed: "+why, ch.Now); err != nil {
			return err
		}
		if err := ch.Tx.PutApproval(a); err != nil {
			return err
		}
		if err := ch.Audit("approval.close", "approval", a.ID, map[string]any{"kind": a.Kind, "task": t.ID, "reason": why}); err != nil {
			return err
		}
	}
	return nil
}

// subscribeMoney: a member's new payout address releases the payouts held for the lack of one.
func (s *Service) subscribeMoney() {
	kernel.On(s.base, func(ch *kernel.Change, e kernel.PayoutAddressSet) error { return unholdPayouts(ch, e.Member) })
}

// unholdPayouts makes a seller's held payouts pending once it has a payout address.
func unholdPayouts(ch *kernel.Change, m *axp.Member) error {
	if m.PayoutAddress == "" {
		return nil
	}
	var held []*axp.Approval
	// Held items are open: the open index, not every item ever queued.
	if err := ch.Tx.OpenApprovals(func(a *axp.Approval) bool {
		if a.Status == axp.ApprovalHeld && a.HeldFor != axp.HoldReorg && a.SellerID == m.ID {
			c := *a
			held = append(held, &c)
		}
		return true
	}); err != nil {
		return err
	}
	for _, a := range held {
		if err := axp.ApprovalMachine.Move(&a.Status, axp.ApprovalUnhold); err != nil {
			return err
		}
		a.PayoutAddress, a.Note = m.PayoutAddress, "the seller added a payout address"
		if err := ch.Tx.PutApproval(a); err != nil {
			return err
		}
	}
	return nil
}

// earnedJobs caps the jobs get_my_earnings lists; its totals count every job.
const earnedJobs = 100

// getMyEarnings answers what the calling seller's jobs paid and what is on its way, read from each
// job's payout or split item (the latest one not rejected).
func (s *Service) getMyEarnings(ctx context.Context, c *pipeline.Call) (*axp.Earnings, error) {
	out := &axp.Earnings{Jobs: []axp.EarnedJob{}, TestMode: s.base.Cfg().TestMode}
	err := s.base.Store.View(func(tx *store.Tx) error {
		m, err := kernel.LoadMember(tx, c.Caller.MemberID)
		if err != nil {
			return err
		}
		out.PayoutAddress = m.PayoutAddress
		ids := tx.SellerJobIDs(m.ID)
		for i := len(ids) - 1; i >= 0; i-- {
			t, err := tx.Task(ids[i])
			if err != nil {
				return err
			}
			if t == nil || t.SellerID != m.ID {
				continue
			}
			job, err := earned(tx, t)
			if err != nil {
				return err
			}
			switch job.Payout {
			case "paid":
				out.PaidUSD += job.NetUSD
			case "pending":
				out.PendingUSD += job.NetUSD
			case "held":
				out.HeldUSD += job.NetUSD
			}
			if len(out.Jobs) < earnedJobs {
				out.Jobs = append(out.Jobs, job)
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if s.rail.Chain != nil && out.PayoutAddress != "" {
		// Read at the node each time, within a short wait: an unanswered node leaves it out.
		bctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		bal, err := s.rail.Chain.BalanceOf(bctx, out.PayoutAddress)
		cancel()
		if err != nil {
			s.base.Log.WarnContext(ctx, "the payout address's balance could not be read", "source", "payments", "err", err)
		} else {
			b := s.rail.Chain.Money(bal)
			out.PayoutBalanceUSD = &b
		}
	}
	return out, nil
}

// earned is one job's money from its seller's side.
func earned(tx *store.Tx, t *axp.TaskRecord) (axp.EarnedJob, error) {
	job := axp.EarnedJob{TaskID: t.ID, TaskType: t.Type, Status: t.Status, PriceUSD: t.Price, NetUSD: t.Fee.SellerNet, Payout: "none"}
	list, err := tx.TaskApprovals(t.ID)
	if err != nil {
		return job, err
	}
	// The newest item that was not rejected; a rejected one only when there is no other.
	var last *axp.Approval
	for i := range list {
		a := &list[i]
		if a.Kind != axp.ApprovePayout && a.Kind != axp.ApproveSplit {
			continue
		}
		if last == nil {
			last = a
			continue
		}
		aRejected, lastRejected := a.Status == axp.ApprovalRejected, last.Status == axp.ApprovalRejected
		if aRejected != lastRejected {
			if !aRejected {
				last = a
			}
		} else if a.CreatedAt.After(last.CreatedAt) {
			last = a
		}
	}
	if last == nil {
		return job, nil
	}
	job.NetUSD, job.TxHash = last.SellerNetUSD, last.TxHash
	switch last.Status {
	case axp.ApprovalApproved, axp.ApprovalConfirmed:
		job.Payout, job.PaidAt = "paid", last.DecidedAt
	case axp.ApprovalPending, axp.ApprovalSent, axp.ApprovalFailed:
		job.Payout = "pending"
	case axp.ApprovalHeld, axp.ApprovalReorged:
		job.Payout, job.HeldFor = "held", cmp.Or(last.HeldFor, "payout_address")
	case axp.ApprovalRejected:
		job.Payout = "rejected"
	}
	return job, nil
}
