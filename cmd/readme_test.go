package cmd_test

import (
	"os"
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
