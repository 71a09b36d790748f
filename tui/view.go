package tui

import (
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/axp-exchange/axp"
	"github.com/axp-exchange/axp/protocol"
)

// Rendering: everything here reads the model and returns text; nothing changes state.

// View renders the model for Bubble Tea (full screen).
func (m Model) View() tea.View {
	v := tea.NewView(m.Render())
	v.AltScreen = true
	v.WindowTitle = "axp · " + m.src.Exchange()
	return v
}

// Render is the screen as text, exactly width x height (at least 20 x 8).
func (m Model) Render() string {
	if m.quitting {
		return ""
	}
	w, h := max(m.width, 20), max(m.height, 8)
	footer := m.footer(w)
	bodyH := h - 1 - len(footer)
	var dlg []string
	if m.dialog != nil {
		dlg = m.dialogBox(w, bodyH)
	}
	var body []string
	switch {
	case m.help:
		body = m.helpScreen()
	case m.view == ViewOperator:
		body = m.operatorBody(w, bodyH-len(dlg))
	case m.open != nil:
		body = m.taskBody(w, bodyH-len(dlg))
	default:
		body = m.listBody(w, bodyH-len(dlg))
	}
	if dlg == nil && m.report != nil {
		dlg = m.reportBox(w, bodyH)
	}
	body = lines(body, bodyH-len(dlg))
	body = append(body, dlg...)
	out := make([]string, 0, h)
	out = append(out, m.header(w))
	out = append(out, body...)
	out = append(out, footer...)
	for i := range out {
		out[i] = fit(out[i], w)
	}
	return strings.Join(out, "\n")
}

// lines pads or cuts body to exactly n lines.
func lines(body []string, n int) []string {
	if n < 0 {
		n = 0
	}
	if len(body) > n {
		return body[:n]
	}
	for len(body) < n {
		body = append(body, "")
	}
	return body
}

// fit truncates s to w cells and pads it with spaces to exactly w.
func fit(s string, w int) string {
	if lipgloss.Width(s) > w {
		s = ansi.Truncate(s, w, "…")
	}
	if pad := w - lipgloss.Width(s); pad > 0 {
		s += strings.Repeat(" ", pad)
	}
	return s
}

// col is a table column; a width of 0 shares the space left.
type col struct {
	title string
	width int
}

// widths lays columns out in w cells, one space apart.
func widths(cols []col, w int) []int {
	out := make([]int, len(cols))
	used, flex := len(cols)-1, 0
	for i, c := range cols {
		out[i] = c.width
		used += c.width
		if c.width == 0 {
			flex++
		}
	}
	if flex > 0 {
		left := max(w-used, flex*4)
		for i := range out {
			if out[i] == 0 {
				out[i] = left / flex
			}
		}
	}
	return out
}

// fitWidths lays columns out in w cells like widths, fitting them to their cells: a column of
// width -1 is as wide as its widest cell (title included), never cut; the flexible columns (width
// 0) share what is left, a narrow one taking only what it needs so that a wide one gets the rest.
// Room no column needs stays blank at the end of the line.
func fitWidths(cols []col, rows [][]string, w int) []int {
	need := make([]int, len(cols))
	for i, c := range cols {
		need[i] = lipgloss.Width(c.title)
		for _, r := range rows {
			if i < len(r) {
				need[i] = max(need[i], lipgloss.Width(r[i]))
			}
		}
	}
	out := make([]int, len(cols))
	left := w - (len(cols) - 1)
	var flex []int
	for i, c := range cols {
		switch c.width {
		case 0:
			flex = append(flex, i)
			continue
		case -1:
			out[i] = need[i]
		default:
			out[i] = c.width
		}
		left -= out[i]
	}
	sort.SliceStable(flex, func(a, b int) bool { return need[flex[a]] < need[flex[b]] })
	for k, i := range flex {
		share := max(left/(len(flex)-k), 4)
		out[i] = min(need[i], share) // room a column does not need stays at the end of the line
		left -= out[i]
	}
	return out
}

// flexMin is the width a flexible column keeps before narrow drops columns.
const flexMin = 8

// narrow fits a table to w cells by dropping columns: while its columns need more than w (a
// column of width -1 its widest cell, a flexible one flexMin), the column named first in drop
// that is still there leaves the table, from the titles and from every row. Ids sit in columns of
// width -1 that are never dropped, so an id is never cut.
func narrow(cols []col, rows [][]string, w int, drop ...string) ([]col, [][]string) {
	need := func(cols []col, rows [][]string) int {
		n := len(cols) - 1
		for i, c := range cols {
			switch c.width {
			case 0:
				n += flexMin
			case -1:
				x := lipgloss.Width(c.title)
				for _, r := range rows {
					x = max(x, lipgloss.Width(r[i]))
				}
				n += x
			default:
				n += c.width
			}
		}
		return n
	}
	for _, name := range drop {
		if need(cols, rows) <= w {
			break
		}
		i := slices.IndexFunc(cols, func(c col) bool { return c.title == name })
		if i < 0 {
			continue
		}
		cols = slices.Delete(slices.Clone(cols), i, i+1)
		cut := make([][]string, len(rows))
		for j, r := range rows {
			cut[j] = slices.Delete(slices.Clone(r), i, i+1)
		}
		rows = cut
	}
	return cols, rows
}

