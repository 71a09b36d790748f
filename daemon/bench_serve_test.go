package daemon_test

import (
	"bufio"
	"fmt"
	"io"
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
	"github.com/axp-exchange/axp/store"
)

// BenchmarkServeStart starts the real `axp serve` (built with go build into a temporary dir) on a
// copy of a store holding 0, 100k and 1M seeded tasks (the files BenchmarkStoredTasks seeds), as a
// user would, on a port the OS picks, and stops it with SIGTERM; each iteration is one start.
// Figures: line-ms (process start to the "axp exchange serving at" line on stdout), ready-ms (to the
// first 200 from /healthz), and the process's memory from /proc/PID/status once ready and again after
// a few requests (20 POST /api/tasks and GET /api/tasks/{id}): rss-MB (VmRSS, which counts the pages
// of the mapped database file the process touched), anon-MB (RssAnon: the heap and stacks), and
// hwm-MB (VmHWM, the peak RSS). The last iteration's memory is reported; the times are means. Each
// start follows a clean stop; crash-ready-ms and crash-rss-MB are one start after a SIGKILL.
func BenchmarkServeStart(b *testing.B) {
	if runtime.GOOS != "linux" {
		b.Skip("reads /proc/PID/status")
	}
	bin := cmdtest.AxpBinary(b)
	for _, n := range []int{0, 100_000, 1_000_000} {
		b.Run(fmt.Sprintf("tasks=%d", n), func(b *testing.B) { benchServeStart(b, bin, n) })
	}
}

func benchServeStart(b *testing.B, bin string, n int) {
	home := b.TempDir()
	data := filepath.Join(home, "data")
	if err := os.MkdirAll(data, 0o700); err != nil {
		b.Fatal(err)
	}
	if n > 0 {
		if err := benchCopyFile(seededTasks(b, n), filepath.Join(data, store.FileName)); err != nil {
			b.Fatal(err)
		}
	}
	// The seeded file was written by commits that skip bbolt's freelist: one start and clean stop
	// first, as an exchange that has run before.
	startServe(b, bin, home, data).stop(b)
	var line, ready time.Duration
	var atReady, afterCalls procMemory
	b.ResetTimer()
	for range b.N {
		s := startServe(b, bin, home, data)
		line += s.line
		ready += s.ready
		atReady = readProcMemory(b, s.cmd.Process.Pid)
		benchServeCalls(b, s.base)
		afterCalls = readProcMemory(b, s.cmd.Process.Pid)
		s.stop(b)
	}
	b.StopTimer()
	// After a crash (SIGKILL once a task was stored) the next start rebuilds the freelist from
	// the pages themselves.
	s := startServe(b, bin, home, data)
	benchServeCalls(b, s.base)
	s.kill()
	s = startServe(b, bin, home, data)
	crashReady, crashMem := s.ready, readProcMemory(b, s.cmd.Process.Pid)
	s.stop(b)
	b.ReportMetric(benchMS(line/time.Duration(b.N)), "line-ms")
	b.ReportMetric(benchMS(ready/time.Duration(b.N)), "ready-ms")
	b.ReportMetric(atReady.rss, "ready-rss-MB")
	b.ReportMetric(atReady.anon, "ready-anon-MB")
	b.ReportMetric(afterCalls.rss, "rss-MB")
	b.ReportMetric(afterCalls.anon, "anon-MB")
	b.ReportMetric(afterCalls.hwm, "hwm-MB")
	b.ReportMetric(benchMS(crashReady), "crash-ready-ms")
	b.ReportMetric(crashMem.rss, "crash-rss-MB")
}

// benchServeCalls posts 20 tasks and reads each back.
func benchServeCalls(b *testing.B, base string) {
	hc := &http.Client{Timeout: time.Minute}
	defer hc.CloseIdleConnections()
	for range 20 {
		created, err := benchPostTask(hc, base)
		if err != nil {
			b.Fatal(err)
		}
		if err := benchGetTask(hc, base, created.ID, created.BuyerToken); err != nil {
			b.Fatal(err)
		}
	}
}

// servedAxp is a running `axp serve`.
type servedAxp struct {
	cmd         *exec.Cmd
	base        string
	line, ready time.Duration // from the process's start
	exited      chan error
	stderr      *strings.Builder
}

// startServe starts `axp serve` on data and waits until /healthz answers 200.
func startServe(b *testing.B, bin, home, data string) *servedAxp {
	cmd := exec.Command(bin, "serve", "--addr", "127.0.0.1:0", "--data-dir", data)
	cmd.Env = []string{"HOME=" + home, "XDG_DATA_HOME=" + filepath.Join(home, "xdg"), "PATH=" + os.Getenv("PATH"),
		"AXP_ADMIN_TOKEN=" + benchAdminToken, "AXP_ANON_TASKS_PER_MINUTE=0", "AXP_ANON_READS_PER_MINUTE=0"}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		b.Fatal(err)
	}
	s := &servedAxp{cmd: cmd, exited: make(chan error, 1), stderr: &strings.Builder{}}
	cmd.Stderr = s.stderr // read only once exited has answered
	t0 := time.Now()
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	bases := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			if u, ok := strings.CutPrefix(sc.Text(), "axp exchange serving at "); ok {
				s.line = time.Since(t0)
				bases <- u
			}
		}
		io.Copy(io.Discard, stdout)
		close(bases)
	}()
	go func() { s.exited <- cmd.Wait() }()
	failed := func(why string) {
		cmd.Process.Kill()
		err := <-s.exited
		b.Fatalf("axp serve: %s (%v)\nstderr:\n%s", why, err, s.stderr)
	}
	select {
	case u, ok := <-bases:
		if !ok {
			failed("stdout closed before the serving line")
		}
		s.base = u
	case <-time.After(2 * time.Minute):
		failed("no serving line within 2 minutes")
	}
	hc := &http.Client{Timeout: 10 * time.Second}
	defer hc.CloseIdleConnections()
	deadline := time.Now().Add(time.Minute)
	for {
		resp, err := hc.Get(s.base + "/healthz")
		if err == nil {
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				s.ready = time.Since(t0)
				return s
			}
		}
		if time.Now().After(deadline) {
			failed("no 200 from /healthz within a minute")
		}
		time.Sleep(time.Millisecond)
	}
}

// stop sends SIGTERM and waits for the process to exit.
func (s *servedAxp) stop(b *testing.B) {
	if err := s.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		b.Fatal(err)
	}
	select {
	case err := <-s.exited:
		if err != nil {
			b.Fatalf("axp serve after SIGTERM: %v\nstderr:\n%s", err, s.stderr)
		}
	case <-time.After(time.Minute):
		s.cmd.Process.Kill()
		<-s.exited
		b.Fatalf("axp serve still running a minute after SIGTERM")
	}
}

// kill stops the process with SIGKILL.
func (s *servedAxp) kill() {
	s.cmd.Process.Kill()
	<-s.exited
}

// procMemory is a process's memory in MB, from /proc/PID/status.
type procMemory struct{ rss, anon, hwm float64 }

func readProcMemory(b *testing.B, pid int) procMemory {
	kb, err := cmdtest.ProcStatusKB(strconv.Itoa(pid))
	if err != nil {
		b.Fatal(err)
	}
	return procMemory{rss: float64(kb["VmRSS"]) / 1024, anon: float64(kb["RssAnon"]) / 1024, hwm: float64(kb["VmHWM"]) / 1024}
}
