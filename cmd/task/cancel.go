package task

import (
	"context"
	"fmt"

	"github.com/axp-exchange/axp"
	"github.com/axp-exchange/axp/cmd/cmdutil"
	"github.com/axp-exchange/axp/contract"
	"github.com/spf13/cobra"
)

// CancelOptions are the inputs of `axp task cancel`.
type CancelOptions struct {
	F      *cmdutil.Factory
	IO     *cmdutil.IOStreams
	Export cmdutil.Exporter
	buyerFlags
	TaskID string
	Reason string
	Yes    bool
}

// NewCmdCancel builds `axp task cancel`.
func NewCmdCancel(f *cmdutil.Factory, runF func(context.Context, *CancelOptions) error) *cobra.Command {
	o := &CancelOptions{F: f, IO: f.IO}
	c := &cobra.Command{
		Use:   "cancel TASK",
		Short: "Withdraw a task before its job starts",
		Long: `Withdraw a task that is open or awaiting payment; the sellers who offered are told, with the
reason when one is given. A payment no job used is refunded once the operator approves.`,
		Example:           `  axp task cancel tsk_123 --reason "found it elsewhere"`,
		Args:              cobra.ExactArgs(1),
		ValidArgsFunction: CompleteTaskIDs(f),
		RunE: func(c *cobra.Command, args []string) error {
			o.TaskID = args[0]
			if runF != nil {
				return runF(c.Context(), o)
			}
			return cancelRun(c.Context(), o)
		},
	}
	c.Flags().StringVar(&o.Reason, "reason", "", "why, for the sellers who offered and the record")
	cmdutil.AddYesFlag(c, &o.Yes)
	addTokenFlag(c, &o.buyerFlags)
	cmdutil.AddExportFlags(c, &o.Export)
	return c
}

func cancelRun(ctx context.Context, o *CancelOptions) error {
	err := cmdutil.ConfirmStep(o.IO, o.Yes, "cancel task "+o.TaskID, func() ([]string, error) {
		t, _, err := getTask(ctx, o.F, o.TaskID, o.Token, "")
		if err != nil {
			return nil, err
		}
		return []string{fmt.Sprintf("task %s (%s) is %s with %s; cancelling cannot be undone",
			t.ID, t.Type, t.Status, cmdutil.Count(len(t.Offers), "offer", "offers"))}, nil
	})
	if err != nil {
		return err
	}
	return act(ctx, o.F, o.IO, &o.Export, o.TaskID, o.Token, contract.CancelTask,
		axp.CancelInput{TaskRef: taskRef(o.TaskID), Reason: o.Reason}, "✓ Cancelled task %s; it is %s")
}
