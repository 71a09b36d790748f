package task_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/axp-exchange/axp"
	"github.com/axp-exchange/axp/cmd/cmdtest"
	"github.com/axp-exchange/axp/cmd/cmdutil"
	"github.com/axp-exchange/axp/cmd/task"
	"github.com/axp-exchange/axp/memberkit"
	"github.com/spf13/cobra"
)

// Talk and dispute commands: flags, then runs against a real exchange as the buyer (saved buyer
// token) and as the seller (saved member secret).

func TestTrustVerbFlags(t *testing.T) {
	f, s := cmdtest.Factory(t, "http://127.0.0.1:1", nil)
	var msg *task.MessageOptions
	if err := cmdtest.Exec(task.NewCmdMessage(f, func(_ context.Context, o *task.MessageOptions) error { msg = o; return nil }),
		"tsk_1", "--body", "hello", "--seller", "mem_s", "--token", "ss_x"); err != nil {
		t.Fatal(err)
	}
	if msg.TaskID != "tsk_1" || msg.Body != "hello" || msg.SellerID != "mem_s" || msg.Token != "ss_x" {
		t.Errorf("message options %+v", msg)
	}
	s.In.WriteString("from stdin\n\n")
	if err := cmdtest.Exec(task.NewCmdMessage(f, func(_ context.Context, o *task.MessageOptions) error { msg = o; return nil }), "tsk_1", "--body-file", "-"); err != nil {
		t.Fatal(err)
	}
	if msg.Body != "from stdin" {
		t.Errorf("--body-file -: %q", msg.Body)
	}
	file := filepath.Join(t.TempDir(), "statement.txt")
	os.WriteFile(file, []byte("from a file\n"), 0o600)
	var st *task.StatementOptions
	if err := cmdtest.Exec(task.NewCmdStatement(f, func(_ context.Context, o *task.StatementOptions) error { st = o; return nil }),
		"tsk_1", "-F", file, "--refund-pct", "20%", "--mediation", "med_1"); err != nil {
		t.Fatal(err)
	}
	if st.Body != "from a file" || st.MediationID != "med_1" || st.RefundPct.String() != "20" {
		t.Errorf("statement options %+v", st)
	}
	var rv *task.ReviewOptions
	if err := cmdtest.Exec(task.NewCmdReview(f, func(_ context.Context, o *task.ReviewOptions) error { rv = o; return nil }),
		"tsk_1", "-r", "4", "--timeliness", "5", "-c", "good"); err != nil {
		t.Fatal(err)
	}
	if rv.Rating != 4 || rv.Timeliness != 5 || rv.Quality != 0 || rv.Comment != "good" {
		t.Errorf("review options %+v", rv)
	}
	var se *task.SettleOptions
	if err := cmdtest.Exec(task.NewCmdSettle(f, func(_ context.Context, o *task.SettleOptions) error { se = o; return nil }),
		"tsk_1", "--refund-pct", "0", "--note", "keep it"); err != nil {
		t.Fatal(err)
	}
	if se.RefundPct.String() != "0" || se.Note != "keep it" {
		t.Errorf("settle options %+v", se)
	}
	var an *task.SettlementOptions
	if err := cmdtest.Exec(task.NewCmdSettlement(f, func(_ context.Context, o *task.SettlementOptions) error { an = o; return nil }),
		"tsk_1", "stl_1", "--reject"); err != nil {
		t.Fatal(err)
	}
	if an.SettlementID != "stl_1" || an.Accept || !an.Reject {
		t.Errorf("settlement options %+v", an)
	}
	var es *task.EscalateOptions
	if err := cmdtest.Exec(task.NewCmdEscalate(f, func(_ context.Context, o *task.EscalateOptions) error { es = o; return nil }),
		"tsk_1", "--reason", "short", "--statement", "two lines", "--refund-pct", "75"); err != nil {
		t.Fatal(err)
	}
	if es.Reason != "short" || es.Statement != "two lines" || es.RefundPct.String() != "75" {
		t.Errorf("escalate options %+v", es)
	}
	var me *task.MediationOptions
	if err := cmdtest.Exec(task.NewCmdMediation(f, func(_ context.Context, o *task.MediationOptions) error { me = o; return nil }),
		"tsk_1", "med_1", "--until", "decided", "--interval", "10ms", "--timeout", "5s"); err != nil {
		t.Fatal(err)
	}
	if me.MediationID != "med_1" || me.Until != "decided" || me.Interval != 10*time.Millisecond || me.Timeout != 5*time.Second {
		t.Errorf("mediation options %+v", me)
	}
	var ap *task.AppealOptions
	if err := cmdtest.Exec(task.NewCmdAppeal(f, func(_ context.Context, o *task.AppealOptions) error { ap = o; return nil }),
		"tsk_1", "--reason", "unfair", "--mediation", "med_1"); err != nil {
		t.Fatal(err)
	}
	if ap.Reason != "unfair" || ap.MediationID != "med_1" {
		t.Errorf("appeal options %+v", ap)
	}
	var ob *task.ObjectOptions
	if err := cmdtest.Exec(task.NewCmdObject(f, func(_ context.Context, o *task.ObjectOptions) error { ob = o; return nil }),
		"tsk_1", "--reason", "unfair", "--statement", "I paid", "--review", "rev_1"); err != nil {
		t.Fatal(err)
	}
	if ob.Reason != "unfair" || ob.Statement != "I paid" || ob.ReviewID != "rev_1" {
		t.Errorf("object options %+v", ob)
	}

	for _, tt := range []struct {
		c    *cobra.Command
		args []string
		want string
	}{
		{task.NewCmdMessage(f, nil), []string{"tsk_1"}, "--body is required"},
		{task.NewCmdMessage(f, nil), []string{"tsk_1", "--body", "x", "--body-file", file}, "give --body or --body-file, not both"},
		{task.NewCmdMessage(f, nil), []string{"tsk_1", "--body-file", filepath.Join(t.TempDir(), "none")}, "--body-file: open"},
		{task.NewCmdMessage(f, nil), []string{"tsk_1", "--body", strings.Repeat("é", 4001)}, "--body is 4001 characters; at most 4000"},
		{task.NewCmdReview(f, nil), []string{"tsk_1"}, "--rating is required"},
		{task.NewCmdReview(f, nil), []string{"tsk_1", "--rating", "6"}, "--rating 6: scores are 1 to 5"},
		{task.NewCmdReview(f, nil), []string{"tsk_1", "--rating", "3", "--quality", "0"}, "--quality 0: scores are 1 to 5"},
		{task.NewCmdReview(f, nil), []string{"tsk_1", "--rating", "3", "--comment", strings.Repeat("c", 1001)}, "--comment is 1001 characters"},
		{task.NewCmdSettle(f, nil), []string{"tsk_1"}, "--refund-pct is required"},
		{task.NewCmdSettle(f, nil), []string{"tsk_1", "--refund-pct", "101"}, `"101" is not a percentage: use a whole number 0 to 100`},
		{task.NewCmdSettlement(f, nil), []string{"tsk_1"}, "give --accept or --reject"},
		{task.NewCmdSettlement(f, nil), []string{"tsk_1", "--accept", "--reject"}, "give --accept or --reject"},
		{task.NewCmdEscalate(f, nil), []string{"tsk_1"}, "--reason is required"},
		{task.NewCmdEscalate(f, nil), []string{"tsk_1", "--reason", "r", "--refund-pct", "-1"}, `"-1" is not a percentage`},
		{task.NewCmdEscalate(f, nil), []string{"tsk_1", "--reason", "r", "--statement", strings.Repeat("s", 4001)}, "--statement is 4001 characters"},
		{task.NewCmdMediation(f, nil), []string{"tsk_1", "--until", "done"}, `--until "done": use one of awaiting_statements, decided, appealed, resolved`},
		{task.NewCmdMediation(f, nil), []string{"tsk_1", "--interval", "0s"}, "--interval must be positive"},
		{task.NewCmdStatement(f, nil), []string{"tsk_1", "--body", " "}, "--body is required"},
		{task.NewCmdAppeal(f, nil), []string{"tsk_1"}, "--reason is required"},
		{task.NewCmdObject(f, nil), []string{"tsk_1", "--statement", "x"}, "--reason is required"},
	} {
		err := cmdtest.Exec(tt.c, tt.args...)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s %v: %v, want %q", tt.c.Name(), tt.args, err, tt.want)
			continue
		}
		// Flag values cobra refuses (a bad percentage) come back as cobra's own errors; the root
		// command maps them to usage errors.
		if !strings.Contains(tt.want, "is not a percentage") && cmdutil.ExitStatus(err) != cmdutil.ExitUsage {
			t.Errorf("%s %v: exit status %d, want usage", tt.c.Name(), tt.args, cmdutil.ExitStatus(err))
		}
	}

	// Without any credential the error says which to use.
	err := cmdtest.Exec(task.NewCmdMessages(f, nil), "tsk_x")
	var ae *axp.Error
	if !errors.As(err, &ae) || cmdutil.ExitStatus(err) != cmdutil.ExitAuth || ae.Message != "no credentials for task tsk_x on http://127.0.0.1:1" ||
		!strings.Contains(ae.Hint, "as its seller or a buyer member, pass --dir DIR with the directory of your `axp member serve`, or `axp login --dir DIR`") {
		t.Errorf("no credentials: %v (%+v)", err, ae)
	}
}

