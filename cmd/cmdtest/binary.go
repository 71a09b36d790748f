package cmdtest

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

var axpBin struct {
	once      sync.Once
	dir, path string
	err       error
}

// AxpBinary builds the axp command once per test process, as a user would (go build ./cmd/axp at
// the module's root), and returns its path; a test on a machine without the go command is skipped.
// The binary stays until RemoveAxpBinary, which TestMain calls once the tests ran.
func AxpBinary(t testing.TB) string {
	t.Helper()
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command to build axp with")
	}
	axpBin.once.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
		defer cancel()
		gomod, err := exec.CommandContext(ctx, goBin, "env", "GOMOD").Output()
		if err != nil || strings.TrimSpace(string(gomod)) == "" {
			axpBin.err = fmt.Errorf("find the axp module (go env GOMOD): %v", err)
			return
		}
		if axpBin.dir, axpBin.err = os.MkdirTemp("", "axp-bin"); axpBin.err != nil {
			return
		}
		axpBin.path = filepath.Join(axpBin.dir, "axp")
		build := exec.CommandContext(ctx, goBin, "build", "-o", axpBin.path, "./cmd/axp")
		build.Dir = filepath.Dir(strings.TrimSpace(string(gomod)))
		if out, err := build.CombinedOutput(); err != nil {
			axpBin.err = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if axpBin.err != nil {
		t.Fatal(axpBin.err)
	}
	return axpBin.path
}

// RemoveAxpBinary removes the binary AxpBinary built, if any.
func RemoveAxpBinary() {
	if axpBin.dir != "" {
		os.RemoveAll(axpBin.dir)
	}
}
