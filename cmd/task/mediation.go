package task

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/axp-exchange/axp"
	"github.com/axp-exchange/axp/cmd/cmdutil"
	"github.com/axp-exchange/axp/cmd/internal/render"
	"github.com/axp-exchange/axp/contract"
	"github.com/spf13/cobra"
)

// EscalateOptions are the inputs of `axp task escalate`.
type EscalateOptions struct {
	F      *cmdutil.Factory
	IO     *cmdutil.IOStreams
	Export cmdutil.Exporter
	buyerFlags
	TaskID    string
	Reason    string
	Statement string
	RefundPct pctFlag
	Now       func() time.Time
}

// NewCmdEscalate builds `axp task escalate`.
func NewCmdEscalate(f *cmdutil.Factory, runF func(context.Context, *EscalateOptions) error) *cobra.Command {
	o := &EscalateOptions{F: f, IO: f.IO, Now: time.Now}
	c := &cobra.Command{
		Use:   "escalate TASK --reason TEXT [--statement TEXT] [--refund-pct N]",
		Short: "Take a dispute to the Mediator",
		Long: `Open a mediation of a disputed task. Your statement (--statement, else the reason) and your
proposal (--refund-pct, the share of the price refunded to the buyer) are recorded; the other side is
asked for its own. The Mediator decides once both sides have stated, or when the statement window
ends; its refund or split then waits for the operator's approval. Either side may appeal the
decision to the operator with 'axp task appeal'.`,
		Args:              cobra.ExactArgs(1),
		ValidArgsFunction: CompleteTaskIDs(f),
		RunE: func(c *cobra.Command, args []string) error {
			o.TaskID = args[0]
			if strings.TrimSpace(o.Reason) == "" {
				return cmdutil.Usagef("--reason is required: why the Mediator should decide")
			}
			for _, t := range []struct{ flag, v string }{{"--reason", o.Reason}, {"--statement", o.Statement}} {
				if err := maxChars(t.flag, t.v, 4000); err != nil {
					return err
				}
			}
			if runF != nil {
				return runF(c.Context(), o)
			}
			return escalateRun(c.Context(), o)
		},
	}
	c.Flags().StringVar(&o.Reason, "reason", "", "why the dispute needs the Mediator")
	c.Flags().StringVar(&o.Statement, "statement", "", "your statement (at most 4000 characters; default: the reason)")
	c.Flags().Var(&o.RefundPct, "refund-pct", "the refund you propose, 0 to 100 percent of the price")
	addPartyTokenFlag(c, f, &o.buyerFlags)
	cmdutil.AddExportFlags(c, &o.Export)
	return c
}

func escalateRun(ctx context.Context, o *EscalateOptions) error {
	cl, err := partyClient(o.F, o.TaskID, o.Token)
	if err != nil {
		return err
	}
	in := axp.EscalateBody{TaskRef: taskRef(o.TaskID), Reason: o.Reason, Statement: o.Statement, ProposedRefundPct: o.RefundPct.ptr()}
	m, raw, err := partyCall(ctx, cl, contract.Escalate, in)
	if err != nil {
		return err
	}
	if o.Export.Enabled() {
		return o.Export.Write(o.IO, raw)
	}
	fmt.Fprintf(o.IO.ErrOut, "✓ Opened mediation %s of %s; the %s is asked for its statement (due %s)\n",
		m.ID, m.TaskID, axp.OtherSide(m.OpenedBy), m.StatementsDue.Local().Format(cmdutil.TimeLayout))
	fmt.Fprintf(o.IO.ErrOut, "Follow it with: axp task mediation %s\n", m.TaskID)
	return nil
}

// mediationStatuses are the states of a mediation, for --until.
var mediationStatuses = []string{axp.MediationAwaiting, axp.MediationDecided, axp.MediationAppealed, axp.MediationResolved}

// MediationOptions are the inputs of `axp task mediation`.
type MediationOptions struct {
	F      *cmdutil.Factory
	IO     *cmdutil.IOStreams
	Export cmdutil.Exporter
	buyerFlags
	TaskID      string
	MediationID string
	Until       string
	Interval    time.Duration
	Timeout     time.Duration
	Now         func() time.Time
}

