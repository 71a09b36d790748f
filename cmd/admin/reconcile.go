package admin

import (
	"context"
	"fmt"
	"strconv"

	"github.com/axp-exchange/axp"
	"github.com/axp-exchange/axp/cmd/cmdutil"
	"github.com/axp-exchange/axp/contract"
	"github.com/spf13/cobra"
)

// ReconcileOptions are the inputs of `axp admin reconcile`.
type ReconcileOptions struct {
	F      *cmdutil.Factory
	IO     *cmdutil.IOStreams
	Export cmdutil.Exporter
}

// NewCmdReconcile builds `axp admin reconcile`.
func NewCmdReconcile(f *cmdutil.Factory, runF func(context.Context, *ReconcileOptions) error) *cobra.Command {
	o := &ReconcileOptions{F: f, IO: f.IO}
	c := &cobra.Command{
		Use:   "reconcile",
		Short: "Compare the ledger with the chain",
		Long: `Compare the ledger with the chain: what the deposit address and the hot wallet hold against what
the ledger says the exchange holds (payments received, less payouts and refunds sent or in flight),
every transfer to the deposit address that funds no task, and every ledger movement whose
transaction the chain does not show. Exits 1 when the chain does not cover the ledger or anything
is unexplained.`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, args []string) error {
			if runF != nil {
				return runF(c.Context(), o)
			}
			return reconcileRun(c.Context(), o)
		},
	}
	cmdutil.AddExportFlags(c, &o.Export)
	return c
}

func reconcileRun(ctx context.Context, o *ReconcileOptions) error {
	r, raw, err := call(ctx, o.F, contract.AdminReconcile, contract.NoInput{})
	if err != nil {
		return err
	}
	if o.Export.Enabled() {
		if err := o.Export.Write(o.IO, raw); err != nil {
			return err
		}
	} else {
		s := o.IO
		if err := cmdutil.KeyValues(s,
			"Chain", fmt.Sprintf("%d, %s %s", r.Chain.ChainID, r.Chain.TokenSymbol, r.Chain.TokenAddress),
			"Deposit address", r.Chain.DepositAddress+"  "+cmdutil.Money(s, r.DepositBalanceUSD)+depositCheck(s, r),
			"Hot wallet", hotWallet(s, r),
			"Queued to send", nonZeroMoney(s, r.QueuedUSD),
			"Received (ledger)", cmdutil.Money(s, r.ReceivedUSD),
			"Paid out (ledger)", cmdutil.Money(s, r.PaidOutUSD),
			"In flight", nonZeroMoney(s, r.InFlightUSD),
			"Expected on chain", cmdutil.Money(s, r.ExpectedUSD),
			"Difference", cmdutil.Money(s, r.DifferenceUSD)+s.OnTTY("  (positive: the operator's float; negative: money missing)"),
			"Scanned to block", strconv.FormatUint(r.ScannedToBlock, 10),
		); err != nil {
			return err
		}
		for _, u := range r.UnknownTransfers {
			fmt.Fprintf(s.Out, "unknown transfer %s from %s: %s (%s) %s\n", u.TxHash, u.From, cmdutil.Money(s, u.Amount), u.Outcome, u.Note)
		}
		for _, g := range r.MissingTransfers {
			fmt.Fprintf(s.Out, "missing transfer %s (%s of task %s, %s): %s\n", g.TxHash, g.Kind, g.TaskID, cmdutil.Money(s, g.Amount), g.Why)
		}
		for _, x := range r.InFlight {
			fmt.Fprintf(s.Out, "in flight %s: %s to the %s at %s\n", x.TxHash, cmdutil.Money(s, x.Amount), x.Part, x.To)
		}
	}
	if r.DepositDifferenceUSD < 0 {
		fmt.Fprintf(o.IO.ErrOut, "! The deposit address holds %s less than the ledger expects of it: money left it that the ledger does not know of (a sweep by the operator, or a theft); the hot wallet's float does not make up for it\n",
			(-r.DepositDifferenceUSD).Display())
	}
	if r.FloatShortUSD > 0 {
		fmt.Fprintf(o.IO.ErrOut, "! The hot wallet holds %s but approving the queue sends %s: send it at least %s of the stablecoin (payouts leave from the hot wallet; payments stay at the deposit address)\n",
			r.HotWalletBalanceUSD.Display(), r.QueuedUSD.Display(), r.FloatShortUSD.Display())
	}
	if !r.Covered {
		fmt.Fprintln(o.IO.ErrOut, "✗ The chain does not cover the ledger, or something is unexplained (see above)")
		return cmdutil.SilentError
	}
	if !o.Export.Enabled() {
		fmt.Fprintln(o.IO.ErrOut, "✓ The chain covers the ledger; nothing unexplained")
	}
	return nil
}

func hotWallet(s *cmdutil.IOStreams, r *axp.Reconciliation) string {
	if r.HotWalletAddress == "" {
		return "none (payouts are sent by hand)"
	}
	return r.HotWalletAddress + "  " + cmdutil.Money(s, r.HotWalletBalanceUSD) +
		fmt.Sprintf("  (float: %s put in, %s sent for the ledger)", cmdutil.Money(s, r.FloatUSD), cmdutil.Money(s, r.HotWalletSentUSD))
}

// depositCheck compares the deposit address with what the ledger says it must hold, apart from
// the hot wallet's float.
func depositCheck(s *cmdutil.IOStreams, r *axp.Reconciliation) string {
	switch d := r.DepositDifferenceUSD; {
	case d == 0:
		return "  (as the ledger expects)"
	case d > 0:
		return fmt.Sprintf("  (ledger expects %s: %s more)", cmdutil.Money(s, r.DepositExpectedUSD), cmdutil.Money(s, d))
	default:
		return fmt.Sprintf("  (ledger expects %s: %s missing)", cmdutil.Money(s, r.DepositExpectedUSD), cmdutil.Money(s, -d))
	}
}

func nonZeroMoney(s *cmdutil.IOStreams, m axp.Money) string {
	if m == 0 {
		return ""
	}
	return cmdutil.Money(s, m)
}
