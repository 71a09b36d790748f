package admin_test

import (
	"context"
	"encoding/json"
	"errors"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/axp-exchange/axp"
	"github.com/axp-exchange/axp/client"
	"github.com/axp-exchange/axp/cmd"
	"github.com/axp-exchange/axp/cmd/admin"
	"github.com/axp-exchange/axp/cmd/cmdtest"
	"github.com/axp-exchange/axp/cmd/cmdtest/inproc"
	"github.com/axp-exchange/axp/cmd/cmdutil"
	"github.com/spf13/cobra"
)

type env struct {
	t *testing.T
	x *inproc.Exchange
	f *cmdutil.Factory
	s *cmdtest.Streams
}

// newEnv is an exchange and a factory with its admin token in the environment.
func newEnv(t *testing.T) *env {
	t.Helper()
	x := inproc.NewExchange(t)
	f, s := cmdtest.Factory(t, x.URL, map[string]string{"AXP_ADMIN_TOKEN": cmdtest.AdminToken})
	return &env{t: t, x: x, f: f, s: s}
}

func (e *env) run(c *cobra.Command, args ...string) error {
	e.s.Reset()
	return cmdtest.Exec(c, args...)
}

func (e *env) must(c *cobra.Command, args ...string) string {
	e.t.Helper()
	if err := e.run(c, args...); err != nil {
		e.t.Fatalf("%s %v: %v\nstderr: %s", c.Name(), args, err, e.s.ErrOut)
	}
	return e.s.Out.String()
}

// reported posts a task, chooses the seller's offer and reports a payment; it returns the task id
// and its buyer token.
func (e *env) reported(seller string) (taskID, token string) {
	e.t.Helper()
	var created axp.CreatedTask
	e.x.Call(e.x.Anon, "create_task", map[string]any{"type": "text-file", "params": map[string]any{"prompt": "x"}}, &created)
	b := e.x.Anon.With(created.BuyerToken)
	var offer string
	for _, o := range created.Offers {
		if o.Seller.Name == seller {
			offer = o.OfferID
		}
	}
	e.x.Call(b, "choose_offer", map[string]any{"id": created.ID, "offer_id": offer}, nil)
	e.x.Call(b, "pay_crypto", map[string]any{"id": created.ID, "tx_hash": cmdtest.TxHash()}, nil)
	return created.ID, created.BuyerToken
}

// payoutQueued runs a task of a new seller, Quick Writer at US$2.50 with a payout address, to its
// payout item: payment confirmed by the operator, delivered, accepted, payment requested. It
// returns the task id, the seller's client and the payout item's id.
func (e *env) payoutQueued() (taskID string, seller *client.Client, payout string) {
	e.t.Helper()
	m := e.x.MustSeller(cmdtest.SellerSpec{Name: "Quick Writer", TaskType: "text-file", Price: "2.50", ETA: 10, Payout: cmdtest.PayoutAddress})
	id, token := e.reported("Quick Writer")
	e.must(admin.NewCmdPaymentsConfirm(e.f, nil), "--yes", id)
	sc := e.x.Anon.With(m.MemberSecret)
	buyer := e.x.Anon.With(token)
	e.x.Call(sc, "deliver", map[string]any{"id": id, "content": "done"}, nil)
	e.x.Call(buyer, "get_deliverable", map[string]any{"id": id}, new([]byte))
	e.x.Call(buyer, "accept_task", map[string]any{"id": id}, nil)
	e.x.Call(sc, "request_payment", map[string]any{"id": id}, nil)
	return id, sc, strings.TrimSpace(e.must(admin.NewCmdApprovalsList(e.f, nil), "--kind", "payout", "--jq", ".approvals[0].approval_id"))
}

