package catalog

import (
	"context"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/axp-exchange/axp"
	"github.com/axp-exchange/axp/client"
	"github.com/axp-exchange/axp/cmd/cmdutil"
	"github.com/axp-exchange/axp/contract"
	"github.com/spf13/cobra"
)

// ServicesOptions are the inputs of `axp services`.
type ServicesOptions struct {
	F      *cmdutil.Factory
	IO     *cmdutil.IOStreams
	Export cmdutil.Exporter
}

// NewCmdServices builds `axp services`.
func NewCmdServices(f *cmdutil.Factory, runF func(context.Context, *ServicesOptions) error) *cobra.Command {
	o := &ServicesOptions{F: f, IO: f.IO}
	c := &cobra.Command{
		Use:   "services",
		Short: "List the services on offer, their params and catalog prices",
		Args:  cobra.NoArgs,
		RunE: func(c *cobra.Command, args []string) error {
			if runF != nil {
				return runF(c.Context(), o)
			}
			return servicesRun(c.Context(), o)
		},
	}
	cmdutil.AddExportFlags(c, &o.Export)
	return c
}

func servicesRun(ctx context.Context, o *ServicesOptions) error {
	l, raw, err := client.Call(ctx, o.F.Client(""), contract.ListServices, contract.NoInput{})
	if err != nil {
		return err
	}
	if o.Export.Enabled() {
		return o.Export.Write(o.IO, raw)
	}
	onOffer := map[string]axp.OnOffer{}
	for _, x := range l.OnOffer {
		onOffer[x.TaskType] = x
	}
	cs := o.IO.ColorScheme()
	tp := cmdutil.Table(o.IO)
	tp.AddHeader([]string{"TYPE", "NAME", "CATALOG PRICE", "ETA", "SELLERS", "PARAMS"})
	for _, s := range l.Services {
		tp.AddField(s.Type, cmdutil.WithColor(cs.Bold))
		tp.AddField(s.Name)
		tp.AddField(s.Pricing.Text)
		tp.AddField(strconv.Itoa(s.ETAMinutes) + o.IO.OnTTY(" min"))
		tp.AddField(strconv.Itoa(onOffer[s.Type].Providers))
		tp.AddField(paramNames(s.Params))
		tp.EndRow()
	}
	var extra []axp.OnOffer
	for _, x := range l.OnOffer {
		if !x.InCatalog {
			extra = append(extra, x)
		}
	}
	sort.Slice(extra, func(i, j int) bool { return extra[i].TaskType < extra[j].TaskType })
	for _, x := range extra {
		tp.AddField(x.TaskType, cmdutil.WithColor(cs.Bold))
		tp.AddField("(not in the catalog)")
		from := ""
		if x.FromPriceUSD != nil {
			from = "from " + x.FromPriceUSD.Display()
		}
		tp.AddField(from)
		eta := ""
		if x.FastestETAMinutes != nil {
			eta = strconv.Itoa(*x.FastestETAMinutes) + o.IO.OnTTY(" min")
		}
		tp.AddField(eta)
		tp.AddField(strconv.Itoa(x.Providers))
		tp.AddField("")
		tp.EndRow()
	}
	return tp.Render()
}

func paramNames(ps []axp.Param) string {
	var out []string
	for _, p := range ps {
		n := p.Name
		if p.Required {
			n += "*"
		}
		out = append(out, n)
	}
	return strings.Join(out, " ")
}

func paramsText(p map[string]any) string {
	keys := make([]string, 0, len(p))
	for k := range p {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var parts []string
	for _, k := range keys {
		parts = append(parts, fmt.Sprintf("%s=%v", k, p[k]))
	}
	return strings.Join(parts, " ")
}
