package daemon_test

import (
	"testing"

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
	// Per lifecycle: 51 values encoded (10 task writes, 10 timeline events, 11 audit records, 9 log
	// lines, 4 approval items, 2 ledger entries, 4 seller figures, 1 quote), 41 decoded.
	want := lifecycleWork{Encoded: 51 * n, Compressed: 45 * n, Decoded: 41 * n, Decompressed: 17 * n,
		Calls: 9 * n, Commits: 9 * n, Views: 17 * n}
	if got.round(n) != want {
		t.Errorf("store work of %d lifecycles\n got %+v\nwant %+v", n, got, want)
	}
}

// lifecycleWork is what lifecycles cost the store (TestLifecycleWork).
type lifecycleWork struct {
	Encoded, Compressed, Decoded, Decompressed, Calls, Commits, Views int64
}

// round takes out what does not come every lifecycle (a log flush written by one lifecycle or the
// next): each count to the nearest multiple of n.
func (w lifecycleWork) round(n int64) lifecycleWork {
	r := func(v int64) int64 { return (v + n/2) / n * n }
	return lifecycleWork{r(w.Encoded), r(w.Compressed), r(w.Decoded), r(w.Decompressed), r(w.Calls), r(w.Commits), r(w.Views)}
}
