package cmd_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/axp-exchange/axp/cmd"
	"github.com/axp-exchange/axp/cmd/cmdtest"
	"github.com/axp-exchange/axp/cmd/cmdtest/inproc"
	"github.com/rogpeppe/go-internal/testscript"
)

// TestMain makes the test binary double as the axp command: scripts run `exec axp ...`, which starts
// this binary again with cmd.Main as its main.
func TestMain(m *testing.M) {
	testscript.Main(cleanup{m}, map[string]func(){"axp": func() { os.Exit(cmd.Main()) }})
}

// cleanup removes the binary cmdtest.AxpBinary built once the tests ran.
type cleanup struct{ m *testing.M }

func (c cleanup) Run() int {
	code := c.m.Run()
	cmdtest.RemoveAxpBinary()
	return code
}

// pollDeadline bounds every wait for a daemon in the scripts.
const pollDeadline = 30 * time.Second

// TestScripts runs testdata/script/*.txtar against the real axp command and a real daemon on loopback.
// Each script has its own work dir, HOME, XDG dirs, data dir and two free ports ($PORT, $PORT2).
func TestScripts(t *testing.T) {
	if testing.Short() {
		t.Skip("end to end scripts of the axp command: make test runs them")
	}
	testscript.Run(t, testscript.Params{
		Dir:                 filepath.Join("..", "testdata", "script"),
		RequireExplicitExec: true,
		Setup:               setupScript,
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"waithttp":   cmdWaitHTTP,
			"httpget":    cmdHTTP(http.MethodGet),
			"httppost":   cmdHTTP(http.MethodPost),
			"jsonenv":    cmdJSONEnv,
			"grepenv":    cmdGrepEnv,
			"signal":     cmdSignal,
			"expand":     cmdExpand,
			"seed":       cmdSeed,
			"waitfile":   cmdWaitFile,
			"eventually": cmdEventually,
		},
	})
}

func setupScript(e *testscript.Env) error {
	for _, v := range []struct{ name, dir string }{
		{"HOME", "home"}, {"XDG_DATA_HOME", "xdg/data"}, {"XDG_CONFIG_HOME", "xdg/config"},
		{"XDG_CACHE_HOME", "xdg/cache"}, {"XDG_STATE_HOME", "xdg/state"},
	} {
		dir := filepath.Join(e.WorkDir, v.dir)
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return err
		}
		e.Setenv(v.name, dir)
	}
	// Every scripted exchange takes crypto payments (without a deposit address choosing a paid
	// offer answers 503; daemon tests cover that).
	e.Setenv("AXP_DEPOSIT_ADDRESS", "0xd0d0d0d0d0d0d0d0d0d0d0d0d0d0d0d0d0d0d0d0")
	for _, name := range []string{"PORT", "PORT2"} {
		port, err := freePort()
		if err != nil {
			return err
		}
		e.Setenv(name, strconv.Itoa(port))
	}
	return nil
}

// freePort asks the kernel for a free loopback port. Another process could take it before the
// daemon listens; on loopback in a test run that is rare enough, and the failure is loud.
func freePort() (int, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port, nil
}

// waithttp URL: poll URL until it answers 200, up to pollDeadline.
// ! waithttp URL: poll until nothing listens there any more.
func cmdWaitHTTP(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 1 {
		ts.Fatalf("usage: waithttp URL")
	}
	mustLoopback(ts, args[0])
	hc := &http.Client{Timeout: 2 * time.Second}
	deadline := time.Now().Add(pollDeadline)
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	var last string
	for {
		resp, err := hc.Get(args[0])
		if err == nil {
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			last = resp.Status
			if !neg && resp.StatusCode == http.StatusOK {
				return
			}
		} else {
			last = err.Error()
			if neg {
				return
			}
		}
		if time.Now().After(deadline) {
			ts.Fatalf("waithttp %s: still %s after %s", args[0], last, pollDeadline)
		}
		<-tick.C
	}
}

