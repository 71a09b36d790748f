package cmd_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/axp-exchange/axp"
	"github.com/axp-exchange/axp/client"
	"github.com/axp-exchange/axp/cmd/cmdtest"
	"github.com/axp-exchange/axp/cmd/cmdtest/inproc"
	"github.com/axp-exchange/axp/contract"
)

// TestTUIInTmux drives `axp tui` in a real terminal (tmux, 80x24, NO_COLOR; widened to 160
// columns and back, every line fitting; the queue filtered with /) through an operator approval: the built binary serves an exchange as a separate process, a buyer posts a task,
// chooses and reports a payment over HTTP, and the operator confirms it in the TUI with a note.
func TestTUIInTmux(t *testing.T) {
	tmux, err := exec.LookPath("tmux")
	if err != nil {
		t.Skip("tmux is not installed: skipping the terminal end-to-end test of axp tui (install tmux to run it)")
	}
	bin := cmdtest.AxpBinary(t)
	dir := t.TempDir()
	data := filepath.Join(dir, "data")
	sellers, err := inproc.Seed(data, cmdtest.SellerSpec{Name: "Quick Writer", TaskType: "text-file", Price: "2.50", ETA: 10})
	if err != nil {
		t.Fatal(err)
	}
	port, err := freePort()
	if err != nil {
		t.Fatal(err)
	}
	base := "http://127.0.0.1:" + strconv.Itoa(port)
	const token = "axp_admin_tmux_e2e"
	env := []string{"HOME=" + dir, "XDG_CONFIG_HOME=" + filepath.Join(dir, "config"), "XDG_DATA_HOME=" + filepath.Join(dir, "xdg-data"),
		"PATH=" + os.Getenv("PATH"), "AXP_ADMIN_TOKEN=" + token, "AXP_EXCHANGE=" + base}

	// The exchange, as a separate process.
	srv := exec.Command(bin, "serve", "--addr", "127.0.0.1:"+strconv.Itoa(port), "--data-dir", data)
	srv.Env = append(env, "AXP_DEPOSIT_ADDRESS="+cmdtest.DepositAddress)
	var srvErr syncBuffer
	srv.Stderr = &srvErr
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- srv.Wait() }()
	t.Cleanup(func() {
		srv.Process.Signal(syscall.SIGTERM)
		select {
		case <-done:
		case <-time.After(15 * time.Second):
			srv.Process.Kill()
			<-done
		}
	})
	poll(t, "the exchange to answer", func() error {
		resp, err := http.Get(base + "/healthz")
		if err != nil {
			return err
		}
		resp.Body.Close()
		return nil
	})

	// A buyer posts, chooses the offer and reports a payment.
	ctx := context.Background()
	anon := client.New(base, "")
	created, _, err := client.Call(ctx, anon, contract.CreateTask, axp.NewTask{Type: "text-file", Params: map[string]any{"prompt": "a haiku"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(created.Offers) != 1 || created.Offers[0].Seller.ID != sellers[0].MemberID {
		t.Fatalf("offers %+v", created.Offers)
	}
	buyer := anon.With(created.BuyerToken)
	if _, _, err := client.Call(ctx, buyer, contract.ChooseOffer, axp.ChooseInput{TaskRef: axp.TaskRef{ID: created.ID}, OfferID: created.Offers[0].OfferID}); err != nil {
		t.Fatal(err)
	}
	if _, _, err := client.Call(ctx, buyer, contract.PayCryptoOp, axp.PayCryptoInput{TaskRef: axp.TaskRef{ID: created.ID}, TxHash: "0x" + strings.Repeat("7e", 32)}); err != nil {
		t.Fatal(err)
	}

	// The operator opens the TUI in tmux (its own server socket, so no other tmux is touched).
	sock := filepath.Join(dir, "tmux.sock")
	tm := func(args ...string) (string, error) {
		c := exec.Command(tmux, append([]string{"-S", sock, "-f", "/dev/null"}, args...)...)
		c.Env = append(env, "TERM=xterm-256color")
		out, err := c.CombinedOutput()
		return string(out), err
	}
	tuiEnv := []string{"-e", "NO_COLOR=1", "-e", "AXP_ADMIN_TOKEN=" + token, "-e", "AXP_EXCHANGE=" + base, "-e", "XDG_CONFIG_HOME=" + filepath.Join(dir, "config")}
	args := append([]string{"new-session", "-d", "-s", "axp", "-x", "80", "-y", "24"}, tuiEnv...)
	args = append(args, bin+" tui --refresh 1s")
	if out, err := tm(args...); err != nil {
		t.Fatalf("tmux new-session: %v\n%s", err, out)
	}
	t.Cleanup(func() { tm("kill-server") })
	screen := func() string {
		out, err := tm("capture-pane", "-p", "-e", "-t", "axp")
		if err != nil {
			return "(no screen: " + err.Error() + ")"
		}
		return out
	}
	waitScreen := func(what string, match func(string) bool) string {
		t.Helper()
		var last string
		poll(t, what, func() error {
			last = screen()
			if match(last) {
				return nil
			}
			return errors.New("screen:\n" + last)
		})
		return last
	}
	has := func(subs ...string) func(string) bool {
		return func(s string) bool {
			for _, x := range subs {
				if !strings.Contains(s, x) {
					return false
				}
			}
			return true
		}
	}
	send := func(keys ...string) {
		t.Helper()
		if out, err := tm(append([]string{"send-keys", "-t", "axp"}, keys...)...); err != nil {
			t.Fatalf("send-keys %v: %v\n%s", keys, err, out)
		}
	}

	// With only the admin token the operator view opens on the queue.
	s := waitScreen("the payment in the queue", has("[Operator]", "Payments 1", "payment", "pending", "US$2.49", "Buyer anonymous · seller Quick Writer"))
	if regexp.MustCompile(`\x1b\[[0-9;]*(3[0-7]|9[0-7]|38;|4[0-7]|48;)`).MatchString(s) {
		t.Errorf("colour on the screen under NO_COLOR:\n%q", s)
	}
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > 24 {
		t.Errorf("the screen has %d lines for a 24-line terminal", len(lines))
	}
	// At 80 columns every line fits; widened to 160, the same row shows the whole task id; back at
	// 80 it fits again.
	plain := func() []string {
		out, _ := tm("capture-pane", "-p", "-t", "axp")
		return strings.Split(strings.TrimRight(out, "\n"), "\n")
	}
	for _, l := range plain() {
		if n := utf8.RuneCountInString(l); n > 80 {
			t.Errorf("a line of %d cells on an 80-column terminal: %q", n, l)
		}
	}
	row := regexp.MustCompile(`› payment +pending +US\$2\.49\d* +` + regexp.QuoteMeta(created.ID) + ` +anonymous → Quick Writer`)
	if out, err := tm("resize-window", "-t", "axp", "-x", "160", "-y", "24"); err != nil {
		t.Fatalf("tmux resize-window: %v\n%s", err, out)
	}
	waitScreen("the row at 160 columns", row.MatchString)
	if out, err := tm("resize-window", "-t", "axp", "-x", "80", "-y", "24"); err != nil {
		t.Fatalf("tmux resize-window: %v\n%s", err, out)
	}
	waitScreen("the row at 80 columns again", func(s string) bool { return !row.MatchString(s) && strings.Contains(s, "› payment") })
	for _, l := range plain() {
		if n := utf8.RuneCountInString(l); n > 80 {
			t.Errorf("back at 80 columns, a line of %d cells: %q", n, l)
		}
	}

	// / filters the queue by the task's id; enter keeps the filter.
	send("/")
	send("-l", created.ID)
	waitScreen("the filter typed", has("/ "+created.ID, "1 of 1 · enter keeps"))
	send("Enter")
	waitScreen("the filter kept", has("filter "+created.ID, "1 of 1 · / edits", "› payment"))

	send("a")
	waitScreen("the note prompt", has("Confirm payment apr_", "Note (optional):"))
	send("-l", "seen on chain")
	send("Enter")
	waitScreen("the confirmation", has("note: seen on chain", "Press y to confirm"))
	send("y")
	waitScreen("the approval on screen", has("Approved payment apr_", "Payments 0"))

	// The exchange has it: the payment is confirmed and the job started.
	admin := client.New(base, token)
	l, _, err := client.Call(ctx, admin, contract.AdminApprovals, axp.ApprovalsQuery{Status: "all", TaskID: created.ID})
	if err != nil {
		t.Fatal(err)
	}
	if len(l.Approvals) != 1 || l.Approvals[0].Status != axp.ApprovalApproved || l.Approvals[0].Note != "seen on chain" {
		t.Fatalf("approvals %+v", l.Approvals)
	}
	task, _, err := client.Call(ctx, buyer, contract.GetTask, axp.TaskQuery{TaskRef: axp.TaskRef{ID: created.ID}})
	if err != nil {
		t.Fatal(err)
	}
	if task.Status != axp.TaskPaid && task.Status != axp.TaskInProgress {
		t.Fatalf("task %s after the approval", task.Status)
	}

	// q quits: the program ends and tmux closes the session.
	send("q")
	poll(t, "axp tui to exit", func() error {
		if _, err := tm("has-session", "-t", "axp"); err == nil {
			return fmt.Errorf("still running:\n%s", screen())
		}
		return nil
	})
	if strings.Contains(srvErr.String(), "panic") {
		t.Errorf("the exchange panicked:\n%s", srvErr.String())
	}
}

// poll calls f until it returns nil, failing the test with its last error after pollDeadline.
func poll(t *testing.T, what string, f func() error) {
	t.Helper()
	deadline := time.Now().Add(pollDeadline)
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for {
		err := f()
		if err == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("waiting for %s: gave up after %s: %v", what, pollDeadline, err)
		}
		<-tick.C
	}
}