// sellerFactory is a factory logged in with the seller's member secret, as the seller would be on
// its own machine.
func (e *env) sellerFactory(r *axp.Registered) (*cmdutil.Factory, *cmdtest.Streams) {
	e.t.Helper()
	f, s := cmdtest.Factory(e.t, e.x.URL, nil)
	if err := f.UpdateCredentials(func(c *cmdutil.ExchangeCredentials) error {
		c.MemberSecret, c.MemberID = r.MemberSecret, r.MemberID
		return nil
	}); err != nil {
		e.t.Fatal(err)
	}
	return f, s
}

// asSeller runs a command built for the seller's factory.
func (e *env) asSeller(s *cmdtest.Streams, c *cobra.Command, args ...string) string {
	e.t.Helper()
	s.Reset()
	if err := cmdtest.Exec(c, args...); err != nil {
		e.t.Fatalf("seller %s %v: %v\nstderr: %s", c.Name(), args, err, s.ErrOut)
	}
	return s.Out.String()
}

// funded posts a task through the commands, chooses the recommended offer (Quick Writer), pays,
// has the operator confirm and the seller deliver; the buyer downloads the delivery.
func (e *env) delivered(quick *axp.Registered) string {
	e.t.Helper()
	id := e.post()
	e.must(task.NewCmdChoose(e.f, nil), id, "--yes")
	e.must(task.NewCmdPay(e.f, nil), "--yes", id, "--tx", cmdtest.TxHash())
	var list axp.ApprovalList
	e.x.Call(e.x.Admin, "admin_approvals", map[string]any{"task_id": id}, &list)
	e.x.Call(e.x.Admin, "admin_approve", map[string]any{"id": list.Approvals[0].ID}, nil)
	e.x.Call(e.x.Anon.With(quick.MemberSecret), "deliver", map[string]any{"id": id, "content": "the sea is wide\nthe sea is deep\n"}, nil)
	e.must(task.NewCmdDeliverable(e.f, nil), id, "-o", filepath.Join(e.t.TempDir(), "sea.txt"))
	return id
}

