package daemon_test

import (
	"context"
	"crypto/ecdsa"
	"fmt"
	"io"
	"math/big"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/axp-exchange/axp"
	"github.com/axp-exchange/axp/client"
	"github.com/axp-exchange/axp/contract"
	"github.com/axp-exchange/axp/daemon"
	"github.com/axp-exchange/axp/daemon/chain/testusd"
	"github.com/axp-exchange/axp/store/pgtest"
	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/ethclient"
)

// testModeMarket is an exchange in test mode: its own chain in the data dir.
func testModeMarket(t *testing.T, dir string, mod ...func(*daemon.Config)) *env {
	t.Helper()
	if testing.Short() {
		t.Skip("test mode's chain: make test runs it")
	}
	if pgtest.OnPostgres(t) {
		t.Skip("test mode runs on the embedded store only")
	}
	return newMarket(t, append([]func(*daemon.Config){func(cfg *daemon.Config) {
		cfg.DataDir, cfg.TestMode, cfg.DepositAddress = dir, true, ""
		cfg.Confirmations, cfg.ChainPoll = 2, 100*time.Millisecond
	}}, mod...)...)
}

// testTransfer sends amount of TestUSD from key to to on the test chain and waits for it to be mined.
func testTransfer(t *testing.T, ec *ethclient.Client, token common.Address, key *ecdsa.PrivateKey, to string, amount axp.Money) string {
	t.Helper()
	ctx := context.Background()
	tx, err := testusd.Transfer(ctx, ec, key, token, common.HexToAddress(to), amount)
	if err != nil {
		t.Fatal(err)
	}
	within(t, 30*time.Second, func() error {
		r, err := ec.TransactionReceipt(ctx, tx.Hash())
		if err == nil && r.Status != types.ReceiptStatusSuccessful {
			t.Fatalf("transfer %s reverted (gas used %d of %d)", tx.Hash(), r.GasUsed, tx.Gas())
		}
		return err
	})
	return strings.ToLower(tx.Hash().Hex())
}

// balanceOf is who's TestUSD balance on the test chain.
func balanceOf(t *testing.T, ec *ethclient.Client, token common.Address, who string) axp.Money {
	t.Helper()
	data, _ := testusd.ABI().Pack("balanceOf", common.HexToAddress(who))
	raw, err := ec.CallContract(context.Background(), ethereum.CallMsg{To: &token, Data: data}, nil)
	if err != nil {
		t.Fatal(err)
	}
	return axp.Money(new(big.Int).SetBytes(raw).Int64())
}

