package task

import (
	"cmp"
	"context"
	"fmt"
	"strings"

	"github.com/axp-exchange/axp/cmd/cmdutil"
	"github.com/axp-exchange/axp/contract"
	"github.com/spf13/cobra"
)

// ReceiptOptions are the inputs of `axp task receipt`.
type ReceiptOptions struct {
	F      *cmdutil.Factory
	IO     *cmdutil.IOStreams
	Export cmdutil.Exporter
	buyerFlags
	TaskID string
}

// NewCmdReceipt builds `axp task receipt`.
func NewCmdReceipt(f *cmdutil.Factory, runF func(context.Context, *ReceiptOptions) error) *cobra.Command {
	o := &ReceiptOptions{F: f, IO: f.IO}
	c := &cobra.Command{
		Use:   "receipt TASK",
		Short: "Show what you paid for a task and where the money went",
		Long: `Show the money of a task you bought: the transfers credited to it, and each payout, refund
or split the operator approved, with what it sends to the seller, back to you and to the exchange,
and its transactions.`,
		Args:              cobra.ExactArgs(1),
		ValidArgsFunction: CompleteTaskIDs(f),
		RunE: func(c *cobra.Command, args []string) error {
			o.TaskID = args[0]
			if runF != nil {
				return runF(c.Context(), o)
			}
			return receiptRun(c.Context(), o)
		},
	}
	addTokenFlag(c, &o.buyerFlags)
	cmdutil.AddExportFlags(c, &o.Export)
	return c
}

func receiptRun(ctx context.Context, o *ReceiptOptions) error {
	r, raw, err := asBuyer(ctx, o.F, o.TaskID, o.Token, contract.GetTaskReceipt, taskRef(o.TaskID))
	if err != nil {
		return err
	}
	if o.Export.Enabled() {
		return o.Export.Write(o.IO, raw)
	}
	w := o.IO.Out
	test := ""
	if r.Test {
		test = " (test money)"
	}
	fmt.Fprintf(w, "task:\t%s\nstatus:\t%s\nprice:\t%s%s\nreceived:\t%s\nrefunded:\t%s\n",
		r.TaskID, r.Status, r.PriceUSD.Display(), test, r.ReceivedUSD.Display(), r.RefundedUSD.Display())
	for _, p := range r.Payments {
		from := p.From
		if from == "" {
			from = "(confirmed by hand)"
		}
		fmt.Fprintf(w, "payment:\t%s from %s in %s\n", p.Amount.Display(), from, cmp.Or(p.TxHash, "-"))
	}
	for _, m := range r.Movements {
		fmt.Fprintf(w, "%s:\t%s %s: seller %s, buyer %s, fee %s; %s\n", m.Kind, m.ApprovalID, m.Status,
			m.ToSeller.Display(), m.ToBuyer.Display(), m.FeeUSD.Display(), cmp.Or(strings.Join(m.TxHashes, " "), "no transaction yet"))
	}
	return nil
}
