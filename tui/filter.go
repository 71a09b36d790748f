package tui

import (
	"fmt"
	"slices"
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/axp-exchange/axp"
)

// Filters: in every list, / opens a filter line. What is typed filters the rows as it is typed:
// a row stays when its text (its cells, ids included) holds every word, ignoring case. Enter keeps
// the filter and returns to the list, esc clears it; esc on a filtered list clears the filter
// before doing anything else. Each list keeps its own filter while the others are shown.

// listID names a list the TUI shows.
type listID int

// The lists: the buyer's tasks, an open task's offers, the audit trail, then each operator tab
// (listTab + the tab's index).
const (
	listTasks listID = iota
	listOffers
	listAudit
	listTab
	numLists = int(listTab) + numTabs
)

// shownList is the list on the screen, if any: none under the help, a dialog or the messages pane.
func (m Model) shownList() (listID, bool) {
	switch {
	case m.dialog != nil || m.help:
		return 0, false
	case m.view == ViewOperator:
		if !m.src.CanOperate() {
			return 0, false
		}
		if m.auditOpen {
			return listAudit, true
		}
		if m.desc != nil {
			return 0, false
		}
		return listTab + listID(m.filter), true
	case m.open != nil:
		return listOffers, m.open.pane == paneOffers && m.open.task != nil
	}
	return listTasks, m.src.CanBuy()
}

// matches reports whether text holds every word of query, ignoring case.
func matches(text, query string) bool {
	text = strings.ToLower(text)
	for _, w := range strings.Fields(strings.ToLower(query)) {
		if !strings.Contains(text, w) {
			return false
		}
	}
	return true
}

// keep is the items whose row text matches query (all of them when query is blank).
func keep[T any](items []T, query string, text func(T) string) []T {
	if strings.TrimSpace(query) == "" {
		return items
	}
	out := make([]T, 0, len(items))
	for _, x := range items {
		if matches(text(x), query) {
			out = append(out, x)
		}
	}
	return out
}

// rowText is a row's text as the filter reads it: its cells and the ids that name it.
func rowText(cells []string, ids ...string) string {
	return strings.Join(append(append([]string{}, ids...), cells...), " ")
}

// The rows each list shows, its filter applied.

func (m Model) shownTasks() []axp.Task {
	now := m.opts.Now()
	return keep(m.tasks, m.query[listTasks], func(x axp.Task) string { return rowText(taskCells(now, x)) })
}

func (m Model) shownOffers() []axp.Offer {
	if m.open == nil || m.open.task == nil {
		return nil
	}
	return keep(m.open.task.Offers, m.query[listOffers], func(o axp.Offer) string {
		return rowText(offerCells(o), o.OfferID, o.Seller.ID)
	})
}

func (m Model) shownMediations() []axp.Mediation {
	now := m.opts.Now()
	return keep(m.meds, m.query[listTab+tabMediations], func(x axp.Mediation) string {
		return rowText(medCells(now, x), x.ID, x.ReviewID)
	})
}

func (m Model) shownListings() []axp.ListingRejection {
	now := m.opts.Now()
	return keep(m.listings, m.query[listTab+tabListings], func(x axp.ListingRejection) string {
		return rowText(listingCells(now, x), x.ID)
	})
}

func (m Model) shownBoard() []axp.BoardPost {
	now := m.opts.Now()
	return keep(m.board, m.query[listTab+tabBoard], func(p axp.BoardPost) string {
		return rowText(boardCells(now, p), p.ID, p.Author.ID, p.ThreadID)
	})
}

func (m Model) shownAllTasks() []axp.AdminTaskRow {
	now := m.opts.Now()
	return keep(m.all, m.query[listTab+tabTasks], func(x axp.AdminTaskRow) string {
		return rowText(allTaskCells(now, x), x.SellerID)
	})
}

func (m Model) shownAudit() []axp.AuditRecord {
	now := m.opts.Now()
	return keep(m.audit, m.query[listAudit], func(x axp.AuditRecord) string { return rowText(auditCells(now, x), x.ID) })
}

