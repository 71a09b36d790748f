package store

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/axp-exchange/axp/store/pgtest"
)

// TestTxReadsItsWrites: inside one transaction Get, cursors and Count see the transaction's own
// puts and deletes, whether the key was read before or not; a failed function leaves nothing. On
// PostgreSQL writes wait in the transaction until a read could see them, so this is what keeps
// that honest; bbolt is the reference.
func TestTxReadsItsWrites(t *testing.T) {
	pgtest.Both(t, func(t *testing.T) {
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
		defer db.Close()
		walk := func(b bucket) string {
			var out []string
			c := b.Cursor()
			for k, v := c.First(); k != nil; k, v = c.Next() {
				out = append(out, fmt.Sprintf("%s=%s", k, v))
			}
			return strings.Join(out, " ")
		}
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
		err = db.Update(func(tx *Tx) error {
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
