package daemon_test

import (
	"bufio"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/axp-exchange/axp/daemon"
)

// A request over a per-address limit is refused with 429 as soon as its headers arrive: it does
// not wait for its body, however slowly that comes. Each request here announces a body and then
// trickles it a byte at a time; the 429 must arrive before the body is finished.
func TestRateLimitRefusedBeforeSlowBody(t *testing.T) {
	e := newEnv(t, func(c *daemon.Config) { c.AnonReadsPerMinute = 1; c.AnonTasksPerMinute = 1 })
	addr := strings.TrimPrefix(e.srv.URL, "http://")
	body := `{"type": "text-file", "params": {"prompt": "a poem about the sea"}}`
	for _, c := range []struct{ name, path string }{
		{"REST anonymous budget", "/api/interest"},
		{"REST task posts", "/api/tasks"},
		{"MCP anonymous budget", "/mcp"},
		{"A2A anonymous budget", "/a2a"},
	} {
		t.Run(c.name, func(t *testing.T) {
			// Spend the budget: the first request is whole and fast.
			first := `{"type": "video"}`
			if c.path == "/api/tasks" {
				first = body
			}
			slowPostStatus(t, addr, c.path, first, 0)
			status, finished := slowPostStatus(t, addr, c.path, body, 30*time.Millisecond)
			if status != http.StatusTooManyRequests || finished {
				t.Fatalf("status %d, body finished before the answer: %v", status, finished)
			}
		})
	}
}

// slowPostStatus posts body a byte every gap and returns the answer's status and whether the
// whole body had been sent when the answer came.
func slowPostStatus(t *testing.T, addr, path, body string, gap time.Duration) (int, bool) {
	t.Helper()
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	head := "POST " + path + " HTTP/1.1\r\nHost: " + addr + "\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\n"
	if path == "/mcp" || path == "/a2a" {
		method := `"tools/call", "params": {"name": "register_interest", "arguments": {"type": "video"}}`
		if path == "/a2a" {
			method = `"message/send", "params": {"message": {"kind": "message", "messageId": "m1", "role": "user", "parts": [{"kind": "text", "text": "hi"}]}}`
		}
		body = `{"jsonrpc": "2.0", "id": 1, "method": ` + method + `}`
	}
	if _, err := conn.Write([]byte(head + "Content-Length: " + strconv.Itoa(len(body)) + "\r\n\r\n")); err != nil {
		t.Fatal(err)
	}
	var done atomic.Bool
	stop := make(chan struct{})
	defer close(stop)
	go func() {
		if gap == 0 {
			conn.Write([]byte(body))
			done.Store(true)
			return
		}
		for i := range len(body) {
			select {
			case <-stop:
				return
			case <-time.After(gap):
			}
			if _, err := conn.Write([]byte{body[i]}); err != nil {
				return
			}
		}
		done.Store(true)
	}()
	conn.SetReadDeadline(time.Now().Add(20 * time.Second))
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatalf("%s: no answer: %v", path, err)
	}
	resp.Body.Close()
	return resp.StatusCode, done.Load()
}
