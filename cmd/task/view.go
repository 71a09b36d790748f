package task

import (
	"context"

	"github.com/axp-exchange/axp"
	"github.com/axp-exchange/axp/client"
	"github.com/axp-exchange/axp/contract"

	"github.com/axp-exchange/axp/cmd/cmdutil"
	"github.com/spf13/cobra"
)

// ViewOptions are the inputs of `axp task view`.
type ViewOptions struct {
	F      *cmdutil.Factory
	IO     *cmdutil.IOStreams
	Export cmdutil.Exporter
	buyerFlags
	TaskID string
}

// NewCmdView builds `axp task view`.
func NewCmdView(f *cmdutil.Factory, runF func(context.Context, *ViewOptions) error) *cobra.Command {
	o := &ViewOptions{F: f, IO: f.IO}
	c := &cobra.Command{
		Use:               "view TASK",
		Short:             "Show a task: status, price and fee, payment, deliverable and offers",
		Args:              cobra.ExactArgs(1),
		ValidArgsFunction: CompleteTaskIDs(f),
		RunE: func(c *cobra.Command, args []string) error {
			o.TaskID = args[0]
			if runF != nil {
				return runF(c.Context(), o)
			}
			return viewRun(c.Context(), o)
		},
	}
	addTokenFlag(c, &o.buyerFlags)
	cmdutil.AddExportFlags(c, &o.Export)
	return c
}

func viewRun(ctx context.Context, o *ViewOptions) error {
	t, raw, err := getTask(ctx, o.F, o.TaskID, o.Token, "")
	if err != nil && o.Token == "" && (client.IsCode(err, axp.CodeUnauthorized) || client.IsCode(err, axp.CodeForbidden)) {
		// The operator views any task with the admin login.
		if admin, aerr := o.F.AdminToken(); aerr == nil && admin != "" {
			at, araw, aerr := client.Call(ctx, o.F.Client(admin), contract.AdminTask, axp.IDPath{ID: o.TaskID})
			switch {
			case aerr == nil:
				t, raw, err = at, araw, nil
			case client.IsCode(aerr, axp.CodeNotFound):
				err = aerr // the exchange has no such task: say so rather than that no token opens it
			}
		}
	}
	if err != nil {
		return err
	}
	if o.Export.Enabled() {
		return o.Export.Write(o.IO, raw)
	}
	return WriteTask(o.IO, t)
}

// CompleteTaskIDs completes task ids from the saved buyer tokens.
func CompleteTaskIDs(f *cmdutil.Factory) func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
	return func(c *cobra.Command, args []string, prefix string) ([]string, cobra.ShellCompDirective) {
		if len(args) > 0 {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		creds, err := f.ExchangeCredentials()
		if err != nil {
			return nil, cobra.ShellCompDirectiveError
		}
		return creds.TaskIDs(), cobra.ShellCompDirectiveNoFileComp
	}
}
