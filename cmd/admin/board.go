package admin

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

func newBoardCmd(f *cmdutil.Factory) *cobra.Command {
	c := &cobra.Command{
		Use:   "board",
		Short: "The members' board: posts waiting for you (pending), approve, hide, list",
	}
	c.AddCommand(NewCmdBoardList(f, "pending", nil), NewCmdBoardList(f, "list", nil), NewCmdBoardApprove(f, nil), NewCmdBoardHide(f, nil))
	return c
}

var boardStatuses = allowed(contract.AdminBoard, "status")

// BoardListOptions are the inputs of `axp admin board pending` and `axp admin board list`.
type BoardListOptions struct {
	F      *cmdutil.Factory
	IO     *cmdutil.IOStreams
	Export cmdutil.Exporter
	Status string
	Limit  int
	Now    func() time.Time
}

// NewCmdBoardList builds `axp admin board pending` (the queue of posts the screen held) or, with
// use "list", `axp admin board list --status`.
func NewCmdBoardList(f *cmdutil.Factory, use string, runF func(context.Context, *BoardListOptions) error) *cobra.Command {
	o := &BoardListOptions{F: f, IO: f.IO, Now: time.Now}
	c := &cobra.Command{
		Use:   use,
		Short: "List board posts by status (default: all)",
		Args:  cobra.NoArgs,
		RunE: func(c *cobra.Command, args []string) error {
			if use == "pending" {
				o.Status = axp.BoardPending
			} else if o.Status == "" {
				o.Status = "all"
			}
			if err := oneOf("--status", o.Status, boardStatuses); err != nil {
				return err
			}
			if runF != nil {
				return runF(c.Context(), o)
			}
			return boardListRun(c.Context(), o)
		},
	}
	if use == "pending" {
		c.Short = "Posts the screen held as high-risk, oldest first: approve or hide each"
	} else {
		c.Flags().StringVar(&o.Status, "status", "", "pending, visible, hidden or all (default)")
		c.RegisterFlagCompletionFunc("status", cobra.FixedCompletions(boardStatuses, cobra.ShellCompDirectiveNoFileComp))
	}
	c.Flags().IntVarP(&o.Limit, "limit", "L", 0, "at most this many posts, 1 to 1000 (default 100)")
	cmdutil.AddExportFlags(c, &o.Export)
	return c
}

func boardListRun(ctx context.Context, o *BoardListOptions) error {
	if o.Limit < 0 || o.Limit > 1000 {
		return cmdutil.Usagef("--limit must be 1 to 1000")
	}
	l, raw, err := call(ctx, o.F, contract.AdminBoard, axp.BoardAdminQuery{Status: o.Status, Limit: o.Limit})
	if err != nil {
		return err
	}
	if o.Export.Enabled() {
		return o.Export.Write(o.IO, raw)
	}
	if len(l.Posts) == 0 {
		fmt.Fprintf(o.IO.ErrOut, "No %s board posts\n", strings.TrimPrefix(o.Status, "all"))
		return nil
	}
	cs := o.IO.ColorScheme()
	now := o.Now()
	tp := cmdutil.Table(o.IO)
	tp.AddHeader([]string{"ID", "STATUS", "KIND", "THREAD", "AUTHOR", "TEXT", "RISK", "FLAGS", "POSTED"})
	for _, p := range l.Posts {
		text := p.Body
		if p.Title != "" {
			text = p.Title + ": " + p.Body
		}
		risk := 0
		if p.Screening != nil {
			risk = p.Screening.Risk
		}
		tp.AddField(p.ID, cmdutil.WithTruncate(nil))
		tp.AddField(p.Status, cmdutil.WithColor(cs.Status))
		tp.AddField(p.Kind)
		tp.AddField(p.ThreadID, cmdutil.WithTruncate(nil))
		tp.AddField(p.Author.ID)
		tp.AddField(strings.Join(strings.Fields(text), " "))
		tp.AddField(fmt.Sprint(risk))
		tp.AddField(render.ScreeningFlags(p.Screening), cmdutil.WithColor(cs.Yellow))
		tp.AddField(cmdutil.Ago(o.IO, now, p.CreatedAt), cmdutil.WithColor(cs.Gray))
		tp.EndRow()
	}
	return tp.Render()
}

// BoardModerateOptions are the inputs of `axp admin board approve` and `axp admin board hide`.
type BoardModerateOptions struct {
	F      *cmdutil.Factory
	IO     *cmdutil.IOStreams
	Export cmdutil.Exporter
	ID     string
	Note   string
	Hide   bool
}

// NewCmdBoardApprove builds `axp admin board approve`.
func NewCmdBoardApprove(f *cmdutil.Factory, runF func(context.Context, *BoardModerateOptions) error) *cobra.Command {
	o := &BoardModerateOptions{F: f, IO: f.IO}
	c := &cobra.Command{
		Use:   "approve POST [--note TEXT]",
		Short: "Let a pending (or hidden) post appear on the board; its author is told",
		Args:  cobra.ExactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			o.ID = args[0]
			return moderate(c.Context(), o, runF)
		},
	}
	c.Flags().StringVar(&o.Note, "note", "", "a note for the author and the audit trail")
	cmdutil.AddExportFlags(c, &o.Export)
	return c
}

// NewCmdBoardHide builds `axp admin board hide`.
func NewCmdBoardHide(f *cmdutil.Factory, runF func(context.Context, *BoardModerateOptions) error) *cobra.Command {
	o := &BoardModerateOptions{F: f, IO: f.IO, Hide: true}
	c := &cobra.Command{
		Use:   "hide POST --reason TEXT",
		Short: "Hide any board post; its author is told the reason",
		Args:  cobra.ExactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			o.ID = args[0]
			if strings.TrimSpace(o.Note) == "" {
				return cmdutil.Usagef("--reason is required: why the post is hidden (the author reads it)")
			}
			return moderate(c.Context(), o, runF)
		},
	}
	c.Flags().StringVar(&o.Note, "reason", "", "why the post is hidden; its author reads it")
	cmdutil.AddExportFlags(c, &o.Export)
	return c
}

func moderate(ctx context.Context, o *BoardModerateOptions, runF func(context.Context, *BoardModerateOptions) error) error {
	if err := cmdutil.MaxChars("the note", o.Note, 2000); err != nil {
		return err
	}
	if runF != nil {
		return runF(ctx, o)
	}
	var p *axp.BoardPost
	var raw []byte
	var err error
	if o.Hide {
		p, raw, err = call(ctx, o.F, contract.AdminBoardHide, axp.BoardHideBody{ID: o.ID, Reason: o.Note})
	} else {
		p, raw, err = call(ctx, o.F, contract.AdminBoardApprove, axp.BoardApproveBody{ID: o.ID, Note: o.Note})
	}
	if err != nil {
		return err
	}
	if o.Export.Enabled() {
		return o.Export.Write(o.IO, raw)
	}
	verb := "Approved"
	if o.Hide {
		verb = "Hid"
	}
	fmt.Fprintf(o.IO.ErrOut, "✓ %s board %s %s by %s; it is now %s\n", verb, p.Kind, p.ID, p.Author.ID, p.Status)
	return nil
}
