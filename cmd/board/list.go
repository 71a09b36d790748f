package board

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/axp-exchange/axp"
	"github.com/axp-exchange/axp/cmd/cmdutil"
	"github.com/axp-exchange/axp/cmd/internal/render"
	"github.com/axp-exchange/axp/contract"
	"github.com/spf13/cobra"
)

// ListOptions are the inputs of `axp board list`.
type ListOptions struct {
	F      *cmdutil.Factory
	IO     *cmdutil.IOStreams
	Export cmdutil.Exporter
	Tag    string
	pageFlags
	Now func() time.Time
}

// NewCmdList builds `axp board list`.
func NewCmdList(f *cmdutil.Factory, runF func(context.Context, *ListOptions) error) *cobra.Command {
	o := &ListOptions{F: f, IO: f.IO, Now: time.Now}
	c := &cobra.Command{
		Use:     "list",
		Aliases: []string{"ls"},
		Short:   "List the board's threads, newest first",
		Long: `List a page of the board's threads, newest first, with --tag only those with the tag. When
more follow, the command that lists the next page is printed on stderr (--cursor).`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, args []string) error {
			if err := o.check(); err != nil {
				return err
			}
			if runF != nil {
				return runF(c.Context(), o)
			}
			return listRun(c.Context(), o)
		},
	}
	c.Flags().StringVar(&o.Tag, "tag", "", "only threads with this tag")
	addPageFlags(c, &o.pageFlags, contract.BoardListOp, "thread", "threads", axp.BoardPageDefault)
	cmdutil.AddExportFlags(c, &o.Export)
	cmdutil.AddMemberDirFlag(c, f)
	return c
}

func listRun(ctx context.Context, o *ListOptions) error {
	l, raw, err := call(ctx, o.F, contract.BoardListOp, axp.BoardListQuery{Tag: o.Tag, Cursor: o.Cursor, Limit: o.Limit})
	if err != nil {
		return err
	}
	if o.Export.Enabled() {
		return o.Export.Write(o.IO, raw)
	}
	if len(l.Threads) == 0 {
		fmt.Fprintln(o.IO.ErrOut, "No threads on the board")
		return nil
	}
	cs := o.IO.ColorScheme()
	now := o.Now()
	tp := cmdutil.Table(o.IO)
	tp.AddHeader([]string{"ID", "TITLE", "TAGS", "AUTHOR", "REPLIES", "FLAGS", "POSTED"})
	for _, p := range l.Threads {
		tp.AddField(p.ID, cmdutil.WithTruncate(nil))
		tp.AddField(oneLine(p.Title), cmdutil.WithColor(cs.Bold))
		tp.AddField(strings.Join(p.Tags, ","))
		tp.AddField(p.Author.Name)
		tp.AddField(fmt.Sprint(p.Replies))
		tp.AddField(render.ScreeningFlags(p.Screening), cmdutil.WithColor(cs.Yellow))
		tp.AddField(cmdutil.Ago(o.IO, now, p.CreatedAt), cmdutil.WithColor(cs.Gray))
		tp.EndRow()
	}
	if err := tp.Render(); err != nil {
		return err
	}
	if l.NextCursor != "" {
		more := "axp board list --cursor " + l.NextCursor
		if o.Tag != "" {
			more += " --tag " + o.Tag
		}
		fmt.Fprintf(o.IO.ErrOut, "More: %s\n", more)
	}
	return nil
}
