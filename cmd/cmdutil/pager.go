package cmdutil

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"syscall"
)

// StartPager sends stdout through a pager while a long list is written, as gh does: $AXP_PAGER,
// else $PAGER, else less with LESS=FRX (it quits at once when the list fits on the screen and keeps
// colours). Nothing is paged when stdout is not a terminal or the pager is "cat". stop waits for
// the reader to quit the pager; call it when the list is written.
func (f *Factory) StartPager() (stop func(), err error) {
	s := f.IO
	name := f.getenv("AXP_PAGER")
	if name == "" {
		name = f.getenv("PAGER")
	}
	args := strings.Fields(name)
	if !s.StdoutTTY || (len(args) == 1 && args[0] == "cat") {
		return func() {}, nil
	}
	configured := len(args) > 0
	if !configured {
		args = []string{"less"}
	}
	p := exec.Command(args[0], args[1:]...)
	p.Env = os.Environ()
	if f.getenv("LESS") == "" {
		p.Env = append(p.Env, "LESS=FRX")
	}
	if f.getenv("LV") == "" {
		p.Env = append(p.Env, "LV=-c")
	}
	p.Stdout, p.Stderr = s.Out, s.ErrOut
	in, err := p.StdinPipe()
	if err != nil {
		return nil, err
	}
	if err := p.Start(); err != nil {
		if !configured && errors.Is(err, exec.ErrNotFound) {
			return func() {}, nil // no less here: print as without a pager
		}
		return nil, fmt.Errorf("start the pager %q: %w", name, err)
	}
	out := s.Out
	s.Out = pagerWriter{in}
	return func() {
		s.Out = out
		_ = in.Close()
		_ = p.Wait()
	}, nil
}

// pagerWriter drops what is written after the reader quit the pager.
type pagerWriter struct{ w io.Writer }

func (p pagerWriter) Write(b []byte) (int, error) {
	n, err := p.w.Write(b)
	if err != nil && (errors.Is(err, syscall.EPIPE) || errors.Is(err, os.ErrClosed)) {
		return len(b), nil
	}
	return n, err
}
