package cmdtest

import (
	"bufio"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"
)

// StatePath is where the helper process takes a member's new state (POST, form id and state,
// the admin token as bearer): the one door a test has into the daemon it runs.
const StatePath = "/cmdtest/member-state"

// HelperEnv names a built helper (make test-short builds it once per run, so that the test cache
// sees it: a test opens it, and a rebuilt helper runs the tests again). Without it, the first
// exchange of a test process builds one into a temporary dir, removed by RemoveAxpBinary.
const HelperEnv = "AXP_TEST_EXCHANGED"

// helper is the path of the exchange helper (cmd/cmdtest/exchanged).
func helper(t testing.TB) string {
	t.Helper()
	if p := os.Getenv(HelperEnv); p != "" {
		f, err := os.Open(p) // the test cache follows the files a test opens
		if err != nil {
			t.Fatalf("%s: %v (make test-short builds it)", HelperEnv, err)
		}
		f.Close()
		return p
	}
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Fatalf("no go command to build the exchange helper with (or set %s)", HelperEnv)
	}
	path, err := helperBin.build(goBin, "./cmd/cmdtest/exchanged", "exchanged")
	if err != nil {
		t.Fatal(err)
	}
	return path
}

// NewExchange starts an exchange on loopback over a temporary data dir, in a helper process
// (Config's settings); the test stops it.
func NewExchange(t testing.TB) *Exchange {
	t.Helper()
	cmd := exec.Command(helper(t), "-data-dir", t.TempDir())
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr SyncBuffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatalf("start the exchange helper: %v", err)
	}
	p := &process{cmd: cmd, stdin: stdin, stderr: &stderr}
	first := make(chan string, 1)
	go func() {
		line, _ := bufio.NewReader(stdout).ReadString('\n')
		first <- strings.TrimSpace(line)
		io.Copy(io.Discard, stdout)
	}()
	select {
	case u := <-first:
		if !strings.HasPrefix(u, "http://") {
			p.Close()
			t.Fatalf("the exchange helper did not start: %q\n%s", u, stderr.String())
		}
		p.url = u
	case <-time.After(30 * time.Second):
		p.Close()
		t.Fatalf("the exchange helper did not start within 30s\n%s", stderr.String())
	}
	return Attach(t, p.url, AdminToken, p)
}

// process is an exchange in a helper process.
type process struct {
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	stderr *SyncBuffer
	url    string
	once   sync.Once
	err    error
}

func (p *process) SetState(id, state string) error {
	req, err := http.NewRequest(http.MethodPost, p.url+StatePath, strings.NewReader(url.Values{"id": {id}, "state": {state}}.Encode()))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Authorization", "Bearer "+AdminToken)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusNoContent {
		body, _ := io.ReadAll(resp.Body)
		return fmt.Errorf("set %s %s: %s %s", id, state, resp.Status, body)
	}
	return nil
}

// Close ends the helper's standard input, on which it stops the exchange and exits.
func (p *process) Close() error {
	p.once.Do(func() {
		p.stdin.Close()
		done := make(chan error, 1)
		go func() { done <- p.cmd.Wait() }()
		select {
		case err := <-done:
			if err != nil {
				p.err = fmt.Errorf("the exchange helper: %v\n%s", err, p.stderr.String())
			}
		case <-time.After(30 * time.Second):
			p.cmd.Process.Kill()
			<-done
			p.err = fmt.Errorf("the exchange helper did not stop within 30s\n%s", p.stderr.String())
		}
	})
	return p.err
}
