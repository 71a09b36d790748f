package daemon

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/axp-exchange/axp/daemon/kernel"
	"github.com/axp-exchange/axp/store"
)

// testChain is test mode's running chain, as the daemon uses it; TestChainInfo describes it.
type testChain interface {
	kernel.Faucet
	Close() error
}

// TestChainInfo describes test mode's chain: its JSON-RPC URL, chain id, genesis hash, TestUSD's
// address, the deposit address, the hot wallet, the file holding the hot wallet's key, and the
// escrow contract with its ERC-3009 payment collector.
type TestChainInfo struct {
	URL                                string
	ChainID                            uint64
	Genesis, Token, Deposit, HotWallet string
	HotKeyFile                         string
	Escrow, Collector                  string
}

// TestChainDir is where test mode keeps its chain, inside the data dir.
const TestChainDir = "testchain"

// startTestChain runs test mode's chain in the data dir and points the chain settings, the payout
// key and the faucet at it, before the money service sets the chain up as it would a real one.
func (d *Daemon) startTestChain() error {
	cfg := &d.Cfg
	if strings.HasPrefix(cfg.Store, "postgres") {
		return fmt.Errorf("test mode runs on the embedded store: its chain lives in one daemon's data dir")
	}
	// A data dir that holds real money is refused before any of test mode is made in it.
	var have string
	var used bool
	if err := d.Store.View(func(tx *store.Tx) error {
		have = tx.MoneyMode()
		_, watched := tx.ChainCursor()
		used = watched || tx.HasTasks()
		return nil
	}); err != nil {
		return err
	}
	if err := refuseForTest(have, used, cfg.DataDir); err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	c, info, err := openTestChain(ctx, filepath.Join(cfg.DataDir, TestChainDir), cfg.TestChainListen, d.Log)
	if err != nil {
		return err
	}
	d.testChain, d.testInfo = c, info
	cfg.ChainRPCURL, cfg.ChainID, cfg.TokenAddress, cfg.TokenDecimals = info.URL, info.ChainID, info.Token, 6
	cfg.DepositAddress, cfg.PayoutKeyFile, cfg.PayoutKeyPassphrase = info.Deposit, info.HotKeyFile, ""
	cfg.EscrowAddress, cfg.EscrowCollectorAddress = info.Escrow, info.Collector
	d.Faucet = c
	d.Log.Warn("TEST MODE: money here is not real; the exchange runs its own chain", "source", "payments",
		"rpc_url", info.URL, "chain_id", info.ChainID, "token", info.Token, "deposit_address", info.Deposit, "hot_wallet", info.HotWallet, "escrow", info.Escrow)
	return nil
}

// checkMoneyMode keeps real and test money apart: a store records, at its first start, whether its
// ledger holds real money or test mode's (naming the test chain by its genesis), and a start in the
// other mode, or in test mode on another chain, is refused.
func (d *Daemon) checkMoneyMode() error {
	want := "real"
	if d.testChain != nil {
		want = "test:" + d.testInfo.Genesis
	}
	return d.Store.Update(func(tx *store.Tx) error {
		have := tx.MoneyMode()
		switch {
		case have == want:
			return nil
		case have == "" && d.testChain == nil:
			return tx.SetMoneyMode(want)
		case have == "" || have == "real":
			_, watched := tx.ChainCursor()
			if err := refuseForTest(have, watched || tx.HasTasks(), d.Cfg.DataDir); err != nil {
				return err
			}
			return tx.SetMoneyMode(want)
		case d.testChain == nil:
			return fmt.Errorf("this data dir (%s) was made in test mode: its money is not real; serve it with --test-mode, or use another --data-dir for real money", d.Cfg.DataDir)
		default:
			return fmt.Errorf("the test chain in %s (genesis %s) is not the one this data dir's ledger was written against (%s): start with a fresh data dir",
				filepath.Join(d.Cfg.DataDir, TestChainDir), d.testInfo.Genesis, strings.TrimPrefix(have, "test:"))
		}
	})
}

// refuseForTest says why a store whose money mode is have (used: it holds tasks or payments) cannot
// be served in test mode, or nil.
func refuseForTest(have string, used bool, dataDir string) error {
	switch {
	case have == "real":
		return fmt.Errorf("this data dir (%s) holds real money: it cannot be served in test mode; use another --data-dir for test mode", dataDir)
	case have == "" && used:
		return fmt.Errorf("test mode needs a fresh data dir: %s already holds an exchange's tasks or payments, and real and test money never mix", dataDir)
	}
	return nil
}

// TestChain describes test mode's chain for the start banner (ok false when not in test mode).
func (d *Daemon) TestChain() (TestChainInfo, bool) { return d.testInfo, d.testChain != nil }
