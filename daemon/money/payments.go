package money

import (
	"context"

	"github.com/axp-exchange/axp"
	"github.com/axp-exchange/axp/daemon/kernel"
	"github.com/axp-exchange/axp/store"
)

// VerifyPayment runs the verifier on a reported payment after it was recorded; a confirmation
// approves the payment item on the verifier's authority and starts the job.
func (s *Service) VerifyPayment(ctx context.Context, taskID, txHash string) {
	if s.rail.Verifier.Name() == "manual" {
		return
	}
	var t *axp.TaskRecord
	if err := s.base.Store.View(func(tx *store.Tx) error {
		var err error
		t, err = tx.Task(taskID)
		return err
	}); err != nil || t == nil {
		return
	}
	v, err := s.rail.Verifier.Verify(ctx, t, txHash)
	if err != nil || !v.Confirmed {
		reason := v.Reason
		if err != nil {
			reason = err.Error()
		}
		s.base.Log.InfoContext(ctx, "payment not confirmed yet", "source", "payments", "task", taskID, "verifier", s.rail.Verifier.Name(), "reason", reason)
		return
	}
	s.base.Mutate(ctx, "verifier:"+s.rail.Verifier.Name(), func(ch *kernel.Change) (any, error) {
		t, err := kernel.LoadTask(ch.Tx, taskID)
		if err != nil {
			return nil, err
		}
		list, err := ch.Tx.TaskApprovals(taskID)
		if err != nil {
			return nil, err
		}
		for i := range list {
			a := &list[i]
			if a.Kind == axp.ApprovePayment && a.Status == axp.ApprovalPending && a.TxHash == txHash {
				now := ch.Now
				if err := axp.ApprovalMachine.Move(&a.Status, axp.ApprovalApprove); err != nil {
					return nil, err
				}
				a.DecidedAt, a.Amount, a.Note = &now, v.Amount, "confirmed by the "+s.rail.Verifier.Name()+" verifier"
				if err := s.confirmPayment(ch, t, a, ""); err != nil {
					return nil, err
				}
				return nil, ch.Tx.PutApproval(a)
			}
		}
		return nil, nil
	})
}
