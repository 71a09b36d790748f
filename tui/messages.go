package tui

import (
	"fmt"

	"github.com/axp-exchange/axp"
)

// The buyer's side of trust and safety on an open task: its messages (a pane of their own, m) and,
// while it is disputed, the settlement proposals and the mediation. Texts from the other party carry
// their screening note: a flagged text is shown as data, marked.

// messageLines is the messages pane under the task's head lines: the latest messages that fit in h
// rows, oldest first.
func (m Model) messageLines(w, h int, head []string) []string {
	t := m.theme
	p := m.open
	out := append(head, "")
	if !p.msgsLoaded {
		return append(out, t.bold.Render("Messages"), "Loading messages…")
	}
	out = append(out, t.bold.Render(fmt.Sprintf("Messages (%d)", len(p.messages)))+"  "+t.dim.Render("contact details are removed"))
	if len(p.messages) == 0 {
		return append(out, t.dim.Render("No messages yet: press w to write to the seller."))
	}
	avail := h - len(out)
	var body []string
	for i := len(p.messages) - 1; i >= 0; i-- {
		x := p.messages[i]
		label := "You"
		if x.From == axp.SideSeller {
			label = "Seller"
		}
		text := x.Body
		if p.task.Seller == nil || p.task.Seller.ID != x.SellerID {
			text = "(" + x.SellerID + ") " + text
		}
		text += " · " + age(m.opts.Now(), x.CreatedAt)
		ls := m.field(w, label, text, x.Screening, 2)
		more := 0
		if i > 0 {
			more = 1 // room for the "earlier" line
		}
		if len(body)+len(ls)+more > avail && len(body) > 0 {
			body = append([]string{t.dim.Render(fmt.Sprintf("… %d earlier", i+1))}, body...)
			break
		}
		body = append(ls, body...)
	}
	return append(out, body...)
}

// disputeLines is the Dispute section of a disputed task: the settlement proposals (the last
// three) and the latest mediation with its status and decision.
func (m Model) disputeLines(w int, st *DisputeState) []string {
	t := m.theme
	out := []string{"", t.bold.Render("Dispute")}
	if len(st.Settlements) == 0 && st.Mediation == nil {
		return append(out, t.dim.Render("No settlement proposed and no mediation: axp task settle / axp task escalate"))
	}
	ss := st.Settlements
	if len(ss) > 3 {
		out = append(out, t.dim.Render(fmt.Sprintf("… %d earlier proposals", len(ss)-3)))
		ss = ss[len(ss)-3:]
	}
	for _, s := range ss {
		status := s.Status
		switch s.Status {
		case axp.SettlementAccepted:
			status = t.ok.Render(status)
		case axp.SettlementProposed:
			status = t.warn.Render(status)
		}
		text := fmt.Sprintf("%s: refund %d%% (%s) proposed by the %s · %s", s.ID, s.RefundPct, s.RefundUSD.Display(), s.ProposedBy, status)
		out = append(out, m.field(w, "Settle", text, s.Screening, 1)...)
	}
	x := st.Mediation
	if x == nil {
		return out
	}
	out = append(out, t.bold.Render(fmt.Sprintf("%-9s", "Mediation"))+" "+x.ID+" · "+m.medStatus(x.Status)+" · opened by the "+x.OpenedBy+" · "+statementsCell(x))
	if x.Status == axp.MediationAwaiting {
		out = append(out, m.dimField(w, "statements due in "+age(x.StatementsDue, m.opts.Now()), 1)...)
	}
	if d := x.Decision; d != nil {
		out = append(out, m.field(w, deciderLabel(d), decisionLong(d), nil, 2)...)
		out = append(out, m.dimField(w, d.Reasoning, 2)...)
	}
	if x.AppealedBy != "" {
		out = append(out, m.field(w, "Appeal", "by the "+x.AppealedBy+": "+x.AppealReason, nil, 1)...)
	}
	if d := x.OperatorDecision; d != nil {
		out = append(out, m.field(w, "Operator", decisionLong(d), nil, 2)...)
		out = append(out, m.dimField(w, d.Reasoning, 2)...)
	}
	return out
}
