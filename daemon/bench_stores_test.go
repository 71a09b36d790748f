package daemon_test

import (
	"errors"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/axp-exchange/axp/daemon"
	"github.com/axp-exchange/axp/store/pgtest"
)

// BenchmarkStores runs whole crypto lifecycles (as BenchmarkLifecycle, 16 concurrent clients over
// loopback, every commit synced) on the three ways to store an exchange, printed side by side:
// bbolt, PostgreSQL behind one daemon, and PostgreSQL behind three daemons that a round-robin front
// hands the requests to in turn. PostgreSQL is a throwaway server with fsync on, on a unix socket
// on this machine.
func BenchmarkStores(b *testing.B) {
	const workers = 16
	b.Run("store=bolt", func(b *testing.B) {
		_, lifecycle := lifecycleRig(b, false)
		b.ReportMetric(runLifecycles(b, workers, lifecycle), "lifecycles/s")
	})
	srv, err := pgtest.Start(pgtest.Options{Durable: true})
	if errors.Is(err, pgtest.ErrNotInstalled) && !pgtest.Required() {
		b.Skip(err)
	}
	if err != nil {
		b.Fatal(err)
	}
	defer srv.Stop()
	for _, n := range []int{1, 3} {
		b.Run("store=postgres/daemons="+string(rune('0'+n)), func(b *testing.B) {
			dsn, err := srv.NewDatabase()
			if err != nil {
				b.Fatal(err)
			}
			ds, base := pgDaemons(b, dsn, n)
			b.ReportMetric(runLifecycles(b, workers, lifecycleAt(b, ds[0], base, false)), "lifecycles/s")
		})
	}
}

// pgDaemons starts n exchanges on the PostgreSQL database dsn, sharing one data dir (so one
// secret.key), behind one loopback server that hands each request to the next daemon in turn;
// it answers the daemons and the server's URL.
func pgDaemons(b *testing.B, dsn string, n int) ([]*daemon.Daemon, string) {
	dir := b.TempDir()
	var ds []*daemon.Daemon
	for range n {
		d, _ := benchExchange(b, dir, func(c *daemon.Config) {
			c.DepositAddress, c.Store = "0x"+strings.Repeat("1", 40), dsn
		})
		ds = append(ds, d)
	}
	var next atomic.Int64
	base := benchServe(b, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ds[next.Add(1)%int64(n)].Handler().ServeHTTP(w, r)
	}))
	for _, d := range ds {
		d.SetBaseURL(base)
	}
	return ds, base
}
