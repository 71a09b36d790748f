package money

import (
	"context"
	"errors"
	"fmt"
	"math/big"
	"slices"
	"strings"
	"time"

	"github.com/axp-exchange/axp"
	"github.com/axp-exchange/axp/daemon/chain/escrow"
	"github.com/axp-exchange/axp/daemon/kernel"
	"github.com/axp-exchange/axp/daemon/money/escrowbook"
	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
)

// The buyer's protection on the escrow rail: from the payment's authorization expiry on, the payer
// may call the escrow's reclaim and take back everything it still holds, without the exchange. The
// watcher reads the escrow's PaymentReclaimed events in the confirmed blocks it reads for the
// deposit address, before its cursor moves past them (a crash reads them again), and for the
// payment of one of its tasks books the money back to the buyer, closes the task's queued money
// items (no payout or refund can leave the contract any more) and ends the task refunded, in one
// change; a reclaim noticed twice is booked once. A capture is refused before it is signed once
// the authorization expiry has passed: the contract would revert it.

// reclaimKind is the ledger kind of a reclaim, and the task's timeline action.
const reclaimKind = "reclaim"

// watchReclaims notices the escrow's reclaims in blocks from to to (confirmed): an error leaves the
// cursor where it was, so the blocks are read again.
func (s *Service) watchReclaims(ctx context.Context, from, to uint64) error {
	if s.escrow == nil {
		return nil
	}
	logs, err := s.rail.Chain.Eth().FilterLogs(ctx, ethereum.FilterQuery{FromBlock: new(big.Int).SetUint64(from),
		ToBlock: new(big.Int).SetUint64(to), Addresses: []common.Address{s.escrow.Escrow}, Topics: [][]common.Hash{{escrow.Topic("PaymentReclaimed")}}})
	if err != nil {
		return fmt.Errorf("read the escrow's reclaims in blocks %d-%d: %w", from, to, err)
	}
	for _, l := range logs {
		e, ok, err := escrow.Decode(l)
		if l.Removed || err != nil || !ok || e.Name != "PaymentReclaimed" || e.Amount == nil {
			continue
		}
		if err := s.reclaimed(ctx, e); err != nil {
			return err
		}
	}
	return nil
}

// reclaimed records the payer's reclaim e of a task's escrow payment: contract:<task> to
// external:refund for what the contract returned, the task's open money items closed, the task
// refunded and both parties told. A payment of no task (another operator's on a shared escrow) is
// none of the exchange's business; a task that cannot end so is left to the operator, loudly,
// without holding the watcher.
func (s *Service) reclaimed(ctx context.Context, e escrow.Event) error {
	hash, txHash := strings.ToLower(e.Hash.Hex()), strings.ToLower(e.Log.TxHash.Hex())
	amount := s.rail.Chain.Money(e.Amount)
	var odd string
	_, err := s.base.Mutate(context.WithoutCancel(ctx), "verifier:evm", func(ch *kernel.Change) (any, error) {
		id := ch.Tx.EscrowPaymentTask(hash)
		if id == "" {
			return nil, nil
		}
		t, err := kernel.LoadTask(ch.Tx, id)
		if err != nil {
			return nil, err
		}
		a := t.Authorization
		switch {
		case a == nil || a.Escrow == nil || !strings.EqualFold(a.Escrow.PaymentHash, hash):
			return nil, nil // the task was paid again since by other terms; that payment is followed on its own
		case a.Escrow.ReclaimTxHash != "":
			return nil, nil // noticed before
		case axp.Terminal(t.Status):
			odd = "the task is " + t.Status + " already"
			return nil, nil
		}
		a.Escrow.ReclaimTxHash = txHash
		why := fmt.Sprintf("the buyer reclaimed the escrowed %s from the escrow contract %s (transaction %s) after its authorization expiry %s",
			amount.Display(), a.Escrow.EscrowAddress, txHash, expiryText(a.Escrow.PaymentInfo.AuthorizationExpiry))
		closed, err := closeForReclaim(ch, t, why)
		if err != nil {
			return nil, err
		}
		if amount != 0 {
			if err := ch.Tx.PutLedger(&axp.LedgerEntry{ID: axp.NewID("led", ch.Now), TaskID: t.ID, Kind: reclaimKind, TxHash: txHash, At: ch.Now,
				Postings: []axp.Posting{{Account: axp.ContractAccount(t.ID), Amount: -amount}, {Account: axp.AcctBuyerRefund, Amount: amount}}}); err != nil {
				return nil, err
			}
		}
		if amount != t.Received {
			odd = fmt.Sprintf("the escrow returned %s, the task received %s", amount.Display(), t.Received.Display())
		}
		return nil, s.tasks.Finish(ch, t, axp.TrigReclaim, "escrow_reclaimed", map[string]any{"message": why, "tx_hash": txHash,
			"amount_usd": amount, "escrow": a.Escrow.EscrowAddress, "payment_hash": hash, "closed_approvals": closed})
	})
	var refused *axp.Error
	if errors.As(err, &refused) {
		odd, err = "the task refuses it: "+refused.Error(), nil // read again, it would be refused again: never hold the watcher
	}
	if err != nil {
		return fmt.Errorf("record the reclaim %s of escrow payment %s: %w", txHash, hash, err)
	}
	if odd != "" {
		s.base.Log.ErrorContext(ctx, "a reclaim of a task's escrow payment does not fit the task; the operator must look", "source", "payments",
			"payment_hash", hash, "tx_hash", txHash, "amount_usd", amount, "why", odd)
	}
	return nil
}