// rows lists the ids of the rows list l shows and how many rows it has without its filter.
func (m Model) rows(l listID) (ids []string, total int) {
	idsOf := func(n int, id func(int) string) []string {
		out := make([]string, n)
		for i := range out {
			out[i] = id(i)
		}
		return out
	}
	switch {
	case l == listTasks:
		v := m.shownTasks()
		return idsOf(len(v), func(i int) string { return v[i].ID }), len(m.tasks)
	case l == listOffers:
		v := m.shownOffers()
		total := 0
		if m.open != nil && m.open.task != nil {
			total = len(m.open.task.Offers)
		}
		return idsOf(len(v), func(i int) string { return v[i].OfferID }), total
	case l == listAudit:
		v := m.shownAudit()
		return idsOf(len(v), func(i int) string { return v[i].ID }), len(m.audit)
	case l == listTab+tabMediations:
		v := m.shownMediations()
		return idsOf(len(v), func(i int) string { return v[i].ID }), len(m.meds)
	case l == listTab+tabListings:
		v := m.shownListings()
		return idsOf(len(v), func(i int) string { return v[i].ID }), len(m.listings)
	case l == listTab+tabBoard:
		v := m.shownBoard()
		return idsOf(len(v), func(i int) string { return v[i].ID }), len(m.board)
	case l == listTab+tabTasks:
		v := m.shownAllTasks()
		return idsOf(len(v), func(i int) string { return v[i].ID }), len(m.all)
	}
	v := m.visible()
	return idsOf(len(v), func(i int) string { return v[i].ID }), len(m.tabQueue())
}

// cursor is the cursor of list l. The model's open task must be its own copy (clone) before the
// offers' cursor is moved.
func (m *Model) cursor(l listID) *int {
	switch {
	case l == listTasks:
		return &m.taskCur
	case l == listOffers:
		return &m.open.cur
	case l == listAudit:
		return &m.auditCur
	case l == listTab+tabMediations:
		return &m.medCur
	case l == listTab+tabListings:
		return &m.lstCur
	case l == listTab+tabBoard:
		return &m.boardCur
	case l == listTab+tabTasks:
		return &m.allCur
	}
	return &m.queueCur
}

// setQuery changes list l's filter, keeping the cursor on the row it was on while that row is
// still shown.
func (m *Model) setQuery(l listID, q string) {
	if l == listOffers {
		m.open = m.open.clone()
	}
	old, _ := m.rows(l)
	cur := m.cursor(l)
	prev := ""
	if *cur < len(old) {
		prev = old[*cur]
	}
	m.query[l] = q
	ids, _ := m.rows(l)
	*cur = clamp(*cur, len(ids))
	if i := slices.Index(ids, prev); i >= 0 {
		*cur = i
	}
}

// filterKey handles a key while the filter line is open.
func (m Model) filterKey(k tea.KeyPressMsg) (tea.Model, tea.Cmd) {
	l, ok := m.shownList()
	if !ok {
		m.typing = false
		return m, nil
	}
	q := []rune(m.query[l])
	switch k.String() {
	case "esc":
		m.typing = false
		m.setQuery(l, "")
	case "enter":
		m.typing = false
		m.setQuery(l, strings.TrimSpace(string(q)))
	case "backspace":
		if len(q) > 0 {
			m.setQuery(l, string(q[:len(q)-1]))
		}
	case "ctrl+u":
		m.setQuery(l, "")
	case "tab", "shift+tab":
	case "up", "down":
		if l == listOffers {
			m.open = m.open.clone()
		}
		ids, _ := m.rows(l)
		cur := m.cursor(l)
		if k.String() == "up" {
			*cur = clamp(*cur-1, len(ids))
		} else {
			*cur = clamp(*cur+1, len(ids))
		}
	default:
		if k.Text != "" {
			m.setQuery(l, filterText(string(q)+k.Text))
		}
	}
	return m, nil
}

// filterText is a typed or pasted filter on one line, at most 200 characters.
func filterText(s string) string {
	s = strings.Map(func(r rune) rune {
		if r == '\n' || r == '\r' || r == '\t' {
			return ' '
		}
		return r
	}, s)
	if r := []rune(s); len(r) > 200 {
		s = string(r[:200])
	}
	return s
}

// filterLine is the footer line of the shown list's filter: what is typed (or kept) and how many
// rows it leaves of how many; "" when the list is not filtered.
func (m Model) filterLine() string {
	l, ok := m.shownList()
	if !ok || (!m.typing && m.query[l] == "") {
		return ""
	}
	t := m.theme
	ids, total := m.rows(l)
	count := fmt.Sprintf("%d of %d", len(ids), total)
	if m.typing {
		return t.key.Render("/") + " " + m.query[l] + "▏  " + t.bold.Render(count) + t.dim.Render(" · enter keeps · esc clears")
	}
	return t.key.Render("filter") + " " + m.query[l] + "  " + t.bold.Render(count) + t.dim.Render(" · / edits · esc clears")
}

// noMatch is the body of a list whose filter leaves no row.
func (m Model) noMatch(l listID) []string {
	return []string{"", fmt.Sprintf("Nothing matches %q: esc clears the filter, / edits it.", strings.TrimSpace(m.query[l]))}
}
