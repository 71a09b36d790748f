package cmd_test

import (
	"context"
	"crypto/ecdsa"
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/axp-exchange/axp"
	"github.com/axp-exchange/axp/client"
	"github.com/axp-exchange/axp/contract"
	"github.com/axp-exchange/axp/daemon/chain/testusd"
	"github.com/axp-exchange/axp/memberkit"
	"github.com/axp-exchange/axp/protocol"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/ethclient"
)

// TestTestModePaymentSurvivesKill runs test mode through the real binary and kills it with SIGKILL
// the moment the exchange reports a task funded, twice. The test chain lives in the process that
// was killed: the block with the payment must still be on it after the restart, so the ledger and
// the chain agree (the payment stays confirmed, not reorged; reconcile finds nothing missing).
func TestTestModePaymentSurvivesKill(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("SIGKILL is a unix signal")
	}
	const adminToken = "axp_admin_testmode_0123456789"
	srv := startKillable(t, []string{"HOME=" + t.TempDir(), "AXP_ADMIN_TOKEN=" + adminToken,
		"AXP_QUOTE_WINDOW=1s", "AXP_ANON_READS_PER_MINUTE=0", "AXP_CHAIN_POLL=100ms"}, "--test-mode")
	base, stderr, start, kill := srv.base, &srv.stderr, srv.start, srv.kill

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	price, eta := protocol.USD(2, 0), 5
	skills := []protocol.Skill{{TaskType: "text-file", InstantPriceUSD: &price, InstantETAMinutes: &eta}}
	agent := &memberkit.Agent{Exchange: base, Dir: filepath.Join(t.TempDir(), "seller"), Pull: true, PollEvery: 50 * time.Millisecond,
		Logger: slog.New(slog.DiscardHandler), PayoutAddress: "0x5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e", NoPaymentRequest: true,
		Registration: axp.Registration{Roles: []string{"seller"}, Name: "test seller", Skills: skills},
		Seller: &memberkit.Worker{Defaults: memberkit.Defaults{Skills: skills}, Logger: slog.New(slog.DiscardHandler),
			Work: func(ctx context.Context, job *memberkit.Job) (memberkit.Deliverable, error) {
				return memberkit.Deliverable{Content: "test money", Filename: "out.txt"}, nil
			}},
	}
	agentDone := make(chan error, 1)
	go func() { agentDone <- agent.Run(ctx) }()
	defer func() { cancel(); <-agentDone }()

	anon := client.New(base, "")
	admin := anon.With(adminToken)
	buyerKey, _ := crypto.GenerateKey()
	buyerAddr := crypto.PubkeyToAddress(buyerKey.PublicKey).Hex()
	usd := axp.USD(50, 0)
	if _, _, err := client.Call(ctx, anon, contract.TestFund, axp.TestFundInput{Address: buyerAddr, USD: &usd}); err != nil {
		t.Fatal(err)
	}

	var funded []string
	for round := range 2 {
		waitFor(t, "a verified seller", func() error {
			created, _, err := client.Call(ctx, anon, contract.CreateTask, axp.NewTask{Type: "text-file", Params: map[string]any{"prompt": "probe"}})
			if err != nil {
				return err
			}
			if len(created.Offers) == 0 {
				return fmt.Errorf("no offer yet")
			}
			buyer := anon.With(created.BuyerToken)
			chosen, _, err := client.Call(ctx, buyer, contract.ChooseOffer, axp.ChooseInput{TaskRef: axp.TaskRef{ID: created.ID}, OfferID: created.Offers[0].OfferID})
			if err != nil {
				return err
			}
			pricing, _, err := client.Call(ctx, anon, contract.GetPricing, contract.NoInput{})
			if err != nil {
				return err
			}
			payTestChain(t, pricing.Chain, buyerKey, chosen.Payment.DepositAddress, chosen.Payment.PayableUSD)
			// SIGKILL the moment the exchange says the task is funded.
			waitFor(t, "the payment of round "+strconv.Itoa(round), func() error {
				tk, _, err := client.Call(ctx, buyer, contract.GetTask, axp.TaskQuery{TaskRef: axp.TaskRef{ID: created.ID}})
				if err != nil {
					return err
				}
				if tk.Status == axp.TaskAwaitingPayment {
					return fmt.Errorf("task is %s", tk.Status)
				}
				return nil
			})
			kill()
			funded = append(funded, created.ID)
			return nil
		})
		start()
	}

	// A few passes of the watcher after the last restart: every payment is still on the chain.
	time.Sleep(3 * time.Second)
	for _, id := range funded {
		l, _, err := client.Call(ctx, admin, contract.AdminApprovals, axp.ApprovalsQuery{Status: "all", TaskID: id, Kind: axp.ApprovePayment})
		if err != nil || len(l.Approvals) != 1 || l.Approvals[0].Status != axp.ApprovalApproved {
			t.Fatalf("task %s's payment after a SIGKILL: %v %+v\n%s", id, err, l, stderr.String())
		}
	}
	r, _, err := client.Call(ctx, admin, contract.AdminReconcile, contract.NoInput{})
	if err != nil {
		t.Fatal(err)
	}
	if !r.Covered || len(r.MissingTransfers) != 0 || len(r.UnknownTransfers) != 0 {
		t.Fatalf("reconcile after SIGKILLs: %+v\n%s", r, stderr.String())
	}
	if strings.Contains(stderr.String(), "reorganised") {
		t.Fatalf("the chain lost blocks in a SIGKILL:\n%s", stderr.String())
	}
}

