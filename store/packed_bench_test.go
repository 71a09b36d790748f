package store_test

import (
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"testing"
	"time"

	"github.com/axp-exchange/axp"
	"github.com/axp-exchange/axp/store"
)

// BenchmarkPackedReads stores 5,000 tasks of a month ago, each with a 10-event timeline, packs
// them, and reads a random task with its timeline (what GET /api/tasks/{id} reads) from a packed
// store and from the same store unpacked: read-us is one task and its timeline.
func BenchmarkPackedReads(b *testing.B) {
	for _, packed := range []bool{false, true} {
		b.Run(fmt.Sprintf("packed=%v", packed), func(b *testing.B) { benchPackedReads(b, packed) })
	}
}

func benchPackedReads(b *testing.B, packed bool) {
	db, err := store.Open(filepath.Join(b.TempDir(), store.FileName), store.Options{NoSync: true})
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	const n = 5_000
	start := time.Now().Add(-30 * 24 * time.Hour)
	ids := make([]string, n)
	if err := db.Update(func(tx *store.Tx) error {
		for i := range n {
			at := start.Add(time.Duration(i) * time.Second)
			t := &axp.TaskRecord{ID: axp.IDFloor("tsk", at), Type: "text-file", Status: axp.TaskReleased,
				Params: map[string]any{"prompt": "a haiku"}, BuyerTokenHash: axp.RandomHex(32), SellerID: "mem_seed",
				TxHash: "0x" + axp.RandomHex(32), CreatedAt: at, UpdatedAt: at}
			ids[i] = t.ID
			for e := range 10 {
				if err := tx.AppendEvent(t, axp.Event{At: at.Add(time.Duration(e) * time.Minute), Kind: "step",
					Actor: "buyer", Status: t.Status, Detail: map[string]any{"n": e, "tx_hash": t.TxHash}}); err != nil {
					return err
				}
			}
			if err := tx.PutTask(t, ""); err != nil {
				return err
			}
		}
		return nil
	}); err != nil {
		b.Fatal(err)
	}
	if packed {
		if _, err := db.PackAll(time.Now(), false); err != nil {
			b.Fatal(err)
		}
	}
	r := rand.New(rand.NewPCG(1, 2))
	b.ResetTimer()
	t0 := time.Now()
	for range b.N {
		id := ids[r.IntN(n)]
		if err := db.View(func(tx *store.Tx) error {
			t, err := tx.Task(id)
			if err != nil || t == nil {
				return fmt.Errorf("task %s: %v", id, err)
			}
			ev, err := tx.Events(id)
			if len(ev) != 10 {
				return fmt.Errorf("%d events, %v", len(ev), err)
			}
			return err
		}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(time.Since(t0).Microseconds())/float64(b.N), "read-us")
}
