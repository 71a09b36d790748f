package daemon_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/http/httptest"
	"os"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/axp-exchange/axp"
	"github.com/axp-exchange/axp/client"
	"github.com/axp-exchange/axp/cmd/cmdtest"
	"github.com/axp-exchange/axp/contract"
	"github.com/axp-exchange/axp/daemon"
	"github.com/axp-exchange/axp/daemon/kernel"
	"github.com/axp-exchange/axp/protocol"
	"github.com/axp-exchange/axp/store"
	"github.com/axp-exchange/axp/store/pgtest"
)

// adminToken is the operator's token of every test exchange.
const adminToken = "axp_admin_test_0123456789abcdef"

// env is one exchange over a temporary data dir, served on loopback, with clients for it.
type env struct {
	t     *testing.T
	d     *daemon.Daemon
	srv   *httptest.Server
	dir   string
	anon  *client.Client // no credentials
	admin *client.Client // the admin token
	once  sync.Once
}

var names atomic.Int64

func TestMain(m *testing.M) {
	if os.Getenv(benchSellersEnv) == "1" {
		// Not a test run: the sellers' process of BenchmarkQuoteRound.
		serveBenchSellers()
		return
	}
	pgtest.Main(m, cmdtest.RemoveAxpBinary) // the binary BenchmarkServeStart built, if it ran
}

// eachStore runs test on bbolt and on PostgreSQL (subtests "bolt" and "postgres"). With
// AXP_TEST_STORE=postgres (the second run of `make test`) every exchange of every test is on
// PostgreSQL, and only the "postgres" subtest runs.
func eachStore(t *testing.T, test func(t *testing.T)) { pgtest.Both(t, test) }

// newEnv starts an exchange with generous limits (so tests do not trip over each other) after mod
// has had its say on the configuration.
func newEnv(t *testing.T, mod ...func(*daemon.Config)) *env {
	t.Helper()
	cfg := daemon.Defaults()
	cfg.Addr = "127.0.0.1:0"
	cfg.DataDir = t.TempDir()
	cfg.AdminToken = adminToken
	cfg.NoSync = true
	cfg.RegistrationsPerHour = 100000
	cfg.AnonTasksPerMinute = 100000
	cfg.AnonReadsPerMinute = 0 // off
	cfg.OperatorMessagesPerDay = 10
	cfg.MaxBodyBytes = 1 << 20
	cfg.Hooks = &kernel.Hooks{} // armed by a test that races a sweep or a paid call (SetAfterScan, SetPaidHook)
	for _, m := range mod {
		m(&cfg)
	}
	if cfg.Store == "" {
		cfg.Store = storeFor(t, cfg.DataDir)
	}
	d, generated, err := daemon.New(cfg, io.Discard)
	if err != nil {
		t.Fatalf("daemon.New: %v", err)
	}
	if generated != "" {
		t.Fatalf("an admin token was generated although one was configured")
	}
	if d.DB().IsPostgres() != (cfg.Store != "") {
		t.Fatalf("store %q opened as PostgreSQL: %v", cfg.Store, d.DB().IsPostgres())
	}
	srv := httptest.NewServer(d.Handler())
	d.SetBaseURL(srv.URL)
	e := &env{t: t, d: d, srv: srv, dir: cfg.DataDir, anon: client.New(srv.URL, ""), admin: client.New(srv.URL, adminToken)}
	t.Cleanup(e.close)
	return e
}

// close stops the server and closes the exchange (and its database); it is safe to call twice.
func (e *env) close() {
	e.once.Do(func() {
		e.srv.Close()
		if err := e.d.Close(); err != nil {
			e.t.Errorf("close daemon: %v", err)
		}
	})
}

// member is a registered member with a client authenticated as it.
type member struct {
	*axp.Registered
	c *client.Client
}

// register registers a member; reg's name is made unique when empty.
func (e *env) register(reg map[string]any) *member {
	e.t.Helper()
	reg = maps.Clone(reg) // a caller's map may serve for several members
	if reg["name"] == nil {
		reg["name"] = fmt.Sprintf("agent %d", names.Add(1))
	}
	if reg["roles"] == nil {
		reg["roles"] = []string{"buyer", "seller"}
	}
	var out axp.Registered
	if err := e.anon.Call(context.Background(), "register", reg, &out); err != nil {
		e.t.Fatalf("register %v: %v", reg, err)
	}
	return &member{Registered: &out, c: e.anon.With(out.MemberSecret)}
}

// seller registers a pull-mode seller with one skill.
func (e *env) seller(taskType string) *member {
	return e.register(map[string]any{"roles": []string{"seller"},
		"skills": []map[string]any{{"task_type": taskType, "description": "does " + taskType, "min_price_usd": 1.5, "typical_eta_minutes": 20}}})
}

// setState sets a member's state directly in the store (the handshake that verifies members is not
// built yet).
func (e *env) setState(id, state string) {
	e.t.Helper()
	err := e.d.DB().Update(func(tx *store.Tx) error {
		m, err := tx.Member(id)
		if err != nil {
			return err
		}
		if m == nil {
			return fmt.Errorf("no member %s", id)
		}
		m.State = state
		return tx.PutMember(m)
	})
	if err != nil {
		e.t.Fatalf("set state: %v", err)
	}
}

