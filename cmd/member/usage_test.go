package member_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/axp-exchange/axp/cmd"
	"github.com/axp-exchange/axp/cmd/cmdutil"
	"github.com/axp-exchange/axp/memberkit"
)

// axpRun runs the axp command in process with HOME and XDG_CONFIG_HOME under a temporary dir.
func axpRun(t *testing.T, home string, args ...string) (int, string, string) {
	t.Helper()
	var out, errOut bytes.Buffer
	env := map[string]string{"HOME": home, "XDG_CONFIG_HOME": filepath.Join(home, ".config")}
	f := &cmdutil.Factory{IO: &cmdutil.IOStreams{In: strings.NewReader(""), Out: &out, ErrOut: &errOut},
		Getenv: func(k string) string { return env[k] }}
	status := cmd.Run(context.Background(), f, args, func() []string { return nil })
	return status, out.String(), errOut.String()
}

// Wrong use and missing credentials fail with a message and a hint on stderr, and the CLI's exit
// statuses.
func TestMemberUsage(t *testing.T) {
	home := t.TempDir()
	// A member whose exchange is not running: unreachable (status 8).
	deadDir := filepath.Join(home, "dead")
	(&memberkit.Credentials{Exchange: "http://127.0.0.1:1", MemberID: "mem_x", MemberSecret: "ss_mem_x_" + strings.Repeat("0", 64),
		PlatformKey: "pk", Roles: []string{"seller"}}).Save(memberkit.CredentialsPath(deadDir))
	skills := filepath.Join(home, "bad.yaml")
	os.WriteFile(skills, []byte("- task_type: text-file\n  price: 1\n"), 0o644)
	cases := []struct {
		args   []string
		status int
		says   []string
	}{
		{[]string{"member", "serve"}, 2, []string{"--role is required: seller or buyer"}},
		{[]string{"member", "serve", "--role", "admin"}, 2, []string{"--role must be seller or buyer"}},
		{[]string{"member", "serve", "--role", "buyer", "--skills", "x.yaml"}, 2, []string{"for sellers"}},
		{[]string{"member", "serve", "--role", "seller"}, 2, []string{"--exchange (or AXP_EXCHANGE) is required on first start", filepath.Join(home, ".config", "axp", "member")}},
		{[]string{"member", "serve", "--role", "seller", "--exchange", "http://127.0.0.1:1", "--skills", skills}, 2, []string{"skills[0].price: is not a known field", "known fields: task_type"}},
		{[]string{"member", "verify"}, 5, []string{"no member credentials in", "hint: start the member once"}},
		{[]string{"member", "conformance", "--dir", filepath.Join(home, "nowhere")}, 5, []string{"no member credentials"}},
		{[]string{"member", "conformance", "--dir", deadDir}, 8, []string{"cannot reach the exchange at http://127.0.0.1:1", "hint:"}},
		{[]string{"member", "sandbox", "--as", "broker", "--dir", deadDir}, 2, []string{"--as must be seller or buyer"}},
		{[]string{"member", "verify", "--dir", deadDir, "--exchange", "http://127.0.0.1:2/"}, 2, []string{"belongs to the exchange at http://127.0.0.1:1, not http://127.0.0.1:2"}},
		{[]string{"--exchange", "http://127.0.0.1:1", "member", "serve", "--role", "buyer", "--dir", deadDir}, 1, []string{"are those of a seller member"}},
		{[]string{"member", "init"}, 2, []string{"accepts 1 arg(s)"}},
		{[]string{"member", "init", filepath.Join(home, "x"), "--role", "both"}, 2, []string{"--role must be seller or buyer"}},
		{[]string{"member", "nope"}, 2, []string{`unknown command "nope" for "axp member"`}},
	}
	for _, c := range cases {
		t.Run(strings.Join(c.args, " "), func(t *testing.T) {
			status, stdout, stderr := axpRun(t, home, c.args...)
			if status != c.status {
				t.Errorf("status %d, want %d\nstderr: %s", status, c.status, stderr)
			}
			if stdout != "" {
				t.Errorf("stdout: %q", stdout)
			}
			for _, s := range c.says {
				if !strings.Contains(stderr, s) {
					t.Errorf("stderr %q lacks %q", stderr, s)
				}
			}
		})
	}
}
