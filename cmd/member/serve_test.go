package member_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/axp-exchange/axp"
	"github.com/axp-exchange/axp/client"
	"github.com/axp-exchange/axp/cmd/cmdtest"
	"github.com/axp-exchange/axp/contract"
	"github.com/axp-exchange/axp/memberkit"
	"github.com/axp-exchange/axp/protocol"
)

const skillsYAML = `# the seller's skills
- task_type: text-file
  description: Writes a text file
  min_price_usd: 1.5
  typical_eta_minutes: 10
- task_type: summary
  instant_price_usd: 0.75
  instant_eta_minutes: 2
  guarantee: {free_redo: 1, refund_if_fails_checks: true}
`

// jobScript reads the job on stdin and writes a Markdown result.
const jobScript = `#!/bin/sh
job=$(cat)
case "$job" in *'"task_id"'*) ;; *) echo "no job on stdin" >&2; exit 3;; esac
printf '# Result for %s\n\n- task type: %s\n- test: %s\n' "$AXP_TASK_ID" "$AXP_TASK_TYPE" "$AXP_TEST"
`

func verified(e map[string]any) bool { return e["passed"] == true }

// TestServeEndToEnd runs `axp member serve` (the real binary) as a seller and as a buyer against a
// real exchange: both register and verify, the seller passes conformance and a sandbox job, and a
// crypto job completes: post, quote, choose, pay (approved by the operator), do_task runs --exec,
// delivery, acceptance, payment request. A restart reuses the saved credentials.
func TestServeEndToEnd(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the job script is a shell script")
	}
	bin := cmdtest.AxpBinary(t)
	ex := newExchange(t)
	work := t.TempDir()
	env := testEnv(work)
	skills := filepath.Join(work, "skills.yaml")
	job := filepath.Join(work, "do-job")
	os.WriteFile(skills, []byte(skillsYAML), 0o644)
	os.WriteFile(job, []byte(jobScript), 0o755)
	sellerDir, buyerDir := filepath.Join(work, "seller"), filepath.Join(work, "buyer")

	payout := "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed"
	if status, _, stderr := run(t, env, bin, "member", "serve", "--role", "seller", "--exchange", ex.URL, "--dir", sellerDir,
		"--payout-address", strings.ToUpper(payout[:10])+payout[10:]); status != 2 || !strings.Contains(stderr, "EIP-55") {
		t.Fatalf("a checksum-wrong payout address: status %d\n%s", status, stderr)
	}
	seller := start(t, "seller", env, bin, "member", "serve", "--role", "seller", "--exchange", ex.URL, "--dir", sellerDir,
		"--skills", skills, "--exec", job, "--name", "e2e seller", "--payout-address", payout)
	started := seller.waitEvent("started", nil)
	if started["registered"] != true || !strings.HasPrefix(fmt.Sprint(started["mcp_url"]), "http://127.0.0.1:") {
		t.Fatalf("started line %v", started)
	}
	seller.waitEvent("verification", verified)
	if !strings.Contains(seller.stderr.String(), "serving MCP at http://127.0.0.1:") || !strings.Contains(seller.stderr.String(), "ok   contact_test") {
		t.Fatalf("stderr does not show the URL and the steps:\n%s", seller.stderr)
	}
	// "summary" is neither in the catalog nor offered by another seller: warned at registration.
	if !strings.Contains(seller.stderr.String(), `skill task_type \"summary\" is neither in the exchange's catalog nor offered by any other seller`) {
		t.Errorf("no warning about the unknown task type at registration:\n%s", seller.stderr)
	}
	sellerID := fmt.Sprint(started["member_id"])
	st, err := os.Stat(memberkit.CredentialsPath(sellerDir))
	if err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("credentials file: %v %v", err, st)
	}

	// "summary" fails the required task_types check: conformance fails on it alone.
	status, stdout, stderr := run(t, env, bin, "member", "conformance", "--dir", sellerDir)
	if status == 0 || !strings.Contains(stdout, "FAIL task_types") || strings.Count(stdout, "FAIL") != 1 ||
		!strings.Contains(stderr, "1 required check(s) failed") {
		t.Fatalf("conformance: status %d\n%s\n%s", status, stdout, stderr)
	}
	for _, check := range []string{"refuses_forged_signature", "refuses_stale_timestamp", "refuses_missing_headers", "honest_quote:summary", "timing"} {
		if !strings.Contains(stdout, "ok   "+check) {
			t.Errorf("conformance report lacks a passed %s:\n%s", check, stdout)
		}
	}
	if !strings.Contains(stderr, `warning: skill task_type "summary" is neither`) {
		t.Errorf("conformance does not warn about the unknown task type:\n%s", stderr)
	}
	// The forged calls of conformance are expected probes, not warnings.
	if s := seller.stderr.String(); !strings.Contains(s, "refused a conformance probe, as expected") || strings.Contains(s, `msg="memberkit: call refused"`) {
		t.Errorf("conformance probes in the seller's log:\n%s", s)
	}
	if status, stdout, stderr := run(t, env, bin, "member", "verify", "--dir", sellerDir); status != 0 || !strings.Contains(stdout, "state: verified") ||
		!strings.Contains(stdout, "next: run the deep test: axp member conformance") || !strings.Contains(stderr, `warning: skill task_type "summary" is neither`) {
		t.Fatalf("verify: status %d\n%s\n%s", status, stdout, stderr)
	}
	// Piped, each step is said once: on stdout, at the end.
	if status, stdout, stderr := run(t, env, bin, "member", "sandbox", "--dir", sellerDir, "--as", "seller"); status != 0 || !strings.Contains(stdout, ": passed") ||
		strings.Count(stdout+stderr, " do_task") != 1 {
		t.Fatalf("sandbox: status %d\n%s\n%s", status, stdout, stderr)
	}
	// On a terminal each step shows once, as it comes.
	if status, stdout, stderr := run(t, append(env, "AXP_FORCE_TTY=1"), bin, "member", "sandbox", "--dir", sellerDir, "--as", "seller"); status != 0 ||
		!strings.Contains(stdout, ": passed") || strings.Count(stdout+stderr, " do_task") != 1 {
		t.Fatalf("sandbox on a terminal: status %d\n%s\n%s", status, stdout, stderr)
	}

	buyer := start(t, "buyer", env, bin, "member", "serve", "--role", "buyer", "--exchange", ex.URL, "--dir", buyerDir)
	buyer.waitEvent("verification", verified)
	if status, stdout, stderr := run(t, env, bin, "member", "sandbox", "--dir", buyerDir, "--as", "buyer"); status != 0 || !strings.Contains(stdout, ": passed") {
		t.Fatalf("buyer sandbox: status %d\n%s\n%s", status, stdout, stderr)
	}

	// The buyer posts a crypto task; the seller quotes through its MCP server.
	bcreds, err := memberkit.LoadCredentials(memberkit.CredentialsPath(buyerDir))
	if err != nil {
		t.Fatal(err)
	}
	scredsFile, err := memberkit.LoadCredentials(memberkit.CredentialsPath(sellerDir))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	bkit := memberkit.NewClient(ex.URL, bcreds.MemberSecret)
	created, err := bkit.CreateTask(ctx, axp.NewTask{Type: "text-file", Description: "write a greeting", Params: map[string]any{"prompt": "hello"}})
	if err != nil {
		t.Fatal(err)
	}
	var offerID string
	for _, o := range created.Offers {
		if o.Seller.ID == sellerID {
			offerID = o.OfferID
			if o.PriceUSD.String() != "1.5" || o.ETAMinutes != 10 {
				t.Fatalf("the seller quoted %s in %d min, not its declared 1.5 in 10", o.PriceUSD, o.ETAMinutes)
			}
		}
	}
	if offerID == "" {
		t.Fatalf("no offer from the seller: %+v\nseller stderr:\n%s", created.Offers, seller.stderr)
	}
	buyer.waitEvent("offers", func(e map[string]any) bool { return e["task_id"] == created.ID })
	seller.waitEvent("quote", func(e map[string]any) bool { return e["task_id"] == created.ID && e["kind"] == "price" })

	// Choose and pay; the operator confirms the payment; do_task runs the command, which delivers.
	if _, err := bkit.Choose(ctx, created.ID, offerID); err != nil {
		t.Fatal(err)
	}
	bcl := client.New(ex.URL, bcreds.MemberSecret)
	ex.pay(bcl, created.ID)
	seller.waitEvent("job", func(e map[string]any) bool { return e["task_id"] == created.ID && e["status"] == "delivered" })
	var task *axp.Task
	eventually(t, "delivery", func() error {
		task, err = bkit.Task(ctx, created.ID)
		if err != nil {
			return err
		}
		if task.Status != axp.TaskDelivered {
			return fmt.Errorf("task is %s", task.Status)
		}
		return nil
	})
	resp, err := client.Do(ctx, bcl, contract.GetDeliverable, axp.TaskRef{ID: created.ID})
	if err != nil {
		t.Fatal(err)
	}
	if body := string(resp.Body); !strings.HasPrefix(body, "# Result for "+created.ID) || !strings.Contains(body, "task type: text-file") {
		t.Fatalf("deliverable %q", body)
	}
	if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/markdown") {
		t.Errorf("deliverable Content-Type %q, want text/markdown (detected)", ct)
	}
	buyer.waitEvent("task_update", func(e map[string]any) bool { return e["task_id"] == created.ID && e["status"] == axp.TaskDelivered })

	if _, _, err := client.Call(ctx, bcl, contract.AcceptTask, axp.AcceptInput{TaskRef: axp.TaskRef{ID: created.ID}}); err != nil {
		t.Fatal(err)
	}
	skit := memberkit.NewClient(ex.URL, scredsFile.MemberSecret)
	// The seller asks to be paid by itself, to the address it was started with.
	eventually(t, "the seller requests payment", func() error { return ex.payoutRequested(created.ID, axp.ApprovalPending) })
	// The line is written once the request's answer is back, after the exchange stored it.
	eventually(t, "a readable line for the acceptance", func() error {
		if s := seller.stderr.String(); !strings.Contains(s, "the buyer accepted task "+created.ID+"; the payout waits for the operator's approval") {
			return fmt.Errorf("not in:\n%s", s)
		}
		return nil
	})
	if status, stdout, _ := run(t, env, bin, "member", "payout-address", "--dir", sellerDir); status != 0 || strings.TrimSpace(stdout) != payout {
		t.Fatalf("payout-address: %d %q", status, stdout)
	}
	other := "0x" + strings.Repeat("ab", 20)
	if status, stdout, _ := run(t, env, bin, "member", "payout-address", other, "--dir", sellerDir); status != 0 || !strings.Contains(stdout, "set to "+other) {
		t.Fatalf("payout-address ADDR: %d %q", status, stdout)
	}
	if status, _, stderr := run(t, env, bin, "member", "payout-address", "0x12", "--dir", sellerDir); status != 2 || !strings.Contains(stderr, "not an EVM address") {
		t.Fatalf("payout-address 0x12: %d %q", status, stderr)
	}
	// The seller sees its money: the job's payout waits for the operator.
	if status, stdout, stderr := run(t, env, bin, "member", "earnings", "--dir", sellerDir); status != 0 ||
		!strings.Contains(stdout, created.ID) || !strings.Contains(stdout, "pending") || !strings.Contains(stdout, other) {
		t.Fatalf("earnings: %d %q %q", status, stdout, stderr)
	}
	var earned axp.Earnings
	if status, stdout, _ := run(t, env, bin, "member", "earnings", "--dir", sellerDir, "--json"); status != 0 || json.Unmarshal([]byte(stdout), &earned) != nil ||
		len(earned.Jobs) != 1 || earned.Jobs[0].Payout != "pending" || earned.PendingUSD != earned.Jobs[0].NetUSD || earned.PendingUSD <= 0 {
		t.Fatalf("earnings --json: %d %q", status, stdout)
	}
	buyer.waitEvent("task_update", func(e map[string]any) bool { return e["task_id"] == created.ID && e["status"] == axp.TaskAccepted })

	seller.stop()
	buyer.stop()
	if !strings.Contains(seller.stderr.String(), "member stopped") {
		t.Errorf("seller stderr:\n%s", seller.stderr)
	}

	// A restart reuses the credentials: same member, a new port registered, verified again.
	again := start(t, "seller again", env, bin, "member", "serve", "--role", "seller", "--dir", sellerDir, "--skills", skills, "--exec", job)
	s2 := again.waitEvent("started", nil)
	if s2["registered"] != false || s2["member_id"] != sellerID {
		t.Fatalf("restart: %v", s2)
	}
	again.waitEvent("verification", verified)
	p, err := skit.Profile(ctx)
	if err != nil || p.MCPURL != s2["mcp_url"] || !p.Verified {
		t.Fatalf("after restart: %v %+v", err, p)
	}
	// The same directory cannot serve another role.
	status, _, stderr = run(t, env, bin, "member", "serve", "--role", "buyer", "--dir", sellerDir)
	if status == 0 || !strings.Contains(stderr, "another member") {
		t.Fatalf("role change: status %d\n%s", status, stderr)
	}
	again.stop()
}

