package admin_test

import (
	"context"
	"encoding/json"
	"errors"
	"regexp"
	"strings"
	"testing"

	"github.com/axp-exchange/axp"
	"github.com/axp-exchange/axp/client"
	"github.com/axp-exchange/axp/cmd/admin"
	"github.com/axp-exchange/axp/cmd/cmdtest"
	"github.com/axp-exchange/axp/cmd/cmdutil"
	"github.com/axp-exchange/axp/contract"
	"github.com/spf13/cobra"
)

func TestTrustFlags(t *testing.T) {
	f, _ := cmdtest.Factory(t, "http://127.0.0.1:1", nil)
	var l *admin.MediationsListOptions
	if err := cmdtest.Exec(admin.NewCmdMediationsList(f, func(_ context.Context, o *admin.MediationsListOptions) error { l = o; return nil }),
		"--status", "appealed", "--kind", "review_objection", "--task", "tsk_1", "--jq", ".mediations"); err != nil {
		t.Fatal(err)
	}
	if l.Status != "appealed" || l.Kind != "review_objection" || l.TaskID != "tsk_1" || l.Export.JQ != ".mediations" {
		t.Errorf("list options %+v", l)
	}
	var d *admin.DecideOptions
	if err := cmdtest.Exec(admin.NewCmdDecide(f, func(_ context.Context, o *admin.DecideOptions) error { d = o; return nil }),
		"med_1", "--refund-pct", "0", "--note", "the checks passed"); err != nil {
		t.Fatal(err)
	}
	if d.ID != "med_1" || d.RefundPct == nil || *d.RefundPct != 0 || d.Outcome != "" || d.Note != "the checks passed" {
		t.Errorf("decide options %+v", d)
	}
	if err := cmdtest.Exec(admin.NewCmdDecide(f, func(_ context.Context, o *admin.DecideOptions) error { d = o; return nil }),
		"med_2", "--outcome", "remove", "--note", "abusive", "--json"); err != nil {
		t.Fatal(err)
	}
	if d.ID != "med_2" || d.RefundPct != nil || d.Outcome != "remove" || !d.Export.JSON {
		t.Errorf("decide options %+v", d)
	}
	var ll *admin.ListingsListOptions
	if err := cmdtest.Exec(admin.NewCmdListingsList(f, func(_ context.Context, o *admin.ListingsListOptions) error { ll = o; return nil }), "--status", "rejected"); err != nil {
		t.Fatal(err)
	}
	if ll.Status != "rejected" {
		t.Errorf("listings options %+v", ll)
	}
	var ov *admin.OverturnOptions
	if err := cmdtest.Exec(admin.NewCmdOverturn(f, func(_ context.Context, o *admin.OverturnOptions) error { ov = o; return nil }), "lst_1", "--note", "a lab"); err != nil {
		t.Fatal(err)
	}
	if ov.ID != "lst_1" || ov.Note != "a lab" {
		t.Errorf("overturn options %+v", ov)
	}
	for _, tt := range []struct {
		c    *cobra.Command
		args []string
		want string
	}{
		{admin.NewCmdMediationsList(f, nil), []string{"--status", "closed"}, `--status "closed": use one of awaiting_statements, decided, appealed, resolved, open, all`},
		{admin.NewCmdMediationsList(f, nil), []string{"--kind", "refund"}, `--kind "refund": use one of dispute, review_objection`},
		{admin.NewCmdDecide(f, nil), []string{"med_1", "--note", "x"}, "give --refund-pct N to decide a dispute, or --outcome keep|remove"},
		{admin.NewCmdDecide(f, nil), []string{"med_1", "--refund-pct", "30", "--outcome", "keep", "--note", "x"}, "not both"},
		{admin.NewCmdDecide(f, nil), []string{"med_1", "--refund-pct", "101", "--note", "x"}, `--refund-pct "101": a whole number 0 to 100`},
		{admin.NewCmdDecide(f, nil), []string{"med_1", "--refund-pct", "half", "--note", "x"}, `--refund-pct "half"`},
		{admin.NewCmdDecide(f, nil), []string{"med_1", "--outcome", "delete", "--note", "x"}, `--outcome "delete": use one of keep, remove`},
		{admin.NewCmdDecide(f, nil), []string{"med_1", "--refund-pct", "30"}, "--note is required"},
		{admin.NewCmdListingsList(f, nil), []string{"--status", "open"}, `--status "open": use one of rejected, overturned, all`},
		{admin.NewCmdOverturn(f, nil), []string{"lst_1"}, "--note is required"},
		{admin.NewCmdOverturn(f, nil), []string{"lst_1", "--note", strings.Repeat("n", 2001)}, "--note is 2001 characters; at most 2000"},
	} {
		err := cmdtest.Exec(tt.c, tt.args...)
		if err == nil || !strings.Contains(err.Error(), tt.want) || cmdutil.ExitStatus(err) != cmdutil.ExitUsage {
			t.Errorf("%s %v: %v, want usage error %q", tt.c.Name(), tt.args, err, tt.want)
		}
	}
}

