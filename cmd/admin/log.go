package admin

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/axp-exchange/axp"
	"github.com/axp-exchange/axp/client"
	"github.com/axp-exchange/axp/cmd/cmdutil"
	"github.com/cli/go-gh/v2/pkg/tableprinter"
	"github.com/spf13/cobra"
)

// LogOptions are the inputs of `axp admin log`.
type LogOptions struct {
	F      *cmdutil.Factory
	IO     *cmdutil.IOStreams
	Export cmdutil.Exporter
	Level  string
	Source string
	Limit  int
}

// NewCmdLog builds `axp admin log`.
func NewCmdLog(f *cmdutil.Factory, runF func(context.Context, *LogOptions) error) *cobra.Command {
	o := &LogOptions{F: f, IO: f.IO}
	c := &cobra.Command{
		Use:   "log",
		Short: "Read the application log",
		Args:  cobra.NoArgs,
		RunE: func(c *cobra.Command, args []string) error {
			if err := oneOf("--level", o.Level, allowed(client.AdminLog, "level")); err != nil {
				return err
			}
			if o.Limit < 0 || o.Limit > 5000 {
				return cmdutil.Usagef("--limit must be 1 to 5000")
			}
			if runF != nil {
				return runF(c.Context(), o)
			}
			return logRun(c.Context(), o)
		},
	}
	c.Flags().StringVar(&o.Level, "level", "", "minimum level: error, warn, info (default) or debug")
	c.Flags().StringVar(&o.Source, "source", "", "source prefix, e.g. http or store")
	c.Flags().IntVarP(&o.Limit, "limit", "L", 0, "at most this many entries (default 200)")
	cmdutil.AddExportFlags(c, &o.Export)
	return c
}

func logRun(ctx context.Context, o *LogOptions) error {
	in := axp.LogQuery{Level: o.Level, Source: o.Source}
	if o.Limit > 0 {
		in.Limit = o.Limit
	}
	l, raw, err := call(ctx, o.F, client.AdminLog, in)
	if err != nil {
		return err
	}
	if o.Export.Enabled() {
		return o.Export.Write(o.IO, raw)
	}
	return writeLog(o.IO, l.Entries)
}

func writeLog(s *cmdutil.IOStreams, entries []axp.LogEntry) error {
	cs := s.ColorScheme()
	tp := cmdutil.Table(s)
	tp.AddHeader([]string{"TIME", "LEVEL", "SOURCE", "MESSAGE", "TRACE"})
	for _, e := range entries {
		tp.AddField(stamp(s, e.Time), tableprinter.WithColor(cs.Gray))
		lvl := e.Level
		switch strings.ToLower(lvl) {
		case "error":
			tp.AddField(lvl, tableprinter.WithColor(cs.Red))
		case "warn":
			tp.AddField(lvl, tableprinter.WithColor(cs.Yellow))
		default:
			tp.AddField(lvl)
		}
		tp.AddField(e.Source)
		tp.AddField(strings.TrimSpace(e.Message + " " + attrs(e.Attrs)))
		tp.AddField(e.TraceID, tableprinter.WithColor(cs.Gray))
		tp.EndRow()
	}
	return tp.Render()
}

func stamp(s *cmdutil.IOStreams, t time.Time) string {
	if s.StdoutTTY {
		return t.Local().Format("01-02 15:04:05")
	}
	return t.UTC().Format(time.RFC3339Nano)
}

func attrs(m map[string]any) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, 0, len(keys))
	for _, k := range keys {
		parts = append(parts, fmt.Sprintf("%s=%v", k, m[k]))
	}
	return strings.Join(parts, " ")
}
