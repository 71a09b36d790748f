package admin

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/axp-exchange/axp"
	"github.com/axp-exchange/axp/cmd/cmdutil"
	"github.com/axp-exchange/axp/contract"
	"github.com/axp-exchange/axp/protocol"
	"github.com/spf13/cobra"
)

func newListingsCmd(f *cmdutil.Factory) *cobra.Command {
	c := &cobra.Command{
		Use:     "listings",
		Aliases: []string{"listing"},
		Short:   "Listings the listing policy rejected: list, overturn",
	}
	c.AddCommand(NewCmdListingsList(f, nil), NewCmdOverturn(f, nil))
	return c
}

var listingStatuses = allowed(contract.AdminListings, "status")

// ListingsListOptions are the inputs of `axp admin listings list`.
type ListingsListOptions struct {
	F      *cmdutil.Factory
	IO     *cmdutil.IOStreams
	Export cmdutil.Exporter
	Status string
	Now    func() time.Time
}

// NewCmdListingsList builds `axp admin listings list`.
func NewCmdListingsList(f *cmdutil.Factory, runF func(context.Context, *ListingsListOptions) error) *cobra.Command {
	o := &ListingsListOptions{F: f, IO: f.IO, Now: time.Now}
	c := &cobra.Command{
		Use:     "list",
		Aliases: []string{"ls"},
		Short:   "List rejected listings: category, reason, the brief and how often it was posted",
		Args:    cobra.NoArgs,
		RunE: func(c *cobra.Command, args []string) error {
			if err := oneOf("--status", o.Status, listingStatuses); err != nil {
				return err
			}
			if runF != nil {
				return runF(c.Context(), o)
			}
			return listingsListRun(c.Context(), o)
		},
	}
	c.Flags().StringVar(&o.Status, "status", "", "rejected, overturned or all (default)")
	c.RegisterFlagCompletionFunc("status", cobra.FixedCompletions(listingStatuses, cobra.ShellCompDirectiveNoFileComp))
	cmdutil.AddExportFlags(c, &o.Export)
	return c
}

func listingsListRun(ctx context.Context, o *ListingsListOptions) error {
	l, raw, err := call(ctx, o.F, contract.AdminListings, axp.ListingsQuery{Status: o.Status})
	if err != nil {
		return err
	}
	if o.Export.Enabled() {
		return o.Export.Write(o.IO, raw)
	}
	if len(l.Listings) == 0 {
		fmt.Fprintln(o.IO.ErrOut, "No rejected listings")
		return nil
	}
	cs := o.IO.ColorScheme()
	now := o.Now()
	tp := cmdutil.Table(o.IO)
	tp.AddHeader([]string{"ID", "STATUS", "CATEGORY", "TYPE", "POSTS", "BRIEF", "REASON", "CREATED"})
	for _, r := range l.Listings {
		tp.AddField(r.ID, cmdutil.WithTruncate(nil))
		tp.AddField(r.Status, cmdutil.WithColor(cs.Status))
		tp.AddField(r.Category, cmdutil.WithColor(cs.Bold))
		tp.AddField(r.Type)
		tp.AddField(fmt.Sprint(r.Posts))
		tp.AddField(Brief(r))
		tp.AddField(r.Reason)
		tp.AddField(cmdutil.Ago(o.IO, now, r.CreatedAt), cmdutil.WithColor(cs.Gray))
		tp.EndRow()
	}
	return tp.Render()
}

// Brief is a rejected listing's brief on one line: its description, else its params.
func Brief(r axp.ListingRejection) string {
	if r.Description != "" {
		return strings.Join(strings.Fields(r.Description), " ")
	}
	return strings.Join(strings.Fields(protocol.Pairs(r.Params)), " ")
}

// OverturnOptions are the inputs of `axp admin listings overturn`.
type OverturnOptions struct {
	F      *cmdutil.Factory
	IO     *cmdutil.IOStreams
	Export cmdutil.Exporter
	ID     string
	Note   string
}

// NewCmdOverturn builds `axp admin listings overturn`.
func NewCmdOverturn(f *cmdutil.Factory, runF func(context.Context, *OverturnOptions) error) *cobra.Command {
	o := &OverturnOptions{F: f, IO: f.IO}
	c := &cobra.Command{
		Use:   "overturn ID --note TEXT",
		Short: "Overturn a rejection: the same brief passes when it is posted again",
		Long: `Overturn a listing rejection the policy made by mistake. The buyer then posts the same brief
(same type, description and params) again and it passes; an edited brief is checked anew. --note
says why and is kept in the audit trail.`,
		Args: cobra.ExactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			o.ID = args[0]
			if strings.TrimSpace(o.Note) == "" {
				return cmdutil.Usagef("--note is required: why the listing is acceptable (kept in the audit trail)")
			}
			if len([]rune(o.Note)) > 2000 {
				return cmdutil.Usagef("--note is %d characters; at most 2000", len([]rune(o.Note)))
			}
			if runF != nil {
				return runF(c.Context(), o)
			}
			return overturnRun(c.Context(), o)
		},
	}
	c.Flags().StringVar(&o.Note, "note", "", "why the listing is acceptable")
	cmdutil.AddExportFlags(c, &o.Export)
	return c
}

func overturnRun(ctx context.Context, o *OverturnOptions) error {
	r, raw, err := call(ctx, o.F, contract.AdminOverturnListing, axp.OverturnBody{ID: o.ID, Note: o.Note})
	if err != nil {
		return err
	}
	if o.Export.Enabled() {
		return o.Export.Write(o.IO, raw)
	}
	fmt.Fprintf(o.IO.ErrOut, "✓ Overturned rejection %s (%s); the same brief passes when it is posted again\n", r.ID, r.Category)
	return nil
}
