// Package task holds the buyer's commands: `axp task ...` and `axp offers`. Each verb has an
// options struct filled from flags and a run function that takes it.
package task

import (
	"context"

	"github.com/axp-exchange/axp"
	"github.com/axp-exchange/axp/client"
	"github.com/axp-exchange/axp/cmd/cmdutil"
	"github.com/axp-exchange/axp/contract"
	"github.com/spf13/cobra"
)

// NewCmd builds `axp task`.
func NewCmd(f *cmdutil.Factory) *cobra.Command {
	c := &cobra.Command{
		Use:   "task",
		Short: "Post tasks and follow them; talk, settle and mediate disputes, review the job",
		Long: `Post a task, choose an offer, pay, and accept or dispute the delivery; talk with the other
party, settle or escalate a dispute, appeal the Mediator's decision and review the job.

The buyer token of a task posted here is saved with your credentials for the exchange, so later
commands need only the task id. Tasks posted elsewhere take --token. A seller uses the talk and
dispute commands (messages, message, settle, settlement, escalate, mediation, statement, appeal,
review, object) as the member of --dir (the directory of 'axp member serve --dir DIR'), else the
one saved by 'axp login', else a member run in the current directory.`,
	}
	c.AddCommand(NewCmdCreate(f, nil), NewCmdList(f, nil), NewCmdView(f, nil), NewCmdWatch(f, nil),
		NewCmdChoose(f, nil), NewCmdPay(f, nil), NewCmdDeliverable(f, nil), NewCmdAccept(f, nil),
		NewCmdDispute(f, nil), NewCmdCancel(f, nil), NewCmdTimeline(f, nil), NewCmdReceipt(f, nil), NewCmdRedo(f, nil), NewCmdClarify(f, nil),
		NewCmdMessages(f, nil), NewCmdMessage(f, nil), NewCmdReview(f, nil), NewCmdSettle(f, nil), NewCmdSettlement(f, nil),
		NewCmdEscalate(f, nil), NewCmdMediation(f, nil), NewCmdStatement(f, nil), NewCmdAppeal(f, nil), NewCmdObject(f, nil))
	return c
}

// buyerFlags are the flags of every command that acts on one task as its buyer.
type buyerFlags struct {
	Token string
}

func addTokenFlag(c *cobra.Command, b *buyerFlags) {
	c.Flags().StringVar(&b.Token, "token", "", "the task's buyer token (default: the one saved when the task was posted)")
}

// asBuyer runs an operation on task id as its buyer (token, else the saved credentials of the task)
// and returns its answer decoded and as the exchange sent it (what --json prints). in addresses the
// task itself.
func asBuyer[I, O any](ctx context.Context, f *cmdutil.Factory, id, token string, def contract.Def[I, O], in I) (*O, []byte, error) {
	cl, err := f.BuyerClient(id, token)
	if err != nil {
		return nil, nil, err
	}
	out, body, err := client.Call(ctx, cl, def, in)
	return out, body, cmdutil.WithHint(err, cmdutil.BuyerAuthHint, axp.CodeUnauthorized, axp.CodeForbidden)
}

// taskRef addresses task id.
func taskRef(id string) axp.TaskRef { return axp.TaskRef{ID: id} }

// getTask reads a task as its buyer, offers ranked by sort ("" for the default).
func getTask(ctx context.Context, f *cmdutil.Factory, id, token, sort string) (*axp.Task, []byte, error) {
	return asBuyer(ctx, f, id, token, contract.GetTask, axp.TaskQuery{TaskRef: taskRef(id), Sort: sort})
}

// ErrCancelled is the answer "no" to a confirmation.
var ErrCancelled = cmdutil.ErrCancelled