// eventually REGEXP PROGRAM [ARGS...]: run the program again until it succeeds with stdout
// matching REGEXP, up to pollDeadline (something a background command does, such as a seller asking
// to be paid); stdout and stderr are then the last run's, for grepenv and stdout.
func cmdEventually(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 {
		ts.Fatalf("usage: eventually REGEXP PROGRAM [ARGS...]")
	}
	re := regexp.MustCompile("(?m)" + args[0])
	deadline := time.Now().Add(pollDeadline)
	for {
		err := ts.Exec(args[1], args[2:]...)
		if err == nil && re.MatchString(ts.ReadFile("stdout")) {
			return
		}
		if time.Now().After(deadline) {
			ts.Fatalf("eventually %s: no run matched %q within %s (last: %v)", args[1], args[0], pollDeadline, err)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// waitfile PATH: poll until the file exists, up to pollDeadline (a background command wrote it).
func cmdWaitFile(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: waitfile PATH")
	}
	deadline := time.Now().Add(pollDeadline)
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for {
		if _, err := os.Stat(ts.MkAbs(args[0])); err == nil {
			return
		}
		if time.Now().After(deadline) {
			ts.Fatalf("waitfile %s: still missing after %s", args[0], pollDeadline)
		}
		<-tick.C
	}
}

// httpget [-status N] [-H 'Name: value']... URL
// httppost [-status N] [-H 'Name: value']... URL BODY (BODY is JSON text, or @file for a file)
// The response body goes to stdout; the status must be N (default 200 for GET, 201 for POST).
func cmdHTTP(method string) func(ts *testscript.TestScript, neg bool, args []string) {
	return func(ts *testscript.TestScript, neg bool, args []string) {
		if neg {
			ts.Fatalf("use -status instead of !")
		}
		want := http.StatusOK
		if method == http.MethodPost {
			want = http.StatusCreated
		}
		header := http.Header{}
		for len(args) > 1 && strings.HasPrefix(args[0], "-") {
			switch args[0] {
			case "-status":
				n, err := strconv.Atoi(args[1])
				ts.Check(err)
				want = n
			case "-H":
				name, val, ok := strings.Cut(args[1], ":")
				if !ok {
					ts.Fatalf("-H wants 'Name: value'")
				}
				header.Add(strings.TrimSpace(name), strings.TrimSpace(val))
			default:
				ts.Fatalf("unknown option %s", args[0])
			}
			args = args[2:]
		}
		nargs := 1
		if method == http.MethodPost {
			nargs = 2
		}
		if len(args) != nargs {
			ts.Fatalf("usage: http%s [-status N] [-H 'Name: value'] URL%s", strings.ToLower(method),
				map[bool]string{true: " BODY", false: ""}[method == http.MethodPost])
		}
		mustLoopback(ts, args[0])
		var body io.Reader
		if method == http.MethodPost {
			text := args[1]
			if f, ok := strings.CutPrefix(text, "@"); ok {
				text = ts.ReadFile(f)
			}
			body = strings.NewReader(text)
			header.Set("Content-Type", "application/json")
		}
		req, err := http.NewRequest(method, args[0], body)
		ts.Check(err)
		req.Header = header
		resp, err := (&http.Client{Timeout: pollDeadline}).Do(req)
		ts.Check(err)
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		ts.Check(err)
		ts.Stdout().Write(b)
		if resp.StatusCode != want {
			ts.Fatalf("%s %s: status %d, want %d", method, args[0], resp.StatusCode, want)
		}
	}
}

func mustLoopback(ts *testscript.TestScript, raw string) {
	if !strings.HasPrefix(raw, "http://127.0.0.1:") {
		ts.Fatalf("%s: scripts talk to loopback only (http://127.0.0.1:PORT)", raw)
	}
}

// jsonenv VAR FIELD: set VAR to the top-level string FIELD of the JSON the previous command wrote
// to stdout.
func cmdJSONEnv(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: jsonenv VAR FIELD")
	}
	var m map[string]any
	if err := json.Unmarshal([]byte(ts.ReadFile("stdout")), &m); err != nil {
		ts.Fatalf("stdout is not a JSON object: %v", err)
	}
	v, ok := m[args[1]].(string)
	if !ok || v == "" {
		ts.Fatalf("stdout has no string field %q", args[1])
	}
	ts.Setenv(args[0], v)
}

// grepenv VAR REGEXP: set VAR to the first submatch of REGEXP in the previous command's stdout.
func cmdGrepEnv(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: grepenv VAR REGEXP")
	}
	re, err := regexp.Compile("(?m)" + args[1])
	ts.Check(err)
	m := re.FindStringSubmatch(ts.ReadFile("stdout"))
	if len(m) < 2 {
		ts.Fatalf("no match for %s in stdout", args[1])
	}
	ts.Setenv(args[0], m[1])
}

