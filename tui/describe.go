package tui

import (
	"context"
	"fmt"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/axp-exchange/axp"
)

// The operator's description of a task (enter on a task, or on a queue item: its task): who is on
// it, the money, the deliverable, the timeline, its queue items and the audit records of the task
// alone, over as many lines as it takes (↑↓ scroll, u the task's audit, esc back).

// descLines is how many lines one field of the description may take: it scrolls, so nothing is cut.
const descLines = 20

// describePane is a task described.
type describePane struct {
	id  string
	d   *TaskDetail // nil until loaded
	top int         // the first line shown
}

type detailMsg struct {
	id  string
	d   *TaskDetail
	err error
}

// describe opens the description of task id.
func (m Model) describe(id string) (tea.Model, tea.Cmd) {
	m.desc = &describePane{id: id}
	m.flash = ""
	return m, m.loadDetail(id)
}

func (m Model) loadDetail(id string) tea.Cmd {
	src := m.src
	return m.fetch(func(ctx context.Context) tea.Msg {
		d, err := src.TaskDetail(ctx, id)
		return detailMsg{id: id, d: d, err: err}
	})
}

// describeKey handles the keys of a description: it scrolls, u shows the task's audit, esc closes.
func (m Model) describeKey(k tea.KeyPressMsg) (tea.Model, tea.Cmd) {
	p := *m.desc
	m.desc = &p
	switch k.String() {
	case "esc", "backspace", "left", "h", "q":
		if k.String() == "q" {
			m.quitting = true
			return m, tea.Quit
		}
		m.desc = nil
		return m, m.load()
	case "u":
		return m.openAudit(p.id)
	case "up", "k":
		p.top = max(p.top-1, 0)
	case "down", "j", "space":
		p.top++
	case "pgup":
		p.top = max(p.top-10, 0)
	case "pgdown":
		p.top += 10
	case "home", "g":
		p.top = 0
	case "end", "G":
		p.top = 1 << 20
	}
	return m, nil
}

// openAudit shows the audit trail over the tabs: of task id alone, or all of it when id is "".
func (m Model) openAudit(id string) (tea.Model, tea.Cmd) {
	m.auditOpen, m.auditTask = true, id
	m.audit, m.auditLoaded, m.auditCur = nil, false, 0
	m.flash = ""
	return m, m.loadAudit()
}

// when is a time as the description shows it.
func when(t time.Time) string { return t.UTC().Format("2006-01-02 15:04 UTC") }

// describeBody renders the description in h lines: its head line, then the lines from top on.
func (m Model) describeBody(w, h int) []string {
	t := m.theme
	p := m.desc
	head := t.bold.Render("‹ "+p.id) + "  " + t.dim.Render("(esc back · u its audit · ↑↓ scroll)")
	if p.d == nil {
		return []string{head, "", "Loading the task…"}
	}
	body := m.describeLines(w, p.d)
	rows := max(h-1, 1)
	top := min(p.top, max(len(body)-rows, 0))
	end := min(top+rows, len(body))
	out := append([]string{head}, body[top:end]...)
	if end < len(body) {
		out[len(out)-1] = t.dim.Render(fmt.Sprintf("… %d more lines (↓)", len(body)-end+1))
	}
	return out
}

