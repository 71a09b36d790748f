package cmdutil_test

import (
	"bytes"
	"fmt"
	"os/exec"
	"testing"

	"github.com/axp-exchange/axp/cmd/cmdutil"
)

func TestPager(t *testing.T) {
	if _, err := exec.LookPath("sed"); err != nil {
		t.Skip("no sed to stand for a pager")
	}
	for _, tt := range []struct {
		name string
		tty  bool
		env  map[string]string
		want string
	}{
		{"AXP_PAGER on a terminal", true, map[string]string{"AXP_PAGER": "sed s/^/paged:/", "PAGER": "sed s/^/other:/"}, "paged:one\npaged:two\n"},
		{"PAGER on a terminal", true, map[string]string{"PAGER": "sed s/^/other:/"}, "other:one\nother:two\n"},
		{"piped", false, map[string]string{"AXP_PAGER": "sed s/^/paged:/"}, "one\ntwo\n"},
		{"cat", true, map[string]string{"AXP_PAGER": "cat", "PAGER": "sed s/^/other:/"}, "one\ntwo\n"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var out bytes.Buffer
			f := &cmdutil.Factory{IO: &cmdutil.IOStreams{Out: &out, ErrOut: &bytes.Buffer{}, StdoutTTY: tt.tty},
				Getenv: func(k string) string { return tt.env[k] }}
			stop, err := f.StartPager()
			if err != nil {
				t.Fatal(err)
			}
			fmt.Fprint(f.IO.Out, "one\ntwo\n")
			stop()
			if out.String() != tt.want || f.IO.Out != &out {
				t.Errorf("got %q, want %q (stdout restored: %v)", out.String(), tt.want, f.IO.Out == &out)
			}
		})
	}
	f := &cmdutil.Factory{IO: &cmdutil.IOStreams{Out: &bytes.Buffer{}, StdoutTTY: true},
		Getenv: func(k string) string { return map[string]string{"AXP_PAGER": "no-such-pager-here"}[k] }}
	if _, err := f.StartPager(); err == nil {
		t.Error("a configured pager that does not start: no error")
	}
}
