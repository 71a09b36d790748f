package admin_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/axp-exchange/axp"
	"github.com/axp-exchange/axp/client"
	"github.com/axp-exchange/axp/cmd"
	"github.com/axp-exchange/axp/cmd/cmdtest"
	"github.com/axp-exchange/axp/cmd/cmdtest/inproc"
	"github.com/axp-exchange/axp/contract"
	"github.com/axp-exchange/axp/daemon"
	"github.com/axp-exchange/axp/daemon/chain/chaintest"
	"github.com/ethereum/go-ethereum/crypto"
)

// TestApprovePayoutRefusedByTheNode: the hot wallet holds the stablecoin but no ETH for gas, so the
// node refuses the payout's transaction at once and the approval comes back failed. `axp admin
// approvals approve` says why on stderr and exits 1, not 0 as if the money had gone.
func TestApprovePayoutRefusedByTheNode(t *testing.T) {
	c := chaintest.Start(t)
	hot, err := crypto.GenerateKey() // no ETH: it was never funded for gas
	if err != nil {
		t.Fatal(err)
	}
	c.Mint(c.Token, chaintest.Addr(hot), 50_000_000)
	keyFile := filepath.Join(t.TempDir(), "hot.key")
	if err := os.WriteFile(keyFile, []byte(chaintest.KeyHex(hot)), 0o600); err != nil {
		t.Fatal(err)
	}
	deposit := chaintest.Addr(c.NewKey())
	x := inproc.NewExchange(t, func(cfg *daemon.Config) {
		cfg.ChainRPCURL, cfg.ChainID, cfg.TokenAddress, cfg.DepositAddress = c.URL, c.ID, c.Token, deposit
		cfg.Confirmations, cfg.ChainPoll, cfg.PayoutKeyFile = 1, 100*time.Millisecond, keyFile
	})
	seller := x.MustSeller(cmdtest.SellerSpec{Name: "Chain Writer", TaskType: "text-file", Price: "2.50", ETA: 10, Payout: cmdtest.PayoutAddress})
	sc := x.Anon.With(seller.MemberSecret)

	// A task paid on chain, delivered and accepted; the seller asks to be paid.
	var created axp.CreatedTask
	x.Call(x.Anon, "create_task", map[string]any{"type": "text-file", "params": map[string]any{"prompt": "x"}}, &created)
	buyer := x.Anon.With(created.BuyerToken)
	var chosen axp.Task
	x.Call(buyer, "choose_offer", map[string]any{"id": created.ID, "offer_id": created.Offers[0].OfferID}, &chosen)
	payBuyer(t, c, deposit, chosen.Payment.PayableUSD)
	waitTask(t, buyer, created.ID, axp.TaskPaid)
	x.Call(sc, "deliver", map[string]any{"id": created.ID, "content": "done"}, nil)
	x.Call(buyer, "get_deliverable", map[string]any{"id": created.ID}, new([]byte))
	x.Call(buyer, "accept_task", map[string]any{"id": created.ID}, nil)
	x.Call(sc, "request_payment", map[string]any{"id": created.ID}, nil)
	l := cmdtest.Must(t, x.Admin, contract.AdminApprovals, axp.ApprovalsQuery{TaskID: created.ID, Kind: axp.ApprovePayout})
	if len(l.Approvals) != 1 {
		t.Fatalf("payout items %+v", l.Approvals)
	}
	id := l.Approvals[0].ID

	for _, json := range []bool{false, true} {
		args := []string{"admin", "approvals", "approve", id, "--yes"}
		if json {
			args = append(args, "--json")
		}
		f, s := cmdtest.Factory(t, "", map[string]string{"AXP_EXCHANGE": x.URL, "AXP_ADMIN_TOKEN": cmdtest.AdminToken})
		status := cmd.Run(context.Background(), f, args, func() []string { return nil })
		after := cmdtest.Must(t, x.Admin, contract.AdminApprovals, axp.ApprovalsQuery{Status: "all", TaskID: created.ID, Kind: axp.ApprovePayout}).Approvals[0]
		if after.Status != axp.ApprovalFailed || !strings.Contains(after.Failure, "refused") {
			t.Fatalf("the payout is %s (%q); this test wants the node to refuse it", after.Status, after.Failure)
		}
		if status != 1 {
			t.Errorf("%v: exit status %d, want 1\nstdout:\n%s\nstderr:\n%s", args, status, s.Out, s.ErrOut)
		}
		if !strings.Contains(s.ErrOut.String(), "error: ") || !strings.Contains(s.ErrOut.String(), after.Failure) {
			t.Errorf("%v: stderr does not give the reason %q:\n%s", args, after.Failure, s.ErrOut)
		}
		if json && !strings.Contains(s.Out.String(), `"status": "failed"`) && !strings.Contains(s.Out.String(), `"status":"failed"`) {
			t.Errorf("--json: stdout lacks the failed item:\n%s", s.Out)
		}
	}
	if got := c.Balance(c.Token, chaintest.Addr(hot)); got != 50_000_000 {
		t.Errorf("the hot wallet holds %s after the refused payouts", got)
	}
	// axp status shows the hot wallet against what the queue would send (the failed payout).
	f, s := cmdtest.Factory(t, "", map[string]string{"AXP_EXCHANGE": x.URL, "AXP_ADMIN_TOKEN": cmdtest.AdminToken})
	if status := cmd.Run(context.Background(), f, []string{"status"}, func() []string { return nil }); status != 0 {
		t.Fatalf("axp status: exit %d\n%s%s", status, s.Out, s.ErrOut)
	}
	if want := chaintest.Addr(hot) + " holds US$50.00; the queue sends US$2.475"; !strings.Contains(s.Out.String(), want) {
		t.Errorf("axp status does not show the hot wallet (%q):\n%s", want, s.Out)
	}
}