func TestMessagesAndReviews(t *testing.T) {
	e := newEnv(t)
	quick, _ := e.sellers()
	sf, ss := e.sellerFactory(quick)
	id := e.post()
	if out := e.must(task.NewCmdMessages(e.f, nil), id); out != "" || e.s.ErrOut.String() != "No messages on "+id+"\n" {
		t.Errorf("no messages: %q %q", out, e.s.ErrOut)
	}

	// Before an offer is chosen the buyer names the seller; contact details are removed.
	err := e.run(task.NewCmdMessage(e.f, nil), id, "--body", "hello")
	var ae *axp.Error
	if !errors.As(err, &ae) || ae.Field != "seller_id" || cmdutil.ExitStatus(err) != cmdutil.ExitUsage {
		t.Fatalf("message without --seller: %v", err)
	}
	e.must(task.NewCmdMessage(e.f, nil), id, "--seller", quick.MemberID, "--body", "Could it rhyme? Write to bob@example.com")
	if !regexp.MustCompile(`^✓ Sent message msg_\S+ on ` + id + ` to the seller ` + quick.MemberID + "\n! contact details removed: email\n$").MatchString(e.s.ErrOut.String()) {
		t.Errorf("message: %q", e.s.ErrOut)
	}
	// The seller reads its conversation and answers with its member secret.
	out := e.asSeller(ss, task.NewCmdMessages(sf, nil), id)
	if !regexp.MustCompile(`^msg_\S+\t\d{4}-[^\t]+\tbuyer\t`+quick.MemberID+`\tCould it rhyme\? Write to \[email removed\]\tcontacts removed\n$`).MatchString(out) ||
		strings.Contains(out, "bob@example.com") {
		t.Errorf("seller's messages:\n%q", out)
	}
	e.asSeller(ss, task.NewCmdMessage(sf, nil), id, "--body", "It will rhyme.")
	if !strings.Contains(ss.ErrOut.String(), " to the buyer\n") {
		t.Errorf("seller's message: %q", ss.ErrOut)
	}
	if got, want := e.must(task.NewCmdMessages(e.f, nil), id, "--json"), e.x.Raw(e.buyer(id), "list_messages", map[string]any{"id": id}); got != want {
		t.Errorf("--json\n got %s\nwant %s", got, want)
	}
	e.f.IO.StdoutTTY, e.f.IO.NoColor, e.f.IO.Width = true, true, 160
	out = e.must(task.NewCmdMessages(e.f, nil), id)
	for _, want := range []string{"MESSAGE", "It will rhyme.", "s ago", ": contact details removed: email"} {
		if !strings.Contains(out, want) {
			t.Errorf("terminal messages lack %q:\n%s", want, out)
		}
	}
	e.f.IO.StdoutTTY = false

	// Reviews come after the job is complete, once per side.
	e.must(task.NewCmdChoose(e.f, nil), id, "--yes")
	e.must(task.NewCmdPay(e.f, nil), "--yes", id, "--tx", cmdtest.TxHash())
	var list axp.ApprovalList
	e.x.Call(e.x.Admin, "admin_approvals", map[string]any{"task_id": id}, &list)
	e.x.Call(e.x.Admin, "admin_approve", map[string]any{"id": list.Approvals[0].ID}, nil)
	e.x.Call(e.x.Anon.With(quick.MemberSecret), "deliver", map[string]any{"id": id, "content": "the sea\n"}, nil)
	if err := e.run(task.NewCmdReview(e.f, nil), id, "--rating", "5"); cmdutil.ExitStatus(err) != cmdutil.ExitConflict || !strings.Contains(err.Error(), "completed job") {
		t.Errorf("review before completion: %v", err)
	}
	e.must(task.NewCmdDeliverable(e.f, nil), id, "-o", filepath.Join(t.TempDir(), "x"))
	e.must(task.NewCmdAccept(e.f, nil), "--yes", id)
	e.must(task.NewCmdReview(e.f, nil), id, "--rating", "5", "--quality", "4", "--comment", "Lovely; see mysite.example.org")
	if !regexp.MustCompile(`^✓ Reviewed the seller of ` + id + `: 5/5 \(review rev_\S+\)\n! contact details removed: domain\n$`).MatchString(e.s.ErrOut.String()) {
		t.Errorf("review: %q", e.s.ErrOut)
	}
	if err := e.run(task.NewCmdReview(e.f, nil), id, "--rating", "4"); cmdutil.ExitStatus(err) != cmdutil.ExitConflict {
		t.Errorf("second review: %v", err)
	}
	// An anonymous buyer has no profile for the seller to review.
	ss.Reset()
	if err := cmdtest.Exec(task.NewCmdReview(sf, nil), id, "--rating", "3"); cmdutil.ExitStatus(err) != cmdutil.ExitConflict || !strings.Contains(err.Error(), "anonymous") {
		t.Errorf("seller's review of an anonymous buyer: %v", err)
	}
	var rep axp.Reputation
	e.x.Call(e.x.Anon, "get_reputation", map[string]any{"id": quick.MemberID}, &rep)
	if rep.Reviews != 1 || rep.Rating == nil || *rep.Rating != 5 {
		t.Errorf("reputation %+v", rep)
	}
}