// closeForReclaim closes task t's open items that would move its money: nothing is left in the
// contract for them to move. An item with a transfer on its way (a capture sent just before the
// reclaim) stays until the chain refuses it (closeFailedReclaimed). It answers the ids closed.
func closeForReclaim(ch *kernel.Change, t *axp.TaskRecord, why string) ([]string, error) {
	if err := CloseReleaseDue(ch, t, why); err != nil {
		return nil, err
	}
	list, err := ch.Tx.TaskApprovals(t.ID)
	if err != nil {
		return nil, err
	}
	closed := []string{}
	for i := range list {
		a := &list[i]
		if done, err := settleReclaimedSplit(ch, t, a); done || err != nil {
			if err != nil {
				return nil, err
			}
			continue
		}
		if !axp.SendsMoney(a.Kind) || !slices.Contains([]string{axp.ApprovalPending, axp.ApprovalHeld, axp.ApprovalFailed}, a.Status) || a.Sending() {
			continue // a reorged item waits for its chain, one on its way for its receipt
		}
		if err := closeItem(ch, a, why); err != nil {
			return nil, err
		}
		closed = append(closed, a.ID)
	}
	return closed, nil
}

func closeItem(ch *kernel.Change, a *axp.Approval, why string) error {
	if err := a.Close("closed", "closed: "+why, ch.Now); err != nil {
		return err
	}
	if err := ch.Tx.PutApproval(a); err != nil {
		return err
	}
	return ch.Audit("approval.close", "approval", a.ID, map[string]any{"kind": a.Kind, "task": a.TaskID, "reason": why})
}

// closeFailedReclaimed closes item a, failed just now, when its task's escrow payment was
// reclaimed: its call of the escrow reverted because the contract holds nothing for it any more,
// and approving it again could never send.
func closeFailedReclaimed(ch *kernel.Change, a *axp.Approval) error {
	if a.Status != axp.ApprovalFailed || !axp.SendsMoney(a.Kind) || a.Sending() {
		return nil
	}
	t, err := ch.Tx.Task(a.TaskID)
	if err != nil || t == nil || !reclaimedTask(t) {
		return err
	}
	if done, err := settleReclaimedSplit(ch, t, a); done || err != nil {
		return err
	}
	return closeItem(ch, a, "the buyer reclaimed the escrowed money (transaction "+t.Authorization.Escrow.ReclaimTxHash+"): "+a.Failure)
}

