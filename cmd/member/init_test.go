package member_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/axp-exchange/axp/cmd/cmdtest"
	"github.com/axp-exchange/axp/memberkit"
)

// TestInitBuilds: `axp member init` writes a module that builds against this repository (a replace
// directive) for both roles, and the generated seller, run as it stands against a real exchange,
// registers, verifies and passes conformance.
func TestInitBuilds(t *testing.T) {
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command")
	}
	bin := cmdtest.AxpBinary(t)
	work := t.TempDir()
	env := testEnv(work)
	// The module cache already holds every dependency (this repository builds); stay offline.
	// GOPROXY=off alone is not offline: a go.sum line missing from the new module makes go ask
	// the checksum database, which a fresh machine cannot reach. init --replace seeds go.sum from
	// this checkout, and GOSUMDB=off keeps the database out of it, so the test depends
	// on no earlier lookup cached in GOMODCACHE. tidy also wants the modules that only tests of
	// dependencies import (which this repository never downloads), so it runs with -e; vet and
	// build below prove that the module is complete.
	buildEnv := append(env, "GOFLAGS=-mod=mod", "GOPROXY=off", "GOTOOLCHAIN=local", "GOSUMDB=off")
	root := repoRoot(t)
	built := map[string]string{}
	for _, role := range []string{"seller", "buyer"} {
		dir := filepath.Join(work, "my-"+role)
		status, stdout, stderr := run(t, env, bin, "member", "init", dir, "--role", role, "--replace", root)
		if status != 0 {
			t.Fatalf("init %s: status %d\n%s\n%s", role, status, stdout, stderr)
		}
		for _, f := range []string{"go.mod", "go.sum", "main.go", "README.md"} {
			if !strings.Contains(stdout, filepath.Join(dir, f)) {
				t.Errorf("init did not list %s:\n%s", f, stdout)
			}
		}
		mod, _ := os.ReadFile(filepath.Join(dir, "go.mod"))
		if !strings.Contains(string(mod), "replace github.com/axp-exchange/axp => "+root) {
			t.Fatalf("go.mod:\n%s", mod)
		}
		for _, args := range [][]string{{"mod", "tidy", "-e"}, {"vet", "./..."}, {"build", "-o", role, "."}} {
			cmd := exec.Command(goBin, args...)
			cmd.Dir, cmd.Env = dir, buildEnv
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("go %s in the %s module: %v\n%s", strings.Join(args, " "), role, err, out)
			}
		}
		built[role] = filepath.Join(dir, role)
		// A second init refuses to overwrite the files.
		if status, _, stderr := run(t, env, bin, "member", "init", dir, "--role", role); status != 2 || !strings.Contains(stderr, "already exists") {
			t.Fatalf("init over existing files: status %d %s", status, stderr)
		}
	}
	// Without --replace the replace line is there, commented, with the explanation.
	plain := filepath.Join(work, "plain")
	if status, _, stderr := run(t, env, bin, "member", "init", plain, "--role", "seller"); status != 0 || !strings.Contains(stderr, "replace") {
		t.Fatalf("init without --replace: %d %s", status, stderr)
	}
	mod, _ := os.ReadFile(filepath.Join(plain, "go.mod"))
	if !strings.Contains(string(mod), "// replace github.com/axp-exchange/axp => ../axp") || !strings.Contains(string(mod), "module example.com/plain") {
		t.Fatalf("go.mod without --replace:\n%s", mod)
	}

	// The generated seller, as it stands, passes conformance.
	ex := newExchange(t)
	memberDir := filepath.Join(work, "seller-member")
	seller := start(t, "generated seller", env, built["seller"], "-exchange", ex.URL, "-dir", memberDir)
	var creds *memberkit.Credentials
	eventually(t, "the generated seller registers", func() error {
		creds, err = memberkit.LoadCredentials(memberkit.CredentialsPath(memberDir))
		return err
	})
	kit := memberkit.NewClient(ex.URL, creds.MemberSecret)
	eventually(t, "the generated seller verifies", func() error {
		p, err := kit.Profile(context.Background())
		if err != nil {
			return err
		}
		if !p.Verified {
			return fmt.Errorf("state %s; stderr:\n%s", p.State, seller.stderr)
		}
		return nil
	})
	rep, err := kit.Conformance(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if !rep.Passed || rep.Warnings != 0 {
		t.Fatalf("conformance of the generated seller: %+v", rep)
	}
	// memberkit refuses replays by default: the warning-level check passes.
	refused := false
	for _, c := range rep.Checks {
		refused = refused || (c.Name == "refuses_replay" && c.OK)
	}
	if !refused {
		t.Fatalf("the generated seller accepted a replayed call: %+v", rep.Checks)
	}
	seller.stop()
}

// TestInitUsesTheExchange: the generated README runs the agent against the exchange init was
// given (--exchange or AXP_EXCHANGE), and against the default address without one.
func TestInitUsesTheExchange(t *testing.T) {
	bin := cmdtest.AxpBinary(t)
	work := t.TempDir()
	env := testEnv(work)
	for _, tc := range []struct {
		env  []string
		args []string
		want string
	}{
		{nil, []string{"--exchange", "http://127.0.0.1:9123"}, "http://127.0.0.1:9123"},
		{[]string{"AXP_EXCHANGE=http://127.0.0.1:9456"}, nil, "http://127.0.0.1:9456"},
		{nil, nil, "http://127.0.0.1:8420"},
	} {
		dir := filepath.Join(work, fmt.Sprint("agent", strings.Join(tc.args, ""), len(tc.env)))
		status, _, stderr := run(t, append(append([]string(nil), env...), tc.env...), bin,
			append([]string{"member", "init", dir, "--role", "seller"}, tc.args...)...)
		if status != 0 || !strings.Contains(stderr, "-exchange "+tc.want) {
			t.Fatalf("init %v: %d\n%s", tc.args, status, stderr)
		}
		// Without --replace it says the command that builds from a clone, as the front door gives it.
		if !strings.Contains(stderr, "axp member init "+dir+" --role seller --replace . --force") {
			t.Fatalf("init without --replace does not say how to build from a clone:\n%s", stderr)
		}
		readme, _ := os.ReadFile(filepath.Join(dir, "README.md"))
		if !strings.Contains(string(readme), " -exchange "+tc.want+"\n") {
			t.Fatalf("README of init %v %v:\n%s", tc.env, tc.args, readme)
		}
	}
}
