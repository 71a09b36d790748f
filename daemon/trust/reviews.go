package trust

import (
	"context"
	"fmt"
	"slices"

	"github.com/axp-exchange/axp"
	"github.com/axp-exchange/axp/daemon/kernel"
	"github.com/axp-exchange/axp/daemon/pipeline"
	"github.com/axp-exchange/axp/daemon/screening"
	"github.com/axp-exchange/axp/protocol"
	"github.com/axp-exchange/axp/store"
)

// completedJob reports whether a task's parties may review it: it was delivered, and it is accepted,
// released or refunded (a task refunded after it expired, with no delivery, is no job).
func completedJob(t *axp.TaskRecord) bool {
	return len(t.Deliveries) > 0 && (t.Status == axp.TaskAccepted || t.Status == axp.TaskReleased || t.Status == axp.TaskRefunded)
}

var reviewCriteria = []string{"rating", "quality", "accuracy", "timeliness", "comment"}

func (s *Service) submitReview(ctx context.Context, c *pipeline.Call, in *axp.ReviewBody) (*axp.ReviewResult, error) {
	return kernel.Apply(s.base, ctx, c, func(ch *kernel.Change) (*axp.ReviewResult, error) {
		t, err := kernel.LoadTask(ch.Tx, in.ID)
		if err != nil {
			return nil, err
		}
		side, err := kernel.Owned(ch.Tx, c.Op, t, c.Caller)
		if err != nil {
			return nil, err
		}
		rating := in.Rating
		return s.storeReview(ch, t, side, protocol.ReviewOutput{Rating: &rating, Quality: in.Quality, Accuracy: in.Accuracy,
			Timeliness: in.Timeliness, Comment: in.Comment}, "rest")
	})
}

// checkScore refuses a score outside 1-5.
func checkScore(field string, v *int, required bool) error {
	if v == nil {
		if required {
			return axp.Invalid(field, "is required: an overall rating of 1 to 5", "")
		}
		return nil
	}
	if *v < 1 || *v > 5 {
		return axp.Invalid(field, fmt.Sprintf("is %d; scores are 1 to 5", *v), "")
	}
	return nil
}

// storeReview checks and stores one side's review of a task.
func (s *Service) storeReview(ch *kernel.Change, t *axp.TaskRecord, side string, r protocol.ReviewOutput, via string) (*axp.ReviewResult, error) {
	if !completedJob(t) {
		return nil, axp.Conflict("only parties to a completed job review it (accepted, released or refunded); this task is "+t.Status, "review once the job is accepted or the dispute is resolved")
	}
	for _, vx := range []struct {
		f string
		v *int
	}{{"rating", r.Rating}, {"quality", r.Quality}, {"accuracy", r.Accuracy}, {"timeliness", r.Timeliness}} {
		if err := checkScore(vx.f, vx.v, vx.f == "rating"); err != nil {
			return nil, err
		}
	}
	if n := len([]rune(r.Comment)); n > protocol.MaxReviewCommentChars {
		return nil, axp.Invalid("comment", fmt.Sprintf("is %d characters; a comment is at most %d", n, protocol.MaxReviewCommentChars), "shorten it")
	}
	if id := ch.Tx.TaskReviewID(t.ID, side); id != "" {
		return nil, axp.Conflict("the "+side+" already reviewed this task ("+id+"): one review per side per task", "")
	}
	rec := store.ReviewRecord{Sandbox: t.Test}
	if side == axp.SideBuyer {
		rec.RevieweeID, rec.ReviewerID = t.SellerID, t.BuyerMemberID
		if rec.ReviewerID == "" {
			rec.ReviewerID = "anonymous"
		}
	} else {
		rec.RevieweeID, rec.ReviewerID = t.BuyerMemberID, t.SellerID
		if rec.RevieweeID == "" {
			return nil, axp.Conflict("the buyer of this task is anonymous: sellers review buyer members only", "")
		}
	}
	if rec.RevieweeID == "" {
		return nil, axp.Conflict("this task has no seller to review", "")
	}
	comment, sc, err := s.screen.CleanText(ch, screening.SideParty(t, side), "review_comment", r.Comment, false)
	if err != nil {
		return nil, err
	}
	rec.ReviewView = axp.ReviewView{ReviewID: axp.NewID("rev", ch.Now), TaskID: t.ID, Role: side, Rating: *r.Rating,
		Quality: r.Quality, Accuracy: r.Accuracy, Timeliness: r.Timeliness, Comment: comment, Screening: sc, CreatedAt: ch.Now}
	if err := ch.Tx.PutTaskReview(&rec); err != nil {
		return nil, err
	}
	if err := ch.Save(t, t.Status, "review", map[string]any{"review_id": rec.ReviewID, "side": side, "rating": rec.Rating, "via": via}); err != nil {
		return nil, err
	}
	data := map[string]any{"review_id": rec.ReviewID, "from": side, "rating": rec.Rating, "comment": rec.Comment,
		"objection_url": s.base.BaseURL() + "/api/reviews/" + rec.ReviewID + "/objection"}
	if sc != nil {
		data["screening"] = sc
	}
	s.eventToSide(ch, t, axp.OtherSide(side), "review", data)
	return &axp.ReviewResult{ReviewView: rec.ReviewView, RevieweeID: rec.RevieweeID}, nil
}