func (m Model) row(ws []int, cells ...string) string {
	parts := make([]string, len(cells))
	for i, c := range cells {
		parts[i] = fit(c, ws[i])
	}
	return strings.Join(parts, " ")
}

func (m Model) headRow(cols []col, ws []int) string {
	cells := make([]string, len(cols))
	for i, c := range cols {
		cells[i] = c.title
	}
	return m.theme.head.Render(m.row(ws, cells...))
}

// selRow renders a table row, marked when selected.
func (m Model) selRow(selected bool, ws []int, cells ...string) string {
	return m.markRow(selected, false, ws, cells...)
}

// markRow renders a table row: › in front when selected, ✓ when marked for a bulk action.
func (m Model) markRow(selected, marked bool, ws []int, cells ...string) string {
	mark := []rune("  ")
	if selected {
		mark[0] = '›'
	}
	if marked {
		mark[1] = '✓'
	}
	r := string(mark) + m.row(ws, cells...)
	switch {
	case selected:
		return m.theme.sel.Render(r)
	case marked:
		return m.theme.bold.Render(r)
	}
	return r
}

// window is the range of n rows to show in height rows with cur visible.
func window(cur, n, height int) (int, int) {
	if height <= 0 {
		return 0, 0
	}
	start := 0
	if cur >= height {
		start = cur - height + 1
	}
	return start, min(n, start+height)
}

func (m Model) header(w int) string {
	t := m.theme
	tab := func(name, view string) string {
		if m.view == view {
			if t.noColor {
				return "[" + name + "]"
			}
			return t.tabOn.Render(name)
		}
		if t.noColor {
			return " " + name + " "
		}
		return t.tabOff.Render(name)
	}
	left := t.title.Render("axp") + " " + tab("Buyer", ViewBuyer) + " " + tab("Operator", ViewOperator)
	// The right side takes the first that fits: the banner of test mode stays while the
	// exchange's URL gives way.
	rights := []string{t.dim.Render(m.src.Exchange()), ""}
	if m.opts.TestMode {
		rights = []string{t.warn.Render("TEST MODE: money is not real") + "  " + rights[0], t.warn.Render("TEST MODE: money is not real"),
			t.warn.Render("TEST MODE: not real money"), t.warn.Render("TEST MODE")}
	}
	for _, right := range rights {
		if gap := w - lipgloss.Width(left) - lipgloss.Width(right); gap >= 1 {
			return left + strings.Repeat(" ", gap) + right
		}
	}
	return left
}

func (m Model) footer(w int) []string {
	t := m.theme
	flash := ""
	if m.flash != "" {
		if m.flashErr {
			flash = t.flashErr.Render(m.flash)
		} else {
			flash = t.flashOK.Render(m.flash)
		}
	}
	var parts []string
	for _, k := range m.keys() {
		if k[1] == "" {
			parts = append(parts, t.warn.Render(k[0]))
			continue
		}
		parts = append(parts, t.key.Render(k[0])+" "+t.dim.Render(k[1]))
	}
	if f := m.filterLine(); f != "" {
		return []string{flash, f, strings.Join(parts, "  ")}
	}
	return []string{flash, strings.Join(parts, "  ")}
}

// keys are the key bindings of the current screen, shown in the help bar.
func (m Model) keys() [][2]string {
	if m.dialog != nil {
		if m.dialog.current().field == "" {
			return [][2]string{{"y", "confirm"}, {"n/esc", "cancel"}}
		}
		return [][2]string{{"enter", "next"}, {"esc", "cancel"}}
	}
	if m.help {
		return [][2]string{{"?", "close help"}, {"q", "quit"}}
	}
	if m.typing {
		return [][2]string{{"enter", "keep filter"}, {"esc", "clear"}, {"↑↓", "move"}, {"ctrl+u", "erase"}}
	}
	other := [2]string{"tab", "operator"}
	if m.view == ViewOperator {
		other = [2]string{"tab", "buyer"}
	}
	filter := [2]string{"/", "filter"}
	switch {
	case m.view == ViewOperator && !m.src.CanOperate():
		return [][2]string{other, {"?", "help"}, {"q", "quit"}}
	case m.view == ViewOperator && m.auditOpen:
		return [][2]string{{"↑↓", "move"}, filter, {"enter", "describe its task"}, {"esc", "close"}, other, {"?", "help"}, {"q", "quit"}}
	case m.view == ViewOperator && m.desc != nil:
		return [][2]string{{"↑↓", "scroll"}, {"u", "its audit"}, {"esc", "back"}, {"ctrl+r", "refresh"}, {"?", "help"}, {"q", "quit"}}
	case m.view == ViewOperator && m.filter == tabMediations:
		return [][2]string{{"↑↓", "move"}, filter, {"←→", "list"}, {"d", "decide"}, other, {"?", "help"}, {"q", "quit"}}
	case m.view == ViewOperator && m.filter == tabListings:
		return [][2]string{{"↑↓", "move"}, filter, {"←→", "list"}, {"o", "overturn"}, other, {"?", "help"}, {"q", "quit"}}
	case m.view == ViewOperator && m.filter == tabTasks:
		return [][2]string{{"↑↓", "move"}, filter, {"←→", "list"}, {"enter", "describe"}, {"u", "its audit"}, other, {"?", "help"}, {"q", "quit"}}
	case m.view == ViewOperator && m.filter == tabBoard:
		return [][2]string{{"↑↓", "move"}, filter, {"←→", "list"}, {"a", "approve"}, {"x", "hide"}, other, {"?", "help"}, {"q", "quit"}}
	case m.view == ViewOperator && len(m.marked) > 0:
		return [][2]string{{fmt.Sprintf("%d marked", len(m.marked)), ""}, {"a", "approve marked"}, {"space", "mark"}, {"esc", "unmark"}, other, {"?", "help"}, {"q", "quit"}}
	case m.view == ViewOperator:
		return [][2]string{filter, {"←→", "list"}, {"a", "approve"}, {"r", "reject"}, {"space", "mark"}, other, {"?", "help"}, {"q", "quit"}}
	case m.open != nil:
		return m.taskKeys()
	case !m.src.CanBuy():
		return [][2]string{other, {"?", "help"}, {"q", "quit"}}
	}
	return [][2]string{{"↑↓", "move"}, filter, {"enter", "open"}, other, {"ctrl+r", "refresh"}, {"?", "help"}, {"q", "quit"}}
}