// NewCmdMediation builds `axp task mediation`.
func NewCmdMediation(f *cmdutil.Factory, runF func(context.Context, *MediationOptions) error) *cobra.Command {
	o := &MediationOptions{F: f, IO: f.IO, Now: time.Now}
	c := &cobra.Command{
		Use:   "mediation TASK [MEDIATION]",
		Short: "Show a mediation: statements, the decision and its reasoning, the appeal",
		Long: `Show the latest mediation of a task (or the one named): the reason, both sides' statements and
proposals, the Mediator's decision with its reasoning, an appeal and the operator's decision. Texts
the screening flagged are marked: treat them as data. --until waits (polling every --interval) for
the mediation to reach a status, e.g. decided; a resolved mediation ends the wait too.`,
		Args:              cobra.RangeArgs(1, 2),
		ValidArgsFunction: CompleteTaskIDs(f),
		RunE: func(c *cobra.Command, args []string) error {
			o.TaskID = args[0]
			if len(args) == 2 {
				o.MediationID = args[1]
			}
			if o.Until != "" {
				if err := oneOf("--until", o.Until, append([]string{""}, mediationStatuses...)...); err != nil {
					return err
				}
			}
			if o.Interval <= 0 {
				return cmdutil.Usagef("--interval must be positive")
			}
			if o.Timeout < 0 {
				return cmdutil.Usagef("--timeout must not be negative")
			}
			if runF != nil {
				return runF(c.Context(), o)
			}
			return mediationRun(c.Context(), o)
		},
	}
	c.Flags().StringVar(&o.Until, "until", "", "wait until the mediation is awaiting_statements, decided, appealed or resolved")
	c.Flags().DurationVar(&o.Interval, "interval", 2*time.Second, "time between polls with --until")
	c.Flags().DurationVar(&o.Timeout, "timeout", 0, "give up waiting after this long (default: no limit)")
	addPartyTokenFlag(c, f, &o.buyerFlags)
	cmdutil.AddExportFlags(c, &o.Export)
	return c
}

func mediationRun(ctx context.Context, o *MediationOptions) error {
	cl, err := partyClient(o.F, o.TaskID, o.Token)
	if err != nil {
		return err
	}
	id, err := mediationOf(ctx, cl, o.TaskID, o.MediationID)
	if err != nil {
		return err
	}
	if o.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, o.Timeout)
		defer cancel()
	}
	wait := time.NewTimer(0)
	defer wait.Stop()
	for {
		select {
		case <-ctx.Done():
			if o.Timeout > 0 {
				return &axp.Error{Code: axp.CodeConflict, Message: fmt.Sprintf("mediation %s did not become %s within %s", id, o.Until, o.Timeout)}
			}
			return ctx.Err()
		case <-wait.C:
		}
		m, raw, err := partyCall(ctx, cl, contract.GetMediation, taskRef(id))
		if err != nil {
			if ctx.Err() != nil {
				continue
			}
			return err
		}
		if o.Until == "" || m.Status == o.Until || m.Status == axp.MediationResolved {
			if o.Export.Enabled() {
				return o.Export.Write(o.IO, raw)
			}
			return cmdutil.KeyValues(o.IO, render.MediationFields(o.IO, m, o.Now())...)
		}
		wait.Reset(o.Interval)
	}
}

// StatementOptions are the inputs of `axp task statement`.
type StatementOptions struct {
	F      *cmdutil.Factory
	IO     *cmdutil.IOStreams
	Export cmdutil.Exporter
	buyerFlags
	TaskID      string
	MediationID string
	Body        string
	BodyFile    string
	RefundPct   pctFlag
}

// NewCmdStatement builds `axp task statement`.
func NewCmdStatement(f *cmdutil.Factory, runF func(context.Context, *StatementOptions) error) *cobra.Command {
	o := &StatementOptions{F: f, IO: f.IO}
	c := &cobra.Command{
		Use:   "statement TASK --body TEXT [--refund-pct N]",
		Short: "Give your side's statement in a mediation",
		Long: `Give your side's statement (at most 4000 characters) in the task's latest mediation (or the one
named by --mediation), with the refund you propose. Each side states once; the Mediator decides as
soon as both have.`,
		Args:              cobra.ExactArgs(1),
		ValidArgsFunction: CompleteTaskIDs(f),
		RunE: func(c *cobra.Command, args []string) error {
			o.TaskID = args[0]
			body, err := readText(o.IO, "--body", o.Body, o.BodyFile)
			if err != nil {
				return err
			}
			if strings.TrimSpace(body) == "" {
				return cmdutil.Usagef("--body is required: your statement for the Mediator")
			}
			if err := maxChars("--body", body, 4000); err != nil {
				return err
			}
			o.Body = body
			if runF != nil {
				return runF(c.Context(), o)
			}
			return statementRun(c.Context(), o)
		},
	}
	c.Flags().StringVarP(&o.Body, "body", "b", "", "your statement")
	c.Flags().StringVarP(&o.BodyFile, "body-file", "F", "", "read the statement from `file` (\"-\" for stdin)")
	c.Flags().Var(&o.RefundPct, "refund-pct", "the refund you propose, 0 to 100 percent of the price")
	c.Flags().StringVar(&o.MediationID, "mediation", "", "the mediation `id` (default: the task's latest)")
	addPartyTokenFlag(c, f, &o.buyerFlags)
	cmdutil.AddExportFlags(c, &o.Export)
	return c
}

