package admin

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"

	"github.com/axp-exchange/axp"
	"github.com/axp-exchange/axp/cmd/cmdutil"
	"github.com/axp-exchange/axp/contract"
	"github.com/spf13/cobra"
)

// ApproveOptions are the inputs of `axp admin approvals approve`.
type ApproveOptions struct {
	F      *cmdutil.Factory
	IO     *cmdutil.IOStreams
	Export cmdutil.Exporter
	ID     string
	// IDs are every item named (ID is the first); several are approved after one confirmation.
	IDs    []string
	TxHash string
	Note   string
	Yes    bool
}

var txHash = regexp.MustCompile(`^0x[0-9a-fA-F]{64}$`)

// NewCmdApprove builds `axp admin approvals approve`.
func NewCmdApprove(f *cmdutil.Factory, runF func(context.Context, *ApproveOptions) error) *cobra.Command {
	o := &ApproveOptions{F: f, IO: f.IO}
	c := &cobra.Command{
		Use:   "approve ID... [--tx HASH] [--note TEXT]",
		Short: "Approve an item: confirm a payment, or record the transaction that sent money",
		Long: `Approve a queue item. A payment is confirmed as received. A payout, refund or split is sent by the
exchange's hot wallet when it has one (payout_key_file): the item is then "sent" and becomes
"confirmed" once its transfers have their confirmations (or "failed", back in the queue, with the
reason; when the node refuses a transfer at once, approve exits 1 with that reason). Without a hot wallet, send the money yourself and give --tx, the hash of the transaction
that sent it. On an exchange with a chain, --tx is checked there before anything is booked: the
transaction must send each part still due (all in the one transaction) from the hot wallet or the
deposit address to its recipient, with the exchange's confirmations (until then approve answers
409: approve again later), and a hash another item or payment holds is refused.
A release_due item releases the task (its payout then waits here in turn).

Several ids are approved after one confirmation, each on its own with one result line (✓ or ✗ and
the reason); the command exits non-zero when any of them failed. --tx names one transaction, so it
goes with one id.`,
		Example: `  axp admin approvals approve apr_123
  axp admin approvals approve apr_123 --tx 0x... --note "sent by hand"
  axp admin approvals approve apr_1 apr_2 apr_3 --yes`,
		Args:              cobra.MinimumNArgs(1),
		ValidArgsFunction: completeApprovalIDs(f),
		RunE: func(c *cobra.Command, args []string) error {
			o.ID, o.IDs = args[0], args
			if o.TxHash != "" && len(args) > 1 {
				return cmdutil.Usagef("--tx names the transaction of one item: approve %d items without it, or one with it", len(args))
			}
			if o.TxHash != "" && !txHash.MatchString(o.TxHash) {
				return cmdutil.Usagef("--tx %q: a transaction hash is 0x followed by 64 hex digits", o.TxHash)
			}
			if runF != nil {
				return runF(c.Context(), o)
			}
			return approveRun(c.Context(), o)
		},
	}
	c.Flags().StringVar(&o.TxHash, "tx", "", "the transaction `hash` that sent a payout, refund or split")
	c.Flags().StringVar(&o.Note, "note", "", "a note kept with the decision")
	cmdutil.AddYesFlag(c, &o.Yes)
	cmdutil.AddExportFlags(c, &o.Export)
	return c
}

