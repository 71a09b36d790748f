package cmd_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"
)

// TestREADMEQuickstart keeps the README's quickstart and testdata/script/quickstart.txtar, which
// runs it, the same: every command the script marks "# readme:" is in the README as written, and
// the README shows the script's skills.yaml and do-job byte for byte.
func TestREADMEQuickstart(t *testing.T) {
	readme, err := os.ReadFile(filepath.Join("..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	ar, err := txtar.ParseFile(filepath.Join("..", "testdata", "script", "quickstart.txtar"))
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, line := range strings.Split(string(ar.Comment), "\n") {
		if cmd, ok := strings.CutPrefix(line, "# readme: "); ok {
			n++
			if !strings.Contains(string(readme), "    "+cmd+"\n") {
				t.Errorf("the README's quickstart lacks the command %q", cmd)
			}
		}
	}
	if n < 5 {
		t.Fatalf("the quickstart script marks only %d commands", n)
	}
	for _, f := range ar.Files {
		if f.Name != "skills.yaml" && f.Name != "do-job" {
			continue
		}
		if !strings.Contains(string(readme), "\n"+string(f.Data)+"```\n") {
			t.Errorf("the README does not show %s as the quickstart script has it:\n%s", f.Name, f.Data)
		}
	}
}

// TestREADMESetUp: the set-up section shows exactly two commands, make run and make test, and
// says how make run serves on another address; make run passes ADDR to axp serve, in test mode.
func TestREADMESetUp(t *testing.T) {
	readme, err := os.ReadFile(filepath.Join("..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	s := string(readme)
	start := strings.Index(s, "## Set up on a fresh machine")
	end := strings.Index(s[start+1:], "\n## ")
	if start < 0 || end < 0 {
		t.Fatal("the README has no set-up section")
	}
	section := s[start : start+1+end]
	var cmds []string
	for _, line := range strings.Split(section, "\n") {
		if c, ok := strings.CutPrefix(line, "    "); ok {
			cmds = append(cmds, strings.TrimSpace(c))
		}
	}
	if strings.Join(cmds, "; ") != "make run; make test" {
		t.Errorf("the set-up section's commands: %q, want make run and make test", cmds)
	}
	if !strings.Contains(section, "`ADDR=") {
		t.Error("the set-up section does not say how make run takes ADDR=")
	}
	mk, err := exec.LookPath("make")
	if err != nil {
		t.Skip("no make")
	}
	cmd := exec.Command(mk, "-n", "run", "ADDR=127.0.0.1:9123")
	cmd.Dir = ".."
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "serve --test-mode --addr 127.0.0.1:9123") {
		t.Fatalf("make -n run ADDR=127.0.0.1:9123: %v\n%s", err, out)
	}
}

// TestMakeTestTiers: make test runs every test (no -short), make test-short the fast tier, and the
// README's development section names make test-short.
func TestMakeTestTiers(t *testing.T) {
	mk, err := exec.LookPath("make")
	if err != nil {
		t.Skip("no make")
	}
	dry := func(target string) string {
		cmd := exec.Command(mk, "-n", target)
		cmd.Dir = ".."
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("make -n %s: %v\n%s", target, err, out)
		}
		return string(out)
	}
	if all := dry("test"); strings.Contains(all, "-short") || !strings.Contains(all, " test -count=1 -timeout 10m ./...") {
		t.Errorf("make test does not run every test:\n%s", all)
	}
	if short := dry("test-short"); !strings.Contains(short, " test -short ") || !strings.Contains(short, " ./...") {
		t.Errorf("make test-short does not run go test -short over every package:\n%s", short)
	}
	readme, err := os.ReadFile(filepath.Join("..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	if dev := string(readme)[strings.Index(string(readme), "## Development"):]; !strings.Contains(dev, "make test-short") {
		t.Error("the README's development section does not name make test-short")
	}
}
