package cmdutil_test

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/axp-exchange/axp"
	"github.com/axp-exchange/axp/client"
	"github.com/axp-exchange/axp/cmd/cmdutil"
	"github.com/axp-exchange/axp/memberkit"
)

func factory(t *testing.T, env map[string]string) (*cmdutil.Factory, *bytes.Buffer) {
	var out bytes.Buffer
	return &cmdutil.Factory{IO: &cmdutil.IOStreams{In: strings.NewReader(""), Out: &out, ErrOut: &bytes.Buffer{}},
		Getenv: func(k string) string { return env[k] }}, &out
}

func TestExchangeURL(t *testing.T) {
	f, _ := factory(t, nil)
	if got := f.ExchangeURL(); got != "http://127.0.0.1:8420" {
		t.Errorf("default %s", got)
	}
	f, _ = factory(t, map[string]string{"AXP_EXCHANGE": "HTTPS://Exchange.Example/"})
	if got := f.ExchangeURL(); got != "https://exchange.example" {
		t.Errorf("env %s", got)
	}
	f.Exchange = "http://127.0.0.1:9/base/"
	if got := f.ExchangeURL(); got != "http://127.0.0.1:9/base" {
		t.Errorf("flag %s", got)
	}
}

func TestCredentials(t *testing.T) {
	dir := t.TempDir()
	f, _ := factory(t, map[string]string{"XDG_CONFIG_HOME": dir})
	if f.CredentialsPath() != filepath.Join(dir, "axp", "credentials.json") {
		t.Fatalf("path %s", f.CredentialsPath())
	}
	if e, err := f.ExchangeCredentials(); err != nil || e.AdminToken != "" {
		t.Fatalf("empty: %+v %v", e, err)
	}
	// Two exchanges keep their own secrets; concurrent saves all land.
	var wg sync.WaitGroup
	for i := range 20 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := f.SaveBuyerToken(fmt.Sprintf("tsk_%02d", i), fmt.Sprintf("bt_%d", i)); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	other, _ := factory(t, map[string]string{"XDG_CONFIG_HOME": dir, "AXP_EXCHANGE": "http://127.0.0.1:9"})
	other.UpdateCredentials(func(e *cmdutil.ExchangeCredentials) error { e.AdminToken = "axp_admin_other"; return nil })
	e, _ := f.ExchangeCredentials()
	if len(e.TaskIDs()) != 20 || e.AdminToken != "" || e.TaskIDs()[0] != "tsk_00" {
		t.Errorf("saved %+v", e)
	}
	if e, _ := other.ExchangeCredentials(); e.AdminToken != "axp_admin_other" || len(e.BuyerTokens) != 0 {
		t.Errorf("other exchange %+v", e)
	}
	st, _ := os.Stat(f.CredentialsPath())
	if st.Mode().Perm() != 0o600 {
		t.Errorf("mode %v", st.Mode())
	}
	if left, _ := filepath.Glob(filepath.Join(dir, "axp", ".credentials-*")); len(left) != 0 {
		t.Errorf("temporary files left: %v", left)
	}
	// A change that removes everything removes the exchange.
	other.UpdateCredentials(func(e *cmdutil.ExchangeCredentials) error { e.AdminToken = ""; return nil })
	b, _ := os.ReadFile(f.CredentialsPath())
	if strings.Contains(string(b), "127.0.0.1:9\"") {
		t.Errorf("empty exchange kept:\n%s", b)
	}
	// A damaged file says what to do.
	os.WriteFile(f.CredentialsPath(), []byte("{"), 0o600)
	if _, err := f.ExchangeCredentials(); err == nil || !strings.Contains(err.Error(), "is damaged") {
		t.Errorf("damaged: %v", err)
	}
	// Without HOME or XDG_CONFIG_HOME nothing is read and saving says why.
	none, _ := factory(t, nil)
	if _, err := none.ExchangeCredentials(); err != nil {
		t.Error(err)
	}
	if err := none.SaveBuyerToken("t", "b"); err == nil || !strings.Contains(err.Error(), "set HOME or XDG_CONFIG_HOME") {
		t.Errorf("no home: %v", err)
	}
	home, _ := factory(t, map[string]string{"HOME": dir})
	if home.ConfigDir() != filepath.Join(dir, ".config", "axp") {
		t.Errorf("home config dir %s", home.ConfigDir())
	}
}