func approveRun(ctx context.Context, o *ApproveOptions) error {
	l, _, err := call(ctx, o.F, contract.AdminApprovals, axp.ApprovalsQuery{Status: "all"})
	if err != nil {
		return err
	}
	if len(o.IDs) > 1 {
		return approveAll(ctx, o, l)
	}
	a, err := approvalIn(l, o.ID)
	if err != nil {
		return err
	}
	// What the exchange would refuse is refused before the question.
	if o.TxHash == "" && l.Rail == "manual" && axp.SendsMoney(a.Kind) && a.Open() {
		return &axp.Error{Code: axp.CodeInvalidInput, Field: "tx_hash",
			Message: "is required to approve a " + a.Kind + " on this exchange, which has no hot wallet: give --tx",
			Hint:    "send " + sendsWhat(a) + " yourself first, then record its transaction: axp admin approvals approve " + a.ID + " --tx 0x..."}
	}
	err = cmdutil.ConfirmStep(o.IO, o.Yes, "approve "+o.ID, func() ([]string, error) {
		lines := describeApproval(a)
		if o.TxHash != "" {
			lines = append(lines, "recorded as sent by transaction "+o.TxHash)
		}
		return lines, nil
	})
	if err != nil {
		return err
	}
	return approve(ctx, o.F, o.IO, &o.Export, o.ID, o.TxHash, o.Note)
}

// approveAll approves several items after one confirmation, one result line each; it fails when
// any of them failed. What the exchange would refuse is a failure before the question.
func approveAll(ctx context.Context, o *ApproveOptions, l *axp.ApprovalList) error {
	var ok []*axp.Approval
	var failed []error
	fail := func(id string, err error) {
		failed = append(failed, err)
		fmt.Fprintf(o.IO.ErrOut, "✗ %s: %s\n", id, errorLine(err))
	}
	seen := map[string]bool{}
	for _, id := range o.IDs {
		if seen[id] {
			continue
		}
		seen[id] = true
		a, err := approvalIn(l, id)
		if err == nil && !a.Open() {
			err = axp.Conflict("approval "+id+" was already "+a.Status, "")
		}
		if err == nil && l.Rail == "manual" && axp.SendsMoney(a.Kind) {
			err = &axp.Error{Code: axp.CodeInvalidInput, Field: "tx_hash", Message: "is required to approve a " + a.Kind + " on this exchange, which has no hot wallet",
				Hint: "send " + sendsWhat(a) + " yourself first, then approve it alone: axp admin approvals approve " + a.ID + " --tx 0x..."}
		}
		if err != nil {
			fail(id, err)
			continue
		}
		ok = append(ok, a)
	}
	if len(ok) > 0 {
		err := cmdutil.ConfirmStep(o.IO, o.Yes, fmt.Sprintf("approve these %d items", len(ok)), func() ([]string, error) {
			var lines []string
			for _, a := range ok {
				lines = append(lines, strings.Join(describeApproval(a), ": "))
			}
			return lines, nil
		})
		if err != nil {
			return err
		}
	}
	for _, x := range ok {
		a, raw, err := call(ctx, o.F, contract.AdminApprove, axp.ApproveBody{ID: x.ID, Note: o.Note})
		if err == nil {
			err = sendFailed(a)
		}
		if err != nil {
			fail(x.ID, err)
			continue
		}
		if o.Export.Enabled() {
			if err := o.Export.Write(o.IO, raw); err != nil {
				return err
			}
		}
		fmt.Fprintf(o.IO.ErrOut, "✓ %s: %s\n", a.ID, approvedLine(a))
	}
	if len(failed) == 0 {
		return nil
	}
	e := &axp.Error{Code: axp.CodeConflict, Message: fmt.Sprintf("%d of %d items were not approved", len(failed), len(seen)),
		Hint: "the lines above say why; the others are approved"}
	var first *axp.Error
	if errors.As(failed[0], &first) {
		e.Code = first.Code
	}
	return e
}

// errorLine is an error on one line: the message and, for exchange errors, the hint.
func errorLine(err error) string {
	var e *axp.Error
	if !errors.As(err, &e) {
		return err.Error()
	}
	s := e.Message
	if e.Field != "" && e.Code == axp.CodeInvalidInput {
		s = e.Field + ": " + s
	}
	if e.Hint != "" {
		s += " (hint: " + e.Hint + ")"
	}
	return s
}

