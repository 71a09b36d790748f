package cmd_test

import (
	"errors"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/axp-exchange/axp/cmd/cmdtest"
)

// syncBuffer is a buffer safe to read while a process writes to it.
type syncBuffer = cmdtest.SyncBuffer

// TestBuiltBinary builds axp as a user would and runs `axp serve` as a separate process: it comes
// up on loopback, answers /healthz, and exits 0 on SIGTERM with the database closed.
func TestBuiltBinary(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("SIGTERM is a unix signal")
	}
	bin := cmdtest.AxpBinary(t)

	port, err := freePort()
	if err != nil {
		t.Fatal(err)
	}
	base := "http://127.0.0.1:" + strconv.Itoa(port)
	home := t.TempDir()
	data := filepath.Join(t.TempDir(), "data")
	srv := exec.Command(bin, "serve", "--addr", "127.0.0.1:"+strconv.Itoa(port), "--data-dir", data)
	srv.Env = []string{"HOME=" + home, "XDG_DATA_HOME=" + filepath.Join(home, "data"), "PATH=" + os.Getenv("PATH")}
	var stdout, stderr syncBuffer
	srv.Stdout, srv.Stderr = &stdout, &stderr
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- srv.Wait() }()
	t.Cleanup(func() {
		if srv.ProcessState == nil {
			srv.Process.Kill()
			<-done
		}
	})

	waitHealthy(t, base, done, &stderr)

	if err := srv.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-done:
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			t.Fatalf("axp serve exited with status %d after SIGTERM\nstderr:\n%s", ee.ExitCode(), stderr.String())
		} else if err != nil {
			t.Fatal(err)
		}
	case <-time.After(20 * time.Second):
		t.Fatalf("axp serve still running 20s after SIGTERM\nstderr:\n%s", stderr.String())
	}
	if want := "axp exchange serving at " + base + "\n"; !strings.Contains(stdout.String(), want) {
		t.Errorf("stdout lacks %q:\n%s", want, stdout.String())
	}
	if !strings.Contains(stdout.String(), "admin token (shown once") {
		t.Errorf("first start did not print the admin token:\n%s", stdout.String())
	}
	if !strings.Contains(stderr.String(), "database closed") {
		t.Errorf("stderr does not say the database closed:\n%s", stderr.String())
	}
	if _, err := os.Stat(filepath.Join(data, "axp.db")); err != nil {
		t.Errorf("no database in the data dir: %v", err)
	}
}

// waitHealthy polls base/healthz until it answers 200; it fails the test when exited (if not nil)
// reports that the server process ended first, or after 30 seconds. stderr is shown on failure.
func waitHealthy(t *testing.T, base string, exited <-chan error, stderr *syncBuffer) {
	t.Helper()
	hc := &http.Client{Timeout: 2 * time.Second}
	deadline := time.Now().Add(30 * time.Second)
	for {
		resp, err := hc.Get(base + "/healthz")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("no answer from %s/healthz within 30s (last error %v)\nstderr:\n%s", base, err, stderr.String())
		}
		select {
		case err := <-exited:
			t.Fatalf("axp serve exited before answering: %v\nstderr:\n%s", err, stderr.String())
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// killable is an `axp serve` of the real binary on a free loopback port and its own data dir, which
// a test kills with SIGKILL and starts again on the same data dir. The process gets only env (and
// PATH); extra flags follow serve.
type killable struct {
	t      *testing.T
	bin    string
	base   string
	data   string // the data dir
	args   []string
	env    []string
	cmd    *exec.Cmd
	stderr syncBuffer
}

// startKillable starts the exchange and kills it when the test ends.
func startKillable(t *testing.T, env []string, flags ...string) *killable {
	t.Helper()
	port, err := freePort()
	if err != nil {
		t.Fatal(err)
	}
	addr, data := "127.0.0.1:"+strconv.Itoa(port), filepath.Join(t.TempDir(), "data")
	k := &killable{t: t, bin: cmdtest.AxpBinary(t), base: "http://" + addr, data: data,
		args: append([]string{"serve", "--addr", addr, "--data-dir", data}, flags...),
		env:  append([]string{"PATH=" + os.Getenv("PATH")}, env...)}
	k.start()
	t.Cleanup(func() {
		if k.cmd.ProcessState == nil {
			k.kill()
		}
	})
	return k
}

// start starts the exchange (again) and waits until it answers.
func (k *killable) start() {
	k.t.Helper()
	k.cmd = exec.Command(k.bin, k.args...)
	k.cmd.Env = k.env
	k.cmd.Stderr = &k.stderr
	if err := k.cmd.Start(); err != nil {
		k.t.Fatal(err)
	}
	waitHealthy(k.t, k.base, nil, &k.stderr)
}

// kill stops the exchange with SIGKILL.
func (k *killable) kill() {
	k.cmd.Process.Kill()
	k.cmd.Wait()
}