func TestClients(t *testing.T) {
	dir := t.TempDir()
	f, _ := factory(t, map[string]string{"XDG_CONFIG_HOME": dir})
	_, err := f.AdminClient()
	var ae *axp.Error
	if !errors.As(err, &ae) || ae.Code != axp.CodeUnauthorized || !strings.Contains(ae.Hint, "axp login") {
		t.Errorf("no admin token: %v", err)
	}
	f.UpdateCredentials(func(e *cmdutil.ExchangeCredentials) error { e.AdminToken = "saved"; return nil })
	if c, _ := f.AdminClient(); c.Token != "saved" {
		t.Errorf("saved token %q", c.Token)
	}
	env, _ := factory(t, map[string]string{"XDG_CONFIG_HOME": dir, "AXP_ADMIN_TOKEN": "from-env"})
	if c, _ := env.AdminClient(); c.Token != "from-env" {
		t.Errorf("env token %q", c.Token)
	}

	if _, err := f.BuyerClient("tsk_1", ""); !errors.As(err, &ae) || !strings.Contains(ae.Message, "no buyer token for task tsk_1 is saved here, or http://127.0.0.1:8420 has no such task") {
		t.Errorf("no buyer token: %v", err)
	}
	f.UpdateCredentials(func(e *cmdutil.ExchangeCredentials) error { e.MemberSecret = "ss_member"; return nil })
	if c, _ := f.BuyerClient("tsk_1", ""); c.Token != "ss_member" {
		t.Errorf("member fallback %q", c.Token)
	}
	f.SaveBuyerToken("tsk_1", "bt_saved")
	if c, _ := f.BuyerClient("tsk_1", ""); c.Token != "bt_saved" {
		t.Errorf("saved buyer token %q", c.Token)
	}
	if c, _ := f.BuyerClient("tsk_1", "bt_flag"); c.Token != "bt_flag" {
		t.Errorf("--token %q", c.Token)
	}
	if c, _ := f.MemberClient(); c == nil || c.Token != "ss_member" {
		t.Errorf("member client %+v", c)
	}
}

func TestExporter(t *testing.T) {
	body := []byte(`{"id":"tsk_1","offers":[{"price_usd":2.5},{"price_usd":3}],"payable_usd":2.500002,"tag":null}` + "\n")
	for _, tt := range []struct {
		e    cmdutil.Exporter
		tty  bool
		want string
	}{
		{cmdutil.Exporter{JSON: true}, false, string(body)},
		{cmdutil.Exporter{JSON: true}, true, "{\n  \"id\": \"tsk_1\",\n  \"offers\": [\n    {\n      \"price_usd\": 2.5\n    },\n    {\n      \"price_usd\": 3\n    }\n  ],\n  \"payable_usd\": 2.500002,\n  \"tag\": null\n}\n"},
		{cmdutil.Exporter{JQ: ".offers[].price_usd"}, false, "2.5\n3\n"},
		// Amounts keep every digit (go-gh's jq would print 2.50).
		{cmdutil.Exporter{JQ: ".payable_usd, .tag, (.offers | length), (.offers | length > 1)"}, false, "2.500002\nnull\n2\ntrue\n"},
		{cmdutil.Exporter{JQ: ".offers[0]"}, false, "{\"price_usd\":2.5}\n"},
		{cmdutil.Exporter{JQ: ".offers[0]"}, true, "{\n  \"price_usd\": 2.5\n}\n"},
		{cmdutil.Exporter{JQ: ".id"}, false, "tsk_1\n"},
		{cmdutil.Exporter{Template: "{{.id}}: {{len .offers}} offers"}, false, "tsk_1: 2 offers"},
	} {
		var out bytes.Buffer
		s := &cmdutil.IOStreams{Out: &out, StdoutTTY: tt.tty, NoColor: true}
		if err := tt.e.Write(s, body); err != nil || out.String() != tt.want {
			t.Errorf("%+v tty=%v: %v\n got %q\nwant %q", tt.e, tt.tty, err, out.String(), tt.want)
		}
	}
	for _, e := range []cmdutil.Exporter{{JQ: ".["}, {JQ: ".id | error"}, {Template: "{{.id"}, {Template: "{{.id.x.y}}"}} {
		var out bytes.Buffer
		err := e.Write(&cmdutil.IOStreams{Out: &out}, body)
		if cmdutil.ExitStatus(err) != cmdutil.ExitUsage || out.Len() != 0 {
			t.Errorf("%+v: %v, stdout %q", e, err, out.String())
		}
	}
}

