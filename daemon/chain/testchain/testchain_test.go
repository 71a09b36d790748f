package testchain_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/axp-exchange/axp"
	"github.com/axp-exchange/axp/daemon/chain"
	"github.com/axp-exchange/axp/daemon/chain/escrow"
	"github.com/axp-exchange/axp/daemon/chain/testchain"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/ethclient"
)

// TestOpenFundReopen starts a test chain, checks what the first start set up through the exchange's
// own chain client, funds an address from the faucet, and opens the chain again: the token, the
// balances and the blocks are still there.
func TestOpenFundReopen(t *testing.T) {
	if testing.Short() {
		t.Skip("a test chain mining its blocks: make test runs it")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	dir := t.TempDir()
	c, err := testchain.Open(ctx, testchain.Options{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(c.URL, "http://127.0.0.1:") {
		t.Fatalf("URL %q: want a loopback HTTP endpoint", c.URL)
	}
	for _, f := range []string{"faucet.key", "deposit.key", "hot-wallet.key", "chain.json"} {
		st, err := os.Stat(filepath.Join(dir, f))
		if err != nil || st.Mode().Perm() != 0o600 {
			t.Fatalf("%s: %v, mode %v; want mode 0600", f, err, st.Mode().Perm())
		}
	}
	// The exchange's chain client accepts it as it would a real node.
	cl, info, err := chain.Dial(ctx, chain.Config{RPCURL: c.URL, ChainID: c.ChainID, Token: c.Token.Hex(), Decimals: 6,
		Deposit: c.Deposit.Hex(), Confirmations: 1})
	if err != nil {
		t.Fatalf("dial the test chain: %v", err)
	}
	defer cl.Close()
	if info.Symbol != "TUSD" || info.Decimals != 6 {
		t.Fatalf("token %s with %d decimals; want TUSD with 6", info.Symbol, info.Decimals)
	}
	// The escrow and its collectors are deployed: the escrow answers getHash.
	if _, err := escrow.GetHash(ctx, cl.Eth(), c.Escrow.Escrow, escrow.PaymentInfo{}); err != nil {
		t.Fatalf("the escrow at %s: %v", c.Escrow.Escrow, err)
	}
	for _, a := range []common.Address{c.Escrow.Collector, c.Escrow.RefundCollector} {
		if code, err := cl.Eth().CodeAt(ctx, a, nil); err != nil || len(code) == 0 {
			t.Fatalf("no collector at %s (%v)", a, err)
		}
	}
	bal, err := cl.BalanceOf(ctx, c.HotWallet.Hex())
	if err != nil || cl.Money(bal) != testchain.Float {
		t.Fatalf("hot wallet holds %v (%v); want the float %s", bal, err, testchain.Float)
	}
	key, _ := crypto.GenerateKey()
	who := crypto.PubkeyToAddress(key.PublicKey)
	got, err := c.Fund(ctx, who.Hex(), axp.USD(25, 0))
	if err != nil {
		t.Fatal(err)
	}
	if got.BalanceUSD != axp.USD(25, 0) || got.TokenTx == "" || got.GasTx == "" || got.GasWei == "0" {
		t.Fatalf("fund: %+v; want 25 USD, a token and a gas transaction", got)
	}
	// A second gift adds TestUSD, and no more gas while the address holds enough.
	got, err = c.Fund(ctx, who.Hex(), axp.USD(5, 0))
	if err != nil || got.BalanceUSD != axp.USD(30, 0) || got.GasTx != "" {
		t.Fatalf("second fund: %+v, %v; want 30 USD and no gas transaction", got, err)
	}
	head, err := cl.Head(ctx)
	if err != nil {
		t.Fatal(err)
	}
	token, genesis, contracts := c.Token, c.Genesis, c.Escrow
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}

	c, err = testchain.Open(ctx, testchain.Options{Dir: dir})
	if err != nil {
		t.Fatalf("reopen: %v", err)
	}
	defer c.Close()
	if c.Token != token || c.Genesis != genesis || c.Escrow != contracts {
		t.Fatalf("reopened with token %s genesis %s escrow %+v; want %s %s %+v", c.Token, genesis, c.Escrow, token, genesis, contracts)
	}
	if b, err := c.Balance(ctx, who); err != nil || b != axp.USD(30, 0) {
		t.Fatalf("after the restart the address holds %s (%v); want 30 USD", b, err)
	}
	cl2, _, err := chain.Dial(ctx, chain.Config{RPCURL: c.URL, ChainID: c.ChainID, Token: c.Token.Hex(), Decimals: 6,
		Deposit: c.Deposit.Hex(), Confirmations: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer cl2.Close()
	if h, err := cl2.Head(ctx); err != nil || h < head {
		t.Fatalf("head after the restart %d (%v); want at least %d", h, err, head)
	}
}

// TestChainGoneRefused: a directory whose node database is gone while its setup remains is refused,
// naming the cause: a new chain could not agree with the ledger written against the old one.
func TestChainGoneRefused(t *testing.T) {
	if testing.Short() {
		t.Skip("a test chain mining its blocks: make test runs it")
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	dir := t.TempDir()
	c, err := testchain.Open(ctx, testchain.Options{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	c.Close()
	if err := os.RemoveAll(filepath.Join(dir, "geth")); err != nil {
		t.Fatal(err)
	}
	_, err = testchain.Open(ctx, testchain.Options{Dir: dir})
	if err == nil || !strings.Contains(err.Error(), "fresh data dir") {
		t.Fatalf("open with the chain gone: %v; want a refusal naming a fresh data dir", err)
	}
}

// TestListenLoopbackOnly: the test chain never listens beyond the machine.
func TestListenLoopbackOnly(t *testing.T) {
	_, err := testchain.Open(context.Background(), testchain.Options{Dir: t.TempDir(), Listen: "0.0.0.0:0"})
	if err == nil || !strings.Contains(err.Error(), "loopback") {
		t.Fatalf("listen on 0.0.0.0: %v; want a refusal", err)
	}
}

// TestEscrowAddedToAnOlderChain: a chain set up before the escrow existed (its chain.json names
// none) gets the escrow and its collectors at its next start, and keeps them after.
func TestEscrowAddedToAnOlderChain(t *testing.T) {
	if testing.Short() {
		t.Skip("a test chain mining its blocks: make test runs it")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	dir := t.TempDir()
	c, err := testchain.Open(ctx, testchain.Options{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	first := c.Escrow
	c.Close()
	setup := filepath.Join(dir, "chain.json")
	raw, err := os.ReadFile(setup)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatal(err)
	}
	delete(m, "escrow")
	raw, _ = json.Marshal(m)
	if err := os.WriteFile(setup, raw, 0o600); err != nil {
		t.Fatal(err)
	}
	c, err = testchain.Open(ctx, testchain.Options{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	added := c.Escrow
	if added.Escrow == (common.Address{}) || added.Escrow == first.Escrow {
		t.Fatalf("escrow after the older setup: %+v (first %+v)", added, first)
	}
	c.Close()
	c, err = testchain.Open(ctx, testchain.Options{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if c.Escrow != added {
		t.Fatalf("reopened with escrow %+v; want %+v", c.Escrow, added)
	}
}

// TestAdjustTime: the chain's clock moves ahead by what was asked, and the blocks after it go on
// from there rather than back to the wall clock.
func TestAdjustTime(t *testing.T) {
	if testing.Short() {
		t.Skip("a test chain mining its blocks: make test runs it")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	c, err := testchain.Open(ctx, testchain.Options{Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ec, err := ethclient.Dial(c.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer ec.Close()
	before, err := ec.HeaderByNumber(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	const ahead = 3 * 24 * time.Hour
	if err := c.AdjustTime(ctx, ahead); err != nil {
		t.Fatal(err)
	}
	moved, err := ec.HeaderByNumber(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if want := before.Time + uint64(ahead/time.Second); moved.Time < want {
		t.Fatalf("block %d at %d; want at least %d", moved.Number, moved.Time, want)
	}
	for {
		next, err := ec.HeaderByNumber(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		if next.Number.Cmp(moved.Number) > 0 {
			if next.Time <= moved.Time {
				t.Fatalf("block %d at %d after block %d at %d", next.Number, next.Time, moved.Number, moved.Time)
			}
			return
		}
		select {
		case <-ctx.Done():
			t.Fatal("no block after the moved one")
		case <-time.After(50 * time.Millisecond):
		}
	}
}
