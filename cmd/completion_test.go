package cmd_test

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/axp-exchange/axp/cmd"
	"github.com/axp-exchange/axp/cmd/cmdutil"
)

// runEnv runs the axp command in process with env as its environment.
func runEnv(t *testing.T, env map[string]string, args ...string) (status int, stdout, stderr string) {
	t.Helper()
	var out, errOut bytes.Buffer
	f := &cmdutil.Factory{IO: &cmdutil.IOStreams{In: strings.NewReader(""), Out: &out, ErrOut: &errOut},
		Getenv: func(k string) string { return env[k] }}
	status = cmd.Run(context.Background(), f, args, func() []string { return nil })
	return status, out.String(), errOut.String()
}

func TestCompletion(t *testing.T) {
	for shell, want := range map[string]string{"bash": "complete -o default -F __start_axp axp", "zsh": "#compdef axp",
		"fish": "# fish completion for axp", "powershell": "Register-ArgumentCompleter"} {
		status, stdout, stderr := run(t, "completion", shell)
		if status != 0 || !strings.Contains(stdout, want) || stderr != "" {
			t.Errorf("%s: status %d, stderr %q, stdout lacks %q", shell, status, stderr, want)
		}
	}
	// Task ids complete from the saved buyer tokens of the exchange.
	env := map[string]string{"XDG_CONFIG_HOME": t.TempDir()}
	f := &cmdutil.Factory{Getenv: func(k string) string { return env[k] }}
	f.SaveBuyerToken("tsk_a", "bt_a")
	f.SaveBuyerToken("tsk_b", "bt_b")
	_, stdout, _ := runEnv(t, env, "__complete", "task", "view", "")
	if !strings.HasPrefix(stdout, "tsk_a\ntsk_b\n:4\n") {
		t.Errorf("task id completion: %q", stdout)
	}
	_, stdout, _ = runEnv(t, env, "__complete", "wallet", "pay", "")
	if !strings.HasPrefix(stdout, "tsk_a\ntsk_b\n:4\n") {
		t.Errorf("wallet pay completion: %q", stdout)
	}
	// Paid tools complete from the catalog.
	_, stdout, _ = runEnv(t, env, "__complete", "paid", "call", "/paid/te")
	if !strings.HasPrefix(stdout, "/paid/text/injection-check\t") {
		t.Errorf("paid call completion: %q", stdout)
	}
	_, stdout, _ = runEnv(t, env, "__complete", "offers", "tsk_a", "--sort", "")
	if !strings.HasPrefix(stdout, "value\nprice\neta\nreliability\n") {
		t.Errorf("--sort completion: %q", stdout)
	}
}

// NO_COLOR and TERM=dumb turn colour off even on a terminal.
func TestNoColorFromEnvironment(t *testing.T) {
	for _, env := range []map[string]string{{"NO_COLOR": "1"}, {"TERM": "dumb"}} {
		io := &cmdutil.IOStreams{In: strings.NewReader(""), Out: &bytes.Buffer{}, ErrOut: &bytes.Buffer{}, StdoutTTY: true}
		f := &cmdutil.Factory{IO: io, Getenv: func(k string) string { return env[k] }}
		cmd.Run(context.Background(), f, []string{"--version"}, func() []string { return nil })
		if io.ColorEnabled() {
			t.Errorf("%v: colour still on", env)
		}
	}
}
