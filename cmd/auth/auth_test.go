package auth_test

import (
	"context"
	"reflect"
	"strings"
	"testing"

	"github.com/axp-exchange/axp/cmd/auth"
	"github.com/axp-exchange/axp/cmd/cmdtest"
	"github.com/axp-exchange/axp/cmd/cmdutil"
	"github.com/axp-exchange/axp/memberkit"
)

func TestLoginReadsTheSecret(t *testing.T) {
	f, s := cmdtest.Factory(t, "http://127.0.0.1:1", nil)
	var got string
	capture := func(_ context.Context, o *auth.LoginOptions) error { got = o.Secret; return nil }

	s.In.WriteString("  ss_mem_x_abc \n")
	if err := cmdtest.Exec(auth.NewCmdLogin(f, capture), "--with-token"); err != nil || got != "ss_mem_x_abc" {
		t.Errorf("--with-token: %q %v", got, err)
	}
	// No terminal and no --with-token: a usage error.
	if err := cmdtest.Exec(auth.NewCmdLogin(f, capture)); cmdutil.ExitStatus(err) != cmdutil.ExitUsage {
		t.Errorf("no terminal: %v", err)
	}
	// On a terminal the secret is asked for (stdin here is not a real terminal: read as a line).
	f.IO.StdinTTY, f.IO.StderrTTY = true, true
	s.In.WriteString("axp_admin_typed\n")
	if err := cmdtest.Exec(auth.NewCmdLogin(f, capture)); err != nil || got != "axp_admin_typed" || !strings.Contains(s.ErrOut.String(), "? Paste a member secret or the admin token: ") {
		t.Errorf("prompt: %q %v %q", got, err, s.ErrOut)
	}
	for _, in := range []string{"\n", "two words\n"} {
		s.In.WriteString(in)
		if err := cmdtest.Exec(auth.NewCmdLogin(f, capture), "--with-token"); cmdutil.ExitStatus(err) != cmdutil.ExitUsage {
			t.Errorf("%q: %v", in, err)
		}
	}
}

