// Package cmdutil holds what every axp command shares: the I/O streams, the exchange client
// factory, saved credentials, output formats, and the mapping of errors to messages and exit
// statuses.
package cmdutil

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"

	"github.com/axp-exchange/axp"
	"github.com/axp-exchange/axp/client"
	"github.com/axp-exchange/axp/memberkit"
	"golang.org/x/term"
)

// IOStreams are a command's standard streams and what is known of the terminal behind them.
type IOStreams struct {
	In     io.Reader
	Out    io.Writer
	ErrOut io.Writer

	// StdinTTY, StdoutTTY and StderrTTY say whether each stream is a terminal.
	StdinTTY, StdoutTTY, StderrTTY bool
	// NoColor turns colour off even on a terminal (NO_COLOR, TERM=dumb).
	NoColor bool
	// Width is the terminal's width in columns (0: unknown, 80 is assumed).
	Width int
}

// System returns the process's streams.
func System() *IOStreams {
	s := &IOStreams{In: os.Stdin, Out: os.Stdout, ErrOut: os.Stderr,
		StdinTTY:  term.IsTerminal(int(os.Stdin.Fd())),
		StdoutTTY: term.IsTerminal(int(os.Stdout.Fd())),
		StderrTTY: term.IsTerminal(int(os.Stderr.Fd())),
	}
	if s.StdoutTTY {
		if w, _, err := term.GetSize(int(os.Stdout.Fd())); err == nil {
			s.Width = w
		}
	}
	return s
}

// ColorEnabled reports whether standard output may carry colour.
func (s *IOStreams) ColorEnabled() bool { return s.StdoutTTY && !s.NoColor }

// TermWidth is the width to lay tables out in.
func (s *IOStreams) TermWidth() int {
	if s.Width > 0 {
		return s.Width
	}
	return 80
}

// CanPrompt reports whether the user can be asked a question.
func (s *IOStreams) CanPrompt() bool { return s.StdinTTY && (s.StdoutTTY || s.StderrTTY) }

// OnTTY is text when stdout is a terminal and "" otherwise: words for a reader that a script
// reading the output would have to strip.
func (s *IOStreams) OnTTY(text string) string {
	if s.StdoutTTY {
		return text
	}
	return ""
}

// Factory builds what commands need; tests replace its fields.
type Factory struct {
	IO *IOStreams
	// Getenv reads the environment (only cmd reads it).
	Getenv func(string) string
	// Exchange is the --exchange flag (empty: $AXP_EXCHANGE, then the local default).
	Exchange string
	// HTTP, when set, is the HTTP client of every exchange client (tests).
	HTTP *http.Client
	// MemberDir is the --dir flag of a member-side command: the directory where `axp member serve
	// --dir DIR` keeps the member's credentials. Set, its member is the one the command acts as.
	MemberDir string
	// WorkDir, when set, replaces the working directory where a `axp member serve` run's
	// credentials are looked for (tests).
	WorkDir string
}

// DefaultExchange is the exchange a local `axp serve` listens on.
const DefaultExchange = "http://127.0.0.1:8420"

func (f *Factory) getenv(k string) string {
	if f.Getenv == nil {
		return ""
	}
	return f.Getenv(k)
}

// ExchangeURL is the exchange the command talks to: --exchange, else $AXP_EXCHANGE, else the one
// of the last `axp login`, else the local default.
func (f *Factory) ExchangeURL() string {
	u, _ := f.ExchangeSource()
	return u
}

// ExchangeSource is ExchangeURL and where it comes from: "--exchange", "AXP_EXCHANGE", "--dir" (the
// exchange of the member there), "axp login" or "default".
func (f *Factory) ExchangeSource() (url, source string) {
	switch {
	case f.Exchange != "":
		return NormalizeExchange(f.Exchange), "--exchange"
	case f.getenv("AXP_EXCHANGE") != "":
		return NormalizeExchange(f.getenv("AXP_EXCHANGE")), "AXP_EXCHANGE"
	}
	if f.MemberDir != "" {
		// The member's own exchange: the one it registered with.
		if c, err := memberkit.LoadCredentials(memberkit.CredentialsPath(f.MemberDir)); err == nil && c.Exchange != "" {
			return NormalizeExchange(c.Exchange), "--dir"
		}
	}
	if c, err := f.LoadCredentials(); err == nil && c.Current != "" {
		return NormalizeExchange(c.Current), "axp login"
	}
	return DefaultExchange, "default"
}

