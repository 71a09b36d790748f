package kernel

import "sync/atomic"

// Hooks are the exchange's test seams, given in the configuration (Config.Hooks; nil in
// production, where every hook does nothing). A test arms a hook while the exchange runs, so it
// can stop a sweep or a paid call at a named point, as a crash or a racing caller would.
type Hooks struct {
	afterScan atomic.Pointer[func(what string)]
	paid      atomic.Pointer[func(stage string)]
	change    atomic.Pointer[func(actor string)]
}

// SetAfterScan arms fn to run between a sweep's read of what is due and its actions ("tasks",
// "liveness", "mediation"), and around the hot wallet's sends ("send", "resend", "resent").
func (h *Hooks) SetAfterScan(fn func(what string)) { h.afterScan.Store(&fn) }

// SetPaid arms fn to run at the stages of a paid call ("held"; "authorized", an auth-capture
// payment held by the escrow; "broadcast", the exchange's own settlement (or escrow call) sent;
// "settled", mined; "kept", its outcome not known when the call ended).
func (h *Hooks) SetPaid(fn func(stage string)) { h.paid.Store(&fn) }

// SetChange arms fn to run once for every change the exchange makes (Mutate, MutateCall, Apply),
// with its actor, when the change has committed or failed: a test counts the write transactions
// of an operation with it, apart from the store's own background writes (the log, metrics).
func (h *Hooks) SetChange(fn func(actor string)) { h.change.Store(&fn) }

// AfterScan runs the armed after-scan hook, if any.
func (h *Hooks) AfterScan(what string) {
	if h == nil {
		return
	}
	if fn := h.afterScan.Load(); fn != nil && *fn != nil {
		(*fn)(what)
	}
}

// Paid runs the armed paid-call hook, if any.
func (h *Hooks) Paid(stage string) {
	if h == nil {
		return
	}
	if fn := h.paid.Load(); fn != nil && *fn != nil {
		(*fn)(stage)
	}
}

// Change runs the armed change hook, if any.
func (h *Hooks) Change(actor string) {
	if h == nil {
		return
	}
	if fn := h.change.Load(); fn != nil && *fn != nil {
		(*fn)(actor)
	}
}