func TestExitStatusAndPrintError(t *testing.T) {
	for err, want := range map[error]int{
		nil:                                    0,
		errors.New("x"):                        1,
		cmdutil.Usagef("bad"):                  2,
		&axp.Error{Code: axp.CodeInvalidInput}: 2,
		&axp.Error{Code: axp.CodeForbidden}:    4,
		&axp.Error{Code: axp.CodeNotFound}:     5,
		&axp.Error{Code: axp.CodeConflict}:     6,
		&axp.Error{Code: axp.CodeRateLimited}:  7,
		&client.UnreachableError{URL: "u", Err: errors.New("refused")}:    8,
		fmt.Errorf("wrapped: %w", &axp.Error{Code: axp.CodeUnauthorized}): 4,
		fmt.Errorf("pay: %w", cmdutil.ErrCancelled):                       0,
	} {
		if got := cmdutil.ExitStatus(err); got != want {
			t.Errorf("ExitStatus(%v) = %d, want %d", err, got, want)
		}
	}
	var b bytes.Buffer
	cmdutil.PrintError(&b, &axp.Error{Code: axp.CodeInvalidInput, Field: "params.duration", Message: "is 99", Hint: "5 to 30"})
	if b.String() != "error: params.duration: is 99\nhint: 5 to 30\n" {
		t.Errorf("printed %q", b.String())
	}
	b.Reset()
	cmdutil.PrintError(&b, cmdutil.ErrCancelled) // answering "no" is not an error
	if b.String() != "cancelled: nothing done\n" {
		t.Errorf("printed %q", b.String())
	}
	err := cmdutil.WithHint(&axp.Error{Code: axp.CodeConflict, Message: "m", Hint: "old"}, "new", axp.CodeUnauthorized)
	if err.(*axp.Error).Hint != "old" {
		t.Error("WithHint changed another code's hint")
	}
	orig := &axp.Error{Code: axp.CodeUnauthorized, Message: "m", Hint: "old"}
	if err := cmdutil.WithHint(orig, "new"); err.(*axp.Error).Hint != "new" || orig.Hint != "old" {
		t.Error("WithHint did not copy and replace")
	}
}

func TestKeyValuesAndColour(t *testing.T) {
	var out bytes.Buffer
	s := &cmdutil.IOStreams{Out: &out}
	cmdutil.KeyValues(s, "Deposit address", "0xd0", "Empty", "", "Pay by", "soon")
	if out.String() != "deposit_address:\t0xd0\npay_by:\tsoon\n" {
		t.Errorf("plain %q", out.String())
	}
	out.Reset()
	s.StdoutTTY, s.NoColor = true, true
	cmdutil.KeyValues(s, "Deposit address", "0xd0", "Pay by", "soon")
	if out.String() != "Deposit address  0xd0\nPay by           soon\n" {
		t.Errorf("terminal %q", out.String())
	}
	if cs := s.ColorScheme(); cs.Red("x") != "x" {
		t.Error("colour with NO_COLOR")
	}
	s.NoColor = false
	if cs := s.ColorScheme(); cs.Status("disputed") != "\x1b[31mdisputed\x1b[0m" {
		t.Errorf("colour on a terminal: %q", cs.Status("disputed"))
	}
	s.StdoutTTY = false
	if cs := s.ColorScheme(); cs.Green("x") != "x" {
		t.Error("colour without a terminal")
	}
}

