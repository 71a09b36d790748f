package kernel

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"time"

	"github.com/axp-exchange/axp"
	"github.com/axp-exchange/axp/daemon/pipeline"
	"github.com/axp-exchange/axp/store"
)

// Change is the context of one state change: the transaction, who makes it and when.
type Change struct {
	Tx    *store.Tx
	Ctx   context.Context
	Actor string
	Now   time.Time
	// notices are sent to members and callback URLs after the transaction commits.
	Notices []Notice
	// afters run after the transaction commits (log lines, cache resets, follow-up work).
	afters []func()
	// idem is the idempotency of the call the change answers (MutateCall), or nil.
	idem *axp.Idempotency
	// answered: the call's idempotency record was written by answerWithTask.
	answered bool
	// events are the subscribers of typed events emitted in this change.
	Events Subscribers
}

// AnswerWithTask writes the call's idempotency record (when it has a key) in this transaction as a
// reference to task id: a replay answers with the task's current view, and with extra (sealed
// with the caller's key) for what the task does not keep. Handlers whose answer comes only after
// further work (a quote round) use it, so that the change and its record commit together.
func (c *Change) AnswerWithTask(id string, extra any) error {
	i := c.idem
	if i == nil || i.Stored() {
		return nil
	}
	body, err := json.Marshal(extra)
	if err != nil {
		return err
	}
	c.answered = true
	return c.Tx.PutIdempotency(i.Key, &store.Idempotency{BodyHash: i.BodyHash, Op: i.Op, Status: i.Status,
		Sealed: sealWith(i.Seal, store.Compress(body)), At: c.Now, Task: id})
}

// EncodeAnswer encodes a call's answer with the bytes the REST door writes (HTML characters as
// they are, a newline at the end), so that a replayed answer is byte for byte the first one.
func EncodeAnswer(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// Notify queues a notice, sent only if the change commits.
func (c *Change) Notify(n Notice) { c.Notices = append(c.Notices, n) }

// After queues fn to run once the change has committed.
func (c *Change) After(fn func()) { c.afters = append(c.afters, fn) }

// Audit appends an audit record to the change's transaction.
func (c *Change) Audit(action, entityType, entityID string, details map[string]any) error {
	return c.Tx.Audit(&axp.AuditRecord{ID: axp.NewID("aud", c.Now), Time: c.Now, Actor: c.Actor, Action: action,
		EntityType: entityType, EntityID: entityID, TraceID: axp.TraceID(c.Ctx), Details: details})
}

var errKeyAnswered = axp.Conflict("another request with this idempotency key was answered meanwhile",
	"retry with the same key to get its answer")

// Mutate runs fn in one write transaction, for work that answers no call: sweeps, deliveries,
// the chain's watcher, what a call starts in the background. It never writes an idempotency
// record, whatever ctx carries; a handler's change is MutateCall.
func (k *Kernel) Mutate(ctx context.Context, actor string, fn func(c *Change) (any, error)) (any, error) {
	return k.change(ctx, actor, nil, fn)
}

// MutateCall runs fn in one write transaction as the call c (its caller is the actor); with an
// Idempotency-Key on the call, the answer is stored in the same transaction, sealed with the
// caller's key.
func (k *Kernel) MutateCall(ctx context.Context, c *pipeline.Call, fn func(c *Change) (any, error)) (any, error) {
	return k.change(ctx, c.Caller.Actor(), c.Idem, fn)
}

// change runs fn in one write transaction, with i the idempotency of the call it answers (nil:
// none). On PostgreSQL the transaction may run again after a serialization failure: fn starts
// from a fresh change each time, and only the notices and follow-up work of the run that
// committed are kept.
func (k *Kernel) change(ctx context.Context, actor string, i *axp.Idempotency, fn func(c *Change) (any, error)) (any, error) {
	var out any
	var notices []Notice
	var afters []func()
	var stored *axp.Idempotency
	err := k.Store.Update(func(tx *store.Tx) error {
		out, notices, afters, stored = nil, nil, nil, nil
		// One record per call, written by its first committed change; a later transaction of
		// the same call (follow-up work) does not overwrite it.
		idem := i
		if idem != nil && idem.Stored() {
			idem = nil
		}
		if idem != nil {
			// Another daemon on the same database may have answered this key since Replay
			// looked: the record and this change cannot both commit.
			if rec, err := tx.Idempotency(idem.Key); err != nil || rec != nil {
				return errors.Join(err, errKeyAnswered)
			}
		}
		c := &Change{Tx: tx, Ctx: ctx, Actor: actor, Now: k.Now(), Events: k.Events, idem: idem}
		var err error
		if out, err = fn(c); err != nil {
			return err
		}
		notices, afters = c.Notices, c.afters
		if idem == nil {
			return nil
		}
		stored = idem
		if c.answered {
			return nil
		}
		body, err := EncodeAnswer(out)
		if err != nil {
			return err
		}
		return tx.PutIdempotency(idem.Key, &store.Idempotency{BodyHash: idem.BodyHash, Op: idem.Op, Status: idem.Status,
			Sealed: sealWith(idem.Seal, store.Compress(body)), At: c.Now})
	})
	k.Cfg.Hooks.Change(actor)
	if err == nil && stored != nil {
		stored.MarkStored()
	}
	if err == nil {
		k.Send(ctx, notices)
		for _, f := range afters {
			f()
		}
	}
	return out, err
}

// A typed event is recorded inside a change by the service that made it and handled, in the same
// transaction, by the services that subscribed to its type: a service reacts to another's change
// without the other calling back up into it. Handlers run in the order they subscribed; an error
// from one fails the change.
type Subscribers map[reflect.Type][]func(ch *Change, e any) error

// On subscribes fn to the events of type E.
func On[E any](b Base, fn func(ch *Change, e E) error) {
	t := reflect.TypeFor[E]()
	b.k.Events[t] = append(b.k.Events[t], func(ch *Change, e any) error { return fn(ch, e.(E)) })
}

// Emit hands e to the subscribers of its type, inside the change's transaction.
func Emit[E any](ch *Change, e E) error {
	for _, fn := range ch.Events[reflect.TypeFor[E]()] {
		if err := fn(ch, e); err != nil {
			return err
		}
	}
	return nil
}

// PaymentConfirmed: a task's payment was confirmed and the task moved to working; its job starts.
// Handlers may change Task; the change that emits it saves the task after them.
type PaymentConfirmed struct {
	Task   *axp.TaskRecord
	Seller *axp.Member
}

// TaskFinished: a task reached an end state through its seller's work (accepted or released,
// settled, refunded); each side is asked for its review.
type TaskFinished struct {
	Task *axp.TaskRecord
}

// PayoutAddressSet: a member gave a payout address; payouts held for the lack of one go ahead.
type PayoutAddressSet struct {
	Member *axp.Member
}

// Apply is MutateCall for a change whose answer has a type: fn answers a *T, and so does Apply, so
// a handler's answer is checked at compile time from its change to its declaration.
func Apply[T any](k Mutator, ctx context.Context, c *pipeline.Call, fn func(ch *Change) (*T, error)) (*T, error) {
	var out *T
	_, err := k.MutateCall(ctx, c, func(ch *Change) (any, error) {
		v, err := fn(ch)
		out = v
		if v == nil {
			return nil, err
		}
		return v, err
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}
