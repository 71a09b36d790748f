package member

import (
	"context"
	"fmt"
	"log/slog"

	"github.com/axp-exchange/axp"
	"github.com/axp-exchange/axp/cmd/cmdutil"
	"github.com/axp-exchange/axp/memberkit"
	"github.com/axp-exchange/axp/protocol"
	"github.com/spf13/cobra"
)

// VerifyOptions are the inputs of `axp member verify`.
type VerifyOptions struct {
	IO       *cmdutil.IOStreams
	Getenv   func(string) string
	Exchange string
	Dir      string
	JSON     bool
}

func newVerifyCmd(f *cmdutil.Factory) *cobra.Command {
	o := &VerifyOptions{IO: f.IO, Getenv: f.Getenv}
	c := &cobra.Command{
		Use:   "verify",
		Short: "Run the verification handshake of the member in --dir",
		Long: `Ask the exchange to verify the member: it calls contact_test and the role tools on the member's
running server (push mode), or hands out a practice quote request, which this command answers
from the member's declared skills (pull mode). Exits non-zero when verification fails.`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, args []string) error {
			o.Exchange = exchangeGiven(f)
			return runVerify(c.Context(), o)
		},
	}
	dirFlag(c, &o.Dir)
	c.Flags().BoolVar(&o.JSON, "json", false, "print the result as JSON")
	return c
}

func runVerify(ctx context.Context, o *VerifyOptions) error {
	creds, err := loadCreds(memberDir(o.Dir, o.Getenv), o.Exchange)
	if err != nil {
		return err
	}
	cl := memberkit.NewClient(creds.Exchange, creds.MemberSecret)
	var v *axp.Verification
	if creds.MCPURL == "" {
		// Pull mode: the practice request is answered as the member's default quote would.
		p, err := cl.Profile(ctx)
		if err != nil {
			return exchangeErr(err)
		}
		opts := memberkit.Options{Roles: p.Roles, Seller: memberkit.Defaults{Skills: p.Skills}, Logger: slog.New(slog.DiscardHandler)}
		r, err := memberkit.NewRunner(cl, opts)
		if err != nil {
			return err
		}
		v, err = r.Verify(ctx)
		if err != nil {
			return exchangeErr(err)
		}
	} else if v, err = cl.Verify(ctx); err != nil {
		return exchangeErr(err)
	}
	if o.JSON {
		writeJSON(o.IO.Out, v)
	} else {
		fmt.Fprintf(o.IO.Out, "verification of %s (%s mode):\n", v.MemberID, v.Mode)
		printSteps(o.IO.Out, v.Steps)
		fmt.Fprintf(o.IO.Out, "state: %s\n", v.State)
		for _, s := range verifyNext(v) {
			fmt.Fprintf(o.IO.Out, "next: %s\n", s)
		}
	}
	warnTaskTypes(ctx, o.IO, cl)
	if !v.Passed {
		return &axp.Error{Code: protocol.CodeInternal, Message: "verification failed", Hint: "fix the failed steps (each has a hint) and run `axp member verify` again"}
	}
	return nil
}

// verifyNext are the axp commands after a verification, in the place of the API's next_steps
// (which name REST calls, for agents).
func verifyNext(v *axp.Verification) []string {
	switch {
	case v.Passed:
		return []string{"run the deep test: axp member conformance"}
	case v.Practice != nil:
		return []string{"answer practice request " + v.Practice.TaskID + " (axp member serve answers it with your default quote), then: axp member verify"}
	}
	return []string{"fix the failed steps (each has a hint), then: axp member verify"}
}

// warnTaskTypes warns on stderr about the member's skills whose task type no buyer's task can
// match (neither in the catalog nor offered by another seller), with the types it may mean.
func warnTaskTypes(ctx context.Context, s *cmdutil.IOStreams, cl *memberkit.Client) {
	p, err := cl.Profile(ctx)
	if err != nil || len(p.Skills) == 0 {
		return
	}
	unknown, err := cl.UnknownTaskTypes(ctx, p.Skills)
	if err != nil {
		return
	}
	for _, u := range unknown {
		fmt.Fprintf(s.ErrOut, "warning: %s\n", u)
	}
}