func TestFlags(t *testing.T) {
	f, _ := cmdtest.Factory(t, "http://127.0.0.1:1", nil)
	var l *admin.ApprovalsListOptions
	if err := cmdtest.Exec(admin.NewCmdApprovalsList(f, func(_ context.Context, o *admin.ApprovalsListOptions) error { l = o; return nil }),
		"--status", "all", "--kind", "payout", "--task", "tsk_1", "--json"); err != nil {
		t.Fatal(err)
	}
	if l.Status != "all" || l.Kind != "payout" || l.TaskID != "tsk_1" || !l.Export.JSON {
		t.Errorf("list options %+v", l)
	}
	var a *admin.ApproveOptions
	tx := "0x" + strings.Repeat("0f", 32)
	if err := cmdtest.Exec(admin.NewCmdApprove(f, func(_ context.Context, o *admin.ApproveOptions) error { a = o; return nil }),
		"apr_1", "--tx", tx, "--note", "sent"); err != nil {
		t.Fatal(err)
	}
	if a.ID != "apr_1" || a.TxHash != tx || a.Note != "sent" {
		t.Errorf("approve options %+v", a)
	}
	var wo *admin.WriteOffOptions
	if err := cmdtest.Exec(admin.NewCmdWriteOff(f, func(_ context.Context, o *admin.WriteOffOptions) error { wo = o; return nil }),
		tx, "--note", "never came back", "--yes", "--json"); err != nil {
		t.Fatal(err)
	}
	if wo.TxHash != tx || wo.Note != "never came back" || !wo.Yes || !wo.Export.JSON {
		t.Errorf("write-off options %+v", wo)
	}
	var an *admin.AnnounceOptions
	if err := cmdtest.Exec(admin.NewCmdAnnounce(f, func(_ context.Context, o *admin.AnnounceOptions) error { an = o; return nil }),
		"--title", "T", "--body", "B", "--member", "mem_a,mem_b", "--member", "mem_c"); err != nil {
		t.Fatal(err)
	}
	if an.Severity != "info" || len(an.MemberIDs) != 3 {
		t.Errorf("announce options %+v", an)
	}
	var lg *admin.LogOptions
	if err := cmdtest.Exec(admin.NewCmdLog(f, func(_ context.Context, o *admin.LogOptions) error { lg = o; return nil }),
		"--level", "warn", "--source", "http", "-L", "7"); err != nil {
		t.Fatal(err)
	}
	if lg.Level != "warn" || lg.Source != "http" || lg.Limit != 7 {
		t.Errorf("log options %+v", lg)
	}
	var su *admin.SuspendOptions
	if err := cmdtest.Exec(admin.NewCmdSuspend(f, func(_ context.Context, o *admin.SuspendOptions) error { su = o; return nil }, false),
		"mem_x", "--reason", "fixed"); err != nil {
		t.Fatal(err)
	}
	if su.Suspend || su.ID != "mem_x" || su.Reason != "fixed" {
		t.Errorf("unsuspend options %+v", su)
	}
	for _, tt := range []struct {
		c    *cobra.Command
		args []string
		want string
	}{
		{admin.NewCmdApprovalsList(f, nil), []string{"--kind", "tip"}, `--kind "tip"`},
		{admin.NewCmdApprove(f, nil), []string{"apr_1", "--tx", "0x1"}, "0x followed by 64 hex digits"},
		{admin.NewCmdReject(f, nil), []string{"apr_1"}, "--reason is required"},
		{admin.NewCmdWriteOff(f, nil), []string{tx}, "--note is required"},
		{admin.NewCmdWriteOff(f, nil), []string{"0x1", "--note", "n"}, "0x followed by 64 hex digits"},
		{admin.NewCmdAnnounce(f, nil), []string{"--title", "T", "--body", "B", "--audience", "everyone"}, `--audience "everyone"`},
		{admin.NewCmdMembersList(f, nil), []string{"--state", "asleep"}, `--state "asleep"`},
		{admin.NewCmdMetrics(f, nil), []string{"--hours", "9999"}, "--hours must be 1 to 2160"},
	} {
		err := cmdtest.Exec(tt.c, tt.args...)
		if err == nil || !strings.Contains(err.Error(), tt.want) || cmdutil.ExitStatus(err) != cmdutil.ExitUsage {
			t.Errorf("%s %v: %v, want usage error %q", tt.c.Name(), tt.args, err, tt.want)
		}
	}
}