// reclaimedTask reports whether the buyer reclaimed task t's escrow payment (the watcher saw it).
func reclaimedTask(t *axp.TaskRecord) bool {
	return t.Authorization != nil && t.Authorization.Escrow != nil && t.Authorization.Escrow.ReclaimTxHash != ""
}

// settleReclaimedSplit ends split a of task t once its capture is confirmed and the buyer has
// reclaimed the rest, nothing of the item on its way: the void is no longer due (the reclaim
// returned what the capture left, and is booked as the reclaim), so the capture's part is booked
// (the contract account to the seller's net and the fee, with the capture's transaction) and the
// item confirmed. Closed unbooked instead, the capture's money would stay in the contract account
// of the ledger and its fee at the deposit address unexplained. It reports whether it did so.
func settleReclaimedSplit(ch *kernel.Change, t *axp.TaskRecord, a *axp.Approval) (bool, error) {
	i := slices.IndexFunc(a.Transfers, func(x axp.OutTransfer) bool {
		return x.Part == escrowbook.PartCapture && x.Status == axp.TransferConfirmed
	})
	if a.Kind != axp.ApproveSplit || a.Booked || i < 0 || a.Sending() || !reclaimedTask(t) ||
		(a.Status != axp.ApprovalSent && a.Status != axp.ApprovalFailed) {
		return false, nil
	}
	_, refund, _ := sendSpec(t, a)
	postings := escrowbook.Entry(t, a.Kind, refund)
	if postings == nil {
		return false, nil
	}
	if _, seller := splitParts(postings); len(seller) > 0 {
		if err := ch.Tx.PutLedger(&axp.LedgerEntry{ID: axp.NewID("led", ch.Now), TaskID: t.ID, Kind: a.Kind, Postings: seller,
			ApprovalID: a.ID, TxHash: a.Transfers[i].TxHash, At: ch.Now}); err != nil {
			return false, err
		}
	}
	if a.Status == axp.ApprovalFailed {
		if err := axp.ApprovalMachine.Move(&a.Status, axp.ApprovalSend); err != nil {
			return false, err
		}
	}
	if err := axp.ApprovalMachine.Move(&a.Status, axp.ApprovalConfirm); err != nil {
		return false, err
	}
	a.Booked, a.Failure = true, ""
	a.Note = "the capture is confirmed; the buyer reclaimed the rest from the escrow (transaction " + t.Authorization.Escrow.ReclaimTxHash + ") before its void"
	if err := markSent(ch, a); err != nil {
		return false, err
	}
	if err := ch.Tx.PutApproval(a); err != nil {
		return false, err
	}
	return true, ch.Audit("approval.confirm", "approval", a.ID, map[string]any{"kind": a.Kind, "task": t.ID, "tx_hash": a.Transfers[i].TxHash,
		"reclaim_tx_hash": t.Authorization.Escrow.ReclaimTxHash})
}

// captureExpired refuses to sign the capture of task t's escrow payment once its authorization
// expiry has passed, by the exchange's clock or the chain's newest block: the escrow would revert
// it, and the buyer may reclaim the money.
func (s *Service) captureExpired(ctx context.Context, t *axp.TaskRecord) error {
	e := t.Authorization.Escrow
	now := s.base.Now().Unix()
	if h, err := s.rail.Chain.Eth().HeaderByNumber(ctx, nil); err == nil {
		now = max(now, int64(h.Time))
	}
	if exp := e.PaymentInfo.AuthorizationExpiry; now >= exp {
		return axp.Conflict(fmt.Sprintf("task %s's escrow payment %s can no longer be captured: its authorization expiry passed at %s; from then on the buyer may reclaim the money from the escrow %s",
			t.ID, e.PaymentHash, expiryText(exp), e.EscrowAddress),
			"nothing was sent; leave the item: once the buyer reclaims the money the exchange notices it and closes the item")
	}
	return nil
}

// expiryText is an escrow expiry (unix seconds) as people read it.
func expiryText(unix int64) string { return time.Unix(unix, 0).UTC().Format(time.RFC3339) }
