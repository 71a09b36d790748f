package member_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"

	"github.com/axp-exchange/axp"
	"github.com/axp-exchange/axp/client"
	"github.com/axp-exchange/axp/cmd/cmdtest"
	"github.com/axp-exchange/axp/contract"
	"github.com/axp-exchange/axp/memberkit"
)

// readmeBlock is the fenced block of lang that follows the line naming file in the README.
func readmeBlock(t *testing.T, readme, file, lang string) string {
	t.Helper()
	re := regexp.MustCompile("(?s)`" + regexp.QuoteMeta(file) + "`[^\n]*:\n\n```" + lang + "\n(.*?)```")
	m := re.FindStringSubmatch(readme)
	if m == nil {
		t.Fatalf("the README shows no %s block for %s", lang, file)
	}
	return m[1]
}

// TestServeREADMESellerTakesSixJobs runs the README's seller (its skills.yaml and do-job as the
// README shows them) through six paid jobs: each is delivered with the prompt's text, and the
// seller is neither warned nor suspended (five contact-detail removals would suspend it).
func TestServeREADMESellerTakesSixJobs(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("do-job is a shell script")
	}
	b, err := os.ReadFile(filepath.Join(repoRoot(t), "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	readme := string(b)
	bin := cmdtest.AxpBinary(t)
	ex := newExchange(t)
	work := t.TempDir()
	env := testEnv(work)
	skills, job := filepath.Join(work, "skills.yaml"), filepath.Join(work, "do-job")
	os.WriteFile(skills, []byte(readmeBlock(t, readme, "skills.yaml", "yaml")), 0o644)
	os.WriteFile(job, []byte(readmeBlock(t, readme, "do-job", "sh")), 0o755)
	dir := filepath.Join(work, "seller")
	seller := start(t, "seller", env, bin, "member", "serve", "--role", "seller", "--exchange", ex.URL,
		"--skills", skills, "--exec", job, "--dir", dir)
	seller.waitEvent("verification", verified)
	creds, err := memberkit.LoadCredentials(memberkit.CredentialsPath(dir))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	var last string
	var lastBuyer *client.Client
	for i := range 6 {
		prompt := fmt.Sprintf("a haiku about the sea, number %d", i+1)
		id, buyer := ex.paidTask(creds.MemberID, prompt, seller)
		eventually(t, "delivery", func() error {
			task, _, err := client.Call(ctx, buyer, contract.GetTask, axp.TaskQuery{TaskRef: axp.TaskRef{ID: id}})
			if err != nil {
				return err
			}
			if task.Status != axp.TaskDelivered {
				return fmt.Errorf("task %s is %s\n%s", id, task.Status, seller.stderr)
			}
			return nil
		})
		resp, err := client.Do(ctx, buyer, contract.GetDeliverable, axp.TaskRef{ID: id})
		if err != nil {
			t.Fatal(err)
		}
		if body := string(resp.Body); !strings.HasPrefix(body, prompt+"\n") || strings.Contains(body, "removed]") {
			t.Fatalf("job %d delivered %q", i+1, body)
		}
		last, lastBuyer = id, buyer
	}
	// The buyer accepts the last job; the payout is held for want of an address, and the hint
	// names the command that sets one.
	if _, _, err := client.Call(ctx, lastBuyer, contract.AcceptTask, axp.AcceptInput{TaskRef: axp.TaskRef{ID: last}}); err != nil {
		t.Fatal(err)
	}
	eventually(t, "the held payout", func() error { return ex.payoutRequested(last, axp.ApprovalHeld) })
	al, _, err := client.Call(ctx, ex.admin, contract.AdminApprovals, axp.ApprovalsQuery{Status: "all", TaskID: last, Kind: axp.ApprovePayout})
	if err != nil || len(al.Approvals) != 1 || !strings.Contains(al.Approvals[0].Note, "axp member payout-address") || strings.Contains(al.Approvals[0].Note, "PATCH") {
		t.Fatalf("the held payout %+v (%v)", al, err)
	}
	if status, _, stderr := run(t, env, bin, "member", "payout-address", "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed", "--dir", dir); status != 0 {
		t.Fatalf("payout-address: %d %s", status, stderr)
	}
	eventually(t, "the payout waits for approval", func() error { return ex.payoutRequested(last, axp.ApprovalPending) })
	al, _, _ = client.Call(ctx, ex.admin, contract.AdminApprovals, axp.ApprovalsQuery{Status: "all", TaskID: last, Kind: axp.ApprovePayout})
	tx := fmt.Sprintf("0x%064x", 0xfeed)
	if _, _, err := client.Call(ctx, ex.admin, contract.AdminApprove, axp.ApproveBody{ID: al.Approvals[0].ID, TxHash: tx}); err != nil {
		t.Fatal(err)
	}
	// The seller's terminal gives the amount and the transaction.
	eventually(t, "the payout line", func() error {
		want := "task " + last + " released: the payout of US$0.495 was sent in transaction " + tx
		if s := seller.stderr.String(); !strings.Contains(s, want) {
			return fmt.Errorf("%q not in:\n%s", want, s)
		}
		return nil
	})
	// axp member jobs lists the six with their amounts: five delivered, one paid with its transaction.
	status, stdout, stderr := run(t, env, bin, "member", "jobs", "--dir", dir)
	if status != 0 || strings.Count(stdout, "\tdelivered\tUS$0.50\t") != 5 ||
		!strings.Contains(stdout, last+"\ttext-file\treleased\tUS$0.50\tUS$0.495\tpaid\t"+tx) {
		t.Fatalf("member jobs: %d\n%s\n%s", status, stdout, stderr)
	}
	status, stdout, _ = run(t, env, bin, "member", "jobs", "--dir", dir, "--jq", ".jobs | length")
	if status != 0 || strings.TrimSpace(stdout) != "6" {
		t.Fatalf("member jobs --jq: %d %q", status, stdout)
	}

	sc := client.New(ex.URL, creds.MemberSecret)
	p, _, err := client.Call(ctx, sc, contract.GetMyProfile, struct{}{})
	if err != nil || p.State == axp.MemberSuspended {
		t.Fatalf("after six jobs the README's seller is %+v (%v)", p, err)
	}
	l, _, err := client.Call(ctx, sc, contract.Announcements, struct{}{})
	if err != nil || len(l.Announcements) != 0 {
		t.Fatalf("the README's seller was told %+v (%v)", l, err)
	}
	if s := seller.stderr.String(); strings.Contains(s, "WARNING from the exchange") || strings.Contains(s, "suspend") || strings.Contains(s, "the exchange removed") {
		t.Fatalf("the seller's terminal:\n%s", s)
	}
}