func TestApprovalQueue(t *testing.T) {
	e := newEnv(t)
	e.x.MustSeller(cmdtest.SellerSpec{Name: "Quick Writer", TaskType: "text-file", Price: "2.50", ETA: 10, Payout: cmdtest.PayoutAddress})
	if out := e.must(admin.NewCmdApprovalsList(e.f, nil)); out != "" || e.s.ErrOut.String() != "The queue is empty\n" {
		t.Errorf("empty queue: %q %q", out, e.s.ErrOut)
	}
	id, _ := e.reported("Quick Writer")

	out := e.must(admin.NewCmdApprovalsList(e.f, nil))
	if !regexp.MustCompile(`^apr_\S+\tpayment\tpending_approval\t` + id + `\t2\.49\d+\tanonymous → Quick Writer\t\d+\t\n$`).MatchString(out) {
		t.Errorf("list:\n%q", out)
	}
	if got, want := e.must(admin.NewCmdApprovalsList(e.f, nil), "--task", id, "--json"), e.x.Raw(e.x.Admin, "admin_approvals", map[string]any{"task_id": id}); got != want {
		t.Errorf("--json\n got %s\nwant %s", got, want)
	}
	e.f.IO.StdoutTTY, e.f.IO.NoColor = true, true
	out = e.must(admin.NewCmdApprovalsList(e.f, nil))
	for _, want := range []string{"ID", "KIND", "AMOUNT", "PARTIES", "AGE", "payment", "0s"} {
		if !strings.Contains(out, want) {
			t.Errorf("terminal list lacks %q:\n%s", want, out)
		}
	}
	e.f.IO.StdoutTTY = false

	// Confirm by task; a second confirmation finds nothing.
	e.must(admin.NewCmdPaymentsConfirm(e.f, nil), "--yes", id, "--note", "seen")
	if !strings.HasPrefix(e.s.ErrOut.String(), "✓ Approved payment apr_") {
		t.Errorf("confirm: %q", e.s.ErrOut)
	}
	err := e.run(admin.NewCmdPaymentsConfirm(e.f, nil), "--yes", id)
	var ae *axp.Error
	if !errors.As(err, &ae) || ae.Code != axp.CodeNotFound || !strings.Contains(ae.Hint, "axp task pay") {
		t.Errorf("second confirm: %v", err)
	}

	if err := e.run(admin.NewCmdApprovalsList(e.f, nil), "--status", "approved", "--jq", ".approvals[0].note"); err != nil || e.s.Out.String() != "seen\n" {
		t.Errorf("approved note: %v %q", err, e.s.Out)
	}
}

func TestPayoutRejectAndApprove(t *testing.T) {
	e := newEnv(t)
	id, sc, payout := e.payoutQueued()

	err := e.run(admin.NewCmdApprove(e.f, nil), "--yes", payout)
	var ae *axp.Error
	if !errors.As(err, &ae) || ae.Field != "tx_hash" || !strings.Contains(ae.Hint, "--tx") {
		t.Errorf("payout without tx: %v", err)
	}
	e.must(admin.NewCmdReject(e.f, nil), "--yes", payout, "--reason", "wrong amount")
	if e.s.ErrOut.String() != "✓ Rejected payout "+payout+" of task "+id+"\n" {
		t.Errorf("reject: %q", e.s.ErrOut)
	}
	if err := e.run(admin.NewCmdReject(e.f, nil), "--yes", payout, "--reason", "again"); cmdutil.ExitStatus(err) != cmdutil.ExitConflict {
		t.Errorf("second reject: %v", err)
	}
	e.x.Call(sc, "request_payment", map[string]any{"id": id}, nil)
	payout = strings.TrimSpace(e.must(admin.NewCmdApprovalsList(e.f, nil), "--kind", "payout", "--jq", ".approvals[0].approval_id"))
	out := e.must(admin.NewCmdApprove(e.f, nil), "--yes", payout, "--tx", cmdtest.TxHash(), "--json")
	var a axp.Approval
	if err := json.Unmarshal([]byte(out), &a); err != nil || a.Status != axp.ApprovalApproved || a.TxHash == "" {
		t.Fatalf("approve --json: %v %s", err, out)
	}
	if out := e.must(admin.NewCmdStats(e.f, nil)); !strings.Contains(out, "tasks:\treleased 1\n") || !strings.Contains(out, "payouts_sent:\t2.475\n") {
		t.Errorf("stats:\n%s", out)
	}
}