// TestServeExecFailsFast: a command that fails at once turns the job down (accepted: false), and
// the task goes back to the buyer's choice.
func TestServeExecFailsFast(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the job command is a shell command")
	}
	bin := cmdtest.AxpBinary(t)
	ex := newExchange(t)
	work := t.TempDir()
	env := testEnv(work)
	skills := filepath.Join(work, "skills.json")
	os.WriteFile(skills, []byte(`[{"task_type": "text-file", "instant_price_usd": 0.5, "instant_eta_minutes": 1}]`), 0o644)
	seller := start(t, "seller", env, bin, "member", "serve", "--role", "seller", "--exchange", ex.URL, "--dir", filepath.Join(work, "s"),
		"--skills", skills, "--exec", "echo 'out of paper' >&2; exit 7")
	sellerID := fmt.Sprint(seller.waitEvent("started", nil)["member_id"])
	seller.waitEvent("verification", verified)

	anon := client.New(ex.URL, "")
	created, _, err := client.Call(context.Background(), anon, contract.CreateTask, axp.NewTask{Type: "text-file", Description: "x", Params: map[string]any{"prompt": "p"}})
	if err != nil {
		t.Fatal(err)
	}
	buyer := anon.With(created.BuyerToken)
	var offerID string
	for _, o := range created.Offers {
		if o.Seller.ID == sellerID && o.Instant {
			offerID = o.OfferID
		}
	}
	if offerID == "" {
		t.Fatalf("no instant offer: %+v", created.Offers)
	}
	if _, _, err := client.Call(context.Background(), buyer, contract.ChooseOffer, axp.ChooseInput{TaskRef: axp.TaskRef{ID: created.ID}, OfferID: offerID}); err != nil {
		t.Fatal(err)
	}
	ex.pay(buyer, created.ID)
	// The buyer is told the job could not be done; the command's error output stays with the seller.
	e := seller.waitEvent("job", func(e map[string]any) bool { return e["task_id"] == created.ID && e["status"] == "declined" })
	if e["reason"] != "the seller could not do this job" {
		t.Fatalf("decline reason %v", e["reason"])
	}
	if f := seller.waitEvent("job", func(e map[string]any) bool { return e["task_id"] == created.ID && e["status"] == "failed" }); !strings.Contains(fmt.Sprint(f["error"]), "out of paper") {
		t.Errorf("the seller's own event lacks why: %v", f)
	}
	eventually(t, "the seller's terminal says what failed", func() error {
		if s := seller.stderr.String(); !strings.Contains(s, "job "+created.ID+" failed: the command failed (exit status 7): out of paper") {
			return fmt.Errorf("stderr:\n%s", s)
		}
		return nil
	})
	eventually(t, "task back to the buyer", func() error {
		task, _, err := client.Call(context.Background(), buyer, contract.GetTask, axp.TaskQuery{TaskRef: axp.TaskRef{ID: created.ID}})
		if err != nil {
			return err
		}
		if task.Seller != nil {
			return fmt.Errorf("task is %s with seller %s", task.Status, task.Seller.ID)
		}
		return nil
	})
	for _, read := range []func() ([]byte, error){
		func() ([]byte, error) {
			_, raw, err := client.Call(context.Background(), buyer, contract.GetTask, axp.TaskQuery{TaskRef: axp.TaskRef{ID: created.ID}})
			return raw, err
		},
		func() ([]byte, error) {
			_, raw, err := client.Call(context.Background(), buyer, contract.GetTimeline, axp.TaskRef{ID: created.ID})
			return raw, err
		},
	} {
		raw, err := read()
		if err != nil || strings.Contains(string(raw), "out of paper") || strings.Contains(string(raw), "exit status") {
			t.Errorf("the buyer reads the command's error: %v\n%s", err, raw)
		}
	}
	seller.stop()
}

