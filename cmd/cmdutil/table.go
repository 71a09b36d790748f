package cmdutil

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/axp-exchange/axp"
	"github.com/cli/go-gh/v2/pkg/tableprinter"
	"github.com/cli/go-gh/v2/pkg/text"
)

// TablePrinter lays rows out as gh does (go-gh's tableprinter), with one rule of its own: ids are
// never cut. A column holding an id (an exchange id, a trace id or a transaction hash, alone or
// among words) keeps its full width and the other columns are shortened first; when even that
// leaves them too little room, each row prints its ids whole on a line and the rest wrapped below.
type TablePrinter struct {
	s      *IOStreams
	header []string
	rows   [][]cell
}

type cell struct {
	text     string
	color    func(string) string
	truncate func(int, string) string
	keep     bool
}

// FieldOption styles one cell of a table.
type FieldOption func(*cell)

// WithColor colours a cell on a terminal.
func WithColor(fn func(string) string) FieldOption { return func(c *cell) { c.color = fn } }

// WithTruncate shortens a cell with fn; nil keeps the cell whole, as for an id.
func WithTruncate(fn func(int, string) string) FieldOption {
	return func(c *cell) { c.truncate, c.keep = fn, fn == nil }
}

// Table is a table on stdout: aligned columns with a header on a terminal, tab-separated rows
// without a header otherwise (as in gh).
func Table(s *IOStreams) *TablePrinter { return &TablePrinter{s: s, rows: [][]cell{{}}} }

// AddHeader sets the column names, shown on a terminal.
func (t *TablePrinter) AddHeader(columns []string) { t.header = columns }

// AddField adds a cell to the current row.
func (t *TablePrinter) AddField(s string, opts ...FieldOption) {
	c := cell{text: s}
	for _, o := range opts {
		o(&c)
	}
	t.rows[len(t.rows)-1] = append(t.rows[len(t.rows)-1], c)
}

// EndRow ends the current row.
func (t *TablePrinter) EndRow() { t.rows = append(t.rows, []cell{}) }

var (
	traceIDForm = regexp.MustCompile(`^[0-9a-f]{24}$`)
	txHashForm  = regexp.MustCompile(`^0x[0-9a-fA-F]{64}$`)
	idPrefix    = regexp.MustCompile(`^[a-z]{2,6}$`)
)

// holdsID reports whether a cell's text is or contains an id.
func holdsID(s string) bool {
	for _, w := range strings.Fields(s) {
		if p, _, ok := axp.IDBytes(w); ok && idPrefix.MatchString(p) {
			return true
		}
		if traceIDForm.MatchString(w) || txHashForm.MatchString(w) {
			return true
		}
	}
	return false
}

// minColumn is the width below which a shortened column says too little to be worth a column.
const minColumn = 8

// Render writes the table.
func (t *TablePrinter) Render() error {
	rows := t.rows
	if len(rows[len(rows)-1]) == 0 {
		rows = rows[:len(rows)-1]
	}
	if len(rows) == 0 {
		return nil
	}
	if !t.s.StdoutTTY {
		tp := tableprinter.New(t.s.Out, false, 0)
		for _, r := range rows {
			for _, c := range r {
				tp.AddField(c.text)
			}
			tp.EndRow()
		}
		return tp.Render()
	}
	n := len(t.header)
	for _, r := range rows {
		n = max(n, len(r))
	}
	widest, fixed := make([]int, n), make([]bool, n)
	for i, h := range t.header {
		widest[i] = text.DisplayWidth(h)
	}
	for _, r := range rows {
		for i, c := range r {
			widest[i] = max(widest[i], text.DisplayWidth(c.text))
			if c.keep || holdsID(c.text) {
				fixed[i] = true
			}
		}
	}
	need := 2 * (n - 1)
	for i := range n {
		if fixed[i] {
			need += widest[i]
		} else {
			need += min(widest[i], minColumn)
		}
	}
	if need > t.s.TermWidth() {
		return t.renderNarrow(rows, fixed)
	}
	tp := tableprinter.New(t.s.Out, true, t.s.TermWidth())
	if t.header != nil {
		tp.AddHeader(t.header)
	}
	for _, r := range rows {
		for i, c := range r {
			addField(tp, c, fixed[i])
		}
		tp.EndRow()
	}
	return tp.Render()
}

// addField adds a cell to a go-gh table (whose option type is not exported, so the options are
// spelled out).
func addField(tp tableprinter.TablePrinter, c cell, fixed bool) {
	truncate := c.truncate
	if truncate == nil {
		truncate = text.Truncate
	}
	if fixed {
		truncate = nil
	}
	if c.color != nil {
		tp.AddField(c.text, tableprinter.WithTruncate(truncate), tableprinter.WithColor(c.color))
	} else {
		tp.AddField(c.text, tableprinter.WithTruncate(truncate))
	}
}

// renderNarrow prints each row's ids whole on a line and its other cells below, indented and
// wrapped to the terminal; the header takes the same shape.
func (t *TablePrinter) renderNarrow(rows [][]cell, fixed []bool) error {
	width := max(t.s.TermWidth()-2, minColumn)
	var b strings.Builder
	if t.header != nil {
		h := make([]cell, len(t.header))
		for i, name := range t.header {
			h[i] = cell{text: name}
		}
		rows = append([][]cell{h}, rows...)
	}
	for _, r := range rows {
		var ids, rest []string
		for i, c := range r {
			if c.text == "" {
				continue
			}
			if fixed[i] {
				ids = append(ids, paint(c, c.text))
				continue
			}
			for _, piece := range hardWrap(c.text, width) {
				rest = append(rest, paint(c, piece))
			}
		}
		b.WriteString(strings.Join(ids, "  "))
		b.WriteString("\n")
		line, lineWidth := "", 0
		for _, p := range rest {
			w := text.DisplayWidth(p)
			if lineWidth > 0 && lineWidth+2+w > width {
				fmt.Fprintf(&b, "  %s\n", line)
				line, lineWidth = "", 0
			}
			if lineWidth > 0 {
				line += "  "
				lineWidth += 2
			}
			line += p
			lineWidth += w
		}
		if lineWidth > 0 {
			fmt.Fprintf(&b, "  %s\n", line)
		}
	}
	_, err := fmt.Fprint(t.s.Out, b.String())
	return err
}

func paint(c cell, s string) string {
	if c.color != nil {
		return c.color(s)
	}
	return s
}

// hardWrap cuts s into pieces at most width wide.
func hardWrap(s string, width int) []string {
	var out []string
	var cur strings.Builder
	w := 0
	for _, r := range s {
		rw := text.DisplayWidth(string(r))
		if w+rw > width && w > 0 {
			out = append(out, cur.String())
			cur.Reset()
			w = 0
		}
		cur.WriteRune(r)
		w += rw
	}
	if cur.Len() > 0 {
		out = append(out, cur.String())
	}
	return out
}
