package store_test

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/axp-exchange/axp"
	"github.com/axp-exchange/axp/store"
	"github.com/axp-exchange/axp/store/pgtest"
)

// openPostgres opens a new database on the package's throwaway PostgreSQL.
func openPostgres(t *testing.T, o store.Options) (*store.DB, string) {
	t.Helper()
	dsn := pgtest.DSN(t)
	db, err := store.OpenLocation(dsn, o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db, dsn
}

// TestPostgresCursorMatchesBolt walks buckets of a few hundred keys (more than a page) on both
// backends with every cursor move and compares what each returns.
func TestPostgresCursorMatchesBolt(t *testing.T) {
	bdb, err := store.Open(filepath.Join(t.TempDir(), store.FileName), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer bdb.Close()
	pdb, _ := openPostgres(t, store.Options{})
	r := rand.New(rand.NewPCG(1, 2))
	var keys [][]byte
	for i := range 700 {
		k := []byte(fmt.Sprintf("k%04d", r.IntN(5000)))
		if i%50 == 0 {
			k = append(k, 0, 0xff) // bytes above ASCII order bytewise, as in bbolt
		}
		keys = append(keys, k)
	}
	for _, db := range []*store.DB{bdb, pdb} {
		if err := db.Update(func(tx *store.Tx) error { return store.FillForTest(tx, keys) }); err != nil {
			t.Fatal(err)
		}
	}
	walk := func(db *store.DB, seed uint64) []string {
		var out []string
		if err := db.View(func(tx *store.Tx) error {
			out = store.WalkForTest(tx, rand.New(rand.NewPCG(seed, 7)), 400)
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		return out
	}
	for seed := range uint64(20) {
		b, p := walk(bdb, seed), walk(pdb, seed)
		for i := range b {
			if i >= len(p) || b[i] != p[i] {
				t.Fatalf("seed %d, move %d: bbolt %q, PostgreSQL %q", seed, i, b[max(0, i-3):i+1], p[max(0, i-3):min(len(p), i+1)])
			}
		}
	}
}

// TestPostgresUpdatesRetry: concurrent read-modify-write transactions on one key lose no update:
// serialization failures run the function again.
func TestPostgresUpdatesRetry(t *testing.T) {
	db, _ := openPostgres(t, store.Options{})
	const workers, each = 16, 10
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range each {
				err := db.Update(func(tx *store.Tx) error {
					m, err := tx.Member("mem_counter")
					if err != nil {
						return err
					}
					if m == nil {
						m = &axp.Member{ID: "mem_counter", Name: "0"}
					}
					n, _ := strconv.Atoi(m.Name)
					m.Name = strconv.Itoa(n + 1)
					return tx.PutMember(m)
				})
				if err != nil {
					t.Errorf("worker %d, update %d: %v", w, i, err)
					return
				}
			}
		}()
	}
	wg.Wait()
	view(t, db, func(tx *store.Tx) error {
		m, err := tx.Member("mem_counter")
		if err != nil || m == nil || m.Name != strconv.Itoa(workers*each) {
			t.Fatalf("counter %+v, %v; want %d", m, err, workers*each)
		}
		return nil
	})
}

// TestPostgresMigrate: a database opened with NoMigrate must be at this schema version; Migrate
// brings it there, and reopening migrates nothing twice.
func TestPostgresMigrate(t *testing.T) {
	dsn := pgtest.DSN(t)
	if _, err := store.OpenLocation(dsn, store.Options{NoMigrate: true}); err == nil {
		t.Fatal("an empty database opened with NoMigrate")
	}
	var wg sync.WaitGroup
	errs := make([]error, 3)
	for i := range errs {
		wg.Add(1)
		go func() { // daemons starting together migrate once, under the lock
			defer wg.Done()
			db, err := store.OpenLocation(dsn, store.Options{})
			if err == nil {
				db.Close()
			}
			errs[i] = err
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	db, err := store.OpenLocation(dsn, store.Options{NoMigrate: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if v, err := db.Version(); err != nil || v != store.SchemaVersion {
		t.Fatalf("version %d, %v", v, err)
	}
	if _, err := db.Backup(&bytes.Buffer{}); err == nil {
		t.Fatal("a file backup of PostgreSQL succeeded")
	}
}

// TestCopyBoltToPostgres copies an exchange from bbolt into PostgreSQL and back: the same keys in
// every bucket (packed history carried as its blocks), the same records, a ledger of 600 entries
// summing to zero; a destination with records is refused.
func TestCopyBoltToPostgres(t *testing.T) {
	bdb, err := store.Open(filepath.Join(t.TempDir(), store.FileName), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer bdb.Close()
	update(t, bdb, func(tx *store.Tx) error {
		for i := range 30 {
			if err := tx.PutMember(&axp.Member{ID: fmt.Sprintf("mem_%02d", i), Name: "m", Skills: []axp.Skill{{TaskType: "text-file"}}}); err != nil {
				return err
			}
			if err := tx.PutTask(&axp.TaskRecord{ID: fmt.Sprintf("tsk_%02d", i), Type: "text-file", Status: axp.TaskOpen}, ""); err != nil {
				return err
			}
		}
		// Ledger entries of two days ago, enough for a block: the copy carries the blocks as
		// they are, and the ledger reads whole on the other side.
		for i := range 600 {
			id := axp.IDFloor("led", time.Now().Add(-48*time.Hour+time.Duration(i)*time.Second))
			if err := tx.PutLedger(&axp.LedgerEntry{ID: id, Kind: "payment", Postings: []axp.Posting{
				{Account: "external:buyer", Amount: -axp.Money(1000 + i)}, {Account: "escrow:x", Amount: axp.Money(1000 + i)}}}); err != nil {
				return err
			}
		}
		_, err := tx.Pack(time.Now(), 100, false)
		return err
	})
	pdb, _ := openPostgres(t, store.Options{})
	rep, err := store.Copy(pdb, bdb)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Counts["members"] != 30 || rep.Counts["tasks"] != 30 || rep.Entries != 600 || rep.LedgerSum != 0 ||
		rep.Counts["ledger"] != 600-512 || rep.Counts["ledger_packed"] != 1 {
		t.Fatalf("report %+v", rep)
	}
	bc, _ := bdb.Counts()
	pc, _ := pdb.Counts()
	for name, n := range bc {
		if pc[name] != n {
			t.Errorf("bucket %s: %d keys in bbolt, %d in PostgreSQL", name, n, pc[name])
		}
	}
	view(t, pdb, func(tx *store.Tx) error {
		var found int
		tx.SellersFor("text-file", func(*axp.Member) bool { found++; return true })
		if found != 30 {
			t.Errorf("the copy finds %d sellers by task type, want 30", found)
		}
		return nil
	})
	if _, err := store.Copy(pdb, bdb); err == nil {
		t.Fatal("a copy into a database holding records succeeded")
	}
	back, err := store.Open(filepath.Join(t.TempDir(), store.FileName), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer back.Close()
	if rep, err := store.Copy(back, pdb); err != nil || rep.Counts["tasks"] != 30 {
		t.Fatalf("copy back: %+v, %v", rep, err)
	}
}