// subscribeTrust: a finished task asks each side for its review.
func (s *Service) subscribeTrust() {
	kernel.On(s.base, func(ch *kernel.Change, e kernel.TaskFinished) error { return s.requestReviews(ch, e.Task) })
}

// requestReviews asks each side that has not been asked yet for its review. Call it before the
// task is saved: it records who was asked.
func (s *Service) requestReviews(ch *kernel.Change, t *axp.TaskRecord) error {
	if !completedJob(t) || t.Test {
		return nil
	}
	for _, side := range []string{axp.SideBuyer, axp.SideSeller} {
		if slices.Contains(t.ReviewAsked, side) || ch.Tx.TaskReviewID(t.ID, side) != "" {
			continue
		}
		in := protocol.ReviewInput{TaskID: t.ID, YourRole: side, Task: taskSummary(t), Criteria: reviewCriteria, Test: t.Test}
		switch {
		case side == axp.SideBuyer && t.SellerID != "":
			in.Counterparty = protocol.SellerRef{ID: t.SellerID, Name: t.SellerName}
			if t.BuyerMemberID != "" {
				ch.Notify(kernel.Notice{MemberID: t.BuyerMemberID, TaskID: t.ID, Msg: kernel.AskReview{In: in}})
			} else if t.CallbackURL != "" {
				ch.Notify(s.tasks.Callback(ch, t, map[string]any{"event": "review", "review": in,
					"review_url": s.base.BaseURL() + "/api/tasks/" + t.ID + "/review"}))
			}
		case side == axp.SideSeller && t.BuyerMemberID != "" && t.SellerID != "":
			b, err := ch.Tx.Member(t.BuyerMemberID)
			if err != nil {
				return err
			}
			name := "buyer"
			if b != nil {
				name = b.Name
			}
			in.Counterparty = protocol.SellerRef{ID: t.BuyerMemberID, Name: name}
			ch.Notify(kernel.Notice{MemberID: t.SellerID, TaskID: t.ID, Msg: kernel.AskReview{In: in}})
		default:
			continue
		}
		t.ReviewAsked = append(t.ReviewAsked, side)
	}
	return nil
}

func (s *Service) objectToReview(ctx context.Context, c *pipeline.Call, in *axp.ObjectionBody) (*axp.Mediation, error) {
	var id string
	out, err := kernel.Apply(s.base, ctx, c, func(ch *kernel.Change) (*axp.Mediation, error) {
		r, err := ch.Tx.Review(in.ID)
		if err != nil {
			return nil, err
		}
		if r == nil {
			return nil, axp.NotFound("review", in.ID)
		}
		if r.RevieweeID != c.Caller.MemberID {
			return nil, axp.Forbidden("only the reviewed member may object to a review", "")
		}
		if r.Removed {
			return nil, axp.Conflict("review "+r.ReviewID+" was already removed", "")
		}
		t, err := kernel.LoadTask(ch.Tx, r.TaskID)
		if err != nil {
			return nil, err
		}
		list, err := ch.Tx.TaskMediations(t.ID)
		if err != nil {
			return nil, err
		}
		for _, m := range list {
			if m.ReviewID == r.ReviewID {
				return nil, axp.Conflict("review "+r.ReviewID+" was already objected to: mediation "+m.ID+" is "+m.Status, "one objection per review; appeal the mediation's decision instead")
			}
		}
		m, err := s.openMediation(ch, t, axp.MediationReviewObjection, axp.OtherSide(r.Role), in.Reason, in.Statement, nil, r)
		if err != nil {
			return nil, err
		}
		id = m.ID
		return m, nil
	})
	if err == nil {
		s.decideIfReady(ctx, id)
	}
	return out, err
}