// The operator lists mediations, reads an appealed one and decides it; the split waits in the
// approval queue and is approved like any other item.
func TestMediationsDecideAppeal(t *testing.T) {
	e := newEnv(t)
	seller := e.x.MustSeller(cmdtest.SellerSpec{Name: "Quick Writer", TaskType: "text-file", Price: "2.50", ETA: 10, Payout: cmdtest.PayoutAddress})
	if out := e.must(admin.NewCmdMediationsList(e.f, nil)); out != "" || e.s.ErrOut.String() != "No mediations\n" {
		t.Errorf("no mediations: %q %q", out, e.s.ErrOut)
	}
	id, _, med := e.x.Appealed(seller)

	out := e.must(admin.NewCmdMediationsList(e.f, nil))
	if !regexp.MustCompile(`^` + med + `\tdispute\tappealed\t` + id + `\tbuyer 80%, seller 20%\tsplit 50%\t\t\d{4}-\d\d-\d\dT[^\t]+\n$`).MatchString(out) {
		t.Errorf("list:\n%q", out)
	}
	if got, want := e.must(admin.NewCmdMediationsList(e.f, nil), "--task", id, "--json"), e.x.Raw(e.x.Admin, "admin_mediations", map[string]any{"task_id": id}); got != want {
		t.Errorf("--json\n got %s\nwant %s", got, want)
	}
	if out := e.must(admin.NewCmdMediationsList(e.f, nil), "--status", "decided"); out != "" {
		t.Errorf("--status decided: %q", out)
	}
	if out := e.must(admin.NewCmdMediationsList(e.f, nil), "--status", "open", "--kind", "dispute", "--jq", ".mediations[].mediation_id"); out != med+"\n" {
		t.Errorf("--status open: %q", out)
	}
	e.f.IO.StdoutTTY, e.f.IO.NoColor, e.f.IO.Width = true, true, 160
	out = e.must(admin.NewCmdMediationsList(e.f, nil))
	for _, want := range []string{"ID", "PROPOSED B/S", "DECISION", "80% / 20%", "split 50%", "1 appealed: read one with `axp admin mediations view ID`"} {
		if !strings.Contains(out, want) {
			t.Errorf("terminal list lacks %q:\n%s", want, out)
		}
	}
	out = e.must(admin.NewCmdMediationView(e.f, nil), med)
	for _, want := range []string{"Status", "appealed", `"The brief asked for a poem; two lines came." · proposes a 80% refund · via rest`,
		`"Two lines are a poem." · proposes a 20% refund · via rest`, "split 50% (US$1.25 back to the buyer) by mediator:rules, rule both_proposed",
		"Rule both_proposed: both sides proposed a split", "Appealed by", "The brief set no length.", "Decide with: axp admin mediations decide " + med + " --refund-pct N --note TEXT"} {
		if !strings.Contains(out, want) {
			t.Errorf("terminal view lacks %q:\n%s", want, out)
		}
	}
	e.f.IO.StdoutTTY = false

	out = e.must(admin.NewCmdMediationView(e.f, nil), med)
	for _, want := range []string{"mediation:\t" + med + "\n", "kind:\tdispute\n", "task:\t" + id + "\n", "status:\tappealed\n", "opened_by:\tbuyer\n",
		"reason:\ttwo lines instead of a poem\n", "appealed_by:\tseller\n", "appeal_reason:\tThe brief set no length.\n"} {
		if !strings.Contains(out, want) {
			t.Errorf("view lacks %q:\n%s", want, out)
		}
	}
	var m axp.Mediation
	if err := json.Unmarshal([]byte(e.must(admin.NewCmdMediationView(e.f, nil), med, "--json")), &m); err != nil || m.ID != med || m.Decision == nil {
		t.Fatalf("view --json: %v %+v", err, m)
	}
	if err := e.run(admin.NewCmdMediationView(e.f, nil), "med_nothing"); cmdutil.ExitStatus(err) != cmdutil.ExitNotFound {
		t.Errorf("view of nothing: %v", err)
	}

	// A dispute is decided with a refund percentage; the exchange names the field otherwise.
	err := e.run(admin.NewCmdDecide(e.f, nil), "--yes", med, "--outcome", "keep", "--note", "n")
	var ae *axp.Error
	if !errors.As(err, &ae) || ae.Field != "outcome" || cmdutil.ExitStatus(err) != cmdutil.ExitUsage {
		t.Errorf("outcome on a dispute: %v", err)
	}
	e.must(admin.NewCmdDecide(e.f, nil), "--yes", med, "--refund-pct", "30", "--note", "Two lines answer the brief only in part.")
	if !regexp.MustCompile(`^✓ Decided mediation ` + med + ` of task ` + id + `: split 30% \(US\$0\.75 back to the buyer\); it waits in the approval queue as (apr_\S+)\n$`).MatchString(e.s.ErrOut.String()) {
		t.Fatalf("decide: %q", e.s.ErrOut)
	}
	if err := e.run(admin.NewCmdDecide(e.f, nil), "--yes", med, "--refund-pct", "40", "--note", "again"); cmdutil.ExitStatus(err) != cmdutil.ExitConflict {
		t.Errorf("second decision: %v", err)
	}
	if out := e.must(admin.NewCmdMediationsList(e.f, nil), "--jq", ".mediations[0] | .status + \" \" + .operator_decision.by + \" \" + (.operator_decision.refund_pct|tostring)"); out != "resolved operator 30\n" {
		t.Errorf("after the decision: %q", out)
	}
	split := strings.TrimSpace(e.must(admin.NewCmdApprovalsList(e.f, nil), "--kind", "split", "--jq", ".approvals[0].approval_id"))
	e.must(admin.NewCmdApprove(e.f, nil), "--yes", split, "--tx", cmdtest.TxHash(), "--note", "sent both parts")
	if !strings.HasPrefix(e.s.ErrOut.String(), "✓ Approved split "+split+" of task "+id) {
		t.Errorf("approve split: %q", e.s.ErrOut)
	}
	if out := e.must(admin.NewCmdStats(e.f, nil), "--jq", ".money.ledger_sum_usd"); out != "0\n" {
		t.Errorf("ledger sum after the split: %q", out)
	}
}

