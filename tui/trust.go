package tui

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/charmbracelet/x/ansi"

	"github.com/axp-exchange/axp"
)

// The operator's trust-and-safety tabs: mediations (disputes and review objections, with both
// sides' statements and proposals, the Mediator's decision and its reasoning; appealed ones are
// decided here), the listing policy's rejections (overturned here) and the members' board posts the
// screen held (approved or hidden here). Texts from the parties carry their screening: a flagged
// text is shown as data, marked.

var medCols = []col{{"KIND", 9}, {"STATUS", 9}, {"TASK", -1}, {"STATEMENTS", 20}, {"DECISION", 11}, {"FLAG", 4}, {"SINCE", 5}}

// detailRows splits h rows between a table of n rows (with its header) and a detail pane: the
// table gets up to a third of the rows (at least 3), the detail the rest; with fewer than 5 rows
// left there is no detail.
func detailRows(n, h int) (rows, detail int) {
	rows = min(n, max(3, (h-1)/3))
	detail = h - 1 - rows
	if detail < 5 {
		return h - 1, 0
	}
	return rows, detail
}

func (m Model) mediationsBody(w, h int) []string {
	t := m.theme
	if !m.medsLoaded {
		return []string{"", "Loading mediations…"}
	}
	if len(m.meds) == 0 {
		return []string{"", "No mediations. Disputes taken to the Mediator and objections to reviews appear here."}
	}
	meds := m.shownMediations()
	if len(meds) == 0 {
		return m.noMatch(listTab + tabMediations)
	}
	rows, detail := detailRows(len(meds), h)
	now := m.opts.Now()
	start, end := window(m.medCur, len(meds), rows)
	cells := make([][]string, 0, end-start)
	for i := start; i < end; i++ {
		cells = append(cells, medCells(now, meds[i]))
	}
	cols, cells := narrow(medCols, cells, w-2, "SINCE", "DECISION", "FLAG", "STATEMENTS")
	ws := fitWidths(cols, cells, w-2)
	out := []string{"  " + m.headRow(cols, ws)}
	for i := start; i < end; i++ {
		x := meds[i]
		row := m.selRow(i == m.medCur, ws, cells[i-start]...)
		if i != m.medCur && x.Status == axp.MediationAppealed {
			row = t.warn.Render(row)
		}
		out = append(out, row)
	}
	if detail == 0 {
		return out
	}
	out = lines(out, h-detail)
	return append(out, lines(m.mediationDetail(w, meds[m.medCur]), detail)...)
}

// medCells are a mediation's cells in the mediations table.
func medCells(now time.Time, x axp.Mediation) []string {
	kind := x.Kind
	if kind == axp.MediationReviewObjection {
		kind = "objection"
	}
	status := x.Status
	if status == axp.MediationAwaiting {
		status = "awaiting"
	}
	flag := ""
	if mediationFlagged(&x) {
		flag = "⚠"
	}
	return []string{kind, status, x.TaskID, statementsCell(&x), decisionShort(latestDecision(&x)), flag, age(now, x.UpdatedAt)}
}

// statementsCell is who stated and what each proposed: "buyer 80% seller 20%", "buyer ✓ seller —".
func statementsCell(x *axp.Mediation) string {
	var parts []string
	for _, side := range []string{axp.SideBuyer, axp.SideSeller} {
		v := "—"
		if st := x.StatementOf(side); st != nil {
			v = "✓"
			if st.ProposedRefundPct != nil {
				v = fmt.Sprintf("%d%%", *st.ProposedRefundPct)
			}
		}
		parts = append(parts, side+" "+v)
	}
	return strings.Join(parts, " ")
}

// latestDecision is the operator's decision, else the Mediator's (or nil).
func latestDecision(x *axp.Mediation) *axp.MediationDecision {
	if x.OperatorDecision != nil {
		return x.OperatorDecision
	}
	return x.Decision
}

// decisionShort is a decision in a table cell: "split 40%", "remove".
func decisionShort(d *axp.MediationDecision) string {
	if d == nil {
		return "—"
	}
	if d.RefundPct != nil {
		return fmt.Sprintf("%s %d%%", d.Outcome, *d.RefundPct)
	}
	return d.Outcome
}

