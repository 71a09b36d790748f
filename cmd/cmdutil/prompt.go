package cmdutil

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/axp-exchange/axp"
	"github.com/spf13/cobra"
)

// ErrCancelled is the answer "no" to a confirmation: nothing was done. It is not a failure: the
// command prints it without "error:" and exits 0.
var ErrCancelled = errors.New("cancelled: nothing done")

// ConfirmStep guards a step that moves money or power. With yes it goes ahead. On a terminal it
// shows what will happen (the lines describe returns, which may call the exchange) and asks;
// "no" is ErrCancelled. Without a terminal nobody can answer, so it refuses with a usage error
// (exit status 2) whose hint is --yes: a script must say it means it.
func ConfirmStep(s *IOStreams, yes bool, action string, describe func() ([]string, error)) error {
	if yes {
		return nil
	}
	if !s.CanPrompt() {
		return &axp.Error{Code: axp.CodeInvalidInput,
			Message: action + " needs a confirmation, and there is no terminal to ask on",
			Hint:    "run it again with --yes to go ahead without a question"}
	}
	if describe != nil {
		lines, err := describe()
		if err != nil {
			return err
		}
		for _, l := range lines {
			fmt.Fprintln(s.ErrOut, "  "+l)
		}
	}
	ok, err := Confirm(s, strings.ToUpper(action[:1])+action[1:]+"?")
	if err != nil {
		return err
	}
	if !ok {
		return ErrCancelled
	}
	return nil
}

// AddYesFlag adds --yes (-y): go ahead without the confirmation question.
func AddYesFlag(c *cobra.Command, yes *bool) {
	c.Flags().BoolVarP(yes, "yes", "y", false, "go ahead without asking (required without a terminal)")
}

// Confirm asks a yes/no question on stderr and reads the answer from stdin. The default is no.
func Confirm(s *IOStreams, question string) (bool, error) {
	fmt.Fprintf(s.ErrOut, "? %s [y/N] ", question)
	line, err := bufio.NewReader(s.In).ReadString('\n')
	if err != nil && err != io.EOF {
		return false, err
	}
	switch strings.ToLower(strings.TrimSpace(line)) {
	case "y", "yes":
		return true, nil
	}
	return false, nil
}

// Spinner shows that something is under way on stderr, on a terminal only.
type Spinner struct {
	w     io.Writer
	label string
	every time.Duration
	start time.Time

	stopOnce sync.Once
	stop     chan struct{}
	done     chan struct{}
}

var spinFrames = []string{"⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"}

// StartSpinner starts a spinner with label on stderr when it is a terminal; otherwise it returns a
// spinner that does nothing.
func StartSpinner(s *IOStreams, label string) *Spinner {
	sp := &Spinner{w: s.ErrOut, label: label, every: 100 * time.Millisecond, start: time.Now(),
		stop: make(chan struct{}), done: make(chan struct{})}
	if !s.StderrTTY {
		close(sp.done)
		sp.stopOnce.Do(func() {})
		return sp
	}
	go sp.run()
	return sp
}

func (sp *Spinner) run() {
	defer close(sp.done)
	t := time.NewTicker(sp.every)
	defer t.Stop()
	for i := 0; ; i++ {
		fmt.Fprintf(sp.w, "\r%s %s (%ds)", spinFrames[i%len(spinFrames)], sp.label, int(time.Since(sp.start).Seconds()))
		select {
		case <-sp.stop:
			fmt.Fprint(sp.w, "\r\x1b[K")
			return
		case <-t.C:
		}
	}
}

// Stop ends the spinner and clears its line.
func (sp *Spinner) Stop() {
	sp.stopOnce.Do(func() { close(sp.stop) })
	<-sp.done
}
