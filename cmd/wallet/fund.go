package wallet

import (
	"context"
	"fmt"
	"strings"

	"github.com/axp-exchange/axp"
	"github.com/axp-exchange/axp/client"
	"github.com/axp-exchange/axp/cmd/cmdutil"
	"github.com/axp-exchange/axp/contract"
	"github.com/axp-exchange/axp/protocol"
	"github.com/spf13/cobra"
)

// FundOptions are the inputs of `axp wallet fund`.
type FundOptions struct {
	F      *cmdutil.Factory
	IO     *cmdutil.IOStreams
	Export cmdutil.Exporter
	Wallet *Flags
	USD    string
}

// NewCmdFund builds `axp wallet fund`.
func NewCmdFund(f *cmdutil.Factory, w *Flags, runF func(context.Context, *FundOptions) error) *cobra.Command {
	o := &FundOptions{F: f, IO: f.IO, Wallet: w}
	c := &cobra.Command{
		Use:   "fund [--usd N]",
		Short: "Get test money (TestUSD and gas) from the faucet of an exchange in test mode",
		Long: `Ask the faucet of an exchange in test mode (axp serve --test-mode) to mint TestUSD to the
wallet, and to send it gas when it has too little: test money for trying payments end to end. An
exchange whose money is real has no faucet and says so (exit status 1).

The faucet gives an address one gift every 10 s and at most US$5,000 an hour, and each caller
(by IP, and by member or buyer token when the call carries one) and the whole exchange a budget
an hour (by default US$5,000 and US$50,000): past one it refuses, naming the limit and when there
is room again.`,
		Example: `  axp wallet fund
  axp wallet fund --usd 25`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, args []string) error {
			if runF != nil {
				return runF(c.Context(), o)
			}
			return fundRun(c.Context(), o)
		},
	}
	c.Flags().StringVar(&o.USD, "usd", "", "US dollars of TestUSD to mint (default: the faucet's, US$100; at most 1000)")
	cmdutil.AddExportFlags(c, &o.Export)
	return c
}

func fundRun(ctx context.Context, o *FundOptions) error {
	in := axp.TestFundInput{}
	if o.USD != "" {
		m, err := protocol.ParseMoney(strings.TrimPrefix(strings.TrimSpace(o.USD), "$"))
		if err != nil || m <= 0 {
			return cmdutil.Usagef("--usd %q: give US dollars above 0, e.g. 25", o.USD)
		}
		in.USD = &m
	}
	w, err := Load(o.F, o.IO.In, o.Wallet)
	if err != nil {
		return err
	}
	in.Address = w.Address()
	out, raw, err := client.Call(ctx, o.F.Client(""), contract.TestFund, in)
	if err != nil {
		return err
	}
	if o.Export.Enabled() {
		return o.Export.Write(o.IO, raw)
	}
	fmt.Fprintf(o.IO.ErrOut, "✓ The faucet sent %s of test money to %s\n", out.USD.Display(), out.Address)
	return cmdutil.KeyValues(o.IO, "Address", out.Address, "Token tx", out.TokenTx, "Gas tx", out.GasTx,
		"Balance", cmdutil.Money(o.IO, out.BalanceUSD), "Gas wei", out.GasWei)
}
