package kernel_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/axp-exchange/axp"
	"github.com/axp-exchange/axp/daemon/kernel"
	"github.com/axp-exchange/axp/daemon/pipeline"
	"github.com/axp-exchange/axp/store"
)

// testKernel is the least of a kernel that Mutate and Apply need: a bbolt store in a temporary
// directory, a fixed clock, and an outbox that records each notice sent, with whether the change
// that queued it had committed when it was sent (the member the notice names is readable).
type testKernel struct {
	*kernel.Kernel
	sent []sentNotice
}

type sentNotice struct {
	n         kernel.Notice
	committed bool
}

func newKernel(t *testing.T) *testKernel {
	db, err := store.Open(filepath.Join(t.TempDir(), "axp.db"), store.Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	k := &testKernel{Kernel: &kernel.Kernel{Store: db, Cfg: kernel.Config{Now: func() time.Time { return now }}, Events: kernel.Subscribers{}}}
	k.Outbox = outboxFunc(func(ctx context.Context, n kernel.Notice) {
		k.sent = append(k.sent, sentNotice{n: n, committed: k.member(t, n.MemberID) != nil})
	})
	return k
}

// outboxFunc is a function as an Outbox.
type outboxFunc func(ctx context.Context, n kernel.Notice)

func (f outboxFunc) Deliver(ctx context.Context, n kernel.Notice) { f(ctx, n) }

func (k *testKernel) member(t *testing.T, id string) *axp.Member {
	t.Helper()
	var m *axp.Member
	if err := k.Store.View(func(tx *store.Tx) error {
		var err error
		m, err = tx.Member(id)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	return m
}

func (k *testKernel) audit(t *testing.T, entityID string) []axp.AuditRecord {
	t.Helper()
	var recs []axp.AuditRecord
	if err := k.Store.View(func(tx *store.Tx) error {
		var err error
		recs, err = tx.AuditRecords(axp.AuditQuery{EntityID: entityID})
		return err
	}); err != nil {
		t.Fatal(err)
	}
	return recs
}

func (k *testKernel) idempotency(t *testing.T, key string) *store.Idempotency {
	t.Helper()
	var rec *store.Idempotency
	if err := k.Store.View(func(tx *store.Tx) error {
		var err error
		rec, err = tx.Idempotency(key)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	return rec
}

func digests(t *testing.T, db *store.DB) map[string]string {
	t.Helper()
	d, err := db.Digests()
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// register is a change that writes a member with its audit record, notifies it and answers it.
func register(id string, fail error) func(ch *kernel.Change) (*axp.Member, error) {
	return func(ch *kernel.Change) (*axp.Member, error) {
		m := &axp.Member{ID: id, Name: "Member " + id, Roles: []string{"buyer"}}
		if err := ch.Tx.PutMember(m); err != nil {
			return nil, err
		}
		if err := ch.Audit("member.register", "member", id, map[string]any{"name": m.Name}); err != nil {
			return nil, err
		}
		ch.Notify(kernel.Notice{MemberID: id, Msg: kernel.Push{Name: "welcome"}})
		if fail != nil {
			return nil, fail
		}
		return m, nil
	}
}

// idem is an idempotent call's description as the pipeline makes it.
func idem(key string) *axp.Idempotency {
	k := sha256.Sum256([]byte("member:mem_1\x00register\x00" + key))
	seal := sha256.Sum256([]byte("secret" + key))
	return &axp.Idempotency{Key: hex.EncodeToString(k[:]), BodyHash: "body-hash", Op: "register", Status: 201, Seal: seal[:]}
}

// operator is a call of the operator, without an idempotency key.
var operator = &pipeline.Call{Caller: axp.Caller{Kind: axp.Operator}}

// memberCall is a call of member mem_1 with the idempotency i (nil: no key).
func memberCall(i *axp.Idempotency) *pipeline.Call {
	return &pipeline.Call{Caller: axp.Caller{Kind: axp.MemberCall, MemberID: "mem_1"}, Idem: i}
}

// TestMutateCommits: a change's writes and its audit record commit together in one transaction;
// the answer is returned; its notices are sent only once it committed, and its follow-up work
// runs then.
func TestMutateCommits(t *testing.T) {
	k := newKernel(t)
	ctx := axp.WithTrace(context.Background(), "trace-1")
	afters := 0
	out, err := k.Mutate(ctx, "member:mem_0", func(ch *kernel.Change) (any, error) {
		ch.After(func() { afters++ })
		return register("mem_1", nil)(ch)
	})
	if err != nil {
		t.Fatal(err)
	}
	if m, ok := out.(*axp.Member); !ok || m.ID != "mem_1" {
		t.Fatalf("answer %#v", out)
	}
	if m := k.member(t, "mem_1"); m == nil || m.Name != "Member mem_1" {
		t.Fatalf("member stored: %+v", m)
	}
	recs := k.audit(t, "mem_1")
	if len(recs) != 1 || recs[0].Action != "member.register" || recs[0].Actor != "member:mem_0" || recs[0].TraceID != "trace-1" ||
		!recs[0].Time.Equal(k.Now()) {
		t.Fatalf("audit %+v", recs)
	}
	if len(k.sent) != 1 || k.sent[0].n.Msg.Tool() != "welcome" || !k.sent[0].committed {
		t.Fatalf("sent %+v: the notice goes once, after the change committed", k.sent)
	}
	if afters != 1 {
		t.Fatalf("follow-up work ran %d times", afters)
	}
}

// TestMutateFailsWhole: a change whose fn fails writes nothing (neither its writes nor its audit
// record), sends none of its notices, runs none of its follow-up work, and returns fn's error.
func TestMutateFailsWhole(t *testing.T) {
	k := newKernel(t)
	before := digests(t, k.Store)
	refused := axp.Conflict("no", "")
	afters := 0
	_, err := k.Mutate(context.Background(), "admin", func(ch *kernel.Change) (any, error) {
		ch.After(func() { afters++ })
		return register("mem_1", refused)(ch)
	})
	if !errors.Is(err, refused) {
		t.Fatalf("failed change answered %v", err)
	}
	if after := digests(t, k.Store); !reflect.DeepEqual(before, after) {
		t.Fatalf("a failed change wrote:\nbefore %v\nafter  %v", before, after)
	}
	if k.member(t, "mem_1") != nil || len(k.audit(t, "mem_1")) != 0 {
		t.Fatal("the failed change's member or audit record is stored")
	}
	if len(k.sent) != 0 || afters != 0 {
		t.Fatalf("a failed change sent %d notices and ran %d follow-ups", len(k.sent), afters)
	}
	// Apply answers nil with the error, whatever fn answered with it.
	m, err := kernel.Apply(k.Kernel, context.Background(), operator, func(ch *kernel.Change) (*axp.Member, error) {
		m, _ := register("mem_2", nil)(ch)
		return m, refused
	})
	if m != nil || !errors.Is(err, refused) || k.member(t, "mem_2") != nil {
		t.Fatalf("Apply of a failing change: %v, %v", m, err)
	}
}

// TestMutateStoresTheAnswer: a call with an idempotency key stores its answer, sealed with the
// caller's key, in the change's transaction: the record opens to the answer's exact bytes, and
// the call is marked stored. A failing call stores nothing; a later change of the same call leaves
// the record alone; another call with the key finds it answered (conflict) and writes nothing.
func TestMutateStoresTheAnswer(t *testing.T) {
	k := newKernel(t)
	i := idem("5f0c3a9e-8d2b-4c1e-9a7f-2b6d8e4c1a03")
	ctx, c := context.Background(), memberCall(i)

	if _, err := kernel.Apply(k.Kernel, ctx, c, register("mem_0", errors.New("broken"))); err == nil {
		t.Fatal("the failing change answered no error")
	}
	if rec := k.idempotency(t, i.Key); rec != nil || i.Stored() {
		t.Fatalf("a failed call stored its answer: %+v", rec)
	}

	m, err := kernel.Apply(k.Kernel, ctx, c, register("mem_1", nil))
	if err != nil || m == nil || m.ID != "mem_1" {
		t.Fatalf("Apply: %+v, %v", m, err)
	}
	if !i.Stored() {
		t.Fatal("the call is not marked stored")
	}
	rec := k.idempotency(t, i.Key)
	if rec == nil || rec.BodyHash != i.BodyHash || rec.Op != "register" || rec.Status != 201 || !rec.At.Equal(k.Now()) || rec.Task != "" {
		t.Fatalf("record %+v", rec)
	}
	want, err := kernel.EncodeAnswer(m)
	if err != nil {
		t.Fatal(err)
	}
	if got := open(t, i.Seal, rec.Sealed); !bytes.Equal(got, want) {
		t.Fatalf("stored answer %s, want %s", got, want)
	}
	if _, err := kernel.OpenWith(idem("another key").Seal, rec.Sealed); err == nil {
		t.Fatal("the answer opens with another key's seal")
	}

	// A follow-up change of the same call does not overwrite the record.
	sealed := rec.Sealed
	if _, err := kernel.Apply(k.Kernel, ctx, c, register("mem_2", nil)); err != nil {
		t.Fatal(err)
	}
	if rec := k.idempotency(t, i.Key); !bytes.Equal(rec.Sealed, sealed) {
		t.Fatal("a later change of the same call rewrote its answer")
	}

	// Another call with the same key (as another daemon on the same store would run it) is
	// refused, and its change does not commit.
	before := digests(t, k.Store)
	sent := len(k.sent)
	_, err = kernel.Apply(k.Kernel, ctx, memberCall(idem("5f0c3a9e-8d2b-4c1e-9a7f-2b6d8e4c1a03")), register("mem_3", nil))
	if e := (*axp.Error)(nil); !errors.As(err, &e) || e.Code != axp.CodeConflict {
		t.Fatalf("a second call with an answered key: %v", err)
	}
	if !reflect.DeepEqual(before, digests(t, k.Store)) || len(k.sent) != sent {
		t.Fatal("the refused call wrote or sent something")
	}
}

// TestAnswerWithTask: a change that records its answer as a task's stores that reference (and
// what the task does not keep) instead of its answer.
func TestAnswerWithTask(t *testing.T) {
	k := newKernel(t)
	i := idem("0123456789abcdef-task")
	anonymous := &pipeline.Call{Caller: axp.Caller{Kind: axp.Anonymous}, Idem: i}
	_, err := k.MutateCall(context.Background(), anonymous, func(ch *kernel.Change) (any, error) {
		if err := ch.AnswerWithTask("task_1", map[string]string{"buyer_token": "bt_1"}); err != nil {
			return nil, err
		}
		return map[string]string{"answer": "not stored"}, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	rec := k.idempotency(t, i.Key)
	if rec == nil || rec.Task != "task_1" {
		t.Fatalf("record %+v", rec)
	}
	if got := open(t, i.Seal, rec.Sealed); string(got) != `{"buyer_token":"bt_1"}` {
		t.Fatalf("stored %s", got)
	}
	// Without a key there is nothing to record.
	_, err = k.Mutate(context.Background(), "anonymous", func(ch *kernel.Change) (any, error) {
		return nil, ch.AnswerWithTask("task_2", nil)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestBackgroundChangeLeavesTheKey: work a call starts in the background (a goroutine given the
// handler's context) changes state as itself: it writes no idempotency record, even before the
// call's own change; the record is the call's answer, written with the call's change.
func TestBackgroundChangeLeavesTheKey(t *testing.T) {
	k := newKernel(t)
	i := idem("5f0c3a9e-8d2b-4c1e-9a7f-2b6d8e4c1a03")
	c := memberCall(i)
	handler := func(ctx context.Context, c *pipeline.Call) (*axp.Member, error) {
		done := make(chan error)
		go func() {
			_, err := k.Mutate(ctx, "system", func(ch *kernel.Change) (any, error) { return register("mem_9", nil)(ch) })
			done <- err
		}()
		if err := <-done; err != nil {
			return nil, err
		}
		if rec := k.idempotency(t, i.Key); rec != nil || i.Stored() {
			t.Fatalf("the background change wrote the call's record: %+v", rec)
		}
		return kernel.Apply(k.Kernel, ctx, c, register("mem_1", nil))
	}
	m, err := handler(context.Background(), c)
	if err != nil {
		t.Fatal(err)
	}
	rec := k.idempotency(t, i.Key)
	want, _ := kernel.EncodeAnswer(m)
	if rec == nil || !i.Stored() || !bytes.Equal(open(t, i.Seal, rec.Sealed), want) {
		t.Fatalf("the call's record %+v is not its answer %s", rec, want)
	}
	if k.member(t, "mem_9") == nil {
		t.Fatal("the background change did not commit")
	}
}

// TestEventsInTheChange: a typed event's subscribers run inside the change that emits it; an
// error from one fails the whole change.
func TestEventsInTheChange(t *testing.T) {
	k := newKernel(t)
	var fail error
	kernel.On(k.Kernel.Base(), func(ch *kernel.Change, e kernel.PayoutAddressSet) error {
		if err := ch.Audit("member.payout_seen", "member", e.Member.ID, nil); err != nil {
			return err
		}
		return fail
	})
	emit := func(id string) error {
		_, err := kernel.Apply(k.Kernel, context.Background(), operator, func(ch *kernel.Change) (*axp.Member, error) {
			m, err := register(id, nil)(ch)
			if err != nil {
				return nil, err
			}
			return m, kernel.Emit(ch, kernel.PayoutAddressSet{Member: m})
		})
		return err
	}
	if err := emit("mem_1"); err != nil || len(k.audit(t, "mem_1")) != 2 {
		t.Fatalf("emit: %v, audit %+v", err, k.audit(t, "mem_1"))
	}
	fail = errors.New("subscriber refused")
	if err := emit("mem_2"); !errors.Is(err, fail) || k.member(t, "mem_2") != nil || len(k.audit(t, "mem_2")) != 0 {
		t.Fatalf("a subscriber's error: %v; the change's member or audit stored", err)
	}
}

func open(t *testing.T, seal, sealed []byte) []byte {
	t.Helper()
	body, err := kernel.OpenWith(seal, sealed)
	if err != nil {
		t.Fatal(err)
	}
	if body, err = store.Decompress(body); err != nil {
		t.Fatal(err)
	}
	return body
}