// TestTestModePaidJob takes a paid job from post to a confirmed payout on test mode's own chain,
// with nothing else running: the pricing answer and the payment instructions say test mode, the
// faucet funds the buyer, the watcher finds the payment, the hot wallet pays the seller its net.
// A restart keeps the chain and its money; a start without test mode is refused.
func TestTestModePaidJob(t *testing.T) {
	dir := t.TempDir()
	m := testModeMarket(t, dir)

	var pricing axp.PricingInfo
	pricing = *callOp(t, m.anon, contract.GetPricing, contract.NoInput{})
	if !pricing.TestMode || pricing.Chain == nil || !strings.HasPrefix(pricing.Chain.RPCURL, "http://127.0.0.1:") || pricing.Chain.TokenSymbol != "TUSD" {
		t.Fatalf("pricing in test mode: %+v chain %+v", pricing, pricing.Chain)
	}
	ci := pricing.Chain
	// The front door says so too, in each of its forms.
	var fd axp.FrontDoor
	fd = *callOp(t, m.anon, contract.GetFrontDoor, contract.NoInput{})
	if !fd.TestMode {
		t.Fatalf("front door in test mode: %+v", fd)
	}
	for _, accept := range []string{"text/html", "text/markdown"} {
		req, _ := http.NewRequest(http.MethodGet, m.srv.URL+"/", nil)
		req.Header.Set("Accept", accept)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if !strings.Contains(string(body), "TEST MODE: money here is not real") {
			t.Fatalf("the %s front door does not say test mode:\n%s", accept, body)
		}
	}
	ec, err := ethclient.Dial(ci.RPCURL)
	if err != nil {
		t.Fatal(err)
	}
	defer ec.Close()
	token := common.HexToAddress(ci.TokenAddress)

	// The faucet funds a fresh buyer wallet with TestUSD and gas; it refuses a second gift at once.
	bk, _ := crypto.GenerateKey()
	buyerAddr := crypto.PubkeyToAddress(bk.PublicKey).Hex()
	var funds axp.TestFunds
	funds = *callOp(t, m.anon, contract.TestFund, axp.TestFundInput{Address: buyerAddr, USD: ptr(axp.USD(20, 0))})
	if funds.BalanceUSD != axp.USD(20, 0) || funds.GasTx == "" || !funds.TestMode {
		t.Fatalf("faucet: %+v", funds)
	}
	apiErr(t, m.anon.Call(context.Background(), "test_fund", map[string]any{"address": buyerAddr}, nil), axp.CodeRateLimited, "-")
	apiErr(t, m.anon.Call(context.Background(), "test_fund", map[string]any{"address": buyerAddr, "usd": 5000}, nil), axp.CodeInvalidInput, "usd")

	sellerKey, _ := crypto.GenerateKey()
	sellerAddr := crypto.PubkeyToAddress(sellerKey.PublicKey).Hex()
	seller := m.instantSeller("text-file", "4.50", 30, nil, map[string]any{"payout_address": sellerAddr})
	created, _ := createTask(t, m.anon, map[string]any{"type": "text-file", "params": map[string]any{"prompt": "a poem"}})
	buyer := m.anon.With(created.BuyerToken)
	task := waitStatus(t, buyer, created.ID, axp.TaskOpen)
	var chosen axp.Task
	chosen = *callOp(t, buyer, contract.ChooseOffer, axp.ChooseInput{TaskRef: axp.TaskRef{ID: created.ID}, OfferID: offerOf(t, task.Offers, seller.MemberID).OfferID})
	p := chosen.Payment
	if chosen.Status != axp.TaskAwaitingPayment || p == nil || !p.TestMode || p.ChainID != ci.ChainID || !strings.EqualFold(p.DepositAddress, ci.DepositAddress) {
		t.Fatalf("after choose: %s, payment %+v", chosen.Status, p)
	}
	// Test mode's chain has the escrow: the task may be paid into it too.
	if p.Escrow == nil || p.Escrow.Authorization.ValueUSD != p.AmountUSD {
		t.Fatalf("test mode offers no escrow: %+v", p.Escrow)
	}
	if code, err := ec.CodeAt(context.Background(), common.HexToAddress(p.Escrow.EscrowAddress), nil); err != nil || len(code) == 0 {
		t.Fatalf("no escrow at %s (%v)", p.Escrow.EscrowAddress, err)
	}

	// The buyer pays the exact payable amount; the watcher finds it within a few blocks.
	testTransfer(t, ec, token, bk, p.DepositAddress, p.PayableUSD)
	within(t, 30*time.Second, func() error {
		var got axp.Task
		if err := buyer.Call(context.Background(), "get_task", map[string]any{"id": created.ID}, &got); err != nil {
			return err
		}
		if got.Status != axp.TaskPaid {
			return fmt.Errorf("task is %s", got.Status)
		}
		return nil
	})

	deliverText(t, seller.c, created.ID, "Waves fold the light.")
	retrieve(t, buyer, created.ID)
	callOp(t, buyer, contract.AcceptTask, axp.AcceptInput{TaskRef: axp.TaskRef{ID: created.ID}})
	callOp(t, seller.c, contract.RequestPayment, axp.IDPath{ID: created.ID})
	payout := m.approvalOf(created.ID, axp.ApprovePayout)
	if sent := m.approve(payout.ID, false); sent.Status != axp.ApprovalSent || sent.Rail != "evm" {
		t.Fatalf("approved: %+v", sent)
	}
	net := usd(t, "4.50") - feeOf(usd(t, "4.50"))
	within(t, 30*time.Second, func() error {
		if a := m.approvalOf(created.ID, axp.ApprovePayout); a.Status != axp.ApprovalConfirmed {
			return fmt.Errorf("payout is %s", a.Status)
		}
		return nil
	})
	if bal := balanceOf(t, ec, token, sellerAddr); bal != net {
		t.Fatalf("seller holds %s; want its net %s", bal, net)
	}
	var r axp.Reconciliation
	r = *callOp(t, m.admin, contract.AdminReconcile, contract.NoInput{})
	if !r.Covered || len(r.UnknownTransfers) != 0 || len(r.MissingTransfers) != 0 {
		t.Fatalf("reconcile: %+v", r)
	}

	// A restart opens the same chain: the seller's money is still there.
	m.close()
	ec.Close()
	m = testModeMarket(t, dir)
	pricing = *callOp(t, m.anon, contract.GetPricing, contract.NoInput{})
	if ec, err = ethclient.Dial(pricing.Chain.RPCURL); err != nil {
		t.Fatal(err)
	}
	if pricing.Chain.TokenAddress != ci.TokenAddress || balanceOf(t, ec, token, sellerAddr) != net {
		t.Fatalf("after a restart: token %s, seller balance %s", pricing.Chain.TokenAddress, balanceOf(t, ec, token, sellerAddr))
	}
	m.close()

	// Served without test mode, the data dir is refused: its money is not real.
	cfg := daemon.Defaults()
	cfg.DataDir, cfg.AdminToken, cfg.Addr = dir, adminToken, "127.0.0.1:0"
	if d, _, err := daemon.New(cfg, io.Discard); err == nil || !strings.Contains(err.Error(), "made in test mode") {
		d.Close()
		t.Fatalf("a test-mode data dir served without test mode: %v", err)
	}
}

