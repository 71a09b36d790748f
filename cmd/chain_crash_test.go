package cmd_test

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/axp-exchange/axp"
	"github.com/axp-exchange/axp/client"
	"github.com/axp-exchange/axp/contract"
	"github.com/axp-exchange/axp/daemon/chain/chaintest"
	"github.com/axp-exchange/axp/memberkit"
	"github.com/axp-exchange/axp/protocol"
)

// TestChainPaidJobSurvivesKill runs real money on a real local chain through the real binary: a
// buyer's transfer (no tx hash reported) is found by the watcher, a pull seller built on memberkit
// does the job and asks to be paid by itself, the operator approves with no tx hash and the hot
// wallet sends the payout. Then `axp serve` is killed with SIGKILL while the payout waits in the
// node's pool, the node loses the transaction, and the exchange is started again: it sends the
// stored transaction again and confirms it. The seller is paid its net exactly once and the ledger
// sums to zero.
func TestChainPaidJobSurvivesKill(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("SIGKILL is a unix signal")
	}
	c := chaintest.Start(t)
	deposit, hot, sellerKey := c.NewKey(), c.NewKey(), c.NewKey()
	c.Mint(c.Token, chaintest.Addr(hot), 50_000_000)
	keyFile := filepath.Join(t.TempDir(), "hot.key")
	if err := os.WriteFile(keyFile, []byte(chaintest.KeyHex(hot)), 0o600); err != nil {
		t.Fatal(err)
	}
	const adminToken = "axp_admin_chain_0123456789"
	srv := startKillable(t, []string{"HOME=" + t.TempDir(), "AXP_ADMIN_TOKEN=" + adminToken,
		"AXP_QUOTE_WINDOW=1s", "AXP_ANON_READS_PER_MINUTE=0",
		"AXP_CHAIN_RPC_URL=" + c.URL, "AXP_CHAIN_ID=" + strconv.Itoa(chaintest.ID), "AXP_TOKEN_ADDRESS=" + c.Token,
		"AXP_DEPOSIT_ADDRESS=" + chaintest.Addr(deposit), "AXP_CONFIRMATIONS=2", "AXP_CHAIN_POLL=100ms",
		"AXP_PAYOUT_KEY_FILE=" + keyFile})
	base, stderr := srv.base, &srv.stderr
	if !strings.Contains(stderr.String(), "chain ready") || !strings.Contains(stderr.String(), "hot wallet ready") {
		t.Fatalf("axp serve does not say what it found on the chain:\n%s", stderr.String())
	}
	if strings.Contains(stderr.String(), chaintest.KeyHex(hot)) {
		t.Fatal("the hot wallet's key is in the log")
	}

	// A pull seller on memberkit: verified by its practice request, it quotes, works and asks to
	// be paid by itself.
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	price, eta := protocol.USD(2, 0), 5
	skills := []protocol.Skill{{TaskType: "text-file", InstantPriceUSD: &price, InstantETAMinutes: &eta}}
	verified := make(chan bool, 1)
	agent := &memberkit.Agent{Exchange: base, Dir: filepath.Join(t.TempDir(), "seller"), Pull: true, PollEvery: 50 * time.Millisecond,
		Logger: slog.New(slog.DiscardHandler), PayoutAddress: chaintest.Addr(sellerKey),
		Registration: axp.Registration{Roles: []string{"seller"}, Name: "chain seller", Skills: skills},
		Seller: &memberkit.Worker{Defaults: memberkit.Defaults{Skills: skills}, Logger: slog.New(slog.DiscardHandler),
			Work: func(ctx context.Context, job *memberkit.Job) (memberkit.Deliverable, error) {
				return memberkit.Deliverable{Content: "paid on chain", Filename: "out.txt"}, nil
			}},
		OnVerify: func(v *axp.Verification, err error) { verified <- err == nil && v.Passed },
	}
	agentDone := make(chan error, 1)
	go func() { agentDone <- agent.Run(ctx) }()
	if ok := <-verified; !ok {
		t.Fatal("the seller did not verify")
	}

	// The buyer posts, chooses and pays on chain without reporting anything.
	anon := client.New(base, "")
	admin := anon.With(adminToken)
	created, _, err := client.Call(ctx, anon, contract.CreateTask, axp.NewTask{Type: "text-file", Params: map[string]any{"prompt": "hi"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(created.Offers) == 0 {
		t.Fatalf("no offer from the pull seller")
	}
	buyer := anon.With(created.BuyerToken)
	// The pull seller may quote again (a new offer replaces its old one) while the buyer chooses:
	// choose its live offer.
	offerID := created.Offers[0].OfferID
	var chosen *axp.Task
	for try := 0; ; try++ {
		chosen, _, err = client.Call(ctx, buyer, contract.ChooseOffer, axp.ChooseInput{TaskRef: axp.TaskRef{ID: created.ID}, OfferID: offerID})
		if err == nil {
			break
		}
		if try == 3 || !strings.Contains(err.Error(), "not a live offer") {
			t.Fatal(err)
		}
		cur, _, gerr := client.Call(ctx, buyer, contract.GetTask, axp.TaskQuery{TaskRef: axp.TaskRef{ID: created.ID}})
		if gerr != nil || len(cur.Offers) == 0 {
			t.Fatal(err, gerr)
		}
		offerID = cur.Offers[0].OfferID
	}
	if chosen.Payment == nil || chosen.Payment.PaymentURI == "" {
		t.Fatalf("no payment URI: %+v", chosen.Payment)
	}
	bk := c.NewKey()
	c.Mint(c.Token, chaintest.Addr(bk), 10_000_000)
	c.Transfer(bk, c.Token, chaintest.Addr(deposit), chosen.Payment.PayableUSD)
	c.Mine(1)
	status := func(want string) {
		t.Helper()
		waitFor(t, want, func() error {
			tk, _, err := client.Call(ctx, buyer, contract.GetTask, axp.TaskQuery{TaskRef: axp.TaskRef{ID: created.ID}})
			if err != nil {
				return err
			}
			if tk.Status != want {
				return fmt.Errorf("task is %s", tk.Status)
			}
			return nil
		})
	}
	status(axp.TaskDelivered)
	if _, err := client.Do(ctx, buyer, contract.GetDeliverable, axp.TaskRef{ID: created.ID}); err != nil {
		t.Fatal(err)
	}
	if _, _, err := client.Call(ctx, buyer, contract.AcceptTask, axp.AcceptInput{TaskRef: axp.TaskRef{ID: created.ID}}); err != nil {
		t.Fatal(err)
	}
	payout := func() axp.Approval {
		t.Helper()
		l, _, err := client.Call(ctx, admin, contract.AdminApprovals, axp.ApprovalsQuery{Status: "all", TaskID: created.ID, Kind: axp.ApprovePayout})
		if err != nil {
			t.Fatal(err)
		}
		if len(l.Approvals) != 1 {
			return axp.Approval{}
		}
		return l.Approvals[0]
	}
	waitFor(t, "the seller's payment request", func() error {
		if a := payout(); a.Status != axp.ApprovalPending {
			return fmt.Errorf("payout item %+v", a)
		}
		return nil
	})

	// The operator approves; the transfer waits in the pool; SIGKILL; the node loses it.
	c.SetAutomine(false)
	sent, _, err := client.Call(ctx, admin, contract.AdminApprove, axp.ApproveBody{ID: payout().ID})
	if err != nil {
		t.Fatal(err)
	}
	if sent.Status != axp.ApprovalSent || len(sent.Transfers) != 1 {
		t.Fatalf("approved: %+v", sent)
	}
	srv.kill()
	c.DropTransaction(sent.Transfers[0].TxHash)
	c.SetAutomine(true)
	srv.start()
	c.Mine(2)
	waitFor(t, "the payout's confirmation", func() error {
		if a := payout(); a.Status != axp.ApprovalConfirmed {
			return fmt.Errorf("payout is %s", a.Status)
		}
		return nil
	})
	status(axp.TaskReleased)
	net := price - (price*100+5000)/10000
	c.Mine(3)
	if got := c.Balance(c.Token, chaintest.Addr(sellerKey)); got != net {
		t.Fatalf("the seller holds %s, want its net %s once", got, net)
	}
	if st, _, err := client.Call(ctx, admin, contract.AdminStats, contract.NoInput{}); err != nil || st.Money.LedgerSum != 0 {
		t.Fatalf("ledger: %v %+v", err, st)
	}
	cancel()
	<-agentDone
}

// waitFor polls cond until it holds, for up to 30 seconds.
func waitFor(t *testing.T, what string, cond func() error) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		err := cond()
		if err == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: %v", what, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
