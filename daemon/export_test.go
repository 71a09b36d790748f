package daemon

import (
	"context"
	"errors"
	"time"

	"github.com/axp-exchange/axp"
)

// SetAfterScan installs a function that runs between a sweeper's scan and its actions, so tests can
// race a state change against the sweeper deterministically.
// The exchange must have been built with Hooks in its configuration (the test helpers give them).
func (d *Daemon) SetAfterScan(fn func(what string)) { d.Cfg.Hooks.SetAfterScan(fn) }

// SetChangeHook installs a function told of every change the exchange makes, with its actor.
func (d *Daemon) SetChangeHook(fn func(actor string)) { d.Cfg.Hooks.SetChange(fn) }

// MissingHandlers lists the operations whose handler registration disagrees with the catalog.
func (d *Daemon) MissingHandlers() []string { return d.Pipe.Registry().Missing() }

// SetMCPFastPath turns the MCP door's fast path on or off (benchmarks compare both).
func (d *Daemon) SetMCPFastPath(on bool) { d.mcp.SetFastPath(on) }

// ChainHead is the newest chain head the exchange read.
func (d *Daemon) ChainHead() uint64 { return d.Chain.LastHead() }

// ChainPass runs one pass of the payment watcher (benchmarks time it).
func (d *Daemon) ChainPass(ctx context.Context) error { return d.money.ChainPass(ctx) }

// SetPaidHook installs a function that runs at the stages of a paid call ("held", "broadcast",
// "settled", "kept").
func (d *Daemon) SetPaidHook(fn func(stage string)) { d.Cfg.Hooks.SetPaid(fn) }

// RecoverPaidCalls runs the recovery pass of paid calls; it returns how many it finished.
func (d *Daemon) RecoverPaidCalls(ctx context.Context) int { return d.paid.RecoverPaidCalls(ctx) }

// RecordMarket runs one poll of the market recorder.
func (d *Daemon) RecordMarket(ctx context.Context) error {
	_, err := d.recorded.RecordMarket(ctx)
	return err
}

// RecordNews runs one poll of the news recorder; it returns how many items were new.
func (d *Daemon) RecordNews(ctx context.Context) (int, error) { return d.recorded.RecordNews(ctx) }

// ScoreSignals scores the signals whose horizon has passed; it returns how many.
func (d *Daemon) ScoreSignals() int { return d.recorded.ScoreSignals() }

// PruneRecorded prunes recorded prices and news past retention.
func (d *Daemon) PruneRecorded() { d.recorded.PruneRecorded() }

// SetQuoteParallel caps the calls of one quote round under way at once.
func (d *Daemon) SetQuoteParallel(n int) { d.QuoteParallel = n }

// MatchPayable runs the chain watcher's matching of an amount received at a time.
func (d *Daemon) MatchPayable(amount axp.Money, at time.Time) (string, error) {
	return d.money.MatchAmount(amount, at)
}

// Prune runs the hourly pass (pruning, then packing the history past its age) and waits for the
// packing to end.
func (d *Daemon) Prune() {
	d.prune()
	d.packMu.Lock()
	defer d.packMu.Unlock()
	d.pack(d.Now())
}

// AdjustTestChainTime moves test mode's chain's clock d ahead (package testchain's AdjustTime).
func (d *Daemon) AdjustTestChainTime(ctx context.Context, by time.Duration) error {
	c, ok := d.testChain.(interface {
		AdjustTime(context.Context, time.Duration) error
	})
	if !ok {
		return errors.New("not in test mode, or built without its chain")
	}
	return c.AdjustTime(ctx, by)
}
