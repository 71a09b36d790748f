package cmdtest

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
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
// The binary stays until RemoveAxpBinary, which TestMain calls once the tests ran. Under go test
// -short the test is skipped: tests of the built binary are the end-to-end tier.
func AxpBinary(t testing.TB) string {
	t.Helper()
	if testing.Short() {
		t.Skip("end to end with the built axp binary: make test runs it")
	}
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

// ProcStatusKB reads the sizes /proc/PID/status gives in kB (VmRSS, VmHWM, RssAnon and the others)
// by name; pid "self" is this process. Only Linux has the file.
func ProcStatusKB(pid string) (map[string]int64, error) {
	raw, err := os.ReadFile("/proc/" + pid + "/status")
	if err != nil {
		return nil, err
	}
	out := map[string]int64{}
	for _, line := range strings.Split(string(raw), "\n") {
		name, value, _ := strings.Cut(line, ":")
		f := strings.Fields(value)
		if len(f) != 2 || f[1] != "kB" {
			continue
		}
		if kb, err := strconv.ParseInt(f[0], 10, 64); err == nil {
			out[name] = kb
		}
	}
	return out, nil
}
