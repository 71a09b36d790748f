// Package kerneltest builds a kernel for the tests of one service: a real bbolt store in a
// temporary directory, a clock the test moves, an outbox that records the notices sent after
// commit, and a registry the services register on. Call runs a registered handler with typed input
// and output, as the pipeline would once the caller is known.
package kerneltest

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/axp-exchange/axp"
	"github.com/axp-exchange/axp/contract"
	"github.com/axp-exchange/axp/daemon/kernel"
	"github.com/axp-exchange/axp/daemon/outbound"
	"github.com/axp-exchange/axp/daemon/pipeline"
	"github.com/axp-exchange/axp/protocol"
	"github.com/axp-exchange/axp/store"
)

// Start is where every fixture's clock starts.
var Start = time.Date(2026, time.March, 2, 9, 0, 0, 0, time.UTC)

// Clock is a clock the test moves; it stands still otherwise.
type Clock struct {
	mu  sync.Mutex
	now time.Time
}

// NewClock is a clock standing at t.
func NewClock(t time.Time) *Clock { return &Clock{now: t} }

// Now is the clock's time.
func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

// Add moves the clock on by d.
func (c *Clock) Add(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
}

// Set puts the clock at t.
func (c *Clock) Set(t time.Time) {
	c.mu.Lock()
	c.now = t
	c.mu.Unlock()
}

// Fixture is a kernel over a temporary store, with its clock, outbox and registry.
type Fixture struct {
	K     *kernel.Kernel
	Clock *Clock
	Reg   *pipeline.Registry
	// Dir is the data dir: the store and the sealing key.
	Dir string

	mu   sync.Mutex
	sent []kernel.Notice
}

// Option changes the configuration before the kernel is built (the defaults of kernel.Defaults).
type Option func(*kernel.Config)

// New builds a fixture; the store is closed when the test ends. The log goes to t.Log when the
// test runs with -v, else nowhere.
func New(t testing.TB, opts ...Option) *Fixture {
	t.Helper()
	f := &Fixture{Clock: NewClock(Start), Reg: pipeline.NewRegistry(), Dir: t.TempDir()}
	cfg := kernel.Defaults()
	cfg.DataDir = f.Dir
	cfg.NoSync = true
	cfg.Now = f.Clock.Now
	for _, o := range opts {
		o(&cfg)
	}
	keys, err := kernel.LoadSealer(f.Dir)
	if err != nil {
		t.Fatal(err)
	}
	db, err := store.Open(filepath.Join(f.Dir, store.FileName), store.Options{NoSync: cfg.NoSync})
	if err != nil {
		t.Fatal(err)
	}
	k := kernel.New(cfg, db, keys)
	k.Sink = kernel.NewLogSink(db)
	var console io.Writer = io.Discard
	if testing.Verbose() {
		console = logWriter{t}
	}
	k.Log = slog.New(&kernel.LogHandler{Console: slog.NewTextHandler(console, nil), Sink: k.Sink, Keep: slog.LevelInfo})
	k.Verifier = kernel.ManualVerifier{}
	// Calls out go through the outbound client (private addresses refused): a push seller's
	// tools on a private or loopback address are refused at once.
	k.Caller = &outbound.Caller{Timeout: protocol.ToolCallTimeoutMillis * time.Millisecond, Now: cfg.Now,
		Trace: axp.TraceID, AllowPrivate: cfg.OutboundPrivate == "allow", Observe: k.ObserveOutbound}
	k.Outbox = recorder{f}
	t.Cleanup(func() {
		close(k.Stop)
		k.Bg.Wait()
		k.Leader.Close()
		k.Sink.Close()
		if err := db.Close(); err != nil {
			t.Error(err)
		}
	})
	f.K = k
	return f
}

// recorder is the fixture's outbox: it records each notice sent after a commit.
type recorder struct{ f *Fixture }

func (r recorder) Deliver(_ context.Context, n kernel.Notice) {
	r.f.mu.Lock()
	r.f.sent = append(r.f.sent, n)
	r.f.mu.Unlock()
}

// Sent is the notices sent so far, in order.
func (f *Fixture) Sent() []kernel.Notice {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]kernel.Notice(nil), f.sent...)
}

// View reads the store in one transaction, failing the test on an error.
func (f *Fixture) View(t testing.TB, fn func(tx *store.Tx) error) {
	t.Helper()
	if err := f.K.Store.View(fn); err != nil {
		t.Fatal(err)
	}
}