// A dispute from both sides: a settlement proposed and rejected, an escalation, both statements,
// the Mediator's decision (waited for with --until) and the seller's appeal.
func TestSettleEscalateAppeal(t *testing.T) {
	e := newEnv(t)
	quick, _ := e.sellers()
	sf, ss := e.sellerFactory(quick)
	id := e.delivered(quick)
	if err := e.run(task.NewCmdSettle(e.f, nil), id, "--refund-pct", "50"); cmdutil.ExitStatus(err) != cmdutil.ExitConflict || !strings.Contains(err.Error(), "needs a disputed task") {
		t.Errorf("settle before a dispute: %v", err)
	}
	e.must(task.NewCmdDispute(e.f, nil), id, "--reason", "two lines only")

	e.must(task.NewCmdSettle(e.f, nil), id, "--refund-pct", "80", "--note", "most of it is missing")
	m := regexp.MustCompile(`^✓ Proposed settlement (stl_\S+) on ` + id + `: refund 80% \(US\$2\.00\) to the buyer, the rest to the seller\n` +
		`The seller answers with: axp task settlement ` + id + ` (stl_\S+) --accept \(or --reject\)\n$`).FindStringSubmatch(e.s.ErrOut.String())
	if m == nil || m[1] != m[2] {
		t.Fatalf("settle: %q", e.s.ErrOut)
	}
	// The proposer cannot answer; the exchange's hint names the rule.
	err := e.run(task.NewCmdSettlement(e.f, nil), id, "--accept", "--yes")
	var ae *axp.Error
	if !errors.As(err, &ae) || ae.Code != axp.CodeForbidden || ae.Hint != "wait for the other side's answer, or propose anew" {
		t.Errorf("the proposer answers: %v (%+v)", err, ae)
	}
	e.asSeller(ss, task.NewCmdSettlement(sf, nil), id, "--reject")
	if ss.ErrOut.String() != "✓ Rejected settlement "+m[1]+" (refund 80%); the dispute stays open\n" {
		t.Errorf("reject: %q", ss.ErrOut)
	}
	ss.Reset()
	if err := cmdtest.Exec(task.NewCmdSettlement(sf, nil), id, m[1], "--accept", "--yes"); cmdutil.ExitStatus(err) != cmdutil.ExitConflict {
		t.Errorf("accepting a rejected proposal: %v", err)
	}

	if err := e.run(task.NewCmdMediation(e.f, nil), id); cmdutil.ExitStatus(err) != cmdutil.ExitNotFound || !strings.Contains(err.Error(), "has no mediation") {
		t.Errorf("mediation before escalation: %v", err)
	}
	e.must(task.NewCmdEscalate(e.f, nil), id, "--reason", "two lines instead of a poem", "--statement", "The brief asked for a poem.", "--refund-pct", "80")
	m = regexp.MustCompile(`^✓ Opened mediation (med_\S+) of ` + id + `; the seller is asked for its statement \(due [-\d]+ [:\d]+ \S+\)\nFollow it with: axp task mediation ` + id + "\n$").FindStringSubmatch(e.s.ErrOut.String())
	if m == nil {
		t.Fatalf("escalate: %q", e.s.ErrOut)
	}
	med := m[1]
	out := e.must(task.NewCmdMediation(e.f, nil), id)
	for _, want := range []string{"mediation:\t" + med + "\n", "status:\tawaiting_statements\n", "statements_due:\t",
		"buyer:\t\"The brief asked for a poem.\" · proposes a 80% refund · via rest\n", "seller:\tnot stated yet\n"} {
		if !strings.Contains(out, want) {
			t.Errorf("mediation lacks %q:\n%s", want, out)
		}
	}
	if err := e.run(task.NewCmdAppeal(e.f, nil), id, "--reason", "too early"); cmdutil.ExitStatus(err) != cmdutil.ExitNotFound || !strings.Contains(err.Error(), "the Mediator has not decided yet") {
		t.Errorf("appeal before a decision: %v", err)
	}

	e.asSeller(ss, task.NewCmdStatement(sf, nil), id, "--body", "Two lines are a poem.", "--refund-pct", "20")
	if ss.ErrOut.String() != "✓ Stated in mediation "+med+" of "+id+"; both sides have stated: the Mediator decides now\n" {
		t.Errorf("statement: %q", ss.ErrOut)
	}
	out = e.must(task.NewCmdMediation(e.f, nil), id, med, "--until", "decided", "--interval", "5ms", "--timeout", cmdtest.Deadline.String())
	for _, want := range []string{"status:\tdecided\n", "seller:\t\"Two lines are a poem.\" · proposes a 20% refund · via rest\n",
		"decision:\tsplit 50% (US$1.25 back to the buyer) by mediator:rules, rule both_proposed\n", "reasoning:\tRule both_proposed: ", "approval:\tapr_"} {
		if !strings.Contains(out, want) {
			t.Errorf("decided mediation lacks %q:\n%s", want, out)
		}
	}
	e.asSeller(ss, task.NewCmdAppeal(sf, nil), id, "--reason", "The brief set no length.")
	if ss.ErrOut.String() != "✓ Appealed mediation "+med+" of "+id+"; the operator decides\n" {
		t.Errorf("appeal: %q", ss.ErrOut)
	}
	var got axp.Mediation
	if err := json.Unmarshal([]byte(e.must(task.NewCmdMediation(e.f, nil), id, "--json")), &got); err != nil || got.Status != axp.MediationAppealed || got.AppealedBy != "seller" {
		t.Fatalf("mediation --json: %v %+v", err, got)
	}
	if err := e.run(task.NewCmdAppeal(e.f, nil), id, "--reason", "me too"); cmdutil.ExitStatus(err) != cmdutil.ExitConflict {
		t.Errorf("second appeal: %v", err)
	}
	// A wait that cannot end gives up at --timeout.
	err = e.run(task.NewCmdMediation(e.f, nil), id, "--until", "awaiting_statements", "--interval", "5ms", "--timeout", "50ms")
	if cmdutil.ExitStatus(err) != cmdutil.ExitConflict || !strings.Contains(err.Error(), "did not become awaiting_statements within 50ms") {
		t.Errorf("timeout: %v", err)
	}
	e.f.IO.StdoutTTY, e.f.IO.NoColor = true, true
	out = e.must(task.NewCmdMediation(e.f, nil), id)
	for _, want := range []string{"Mediation", "Appealed by", "The brief set no length.", "ago"} {
		if !strings.Contains(out, want) {
			t.Errorf("terminal mediation lacks %q:\n%s", want, out)
		}
	}
}

