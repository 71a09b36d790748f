// Package mediator is the built-in Mediator's rules: the facts of a dispute it looks at, the
// refund they decide, the bounds the sides' proposals set, and the rules for review objections.
// The trust service applies them when no AI provider is configured or its answer is unusable.
package mediator

import (
	"fmt"
	"time"

	"github.com/axp-exchange/axp"
)

// Facts are what the built-in Mediator looks at in a dispute.
type Facts struct {
	ChecksGiven  bool // the buyer set acceptance checks
	ChecksPassed bool // the latest delivery passed them
	Late         bool // the first delivery came after the offer's ETA
	VeryLate     bool // ... more than twice the ETA after the job started
	BuyerStated  bool
	SellerStated bool
	BuyerPct     *int // proposals of refund_pct (statements and escalation)
	SellerPct    *int
	WindowEnded  bool // the statement window ended (a missing statement is silence)
}

// FactsOf gathers the facts of a disputed task and its mediation.
func FactsOf(t *axp.TaskRecord, m *axp.Mediation, now time.Time) Facts {
	f := Facts{ChecksGiven: len(t.AcceptanceChecks) > 0, WindowEnded: !now.Before(m.StatementsDue)}
	if dl := t.LastDelivery(); dl != nil {
		f.ChecksPassed = dl.Passed
	}
	if len(t.Deliveries) > 0 && t.StartedAt != nil && t.ETAMinutes > 0 {
		took := t.Deliveries[0].At.Sub(*t.StartedAt)
		eta := time.Duration(t.ETAMinutes) * time.Minute
		f.Late, f.VeryLate = took > eta, took > 2*eta
	}
	if s := m.StatementOf(axp.SideBuyer); s != nil {
		f.BuyerStated, f.BuyerPct = true, s.ProposedRefundPct
	}
	if s := m.StatementOf(axp.SideSeller); s != nil {
		f.SellerStated, f.SellerPct = true, s.ProposedRefundPct
	}
	return f
}

// mediatorRules lists the rules of the built-in Mediator for disputes, in the order they apply.
var mediatorRules = []struct{ Name, Text string }{
	{"checks_failed", "the latest delivery failed the acceptance checks the buyer set: full refund (100%)"},
	{"seller_silent", "the statement window ended without a statement from the seller: the buyer's proposal, else a full refund"},
	{"buyer_silent", "the statement window ended without a statement from the buyer: the seller's proposal, else no refund"},
	{"very_late", "the first delivery came more than twice the offer's ETA after the job started: 50% refund"},
	{"late", "the first delivery came after the offer's ETA: 25% refund"},
	{"both_proposed", "both sides proposed a split: the midpoint (to the nearest whole percent, halves up)"},
	{"checks_passed", "acceptance checks were set, the delivery passed them and came on time: no refund"},
	{"one_proposal", "only one side proposed a split: that proposal"},
	{"no_evidence", "nothing else decides: 50% refund"},
}

// mediatorBounds is the rule applied after any of the above.
const mediatorBounds = "The result never exceeds the refund the buyer proposed, nor falls below the refund the seller offered: no side gets more than it asked for."

// Dispute decides a dispute by the built-in rules: the refund percentage, the rule and the
// reasoning.
func Dispute(f Facts) (int, string, string) {
	pct, rule := 50, "no_evidence"
	switch {
	case f.ChecksGiven && !f.ChecksPassed:
		pct, rule = 100, "checks_failed"
	case f.WindowEnded && !f.SellerStated:
		pct, rule = 100, "seller_silent"
		if f.BuyerPct != nil {
			pct = *f.BuyerPct
		}
	case f.WindowEnded && !f.BuyerStated:
		pct, rule = 0, "buyer_silent"
		if f.SellerPct != nil {
			pct = *f.SellerPct
		}
	case f.VeryLate:
		pct, rule = 50, "very_late"
	case f.Late:
		pct, rule = 25, "late"
	case f.BuyerPct != nil && f.SellerPct != nil:
		pct, rule = (*f.BuyerPct+*f.SellerPct+1)/2, "both_proposed"
	case f.ChecksGiven && f.ChecksPassed:
		pct, rule = 0, "checks_passed"
	case f.BuyerPct != nil:
		pct, rule = *f.BuyerPct, "one_proposal"
	case f.SellerPct != nil:
		pct, rule = *f.SellerPct, "one_proposal"
	}
	pct = f.Bound(pct)
	text := rule
	for _, r := range mediatorRules {
		if r.Name == rule {
			text = r.Text
		}
	}
	return pct, rule, fmt.Sprintf("Rule %s: %s. Refund %d%% of the price to the buyer.", rule, text, pct)
}

// Bound keeps refund pct between what the seller offered and what the buyer asked for.
func (f Facts) Bound(pct int) int {
	buyer, seller := f.BuyerPct, f.SellerPct
	if buyer != nil && pct > *buyer {
		pct = *buyer
	}
	if seller != nil && pct < *seller && (buyer == nil || *seller <= *buyer) {
		pct = *seller
	}
	return pct
}

// reviewRules lists the rules of the built-in Mediator for review objections.
var reviewRules = []struct{ Name, Text string }{
	{"review_abusive", "the review's comment had contact details removed or was flagged as prompt injection: remove it"},
	{"contradicted", "a rating of 1 or 2 with no comment on a job that ended without a dispute: remove it"},
	{"opinion_stands", "otherwise the reviewer's opinion stands: keep it"},
}

// Objection decides a review objection by the built-in rules: keep or remove, the rule and the
// reasoning.
func Objection(r *axp.ReviewView, t *axp.TaskRecord) (string, string, string) {
	outcome, rule := "keep", "opinion_stands"
	switch {
	case r.Screening != nil && (r.Screening.Flagged || len(r.Screening.Removed) > 0):
		outcome, rule = "remove", "review_abusive"
	case r.Rating <= 2 && r.Comment == "" && !t.Disputed:
		outcome, rule = "remove", "contradicted"
	}
	text := rule
	for _, x := range reviewRules {
		if x.Name == rule {
			text = x.Text
		}
	}
	return outcome, rule, fmt.Sprintf("Rule %s: %s.", rule, text)
}

// RulesText describes the built-in Mediator for /api/faq.
func RulesText() string {
	s := "Without an AI provider the Mediator decides by fixed rules, the first that applies: "
	for i, r := range mediatorRules {
		if i > 0 {
			s += "; "
		}
		s += fmt.Sprintf("(%d) %s", i+1, r.Text)
	}
	s += ". " + mediatorBounds + " Review objections: "
	for i, r := range reviewRules {
		if i > 0 {
			s += "; "
		}
		s += fmt.Sprintf("(%d) %s", i+1, r.Text)
	}
	return s + "."
}