func TestConfirmAndSpinner(t *testing.T) {
	for in, want := range map[string]bool{"y\n": true, "YES\n": true, "n\n": false, "\n": false, "": false, "yep\n": false} {
		var errOut bytes.Buffer
		got, err := cmdutil.Confirm(&cmdutil.IOStreams{In: strings.NewReader(in), ErrOut: &errOut}, "Go?")
		if err != nil || got != want || errOut.String() != "? Go? [y/N] " {
			t.Errorf("%q: %v %v %q", in, got, err, errOut.String())
		}
	}
	var errOut bytes.Buffer
	cmdutil.StartSpinner(&cmdutil.IOStreams{ErrOut: &errOut}, "Working").Stop()
	if errOut.Len() != 0 {
		t.Errorf("spinner without a terminal: %q", errOut.String())
	}
	sp := cmdutil.StartSpinner(&cmdutil.IOStreams{ErrOut: &errOut, StderrTTY: true}, "Working")
	sp.Stop()
	sp.Stop()
	if !strings.HasPrefix(errOut.String(), "\r⠋ Working (0s)") || !strings.HasSuffix(errOut.String(), "\r\x1b[K") {
		t.Errorf("spinner %q", errOut.String())
	}
}

// A member run by `axp member serve` is used by the other commands without a second login, on its
// own exchange only.
func TestMemberClientFromMemberDirectory(t *testing.T) {
	dir := t.TempDir()
	f, _ := factory(t, map[string]string{"XDG_CONFIG_HOME": dir})
	if c, err := f.MemberClient(); c != nil || err != nil {
		t.Fatalf("no credentials: %v %v", c, err)
	}
	creds := &memberkit.Credentials{Exchange: "http://127.0.0.1:8420", MemberID: "mem_1",
		MemberSecret: "ss_mem_1_" + strings.Repeat("a", 64), PlatformKey: "pk_x", Roles: []string{"seller"}}
	if err := creds.Save(memberkit.CredentialsPath(filepath.Join(dir, "axp", "member"))); err != nil {
		t.Fatal(err)
	}
	if c, _ := f.MemberClient(); c == nil || c.Token != creds.MemberSecret {
		t.Fatalf("member directory fallback: %+v", c)
	}
	f.Exchange = "http://127.0.0.1:9999"
	if c, _ := f.MemberClient(); c != nil {
		t.Errorf("another exchange used the member directory's secret")
	}
}

// --dir names the directory of a `axp member serve --dir DIR` run: its member, on its exchange,
// before the login store; without --dir a run in the working directory is found too.
func TestMemberClientFromDir(t *testing.T) {
	cfg, work := t.TempDir(), t.TempDir()
	f, _ := factory(t, map[string]string{"XDG_CONFIG_HOME": cfg})
	f.WorkDir = work
	seller := &memberkit.Credentials{Exchange: "http://127.0.0.1:7001/", MemberID: "mem_s",
		MemberSecret: "ss_mem_s_" + strings.Repeat("b", 64), PlatformKey: "pk_x", Roles: []string{"seller"}}
	if err := seller.Save(memberkit.CredentialsPath(filepath.Join(work, "member"))); err != nil {
		t.Fatal(err)
	}
	f.MemberDir = filepath.Join(work, "nowhere")
	var e *axp.Error
	if _, err := f.MemberClient(); !errors.As(err, &e) || e.Code != axp.CodeNotFound || !strings.Contains(e.Hint, "axp member serve --dir DIR") {
		t.Fatalf("--dir without credentials: %v", err)
	}
	f.MemberDir = filepath.Join(work, "member")
	if err := f.UpdateCredentials(func(e *cmdutil.ExchangeCredentials) error { e.MemberSecret = "ss_login"; return nil }); err != nil {
		t.Fatal(err)
	}
	if u, src := f.ExchangeSource(); u != "http://127.0.0.1:7001" || src != "--dir" {
		t.Errorf("exchange of --dir: %s %s", u, src)
	}
	if c, err := f.MemberClient(); err != nil || c == nil || c.Token != seller.MemberSecret || c.BaseURL != "http://127.0.0.1:7001" {
		t.Fatalf("--dir: %+v %v", c, err)
	}
	// Without --dir: the login store first, then the run in the working directory.
	f.MemberDir, f.Exchange = "", "http://127.0.0.1:7001"
	if c, _ := f.MemberClient(); c == nil || c.Token != "ss_login" {
		t.Fatalf("login store: %+v", c)
	}
	f.UpdateCredentials(func(e *cmdutil.ExchangeCredentials) error { e.MemberSecret = ""; return nil })
	if c, _ := f.MemberClient(); c == nil || c.Token != seller.MemberSecret {
		t.Fatalf("a run in the working directory: %+v", c)
	}
}

