package cmd_test

import (
	"bytes"
	"context"
	"strconv"
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
		{[]string{"serv"}, "did you mean serve or services?"},
		{[]string{"admin", "nope"}, `unknown command "nope" for "axp admin"`},
		{[]string{"admin", "bakup"}, "did you mean backup?"},
		{[]string{"admin", "backup"}, "accepts 1 arg(s), received 0"},
		{[]string{"admin", "restore", "x.db"}, "--data-dir is required"},
		{[]string{"task", "create"}, "give --type or --description"},
		{[]string{"task", "create", "--type", "text-file", "--payment", "card"}, `--payment "card": use one of crypto, free`},
		{[]string{"task", "create", "--type", "text-file", "--param", "noequals"}, `--param "noequals": use key=value`},
		{[]string{"task", "create", "--type", "text-file", "--deadline", "soon"}, `--deadline "soon"`},
		{[]string{"task", "create", "--type", "text-file", "--jq", ".id", "--template", "x"}, "--jq and --template cannot be used together"},
		{[]string{"task", "view"}, "accepts 1 arg(s), received 0"},
		{[]string{"task", "choose", "a", "b", "c"}, "accepts between 1 and 2 arg(s), received 3"},
		{[]string{"task", "pay", "tsk_x", "--tx", "0x12"}, "a transaction hash is 0x followed by 64 hex digits"},
		{[]string{"task", "dispute", "tsk_x"}, "--reason is required"},
		{[]string{"task", "redo", "tsk_x", "--reason", " "}, "--reason is required"},
		{[]string{"task", "clarify", "tsk_x"}, "give at least one --answer"},
		{[]string{"task", "clarify", "tsk_x", "--answer", "no-equals"}, `--answer "no-equals": use QUESTION=ANSWER`},
		{[]string{"task", "accept", "tsk_x", "--sha256", "XYZ"}, "64 lower-case hex digits"},
		{[]string{"task", "watch", "tsk_x", "--until", "done"}, `--until "done"`},
		{[]string{"task", "watch", "tsk_x", "--interval", "0s"}, "--interval must be positive"},
		{[]string{"task", "list", "--status", "busy"}, `--status "busy": use one of open, awaiting_payment, paid, in_progress, delivered, accepted, disputed, released, refunded, cancelled, expired`},
		{[]string{"task", "nope"}, `unknown command "nope" for "axp task"`},
		{[]string{"offers", "tsk_x", "--sort", "cheap"}, `--sort "cheap": use one of value, price, eta, reliability`},
		{[]string{"quote"}, "--type is required"},
		{[]string{"services", "extra"}, `unknown command "extra" for "axp services"`},
		{[]string{"login"}, "pipe the secret with --with-token"},
		{[]string{"admin", "approvals", "list", "--kind", "gift"}, `--kind "gift": use one of payment, payout`},
		{[]string{"admin", "approvals", "list", "--status", "done"}, `--status "done"`},
		{[]string{"admin", "approvals", "approve"}, "requires at least 1 arg(s), only received 0"},
		{[]string{"admin", "approvals", "approve", "apr_x", "--tx", "nope"}, "a transaction hash is 0x followed by 64 hex digits"},
		{[]string{"admin", "approvals", "reject", "apr_x"}, "--reason is required"},
		{[]string{"admin", "payments", "confirm"}, "accepts 1 arg(s), received 0"},
		{[]string{"admin", "members", "list", "--role", "cook"}, `--role "cook": use one of buyer, seller`},
		{[]string{"admin", "announce", "--title", "t"}, "--title and --body are required"},
		{[]string{"admin", "log", "--level", "loud"}, `--level "loud"`},
		{[]string{"admin", "audit", "--limit", "9999"}, "--limit must be 1 to 5000"},
		{[]string{"admin", "metrics", "--hours", "-1"}, "--hours must be 1 to 2160"},
		{[]string{"admin", "trace"}, "accepts 1 arg(s), received 0"},
		{[]string{"tui", "--view", "seller"}, `--view "seller": use buyer or operator`},
		{[]string{"tui"}, "axp tui needs a terminal"},
		{[]string{"completion", "tcsh"}, `invalid argument "tcsh"`},
		{[]string{"call", "get_taks"}, `unknown operation "get_taks"; did you mean get_task?`},
		{[]string{"call", "get_task", "noequals"}, `"noequals": give input fields as KEY=VALUE`},
		{[]string{"serve", "--log-level", "loud", "--data-dir", "unused"}, `log_level "loud"`},
		{[]string{"wallet", "nope"}, `unknown command "nope" for "axp wallet"`},
		{[]string{"wallet", "pay"}, "accepts 1 arg(s), received 0"},
		{[]string{"wallet", "pay", "tsk_x", "--timeout", "0s"}, "--timeout must be positive"},
		{[]string{"wallet", "fund", "--usd", "lots"}, `--usd "lots": give US dollars above 0`},
		{[]string{"wallet", "new", "extra"}, `unknown command "extra" for "axp wallet new"`},
		{[]string{"paid", "call"}, "accepts 1 arg(s), received 0"},
		{[]string{"paid", "call", "http://127.0.0.1:8420/paid/text/injection-check"}, "give the tool's path"},
		{[]string{"paid", "call", "trading/risk?entry=1"}, "give the input with --param KEY=VALUE"},
		{[]string{"paid", "call", "trading/risk", "--data", "{}"}, "/paid/trading/risk is a GET tool: give its input with --param"},
		{[]string{"paid", "call", "trading/risk", "-p", "noequals"}, `--param "noequals": give KEY=VALUE`},
		{[]string{"paid", "call", "text/injection-check", "--data", "[1]"}, "--data: not a JSON object"},
		{[]string{"paid", "call", "text/injection-check", "--max-usd", "lots"}, `--max-usd "lots"`},
		{[]string{"paid", "call", "text/injection-check", "--data", "-", "--passphrase-stdin"}, "both read stdin"},
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

// Missing credentials say which login to run (exit status 4), with nothing on stdout.
func TestMissingCredentials(t *testing.T) {
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"admin", "backup", "x.db"}, "error: no admin token for http://127.0.0.1:8420\nhint: run `axp login`"},
		{[]string{"admin", "stats"}, "error: no admin token for http://127.0.0.1:8420\nhint: run `axp login`"},
		{[]string{"--exchange", "http://127.0.0.1:9/", "admin", "approvals", "list"}, "error: no admin token for http://127.0.0.1:9\n"},
		{[]string{"task", "view", "tsk_x"}, "error: no buyer token for task tsk_x is saved here, or http://127.0.0.1:8420 has no such task\nhint: tasks posted with `axp task create` are remembered"},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			status, stdout, stderr := run(t, tt.args...)
			if status != cmdutil.ExitAuth || stdout != "" || !strings.Contains(stderr, tt.want) {
				t.Errorf("status %d (want %d), stdout %q, stderr %q (want %q)", status, cmdutil.ExitAuth, stdout, stderr, tt.want)
			}
		})
	}
}

