// Package daemon is the exchange's wiring: it opens the store, builds the kernel (daemon/kernel) and
// the services by noun over it (tasks, money, trust, members, talk, board, recorded, paid, site,
// operator), lets each register its operations, serves the doors (REST, MCP, A2A) over the one call
// pipeline and runs the background loops. The operations live in the services; transactions are the
// kernel's. It never reads the environment: cmd resolves configuration into Config.
package daemon

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"path/filepath"
	"reflect"
	"sync"
	"time"

	"github.com/axp-exchange/axp"
	"github.com/axp-exchange/axp/contract"
	"github.com/axp-exchange/axp/daemon/board"
	"github.com/axp-exchange/axp/daemon/kernel"
	"github.com/axp-exchange/axp/daemon/mcp"
	"github.com/axp-exchange/axp/daemon/members"
	"github.com/axp-exchange/axp/daemon/money"
	"github.com/axp-exchange/axp/daemon/operator"
	"github.com/axp-exchange/axp/daemon/paid"
	"github.com/axp-exchange/axp/daemon/paidtools"
	"github.com/axp-exchange/axp/daemon/pipeline"
	"github.com/axp-exchange/axp/daemon/recorded"
	"github.com/axp-exchange/axp/daemon/rest"
	"github.com/axp-exchange/axp/daemon/site"
	"github.com/axp-exchange/axp/daemon/talk"
	"github.com/axp-exchange/axp/daemon/tasks"
	"github.com/axp-exchange/axp/daemon/trust"
	"github.com/axp-exchange/axp/protocol"
	"github.com/axp-exchange/axp/store"
)

// Daemon is a running exchange.
type Daemon struct {
	*kernel.Kernel
	rest     *rest.Server
	handler  http.Handler
	mcp      *mcp.Server
	stopOnce sync.Once
	packMu   sync.Mutex // held by the packing pass under way
	// metricsSrv serves /metrics alone on metrics_listen (nil without it).
	metricsSrv  *http.Server
	metricsAddr string
	// testChain is test mode's own chain (nil otherwise), testInfo what it is.
	testChain testChain
	testInfo  TestChainInfo

	// The services, each over the kernel and the services it uses (services.go).
	board    *board.Service
	members  *members.Service
	money    *money.Service
	operator *operator.Service
	paid     *paid.Service
	recorded *recorded.Service
	site     *site.Service
	talk     *talk.Service
	tasks    *tasks.Service
	trust    *trust.Service
	// answers holds the handlers of member calls whose answers a service applies (services.go).
	answers *kernel.Answers
}

