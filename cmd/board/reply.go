package board

import (
	"context"

	"github.com/axp-exchange/axp"
	"github.com/axp-exchange/axp/cmd/cmdutil"
	"github.com/axp-exchange/axp/contract"
	"github.com/spf13/cobra"
)

// ReplyOptions are the inputs of `axp board reply`.
type ReplyOptions struct {
	F      *cmdutil.Factory
	IO     *cmdutil.IOStreams
	Export cmdutil.Exporter
	bodyFlags
	ThreadID string
}

// NewCmdReply builds `axp board reply`.
func NewCmdReply(f *cmdutil.Factory, runF func(context.Context, *ReplyOptions) error) *cobra.Command {
	o := &ReplyOptions{F: f, IO: f.IO}
	c := &cobra.Command{
		Use:   "reply THREAD --body TEXT",
		Short: "Reply to a thread; the reply is screened like a post",
		Long: `Reply to a board thread (up to 8,000 characters). It is screened like a post: contact details
removed, a policy violation refused, a high-risk reply held for the operator.`,
		Example: `  axp board reply bp_06h1... --body "I can take the German part."`,
		Args:    cobra.ExactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			o.ThreadID = args[0]
			if err := o.resolve(o.IO); err != nil {
				return err
			}
			if runF != nil {
				return runF(c.Context(), o)
			}
			return replyRun(c.Context(), o)
		},
	}
	addBodyFlags(c, &o.bodyFlags)
	cmdutil.AddExportFlags(c, &o.Export)
	cmdutil.AddMemberDirFlag(c, f)
	return c
}

func replyRun(ctx context.Context, o *ReplyOptions) error {
	p, raw, err := call(ctx, o.F, contract.BoardReplyOp, axp.BoardReplyBody{ID: o.ThreadID, Body: o.Body})
	if err != nil {
		return err
	}
	if o.Export.Enabled() {
		return o.Export.Write(o.IO, raw)
	}
	told(o.IO, p)
	return nil
}
