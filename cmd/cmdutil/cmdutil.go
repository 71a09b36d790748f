// Package cmdutil holds what every axp command shares: the I/O streams, the exchange client
// factory, and the mapping of errors to messages and exit statuses.
package cmdutil

import (
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/axp-exchange/axp"
	"github.com/axp-exchange/axp/client"
)

// IOStreams are a command's standard streams.
type IOStreams struct {
	In     io.Reader
	Out    io.Writer
	ErrOut io.Writer
}

// System returns the process's streams.
func System() *IOStreams { return &IOStreams{In: os.Stdin, Out: os.Stdout, ErrOut: os.Stderr} }

// Factory builds what commands need; tests replace its fields.
type Factory struct {
	IO *IOStreams
	// Getenv reads the environment (only cmd reads it).
	Getenv func(string) string
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

// ExitStatus maps an error to the process's exit status.
func ExitStatus(err error) int {
	if err == nil {
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
	var e *axp.Error
	if errors.As(err, &e) {
		msg := e.Message
		if e.Field != "" {
			msg = e.Field + ": " + msg
		}
		fmt.Fprintf(w, "error: %s\n", msg)
		if e.Hint != "" {
			fmt.Fprintf(w, "hint: %s\n", e.Hint)
		}
		return
	}
	var un *client.UnreachableError
	if errors.As(err, &un) {
		fmt.Fprintf(w, "error: %v\nhint: start an exchange with `axp serve` (or `make run`), or point --exchange at a running one\n", err)
		return
	}
	fmt.Fprintf(w, "error: %v\n", err)
}