func TestMembersAnnounceAndObservability(t *testing.T) {
	e := newEnv(t)
	s := e.x.MustSeller(cmdtest.SellerSpec{Name: "Quick Writer", TaskType: "text-file", Price: "2.50", ETA: 10})
	out := e.must(admin.NewCmdMembersList(e.f, nil), "--role", "seller")
	if !regexp.MustCompile(`^` + s.MemberID + `\tQuick Writer\tseller\tverified\tpull\ttext-file\t\d{4}-`).MatchString(out) {
		t.Errorf("members:\n%s", out)
	}
	e.must(admin.NewCmdSuspend(e.f, nil, true), "--yes", s.MemberID, "--reason", "spam")
	if !strings.Contains(e.s.ErrOut.String(), "its state is suspended") {
		t.Errorf("suspend: %q", e.s.ErrOut)
	}
	if out := e.must(admin.NewCmdMembersList(e.f, nil), "--state", "suspended", "--jq", ".members | length"); out != "1\n" {
		t.Errorf("suspended: %q", out)
	}
	e.must(admin.NewCmdSuspend(e.f, nil, false), "--yes", s.MemberID)
	if err := e.run(admin.NewCmdSuspend(e.f, nil, true), "--yes", "mem_nobody"); cmdutil.ExitStatus(err) != cmdutil.ExitNotFound {
		t.Errorf("suspend nobody: %v", err)
	}

	e.must(admin.NewCmdAnnounce(e.f, nil), "--title", "Maintenance", "--body", "tonight", "--severity", "action_required")
	if !regexp.MustCompile(`^✓ Published announcement \S+ \(action_required\) to all\n$`).MatchString(e.s.ErrOut.String()) {
		t.Errorf("announce: %q", e.s.ErrOut)
	}
	// The announcement is listed with its deliveries (members here are pull or unreachable).
	out = e.must(admin.NewCmdAnnouncements(e.f, nil))
	if !strings.Contains(out, "\taction_required\tMaintenance\tall\t") {
		t.Errorf("announcements:\n%s", out)
	}

	out = e.must(admin.NewCmdAudit(e.f, nil), "--action", "member.suspend")
	if !strings.Contains(out, "\tadmin\tmember.suspend\tmember "+s.MemberID+"\t") {
		t.Errorf("audit:\n%s", out)
	}
	trace := strings.TrimSpace(e.must(admin.NewCmdAudit(e.f, nil), "--action", "member.suspend", "--jq", ".records[0].trace_id"))
	e.x.D.FlushLogs()
	out = e.must(admin.NewCmdTrace(e.f, nil), trace)
	if !strings.Contains(out, "member.suspend") {
		t.Errorf("trace:\n%s", out)
	}
	if out := e.must(admin.NewCmdLog(e.f, nil), "--source", "http", "-L", "3"); len(cmdtest.Lines(out)) != 3 || !strings.Contains(out, "\thttp\trequest ") {
		t.Errorf("log:\n%s", out)
	}
	e.must(admin.NewCmdTrace(e.f, nil), "nosuchtrace")
	if !strings.Contains(e.s.ErrOut.String(), "Nothing recorded under trace nosuchtrace") {
		t.Errorf("empty trace: %q", e.s.ErrOut)
	}
	if out := e.must(admin.NewCmdMetrics(e.f, nil), "--hours", "1"); !strings.Contains(out, "route\t") {
		t.Errorf("metrics:\n%s", out)
	}
	e.f.IO.StdoutTTY, e.f.IO.NoColor = true, true
	if out := e.must(admin.NewCmdStats(e.f, nil)); !strings.Contains(out, "Members") || !strings.Contains(out, "US$0.00") {
		t.Errorf("stats on a terminal:\n%s", out)
	}
}