// Update writes to the store in one transaction (a test's setup), failing the test on an error.
func (f *Fixture) Update(t testing.TB, fn func(tx *store.Tx) error) {
	t.Helper()
	if err := f.K.Store.Update(fn); err != nil {
		t.Fatal(err)
	}
}

// Member is the caller presenting a member secret, authenticated as the doors do
// (kernel.MemberBySecret).
func (f *Fixture) Member(t testing.TB, secret string) axp.Caller {
	t.Helper()
	m, err := f.K.MemberBySecret(secret)
	if err != nil {
		t.Fatal(err)
	}
	return axp.Caller{Kind: axp.MemberCall, MemberID: m.ID, Roles: m.Roles, IP: "192.0.2.1"}
}

// AddMember stores a verified member registered with r, without the members service (a test's
// setup), and returns it as the caller presenting its secret, and that secret.
func (f *Fixture) AddMember(t testing.TB, r axp.Registration) (axp.Caller, string) {
	t.Helper()
	now := f.K.Now()
	id := axp.NewID("mem", now)
	secret := axp.SecretFor(id)
	m := axp.NewMember(id, &r, now)
	m.SecretHash = kernel.SecretHash(secret)
	m.PlatformKeyEnc = f.K.Keys.Seal([]byte("pk_" + axp.RandomHex(32)))
	m.State, m.VerifiedAt = axp.MemberVerified, &now
	f.Update(t, func(tx *store.Tx) error { return tx.PutMember(m) })
	return f.Member(t, secret), secret
}

// Operator is the caller presenting the admin token.
var Operator = axp.Caller{Kind: axp.Operator, IP: "192.0.2.1"}

type logWriter struct{ t testing.TB }

func (w logWriter) Write(p []byte) (int, error) {
	w.t.Log(strings.TrimSuffix(string(p), "\n"))
	return len(p), nil
}

// Call runs the handler registered for def with in as caller, as the pipeline would once the
// caller is authenticated: it checks the operation's access level (pipeline.Authorize), sends in
// through the operation's schema as a client's JSON would go (a refusal names its field), runs the
// operation's precheck, then the handler. The path parameters are the input's fields of the same
// name; for an operation whose input does not declare them, use CallAt.
func Call[I, O any](t testing.TB, reg *pipeline.Registry, def contract.Def[I, O], caller axp.Caller, in *I) (*O, error) {
	t.Helper()
	return CallAt(t, reg, def, caller, nil, in)
}

// CallAt is Call with path parameters the input does not hold (e.g. the {id} of get_task).
func CallAt[I, O any](t testing.TB, reg *pipeline.Registry, def contract.Def[I, O], caller axp.Caller, path map[string]string, in *I) (*O, error) {
	t.Helper()
	op := def.Op()
	if err := pipeline.Authorize(op, caller); err != nil {
		return nil, err
	}
	args := map[string]any{}
	if op.In != nil && in != nil {
		b, err := json.Marshal(in)
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(b, &args); err != nil {
			t.Fatal(err)
		}
	}
	c := &pipeline.Call{Op: op, Caller: caller, Door: pipeline.REST}
	if names := op.PathParams(); len(names) > 0 {
		c.Path = map[string]string{}
		for _, n := range names {
			if v, ok := path[n]; ok {
				c.Path[n] = v
			} else if v, ok := args[n].(string); ok {
				c.Path[n] = v
			}
		}
	}
	var arg any
	if op.In != nil {
		dec := new(I)
		if err := protocol.DecodeValue(args, dec); err != nil {
			return nil, err
		}
		arg = dec
	}
	if err := reg.Prechecked(op, arg); err != nil {
		return nil, err
	}
	out, err := reg.For(op)(context.Background(), c, arg)
	if err != nil || out == nil {
		return nil, err
	}
	o, ok := out.(*O)
	if !ok {
		t.Fatalf("%s answered a %T, not a *%T", op.Name, out, *new(O))
	}
	return o, nil
}

// Err is err as an *axp.Error, failing the test when it is not one of the given code.
func Err(t testing.TB, err error, code axp.Code) *axp.Error {
	t.Helper()
	var e *axp.Error
	if !errors.As(err, &e) {
		t.Fatalf("want a %s error, got %v", code, err)
	}
	if e.Code != code {
		t.Fatalf("want a %s error, got %s: %s", code, e.Code, e.Message)
	}
	return e
}
