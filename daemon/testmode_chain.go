//go:build !notestmode

package daemon

import (
	"context"
	"log/slog"

	"github.com/axp-exchange/axp/daemon/chain/testchain"
)

// openTestChain starts test mode's chain in dir (package testchain: go-ethereum's node in the
// process). A build with the tag notestmode leaves the node out of the binary (testmode_none.go).
func openTestChain(ctx context.Context, dir, listen string, log *slog.Logger) (testChain, TestChainInfo, error) {
	c, err := testchain.Open(ctx, testchain.Options{Dir: dir, Listen: listen, Log: log})
	if err != nil {
		return nil, TestChainInfo{}, err
	}
	return c, TestChainInfo{URL: c.URL, ChainID: c.ChainID, Genesis: c.Genesis.Hex(), Token: c.Token.Hex(),
		Deposit: c.Deposit.Hex(), HotWallet: c.HotWallet.Hex(), HotKeyFile: c.HotKeyFile,
		Escrow: c.Escrow.Escrow.Hex(), Collector: c.Escrow.Collector.Hex()}, nil
}
