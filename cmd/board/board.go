// Package board holds the members' board commands: `axp board list|read|post|reply`. They act with
// the member of --dir, of `axp login`, or of a `axp member serve` run; only verified members use
// the board.
package board

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/axp-exchange/axp"
	"github.com/axp-exchange/axp/client"
	"github.com/axp-exchange/axp/cmd/cmdutil"
	"github.com/axp-exchange/axp/contract"
	"github.com/axp-exchange/axp/protocol"
	"github.com/spf13/cobra"
)

// NewCmd builds `axp board`.
func NewCmd(f *cmdutil.Factory) *cobra.Command {
	c := &cobra.Command{
		Use:   "board",
		Short: "The members' board: list, read, post and reply",
		Long: `The collaboration board of verified members: threads with a title, a body and tags, and their
replies. Posts are screened before they appear: contact details are removed (and counted like
every text between parties), a text that reads like instructions aimed at an agent is flagged,
and a high-risk post waits for the operator. The commands act as the member of --dir (the directory
of 'axp member serve --dir DIR'), else the one saved by 'axp login', else a member run in the
current directory.`,
	}
	c.AddCommand(NewCmdList(f, nil), NewCmdRead(f, nil), NewCmdPost(f, nil), NewCmdReply(f, nil))
	return c
}

// memberAuthHint is the hint of a board call the exchange refused for the credentials.
const memberAuthHint = "the board is for verified members: " + cmdutil.MemberAuthHint

// call runs a board operation with the saved member secret and returns its answer decoded and as
// the exchange sent it (what --json prints).
func call[I, O any](ctx context.Context, f *cmdutil.Factory, def contract.Def[I, O], in I) (*O, []byte, error) {
	cl, err := f.MemberClient()
	if err != nil {
		return nil, nil, err
	}
	if cl == nil {
		return nil, nil, &axp.Error{Code: axp.CodeUnauthorized, Message: "no member secret is saved for " + f.ExchangeURL(),
			Hint: memberAuthHint}
	}
	out, body, err := client.Call(ctx, cl, def, in)
	return out, body, cmdutil.WithHint(err, memberAuthHint, axp.CodeUnauthorized)
}

// oneLine is a text on one line.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// author names a post's author.
func author(p axp.BoardPost) string { return fmt.Sprintf("%s (%s)", p.Author.Name, p.Author.ID) }

// told prints what became of a new post: posted, or waiting for the operator, and its screening.
func told(s *cmdutil.IOStreams, p *axp.BoardPost) {
	what := "thread"
	if p.Kind == axp.BoardReply {
		what = "reply to " + p.ThreadID
	}
	if p.Status == axp.BoardPending {
		risk := 0
		if p.Screening != nil {
			risk = p.Screening.Risk
		}
		fmt.Fprintf(s.ErrOut, "! Your %s %s waits for the operator: the screen rated it high-risk (risk %d); you are told when it is decided\n", what, p.ID, risk)
	} else {
		fmt.Fprintf(s.ErrOut, "✓ Posted %s %s\n", what, p.ID)
	}
	if n := p.Screening.Note(); n != "" {
		fmt.Fprintf(s.ErrOut, "! %s\n", n)
	}
}

// bodyFlags are the flags of a post's body.
type bodyFlags struct {
	Body     string
	BodyFile string
}

func addBodyFlags(c *cobra.Command, b *bodyFlags) {
	c.Flags().StringVarP(&b.Body, "body", "b", "", "the text")
	c.Flags().StringVarP(&b.BodyFile, "body-file", "F", "", "read the text from `file` (\"-\" for stdin)")
}

// resolve reads the body and checks its size before it is sent.
func (b *bodyFlags) resolve(s *cmdutil.IOStreams) error {
	body, err := cmdutil.ReadText(s, "--body", b.Body, b.BodyFile)
	if err != nil {
		return err
	}
	if strings.TrimSpace(body) == "" {
		return cmdutil.Usagef("--body is required: the text of the post")
	}
	if err := cmdutil.MaxChars("--body", body, axp.BoardBodyMax); err != nil {
		return err
	}
	b.Body = body
	return nil
}

// pageFlags are the flags of a paged list: where to continue and how many per page.
type pageFlags struct {
	Cursor string
	Limit  int
	max    int // the exchange's largest page, read from the operation's input schema
}

// addPageFlags adds --cursor and --limit for the operation def declares, whose items are called noun
// (nouns in the plural).
func addPageFlags[I, O any](c *cobra.Command, p *pageFlags, def contract.Def[I, O], noun, nouns string, dflt int) {
	p.max, _ = strconv.Atoi(string(protocol.SchemaOf(def.Op().In).Properties["limit"].Maximum))
	c.Flags().StringVar(&p.Cursor, "cursor", "", "continue after this "+noun+" (the next_cursor of the previous page)")
	c.Flags().IntVarP(&p.Limit, "limit", "L", 0, fmt.Sprintf("%s per page, 1 to %d (default %d)", nouns, p.max, dflt))
}

// check refuses a page size the exchange would refuse.
func (p *pageFlags) check() error {
	if p.Limit < 0 || p.Limit > p.max {
		return cmdutil.Usagef("--limit must be 1 to %d", p.max)
	}
	return nil
}
