package task

import (
	"context"
	"fmt"

	"github.com/axp-exchange/axp"
	"github.com/axp-exchange/axp/cmd/cmdutil"
	"github.com/spf13/cobra"
)

// OffersOptions are the inputs of `axp offers`.
type OffersOptions struct {
	F      *cmdutil.Factory
	IO     *cmdutil.IOStreams
	Export cmdutil.Exporter
	buyerFlags
	TaskID string
	Sort   string
}

// NewCmdOffers builds `axp offers`.
func NewCmdOffers(f *cmdutil.Factory, runF func(context.Context, *OffersOptions) error) *cobra.Command {
	o := &OffersOptions{F: f, IO: f.IO}
	c := &cobra.Command{
		Use:   "offers TASK",
		Short: "Show a task's offers, ranked",
		Long: `Show the offers on a task with price, the seller's net after the platform fee, ETA, the
seller's measured reliability and badges. Rankings: value (price 50%, ETA 30%, reliability 20%; the
default), price, eta, reliability. --json prints the task as GET /api/tasks/{id}?sort= answers it.`,
		Args:              cobra.ExactArgs(1),
		ValidArgsFunction: CompleteTaskIDs(f),
		RunE: func(c *cobra.Command, args []string) error {
			o.TaskID = args[0]
			if err := oneOf("--sort", o.Sort, append([]string{""}, axp.Rankings...)...); err != nil {
				return err
			}
			if runF != nil {
				return runF(c.Context(), o)
			}
			return offersRun(c.Context(), o)
		},
	}
	c.Flags().StringVar(&o.Sort, "sort", "", "ranking: value, price, eta or reliability")
	c.RegisterFlagCompletionFunc("sort", cobra.FixedCompletions(axp.Rankings, cobra.ShellCompDirectiveNoFileComp))
	addTokenFlag(c, &o.buyerFlags)
	cmdutil.AddExportFlags(c, &o.Export)
	return c
}

func offersRun(ctx context.Context, o *OffersOptions) error {
	t, raw, err := getTask(ctx, o.F, o.TaskID, o.Token, o.Sort)
	if err != nil {
		return err
	}
	if o.Export.Enabled() {
		return o.Export.Write(o.IO, raw)
	}
	if len(t.Offers) == 0 {
		fmt.Fprintf(o.IO.ErrOut, "No offers on %s (%s)", t.ID, t.Status)
		if t.Status == axp.TaskOpen {
			fmt.Fprintf(o.IO.ErrOut, "; sellers may still quote: axp task watch %s", t.ID)
		}
		fmt.Fprintln(o.IO.ErrOut)
		return nil
	}
	return writeOffers(o.IO, t)
}
