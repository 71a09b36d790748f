package member_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/axp-exchange/axp"
	"github.com/axp-exchange/axp/client"
	"github.com/axp-exchange/axp/cmd/cmdtest"
	"github.com/axp-exchange/axp/contract"
	"github.com/axp-exchange/axp/daemon"
)

// The tests of this package run the real axp binary (and memberkit's runner) against a real
// exchange: daemon.New served by httptest on loopback.

const adminToken = "axp_admin_test_0123456789abcdef"

// depositAddress is the exchange's deposit address (crypto jobs are paid to it).
const depositAddress = "0xd0d0d0d0d0d0d0d0d0d0d0d0d0d0d0d0d0d0d0d0"

// deadline bounds every wait of these tests.
const deadline = 30 * time.Second

func TestMain(m *testing.M) {
	code := m.Run()
	cmdtest.RemoveAxpBinary()
	os.Exit(code)
}

// repoRoot is the root of the axp module (this package is cmd/member).
func repoRoot(t *testing.T) string {
	t.Helper()
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	return filepath.Dir(filepath.Dir(wd))
}

// exchange is a real exchange on loopback.
type exchange struct {
	t     *testing.T
	d     *daemon.Daemon
	URL   string
	admin *client.Client
}

func newExchange(t *testing.T, mod ...func(*daemon.Config)) *exchange {
	t.Helper()
	cfg := daemon.Defaults()
	cfg.Addr = "127.0.0.1:0"
	cfg.DataDir = t.TempDir()
	cfg.AdminToken = adminToken
	cfg.NoSync = true
	cfg.RegistrationsPerHour = 100000
	cfg.AnonTasksPerMinute = 100000
	cfg.AnonReadsPerMinute = 0
	cfg.QuoteWindow = 2 * time.Second
	cfg.DepositAddress = depositAddress
	cfg.SweepEvery = time.Hour
	cfg.SandboxWait = 20 * time.Second
	for _, f := range mod {
		f(&cfg)
	}
	d, _, err := daemon.New(cfg, io.Discard)
	if err != nil {
		t.Fatalf("daemon.New: %v", err)
	}
	srv := httptest.NewServer(d.Handler())
	d.SetBaseURL(srv.URL)
	t.Cleanup(func() {
		srv.Close()
		d.Close()
	})
	return &exchange{t: t, d: d, URL: srv.URL, admin: client.New(srv.URL, adminToken)}
}

// payoutRequested says whether the task's payout item is in the queue with status.
func (e *exchange) payoutRequested(taskID, status string) error {
	l, _, err := client.Call(context.Background(), e.admin, contract.AdminApprovals, axp.ApprovalsQuery{Status: "all", TaskID: taskID, Kind: axp.ApprovePayout})
	if err != nil {
		return err
	}
	if len(l.Approvals) != 1 || l.Approvals[0].Status != status {
		return fmt.Errorf("payout items %+v, want one %s", l.Approvals, status)
	}
	return nil
}

// paidTask posts a text-file task for prompt, chooses the offer of the seller sellerID and pays it
// (reported and confirmed); it returns the task id and its buyer. seller is the seller's process,
// whose stderr a failure shows.
func (e *exchange) paidTask(sellerID, prompt string, seller *proc) (string, *client.Client) {
	e.t.Helper()
	ctx := context.Background()
	created, _, err := client.Call(ctx, client.New(e.URL, ""), contract.CreateTask, axp.NewTask{Type: "text-file", Params: map[string]any{"prompt": prompt}})
	if err != nil {
		e.t.Fatal(err)
	}
	var offer string
	for _, o := range created.Offers {
		if o.Seller.ID == sellerID {
			offer = o.OfferID
		}
	}
	if offer == "" {
		e.t.Fatalf("no offer from seller %s for %q: %+v\n%s", sellerID, prompt, created.Offers, seller.stderr)
	}
	buyer := client.New(e.URL, created.BuyerToken)
	if _, _, err := client.Call(ctx, buyer, contract.ChooseOffer, axp.ChooseInput{TaskRef: axp.TaskRef{ID: created.ID}, OfferID: offer}); err != nil {
		e.t.Fatal(err)
	}
	e.pay(buyer, created.ID)
	return created.ID, buyer
}

// pay reports a payment for a task as its buyer and has the operator confirm it.
func (e *exchange) pay(buyer *client.Client, taskID string) {
	e.t.Helper()
	tx := fmt.Sprintf("0x%064x", time.Now().UnixNano())
	if _, _, err := client.Call(context.Background(), buyer, contract.PayCryptoOp, axp.PayCryptoInput{TaskRef: axp.TaskRef{ID: taskID}, TxHash: tx}); err != nil {
		e.t.Fatalf("pay_crypto: %v", err)
	}
	l, _, err := client.Call(context.Background(), e.admin, contract.AdminApprovals, axp.ApprovalsQuery{Status: "all", TaskID: taskID})
	if err != nil {
		e.t.Fatal(err)
	}
	for _, a := range l.Approvals {
		if a.Kind == axp.ApprovePayment && a.Status == axp.ApprovalPending {
			if _, _, err := client.Call(context.Background(), e.admin, contract.AdminApprove, axp.ApproveBody{ID: a.ID}); err != nil {
				e.t.Fatalf("approve payment: %v", err)
			}
			return
		}
	}
	e.t.Fatalf("no pending payment approval for %s: %+v", taskID, l.Approvals)
}