// approvedLine says in one line what approving an item did.
func approvedLine(a *axp.Approval) string {
	var sent []string
	for _, x := range a.Transfers {
		if x.Status == axp.TransferSent {
			sent = append(sent, fmt.Sprintf("sent %s to the %s at %s (%s)", x.Amount.Display(), x.Part, x.To, x.TxHash))
		}
	}
	switch {
	case len(sent) > 0 && a.Status == axp.ApprovalHeld:
		return strings.Join(sent, "; ") + "; the seller's part waits for a payout address"
	case len(sent) > 0:
		return strings.Join(sent, "; ") + "; confirmed once the transfers have their confirmations"
	case a.Recipients() != "":
		return fmt.Sprintf("approved %s of task %s: %s", a.Kind, a.TaskID, a.Recipients())
	}
	return fmt.Sprintf("approved %s of task %s (%s)", a.Kind, a.TaskID, a.Amount.Display())
}

// sendsWhat says what approving a payout, refund or split sends, and where.
func sendsWhat(a *axp.Approval) string {
	if a.Kind == axp.ApprovePayout {
		to := "the seller"
		if a.SellerName != "" {
			to += " " + a.SellerName
		}
		if a.PayoutAddress != "" {
			to += " at payout address " + a.PayoutAddress
		} else {
			to += ", who has no payout address yet"
		}
		return a.Amount.Display() + " to " + to
	}
	if r := a.Recipients(); r != "" {
		return r
	}
	return a.Amount.Display()
}

// completeApprovals completes the first argument with a field (key) of the open queue items,
// each described by its kind, task and amount.
func completeApprovals(f *cmdutil.Factory, key func(axp.Approval) string) func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
	return func(c *cobra.Command, args []string, prefix string) ([]string, cobra.ShellCompDirective) {
		if len(args) > 0 {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		l, _, err := call(c.Context(), f, contract.AdminApprovals, axp.ApprovalsQuery{})
		if err != nil {
			return nil, cobra.ShellCompDirectiveError
		}
		var out []string
		for _, a := range l.Approvals {
			out = append(out, fmt.Sprintf("%s\t%s of %s, %s, %s", key(a), a.Kind, a.TaskID, a.Amount.Display(), a.Status))
		}
		return out, cobra.ShellCompDirectiveNoFileComp
	}
}

// completeApprovalIDs completes every argument with the ids of the open queue items not given yet.
func completeApprovalIDs(f *cmdutil.Factory) func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
	first := completeApprovals(f, func(a axp.Approval) string { return a.ID })
	return func(c *cobra.Command, args []string, prefix string) ([]string, cobra.ShellCompDirective) {
		out, d := first(c, nil, prefix)
		given := map[string]bool{}
		for _, a := range args {
			given[a] = true
		}
		kept := out[:0:0]
		for _, x := range out {
			if id, _, _ := strings.Cut(x, "\t"); !given[id] {
				kept = append(kept, x)
			}
		}
		return kept, d
	}
}

// findApproval finds queue item id among those q lists.
func findApproval(ctx context.Context, f *cmdutil.Factory, q axp.ApprovalsQuery, id string) (*axp.Approval, error) {
	l, _, err := call(ctx, f, contract.AdminApprovals, q)
	if err != nil {
		return nil, err
	}
	return approvalIn(l, id)
}

// approvalIn finds queue item id in a list.
func approvalIn(l *axp.ApprovalList, id string) (*axp.Approval, error) {
	for i := range l.Approvals {
		if l.Approvals[i].ID == id {
			return &l.Approvals[i], nil
		}
	}
	return nil, &axp.Error{Code: axp.CodeNotFound, Message: "approval " + id + " is not in the queue",
		Hint: "list the items that wait with `axp admin approvals list`"}
}

// describeApproval says what approving a queue item does, for the confirmation question.
func describeApproval(a *axp.Approval) []string {
	lines := []string{fmt.Sprintf("%s %s of task %s (%s), %s", a.Kind, a.ID, a.TaskID, a.TaskType, a.Status)}
	switch a.Kind {
	case axp.ApprovePayment:
		lines = append(lines, "confirms the buyer's payment of "+a.Amount.Display()+" as received; the job starts")
	case axp.ApproveReleaseDue:
		lines = append(lines, "releases the task; its payout then waits in the queue")
	default:
		lines = append(lines, "sends "+sendsWhat(a))
	}
	return lines
}