// TestTestModeRefusesRealDataDir: a data dir that holds real money is never served in test mode,
// and the faucet of an exchange not in test mode answers 503 with what to do.
func TestTestModeRefusesRealDataDir(t *testing.T) {
	if pgtest.OnPostgres(t) {
		t.Skip("test mode runs on the embedded store only")
	}
	m := newMarket(t)
	e := apiErr(t, m.anon.Call(context.Background(), "test_fund", map[string]any{"address": "0x00000000000000000000000000000000000000aa"}, nil), axp.CodeUnavailable, "-")
	if !strings.Contains(e.Message, "not in test mode") || !strings.Contains(e.Hint, "--test-mode") {
		t.Fatalf("faucet off test mode: %v", e)
	}
	dir := m.dir
	m.close()
	cfg := daemon.Defaults()
	cfg.DataDir, cfg.AdminToken, cfg.Addr, cfg.TestMode = dir, adminToken, "127.0.0.1:0", true
	d, _, err := daemon.New(cfg, io.Discard)
	if err == nil || !strings.Contains(err.Error(), "holds real money") {
		d.Close()
		t.Fatalf("a real data dir served in test mode: %v", err)
	}
	// Refused before its chain was made: nothing of test mode is left in the data dir.
	if _, err := os.Stat(filepath.Join(dir, daemon.TestChainDir)); !os.IsNotExist(err) {
		t.Fatalf("a refused test-mode start left %s: %v", daemon.TestChainDir, err)
	}
}

// freshAddress is a new address no one has funded.
func freshAddress() string {
	k, _ := crypto.GenerateKey()
	return crypto.PubkeyToAddress(k.PublicKey).Hex()
}

