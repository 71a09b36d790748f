// Package talk holds `axp talk`: a conversation with the exchange's assistant, which shapes a
// job, lists it and assigns the offer the buyer agrees to.
package talk

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/axp-exchange/axp"
	"github.com/axp-exchange/axp/client"
	"github.com/axp-exchange/axp/cmd/cmdutil"
	"github.com/axp-exchange/axp/contract"
	"github.com/spf13/cobra"
)

// Options are the inputs of `axp talk`.
type Options struct {
	F      *cmdutil.Factory
	IO     *cmdutil.IOStreams
	Export cmdutil.Exporter
	// Message is the one message to send; empty: read messages from standard input.
	Message string
	// New starts a new conversation instead of continuing the saved one.
	New bool
}

// NewCmd builds `axp talk`.
func NewCmd(f *cmdutil.Factory, runF func(context.Context, *Options) error) *cobra.Command {
	o := &Options{F: f, IO: f.IO}
	c := &cobra.Command{
		Use:   "talk [MESSAGE]",
		Short: "Talk to the exchange's assistant: it shapes the job, lists it and assigns an offer",
		Long: `Talk to the exchange's assistant. It asks what you need, one question at a time (the kind of
job, what it is about, your budget and deadline), shows the catalog price, lists the job when you
say yes, presents the offers with the one it recommends, and assigns the one you agree to.

With a MESSAGE, one message is sent and the reply printed; without, each line of standard input
is a message (on a terminal, an interactive conversation; "quit" ends it). The conversation and
the token that continues it are kept, so the next 'axp talk' continues it; --new starts another.
A saved member secret makes the conversation yours as a buyer member; the buyer token of a job it
lists is saved like 'axp task create' saves it.`,
		Example: `  axp talk "I need a 10 second video of waves at night"
  axp talk '$5'
  axp talk yes
  axp talk --new`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			if len(args) == 1 {
				o.Message = strings.TrimSpace(args[0])
				if o.Message == "" {
					return cmdutil.Usagef("the message is empty")
				}
			}
			if runF != nil {
				return runF(c.Context(), o)
			}
			return run(c.Context(), o)
		},
	}
	c.Flags().BoolVar(&o.New, "new", false, "start a new conversation")
	cmdutil.AddExportFlags(c, &o.Export)
	return c
}

// state is the conversation `axp talk` continues, per exchange.
type state struct {
	Exchange       string `json:"exchange"`
	ConversationID string `json:"conversation_id"`
	Token          string `json:"token,omitempty"`
	Member         bool   `json:"member,omitempty"`
}

func statePath(f *cmdutil.Factory) string {
	dir := f.ConfigDir()
	if dir == "" {
		return ""
	}
	return filepath.Join(dir, "talk.json")
}

func loadState(f *cmdutil.Factory) state {
	var s state
	if p := statePath(f); p != "" {
		if b, err := os.ReadFile(p); err == nil && json.Unmarshal(b, &s) == nil &&
			cmdutil.NormalizeExchange(s.Exchange) == cmdutil.NormalizeExchange(f.ExchangeURL()) {
			return s
		}
	}
	return state{Exchange: f.ExchangeURL()}
}

// saveState keeps the conversation (its token is a credential: the file is 0600).
func saveState(f *cmdutil.Factory, s state) error {
	p := statePath(f)
	if p == "" {
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		return err
	}
	b, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(p, append(b, '\n'), 0o600)
}

func run(ctx context.Context, o *Options) error {
	s := loadState(o.F)
	if o.New {
		s = state{Exchange: o.F.ExchangeURL()}
	}
	member, err := o.F.MemberClient()
	if err != nil {
		return err
	}
	if o.Message != "" {
		return o.send(ctx, &s, member, o.Message)
	}
	in := bufio.NewScanner(o.IO.In)
	in.Buffer(make([]byte, 64<<10), 64<<10)
	if o.IO.StdinTTY {
		fmt.Fprintln(o.IO.ErrOut, "Talking to "+o.F.ExchangeURL()+"'s assistant. Say what you need; \"quit\" ends.")
	}
	for {
		if o.IO.StdinTTY {
			fmt.Fprint(o.IO.ErrOut, "> ")
		}
		if !in.Scan() {
			return in.Err()
		}
		msg := strings.TrimSpace(in.Text())
		switch strings.ToLower(msg) {
		case "":
			continue
		case "quit", "exit", "bye":
			return nil
		}
		if err := o.send(ctx, &s, member, msg); err != nil {
			if !o.IO.StdinTTY {
				return err
			}
			cmdutil.PrintError(o.IO.ErrOut, err)
		}
	}
}

// send sends one message and prints the reply.
func (o *Options) send(ctx context.Context, s *state, member *client.Client, msg string) error {
	c := o.F.Client(s.Token)
	if member != nil && (s.ConversationID == "" || s.Member) {
		c, s.Member = member, true
	}
	// The CLI saves the tokens the answers give, so the assistant need not ask to keep them.
	in := axp.TalkBody{Message: msg, ConversationID: s.ConversationID, KeepsTokens: true}
	r, raw, err := client.Call(ctx, c, contract.Talk, in)
	var e *axp.Error
	if errors.As(err, &e) && e.Code == axp.CodeForbidden && e.Field == "conversation_id" {
		return cmdutil.WithHint(err, "start a new conversation with `axp talk --new`", axp.CodeForbidden)
	}
	if err != nil {
		return err
	}
	s.ConversationID = r.ConversationID
	if r.Token != "" {
		s.Token = r.Token
	}
	if err := saveState(o.F, *s); err != nil {
		return err
	}
	if r.TaskID != "" && r.ContinueWith == axp.ContinueBuyerToken && r.Token != "" {
		if err := o.F.SaveBuyerToken(r.TaskID, r.Token); err != nil {
			return err
		}
	}
	if o.Export.Enabled() {
		return o.Export.Write(o.IO, raw)
	}
	fmt.Fprintln(o.IO.Out, r.Reply)
	if o.Message != "" && r.Asking != "" {
		// One message per command: this one has ended, so say how to answer rather than look as
		// if it waited for the answer.
		fmt.Fprintln(o.IO.ErrOut, `Answer with: axp talk "YOUR ANSWER"`)
	}
	if p := r.Payment; p != nil && p.DepositAddress != "" {
		cs := o.IO.ColorScheme()
		return cmdutil.KeyValues(o.IO, "Pay", cs.Bold(p.PayableUSD.String()+" USD"), "To", p.DepositAddress, "Task", r.TaskID)
	}
	return nil
}
