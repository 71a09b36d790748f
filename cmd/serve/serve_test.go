package serve_test

import (
	"bytes"
	"context"
	"errors"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/axp-exchange/axp/cmd/cmdutil"
	"github.com/axp-exchange/axp/cmd/serve"
	"github.com/axp-exchange/axp/store/pgtest"
)

// ownPostgres starts a PostgreSQL of the test's own, or skips when none is installed.
func ownPostgres(t *testing.T) (*pgtest.Server, string) {
	t.Helper()
	pgtest.SkipShort(t)
	srv, err := pgtest.Start(pgtest.Options{})
	if errors.Is(err, pgtest.ErrNotInstalled) && !pgtest.Required() {
		t.Skip(err)
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Stop)
	dsn, err := srv.NewDatabase()
	if err != nil {
		t.Fatal(err)
	}
	return srv, dsn
}

// syncBuffer is the output of a serve run, read while it runs.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// options runs axp serve on store at a free loopback port with its own data dir.
func options(t *testing.T, store string, out *syncBuffer) *serve.Options {
	env := map[string]string{"AXP_STORE": store, "AXP_ADDR": "127.0.0.1:0", "AXP_DATA_DIR": t.TempDir(),
		"AXP_ADMIN_TOKEN": "axp_admin_test_0123456789abcdef"}
	return &serve.Options{IO: &cmdutil.IOStreams{Out: out, ErrOut: out}, Grace: 5 * time.Second,
		Getenv: func(k string) string { return env[k] },
		Environ: func() []string {
			var kv []string
			for k, v := range env {
				kv = append(kv, k+"="+v)
			}
			return kv
		}}
}

func get(t *testing.T, u string) int {
	t.Helper()
	resp, err := http.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

// A start while PostgreSQL is down waits for it, answering /healthz 200 and /readyz 503 (and
// saying so in the log at each try), then serves once the database is back.
func TestServeWaitsForStore(t *testing.T) {
	pg, dsn := ownPostgres(t)
	if err := pg.Halt(); err != nil {
		t.Fatal(err)
	}
	out := &syncBuffer{}
	o := options(t, dsn, out)
	addr := make(chan string, 1)
	ready := make(chan string, 1)
	o.Listening = func(a string) { addr <- a }
	o.Ready = func(base string) { ready <- base }
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- serve.Run(ctx, o) }()
	defer func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("serve: %v\n%s", err, out)
		}
	}()
	var base string
	select {
	case a := <-addr:
		base = "http://" + a
	case err := <-done:
		t.Fatalf("serve ended while the store was down: %v\n%s", err, out)
	case <-time.After(30 * time.Second):
		t.Fatal("serve did not listen")
	}
	began := time.Now()
	deadline := time.Now().Add(10 * time.Second)
	for !strings.Contains(out.String(), "waiting for the store") {
		if time.Now().After(deadline) {
			t.Fatalf("no log line of a try:\n%s", out)
		}
		time.Sleep(10 * time.Millisecond)
	}
	if s := get(t, base+"/healthz"); s != http.StatusOK {
		t.Errorf("/healthz while waiting: %d", s)
	}
	resp, err := http.Get(base + "/readyz")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusServiceUnavailable || resp.Header.Get("Retry-After") == "" {
		t.Errorf("/readyz while waiting: %d, Retry-After %q", resp.StatusCode, resp.Header.Get("Retry-After"))
	}
	// The outage lasts a few seconds, long enough for a backoff that grows to reach its cap.
	time.Sleep(time.Until(began.Add(3300 * time.Millisecond)))
	if err := pg.Resume(); err != nil {
		t.Fatal(err)
	}
	back := time.Now()
	// The tries come at most maxStoreBackoff (250 ms) apart however long the outage was, so the
	// daemon serves within a second of the store's return (a bound on the pause between tries,
	// with room for the start itself; it was up to 2 s).
	select {
	case <-ready:
	case err := <-done:
		t.Fatalf("serve ended: %v\n%s", err, out)
	case <-time.After(time.Second):
		t.Fatalf("not serving 1 s after the store came back:\n%s", out)
	}
	t.Logf("serving %s after the store came back", time.Since(back).Round(time.Millisecond))
	for get(t, base+"/readyz") != http.StatusOK {
		if time.Since(back) > 10*time.Second {
			t.Fatalf("/readyz not 200 after the store came back:\n%s", out)
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Logf("ready %s after the store came back", time.Since(back).Round(time.Millisecond))
}

// A wrong password is not an outage: the start ends at once with the cause.
func TestServeWrongPasswordExits(t *testing.T) {
	pg, dsn := ownPostgres(t)
	u, _ := url.Parse(dsn)
	wrong, err := pg.RequirePassword(strings.TrimPrefix(u.Path, "/"), "axp_pw", "right-password", "wrong-password")
	if err != nil {
		t.Fatal(err)
	}
	out := &syncBuffer{}
	began := time.Now()
	err = serve.Run(context.Background(), options(t, wrong, out))
	if err == nil || !strings.Contains(err.Error(), "28P01") && !strings.Contains(err.Error(), "password") {
		t.Fatalf("serve with a wrong password: %v\n%s", err, out)
	}
	if strings.Contains(out.String(), "waiting for the store") || time.Since(began) > 10*time.Second {
		t.Fatalf("serve waited (%s) on a wrong password:\n%s", time.Since(began), out)
	}
	t.Logf("ended with: %v", err)
}

// store_wait bounds the wait at start: serve gives up once it has waited that long, not before.
func TestServeStoreWait(t *testing.T) {
	// A port nobody listens on: every try is refused, an outage.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	out := &syncBuffer{}
	o := options(t, "postgres://axp@"+addr+"/axp?sslmode=disable", out)
	env := o.Getenv
	o.Getenv = func(k string) string {
		if k == "AXP_STORE_WAIT" {
			return "3s"
		}
		return env(k)
	}
	environ := o.Environ
	o.Environ = func() []string { return append(environ(), "AXP_STORE_WAIT=3s") }
	began := time.Now()
	err = serve.Run(context.Background(), o)
	waited := time.Since(began)
	if err == nil || !strings.Contains(err.Error(), "store_wait") {
		t.Fatalf("serve on an unreachable store: %v\n%s", err, out)
	}
	if waited < 3*time.Second {
		t.Fatalf("gave up after %s, before store_wait (3s):\n%s", waited.Round(time.Millisecond), out)
	}
	t.Logf("gave up after %s: %v", waited.Round(time.Millisecond), err)
}
