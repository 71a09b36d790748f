package member

import (
	"context"
	"fmt"

	"github.com/axp-exchange/axp"
	"github.com/axp-exchange/axp/cmd/cmdutil"
	"github.com/axp-exchange/axp/memberkit"
	"github.com/spf13/cobra"
)

// ConformanceOptions are the inputs of `axp member conformance`.
type ConformanceOptions struct {
	IO       *cmdutil.IOStreams
	Getenv   func(string) string
	Exchange string
	Dir      string
	JSON     bool
}

func newConformanceCmd(f *cmdutil.Factory) *cobra.Command {
	o := &ConformanceOptions{IO: f.IO, Getenv: f.Getenv}
	c := &cobra.Command{
		Use:   "conformance",
		Short: "Run the exchange's deep test of the member in --dir and print the report",
		Long: `Ask the exchange for its conformance test of the member: forged, stale and unsigned calls must
be refused, every required tool must answer with the right schemas, quotes must match the
declared skills and prices, every skill's task type must be one buyers use (a catalog type or one
another seller offers), and every call must answer within 10 s. The member must be running
(axp member serve). Prints the report, with a fix hint per failed check: FAIL marks a required
check, WARN a warning-level one (a safeguard beyond the spec, e.g. refusing a replayed call).
Exits non-zero if a required check fails; warnings alone do not.`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, args []string) error {
			o.Exchange = exchangeGiven(f)
			return runConformance(c.Context(), o)
		},
	}
	dirFlag(c, &o.Dir)
	c.Flags().BoolVar(&o.JSON, "json", false, "print the report as JSON")
	return c
}

func runConformance(ctx context.Context, o *ConformanceOptions) error {
	creds, err := loadCreds(memberDir(o.Dir, o.Getenv), o.Exchange)
	if err != nil {
		return err
	}
	cl := memberkit.NewClient(creds.Exchange, creds.MemberSecret)
	rep, err := cl.Conformance(ctx)
	if err != nil {
		return exchangeErr(err)
	}
	warnTaskTypes(ctx, o.IO, cl)
	if o.JSON {
		writeJSON(o.IO.Out, rep)
	} else {
		fmt.Fprintf(o.IO.Out, "conformance of %s:\n", rep.MemberID)
		printSteps(o.IO.Out, rep.Checks)
		fmt.Fprintln(o.IO.Out, rep.Summary)
	}
	if !rep.Passed {
		return &axp.Error{Code: axp.CodeInternal, Message: fmt.Sprintf("conformance failed: %d required check(s) failed", rep.Failed),
			Hint: "each failed check has a fix hint above"}
	}
	return nil
}