// A step that moves money or power: --yes goes ahead, a terminal is asked (and "n" changes
// nothing), no terminal is a usage error (exit status 2) whose hint is --yes.
func TestConfirmStep(t *testing.T) {
	described := 0
	describe := func() ([]string, error) { described++; return []string{"sends US$1 to the seller"}, nil }
	var errOut bytes.Buffer
	s := &cmdutil.IOStreams{In: strings.NewReader(""), Out: io.Discard, ErrOut: &errOut}
	if err := cmdutil.ConfirmStep(s, true, "approve apr_1", describe); err != nil || described != 0 {
		t.Fatalf("--yes: %v (described %d times)", err, described)
	}
	err := cmdutil.ConfirmStep(s, false, "approve apr_1", describe)
	if cmdutil.ExitStatus(err) != cmdutil.ExitUsage || described != 0 {
		t.Fatalf("no terminal: %v, status %d, want %d", err, cmdutil.ExitStatus(err), cmdutil.ExitUsage)
	}
	cmdutil.PrintError(&errOut, err)
	if !strings.Contains(errOut.String(), "hint: run it again with --yes") {
		t.Errorf("no terminal: %q", errOut.String())
	}
	for answer, want := range map[string]error{"n\n": cmdutil.ErrCancelled, "\n": cmdutil.ErrCancelled, "y\n": nil, "yes\n": nil} {
		errOut.Reset()
		tty := &cmdutil.IOStreams{In: strings.NewReader(answer), Out: io.Discard, ErrOut: &errOut, StdinTTY: true, StderrTTY: true}
		if err := cmdutil.ConfirmStep(tty, false, "approve apr_1", describe); !errors.Is(err, want) || (want == nil && err != nil) {
			t.Errorf("answer %q: %v, want %v", answer, err, want)
		}
		if !strings.Contains(errOut.String(), "  sends US$1 to the seller\n? Approve apr_1? [y/N] ") {
			t.Errorf("answer %q: the question was %q", answer, errOut.String())
		}
	}
}

func TestCount(t *testing.T) {
	for n, want := range map[int]string{0: "0 offers", 1: "1 offer", 2: "2 offers"} {
		if got := cmdutil.Count(n, "offer", "offers"); got != want {
			t.Errorf("Count(%d) = %q, want %q", n, got, want)
		}
	}
}

// An exchange URL as a person types it: without a scheme, with the API's /api, with a slash.
func TestNormalizeExchange(t *testing.T) {
	for in, want := range map[string]string{
		"http://127.0.0.1:8420":       "http://127.0.0.1:8420",
		"127.0.0.1:8420":              "http://127.0.0.1:8420",
		"localhost:8420/":             "http://localhost:8420",
		"HTTP://LocalHost:8420/api/":  "http://localhost:8420",
		"http://127.0.0.1:8420/api":   "http://127.0.0.1:8420",
		"axp.example.com":             "https://axp.example.com",
		"https://axp.example.com/x/":  "https://axp.example.com/x",
		"https://axp.example.com/api": "https://axp.example.com",
	} {
		if got := cmdutil.NormalizeExchange(in); got != want {
			t.Errorf("NormalizeExchange(%q) = %q, want %q", in, got, want)
		}
	}
}
