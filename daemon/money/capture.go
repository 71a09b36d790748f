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

// partCapture is the part of a payout item sent by the escrow's capture.
const partCapture = "capture"

// captureFee is the fee the escrow takes when it captures price at bps: rounded down, as the
// contract rounds (the exchange's FeeFor rounds half up). The ledger books what the contract pays.
func captureFee(price axp.Money, bps int64) axp.Money { return price * axp.Money(bps) / 10_000 }

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
	if a.Kind != axp.ApprovePayout {
		return nil, contractRefusal(t)
	}
	if a.SentParts()[partCapture] {
		return nil, nil
	}
	return []axp.OutTransfer{{Part: partCapture, To: t.Authorization.Escrow.EscrowAddress, Amount: t.Received}}, nil
}

// signCapture signs the escrow's capture of task t's whole payment at the task's fee.
func (s *Service) signCapture(ctx context.Context, t *axp.TaskRecord) (chain.Signed, error) {
	e := t.Authorization.Escrow
	info, err := escrow.ParseTerms(e.PaymentInfo)
	if err != nil {
		return chain.Signed{}, fmt.Errorf("task %s's escrow terms: %w", t.ID, err)
	}
	data, err := escrow.Capture(info, info.MaxAmount, info.MinFeeBps, info.FeeReceiver)
	if err != nil {
		return chain.Signed{}, err
	}
	signed, err := s.rail.Wallet.SignCall(ctx, common.HexToAddress(e.EscrowAddress), data, "the escrow's capture")
	if err == nil {
		return signed, nil
	}
	if errors.Is(err, chain.ErrUnanswered) {
		return signed, axp.Errorf(axp.CodeUnavailable, "the chain's node did not answer: %v", err)
	}
	if r, ok := escrow.RevertOf(err); ok {
		return signed, axp.Conflict(fmt.Sprintf("the escrow %s refuses to capture task %s's payment %s: %s", e.EscrowAddress, t.ID, e.PaymentHash, r.Error()),
			"read the payment's state on the escrow (axp admin reconcile); nothing was sent")
	}
	return signed, axp.Errorf(axp.CodeUnavailable, "the hot wallet cannot capture: %v", err)
}

// captured reports whether receipt r holds the escrow's PaymentCaptured of payment hash for the
// whole amount.
func (s *Service) captured(r chain.Receipt, escrowAddr, hash string, amount axp.Money) bool {
	units := s.rail.Chain.Units(amount)
	for _, l := range r.Logs {
		e, ok, err := escrow.Decode(l)
		if err != nil || !ok || e.Name != "PaymentCaptured" || !chain.SameAddress(l.Address.Hex(), escrowAddr) {
			continue
		}
		if strings.EqualFold(e.Hash.Hex(), hash) && e.Amount != nil && e.Amount.Cmp(units) == 0 {
			return true
		}
	}
	return false
}

// contractRefusal refuses to move money of task t, held by the escrow contract, other than by a
// payout from the hot wallet (capture): refund by void and splits are not built yet.
func contractRefusal(t *axp.TaskRecord) error {
	return axp.Conflict(fmt.Sprintf("task %s's money is held by the escrow contract (%s, payment %s): this exchange pays it out only by capture, approved without tx_hash on an exchange with a hot wallet; a refund or split by void is not built yet",
		t.ID, t.Authorization.Escrow.EscrowAddress, t.Authorization.Escrow.PaymentHash),
		"leave the item queued; nothing was sent")
}

// capturedFor reports whether receipt r of the capture x confirms the capture of task taskID's
// payment.
func (s *Service) capturedFor(taskID string, r chain.Receipt, x axp.OutTransfer) bool {
	var hash string
	s.base.Store.View(func(tx *store.Tx) error {
		if t, err := tx.Task(taskID); err == nil && t != nil && t.Authorization != nil && t.Authorization.Escrow != nil {
			hash = t.Authorization.Escrow.PaymentHash
		}
		return nil
	})
	return hash != "" && s.captured(r, x.To, hash, x.Amount)
}
