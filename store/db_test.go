package store_test

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/axp-exchange/axp"
	"github.com/axp-exchange/axp/store"
	"github.com/axp-exchange/axp/store/pgtest"
	bolt "go.etcd.io/bbolt"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

// eachBackend runs test on bbolt and on PostgreSQL (subtests "bolt" and "postgres").
func eachBackend(t *testing.T, test func(t *testing.T)) { pgtest.Both(t, test) }

// open opens a new, empty store: a bbolt file in a temporary dir, or a database on the package's
// throwaway PostgreSQL under eachBackend's "postgres" subtest.
func open(t *testing.T) *store.DB {
	t.Helper()
	loc := filepath.Join(t.TempDir(), store.FileName)
	if pgtest.OnPostgres(t) {
		loc = pgtest.DSN(t)
	}
	db, err := store.OpenLocation(loc, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

func update(t *testing.T, db *store.DB, fn func(*store.Tx) error) {
	t.Helper()
	if err := db.Update(fn); err != nil {
		t.Fatal(err)
	}
}

func view(t *testing.T, db *store.DB, fn func(*store.Tx) error) {
	t.Helper()
	if err := db.View(fn); err != nil {
		t.Fatal(err)
	}
}

// v1Buckets are the buckets of schema version 1; v2Buckets those migration 2 adds.
var (
	v1Buckets = []string{"meta", "members", "idempotency", "audit", "log", "trace_index", "metrics", "feedback",
		"payment_prefs", "interest", "survey", "announcements", "announce_reads", "operator_msgs", "reviews", "reviews_by_member"}
	v2Buckets = []string{"tasks", "task_status", "buyer_tasks", "seller_jobs", "quotes", "offer_index", "events", "blobs",
		"approvals", "task_approvals", "open_approvals", "ledger", "tx_hashes", "seller_stats"}
	v3Buckets = []string{"sandboxes"}
	v4Buckets = []string{"messages", "settlements", "task_settlements", "mediations", "task_mediations", "awaiting_mediations",
		"task_reviews", "listing_rejections", "listing_hashes", "ai_calls", "contact_removals"}
	allBuckets = append(append(append(append([]string(nil), v1Buckets...), v2Buckets...), v3Buckets...), v4Buckets...)
)

func TestOpenCreatesSchema(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sub", "dir", store.FileName) // the data dir is created
	db, err := store.Open(path, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if db.Path() != path {
		t.Fatalf("Path %q", db.Path())
	}
	v, err := db.Version()
	if err != nil || v != store.SchemaVersion {
		t.Fatalf("Version = %d, %v; want %d", v, err, store.SchemaVersion)
	}
	var created string
	view(t, db, func(tx *store.Tx) error { created = tx.CreatedAt(); return nil })
	if _, err := time.Parse(time.RFC3339, created); err != nil {
		t.Fatalf("created_at %q", created)
	}
	update(t, db, func(tx *store.Tx) error {
		return tx.PutMember(&axp.Member{ID: "mem_1", Name: "one"})
	})
	if size, txs := db.Stats(); size <= 0 || txs < 0 {
		t.Fatalf("Stats %d %d", size, txs)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("file mode %v %v", fi, err)
	}

	// Every bucket exists, and the version is recorded in meta.
	b, err := bolt.Open(path, 0o600, &bolt.Options{ReadOnly: true, Timeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	err = b.View(func(tx *bolt.Tx) error {
		for _, name := range allBuckets {
			if tx.Bucket([]byte(name)) == nil {
				t.Errorf("bucket %s missing", name)
			}
		}
		if got := string(tx.Bucket([]byte("meta")).Get([]byte("schema_version"))); got != strconv.Itoa(store.SchemaVersion) {
			t.Errorf("meta schema_version %q", got)
		}
		return nil
	})
	b.Close()
	if err != nil {
		t.Fatal(err)
	}

	// Reopening keeps data, version and creation time.
	db, err = store.Open(path, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	view(t, db, func(tx *store.Tx) error {
		m, err := tx.Member("mem_1")
		if err != nil || m == nil || m.Name != "one" {
			t.Errorf("member after reopen: %+v %v", m, err)
		}
		if tx.CreatedAt() != created {
			t.Errorf("created_at changed: %q -> %q", created, tx.CreatedAt())
		}
		return nil
	})
}

func setVersion(t *testing.T, path string, v string) {
	t.Helper()
	b, err := bolt.Open(path, 0o600, &bolt.Options{Timeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	if err := b.Update(func(tx *bolt.Tx) error {
		return tx.Bucket([]byte("meta")).Put([]byte("schema_version"), []byte(v))
	}); err != nil {
		t.Fatal(err)
	}
}

func TestOpenRefusesNewerSchema(t *testing.T) {
	path := filepath.Join(t.TempDir(), store.FileName)
	db, err := store.Open(path, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	db.Close()
	newer := strconv.Itoa(store.SchemaVersion + 1)
	setVersion(t, path, newer)

	for _, ro := range []bool{false, true} {
		db, err := store.Open(path, store.Options{ReadOnly: ro})
		if err == nil {
			db.Close()
			t.Fatalf("read-only %v: a database of schema version %s was opened", ro, newer)
		}
		msg := err.Error()
		if !strings.Contains(msg, "schema version "+newer) || !strings.Contains(msg, "up to "+strconv.Itoa(store.SchemaVersion)) || !strings.Contains(msg, "upgrade axp") {
			t.Errorf("read-only %v: unclear message %q", ro, msg)
		}
	}
	// The refused open did not lower the recorded version, and the file is free again.
	setVersion(t, path, "1")
	db, err = store.Open(path, store.Options{})
	if err != nil {
		t.Fatalf("after restoring version 1: %v", err)
	}
	db.Close()
}

func TestOpenLocked(t *testing.T) {
	path := filepath.Join(t.TempDir(), store.FileName)
	first, err := store.Open(path, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	second, err := store.Open(path, store.Options{LockTimeout: 50 * time.Millisecond})
	if err == nil {
		second.Close()
		t.Fatal("a second Open of a held database succeeded")
	}
	if !errors.Is(err, store.ErrLocked) {
		t.Fatalf("error %v does not wrap ErrLocked", err)
	}
	if !strings.Contains(err.Error(), "another process") || !strings.Contains(err.Error(), path) {
		t.Fatalf("unclear message %q", err)
	}
	// A reader waits for the writer too.
	if ro, err := store.Open(path, store.Options{ReadOnly: true, LockTimeout: 50 * time.Millisecond}); err == nil {
		ro.Close()
		t.Fatal("read-only Open beside a writer succeeded")
	} else if !errors.Is(err, store.ErrLocked) {
		t.Fatalf("read-only: %v", err)
	}
	first.Close()
	again, err := store.Open(path, store.Options{LockTimeout: 50 * time.Millisecond})
	if err != nil {
		t.Fatalf("after the first closed: %v", err)
	}
	again.Close()
}

// TestFreelistWritten: an open reads bbolt's freelist when the last commit wrote it, and rebuilds it
// by walking every page of the file when not. Commits write it while it is small; with a large one
// (many pages freed at once) they skip it, and a clean Close writes it whatever its size.
func TestFreelistWritten(t *testing.T) {
	path := filepath.Join(t.TempDir(), store.FileName)
	db, err := store.Open(path, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	update(t, db, func(tx *store.Tx) error { return tx.PutMember(&axp.Member{ID: "mem_1"}) })
	if metaFreelist(t, path) == noFreelist {
		t.Fatal("a commit did not write a small freelist")
	}
	// ~1,500 values of 8 KB (3 pages each) freed at once.
	var big [][]byte
	for i := range 1500 {
		big = append(big, []byte(fmt.Sprintf("%04d%s", i, strings.Repeat("x", 4000))))
	}
	for lo := 0; lo < len(big); lo += 500 {
		update(t, db, func(tx *store.Tx) error { return store.FillForTest(tx, big[lo:lo+500]) })
	}
	update(t, db, func(tx *store.Tx) error { return store.DeleteForTest(tx, big) })
	update(t, db, func(tx *store.Tx) error { return tx.PutMember(&axp.Member{ID: "mem_2"}) })
	if metaFreelist(t, path) != noFreelist {
		t.Fatal("a commit wrote a freelist of thousands of pages")
	}
	db.Close()
	if metaFreelist(t, path) == noFreelist {
		t.Fatal("Close did not write the freelist")
	}
	db = reopen(t, path)
	update(t, db, func(tx *store.Tx) error { return tx.PutMember(&axp.Member{ID: "mem_3"}) })
	if metaFreelist(t, path) != noFreelist {
		t.Fatal("the first commit after an open kept a large freelist a crash would leave stale")
	}
	// The freed pages are used again: the file does not grow while they last.
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	for lo := 0; lo < 1000; lo += 500 {
		update(t, db, func(tx *store.Tx) error { return store.FillForTest(tx, big[lo:lo+500]) })
	}
	if again, err := os.Stat(path); err != nil || again.Size() != fi.Size() {
		t.Fatalf("the file grew from %d to %v bytes (%v) instead of using its free pages", fi.Size(), again.Size(), err)
	}
	view(t, db, func(tx *store.Tx) error {
		for _, id := range []string{"mem_1", "mem_2", "mem_3"} {
			if m, _ := tx.Member(id); m == nil {
				t.Errorf("%s missing", id)
			}
		}
		return nil
	})
}

// noFreelist is bbolt's freelist page id for "not written": the open rebuilds it.
const noFreelist = ^uint64(0)

// metaFreelist reads the freelist page id of the newer of a bbolt file's two meta pages (file
// format: page header of 16 bytes, then magic, version, page size, flags, root bucket (16
// bytes), freelist, pgid, txid; little-endian on the machines axp builds for).
func metaFreelist(t *testing.T, path string) uint64 {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	le := func(off int) uint64 {
		var v uint64
		for i := 7; i >= 0; i-- {
			v = v<<8 | uint64(raw[off+i])
		}
		return v
	}
	pageSize := int(uint32(le(16 + 8)))
	freelist, txid := le(48), le(64)
	if t1 := le(pageSize + 64); t1 > txid {
		freelist = le(pageSize + 48)
	}
	return freelist
}

func reopen(t *testing.T, path string) *store.DB {
	t.Helper()
	db, err := store.Open(path, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

func TestReadOnly(t *testing.T) {
	path := filepath.Join(t.TempDir(), store.FileName)
	db, err := store.Open(path, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	update(t, db, func(tx *store.Tx) error { return tx.PutMember(&axp.Member{ID: "mem_1"}) })
	db.Close()

	ro, err := store.Open(path, store.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer ro.Close()
	view(t, ro, func(tx *store.Tx) error {
		if m, _ := tx.Member("mem_1"); m == nil {
			t.Error("member missing in read-only open")
		}
		return nil
	})
	if err := ro.Update(func(tx *store.Tx) error { return nil }); err == nil {
		t.Fatal("Update on a read-only database succeeded")
	}
}

func TestUpdateRollsBack(t *testing.T) { eachBackend(t, testUpdateRollsBack) }

func testUpdateRollsBack(t *testing.T) {
	db := open(t)
	boom := errors.New("boom")
	err := db.Update(func(tx *store.Tx) error {
		if err := tx.PutMember(&axp.Member{ID: "mem_1"}); err != nil {
			return err
		}
		return boom
	})
	if !errors.Is(err, boom) {
		t.Fatalf("Update = %v", err)
	}
	view(t, db, func(tx *store.Tx) error {
		if m, _ := tx.Member("mem_1"); m != nil {
			t.Error("a failed transaction was committed")
		}
		return nil
	})
}

func TestBackup(t *testing.T) {
	db := open(t)
	update(t, db, func(tx *store.Tx) error {
		for _, id := range []string{"mem_a", "mem_b"} {
			if err := tx.PutMember(&axp.Member{ID: id, Name: "n-" + id}); err != nil {
				return err
			}
		}
		return tx.SetAdminTokenHash("h1")
	})

	check := func(path string) {
		t.Helper()
		b, err := store.Open(path, store.Options{})
		if err != nil {
			t.Fatalf("backup does not open: %v", err)
		}
		defer b.Close()
		if v, _ := b.Version(); v != store.SchemaVersion {
			t.Errorf("backup version %d", v)
		}
		view(t, b, func(tx *store.Tx) error {
			var names []string
			tx.EachMember(func(m *axp.Member) bool { names = append(names, m.Name); return true })
			if strings.Join(names, ",") != "n-mem_a,n-mem_b" || tx.AdminTokenHash() != "h1" {
				t.Errorf("backup holds %v %q", names, tx.AdminTokenHash())
			}
			return nil
		})
	}

	var buf bytes.Buffer
	n, err := db.Backup(&buf)
	if err != nil || n != int64(buf.Len()) || n == 0 {
		t.Fatalf("Backup = %d, %v (buffer %d)", n, err, buf.Len())
	}
	dir := t.TempDir()
	streamed := filepath.Join(dir, "streamed.db")
	if err := os.WriteFile(streamed, buf.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	check(streamed)

	// The database stays usable while and after a backup is taken.
	update(t, db, func(tx *store.Tx) error { return tx.PutMember(&axp.Member{ID: "mem_c"}) })

	out := filepath.Join(dir, "backup.db")
	n, err = db.BackupFile(out)
	if err != nil || n == 0 {
		t.Fatalf("BackupFile = %d, %v", n, err)
	}
	fi, err := os.Stat(out)
	if err != nil || fi.Size() != n || fi.Mode().Perm() != 0o600 {
		t.Fatalf("backup file %v %v (n %d)", fi, err, n)
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), ".axp-backup-") {
			t.Errorf("temporary file left behind: %s", e.Name())
		}
	}
	// A backup over an existing file replaces it.
	if _, err := db.BackupFile(streamed); err != nil {
		t.Fatal(err)
	}
	b, err := store.Open(out, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	view(t, b, func(tx *store.Tx) error {
		if m, _ := tx.Member("mem_c"); m == nil {
			t.Error("BackupFile lacks the latest member")
		}
		return nil
	})
	b.Close()
	// Into a directory that does not exist: an error, not a panic.
	if _, err := db.BackupFile(filepath.Join(dir, "missing", "x.db")); err == nil {
		t.Fatal("backup into a missing directory succeeded")
	}
}

// assertBucketEmpty counts the keys of a bucket with the database's own means (bbolt's bucket
// statistics, a count of PostgreSQL rows), so that index rows the store's own reads would skip are
// seen too.
func assertBucketEmpty(t *testing.T, db *store.DB, bucket string) {
	t.Helper()
	counts, err := db.Counts()
	if err != nil {
		t.Fatal(err)
	}
	if n, ok := counts[bucket]; !ok || n != 0 {
		t.Errorf("bucket %s holds %d keys (exists: %v), want none", bucket, n, ok)
	}
}

// TestMigrateFromVersion1 opens a database as version 1 wrote it (its buckets, a member, version
// "1" in meta) and checks that migration 2 adds the marketplace buckets and keeps the data.
func TestMigrateFromVersion1(t *testing.T) {
	path := filepath.Join(t.TempDir(), store.FileName)
	b, err := bolt.Open(path, 0o600, &bolt.Options{Timeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	err = b.Update(func(tx *bolt.Tx) error {
		for _, name := range v1Buckets {
			if _, err := tx.CreateBucket([]byte(name)); err != nil {
				return err
			}
		}
		meta := tx.Bucket([]byte("meta"))
		meta.Put([]byte("schema_version"), []byte("1"))
		meta.Put([]byte("created_at"), []byte("2026-11-01T00:00:00Z"))
		return tx.Bucket([]byte("members")).Put([]byte("mem_old"), []byte(`{"v":1,"id":"mem_old","name":"old","roles":["seller"],"state":"verified"}`))
	})
	b.Close()
	if err != nil {
		t.Fatal(err)
	}
	db, err := store.Open(path, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if v, err := db.Version(); err != nil || v != store.SchemaVersion {
		t.Fatalf("version after migration %d %v", v, err)
	}
	view(t, db, func(tx *store.Tx) error {
		m, err := tx.Member("mem_old")
		if err != nil || m == nil || m.Name != "old" || m.State != "verified" {
			t.Errorf("member after migration: %+v %v", m, err)
		}
		if tx.CreatedAt() != "2026-11-01T00:00:00Z" {
			t.Errorf("created_at changed to %q", tx.CreatedAt())
		}
		if ids := tx.TaskIDsByStatus("open"); len(ids) != 0 {
			t.Errorf("tasks in a migrated database: %v", ids)
		}
		return nil
	})
}