func TestAdminCredentials(t *testing.T) {
	x := inproc.NewExchange(t)
	f, _ := cmdtest.Factory(t, x.URL, nil)
	err := cmdtest.Exec(admin.NewCmdStats(f, nil))
	if cmdutil.ExitStatus(err) != cmdutil.ExitAuth || !strings.Contains(err.Error(), "no admin token for "+x.URL) {
		t.Errorf("no token: %v", err)
	}
	// The token saved by login is used; AXP_ADMIN_TOKEN overrides it.
	f.UpdateCredentials(func(c *cmdutil.ExchangeCredentials) error { c.AdminToken = cmdtest.AdminToken; return nil })
	if err := cmdtest.Exec(admin.NewCmdStats(f, nil)); err != nil {
		t.Errorf("saved token: %v", err)
	}
	f2, _ := cmdtest.Factory(t, x.URL, map[string]string{"AXP_ADMIN_TOKEN": "axp_admin_wrong", "XDG_CONFIG_HOME": f.ConfigDir()[:len(f.ConfigDir())-len("/axp")]})
	err = cmdtest.Exec(admin.NewCmdStats(f2, nil))
	var ae *axp.Error
	if !errors.As(err, &ae) || ae.Code != axp.CodeUnauthorized || ae.Hint != cmdutil.AdminAuthHint {
		t.Errorf("wrong env token: %v", err)
	}
}

// `axp admin log --follow` prints new entries as they are written (oldest first), leaves out its
// own reads of the log, and ends cleanly when interrupted.
func TestLogFollow(t *testing.T) {
	e := newEnv(t)
	s := e.x.MustSeller(cmdtest.SellerSpec{Name: "Quick Writer", TaskType: "text-file", Price: "2.50", ETA: 10})
	out := &cmdtest.SyncBuffer{}
	e.f.IO.Out = out
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	c := admin.NewCmdLog(e.f, nil)
	c.SetArgs([]string{"--follow", "--interval", "5ms", "--source", "http"})
	go func() { done <- c.ExecuteContext(ctx) }()

	waitFor := func(what string, ok func(string) bool) {
		t.Helper()
		deadline := time.Now().Add(10 * time.Second)
		for !ok(out.String()) {
			if time.Now().After(deadline) {
				t.Fatalf("follow never printed %s:\n%s", what, out.String())
			}
			time.Sleep(5 * time.Millisecond) // polling interval, not a wait for an outcome
		}
	}
	waitFor("a first entry", func(s string) bool { return strings.Contains(s, "\thttp\trequest ") })
	e.x.Call(e.x.Admin, "admin_suspend", map[string]any{"id": s.MemberID, "reason": "follow test"}, nil)
	waitFor("the new request", func(s string) bool { return strings.Contains(s, "POST /api/admin/members/{id}/suspend") })
	cancel()
	if err := <-done; err != nil {
		t.Fatalf("follow ended with %v", err)
	}
	if strings.Contains(out.String(), "GET /api/admin/log") {
		t.Errorf("follow printed its own reads:\n%s", out.String())
	}
	if n := strings.Count(out.String(), "POST /api/admin/members/{id}/suspend"); n != 1 {
		t.Errorf("the new entry was printed %d times:\n%s", n, out.String())
	}
}

func TestTasksListFlags(t *testing.T) {
	f, _ := cmdtest.Factory(t, "http://127.0.0.1:1", nil)
	parse := func(args ...string) (*admin.TasksListOptions, error) {
		var got *admin.TasksListOptions
		c := admin.NewCmdTasksList(f, func(_ context.Context, o *admin.TasksListOptions) error { got = o; return nil })
		err := cmdtest.Exec(c, args...)
		return got, err
	}
	now := time.Now()
	for since, want := range map[string]time.Time{
		"7d": now.AddDate(0, 0, -7), "90m": now.Add(-90 * time.Minute), "2026-03-01T00:00:00Z": time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC),
	} {
		o, err := parse("--since", since, "--status", "paid", "--type", "text-file", "--member", "mem_1", "--limit", "5")
		if err != nil {
			t.Fatal(err)
		}
		if o.Since.Sub(want).Abs() > time.Minute || o.Status != "paid" || o.Type != "text-file" || o.Member != "mem_1" || o.Limit != 5 {
			t.Errorf("--since %s: %+v (since %v, want %v)", since, o, o.Since, want)
		}
	}
	for _, bad := range [][]string{{"--since", "soon"}, {"--status", "done"}, {"--limit", "501"}} {
		if _, err := parse(bad...); err == nil {
			t.Errorf("%v: accepted", bad)
		}
	}
}