// decisionLong is a decision in words: "split 50% (US$1.25 back to the buyer) by mediator:rules,
// rule both_proposed".
func decisionLong(d *axp.MediationDecision) string {
	var s string
	switch d.Outcome {
	case "keep", "remove":
		s = d.Outcome + " the review"
	default:
		s = decisionShort(d)
		if d.RefundUSD != nil {
			s += " (" + d.RefundUSD.Display() + " back to the buyer)"
		}
	}
	s += " by " + d.By
	if d.Rule != "" {
		s += ", rule " + d.Rule
	}
	if d.ApprovalID != "" {
		s += " → " + d.ApprovalID
	}
	return s
}

// mediationFlagged reports whether any text of a mediation was flagged or lost contact details.
func mediationFlagged(x *axp.Mediation) bool {
	if flagged(x.ReasonScreening) {
		return true
	}
	for _, st := range x.Statements {
		if flagged(st.Screening) {
			return true
		}
	}
	return false
}

func flagged(sc *axp.Screening) bool { return sc != nil && (sc.Flagged || len(sc.Removed) > 0) }

// wrapText wraps text to w cells in at most n lines, the last one ending in … when cut.
func wrapText(text string, w, n int) []string {
	if w < 1 {
		w = 1
	}
	text = strings.Join(strings.Fields(text), " ")
	out := strings.Split(ansi.Wrap(text, w, ""), "\n")
	if len(out) > n {
		out = out[:n]
		out[n-1] = ansi.Truncate(out[n-1]+" …", w, "…")
	}
	return out
}

// field renders a labelled text over up to n lines (continuations indented under the text), with
// its screening note on a line of its own.
func (m Model) field(w int, label, text string, sc *axp.Screening, n int) []string {
	t := m.theme
	const indent = 9
	pad := strings.Repeat(" ", indent)
	var out []string
	for i, l := range wrapText(text, w-indent, n) {
		if i == 0 {
			out = append(out, t.bold.Render(fmt.Sprintf("%-*s", indent, label))+l)
		} else {
			out = append(out, pad+l)
		}
	}
	if note := sc.Note(); note != "" {
		out = append(out, pad+t.warn.Render(note))
	}
	return out
}

func (m Model) mediationDetail(w int, x axp.Mediation) []string {
	t := m.theme
	now := m.opts.Now()
	out := []string{t.dim.Render(strings.Repeat("─", w)), t.bold.Render(x.ID) + "  " + x.Kind + "  " + m.medStatus(x.Status)}
	task := x.TaskID
	if x.ReviewID != "" {
		task += " · review " + x.ReviewID
	}
	out = append(out, m.field(w, "Task", task+" · opened by the "+x.OpenedBy+" "+age(now, x.CreatedAt)+" ago", nil, 2)...)
	out = append(out, m.field(w, "Reason", x.Reason, x.ReasonScreening, 2)...)
	for _, side := range []string{axp.SideBuyer, axp.SideSeller} {
		label := strings.ToUpper(side[:1]) + side[1:]
		st := x.StatementOf(side)
		if st == nil {
			v := "no statement"
			if x.Status == axp.MediationAwaiting {
				v = "not stated yet (due in " + age(x.StatementsDue, now) + ")"
			}
			out = append(out, t.bold.Render(fmt.Sprintf("%-9s", label))+t.dim.Render(v))
			continue
		}
		text := fmt.Sprintf("%q", st.Statement)
		if st.ProposedRefundPct != nil {
			text += fmt.Sprintf(" · proposes %d%%", *st.ProposedRefundPct)
		}
		out = append(out, m.field(w, label, text, st.Screening, 2)...)
	}
	if d := x.Decision; d != nil {
		out = append(out, m.field(w, deciderLabel(d), decisionLong(d), nil, 2)...)
		out = append(out, m.dimField(w, d.Reasoning, 3)...)
	}
	if x.AppealedBy != "" {
		out = append(out, m.field(w, "Appeal", "by the "+x.AppealedBy+": "+x.AppealReason, nil, 2)...)
	}
	if d := x.OperatorDecision; d != nil {
		out = append(out, m.field(w, "Operator", decisionLong(d), nil, 2)...)
		out = append(out, m.dimField(w, d.Reasoning, 2)...)
	}
	if x.Status == axp.MediationAppealed {
		what := "a refund percentage"
		if x.Kind == axp.MediationReviewObjection {
			what = "keep or remove"
		}
		out = append(out, t.warn.Render("Appealed to you: press d to decide ("+what+", with a note)"))
	}
	return out
}