// taskKeys are the keys that do something on the open task.
func (m Model) taskKeys() [][2]string {
	p := m.open
	if p.pane == paneMessages {
		return [][2]string{{"w", "write"}, {"m/esc", "task"}, {"ctrl+r", "refresh"}, {"?", "help"}, {"q", "quit"}}
	}
	var out [][2]string
	t := p.task
	if len(t.Offers) > 0 {
		out = append(out, [2]string{"↑↓", "offer"}, [2]string{"/", "filter"}, [2]string{"s", "sort"})
	}
	if t.Status == axp.TaskOpen {
		out = append(out, [2]string{"c", "choose"})
	}
	if t.Status == axp.TaskAwaitingPayment && m.src.CanPay() {
		out = append(out, [2]string{"p", "pay"})
	}
	if t.Deliverable != nil {
		out = append(out, [2]string{"p", "preview"})
	}
	if t.Status == axp.TaskDelivered {
		out = append(out, [2]string{"a", "accept"}, [2]string{"d", "dispute"})
	}
	return append(out, [2]string{"m", "messages"}, [2]string{"w", "write"}, [2]string{"esc", "back"}, [2]string{"q", "quit"})
}

func (m Model) helpScreen() []string {
	t := m.theme
	refresh := "live refresh is off"
	if m.opts.Refresh > 0 {
		refresh = "refreshes every " + m.opts.Refresh.String()
	}
	out := []string{t.bold.Render("Keys") + "  " + t.dim.Render("("+refresh+")")}
	add := func(section string, keys [][2]string) {
		out = append(out, t.bold.Render(section))
		for _, k := range keys {
			out = append(out, fmt.Sprintf("  %-10s %s", k[0], k[1]))
		}
	}
	add("Everywhere", [][2]string{{"tab", "switch buyer / operator view"}, {"ctrl+r", "refresh now"},
		{"/", "filter the list by words (ids too); enter keeps it, esc clears it"}, {"? / q", "this help / quit"}})
	add("Buyer", [][2]string{{"↑↓ enter", "pick a task and open it"}, {"s", "rank offers: value, price, eta, reliability"},
		{"c", "choose the selected offer"}, {"p", "preview the deliverable, or pay from your wallet (test mode)"},
		{"a / d", "accept / dispute the delivery"}, {"m / w", "messages on the task / write one"}, {"esc", "back to the list"}})
	add("Operator", [][2]string{{"←→ 1-7", "queue, payments, due, mediations, listings, board, every task"},
		{"a / r", "approve (hot wallet: y/n, else the tx hash) / reject with a reason"},
		{"space", "mark queue items; a approves all marked after one question"},
		{"d / o", "decide an appealed mediation / overturn a listing rejection"},
		{"a / x", "board: let a held post appear / hide it with a reason"},
		{"enter / u", "Tasks: describe the task / its audit; u elsewhere: the audit trail"}})
	return out
}

// dialogBox renders the dialog in a box, or, when the box does not fit in h rows, as its last h
// plain lines (the prompt and the input come last).
func (m Model) dialogBox(w, h int) []string {
	d := m.dialog
	t := m.theme
	s := d.current()
	inner := []string{t.bold.Render(d.title)}
	inner = append(inner, d.detail...)
	if s.field == "" {
		for _, st := range d.steps {
			if st.field != "" && d.values[st.field] != "" {
				if st.show != nil {
					inner = append(inner, st.show(d.values[st.field]))
				} else {
					inner = append(inner, st.field+": "+d.values[st.field])
				}
			}
		}
		if d.summary != nil {
			inner = append(inner, t.warn.Render(d.summary(d.values)))
		}
		inner = append(inner, s.prompt)
	} else {
		inner = append(inner, s.prompt, "> "+string(d.input)+"▏")
		if d.err != "" {
			inner = append(inner, t.bad.Render(d.err))
		}
	}
	box := strings.Split(t.box.Width(w).Render(strings.Join(inner, "\n")), "\n")
	if len(box) <= h {
		return box
	}
	if len(inner) > h {
		inner = inner[len(inner)-h:]
	}
	return inner
}

