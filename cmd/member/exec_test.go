package member

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/axp-exchange/axp"
	"github.com/axp-exchange/axp/cmd/cmdutil"
	"github.com/axp-exchange/axp/memberkit"
	"github.com/axp-exchange/axp/protocol"
)

func TestDetectMime(t *testing.T) {
	cases := []struct{ in, want string }{
		{"hello world\n", "text/plain; charset=utf-8"},
		{`{"a": 1}`, "application/json"},
		{"[1, 2, 3]\n", "application/json"},
		{"{not json", "text/plain; charset=utf-8"},
		{"# Title\n\nSome text.\n", "text/markdown; charset=utf-8"},
		{"Intro\n\n- one\n- two [link](x)\n", "text/markdown; charset=utf-8"},
		{"```go\nx := 1\n```\n", "text/markdown; charset=utf-8"},
		{"- just one item\n", "text/plain; charset=utf-8"},
		{"<!DOCTYPE html><html><body>x</body></html>", "text/html; charset=utf-8"},
		{"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR", "image/png"},
		{"%PDF-1.7\n", "application/pdf"},
	}
	for _, c := range cases {
		if got := detectMime([]byte(c.in)); got != c.want {
			t.Errorf("detectMime(%q) = %q, want %q", c.in, got, c.want)
		}
	}
	job := &memberkit.Job{DoTaskInput: protocol.DoTaskInput{Params: map[string]any{}}}
	for mt, want := range map[string]string{"application/json": "output.json", "text/markdown; charset=utf-8": "output.md",
		"text/plain; charset=utf-8": "output.txt", "image/png": "output.png", "application/x-nothing": "output"} {
		if got := filename(job, mt); got != want {
			t.Errorf("filename(%s) = %s, want %s", mt, got, want)
		}
	}
	job.Params["filename"] = "poem.txt"
	if got := filename(job, "application/json"); got != "poem.txt" {
		t.Errorf("the task's filename param is not used: %s", got)
	}
}

func TestExecWork(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("shell commands")
	}
	job := &memberkit.Job{DoTaskInput: protocol.DoTaskInput{TaskID: "tsk_9", TaskType: "text-file", Params: map[string]any{"prompt": "hi"}, Test: true}}
	ctx := context.Background()
	var stderr strings.Builder

	// The job arrives as JSON on stdin, with the task in the environment; stdout is delivered.
	d, err := execWork(`cat; printf '\n%s %s %s' "$AXP_TASK_ID" "$AXP_TASK_TYPE" "$AXP_TEST"`, os.Environ(), &stderr)(ctx, job)
	if err != nil {
		t.Fatal(err)
	}
	head, tail, _ := strings.Cut(d.Content, "\n")
	var in protocol.DoTaskInput
	if err := json.Unmarshal([]byte(head), &in); err != nil || in.TaskID != "tsk_9" || in.Params["prompt"] != "hi" {
		t.Fatalf("stdin was %q (%v)", head, err)
	}
	if tail != "tsk_9 text-file 1" {
		t.Fatalf("environment: %q", tail)
	}

	d, err = execWork(`echo '{"ok": true}'`, nil, &stderr)(ctx, job)
	if err != nil || d.MimeType != "application/json" || d.Filename != "output.json" {
		t.Fatalf("json output: %v %+v", err, d)
	}

	_, err = execWork(`echo working; echo 'model unavailable' >&2; exit 4`, nil, &stderr)(ctx, job)
	if err == nil || !strings.Contains(err.Error(), "exit status 4") || !strings.Contains(err.Error(), "model unavailable") {
		t.Fatalf("failing command: %v", err)
	}
	if !strings.Contains(stderr.String(), "model unavailable") {
		t.Fatalf("the command's stderr is not passed on: %q", stderr.String())
	}
	if _, err = execWork(`true`, nil, &stderr)(ctx, job); err == nil || !strings.Contains(err.Error(), "nothing on stdout") {
		t.Fatalf("silent command: %v", err)
	}
	big := filepath.Join(t.TempDir(), "big")
	os.WriteFile(big, []byte(strings.Repeat("x", protocol.MaxInlineDeliverable+1)), 0o644)
	if _, err = execWork(`cat `+big, nil, &stderr)(ctx, job); err == nil || !strings.Contains(err.Error(), "256 KB") {
		t.Fatalf("oversized output: %v", err)
	}
	exact := filepath.Join(t.TempDir(), "exact")
	os.WriteFile(exact, []byte(strings.Repeat("x", protocol.MaxInlineDeliverable)), 0o644)
	if d, err = execWork(`cat `+exact, nil, &stderr)(ctx, job); err != nil || len(d.Content) != protocol.MaxInlineDeliverable {
		t.Fatalf("256 KB exactly: %v %d", err, len(d.Content))
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if _, err = execWork(`sleep 10`, nil, &stderr)(cctx, job); err == nil || !strings.Contains(err.Error(), "in time") {
		t.Fatalf("cancelled command: %v", err)
	}
}

