package trust

import (
	"context"
	"fmt"

	"github.com/axp-exchange/axp"
	"github.com/axp-exchange/axp/daemon/kernel"
	"github.com/axp-exchange/axp/daemon/pipeline"
	"github.com/axp-exchange/axp/daemon/screening"
	"github.com/axp-exchange/axp/store"
)

// refundOf is pct percent of price, rounded half-up to the micro-dollar.
func refundOf(price axp.Money, pct int) axp.Money {
	return (price*axp.Money(pct) + 50) / 100
}

// pendingDecision returns the open refund or split item of a task, or nil: while one waits for the
// operator, no new settlement or escalation is taken.
func pendingDecision(tx *store.Tx, taskID string) (*axp.Approval, error) {
	list, err := tx.TaskApprovals(taskID)
	if err != nil {
		return nil, err
	}
	for i := range list {
		a := &list[i]
		if (a.Kind == axp.ApproveRefund || a.Kind == axp.ApproveSplit) && (a.Open() || a.Status == axp.ApprovalSent) {
			return a, nil
		}
	}
	return nil, nil
}

// disputeOpen checks that a task is disputed with no decision waiting for the operator.
func disputeOpen(tx *store.Tx, t *axp.TaskRecord, what string) error {
	if t.Status != axp.TaskDisputed {
		return axp.Conflict(fmt.Sprintf("%s needs a disputed task; this one is %s", what, t.Status), "dispute the delivery first (POST /api/tasks/"+t.ID+"/dispute)")
	}
	a, err := pendingDecision(tx, t.ID)
	if err != nil {
		return err
	}
	if a != nil {
		return axp.Conflict("a "+a.Kind+" ("+a.ID+") is already decided and waits for the operator's approval", "wait for the operator; if it is rejected, the dispute reopens")
	}
	return nil
}

// applyDecision turns an agreed or decided refund percentage into the operator's queue item (a
// refund at 100%, a split otherwise) and answers its id. Free jobs end at once: nothing moves.
func (s *Service) applyDecision(ch *kernel.Change, t *axp.TaskRecord, pct int, reason string) (string, error) {
	if t.Free() {
		tr, action := axp.TrigSettle, "settle"
		if pct == 100 {
			tr, action = axp.TrigRefund, "refund"
		}
		return "", s.tasks.Finish(ch, t, tr, action, map[string]any{"refund_pct": pct, "free": true, "reason": reason})
	}
	kind := axp.ApproveSplit
	if pct == 100 {
		kind = axp.ApproveRefund
	}
	a, err := s.money.MoneyApproval(t, kind, refundOf(t.Price, pct), reason, ch.Now)
	if err != nil {
		return "", err
	}
	p := pct
	a.RefundPct = &p
	if kind == axp.ApproveSplit && a.SellerNetUSD > 0 {
		seller, err := kernel.LoadMember(ch.Tx, t.SellerID)
		if err != nil {
			return "", err
		}
		a.PayoutAddress = seller.PayoutAddress
		if seller.PayoutAddress == "" {
			if err := a.Hold(axp.HoldPayoutAddress); err != nil {
				return "", err
			}
			a.Note = "held until the seller adds a payout address (axp member payout-address ADDR, or update_profile with payout_address)"
		}
	}
	if err := ch.Tx.PutApproval(a); err != nil {
		return "", err
	}
	return a.ID, nil
}

// supersedeSettlements closes the open proposals of a task (a newer proposal or a decision
// replaced them).
func supersedeSettlements(ch *kernel.Change, taskID, except string) error {
	list, err := ch.Tx.TaskSettlements(taskID)
	if err != nil {
		return err
	}
	for i := range list {
		s := &list[i]
		if s.Status == axp.SettlementProposed && s.ID != except {
			if err := axp.SettlementMachine.Move(&s.Status, axp.SettlementSupersede); err != nil {
				return err
			}
			if err := ch.Tx.PutSettlement(s); err != nil {
				return err
			}
		}
	}
	return nil
}

