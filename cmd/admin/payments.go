package admin

import (
	"context"
	"strings"
	"time"

	"github.com/axp-exchange/axp"
	"github.com/axp-exchange/axp/cmd/cmdutil"
	"github.com/axp-exchange/axp/contract"
	"github.com/spf13/cobra"
)

func newPaymentsCmd(f *cmdutil.Factory) *cobra.Command {
	o := &ApprovalsListOptions{F: f, IO: f.IO, Now: time.Now, Kind: axp.ApprovePayment}
	c := &cobra.Command{
		Use:   "payments",
		Short: "Buyers' payments waiting for confirmation (listed), and confirming one",
		Long: `List the buyers' payments that wait for the operator's confirmation (the payment items of the
approval queue), then confirm one with 'axp admin payments confirm TASK'.`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, args []string) error {
			return approvalsListRun(c.Context(), o)
		},
	}
	cmdutil.AddExportFlags(c, &o.Export)
	c.AddCommand(NewCmdPaymentsConfirm(f, nil), NewCmdWriteOff(f, nil))
	return c
}

// PaymentsConfirmOptions are the inputs of `axp admin payments confirm`.
type PaymentsConfirmOptions struct {
	F      *cmdutil.Factory
	IO     *cmdutil.IOStreams
	Export cmdutil.Exporter
	TaskID string
	Note   string
	Yes    bool
}

// NewCmdPaymentsConfirm builds `axp admin payments confirm`.
func NewCmdPaymentsConfirm(f *cmdutil.Factory, runF func(context.Context, *PaymentsConfirmOptions) error) *cobra.Command {
	o := &PaymentsConfirmOptions{F: f, IO: f.IO}
	c := &cobra.Command{
		Use:   "confirm TASK",
		Short: "Confirm the payment a task's buyer reported (approves its pending payment item)",
		Long: `Confirm that a task's reported payment arrived: the task's pending payment item in the
approval queue is approved and the job starts. Check the transaction first.`,
		Args: cobra.ExactArgs(1),
		ValidArgsFunction: func(c *cobra.Command, args []string, prefix string) ([]string, cobra.ShellCompDirective) {
			out, d := completeApprovals(f, func(a axp.Approval) string { return a.TaskID })(c, args, prefix)
			var payments []string
			for _, s := range out {
				if strings.Contains(s, "\tpayment of ") {
					payments = append(payments, s)
				}
			}
			return payments, d
		},
		RunE: func(c *cobra.Command, args []string) error {
			o.TaskID = args[0]
			if runF != nil {
				return runF(c.Context(), o)
			}
			return paymentsConfirmRun(c.Context(), o)
		},
	}
	c.Flags().StringVar(&o.Note, "note", "", "a note kept with the decision")
	cmdutil.AddYesFlag(c, &o.Yes)
	cmdutil.AddExportFlags(c, &o.Export)
	return c
}

func paymentsConfirmRun(ctx context.Context, o *PaymentsConfirmOptions) error {
	l, _, err := call(ctx, o.F, contract.AdminApprovals, axp.ApprovalsQuery{Status: axp.ApprovalPending, Kind: axp.ApprovePayment, TaskID: o.TaskID})
	if err != nil {
		return err
	}
	if len(l.Approvals) == 0 {
		return &axp.Error{Code: axp.CodeNotFound, Message: "no payment of task " + o.TaskID + " waits for confirmation",
			Hint: "the buyer reports one with `axp task pay TASK --tx HASH`; see the queue with `axp admin approvals list --kind payment`"}
	}
	a := &l.Approvals[0]
	err = cmdutil.ConfirmStep(o.IO, o.Yes, "confirm the payment of task "+o.TaskID, func() ([]string, error) {
		lines := describeApproval(a)
		if a.TxHash != "" {
			lines = append(lines, "reported transaction: "+a.TxHash+" (check it on chain first)")
		}
		return lines, nil
	})
	if err != nil {
		return err
	}
	return approve(ctx, o.F, o.IO, &o.Export, a.ID, "", o.Note)
}
