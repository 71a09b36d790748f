package tui

import (
	"bytes"
	"strconv"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/exp/golden"
	"github.com/charmbracelet/x/exp/teatest/v2"

	"github.com/axp-exchange/axp"
)

// Golden screens: a real Bubble Tea program (teatest) is driven with keys over the fake source;
// the final model's screen is compared with testdata/<test>.golden. Regenerate with
// `go test ./tui -run Golden -update` and review the diff.

// drive runs m in a test program of w x h, sends msgs, quits and returns the final screen.
func drive(t *testing.T, m Model, w, h int, wait string, msgs ...tea.Msg) []byte {
	t.Helper()
	tm := teatest.NewTestModel(t, m, teatest.WithInitialTermSize(w, h))
	for _, msg := range msgs {
		tm.Send(msg)
	}
	if wait != "" {
		teatest.WaitFor(t, tm.Output(), func(b []byte) bool { return bytes.Contains(b, []byte(wait)) },
			teatest.WithDuration(10*time.Second), teatest.WithCheckInterval(5*time.Millisecond))
	}
	if err := tm.Quit(); err != nil {
		t.Fatal(err)
	}
	fm := tm.FinalModel(t, teatest.WithFinalTimeout(10*time.Second)).(Model)
	return []byte(fm.Render())
}

func keys(ks ...string) []tea.Msg {
	out := make([]tea.Msg, len(ks))
	for i, k := range ks {
		out[i] = key(k)
	}
	return out
}

func TestGoldenBuyerList(t *testing.T) {
	golden.RequireEqual(t, drive(t, loaded(t, newFake(), ViewBuyer), 80, 24, ""))
}

func TestGoldenBuyerTask(t *testing.T) {
	golden.RequireEqual(t, drive(t, loaded(t, newFake(), ViewBuyer), 80, 24, "", keys("enter", "down")...))
}

func TestGoldenBuyerPreview(t *testing.T) {
	golden.RequireEqual(t, drive(t, loaded(t, newFake(), ViewBuyer), 80, 24, "32 bytes, SHA-256 verified", keys("down", "enter", "p")...))
}

func TestGoldenChooseConfirm(t *testing.T) {
	golden.RequireEqual(t, drive(t, loaded(t, newFake(), ViewBuyer), 80, 24, "", keys("enter", "c")...))
}

func TestGoldenOperatorQueue(t *testing.T) {
	golden.RequireEqual(t, drive(t, loaded(t, newFake(), ViewOperator), 80, 24, "", keys("down")...))
}

func TestGoldenOperatorApproveTx(t *testing.T) {
	msgs := append(keys("down", "a"), tea.PasteMsg{Content: "0x" + repeat("cd", 32)})
	msgs = append(msgs, keys("enter")...)
	golden.RequireEqual(t, drive(t, loaded(t, newFake(), ViewOperator), 80, 24, "", msgs...))
}

func TestGoldenOperatorSmall(t *testing.T) {
	golden.RequireEqual(t, drive(t, loaded(t, newFake(), ViewOperator), 60, 15, "", keys("right")...))
}

func TestGoldenOperatorColour(t *testing.T) {
	m := New(Options{Source: newFake(), View: ViewOperator, Refresh: -1, Now: func() time.Time { return now }})
	m = settle(t, m, m.Init())
	golden.RequireEqual(t, drive(t, m, 80, 24, ""))
}

func TestGoldenOperatorMediations(t *testing.T) {
	golden.RequireEqual(t, drive(t, loaded(t, newFake(), ViewOperator), 80, 24, "", keys("4")...))
}

func TestGoldenOperatorDecide(t *testing.T) {
	msgs := append(keys("4", "d"), tea.PasteMsg{Content: "30"})
	msgs = append(msgs, key("enter"), tea.PasteMsg{Content: "Two lines answer the brief only in part."}, key("enter"))
	golden.RequireEqual(t, drive(t, loaded(t, newFake(), ViewOperator), 80, 24, "", msgs...))
}

func TestGoldenOperatorListings(t *testing.T) {
	golden.RequireEqual(t, drive(t, loaded(t, newFake(), ViewOperator), 80, 24, "", keys("5")...))
}