func TestLoadSkills(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		os.WriteFile(p, []byte(text), 0o644)
		return p
	}
	yaml := write("s.yaml", "- task_type: text-file\n  min_price_usd: 0.5\n  typical_eta_minutes: 10\n- task_type: image\n  instant_price_usd: 1.25\n  instant_eta_minutes: 3\n  guarantee: {free_redo: 2}\n")
	skills, err := loadSkills(yaml, false)
	if err != nil {
		t.Fatal(err)
	}
	if len(skills) != 2 || skills[0].MinPriceUSD.String() != "0.5" || !skills[1].Instant() || skills[1].InstantPriceUSD.String() != "1.25" || skills[1].Guarantee.FreeRedo != 2 {
		t.Fatalf("skills %+v", skills)
	}
	if u := unpriced(skills); len(u) != 0 {
		t.Fatalf("unpriced %v", u)
	}
	wrapped := write("w.yml", "skills:\n  - task_type: video\n")
	if skills, err = loadSkills(wrapped, false); err != nil || len(skills) != 1 || unpriced(skills)[0] != "video has no min_price_usd and no typical_eta_minutes" {
		t.Fatalf("wrapped list: %v %+v %q", err, skills, unpriced(skills))
	}
	// The warning names what is missing, not that there is no price when there is one.
	half := write("h.yaml", "- task_type: video\n  min_price_usd: 2\n")
	if skills, err = loadSkills(half, false); err != nil || len(unpriced(skills)) != 1 || unpriced(skills)[0] != "video has no typical_eta_minutes" {
		t.Fatalf("price without an ETA: %v %q", err, unpriced(skills))
	}
	js := write("s.json", `[{"task_type": "text-file", "instant_price_usd": 0.2, "instant_eta_minutes": 1}]`)
	if skills, err = loadSkills(js, false); err != nil || skills[0].InstantPriceUSD.String() != "0.2" {
		t.Fatalf("json: %v %+v", err, skills)
	}
	bad := []struct{ text, field, says string }{
		{"- task_type: text-file\n  min_price: 1\n", "skills[0].min_price", "not a known field"},
		{"- task_type: Text File\n", "skills[0].task_type", "not a task type"},
		{"- task_type: text-file\n  min_price_usd: 0.123\n", "skills[0].min_price_usd", "decimals"},
		{"- task_type: a1\n- task_type: a1\n", "skills[1].task_type", "twice"},
		{"- task_type: a1\n  instant_price_usd: 1\n", "skills[0].instant_eta_minutes", "required"},
		{"- task_type: a1\n  instant_price_usd: 0\n  instant_eta_minutes: 1\n", "skills[0].instant_price_usd", "free"},
		{"task_type: a1\n", "skills", "list of skills"},
	}
	for _, b := range bad {
		_, err := loadSkills(write("bad.yaml", b.text), false)
		var e *axp.Error
		if !errors.As(err, &e) || e.Field != b.field || !strings.Contains(err.Error(), b.says) {
			t.Errorf("%q: want %s (%s), got %v", b.text, b.field, b.says, err)
		}
	}
	if _, err := loadSkills(write("x.yaml", "- [unclosed\n"), false); err == nil || !strings.Contains(err.Error(), "not YAML") {
		t.Errorf("broken YAML: %v", err)
	}
	if _, err := loadSkills(filepath.Join(dir, "missing.yaml"), false); err == nil {
		t.Error("a missing file was read")
	}
}