// eventually polls f until it returns nil, failing the test at the deadline.
func eventually(t *testing.T, what string, f func() error) {
	t.Helper()
	end := time.Now().Add(deadline)
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for {
		err := f()
		if err == nil {
			return
		}
		if time.Now().After(end) {
			t.Fatalf("%s: still %v after %s", what, err, deadline)
		}
		<-tick.C
	}
}

// syncBuffer is a buffer safe to read while a process writes to it.
type syncBuffer = cmdtest.SyncBuffer

// proc is a command running in the background.
type proc struct {
	t      *testing.T
	name   string
	cmd    *exec.Cmd
	stdout *syncBuffer
	stderr *syncBuffer
	done   chan error
}

func testEnv(home string) []string {
	return []string{"HOME=" + home, "XDG_CONFIG_HOME=" + filepath.Join(home, ".config"), "PATH=" + os.Getenv("PATH"),
		"GOCACHE=" + goEnv("GOCACHE"), "GOMODCACHE=" + goEnv("GOMODCACHE"), "GOPATH=" + goEnv("GOPATH")}
}

func goEnv(key string) string {
	out, err := exec.Command("go", "env", key).Output()
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(out))
}

// start runs bin with args in the background; the process is killed when the test ends.
func start(t *testing.T, name string, env []string, bin string, args ...string) *proc {
	if len(args) >= 2 && args[0] == "member" && args[1] == "serve" {
		args = append(args, "--json") // the events the tests wait for
	}
	t.Helper()
	p := &proc{t: t, name: name, cmd: exec.Command(bin, args...), stdout: &syncBuffer{}, stderr: &syncBuffer{}, done: make(chan error, 1)}
	p.cmd.Env = env
	p.cmd.Stdout, p.cmd.Stderr = p.stdout, p.stderr
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { p.done <- p.cmd.Wait() }()
	t.Cleanup(func() {
		if p.cmd.ProcessState == nil {
			p.cmd.Process.Kill()
			<-p.done
		}
	})
	return p
}

// events parses the JSON lines the process wrote on stdout.
func (p *proc) events() []map[string]any {
	var out []map[string]any
	sc := bufio.NewScanner(strings.NewReader(p.stdout.String()))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		var m map[string]any
		if json.Unmarshal(sc.Bytes(), &m) == nil {
			out = append(out, m)
		}
	}
	return out
}

// waitEvent waits for a JSON line of event for which match (nil: any) holds.
func (p *proc) waitEvent(event string, match func(map[string]any) bool) map[string]any {
	p.t.Helper()
	var got map[string]any
	end := time.Now().Add(deadline)
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for {
		for _, e := range p.events() {
			if e["event"] == event && (match == nil || match(e)) {
				got = e
			}
		}
		if got != nil {
			return got
		}
		select {
		case err := <-p.done:
			p.done <- err
			p.t.Fatalf("%s exited (%v) before writing a %s line\nstdout:\n%s\nstderr:\n%s", p.name, err, event, p.stdout, p.stderr)
		case <-tick.C:
		}
		if time.Now().After(end) {
			p.t.Fatalf("%s wrote no matching %s line within %s\nstdout:\n%s\nstderr:\n%s", p.name, event, deadline, p.stdout, p.stderr)
		}
	}
}

// stop sends SIGTERM and waits for the process to end; it must exit 0.
func (p *proc) stop() {
	p.t.Helper()
	if runtime.GOOS == "windows" {
		p.cmd.Process.Kill()
	} else {
		p.cmd.Process.Signal(syscall.SIGTERM)
	}
	select {
	case err := <-p.done:
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			p.t.Fatalf("%s exited with status %d after SIGTERM\nstderr:\n%s", p.name, ee.ExitCode(), p.stderr)
		} else if err != nil {
			p.t.Fatal(err)
		}
	case <-time.After(deadline):
		p.t.Fatalf("%s still running %s after SIGTERM", p.name, deadline)
	}
}

// run runs bin to its end and returns its exit status and output.
func run(t *testing.T, env []string, bin string, args ...string) (int, string, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), deadline)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Env = env
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return ee.ExitCode(), stdout.String(), stderr.String()
	} else if err != nil {
		t.Fatalf("%s %v: %v", bin, args, err)
	}
	return 0, stdout.String(), stderr.String()
}