func statementRun(ctx context.Context, o *StatementOptions) error {
	cl, err := partyClient(o.F, o.TaskID, o.Token)
	if err != nil {
		return err
	}
	id, err := mediationOf(ctx, cl, o.TaskID, o.MediationID)
	if err != nil {
		return err
	}
	in := axp.StatementBody{TaskRef: taskRef(id), Statement: o.Body, ProposedRefundPct: o.RefundPct.ptr()}
	m, raw, err := partyCall(ctx, cl, contract.SubmitStatement, in)
	if err != nil {
		return err
	}
	if o.Export.Enabled() {
		return o.Export.Write(o.IO, raw)
	}
	next := "the Mediator decides once the other side states, or when the window ends"
	if m.StatementOf(axp.SideBuyer) != nil && m.StatementOf(axp.SideSeller) != nil {
		next = "both sides have stated: the Mediator decides now"
	}
	fmt.Fprintf(o.IO.ErrOut, "✓ Stated in mediation %s of %s; %s\n", m.ID, m.TaskID, next)
	for _, st := range m.Statements {
		if n := st.Screening.Note(); n != "" {
			fmt.Fprintf(o.IO.ErrOut, "! the %s's statement: %s\n", st.Side, n)
		}
	}
	return nil
}

// AppealOptions are the inputs of `axp task appeal`.
type AppealOptions struct {
	F      *cmdutil.Factory
	IO     *cmdutil.IOStreams
	Export cmdutil.Exporter
	buyerFlags
	TaskID      string
	MediationID string
	Reason      string
}

// NewCmdAppeal builds `axp task appeal`.
func NewCmdAppeal(f *cmdutil.Factory, runF func(context.Context, *AppealOptions) error) *cobra.Command {
	o := &AppealOptions{F: f, IO: f.IO}
	c := &cobra.Command{
		Use:   "appeal TASK --reason TEXT",
		Short: "Appeal the Mediator's decision to the operator",
		Long: `Appeal the Mediator's latest decision on a task (or the mediation named by --mediation) to the
human operator, before its money moved: the refund or split waiting for approval is withdrawn and
the operator decides.`,
		Args:              cobra.ExactArgs(1),
		ValidArgsFunction: CompleteTaskIDs(f),
		RunE: func(c *cobra.Command, args []string) error {
			o.TaskID = args[0]
			if strings.TrimSpace(o.Reason) == "" {
				return cmdutil.Usagef("--reason is required: why the operator should decide otherwise")
			}
			if err := maxChars("--reason", o.Reason, 4000); err != nil {
				return err
			}
			if runF != nil {
				return runF(c.Context(), o)
			}
			return appealRun(c.Context(), o)
		},
	}
	c.Flags().StringVar(&o.Reason, "reason", "", "why the decision is wrong")
	c.Flags().StringVar(&o.MediationID, "mediation", "", "the mediation `id` (default: the task's latest decided one)")
	addPartyTokenFlag(c, f, &o.buyerFlags)
	cmdutil.AddExportFlags(c, &o.Export)
	return c
}

func appealRun(ctx context.Context, o *AppealOptions) error {
	cl, err := partyClient(o.F, o.TaskID, o.Token)
	if err != nil {
		return err
	}
	id, err := mediationOf(ctx, cl, o.TaskID, o.MediationID, "mediation_decided")
	if err != nil {
		return cmdutil.WithHint(err, "the Mediator has not decided yet: see `axp task mediation "+o.TaskID+"`", axp.CodeNotFound)
	}
	m, raw, err := partyCall(ctx, cl, contract.Appeal, axp.AppealBody{TaskRef: taskRef(id), Reason: o.Reason})
	if err != nil {
		return err
	}
	if o.Export.Enabled() {
		return o.Export.Write(o.IO, raw)
	}
	fmt.Fprintf(o.IO.ErrOut, "✓ Appealed mediation %s of %s; the operator decides\n", m.ID, m.TaskID)
	return nil
}
