package task

import (
	"context"
	"errors"
	"fmt"
	"regexp"

	"github.com/axp-exchange/axp"
	"github.com/axp-exchange/axp/cmd/cmdutil"
	"github.com/axp-exchange/axp/contract"
	"github.com/spf13/cobra"
)

// AcceptOptions are the inputs of `axp task accept`.
type AcceptOptions struct {
	F      *cmdutil.Factory
	IO     *cmdutil.IOStreams
	Export cmdutil.Exporter
	buyerFlags
	TaskID string
	SHA256 string
	Yes    bool
}

var sha256Hex = regexp.MustCompile(`^[0-9a-f]{64}$`)

// NewCmdAccept builds `axp task accept`.
func NewCmdAccept(f *cmdutil.Factory, runF func(context.Context, *AcceptOptions) error) *cobra.Command {
	o := &AcceptOptions{F: f, IO: f.IO}
	c := &cobra.Command{
		Use:   "accept TASK",
		Short: "Accept the delivery (after downloading it)",
		Long: `Accept the latest delivery; the seller's payout then waits for the operator's approval.
Download it first with 'axp task deliverable'. --sha256 makes sure you accept what you checked.`,
		Args:              cobra.ExactArgs(1),
		ValidArgsFunction: CompleteTaskIDs(f),
		RunE: func(c *cobra.Command, args []string) error {
			o.TaskID = args[0]
			if o.SHA256 != "" && !sha256Hex.MatchString(o.SHA256) {
				return cmdutil.Usagef("--sha256 %q: 64 lower-case hex digits", o.SHA256)
			}
			if runF != nil {
				return runF(c.Context(), o)
			}
			return acceptRun(c.Context(), o)
		},
	}
	c.Flags().StringVar(&o.SHA256, "sha256", "", "accept only if the delivery has this SHA-256")
	cmdutil.AddYesFlag(c, &o.Yes)
	addTokenFlag(c, &o.buyerFlags)
	cmdutil.AddExportFlags(c, &o.Export)
	return c
}

func acceptRun(ctx context.Context, o *AcceptOptions) error {
	err := cmdutil.ConfirmStep(o.IO, o.Yes, "accept the delivery of task "+o.TaskID, func() ([]string, error) {
		t, _, err := getTask(ctx, o.F, o.TaskID, o.Token, "")
		if err != nil {
			return nil, err
		}
		line := fmt.Sprintf("task %s (%s) is %s", t.ID, t.Type, t.Status)
		if t.Seller != nil {
			line += "; seller " + t.Seller.Name
		}
		lines := []string{line}
		if t.PriceUSD != nil {
			lines = append(lines, "the seller is paid "+t.PriceUSD.Display()+" less the fee once the operator approves; a dispute is no longer possible")
		}
		if t.Deliverable != nil {
			lines = append(lines, "delivery sha256 "+t.Deliverable.SHA256)
		}
		return lines, nil
	})
	if err != nil {
		return err
	}
	in := axp.AcceptInput{TaskRef: taskRef(o.TaskID), SHA256: o.SHA256}
	err = act(ctx, o.F, o.IO, &o.Export, o.TaskID, o.Token, contract.AcceptTask, in,
		"✓ Accepted the delivery of %s; the task is %s and the seller is paid once the operator approves")
	var e *axp.Error
	if errors.As(err, &e) && e.Code == axp.CodeConflict && e.Field == "deliverable" {
		return cmdutil.WithHint(err, "download and check it first: axp task deliverable "+o.TaskID+" -o FILE")
	}
	return err
}

// act runs a buyer action that answers the task and reports the new status on stderr.
func act[I any](ctx context.Context, f *cmdutil.Factory, s *cmdutil.IOStreams, e *cmdutil.Exporter, id, token string, def contract.Def[I, axp.Task], in I, done string) error {
	t, raw, err := asBuyer(ctx, f, id, token, def, in)
	if err != nil {
		return err
	}
	if e.Enabled() {
		return e.Write(s, raw)
	}
	fmt.Fprintf(s.ErrOut, done+"\n", t.ID, t.Status)
	return nil
}
