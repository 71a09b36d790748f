package axp

import (
	"context"
	"sync/atomic"
)

type ctxKey int

const traceKey ctxKey = 0

// WithTrace returns ctx carrying a trace id.
func WithTrace(ctx context.Context, id string) context.Context {
	return context.WithValue(ctx, traceKey, id)
}

// TraceID returns the trace id of ctx, or "".
func TraceID(ctx context.Context) string {
	s, _ := ctx.Value(traceKey).(string)
	return s
}

// Idempotency describes a mutating call made with an Idempotency-Key: the daemon stores the answer
// under Key in the same transaction as the change, sealed with Seal.
type Idempotency struct {
	Key      string // hash of caller, operation and the caller's key
	BodyHash string
	Op       string
	Status   int
	Seal     []byte // 32-byte key derived from the caller's raw key; never stored

	stored atomic.Bool
}

// MarkStored records that the call's answer (or what renders it) is stored: later transactions of
// the same call leave the record alone. It reports whether this was the first mark.
func (i *Idempotency) MarkStored() bool { return i.stored.CompareAndSwap(false, true) }

// Stored reports whether the call's record was written.
func (i *Idempotency) Stored() bool { return i.stored.Load() }
