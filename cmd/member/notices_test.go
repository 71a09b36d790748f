package member_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/axp-exchange/axp"
	"github.com/axp-exchange/axp/client"
	"github.com/axp-exchange/axp/cmd/cmdtest"
	"github.com/axp-exchange/axp/contract"
	"github.com/axp-exchange/axp/daemon"
	"github.com/axp-exchange/axp/memberkit"
)

// TestServeSaysWhenContactDetailsAreRemoved: a seller whose deliveries hold an email reads on its
// terminal, in plain words, that the exchange removed it, then that it is warned, then that it is
// suspended and what to do; once the operator reinstates it, the job accepted meanwhile asks for
// its payment by itself.
func TestServeSaysWhenContactDetailsAreRemoved(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the job script is a shell script")
	}
	bin := cmdtest.AxpBinary(t)
	ex := newExchange(t, func(c *daemon.Config) { c.ContactWarnAt, c.ContactSuspendAt = 1, 2 })
	work := t.TempDir()
	env := testEnv(work)
	skills, job := filepath.Join(work, "skills.yaml"), filepath.Join(work, "do-job")
	os.WriteFile(skills, []byte("- task_type: text-file\n  min_price_usd: 0.5\n  typical_eta_minutes: 5\n"), 0o644)
	os.WriteFile(job, []byte("#!/bin/sh\ncat >/dev/null\necho 'Done. Questions? mail me at seller@example.com'\n"), 0o755)
	dir := filepath.Join(work, "seller")
	seller := start(t, "seller", env, bin, "member", "serve", "--role", "seller", "--exchange", ex.URL,
		"--skills", skills, "--exec", job, "--dir", dir, "--payment-retry", "200ms", "--payout-address", "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed")
	seller.waitEvent("verification", verified)
	creds, err := memberkit.LoadCredentials(memberkit.CredentialsPath(dir))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	says := func(what, text string) {
		t.Helper()
		eventually(t, what, func() error {
			if s := seller.stderr.String(); !strings.Contains(s, text) {
				return fmt.Errorf("%q not in:\n%s", text, s)
			}
			return nil
		})
	}
	var tasks []string
	var buyers []*client.Client
	for i := range 2 {
		id, buyer := ex.paidTask(creds.MemberID, fmt.Sprint("a note ", i), seller)
		says("the removal", "the exchange removed contact details (email) from your delivery of task "+id)
		tasks, buyers = append(tasks, id), append(buyers, buyer)
		if i == 0 {
			says("the warning", "WARNING from the exchange: Contact details or credentials were removed from your texts.")
		}
	}
	says("the suspension", "ACTION REQUIRED: Your membership is suspended.")
	says("what to do", "what to do: ")
	// Accepted while suspended: the exchange cannot tell the seller, whose requests are refused.
	if _, err := client.Do(ctx, buyers[1], contract.GetDeliverable, axp.TaskRef{ID: tasks[1]}); err != nil {
		t.Fatal(err)
	}
	if _, _, err := client.Call(ctx, buyers[1], contract.AcceptTask, axp.AcceptInput{TaskRef: axp.TaskRef{ID: tasks[1]}}); err != nil {
		t.Fatal(err)
	}
	if _, _, err := client.Call(ctx, ex.admin, contract.AdminUnsuspend, axp.SuspendBody{ID: creds.MemberID}); err != nil {
		t.Fatal(err)
	}
	eventually(t, "the reinstated seller asks for its payment", func() error { return ex.payoutRequested(tasks[1], axp.ApprovalPending) })
}
