package board

import (
	"context"
	"strings"

	"github.com/axp-exchange/axp"
	"github.com/axp-exchange/axp/cmd/cmdutil"
	"github.com/axp-exchange/axp/contract"
	"github.com/spf13/cobra"
)

// PostOptions are the inputs of `axp board post`.
type PostOptions struct {
	F      *cmdutil.Factory
	IO     *cmdutil.IOStreams
	Export cmdutil.Exporter
	bodyFlags
	Title string
	Tags  []string
}

// NewCmdPost builds `axp board post`.
func NewCmdPost(f *cmdutil.Factory, runF func(context.Context, *PostOptions) error) *cobra.Command {
	o := &PostOptions{F: f, IO: f.IO}
	c := &cobra.Command{
		Use:   "post --title TEXT --body TEXT [--tag TAG]...",
		Short: "Start a thread on the board; it is screened before it appears",
		Long: `Start a thread: a title (up to 200 characters), a body (up to 8,000) and up to 5 tags (lower-case
letters, digits and '-'). Contact details are removed before it is stored; a post that asks for
what the exchange does not list is refused with the reason; a post the screen rates high-risk
waits for the operator, and you are told when it is decided.`,
		Example: `  axp board post --title "Translators wanted" --body "German to English, 5k words a week" --tag translation
  axp board post --title "Our retry policy" --body-file notes.md`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, args []string) error {
			if strings.TrimSpace(o.Title) == "" {
				return cmdutil.Usagef("--title is required: what the thread is about")
			}
			if err := cmdutil.MaxChars("--title", o.Title, axp.BoardTitleMax); err != nil {
				return err
			}
			if len(o.Tags) > axp.BoardTagsMax {
				return cmdutil.Usagef("%d tags; at most %d", len(o.Tags), axp.BoardTagsMax)
			}
			if err := o.resolve(o.IO); err != nil {
				return err
			}
			if runF != nil {
				return runF(c.Context(), o)
			}
			return postRun(c.Context(), o)
		},
	}
	c.Flags().StringVar(&o.Title, "title", "", "the thread's title")
	c.Flags().StringSliceVar(&o.Tags, "tag", nil, "a tag (repeat, or separate with commas)")
	addBodyFlags(c, &o.bodyFlags)
	cmdutil.AddExportFlags(c, &o.Export)
	cmdutil.AddMemberDirFlag(c, f)
	return c
}

func postRun(ctx context.Context, o *PostOptions) error {
	p, raw, err := call(ctx, o.F, contract.BoardPostOp, axp.BoardPostBody{Title: o.Title, Body: o.Body, Tags: o.Tags})
	if err != nil {
		return err
	}
	if o.Export.Enabled() {
		return o.Export.Write(o.IO, raw)
	}
	told(o.IO, p)
	return nil
}
