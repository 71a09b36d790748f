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

// RejectOptions are the inputs of `axp admin approvals reject`.
type RejectOptions struct {
	F      *cmdutil.Factory
	IO     *cmdutil.IOStreams
	Export cmdutil.Exporter
	ID     string
	Reason string
	Yes    bool
}

// NewCmdReject builds `axp admin approvals reject`.
func NewCmdReject(f *cmdutil.Factory, runF func(context.Context, *RejectOptions) error) *cobra.Command {
	o := &RejectOptions{F: f, IO: f.IO}
	c := &cobra.Command{
		Use:               "reject ID --reason TEXT",
		Short:             "Reject an item with a reason; nothing moves",
		Args:              cobra.ExactArgs(1),
		ValidArgsFunction: completeApprovals(f, func(a axp.Approval) string { return a.ID }),
		RunE: func(c *cobra.Command, args []string) error {
			o.ID = args[0]
			if strings.TrimSpace(o.Reason) == "" {
				return cmdutil.Usagef("--reason is required: it is kept with the decision and shown to the parties")
			}
			if runF != nil {
				return runF(c.Context(), o)
			}
			return rejectRun(c.Context(), o)
		},
	}
	c.Flags().StringVar(&o.Reason, "reason", "", "why the item is rejected")
	cmdutil.AddYesFlag(c, &o.Yes)
	cmdutil.AddExportFlags(c, &o.Export)
	return c
}

func rejectRun(ctx context.Context, o *RejectOptions) error {
	err := cmdutil.ConfirmStep(o.IO, o.Yes, "reject "+o.ID, func() ([]string, error) {
		a, err := findApproval(ctx, o.F, axp.ApprovalsQuery{Status: "all"}, o.ID)
		if err != nil {
			return nil, err
		}
		return append(describeApproval(a)[:1], "nothing moves; the reason is shown to the parties: "+o.Reason), nil
	})
	if err != nil {
		return err
	}
	a, raw, err := call(ctx, o.F, contract.AdminReject, axp.RejectBody{ID: o.ID, Reason: o.Reason})
	if err != nil {
		return err
	}
	if o.Export.Enabled() {
		return o.Export.Write(o.IO, raw)
	}
	fmt.Fprintf(o.IO.ErrOut, "✓ Rejected %s %s of task %s\n", a.Kind, a.ID, a.TaskID)
	return nil
}