// payTestChain sends amount of TestUSD from key to to on the test chain the exchange names.
func payTestChain(t *testing.T, ci *axp.ChainInfo, key *ecdsa.PrivateKey, to string, amount axp.Money) {
	t.Helper()
	ec, err := ethclient.Dial(ci.RPCURL)
	if err != nil {
		t.Fatal(err)
	}
	defer ec.Close()
	if _, err := testusd.Transfer(context.Background(), ec, key, common.HexToAddress(ci.TokenAddress), common.HexToAddress(to), amount); err != nil {
		t.Fatal(err)
	}
}

// TestTestModeFaucetGiftSurvivesKill kills the exchange with SIGKILL while a gift of its faucet is
// on its way (the mint sent, not yet answered): after the restart the gift still counts against
// its caller's budget, so asking again for a fresh address is refused, and the caller never holds
// more than the budget.
func TestTestModeFaucetGiftSurvivesKill(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("SIGKILL is a unix signal")
	}
	srv := startKillable(t, []string{"HOME=" + t.TempDir(), "AXP_ANON_READS_PER_MINUTE=0", "AXP_FAUCET_USD_PER_CALLER_HOUR=100"}, "--test-mode")
	ctx := context.Background()
	anon := client.New(srv.base, "")
	pricing, _, err := client.Call(ctx, anon, contract.GetPricing, contract.NoInput{})
	if err != nil {
		t.Fatal(err)
	}
	ec, err := ethclient.Dial(pricing.Chain.RPCURL)
	if err != nil {
		t.Fatal(err)
	}
	head, err := ec.HeaderByNumber(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	faucet := head.Coinbase // the developer chain's sealer is its faucet
	before, err := ec.PendingNonceAt(ctx, faucet)
	if err != nil {
		t.Fatal(err)
	}
	fresh := func() string {
		k, _ := crypto.GenerateKey()
		return crypto.PubkeyToAddress(k.PublicKey).Hex()
	}
	first := fresh()
	usd := axp.USD(100, 0)
	go client.Call(ctx, anon, contract.TestFund, axp.TestFundInput{Address: first, USD: &usd}) // cut off by the kill
	waitFor(t, "the faucet's mint sent", func() error {
		n, err := ec.PendingNonceAt(ctx, faucet)
		if err != nil || n == before {
			return fmt.Errorf("pending nonce %d (%v)", n, err)
		}
		return nil
	})
	srv.kill()
	ec.Close()
	srv.start()
	_, _, err = client.Call(ctx, anon, contract.TestFund, axp.TestFundInput{Address: fresh(), USD: &usd})
	var e *axp.Error
	if !errors.As(err, &e) || e.Code != axp.CodeRateLimited || !strings.Contains(e.Message, "faucet_usd_per_caller_hour") || e.RetryAfter == 0 {
		t.Fatalf("a second gift after a SIGKILL mid-gift: %v\n%s", err, srv.stderr.String())
	}
}