func TestHelpAndVersion(t *testing.T) {
	for _, args := range [][]string{{}, {"admin"}, {"--help"}, {"serve", "--help"}, {"--version"}, {"task"}, {"admin", "approvals"},
		{"task", "create", "--help"}, {"tui", "--help"}, {"wallet"}, {"wallet", "pay", "--help"}, {"paid"}, {"paid", "call", "--help"}} {
		status, stdout, stderr := run(t, args...)
		if status != 0 || stdout == "" || stderr != "" {
			t.Errorf("axp %v: status %d, stdout %q, stderr %q", args, status, stdout, stderr)
		}
	}
}

// `axp help exit-codes` documents every exit status the command line uses.
func TestExitCodesDocumented(t *testing.T) {
	status, stdout, stderr := run(t, "help", "exit-codes")
	if status != 0 || stderr != "" {
		t.Fatalf("status %d, stderr %q", status, stderr)
	}
	for _, code := range []int{cmdutil.ExitOK, cmdutil.ExitError, cmdutil.ExitUsage, cmdutil.ExitAuth, cmdutil.ExitNotFound,
		cmdutil.ExitConflict, cmdutil.ExitRateLimited, cmdutil.ExitUnreachable} {
		if !strings.Contains(stdout, "\n  "+strconv.Itoa(code)+"  ") {
			t.Errorf("exit status %d is not documented:\n%s", code, stdout)
		}
	}
	// Help speaks of axp alone: no other tool's help is the reference.
	_, stdout, _ = run(t, "task", "view", "--help")
	if strings.Contains(stdout, "gh help") {
		t.Errorf("help refers to another tool:\n%s", stdout)
	}
}
