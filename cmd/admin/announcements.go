package admin

import (
	"context"
	"fmt"

	"github.com/axp-exchange/axp/cmd/cmdutil"
	"github.com/axp-exchange/axp/contract"
	"github.com/spf13/cobra"
)

// AnnouncementsOptions are the inputs of `axp admin announcements`.
type AnnouncementsOptions struct {
	F      *cmdutil.Factory
	IO     *cmdutil.IOStreams
	Export cmdutil.Exporter
}

// NewCmdAnnouncements builds `axp admin announcements`.
func NewCmdAnnouncements(f *cmdutil.Factory, runF func(context.Context, *AnnouncementsOptions) error) *cobra.Command {
	o := &AnnouncementsOptions{F: f, IO: f.IO}
	c := &cobra.Command{
		Use:   "announcements",
		Short: "Announcements and who got them: pushed, failed, waiting for a pull, read",
		Long: `List the newest announcements with their delivery: pushes delivered, failed (the member's
server refused or could not be reached after retries) and still pending, and how many members
read them. --json shows each member's delivery.`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, args []string) error {
			if runF != nil {
				return runF(c.Context(), o)
			}
			return announcementsRun(c.Context(), o)
		},
	}
	cmdutil.AddExportFlags(c, &o.Export)
	return c
}

func announcementsRun(ctx context.Context, o *AnnouncementsOptions) error {
	l, raw, err := call(ctx, o.F, contract.AdminAnnouncements, contract.NoInput{})
	if err != nil {
		return err
	}
	if o.Export.Enabled() {
		return o.Export.Write(o.IO, raw)
	}
	if len(l.Announcements) == 0 {
		fmt.Fprintln(o.IO.ErrOut, "No announcements yet")
		return nil
	}
	cs := o.IO.ColorScheme()
	tp := cmdutil.Table(o.IO)
	tp.AddHeader([]string{"ID", "SEVERITY", "TITLE", "AUDIENCE", "DELIVERED", "FAILED", "PENDING", "PULL", "READ"})
	for _, a := range l.Announcements {
		pull := 0
		for _, d := range a.Deliveries {
			if d.Via == "pull" {
				pull++
			}
		}
		tp.AddField(a.ID, cmdutil.WithTruncate(nil))
		tp.AddField(a.Severity, cmdutil.WithColor(cs.Bold))
		tp.AddField(a.Title)
		tp.AddField(a.Audience)
		tp.AddField(fmt.Sprint(a.Delivered))
		tp.AddField(fmt.Sprint(a.Failed))
		tp.AddField(fmt.Sprint(a.Pending))
		tp.AddField(fmt.Sprint(pull))
		tp.AddField(fmt.Sprintf("%d/%d", a.Read, len(a.Deliveries)))
		tp.EndRow()
	}
	return tp.Render()
}