// TestTestModeFaucetBudgets: one caller naming fresh address after fresh address is refused once
// its budget of the hour is spent, and every caller once the exchange's is; each refusal is a 429
// with Retry-After naming the limit. The gifts are recorded in the store before they are sent, so
// a restart still counts them.
func TestTestModeFaucetBudgets(t *testing.T) {
	dir := t.TempDir()
	budgets := func(cfg *daemon.Config) {
		cfg.FaucetPerCaller, cfg.FaucetPerHour = axp.USD(300, 0), axp.USD(500, 0)
		cfg.TrustedProxies = []string{"127.0.0.1"} // each caller's IP comes from X-Forwarded-For
	}
	m := testModeMarket(t, dir, budgets)
	fund := func(m *env, ip string) *client.Response {
		t.Helper()
		resp, err := raw(m.anon, "POST", "/api/test/fund", []byte(fmt.Sprintf(`{"address":%q,"usd":100}`, freshAddress())),
			http.Header{"X-Forwarded-For": {ip}})
		if resp == nil {
			t.Fatal(err)
		}
		return resp
	}
	refused := func(resp *client.Response, limit string) {
		t.Helper()
		if resp.Status != http.StatusTooManyRequests || resp.Header.Get("Retry-After") == "" || !strings.Contains(string(resp.Body), limit) {
			t.Fatalf("want 429 with Retry-After naming %s, got %d %v\n%s", limit, resp.Status, resp.Header, resp.Body)
		}
	}
	for i := range 3 {
		if resp := fund(m, "203.0.113.1"); resp.Status != http.StatusOK {
			t.Fatalf("gift %d: %d %s", i+1, resp.Status, resp.Body)
		}
	}
	refused(fund(m, "203.0.113.1"), "faucet_usd_per_caller_hour")
	for i := range 2 {
		if resp := fund(m, "203.0.113.2"); resp.Status != http.StatusOK {
			t.Fatalf("another caller's gift %d: %d %s", i+1, resp.Status, resp.Body)
		}
	}
	refused(fund(m, "203.0.113.2"), "faucet_usd_per_hour")
	m.close()
	m = testModeMarket(t, dir, budgets)
	refused(fund(m, "203.0.113.3"), "faucet_usd_per_hour")
}

// TestTestModeFaucetConcurrent: gifts asked for together are sent together: every one arrives,
// the faucet's nonces are each used once, and they are mined in a few blocks, not one or two
// blocks per gift.
func TestTestModeFaucetConcurrent(t *testing.T) {
	m := testModeMarket(t, t.TempDir())
	var pricing axp.PricingInfo
	pricing = *callOp(t, m.anon, contract.GetPricing, contract.NoInput{})
	ec, err := ethclient.Dial(pricing.Chain.RPCURL)
	if err != nil {
		t.Fatal(err)
	}
	defer ec.Close()
	const n = 12
	funds := make([]axp.TestFunds, n)
	errs := make([]error, n)
	done := make(chan int)
	for i := range n {
		go func() {
			errs[i] = m.anon.Call(context.Background(), "test_fund", map[string]any{"address": freshAddress(), "usd": 10}, &funds[i])
			done <- i
		}()
	}
	for range n {
		<-done
	}
	ctx := context.Background()
	nonces, blocks := map[uint64]bool{}, map[uint64]bool{}
	var from common.Address
	for i, f := range funds {
		if errs[i] != nil || f.BalanceUSD != axp.USD(10, 0) || f.TokenTx == "" || f.GasTx == "" {
			t.Fatalf("gift %d: %v %+v", i, errs[i], f)
		}
		for _, h := range []string{f.TokenTx, f.GasTx} {
			tx, _, err := ec.TransactionByHash(ctx, common.HexToHash(h))
			if err != nil {
				t.Fatal(err)
			}
			sender, err := types.Sender(types.LatestSignerForChainID(tx.ChainId()), tx)
			if err != nil || (from != (common.Address{}) && sender != from) {
				t.Fatalf("transaction %s from %s (%v), the others from %s", h, sender, err, from)
			}
			from = sender
			if nonces[tx.Nonce()] {
				t.Fatalf("nonce %d used twice", tx.Nonce())
			}
			nonces[tx.Nonce()] = true
			r, err := ec.TransactionReceipt(ctx, tx.Hash())
			if err != nil || r.Status != types.ReceiptStatusSuccessful {
				t.Fatalf("receipt of %s: %v %+v", h, err, r)
			}
			blocks[r.BlockNumber.Uint64()] = true
		}
	}
	lo, hi := uint64(1<<63), uint64(0)
	for x := range nonces {
		lo, hi = min(lo, x), max(hi, x)
	}
	if len(nonces) != 2*n || hi-lo != 2*n-1 {
		t.Fatalf("%d gifts used nonces %d to %d (%d distinct), want %d in a row", n, lo, hi, len(nonces), 2*n)
	}
	if len(blocks) > n/2 {
		t.Fatalf("%d concurrent gifts were mined in %d blocks: they waited for one another", n, len(blocks))
	}
	t.Logf("%d concurrent gifts (%d transactions) mined in %d block(s)", n, 2*n, len(blocks))
}
