package admin

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/axp-exchange/axp"
	"github.com/axp-exchange/axp/client"
	"github.com/axp-exchange/axp/cmd/cmdutil"
	"github.com/axp-exchange/axp/cmd/internal/render"
	"github.com/axp-exchange/axp/contract"
	"github.com/spf13/cobra"
)

func newMediationsCmd(f *cmdutil.Factory) *cobra.Command {
	c := &cobra.Command{
		Use:     "mediations",
		Aliases: []string{"mediation"},
		Short:   "Disputes and review objections before the Mediator: list, view, decide appeals",
	}
	c.AddCommand(NewCmdMediationsList(f, nil), NewCmdMediationView(f, nil), NewCmdDecide(f, nil))
	return c
}

var (
	mediationStatuses = allowed(contract.AdminMediations, "status")
	mediationKinds    = allowed(contract.AdminMediations, "kind")
)

// MediationsListOptions are the inputs of `axp admin mediations list`.
type MediationsListOptions struct {
	F      *cmdutil.Factory
	IO     *cmdutil.IOStreams
	Export cmdutil.Exporter
	Status string
	Kind   string
	TaskID string
	Now    func() time.Time
}

// NewCmdMediationsList builds `axp admin mediations list`.
func NewCmdMediationsList(f *cmdutil.Factory, runF func(context.Context, *MediationsListOptions) error) *cobra.Command {
	o := &MediationsListOptions{F: f, IO: f.IO, Now: time.Now}
	c := &cobra.Command{
		Use:     "list",
		Aliases: []string{"ls"},
		Short:   "List mediations, newest first (appealed ones wait for your decision)",
		Args:    cobra.NoArgs,
		RunE: func(c *cobra.Command, args []string) error {
			if err := oneOf("--status", o.Status, mediationStatuses); err != nil {
				return err
			}
			if err := oneOf("--kind", o.Kind, mediationKinds); err != nil {
				return err
			}
			if runF != nil {
				return runF(c.Context(), o)
			}
			return mediationsListRun(c.Context(), o)
		},
	}
	c.Flags().StringVar(&o.Status, "status", "", "awaiting_statements, decided, appealed, resolved, open (awaiting or appealed) or all (default)")
	c.Flags().StringVar(&o.Kind, "kind", "", "dispute or review_objection")
	c.Flags().StringVar(&o.TaskID, "task", "", "only the mediations of this task")
	c.RegisterFlagCompletionFunc("status", cobra.FixedCompletions(mediationStatuses, cobra.ShellCompDirectiveNoFileComp))
	c.RegisterFlagCompletionFunc("kind", cobra.FixedCompletions(mediationKinds, cobra.ShellCompDirectiveNoFileComp))
	cmdutil.AddExportFlags(c, &o.Export)
	return c
}

func mediationsListRun(ctx context.Context, o *MediationsListOptions) error {
	l, raw, err := call(ctx, o.F, contract.AdminMediations, axp.MediationsQuery{Status: o.Status, Kind: o.Kind, TaskID: o.TaskID})
	if err != nil {
		return err
	}
	if o.Export.Enabled() {
		return o.Export.Write(o.IO, raw)
	}
	if len(l.Mediations) == 0 {
		fmt.Fprintln(o.IO.ErrOut, "No mediations")
		return nil
	}
	cs := o.IO.ColorScheme()
	now := o.Now()
	tty := o.IO.StdoutTTY
	tp := cmdutil.Table(o.IO)
	tp.AddHeader([]string{"ID", "KIND", "STATUS", "TASK", "PROPOSED B/S", "DECISION", "FLAGS", "UPDATED"})
	appealed := 0
	for _, m := range l.Mediations {
		status := cs.Status
		if m.Status == axp.MediationAppealed {
			appealed++
			status = cs.Yellow
		}
		d := m.OperatorDecision
		if d == nil {
			d = m.Decision
		}
		kind, st, proposals, dec, flags, updated := m.Kind, m.Status, render.Proposals(&m), render.ShortDecision(d), render.MediationFlags(&m), cmdutil.Ago(o.IO, now, m.UpdatedAt)
		if tty {
			// Compact cells for people: the ids stay whole.
			kind = strings.Replace(kind, axp.MediationReviewObjection, "objection", 1)
			st = strings.Replace(st, axp.MediationAwaiting, "awaiting", 1)
			proposals = shortProposals(&m)
			if flags != "" {
				flags = "⚠ " + flags
			}
			updated = cmdutil.Duration(now.Sub(m.UpdatedAt))
		}
		tp.AddField(m.ID, cmdutil.WithTruncate(nil))
		tp.AddField(kind, cmdutil.WithColor(cs.Bold))
		tp.AddField(st, cmdutil.WithColor(status))
		tp.AddField(m.TaskID, cmdutil.WithTruncate(nil))
		tp.AddField(proposals)
		tp.AddField(dec)
		tp.AddField(flags, cmdutil.WithColor(cs.Yellow))
		tp.AddField(updated, cmdutil.WithColor(cs.Gray))
		tp.EndRow()
	}
	if err := tp.Render(); err != nil {
		return err
	}
	if appealed > 0 && o.IO.StdoutTTY {
		fmt.Fprintln(o.IO.Out, cs.Gray(fmt.Sprintf("%d appealed: read one with `axp admin mediations view ID`, decide with `axp admin mediations decide ID`", appealed)))
	}
	return nil
}

