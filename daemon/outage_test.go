package daemon_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/axp-exchange/axp/daemon"
	"github.com/axp-exchange/axp/store/pgtest"
)

// ownPostgres starts a PostgreSQL of the test's own (it is stopped and started again, which the
// package's shared server must not be), or skips as pgtest.DSN does.
func ownPostgres(t *testing.T) *pgtest.Server {
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
	return srv
}

// outageAnswer is one answer seen by the load of TestOutageAnswers503.
type outageAnswer struct {
	what       string
	status     int
	retryAfter string
	code       string
	rpcStatus  string // the google.rpc status name of an A2A 1.0 HTTP+JSON error
	http       bool   // the door answers errors as HTTP statuses
	body       string
	down       bool // asked and answered while PostgreSQL was stopped
}

// While PostgreSQL is stopped, every call that needs the store answers 503 unavailable with
// Retry-After on every door (none 500), /readyz says 503 and /healthz 200; once it is back, the
// same daemon serves again within a couple of seconds, without a restart.
func TestOutageAnswers503(t *testing.T) {
	pg := ownPostgres(t)
	dsn, err := pg.NewDatabase()
	if err != nil {
		t.Fatal(err)
	}
	e := newEnv(t, func(c *daemon.Config) { c.Store = dsn })
	m := e.register(map[string]any{})
	task, _ := createTask(t, e.anon, map[string]any{"type": "text-file", "params": map[string]any{"prompt": "a haiku about the sea"}})
	base := e.srv.URL
	hc := &http.Client{Timeout: 30 * time.Second}

	// http: the door answers errors as HTTP statuses (not inside a JSON-RPC or tool result), so an
	// outage is 503 there. The A2A calls with a member secret are refused at authentication, those
	// with a buyer token by the operation.
	const sendV1 = `{"message":{"messageId":"outage-test-message-2","role":"ROLE_USER","parts":[{"text":"write a short poem about the sea"}]}}`
	calls := []struct {
		what, method, path, token, body string
		http                            bool
	}{
		{"REST admin_stats", "GET", "/api/admin/stats", adminToken, "", true},
		{"REST get_my_profile", "GET", "/api/members/me", m.MemberSecret, "", true},
		{"MCP get_my_profile", "POST", "/mcp", m.MemberSecret, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"get_my_profile","arguments":{}}}`, false},
		{"A2A message/send", "POST", "/a2a", m.MemberSecret, `{"jsonrpc":"2.0","id":1,"method":"message/send","params":{"message":{"kind":"message","messageId":"outage-test-message-1","role":"user","parts":[{"kind":"text","text":"write a short poem about the sea"}]}}}`, false},
		{"A2A 1.0 SendMessage", "POST", "/a2a", m.MemberSecret, `{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":` + sendV1 + `}`, false},
		{"A2A 1.0 GetTask", "POST", "/a2a", task.BuyerToken, `{"jsonrpc":"2.0","id":1,"method":"GetTask","params":{"id":"` + task.ID + `"}}`, false},
		{"A2A 1.0 HTTP+JSON message:send", "POST", "/a2a/v1/message:send", m.MemberSecret, sendV1, true},
		{"A2A 1.0 HTTP+JSON GET tasks/{id}", "GET", "/a2a/v1/tasks/" + task.ID, task.BuyerToken, "", true},
	}
	do := func(i int) (outageAnswer, error) {
		c := calls[i%len(calls)]
		req, _ := http.NewRequest(c.method, base+c.path, strings.NewReader(c.body))
		req.Header.Set("Authorization", "Bearer "+c.token)
		if c.body != "" {
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Accept", "application/json, text/event-stream")
		}
		resp, err := hc.Do(req)
		if err != nil {
			return outageAnswer{}, err
		}
		defer resp.Body.Close()
		raw, _ := io.ReadAll(resp.Body)
		return outageAnswer{what: c.what, http: c.http, status: resp.StatusCode, retryAfter: resp.Header.Get("Retry-After"),
			code: errorCode(raw), rpcStatus: rpcStatus(raw), body: string(raw)}, nil
	}
	status := func(path string) int {
		resp, err := hc.Get(base + path)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	for i := range calls {
		if a, err := do(i); err != nil || a.status != http.StatusOK || a.code != "" {
			t.Fatalf("%s before the outage: %v %d %s", calls[i].what, err, a.status, a.body)
		}
	}
	if s := status("/readyz"); s != http.StatusOK {
		t.Fatalf("/readyz before the outage: %d", s)
	}

	// phase counts the outage's edges: odd while PostgreSQL is stopped.
	var phase atomic.Int64
	var mu sync.Mutex
	var answers []outageAnswer
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				before := phase.Load()
				a, err := do(i)
				if err != nil {
					a = outageAnswer{what: calls[i%len(calls)].what, body: err.Error()}
				}
				a.down = before%2 == 1 && phase.Load() == before
				mu.Lock()
				answers = append(answers, a)
				mu.Unlock()
			}
		}()
	}

	if err := pg.Halt(); err != nil {
		t.Fatal(err)
	}
	phase.Add(1)
	// The load runs against the stopped database for a while: until each call was refused a
	// few times.
	deadline := time.Now().Add(10 * time.Second)
	for {
		mu.Lock()
		n := 0
		for _, a := range answers {
			if a.down {
				n++
			}
		}
		mu.Unlock()
		if n >= 5*len(calls) || time.Now().After(deadline) {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	if s := status("/readyz"); s != http.StatusServiceUnavailable {
		t.Errorf("/readyz while PostgreSQL is stopped: %d, want 503", s)
	}
	if s := status("/healthz"); s != http.StatusOK {
		t.Errorf("/healthz while PostgreSQL is stopped: %d, want 200", s)
	}
	phase.Add(1)
	if err := pg.Resume(); err != nil {
		t.Fatal(err)
	}
	back := time.Now()
	for status("/readyz") != http.StatusOK {
		if time.Since(back) > 5*time.Second {
			t.Fatalf("/readyz still not 200 %s after PostgreSQL came back", time.Since(back))
		}
		time.Sleep(20 * time.Millisecond)
	}
	for i := range calls {
		for {
			a, err := do(i)
			if err == nil && a.status == http.StatusOK && a.code == "" {
				break
			}
			if time.Since(back) > 5*time.Second {
				t.Fatalf("%s %s after PostgreSQL came back: %v %d %s", calls[i].what, time.Since(back), err, a.status, a.body)
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	t.Logf("serving again %s after PostgreSQL came back", time.Since(back).Round(time.Millisecond))
	close(stop)
	wg.Wait()

	down := 0
	for _, a := range answers {
		if a.status >= 500 && a.status != http.StatusServiceUnavailable || a.code == "internal" {
			t.Errorf("%s answered %d %s", a.what, a.status, a.body)
		}
		if !a.down {
			continue
		}
		down++
		// The JSON-RPC doors answer a tool's error inside a 200 (MCP) or as a JSON-RPC error; every
		// door gives the code, and Retry-After where the answer is HTTP's.
		if a.code != "unavailable" || (a.status != http.StatusOK && a.retryAfter == "") ||
			(a.status != http.StatusOK && a.status != http.StatusServiceUnavailable) ||
			a.http && a.status != http.StatusServiceUnavailable {
			t.Errorf("%s while PostgreSQL was stopped: %d Retry-After %q: %s", a.what, a.status, a.retryAfter, a.body)
		}
		if strings.HasPrefix(a.what, "A2A 1.0 HTTP+JSON") && a.rpcStatus != "UNAVAILABLE" {
			t.Errorf("%s while PostgreSQL was stopped: status %q, want UNAVAILABLE: %s", a.what, a.rpcStatus, a.body)
		}
	}
	if down < len(calls) {
		t.Fatalf("only %d answers while PostgreSQL was stopped", down)
	}
}

// errorCode finds the exchange's error code in an answer of any door: "" when it is none.
func errorCode(raw []byte) string {
	var v any
	dec := json.NewDecoder(bytes.NewReader(raw))
	if dec.Decode(&v) != nil {
		return ""
	}
	return findCode(v)
}

// rpcStatus is the google.rpc status name of an A2A 1.0 HTTP+JSON error body ("" when none).
func rpcStatus(raw []byte) string {
	var body struct {
		Error struct {
			Status string `json:"status"`
		} `json:"error"`
	}
	json.Unmarshal(raw, &body)
	return body.Error.Status
}

func findCode(v any) string {
	switch v := v.(type) {
	case map[string]any:
		if e, ok := v["error"].(map[string]any); ok {
			if c, ok := e["code"].(string); ok {
				return c
			}
			if d, ok := e["data"].(map[string]any); ok {
				if c, ok := d["code"].(string); ok {
					return c
				}
			}
			// A2A 1.0: the exchange's code is in the metadata of the google.rpc.ErrorInfo, in
			// error.data[] (JSON-RPC) or error.details[] (HTTP+JSON).
			for _, k := range []string{"data", "details"} {
				list, _ := e[k].([]any)
				for _, d := range list {
					info, _ := d.(map[string]any)
					meta, _ := info["metadata"].(map[string]any)
					if c, ok := meta["code"].(string); ok {
						return c
					}
				}
			}
			return "rpc error" // a JSON-RPC error without the exchange's code
		}
		if v["isError"] == true {
			for _, c := range v["content"].([]any) {
				if text, ok := c.(map[string]any)["text"].(string); ok {
					return errorCode([]byte(text))
				}
			}
		}
		for _, k := range []string{"result"} {
			if c := findCode(v[k]); c != "" {
				return c
			}
		}
	}
	return ""
}