func (s *Service) proposeSettlement(ctx context.Context, c *pipeline.Call, in *axp.SettlementBody) (*axp.Settlement, error) {
	if in.RefundPct < 0 || in.RefundPct > 100 {
		return nil, axp.Invalid("refund_pct", "must be 0 to 100 (the share of the price refunded to the buyer)", "")
	}
	return kernel.Apply(s.base, ctx, c, func(ch *kernel.Change) (*axp.Settlement, error) {
		t, err := kernel.LoadTask(ch.Tx, in.ID)
		if err != nil {
			return nil, err
		}
		side, err := kernel.Owned(ch.Tx, c.Op, t, c.Caller)
		if err != nil {
			return nil, err
		}
		if err := disputeOpen(ch.Tx, t, "a settlement"); err != nil {
			return nil, err
		}
		note, sc, err := s.screen.CleanText(ch, screening.SideParty(t, side), "settlement_note", in.Note, false)
		if err != nil {
			return nil, err
		}
		set := &axp.Settlement{ID: axp.NewID("stl", ch.Now), TaskID: t.ID, ProposedBy: side, RefundPct: in.RefundPct,
			RefundUSD: refundOf(t.Price, in.RefundPct), Note: note, Screening: sc, Status: axp.SettlementProposed, CreatedAt: ch.Now}
		if err := supersedeSettlements(ch, t.ID, ""); err != nil {
			return nil, err
		}
		if err := ch.Tx.PutSettlement(set); err != nil {
			return nil, err
		}
		detail := map[string]any{"settlement_id": set.ID, "proposed_by": side, "refund_pct": set.RefundPct, "refund_usd": set.RefundUSD}
		if sc != nil {
			detail["screening"] = sc
		}
		if err := ch.Save(t, t.Status, "settlement_proposed", detail); err != nil {
			return nil, err
		}
		data := map[string]any{"settlement_id": set.ID, "proposed_by": side, "refund_pct": set.RefundPct, "refund_usd": set.RefundUSD,
			"note": set.Note, "answer_url": s.base.BaseURL() + "/api/tasks/" + t.ID + "/settlement/" + set.ID}
		if sc != nil {
			data["screening"] = sc
		}
		s.eventToSide(ch, t, axp.OtherSide(side), "settlement_proposed", data)
		return set, nil
	})
}

func (s *Service) answerSettlement(ctx context.Context, c *pipeline.Call, in *axp.SettlementAnswer) (*axp.Settlement, error) {
	return kernel.Apply(s.base, ctx, c, func(ch *kernel.Change) (*axp.Settlement, error) {
		t, err := kernel.LoadTask(ch.Tx, in.ID)
		if err != nil {
			return nil, err
		}
		side, err := kernel.Owned(ch.Tx, c.Op, t, c.Caller)
		if err != nil {
			return nil, err
		}
		set, err := ch.Tx.Settlement(in.SettlementID)
		if err != nil {
			return nil, err
		}
		if set == nil || set.TaskID != t.ID {
			return nil, axp.NotFound("settlement", in.SettlementID)
		}
		if set.ProposedBy == side {
			return nil, axp.Forbidden("the proposer cannot answer its own settlement: only the "+axp.OtherSide(side)+" may accept or reject it",
				"wait for the other side's answer, or propose anew")
		}
		if set.Status != axp.SettlementProposed {
			return nil, axp.Conflict("settlement "+set.ID+" is "+set.Status+"; only an open proposal can be answered", "")
		}
		if err := disputeOpen(ch.Tx, t, "a settlement"); err != nil {
			return nil, err
		}
		now := ch.Now
		set.AnsweredAt = &now
		data := map[string]any{"settlement_id": set.ID, "refund_pct": set.RefundPct, "refund_usd": set.RefundUSD}
		if !in.Accept {
			if err := axp.SettlementMachine.Move(&set.Status, axp.SettlementReject); err != nil {
				return nil, err
			}
			if err := ch.Tx.PutSettlement(set); err != nil {
				return nil, err
			}
			if err := ch.Save(t, t.Status, "settlement_rejected", map[string]any{"settlement_id": set.ID, "by": side}); err != nil {
				return nil, err
			}
			s.eventToSide(ch, t, set.ProposedBy, "settlement_rejected", data)
			return set, nil
		}
		if err := axp.SettlementMachine.Move(&set.Status, axp.SettlementAccept); err != nil {
			return nil, err
		}
		pct := set.RefundPct
		approval, err := s.applyDecision(ch, t, pct, fmt.Sprintf("the parties agreed settlement %s: refund %d%% of the price", set.ID, pct))
		if err != nil {
			return nil, err
		}
		set.ApprovalID = approval
		if err := ch.Tx.PutSettlement(set); err != nil {
			return nil, err
		}
		if err := s.closeMediations(ch, t, &axp.MediationDecision{By: "settlement", Outcome: outcomeOf(pct), RefundPct: &pct,
			Reasoning: "the parties agreed settlement " + set.ID, ApprovalID: approval, At: ch.Now}); err != nil {
			return nil, err
		}
		if t.Status == axp.TaskDisputed {
			if err := ch.Save(t, t.Status, "settlement_accepted", map[string]any{"settlement_id": set.ID, "by": side, "refund_pct": pct, "approval_id": approval}); err != nil {
				return nil, err
			}
		}
		data["approval_id"] = approval
		s.eventToBoth(ch, t, "settlement_accepted", data)
		return set, nil
	})
}

// outcomeOf names a refund percentage's outcome.
func outcomeOf(pct int) string {
	switch pct {
	case 100:
		return "refund"
	case 0:
		return "release"
	}
	return "split"
}