// call runs an operation through the client and fails the test on error.
func call(t *testing.T, c *client.Client, op string, in, out any, o ...client.Options) {
	t.Helper()
	if err := c.Call(context.Background(), op, in, out, o...); err != nil {
		t.Fatalf("%s: %v", op, err)
	}
}

// do runs an operation and returns the raw response and error.
func do(c *client.Client, op string, in any, o ...client.Options) (*client.Response, error) {
	return c.Do(context.Background(), op, in, o...)
}

// callOp runs the operation def declares and fails the test on error; the input and the answer
// have the declaration's types, so a call that sends or reads the wrong shape does not compile.
func callOp[I, O any](t *testing.T, c *client.Client, def contract.Def[I, O], in I, o ...client.Options) *O {
	t.Helper()
	out, _, err := client.Call(context.Background(), c, def, in, o...)
	if err != nil {
		t.Fatalf("%s: %v", def.Op().Name, err)
	}
	return out
}

// doOp runs the operation def declares and returns the raw response and error.
func doOp[I, O any](c *client.Client, def contract.Def[I, O], in I, o ...client.Options) (*client.Response, error) {
	return client.Do(context.Background(), c, def, in, o...)
}

// ptr is a pointer to v, for the optional fields of typed inputs.
func ptr[T any](v T) *T { return &v }

// given is v for a field of a partial update (protocol.Nullable) that sets it.
func given[T any](v T) protocol.Nullable[T] { return protocol.Nullable[T]{Set: true, Value: v} }

// apiErr asserts err is an *axp.Error of code (and, when field is not "-", naming field).
func apiErr(t *testing.T, err error, code axp.Code, field string) *axp.Error {
	t.Helper()
	var e *axp.Error
	if !errors.As(err, &e) {
		t.Fatalf("want %s error, got %v", code, err)
	}
	if e.Code != code {
		t.Fatalf("want code %s, got %s: %v", code, e.Code, e)
	}
	if field != "-" && e.Field != field {
		t.Fatalf("want field %q, got %q: %v", field, e.Field, e)
	}
	if e.Message == "" {
		t.Fatalf("error without message: %+v", e)
	}
	return e
}

// errorBody is the wire shape of every error answer, decoded strictly.
type errorBody struct {
	Error struct {
		Code    string `json:"code"`
		Message string `json:"message"`
		Hint    string `json:"hint,omitempty"`
		Field   string `json:"field,omitempty"`
	} `json:"error"`
	TraceID string `json:"trace_id"`
}

// checkErrorBody asserts resp is an error answer of status with the shape of docs/design.md section 7
// (no other keys) and a trace id equal to the X-Trace-Id header.
func checkErrorBody(t *testing.T, resp *client.Response, status int, code string) errorBody {
	t.Helper()
	if resp == nil {
		t.Fatalf("no response")
	}
	if resp.Status != status {
		t.Fatalf("status %d, want %d: %s", resp.Status, status, resp.Body)
	}
	if ct := resp.Header.Get("Content-Type"); ct != "application/json" {
		t.Fatalf("error Content-Type %q", ct)
	}
	dec := json.NewDecoder(bytes.NewReader(resp.Body))
	dec.DisallowUnknownFields()
	var b errorBody
	if err := dec.Decode(&b); err != nil {
		t.Fatalf("error body %s: %v", resp.Body, err)
	}
	var generic map[string]map[string]any
	json.Unmarshal(resp.Body, &generic)
	for k := range generic["error"] {
		switch k {
		case "code", "message", "hint", "field":
		default:
			t.Fatalf("error body has key %q: %s", k, resp.Body)
		}
	}
	if b.Error.Code != code || b.Error.Message == "" {
		t.Fatalf("error body %s, want code %s", resp.Body, code)
	}
	if b.TraceID == "" || b.TraceID != resp.Header.Get("X-Trace-Id") {
		t.Fatalf("trace_id %q, header %q", b.TraceID, resp.Header.Get("X-Trace-Id"))
	}
	return b
}

// raw sends a raw request through the client.
func raw(c *client.Client, method, path string, body []byte, h http.Header) (*client.Response, error) {
	var r io.Reader
	if body != nil {
		r = bytes.NewReader(body)
	}
	return c.Raw(context.Background(), method, path, r, h)
}

// sha256Hex is the hex SHA-256 of s.
func sha256Hex(s string) string {
	h := sha256.Sum256([]byte(s))
	return hex.EncodeToString(h[:])
}

// eventually polls cond until it returns nil, failing the test with its last error after 5 s.
func eventually(t *testing.T, cond func() error) {
	t.Helper()
	within(t, 5*time.Second, cond)
}

// within polls cond until it returns nil, failing the test with its last error after d.
func within(t *testing.T, d time.Duration, cond func() error) {
	t.Helper()
	deadline := time.Now().Add(d)
	for {
		err := cond()
		if err == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("gave up waiting: %v", err)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// auditCount is the number of audit records.
func (e *env) auditCount() int {
	e.t.Helper()
	var l axp.AuditList
	l = *callOp(e.t, e.admin, contract.AdminAudit, axp.AuditQuery{Limit: 5000})
	return len(l.Records)
}

// stats reads the operator's statistics.
func (e *env) stats() axp.Stats {
	e.t.Helper()
	var s axp.Stats
	s = *callOp(e.t, e.admin, contract.AdminStats, contract.NoInput{})
	return s
}
