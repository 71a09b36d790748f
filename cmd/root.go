// Package cmd is the axp command line: thin cobra commands that resolve flags and configuration and
// call the daemon, the client or memberkit.
package cmd

import (
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/axp-exchange/axp/cmd/admin"
	"github.com/axp-exchange/axp/cmd/auth"
	"github.com/axp-exchange/axp/cmd/board"
	"github.com/axp-exchange/axp/cmd/call"
	"github.com/axp-exchange/axp/cmd/catalog"
	"github.com/axp-exchange/axp/cmd/cmdutil"
	"github.com/axp-exchange/axp/cmd/completion"
	"github.com/axp-exchange/axp/cmd/member"
	"github.com/axp-exchange/axp/cmd/paid"
	"github.com/axp-exchange/axp/cmd/proof"
	"github.com/axp-exchange/axp/cmd/serve"
	"github.com/axp-exchange/axp/cmd/status"
	"github.com/axp-exchange/axp/cmd/talk"
	"github.com/axp-exchange/axp/cmd/task"
	tuicmd "github.com/axp-exchange/axp/cmd/tui"
	"github.com/axp-exchange/axp/cmd/wallet"
	"github.com/spf13/cobra"
)

// Version is set at build time.
var Version = "dev"

// Main runs the axp command with the process's arguments and streams and returns the exit status.
func Main() int {
	f := &cmdutil.Factory{IO: cmdutil.System(), Getenv: os.Getenv}
	return Run(context.Background(), f, os.Args[1:], os.Environ)
}

// Run runs the axp command with the given arguments (tests call it too).
func Run(ctx context.Context, f *cmdutil.Factory, args []string, environ func() []string) int {
	if f.Getenv != nil && (f.Getenv("NO_COLOR") != "" || f.Getenv("TERM") == "dumb") {
		f.IO.NoColor = true
	}
	if f.Getenv != nil && f.Getenv("AXP_FORCE_TTY") != "" {
		// Treat the streams as a terminal: prompts, tables and spinners as a person sees them
		// (scripts and tests of the interactive behaviour).
		f.IO.StdinTTY, f.IO.StdoutTTY, f.IO.StderrTTY = true, true, true
	}
	root := NewRoot(f, environ)
	root.SetArgs(args)
	root.SetIn(f.IO.In)
	root.SetOut(f.IO.Out)
	root.SetErr(f.IO.ErrOut)
	err := root.ExecuteContext(ctx)
	if err != nil {
		cmdutil.PrintError(f.IO.ErrOut, err)
	}
	return cmdutil.ExitStatus(err)
}

// NewRoot builds the command tree.
func NewRoot(f *cmdutil.Factory, environ func() []string) *cobra.Command {
	root := &cobra.Command{
		Use:           "axp",
		Short:         "Agent Services Exchange: run the exchange, post tasks, operate it",
		SilenceUsage:  true,
		SilenceErrors: true,
		Version:       Version,
	}
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error { return &cmdutil.UsageError{Err: err} })
	root.AddCommand(serve.NewCmd(f, environ), admin.NewCmd(f))
	root.AddCommand(member.NewCmd(f))
	root.AddCommand(board.NewCmd(f))
	root.AddCommand(proof.NewCmdVerify(f, nil))
	root.PersistentFlags().StringVar(&f.Exchange, "exchange", "", "exchange URL (default $AXP_EXCHANGE, else the one of the last axp login, else "+cmdutil.DefaultExchange+")")
	root.CompletionOptions.DisableDefaultCmd = true
	root.AddCommand(task.NewCmd(f), task.NewCmdOffers(f, nil), catalog.NewCmdQuote(f, nil), catalog.NewCmdServices(f, nil),
		auth.NewCmdLogin(f, nil), auth.NewCmdLogout(f, nil), status.NewCmd(f, nil), newCmdVersion(f), tuicmd.NewCmd(f, nil), completion.NewCmd(f), call.NewCmd(f, nil))
	root.SetVersionTemplate(versionText() + "\n")
	root.AddCommand(newExitCodesTopic())
	root.AddCommand(talk.NewCmd(f, nil))
	root.AddCommand(wallet.NewCmd(f), paid.NewCmd(f))
	usageErrors(root)
	return root
}

// usageErrors makes every wrong use of the command tree a usage error (exit status 2, message on
// stderr): argument counts checked by cobra, and unknown subcommands of a command group, which
// cobra would otherwise answer with the group's help on stdout and status 0.
func usageErrors(c *cobra.Command) {
	if check := c.Args; check != nil {
		c.Args = func(c *cobra.Command, args []string) error {
			if err := check(c, args); err != nil {
				return &cmdutil.UsageError{Err: err}
			}
			return nil
		}
	}
	if c.HasSubCommands() && !c.Runnable() {
		c.Args = cobra.ArbitraryArgs
		c.RunE = func(c *cobra.Command, args []string) error {
			if len(args) == 0 {
				return c.Help()
			}
			err := fmt.Errorf("unknown command %q for %q", args[0], c.CommandPath())
			if c.SuggestionsMinimumDistance <= 0 {
				c.SuggestionsMinimumDistance = 2
			}
			if s := c.SuggestionsFor(args[0]); len(s) > 0 {
				err = fmt.Errorf("%w; did you mean %s?", err, strings.Join(s, " or "))
			}
			return &cmdutil.UsageError{Err: err}
		}
	}
	for _, sub := range c.Commands() {
		usageErrors(sub)
	}
}
