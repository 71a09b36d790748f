package task

import (
	"context"
	"strings"

	"github.com/axp-exchange/axp"
	"github.com/axp-exchange/axp/cmd/cmdutil"
	"github.com/axp-exchange/axp/contract"
	"github.com/spf13/cobra"
)

// DisputeOptions are the inputs of `axp task dispute`.
type DisputeOptions struct {
	F      *cmdutil.Factory
	IO     *cmdutil.IOStreams
	Export cmdutil.Exporter
	buyerFlags
	TaskID string
	Reason string
}

// NewCmdDispute builds `axp task dispute`.
func NewCmdDispute(f *cmdutil.Factory, runF func(context.Context, *DisputeOptions) error) *cobra.Command {
	o := &DisputeOptions{F: f, IO: f.IO}
	c := &cobra.Command{
		Use:               "dispute TASK --reason TEXT",
		Short:             "Dispute the delivery, with a reason",
		Args:              cobra.ExactArgs(1),
		ValidArgsFunction: CompleteTaskIDs(f),
		RunE: func(c *cobra.Command, args []string) error {
			o.TaskID = args[0]
			if strings.TrimSpace(o.Reason) == "" {
				return cmdutil.Usagef("--reason is required: say what is wrong with the delivery")
			}
			if runF != nil {
				return runF(c.Context(), o)
			}
			return act(c.Context(), o.F, o.IO, &o.Export, o.TaskID, o.Token, contract.DisputeTask, axp.DisputeInput{TaskRef: taskRef(o.TaskID), Reason: o.Reason},
				"✓ Disputed the delivery of %s; the task is %s")
		},
	}
	c.Flags().StringVar(&o.Reason, "reason", "", "what is wrong with the delivery")
	addTokenFlag(c, &o.buyerFlags)
	cmdutil.AddExportFlags(c, &o.Export)
	return c
}