// New opens the data dir and builds the exchange. When no admin token is configured and none was
// generated before, it generates one and returns it (to be printed once); it is stored hashed.
func New(cfg Config, console io.Writer) (*Daemon, string, error) {
	if cfg.DataDir == "" {
		return nil, "", errors.New("no data dir given")
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.SweepEvery <= 0 {
		cfg.SweepEvery = kernel.Defaults().SweepEvery
	}
	if cfg.SandboxWait <= 0 {
		cfg.SandboxWait = kernel.Defaults().SandboxWait
	}
	keys, err := kernel.LoadSealer(cfg.DataDir)
	if err != nil {
		return nil, "", err
	}
	loc := cfg.Store
	if loc == "" {
		loc = filepath.Join(cfg.DataDir, store.FileName)
	}
	db, err := store.OpenLocation(loc, store.Options{NoSync: cfg.NoSync, NoMigrate: cfg.StoreNoMigrate})
	if err != nil {
		return nil, "", err
	}
	d := &Daemon{Kernel: kernel.New(cfg, db, keys)}
	d.Sink = kernel.NewLogSink(db)
	level := kernel.ParseLevel(cfg.LogLevel)
	d.Log = slog.New(&kernel.LogHandler{Console: slog.NewTextHandler(console, &slog.HandlerOptions{Level: level}), Sink: d.Sink, Keep: level})
	// The services take the store, the log and the clock (kernel.Base) when they are built, and
	// the pipeline (talk runs operations through it); each registers its handlers in it after.
	d.Pipe = pipeline.New(d, pipeline.NewRegistry(), keys.Raw)
	d.newCaller()
	d.services()

	generated, err := d.setupAdmin()
	if err != nil {
		d.Close()
		return nil, "", err
	}
	d.Verifier = cfg.Verifier
	if d.Verifier == nil {
		d.Verifier = kernel.ManualVerifier{}
	}
	if cfg.TestMode {
		if err := d.startTestChain(); err != nil {
			d.Close()
			return nil, "", err
		}
	}
	if err := d.checkMoneyMode(); err != nil {
		d.Close()
		return nil, "", err
	}
	if err := d.money.SetupChain(); err != nil {
		d.Close()
		return nil, "", err
	}
	if d.Chain != nil {
		d.Prom.WatchChain(d.Wallet != nil)
	}
	// The paywall's remote facilitator is called through the outbound client.
	d.wireOutbound()
	pctx, pcancel := context.WithTimeout(context.Background(), 15*time.Second)
	err = d.paid.SetupPaid(pctx)
	pcancel()
	if err != nil {
		d.Close()
		return nil, "", err
	}
	d.paid.Fetcher = paidtools.NewFetcher(d.Caller, paidtools.FetcherOptions{AllowLoopback: cfg.PaidFetchLoopback})
	if cfg.SearchURL != "" {
		if d.paid.WebSearch, err = paidtools.NewSearch(cfg.SearchURL, d.Caller.HTTPClient(15*time.Second)); err != nil {
			d.Close()
			return nil, "", fmt.Errorf("search_url: %w", err)
		}
	}
	if err := d.recorded.SetupRecorders(); err != nil {
		d.Close()
		return nil, "", err
	}
	d.handlers(d.Pipe.Registry())
	d.answers = d.noticeAnswers()
	d.rest = rest.New(d, d.Pipe, rest.Options{MaxBodyBytes: cfg.MaxBodyBytes})
	d.handler = d.doors()
	if cfg.MetricsListen != "" {
		if err := d.serveMetrics(); err != nil {
			d.Close()
			return nil, "", err
		}
	}
	d.Bg.Add(2)
	go d.background()
	go d.recorded.RecordLoop()
	if d.Chain != nil {
		if d.Wallet != nil {
			// Transfers stored as sent before a stop are followed (and broadcast again if the
			// node lost them) before any new approval signs.
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			d.money.TrackSent(ctx)
			cancel()
		}
		d.Bg.Add(1)
		go d.money.WatchChain()
	}
	d.Log.Info("exchange ready", "source", "daemon", "data_dir", cfg.DataDir, "base_url", d.BaseURL(), "schema", store.SchemaVersion)
	return d, generated, nil
}

func (d *Daemon) setupAdmin() (string, error) {
	if d.Cfg.AdminToken != "" {
		d.AdminHash = sha256.Sum256([]byte(d.Cfg.AdminToken))
		return "", nil
	}
	var stored string
	d.Store.View(func(tx *store.Tx) error { stored = tx.AdminTokenHash(); return nil })
	if stored != "" {
		h, err := hex.DecodeString(stored)
		if err != nil || len(h) != 32 {
			return "", errors.New("the stored admin token hash is damaged; set AXP_ADMIN_TOKEN")
		}
		copy(d.AdminHash[:], h)
		return "", nil
	}
	token := "axp_admin_" + axp.RandomHex(24)
	d.AdminHash = sha256.Sum256([]byte(token))
	var other string
	err := d.Store.Update(func(tx *store.Tx) error {
		// Daemons starting together on one PostgreSQL store: the first to commit generates it.
		if other = tx.AdminTokenHash(); other != "" {
			return nil
		}
		if err := tx.SetAdminTokenHash(hex.EncodeToString(d.AdminHash[:])); err != nil {
			return err
		}
		return tx.Audit(&axp.AuditRecord{ID: axp.NewID("aud", d.Now()), Time: d.Now(), Actor: "system", Action: "admin_token.generate",
			EntityType: "admin_token", EntityID: protocol.Fingerprint(token)})
	})
	if err == nil && other != "" {
		h, _ := hex.DecodeString(other)
		copy(d.AdminHash[:], h)
		return "", nil
	}
	return token, err
}

// Handler is the exchange's HTTP handler.
func (d *Daemon) Handler() http.Handler { return d.handler }

// Serve serves on ln until ctx is done, then shuts down gracefully: in-flight requests finish (up to
// grace), background work stops and the database closes cleanly.
func (d *Daemon) Serve(ctx context.Context, ln net.Listener, grace time.Duration) error {
	srv := d.server()
	ln = d.limit(ln)
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		d.Close()
		return err
	case <-ctx.Done():
	}
	d.Log.Info("shutting down", "source", "daemon")
	sctx, cancel := context.WithTimeout(context.Background(), grace)
	defer cancel()
	err := srv.Shutdown(sctx)
	if cerr := d.Close(); err == nil {
		err = cerr
	}
	return err
}