// expand SRC DST: copy SRC to DST replacing $VAR and ${VAR} with the script's environment
// (testscript does not expand variables inside archive files).
func cmdExpand(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: expand SRC DST")
	}
	ts.Check(os.WriteFile(ts.MkAbs(args[1]), []byte(os.Expand(ts.ReadFile(args[0]), ts.Getenv)), 0o600))
}

// signal TERM|INT|HUP PATTERN: send the signal to each process this script started (a background
// `exec axp serve ... &`) whose command line contains PATTERN. testscript's own kill only sends INT
// and KILL; a service manager stops a daemon with TERM. Scripts run in parallel in one test
// process, so a process counts as this script's when its HOME is the script's HOME.
func cmdSignal(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: signal TERM|INT|HUP PATTERN")
	}
	sig, ok := map[string]syscall.Signal{"TERM": syscall.SIGTERM, "INT": syscall.SIGINT, "HUP": syscall.SIGHUP}[args[0]]
	if !ok {
		ts.Fatalf("unknown signal %s", args[0])
	}
	if runtime.GOOS != "linux" {
		ts.Fatalf("signal needs /proc (linux)")
	}
	pids, err := children(args[1], "HOME="+ts.Getenv("HOME"))
	ts.Check(err)
	if len(pids) == 0 {
		ts.Fatalf("no process started by this test matches %q", args[1])
	}
	for _, pid := range pids {
		p, err := os.FindProcess(pid)
		ts.Check(err)
		ts.Check(p.Signal(sig))
	}
}

// children lists the processes whose parent is this process, whose environment holds the variable
// setting env and whose command line contains pattern.
func children(pattern, env string) ([]int, error) {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil, err
	}
	self := os.Getpid()
	var out []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		if err != nil {
			continue // gone meanwhile
		}
		// The command name in parentheses may contain spaces; the fields after it do not.
		i := bytes.LastIndexByte(stat, ')')
		fields := strings.Fields(string(stat[i+1:]))
		if len(fields) < 2 || fields[1] != strconv.Itoa(self) {
			continue
		}
		cmdline, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
		if err != nil {
			continue
		}
		environ, err := os.ReadFile(fmt.Sprintf("/proc/%d/environ", pid))
		if err != nil {
			continue
		}
		if strings.Contains(strings.ReplaceAll(string(cmdline), "\x00", " "), pattern) &&
			slices.Contains(strings.Split(string(environ), "\x00"), env) {
			out = append(out, pid)
		}
	}
	return out, nil
}

// seed DATADIR NAME TYPE PRICE ETA [PAYOUT_ADDRESS]: register a verified seller with a standing
// price on the exchange of DATADIR, which must not be running (the verification handshake arrives
// with a later issue, so the seller is marked verified in the store). The registration answer
// (member_id, member_secret, ...) goes to stdout for jsonenv.
func cmdSeed(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 5 || len(args) > 6 {
		ts.Fatalf("usage: seed DATADIR NAME TYPE PRICE ETA [PAYOUT_ADDRESS]")
	}
	eta, err := strconv.Atoi(args[4])
	ts.Check(err)
	spec := cmdtest.SellerSpec{Name: args[1], TaskType: args[2], Price: args[3], ETA: eta}
	if len(args) == 6 {
		spec.Payout = args[5]
	}
	regs, err := inproc.Seed(ts.MkAbs(args[0]), spec)
	ts.Check(err)
	b, err := json.Marshal(regs[0])
	ts.Check(err)
	ts.Stdout().Write(append(b, '\n'))
}
