package daemon_test

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/axp-exchange/axp/store"
	"github.com/axp-exchange/axp/store/pgtest"
)

// scaleWorkers is the number of clients BenchmarkScaleOut runs lifecycles from, whatever the number
// of daemons (the aims of issue 41 are set at 32).
const scaleWorkers = 32

// aimScaleOut is the aim for three daemons on one PostgreSQL: at least twice the lifecycles a
// second of one daemon (issue 41).
const aimScaleOut = 2.0

// BenchmarkScaleOut runs the lifecycles of BenchmarkLifecycle (32 clients over loopback) on one
// PostgreSQL behind 1, 2 and 3 daemons of this process, a round-robin front handing each request
// to the next daemon. PostgreSQL is a throwaway server with fsync on, on a unix socket on this
// machine; each run has a new database. Figures: lifecycles/s, p99-ms (of one whole lifecycle),
// ratio (lifecycles/s over the last daemons=1 run's), and per lifecycle: retries (update groups
// run again after a serialization failure or deadlock, every daemon's), updates (group runs, the
// retries included), views, round-trips, writer-locks and lock-wait-ms (groups that took the
// writer lock after a conflict, and their summed wait), pool-wait-ms (summed waits for a pooled
// connection), cpu-ms (this process: the daemons and the clients) and pg-cpu-ms (the PostgreSQL
// server's processes). It logs the machine's load average beside the
// figures, and at three daemons the ratio beside its aim.
func BenchmarkScaleOut(b *testing.B) {
	srv, err := pgtest.Start(pgtest.Options{Durable: true})
	if errors.Is(err, pgtest.ErrNotInstalled) && !pgtest.Required() {
		b.Skipf("BenchmarkScaleOut needs PostgreSQL: %v", err)
	}
	if err != nil {
		b.Fatal(err)
	}
	defer srv.Stop()
	var one float64 // lifecycles/s of the last daemons=1 run
	for _, n := range []int{1, 2, 3} {
		b.Run(fmt.Sprintf("daemons=%d", n), func(b *testing.B) {
			r := scaleOut(b, srv, n)
			if n == 1 {
				one = r.lps
			}
			b.ReportMetric(r.lps, "lifecycles/s")
			b.ReportMetric(benchMS(r.p99), "p99-ms")
			per := func(v int64) float64 { return float64(v) / float64(b.N) }
			b.ReportMetric(per(r.pg.Retries), "retries/lifecycle")
			b.ReportMetric(per(r.pg.Updates), "updates/lifecycle")
			b.ReportMetric(per(r.pg.RoundTrips), "round-trips/lifecycle")
			b.ReportMetric(per(r.pg.Views), "views/lifecycle")
			b.ReportMetric(per(r.pg.WriterLocks), "writer-locks/lifecycle")
			b.ReportMetric(benchMS(r.pg.WriterLockWait)/float64(b.N), "lock-wait-ms/lifecycle")
			b.ReportMetric(benchMS(r.pg.PoolWait)/float64(b.N), "pool-wait-ms/lifecycle")
			b.ReportMetric(benchMS(r.cpu)/float64(b.N), "cpu-ms/lifecycle")
			b.ReportMetric(benchMS(r.pgCPU)/float64(b.N), "pg-cpu-ms/lifecycle")
			ratio := 0.0
			if one > 0 {
				ratio = r.lps / one
				b.ReportMetric(ratio, "ratio")
			}
			b.Logf("daemons=%d: %.0f lifecycles/s, p99 %.0f ms, ratio to one daemon %.2f, %d retries in %d lifecycles, load average %s",
				n, r.lps, benchMS(r.p99), ratio, r.pg.Retries, b.N, loadAverage())
			if n == 3 && one > 0 {
				b.Logf("3 daemons / 1 daemon: %.2f (aim >= %.1f)", ratio, aimScaleOut)
			}
		})
	}
}

// scaleResult is what one run of BenchmarkScaleOut measured, over the timed lifecycles.
type scaleResult struct {
	lps        float64
	p99        time.Duration
	pg         store.PostgresStats // summed over the daemons
	cpu, pgCPU time.Duration
}

// scaleOut starts n daemons on a new database of srv behind a round-robin front and runs b.N
// lifecycles from scaleWorkers clients (after one to warm up).
func scaleOut(b *testing.B, srv *pgtest.Server, n int) scaleResult {
	dsn, err := srv.NewDatabase()
	if err != nil {
		b.Fatal(err)
	}
	ds, base := pgDaemons(b, dsn, n)
	lifecycle := lifecycleAt(b, ds[0], base, false)
	if err := lifecycle(); err != nil { // warm up, and prove the path works
		b.Fatal(err)
	}
	stats := func() store.PostgresStats {
		var s store.PostgresStats
		for _, d := range ds {
			s = addPostgresStats(s, d.DB().PostgresStats(), 1)
		}
		return s
	}
	pg0, cpu0, pgCPU0 := stats(), processCPU("self"), srv.CPU()
	lat, elapsed := timedRuns(b, scaleWorkers, lifecycle)
	pg := stats()
	pg = addPostgresStats(pg, pg0, -1)
	return scaleResult{lps: float64(b.N) / elapsed.Seconds(), p99: benchPercentile(lat, 0.99),
		pg: pg, cpu: processCPU("self") - cpu0, pgCPU: srv.CPU() - pgCPU0}
}

// loadAverage is the machine's load average over 1, 5 and 15 minutes, "?" where /proc is missing.
func loadAverage() string {
	raw, err := os.ReadFile("/proc/loadavg")
	if f := strings.Fields(string(raw)); err == nil && len(f) >= 3 {
		return strings.Join(f[:3], " ")
	}
	return "?"
}

// addPostgresStats answers a + sign*b, counter by counter.
func addPostgresStats(a, b store.PostgresStats, sign int64) store.PostgresStats {
	return store.PostgresStats{Views: a.Views + sign*b.Views, Updates: a.Updates + sign*b.Updates,
		Retries: a.Retries + sign*b.Retries, RoundTrips: a.RoundTrips + sign*b.RoundTrips,
		PoolWaits: a.PoolWaits + sign*b.PoolWaits, PoolWait: a.PoolWait + time.Duration(sign)*b.PoolWait,
		WriterLocks: a.WriterLocks + sign*b.WriterLocks, WriterLockWait: a.WriterLockWait + time.Duration(sign)*b.WriterLockWait}
}