// TestServeRefusesReplayedJob: a captured do_task sent three times to `axp member serve` runs the
// job's command once; the two replays are refused with 401.
func TestServeRefusesReplayedJob(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the job command is a shell command")
	}
	bin := cmdtest.AxpBinary(t)
	ex := newExchange(t)
	work := t.TempDir()
	env := testEnv(work)
	skills := filepath.Join(work, "skills.json")
	os.WriteFile(skills, []byte(`[{"task_type": "text-file", "instant_price_usd": 0.5, "instant_eta_minutes": 1}]`), 0o644)
	runs := filepath.Join(work, "runs")
	dir := filepath.Join(work, "s")
	seller := start(t, "seller", env, bin, "member", "serve", "--role", "seller", "--exchange", ex.URL, "--dir", dir,
		"--skills", skills, "--exec", "cat >/dev/null; echo run >> "+runs+"; echo done")
	started := seller.waitEvent("started", nil)
	seller.waitEvent("verification", verified)
	creds, err := memberkit.LoadCredentials(memberkit.CredentialsPath(dir))
	if err != nil {
		t.Fatal(err)
	}
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": map[string]any{
		"name": "do_task", "arguments": protocol.DoTaskInput{TaskID: "tsk_captured", TaskType: "text-file", Description: "once only",
			Params: map[string]any{}, PriceUSD: axp.USD(0, 50), ETAMinutes: 1, DeliverURL: ex.URL + "/api/members/me/jobs/tsk_captured/deliver"}}})
	h := http.Header{"Content-Type": {"application/json"}, "Accept": {"application/json, text/event-stream"}}
	protocol.SignRequest(h, creds.MemberID, []byte(creds.PlatformKey), "", body, time.Now())
	var statuses []int
	for range 3 {
		req, _ := http.NewRequest(http.MethodPost, fmt.Sprint(started["mcp_url"]), bytes.NewReader(body))
		req.Header = h.Clone()
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		statuses = append(statuses, res.StatusCode)
	}
	if statuses[0] != 200 || statuses[1] != 401 || statuses[2] != 401 {
		t.Fatalf("statuses of the call and its two replays: %v", statuses)
	}
	eventually(t, "the job ran", func() error {
		b, _ := os.ReadFile(runs)
		if n := strings.Count(string(b), "run"); n != 1 {
			return fmt.Errorf("the job ran %d times", n)
		}
		return nil
	})
	seller.stop()
}