func TestLoginLogout(t *testing.T) {
	x := cmdtest.NewExchange(t)
	m, err := x.Register(map[string]any{"roles": []string{"buyer"}, "name": "Buyer Bot"})
	if err != nil {
		t.Fatal(err)
	}
	f, s := cmdtest.Factory(t, x.URL+"/", nil)

	s.In.WriteString(m.MemberSecret)
	if err := cmdtest.Exec(auth.NewCmdLogin(f, nil), "--with-token"); err != nil {
		t.Fatal(err)
	}
	if want := "✓ Logged in to " + x.URL + " as member Buyer Bot (" + m.MemberID + "; buyer; registered)\n"; s.ErrOut.String() != want {
		t.Errorf("member login: %q, want %q", s.ErrOut, want)
	}
	s.Reset()
	s.In.WriteString(cmdtest.AdminToken + "\n")
	if err := cmdtest.Exec(auth.NewCmdLogin(f, nil), "--with-token"); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(s.ErrOut.String(), "✓ Logged in to "+x.URL+" as the operator (admin token ") {
		t.Errorf("admin login: %q", s.ErrOut)
	}
	e, err := f.ExchangeCredentials()
	if err != nil || e.MemberSecret != m.MemberSecret || e.MemberID != m.MemberID || e.AdminToken != cmdtest.AdminToken {
		t.Fatalf("saved %+v %v", e, err)
	}

	// Refused credentials are not saved.
	for _, bad := range []string{"axp_admin_nope", "ss_" + m.MemberID + "_" + strings.Repeat("0", 64), "ss_short"} {
		s.Reset()
		s.In.WriteString(bad)
		err := cmdtest.Exec(auth.NewCmdLogin(f, nil), "--with-token")
		if st := cmdutil.ExitStatus(err); st != cmdutil.ExitAuth && st != cmdutil.ExitUsage {
			t.Errorf("%s: %v", bad, err)
		}
	}
	// Garbage is not a valid token (not "needs the admin token"); a buyer token says where it goes.
	for bad, want := range map[string]string{
		"garbage":     "error: not a valid token: neither a member secret (ss_<member id>_...) nor the admin token of " + x.URL + "\n",
		"bt_0123abcd": "error: this is a task's buyer token (bt_...), which `axp login` does not keep: pass it with --token",
	} {
		s.Reset()
		s.In.WriteString(bad)
		err := cmdtest.Exec(auth.NewCmdLogin(f, nil), "--with-token")
		var b strings.Builder
		cmdutil.PrintError(&b, err)
		if !strings.HasPrefix(b.String(), want) || strings.Contains(b.String(), "needs the admin token") {
			t.Errorf("login with %s: %q", bad, b.String())
		}
	}
	if e2, _ := f.ExchangeCredentials(); !reflect.DeepEqual(e2, e) {
		t.Errorf("credentials changed by a refused login: %+v", e2)
	}

	// Logout: the admin token only, then everything.
	s.Reset()
	if err := cmdtest.Exec(auth.NewCmdLogout(f, nil), "--admin"); err != nil {
		t.Fatal(err)
	}
	if e, _ := f.ExchangeCredentials(); e.AdminToken != "" || e.MemberSecret == "" {
		t.Errorf("after logout --admin: %+v", e)
	}
	f.SaveBuyerToken("tsk_1", "bt_1")
	s.Reset()
	if err := cmdtest.Exec(auth.NewCmdLogout(f, nil)); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(s.ErrOut.String(), "✓ Forgot the member secret of "+m.MemberID) {
		t.Errorf("logout: %q", s.ErrOut)
	}
	if e, _ := f.ExchangeCredentials(); e.MemberSecret != "" || e.BuyerTokens["tsk_1"] != "bt_1" {
		t.Errorf("logout kept %+v", e)
	}
	s.Reset()
	if err := cmdtest.Exec(auth.NewCmdLogout(f, nil), "--buyer-tokens"); err != nil || !strings.Contains(s.ErrOut.String(), "1 buyer token") {
		t.Errorf("logout --buyer-tokens: %v %q", err, s.ErrOut)
	}
	s.Reset()
	if err := cmdtest.Exec(auth.NewCmdLogout(f, nil)); err != nil || !strings.Contains(s.ErrOut.String(), "Nothing to forget") {
		t.Errorf("logout again: %v %q", err, s.ErrOut)
	}
}

// login --dir saves the member `axp member serve --dir DIR` keeps there, for its own exchange.
func TestLoginFromMemberDir(t *testing.T) {
	x := cmdtest.NewExchange(t)
	m, err := x.Register(map[string]any{"roles": []string{"seller"}, "name": "Dir Seller"})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	creds := &memberkit.Credentials{Exchange: x.URL, MemberID: m.MemberID, MemberSecret: m.MemberSecret, PlatformKey: "pk_x"}
	if err := creds.Save(memberkit.CredentialsPath(dir)); err != nil {
		t.Fatal(err)
	}
	f, s := cmdtest.Factory(t, "", nil)
	if err := cmdtest.Exec(auth.NewCmdLogin(f, nil), "--dir", t.TempDir()); cmdutil.ExitStatus(err) != cmdutil.ExitNotFound {
		t.Errorf("--dir without credentials: %v", err)
	}
	if err := cmdtest.Exec(auth.NewCmdLogin(f, nil), "--dir", dir); err != nil {
		t.Fatalf("login --dir: %v (%s)", err, s.ErrOut)
	}
	if !strings.Contains(s.ErrOut.String(), "✓ Logged in to "+x.URL+" as member Dir Seller ("+m.MemberID) {
		t.Errorf("stderr %q", s.ErrOut)
	}
	f.MemberDir = ""
	if u, src := f.ExchangeSource(); u != x.URL || src != "axp login" {
		t.Errorf("remembered exchange: %s %s", u, src)
	}
	if e, err := f.ExchangeCredentials(); err != nil || e.MemberSecret != m.MemberSecret || e.MemberID != m.MemberID {
		t.Errorf("saved %+v %v", e, err)
	}
}