func TestAuditAndLogGoThroughThePagerOnATerminal(t *testing.T) {
	x := inproc.NewExchange(t)
	f, s := cmdtest.Factory(t, x.URL, map[string]string{"AXP_ADMIN_TOKEN": cmdtest.AdminToken, "AXP_PAGER": "sed s/^/paged:/"})
	x.Call(x.Anon, "create_task", map[string]any{"type": "text-file", "params": map[string]any{"prompt": "x"}}, nil)
	for _, c := range []func() *cobra.Command{
		func() *cobra.Command { return admin.NewCmdAudit(f, nil) },
		func() *cobra.Command { return admin.NewCmdLog(f, nil) },
	} {
		f.IO.StdoutTTY = true
		s.Reset()
		if err := cmdtest.Exec(c()); err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(strings.TrimSuffix(s.Out.String(), "\n"), "\n")
		for _, l := range lines {
			if !strings.HasPrefix(l, "paged:") {
				t.Errorf("%s on a terminal: line %q did not go through the pager", c().Name(), l)
			}
		}
		f.IO.StdoutTTY = false
		s.Reset()
		if err := cmdtest.Exec(c()); err != nil {
			t.Fatal(err)
		}
		if out := s.Out.String(); out == "" || strings.Contains(out, "paged:") {
			t.Errorf("%s piped: %q", c().Name(), out)
		}
	}
}

func TestApproveValidatesBeforeAskingAndShowsWhereMoneyGoes(t *testing.T) {
	e := newEnv(t)
	_, _, payout := e.payoutQueued()
	if rail := strings.TrimSpace(e.must(admin.NewCmdApprovalsList(e.f, nil), "--jq", ".rail")); rail != "manual" {
		t.Fatalf("rail %q: want manual (no hot wallet)", rail)
	}

	// On a terminal, a missing --tx on the manual rail is refused before any question.
	e.f.IO.StdinTTY, e.f.IO.StderrTTY = true, true
	defer func() { e.f.IO.StdinTTY, e.f.IO.StderrTTY = false, false }()
	e.s.Reset()
	e.s.In.WriteString("y\n")
	err := cmdtest.Exec(admin.NewCmdApprove(e.f, nil), payout)
	var ae *axp.Error
	if !errors.As(err, &ae) || ae.Field != "tx_hash" || !strings.Contains(ae.Hint, "--tx") || !strings.Contains(ae.Hint, cmdtest.PayoutAddress) {
		t.Errorf("payout without --tx: %v", err)
	}
	if strings.Contains(e.s.ErrOut.String(), "?") {
		t.Errorf("asked before validating:\n%s", e.s.ErrOut)
	}

	// The question says how much goes to which payout address; "no" sends nothing.
	e.s.Reset()
	e.s.In.Reset()
	e.s.In.WriteString("n\n")
	if err := cmdtest.Exec(admin.NewCmdApprove(e.f, nil), payout, "--tx", cmdtest.TxHash()); !errors.Is(err, cmdutil.ErrCancelled) {
		t.Errorf("answered no: %v", err)
	}
	if prompt := e.s.ErrOut.String(); !regexp.MustCompile(`sends US\$2\.4\d+ to the seller Quick Writer at payout address ` + cmdtest.PayoutAddress).MatchString(prompt) {
		t.Errorf("the question lacks the amount and the payout address:\n%s", prompt)
	}
	if status := strings.TrimSpace(e.must(admin.NewCmdApprovalsList(e.f, nil), "--kind", "payout", "--jq", ".approvals[0].status")); status != axp.ApprovalPending {
		t.Errorf("after no: %s", status)
	}
}

