package cmdutil

import (
	"bufio"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"
)

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
