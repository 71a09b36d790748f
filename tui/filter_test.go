package tui

import (
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/exp/golden"
)

// typeText types s a character at a time.
func typeText(t *testing.T, m Model, s string) Model {
	t.Helper()
	for _, r := range s {
		m, _ = press(t, m, string(r))
	}
	return m
}

// Every list filters on / as it is typed: a row stays when it holds every word (any case, ids
// that are not shown included), the footer says how many rows are left of how many, enter keeps
// the filter and esc clears it.
func TestFilterEveryList(t *testing.T) {
	for _, c := range []struct {
		name   string
		view   string
		keys   []string // to reach the list
		query  string
		count  string
		shown  []string
		hidden []string
	}{
		{"buyer tasks", ViewBuyer, nil, "DELIV", "1 of 2", []string{"tsk_done"}, []string{"tsk_open"}},
		{"offers", ViewBuyer, []string{"enter"}, "fast", "1 of 3", []string{"Fast Lane", "Offers (1 of 3)"}, []string{"Quick Writer", "Slow Poet"}},
		{"offers by id", ViewBuyer, []string{"enter"}, "ofr_slow", "1 of 3", []string{"Slow Poet"}, []string{"Quick Writer", "Fast Lane"}},
		{"queue", ViewOperator, nil, "quick payout", "1 of 4", []string{"tsk_acc"}, []string{"tsk_paid", "tsk_held", "tsk_due"}},
		{"queue by hidden id", ViewOperator, nil, "mem_nowallet", "1 of 4", []string{"tsk_held"}, []string{"tsk_paid", "tsk_acc", "tsk_due"}},
		{"payments", ViewOperator, []string{"2"}, "zzz", "0 of 1", []string{`Nothing matches "zzz"`}, []string{"tsk_paid"}},
		{"release due", ViewOperator, []string{"3"}, "fast", "1 of 1", []string{"tsk_due"}, nil},
		{"mediations", ViewOperator, []string{"4"}, "objection", "1 of 3", []string{"tsk_rev"}, []string{"tsk_disp", "tsk_old"}},
		{"listings", ViewOperator, []string{"5"}, "malware", "1 of 2", []string{"lst_mal", "ransomware"}, []string{"personal_data"}},
		{"board", ViewOperator, []string{"6"}, "quick writer", "1 of 2", []string{"bp_rep", "Quick Writer"}, []string{"Board Writer"}},
		{"every task", ViewOperator, []string{"7"}, "released", "1 of 2", []string{"tsk_06h1r048rvy9bmwj5x25b6nr88"}, []string{"tsk_06h1r0tfx2x5ewhfaevncbap94"}},
		{"audit trail", ViewOperator, []string{"u"}, "approve", "1 of 2", []string{"approval.approve"}, []string{"task.create"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			src := newFake()
			m := loaded(t, src, c.view)
			m, cmd := press(t, m, c.keys...)
			m = settle(t, m, cmd)
			m.width, m.height = 120, 30
			all := m.Render()
			if !strings.Contains(m.Render(), "/ filter") {
				t.Errorf("the footer does not offer / :\n%s", all)
			}
			m, _ = press(t, m, "/")
			if !m.typing {
				t.Fatal("/ did not open the filter line")
			}
			m = typeText(t, m, c.query)
			s := m.Render()
			if !strings.Contains(s, "/ "+c.query+"▏  "+c.count) {
				t.Errorf("typing: the filter line lacks %q:\n%s", c.query+" "+c.count, s)
			}
			check := func(when, s string) {
				t.Helper()
				for _, w := range c.shown {
					if !strings.Contains(s, w) {
						t.Errorf("%s: %q is not shown:\n%s", when, w, s)
					}
				}
				for _, w := range c.hidden {
					if strings.Contains(s, w) {
						t.Errorf("%s: %q is shown:\n%s", when, w, s)
					}
				}
			}
			check("typing", s)
			m, _ = press(t, m, "enter")
			s = m.Render()
			if m.typing || !strings.Contains(s, "filter "+c.query+"  "+c.count) {
				t.Errorf("enter: the filter is not kept:\n%s", s)
			}
			check("kept", s)
			// A refresh keeps the filter.
			m = settle(t, m, m.load())
			check("refreshed", m.Render())
			m, _ = press(t, m, "esc")
			s = m.Render()
			if m.query != ([numLists]string{}) || strings.Contains(s, "filter "+c.query) {
				t.Errorf("esc did not clear the filter:\n%s", s)
			}
			for _, w := range c.hidden {
				if !strings.Contains(s, w) && strings.Contains(all, w) {
					t.Errorf("esc: %q is not shown again:\n%s", w, s)
				}
			}
		})
	}
}