// shortProposals is each side's proposal, buyer first: "80% / 20%", "✓ / —" (stated without a
// proposal / not stated).
func shortProposals(m *axp.Mediation) string {
	var parts []string
	for _, side := range []string{axp.SideBuyer, axp.SideSeller} {
		v := "—"
		if st := m.StatementOf(side); st != nil {
			v = "✓"
			if st.ProposedRefundPct != nil {
				v = strconv.Itoa(*st.ProposedRefundPct) + "%"
			}
		}
		parts = append(parts, v)
	}
	return strings.Join(parts, " / ")
}

// MediationViewOptions are the inputs of `axp admin mediations view`.
type MediationViewOptions struct {
	F      *cmdutil.Factory
	IO     *cmdutil.IOStreams
	Export cmdutil.Exporter
	ID     string
	Now    func() time.Time
}

// NewCmdMediationView builds `axp admin mediations view`.
func NewCmdMediationView(f *cmdutil.Factory, runF func(context.Context, *MediationViewOptions) error) *cobra.Command {
	o := &MediationViewOptions{F: f, IO: f.IO, Now: time.Now}
	c := &cobra.Command{
		Use:   "view ID",
		Short: "Show a mediation: both sides' statements and proposals, the decision and its reasoning",
		Long: `Show a mediation: the reason, each side's statement and proposed refund, the Mediator's decision
with its reasoning, the appeal and the operator's decision. Texts the screening flagged are marked:
they are data, never instructions. --json prints the mediation as the exchange lists it.`,
		Args: cobra.ExactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			o.ID = args[0]
			if runF != nil {
				return runF(c.Context(), o)
			}
			return mediationViewRun(c.Context(), o)
		},
	}
	cmdutil.AddExportFlags(c, &o.Export)
	return c
}

// findMediation reads one mediation, with its JSON as the exchange answered it.
func findMediation(ctx context.Context, f *cmdutil.Factory, id string) (*axp.Mediation, []byte, error) {
	m, raw, err := call(ctx, f, contract.AdminMediation, axp.IDPath{ID: id})
	if err != nil {
		if client.IsCode(err, axp.CodeNotFound) {
			return nil, nil, &axp.Error{Code: axp.CodeNotFound, Message: "mediation " + id + " does not exist",
				Hint: "list them with `axp admin mediations list`"}
		}
		return nil, nil, err
	}
	return m, raw, nil
}

func mediationViewRun(ctx context.Context, o *MediationViewOptions) error {
	m, raw, err := findMediation(ctx, o.F, o.ID)
	if err != nil {
		return err
	}
	if o.Export.Enabled() {
		return o.Export.Write(o.IO, raw)
	}
	if err := cmdutil.KeyValues(o.IO, render.MediationFields(o.IO, m, o.Now())...); err != nil {
		return err
	}
	if o.IO.StdoutTTY && (m.Status == axp.MediationAppealed || m.Status == axp.MediationAwaiting) {
		how := "--refund-pct N"
		if m.Kind == axp.MediationReviewObjection {
			how = "--outcome keep|remove"
		}
		fmt.Fprintln(o.IO.Out, o.IO.ColorScheme().Gray("Decide with: axp admin mediations decide "+m.ID+" "+how+" --note TEXT"))
	}
	return nil
}

// DecideOptions are the inputs of `axp admin mediations decide`.
type DecideOptions struct {
	F      *cmdutil.Factory
	IO     *cmdutil.IOStreams
	Export cmdutil.Exporter
	ID     string
	// RefundPct is the refund of a dispute (nil for a review objection).
	RefundPct *int
	// Outcome is keep or remove for a review objection.
	Outcome string
	Note    string
	Yes     bool
}

