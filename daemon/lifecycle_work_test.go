package daemon_test

import (
	"testing"

	"github.com/axp-exchange/axp"
	"github.com/axp-exchange/axp/daemon"
	"github.com/axp-exchange/axp/store"
)

// TestLifecycleWork pins what a whole crypto lifecycle (BenchmarkLifecycle's: create with an
// instant offer, choose, pay, approve the payment, deliver, retrieve, accept, request payment,
// approve the payout) costs the store, counted over lifecycles run one after another: values
// encoded and, of them, compressed; values decoded and, of them, decompressed; write calls,
// write transactions and read transactions. A change that stores, compresses or reads a record
// once more per lifecycle fails here. Not parallel: the value counts are the process's.
func TestLifecycleWork(t *testing.T) {
	e := newMarket(t, func(c *daemon.Config) { c.AdminToken = benchAdminToken })
	lifecycle := lifecycleAt(t, e.d, e.srv.URL, false)
	if err := lifecycle(); err != nil { // warm up: the seller's first job, caches
		t.Fatal(err)
	}
	e.d.FlushLogs()
	const n = 20
	before := store.Counted()
	commits0, calls0 := e.d.DB().GroupStats()
	for range n {
		if err := lifecycle(); err != nil {
			t.Fatal(err)
		}
	}
	e.d.FlushLogs()
	w := store.Counted().Sub(before)
	commits, calls := e.d.DB().GroupStats()
	got := lifecycleWork{Encoded: w.Encoded, Compressed: w.Compressed, Decoded: w.Decoded, Decompressed: w.Decompressed,
		Calls: calls - calls0, Commits: commits - commits0, Views: w.Views}
	// Per lifecycle: 50 values encoded (9 task writes, 10 timeline events, 11 audit records, 9 log
	// lines, 4 approval items, 2 ledger entries, 4 seller figures, 1 quote), 41 decoded.
	want := lifecycleWork{Encoded: 50, Compressed: 34, Decoded: 41, Decompressed: 2, Calls: 9, Commits: 9, Views: 17}
	if !got.near(want, n) {
		t.Errorf("store work of %d lifecycles\n got %+v\nwant %+v a lifecycle", n, got, want)
	}
	// What the job's start wrote is kept although the task is stored once in that change.
	if err := e.d.DB().View(func(tx *store.Tx) error {
		ids := tx.TaskIDsByStatus(axp.TaskReleased)
		if len(ids) != n+1 {
			t.Errorf("%d released tasks, want %d", len(ids), n+1)
		}
		for _, id := range ids {
			task, err := tx.Task(id)
			if err != nil {
				return err
			}
			if task.StartedAt == nil || task.StartedAt.Before(task.CreatedAt) {
				t.Errorf("task %s started at %v, created at %v", id, task.StartedAt, task.CreatedAt)
			}
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
}

// lifecycleWork is what lifecycles cost the store (TestLifecycleWork).
type lifecycleWork struct {
	Encoded, Compressed, Decoded, Decompressed, Calls, Commits, Views int64
}

// near reports whether w, the work of n lifecycles, is per lifecycle what want says, within half
// a value for what does not come every lifecycle (the request log is written in flushes that one
// lifecycle or the next makes), and within one value for compressions, which vary between runs
// by a fraction of one a lifecycle.
func (w lifecycleWork) near(want lifecycleWork, n int64) bool {
	in := func(got, want, tol int64) bool { return got >= want*n-tol && got <= want*n+tol }
	return in(w.Encoded, want.Encoded, n/2) && in(w.Compressed, want.Compressed, n) && in(w.Decoded, want.Decoded, n/2) &&
		in(w.Decompressed, want.Decompressed, n/2) && in(w.Calls, want.Calls, n/2) && in(w.Commits, want.Commits, n/2) &&
		in(w.Views, want.Views, n/2)
}
