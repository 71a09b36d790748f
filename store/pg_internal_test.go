package store

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/axp-exchange/axp/store/pgtest"
)

// openBackend opens a new, empty store: a bbolt file, or a database on the package's PostgreSQL
// under pgtest.Both's "postgres" subtest.
func openBackend(t *testing.T) *DB {
	var db *DB
	var err error
	if pgtest.OnPostgres(t) {
		db, err = OpenLocation(pgtest.DSN(t), Options{})
	} else {
		db, err = Open(filepath.Join(t.TempDir(), FileName), Options{})
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// walkBucket lists a bucket as "key=value ..." in key order.
func walkBucket(b bucket) string {
	var out []string
	c := b.Cursor()
	for k, v := c.First(); k != nil; k, v = c.Next() {
		out = append(out, fmt.Sprintf("%s=%s", k, v))
	}
	return strings.Join(out, " ")
}

// updateOrPanic runs fn in an Update and answers its error, or "panic: ..." if it panicked.
func updateOrPanic(db *DB, fn func(*Tx) error) (out any) {
	defer func() {
		if p := recover(); p != nil {
			out = fmt.Sprint("panic: ", p)
		}
	}()
	return db.Update(fn)
}

// TestTxReadsItsWrites: inside one transaction Get, cursors and Count see the transaction's own
// puts and deletes, whether the key was read before or not; a failed function leaves nothing. On
// PostgreSQL writes wait in the transaction until a read could see them, so this is what keeps
// that honest; bbolt is the reference.
func TestTxReadsItsWrites(t *testing.T) {
	pgtest.Both(t, func(t *testing.T) {
		db := openBackend(t)
		walk := walkBucket
		if err := db.Update(func(tx *Tx) error {
			b := tx.bucket(bBlobs)
			for _, k := range []string{"a", "b", "c"} {
				if err := b.Put([]byte(k), []byte("1"+k)); err != nil {
					return err
				}
			}
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		boom := errors.New("boom")
		err := db.Update(func(tx *Tx) error {
			b := tx.bucket(bBlobs)
			if v := b.Get([]byte("a")); string(v) != "1a" {
				t.Errorf("get a: %q", v)
			}
			b.Delete([]byte("a"))
			if v := b.Get([]byte("a")); v != nil {
				t.Errorf("get a after its delete: %q", v)
			}
			b.Put([]byte("b"), []byte("2b")) // never read before
			b.Put([]byte("b"), []byte("3b"))
			if v := b.Get([]byte("b")); string(v) != "3b" {
				t.Errorf("get b after two puts: %q", v)
			}
			b.Put([]byte("e"), nil)
			if v := b.Get([]byte("e")); len(v) != 0 || (v == nil && db.IsPostgres()) {
				t.Errorf("get of an empty value: %v", v) // (bbolt answers nil before the commit)
			}
			if got := walk(b); got != "b=3b c=1c e=" {
				t.Errorf("cursor over own writes: %q", got)
			}
			if n := b.Count(); n != 3 {
				t.Errorf("count %d", n)
			}
			b.Put([]byte("d"), []byte("1d")) // after the cursor sent the others
			b.Delete([]byte("c"))
			if got := walk(b); got != "b=3b d=1d e=" {
				t.Errorf("cursor after more writes: %q", got)
			}
			if v := b.Get([]byte("c")); v != nil {
				t.Errorf("get c after its delete: %q", v)
			}
			b.Put([]byte("c"), []byte("2c"))
			return boom
		})
		if !errors.Is(err, boom) {
			t.Fatalf("failed update: %v", err)
		}
		if err := db.View(func(tx *Tx) error {
			if got := walk(tx.bucket(bBlobs)); got != "a=1a b=1b c=1c" {
				t.Errorf("after a failed update: %q", got)
			}
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		if err := db.Update(func(tx *Tx) error {
			b := tx.bucket(bBlobs)
			b.Get([]byte("a"))
			b.Delete([]byte("a"))
			b.Put([]byte("b"), []byte("2b"))
			b.Put([]byte("z"), []byte("1z"))
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		if err := db.View(func(tx *Tx) error {
			b := tx.bucket(bBlobs)
			if got := walk(b); got != "b=2b c=1c z=1z" {
				t.Errorf("after the update: %q", got)
			}
			if b.Get([]byte("a")) != nil || string(b.Get([]byte("z"))) != "1z" {
				t.Errorf("get after the update")
			}
			if err := b.Put([]byte("x"), []byte("1")); err == nil {
				t.Errorf("a put in a view succeeded")
			}
			return nil
		}); err != nil {
			t.Fatal(err)
		}
	})
}

// TestGroupCommitUndo: seven calls queued in order behind a leader share one transaction; calls
// that fail or panic are undone whether their writes still waited in the transaction or a cursor
// had them sent (on PostgreSQL after a savepoint), and never take the writes of the calls before
// them along. bbolt, whose undo log does the same, is the reference.
func TestGroupCommitUndo(t *testing.T) {
	pgtest.Both(t, func(t *testing.T) {
		db := openBackend(t)
		b := func(tx *Tx) bucket { return tx.bucket(bSellerStats) }
		put := func(tx *Tx, k, v string) error { return b(tx).Put([]byte(k), []byte(v)) }
		get := func(tx *Tx, k string) string { return string(b(tx).Get([]byte(k))) }
		walk := func(tx *Tx) string { return walkBucket(b(tx)) }
		if err := db.Update(func(tx *Tx) error {
			return errors.Join(put(tx, "shared", "before"), put(tx, "gone", "before"))
		}); err != nil {
			t.Fatal(err)
		}
		release := make(chan struct{})
		done := make(chan error, 8)
		go func() {
			done <- db.Update(func(tx *Tx) error {
				<-release
				return put(tx, "leader", "1")
			})
		}()
		for db.queued() != 0 || !db.leading() {
			runtime.Gosched()
		}
		boom := errors.New("boom")
		calls := map[int]func(tx *Tx) error{
			1: func(tx *Tx) error { return nil },
			2: func(tx *Tx) error { // a cursor sends its writes and the first call's
				if got := walk(tx); got != "gone=before k1=v k2=v leader=1 shared=before" {
					return fmt.Errorf("call 2 walks %q", got)
				}
				return nil
			},
			3: func(tx *Tx) error { // sent after its savepoint, then undone
				put(tx, "shared", "from 3")
				b(tx).Delete([]byte("gone"))
				if got := walk(tx); got != "k1=v k2=v k3=v leader=1 shared=from 3" {
					return fmt.Errorf("call 3 walks %q", got)
				}
				return boom
			},
			4: func(tx *Tx) error {
				if got := walk(tx); got != "gone=before k1=v k2=v k4=v leader=1 shared=before" {
					return fmt.Errorf("call 4 walks %q", got)
				}
				if get(tx, "gone") != "before" || get(tx, "k3") != "" {
					return fmt.Errorf("call 4 reads what call 3 undid")
				}
				return nil
			},
			5: func(tx *Tx) error { // undone while its writes still wait
				put(tx, "shared", "from 5")
				panic("five")
			},
			6: func(tx *Tx) error {
				if got := get(tx, "shared"); got != "before" {
					return fmt.Errorf("call 6 reads shared = %q", got)
				}
				return put(tx, "shared", "from 6")
			},
			7: func(tx *Tx) error { // sends call 6's writes, then fails: they stay
				if got := walk(tx); got != "gone=before k1=v k2=v k4=v k6=v k7=v leader=1 shared=from 6" {
					return fmt.Errorf("call 7 walks %q", got)
				}
				return boom
			},
		}
		results := make([]any, 8)
		var wg sync.WaitGroup
		for i := 1; i <= 7; i++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				results[i] = updateOrPanic(db, func(tx *Tx) error {
					if err := put(tx, fmt.Sprint("k", i), "v"); err != nil {
						return err
					}
					return calls[i](tx)
				})
			}()
			for db.queued() != i { // queued in order
				runtime.Gosched()
			}
		}
		close(release)
		wg.Wait()
		if err := <-done; err != nil {
			t.Fatal(err)
		}
		for i := 1; i <= 7; i++ {
			want := any(error(nil))
			switch i {
			case 3, 7:
				want = boom
			case 5:
				want = "panic: five"
			}
			if results[i] != want {
				t.Errorf("call %d: %v, want %v", i, results[i], want)
			}
		}
		if err := db.View(func(tx *Tx) error {
			if got := walk(tx); got != "gone=before k1=v k2=v k4=v k6=v leader=1 shared=from 6" {
				t.Errorf("committed %q", got)
			}
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		if commits, calls := db.GroupStats(); commits != 3 || calls != 9 {
			t.Errorf("%d commits for %d calls, want 3 for 9", commits, calls)
		}
	})
}

// TestWriterLockReleased: a daemon that met a conflict takes the writer lock around its groups,
// one that did not takes it shared; whatever the group does (commit, read only, nothing, fail,
// panic) the lock is released after it.
func TestWriterLockReleased(t *testing.T) {
	t.Run("exclusive", func(t *testing.T) { testWriterLockReleased(t, true) })
	t.Run("shared", func(t *testing.T) { testWriterLockReleased(t, false) })
}

func testWriterLockReleased(t *testing.T, contended bool) {
	db, err := OpenLocation(pgtest.DSN(t), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if contended {
		db.pg.contended.Store(time.Now().Add(time.Hour).UnixNano())
	}
	fns := []func(tx *Tx) error{
		func(tx *Tx) error { return tx.bucket(bBlobs).Put([]byte("x"), []byte("1")) },
		func(tx *Tx) error { tx.bucket(bBlobs).Get([]byte("x")); return nil },
		func(tx *Tx) error { return nil },
		func(tx *Tx) error { tx.bucket(bBlobs).Put([]byte("x"), []byte("2")); return errors.New("boom") },
		func(tx *Tx) error { tx.bucket(bBlobs).Get([]byte("x")); panic("boom") },
	}
	for i, fn := range fns {
		updateOrPanic(db, fn)
		var n int
		if err := db.pg.pool.QueryRow(context.Background(), `SELECT count(*) FROM pg_locks WHERE locktype = 'advisory'`).Scan(&n); err != nil || n != 0 {
			t.Fatalf("after update %d: %d advisory locks held (%v)", i, n, err)
		}
	}
	if err := db.View(func(tx *Tx) error {
		if v := tx.bucket(bBlobs).Get([]byte("x")); string(v) != "1" {
			t.Errorf("x = %q", v)
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
}

// TestWriterLockGathers: a daemon that takes the writer lock waits for it before choosing the calls
// of its group, so that the calls arriving while another daemon holds it share one transaction;
// PostgresStats counts the lock and the wait.
func TestWriterLockGathers(t *testing.T) {
	db, err := OpenLocation(pgtest.DSN(t), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ctx := context.Background()
	other, err := db.pg.pool.Acquire(ctx) // another daemon, holding the lock
	if err != nil {
		t.Fatal(err)
	}
	defer other.Release()
	if _, err := other.Exec(ctx, `SELECT pg_advisory_lock($1)`, int64(pgLockWriter)); err != nil {
		t.Fatal(err)
	}
	db.pg.contended.Store(time.Now().Add(time.Hour).UnixNano())
	commits0, calls0 := db.GroupStats()
	var wg sync.WaitGroup
	put := func(key string) {
		defer wg.Done()
		if err := db.Update(func(tx *Tx) error { return tx.bucket(bBlobs).Put([]byte(key), []byte("1")) }); err != nil {
			t.Error(err)
		}
	}
	wg.Add(1)
	go put("a")
	waitFor(t, "the first call waiting for the writer lock", func() bool {
		var n int
		db.pg.pool.QueryRow(ctx, `SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND NOT granted`).Scan(&n)
		return n == 1
	})
	queued := func() int {
		db.group.mu.Lock()
		defer db.group.mu.Unlock()
		return len(db.group.queue)
	}
	before := queued() // the first call, if it was not taken out of the queue yet
	wg.Add(2)
	go put("b")
	go put("c")
	waitFor(t, "two more calls queued", func() bool { return queued() == before+2 })
	if _, err := other.Exec(ctx, `SELECT pg_advisory_unlock($1)`, int64(pgLockWriter)); err != nil {
		t.Fatal(err)
	}
	wg.Wait()
	if commits, calls := db.GroupStats(); commits-commits0 != 1 || calls-calls0 != 3 {
		t.Errorf("%d transactions for %d calls, want 1 for 3", commits-commits0, calls-calls0)
	}
	if s := db.PostgresStats(); s.WriterLocks != 1 || s.WriterLockWait <= 0 {
		t.Errorf("writer lock taken %d times, waited %v; want once, with a wait", s.WriterLocks, s.WriterLockWait)
	}
}

// waitFor polls cond for up to 10 s.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); !cond(); time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
	}
}

// TestWriterLockShared: a daemon that met no conflict takes the writer lock shared, so its groups
// wait while another daemon holds it after a conflict (and do not race it into one more).
func TestWriterLockShared(t *testing.T) {
	db, err := OpenLocation(pgtest.DSN(t), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ctx := context.Background()
	other, err := db.pg.pool.Acquire(ctx) // another daemon, holding the lock after a conflict
	if err != nil {
		t.Fatal(err)
	}
	defer other.Release()
	if _, err := other.Exec(ctx, `SELECT pg_advisory_lock($1)`, int64(pgLockWriter)); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		done <- db.Update(func(tx *Tx) error { return tx.bucket(bBlobs).Put([]byte("a"), []byte("1")) })
	}()
	waitFor(t, "the update waiting for the writer lock", func() bool {
		var n int
		db.pg.pool.QueryRow(ctx, `SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND mode = 'ShareLock' AND NOT granted`).Scan(&n)
		return n == 1
	})
	select {
	case err := <-done:
		t.Fatalf("the update ended (%v) while another daemon held the writer lock", err)
	default:
	}
	if _, err := other.Exec(ctx, `SELECT pg_advisory_unlock($1)`, int64(pgLockWriter)); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}
