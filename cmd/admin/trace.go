package admin

import (
	"context"
	"fmt"

	"github.com/axp-exchange/axp"
	"github.com/axp-exchange/axp/cmd/cmdutil"
	"github.com/axp-exchange/axp/contract"
	"github.com/spf13/cobra"
)

// TraceOptions are the inputs of `axp admin trace`.
type TraceOptions struct {
	F       *cmdutil.Factory
	IO      *cmdutil.IOStreams
	Export  cmdutil.Exporter
	TraceID string
}

// NewCmdTrace builds `axp admin trace`.
func NewCmdTrace(f *cmdutil.Factory, runF func(context.Context, *TraceOptions) error) *cobra.Command {
	o := &TraceOptions{F: f, IO: f.IO}
	c := &cobra.Command{
		Use:   "trace TRACE_ID",
		Short: "Show every log line and audit record caused by one trace id",
		Long: `Show every log line and audit record caused by one request. Every answer of the exchange
carries its trace id in the X-Trace-Id header (and error bodies in trace_id).`,
		Args: cobra.ExactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			o.TraceID = args[0]
			if runF != nil {
				return runF(c.Context(), o)
			}
			return traceRun(c.Context(), o)
		},
	}
	cmdutil.AddExportFlags(c, &o.Export)
	return c
}

func traceRun(ctx context.Context, o *TraceOptions) error {
	t, raw, err := call(ctx, o.F, contract.AdminTrace, axp.TraceQuery{TraceID: o.TraceID})
	if err != nil {
		return err
	}
	if o.Export.Enabled() {
		return o.Export.Write(o.IO, raw)
	}
	if len(t.Log) == 0 && len(t.Audit) == 0 {
		fmt.Fprintf(o.IO.ErrOut, "Nothing recorded under trace %s\n", o.TraceID)
		return nil
	}
	cs := o.IO.ColorScheme()
	if o.IO.StdoutTTY {
		fmt.Fprintln(o.IO.Out, cs.Bold(fmt.Sprintf("Log (%d)", len(t.Log))))
	}
	if err := writeLog(o.IO, t.Log); err != nil {
		return err
	}
	if o.IO.StdoutTTY {
		fmt.Fprintln(o.IO.Out, "\n"+cs.Bold(fmt.Sprintf("Audit (%d)", len(t.Audit))))
	}
	return writeAudit(o.IO, t.Audit)
}
