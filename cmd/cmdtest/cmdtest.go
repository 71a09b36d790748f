// Package cmdtest helps the command tests: a real exchange over a temporary data dir served on
// loopback, sellers marked verified through the store (the verification handshake needs a live
// member), and factories whose streams are buffers. Only tests import it. It does not link the
// daemon: NewExchange runs it in a helper process (see proc.go), so that the tests of a command
// that does not link it either are not linked again after each edit of the daemon; package
// inproc runs it in the test's own process, for tests that reach into it.
package cmdtest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/axp-exchange/axp"
	"github.com/axp-exchange/axp/client"
	"github.com/axp-exchange/axp/cmd/cmdutil"
	"github.com/axp-exchange/axp/contract"
	"github.com/axp-exchange/axp/store"
	"github.com/spf13/cobra"
)

// AdminToken is the admin token of every test exchange.
const AdminToken = "axp_admin_cmdtest_0123456789abcdef"

// DepositAddress is the deposit address of every test exchange.
const DepositAddress = "0xd0d0d0d0d0d0d0d0d0d0d0d0d0d0d0d0d0d0d0d0"

// PayoutAddress is a seller's wallet.
const PayoutAddress = "0x5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e"

// Exchange is a running test exchange: a daemon on loopback over a temporary data dir, run by a
// Backend (in a helper process by NewExchange, in the test's own process by package inproc).
type Exchange struct {
	URL   string
	Admin *client.Client
	Anon  *client.Client
	t     testing.TB
	b     Backend
}

// Backend runs a test exchange's daemon: it marks members verified (the verification handshake
// needs a live member) and stops it.
type Backend interface {
	SetState(id, state string) error
	Close() error
}

// Attach is the exchange at url run by b, whose admin token is adminToken; the test closes it.
func Attach(t testing.TB, url, adminToken string, b Backend) *Exchange {
	e := &Exchange{URL: url, Admin: client.New(url, adminToken), Anon: client.New(url, ""), t: t, b: b}
	t.Cleanup(func() {
		if err := e.Close(); err != nil {
			t.Errorf("close exchange: %v", err)
		}
	})
	return e
}

// Close stops the exchange.
func (e *Exchange) Close() error { return e.b.Close() }

// SetState sets a member's state.
func (e *Exchange) SetState(id, state string) error { return e.b.SetState(id, state) }

var names atomic.Int64

// Register registers a member (a unique name and both roles unless reg says otherwise).
func (e *Exchange) Register(reg map[string]any) (*axp.Registered, error) {
	if reg["name"] == nil {
		reg["name"] = fmt.Sprintf("agent %d", names.Add(1))
	}
	if reg["roles"] == nil {
		reg["roles"] = []string{"buyer", "seller"}
	}
	var out axp.Registered
	if err := e.Anon.Call(context.Background(), "register", reg, &out); err != nil {
		return nil, fmt.Errorf("register %v: %w", reg, err)
	}
	return &out, nil
}

// SellerSpec describes a verified seller with a standing (instant) price.
type SellerSpec struct {
	Name     string
	TaskType string
	Price    string // "3.00"
	ETA      int    // minutes
	// FreeRedo is the free redos the seller guarantees.
	FreeRedo int
	// Payout is the seller's payout address ("" for none: payouts are then held).
	Payout string
}

// Seller registers a verified instant seller.
func (e *Exchange) Seller(s SellerSpec) (*axp.Registered, error) {
	skill := map[string]any{"task_type": s.TaskType, "instant_price_usd": json.Number(s.Price), "instant_eta_minutes": s.ETA,
		"description": s.Name + " does " + s.TaskType}
	if s.FreeRedo > 0 {
		skill["guarantee"] = map[string]any{"free_redo": s.FreeRedo}
	}
	reg := map[string]any{"roles": []string{"seller"}, "skills": []map[string]any{skill}}
	if s.Name != "" {
		reg["name"] = s.Name
	}
	if s.Payout != "" {
		reg["payout_address"] = s.Payout
	}
	r, err := e.Register(reg)
	if err != nil {
		return nil, err
	}
	return r, e.SetState(r.MemberID, axp.MemberVerified)
}