// Answers registers the handlers of the member calls whose answers the trust service applies:
// a side's statement in a mediation, a party's review.
func (s *Service) Answers(a *kernel.Answers) {
	kernel.Answer(a, s.callForStatement)
	kernel.Answer(a, s.callForReview)
}

// callForStatement calls a side's mediation tool after commit and records the statement it answers.
func (s *Service) callForStatement(ctx context.Context, n kernel.Notice, msg kernel.AskStatement, m *axp.Member) {
	in := msg.In
	var out protocol.MediationOutput
	err := s.members.CallTool(ctx, m, msg.Tool(), in, &out)
	_, merr := s.base.Mutate(ctx, "member:"+m.ID, func(ch *kernel.Change) (any, error) {
		med, t, err2 := loadMediation(ch.Tx, in.MediationID)
		if err2 != nil {
			return nil, err2
		}
		if err != nil {
			if err := ch.Event(t, "mediation_call_failed", map[string]any{"mediation_id": med.ID, "member": m.ID, "error": err.Error(),
				"hint": "the member may state through POST /api/mediations/" + med.ID + "/statement"}); err != nil {
				return nil, err
			}
			return nil, ch.Tx.PutTask(t, t.Status)
		}
		if med.Status != axp.MediationAwaiting || med.StatementOf(in.YourRole) != nil {
			return nil, nil
		}
		return nil, s.statement(ch, t, med, in.YourRole, out.Statement, out.ProposedRefundPct, "push")
	})
	if merr != nil {
		s.base.Log.WarnContext(ctx, "mediation answer not stored", "source", "mediation", "mediation", in.MediationID, "member", m.ID, "err", merr)
		s.recordRefusal(ctx, n.TaskID, "mediation_answer_refused", m.ID, merr)
		return
	}
	s.decideIfReady(ctx, in.MediationID)
}

// callForReview calls a party's review tool after commit and records its review (or its skip).
func (s *Service) callForReview(ctx context.Context, n kernel.Notice, msg kernel.AskReview, m *axp.Member) {
	in := msg.In
	var out protocol.ReviewOutput
	err := s.members.CallTool(ctx, m, msg.Tool(), in, &out)
	_, merr := s.base.Mutate(ctx, "member:"+m.ID, func(ch *kernel.Change) (any, error) {
		t, err2 := kernel.LoadTask(ch.Tx, in.TaskID)
		if err2 != nil {
			return nil, err2
		}
		switch {
		case err != nil:
			if err := ch.Event(t, "review_call_failed", map[string]any{"side": in.YourRole, "member": m.ID, "error": err.Error()}); err != nil {
				return nil, err
			}
			return nil, ch.Tx.PutTask(t, t.Status)
		case out.Skip || out.Rating == nil:
			if err := ch.Event(t, "review_skipped", map[string]any{"side": in.YourRole}); err != nil {
				return nil, err
			}
			return nil, ch.Tx.PutTask(t, t.Status)
		}
		_, err := s.storeReview(ch, t, in.YourRole, out, "push")
		return nil, err
	})
	if merr != nil {
		s.base.Log.WarnContext(ctx, "review answer not stored", "source", "reviews", "task", in.TaskID, "member", m.ID, "err", merr)
		s.recordRefusal(ctx, n.TaskID, "review_answer_refused", m.ID, merr)
	}
}

// recordRefusal notes on a task's timeline that a member's answer was refused, with the rule.
func (s *Service) recordRefusal(ctx context.Context, taskID, kind, memberID string, cause error) {
	s.base.Mutate(ctx, "system", func(ch *kernel.Change) (any, error) {
		t, err := kernel.LoadTask(ch.Tx, taskID)
		if err != nil {
			return nil, err
		}
		if err := ch.Event(t, kind, map[string]any{"member": memberID, "error": kernel.ErrorText(cause)}); err != nil {
			return nil, err
		}
		return nil, ch.Tx.PutTask(t, t.Status)
	})
}
