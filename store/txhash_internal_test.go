package store

import (
	"strings"
	"testing"
	"time"

	"github.com/axp-exchange/axp"
	"github.com/axp-exchange/axp/store/pgtest"
)

// TestTxHashClaims: a transaction hash of the usual shape is indexed by its 32 bytes with the
// task's 16, in any letter case; a claim recorded as text by an earlier schema still holds (another
// task cannot take the hash); hashes and ids of other shapes are kept as text; releasing frees
// every form.
func TestTxHashClaims(t *testing.T) {
	pgtest.Both(t, func(t *testing.T) {
		db := openBackend(t)
		taskA, taskB := axp.NewID("tsk", time.Now()), axp.NewID("tsk", time.Now())
		hash := "0x" + strings.Repeat("ab", 32)
		old := "0x" + strings.Repeat("cd", 32)
		if err := db.Update(func(tx *Tx) error {
			// What schema 13 wrote.
			if err := tx.bucket(bTxHashes).Put([]byte(old), []byte(taskA)); err != nil {
				return err
			}
			for _, c := range []struct{ hash, task, holder string }{
				{hash, taskA, ""},
				{strings.ToUpper(hash[2:]) + "", taskB, ""}, // no 0x: another shape, kept as text
				{"0x" + strings.ToUpper(hash[2:]), taskB, taskA},
				{old, taskB, taskA},
				{old, taskA, ""}, // the holder claiming again
				{"0xshort", "tsk_legacy", ""},
			} {
				if got, err := tx.ClaimTxHash(c.hash, c.task); err != nil || got != c.holder {
					t.Errorf("claim %s for %s: %q, %v; want %q", c.hash, c.task, got, err, c.holder)
				}
			}
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		if err := db.Update(func(tx *Tx) error {
			bin, _ := txHashKeys(hash)
			if v := tx.bucket(bTxHashes).Get(bin); len(v) != 16 || tx.TxHashTask(strings.ToUpper(hash)) != taskA {
				t.Errorf("binary row %x, task %q", v, tx.TxHashTask(hash))
			}
			if tx.TxHashTask(old) != taskA || tx.TxHashTask("0xSHORT") != "tsk_legacy" || tx.TxHashTask("0x"+strings.Repeat("ef", 32)) != "" {
				t.Error("textual rows are not read")
			}
			for _, h := range []string{hash, old, "0xshort"} {
				if err := tx.ReleaseTxHash(h); err != nil {
					return err
				}
				if tx.TxHashTask(h) != "" {
					t.Errorf("%s still claimed after release", h)
				}
			}
			return nil
		}); err != nil {
			t.Fatal(err)
		}
	})
}