// A person running `axp member serve` reads a line on stderr for each dispute, message,
// settlement, decision and payout; test events and plain progress print nothing.
func TestUpdateLines(t *testing.T) {
	var errw strings.Builder
	p := &logParty{out: &lines{w: io.Discard}, errw: &errw}
	for _, in := range []protocol.TaskUpdateInput{
		{TaskID: "tsk_1", Status: "disputed"},
		{TaskID: "tsk_1", Status: "disputed", Event: "message", Data: map[string]any{"from": "buyer", "body": "where\nis it?"}},
		{TaskID: "tsk_1", Status: "disputed", Event: "settlement_proposed", Data: map[string]any{"proposed_by": "buyer", "refund_pct": 40}},
		{TaskID: "tsk_1", Status: "disputed", Event: "mediation_decided", Data: map[string]any{"mediation_id": "med_1", "by": "mediator", "outcome": "split", "refund_pct": 30}},
		{TaskID: "tsk_1", Status: "released"},
		{TaskID: "tsk_1", Status: "in_progress"},
		{TaskID: "tsk_2", Status: "released", Test: true},
	} {
		if err := p.TaskUpdate(context.Background(), in); err != nil {
			t.Fatal(err)
		}
	}
	want := `task tsk_1 is disputed by the buyer (talk: axp task messages tsk_1; settle: axp task settle tsk_1 --refund-pct N)
message from the buyer on task tsk_1: where is it? (answer: axp task message tsk_1 --body TEXT)
the buyer proposes a settlement on task tsk_1: refund 40% (answer: axp task settlement tsk_1 --accept or --reject)
mediation med_1 on task tsk_1 decided by the mediator: split (refund 30%); appeal within the window: axp task appeal tsk_1 --reason TEXT
task tsk_1 released: the payout was sent
`
	if errw.String() != want {
		t.Errorf("stderr:\n%s\nwant:\n%s", errw.String(), want)
	}
}

// A mediation request: without --statement-cmd the neutral default is sent and the log says so;
// with it, the command's text or JSON is the statement; a failing command sends nothing and says
// how to answer by hand.
func TestStatementCmd(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("shell commands")
	}
	in := protocol.MediationInput{MediationID: "med_1", Kind: "dispute", TaskID: "tsk_1", YourRole: "seller", OpenedBy: "buyer", Reason: "two lines, not four"}
	ask := func(cmd string) (protocol.MediationOutput, string, error) {
		var errw strings.Builder
		p := &logParty{out: &lines{w: io.Discard}, errw: &errw, statementCmd: cmd}
		out, err := p.Mediation(context.Background(), in)
		return out, errw.String(), err
	}
	out, log, err := ask("")
	if err != nil || out.Statement != memberkit.NeutralStatement ||
		log != "mediation med_1 on task tsk_1 (dispute opened by the buyer: two lines, not four): sent the default neutral statement (write your own with --statement-cmd CMD)\n" {
		t.Errorf("default: %v %+v %q", err, out, log)
	}
	out, log, err = ask(`grep -q '"mediation_id":"med_1"' && echo "The brief asked for $AXP_TASK_ID lines."`)
	if err != nil || out.Statement != "The brief asked for tsk_1 lines." || !strings.Contains(log, "sent the statement of --statement-cmd") {
		t.Errorf("text: %v %+v %q", err, out, log)
	}
	out, _, err = ask(`echo '{"statement":"Half was done.","proposed_refund_pct":50}'`)
	if err != nil || out.Statement != "Half was done." || out.ProposedRefundPct == nil || *out.ProposedRefundPct != 50 {
		t.Errorf("JSON: %v %+v", err, out)
	}
	_, log, err = ask(`echo nope >&2; exit 3`)
	if err == nil || !strings.Contains(log, "no statement sent: --statement-cmd failed (exit status 3): nope; write it with: axp task statement tsk_1 --body TEXT") {
		t.Errorf("failing command: %v %q", err, log)
	}
}

// --exec is checked before the member starts: a program that is missing or cannot be run is
// refused; shell words and the shell's own syntax are left to the shell.
func TestCheckExec(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("shell commands")
	}
	dir := t.TempDir()
	script := filepath.Join(dir, "do-job")
	os.WriteFile(script, []byte("#!/bin/sh\ncat\n"), 0o644)
	for cmd, want := range map[string]string{
		"":                         "--exec is empty",
		"./nowhere/do-job":         "./nowhere/do-job does not exist",
		script + " --fast":         script + " is not executable (chmod +x " + script,
		dir:                        dir + " is a directory",
		"no-such-program-axp-test": "there is no program no-such-program-axp-test on PATH",
	} {
		err := checkExec(cmd)
		if cmdutil.ExitStatus(err) != cmdutil.ExitUsage || !strings.Contains(err.Error(), want) {
			t.Errorf("checkExec(%q) = %v, want %q", cmd, err, want)
		}
	}
	os.Chmod(script, 0o755)
	for _, ok := range []string{script, "cat", "echo hi", "cd /tmp && ./x", "FOO=1 ./x", "'./my job'", "sh -c 'exit 0'"} {
		if err := checkExec(ok); err != nil {
			t.Errorf("checkExec(%q): %v", ok, err)
		}
	}
}
