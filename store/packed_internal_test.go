package store

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/axp-exchange/axp"
	"github.com/axp-exchange/axp/store/pgtest"
	bolt "go.etcd.io/bbolt"
)

// TestPackedMatchesModel: a packed bucket read through Get, Count and cursors (every move, both
// directions, turns between them) answers what a plain ordered map of the same writes answers,
// while random puts, deletes, packing passes (any cutoff and floor, any block limit) and folds of
// records written after packing run between the reads (and in the transaction that packed), on
// both backends; folding never leaves a block of more than twice its size (small blocks here).
func TestPackedMatchesModel(t *testing.T) {
	pgtest.Both(t, func(t *testing.T) {
		db := openBackend(t)
		r := rand.New(rand.NewPCG(1, 2))
		model := map[string]string{}
		key := func() string { return fmt.Sprintf("k%05d", r.IntN(3000)) }
		const small = 32
		for round := range 12 {
			if err := db.Update(func(tx *Tx) error {
				b := tx.bucket(bEvents)
				for range 400 {
					k := key()
					if r.IntN(6) == 0 {
						delete(model, k)
						if err := b.Delete([]byte(k)); err != nil {
							return err
						}
						continue
					}
					v := fmt.Sprintf(`{"round":%d,"v":%d,"pad":"%s"}`, round, r.IntN(1000), strings.Repeat("x", r.IntN(200)))
					model[k] = v
					if err := b.Put([]byte(k), compress([]byte(v))); err != nil {
						return err
					}
				}
				var floor []byte
				if r.IntN(2) == 0 {
					floor = []byte(key())
				}
				pb := tx.packed(bEvents)
				pb.records, pb.bytes = small, 4<<10 // small blocks: many of them, and many boundaries
				if _, err := pb.pack(floor, []byte(key()), 1+r.IntN(8), r.IntN(4) == 0); err != nil {
					return err
				}
				if round%2 == 0 { // read in the transaction that packed, through the bucket used before
					checkPacked(t, b, model, r)
				}
				return nil
			}); err != nil {
				t.Fatal(err)
			}
			if err := db.View(func(tx *Tx) error {
				checkPacked(t, tx.bucket(bEvents), model, r)
				return nil
			}); err != nil {
				t.Fatal(err)
			}
		}
		if err := db.View(func(tx *Tx) error {
			if blocks := tx.rawBucket(packedOf[string(bEvents)].blocks).Count(); blocks < 20 {
				t.Errorf("%d blocks: the test did not pack enough to be worth it", blocks)
			}
			c := tx.rawBucket(packedOf[string(bEvents)].blocks).Cursor()
			for k, v := c.First(); k != nil; k, v = c.Next() {
				if n := blockCount(v); n > 2*small {
					t.Errorf("block %s holds %d records: folding should have split it", k, n)
				}
			}
			return nil
		}); err != nil {
			t.Fatal(err)
		}
	})
}

// modelCursor walks a sorted list of keys the way a bucket's cursor does.
type modelCursor struct {
	keys []string
	vals map[string]string
	pos  int
}

func (c *modelCursor) at() ([]byte, []byte) {
	if c.pos < 0 || c.pos >= len(c.keys) {
		return nil, nil
	}
	return []byte(c.keys[c.pos]), []byte(c.vals[c.keys[c.pos]])
}

