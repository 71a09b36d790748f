package cmdutil_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/axp-exchange/axp/cmd/cmdutil"
)

const (
	taskID  = "tsk_06h1r0tfx2x5ewhfaevncbap94"
	traceID = "01a21c034fe7453bad78e26e"
)

func table(width int, tty bool) (*cmdutil.TablePrinter, *bytes.Buffer) {
	var out bytes.Buffer
	s := &cmdutil.IOStreams{Out: &out, StdoutTTY: tty, NoColor: true, Width: width}
	tp := cmdutil.Table(s)
	tp.AddHeader([]string{"ID", "DESCRIPTION", "ENTITY", "TRACE"})
	tp.AddField(taskID)
	tp.AddField("a long description of what the buyer wants written, which is cut first")
	tp.AddField("task " + taskID)
	tp.AddField(traceID)
	tp.EndRow()
	return tp, &out
}

func TestTableKeepsIDsWhole(t *testing.T) {
	tp, out := table(120, true)
	if err := tp.Render(); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	if len(lines) != 2 || !strings.HasPrefix(lines[1], taskID+"  a long") || !strings.Contains(lines[1], "task "+taskID+"  "+traceID) ||
		!strings.Contains(lines[1], "...") || len(lines[1]) > 120 {
		t.Errorf("ids whole, the description shortened, within 120 columns:\n%s", out)
	}
}

func TestTableWrapsAroundIDsOnANarrowTerminal(t *testing.T) {
	tp, out := table(40, true)
	if err := tp.Render(); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	if lines[0] != "ID  ENTITY  TRACE" || lines[1] != "  DESCRIPTION" {
		t.Errorf("header %q: want the id columns' names, then the others' indented", lines[:2])
	}
	lines = lines[2:]
	if lines[0] != taskID+"  task "+taskID+"  "+traceID {
		t.Errorf("first line %q: want the row's ids whole", lines[0])
	}
	rest := strings.Join(lines[1:], "")
	for _, l := range lines[1:] {
		if !strings.HasPrefix(l, "  ") || len(l) > 40 {
			t.Errorf("line %q: want the rest indented and within 40 columns", l)
		}
	}
	if !strings.Contains(strings.ReplaceAll(rest, "  ", ""), "which is cut first") {
		t.Errorf("the description is wrapped, not cut:\n%s", out)
	}
}

func TestTablePipedIsTabSeparated(t *testing.T) {
	tp, out := table(20, false)
	if err := tp.Render(); err != nil {
		t.Fatal(err)
	}
	want := taskID + "\ta long description of what the buyer wants written, which is cut first\ttask " + taskID + "\t" + traceID + "\n"
	if out.String() != want {
		t.Errorf("piped: %q, want %q", out, want)
	}
}
