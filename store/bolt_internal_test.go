package store

import (
	"fmt"
	"path/filepath"
	"testing"
)

// TestPrevAfterDeletes: in a write transaction that deleted a run of keys (leaving leaves empty
// until the commit rebalances), a backward walk finds every key a forward walk finds; bbolt's own
// Prev stops at the first empty leaf.
func TestPrevAfterDeletes(t *testing.T) {
	db, err := Open(filepath.Join(t.TempDir(), FileName), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	key := func(i int) []byte { return []byte(fmt.Sprintf("k%05d", i)) }
	if err := db.Update(func(tx *Tx) error {
		for i := range 3000 {
			if err := tx.rawBucket(bEvents).Put(key(i), []byte(`{"pad":"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"}`)); err != nil {
				return err
			}
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if err := db.Update(func(tx *Tx) error {
		b := tx.rawBucket(bEvents)
		for _, run := range [][2]int{{100, 900}, {1500, 1700}, {2990, 3000}} {
			for i := run[0]; i < run[1]; i++ {
				if err := b.Delete(key(i)); err != nil {
					return err
				}
			}
		}
		fw, bw := 0, 0
		c := b.Cursor()
		for k, _ := c.First(); k != nil; k, _ = c.Next() {
			fw++
		}
		for k, _ := c.Last(); k != nil; k, _ = c.Prev() {
			bw++
		}
		if want := 3000 - 800 - 200 - 10; fw != want || bw != want {
			t.Errorf("forward %d, backward %d keys, want %d", fw, bw, want)
		}
		if k, _ := c.Seek(key(900)); string(k) != string(key(900)) {
			t.Errorf("seek %q", k)
		}
		if k, _ := c.Prev(); string(k) != string(key(99)) {
			t.Errorf("prev from k00900: %q, want k00099", k)
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
}
