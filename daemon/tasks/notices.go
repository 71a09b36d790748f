package tasks

import (
	"context"
	"strings"

	"github.com/axp-exchange/axp"
	"github.com/axp-exchange/axp/daemon/kernel"
	"github.com/axp-exchange/axp/protocol"
)

// Answers registers the handler of the member call whose answer the tasks service applies: a
// push seller's answer to do_task.
func (s *Service) Answers(a *kernel.Answers) {
	kernel.Answer(a, s.doTask)
}

// PushFailed records on task taskID's timeline that a push (what names it: the tool and the
// member) was not delivered; a label naming no task records nothing.
func (s *Service) PushFailed(taskID, what string, err error) {
	if !strings.HasPrefix(taskID, "tsk_") {
		return
	}
	s.base.Mutate(context.Background(), "system", func(ch *kernel.Change) (any, error) {
		t, err2 := kernel.LoadTask(ch.Tx, taskID)
		if err2 != nil {
			return nil, err2
		}
		if err := ch.Event(t, "push_failed", map[string]any{"push": what, "error": err.Error()}); err != nil {
			return nil, err
		}
		return nil, ch.Tx.PutTask(t, t.Status)
	})
}

// doTask asks a push seller to do a funded job and applies its answer: accepted starts the job; a
// refusal returns the task to the buyer's choice (funds already received stay in escrow for the
// next offer). A call that fails is recorded; the job stays in the seller's list.
func (s *Service) doTask(ctx context.Context, n kernel.Notice, msg kernel.DoTask, m *axp.Member) {
	var out protocol.DoTaskOutput
	err := s.market.CallTool(ctx, m, msg.Tool(), msg.In, &out)
	s.base.Mutate(ctx, "member:"+m.ID, func(ch *kernel.Change) (any, error) {
		t, lerr := kernel.LoadTask(ch.Tx, n.TaskID)
		if lerr != nil {
			return nil, lerr
		}
		if t.SellerID != m.ID || t.Status != axp.TaskPaid {
			return nil, nil // the job moved on meanwhile (delivered already, or reassigned)
		}
		prev := t.Status
		switch {
		case err != nil:
			if err := ch.Event(t, "do_task_failed", map[string]any{"seller": m.ID, "error": err.Error()}); err != nil {
				return nil, err
			}
			return nil, ch.Tx.PutTask(t, t.Status)
		case out.Accepted:
			if err := t.Move(axp.TrigStart, "", ch.Now); err != nil {
				return nil, err
			}
			if err := ch.Save(t, prev, "start", map[string]any{"seller": m.ID}); err != nil {
				return nil, err
			}
			s.notices.StatusNotices(ch, t)
			return nil, nil
		default:
			return nil, s.sellerDeclined(ch, t, out.Reason)
		}
	})
}

// sellerDeclined returns a funded task to the buyer's choice after the seller refused it.
func (s *Service) sellerDeclined(ch *kernel.Change, t *axp.TaskRecord, reason string) error {
	prev, seller := t.Status, t.SellerID
	if err := t.Move(axp.TrigSellerDecline, "", ch.Now); err != nil {
		return err
	}
	if err := ch.Tx.DeleteQuote(t.ID, seller); err != nil {
		return err
	}
	if err := ch.Tx.DropSellerJob(seller, t.ID); err != nil {
		return err
	}
	t.ChosenOfferID, t.SellerID, t.SellerName, t.StartedAt = "", "", "", nil
	t.OpenUntil = ch.Now.Add(s.base.Cfg().OpenWindow)
	if err := ch.Save(t, prev, "seller_decline", map[string]any{"seller": seller, "reason": reason}); err != nil {
		return err
	}
	s.notices.StatusNotices(ch, t)
	return nil
}
