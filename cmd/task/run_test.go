package task_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/axp-exchange/axp"
	"github.com/axp-exchange/axp/client"
	"github.com/axp-exchange/axp/cmd/cmdtest"
	"github.com/axp-exchange/axp/cmd/cmdutil"
	"github.com/axp-exchange/axp/cmd/task"
	"github.com/spf13/cobra"
)

// Run tests: the commands against a real exchange over httptest, through the real client.

type env struct {
	t *testing.T
	x *cmdtest.Exchange
	f *cmdutil.Factory
	s *cmdtest.Streams
}

func newEnv(t *testing.T) *env {
	t.Helper()
	return envOn(t, cmdtest.NewExchange(t))
}

// envOn is the env of exchange x.
func envOn(t *testing.T, x *cmdtest.Exchange) *env {
	f, s := cmdtest.Factory(t, x.URL, nil)
	return &env{t: t, x: x, f: f, s: s}
}

// run runs a command built for the env's factory with args and returns its error.
func (e *env) run(c *cobra.Command, args ...string) error {
	e.t.Helper()
	e.s.Reset()
	return cmdtest.Exec(c, args...)
}

// must runs a command that must succeed.
func (e *env) must(c *cobra.Command, args ...string) string {
	e.t.Helper()
	if err := e.run(c, args...); err != nil {
		e.t.Fatalf("%s %v: %v\nstderr: %s", c.Name(), args, err, e.s.ErrOut)
	}
	return e.s.Out.String()
}

// post creates a text-file task through the command and returns its id.
func (e *env) post(args ...string) string {
	e.t.Helper()
	out := e.must(task.NewCmdCreate(e.f, nil), append([]string{"--type", "text-file", "--param", "prompt=a haiku", "--jq", ".id"}, args...)...)
	return strings.TrimSpace(out)
}

// buyer is a client with the saved buyer token of a task.
func (e *env) buyer(id string) *client.Client {
	e.t.Helper()
	creds, err := e.f.ExchangeCredentials()
	if err != nil {
		e.t.Fatal(err)
	}
	return e.x.Anon.With(creds.BuyerTokens[id])
}

func (e *env) sellers() (quick, slow *axp.Registered) {
	quick = e.x.MustSeller(cmdtest.SellerSpec{Name: "Quick Writer", TaskType: "text-file", Price: "2.50", ETA: 10, FreeRedo: 1, Payout: cmdtest.PayoutAddress})
	slow = e.x.MustSeller(cmdtest.SellerSpec{Name: "Slow Poet", TaskType: "text-file", Price: "3.00", ETA: 60})
	return
}