// dimField is a text under a field (reasoning), indented and dim.
func (m Model) dimField(w int, text string, n int) []string {
	var out []string
	for _, l := range wrapText(text, w-9, n) {
		out = append(out, strings.Repeat(" ", 9)+m.theme.dim.Render(l))
	}
	return out
}

func deciderLabel(d *axp.MediationDecision) string {
	switch {
	case strings.HasPrefix(d.By, "mediator"):
		return "Mediator"
	case d.By == "operator":
		return "Operator"
	}
	return "Decision"
}

func (m Model) medStatus(s string) string {
	t := m.theme
	switch s {
	case axp.MediationAppealed:
		return t.warn.Render(s)
	case axp.MediationResolved:
		return t.ok.Render(s)
	}
	return s
}

var listingCols = []col{{"STATUS", 10}, {"CATEGORY", 14}, {"TYPE", 12}, {"POSTS", 5}, {"BRIEF", 0}, {"AGE", 4}}

func (m Model) listingsBody(w, h int) []string {
	if !m.listingsLoaded {
		return []string{"", "Loading rejected listings…"}
	}
	if len(m.listings) == 0 {
		return []string{"", "No rejected listings. Briefs the listing policy refuses appear here."}
	}
	listings := m.shownListings()
	if len(listings) == 0 {
		return m.noMatch(listTab + tabListings)
	}
	rows, detail := detailRows(len(listings), h)
	ws := widths(listingCols, w-2)
	out := []string{"  " + m.headRow(listingCols, ws)}
	now := m.opts.Now()
	start, end := window(m.lstCur, len(listings), rows)
	for i := start; i < end; i++ {
		out = append(out, m.selRow(i == m.lstCur, ws, listingCells(now, listings[i])...))
	}
	if detail == 0 {
		return out
	}
	out = lines(out, h-detail)
	return append(out, lines(m.listingDetail(w, listings[m.lstCur]), detail)...)
}

// listingCells are a rejected listing's cells in the listings table.
func listingCells(now time.Time, x axp.ListingRejection) []string {
	return []string{x.Status, x.Category, x.Type, fmt.Sprint(x.Posts), brief(x), age(now, x.CreatedAt)}
}

// brief is a rejected brief on one line: its description, else its params.
func brief(x axp.ListingRejection) string {
	if x.Description != "" {
		return strings.Join(strings.Fields(x.Description), " ")
	}
	return paramsText(x.Params)
}

func (m Model) listingDetail(w int, x axp.ListingRejection) []string {
	t := m.theme
	status := t.bad.Render(x.Status)
	if x.Status == axp.ListingOverturned {
		status = t.ok.Render(x.Status)
	}
	times := "once"
	if x.Posts != 1 {
		times = fmt.Sprintf("%d times", x.Posts)
	}
	out := []string{t.dim.Render(strings.Repeat("─", w)), t.bold.Render(x.ID) + "  " + status + "  " + x.Category}
	out = append(out, m.field(w, "Type", x.Type+" · posted "+times+" by "+x.Actor+" · first "+age(m.opts.Now(), x.CreatedAt)+" ago", nil, 2)...)
	out = append(out, m.field(w, "Reason", x.Reason, nil, 2)...)
	if x.Description != "" {
		out = append(out, m.field(w, "Brief", x.Description, nil, 4)...)
	}
	if len(x.Params) > 0 {
		out = append(out, m.field(w, "Params", paramsText(x.Params), nil, 2)...)
	}
	if x.Status == axp.ListingOverturned {
		out = append(out, m.field(w, "Overturn", x.OverturnNote, nil, 2)...)
	} else {
		out = append(out, t.warn.Render("Press o to overturn it: the same brief then passes when posted again"))
	}
	return out
}

var boardCols = []col{{"AUTHOR", 0}, {"KIND", 6}, {"RISK", 4}, {"REASONS", 0}, {"TEXT", 0}, {"AGE", 4}}