// The reviewed member objects to a review from the command line; the review is found on the task.
func TestObjectToReview(t *testing.T) {
	e := newEnv(t)
	quick, _ := e.sellers()
	m, err := e.x.Register(map[string]any{"roles": []string{"buyer"}, "name": "Buyer Bot"})
	if err != nil {
		t.Fatal(err)
	}
	e.f.UpdateCredentials(func(c *cmdutil.ExchangeCredentials) error {
		c.MemberSecret, c.MemberID = m.MemberSecret, m.MemberID
		return nil
	})
	id := e.delivered(quick)
	e.must(task.NewCmdAccept(e.f, nil), "--yes", id)
	if err := e.run(task.NewCmdObject(e.f, nil), id, "--reason", "unfair"); cmdutil.ExitStatus(err) != cmdutil.ExitNotFound || !strings.Contains(err.Error(), "has no review") {
		t.Errorf("object without a review: %v", err)
	}
	// Both sides review (the buyer's review is the newest); the buyer objects to the seller's review
	// of it, found on the task after its own is refused.
	var rv axp.ReviewResult
	e.x.Call(e.x.Anon.With(quick.MemberSecret), "submit_review", map[string]any{"id": id, "rating": 1}, &rv)
	e.must(task.NewCmdReview(e.f, nil), id, "--rating", "5")
	e.must(task.NewCmdObject(e.f, nil), id, "--reason", "I paid at once.", "--statement", "Payment was reported within a minute.")
	mm := regexp.MustCompile(`^✓ Objected to review ` + rv.ReviewID + ` of ` + id + `: mediation (med_\S+) asks the seller for its statement\n`).FindStringSubmatch(e.s.ErrOut.String())
	if mm == nil {
		t.Fatalf("object: %q", e.s.ErrOut)
	}
	out := e.must(task.NewCmdMediation(e.f, nil), id)
	for _, want := range []string{"kind:\treview_objection of review " + rv.ReviewID + "\n", "buyer:\t\"Payment was reported within a minute.\" · via rest\n"} {
		if !strings.Contains(out, want) {
			t.Errorf("mediation lacks %q:\n%s", want, out)
		}
	}
	// The seller states; the Mediator decides (a 1 without comment on an undisputed job goes).
	sf, ss := e.sellerFactory(quick)
	e.asSeller(ss, task.NewCmdStatement(sf, nil), id, "--body", "Slow to confirm.")
	out = e.must(task.NewCmdMediation(e.f, nil), id, mm[1], "--until", "decided", "--interval", "5ms", "--timeout", cmdtest.Deadline.String())
	if !strings.Contains(out, "decision:\tremove the review by mediator:rules, rule contradicted\n") {
		t.Errorf("decided objection:\n%s", out)
	}
	if err := e.run(task.NewCmdObject(e.f, nil), id, "--reason", "again", "--review", rv.ReviewID); cmdutil.ExitStatus(err) != cmdutil.ExitConflict {
		t.Errorf("second objection: %v", err)
	}
}