// server is the HTTP server with the timeouts of the configuration: slow clients cannot hold a
// connection beyond them.
func (d *Daemon) server() *http.Server {
	read := d.Cfg.ReadTimeout
	if read <= 0 {
		read = kernel.Defaults().ReadTimeout
	}
	write := d.Cfg.WriteTimeout
	if write <= 0 {
		write = d.Cfg.QuoteWindow + time.Minute
	}
	idle := d.Cfg.IdleTimeout
	if idle <= 0 {
		idle = kernel.Defaults().IdleTimeout
	}
	return &http.Server{Handler: d.handler, ReadHeaderTimeout: min(10*time.Second, read), ReadTimeout: read,
		WriteTimeout: write, IdleTimeout: idle, MaxHeaderBytes: 64 << 10,
		ErrorLog: slog.NewLogLogger(d.Log.Handler(), slog.LevelWarn)}
}

// limit wraps ln with the connection caps of the configuration.
func (d *Daemon) limit(ln net.Listener) net.Listener {
	lim := connLimits{total: d.Cfg.MaxConns, perIP: d.Cfg.MaxConnsPerIP, exempt: map[string]bool{}}
	if lim.total <= 0 {
		lim.total = autoMaxConns()
	}
	for _, p := range d.Cfg.TrustedProxies {
		lim.exempt[p] = true
	}
	var last time.Time
	var mu sync.Mutex
	d.Log.Info("connection limits", "source", "daemon", "max_conns", lim.total, "max_conns_per_ip", lim.perIP)
	return newLimitListener(ln, lim, func(reason string) {
		d.Metrics.Observe("shed", 0, true, d.Now())
		mu.Lock()
		defer mu.Unlock()
		if time.Since(last) > 10*time.Second { // one line per burst, not one per connection
			last = time.Now()
			d.Log.Warn("connections shed", "source", "daemon", "reason", reason)
		}
	})
}

// Close stops background work, flushes logs and metrics and closes the database. It is also the
// clean-up of a start that failed half-way (New calls it): each part closes only if it was built,
// and the database is closed last, so that its file lock is released for the next start.
func (d *Daemon) Close() error {
	if d == nil {
		return nil
	}
	var err error
	d.stopOnce.Do(func() {
		close(d.Stop)
		if d.metricsSrv != nil {
			d.metricsSrv.Close()
		}
		d.Bg.Wait()
		d.Leader.Close()
		d.Pusher.Close()
		d.Chain.Close()
		if d.testChain != nil {
			d.testChain.Close()
		}
		if d.Metrics != nil {
			d.Metrics.Flush()
		}
		d.Sink.Close()
		if d.Store != nil {
			err = d.Store.Close()
		}
	})
	return err
}

func (d *Daemon) background() {
	defer d.Bg.Done()
	flush := time.NewTicker(5 * time.Second)
	prune := time.NewTicker(time.Hour)
	sweep := time.NewTicker(d.Cfg.SweepEvery)
	defer flush.Stop()
	defer prune.Stop()
	defer sweep.Stop()
	// A daemon prunes when it starts leading (at once on bbolt; when it takes the lead on a shared
	// PostgreSQL store), then hourly.
	led := d.Leading()
	if led {
		d.prune()
		d.recorded.PruneRecorded()
	}
	for {
		select {
		case <-d.Stop:
			return
		case <-flush.C:
			if err := d.Metrics.Flush(); err != nil {
				d.Log.Warn("metrics flush failed", "source", "daemon", "err", err)
			}
		case <-prune.C:
			if d.Leading() {
				d.prune()
			}
		case <-sweep.C:
			now := d.Leading()
			if now && !led {
				d.prune()
				d.recorded.PruneRecorded()
			}
			if led = now; !now {
				continue
			}
			d.tasks.Sweep(context.Background())
			d.members.Liveness(context.Background())
			d.paid.RecoverPaidCalls(context.Background())
		}
	}
}

