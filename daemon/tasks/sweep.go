package tasks

import (
	"context"
	"time"

	"github.com/axp-exchange/axp"
	"github.com/axp-exchange/axp/daemon/kernel"
	"github.com/axp-exchange/axp/protocol"
	"github.com/axp-exchange/axp/store"
)

// Sweep applies the windows of docs/design.md sections 3 and 8: open tasks nobody chose and unpaid
// tasks expire; delivered tasks whose auto-release window passed wait in the operator's queue as
// release_due, with reminders to both sides. Funds never move here: an expired task that holds a
// payment gets a refund item in the operator's queue. It reports how many tasks it changed.
func (s *Service) Sweep(ctx context.Context) int {
	now := s.base.Now()
	var expire, due []string
	s.base.Store.View(func(tx *store.Tx) error {
		// Only tasks whose window ended are read: the index holds each task under the time
		// the sweeper must next look at it (axp.TaskRecord.SweepAt).
		for _, id := range tx.TasksDue(now) {
			t, err := tx.Task(id)
			if err != nil || t == nil {
				continue
			}
			switch {
			case expiryDue(t, now):
				expire = append(expire, id)
			case releaseDue(t, now):
				due = append(due, id)
			}
		}
		return nil
	})
	s.base.AfterScan("tasks")
	changed := 0
	for _, id := range expire {
		if s.sweepTask(ctx, id, func(ch *kernel.Change, t *axp.TaskRecord) (bool, error) {
			// The scan was a snapshot: the buyer may have chosen, paid or reported a payment
			// since. Decide again on the task as this transaction reads it.
			if !expiryDue(t, ch.Now) {
				return false, nil
			}
			prev := t.Status
			if err := t.Move(axp.TrigExpire, "", ch.Now); err != nil {
				return false, err
			}
			detail := map[string]any{"window": prev}
			if err := s.refundUnused(ch, t, "the task expired holding a payment no job used: refund the buyer", detail); err != nil {
				return false, err
			}
			if err := ch.Save(t, prev, "expire", detail); err != nil {
				return false, err
			}
			s.notices.StatusNotices(ch, t)
			return true, nil
		}) {
			changed++
		}
	}
	for _, id := range due {
		if s.sweepTask(ctx, id, func(ch *kernel.Change, t *axp.TaskRecord) (bool, error) {
			// The buyer may have accepted or disputed, or the seller redone the job, since the scan.
			if !releaseDue(t, ch.Now) {
				return false, nil
			}
			t.ReleaseDue, t.UpdatedAt = true, ch.Now
			a, err := s.money.MoneyApproval(t, axp.ApproveReleaseDue, 0, "the auto-release window passed with no answer from the buyer: decide whether to release", ch.Now)
			if err != nil {
				return false, err
			}
			if err := ch.Tx.PutApproval(a); err != nil {
				return false, err
			}
			if err := ch.Save(t, t.Status, "release_due", map[string]any{"approval_id": a.ID}); err != nil {
				return false, err
			}
			s.reminders(ch, t, "The auto-release window passed. The buyer has not accepted or disputed; the operator will decide. Buyer: accept or dispute now.")
			return true, nil
		}) {
			changed++
		}
	}
	// Mediations whose statement window ended are decided without the missing statement.
	changed += s.trust.SweepMediations(ctx)
	return changed
}

// expiryDue reports whether the sweeper expires t at now: an open task nobody chose within the open
// window, or a task awaiting a payment nobody reported within the payment window.
func expiryDue(t *axp.TaskRecord, now time.Time) bool {
	at, ok := t.SweepAt()
	return ok && (t.Status == axp.TaskOpen || t.Status == axp.TaskAwaitingPayment) && now.After(at)
}

// refundUnused queues the refund of funds a task holds that no job used (a buyer paid, then the
// seller refused the job and the task went back to open): the operator approves it like every
// refund. detail gets the approval's id for the task's event.
func (s *Service) refundUnused(ch *kernel.Change, t *axp.TaskRecord, reason string, detail map[string]any) error {
	if t.Received <= 0 {
		return nil
	}
	a, err := s.money.MoneyApproval(t, axp.ApproveRefund, t.Price, reason, ch.Now)
	if err != nil {
		return err
	}
	a.SellerID, a.SellerName = "", ""
	if err := ch.Tx.PutApproval(a); err != nil {
		return err
	}
	detail["refund_decided"], detail["approval_id"] = true, a.ID
	return nil
}

// releaseDue reports whether a delivered task's auto-release window passed with no buyer answer and
// no release-due item queued yet.
func releaseDue(t *axp.TaskRecord, now time.Time) bool {
	at, ok := t.SweepAt()
	return ok && t.Status == axp.TaskDelivered && now.After(at)
}

// sweepTask runs fn on the task in one write transaction; fn decides again on what it reads there
// and reports whether it changed the task.
func (s *Service) sweepTask(ctx context.Context, id string, fn func(ch *kernel.Change, t *axp.TaskRecord) (bool, error)) bool {
	changed := false
	_, err := s.base.Mutate(ctx, "system", func(ch *kernel.Change) (any, error) {
		t, err := kernel.LoadTask(ch.Tx, id)
		if err != nil {
			return nil, err
		}
		changed, err = fn(ch, t)
		return nil, err
	})
	if err != nil {
		s.base.Log.WarnContext(ctx, "sweep failed", "source", "sweeper", "task", id, "err", err)
		return false
	}
	return changed
}

// reminders queues a reminder event to both parties and the callback URL.
func (s *Service) reminders(ch *kernel.Change, t *axp.TaskRecord, text string) {
	in := protocol.TaskUpdateInput{TaskID: t.ID, Status: t.Status, Event: "reminder", AutoReleaseAt: kernel.RFC3339(t.AutoReleaseAt),
		Data: map[string]any{"message": text}, Test: t.Test}
	for _, id := range []string{t.BuyerMemberID, t.SellerID} {
		if id != "" {
			ch.Notify(kernel.Notice{MemberID: id, TaskID: t.ID, Msg: kernel.Push{Name: "task_update", In: in}})
		}
	}
	if t.CallbackURL != "" {
		ch.Notify(s.notices.Callback(ch, t, map[string]any{"event": "reminder", "task_update": in}))
	}
}
