// Package catalog holds the public catalog commands: `axp services` and `axp quote`.
package catalog

import (
	"context"
	"fmt"
	"strconv"

	"github.com/axp-exchange/axp"
	"github.com/axp-exchange/axp/client"
	"github.com/axp-exchange/axp/cmd/cmdutil"
	"github.com/axp-exchange/axp/cmd/task"
	"github.com/axp-exchange/axp/contract"
	"github.com/spf13/cobra"
)

// QuoteOptions are the inputs of `axp quote`.
type QuoteOptions struct {
	F      *cmdutil.Factory
	IO     *cmdutil.IOStreams
	Export cmdutil.Exporter
	Type   string
	Params []string
}

// NewCmdQuote builds `axp quote`.
func NewCmdQuote(f *cmdutil.Factory, runF func(context.Context, *QuoteOptions) error) *cobra.Command {
	o := &QuoteOptions{F: f, IO: f.IO}
	c := &cobra.Command{
		Use:   "quote --type TYPE [--param KEY=VALUE]...",
		Short: "Show the catalog price of a service with its params",
		Long: `Show the catalog price, ETA and acceptance criteria of a service (see 'axp services').
Sellers' real offers may differ: post the task to see them.`,
		Example: `  axp quote --type video --param prompt="a drone shot" --param duration=10`,
		Args:    cobra.NoArgs,
		RunE: func(c *cobra.Command, args []string) error {
			if o.Type == "" {
				return cmdutil.Usagef("--type is required (see axp services)")
			}
			if runF != nil {
				return runF(c.Context(), o)
			}
			return quoteRun(c.Context(), o)
		},
	}
	c.Flags().StringVar(&o.Type, "type", "", "service type, e.g. text-file")
	c.Flags().StringArrayVarP(&o.Params, "param", "p", nil, "service param as `key=value` (repeat)")
	c.RegisterFlagCompletionFunc("type", task.CompleteTypes)
	cmdutil.AddExportFlags(c, &o.Export)
	return c
}

func quoteRun(ctx context.Context, o *QuoteOptions) error {
	params, err := task.ParseParams(o.Type, o.Params)
	if err != nil {
		return err
	}
	q, raw, err := client.Call(ctx, o.F.Client(""), contract.GetQuote, axp.QuoteQuery{Type: o.Type, Params: params})
	if err != nil {
		return err
	}
	if o.Export.Enabled() {
		return o.Export.Write(o.IO, raw)
	}
	cs := o.IO.ColorScheme()
	if err := cmdutil.KeyValues(o.IO,
		"Type", q.Type,
		"Params", paramsText(q.Params),
		label(o.IO, "Price", "Price USD"), cs.Bold(cmdutil.Money(o.IO, q.Price.Amount)),
		label(o.IO, "ETA", "ETA minutes"), strconv.Itoa(q.ETAMinutes)+o.IO.OnTTY(" min"),
		"Acceptance", q.AcceptanceCriteria,
		"Note", q.Note,
		"Create URL", q.CreateURL,
	); err != nil {
		return err
	}
	if o.IO.StdoutTTY {
		fmt.Fprintf(o.IO.ErrOut, "Post it: axp task create --type %s ...\n", q.Type)
	}
	return nil
}

// label is the label of a value on a terminal (where the value shows its unit: US$, min), or
// the label naming the unit when the value is a bare number for a program (price_usd: 4).
func label(s *cmdutil.IOStreams, onTTY, piped string) string {
	if s.StdoutTTY {
		return onTTY
	}
	return piped
}