func TestGoldenOperatorBoard(t *testing.T) {
	golden.RequireEqual(t, drive(t, loaded(t, newFake(), ViewOperator), 80, 24, "", keys("6")...))
}

func TestGoldenOperatorBoardHide(t *testing.T) {
	msgs := append(keys("6", "down", "x"), tea.PasteMsg{Content: "Impersonates the operator."}, key("enter"))
	golden.RequireEqual(t, drive(t, loaded(t, newFake(), ViewOperator), 80, 24, "", msgs...))
}

// The program draws on its output and quits on q.
func TestProgramQuitsOnQ(t *testing.T) {
	tm := teatest.NewTestModel(t, newModel(newFake(), ViewOperator), teatest.WithInitialTermSize(80, 24))
	teatest.WaitFor(t, tm.Output(), func(b []byte) bool { return bytes.Contains(b, []byte("Payments 1")) },
		teatest.WithDuration(10*time.Second), teatest.WithCheckInterval(5*time.Millisecond))
	tm.Send(key("q"))
	fm := tm.FinalModel(t, teatest.WithFinalTimeout(10*time.Second)).(Model)
	if !fm.quitting {
		t.Error("q did not quit")
	}
}

func TestGoldenBuyerMessages(t *testing.T) {
	golden.RequireEqual(t, drive(t, loaded(t, newFake().withDisputed(), ViewBuyer), 80, 24, "Messages (2)", keys("down", "down", "enter", "m")...))
}

func TestGoldenBuyerTaskWide(t *testing.T) {
	golden.RequireEqual(t, drive(t, loaded(t, newFake(), ViewBuyer), 160, 24, "", keys("enter", "down")...))
}

func TestGoldenOperatorQueueWide(t *testing.T) {
	golden.RequireEqual(t, drive(t, loaded(t, newFake(), ViewOperator), 160, 24, "", keys("down")...))
}

// At 80 and 160 columns every line fits the width, badges are never cut, and a held item says
// in the list why it is held.
func TestColumnsFit(t *testing.T) {
	for _, w := range []int{80, 160} {
		screens := map[string][]byte{
			"offers": drive(t, loaded(t, newFake(), ViewBuyer), w, 24, "", keys("enter")...),
			"queue":  drive(t, loaded(t, newFake(), ViewOperator), w, 24, ""),
		}
		for name, s := range screens {
			for i, l := range strings.Split(strings.TrimRight(string(s), "\n"), "\n") {
				if lw := lipgloss.Width(l); lw != w {
					t.Errorf("%d columns, %s: line %d is %d cells wide: %q", w, name, i, lw, l)
				}
			}
		}
		if !bytes.Contains(screens["offers"], []byte("reliable, first-pass pro")) {
			t.Errorf("%d columns: the badges are cut:\n%s", w, screens["offers"])
		}
		if !bytes.Contains(screens["queue"], []byte("held: waiting for a pay")) {
			t.Errorf("%d columns: the held item does not say why:\n%s", w, screens["queue"])
		}
	}
}

// In test mode the header says money is not real, on every screen.
func TestTestModeHeader(t *testing.T) {
	m := loaded(t, newFake(), ViewOperator)
	m.opts.TestMode = true
	screen := string(drive(t, m, 100, 24, ""))
	head, _, _ := strings.Cut(screen, "\n")
	if !strings.Contains(head, "TEST MODE: money is not real") || !strings.Contains(head, "axp") {
		t.Fatalf("header in test mode: %q", head)
	}
	m.opts.TestMode = false
	if screen := string(drive(t, m, 100, 24, "")); strings.Contains(screen, "TEST MODE") {
		t.Fatalf("the header says test mode off it:\n%s", screen)
	}
}

