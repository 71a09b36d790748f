package cmd_test

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/axp-exchange/axp"
	"github.com/axp-exchange/axp/client"
	"github.com/axp-exchange/axp/contract"
	"github.com/axp-exchange/axp/memberkit"
	"github.com/axp-exchange/axp/protocol"
)

// TestTUIHotWalletInTmux runs a paid job through `axp tui` in a real terminal (tmux, 100x30,
// NO_COLOR) against the real binary serving in test mode, whose hot wallet sends payouts: the
// buyer posts and chooses from the command line, pays from the TUI with p (the wallet of `axp
// wallet new`, funded by the faucet), previews and accepts the delivery; the operator approves the
// seller's payout with a and y alone, no transaction hash asked, and the TUI shows the transfer the
// hot wallet sent.
func TestTUIHotWalletInTmux(t *testing.T) {
	tmux, err := exec.LookPath("tmux")
	if err != nil {
		t.Skip("tmux is not installed: skipping the terminal end-to-end test of axp tui (install tmux to run it)")
	}
	const token = "axp_admin_tmux_hotwallet_e2e"
	srv := startKillable(t, []string{"HOME=" + t.TempDir(), "AXP_ADMIN_TOKEN=" + token, "AXP_ANON_READS_PER_MINUTE=0", "AXP_CHAIN_POLL=100ms"}, "--test-mode")
	base := srv.base

	// A seller with a payout address, which asks to be paid once the buyer accepts.
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	price, eta := protocol.USD(2, 0), 5
	skills := []protocol.Skill{{TaskType: "text-file", InstantPriceUSD: &price, InstantETAMinutes: &eta}}
	const payout = "0x5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e"
	agent := &memberkit.Agent{Exchange: base, Dir: filepath.Join(t.TempDir(), "seller"), Pull: true, PollEvery: 50 * time.Millisecond,
		Logger: slog.New(slog.DiscardHandler), PayoutAddress: payout,
		Registration: axp.Registration{Roles: []string{"seller"}, Name: "Hot Seller", Skills: skills},
		Seller: &memberkit.Worker{Defaults: memberkit.Defaults{Skills: skills}, Logger: slog.New(slog.DiscardHandler),
			Work: func(ctx context.Context, job *memberkit.Job) (memberkit.Deliverable, error) {
				return memberkit.Deliverable{Content: "a haiku in test money", Filename: "out.txt"}, nil
			}},
	}
	agentDone := make(chan error, 1)
	go func() { agentDone <- agent.Run(ctx) }()
	defer func() { cancel(); <-agentDone }()

	// The buyer's command line: a wallet with test money, a task posted and chosen.
	dir := t.TempDir()
	env := []string{"HOME=" + dir, "XDG_CONFIG_HOME=" + filepath.Join(dir, "config"), "PATH=" + os.Getenv("PATH"),
		"AXP_EXCHANGE=" + base, "AXP_ADMIN_TOKEN=" + token, "NO_COLOR=1"}
	bin := srv.bin
	axpRun := func(args ...string) string {
		t.Helper()
		c := exec.Command(bin, args...)
		c.Env = env
		var errOut strings.Builder
		c.Stderr = &errOut
		out, err := c.Output()
		if err != nil {
			t.Fatalf("axp %s: %v\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), err, out, errOut.String())
		}
		return string(out)
	}
	axpRun("wallet", "new")
	axpRun("wallet", "fund")
	var id string
	poll(t, "an offer from the seller", func() error {
		c := exec.Command(bin, "task", "create", "--type", "text-file", "--param", "prompt=a haiku")
		c.Env = env
		out, err := c.Output()
		if err != nil {
			return err
		}
		created := strings.TrimSpace(string(out))
		c = exec.Command(bin, "task", "choose", created, "--yes")
		c.Env = env
		if out, err := c.CombinedOutput(); err != nil {
			return fmt.Errorf("choose: %v: %s", err, out)
		}
		id = created
		return nil
	})

	// The TUI in tmux (its own server socket, so no other tmux is touched).
	sock := filepath.Join(dir, "tmux.sock")
	tm := func(args ...string) (string, error) {
		c := exec.Command(tmux, append([]string{"-S", sock, "-f", "/dev/null"}, args...)...)
		c.Env = append(env, "TERM=xterm-256color")
		out, err := c.CombinedOutput()
		return string(out), err
	}
	args := []string{"new-session", "-d", "-s", "axp", "-x", "100", "-y", "30"}
	for _, e := range env {
		args = append(args, "-e", e)
	}
	if out, err := tm(append(args, bin+" tui --refresh 1s")...); err != nil {
		t.Fatalf("tmux new-session: %v\n%s", err, out)
	}
	t.Cleanup(func() { tm("kill-server") })
	screen := func() string {
		out, err := tm("capture-pane", "-p", "-t", "axp")
		if err != nil {
			return "(no screen: " + err.Error() + ")"
		}
		return out
	}
	waitScreen := func(what string, match func(string) bool) string {
		t.Helper()
		var last string
		poll(t, what, func() error {
			if last = screen(); match(last) {
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

	// The buyer pays from the TUI.
	waitScreen("the task in the buyer view", has("[Buyer]", "TEST MODE", id, "awaiting_payment"))
	send("Enter")
	waitScreen("the open task", has("‹ "+id, "p pay"))
	send("p")
	waitScreen("the payment's confirmation", has("for task "+id+"?", "units of TUSD", "the deposit address", "Press y to pay"))
	send("y")
	waitScreen("the payment sent", has("Paid task "+id+": transaction 0x"))
	waitScreen("the delivery", has("delivered", "Delivered sha256"))
	send("p")
	waitScreen("the preview", has("SHA-256 verified", "a haiku in test money"))
	send("a")
	waitScreen("the acceptance's confirmation", has("Accept the delivery of "+id))
	send("y")
	waitScreen("the acceptance", has("Accepted; the task is"))

	// The operator approves the payout with a and y: the hot wallet sends it.
	send("Tab")
	s := waitScreen("the payout in the queue", has("[Operator]", "payout", "pending"))
	if !strings.Contains(s, id) {
		t.Errorf("the queue row does not show the whole task id %s:\n%s", id, s)
	}
	send("a")
	ask := regexp.MustCompile(`Send US\$\d+\.\d+ to Hot Seller at payout address ` + payout + `\?`)
	waitScreen("the question", func(s string) bool { return ask.MatchString(s) && strings.Contains(s, "Press y to send") })
	if strings.Contains(screen(), "Transaction hash") {
		t.Fatalf("with a hot wallet the TUI asks for a transaction hash:\n%s", screen())
	}
	send("y")
	sent := regexp.MustCompile(`Sent US\$\d+\.\d+ to the seller at ` + payout + `: 0x[0-9a-f]{64}`)
	waitScreen("the transfer sent", func(s string) bool {
		// The report is a box: its lines read as one text.
		s = strings.Join(strings.Fields(strings.NewReplacer("│", " ", "┌", " ", "┐", " ", "└", " ", "┘", " ", "─", "").Replace(s)), " ")
		return sent.MatchString(s) && strings.Contains(s, "is confirmed once its transfers have their confirmations")
	})

	// The exchange has it: the payout was sent by the hot wallet, then confirmed.
	admin := client.New(base, token)
	poll(t, "the payout confirmed", func() error {
		l, _, err := client.Call(ctx, admin, contract.AdminApprovals, axp.ApprovalsQuery{Status: "all", TaskID: id, Kind: axp.ApprovePayout})
		if err != nil {
			return err
		}
		if len(l.Approvals) != 1 || l.Approvals[0].Rail != "evm" || l.Approvals[0].Status != axp.ApprovalConfirmed {
			return fmt.Errorf("payout items %+v", l.Approvals)
		}
		return nil
	})

	// The task described: parties, money, the deliverable's hash, its queue items and its own
	// audit, every value in words; u shows that audit alone.
	send("Enter") // closes the report
	send("7")
	waitScreen("the tasks tab", has("[Tasks 1]", id))
	if out, err := tm("resize-window", "-t", "axp", "-x", "100", "-y", "100"); err != nil {
		t.Fatalf("tmux resize-window: %v\n%s", err, out)
	}
	send("Enter")
	s = waitScreen("the description", has("‹ "+id, "Parties", "Hot Seller", "Money", "seller nets US$1.98", "SHA-256", "Timeline (", "Approvals (2)", "Audit ("))
	if strings.Contains(s, "map[") || strings.Contains(s, "<nil>") {
		t.Errorf("Go values in the description:\n%s", s)
	}
	send("u")
	waitScreen("the task's audit", has("Audit of task "+id, "approval.send"))
	send("Escape")
	waitScreen("the description again", has("‹ "+id, "Parties"))
	send("q")
	poll(t, "axp tui to exit", func() error {
		if _, err := tm("has-session", "-t", "axp"); err == nil {
			return fmt.Errorf("still running:\n%s", screen())
		}
		return nil
	})
	if strings.Contains(srv.stderr.String(), "panic") {
		t.Errorf("the exchange panicked:\n%s", srv.stderr.String())
	}
}
