// Package paid holds `axp paid ...`: the pay-per-call tools under /paid, called and paid from the
// wallet of `axp wallet` as an x402 client does (v2: the terms in PAYMENT-REQUIRED, the signed
// EIP-3009 authorization in PAYMENT-SIGNATURE, the settlement in PAYMENT-RESPONSE). It pays only
// the exchange's own chain, stablecoin and deposit address, as /api/pricing names them, and never
// more than the caller's cap.
package paid

import (
	"github.com/axp-exchange/axp/cmd/cmdutil"
	"github.com/spf13/cobra"
)

// NewCmd builds `axp paid`.
func NewCmd(f *cmdutil.Factory) *cobra.Command {
	c := &cobra.Command{
		Use:   "paid",
		Short: "Call the pay-per-call tools (/paid), paying over x402 from your wallet",
		Long: `Call the exchange's pay-per-call tools (GET /paid lists them with their prices): 'axp paid call
PATH' sends the call, and when the exchange answers 402 with x402 terms it checks them against the
exchange's chain, caps the price (--max-usd), asks, signs a payment authorization with the wallet
of 'axp wallet' and calls again. --trial uses a free trial call instead.`,
	}
	c.AddCommand(NewCmdCall(f, nil))
	return c
}