// reportBox renders the outcome of the last approval in a box (its last h lines when it does not
// fit).
func (m Model) reportBox(w, h int) []string {
	inner := append(append([]string{}, m.report...), m.theme.dim.Render("esc or enter closes this"))
	box := strings.Split(m.theme.box.Width(w).Render(strings.Join(inner, "\n")), "\n")
	if len(box) <= h {
		return box
	}
	return inner[max(len(inner)-h, 0):]
}

// --- operator ---

// tabBar is the operator's tabs with their counts, each the number of rows the tab lists: the
// queue and its filters (items waiting), the mediations (appealed ones first), the listing
// rejections, the board (posts held for the operator) and the tasks. When the names do not fit,
// shorter ones are used.
func (m Model) tabBar(w int) string {
	t := m.theme
	counts := make([]int, numTabs)
	for i := range counts {
		_, counts[i] = m.withTab(i).rows(listTab + listID(i))
	}
	render := func(names []string) string {
		var tabs []string
		for i, name := range names {
			label := fmt.Sprintf("%s %d", name, counts[i])
			switch {
			case i == m.filter && t.noColor:
				label = "[" + label + "]"
			case i == m.filter:
				label = t.tabOn.Render(label)
			case t.noColor:
				label = " " + label + " "
			default:
				label = t.tabOff.Render(label)
			}
			tabs = append(tabs, label)
		}
		sep := "  "
		if t.noColor {
			sep = " " // the labels carry their own spaces
		}
		return strings.Join(tabs, sep)
	}
	var bar string
	for _, names := range tabNames {
		if bar = render(names); lipgloss.Width(bar) <= w {
			break
		}
	}
	return bar
}

// withTab is the model showing operator tab i.
func (m Model) withTab(i int) Model {
	m.filter = i
	return m
}

// tabNames are the names of the operator's tabs, longest first: the tab bar takes the first that
// fits ("Payments to confirm" is kept at 80 columns while the counts are single digits).
var tabNames = [][]string{
	{"Queue", "Payments to confirm", "Release due", "Mediations", "Listings", "Board", "Tasks"},
	{"Queue", "Payments to confirm", "Due", "Mediations", "Listings", "Board", "Tasks"},
	{"Queue", "Payments", "Due", "Mediations", "Listings", "Board", "Tasks"},
	{"Queue", "Payments", "Due", "Med", "List", "Board", "Tasks"},
	{"Queue", "Pay", "Due", "Med", "List", "Board", "Tasks"},
	{"Queue", "Pay", "Due", "Med", "List", "Brd", "Tsk"},
}

var queueCols = []col{{"KIND", -1}, {"STATUS", 7}, {"AMOUNT", -1}, {"TASK", -1}, {"PARTIES", 0}, {"AGE", 4}, {"CHECKS", 6}}

func (m Model) operatorBody(w, h int) []string {
	if !m.src.CanOperate() {
		return []string{"", "The operator view needs the admin token for " + m.src.Exchange() + ":",
			"run `axp login` and paste it, or set AXP_ADMIN_TOKEN."}
	}
	if m.auditOpen {
		title := "Audit trail, newest first"
		if m.auditTask != "" {
			title = "Audit of task " + m.auditTask + " and its queue items, newest first"
		}
		return append([]string{m.theme.bold.Render(title) + "  (esc closes it)"}, m.auditBody(w, h-1)...)
	}
	if m.desc != nil {
		return m.describeBody(w, h)
	}
	out := []string{m.tabBar(w)}
	switch m.filter {
	case tabMediations:
		return append(out, m.mediationsBody(w, h-1)...)
	case tabListings:
		return append(out, m.listingsBody(w, h-1)...)
	case tabBoard:
		return append(out, m.boardBody(w, h-1)...)
	case tabTasks:
		return append(out, m.allTasksBody(w, h-1)...)
	}
	if !m.queueLoaded {
		return append(out, "", "Loading the approval queue…")
	}
	if len(m.tabQueue()) == 0 {
		return append(out, "", "Nothing waits here. The queue refreshes on its own.")
	}
	v := m.visible()
	if len(v) == 0 {
		return append(out, m.noMatch(listTab+listID(m.filter))...)
	}
	top := 2 // the tab bar and the table's head
	if f := m.floatLine(w); f != "" {
		out = append(out, f)
		top++
	}
	// The selected item's detail goes under the table when at least 3 rows are left above it.
	detail := m.approvalDetail(w, v[m.queueCur])
	rows := h - top - len(detail)
	if rows < 3 {
		rows = h - top
	}
	now := m.opts.Now()
	start, end := window(m.queueCur, len(v), rows)
	cells := make([][]string, 0, end-start)
	for i := start; i < end; i++ {
		cells = append(cells, queueCells(now, v[i]))
	}
	cols, cells := narrow(queueCols, cells, w-2, "CHECKS", "AGE", "STATUS", "PARTIES")
	ws := fitWidths(cols, cells, w-2)
	out = append(out, "  "+m.headRow(cols, ws))
	for i, c := range cells {
		out = append(out, m.markRow(start+i == m.queueCur, m.marked[v[start+i].ID], ws, c...))
	}
	if rows == h-top {
		return out
	}
	out = lines(out, h-len(detail))
	return append(out, detail...)
}

