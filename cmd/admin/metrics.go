package admin

import (
	"context"
	"fmt"
	"strconv"

	"github.com/axp-exchange/axp"
	"github.com/axp-exchange/axp/cmd/cmdutil"
	"github.com/axp-exchange/axp/contract"
	"github.com/spf13/cobra"
)

// MetricsOptions are the inputs of `axp admin metrics`.
type MetricsOptions struct {
	F      *cmdutil.Factory
	IO     *cmdutil.IOStreams
	Export cmdutil.Exporter
	Hours  int
}

// NewCmdMetrics builds `axp admin metrics`.
func NewCmdMetrics(f *cmdutil.Factory, runF func(context.Context, *MetricsOptions) error) *cobra.Command {
	o := &MetricsOptions{F: f, IO: f.IO}
	c := &cobra.Command{
		Use:   "metrics",
		Short: "Latency p50/p95 and error rates per route and outbound operation",
		Args:  cobra.NoArgs,
		RunE: func(c *cobra.Command, args []string) error {
			if o.Hours < 0 || o.Hours > 2160 {
				return cmdutil.Usagef("--hours must be 1 to 2160")
			}
			if runF != nil {
				return runF(c.Context(), o)
			}
			return metricsRun(c.Context(), o)
		},
	}
	c.Flags().IntVar(&o.Hours, "hours", 0, "window in hours (default 24)")
	cmdutil.AddExportFlags(c, &o.Export)
	return c
}

func metricsRun(ctx context.Context, o *MetricsOptions) error {
	var in axp.MetricsQuery
	if o.Hours > 0 {
		in.Hours = o.Hours
	}
	m, raw, err := call(ctx, o.F, contract.AdminMetrics, in)
	if err != nil {
		return err
	}
	if o.Export.Enabled() {
		return o.Export.Write(o.IO, raw)
	}
	cs := o.IO.ColorScheme()
	tp := cmdutil.Table(o.IO)
	tp.AddHeader([]string{"KIND", "ROUTE", "COUNT", "ERRORS", "ERROR RATE", "P50 MS", "P95 MS"})
	rows := func(kind string, list []axp.RouteMetrics) {
		for _, r := range list {
			tp.AddField(kind)
			tp.AddField(r.Route)
			tp.AddField(strconv.FormatInt(r.Count, 10))
			tp.AddField(strconv.FormatInt(r.Errors, 10))
			rate := strconv.FormatFloat(r.ErrorRate, 'f', -1, 64)
			if o.IO.StdoutTTY {
				rate = fmt.Sprintf("%.1f%%", r.ErrorRate*100)
				if r.ErrorRate > 0.05 {
					rate = cs.Red(rate)
				}
			}
			tp.AddField(rate)
			tp.AddField(strconv.FormatFloat(r.P50Millis, 'f', 1, 64))
			tp.AddField(strconv.FormatFloat(r.P95Millis, 'f', 1, 64))
			tp.EndRow()
		}
	}
	rows("route", m.Routes)
	rows("outbound", m.Outbound)
	if o.IO.StdoutTTY {
		fmt.Fprintf(o.IO.ErrOut, "Last %d h (since %s)\n", m.Hours, m.Since.Local().Format(cmdutil.TimeLayout))
	}
	return tp.Render()
}
