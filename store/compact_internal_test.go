package store

import (
	"bytes"
	"slices"
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

// TestIDRows: the status and seller-job indexes hold task and seller ids of NewID's form in 17
// bytes; rows of earlier schemas (text) are listed with them, oldest first, counted by status,
// and removed when the task changes status or the seller refuses it.
func TestIDRows(t *testing.T) {
	pgtest.Both(t, func(t *testing.T) {
		db := openBackend(t)
		at := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
		older, newer := axp.IDFloor("tsk", at), axp.IDFloor("tsk", at.Add(time.Minute))
		seller := axp.IDFloor("mem", at)
		if err := db.Update(func(tx *Tx) error {
			// What schema 13 wrote for the older task.
			for _, k := range [][]byte{pair(axp.TaskPaid, older), pair(seller, older)} {
				b := tx.bucket(bTaskStatus)
				if bytes.HasPrefix(k, []byte(seller)) {
					b = tx.bucket(bSellerJobs)
				}
				if err := b.Put(k, nil); err != nil {
					return err
				}
			}
			return tx.PutTask(&axp.TaskRecord{ID: newer, Status: axp.TaskPaid, SellerID: seller}, "")
		}); err != nil {
			t.Fatal(err)
		}
		if err := db.Update(func(tx *Tx) error {
			if len(idRow(axp.TaskPaid, newer)) != len(axp.TaskPaid)+1+17 || len(idRow(seller, newer)) != 17+1+17 ||
				len(idRow("mem_other", newer)) != len("mem_other")+1+17 {
				t.Errorf("rows %q, %q", idRow(axp.TaskPaid, newer), idRow(seller, newer))
			}
			if ids := tx.SellerJobIDs("mem_other"); len(ids) != 0 {
				t.Errorf("another seller's jobs: %v", ids)
			}
			if ids := tx.TaskIDsByStatus(axp.TaskPaid); !slices.Equal(ids, []string{older, newer}) {
				t.Errorf("paid: %v", ids)
			}
			if ids := tx.SellerJobIDs(seller); !slices.Equal(ids, []string{older, newer}) {
				t.Errorf("seller jobs: %v", ids)
			}
			if n := tx.CountByStatus()[axp.TaskPaid]; n != 2 {
				t.Errorf("%d paid", n)
			}
			if err := tx.PutTask(&axp.TaskRecord{ID: older, Status: axp.TaskDelivered, SellerID: seller}, axp.TaskPaid); err != nil {
				return err
			}
			if err := tx.DropSellerJob(seller, older); err != nil {
				return err
			}
			if ids := tx.TaskIDsByStatus(axp.TaskPaid); !slices.Equal(ids, []string{newer}) {
				t.Errorf("paid after the older task moved on: %v", ids)
			}
			if ids := tx.TaskIDsByStatus(axp.TaskDelivered); !slices.Equal(ids, []string{older}) {
				t.Errorf("delivered: %v", ids)
			}
			if ids := tx.SellerJobIDs(seller); !slices.Equal(ids, []string{newer}) {
				t.Errorf("seller jobs after a refusal: %v", ids)
			}
			return nil
		}); err != nil {
			t.Fatal(err)
		}
	})
}