// floatLine says what the hot wallet holds against what approving the open queue sends, in w
// cells (its address left out when it does not fit); "" on the manual rail.
func (m Model) floatLine(w int) string {
	f := m.float
	if f == nil || f.HotWalletAddress == "" {
		return ""
	}
	t := m.theme
	if f.Problem != "" {
		return t.warn.Render("Hot wallet " + f.HotWalletAddress + ": its balance cannot be read (" + f.Problem + ")")
	}
	tail := " holds " + f.BalanceUSD.Display() + " · the queue sends " + f.QueuedUSD.Display()
	if f.ShortUSD > 0 {
		tail += " · short " + f.ShortUSD.Display() + ": fund it"
	}
	line := "Hot wallet " + f.HotWalletAddress + tail
	if lipgloss.Width(line) > w {
		line = "Hot wallet" + tail
	}
	if f.ShortUSD > 0 {
		return t.warn.Render(line)
	}
	return t.dim.Render(line)
}

// queueCells are an approval's cells in the queue table.
func queueCells(now time.Time, a axp.Approval) []string {
	status := a.Shown()
	if status == axp.ApprovalPending {
		status = "pending"
	}
	return []string{a.Kind, status, a.Amount.Display(), a.TaskID, partiesOrHold(a), age(now, a.CreatedAt), checksSummary(a.Checks)}
}

func (m Model) approvalDetail(w int, a axp.Approval) []string {
	t := m.theme
	// Ids are words: wrapping never cuts one.
	out := append([]string{t.dim.Render(strings.Repeat("─", w))},
		wrapWords(t.bold.Render(a.ID)+"  "+a.Kind+"  "+t.status(a.Shown())+"  task "+a.TaskID+" ("+a.TaskType+")", w)...)
	money := "Amount " + t.bold.Render(a.Amount.Display())
	if a.PriceUSD != 0 {
		money += " · price " + a.PriceUSD.Display()
	}
	if a.FeeUSD != 0 {
		money += " · fee " + a.FeeUSD.Display()
	}
	if a.SellerNetUSD != 0 {
		money += " · seller nets " + a.SellerNetUSD.Display()
	}
	if a.RefundUSD != 0 {
		money += " · refund " + a.RefundUSD.Display()
		if a.RefundPct != nil {
			money += fmt.Sprintf(" (%d%%)", *a.RefundPct)
		}
	}
	out = append(out, money)
	if r := a.Recipients(); r != "" {
		out = append(out, "Books "+r)
	}
	who := "Buyer " + a.BuyerID
	if a.SellerID != "" {
		who += " · seller " + partyName(a) + " (" + a.SellerID + ")"
	}
	out = append(out, who)
	var where []string
	if a.PayoutAddress != "" {
		where = append(where, "payout to "+a.PayoutAddress)
	}
	if a.TxHash != "" {
		where = append(where, "tx "+a.TxHash)
	}
	if len(where) > 0 {
		out = append(out, wrapWords(strings.Join(where, " · "), w)...)
	}
	if a.Reason != "" {
		out = append(out, "Why: "+a.Reason)
	}
	checks := "Checks: none"
	if len(a.Checks) > 0 {
		checks = "Checks: " + m.checks(a.Checks)
	}
	out = append(out, checks)
	return out
}

// wrapWords wraps text to w cells at its spaces, keeping them; a word wider than w (a hash on a
// narrow terminal) is broken, never cut.
func wrapWords(text string, w int) []string {
	return strings.Split(ansi.Wrap(text, max(w, 1), ""), "\n")
}

// partiesOrHold is the queue list's PARTIES cell: who the item involves, or why it is held or
// failed (the detail below names the parties).
func partiesOrHold(a axp.Approval) string {
	switch {
	case a.Status == axp.ApprovalReorged:
		return "REORGED: the payment left the chain"
	case a.Status == axp.ApprovalHeld && a.HeldFor == axp.HoldReorg:
		return "held: a payment of the task left the chain"
	case a.Status == axp.ApprovalHeld && a.Reason != "":
		return "held: " + a.Reason
	case a.Status == axp.ApprovalHeld:
		return "held: waiting for the seller's payout address"
	case a.Status == axp.ApprovalFailed && a.Failure != "":
		return "failed: " + a.Failure
	}
	return parties(a)
}

func parties(a axp.Approval) string {
	if s := partyName(a); s != "" {
		return a.BuyerID + " → " + s
	}
	return a.BuyerID
}

func age(now, t time.Time) string {
	d := now.Sub(t)
	switch {
	case d < time.Minute:
		return fmt.Sprintf("%ds", max(int(d.Seconds()), 0))
	case d < time.Hour:
		return fmt.Sprintf("%dm", int(d.Minutes()))
	case d < 48*time.Hour:
		return fmt.Sprintf("%dh", int(d.Hours()))
	}
	return fmt.Sprintf("%dd", int(d.Hours()/24))
}

func checksSummary(cs []axp.CheckResult) string {
	if len(cs) == 0 {
		return "—"
	}
	n := 0
	for _, c := range cs {
		if c.Passed {
			n++
		}
	}
	return fmt.Sprintf("%d/%d ok", n, len(cs))
}

