package task

import (
	"context"
	"fmt"

	"github.com/axp-exchange/axp"
	"github.com/axp-exchange/axp/cmd/cmdutil"
	"github.com/axp-exchange/axp/contract"
	"github.com/spf13/cobra"
)

// SettleOptions are the inputs of `axp task settle`.
type SettleOptions struct {
	F      *cmdutil.Factory
	IO     *cmdutil.IOStreams
	Export cmdutil.Exporter
	buyerFlags
	TaskID    string
	RefundPct pctFlag
	Note      string
}

// NewCmdSettle builds `axp task settle`.
func NewCmdSettle(f *cmdutil.Factory, runF func(context.Context, *SettleOptions) error) *cobra.Command {
	o := &SettleOptions{F: f, IO: f.IO}
	c := &cobra.Command{
		Use:   "settle TASK --refund-pct N [--note TEXT]",
		Short: "Propose a refund split to end a dispute",
		Long: `Propose to end a dispute with a split: --refund-pct of the price goes back to the buyer, the
seller is paid the rest less the platform fee. The other side accepts or rejects it with 'axp task
settlement'. A new proposal replaces the open one. An accepted settlement waits for the operator's
approval before any money moves.`,
		Example:           `  axp task settle tsk_123 --refund-pct 50 --note "half the lines are missing"`,
		Args:              cobra.ExactArgs(1),
		ValidArgsFunction: CompleteTaskIDs(f),
		RunE: func(c *cobra.Command, args []string) error {
			o.TaskID = args[0]
			if !o.RefundPct.set {
				return cmdutil.Usagef("--refund-pct is required: the share of the price, 0 to 100, refunded to the buyer")
			}
			if err := maxChars("--note", o.Note, 2000); err != nil {
				return err
			}
			if runF != nil {
				return runF(c.Context(), o)
			}
			return settleRun(c.Context(), o)
		},
	}
	c.Flags().Var(&o.RefundPct, "refund-pct", "share of the price refunded to the buyer, 0 to 100 (the seller is paid the rest)")
	c.Flags().StringVar(&o.Note, "note", "", "a note for the other side")
	addPartyTokenFlag(c, f, &o.buyerFlags)
	cmdutil.AddExportFlags(c, &o.Export)
	return c
}

func settleRun(ctx context.Context, o *SettleOptions) error {
	cl, err := partyClient(o.F, o.TaskID, o.Token)
	if err != nil {
		return err
	}
	in := axp.SettlementBody{TaskRef: taskRef(o.TaskID), RefundPct: o.RefundPct.v, Note: o.Note}
	s, raw, err := partyCall(ctx, cl, contract.ProposeSettlement, in)
	if err != nil {
		return err
	}
	if o.Export.Enabled() {
		return o.Export.Write(o.IO, raw)
	}
	fmt.Fprintf(o.IO.ErrOut, "✓ Proposed settlement %s on %s: refund %d%% (%s) to the buyer, the rest to the seller\n",
		s.ID, s.TaskID, s.RefundPct, s.RefundUSD.Display())
	fmt.Fprintf(o.IO.ErrOut, "The %s answers with: axp task settlement %s %s --accept (or --reject)\n", axp.OtherSide(s.ProposedBy), s.TaskID, s.ID)
	if n := s.Screening.Note(); n != "" {
		fmt.Fprintf(o.IO.ErrOut, "! %s\n", n)
	}
	return nil
}

// SettlementOptions are the inputs of `axp task settlement`.
type SettlementOptions struct {
	F      *cmdutil.Factory
	IO     *cmdutil.IOStreams
	Export cmdutil.Exporter
	buyerFlags
	TaskID       string
	SettlementID string
	Accept       bool
	Reject       bool
	Yes          bool
}

// NewCmdSettlement builds `axp task settlement`.
func NewCmdSettlement(f *cmdutil.Factory, runF func(context.Context, *SettlementOptions) error) *cobra.Command {
	o := &SettlementOptions{F: f, IO: f.IO}
	c := &cobra.Command{
		Use:   "settlement TASK [SETTLEMENT] (--accept | --reject)",
		Short: "Accept or reject the other side's settlement proposal",
		Long: `Answer a settlement proposal (the latest one on the task unless SETTLEMENT names it). Accepting
puts a refund or split in the operator's approval queue and closes any open mediation of the
dispute; only the side that did not propose may answer.`,
		Args:              cobra.RangeArgs(1, 2),
		ValidArgsFunction: CompleteTaskIDs(f),
		RunE: func(c *cobra.Command, args []string) error {
			o.TaskID = args[0]
			if len(args) == 2 {
				o.SettlementID = args[1]
			}
			if o.Accept == o.Reject {
				return cmdutil.Usagef("give --accept or --reject")
			}
			if runF != nil {
				return runF(c.Context(), o)
			}
			return settlementRun(c.Context(), o)
		},
	}
	c.Flags().BoolVar(&o.Accept, "accept", false, "accept the proposal")
	c.Flags().BoolVar(&o.Reject, "reject", false, "reject the proposal")
	cmdutil.AddYesFlag(c, &o.Yes)
	addPartyTokenFlag(c, f, &o.buyerFlags)
	cmdutil.AddExportFlags(c, &o.Export)
	return c
}

func settlementRun(ctx context.Context, o *SettlementOptions) error {
	cl, err := partyClient(o.F, o.TaskID, o.Token)
	if err != nil {
		return err
	}
	id := o.SettlementID
	if id == "" {
		if id, err = latestRef(ctx, cl, o.TaskID, "settlement_id", "settlement_proposed"); err != nil {
			return err
		}
		if id == "" {
			return &axp.Error{Code: axp.CodeNotFound, Message: "no settlement was proposed on " + o.TaskID,
				Hint: "propose one with `axp task settle " + o.TaskID + " --refund-pct N`"}
		}
	}
	if o.Accept {
		// Accepting settles the money: ask, like every step that moves it.
		if err := cmdutil.ConfirmStep(o.IO, o.Yes, "accept settlement "+id+" of task "+o.TaskID, nil); err != nil {
			return err
		}
	}
	// accept is sent even when false: a rejection.
	s, raw, err := partyCall(ctx, cl, contract.AnswerSettlement, axp.SettlementAnswer{TaskRef: taskRef(o.TaskID), SettlementID: id, Accept: o.Accept})
	if err != nil {
		return err
	}
	if o.Export.Enabled() {
		return o.Export.Write(o.IO, raw)
	}
	if !o.Accept {
		fmt.Fprintf(o.IO.ErrOut, "✓ Rejected settlement %s (refund %d%%); the dispute stays open\n", s.ID, s.RefundPct)
		return nil
	}
	line := fmt.Sprintf("✓ Accepted settlement %s: refund %d%% (%s) to the buyer, the rest to the seller", s.ID, s.RefundPct, s.RefundUSD.Display())
	if s.ApprovalID != "" {
		line += "; it waits for the operator's approval (" + s.ApprovalID + ")"
	}
	fmt.Fprintln(o.IO.ErrOut, line)
	return nil
}
