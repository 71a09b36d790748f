package store

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/axp-exchange/axp"
	"github.com/axp-exchange/axp/store/pgtest"
)

// TestPlainBuckets: members, quotes and seller figures are written as plain JSON however large,
// and the same records written compressed (by schema 11) still read back.
func TestPlainBuckets(t *testing.T) { pgtest.Both(t, testPlainBuckets) }

func testPlainBuckets(t *testing.T) {
	db := openBackend(t)
	long := strings.Repeat("translates technical manuals ", 10)
	m := &axp.Member{ID: "mem_plain", Name: "plain seller", Description: long}
	q := &axp.QuoteRecord{TaskID: "tsk_1", SellerID: "mem_plain", SellerName: long, Kind: "price", OfferID: "ofr_1"}
	st := &axp.SellerStats{SellerID: "mem_plain"}
	for range 20 {
		st.AddQuoteLatency(120)
	}
	old := &axp.Member{ID: "mem_old", Name: "compressed seller", Description: long}
	oldQ := &axp.QuoteRecord{TaskID: "tsk_1", SellerID: "mem_old", SellerName: long, Kind: "price", OfferID: "ofr_2"}
	if err := db.Update(func(tx *Tx) error {
		if err := tx.PutMember(m); err != nil {
			return err
		}
		if err := tx.PutQuote(q); err != nil {
			return err
		}
		if err := tx.PutSellerStats(st); err != nil {
			return err
		}
		// What schemas 11 and 12 wrote: the same records deflated.
		for _, w := range []struct {
			b   []byte
			key []byte
			v   any
		}{{bMembers, []byte(old.ID), old}, {bQuotes, pair(oldQ.TaskID, oldQ.SellerID), oldQ}} {
			raw, err := json.Marshal(w.v)
			if err != nil {
				return err
			}
			if err := tx.bucket(w.b).Put(w.key, deflated(t, raw)); err != nil {
				return err
			}
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if err := db.View(func(tx *Tx) error {
		for _, k := range []struct {
			b, key []byte
		}{{bMembers, []byte(m.ID)}, {bQuotes, pair(q.TaskID, q.SellerID)}, {bSellerStats, []byte(st.SellerID)}} {
			raw := tx.bucket(k.b).Get(k.key)
			if len(raw) < compressMin || !json.Valid(raw) {
				t.Errorf("%s/%s is not stored as plain JSON of %d+ bytes: %q", k.b, k.key, compressMin, raw)
			}
		}
		if raw := tx.bucket(bMembers).Get([]byte(old.ID)); raw[0] != zMarker {
			t.Fatalf("the schema 11 member was not written deflated")
		}
		for _, id := range []string{m.ID, old.ID} {
			if got, err := tx.Member(id); err != nil || got == nil || got.Description != long {
				t.Errorf("member %s: %+v, %v", id, got, err)
			}
		}
		qs, err := tx.Quotes("tsk_1")
		if err != nil || len(qs) != 2 || qs[0].SellerName != long || qs[1].SellerName != long {
			t.Errorf("quotes: %+v, %v", qs, err)
		}
		got, err := tx.SellerStats(st.SellerID)
		if err != nil || got.SellerID != st.SellerID {
			t.Errorf("seller stats: %+v, %v", got, err)
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
}

// TestPlainEvents: AppendPlainEvent stores its event as plain JSON however large, in the same
// timeline as compressed events, and Events reads both back in order.
func TestPlainEvents(t *testing.T) { pgtest.Both(t, testPlainEvents) }

func testPlainEvents(t *testing.T) {
	db := openBackend(t)
	task := &axp.TaskRecord{ID: "tsk_plain_events"}
	long := strings.Repeat("a detail long enough to be compressed ", 5)
	if err := db.Update(func(tx *Tx) error {
		if err := tx.AppendEvent(task, axp.Event{Kind: "create", Detail: map[string]any{"note": long}}); err != nil {
			return err
		}
		return tx.AppendPlainEvent(task, axp.Event{Kind: "quote", Detail: map[string]any{"note": long}})
	}); err != nil {
		t.Fatal(err)
	}
	if err := db.View(func(tx *Tx) error {
		key := func(seq uint64) []byte { return append(append([]byte(task.ID), 0), u64(seq)...) }
		if raw := tx.bucket(bEvents).Get(key(1)); json.Valid(raw) {
			t.Errorf("the event appended by AppendEvent is stored plain: %q", raw)
		}
		if raw := tx.bucket(bEvents).Get(key(2)); len(raw) < compressMin || !json.Valid(raw) {
			t.Errorf("the event appended by AppendPlainEvent is not stored as plain JSON: %q", raw)
		}
		evs, err := tx.Events(task.ID)
		if err != nil || len(evs) != 2 || evs[0].Kind != "create" || evs[1].Kind != "quote" || evs[1].Seq != 2 || evs[1].Detail["note"] != long {
			t.Errorf("events: %+v, %v", evs, err)
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
}

// TestPlainUntilSettled: a task is stored plain until it reaches an end state, an approval item
// while it waits (open or sent), and each is compressed from then on; both read back the same in
// either form.
func TestPlainUntilSettled(t *testing.T) { pgtest.Both(t, testPlainUntilSettled) }

func testPlainUntilSettled(t *testing.T) {
	db := openBackend(t)
	long := strings.Repeat("a haiku about autumn leaves ", 10)
	task := &axp.TaskRecord{ID: "tsk_settle", Type: "text-file", Description: long, Status: axp.TaskOpen}
	item := &axp.Approval{ID: "apr_settle", TaskID: task.ID, Kind: axp.ApprovePayout, Status: axp.ApprovalPending, Reason: long}
	stored := func() (taskRaw, itemRaw []byte) {
		t.Helper()
		if err := db.View(func(tx *Tx) error {
			taskRaw = append([]byte(nil), tx.bucket(bTasks).Get([]byte(task.ID))...)
			itemRaw = append([]byte(nil), tx.bucket(bApprovals).Get([]byte(item.ID))...)
			got, err := tx.Task(task.ID)
			if err != nil || got.Description != long || got.Status != task.Status {
				t.Errorf("task read back %+v, %v", got, err)
			}
			a, err := tx.Approval(item.ID)
			if err != nil || a.Reason != long || a.Status != item.Status {
				t.Errorf("item read back %+v, %v", a, err)
			}
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		return taskRaw, itemRaw
	}
	put := func(prev string) {
		t.Helper()
		if err := db.Update(func(tx *Tx) error {
			if err := tx.PutTask(task, prev); err != nil {
				return err
			}
			return tx.PutApproval(item)
		}); err != nil {
			t.Fatal(err)
		}
	}
	put("")
	if taskRaw, itemRaw := stored(); !json.Valid(taskRaw) || !json.Valid(itemRaw) {
		t.Fatalf("an open task and a pending item are stored plain: %.20q, %.20q", taskRaw, itemRaw)
	}
	task.Status = axp.TaskReleased
	item.Status = axp.ApprovalApproved
	put(axp.TaskOpen)
	if taskRaw, itemRaw := stored(); taskRaw[0] != zstdMarker || itemRaw[0] != zstdMarker {
		t.Fatalf("a released task and an approved item are stored compressed: %.20q, %.20q", taskRaw, itemRaw)
	}
}