// Keys act on the rows the filter leaves: enter opens the filtered task, c chooses the filtered
// offer, a approves the filtered item; esc on a filtered list clears the filter before it goes
// back; letters typed in the filter are text, not commands.
func TestFilterActsOnShownRows(t *testing.T) {
	src := newFake()
	m := loaded(t, src, ViewBuyer)
	m, _ = press(t, m, "/")
	m = typeText(t, m, "done")
	m, _ = press(t, m, "enter")
	m, cmd := press(t, m, "enter")
	m = settle(t, m, cmd)
	if m.open == nil || m.open.id != "tsk_done" {
		t.Fatalf("enter opened %+v, want tsk_done", m.open)
	}
	m, _ = press(t, m, "esc")
	if m.open != nil || m.query[listTasks] != "done" {
		t.Fatalf("back to the list: open %v, filter %q", m.open, m.query[listTasks])
	}

	// Offers: q and c typed in the filter are text; c then chooses the one offer left.
	m, _ = press(t, m, "esc", "g", "enter")
	m = settle(t, m, m.load())
	if m.open == nil || m.open.id != "tsk_open" {
		t.Fatalf("opened %+v, want tsk_open", m.open)
	}
	m, _ = press(t, m, "/")
	m = typeText(t, m, "quick")
	if m.quitting || m.dialog != nil || m.query[listOffers] != "quick" {
		t.Fatalf("typing: quitting %v, dialog %v, filter %q", m.quitting, m.dialog, m.query[listOffers])
	}
	m, _ = press(t, m, "backspace", "backspace", "backspace", "backspace", "backspace")
	m = typeText(t, m, "lane")
	m, _ = press(t, m, "enter", "c")
	if m.dialog == nil || m.dialog.values["offer"] != "ofr_fast" {
		t.Fatalf("c chose %+v, want ofr_fast", m.dialog)
	}
	m, _ = press(t, m, "n", "esc")
	if m.open == nil || m.query[listOffers] != "" {
		t.Fatalf("the first esc clears the offers' filter: open %v, filter %q", m.open, m.query[listOffers])
	}
	m, _ = press(t, m, "esc")
	if m.open != nil {
		t.Fatal("the second esc goes back to the list")
	}

	// The queue: the cursor moves among the rows left, and a acts on the one under it.
	m = loaded(t, newFake(), ViewOperator)
	m, _ = press(t, m, "/")
	m = typeText(t, m, "pending")
	m, _ = press(t, m, "down", "down", "enter")
	if a := m.selected(); a == nil || a.ID != "apr_due" {
		t.Fatalf("selected %+v, want apr_due", a)
	}
	m, _ = press(t, m, "a")
	if m.dialog == nil || m.dialog.target != "apr_due" {
		t.Fatalf("a opened %+v", m.dialog)
	}

	// A tab keeps its own filter while another is shown.
	m = loaded(t, newFake(), ViewOperator)
	m, _ = press(t, m, "/")
	m = typeText(t, m, "held")
	m, _ = press(t, m, "enter", "4")
	if s := m.Render(); strings.Contains(s, "filter held") || !strings.Contains(s, "tsk_rev") {
		t.Errorf("mediations show the queue's filter:\n%s", s)
	}
	m, _ = press(t, m, "1")
	if s := m.Render(); !strings.Contains(s, "filter held  1 of 4") {
		t.Errorf("the queue lost its filter:\n%s", s)
	}

	// Paste goes into the filter; ctrl+u erases it.
	m, _ = press(t, m, "/")
	m, _ = update(t, m, tea.PasteMsg{Content: " tsk_held\n"})
	if m.query[listTab] != "held tsk_held " {
		t.Errorf("paste: %q", m.query[listTab])
	}
	m, _ = press(t, m, "ctrl+u")
	if m.query[listTab] != "" || !m.typing {
		t.Errorf("ctrl+u: %q typing %v", m.query[listTab], m.typing)
	}
}

// No filter under the help or on a screen without a list: / does nothing there.
func TestFilterOnlyOnLists(t *testing.T) {
	src := newFake()
	src.op = false
	m := loaded(t, src, ViewOperator)
	m, _ = press(t, m, "/")
	if m.typing {
		t.Error("/ opened a filter on the operator view without an admin token")
	}
	m = loaded(t, newFake(), ViewBuyer)
	m, _ = press(t, m, "?", "/")
	if m.typing {
		t.Error("/ opened a filter under the help")
	}
}

// The buyer view says which member's credentials it uses.
func TestBuyerViewNamesItsMember(t *testing.T) {
	src := newFake()
	src.member = "as mem_seller (Quick Writer) from seller/credentials.json"
	m := loaded(t, src, ViewBuyer)
	m.width = 120
	if s := m.Render(); !strings.Contains(s, "Your tasks (2)") || !strings.Contains(s, "\nAs mem_seller (Quick Writer) from seller/credentials.json") ||
		!strings.Contains(s, "tsk_done") {
		t.Errorf("screen:\n%s", s)
	}
}

func TestGoldenFilterTyping(t *testing.T) {
	msgs := keys("/", "q", "u", "i", "c", "k")
	golden.RequireEqual(t, drive(t, loaded(t, newFake(), ViewOperator), 80, 24, "", msgs...))
}

func TestGoldenFilterKept(t *testing.T) {
	msgs := keys("enter", "/", "F", "A", "S", "T", "enter")
	golden.RequireEqual(t, drive(t, loaded(t, newFake(), ViewBuyer), 80, 24, "", msgs...))
}
