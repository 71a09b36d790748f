package daemon

import (
	"context"
	"fmt"

	"github.com/axp-exchange/axp"
	"github.com/axp-exchange/axp/daemon/pipeline"
	"github.com/axp-exchange/axp/protocol"
	"github.com/axp-exchange/axp/store"
)

// Reviews (spec 2.7). Both sides review each other: the buyer rates the seller's work, the seller
// rates the buyer. Only the parties of a completed job review it, once per side; a job is
// completed when it was delivered and its status is accepted, released or refunded (a dispute ended
// by a refund or split counts; a task refunded without any delivery does not). Anonymous buyers
// (buyer tokens) review their seller; they have no profile, so sellers do not review them, and all
// anonymous buyers count as one reviewer among the distinct reviewers of the top_rated badge.
// Sandbox jobs never count. Comments pass the text filters.
//
// Each side is asked once through its review tool (push members; anonymous buyers with a callback
// URL get a review event): at acceptance, or at the release, refund or split that ends the job. An
// answer with scores is stored as the review; {skip: true} means none. The reviewed member may
// object (POST /api/reviews/{id}/objection), which opens a review_objection mediation that keeps
// or removes the review.

// completedJob reports whether a task's parties may review it: it was delivered, and it is accepted,
// released or refunded (a task refunded after it expired, with no delivery, is no job).
func completedJob(t *axp.TaskRecord) bool {
	return len(t.Deliveries) > 0 && (t.Status == axp.TaskAccepted || t.Status == axp.TaskReleased || t.Status == axp.TaskRefunded)
}

var reviewCriteria = []string{"rating", "quality", "accuracy", "timeliness", "comment"}

