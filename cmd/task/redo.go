package task

import (
	"context"
	"strings"

	"github.com/axp-exchange/axp"
	"github.com/axp-exchange/axp/cmd/cmdutil"
	"github.com/axp-exchange/axp/contract"
	"github.com/spf13/cobra"
)

// RedoOptions are the inputs of `axp task redo`.
type RedoOptions struct {
	F      *cmdutil.Factory
	IO     *cmdutil.IOStreams
	Export cmdutil.Exporter
	buyerFlags
	TaskID string
	Reason string
}

// NewCmdRedo builds `axp task redo`.
func NewCmdRedo(f *cmdutil.Factory, runF func(context.Context, *RedoOptions) error) *cobra.Command {
	o := &RedoOptions{F: f, IO: f.IO}
	c := &cobra.Command{
		Use:               "redo TASK --reason TEXT",
		Short:             "Ask for a free redo the chosen offer guaranteed",
		Args:              cobra.ExactArgs(1),
		ValidArgsFunction: CompleteTaskIDs(f),
		RunE: func(c *cobra.Command, args []string) error {
			o.TaskID = args[0]
			if strings.TrimSpace(o.Reason) == "" {
				return cmdutil.Usagef("--reason is required: say what the redo should fix")
			}
			if runF != nil {
				return runF(c.Context(), o)
			}
			return act(c.Context(), o.F, o.IO, &o.Export, o.TaskID, o.Token, contract.RequestRedo, axp.RedoBody{TaskRef: taskRef(o.TaskID), Reason: o.Reason},
				"✓ Asked for a redo of %s; the task is %s")
		},
	}
	c.Flags().StringVar(&o.Reason, "reason", "", "what the redo should fix")
	addTokenFlag(c, &o.buyerFlags)
	cmdutil.AddExportFlags(c, &o.Export)
	return c
}