// The seller side reads the credentials `axp member serve --dir DIR` keeps: with --dir (even where
// a buyer token of the task is saved), and without a login when the run is in the working
// directory. Without any, the hint names --dir and `axp login --dir`.
func TestSellerFromMemberServeDir(t *testing.T) {
	e := newEnv(t)
	quick, _ := e.sellers()
	id := e.post()
	e.must(task.NewCmdMessage(e.f, nil), id, "--seller", quick.MemberID, "--body", "Could it rhyme?")
	dir := t.TempDir()
	creds := &memberkit.Credentials{Exchange: e.x.URL, MemberID: quick.MemberID, MemberSecret: quick.MemberSecret, PlatformKey: "pk_x"}
	if err := creds.Save(memberkit.CredentialsPath(dir)); err != nil {
		t.Fatal(err)
	}
	e.must(task.NewCmdMessage(e.f, nil), id, "--dir", dir, "--body", "It will rhyme.")
	if !strings.Contains(e.s.ErrOut.String(), " to the buyer\n") {
		t.Errorf("--dir: %q", e.s.ErrOut)
	}

	// A seller with no login, in the directory of its member run.
	sf, ss := cmdtest.Factory(t, e.x.URL, nil)
	err := cmdtest.Exec(task.NewCmdMessages(sf, nil), id)
	var ae *axp.Error
	if !errors.As(err, &ae) || !strings.Contains(ae.Hint, "--dir DIR") || !strings.Contains(ae.Hint, "axp login --dir DIR") {
		t.Fatalf("no credentials: %v (%+v)", err, ae)
	}
	sf.WorkDir = filepath.Dir(dir)
	if err := os.Rename(dir, filepath.Join(sf.WorkDir, "member")); err != nil {
		t.Fatal(err)
	}
	if out := e.asSeller(ss, task.NewCmdMessages(sf, nil), id); !strings.Contains(out, "It will rhyme.") {
		t.Errorf("the run in the working directory: %q", out)
	}
}
