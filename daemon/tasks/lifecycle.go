package tasks

import (
	"github.com/axp-exchange/axp"
	"github.com/axp-exchange/axp/daemon/kernel"
	"github.com/axp-exchange/axp/protocol"
)

// Lifecycle is what a task's change of status does beyond the task itself: the notices to its
// parties and its callback URL, the do_task call to its seller, and its end. Money and trust end
// tasks through it too, so the daemon builds it before the services that take it in their New.
type Lifecycle struct {
	base      kernel.Base // the base URL the notices point at
	callbacks Callbacks
}

// Callbacks builds the notice posting a payload to a task's callback URL.
type Callbacks interface {
	Callback(ch *kernel.Change, t *axp.TaskRecord, payload map[string]any) kernel.Notice
}

// NewLifecycle returns the lifecycle of the exchange's tasks.
func NewLifecycle(base kernel.Base, callbacks Callbacks) *Lifecycle {
	return &Lifecycle{base: base, callbacks: callbacks}
}

// Callback is the notice posting payload to a task's callback URL.
func (l *Lifecycle) Callback(ch *kernel.Change, t *axp.TaskRecord, payload map[string]any) kernel.Notice {
	return l.callbacks.Callback(ch, t, payload)
}

// DoTaskNotice is the do_task call to a task's chosen seller, which starts its job.
func (l *Lifecycle) DoTaskNotice(t *axp.TaskRecord, seller *axp.Member) kernel.Notice {
	return kernel.Notice{MemberID: seller.ID, TaskID: t.ID, Msg: kernel.DoTask{In: protocol.DoTaskInput{
		TaskID: t.ID, TaskType: t.Type, Description: t.Brief(), Params: t.Params, PriceUSD: t.Price,
		ETAMinutes: t.ETAMinutes, DeliverURL: l.base.BaseURL() + "/api/members/me/jobs/" + t.ID + "/deliver",
		AcceptanceChecks: t.AcceptanceChecks, Screening: t.Screening, Test: t.Test}}}
}

// StatusNotices queues task_update to both parties and the task's callback URL.
func (l *Lifecycle) StatusNotices(ch *kernel.Change, t *axp.TaskRecord) {
	in := protocol.TaskUpdateInput{TaskID: t.ID, Status: t.Status, AutoReleaseAt: kernel.RFC3339(t.AutoReleaseAt), Test: t.Test}
	if dl := t.LastDelivery(); dl != nil {
		in.Deliverable = l.DeliverableRef(t, dl)
	}
	if t.BuyerMemberID != "" {
		ch.Notify(kernel.Notice{MemberID: t.BuyerMemberID, TaskID: t.ID, Msg: kernel.Push{Name: "task_update", In: in}})
	}
	if t.SellerID != "" {
		ch.Notify(kernel.Notice{MemberID: t.SellerID, TaskID: t.ID, Msg: kernel.Push{Name: "task_update", In: in}})
	}
	if t.CallbackURL != "" {
		ch.Notify(l.callbacks.Callback(ch, t, map[string]any{"event": "task_update", "task_update": in}))
	}
}

// DeliverableRef points at a task's hosted deliverable, with the delivery note and its verdict.
func (l *Lifecycle) DeliverableRef(t *axp.TaskRecord, dl *axp.Delivery) *protocol.DeliverableRef {
	return &protocol.DeliverableRef{URL: l.base.BaseURL() + "/api/tasks/" + t.ID + "/deliverable", SHA256: dl.SHA256,
		Note: dl.Note, Screening: dl.Screening}
}

// Finish moves a task to its end state, counts a release without a dispute as a completed job of
// the seller, and notifies.
func (l *Lifecycle) Finish(ch *kernel.Change, t *axp.TaskRecord, tr axp.Trigger, action string, detail map[string]any) error {
	prev := t.Status
	if err := t.Move(tr, "", ch.Now); err != nil {
		return err
	}
	if t.SellerID != "" && !t.Disputed && tr == axp.TrigRelease {
		st, err := ch.Tx.SellerStats(t.SellerID)
		if err != nil {
			return err
		}
		st.Completed++
		if err := ch.Tx.PutSellerStats(st); err != nil {
			return err
		}
	}
	if err := kernel.Emit(ch, kernel.TaskFinished{Task: t}); err != nil {
		return err
	}
	if err := ch.Save(t, prev, action, detail); err != nil {
		return err
	}
	l.StatusNotices(ch, t)
	return nil
}
