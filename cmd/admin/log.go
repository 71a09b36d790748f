package admin

import (
	"context"
	"strings"
	"time"

	"github.com/axp-exchange/axp"
	"github.com/axp-exchange/axp/cmd/cmdutil"
	"github.com/axp-exchange/axp/contract"
	"github.com/axp-exchange/axp/protocol"
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
	// Follow keeps polling and prints new entries as they come, oldest first, every Interval.
	Follow   bool
	Interval time.Duration
}

// NewCmdLog builds `axp admin log`.
func NewCmdLog(f *cmdutil.Factory, runF func(context.Context, *LogOptions) error) *cobra.Command {
	o := &LogOptions{F: f, IO: f.IO}
	c := &cobra.Command{
		Use:   "log",
		Short: "Read the application log (newest first), or follow it",
		Long: `Read the application log, newest first. With --follow (-f), print the last entries oldest
first and then each new entry as it is written, until interrupted; the follower's own reads of
the log are left out.`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, args []string) error {
			if err := oneOf("--level", o.Level, allowed(contract.AdminLog, "level")); err != nil {
				return err
			}
			if o.Limit < 0 || o.Limit > 5000 {
				return cmdutil.Usagef("--limit must be 1 to 5000")
			}
			if o.Follow && o.Export.Enabled() {
				return cmdutil.Usagef("--follow prints lines as they come; it cannot be used with --json, --jq or --template")
			}
			if o.Interval <= 0 {
				return cmdutil.Usagef("--interval must be positive")
			}
			if runF != nil {
				return runF(c.Context(), o)
			}
			return logRun(c.Context(), o)
		},
	}
	c.Flags().StringVar(&o.Level, "level", "", "minimum level: error, warn, info (default) or debug")
	c.Flags().StringVar(&o.Source, "source", "", "source prefix, e.g. http or store")
	c.Flags().IntVarP(&o.Limit, "limit", "L", 0, "at most this many entries (default 200; 20 to start --follow)")
	c.Flags().BoolVarP(&o.Follow, "follow", "f", false, "keep printing new entries as they are written")
	c.Flags().DurationVar(&o.Interval, "interval", 2*time.Second, "with --follow: time between reads")
	cmdutil.AddExportFlags(c, &o.Export)
	return c
}

func logRun(ctx context.Context, o *LogOptions) error {
	in := axp.LogQuery{Level: o.Level, Source: o.Source}
	if o.Limit > 0 {
		in.Limit = o.Limit
	}
	if o.Follow {
		return followLog(ctx, o, in)
	}
	l, raw, err := call(ctx, o.F, contract.AdminLog, in)
	if err != nil {
		return err
	}
	if o.Export.Enabled() {
		return o.Export.Write(o.IO, raw)
	}
	stop, err := o.F.StartPager()
	if err != nil {
		return err
	}
	defer stop()
	return writeLog(o.IO, l.Entries)
}

// followLog prints the newest entries oldest first, then new ones as they come, until ctx ends.
func followLog(ctx context.Context, o *LogOptions, in axp.LogQuery) error {
	if in.Limit == 0 {
		in.Limit = 20
	}
	var last time.Time
	seen := map[string]bool{} // the entries at time last already printed
	wait := time.NewTimer(0)
	defer wait.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-wait.C:
		}
		l, _, err := call(ctx, o.F, contract.AdminLog, in)
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			return err
		}
		var fresh []axp.LogEntry
		for i := len(l.Entries) - 1; i >= 0; i-- { // the answer is newest first
			e := l.Entries[i]
			k := e.Time.String() + e.Source + e.Message + e.TraceID
			if e.Time.Before(last) || (e.Time.Equal(last) && seen[k]) || ownRead(e) {
				continue
			}
			if e.Time.After(last) {
				last, seen = e.Time, map[string]bool{}
			}
			seen[k] = true
			fresh = append(fresh, e)
		}
		if len(fresh) > 0 {
			if err := writeLog(o.IO, fresh); err != nil {
				return err
			}
		}
		in.Limit = 200 // after the start, read enough to miss nothing between two reads
		wait.Reset(o.Interval)
	}
}

// ownRead reports whether e is the request log of a read of the log itself (a follower's poll).
func ownRead(e axp.LogEntry) bool {
	return e.Source == "http" && e.Attrs["route"] == "GET /api/admin/log"
}

func writeLog(s *cmdutil.IOStreams, entries []axp.LogEntry) error {
	cs := s.ColorScheme()
	tp := cmdutil.Table(s)
	tp.AddHeader([]string{"TIME", "LEVEL", "SOURCE", "MESSAGE", "TRACE"})
	for _, e := range entries {
		tp.AddField(stamp(s, e.Time), cmdutil.WithColor(cs.Gray))
		lvl := e.Level
		switch strings.ToLower(lvl) {
		case "error":
			tp.AddField(lvl, cmdutil.WithColor(cs.Red))
		case "warn":
			tp.AddField(lvl, cmdutil.WithColor(cs.Yellow))
		default:
			tp.AddField(lvl)
		}
		tp.AddField(e.Source)
		tp.AddField(strings.TrimSpace(e.Message + " " + attrs(e.Attrs)))
		tp.AddField(e.TraceID, cmdutil.WithColor(cs.Gray))
		tp.EndRow()
	}
	return tp.Render()
}

func stamp(s *cmdutil.IOStreams, t time.Time) string {
	if s.StdoutTTY {
		return t.Local().Format(cmdutil.TimeLayout)
	}
	return t.UTC().Format(time.RFC3339Nano)
}

func attrs(m map[string]any) string { return protocol.Pairs(m) }
