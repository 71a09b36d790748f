package kernel

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"github.com/axp-exchange/axp/daemon/pipeline"
	"github.com/axp-exchange/axp/store"
)

// Base is what every service stands on, and all it takes from the kernel without naming it in its
// New: the store and the changes made in it, the clock, the log and the configuration. A service
// holds it as a named field; whatever else it uses (another service, screening, the chain, a
// member's tools) is an argument of its New.
type Base struct {
	Store *store.DB
	Log   *slog.Logger
	// Stop is closed when the exchange stops; a background loop a service runs ends then, and
	// calls Bg.Done (the daemon waits for Bg before it closes the store).
	Stop <-chan struct{}
	Bg   *sync.WaitGroup
	k    *Kernel // the clock, the configuration, leadership and the change runner
}

// Base is the kernel's infrastructure handle for a service.
func (k *Kernel) Base() Base { return Base{Store: k.Store, Log: k.Log, Stop: k.Stop, Bg: &k.Bg, k: k} }

// Leading tells whether this daemon runs the once-only background work (see Kernel.Leading).
func (b Base) Leading() bool { return b.k.Leading() }

// Now is the exchange's clock (see Kernel.Now).
func (b Base) Now() time.Time { return b.k.Now() }

// Cfg is the exchange's configuration.
func (b Base) Cfg() *Config { return &b.k.Cfg }

// BaseURL is the public address of the exchange.
func (b Base) BaseURL() string { return b.k.BaseURL() }

// Mutate runs fn in one write transaction for work that answers no call (see Kernel.Mutate).
func (b Base) Mutate(ctx context.Context, actor string, fn func(c *Change) (any, error)) (any, error) {
	return b.k.Mutate(ctx, actor, fn)
}

// MutateCall runs fn in one write transaction as the call c, with its idempotency (see
// Kernel.MutateCall).
func (b Base) MutateCall(ctx context.Context, c *pipeline.Call, fn func(c *Change) (any, error)) (any, error) {
	return b.k.MutateCall(ctx, c, fn)
}

// AfterScan runs the test hook between a sweep's read of what is due and its actions (see
// Hooks); nothing without one.
func (b Base) AfterScan(what string) { b.k.Cfg.Hooks.AfterScan(what) }

// PaidHook runs the test hook at a stage of a paid call (see Hooks); nothing without one.
func (b Base) PaidHook(stage string) { b.k.Cfg.Hooks.Paid(stage) }

// QuoteParallel caps the calls of one quote round under way at once.
func (b Base) QuoteParallel() int { return b.k.QuoteParallel }

// Started is when this daemon started.
func (b Base) Started() time.Time { return b.k.Started }

// Send hands committed notices to the outbound pusher (Mutate sends a change's own).
func (b Base) Send(ctx context.Context, ns []Notice) { b.k.Send(ctx, ns) }

// ReadChange is a change over a read transaction, to build notices from what tx shows (sent
// with Send once the transaction is over); nothing it records is written.
func (b Base) ReadChange(tx *store.Tx, ctx context.Context) *Change {
	return &Change{Tx: tx, Ctx: ctx, Now: b.Now(), Events: b.k.Events}
}

// Mutator runs the changes of calls: the kernel, or a service's Base.
type Mutator interface {
	MutateCall(ctx context.Context, c *pipeline.Call, fn func(c *Change) (any, error)) (any, error)
}