func approve(ctx context.Context, f *cmdutil.Factory, s *cmdutil.IOStreams, e *cmdutil.Exporter, id, tx, note string) error {
	a, raw, err := call(ctx, f, contract.AdminApprove, axp.ApproveBody{ID: id, TxHash: tx, Note: note})
	if err != nil {
		var e *axp.Error
		if errors.As(err, &e) && e.Field == "tx_hash" && tx == "" {
			return cmdutil.WithHint(err, "this exchange has no hot wallet: send the money first, then record its transaction: --tx 0x...")
		}
		return err
	}
	if e.Enabled() {
		if err := e.Write(s, raw); err != nil {
			return err
		}
		return sendFailed(a)
	}
	if a.Status == axp.ApprovalSent {
		for _, x := range a.Transfers {
			if x.Status == axp.TransferSent {
				fmt.Fprintln(s.ErrOut, sentLine(x))
			}
		}
		fmt.Fprintf(s.ErrOut, "%s %s of task %s is confirmed once its transfers have their confirmations: axp admin approvals list --status sent\n", a.Kind, a.ID, a.TaskID)
	} else if a.Status == axp.ApprovalFailed {
		return sendFailed(a)
	} else if a.Status == axp.ApprovalHeld && a.Sending() {
		for _, x := range a.Transfers {
			if x.Status == axp.TransferSent {
				fmt.Fprintln(s.ErrOut, sentLine(x))
			}
		}
		fmt.Fprintf(s.ErrOut, "the buyer's part of %s %s of task %s is booked once confirmed; the seller's part waits for a payout address\n", a.Kind, a.ID, a.TaskID)
	} else if a.Status == axp.ApprovalHeld && a.BuyerPartTxHash != "" {
		fmt.Fprintf(s.ErrOut, "✓ Sent the buyer's part of %s %s of task %s (%s); the seller's part waits for a payout address\n",
			a.Kind, a.ID, a.TaskID, a.RefundUSD.Display())
	} else if r := a.Recipients(); r != "" {
		fmt.Fprintf(s.ErrOut, "✓ Approved %s %s of task %s: %s\n", a.Kind, a.ID, a.TaskID, r)
	} else {
		fmt.Fprintf(s.ErrOut, "✓ Approved %s %s of task %s (%s)\n", a.Kind, a.ID, a.TaskID, a.Amount.Display())
	}
	return nil
}

// sendFailed is the error of an approval whose sending failed at once (the node refused a
// transfer): the command fails with the reason, as the money did not go. Nil for any other status.
func sendFailed(a *axp.Approval) error {
	if a.Status != axp.ApprovalFailed {
		return nil
	}
	return &axp.Error{Code: axp.CodeUnavailable, Message: fmt.Sprintf("%s %s of task %s failed: %s", a.Kind, a.ID, a.TaskID, a.Failure),
		Hint: "it is back in the queue: fix the cause (a hot wallet without ETH for gas: fund it) and approve again, or send by hand and approve with --tx"}
}

// sentLine says what transfer x, sent, moved: money to the party of its part, or a call of the
// escrow contract (its capture pays the seller and the fee, its void returns the buyer's money).
func sentLine(x axp.OutTransfer) string {
	switch x.Part {
	case "capture":
		return fmt.Sprintf("✓ Sent the escrow's capture of %s (escrow %s pays the seller and the fee): %s", x.Amount.Display(), x.To, x.TxHash)
	case "void":
		return fmt.Sprintf("✓ Sent the escrow's void of %s (escrow %s returns it to the buyer): %s", x.Amount.Display(), x.To, x.TxHash)
	}
	return fmt.Sprintf("✓ Sent %s to the %s at %s: %s", x.Amount.Display(), x.Part, x.To, x.TxHash)
}