// boardBody is the board tab: the posts the screen held for the operator, oldest first, and the
// selected one in full.
func (m Model) boardBody(w, h int) []string {
	if !m.boardLoaded {
		return []string{"", "Loading the board's held posts…"}
	}
	if len(m.board) == 0 {
		return []string{"", "No board posts wait for you. Posts the screen rates high-risk are held here."}
	}
	board := m.shownBoard()
	if len(board) == 0 {
		return m.noMatch(listTab + tabBoard)
	}
	rows, detail := detailRows(len(board), h)
	now := m.opts.Now()
	start, end := window(m.boardCur, len(board), rows)
	cells := make([][]string, 0, end-start)
	for i := start; i < end; i++ {
		cells = append(cells, boardCells(now, board[i]))
	}
	ws := fitWidths(boardCols, cells, w-2)
	out := []string{"  " + m.headRow(boardCols, ws)}
	for i, c := range cells {
		out = append(out, m.selRow(start+i == m.boardCur, ws, c...))
	}
	if detail == 0 {
		return out
	}
	out = lines(out, h-detail)
	return append(out, lines(m.postDetail(w, board[m.boardCur]), detail)...)
}

// boardCells are a held post's cells in the board table.
func boardCells(now time.Time, p axp.BoardPost) []string {
	risk := 0
	if p.Screening != nil {
		risk = p.Screening.Risk
	}
	return []string{authorName(p.Author), p.Kind, fmt.Sprint(risk), reasons(p.Screening), postText(p), age(now, p.CreatedAt)}
}

// reasons are the screen's reasons for holding a text: its findings' rules, else its verdict.
func reasons(sc *axp.Screening) string {
	if sc == nil {
		return "—"
	}
	var rules []string
	for _, f := range sc.Findings {
		if !slices.Contains(rules, f.Rule) {
			rules = append(rules, f.Rule)
		}
	}
	if len(rules) > 0 {
		return strings.Join(rules, ",")
	}
	return orText(sc.Verdict, "—")
}

// postText is a board post on one line: a thread's title and body, a reply's body.
func postText(p axp.BoardPost) string {
	text := p.Body
	if p.Title != "" {
		text = p.Title + ": " + p.Body
	}
	return strings.Join(strings.Fields(text), " ")
}

func (m Model) postDetail(w int, p axp.BoardPost) []string {
	t := m.theme
	out := []string{t.dim.Render(strings.Repeat("─", w)), t.bold.Render(p.ID) + "  " + p.Kind + "  " + t.warn.Render(p.Status)}
	where := "new thread"
	if p.Kind == axp.BoardReply {
		where = "reply to thread " + p.ThreadID
	}
	out = append(out, m.field(w, "Author", authorName(p.Author)+" ("+p.Author.ID+") · "+where+" · posted "+age(m.opts.Now(), p.CreatedAt)+" ago", nil, 2)...)
	if p.Title != "" {
		out = append(out, m.field(w, "Title", p.Title, nil, 2)...)
	}
	out = append(out, m.field(w, "Text", p.Body, nil, 4)...)
	// The screen's verdict is why the post is held: wrapped, not cut like a field's note.
	for _, l := range wrapText(p.Screening.Note(), w-9, 3) {
		if l != "" {
			out = append(out, strings.Repeat(" ", 9)+t.warn.Render(l))
		}
	}
	if sc := p.Screening; sc != nil {
		for i, f := range sc.Findings {
			if i == 3 {
				out = append(out, m.dimField(w, fmt.Sprintf("… %d more findings", len(sc.Findings)-3), 1)...)
				break
			}
			why := f.Rule
			if f.Excerpt != "" {
				why += fmt.Sprintf(" %q", f.Excerpt)
			}
			why += fmt.Sprintf(" (weight %d", f.Weight)
			if f.Field != "" {
				why += ", in the " + f.Field
			}
			why += ")"
			label := ""
			if i == 0 {
				label = "Why"
			}
			out = append(out, m.field(w, label, why, nil, 2)...)
		}
	}
	return append(out, t.warn.Render("Press a to let it appear, or x to hide it with a reason its author reads"))
}
