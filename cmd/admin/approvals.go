package admin

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/axp-exchange/axp"
	"github.com/axp-exchange/axp/cmd/cmdutil"
	"github.com/axp-exchange/axp/contract"
	"github.com/spf13/cobra"
)

func newApprovalsCmd(f *cmdutil.Factory) *cobra.Command {
	c := &cobra.Command{
		Use:   "approvals",
		Short: "The approval queue: every payment, payout, refund and split waits here",
	}
	c.AddCommand(NewCmdApprovalsList(f, nil), NewCmdApprove(f, nil), NewCmdReject(f, nil))
	return c
}

// ApprovalsListOptions are the inputs of `axp admin approvals list`.
type ApprovalsListOptions struct {
	F      *cmdutil.Factory
	IO     *cmdutil.IOStreams
	Export cmdutil.Exporter
	Status string
	Kind   string
	TaskID string
	Now    func() time.Time
}

var (
	approvalStatuses = allowed(contract.AdminApprovals, "status")
	approvalKinds    = allowed(contract.AdminApprovals, "kind")
)

// NewCmdApprovalsList builds `axp admin approvals list`.
func NewCmdApprovalsList(f *cmdutil.Factory, runF func(context.Context, *ApprovalsListOptions) error) *cobra.Command {
	o := &ApprovalsListOptions{F: f, IO: f.IO, Now: time.Now}
	c := &cobra.Command{
		Use:     "list",
		Aliases: []string{"ls"},
		Short:   "List the queue (open items by default)",
		Args:    cobra.NoArgs,
		RunE: func(c *cobra.Command, args []string) error {
			if err := oneOf("--status", o.Status, approvalStatuses); err != nil {
				return err
			}
			if err := oneOf("--kind", o.Kind, approvalKinds); err != nil {
				return err
			}
			if runF != nil {
				return runF(c.Context(), o)
			}
			return approvalsListRun(c.Context(), o)
		},
	}
	c.Flags().StringVar(&o.Status, "status", "", "open (default: pending and held), pending_approval, held, approved, rejected or all")
	c.Flags().StringVar(&o.Kind, "kind", "", "payment, payout, refund, split, release_due or return")
	c.Flags().StringVar(&o.TaskID, "task", "", "only the items of this task")
	c.RegisterFlagCompletionFunc("status", cobra.FixedCompletions(approvalStatuses, cobra.ShellCompDirectiveNoFileComp))
	c.RegisterFlagCompletionFunc("kind", cobra.FixedCompletions(approvalKinds, cobra.ShellCompDirectiveNoFileComp))
	cmdutil.AddExportFlags(c, &o.Export)
	return c
}

func oneOf(flag, v string, allowed []string) error {
	if v == "" {
		return nil
	}
	for _, a := range allowed {
		if v == a {
			return nil
		}
	}
	return cmdutil.Usagef("%s %q: use one of %s", flag, v, strings.Join(allowed, ", "))
}

func approvalsListRun(ctx context.Context, o *ApprovalsListOptions) error {
	l, raw, err := call(ctx, o.F, contract.AdminApprovals, axp.ApprovalsQuery{Status: o.Status, Kind: o.Kind, TaskID: o.TaskID})
	if err != nil {
		return err
	}
	if o.Export.Enabled() {
		return o.Export.Write(o.IO, raw)
	}
	if len(l.Approvals) == 0 {
		if o.Kind == axp.ApprovePayment && o.Status == "" && o.TaskID == "" {
			fmt.Fprintln(o.IO.ErrOut, "No payment waits for confirmation")
		} else {
			fmt.Fprintln(o.IO.ErrOut, "The queue is empty")
		}
		return nil
	}
	cs := o.IO.ColorScheme()
	tp := cmdutil.Table(o.IO)
	tp.AddHeader([]string{"ID", "KIND", "STATUS", "TASK", "AMOUNT", "PARTIES", "AGE", "CHECKS"})
	for _, a := range l.Approvals {
		tp.AddField(a.ID)
		tp.AddField(a.Kind, cmdutil.WithColor(cs.Bold))
		tp.AddField(a.Shown(), cmdutil.WithColor(cs.Status))
		tp.AddField(a.TaskID)
		tp.AddField(cmdutil.Money(o.IO, a.Amount))
		tp.AddField(Parties(a))
		age := time.Duration(a.AgeSeconds) * time.Second
		if o.IO.StdoutTTY {
			tp.AddField(cmdutil.Duration(age), cmdutil.WithColor(cs.Gray))
		} else {
			tp.AddField(fmt.Sprint(a.AgeSeconds))
		}
		tp.AddField(ChecksSummary(a.Checks))
		tp.EndRow()
	}
	return tp.Render()
}

// Parties names who an item involves: "buyer → seller".
func Parties(a axp.Approval) string {
	seller := a.SellerName
	if seller == "" {
		seller = a.SellerID
	}
	if seller == "" {
		return a.BuyerID
	}
	return a.BuyerID + " → " + seller
}

// ChecksSummary is "3/3 passed", "1/2 passed", or "" without checks.
func ChecksSummary(checks []axp.CheckResult) string {
	if len(checks) == 0 {
		return ""
	}
	n := 0
	for _, c := range checks {
		if c.Passed {
			n++
		}
	}
	return fmt.Sprintf("%d/%d passed", n, len(checks))
}
