package trust

import (
	"context"

	"github.com/axp-exchange/axp"
	"github.com/axp-exchange/axp/daemon/kernel"
	"github.com/axp-exchange/axp/daemon/pipeline"
	"github.com/axp-exchange/axp/daemon/screening"
	"github.com/axp-exchange/axp/protocol"
	"github.com/axp-exchange/axp/store"
)

// mayQuote reports whether a seller takes part in the task's offers: it answered, or matches.
func mayQuote(tx *store.Tx, t *axp.TaskRecord, sellerID string) (bool, error) {
	q, err := tx.Quote(t.ID, sellerID)
	if err != nil || q != nil {
		return q != nil, err
	}
	m, err := tx.Member(sellerID)
	if err != nil || m == nil {
		return false, err
	}
	_, ok := m.Matches(t)
	return ok, nil
}

func (s *Service) listMessages(ctx context.Context, c *pipeline.Call, in *axp.TaskRef) (*axp.MessageList, error) {
	out := &axp.MessageList{TaskID: in.ID, Messages: []axp.Message{}}
	err := s.base.Store.View(func(tx *store.Tx) error {
		t, side, err := kernel.LoadOwned(tx, c, in.ID)
		if err != nil {
			return err
		}
		all, err := tx.Messages(t.ID)
		if err != nil {
			return err
		}
		if side == axp.SideBuyer {
			out.Messages = all
			return nil
		}
		// A seller reads its own conversation.
		for _, m := range all {
			if m.SellerID == c.Caller.MemberID {
				out.Messages = append(out.Messages, m)
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

func (s *Service) postMessage(ctx context.Context, c *pipeline.Call, in *axp.MessageBody) (*axp.Message, error) {
	return kernel.Apply(s.base, ctx, c, func(ch *kernel.Change) (*axp.Message, error) {
		t, side, err := kernel.LoadOwned(ch.Tx, c, in.ID)
		if err != nil {
			return nil, err
		}
		if t.Status == axp.TaskCancelled || t.Status == axp.TaskExpired {
			return nil, axp.Conflict("the task is "+t.Status+": its conversations are closed", "")
		}
		msg := &axp.Message{ID: axp.NewID("msg", ch.Now), TaskID: t.ID, CreatedAt: ch.Now}
		var p screening.Party
		if side == axp.SideBuyer {
			msg.From, p = axp.SideBuyer, screening.BuyerParty(t)
			switch {
			case t.SellerID != "" && in.SellerID != "" && in.SellerID != t.SellerID:
				return nil, axp.Invalid("seller_id", "a seller was chosen: messages go to "+t.SellerID, "leave seller_id out")
			case t.SellerID != "":
				msg.SellerID = t.SellerID
			case in.SellerID == "":
				return nil, axp.Invalid("seller_id", "is required before a seller is chosen", "name the seller (from an offer) you write to")
			default:
				ok, err := mayQuote(ch.Tx, t, in.SellerID)
				if err != nil {
					return nil, err
				}
				if !ok {
					return nil, axp.Invalid("seller_id", in.SellerID+" is not a seller on this task", "write to a seller that offered or was asked to quote")
				}
				msg.SellerID = in.SellerID
			}
		} else {
			me := c.Caller.MemberID
			if in.SellerID != "" && in.SellerID != me {
				return nil, axp.Invalid("seller_id", "sellers write in their own conversation", "leave seller_id out")
			}
			allowed := t.SellerID == me
			if !allowed && t.SellerID == "" {
				all, err := ch.Tx.Messages(t.ID)
				if err != nil {
					return nil, err
				}
				for _, m := range all {
					if m.SellerID == me && m.From == axp.SideBuyer {
						allowed = true
						break
					}
				}
			}
			if !allowed {
				return nil, axp.Forbidden("you may not write on this task", "a seller answers once the buyer wrote to it, or once it is chosen")
			}
			msg.From, msg.SellerID, p = axp.SideSeller, me, screening.SellerParty(t, me)
		}
		body, sc, err := s.screen.CleanText(ch, p, "message", in.Body, false)
		if err != nil {
			return nil, err
		}
		msg.Body, msg.Screening = body, sc
		if err := ch.Tx.PutMessage(msg); err != nil {
			return nil, err
		}
		detail := map[string]any{"message_id": msg.ID, "from": msg.From, "seller_id": msg.SellerID}
		if sc != nil {
			detail["screening"] = sc
		}
		if err := ch.Save(t, t.Status, "message", detail); err != nil {
			return nil, err
		}
		data := map[string]any{"message_id": msg.ID, "from": msg.From, "seller_id": msg.SellerID, "body": msg.Body}
		if sc != nil {
			data["screening"] = sc
		}
		if msg.From == axp.SideBuyer {
			s.eventTo(ch, t, msg.SellerID, "message", data)
		} else {
			s.eventToBuyer(ch, t, "message", data)
		}
		return msg, nil
	})
}

// eventTo pushes a task_update event to one member (push members only; pull members read it).
func (s *Service) eventTo(ch *kernel.Change, t *axp.TaskRecord, memberID, event string, data map[string]any) {
	if memberID == "" {
		return
	}
	ch.Notify(kernel.Notice{MemberID: memberID, TaskID: t.ID, Msg: kernel.Push{Name: "task_update", In: protocol.TaskUpdateInput{TaskID: t.ID,
		Status: t.Status, Event: event, Data: data, AutoReleaseAt: kernel.RFC3339(t.AutoReleaseAt), Test: t.Test}}})
}

// eventToBuyer pushes a task_update event to the buyer member and the task's callback URL.
func (s *Service) eventToBuyer(ch *kernel.Change, t *axp.TaskRecord, event string, data map[string]any) {
	s.eventTo(ch, t, t.BuyerMemberID, event, data)
	if t.CallbackURL != "" {
		in := protocol.TaskUpdateInput{TaskID: t.ID, Status: t.Status, Event: event, Data: data, AutoReleaseAt: kernel.RFC3339(t.AutoReleaseAt), Test: t.Test}
		ch.Notify(s.tasks.Callback(ch, t, map[string]any{"event": event, "task_update": in}))
	}
}

// eventToSide pushes an event to one side of a task.
func (s *Service) eventToSide(ch *kernel.Change, t *axp.TaskRecord, side, event string, data map[string]any) {
	if side == axp.SideSeller {
		s.eventTo(ch, t, t.SellerID, event, data)
		return
	}
	s.eventToBuyer(ch, t, event, data)
}

// eventToBoth pushes an event to both sides of a task.
func (s *Service) eventToBoth(ch *kernel.Change, t *axp.TaskRecord, event string, data map[string]any) {
	s.eventToSide(ch, t, axp.SideBuyer, event, data)
	s.eventToSide(ch, t, axp.SideSeller, event, data)
}
