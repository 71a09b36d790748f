package admin

import (
	"context"
	"fmt"
	"strings"

	"github.com/axp-exchange/axp"
	"github.com/axp-exchange/axp/cmd/cmdutil"
	"github.com/axp-exchange/axp/contract"
	"github.com/spf13/cobra"
)

// WriteOffOptions are the inputs of `axp admin payments write-off`.
type WriteOffOptions struct {
	F      *cmdutil.Factory
	IO     *cmdutil.IOStreams
	Export cmdutil.Exporter
	TxHash string
	Note   string
	Yes    bool
}

// NewCmdWriteOff builds `axp admin payments write-off`.
func NewCmdWriteOff(f *cmdutil.Factory, runF func(context.Context, *WriteOffOptions) error) *cobra.Command {
	o := &WriteOffOptions{F: f, IO: f.IO}
	c := &cobra.Command{
		Use:   "write-off TX_HASH --note TEXT",
		Short: "Write off a reorged payment that never came back on chain",
		Long: `Write off a buyer's payment whose block left the canonical chain (a reorg deeper than the
confirmations) and whose transfer never came back: the ledger stops counting it received, what the
task still holds of it comes out of escrow, and what was paid out already on it is booked as the
platform's loss (platform:losses). The task's open payouts, refunds and splits are closed with the
note, and reconcile no longer lists the payment. Settle with the buyer outside the exchange.`,
		Args: cobra.ExactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			o.TxHash = args[0]
			if !txHash.MatchString(o.TxHash) {
				return cmdutil.Usagef("%q: a transaction hash is 0x followed by 64 hex digits", o.TxHash)
			}
			if strings.TrimSpace(o.Note) == "" {
				return cmdutil.Usagef("--note is required: say why the payment is written off (kept in the ledger and the audit trail)")
			}
			if runF != nil {
				return runF(c.Context(), o)
			}
			return writeOffRun(c.Context(), o)
		},
	}
	c.Flags().StringVar(&o.Note, "note", "", "why the payment is written off")
	cmdutil.AddYesFlag(c, &o.Yes)
	cmdutil.AddExportFlags(c, &o.Export)
	return c
}

func writeOffRun(ctx context.Context, o *WriteOffOptions) error {
	err := cmdutil.ConfirmStep(o.IO, o.Yes, "write off payment "+o.TxHash, func() ([]string, error) {
		return []string{
			"the ledger stops counting this payment received; what was paid out on it is booked as the platform's loss",
			"the task's open payouts, refunds and splits are closed; note: " + o.Note,
		}, nil
	})
	if err != nil {
		return err
	}
	w, raw, err := call(ctx, o.F, contract.AdminWriteOff, axp.WriteOffInput{TxHash: o.TxHash, Note: o.Note})
	if err != nil {
		return err
	}
	if o.Export.Enabled() {
		return o.Export.Write(o.IO, raw)
	}
	s := o.IO
	fmt.Fprintf(s.ErrOut, "✓ Wrote off payment %s of task %s: %s (%s from escrow, %s lost)\n", w.TxHash, w.TaskID,
		cmdutil.Money(s, w.AmountUSD), cmdutil.Money(s, w.FromEscrowUSD), cmdutil.Money(s, w.LossUSD))
	if len(w.Closed) > 0 {
		fmt.Fprintf(s.ErrOut, "  closed: %s\n", strings.Join(w.Closed, ", "))
	}
	if w.StillReorged {
		fmt.Fprintf(s.ErrOut, "! another payment of task %s is still off the chain: its items stay held\n", w.TaskID)
	}
	return nil
}
