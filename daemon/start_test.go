package daemon_test

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/axp-exchange/axp"
	"github.com/axp-exchange/axp/daemon"
	"github.com/axp-exchange/axp/daemon/chain/chaintest"
)

// TestNewChainMisconfig: a chain setting that is wrong fails daemon.New with an error naming it,
// at each stage of the start (before the chain is dialled, after it, after the hot wallet), and
// what the failed start had opened is closed: the next New on the same data dir starts. A deposit
// address that is the hot wallet's own (in any case) is refused: the watcher would take the hot
// wallet's sends for nothing and its float for buyers' money.
func TestNewChainMisconfig(t *testing.T) {
	c := chaintest.Start(t)
	hot := c.NewKey()
	keys := t.TempDir()
	keyFile := filepath.Join(keys, "hot.key")
	if err := os.WriteFile(keyFile, []byte(chaintest.KeyHex(hot)), 0o600); err != nil {
		t.Fatal(err)
	}
	openKey := filepath.Join(keys, "open.key")
	if err := os.WriteFile(openKey, []byte(chaintest.KeyHex(hot)), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(openKey, 0o644); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	deposit := chaintest.Addr(c.NewKey())
	config := func(mod func(*daemon.Config)) daemon.Config {
		cfg := daemon.Defaults()
		cfg.Addr, cfg.DataDir, cfg.AdminToken, cfg.NoSync = "127.0.0.1:0", dir, adminToken, true
		cfg.Store = storeFor(t, dir)
		cfg.ChainRPCURL, cfg.ChainID, cfg.TokenAddress, cfg.DepositAddress = c.URL, c.ID, c.Token, deposit
		cfg.PayoutKeyFile = keyFile
		if mod != nil {
			mod(&cfg)
		}
		return cfg
	}
	for _, tc := range []struct {
		name string
		mod  func(*daemon.Config)
		want string
	}{
		{"wrong chain id", func(cfg *daemon.Config) { cfg.ChainID = 8453 }, "chain_id is 8453"},
		{"key file readable by others", func(cfg *daemon.Config) { cfg.PayoutKeyFile = openKey }, "payout_key_file"},
		{"deposit address is the hot wallet", func(cfg *daemon.Config) { cfg.DepositAddress = strings.ToLower(chaintest.Addr(hot)) },
			"deposit_address " + chaintest.Addr(hot) + " is the hot wallet's address (payout_key_file " + keyFile},
		{"unreachable facilitator", func(cfg *daemon.Config) { cfg.X402FacilitatorURL = "http://127.0.0.1:1" }, "x402_facilitator_url"},
		{"paid price of no tool", func(cfg *daemon.Config) { cfg.PaidPrices = map[string]axp.Money{"no_such_tool": 5000} }, "paid_prices"},
		{"escrow that is no contract", func(cfg *daemon.Config) {
			cfg.EscrowAddress, cfg.EscrowCollectorAddress = deposit, c.Token
		}, "escrow_address " + deposit + " holds no contract on chain"},
		{"escrow without its collector", func(cfg *daemon.Config) { cfg.EscrowAddress = c.Token }, "escrow_address and escrow_collector_address go together"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d, _, err := daemon.New(config(tc.mod), io.Discard)
			if err == nil {
				d.Close()
				t.Fatalf("New started with a wrong setting")
			}
			if !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "\n") {
				t.Fatalf("New: %v; want one line with %q", err, tc.want)
			}
			d, _, err = daemon.New(config(nil), io.Discard)
			if err != nil {
				t.Fatalf("New after a failed start on the same data dir: %v", err)
			}
			if err := d.Close(); err != nil {
				t.Fatal(err)
			}
		})
	}
}