func (m Model) checks(cs []axp.CheckResult) string {
	var parts []string
	for _, c := range cs {
		if c.Passed {
			parts = append(parts, m.theme.ok.Render("✓ "+c.Name))
		} else {
			s := "✗ " + c.Name
			if c.Detail != "" {
				s += " (" + c.Detail + ")"
			}
			parts = append(parts, m.theme.bad.Render(s))
		}
	}
	return strings.Join(parts, "  ")
}

// --- buyer: task list ---

var taskCols = []col{{"ID", -1}, {"TYPE", -1}, {"STATUS", -1}, {"OFFERS", 6}, {"PRICE", -1}, {"UPDATED", 7}}

func (m Model) listBody(w, h int) []string {
	t := m.theme
	if !m.src.CanBuy() {
		return []string{"", "No buyer credentials for " + m.src.Exchange() + ".",
			"Post a task with `axp task create`, or `axp login` with a buyer member's secret."}
	}
	live := ""
	if m.opts.Refresh > 0 {
		live = t.dim.Render(" · live")
	}
	tasks := m.shownTasks()
	title := fmt.Sprintf("Your tasks (%d)", len(m.tasks))
	if len(tasks) != len(m.tasks) {
		title = fmt.Sprintf("Your tasks (%d of %d)", len(tasks), len(m.tasks))
	}
	out := []string{t.bold.Render(title) + live}
	if who := m.src.Member(); who != "" {
		// Which member's tasks these are: the credentials the member-side commands use.
		out = append(out, t.dim.Render(capitalize(who)))
	}
	if !m.tasksLoaded {
		return append(out, "", "Loading your tasks…")
	}
	if len(m.tasks) == 0 {
		return append(out, "", "No tasks yet. Post one: axp task create --type text-file --param prompt=...")
	}
	if len(tasks) == 0 {
		return append(out, m.noMatch(listTasks)...)
	}
	now := m.opts.Now()
	start, end := window(m.taskCur, len(tasks), h-len(out)-1)
	cells := make([][]string, 0, end-start)
	for i := start; i < end; i++ {
		cells = append(cells, taskCells(now, tasks[i]))
	}
	cols, cells := narrow(taskCols, cells, w-2, "UPDATED", "OFFERS", "PRICE", "TYPE")
	ws := fitWidths(cols, cells, w-2)
	out = append(out, "  "+m.headRow(cols, ws))
	for i, c := range cells {
		out = append(out, m.selRow(start+i == m.taskCur, ws, c...))
	}
	return out
}

// taskCells are a task's cells in the buyer's list.
func taskCells(now time.Time, x axp.Task) []string {
	price := ""
	if x.PriceUSD != nil {
		price = x.PriceUSD.Display()
	}
	return []string{x.ID, x.Type, x.Status, strconv.Itoa(len(x.Offers)), price, age(now, x.UpdatedAt)}
}

// --- buyer: one task ---

var offerCols = []col{{"#", 3}, {"SELLER", 0}, {"PRICE", 9}, {"NETS", 9}, {"ETA", 7}, {"RELIABILITY", 0}, {"BADGES", -1}}

