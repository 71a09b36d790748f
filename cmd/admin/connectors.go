package admin

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/axp-exchange/axp"
	"github.com/axp-exchange/axp/cmd/cmdutil"
	"github.com/axp-exchange/axp/contract"
	"github.com/axp-exchange/axp/protocol"
	"github.com/spf13/cobra"
)

func newConnectorsCmd(f *cmdutil.Factory) *cobra.Command {
	c := &cobra.Command{
		Use:   "connectors",
		Short: "Requests for new data sources: list, accept (name and price per call), reject",
		Long: `Requests for connectors to new data sources (POST /api/connectors/request). An accepted
connector waits for its US$10 setup fee (paid by the requester over x402 at its setup URL), then is
a pay-per-call tool at /paid/connectors/NAME.`,
	}
	c.AddCommand(NewCmdConnectorsList(f, nil), NewCmdConnectorAccept(f, nil), NewCmdConnectorReject(f, nil))
	return c
}

var connectorStatuses = allowed(contract.AdminConnectors, "status")

// ConnectorsListOptions are the inputs of `axp admin connectors list`.
type ConnectorsListOptions struct {
	F      *cmdutil.Factory
	IO     *cmdutil.IOStreams
	Export cmdutil.Exporter
	Status string
	Now    func() time.Time
}

// NewCmdConnectorsList builds `axp admin connectors list`.
func NewCmdConnectorsList(f *cmdutil.Factory, runF func(context.Context, *ConnectorsListOptions) error) *cobra.Command {
	o := &ConnectorsListOptions{F: f, IO: f.IO, Now: time.Now}
	c := &cobra.Command{
		Use:   "list [--status pending|accepted|live|rejected]",
		Short: "Connector requests, newest first (default: all)",
		Args:  cobra.NoArgs,
		RunE: func(c *cobra.Command, args []string) error {
			if err := oneOf("--status", o.Status, connectorStatuses); err != nil {
				return err
			}
			if runF != nil {
				return runF(c.Context(), o)
			}
			return connectorsListRun(c.Context(), o)
		},
	}
	c.Flags().StringVar(&o.Status, "status", "", strings.Join(connectorStatuses, ", "))
	c.RegisterFlagCompletionFunc("status", cobra.FixedCompletions(connectorStatuses, cobra.ShellCompDirectiveNoFileComp))
	cmdutil.AddExportFlags(c, &o.Export)
	return c
}

func connectorsListRun(ctx context.Context, o *ConnectorsListOptions) error {
	l, raw, err := call(ctx, o.F, contract.AdminConnectors, axp.ConnectorsQuery{Status: o.Status})
	if err != nil {
		return err
	}
	if o.Export.Enabled() {
		return o.Export.Write(o.IO, raw)
	}
	if len(l.Connectors) == 0 {
		fmt.Fprintf(o.IO.ErrOut, "No %s connector requests\n", o.Status)
		return nil
	}
	cs := o.IO.ColorScheme()
	tp := cmdutil.Table(o.IO)
	tp.AddHeader([]string{"ID", "STATUS", "NAME", "PRICE", "URL", "WANTS", "FLAGGED", "ASKED"})
	for _, cn := range l.Connectors {
		price := ""
		if cn.PriceUSD > 0 {
			price = cn.PriceUSD.Display() + "/call"
		}
		flagged := ""
		if cn.Flagged {
			flagged = strings.Join(cn.Flags, ",")
		}
		tp.AddField(cn.ID, cmdutil.WithTruncate(nil))
		tp.AddField(cn.Status, cmdutil.WithColor(cs.Status))
		tp.AddField(cn.Name)
		tp.AddField(price)
		tp.AddField(cn.URL)
		tp.AddField(strings.Join(strings.Fields(cn.Wants), " "))
		tp.AddField(flagged, cmdutil.WithColor(cs.Yellow))
		tp.AddField(cmdutil.Ago(o.IO, o.Now(), cn.CreatedAt), cmdutil.WithColor(cs.Gray))
		tp.EndRow()
	}
	return tp.Render()
}

// ConnectorAcceptOptions are the inputs of `axp admin connectors accept`.
type ConnectorAcceptOptions struct {
	F           *cmdutil.Factory
	IO          *cmdutil.IOStreams
	Export      cmdutil.Exporter
	ID          string
	Name        string
	Price       string
	Category    string
	Description string
}