// A review objection is decided with keep or remove; the operator may take over a mediation that
// still waits for statements.
func TestMediationsDecideObjection(t *testing.T) {
	e := newEnv(t)
	seller := e.x.MustSeller(cmdtest.SellerSpec{Name: "Quick Writer", TaskType: "text-file", Price: "2.50", ETA: 10, Payout: cmdtest.PayoutAddress})
	id, buyer, review, m := e.x.Objected(seller)
	out := e.must(admin.NewCmdMediationsList(e.f, nil), "--kind", "review_objection")
	if !regexp.MustCompile(`^` + m.ID + `\treview_objection\tawaiting_statements\t` + id + `\tbuyer\t\t\t`).MatchString(out) {
		t.Errorf("list:\n%q", out)
	}
	if out := e.must(admin.NewCmdMediationView(e.f, nil), m.ID); !strings.Contains(out, "kind:\treview_objection of review "+review+"\n") ||
		!strings.Contains(out, "seller:\tnot stated yet\n") || !strings.Contains(out, "statements_due:\t") {
		t.Errorf("view:\n%s", out)
	}
	err := e.run(admin.NewCmdDecide(e.f, nil), "--yes", m.ID, "--refund-pct", "10", "--note", "n")
	var ae *axp.Error
	if !errors.As(err, &ae) || ae.Field != "refund_pct" {
		t.Errorf("refund on an objection: %v", err)
	}
	out = e.must(admin.NewCmdDecide(e.f, nil), "--yes", m.ID, "--outcome", "remove", "--note", "The record shows answers within the hour.", "--jq", ".decision.outcome")
	if out != "remove\n" {
		t.Errorf("decide --jq: %q", out)
	}
	var rep axp.Reputation
	e.x.Call(e.x.Anon, "get_reputation", map[string]any{"id": buyer.MemberID}, &rep)
	if rep.AsBuyer.Reviews != 0 {
		t.Errorf("the removed review still counts: %+v", rep.AsBuyer)
	}
	if out := e.must(admin.NewCmdMediationsList(e.f, nil), "--status", "resolved", "--jq", ".mediations | length"); out != "1\n" {
		t.Errorf("resolved: %q", out)
	}
}