func TestCreateListViewOffers(t *testing.T) {
	e := newEnv(t)
	e.sellers()
	out := e.must(task.NewCmdCreate(e.f, nil), "--type", "text-file", "--param", "prompt=a haiku")
	m := regexp.MustCompile(`✓ Posted task (tsk_\S+) \(text-file\) anonymously`).FindStringSubmatch(e.s.ErrOut.String())
	if m == nil {
		t.Fatalf("stderr: %s", e.s.ErrOut)
	}
	id := m[1]
	// Piped, create prints the task id alone; the offers are a table of `axp offers`.
	if out != id+"\n" || !strings.Contains(e.s.ErrOut.String(), "2 offers: axp offers "+id) {
		t.Fatalf("piped create: stdout %q, stderr %q", out, e.s.ErrOut)
	}
	lines := cmdtest.Lines(e.must(task.NewCmdOffers(e.f, nil), id))
	if len(lines) != 2 || !regexp.MustCompile(`^1\tofr_\S+\tQuick Writer\t2\.5\t2\.475\t10\tno record\tnew$`).MatchString(lines[0]) ||
		!regexp.MustCompile(`^2\tofr_\S+\tSlow Poet\t3\t2\.97\t60\tno record\tnew$`).MatchString(lines[1]) {
		t.Fatalf("offers table:\n%s", lines)
	}
	st, err := os.Stat(e.f.CredentialsPath())
	if err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("credentials file: %v %v", st, err)
	}
	if dir, _ := os.Stat(filepath.Dir(e.f.CredentialsPath())); dir.Mode().Perm() != 0o700 {
		t.Errorf("config dir mode %v", dir.Mode())
	}
	buyer := e.buyer(id)

	// view --json and offers --json are exactly the exchange's answer.
	if got, want := e.must(task.NewCmdView(e.f, nil), id, "--json"), e.x.Raw(buyer, "get_task", map[string]any{"id": id}); got != want {
		t.Errorf("view --json\n got %s\nwant %s", got, want)
	}
	if got, want := e.must(task.NewCmdOffers(e.f, nil), id, "--sort", "eta", "--json"), e.x.Raw(buyer, "get_task", map[string]any{"id": id, "sort": "eta"}); got != want {
		t.Errorf("offers --json\n got %s\nwant %s", got, want)
	}
	if got := e.must(task.NewCmdOffers(e.f, nil), id, "--sort", "price", "--jq", "[.offers[].seller.name] | join(\",\")"); got != "Quick Writer,Slow Poet\n" {
		t.Errorf("offers --jq: %q", got)
	}
	if got := e.must(task.NewCmdView(e.f, nil), id, "--template", "{{.status}} {{len .offers}}"); got != "open 2" {
		t.Errorf("view --template: %q", got)
	}

	// list: the saved task, as a table and as {"tasks": [...]}.
	if out := e.must(task.NewCmdList(e.f, nil)); !regexp.MustCompile(`^` + id + `\ttext-file\topen\t2\t\t\d{4}-`).MatchString(out) {
		t.Errorf("list:\n%s", out)
	}
	var l struct {
		Tasks []json.RawMessage `json:"tasks"`
	}
	if err := json.Unmarshal([]byte(e.must(task.NewCmdList(e.f, nil), "--json")), &l); err != nil || len(l.Tasks) != 1 {
		t.Fatalf("list --json: %v %s", err, e.s.Out)
	}
	var compact bytes.Buffer
	json.Compact(&compact, []byte(e.x.Raw(buyer, "get_task", map[string]any{"id": id})))
	if string(l.Tasks[0]) != compact.String() {
		t.Errorf("list --json task\n got %s\nwant %s", l.Tasks[0], compact.String())
	}
	if out := e.must(task.NewCmdList(e.f, nil), "--status", "paid"); out != "" || !strings.Contains(e.s.ErrOut.String(), "No tasks for") {
		t.Errorf("list --status paid: %q %q", out, e.s.ErrOut)
	}

	// On a terminal: aligned columns, the recommendation marked, details of the task.
	e.f.IO.StdoutTTY, e.f.IO.NoColor = true, true
	out = e.must(task.NewCmdView(e.f, nil), id)
	for _, want := range []string{"Task", id, "Status", "open", "Params", "prompt=a haiku", "Offers (2)", "1*", "US$2.50", "10 min", "* recommended"} {
		if !strings.Contains(out, want) {
			t.Errorf("view on a terminal lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "\x1b[") {
		t.Errorf("colour with NO_COLOR: %q", out)
	}
	e.f.IO.NoColor = false
	e.f.IO.Width = 120
	if out := e.must(task.NewCmdList(e.f, nil)); !strings.Contains(out, "ID") || !strings.Contains(out, "\x1b[33mopen  \x1b[0m") {
		t.Errorf("list on a colour terminal:\n%q", out)
	}
	e.f.IO.NoColor = true
	if out := e.must(task.NewCmdList(e.f, nil)); strings.Contains(out, "\x1b[") {
		t.Errorf("colour with NO_COLOR:\n%q", out)
	}
}

func TestCreateSpinnerAndAutoChoose(t *testing.T) {
	e := newEnv(t)
	e.sellers()
	e.f.IO.StderrTTY = true
	e.must(task.NewCmdCreate(e.f, nil), "--type", "text-file", "--param", "prompt=x", "--auto-choose", "cheapest")
	errOut := e.s.ErrOut.String()
	if !strings.Contains(errOut, "⠋ Posting the task and waiting for quotes") || !strings.Contains(errOut, "\r\x1b[K") {
		t.Errorf("no spinner on a terminal: %q", errOut)
	}
	if !strings.Contains(errOut, "The exchange chose offer ofr_") || !regexp.MustCompile(`^tsk_\S+\n$`).MatchString(e.s.Out.String()) {
		t.Errorf("auto-choose: %q\n%s", errOut, e.s.Out)
	}
	e.f.IO.StderrTTY = false
	e.must(task.NewCmdCreate(e.f, nil), "--type", "image", "--param", "prompt=a fox")
	if strings.Contains(e.s.ErrOut.String(), "⠋") || !strings.Contains(e.s.ErrOut.String(), "No offers yet") {
		t.Errorf("stderr without a terminal: %q", e.s.ErrOut)
	}
}

func TestMemberTasks(t *testing.T) {
	e := newEnv(t)
	e.sellers()
	m, err := e.x.Register(map[string]any{"roles": []string{"buyer"}, "name": "Buyer Bot"})
	if err != nil {
		t.Fatal(err)
	}
	e.f.UpdateCredentials(func(c *cmdutil.ExchangeCredentials) error {
		c.MemberSecret, c.MemberID = m.MemberSecret, m.MemberID
		return nil
	})
	e.must(task.NewCmdCreate(e.f, nil), "--type", "text-file", "--param", "prompt=x")
	if !strings.Contains(e.s.ErrOut.String(), "as member Buyer Bot") {
		t.Errorf("stderr %q", e.s.ErrOut)
	}
	anon := e.post("--anonymous")
	// The member's task is listed through GET /api/members/me/tasks even without its buyer token.
	e.f.UpdateCredentials(func(c *cmdutil.ExchangeCredentials) error {
		for id := range c.BuyerTokens {
			if id != anon {
				delete(c.BuyerTokens, id)
			}
		}
		return nil
	})
	var l axp.TaskList
	if err := json.Unmarshal([]byte(e.must(task.NewCmdList(e.f, nil), "--json")), &l); err != nil || len(l.Tasks) != 2 {
		t.Fatalf("list: %v %s", err, e.s.Out)
	}
	// A member's own task opens with the member secret.
	mine := l.Tasks[0].ID
	if mine == anon {
		mine = l.Tasks[1].ID
	}
	e.must(task.NewCmdView(e.f, nil), mine, "--jq", ".id")
}

func TestChooseAsksOnATerminal(t *testing.T) {
	e := newEnv(t)
	e.sellers()
	id := e.post()
	e.f.IO.StdinTTY, e.f.IO.StdoutTTY = true, true
	e.s.In.WriteString("n\n")
	if err := e.run(task.NewCmdChoose(e.f, nil), id); !errors.Is(err, task.ErrCancelled) {
		t.Fatalf("no: %v", err)
	}
	if !strings.Contains(e.s.ErrOut.String(), "? Choose offer ofr_") || !strings.Contains(e.s.ErrOut.String(), "from Quick Writer at US$2.50, ETA 10 min? [y/N]") {
		t.Errorf("question: %q", e.s.ErrOut)
	}
	if got := e.must(task.NewCmdView(e.f, nil), id, "--jq", ".status"); got != "open\n" {
		t.Fatalf("after no the task is %s", got)
	}
	e.s.In.WriteString("y\n")
	out := e.must(task.NewCmdChoose(e.f, nil), id, "2")
	if !strings.Contains(e.s.ErrOut.String(), "✓ Chose offer") || !strings.Contains(e.s.ErrOut.String(), "Slow Poet") {
		t.Errorf("stderr %q", e.s.ErrOut)
	}
	for _, want := range []string{"Payable", "US$3.00", "Deposit address", cmdtest.DepositAddress} {
		if !strings.Contains(out, want) {
			t.Errorf("payment lacks %q:\n%s", want, out)
		}
	}
	// No chain here: the operator confirms a reported payment, so the buyer reports it.
	if msg := e.s.ErrOut.String(); !strings.Contains(msg, "Send the payable amount, then report it: axp task pay "+id+" --tx <hash>\n") || strings.Contains(msg, "watcher") {
		t.Errorf("what to do once paid: %q", msg)
	}
	// Choosing again, with or without an offer: already chosen, pay it (and how).
	for _, args := range [][]string{{id, "--yes"}, {id, "1", "--yes"}} {
		err := e.run(task.NewCmdChoose(e.f, nil), args...)
		var ae *axp.Error
		if cmdutil.ExitStatus(err) != cmdutil.ExitConflict || !errors.As(err, &ae) ||
			!strings.HasPrefix(ae.Message, "task "+id+" is already chosen (offer ofr_") || !strings.HasSuffix(ae.Message, "): pay it") ||
			!strings.Contains(ae.Hint, "axp task pay "+id+" --tx <hash>") {
			t.Errorf("choose %v again: %v", args, err)
		}
	}
}

func TestPayDeliverAccept(t *testing.T) {
	e := newEnv(t)
	quick, _ := e.sellers()
	seller := e.x.Anon.With(quick.MemberSecret)
	id := e.post()
	e.must(task.NewCmdChoose(e.f, nil), id, "--yes")
	// The price is said once, though both the task and its payment carry it.
	if out := e.must(task.NewCmdView(e.f, nil), id); strings.Count(out, "price:\t") != 1 || !strings.Contains(out, "payable:\t") {
		t.Errorf("view after choosing:\n%s", out)
	}
	e.f.IO.StdoutTTY, e.f.IO.NoColor = true, true
	if out := e.must(task.NewCmdView(e.f, nil), id); len(regexp.MustCompile(`(?m)^\s*Price\b`).FindAllString(out, -1)) != 1 {
		t.Errorf("view on a terminal after choosing:\n%s", out)
	}
	e.f.IO.StdoutTTY = false
	if out := e.must(task.NewCmdPay(e.f, nil), "--yes", id); !strings.Contains(out, "payable:\t2.49") || e.s.ErrOut.String() != "Once sent, report it: axp task pay "+id+" --tx <hash>\n" {
		t.Errorf("pay without --tx: %s %s", out, e.s.ErrOut)
	}
	tx := cmdtest.TxHash()
	if out := e.must(task.NewCmdPay(e.f, nil), "--yes", id, "--tx", tx); !strings.Contains(out, "payment:\treported") || !strings.Contains(out, "transaction:\t"+tx) {
		t.Errorf("pay: %s", out)
	}
	var list axp.ApprovalList
	e.x.Call(e.x.Admin, "admin_approvals", map[string]any{"task_id": id}, &list)
	e.x.Call(e.x.Admin, "admin_approve", map[string]any{"id": list.Approvals[0].ID}, nil)
	e.x.Call(seller, "deliver", map[string]any{"id": id, "content": "the sea\n", "filename": "sea.txt"}, nil)

	out := e.must(task.NewCmdWatch(e.f, nil), id, "--until", "delivered", "--interval", "5ms")
	if !regexp.MustCompile(`^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d \S+  ` + id + `  delivered\n$`).MatchString(out) {
		t.Errorf("watch: %q", out)
	}
	if out := e.must(task.NewCmdDeliverable(e.f, nil), id); out != "the sea\n" || !strings.Contains(e.s.ErrOut.String(), "8 bytes, sha256") {
		t.Errorf("deliverable to stdout: %q %q", out, e.s.ErrOut)
	}
	file := filepath.Join(t.TempDir(), "sea.txt")
	e.must(task.NewCmdDeliverable(e.f, nil), id, "-o", file)
	if b, _ := os.ReadFile(file); string(b) != "the sea\n" {
		t.Errorf("file %q", b)
	}
	if err := e.run(task.NewCmdAccept(e.f, nil), "--yes", id, "--sha256", strings.Repeat("0", 64)); cmdutil.ExitStatus(err) != cmdutil.ExitConflict {
		t.Errorf("accept with another sha: %v", err)
	}
	e.must(task.NewCmdAccept(e.f, nil), "--yes", id, "--json")
	var accepted axp.Task
	if err := json.Unmarshal(e.s.Out.Bytes(), &accepted); err != nil || accepted.Status != axp.TaskAccepted {
		t.Fatalf("accept --json: %v %s", err, e.s.Out)
	}
	out = e.must(task.NewCmdTimeline(e.f, nil), id)
	for _, kind := range []string{"\tcreate\t", "\tchoose\t", "\tpayment_reported\t", "\tpay\t", "\tdeliver\t", "\taccept\t"} {
		if !strings.Contains(out, kind) {
			t.Errorf("timeline lacks %q:\n%s", kind, out)
		}
	}
	if strings.Contains(out, "map[") || strings.Contains(out, "<nil>") {
		t.Errorf("timeline details in Go's syntax:\n%s", out)
	}
	// Watch to the end: the payout is approved meanwhile.
	e.x.Call(seller, "request_payment", map[string]any{"id": id}, nil)
	e.x.Call(e.x.Admin, "admin_approvals", map[string]any{"task_id": id, "kind": "payout"}, &list)
	e.x.Call(e.x.Admin, "admin_approve", map[string]any{"id": list.Approvals[0].ID, "tx_hash": cmdtest.TxHash()}, nil)
	if out := e.must(task.NewCmdWatch(e.f, nil), id, "--interval", "5ms", "--jq", ".status"); out != "released\n" || !strings.Contains(e.s.ErrOut.String(), "released") {
		t.Errorf("watch --jq: %q %q", out, e.s.ErrOut)
	}
	// The receipt: the payment confirmed by hand, and the payout with its transaction.
	out = e.must(task.NewCmdReceipt(e.f, nil), id)
	for _, want := range []string{"status:\treleased", "price:\tUS$2.50", "received:\tUS$2.499998", "refunded:\tUS$0.00",
		"payment:\tUS$2.499998 from (confirmed by hand) in " + tx, "payout:\t" + list.Approvals[0].ID + " approved: seller US$2.475, buyer US$0.00"} {
		if !strings.Contains(out, want) {
			t.Errorf("receipt lacks %q:\n%s", want, out)
		}
	}
	e.must(task.NewCmdReceipt(e.f, nil), id, "--json")
	var r axp.TaskReceipt
	if err := json.Unmarshal(e.s.Out.Bytes(), &r); err != nil || r.TaskID != id || len(r.Movements) != 1 || len(r.Movements[0].TxHashes) != 1 {
		t.Errorf("receipt --json: %v %s", err, e.s.Out)
	}
}

func TestRedoDisputeClarify(t *testing.T) {
	e := newEnv(t)
	quick, _ := e.sellers()
	seller := e.x.Anon.With(quick.MemberSecret)
	id := e.post()
	e.must(task.NewCmdChoose(e.f, nil), id, "1", "--yes")
	e.must(task.NewCmdPay(e.f, nil), "--yes", id, "--tx", cmdtest.TxHash())
	var list axp.ApprovalList
	e.x.Call(e.x.Admin, "admin_approvals", map[string]any{"task_id": id}, &list)
	e.x.Call(e.x.Admin, "admin_approve", map[string]any{"id": list.Approvals[0].ID}, nil)
	e.x.Call(seller, "deliver", map[string]any{"id": id, "content": "v1"}, nil)
	e.must(task.NewCmdRedo(e.f, nil), id, "--reason", "make it rhyme")
	if !strings.Contains(e.s.ErrOut.String(), "✓ Asked for a redo of "+id) {
		t.Errorf("redo: %q", e.s.ErrOut)
	}
	e.x.Call(seller, "deliver", map[string]any{"id": id, "content": "v2"}, nil)
	e.must(task.NewCmdDeliverable(e.f, nil), id)
	e.must(task.NewCmdDispute(e.f, nil), id, "--reason", "still no rhyme")
	if !strings.Contains(e.s.ErrOut.String(), "; the task is disputed") {
		t.Errorf("dispute: %q", e.s.ErrOut)
	}

	// A pull seller asks a question; the buyer answers it.
	_, pull := e.x.PullSeller("translation")
	out := e.must(task.NewCmdCreate(e.f, nil), "--type", "translation", "--param", "text=hello", "--param", "target_language=fr", "--jq", ".id")
	tid := strings.TrimSpace(out)
	e.x.Call(pull, "submit_offer", map[string]any{"id": tid, "clarify": true, "questions": []string{"Formal or casual?"}}, nil)
	if out := e.must(task.NewCmdView(e.f, nil), tid); !strings.Contains(out, "asks: Formal or casual?") {
		t.Errorf("view does not show the question:\n%s", out)
	}
	e.must(task.NewCmdClarify(e.f, nil), tid, "--answer", "Formal or casual?=casual")
	if !strings.Contains(e.s.ErrOut.String(), "✓ Answered the questions on "+tid) {
		t.Errorf("clarify: %q", e.s.ErrOut)
	}
}

func TestErrors(t *testing.T) {
	e := newEnv(t)
	e.sellers()
	id := e.post()
	err := e.run(task.NewCmdView(e.f, nil), id, "--token", "bt_wrong")
	var ae *axp.Error
	if !errors.As(err, &ae) || cmdutil.ExitStatus(err) != cmdutil.ExitAuth || ae.Hint != cmdutil.BuyerAuthHint {
		t.Errorf("wrong token: %v (%+v)", err, ae)
	}
	if err := e.run(task.NewCmdView(e.f, nil), "tsk_nope", "--token", "bt_x"); cmdutil.ExitStatus(err) != cmdutil.ExitNotFound {
		t.Errorf("unknown task: %v", err)
	}
	if err := e.run(task.NewCmdView(e.f, nil), id, "--jq", ".["); cmdutil.ExitStatus(err) != cmdutil.ExitUsage || e.s.Out.Len() != 0 {
		t.Errorf("bad jq: %v, stdout %q", err, e.s.Out)
	}
	if err := e.run(task.NewCmdPay(e.f, nil), "--yes", id); cmdutil.ExitStatus(err) != cmdutil.ExitConflict || !strings.Contains(err.Error(), "nothing to pay") {
		t.Errorf("pay before choosing: %v", err)
	}
	e.x.Close()
	err = e.run(task.NewCmdView(e.f, nil), id)
	var un *client.UnreachableError
	if !errors.As(err, &un) || cmdutil.ExitStatus(err) != cmdutil.ExitUnreachable || un.URL != e.x.URL {
		t.Errorf("unreachable: %v", err)
	}
	var b bytes.Buffer
	cmdutil.PrintError(&b, err)
	if !strings.Contains(b.String(), "cannot reach the exchange at "+e.x.URL) || !strings.Contains(b.String(), "`axp serve` (or `make run`)") {
		t.Errorf("printed: %s", b.String())
	}
}

// A deliverable whose bytes do not match X-Content-SHA256 is refused and nothing is written.
func TestDeliverableDamaged(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("X-Content-SHA256", strings.Repeat("ab", 32))
		w.Write([]byte("tampered"))
	}))
	defer srv.Close()
	f, s := cmdtest.Factory(t, srv.URL, nil)
	file := filepath.Join(t.TempDir(), "out.txt")
	err := cmdtest.Exec(task.NewCmdDeliverable(f, nil), "tsk_x", "--token", "bt_x", "-o", file)
	if err == nil || !strings.Contains(err.Error(), "the deliverable is damaged") {
		t.Fatalf("err %v", err)
	}
	if _, serr := os.Stat(file); serr == nil || s.Out.Len() != 0 {
		t.Error("a damaged deliverable was written")
	}
	_ = context.Background
}