// Only a reorged payment is written off: one confirmed by hand is a conflict that says so, an
// unknown hash is not found, and a script without a terminal must say --yes.
func TestWriteOffRefusesAPaymentNotReorged(t *testing.T) {
	e := newEnv(t)
	e.payoutQueued()
	hash := strings.TrimSpace(e.must(admin.NewCmdApprovalsList(e.f, nil), "--kind", "payment", "--status", "all", "--jq", ".approvals[0].tx_hash"))
	if err := e.run(admin.NewCmdWriteOff(e.f, nil), hash, "--note", "gone"); cmdutil.ExitStatus(err) != cmdutil.ExitUsage || !strings.Contains(err.Error(), "confirmation") {
		t.Errorf("write-off without --yes: %v", err)
	}
	err := e.run(admin.NewCmdWriteOff(e.f, nil), "--yes", hash, "--note", "gone")
	var ae *axp.Error
	if cmdutil.ExitStatus(err) != cmdutil.ExitConflict || !errors.As(err, &ae) || !strings.Contains(ae.Message, "is not reorged") {
		t.Errorf("write-off of a payment confirmed by hand: %v", err)
	}
	if err := e.run(admin.NewCmdWriteOff(e.f, nil), "--yes", cmdtest.TxHash(), "--note", "gone"); cmdutil.ExitStatus(err) != cmdutil.ExitNotFound {
		t.Errorf("write-off of an unknown hash: %v", err)
	}
}

// approve takes several ids: one confirmation, one result line each, and a non-zero exit when any
// of them failed (an unknown id, a payout without its transaction on an exchange without a hot
// wallet); the others are approved all the same.
func TestApproveSeveral(t *testing.T) {
	e := newEnv(t)
	_, _, payout := e.payoutQueued()
	e.reported("Quick Writer")
	e.reported("Quick Writer")
	ids := strings.Fields(e.must(admin.NewCmdApprovalsList(e.f, nil), "--kind", "payment", "--jq", ".approvals[].approval_id"))
	if len(ids) != 2 {
		t.Fatalf("payments %v", ids)
	}
	// Every argument completes with the open items not named yet.
	f, out := cmdtest.Factory(t, "", map[string]string{"AXP_EXCHANGE": e.x.URL, "AXP_ADMIN_TOKEN": cmdtest.AdminToken})
	cmd.Run(context.Background(), f, []string{"__complete", "admin", "approvals", "approve", ids[0], ""}, func() []string { return nil })
	if got := out.Out.String(); strings.Contains(got, ids[0]+"\t") || !strings.Contains(got, ids[1]+"\tpayment of ") || !strings.Contains(got, payout+"\tpayout of ") {
		t.Errorf("completion after %s:\n%s", ids[0], got)
	}
	if err := e.run(admin.NewCmdApprove(e.f, nil), ids[0], ids[1], "--tx", cmdtest.TxHash()); cmdutil.ExitStatus(err) != cmdutil.ExitUsage {
		t.Errorf("--tx with several ids: %v", err)
	}
	err := e.run(admin.NewCmdApprove(e.f, nil), "--yes", ids[0], "apr_nope", payout, ids[1])
	if err == nil || cmdutil.ExitStatus(err) == 0 {
		t.Fatalf("a failed item does not fail the command: %v", err)
	}
	lines := strings.Split(strings.TrimRight(e.s.ErrOut.String(), "\n"), "\n")
	want := []*regexp.Regexp{
		regexp.MustCompile(`^✗ apr_nope: approval apr_nope is not in the queue`),
		regexp.MustCompile(`^✗ ` + payout + `: tx_hash: is required to approve a payout on this exchange, which has no hot wallet \(hint: send US\$2\.475 to the seller Quick Writer at payout address `),
		regexp.MustCompile(`^✓ ` + ids[0] + `: approved payment of task tsk_`),
		regexp.MustCompile(`^✓ ` + ids[1] + `: approved payment of task tsk_`),
	}
	if len(lines) != len(want) {
		t.Fatalf("stderr has %d lines, want %d:\n%s", len(lines), len(want), e.s.ErrOut)
	}
	for i, re := range want {
		if !re.MatchString(lines[i]) {
			t.Errorf("line %d: %q does not match %s", i, lines[i], re)
		}
	}
	if !strings.Contains(err.Error(), "2 of 4 items were not approved") {
		t.Errorf("error %v", err)
	}
	if out := e.must(admin.NewCmdApprovalsList(e.f, nil), "--kind", "payment", "--jq", ".approvals | length"); out != "0\n" {
		t.Errorf("payments still open: %s", out)
	}
}
