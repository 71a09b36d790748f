package kernel

import (
	"github.com/axp-exchange/axp"
)

// finish moves a task to its end state, counts a release without a dispute as a completed job of
// the seller, and notifies.
func (k *Kernel) Finish(ch *Change, t *axp.TaskRecord, tr axp.Trigger, action string, detail map[string]any) error {
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
	if err := Emit(ch, TaskFinished{Task: t}); err != nil {
		return err
	}
	if err := ch.Save(t, prev, action, detail); err != nil {
		return err
	}
	k.StatusNotices(ch, t)
	return nil
}
