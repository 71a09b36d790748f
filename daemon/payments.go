package daemon

import (
	"context"

	"github.com/axp-exchange/axp"
	"github.com/axp-exchange/axp/store"
)

// Verdict is a payment verifier's answer on a reported transaction.
type Verdict struct {
	// Confirmed says the transaction pays the task: Amount reached the deposit address.
	Confirmed bool
	Amount    axp.Money
	// Reason explains a verdict that is not a confirmation (pending, too small, failed).
	Reason string
}

// PaymentVerifier checks reported payments (DESIGN.md section 5). The manual verifier leaves every
// payment to the operator's confirmation; a chain verifier confirms on its own.
type PaymentVerifier interface {
	// Name is "manual", "evm", ...
	Name() string
	// Verify looks at a transaction reported for a task. It is called outside any store
	// transaction and may use the network.
	Verify(ctx context.Context, t *axp.TaskRecord, txHash string) (Verdict, error)
}

// manualVerifier confirms nothing itself: the payment waits in the operator's approval queue.
type manualVerifier struct{}

func (manualVerifier) Name() string { return "manual" }

func (manualVerifier) Verify(context.Context, *axp.TaskRecord, string) (Verdict, error) {
	return Verdict{Reason: "the operator confirms payments on this exchange"}, nil
}

// verifyPayment runs the verifier on a reported payment after it was recorded; a confirmation
// approves the payment item on the verifier's authority and starts the job.
func (d *Daemon) verifyPayment(ctx context.Context, taskID, txHash string) {
	if d.verifier.Name() == "manual" {
		return
	}
	var t *axp.TaskRecord
	if err := d.db.View(func(tx *store.Tx) error {
		var err error
		t, err = tx.Task(taskID)
		return err
	}); err != nil || t == nil {
		return
	}
	v, err := d.verifier.Verify(ctx, t, txHash)
	if err != nil || !v.Confirmed {
		reason := v.Reason
		if err != nil {
			reason = err.Error()
		}
		d.log.InfoContext(ctx, "payment not confirmed yet", "source", "payments", "task", taskID, "verifier", d.verifier.Name(), "reason", reason)
		return
	}
	d.mutate(axp.WithIdempotency(ctx, nil), "verifier:"+d.verifier.Name(), func(ch *change) (any, error) {
		t, err := loadTask(ch.tx, taskID)
		if err != nil {
			return nil, err
		}
		list, err := ch.tx.TaskApprovals(taskID)
		if err != nil {
			return nil, err
		}
		for i := range list {
			a := &list[i]
			if a.Kind == axp.ApprovePayment && a.Status == axp.ApprovalPending && a.TxHash == txHash {
				now := ch.now
				if err := axp.ApprovalMachine.Move(&a.Status, axp.ApprovalApprove); err != nil {
					return nil, err
				}
				a.DecidedAt, a.Amount, a.Note = &now, v.Amount, "confirmed by the "+d.verifier.Name()+" verifier"
				if err := d.confirmPayment(ch, t, a); err != nil {
					return nil, err
				}
				return nil, ch.tx.PutApproval(a)
			}
		}
		return nil, nil
	})
}
