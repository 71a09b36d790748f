// Package member is `axp member ...`: run a member agent (seller or buyer) against an exchange,
// and check it: verify, conformance, sandbox. It also writes a starter Go module on memberkit.
// The commands are thin: the work is memberkit's.
package member

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/axp-exchange/axp"
	"github.com/axp-exchange/axp/client"
	"github.com/axp-exchange/axp/cmd/cmdutil"
	"github.com/axp-exchange/axp/memberkit"
	"github.com/spf13/cobra"
)

// NewCmd builds `axp member`.
func NewCmd(f *cmdutil.Factory) *cobra.Command {
	c := &cobra.Command{
		Use:   "member",
		Short: "Run and check a member agent (seller or buyer) of an exchange",
		Long: `Run a seller or buyer agent against an exchange, and check it.

  axp member serve --role seller --exchange URL --skills skills.yaml --exec ./do-job
  axp member conformance
  axp member init my-seller --role seller

Credentials (member id, member secret, platform key) are kept in --dir, by default
$XDG_CONFIG_HOME/axp/member, in a file only you can read. One directory holds one member.`,
	}
	c.AddCommand(newServeCmd(f), newVerifyCmd(f), newConformanceCmd(f), newSandboxCmd(f), newInitCmd(f), newPayoutCmd(f), newEarningsCmd(f), newJobsCmd(f))
	return c
}

// exchangeGiven is the exchange named by the global --exchange flag or $AXP_EXCHANGE, or "". The
// member commands do not fall back to a default: a member's credentials name its exchange.
func exchangeGiven(f *cmdutil.Factory) string {
	u := f.Exchange
	if u == "" && f.Getenv != nil {
		u = f.Getenv("AXP_EXCHANGE")
	}
	if u == "" {
		return ""
	}
	return cmdutil.NormalizeExchange(u)
}

// checkExchange refuses an exchange given on the command line that is not the member's.
func checkExchange(given string, c *memberkit.Credentials, dir string) error {
	if given != "" && given != cmdutil.NormalizeExchange(c.Exchange) {
		return &cmdutil.UsageError{Err: fmt.Errorf("the member in %s belongs to the exchange at %s, not %s", dir, c.Exchange, given)}
	}
	return nil
}

// defaultDir is $XDG_CONFIG_HOME/axp/member (or ~/.config/axp/member).
func defaultDir(getenv func(string) string) string {
	if x := getenv("XDG_CONFIG_HOME"); filepath.IsAbs(x) {
		return filepath.Join(x, "axp", "member")
	}
	home := getenv("HOME")
	if home == "" {
		home, _ = os.UserHomeDir()
	}
	return filepath.Join(home, ".config", "axp", "member")
}

// dirFlag adds --dir to c.
func dirFlag(c *cobra.Command, dir *string) {
	c.Flags().StringVar(dir, "dir", "", "directory of the member's credentials (default: a member run in the current directory, else $XDG_CONFIG_HOME/axp/member)")
}

// memberDir is the directory of the member a command other than serve acts as: --dir, else a
// `axp member serve` run in the working directory (./credentials.json or
// ./member/credentials.json), else the default directory.
func memberDir(dir string, getenv func(string) string) string {
	if dir == "" {
		if wd, err := os.Getwd(); err == nil {
			for _, d := range []string{wd, filepath.Join(wd, "member")} {
				if c, err := memberkit.LoadCredentials(memberkit.CredentialsPath(d)); err == nil && c.Check() == nil {
					return d
				}
			}
		}
	}
	return resolveDir(dir, getenv)
}

func resolveDir(dir string, getenv func(string) string) string {
	if dir == "" {
		return defaultDir(getenv)
	}
	if rest, ok := strings.CutPrefix(dir, "~/"); ok {
		if home := getenv("HOME"); home != "" {
			return filepath.Join(home, rest)
		}
	}
	return dir
}

// loadCreds reads the credentials of the member in dir, with a hint when there are none, and
// checks them against the exchange given on the command line, if any.
func loadCreds(dir, exchange string) (*memberkit.Credentials, error) {
	c, err := memberkit.LoadCredentials(memberkit.CredentialsPath(dir))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, &axp.Error{Code: axp.CodeNotFound, Message: "no member credentials in " + dir,
			Hint: "start the member once with `axp member serve --exchange URL --role ...`, or point --dir at its directory"}
	}
	if err != nil {
		return nil, err
	}
	return c, checkExchange(exchange, c, dir)
}

// exchangeErr gives memberkit's errors the CLI's shapes, so that they print with their hints and
// map to the usual exit statuses.
func exchangeErr(err error) error {
	var un *memberkit.UnreachableError
	if errors.As(err, &un) {
		return &client.UnreachableError{URL: un.URL, Err: un.Err}
	}
	return err
}

// lines writes one JSON object per line, safely from many goroutines.
type lines struct {
	mu sync.Mutex
	w  io.Writer
	// off drops the events: without --json a terminal carries only the readable lines on stderr.
	off bool
}

func (l *lines) emit(event string, fields map[string]any) {
	if l.off {
		return
	}
	m := map[string]any{"event": event}
	for k, v := range fields {
		m[k] = v
	}
	b, err := json.Marshal(m)
	if err != nil {
		b, _ = json.Marshal(map[string]any{"event": event, "error": err.Error()})
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.w.Write(append(b, '\n'))
}

// printSteps writes steps as a checklist with hints for the failed ones: FAIL for a required
// step (it fails the run), WARN for a warning-level one (reported; the run still passes).
func printSteps(w io.Writer, steps []axp.Step) {
	for _, s := range steps {
		mark := "ok  "
		switch {
		case !s.OK && s.Required():
			mark = "FAIL"
		case !s.OK:
			mark = "WARN"
		}
		line := fmt.Sprintf("  %s %s", mark, s.Name)
		if s.LatencyMS > 0 {
			line += fmt.Sprintf(" (%d ms)", s.LatencyMS)
		}
		if s.Detail != "" {
			line += ": " + s.Detail
		}
		fmt.Fprintln(w, line)
		if !s.OK && s.Hint != "" {
			fmt.Fprintf(w, "       hint: %s\n", s.Hint)
		}
	}
}

func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}
