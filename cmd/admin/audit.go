package admin

import (
	"context"

	"github.com/axp-exchange/axp"
	"github.com/axp-exchange/axp/cmd/cmdutil"
	"github.com/axp-exchange/axp/contract"
	"github.com/spf13/cobra"
)

// AuditOptions are the inputs of `axp admin audit`.
type AuditOptions struct {
	F          *cmdutil.Factory
	IO         *cmdutil.IOStreams
	Export     cmdutil.Exporter
	EntityType string
	EntityID   string
	Actor      string
	Action     string
	Limit      int
}

// NewCmdAudit builds `axp admin audit`.
func NewCmdAudit(f *cmdutil.Factory, runF func(context.Context, *AuditOptions) error) *cobra.Command {
	o := &AuditOptions{F: f, IO: f.IO}
	c := &cobra.Command{
		Use:   "audit",
		Short: "Who changed what, newest first",
		Args:  cobra.NoArgs,
		RunE: func(c *cobra.Command, args []string) error {
			if o.Limit < 0 || o.Limit > 5000 {
				return cmdutil.Usagef("--limit must be 1 to 5000")
			}
			if runF != nil {
				return runF(c.Context(), o)
			}
			return auditRun(c.Context(), o)
		},
	}
	c.Flags().StringVar(&o.EntityType, "entity-type", "", "task, member, approval, ...")
	c.Flags().StringVar(&o.EntityID, "entity", "", "one entity's id")
	c.Flags().StringVar(&o.Actor, "actor", "", "admin, buyer, member:<id>, ...")
	c.Flags().StringVar(&o.Action, "action", "", "e.g. approval.approve")
	c.Flags().IntVarP(&o.Limit, "limit", "L", 0, "at most this many records (default 200)")
	cmdutil.AddExportFlags(c, &o.Export)
	return c
}

func auditRun(ctx context.Context, o *AuditOptions) error {
	in := axp.AuditQuery{EntityType: o.EntityType, EntityID: o.EntityID, Actor: o.Actor, Action: o.Action}
	if o.Limit > 0 {
		in.Limit = o.Limit
	}
	l, raw, err := call(ctx, o.F, contract.AdminAudit, in)
	if err != nil {
		return err
	}
	if o.Export.Enabled() {
		return o.Export.Write(o.IO, raw)
	}
	stop, err := o.F.StartPager()
	if err != nil {
		return err
	}
	defer stop()
	return writeAudit(o.IO, l.Records)
}

func writeAudit(s *cmdutil.IOStreams, records []axp.AuditRecord) error {
	cs := s.ColorScheme()
	tp := cmdutil.Table(s)
	tp.AddHeader([]string{"TIME", "ACTOR", "ACTION", "ENTITY", "DETAILS", "TRACE"})
	for _, r := range records {
		tp.AddField(stamp(s, r.Time), cmdutil.WithColor(cs.Gray))
		tp.AddField(r.Actor)
		tp.AddField(r.Action, cmdutil.WithColor(cs.Bold))
		tp.AddField(r.EntityType + " " + r.EntityID)
		tp.AddField(attrs(r.Details))
		tp.AddField(r.TraceID, cmdutil.WithColor(cs.Gray))
		tp.EndRow()
	}
	return tp.Render()
}