// SellerOn registers a verified instant seller on the exchange at url that b runs, outside a test.
func SellerOn(url string, b Backend, s SellerSpec) (*axp.Registered, error) {
	e := &Exchange{URL: url, Anon: client.New(url, ""), b: b}
	return e.Seller(s)
}

// MustSeller is Seller failing the test on error.
func (e *Exchange) MustSeller(s SellerSpec) *axp.Registered {
	e.t.Helper()
	r, err := e.Seller(s)
	if err != nil {
		e.t.Fatal(err)
	}
	return r
}

// DataDirOf is where a seeded data dir keeps its database.
func DataDirOf(dataDir string) string { return filepath.Join(dataDir, store.FileName) }

// Streams are the buffers behind a test factory.
type Streams struct {
	In          *bytes.Buffer
	Out, ErrOut *bytes.Buffer
}

// Factory is a factory for the exchange at url with env as its whole environment (XDG_CONFIG_HOME
// is a fresh temporary dir unless env sets it) and buffers as streams.
func Factory(t testing.TB, url string, env map[string]string) (*cmdutil.Factory, *Streams) {
	t.Helper()
	if env == nil {
		env = map[string]string{}
	}
	if _, ok := env["XDG_CONFIG_HOME"]; !ok {
		env["XDG_CONFIG_HOME"] = t.TempDir()
	}
	s := &Streams{In: &bytes.Buffer{}, Out: &bytes.Buffer{}, ErrOut: &bytes.Buffer{}}
	f := &cmdutil.Factory{IO: &cmdutil.IOStreams{In: s.In, Out: s.Out, ErrOut: s.ErrOut}, Exchange: url,
		Getenv: func(k string) string { return env[k] }, WorkDir: t.TempDir()}
	return f, s
}

// Exec runs a command built for f with args (as cobra would under the root) and returns its error.
func Exec(c *cobra.Command, args ...string) error {
	c.SetArgs(args)
	c.SetOut(io.Discard)
	c.SetErr(io.Discard)
	c.SilenceErrors, c.SilenceUsage = true, true
	return c.ExecuteContext(context.Background())
}

// Reset empties the output buffers.
func (s *Streams) Reset() {
	s.Out.Reset()
	s.ErrOut.Reset()
}

// Lines splits text into lines without the final newline.
func Lines(s string) []string { return strings.Split(strings.TrimRight(s, "\n"), "\n") }

// PullSeller registers a verified seller of taskType without a standing price: it quotes through
// submit_offer. It returns the registration and a client with its secret.
func (e *Exchange) PullSeller(taskType string) (*axp.Registered, *client.Client) {
	e.t.Helper()
	r, err := e.Register(map[string]any{"roles": []string{"seller"}, "payout_address": PayoutAddress,
		"skills": []map[string]any{{"task_type": taskType, "description": "pulls " + taskType}}})
	if err != nil {
		e.t.Fatal(err)
	}
	if err := e.SetState(r.MemberID, axp.MemberVerified); err != nil {
		e.t.Fatal(err)
	}
	return r, e.Anon.With(r.MemberSecret)
}

// Call runs an operation with c and fails the test on error.
func (e *Exchange) Call(c *client.Client, op string, in, out any) {
	e.t.Helper()
	if err := c.Call(context.Background(), op, in, out); err != nil {
		e.t.Fatalf("%s: %v", op, err)
	}
}

// Must runs the operation def declares with c and returns its answer, failing the test on error.
func Must[I, O any](t testing.TB, c *client.Client, def contract.Def[I, O], in I) *O {
	t.Helper()
	out, _, err := client.Call(context.Background(), c, def, in)
	if err != nil {
		t.Fatalf("%s: %v", def.Op().Name, err)
	}
	return out
}

// Raw is the exchange's JSON answer to an operation, as it came.
func (e *Exchange) Raw(c *client.Client, op string, in any) string {
	e.t.Helper()
	resp, err := c.Do(context.Background(), op, in)
	if err != nil {
		e.t.Fatalf("%s: %v", op, err)
	}
	return string(resp.Body)
}

// TxHash is a fresh transaction hash.
func TxHash() string { return fmt.Sprintf("0x%064x", 0xfeed00+txs.Add(1)) }

var txs atomic.Int64

// SyncBuffer is a buffer safe to read while another goroutine or a process writes to it.
type SyncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *SyncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

// String is what was written so far.
func (s *SyncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
