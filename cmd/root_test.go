package cmd_test

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/axp-exchange/axp/cmd"
	"github.com/axp-exchange/axp/cmd/cmdutil"
)

// run runs the axp command in process with an empty environment.
func run(t *testing.T, args ...string) (status int, stdout, stderr string) {
	t.Helper()
	var out, errOut bytes.Buffer
	f := &cmdutil.Factory{IO: &cmdutil.IOStreams{In: strings.NewReader(""), Out: &out, ErrOut: &errOut},
		Getenv: func(string) string { return "" }}
	status = cmd.Run(context.Background(), f, args, func() []string { return nil })
	return status, out.String(), errOut.String()
}

// Wrong use of the command line is exit status 2 with the message on stderr and nothing on stdout.
func TestUsageErrors(t *testing.T) {
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"serve", "--bogus"}, "unknown flag: --bogus"},
		{[]string{"serve", "extra"}, `unknown command "extra" for "axp serve"`},
		{[]string{"nope"}, `unknown command "nope" for "axp"`},
		{[]string{"serv"}, "did you mean serve?"},
		{[]string{"admin", "nope"}, `unknown command "nope" for "axp admin"`},
		{[]string{"admin", "bakup"}, "did you mean backup?"},
		{[]string{"admin", "backup"}, "accepts 1 arg(s), received 0"},
		{[]string{"admin", "restore", "x.db"}, "--data-dir is required"},
		{[]string{"admin", "backup", "x.db"}, "no admin token: set AXP_ADMIN_TOKEN"},
		{[]string{"serve", "--log-level", "loud", "--data-dir", "unused"}, `log_level "loud"`},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			status, stdout, stderr := run(t, tt.args...)
			if status != cmdutil.ExitUsage {
				t.Errorf("status %d, want %d", status, cmdutil.ExitUsage)
			}
			if stdout != "" {
				t.Errorf("stdout: %q", stdout)
			}
			if !strings.HasPrefix(stderr, "error: ") || !strings.Contains(stderr, tt.want) {
				t.Errorf("stderr %q, want error: ...%s", stderr, tt.want)
			}
		})
	}
}

func TestHelpAndVersion(t *testing.T) {
	for _, args := range [][]string{{}, {"admin"}, {"--help"}, {"serve", "--help"}, {"--version"}} {
		status, stdout, stderr := run(t, args...)
		if status != 0 || stdout == "" || stderr != "" {
			t.Errorf("axp %v: status %d, stdout %q, stderr %q", args, status, stdout, stderr)
		}
	}
}
