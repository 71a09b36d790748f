package task

import (
	"context"
	"fmt"
	"strconv"

	"github.com/axp-exchange/axp"
	"github.com/axp-exchange/axp/cmd/cmdutil"
	"github.com/axp-exchange/axp/contract"
	"github.com/spf13/cobra"
)

// ChooseOptions are the inputs of `axp task choose`.
type ChooseOptions struct {
	F      *cmdutil.Factory
	IO     *cmdutil.IOStreams
	Export cmdutil.Exporter
	buyerFlags
	TaskID string
	// Offer is an offer id or its rank in the value ranking (1 is the first); empty chooses the
	// recommended offer.
	Offer string
	Yes   bool
}

// NewCmdChoose builds `axp task choose`.
func NewCmdChoose(f *cmdutil.Factory, runF func(context.Context, *ChooseOptions) error) *cobra.Command {
	o := &ChooseOptions{F: f, IO: f.IO}
	c := &cobra.Command{
		Use:   "choose TASK [OFFER]",
		Short: "Choose an offer (the recommended one by default)",
		Long: `Choose an offer on an open task: an offer id, or its number in 'axp offers' (value ranking).
Without one, the recommended offer is chosen. On a terminal you are asked first; --yes skips the
question. The task then awaits payment (free jobs start at once).`,
		Args:              cobra.RangeArgs(1, 2),
		ValidArgsFunction: completeTaskThenOffer(f),
		RunE: func(c *cobra.Command, args []string) error {
			o.TaskID = args[0]
			if len(args) == 2 {
				o.Offer = args[1]
			}
			if runF != nil {
				return runF(c.Context(), o)
			}
			return chooseRun(c.Context(), o)
		},
	}
	c.Flags().BoolVarP(&o.Yes, "yes", "y", false, "choose without asking")
	addTokenFlag(c, &o.buyerFlags)
	cmdutil.AddExportFlags(c, &o.Export)
	return c
}

// PickOffer finds the offer named by ref (an id, or a 1-based rank) among the task's offers, or
// the recommended offer when ref is empty.
func PickOffer(t *axp.Task, ref string) (*axp.Offer, error) {
	if t.ChosenOfferID != "" && t.Status != axp.TaskOpen {
		return nil, alreadyChosen(t)
	}
	if len(t.Offers) == 0 {
		if t.Status != axp.TaskOpen {
			return nil, axp.Conflict("task "+t.ID+" is "+t.Status+"; offers are chosen while it is open", "")
		}
		return nil, axp.Conflict("task "+t.ID+" has no offers yet", "wait for sellers to quote: axp task watch "+t.ID)
	}
	if ref == "" {
		if t.RecommendedOffer == nil {
			return nil, axp.Conflict("task "+t.ID+" is "+t.Status+" and has no recommended offer", "name the offer: axp task choose "+t.ID+" OFFER")
		}
		ref = *t.RecommendedOffer
	}
	if n, err := strconv.Atoi(ref); err == nil {
		if n < 1 || n > len(t.Offers) {
			return nil, axp.Invalid("offer", fmt.Sprintf("there is no offer number %d (the task has %d)", n, len(t.Offers)), "see the numbers with: axp offers "+t.ID)
		}
		return &t.Offers[n-1], nil
	}
	for i := range t.Offers {
		if t.Offers[i].OfferID == ref {
			return &t.Offers[i], nil
		}
	}
	return nil, axp.Invalid("offer", fmt.Sprintf("%q is not an offer on task %s", ref, t.ID), "see the offers with: axp offers "+t.ID)
}

// alreadyChosen is the answer to choosing on a task whose offer is already chosen: what to do
// instead (pay it while it awaits payment).
func alreadyChosen(t *axp.Task) error {
	msg := "task " + t.ID + " is already chosen (offer " + t.ChosenOfferID + ")"
	if t.Status == axp.TaskAwaitingPayment {
		return axp.Conflict(msg+": pay it", payNext(t.ID, t.Payment, "send the payable amount, then report it"))
	}
	return axp.Conflict(msg+"; it is "+t.Status, "see where it stands: axp task view "+t.ID)
}

func chooseRun(ctx context.Context, o *ChooseOptions) error {
	t, _, err := getTask(ctx, o.F, o.TaskID, o.Token, "")
	if err != nil {
		return err
	}
	offer, err := PickOffer(t, o.Offer)
	if err != nil {
		return err
	}
	what := fmt.Sprintf("offer %s from %s at %s, ETA %d min", offer.OfferID, offer.Seller.Name, offer.PriceUSD.Display(), offer.ETAMinutes)
	if !o.Yes && o.IO.CanPrompt() {
		ok, err := cmdutil.Confirm(o.IO, "Choose "+what+"?")
		if err != nil {
			return err
		}
		if !ok {
			return ErrCancelled
		}
	}
	chosen, raw, err := asBuyer(ctx, o.F, o.TaskID, o.Token, contract.ChooseOffer, axp.ChooseInput{TaskRef: taskRef(o.TaskID), OfferID: offer.OfferID})
	if err != nil {
		return err
	}
	if o.Export.Enabled() {
		return o.Export.Write(o.IO, raw)
	}
	fmt.Fprintf(o.IO.ErrOut, "✓ Chose %s; the task is %s\n", what, chosen.Status)
	if chosen.Status == axp.TaskAwaitingPayment && chosen.Payment != nil {
		if err := cmdutil.KeyValues(o.IO, paymentPairs(o.IO, chosen.Payment)...); err != nil {
			return err
		}
		fmt.Fprintln(o.IO.ErrOut, payNext(chosen.ID, chosen.Payment, "Send the payable amount, then report it"))
	}
	return nil
}

// completeTaskThenOffer completes the task id, then the ids of its offers (read from the exchange
// with the saved buyer token), each with its seller, price and ETA.
func completeTaskThenOffer(f *cmdutil.Factory) func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
	tasks := CompleteTaskIDs(f)
	return func(c *cobra.Command, args []string, prefix string) ([]string, cobra.ShellCompDirective) {
		if len(args) == 0 {
			return tasks(c, args, prefix)
		}
		if len(args) > 1 {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		t, _, err := getTask(c.Context(), f, args[0], "", "")
		if err != nil {
			return nil, cobra.ShellCompDirectiveError
		}
		var out []string
		for _, o := range t.Offers {
			out = append(out, fmt.Sprintf("%s\t%s, %s, %d min", o.OfferID, o.Seller.Name, o.PriceUSD.Display(), o.ETAMinutes))
		}
		return out, cobra.ShellCompDirectiveNoFileComp
	}
}
