package kernel

import (
	"github.com/axp-exchange/axp"
	"github.com/axp-exchange/axp/protocol"
	"github.com/axp-exchange/axp/store"
)

// audienceOf says how the caller sees a task: its buyer, its chosen seller, or a seller that may
// quote on it while it is open. Anyone else is refused.
func AudienceOf(tx *store.Tx, t *axp.TaskRecord, c axp.Caller) (string, error) {
	buyerErr := AsBuyer(t, c)
	if buyerErr == nil {
		return ViewBuyer, nil
	}
	if c.Kind == axp.MemberCall {
		if c.MemberID == t.SellerID {
			return ViewSeller, nil
		}
		if t.Status == axp.TaskOpen {
			m, err := tx.Member(c.MemberID)
			if err != nil {
				return "", err
			}
			if m != nil {
				if _, ok := Matches(m, t); ok {
					return ViewSeller, nil
				}
			}
		}
	}
	return "", buyerErr
}

func (k *Kernel) DoTaskNotice(t *axp.TaskRecord, seller *axp.Member) Notice {
	return Notice{MemberID: seller.ID, Tool: "do_task", TaskID: t.ID, Input: protocol.DoTaskInput{
		TaskID: t.ID, TaskType: t.Type, Description: t.Brief(), Params: t.Params, PriceUSD: t.Price,
		ETAMinutes: t.ETAMinutes, DeliverURL: k.BaseURL() + "/api/members/me/jobs/" + t.ID + "/deliver",
		AcceptanceChecks: t.AcceptanceChecks, Screening: t.Screening, Test: t.Test}}
}

// statusNotices queues task_update to both parties and the task's callback URL.
func (k *Kernel) StatusNotices(ch *Change, t *axp.TaskRecord) {
	in := protocol.TaskUpdateInput{TaskID: t.ID, Status: t.Status, AutoReleaseAt: Rfc3339(t.AutoReleaseAt), Test: t.Test}
	if dl := t.LastDelivery(); dl != nil {
		in.Deliverable = k.DeliverableRef(t, dl)
	}
	if t.BuyerMemberID != "" {
		ch.Notify(Notice{MemberID: t.BuyerMemberID, Tool: "task_update", TaskID: t.ID, Input: in})
	}
	if t.SellerID != "" {
		ch.Notify(Notice{MemberID: t.SellerID, Tool: "task_update", TaskID: t.ID, Input: in})
	}
	if t.CallbackURL != "" {
		ch.Notify(k.Callback(ch, t, map[string]any{"event": "task_update", "task_update": in}))
	}
}
