// Package tui is `axp tui`: it resolves the exchange and the saved credentials and runs the
// terminal UI of package github.com/axp-exchange/axp/tui.
package tui

import (
	"context"
	"errors"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/spf13/cobra"

	"github.com/axp-exchange/axp/client"
	"github.com/axp-exchange/axp/cmd/cmdutil"
	"github.com/axp-exchange/axp/cmd/wallet"
	"github.com/axp-exchange/axp/contract"
	axptui "github.com/axp-exchange/axp/tui"
)

// Options are the inputs of `axp tui`.
type Options struct {
	F       *cmdutil.Factory
	IO      *cmdutil.IOStreams
	View    string
	Refresh time.Duration
}

// NewCmd builds `axp tui`.
func NewCmd(f *cmdutil.Factory, runF func(context.Context, *Options) error) *cobra.Command {
	o := &Options{F: f, IO: f.IO}
	c := &cobra.Command{
		Use:   "tui",
		Short: "Open the terminal UI: your tasks and offers, or the operator's queues",
		Long: `Open a keyboard-driven terminal UI on the exchange.

The buyer view lists the tasks posted from here (and a buyer member's tasks after 'axp login'); open
one to rank its offers, see badges and the fee breakdown, choose, pay (on an exchange in test mode,
from the wallet of 'axp wallet new', as 'axp wallet pay' does), preview the deliverable, accept or
dispute. The operator view (admin token) works the approval queue: payments to confirm, payouts,
refunds, splits and release-due tasks, with approve or reject after a confirmation (the exchange's
hot wallet sends what is approved; without one the operator gives the transaction's hash), one at a
time or every row marked with space; describes any task (enter) with its own audit (u); reads every
mediation (both sides' statements and proposals, the Mediator's decision and reasoning, flagged
texts marked) and decides appealed ones; overturns listing rejections; and approves or hides the
members' board posts the screen held (as axp admin board pending|approve|hide). Everything
refreshes live; press ? for the keys, / to filter a list. NO_COLOR turns colour off.

A buyer member's tasks are read with the member the member-side commands use: --dir DIR (the
directory of 'axp member serve --dir DIR'), else the 'axp login' member, else a member run in the
current directory; the buyer view names it.`,
		Example: `  axp tui
  axp tui --dir ./buyer
  axp tui --view operator --refresh 10s`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, args []string) error {
			switch o.View {
			case "", axptui.ViewBuyer, axptui.ViewOperator:
			default:
				return cmdutil.Usagef("--view %q: use buyer or operator", o.View)
			}
			if o.Refresh != 0 && o.Refresh < 500*time.Millisecond {
				return cmdutil.Usagef("--refresh %s: refresh at most twice a second", o.Refresh)
			}
			if runF != nil {
				return runF(c.Context(), o)
			}
			return run(c.Context(), o)
		},
	}
	c.Flags().StringVar(&o.View, "view", "", "start in the buyer or operator view (default: buyer, or operator with only an admin token)")
	c.Flags().DurationVar(&o.Refresh, "refresh", 3*time.Second, "live refresh interval")
	cmdutil.AddMemberDirFlag(c, f)
	return c
}

// Source builds the TUI's source from the saved credentials of the exchange and the member the
// member-side commands act as (--dir, the `axp login` member, or a member run in the working
// directory).
func Source(f *cmdutil.Factory) (*axptui.ClientSource, error) {
	creds, err := f.ExchangeCredentials()
	if err != nil {
		return nil, err
	}
	admin, err := f.AdminToken()
	if err != nil {
		return nil, err
	}
	member, err := f.FindMember()
	if err != nil {
		return nil, err
	}
	src := &axptui.ClientSource{
		Client: f.Client(""),
		BuyerTokens: func() map[string]string {
			c, err := f.ExchangeCredentials()
			if err != nil {
				return creds.BuyerTokens
			}
			return c.BuyerTokens
		},
		AdminToken: admin,
	}
	if member != nil {
		src.MemberSecret, src.MemberFrom = member.Secret, "as "+member.String()
	}
	return src, nil
}

// testMode asks the exchange whether it runs in test mode (false when it does not answer: the
// views say what is wrong with the exchange then).
func testMode(ctx context.Context, f *cmdutil.Factory) bool {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	p, _, err := client.Call(ctx, f.Client(""), contract.GetPricing, contract.NoInput{})
	return err == nil && p.TestMode
}

func run(ctx context.Context, o *Options) error {
	if !o.IO.StdinTTY || !o.IO.StdoutTTY {
		return cmdutil.Usagef("axp tui needs a terminal; for scripts use `axp task list` or `axp admin approvals list`")
	}
	src, err := Source(o.F)
	if err != nil {
		return err
	}
	if !src.CanBuy() && !src.CanOperate() {
		// Say first that the exchange does not answer: no credentials is not the problem then.
		ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		_, _, err := client.Call(ctx, o.F.Client(""), contract.GetPricing, contract.NoInput{})
		cancel()
		if err != nil {
			return err
		}
		return errors.New("nothing to show for " + src.Exchange() + ": post a task with `axp task create`, pass --dir with the directory of your `axp member serve`, or `axp login` (member secret or admin token)")
	}
	test := testMode(ctx, o.F)
	if test {
		// On the exchange's own test chain the buyer pays from the TUI as with `axp wallet pay`.
		src.Payer = &wallet.Payer{F: o.F}
	}
	m := axptui.New(axptui.Options{Source: src, View: o.View, Refresh: o.Refresh, NoColor: o.IO.NoColor, TestMode: test})
	p := tea.NewProgram(m, tea.WithContext(ctx), tea.WithInput(o.IO.In), tea.WithOutput(o.IO.Out))
	_, err = p.Run()
	if errors.Is(err, tea.ErrProgramKilled) && ctx.Err() != nil {
		return nil
	}
	return err
}
