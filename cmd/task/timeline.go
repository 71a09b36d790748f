package task

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"time"

	"github.com/axp-exchange/axp"
	"github.com/axp-exchange/axp/cmd/cmdutil"
	"github.com/axp-exchange/axp/contract"
	"github.com/axp-exchange/axp/protocol"
	"github.com/spf13/cobra"
)

// TimelineOptions are the inputs of `axp task timeline`.
type TimelineOptions struct {
	F      *cmdutil.Factory
	IO     *cmdutil.IOStreams
	Export cmdutil.Exporter
	buyerFlags
	TaskID string
}

// NewCmdTimeline builds `axp task timeline`.
func NewCmdTimeline(f *cmdutil.Factory, runF func(context.Context, *TimelineOptions) error) *cobra.Command {
	o := &TimelineOptions{F: f, IO: f.IO}
	c := &cobra.Command{
		Use:               "timeline TASK",
		Short:             "Show every event of a task in order",
		Args:              cobra.ExactArgs(1),
		ValidArgsFunction: CompleteTaskIDs(f),
		RunE: func(c *cobra.Command, args []string) error {
			o.TaskID = args[0]
			if runF != nil {
				return runF(c.Context(), o)
			}
			return timelineRun(c.Context(), o)
		},
	}
	addTokenFlag(c, &o.buyerFlags)
	cmdutil.AddExportFlags(c, &o.Export)
	return c
}

func timelineRun(ctx context.Context, o *TimelineOptions) error {
	// The catalog declares the timeline a free-form result; the CLI reads it as an axp.Timeline.
	_, raw, err := asBuyer(ctx, o.F, o.TaskID, o.Token, contract.GetTimeline, taskRef(o.TaskID))
	if err != nil {
		return err
	}
	var tl axp.Timeline
	if err := json.Unmarshal(raw, &tl); err != nil {
		return fmt.Errorf("decode the get_timeline answer: %w", err)
	}
	if o.Export.Enabled() {
		return o.Export.Write(o.IO, raw)
	}
	cs := o.IO.ColorScheme()
	tp := cmdutil.Table(o.IO)
	tp.AddHeader([]string{"#", "TIME", "EVENT", "BY", "STATUS", "DETAIL"})
	for _, ev := range tl.Events {
		tp.AddField(strconv.FormatUint(ev.Seq, 10))
		at := ev.At.UTC().Format(time.RFC3339)
		if o.IO.StdoutTTY {
			at = ev.At.Local().Format(cmdutil.TimeLayout)
		}
		tp.AddField(at, cmdutil.WithColor(cs.Gray))
		tp.AddField(ev.Kind, cmdutil.WithColor(cs.Bold))
		tp.AddField(ev.Actor)
		tp.AddField(ev.Status, cmdutil.WithColor(cs.Status))
		tp.AddField(details(ev.Detail))
		tp.EndRow()
	}
	return tp.Render()
}

func details(d map[string]any) string { return protocol.Pairs(d) }