func (d *Daemon) submitReview(ctx context.Context, c *pipeline.Call, in *axp.ReviewBody) (*axp.ReviewResult, error) {
	return as[axp.ReviewResult](d.mutate(ctx, c.Caller.Actor(), func(ch *change) (any, error) {
		t, err := loadTask(ch.tx, in.ID)
		if err != nil {
			return nil, err
		}
		side, err := sideOf(t, c.Caller)
		if err != nil {
			return nil, err
		}
		rating := in.Rating
		return d.storeReview(ch, t, side, protocol.ReviewOutput{Rating: &rating, Quality: in.Quality, Accuracy: in.Accuracy,
			Timeliness: in.Timeliness, Comment: in.Comment}, "rest")
	}))
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
func (d *Daemon) storeReview(ch *change, t *axp.TaskRecord, side string, r protocol.ReviewOutput, via string) (*axp.ReviewResult, error) {
	if !completedJob(t) {
		return nil, axp.Conflict("only parties to a completed job review it (accepted, released or refunded); this task is "+t.Status, "review once the job is accepted or the dispute is resolved")
	}
	for _, s := range []struct {
		f string
		v *int
	}{{"rating", r.Rating}, {"quality", r.Quality}, {"accuracy", r.Accuracy}, {"timeliness", r.Timeliness}} {
		if err := checkScore(s.f, s.v, s.f == "rating"); err != nil {
			return nil, err
		}
	}
	if n := len([]rune(r.Comment)); n > protocol.MaxReviewCommentChars {
		return nil, axp.Invalid("comment", fmt.Sprintf("is %d characters; a comment is at most %d", n, protocol.MaxReviewCommentChars), "shorten it")
	}
	if id := ch.tx.TaskReviewID(t.ID, side); id != "" {
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
	comment, sc, err := d.cleanText(ch, sideParty(t, side), "review_comment", r.Comment, false)
	if err != nil {
		return nil, err
	}
	rec.ReviewView = axp.ReviewView{ReviewID: axp.NewID("rev", ch.now), TaskID: t.ID, Role: side, Rating: *r.Rating,
		Quality: r.Quality, Accuracy: r.Accuracy, Timeliness: r.Timeliness, Comment: comment, Screening: sc, CreatedAt: ch.now}
	if err := ch.tx.PutTaskReview(&rec); err != nil {
		return nil, err
	}
	if err := ch.save(t, t.Status, "review", map[string]any{"review_id": rec.ReviewID, "side": side, "rating": rec.Rating, "via": via}); err != nil {
		return nil, err
	}
	data := map[string]any{"review_id": rec.ReviewID, "from": side, "rating": rec.Rating, "comment": rec.Comment,
		"objection_url": d.BaseURL() + "/api/reviews/" + rec.ReviewID + "/objection"}
	if sc != nil {
		data["screening"] = sc
	}
	d.eventToSide(ch, t, other(side), "review", data)
	return &axp.ReviewResult{ReviewView: rec.ReviewView, RevieweeID: rec.RevieweeID}, nil
}

// subscribeTrust: a finished task asks each side for its review.
func (d *Daemon) subscribeTrust() {
	on(d, func(ch *change, e taskFinished) error { return d.requestReviews(ch, e.task) })
}

// requestReviews asks each side that has not been asked yet for its review. Call it before the
// task is saved: it records who was asked.
func (d *Daemon) requestReviews(ch *change, t *axp.TaskRecord) error {
	if !completedJob(t) || t.Test {
		return nil
	}
	for _, side := range []string{axp.SideBuyer, axp.SideSeller} {
		if containsStr(t.ReviewAsked, side) || ch.tx.TaskReviewID(t.ID, side) != "" {
			continue
		}
		in := protocol.ReviewInput{TaskID: t.ID, YourRole: side, Task: taskSummary(t), Criteria: reviewCriteria, Test: t.Test}
		switch {
		case side == axp.SideBuyer && t.SellerID != "":
			in.Counterparty = protocol.SellerRef{ID: t.SellerID, Name: t.SellerName}
			if t.BuyerMemberID != "" {
				ch.notify(notice{memberID: t.BuyerMemberID, tool: "review", taskID: t.ID, input: in})
			} else if t.CallbackURL != "" {
				ch.notify(d.callback(ch, t, map[string]any{"event": "review", "review": in,
					"review_url": d.BaseURL() + "/api/tasks/" + t.ID + "/review"}))
			}
		case side == axp.SideSeller && t.BuyerMemberID != "" && t.SellerID != "":
			b, err := ch.tx.Member(t.BuyerMemberID)
			if err != nil {
				return err
			}
			name := "buyer"
			if b != nil {
				name = b.Name
			}
			in.Counterparty = protocol.SellerRef{ID: t.BuyerMemberID, Name: name}
			ch.notify(notice{memberID: t.SellerID, tool: "review", taskID: t.ID, input: in})
		default:
			continue
		}
		t.ReviewAsked = append(t.ReviewAsked, side)
	}
	return nil
}

func (d *Daemon) objectToReview(ctx context.Context, c *pipeline.Call, in *axp.ObjectionBody) (*axp.Mediation, error) {
	var id string
	out, err := d.mutate(ctx, c.Caller.Actor(), func(ch *change) (any, error) {
		r, err := ch.tx.Review(in.ID)
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
		t, err := loadTask(ch.tx, r.TaskID)
		if err != nil {
			return nil, err
		}
		list, err := ch.tx.TaskMediations(t.ID)
		if err != nil {
			return nil, err
		}
		for _, m := range list {
			if m.ReviewID == r.ReviewID {
				return nil, axp.Conflict("review "+r.ReviewID+" was already objected to: mediation "+m.ID+" is "+m.Status, "one objection per review; appeal the mediation's decision instead")
			}
		}
		m, err := d.openMediation(ch, t, axp.MediationReviewObjection, other(r.Role), in.Reason, in.Statement, nil, r)
		if err != nil {
			return nil, err
		}
		id = m.ID
		return m, nil
	})
	if err == nil {
		d.decideIfReady(ctx, id)
	}
	return as[axp.Mediation](out, err)
}

// askMember calls a member's mediation or review tool after commit and applies the answer: a
// statement for the mediation, a review (or a skip).
func (d *Daemon) askMember(ctx context.Context, n notice, m *axp.Member) {
	switch in := n.input.(type) {
	case protocol.MediationInput:
		var out protocol.MediationOutput
		err := d.callTool(ctx, m, "mediation", in, &out)
		_, merr := d.mutate(ctx, "member:"+m.ID, func(ch *change) (any, error) {
			med, t, err2 := loadMediation(ch.tx, in.MediationID)
			if err2 != nil {
				return nil, err2
			}
			if err != nil {
				if err := ch.event(t, "mediation_call_failed", map[string]any{"mediation_id": med.ID, "member": m.ID, "error": err.Error(),
					"hint": "the member may state through POST /api/mediations/" + med.ID + "/statement"}); err != nil {
					return nil, err
				}
				return nil, ch.tx.PutTask(t, t.Status)
			}
			if med.Status != axp.MediationAwaiting || med.StatementOf(in.YourRole) != nil {
				return nil, nil
			}
			return nil, d.statement(ch, t, med, in.YourRole, out.Statement, out.ProposedRefundPct, "push")
		})
		if merr != nil {
			d.log.WarnContext(ctx, "mediation answer not stored", "source", "mediation", "mediation", in.MediationID, "member", m.ID, "err", merr)
			d.recordRefusal(ctx, n.taskID, "mediation_answer_refused", m.ID, merr)
			return
		}
		d.decideIfReady(ctx, in.MediationID)
	case protocol.ReviewInput:
		var out protocol.ReviewOutput
		err := d.callTool(ctx, m, "review", in, &out)
		_, merr := d.mutate(ctx, "member:"+m.ID, func(ch *change) (any, error) {
			t, err2 := loadTask(ch.tx, in.TaskID)
			if err2 != nil {
				return nil, err2
			}
			switch {
			case err != nil:
				if err := ch.event(t, "review_call_failed", map[string]any{"side": in.YourRole, "member": m.ID, "error": err.Error()}); err != nil {
					return nil, err
				}
				return nil, ch.tx.PutTask(t, t.Status)
			case out.Skip || out.Rating == nil:
				if err := ch.event(t, "review_skipped", map[string]any{"side": in.YourRole}); err != nil {
					return nil, err
				}
				return nil, ch.tx.PutTask(t, t.Status)
			}
			_, err := d.storeReview(ch, t, in.YourRole, out, "push")
			return nil, err
		})
		if merr != nil {
			d.log.WarnContext(ctx, "review answer not stored", "source", "reviews", "task", in.TaskID, "member", m.ID, "err", merr)
			d.recordRefusal(ctx, n.taskID, "review_answer_refused", m.ID, merr)
		}
	}
}

// recordRefusal notes on a task's timeline that a member's answer was refused, with the rule.
func (d *Daemon) recordRefusal(ctx context.Context, taskID, kind, memberID string, cause error) {
	d.mutate(ctx, "system", func(ch *change) (any, error) {
		t, err := loadTask(ch.tx, taskID)
		if err != nil {
			return nil, err
		}
		if err := ch.event(t, kind, map[string]any{"member": memberID, "error": errorText(cause)}); err != nil {
			return nil, err
		}
		return nil, ch.tx.PutTask(t, t.Status)
	})
}
