package memberkit

import (
	"context"
	"fmt"

	"github.com/axp-exchange/axp/protocol"
)

// Seller answers the tools of the seller role: quote, do_task and get_skills. Every call must be
// answered within 10 s (spec section 8): do long work after answering do_task, and deliver with
// Job.Deliver.
type Seller interface {
	// Quote answers a quote request with a price, clarifying questions or a decline (spec 2.4).
	Quote(ctx context.Context, in protocol.QuoteInput) (protocol.QuoteAnswer, error)
	// DoTask is told to do a job the buyer chose and paid for. Answer at once whether the job is
	// taken; deliver later with job.Deliver.
	DoTask(ctx context.Context, job *Job) (protocol.DoTaskOutput, error)
	// GetSkills reports the seller's current skills.
	GetSkills(ctx context.Context) ([]protocol.Skill, error)
}

// Buyer answers the tool of the buyer role: receive_offers.
type Buyer interface {
	// ReceiveOffers is given the offers collected for a task the buyer posted. Choose one by
	// POSTing {offer_id} to in.ChooseURL with the member secret (or Client.Choose).
	ReceiveOffers(ctx context.Context, in protocol.ReceiveOffersInput) error
}

// Party answers the tools both roles offer: task_update, announcement, mediation and review.
type Party interface {
	// TaskUpdate is told that a task the member is party to changed or carries an event.
	TaskUpdate(ctx context.Context, in protocol.TaskUpdateInput) error
	// Announcement is given an announcement from the operator.
	Announcement(ctx context.Context, in protocol.AnnouncementInput) error
	// Mediation asks for the member's statement in a dispute or review objection.
	Mediation(ctx context.Context, in protocol.MediationInput) (protocol.MediationOutput, error)
	// Review asks the member to review the other party of a finished job, or to skip.
	Review(ctx context.Context, in protocol.ReviewInput) (protocol.ReviewOutput, error)
}

// Defaults answers every member tool sensibly; embed it in your own type and override the methods
// you care about. Its zero value is usable (a seller with no skills declines everything).
//
//   - Quote quotes from Skills: the instant price and ETA when the skill has them, else
//     min_price_usd and typical_eta_minutes, else it declines (cannot_do). A free job is quoted
//     at 0. The skill's guarantee goes with the quote.
//   - DoTask declines: a seller that does jobs overrides it (or uses Worker).
//   - GetSkills reports Skills.
//   - ReceiveOffers, TaskUpdate and Announcement acknowledge.
//   - Mediation gives a neutral statement and proposes no refund split.
//   - Review skips.
type Defaults struct {
	// Skills are the seller's skills (spec 2.2), as declared at registration.
	Skills []protocol.Skill
}

var (
	_ Seller = Defaults{}
	_ Buyer  = Defaults{}
	_ Party  = Defaults{}
)

// Quote quotes from the declared skills (see Defaults).
func (d Defaults) Quote(ctx context.Context, in protocol.QuoteInput) (protocol.QuoteAnswer, error) {
	return QuoteFromSkills(d.Skills, in), nil
}

// DoTask declines: Defaults does no work.
func (d Defaults) DoTask(ctx context.Context, job *Job) (protocol.DoTaskOutput, error) {
	return protocol.DoTaskOutput{Accepted: false, Reason: "this seller cannot take jobs right now"}, nil
}

// GetSkills reports the declared skills.
func (d Defaults) GetSkills(ctx context.Context) ([]protocol.Skill, error) { return d.Skills, nil }

// ReceiveOffers acknowledges the offers.
func (d Defaults) ReceiveOffers(ctx context.Context, in protocol.ReceiveOffersInput) error {
	return nil
}

// TaskUpdate acknowledges the update.
func (d Defaults) TaskUpdate(ctx context.Context, in protocol.TaskUpdateInput) error { return nil }

// Announcement acknowledges the announcement.
func (d Defaults) Announcement(ctx context.Context, in protocol.AnnouncementInput) error { return nil }

// NeutralStatement is the mediation statement of Defaults.
const NeutralStatement = "We have nothing to add to the task record and will accept the Mediator's decision."

// Mediation gives a neutral statement and no proposed split.
func (d Defaults) Mediation(ctx context.Context, in protocol.MediationInput) (protocol.MediationOutput, error) {
	return protocol.MediationOutput{Statement: NeutralStatement}, nil
}

// Review skips.
func (d Defaults) Review(ctx context.Context, in protocol.ReviewInput) (protocol.ReviewOutput, error) {
	return protocol.ReviewOutput{Skip: true}, nil
}

// QuoteFromSkills is the quote of Defaults: the skill of the task's type priced at its instant
// price and ETA, else at min_price_usd and typical_eta_minutes; a free job at 0; a decline
// (cannot_do) when no skill of the type exists or it names no price and ETA.
func QuoteFromSkills(skills []protocol.Skill, in protocol.QuoteInput) protocol.QuoteAnswer {
	for _, s := range skills {
		if s.TaskType != in.TaskType {
			continue
		}
		var price *protocol.Money
		var eta *int
		switch {
		case s.Instant():
			price, eta = s.InstantPriceUSD, s.InstantETAMinutes
		case s.MinPriceUSD != nil && s.TypicalETAMinutes != nil:
			price, eta = s.MinPriceUSD, s.TypicalETAMinutes
		}
		if eta == nil {
			return Decline("cannot_do", fmt.Sprintf("no price is set for %s yet", in.TaskType))
		}
		p := *price
		if in.PaymentMethod == "free" {
			p = 0
		} else if p <= 0 {
			return Decline("cannot_do", fmt.Sprintf("no price is set for %s yet", in.TaskType))
		}
		e := *eta
		q := protocol.QuoteAnswer{PriceUSD: &p, ETAMinutes: &e}
		if s.Guarantee != nil {
			g := *s.Guarantee
			q.Guarantee = &g
		}
		return q
	}
	return Decline("cannot_do", fmt.Sprintf("this seller does not do %s", in.TaskType))
}

// Price builds a price quote.
func Price(usd protocol.Money, etaMinutes int, note string) protocol.QuoteAnswer {
	return protocol.QuoteAnswer{PriceUSD: &usd, ETAMinutes: &etaMinutes, Note: note}
}

// Decline builds a decline with a reason code (cannot_do, no_capacity, too_expensive, deadline or
// other) and a reason.
func Decline(code, reason string) protocol.QuoteAnswer {
	return protocol.QuoteAnswer{Decline: true, ReasonCode: code, Reason: reason}
}

// Clarify builds clarifying questions (at most 5).
func Clarify(questions ...string) protocol.QuoteAnswer {
	return protocol.QuoteAnswer{Clarify: true, Questions: questions}
}