func (m Model) taskBody(w, h int) []string {
	t := m.theme
	p := m.open
	x := p.task
	out := []string{t.bold.Render("‹ "+x.ID) + "  " + x.Type + "  " + t.status(x.Status) + "  " + t.dim.Render(x.PaymentMethod)}
	if len(x.Params) > 0 {
		out = append(out, t.dim.Render(paramsText(x.Params)))
	}
	if x.Seller != nil && x.PriceUSD != nil {
		line := "Seller " + t.bold.Render(x.Seller.Name) + " · price " + x.PriceUSD.Display()
		if x.Fee != nil {
			line += fmt.Sprintf(" · platform fee %s (%s%%) · seller nets %s", x.Fee.PlatformFee.Display(), pct(x.Fee.FeeBPS), x.Fee.SellerNet.Display())
		}
		out = append(out, line)
	}
	if pay := x.Payment; pay != nil {
		line := "Payment " + t.status(pay.Status)
		if pay.Status == "unpaid" {
			line += " · pay exactly " + t.bold.Render(pay.PayableUSD.Display())
			if pay.PayBy != nil {
				line += " by " + pay.PayBy.UTC().Format("2006-01-02 15:04 UTC")
			}
		} else {
			line += " · payable " + pay.PayableUSD.Display() + " · received " + pay.ReceivedUSD.Display()
		}
		out = append(out, line)
		var where []string
		if pay.DepositAddress != "" {
			where = append(where, "to "+pay.DepositAddress)
		}
		if pay.TxHash != "" {
			where = append(where, "tx "+pay.TxHash)
		}
		if len(where) > 0 {
			out = append(out, t.dim.Render(strings.Join(where, " · ")))
		}
		if pay.MissingUSD > 0 {
			out = append(out, "Still due "+t.bold.Render(pay.MissingUSD.Display()))
		}
		if pay.TokenAddress != "" {
			out = append(out, t.dim.Render(fmt.Sprintf("chain %d · %s (%d decimals) · %s units", pay.ChainID, orText(pay.TokenSymbol, "token"), pay.TokenDecimals, pay.PayableUnits)),
				t.dim.Render("token "+pay.TokenAddress))
		}
		// The wallet URI is shown whole, over as many lines as it takes: a cut URI pays nobody.
		for u := pay.PaymentURI; u != ""; {
			n := min(len(u), max(w-1, 20))
			out = append(out, t.dim.Render(u[:n]))
			u = u[n:]
		}
	}
	if x.Deliverable != nil {
		sha := x.Deliverable.SHA256
		if len(sha) > 16 {
			sha = sha[:16] + "…"
		}
		line := fmt.Sprintf("Delivered sha256 %s · deliveries %d · free redos left %d", sha, x.Deliveries, x.RedosLeft)
		out = append(out, line)
		if x.Deliverable.Note != "" {
			out = append(out, "Seller's note: "+strings.Join(strings.Fields(x.Deliverable.Note), " "))
		}
		if note := x.Deliverable.Screening.Note(); note != "" {
			out = append(out, t.warn.Render("Delivery: "+note))
		}
		if len(x.Checks) > 0 {
			out = append(out, "Checks: "+m.checks(x.Checks))
		}
	}
	if x.ReleaseDue {
		out = append(out, t.warn.Render("The auto-release window passed: the operator decides"))
	}
	for _, c := range x.Clarifications {
		out = append(out, t.warn.Render(c.Seller.Name+" asks: "+strings.Join(c.Questions, " / ")))
		if note := c.Screening.Note(); note != "" {
			out = append(out, t.warn.Render("  "+note))
		}
	}
	if p.dispute != nil {
		out = append(out, m.disputeLines(w, p.dispute)...)
	}
	if p.pane == paneMessages {
		return m.messageLines(w, h, out)
	}
	preview := m.previewLines(w)
	avail := h - len(out) - len(preview)
	if len(x.Offers) == 0 {
		if x.Status == axp.TaskOpen {
			out = append(out, "", t.dim.Render("No offers yet: they appear here as sellers quote."))
		}
		return append(lines(out, h-len(preview)), preview...)
	}
	var sorts []string
	for i, r := range axp.Rankings {
		switch {
		case i == p.sort && t.noColor:
			sorts = append(sorts, "["+r+"]")
		case i == p.sort:
			sorts = append(sorts, t.tabOn.Render(r))
		default:
			sorts = append(sorts, r)
		}
	}
	offers := m.shownOffers()
	count := strconv.Itoa(len(x.Offers))
	if len(offers) != len(x.Offers) {
		count = fmt.Sprintf("%d of %d", len(offers), len(x.Offers))
	}
	out = append(out, "", t.bold.Render("Offers ("+count+")")+"  sort: "+strings.Join(sorts, " "))
	if len(offers) == 0 {
		out = append(out, m.noMatch(listOffers)...)
		return append(lines(out, h-len(preview)), preview...)
	}
	rows := max(avail-5, 1)
	start, end := window(p.cur, len(offers), rows)
	// Narrower than 100 columns the seller's net leaves the table (the fee line below shows it for
	// the selected offer), so that badges are never cut.
	cols, wide := offerCols, w >= 100
	if !wide {
		cols = append(append([]col{}, offerCols[:3]...), offerCols[4:]...)
	}
	cells := make([][]string, 0, end-start)
	for i := start; i < end; i++ {
		o := offers[i]
		// The rank is the offer's place in the whole ranking, filtered or not.
		n := strconv.Itoa(slices.IndexFunc(x.Offers, func(y axp.Offer) bool { return y.OfferID == o.OfferID }) + 1)
		if x.RecommendedOffer != nil && *x.RecommendedOffer == o.OfferID {
			n += "*"
		}
		c := append([]string{n}, offerCells(o)...)
		if !wide {
			c = append(c[:3], c[4:]...)
		}
		cells = append(cells, c)
	}
	ws := fitWidths(cols, cells, w-2)
	out = append(out, "  "+m.headRow(cols, ws))
	for i, c := range cells {
		out = append(out, m.selRow(start+i == p.cur, ws, c...))
	}
	if p.cur < len(offers) {
		o := offers[p.cur]
		out = append(out, t.dim.Render("Fee: "+feeText(o.Fee)))
		g := fmt.Sprintf("Guarantee: %d free redo(s)", o.Guarantee.FreeRedo)
		if o.Guarantee.RefundIfFailsChecks {
			g += " · refund if it fails the checks"
		}
		if o.Note != "" {
			g += " · " + o.Note
		}
		out = append(out, t.dim.Render(g))
		if note := o.Screening.Note(); note != "" {
			out = append(out, t.warn.Render("Note: "+note))
		}
	}
	return append(lines(out, h-len(preview)), preview...)
}

// offerCells are an offer's cells in the offers table, after its rank.
func offerCells(o axp.Offer) []string {
	return []string{o.Seller.Name, o.PriceUSD.Display(), o.Fee.SellerNet.Display(),
		fmt.Sprintf("%d min", o.ETAMinutes), reliability(o.Reliability), strings.Join(axp.BadgeWords(o.Badges), ", ")}
}