// A --type typo is refused before anything reaches the exchange; a custom type is posted with
// --custom-type, and the exchange's questions are said, not asked.
func TestCreateTypeTypo(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		t.Errorf("a typo reached the exchange: %s %s", r.Method, r.URL)
	}))
	defer srv.Close()
	f, s := cmdtest.Factory(t, srv.URL, nil)
	err := cmdtest.Exec(task.NewCmdCreate(f, nil), "--type", "text-fil", "--param", "prompt=a haiku")
	if cmdutil.ExitStatus(err) != cmdutil.ExitUsage || !strings.Contains(err.Error(), "did you mean text-file?") {
		t.Fatalf("typo: %v (exit %d)", err, cmdutil.ExitStatus(err))
	}
	if creds, _ := f.ExchangeCredentials(); creds != nil && len(creds.BuyerTokens) != 0 {
		t.Errorf("a buyer token was saved: %+v", creds)
	}
	if s.Out.Len() != 0 {
		t.Errorf("stdout %q", s.Out)
	}

	e := newEnv(t)
	e.must(task.NewCmdCreate(e.f, nil), "--custom-type", "limerick", "--param", "prompt=x")
	errOut := e.s.ErrOut.String()
	if !strings.Contains(errOut, "(limerick)") || !strings.Contains(errOut, "Sellers will want to know") ||
		!strings.Contains(errOut, "  - Describe the result") || strings.Contains(errOut, "\n? ") {
		t.Errorf("custom type: %q", errOut)
	}
}