// describeLines is the whole description.
func (m Model) describeLines(w int, d *TaskDetail) []string {
	t := m.theme
	x := d.Task
	out := []string{t.bold.Render(x.ID) + "  " + x.Type + "  " + t.status(x.Status) + "  " + t.dim.Render(x.PaymentMethod),
		t.dim.Render("created " + when(x.CreatedAt) + " · updated " + when(x.UpdatedAt))}
	if len(x.Params) > 0 {
		out = append(out, m.field(w, "Brief", paramsText(x.Params), x.Screening, descLines)...)
	}
	if x.Description != "" {
		out = append(out, m.field(w, "", x.Description, nil, descLines)...)
	}

	out = append(out, "", t.bold.Render("Parties"))
	out = append(out, m.field(w, "Buyer", m.buyerOf(d), nil, descLines)...)
	seller := "none chosen yet"
	if x.Seller != nil {
		seller = x.Seller.Name + " (" + x.Seller.ID + ")"
	}
	out = append(out, m.field(w, "Seller", seller, nil, descLines)...)
	if n := len(x.Offers); n > 0 {
		out = append(out, m.field(w, "Offers", fmt.Sprintf("%d", n), nil, descLines)...)
	}

	out = append(out, "", t.bold.Render("Money"))
	price := "no price before an offer is chosen"
	if x.PriceUSD != nil {
		price = x.PriceUSD.Display()
		if x.Fee != nil {
			price += fmt.Sprintf(" · platform fee %s (%s%%) · seller nets %s", x.Fee.PlatformFee.Display(), pct(x.Fee.FeeBPS), x.Fee.SellerNet.Display())
		}
	}
	out = append(out, m.field(w, "Price", price, nil, descLines)...)
	if pay := x.Payment; pay != nil {
		line := pay.Status + " · payable " + pay.PayableUSD.Display() + " · received " + pay.ReceivedUSD.Display()
		if pay.MissingUSD > 0 {
			line += " · still due " + pay.MissingUSD.Display()
		}
		out = append(out, m.field(w, "Payment", line, nil, descLines)...)
		var where []string
		if pay.DepositAddress != "" {
			where = append(where, "to "+pay.DepositAddress)
		}
		if pay.TxHash != "" {
			where = append(where, "tx "+pay.TxHash)
		}
		if len(where) > 0 {
			out = append(out, m.field(w, "", strings.Join(where, " · "), nil, descLines)...)
		}
	}

	out = append(out, "", t.bold.Render("Deliverable"))
	if x.Deliverable == nil {
		out = append(out, m.field(w, "", "nothing delivered yet", nil, descLines)...)
	} else {
		out = append(out, m.field(w, "SHA-256", x.Deliverable.SHA256, nil, descLines)...)
		out = append(out, m.field(w, "", fmt.Sprintf("deliveries %d · free redos left %d", x.Deliveries, x.RedosLeft), nil, descLines)...)
		if len(x.Checks) > 0 {
			out = append(out, t.bold.Render(fmt.Sprintf("%-9s", "Checks"))+m.checks(x.Checks))
		}
	}

	var events []axp.TimelineRow
	for _, r := range d.Timeline {
		if r.Kind != "audit" && r.Kind != "request" {
			events = append(events, r)
		}
	}
	out = append(out, "", t.bold.Render(fmt.Sprintf("Timeline (%d)", len(events))))
	for _, r := range events {
		text := r.Kind + ": " + r.Summary
		out = append(out, m.field(w, "", t.dim.Render(when(r.At))+"  "+text, nil, descLines)...)
	}

	out = append(out, "", t.bold.Render(fmt.Sprintf("Approvals (%d)", len(d.Approvals))))
	for _, a := range d.Approvals {
		line := a.ID + "  " + a.Kind + "  " + t.status(a.Shown()) + "  " + a.Amount.Display()
		if r := a.Recipients(); r != "" {
			line += " · " + r
		}
		if a.TxHash != "" && len(a.Transfers) == 0 {
			line += " · tx " + a.TxHash
		}
		for _, x := range a.Transfers {
			line += fmt.Sprintf(" · %s %s to the %s (%s)", x.Status, x.Amount.Display(), x.Part, x.TxHash)
		}
		if a.Failure != "" {
			line += " · failed: " + a.Failure
		}
		out = append(out, m.field(w, "", line, nil, descLines)...)
	}

	out = append(out, "", t.bold.Render(fmt.Sprintf("Audit (%d)", len(d.Audit))))
	for _, r := range d.Audit {
		line := t.dim.Render(when(r.Time)) + "  " + r.Actor + "  " + r.Action + "  " + r.EntityType + " " + r.EntityID
		if s := auditDetails(r.Details); s != "" {
			line += "  " + s
		}
		out = append(out, m.field(w, "", line, nil, descLines)...)
	}
	return out
}

// buyerOf names the buyer of a task as the operator's list of tasks does, else as its queue items
// do.
func (m Model) buyerOf(d *TaskDetail) string {
	for _, x := range m.all {
		if x.ID == d.Task.ID {
			if x.Buyer == "token" {
				return "a buyer token (no membership)"
			}
			return x.Buyer
		}
	}
	for _, a := range d.Approvals {
		if a.BuyerID != "" {
			return a.BuyerID
		}
	}
	return "not among the newest tasks listed"
}