func checkPacked(t *testing.T, b bucket, model map[string]string, r *rand.Rand) {
	t.Helper()
	keys := make([]string, 0, len(model))
	for k := range model {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	plain := func(v []byte) string {
		raw, err := decompress(v)
		if err != nil {
			t.Fatal(err)
		}
		return string(raw)
	}
	var got, want []string
	c := b.Cursor()
	for k, v := c.First(); k != nil; k, v = c.Next() {
		got = append(got, string(k)+"="+plain(v))
	}
	for _, k := range keys {
		want = append(want, k+"="+model[k])
	}
	if !slices.Equal(got, want) {
		t.Fatalf("forward scan: %d records, want %d", len(got), len(want))
	}
	got = got[:0]
	for k, v := c.Last(); k != nil; k, v = c.Prev() {
		got = append(got, string(k)+"="+plain(v))
	}
	slices.Reverse(want)
	if !slices.Equal(got, want) {
		t.Fatalf("backward scan: %d records, want %d", len(got), len(want))
	}
	if n := b.Count(); n != len(keys) {
		t.Fatalf("Count %d, want %d", n, len(keys))
	}
	for range 300 {
		k := fmt.Sprintf("k%05d", r.IntN(3100))
		v, ok := model[k]
		if got := b.Get([]byte(k)); ok != (got != nil) || (ok && plain(got) != v) {
			t.Fatalf("Get %s: %q, want %q", k, got, v)
		}
	}
	m := &modelCursor{keys: keys, vals: model}
	c = b.Cursor()
	c.First()
	var trail []string
	for i := range 2000 {
		var k, v []byte
		op := r.IntN(8)
		trail = append(trail, fmt.Sprint(op))
		switch op {
		case 0:
			k, v = c.First()
			m.pos = 0
		case 1:
			k, v = c.Last()
			m.pos = len(keys) - 1
		case 2:
			s := fmt.Sprintf("k%05d", r.IntN(3100))
			k, v = c.Seek([]byte(s))
			m.pos = sort.SearchStrings(keys, s)
		case 3, 4:
			k, v = c.Prev()
			m.pos--
		default:
			k, v = c.Next()
			m.pos++
		}
		mk, mv := m.at()
		if !bytes.Equal(k, mk) || (k != nil && plain(v) != string(mv)) {
			t.Fatalf("move %d: %q=%q, want %q=%q (%v)", i, k, v, mk, mv, trail[max(0, len(trail)-6):])
		}
		if k == nil { // past an end: start again (where a cursor stands then is not specified)
			s := fmt.Sprintf("k%05d", r.IntN(3000))
			c.Seek([]byte(s))
			m.pos = sort.SearchStrings(keys, s)
		}
	}
}

// TestPackAges: Pack moves only what is past its bucket's age, in whole blocks, leaves the newest
// short run live, and the store's readers (an audit query, a trace) answer the same before and
// after.
func TestPackAges(t *testing.T) {
	pgtest.Both(t, func(t *testing.T) {
		db := openBackend(t)
		start := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
		const big = packRecords // a block of small records
		const n = 3*big + 17
		if err := db.Update(func(tx *Tx) error {
			for i := range n {
				at := start.Add(time.Duration(i) * time.Minute)
				if err := tx.Audit(&axp.AuditRecord{ID: axp.IDFloor("aud", at), Time: at, Actor: "admin",
					Action: "task.pay", EntityType: "task", EntityID: fmt.Sprintf("tsk_%d", i%7), TraceID: axp.NewTraceID(at)}); err != nil {
					return err
				}
			}
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		read := func() []axp.AuditRecord {
			var out []axp.AuditRecord
			if err := db.View(func(tx *Tx) error {
				var err error
				out, err = tx.AuditRecords(axp.AuditQuery{EntityID: "tsk_3", Limit: 1000})
				return err
			}); err != nil {
				t.Fatal(err)
			}
			return out
		}
		pack := func(now time.Time) int {
			var moved int
			if err := db.Update(func(tx *Tx) error {
				var err error
				moved, err = tx.Pack(now, 100, false)
				return err
			}); err != nil {
				t.Fatal(err)
			}
			return moved
		}
		live := func(name []byte) (n int) {
			if err := db.View(func(tx *Tx) error { n = tx.rawBucket(name).Count(); return nil }); err != nil {
				t.Fatal(err)
			}
			return n
		}
		before := read()
		// An hour after minute big+100, the records of the first big+100 minutes are past the hour:
		// one whole block of audit records, and one of their trace rows.
		if moved := pack(start.Add((big + 160) * time.Minute)); moved != 2*big || live(bAudit) != n-big || live(bTraceIndex) != n-big {
			t.Fatalf("moved %d records, want one block of %d audit records and one of trace rows", moved, big)
		}
		if moved := pack(start.Add(48 * time.Hour)); moved != 4*big {
			t.Fatalf("moved %d records, want two more blocks of each", moved)
		}
		after := read()
		if fmt.Sprint(before) != fmt.Sprint(after) || len(after) != (n+3)/7 {
			t.Fatalf("audit query changed by packing: %d records before, %d after", len(before), len(after))
		}
		if err := db.View(func(tx *Tx) error {
			if live := tx.rawBucket(bAudit).Count(); live != 17 || tx.bucket(bAudit).Count() != n {
				t.Errorf("%d audit records live, want the 17 of the short run", live)
			}
			first := after[len(after)-1]
			if tr, err := tx.Trace(first.TraceID); err != nil || len(tr.Audit) != 1 || tr.Audit[0].ID != first.ID {
				t.Errorf("trace of a packed record: %v, %+v", err, tr)
			}
			return nil
		}); err != nil {
			t.Fatal(err)
		}
	})
}

// TestPruneLogPacked: pruning the log deletes whole blocks, trims the block that straddles the
// limit, deletes live entries, and removes the trace rows of all of them, packed (the exchange's
// own trace ids are time-ordered) or live.
func TestPruneLogPacked(t *testing.T) {
	pgtest.Both(t, func(t *testing.T) {
		db := openBackend(t)
		start := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
		const big = packRecords
		const n = 2*big + 40
		traces := make([]string, n)
		if err := db.Update(func(tx *Tx) error {
			entries := make([]axp.LogEntry, n)
			for i := range entries {
				traces[i] = axp.NewTraceID(start.Add(time.Duration(i) * time.Second))
				entries[i] = axp.LogEntry{Time: start.Add(time.Duration(i) * time.Second), Level: "info",
					Source: "http", Message: "request", TraceID: traces[i]}
			}
			if err := tx.AppendLog(entries, 0); err != nil {
				return err
			}
			_, err := tx.Pack(start.Add(2*time.Hour), 100, false)
			return err
		}); err != nil {
			t.Fatal(err)
		}
		// Keep from entry big+72 on: the first block goes whole, the second loses 72, 40 stay live.
		var pruned int
		if err := db.Update(func(tx *Tx) error {
			if live := tx.rawBucket(bLog).Count(); live != 40 {
				t.Errorf("%d log entries live before pruning, want 40", live)
			}
			if live := tx.rawBucket(bTraceIndex).Count(); live != 40 {
				t.Errorf("%d trace rows live before pruning, want 40 (the rest packed)", live)
			}
			var err error
			pruned, err = tx.PruneLog(start.Add((big + 72) * time.Second))
			return err
		}); err != nil {
			t.Fatal(err)
		}
		if pruned != big+72 {
			t.Fatalf("pruned %d, want %d", pruned, big+72)
		}
		if err := db.View(func(tx *Tx) error {
			es, err := tx.LogEntries(axp.LogQuery{Limit: 1000})
			if err != nil || len(es) != n-big-72 || !es[len(es)-1].Time.Equal(start.Add((big+72)*time.Second)) {
				t.Errorf("left: %v, %d entries", err, len(es))
			}
			for i, id := range []string{traces[0], traces[big+10], traces[big+71], traces[big+72], traces[n-1]} {
				want := 0
				if i >= 3 {
					want = 1
				}
				if tr, err := tx.Trace(id); err != nil || len(tr.Log) != want {
					t.Errorf("trace %d: %v, %d entries, want %d", i, err, len(tr.Log), want)
				}
			}
			if rows := tx.bucket(bTraceIndex).Count(); rows != n-big-72 {
				t.Errorf("%d trace rows left, want %d", rows, n-big-72)
			}
			return nil
		}); err != nil {
			t.Fatal(err)
		}
	})
}

// TestPackedUndo: in a transaction shared by several calls (group commit on bbolt), a call that
// dropped blocks and read what was left, then failed, is undone with what it learned of the
// blocks: the next call finds the records of the restored blocks.
func TestPackedUndo(t *testing.T) {
	db, err := Open(t.TempDir()+"/"+FileName, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	start := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	if err := db.Update(func(tx *Tx) error {
		entries := make([]axp.LogEntry, 3*packRecords)
		for i := range entries {
			entries[i] = axp.LogEntry{Time: start.Add(time.Duration(i) * time.Second), Level: "info", Source: "http", Message: fmt.Sprint(i)}
		}
		if err := tx.AppendLog(entries, 0); err != nil {
			return err
		}
		_, err := tx.Pack(start.Add(48*time.Hour), 100, true)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	first := u64(uint64(start.UnixNano()))
	first = append(first, 0, 0, 0, 0)
	if err := db.bolt.Update(func(btx *bolt.Tx) error {
		tx := &Tx{tx: btx, track: true}
		// The failing call: prune everything, see that nothing is left, fail.
		if _, err := tx.PruneLog(start.Add(48 * time.Hour)); err != nil {
			return err
		}
		if tx.bucket(bLog).Get(first) != nil {
			t.Error("an entry survived pruning")
		}
		if err := tx.rollbackCall(); err != nil {
			return err
		}
		// The next call of the transaction.
		if tx.bucket(bLog).Get(first) == nil || tx.bucket(bLog).Count() != 3*packRecords {
			t.Error("the undone prune still hides the log")
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
}

// TestPackedTailsInAGroup: on PostgreSQL a transaction reads where every bucket's blocks end with
// its BEGIN; when one call of a group packs, the next call of the same transaction does not trust
// that reading and finds the records now in blocks.
func TestPackedTailsInAGroup(t *testing.T) {
	pgtest.Both(t, func(t *testing.T) {
		if !pgtest.OnPostgres(t) {
			return // bbolt has no such reading (its cursors cost nothing to ask)
		}
		db := openBackend(t)
		key := func(i int) []byte { return []byte(fmt.Sprintf("k%05d", i)) }
		if err := db.Update(func(tx *Tx) error {
			for i := range 300 {
				if err := tx.bucket(bEvents).Put(key(i), compress([]byte(fmt.Sprintf(`{"seq":%d}`, i)))); err != nil {
					return err
				}
			}
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		ctx := t.Context()
		conn, err := db.pg.pool.Acquire(ctx)
		if err != nil {
			t.Fatal(err)
		}
		ptx := newPgTx(ctx, conn, pgBeginUpdate, true)
		defer ptx.end(conn)
		ptx.startCall(false)
		first := &Tx{pg: ptx}
		if first.bucket(bEvents).Get(key(0)) == nil {
			t.Fatal("the record is not there before packing")
		}
		if moved, err := first.packed(bEvents).pack(nil, []byte("z"), 100, true); err != nil || moved != 300 {
			t.Fatalf("packed %d, %v", moved, err)
		}
		ptx.call = pgCall{}
		ptx.startCall(true)
		next := &Tx{pg: ptx}
		if next.bucket(bEvents).Get(key(0)) == nil || next.bucket(bEvents).Count() != 300 {
			t.Error("the next call of the transaction does not find the packed records")
		}
		if next.rawBucket(bEvents).Count() != 0 {
			t.Error("records left live")
		}
	})
}

// TestPackedReadsCostNoTrip: on PostgreSQL, reading a packed bucket (a record past every block, a
// record in a block, a cursor over both) costs the round trips a plain bucket's read costs: where
// the blocks end is read in the batch of the first statement.
func TestPackedReadsCostNoTrip(t *testing.T) {
	pgtest.Both(t, func(t *testing.T) {
		if !pgtest.OnPostgres(t) {
			return
		}
		db := openBackend(t)
		key := func(i int) []byte { return []byte(fmt.Sprintf("k%05d", i)) }
		if err := db.Update(func(tx *Tx) error {
			for i := range 600 {
				for _, b := range [][]byte{bEvents, bMembers} {
					if err := tx.bucket(b).Put(key(i), []byte(`{}`)); err != nil {
						return err
					}
				}
			}
			_, err := tx.packed(bEvents).pack(nil, key(512), 10, false)
			return err
		}); err != nil {
			t.Fatal(err)
		}
		trips := func(b []byte, read func(bucket) bool) int64 {
			before := db.PostgresStats().RoundTrips
			if err := db.View(func(tx *Tx) error {
				if !read(tx.bucket(b)) {
					t.Errorf("%s: the read found nothing", b)
				}
				return nil
			}); err != nil {
				t.Fatal(err)
			}
			return db.PostgresStats().RoundTrips - before
		}
		for name, read := range map[string]func(bucket) bool{
			"get past the blocks": func(b bucket) bool { return b.Get(key(550)) != nil },
			"get in a block":      func(b bucket) bool { return b.Get(key(10)) != nil },
			"seek":                func(b bucket) bool { k, _ := b.Cursor().Seek(key(530)); return k != nil },
		} {
			plain, packed := trips(bMembers, read), trips(bEvents, read)
			// A read in a block also fetches that block: one statement more, after the tails.
			if extra := map[bool]int64{true: 1}[name == "get in a block"]; packed != plain+extra {
				t.Errorf("%s: %d round trips on a packed bucket, %d on a plain one", name, packed, plain)
			}
		}
	})
}