// task cancel asks first (on a terminal, with what will happen), needs --yes without one, and
// withdraws the task through cancel_task.
func TestCancel(t *testing.T) {
	e := newEnv(t)
	e.sellers()
	id := e.post()
	if err := e.run(task.NewCmdCancel(e.f, nil), id); cmdutil.ExitStatus(err) != cmdutil.ExitUsage || !strings.Contains(err.Error(), "needs a confirmation") {
		t.Fatalf("without a terminal or --yes: %v", err)
	}
	e.f.IO.StdinTTY, e.f.IO.StdoutTTY = true, true
	e.s.In.WriteString("n\n")
	if err := e.run(task.NewCmdCancel(e.f, nil), id); !errors.Is(err, task.ErrCancelled) {
		t.Fatalf("no: %v", err)
	}
	if msg := e.s.ErrOut.String(); !strings.Contains(msg, "task "+id+" (text-file) is open with 2 offers; cancelling cannot be undone") ||
		!strings.Contains(msg, "Cancel task "+id+"? [y/N]") {
		t.Errorf("question: %q", msg)
	}
	if got := e.must(task.NewCmdView(e.f, nil), id, "--jq", ".status"); got != "open\n" {
		t.Fatalf("after no the task is %s", got)
	}
	e.f.IO.StdinTTY, e.f.IO.StdoutTTY = false, false
	e.must(task.NewCmdCancel(e.f, nil), id, "--yes", "--reason", "found it elsewhere")
	if msg := e.s.ErrOut.String(); msg != "✓ Cancelled task "+id+"; it is "+axp.TaskCancelled+"\n" {
		t.Errorf("stderr %q", msg)
	}
	if err := e.run(task.NewCmdCancel(e.f, nil), id, "--yes"); cmdutil.ExitStatus(err) != cmdutil.ExitConflict {
		t.Errorf("second cancel: %v", err)
	}
	// Watching a cancelled task for a delivery stops at once with exit status 6, not forever.
	err := e.run(task.NewCmdWatch(e.f, nil), id, "--until", "delivered", "--interval", "5ms")
	if ae := (*axp.Error)(nil); cmdutil.ExitStatus(err) != cmdutil.ExitConflict || !errors.As(err, &ae) || ae.Message != "task "+id+" is cancelled and can no longer become delivered" {
		t.Errorf("watch --until delivered of a cancelled task: %v", err)
	}
}
