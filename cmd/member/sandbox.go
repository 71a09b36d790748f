package member

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/axp-exchange/axp"
	"github.com/axp-exchange/axp/cmd/cmdutil"
	"github.com/axp-exchange/axp/memberkit"
	"github.com/spf13/cobra"
)

// SandboxOptions are the inputs of `axp member sandbox`.
type SandboxOptions struct {
	IO       *cmdutil.IOStreams
	Getenv   func(string) string
	Exchange string
	Dir      string
	As       string
	TaskType string
	Wait     time.Duration
	Every    time.Duration
	JSON     bool
}

func newSandboxCmd(f *cmdutil.Factory) *cobra.Command {
	o := &SandboxOptions{IO: f.IO, Getenv: f.Getenv, Every: 500 * time.Millisecond}
	c := &cobra.Command{
		Use:   "sandbox --as seller|buyer",
		Short: "Run a practice job in which the exchange plays the other side",
		Long: `Start a sandbox job for the member in --dir: the exchange plays the buyer (--as seller) or the
seller (--as buyer) through a whole job, with test: true, nothing booked or counted. The member
must be running. Prints each step as it happens and exits non-zero if the job fails.`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, args []string) error {
			o.Exchange = exchangeGiven(f)
			return runSandbox(c.Context(), o)
		},
	}
	dirFlag(c, &o.Dir)
	c.Flags().StringVar(&o.As, "as", "", "the member's side: seller or buyer (required)")
	c.Flags().StringVar(&o.TaskType, "task-type", "", "task type of the practice job (default: the exchange's choice)")
	c.Flags().DurationVar(&o.Wait, "wait", 2*time.Minute, "how long to wait for the job to end")
	c.Flags().BoolVar(&o.JSON, "json", false, "print the final result as JSON")
	return c
}

func runSandbox(ctx context.Context, o *SandboxOptions) error {
	if o.As == "" {
		return &cmdutil.UsageError{Err: errors.New("--as is required: seller or buyer")}
	}
	if o.As != "seller" && o.As != "buyer" {
		return &cmdutil.UsageError{Err: fmt.Errorf("--as must be seller or buyer, not %q", o.As)}
	}
	creds, err := loadCreds(memberDir(o.Dir, o.Getenv), o.Exchange)
	if err != nil {
		return err
	}
	cl := memberkit.NewClient(creds.Exchange, creds.MemberSecret)
	sb, err := cl.StartSandbox(ctx, o.As, o.TaskType)
	if err != nil {
		return exchangeErr(err)
	}
	fmt.Fprintf(o.IO.ErrOut, "sandbox %s started: %s as %s\n", sb.SandboxID, sb.TaskType, sb.As)
	// Steps show as they come only on a terminal; otherwise stdout lists them once at the end
	// (stderr too would say each twice in a log that takes both).
	live := o.IO.StderrTTY
	shown := 0
	show := func(s *axp.Sandbox) {
		if live && shown < len(s.Steps) {
			printSteps(o.IO.ErrOut, s.Steps[shown:])
			shown = len(s.Steps)
		}
	}
	show(sb)
	deadline := time.Now().Add(o.Wait)
	tick := time.NewTicker(o.Every)
	defer tick.Stop()
	for sb.Status == "running" || sb.Status == "" {
		if time.Now().After(deadline) {
			return &axp.Error{Code: axp.CodeInternal, Message: fmt.Sprintf("sandbox %s still running after %s", sb.SandboxID, o.Wait),
				Hint: "is the member running (axp member serve)? run axp member sandbox again, or give a longer --wait"}
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-tick.C:
		}
		if sb, err = cl.Sandbox(ctx, sb.SandboxID); err != nil {
			return exchangeErr(err)
		}
		show(sb)
	}
	if o.JSON {
		writeJSON(o.IO.Out, sb)
	} else {
		fmt.Fprintf(o.IO.Out, "sandbox %s (%s as %s): %s\n", sb.SandboxID, sb.TaskType, sb.As, sb.Status)
		if !(live && o.IO.StdoutTTY) {
			// On a terminal the steps were just shown as they came; piped, stdout has them all.
			printSteps(o.IO.Out, sb.Steps)
		}
	}
	if sb.Status != "passed" {
		return &axp.Error{Code: axp.CodeInternal, Message: "the sandbox job " + sb.Status, Hint: "each failed step has a fix hint above"}
	}
	return nil
}