// NewCmdConnectorAccept builds `axp admin connectors accept`.
func NewCmdConnectorAccept(f *cmdutil.Factory, runF func(context.Context, *ConnectorAcceptOptions) error) *cobra.Command {
	o := &ConnectorAcceptOptions{F: f, IO: f.IO}
	c := &cobra.Command{
		Use:   "accept ID --name NAME --price USD [--category C] [--description TEXT]",
		Short: "Accept a request: it becomes /paid/connectors/NAME at USD per call once its setup fee is paid",
		Args:  cobra.ExactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			o.ID = args[0]
			if o.Name == "" || o.Price == "" {
				return cmdutil.Usagef("--name and --price are required")
			}
			if runF != nil {
				return runF(c.Context(), o)
			}
			return connectorAcceptRun(c.Context(), o)
		},
	}
	c.Flags().StringVar(&o.Name, "name", "", "the tool's name (lower case, digits, -): /paid/connectors/NAME")
	c.Flags().StringVar(&o.Price, "price", "", "US dollars per call, 0.002 to 0.25")
	c.Flags().StringVar(&o.Category, "category", "", "the listing's category, e.g. market")
	c.Flags().StringVar(&o.Description, "description", "", "what the tool answers, as /paid lists it (default: the request's text)")
	cmdutil.AddExportFlags(c, &o.Export)
	return c
}

func connectorAcceptRun(ctx context.Context, o *ConnectorAcceptOptions) error {
	price, err := protocol.ParseMoney(strings.TrimPrefix(strings.TrimSpace(o.Price), "$"))
	if err != nil || price < axp.MinCallPrice || price > axp.MaxCallPrice {
		return cmdutil.Usagef("--price %q: give US dollars between %s and %s, e.g. 0.01", o.Price,
			axp.MinCallPrice.Display(), axp.MaxCallPrice.Display())
	}
	cn, raw, err := call(ctx, o.F, contract.AdminConnectorAccept, axp.ConnectorAccept{ID: o.ID, Name: o.Name, PriceUSD: price,
		Category: o.Category, Description: o.Description})
	if err != nil {
		return err
	}
	if o.Export.Enabled() {
		return o.Export.Write(o.IO, raw)
	}
	fmt.Fprintf(o.IO.ErrOut, "✓ Accepted %s as %s at %s a call; it goes live once its setup fee (%s) is paid at:\n",
		cn.ID, cn.Path, cn.PriceUSD.Display(), cn.SetupFeeUSD.Display())
	fmt.Fprintln(o.IO.Out, cn.SetupURL)
	return nil
}

// ConnectorRejectOptions are the inputs of `axp admin connectors reject`.
type ConnectorRejectOptions struct {
	F      *cmdutil.Factory
	IO     *cmdutil.IOStreams
	Export cmdutil.Exporter
	ID     string
	Reason string
}

// NewCmdConnectorReject builds `axp admin connectors reject`.
func NewCmdConnectorReject(f *cmdutil.Factory, runF func(context.Context, *ConnectorRejectOptions) error) *cobra.Command {
	o := &ConnectorRejectOptions{F: f, IO: f.IO}
	c := &cobra.Command{
		Use:   "reject ID --reason TEXT",
		Short: "Reject a request with the reason the requester sees",
		Args:  cobra.ExactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			o.ID = args[0]
			if strings.TrimSpace(o.Reason) == "" {
				return cmdutil.Usagef("--reason is required: the requester sees it")
			}
			if runF != nil {
				return runF(c.Context(), o)
			}
			cn, raw, err := call(c.Context(), o.F, contract.AdminConnectorReject, axp.ConnectorReject{ID: o.ID, Reason: o.Reason})
			if err != nil {
				return err
			}
			if o.Export.Enabled() {
				return o.Export.Write(o.IO, raw)
			}
			fmt.Fprintf(o.IO.ErrOut, "✓ Rejected %s: %s\n", cn.ID, cn.Reason)
			return nil
		},
	}
	c.Flags().StringVar(&o.Reason, "reason", "", "why (the requester sees it)")
	cmdutil.AddExportFlags(c, &o.Export)
	return c
}
