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

// AnnounceOptions are the inputs of `axp admin announce`.
type AnnounceOptions struct {
	F         *cmdutil.Factory
	IO        *cmdutil.IOStreams
	Export    cmdutil.Exporter
	Severity  string
	Title     string
	Body      string
	Audience  string
	MemberIDs []string
}

// NewCmdAnnounce builds `axp admin announce`.
func NewCmdAnnounce(f *cmdutil.Factory, runF func(context.Context, *AnnounceOptions) error) *cobra.Command {
	o := &AnnounceOptions{F: f, IO: f.IO}
	c := &cobra.Command{
		Use:     "announce --title TEXT --body TEXT",
		Short:   "Publish an announcement to members",
		Example: `  axp admin announce --severity important --title "Maintenance" --body "Down 02:00-02:30 UTC" --audience sellers`,
		Args:    cobra.NoArgs,
		RunE: func(c *cobra.Command, args []string) error {
			if strings.TrimSpace(o.Title) == "" || strings.TrimSpace(o.Body) == "" {
				return cmdutil.Usagef("--title and --body are required")
			}
			if err := oneOf("--severity", o.Severity, allowed(contract.AdminAnnounce, "severity")); err != nil {
				return err
			}
			if err := oneOf("--audience", o.Audience, allowed(contract.AdminAnnounce, "audience")); err != nil {
				return err
			}
			if runF != nil {
				return runF(c.Context(), o)
			}
			return announceRun(c.Context(), o)
		},
	}
	c.Flags().StringVar(&o.Severity, "severity", "info", "info, important or action_required")
	c.Flags().StringVar(&o.Title, "title", "", "the title")
	c.Flags().StringVar(&o.Body, "body", "", "the text")
	c.Flags().StringVar(&o.Audience, "audience", "", "all (default), buyers, sellers or members")
	c.Flags().StringSliceVar(&o.MemberIDs, "member", nil, "send to these members only (repeat or comma-separate)")
	cmdutil.AddExportFlags(c, &o.Export)
	return c
}

func announceRun(ctx context.Context, o *AnnounceOptions) error {
	in := axp.NewAnnouncement{Severity: o.Severity, Title: o.Title, Body: o.Body, Audience: o.Audience, MemberIDs: o.MemberIDs}
	a, raw, err := call(ctx, o.F, contract.AdminAnnounce, in)
	if err != nil {
		return err
	}
	if o.Export.Enabled() {
		return o.Export.Write(o.IO, raw)
	}
	fmt.Fprintf(o.IO.ErrOut, "✓ Published announcement %s (%s) to %s\n", a.ID, a.Severity, a.Audience)
	return nil
}