func (m Model) previewLines(w int) []string {
	p := m.open
	t := m.theme
	switch {
	case p.preview != nil:
		d := p.preview
		out := []string{t.dim.Render(strings.Repeat("─", w)),
			t.bold.Render(fmt.Sprintf("Deliverable: %d bytes, SHA-256 verified", len(d.Body)))}
		if p.task != nil && p.task.Deliverable != nil {
			if note := p.task.Deliverable.Screening.Note(); note != "" {
				out = append(out, t.warn.Render(note))
			}
		}
		if !utf8.Valid(d.Body) {
			return append(out, t.dim.Render("(binary content: save it with axp task deliverable "+p.id+" -o FILE)"))
		}
		text := strings.Split(strings.TrimRight(string(d.Body), "\n"), "\n")
		if len(text) > 5 {
			text = append(text[:5], t.dim.Render(fmt.Sprintf("… %d more lines", len(text)-5)))
		}
		return append(out, text...)
	case p.previewErr != "":
		return []string{t.bad.Render("Preview: " + p.previewErr)}
	}
	return nil
}

// reliability renders a seller's measured record in a few cells.
func reliability(r axp.Reliability) string {
	var parts []string
	pct := func(label string, v *float64) {
		if v != nil {
			parts = append(parts, fmt.Sprintf("%s %d%%", label, int(*v*100+0.5)))
		}
	}
	pct("on time", r.OnTimeRate)
	pct("1st pass", r.FirstPassRate)
	pct("disputed", r.DisputeRate)
	if len(parts) == 0 {
		return "no record"
	}
	return strings.Join(parts, " ")
}

func feeText(f axp.Fee) string {
	return fmt.Sprintf("buyer pays %s · platform fee %s (%s%%) · seller nets %s", f.BuyerTotal.Display(), f.PlatformFee.Display(),
		pct(f.FeeBPS), f.SellerNet.Display())
}

func pct(bps int64) string { return strconv.FormatFloat(float64(bps)/100, 'f', -1, 64) }

func paramsText(p map[string]any) string { return protocol.Pairs(p) }

// capitalize is s with its first letter upper-case.
func capitalize(s string) string {
	if s == "" {
		return s
	}
	r, n := utf8.DecodeRuneInString(s)
	return strings.ToUpper(string(r)) + s[n:]
}

func orText(s, alt string) string {
	if s == "" {
		return alt
	}
	return s
}

var allTaskCols = []col{{"ID", -1}, {"TYPE", 0}, {"STATUS", -1}, {"PRICE", -1}, {"SELLER", 0}, {"AGE", -1}}

// allTasksBody is every task of the exchange, newest first; ids are never cut.
func (m Model) allTasksBody(w, h int) []string {
	if !m.allLoaded {
		return []string{"", "Loading the tasks…"}
	}
	if len(m.all) == 0 {
		return []string{"", "No tasks yet. Every task posted on the exchange appears here, newest first."}
	}
	all := m.shownAllTasks()
	if len(all) == 0 {
		return m.noMatch(listTab + tabTasks)
	}
	now := m.opts.Now()
	cells := make([][]string, len(all))
	for i, x := range all {
		cells[i] = allTaskCells(now, x)
	}
	cols, cells := narrow(allTaskCols, cells, w-2, "AGE", "SELLER", "TYPE", "PRICE")
	ws := fitWidths(cols, cells, w-2)
	out := []string{"  " + m.headRow(cols, ws)}
	start, end := window(m.allCur, len(all), h-1)
	for i := start; i < end; i++ {
		out = append(out, m.selRow(i == m.allCur, ws, cells[i]...))
	}
	return out
}

// allTaskCells are a task's cells in the operator's list of every task.
func allTaskCells(now time.Time, x axp.AdminTaskRow) []string {
	price := "-"
	if x.Price != nil {
		price = x.Price.Display()
	}
	seller := x.SellerName
	if seller == "" {
		seller = x.SellerID
	}
	return []string{x.ID, x.Type, x.Status, price, seller, age(now, x.CreatedAt)}
}

var auditCols = []col{{"AGE", -1}, {"ACTOR", 0}, {"ACTION", -1}, {"ENTITY", -1}, {"DETAILS", 0}}

// auditBody is the newest records of the audit trail, newest first; entity ids are never cut.
func (m Model) auditBody(w, h int) []string {
	if !m.auditLoaded {
		return []string{"", "Loading the audit trail…"}
	}
	if len(m.audit) == 0 && m.auditTask != "" {
		return []string{"", "Nothing recorded for task " + m.auditTask + " yet."}
	}
	if len(m.audit) == 0 {
		return []string{"", "The audit trail is empty. Every change is recorded here, newest first."}
	}
	audit := m.shownAudit()
	if len(audit) == 0 {
		return m.noMatch(listAudit)
	}
	now := m.opts.Now()
	cells := make([][]string, len(audit))
	for i, x := range audit {
		cells[i] = auditCells(now, x)
	}
	cols, cells := narrow(auditCols, cells, w-2, "DETAILS", "ACTOR", "AGE")
	ws := fitWidths(cols, cells, w-2)
	out := []string{"  " + m.headRow(cols, ws)}
	start, end := window(m.auditCur, len(audit), h-1)
	for i := start; i < end; i++ {
		out = append(out, m.selRow(i == m.auditCur, ws, cells[i]...))
	}
	return out
}

// auditCells are an audit record's cells in the audit trail.
func auditCells(now time.Time, x axp.AuditRecord) []string {
	return []string{age(now, x.Time), x.Actor, x.Action, x.EntityType + " " + x.EntityID, auditDetails(x.Details)}
}

// auditDetails is an audit record's details on one line, keys in order, nested values as words
// (never Go's map[...] or <nil>).
func auditDetails(d map[string]any) string { return protocol.Pairs(d) }