// Ids are never cut, at any width: each id column takes the width of its ids (no blank columns
// after it on a wide terminal), and narrower terminals drop other columns first.
func TestIDsNeverCut(t *testing.T) {
	const taskID, taskID2 = "tsk_06h1r0tfx2x5ewhfaevncbap94", "tsk_06h1r048rvy9bmwj5x25b6nr88"
	src := newFake()
	src.tasks[0].ID, src.tasks[1].ID = taskID, taskID2
	const approvalID = "apr_06h29zb63e1qcakgwd6xq375nm"
	for i := range src.approvals {
		src.approvals[i].TaskID = taskID2
	}
	src.approvals[0].ID = approvalID
	for i := range src.meds {
		src.meds[i].TaskID = taskID
	}
	for _, w := range []int{60, 80, 120, 200} {
		screens := map[string]string{
			"tasks": string(drive(t, loaded(t, src, ViewBuyer), w, 24, "")),
			"queue": string(drive(t, loaded(t, src, ViewOperator), w, 24, "")),
			"meds":  string(drive(t, loaded(t, src, ViewOperator), w, 24, "", keys("4")...)),
			"all":   string(drive(t, loaded(t, src, ViewOperator), w, 24, "", keys("7")...)),
			"audit": string(drive(t, loaded(t, src, ViewOperator), w, 24, "task.create", keys("u")...)),
		}
		wants := map[string][]string{"tasks": {taskID, taskID2}, "queue": {taskID2, approvalID}, "meds": {taskID}, "all": {taskID, taskID2},
			"audit": {"apr_06h1r0t2rmkee4k7gxnksxzp3w", taskID}}
		for name, s := range screens {
			for _, id := range wants[name] {
				if !strings.Contains(s, id) {
					t.Errorf("%d columns, %s: id %s is cut:\n%s", w, name, id, s)
				}
			}
			for i, l := range strings.Split(s, "\n") {
				if lw := lipgloss.Width(l); lw != w {
					t.Errorf("%d columns, %s: line %d is %d cells wide: %q", w, name, i, lw, l)
				}
			}
		}
		// The selected item's detail names its task whole.
		if w >= 80 && !strings.Contains(screens["queue"], taskID2+" (text-file)") {
			t.Errorf("%d columns: the detail cuts the task id:\n%s", w, screens["queue"])
		}
		// The ID column is as wide as the ids.
		if want := "  ID" + strings.Repeat(" ", len(taskID)-1) + "TYPE"; !strings.Contains(screens["tasks"], want) && w >= 80 {
			t.Errorf("%d columns: the ID column is not the ids' width:\n%s", w, screens["tasks"])
		}
	}
}

// No view shows Go's map[...] or <nil>: nested and absent values read as words.
func TestNoGoValuesOnScreen(t *testing.T) {
	src := newFake()
	src.audit = append(src.audit, axp.AuditRecord{ID: "aud_3", Time: now.Add(-2 * time.Hour), Actor: "rail:evm", Action: "approval.send",
		EntityType: "approval", EntityID: "apr_out", Details: map[string]any{"amount_usd": 2.475, "from": nil,
			"checks": map[string]any{"min_lines": true}, "tx_hashes": []any{"0xaa", "0xbb"}}})
	screens := []string{
		string(drive(t, loaded(t, src, ViewOperator), 160, 24, "approval.send", keys("u")...)),
		string(drive(t, loaded(t, src, ViewBuyer), 160, 24, "", keys("enter")...)),
	}
	for i := range numTabs {
		screens = append(screens, string(drive(t, loaded(t, src, ViewOperator), 160, 24, "", keys(strconv.Itoa(i+1))...)))
	}
	for _, s := range screens {
		if strings.Contains(s, "map[") || strings.Contains(s, "<nil>") {
			t.Errorf("a Go value on the screen:\n%s", s)
		}
	}
	if !strings.Contains(screens[0], "amount_usd=2.475 checks.min_lines=true tx_hashes=0xaa,0xbb") {
		t.Errorf("the audit details are not in words:\n%s", screens[0])
	}
}

// The banner of test mode fits in 60 columns, the exchange's URL giving way first.
func TestTestModeBannerNarrow(t *testing.T) {
	m := loaded(t, newFake(), ViewOperator)
	m.opts.TestMode = true
	for _, w := range []int{60, 52} {
		head, _, _ := strings.Cut(string(drive(t, m, w, 24, "")), "\n")
		if !strings.Contains(head, "TEST MODE: money is not real") || lipgloss.Width(head) != w {
			t.Errorf("%d columns: header %q", w, head)
		}
	}
}
