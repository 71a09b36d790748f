// Package render turns the exchange's trust records (screenings, mediations and their decisions)
// into table cells and detail lines for the commands of more than one noun (task, board, admin). It
// prints nothing itself and calls no exchange.
package render

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/axp-exchange/axp"
	"github.com/axp-exchange/axp/cmd/cmdutil"
)

// ScreeningFlags is a screening as short words for a table column: "flagged", "contacts removed",
// both, or "".
func ScreeningFlags(scs ...*axp.Screening) string {
	flagged, removed := false, false
	for _, sc := range scs {
		if sc != nil {
			flagged = flagged || sc.Flagged
			removed = removed || len(sc.Removed) > 0
		}
	}
	var out []string
	if flagged {
		out = append(out, "flagged")
	}
	if removed {
		out = append(out, "contacts removed")
	}
	return strings.Join(out, ",")
}

// DecisionText is a mediation decision in a few words: "split 40% (US$1.00 back to the buyer) by
// mediator:rules", "remove the review by operator".
func DecisionText(d *axp.MediationDecision) string {
	if d == nil {
		return ""
	}
	var s string
	switch d.Outcome {
	case "keep", "remove":
		s = d.Outcome + " the review"
	default:
		s = d.Outcome
		if d.RefundPct != nil {
			s += fmt.Sprintf(" %d%%", *d.RefundPct)
		}
		if d.RefundUSD != nil {
			s += " (" + d.RefundUSD.Display() + " back to the buyer)"
		}
	}
	s += " by " + d.By
	if d.Rule != "" {
		s += ", rule " + d.Rule
	}
	return s
}

// ShortDecision is a decision for a table cell: "split 40%", "keep".
func ShortDecision(d *axp.MediationDecision) string {
	if d == nil {
		return ""
	}
	if d.RefundPct != nil {
		return fmt.Sprintf("%s %d%%", d.Outcome, *d.RefundPct)
	}
	return d.Outcome
}

// Proposals summarises the sides' statements for a table cell: "buyer 80%, seller 20%", "buyer",
// or "none".
func Proposals(m *axp.Mediation) string {
	var parts []string
	for _, side := range []string{axp.SideBuyer, axp.SideSeller} {
		st := m.StatementOf(side)
		if st == nil {
			continue
		}
		p := side
		if st.ProposedRefundPct != nil {
			p += fmt.Sprintf(" %d%%", *st.ProposedRefundPct)
		}
		parts = append(parts, p)
	}
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, ", ")
}

// MediationFlags is the table cell of a mediation's screening flags over all its texts.
func MediationFlags(m *axp.Mediation) string {
	scs := []*axp.Screening{m.ReasonScreening}
	for _, st := range m.Statements {
		scs = append(scs, st.Screening)
	}
	return ScreeningFlags(scs...)
}

// MediationFields are the label/value pairs of a mediation for cmdutil.KeyValues: the case, both
// sides' statements and proposals, the decision with its reasoning, the appeal and the operator's
// decision. Texts carry their screening notes.
func MediationFields(s *cmdutil.IOStreams, m *axp.Mediation, now time.Time) []string {
	cs := s.ColorScheme()
	at := func(t time.Time) string {
		if t.IsZero() {
			return ""
		}
		if !s.StdoutTTY {
			return t.UTC().Format(time.RFC3339)
		}
		if t.After(now) {
			return "in " + cmdutil.Duration(t.Sub(now))
		}
		return cmdutil.Duration(now.Sub(t)) + " ago"
	}
	note := func(text string, sc *axp.Screening) string {
		if n := sc.Note(); n != "" {
			return text + "  " + cs.Yellow("["+n+"]")
		}
		return text
	}
	kind := m.Kind
	if m.ReviewID != "" {
		kind += " of review " + m.ReviewID
	}
	status := cs.Status(m.Status)
	if m.Status == axp.MediationAppealed {
		status = cs.Yellow(m.Status)
	}
	pairs := []string{
		"Mediation", cs.Bold(m.ID),
		"Kind", kind,
		"Task", m.TaskID,
		"Status", status,
		"Opened by", m.OpenedBy,
		"Opened", at(m.CreatedAt),
		"Reason", note(m.Reason, m.ReasonScreening),
	}
	if m.Status == axp.MediationAwaiting {
		pairs = append(pairs, "Statements due", at(m.StatementsDue))
	}
	for _, side := range []string{axp.SideBuyer, axp.SideSeller} {
		label := strings.ToUpper(side[:1]) + side[1:]
		st := m.StatementOf(side)
		if st == nil {
			v := "none"
			if m.Status == axp.MediationAwaiting {
				v = "not stated yet"
			}
			pairs = append(pairs, label, cs.Gray(v))
			continue
		}
		v := strconv.Quote(st.Statement)
		if st.ProposedRefundPct != nil {
			v += fmt.Sprintf(" · proposes a %d%% refund", *st.ProposedRefundPct)
		}
		if st.Via != "" {
			v += " · via " + st.Via
		}
		pairs = append(pairs, label, note(v, st.Screening))
	}
	if d := m.Decision; d != nil {
		pairs = append(pairs, "Decision", cs.Bold(DecisionText(d)), "Reasoning", d.Reasoning, "Approval", d.ApprovalID)
	}
	if m.AppealedBy != "" {
		pairs = append(pairs, "Appealed by", m.AppealedBy, "Appeal reason", m.AppealReason)
	}
	if d := m.OperatorDecision; d != nil {
		pairs = append(pairs, "Operator decision", cs.Bold(DecisionText(d)), "Operator note", d.Reasoning, "Operator approval", d.ApprovalID)
	}
	return pairs
}
