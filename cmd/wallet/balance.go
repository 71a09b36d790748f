package wallet

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/axp-exchange/axp"
	"github.com/axp-exchange/axp/cmd/cmdutil"
	"github.com/ethereum/go-ethereum/common"
	"github.com/spf13/cobra"
)

// BalanceOptions are the inputs of `axp wallet balance`.
type BalanceOptions struct {
	F      *cmdutil.Factory
	IO     *cmdutil.IOStreams
	Export cmdutil.Exporter
	Wallet *Flags
	RPCURL string
}

// NewCmdBalance builds `axp wallet balance`.
func NewCmdBalance(f *cmdutil.Factory, w *Flags, runF func(context.Context, *BalanceOptions) error) *cobra.Command {
	o := &BalanceOptions{F: f, IO: f.IO, Wallet: w}
	c := &cobra.Command{
		Use:   "balance [--rpc-url URL]",
		Short: "Show the wallet's stablecoin (in US dollars) and gas on the exchange's chain",
		Long: `Show what the wallet holds on the chain the exchange takes payments on (GET /api/pricing
names the chain and the stablecoin): the stablecoin in US dollars (by the token's decimals) and
the chain's own coin for gas. The node is --rpc-url, else the test chain the exchange publishes in
test mode; it must be on the exchange's chain.`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, args []string) error {
			if runF != nil {
				return runF(c.Context(), o)
			}
			return balanceRun(c.Context(), o)
		},
	}
	addRPCFlag(c, &o.RPCURL)
	cmdutil.AddExportFlags(c, &o.Export)
	return c
}

func addRPCFlag(c *cobra.Command, url *string) {
	c.Flags().StringVar(url, "rpc-url", "", "a JSON-RPC `URL` of a node of the exchange's chain (default: $AXP_RPC_URL, else the test chain the exchange publishes in test mode)")
}

// Balance is what `axp wallet balance --json` prints.
type Balance struct {
	Address       string    `json:"address"`
	ChainID       uint64    `json:"chain_id"`
	TestMode      bool      `json:"test_mode"`
	TokenAddress  string    `json:"token_address"`
	TokenSymbol   string    `json:"token_symbol,omitempty"`
	TokenDecimals uint8     `json:"token_decimals"`
	TokenUnits    string    `json:"token_units"`
	BalanceUSD    axp.Money `json:"balance_usd"`
	GasWei        string    `json:"gas_wei"`
	GasETH        string    `json:"gas_eth"`
}

func balanceRun(ctx context.Context, o *BalanceOptions) error {
	w, err := Load(o.F, o.IO.In, o.Wallet)
	if err != nil {
		return err
	}
	p, err := Pricing(ctx, o.F)
	if err != nil {
		return err
	}
	url, err := rpcURL(o.F, o.RPCURL, p)
	if err != nil {
		return err
	}
	n, err := dial(ctx, url, o.RPCURL != "", p)
	if err != nil {
		return err
	}
	defer n.close()
	addr := common.HexToAddress(w.Address())
	units, err := n.tokenBalance(ctx, addr)
	if err != nil {
		return err
	}
	wei, err := n.gasBalance(ctx, addr)
	if err != nil {
		return err
	}
	b := Balance{Address: w.Address(), ChainID: n.id, TestMode: p.TestMode, TokenAddress: n.token.Hex(), TokenSymbol: p.Chain.TokenSymbol,
		TokenDecimals: n.dec, TokenUnits: units.String(), BalanceUSD: n.usd(units), GasWei: wei.String(), GasETH: ETH(wei)}
	if o.Export.Enabled() {
		raw, err := json.Marshal(b)
		if err != nil {
			return err
		}
		return o.Export.Write(o.IO, raw)
	}
	chain := fmt.Sprint(n.id)
	if p.TestMode {
		chain += o.IO.OnTTY(" (the exchange's test chain: not real money)")
	}
	token := n.token.Hex()
	if p.Chain.TokenSymbol != "" {
		token = p.Chain.TokenSymbol + " " + token
	}
	return cmdutil.KeyValues(o.IO, "Address", b.Address, "Chain", chain, "Token", token,
		"Balance", cmdutil.Money(o.IO, b.BalanceUSD), "Gas", b.GasETH+o.IO.OnTTY(" ETH"))
}