// payBuyer has a fresh buyer wallet send amount of the stablecoin to the deposit address.
func payBuyer(t *testing.T, c *chaintest.Chain, deposit string, amount axp.Money) {
	t.Helper()
	k := c.NewKey()
	c.Mint(c.Token, chaintest.Addr(k), amount)
	c.Transfer(k, c.Token, deposit, amount)
	c.Mine(1)
}

// waitTask polls the task until it has status want, for up to 30 seconds.
func waitTask(t *testing.T, buyer *client.Client, id, want string) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		tk, _, err := client.Call(context.Background(), buyer, contract.GetTask, axp.TaskQuery{TaskRef: axp.TaskRef{ID: id}})
		if err == nil && tk.Status == want {
			return
		}
		if err == nil {
			err = fmt.Errorf("it is %s", tk.Status)
		}
		if time.Now().After(deadline) {
			t.Fatalf("task %s is not %s: %v", id, want, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// Several payouts approved at once on an exchange with a hot wallet: one question, the hot wallet
// sends each, one line per item names its transfer, exit 0; an id already sent fails alone.
func TestApproveSeveralFromTheHotWallet(t *testing.T) {
	c := chaintest.Start(t)
	hot := c.NewKey()
	c.SetETH(chaintest.Addr(hot), 1)
	c.Mint(c.Token, chaintest.Addr(hot), 50_000_000)
	keyFile := filepath.Join(t.TempDir(), "hot.key")
	if err := os.WriteFile(keyFile, []byte(chaintest.KeyHex(hot)), 0o600); err != nil {
		t.Fatal(err)
	}
	deposit := chaintest.Addr(c.NewKey())
	x := inproc.NewExchange(t, func(cfg *daemon.Config) {
		cfg.ChainRPCURL, cfg.ChainID, cfg.TokenAddress, cfg.DepositAddress = c.URL, c.ID, c.Token, deposit
		cfg.Confirmations, cfg.ChainPoll, cfg.PayoutKeyFile = 1, 100*time.Millisecond, keyFile
	})
	seller := x.MustSeller(cmdtest.SellerSpec{Name: "Chain Writer", TaskType: "text-file", Price: "2.50", ETA: 10, Payout: cmdtest.PayoutAddress})
	sc := x.Anon.With(seller.MemberSecret)
	var ids []string
	for range 2 {
		var created axp.CreatedTask
		x.Call(x.Anon, "create_task", map[string]any{"type": "text-file", "params": map[string]any{"prompt": "x"}}, &created)
		buyer := x.Anon.With(created.BuyerToken)
		var chosen axp.Task
		x.Call(buyer, "choose_offer", map[string]any{"id": created.ID, "offer_id": created.Offers[0].OfferID}, &chosen)
		payBuyer(t, c, deposit, chosen.Payment.PayableUSD)
		waitTask(t, buyer, created.ID, axp.TaskPaid)
		x.Call(sc, "deliver", map[string]any{"id": created.ID, "content": "done"}, nil)
		x.Call(buyer, "get_deliverable", map[string]any{"id": created.ID}, new([]byte))
		x.Call(buyer, "accept_task", map[string]any{"id": created.ID}, nil)
		x.Call(sc, "request_payment", map[string]any{"id": created.ID}, nil)
		l := cmdtest.Must(t, x.Admin, contract.AdminApprovals, axp.ApprovalsQuery{TaskID: created.ID, Kind: axp.ApprovePayout})
		if len(l.Approvals) != 1 {
			t.Fatalf("payout items %+v", l.Approvals)
		}
		ids = append(ids, l.Approvals[0].ID)
	}

	run := func(args ...string) (int, string) {
		f, s := cmdtest.Factory(t, "", map[string]string{"AXP_EXCHANGE": x.URL, "AXP_ADMIN_TOKEN": cmdtest.AdminToken})
		status := cmd.Run(context.Background(), f, append([]string{"admin", "approvals", "approve"}, args...), func() []string { return nil })
		return status, s.ErrOut.String()
	}
	status, errOut := run(ids[0], ids[1], "--yes")
	if status != 0 {
		t.Fatalf("exit %d:\n%s", status, errOut)
	}
	lines := strings.Split(strings.TrimRight(errOut, "\n"), "\n")
	if len(lines) != 2 {
		t.Fatalf("want one line per item:\n%s", errOut)
	}
	for i, id := range ids {
		want := regexp.MustCompile(`^✓ ` + id + `: sent US\$2\.475 to the seller at ` + cmdtest.PayoutAddress + ` \(0x[0-9a-f]{64}\); confirmed once the transfers have their confirmations$`)
		if !want.MatchString(lines[i]) {
			t.Errorf("line %d: %q", i, lines[i])
		}
	}
	// Approving them again: each is refused on its own line, and the command fails.
	status, errOut = run(ids[0], ids[1], "--yes")
	if status == 0 || strings.Count(errOut, "✗ ") != 2 || !strings.Contains(errOut, "error: 2 of 2 items were not approved") {
		t.Errorf("again: exit %d\n%s", status, errOut)
	}
}
