package task

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/axp-exchange/axp"
	"github.com/axp-exchange/axp/cmd/cmdutil"
	"github.com/spf13/cobra"
)

// WatchOptions are the inputs of `axp task watch`.
type WatchOptions struct {
	F      *cmdutil.Factory
	IO     *cmdutil.IOStreams
	Export cmdutil.Exporter
	buyerFlags
	TaskID   string
	Interval time.Duration
	Until    string
	Now      func() time.Time
}

// NewCmdWatch builds `axp task watch`.
func NewCmdWatch(f *cmdutil.Factory, runF func(context.Context, *WatchOptions) error) *cobra.Command {
	o := &WatchOptions{F: f, IO: f.IO, Now: time.Now}
	c := &cobra.Command{
		Use:   "watch TASK",
		Short: "Follow a task until it needs you, printing each status change",
		Long: `Poll a task and print a line for each change of status (and of its offer count while it is
open) until you have something to do (pay, check a delivery, answer a dispute, review), the task
ends (released, refunded, cancelled, expired), or it reaches the status given by --until (then
only --until and the end stop it). When the task can no longer reach the --until status (it was
cancelled, or is past it), the command stops with exit status 6. The command for your next step is printed when it stops. A
spinner shows the wait on a terminal. With --json, --jq or --template the last answer is printed
at the end.`,
		Args:              cobra.ExactArgs(1),
		ValidArgsFunction: CompleteTaskIDs(f),
		RunE: func(c *cobra.Command, args []string) error {
			o.TaskID = args[0]
			if o.Interval <= 0 {
				return cmdutil.Usagef("--interval must be positive")
			}
			if o.Until != "" {
				if err := oneOf("--until", o.Until, append([]string{""}, axp.TaskStatuses...)...); err != nil {
					return err
				}
			}
			if runF != nil {
				return runF(c.Context(), o)
			}
			return watchRun(c.Context(), o)
		},
	}
	c.Flags().DurationVar(&o.Interval, "interval", 3*time.Second, "time between polls")
	c.Flags().StringVar(&o.Until, "until", "", "stop when the task reaches this status: "+strings.Join(axp.TaskStatuses, ", "))
	addTokenFlag(c, &o.buyerFlags)
	cmdutil.AddExportFlags(c, &o.Export)
	return c
}

func watchRun(ctx context.Context, o *WatchOptions) error {
	cs := o.IO.ColorScheme()
	lastStatus, lastOffers := "", -1
	wait := time.NewTimer(0)
	defer wait.Stop()
	var sp *cmdutil.Spinner
	stopSpinner := func() {
		if sp != nil {
			sp.Stop()
			sp = nil
		}
	}
	defer stopSpinner()
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-wait.C:
		}
		t, raw, err := getTask(ctx, o.F, o.TaskID, o.Token, "")
		if err != nil {
			return err
		}
		stop := axp.Terminal(t.Status) || t.Status == o.Until || (o.Until == "" && waitingOnBuyer(t))
		unreachable := o.Until != "" && !axp.Reachable(t.Status, o.Until)
		stop = stop || unreachable
		changed := t.Status != lastStatus || (t.Status == axp.TaskOpen && len(t.Offers) != lastOffers)
		if changed || stop {
			stopSpinner()
		}
		if changed {
			line := fmt.Sprintf("%s  %s  %s", o.Now().Local().Format(cmdutil.TimeLayout), t.ID, cs.Status(t.Status))
			if t.Status == axp.TaskOpen {
				line += " (" + cmdutil.Count(len(t.Offers), "offer", "offers") + ")"
			}
			if o.Export.Enabled() {
				fmt.Fprintln(o.IO.ErrOut, line)
			} else {
				fmt.Fprintln(o.IO.Out, line)
			}
			lastStatus, lastOffers = t.Status, len(t.Offers)
		}
		if stop {
			if next := NextCommands(t); len(next) > 0 {
				fmt.Fprintln(o.IO.ErrOut, cs.Gray("next: "+strings.Join(next, "; ")))
			}
			if unreachable {
				// Exit status 6, as any step that does not fit the task's state.
				return axp.Conflict("task "+t.ID+" is "+t.Status+" and can no longer become "+o.Until,
					"see where it stands: axp task view "+t.ID)
			}
			if o.Export.Enabled() {
				return o.Export.Write(o.IO, raw)
			}
			return nil
		}
		if sp == nil {
			sp = cmdutil.StartSpinner(o.IO, "watching "+t.ID+" ("+t.Status+")")
		}
		wait.Reset(o.Interval)
	}
}
