package outbound

import (
	"context"
	"net"
	"net/http"
	"os"
	"os/exec"
	"sync/atomic"
	"testing"
	"time"
)

// A proxy named in the environment is never used: through it the guard would judge the proxy's
// address and the proxy would reach what the exchange must not. net/http reads the environment
// once per process, so the calls are made in a child process started with the proxy variables
// set; the proxy here counts the connections it is offered.
func TestOutboundIgnoresEnvironmentProxy(t *testing.T) {
	if os.Getenv("AXP_TEST_PROXY_CHILD") == "1" {
		proxyChild(t)
		return
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	var seen atomic.Int64
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			seen.Add(1)
			c.Close()
		}
	}()
	proxy := "http://" + ln.Addr().String()
	t.Setenv("HTTP_PROXY", proxy)
	t.Setenv("HTTPS_PROXY", proxy)
	t.Setenv("http_proxy", proxy)
	t.Setenv("https_proxy", proxy)
	t.Setenv("NO_PROXY", "")
	t.Setenv("no_proxy", "")
	t.Setenv("AXP_TEST_PROXY_CHILD", "1")
	cmd := exec.Command(os.Args[0], "-test.run=^TestOutboundIgnoresEnvironmentProxy$", "-test.count=1")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("child: %v\n%s", err, out)
	}
	if n := seen.Load(); n != 0 {
		t.Fatalf("the proxy from the environment was offered %d connection(s)", n)
	}
}

// proxyChild makes a member call, a callback, a probe and a request of a client from NewClient
// to a host that does not resolve: without the proxy they fail at DNS, through it the proxy
// sees them.
func proxyChild(t *testing.T) {
	const target = "http://member.invalid/mcp"
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	c := &Caller{Timeout: 3 * time.Second}
	if _, err := c.Call(ctx, Target{MemberID: "m", MCPURL: target, PlatformKey: []byte("k")}, "quote", quoteInput(), nil); err == nil {
		t.Error("the member call went through")
	}
	if err := c.PostJSON(ctx, target, []byte("k"), "m", map[string]any{"event": "x"}); err == nil {
		t.Error("the callback went through")
	}
	for _, hc := range []*http.Client{c.HTTPClient(3 * time.Second), NewClient(nil, 3*time.Second)} {
		req, _ := http.NewRequestWithContext(ctx, http.MethodPost, target, nil)
		if res, err := hc.Do(req); err == nil {
			res.Body.Close()
			t.Error("the probe went through")
		}
	}
}
