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

// built is a command a test process builds once from the module's source, into a temporary dir
// that RemoveAxpBinary removes.
type built struct {
	once      sync.Once
	dir, path string
	err       error
}

var axpBin, helperBin built

// build builds the package pkg (as ./cmd/axp, from the module's root) once, as name.
func (b *built) build(goBin, pkg, name string) (string, error) {
	b.once.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
		defer cancel()
		gomod, err := exec.CommandContext(ctx, goBin, "env", "GOMOD").Output()
		if err != nil || strings.TrimSpace(string(gomod)) == "" {
			b.err = fmt.Errorf("find the axp module (go env GOMOD): %v", err)
			return
		}
		if b.dir, b.err = os.MkdirTemp("", "axp-"+name); b.err != nil {
			return
		}
		b.path = filepath.Join(b.dir, name)
		cmd := exec.CommandContext(ctx, goBin, "build", "-o", b.path, pkg)
		cmd.Dir = filepath.Dir(strings.TrimSpace(string(gomod)))
		if out, err := cmd.CombinedOutput(); err != nil {
			b.err = fmt.Errorf("go build %s: %v\n%s", pkg, err, out)
		}
	})
	return b.path, b.err
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
	path, err := axpBin.build(goBin, "./cmd/axp", "axp")
	if err != nil {
		t.Fatal(err)
	}
	return path
}

// RemoveAxpBinary removes the binaries AxpBinary and NewExchange built, if any.
func RemoveAxpBinary() {
	for _, dir := range []string{axpBin.dir, helperBin.dir} {
		if dir != "" {
			os.RemoveAll(dir)
		}
	}
}

// Main runs a package's tests, then removes the binaries they built: the TestMain of a package
// whose tests start exchanges.
func Main(m *testing.M) {
	code := m.Run()
	RemoveAxpBinary()
	os.Exit(code)
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