// NewCmdDecide builds `axp admin mediations decide`.
func NewCmdDecide(f *cmdutil.Factory, runF func(context.Context, *DecideOptions) error) *cobra.Command {
	o := &DecideOptions{F: f, IO: f.IO}
	var pct percentArg
	c := &cobra.Command{
		Use:   "decide ID (--refund-pct N | --outcome keep|remove) --note TEXT",
		Short: "Decide an appealed mediation (a dispute's refund or split goes to the approval queue)",
		Long: `Decide a mediation that was appealed to you (or take over one that still waits for statements).
A dispute is decided with --refund-pct, the share of the price refunded to the buyer, the seller
being paid the rest less the fee: the refund (100%) or split then waits in the approval queue like
any other. A review objection is decided with --outcome keep or remove. --note is your reasoning;
both sides see it.`,
		Example: `  axp admin mediations decide med_123 --refund-pct 30 --note "The brief asked for four lines; two came."
  axp admin mediations decide med_456 --outcome keep --note "An honest opinion of the job."`,
		Args: cobra.ExactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			o.ID = args[0]
			if c.Flags().Changed("refund-pct") {
				n, err := strconv.Atoi(strings.TrimSuffix(strings.TrimSpace(string(pct)), "%"))
				if err != nil || n < 0 || n > 100 {
					return cmdutil.Usagef("--refund-pct %q: a whole number 0 to 100 (the share of the price refunded to the buyer)", string(pct))
				}
				o.RefundPct = &n
			}
			if err := oneOf("--outcome", o.Outcome, allowed(contract.AdminDecideMediation, "outcome")); err != nil {
				return err
			}
			switch {
			case o.RefundPct != nil && o.Outcome != "":
				return cmdutil.Usagef("give --refund-pct (a dispute) or --outcome (a review objection), not both")
			case o.RefundPct == nil && o.Outcome == "":
				return cmdutil.Usagef("give --refund-pct N to decide a dispute, or --outcome keep|remove for a review objection")
			case strings.TrimSpace(o.Note) == "":
				return cmdutil.Usagef("--note is required: your reasoning, shown to both sides")
			case len([]rune(o.Note)) > 4000:
				return cmdutil.Usagef("--note is %d characters; at most 4000", len([]rune(o.Note)))
			}
			if runF != nil {
				return runF(c.Context(), o)
			}
			return decideRun(c.Context(), o)
		},
	}
	c.Flags().Var(&pct, "refund-pct", "disputes: the share of the price refunded to the buyer, 0 to 100")
	c.Flags().StringVar(&o.Outcome, "outcome", "", "review objections: keep or remove the review")
	c.Flags().StringVar(&o.Note, "note", "", "your reasoning, shown to both sides")
	cmdutil.AddYesFlag(c, &o.Yes)
	c.RegisterFlagCompletionFunc("outcome", cobra.FixedCompletions([]string{"keep", "remove"}, cobra.ShellCompDirectiveNoFileComp))
	cmdutil.AddExportFlags(c, &o.Export)
	return c
}

// percentArg is a percentage flag, checked when the command runs.
type percentArg string

func (p *percentArg) String() string     { return string(*p) }
func (p *percentArg) Set(s string) error { *p = percentArg(s); return nil }
func (p *percentArg) Type() string       { return "percent" }

func decideRun(ctx context.Context, o *DecideOptions) error {
	err := cmdutil.ConfirmStep(o.IO, o.Yes, "decide mediation "+o.ID, func() ([]string, error) {
		m, _, err := findMediation(ctx, o.F, o.ID)
		if err != nil {
			return nil, err
		}
		lines := []string{fmt.Sprintf("%s %s of task %s, %s", strings.ReplaceAll(m.Kind, "_", " "), m.ID, m.TaskID, m.Status)}
		if o.RefundPct != nil {
			lines = append(lines, fmt.Sprintf("refund %d%% of the price to the buyer, the seller paid the rest; it waits in the approval queue", *o.RefundPct))
		} else {
			lines = append(lines, o.Outcome+" the review")
		}
		return lines, nil
	})
	if err != nil {
		return err
	}
	in := axp.DecideMediationBody{ID: o.ID, RefundPct: o.RefundPct, Outcome: o.Outcome, Note: o.Note}
	m, raw, err := call(ctx, o.F, contract.AdminDecideMediation, in)
	if err != nil {
		return err
	}
	if o.Export.Enabled() {
		return o.Export.Write(o.IO, raw)
	}
	d := m.OperatorDecision
	if d == nil {
		d = m.Decision
	}
	line := fmt.Sprintf("✓ Decided mediation %s of task %s", m.ID, m.TaskID)
	if d != nil {
		switch {
		case m.Kind == axp.MediationReviewObjection:
			line += fmt.Sprintf(": %s review %s", d.Outcome, m.ReviewID)
		default:
			line += ": " + d.Outcome
			if d.RefundPct != nil {
				line += fmt.Sprintf(" %d%%", *d.RefundPct)
			}
			if d.RefundUSD != nil {
				line += " (" + d.RefundUSD.Display() + " back to the buyer)"
			}
			if d.ApprovalID != "" {
				line += "; it waits in the approval queue as " + d.ApprovalID
			}
		}
	}
	fmt.Fprintln(o.IO.ErrOut, line)
	return nil
}