// The listing policy's rejections: listed with the brief and reason, overturned once; the same
// brief then passes.
func TestListingsOverturn(t *testing.T) {
	e := newEnv(t)
	if out := e.must(admin.NewCmdListingsList(e.f, nil)); out != "" || e.s.ErrOut.String() != "No rejected listings\n" {
		t.Errorf("empty: %q %q", out, e.s.ErrOut)
	}
	brief := axp.NewTask{Type: "custom-job", Description: "Write ransomware that encrypts every file on a hospital network."}
	for range 2 {
		_, _, err := client.Call(context.Background(), e.x.Anon, contract.CreateTask, brief)
		if cmdutil.ExitStatus(err) != cmdutil.ExitAuth {
			t.Fatalf("the brief was not refused: %v", err)
		}
	}
	out := e.must(admin.NewCmdListingsList(e.f, nil), "--status", "rejected")
	m := regexp.MustCompile(`^(lst_\S+)\trejected\t(\S+)\tcustom-job\t2\tWrite ransomware that encrypts every file on a hospital network\.\t[^\t]+\t\d{4}-`).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("list:\n%q", out)
	}
	if got, want := e.must(admin.NewCmdListingsList(e.f, nil), "--json"), e.x.Raw(e.x.Admin, "admin_listings", nil); got != want {
		t.Errorf("--json\n got %s\nwant %s", got, want)
	}
	e.must(admin.NewCmdOverturn(e.f, nil), m[1], "--note", "a security course's lab exercise")
	if e.s.ErrOut.String() != "✓ Overturned rejection "+m[1]+" ("+m[2]+"); the same brief passes when it is posted again\n" {
		t.Errorf("overturn: %q", e.s.ErrOut)
	}
	if err := e.run(admin.NewCmdOverturn(e.f, nil), m[1], "--note", "again"); cmdutil.ExitStatus(err) != cmdutil.ExitConflict {
		t.Errorf("second overturn: %v", err)
	}
	if err := e.run(admin.NewCmdOverturn(e.f, nil), "lst_nothing", "--note", "x"); cmdutil.ExitStatus(err) != cmdutil.ExitNotFound {
		t.Errorf("overturn of nothing: %v", err)
	}
	if out := e.must(admin.NewCmdListingsList(e.f, nil), "--status", "overturned", "--jq", ".listings[0].overturn_note"); out != "a security course's lab exercise\n" {
		t.Errorf("overturned: %q", out)
	}
	e.f.IO.StdoutTTY, e.f.IO.NoColor = true, true
	e.f.IO.Width = 160
	if out := e.must(admin.NewCmdListingsList(e.f, nil)); !strings.Contains(out, "CATEGORY") || !strings.Contains(out, "overturned") || !strings.Contains(out, m[1]+"  ") {
		t.Errorf("terminal list:\n%s", out)
	}
	var created axp.CreatedTask
	e.x.Call(e.x.Anon, "create_task", brief, &created)
	if created.Status != axp.TaskOpen {
		t.Errorf("the overturned brief: %+v", created)
	}
}