// prune deletes log rows past retention and idempotency records older than a day.
func (d *Daemon) prune() {
	now := d.Now()
	var logs, idem int
	err := d.Store.Update(func(tx *store.Tx) error {
		var err error
		if logs, err = tx.PruneLog(now.Add(-d.Cfg.LogRetention)); err != nil {
			return err
		}
		if idem, err = tx.PruneIdempotency(now.Add(-24 * time.Hour)); err != nil {
			return err
		}
		_, err = tx.PruneTrials(now.UTC().Format(time.DateOnly))
		return err
	})
	if err != nil {
		d.Log.Warn("prune failed", "source", "daemon", "err", err)
	} else if logs+idem > 0 {
		d.Log.Info("pruned old rows", "source", "daemon", "log_rows", logs, "idempotency_records", idem)
	}
	// Packing runs beside the sweeper, not before it: after an upgrade the first pass packs the
	// whole history, thousands of short transactions.
	d.Bg.Add(1)
	go func() {
		defer d.Bg.Done()
		if d.packMu.TryLock() {
			defer d.packMu.Unlock()
			d.pack(now)
		}
	}()
}

// packBlocks is how many blocks a bucket gets in one packing transaction: up to 256 records of a
// task's bucket or 1,024 of scanned history, a few milliseconds of holding the writer.
const packBlocks = 2

// pack moves the history past its packing age into compressed blocks (store.Tx.Pack), in short
// transactions until nothing is left to move or the daemon stops. After each it waits as long as
// the transaction took, so that a long first pass (after an upgrade) leaves the writer to the
// exchange's own changes at least half the time.
func (d *Daemon) pack(now time.Time) {
	total := 0
	for {
		start := time.Now()
		var moved int
		err := d.Store.Update(func(tx *store.Tx) error {
			var err error
			moved, err = tx.Pack(now, packBlocks, false)
			return err
		})
		if err != nil {
			d.Log.Warn("packing history failed", "source", "daemon", "err", err)
			return
		}
		if total += moved; moved == 0 {
			break
		}
		select {
		case <-d.Stop:
			return
		case <-time.After(time.Since(start)):
		}
	}
	if total > 0 {
		d.Log.Info("packed history", "source", "daemon", "records", total)
	}
}

// FlushLogs writes queued log entries to the store (tests and the trace endpoint use it).
func (d *Daemon) FlushLogs() { d.Sink.Flush() }

// Replay finds an earlier answer to an idempotent call. A key used with another body answers
// status -1 (the door turns it into a conflict).
func (d *Daemon) Replay(i *axp.Idempotency, c axp.Caller) (int, []byte, bool, error) {
	var rec *store.Idempotency
	if err := d.Store.View(func(tx *store.Tx) error {
		var err error
		rec, err = tx.Idempotency(i.Key)
		return err
	}); err != nil || rec == nil {
		return 0, nil, false, err
	}
	if rec.BodyHash != i.BodyHash {
		return -1, nil, true, nil
	}
	body, err := kernel.OpenWith(i.Seal, rec.Sealed)
	if err == nil {
		body, err = store.Decompress(body) // answers are deflated before sealing (plain before schema 11)
	}
	if err != nil {
		return 0, nil, false, err
	}
	if rec.Task != "" {
		if body, err = d.replayTask(rec, body, c); err != nil {
			return 0, nil, false, err
		}
	}
	return rec.Status, body, true, nil
}

// replayTask renders the answer of a record written by answerWithTask: the task as it is now.
func (d *Daemon) replayTask(rec *store.Idempotency, extra []byte, c axp.Caller) ([]byte, error) {
	var view axp.Task
	if err := d.Store.View(func(tx *store.Tx) error {
		t, err := kernel.LoadTask(tx, rec.Task)
		if err != nil {
			return err
		}
		view, err = d.tasks.View(tx, t, c, kernel.ViewBuyer)
		return err
	}); err != nil {
		return nil, err
	}
	var out any = &view
	// The stored answer is of the type the operation declares: the task, or the task as created.
	if op := contract.Lookup(rec.Op); op != nil && op.Out == reflect.TypeFor[axp.CreatedTask]() {
		var created axp.CreatedTask
		if err := json.Unmarshal(extra, &created); err != nil {
			return nil, err
		}
		created.Task = view
		out = &created
	}
	return kernel.EncodeAnswer(out)
}

// DataDirDefault is the default data dir: $XDG_DATA_HOME/axp, else ~/.local/share/axp.
func DataDirDefault(xdgDataHome, home string) string {
	if xdgDataHome != "" {
		return filepath.Join(xdgDataHome, "axp")
	}
	return filepath.Join(home, ".local", "share", "axp")
}

// Sweep runs the window checks once now (tests and the operator's CLI use it).
func (d *Daemon) Sweep() int { return d.tasks.Sweep(context.Background()) }

// Liveness runs the members' liveness checks once now (tests use it).
func (d *Daemon) Liveness() { d.members.Liveness(context.Background()) }