// NormalizeExchange is the form an exchange URL is saved under: no trailing slash, lower-case
// scheme and host. An address without a scheme is taken as http:// on this machine
// (localhost, 127.x, [::1]) and https:// elsewhere, and a trailing /api (the API's prefix, which
// the client adds) is dropped.
func NormalizeExchange(u string) string {
	u = strings.TrimRight(strings.TrimSpace(u), "/")
	if u != "" && !strings.Contains(u, "://") {
		host := strings.ToLower(u)
		if strings.HasPrefix(host, "localhost") || strings.HasPrefix(host, "127.") || strings.HasPrefix(host, "[::1]") || strings.HasPrefix(host, "0.0.0.0") {
			u = "http://" + u
		} else {
			u = "https://" + u
		}
	}
	u = strings.TrimRight(strings.TrimSuffix(u, "/api"), "/")
	if scheme, rest, ok := strings.Cut(u, "://"); ok {
		host, path, _ := strings.Cut(rest, "/")
		u = strings.ToLower(scheme) + "://" + strings.ToLower(host)
		if path != "" {
			u += "/" + path
		}
	}
	return u
}

// Client is a client of the exchange authenticating with token (may be empty).
func (f *Factory) Client(token string) *client.Client {
	c := client.New(f.ExchangeURL(), token)
	if f.HTTP != nil {
		c.HTTP = f.HTTP
	}
	return c
}

// Exit statuses.
const (
	ExitOK          = 0
	ExitError       = 1
	ExitUsage       = 2
	ExitAuth        = 4
	ExitNotFound    = 5
	ExitConflict    = 6
	ExitRateLimited = 7
	ExitUnreachable = 8
)

// SilentError is returned when the message was already printed.
var SilentError = errors.New("silent")

// UsageError marks a wrong flag or argument.
type UsageError struct{ Err error }

func (e *UsageError) Error() string { return e.Err.Error() }
func (e *UsageError) Unwrap() error { return e.Err }

// Usagef builds a usage error.
func Usagef(format string, args ...any) error {
	return &UsageError{Err: fmt.Errorf(format, args...)}
}

// ExitStatus maps an error to the process's exit status.
func ExitStatus(err error) int {
	if err == nil || errors.Is(err, ErrCancelled) {
		return ExitOK
	}
	var ue *UsageError
	if errors.As(err, &ue) {
		return ExitUsage
	}
	var un *client.UnreachableError
	if errors.As(err, &un) {
		return ExitUnreachable
	}
	var e *axp.Error
	if errors.As(err, &e) {
		switch e.Code {
		case axp.CodeInvalidInput:
			return ExitUsage
		case axp.CodeUnauthorized, axp.CodeForbidden:
			return ExitAuth
		case axp.CodeNotFound:
			return ExitNotFound
		case axp.CodeConflict:
			return ExitConflict
		case axp.CodeRateLimited:
			return ExitRateLimited
		}
	}
	return ExitError
}

// PrintError writes an error and its hint to w.
func PrintError(w io.Writer, err error) {
	if errors.Is(err, SilentError) {
		return
	}
	if errors.Is(err, ErrCancelled) {
		fmt.Fprintln(w, ErrCancelled.Error()) // the person said no: not an error
		return
	}
	var e *axp.Error
	if errors.As(err, &e) {
		msg := e.Message
		if e.Field != "" && e.Code == axp.CodeInvalidInput {
			msg = e.Field + ": " + msg // the input field at fault; other codes' fields are for programs
		}
		fmt.Fprintf(w, "error: %s\n", msg)
		if e.Hint != "" {
			fmt.Fprintf(w, "hint: %s\n", e.Hint)
		}
		return
	}
	var un *client.UnreachableError
	if errors.As(err, &un) {
		fmt.Fprintf(w, "error: %v\nhint: start an exchange with `axp serve` (or `make run`), or point --exchange (or AXP_EXCHANGE) at a running one\n", err)
		return
	}
	fmt.Fprintf(w, "error: %v\n", err)
}

// WithHint returns err with its hint replaced when it is an *axp.Error of one of codes (all codes
// when none are given); other errors pass unchanged.
func WithHint(err error, hint string, codes ...axp.Code) error {
	var e *axp.Error
	if !errors.As(err, &e) {
		return err
	}
	if len(codes) > 0 {
		match := false
		for _, c := range codes {
			match = match || e.Code == c
		}
		if !match {
			return err
		}
	}
	c := *e
	c.Hint = hint
	return &c
}
