// Package daemon is the exchange: it wires the store, the domain and the doors (REST now; MCP and A2A
// as further projections of the same catalog) into one http.Handler, and owns every transaction
// boundary. It never reads the environment: cmd resolves configuration into Config.
package daemon

import (
	"context"
	"crypto/hmac"
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
	"strings"
	"sync"
	"time"

	"github.com/axp-exchange/axp"
	"github.com/axp-exchange/axp/daemon/chain"
	"github.com/axp-exchange/axp/daemon/mcp"
	"github.com/axp-exchange/axp/daemon/outbound"
	"github.com/axp-exchange/axp/daemon/paidtools"
	"github.com/axp-exchange/axp/daemon/pipeline"
	"github.com/axp-exchange/axp/daemon/rest"
	"github.com/axp-exchange/axp/protocol"
	"github.com/axp-exchange/axp/store"
)

// Daemon is a running exchange.
type Daemon struct {
	cfg Config
	db  *store.DB
	// leader says whether this daemon runs the work that must run once among the daemons sharing
	// a PostgreSQL store (sweeper, payment watcher, liveness, recorders); on bbolt it always leads.
	leader  *store.Leader
	keys    *sealer
	log     *slog.Logger
	sink    *logSink
	metrics *metrics
	rest    *rest.Server
	handler http.Handler
	started time.Time

	adminHash [32]byte

	anonTasks, registrations, operatorMsgs, anonReads, boardPosts *limiter

	seenMu sync.Mutex
	seen   map[string]time.Time // member id -> last time LastSeenAt was written

	cacheMu    sync.Mutex
	services   *axp.ServiceList   // cached /api/services answer; reset when skills change
	servicesAt time.Time          // when services was built
	invite     *protocol.AlsoSell // the also_sell invitation for the current base URL
	offers     offerCache         // on_offer, until what verified sellers offer changes

	pipe *pipeline.Pipeline
	mcp  *mcp.Server

	verifier PaymentVerifier
	// chain is the evm verifier's and the payout rail's chain (nil: manual); wallet the hot
	// wallet (nil: the operator sends payouts).
	chain     *chain.Client
	chainInfo axp.ChainInfo
	wallet    *chain.Wallet
	// paid takes the payments of pay-per-call tools; fetcher reads web pages for them.
	paid      *paywall
	fetcher   *paidtools.Fetcher
	webSearch *paidtools.Search
	caller    *outbound.Caller
	pusher    *outbound.Pusher
	// callTool calls a member's MCP tool (nil until the outbound path is wired).
	callTool func(ctx context.Context, m *axp.Member, tool string, in, out any) error
	// quoteParallel caps the calls of one quote round under way at once (outbound.MaxParallel).
	quoteParallel int
	// outbox sends a committed notice to a member or callback URL (nil: notices are dropped).
	outbox func(ctx context.Context, n notice)

	trust trustState
	// events holds the subscribers of the typed events services emit (events.go).
	events subscribers
	// rec records prices and news and keeps the cached backtest (recorded.go).
	rec *recorders

	// talking holds the ids of conversations whose message is being answered now.
	talking sync.Map

	// afterScan, when set (tests), runs between a sweeper's read of what is due and the write
	// transactions that act on it, so a test can change the state in between.
	afterScan func(what string)
	// paidHook, when set (tests), runs at the stages of a paid call ("held", "settled"), so that a
	// test can stop one there as a crash would.
	paidHook func(stage string)

	stop     chan struct{}
	stopOnce sync.Once
	bg       sync.WaitGroup
	packMu   sync.Mutex // held by the packing pass under way
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
		cfg.SweepEvery = Defaults().SweepEvery
	}
	if cfg.SandboxWait <= 0 {
		cfg.SandboxWait = Defaults().SandboxWait
	}
	keys, err := loadSealer(cfg.DataDir)
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
	d := &Daemon{cfg: cfg, db: db, leader: db.Lead(cfg.LeaderEvery), keys: keys, metrics: newMetrics(db), started: cfg.Now(), seen: map[string]time.Time{},
		quoteParallel: outbound.MaxParallel, events: subscribers{},
		stop: make(chan struct{})}
	d.sink = newLogSink(db)
	level := parseLevel(cfg.LogLevel)
	d.log = slog.New(&logHandler{console: slog.NewTextHandler(console, &slog.HandlerOptions{Level: level}), sink: d.sink, keep: level})

	generated, err := d.setupAdmin()
	if err != nil {
		d.Close()
		return nil, "", err
	}
	d.anonTasks = newLimiter("anonymous task creation", cfg.AnonTasksPerMinute, time.Minute, fmt.Sprintf("anonymous callers may post %d tasks a minute per IP; register as a buyer member for more", cfg.AnonTasksPerMinute))
	d.registrations = newLimiter("registrations", cfg.RegistrationsPerHour, time.Hour, fmt.Sprintf("%d registrations an hour per IP", cfg.RegistrationsPerHour))
	d.operatorMsgs = newLimiter("operator messages", cfg.OperatorMessagesPerDay, 24*time.Hour, fmt.Sprintf("%d operator messages a day per member", cfg.OperatorMessagesPerDay))
	d.boardPosts = newLimiter("board posts", cfg.BoardPostsPerHour, time.Hour, fmt.Sprintf("%d board posts and replies an hour per member", cfg.BoardPostsPerHour))
	d.anonReads = newLimiter("anonymous calls", cfg.AnonReadsPerMinute, time.Minute, fmt.Sprintf("%d anonymous calls a minute per IP", cfg.AnonReadsPerMinute))

	d.verifier = cfg.Verifier
	if d.verifier == nil {
		d.verifier = manualVerifier{}
	}
	if err := d.setupChain(); err != nil {
		d.Close()
		return nil, "", err
	}
	pctx, pcancel := context.WithTimeout(context.Background(), 15*time.Second)
	err = d.setupPaid(pctx)
	pcancel()
	if err != nil {
		d.Close()
		return nil, "", err
	}
	d.wireOutbound()
	d.fetcher = paidtools.NewFetcher(d.caller, paidtools.FetcherOptions{AllowLoopback: cfg.PaidFetchLoopback})
	if cfg.SearchURL != "" {
		if d.webSearch, err = paidtools.NewSearch(cfg.SearchURL, d.caller.HTTPClient(15*time.Second)); err != nil {
			d.Close()
			return nil, "", fmt.Errorf("search_url: %w", err)
		}
	}
	if err := d.setupRecorders(); err != nil {
		d.Close()
		return nil, "", err
	}
	d.pipe = pipeline.New(d, d.handlers(), keys.raw)
	d.rest = rest.New(d, d.pipe, rest.Options{MaxBodyBytes: cfg.MaxBodyBytes})
	d.handler = d.doors()
	d.bg.Add(2)
	go d.background()
	go d.recordLoop()
	if d.chain != nil {
		if d.wallet != nil {
			// Transfers stored as sent before a stop are followed (and broadcast again if the
			// node lost them) before any new approval signs.
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			d.trackSent(ctx)
			cancel()
		}
		d.bg.Add(1)
		go d.watchChain()
	}
	d.log.Info("exchange ready", "source", "daemon", "data_dir", cfg.DataDir, "base_url", d.BaseURL(), "schema", store.SchemaVersion)
	return d, generated, nil
}

func (d *Daemon) setupAdmin() (string, error) {
	if d.cfg.AdminToken != "" {
		d.adminHash = sha256.Sum256([]byte(d.cfg.AdminToken))
		return "", nil
	}
	var stored string
	d.db.View(func(tx *store.Tx) error { stored = tx.AdminTokenHash(); return nil })
	if stored != "" {
		h, err := hex.DecodeString(stored)
		if err != nil || len(h) != 32 {
			return "", errors.New("the stored admin token hash is damaged; set AXP_ADMIN_TOKEN")
		}
		copy(d.adminHash[:], h)
		return "", nil
	}
	token := "axp_admin_" + axp.RandomHex(24)
	d.adminHash = sha256.Sum256([]byte(token))
	var other string
	err := d.db.Update(func(tx *store.Tx) error {
		// Daemons starting together on one PostgreSQL store: the first to commit generates it.
		if other = tx.AdminTokenHash(); other != "" {
			return nil
		}
		if err := tx.SetAdminTokenHash(hex.EncodeToString(d.adminHash[:])); err != nil {
			return err
		}
		return tx.Audit(&axp.AuditRecord{ID: axp.NewID("aud", d.now()), Time: d.now(), Actor: "system", Action: "admin_token.generate",
			EntityType: "admin_token", EntityID: protocol.Fingerprint(token)})
	})
	if err == nil && other != "" {
		h, _ := hex.DecodeString(other)
		copy(d.adminHash[:], h)
		return "", nil
	}
	return token, err
}

// Handler is the exchange's HTTP handler.
func (d *Daemon) Handler() http.Handler { return d.handler }

// Logger is the exchange's logger.
func (d *Daemon) Logger() *slog.Logger { return d.log }

// DB is the exchange's database.
func (d *Daemon) DB() *store.DB { return d.db }

// BaseURL is the public address of the exchange.
func (d *Daemon) BaseURL() string {
	if d.cfg.BaseURL != "" {
		return strings.TrimRight(d.cfg.BaseURL, "/")
	}
	return "http://" + d.cfg.Addr
}

// SetBaseURL fixes the base URL once the listener's address is known (port 0).
func (d *Daemon) SetBaseURL(u string) {
	if d.cfg.BaseURL == "" {
		d.cfg.BaseURL = u
	}
	d.cacheMu.Lock()
	d.services, d.invite = nil, nil
	d.cacheMu.Unlock()
}

// now is the exchange's clock, to the microsecond: every time it records (tasks, timelines, audit,
// approvals, the ledger) has PostgreSQL's precision, and the nanoseconds below it, noise that no
// reader uses, are not stored ~60 times a task.
func (d *Daemon) now() time.Time { return d.cfg.Now().UTC().Truncate(time.Microsecond) }

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
	d.log.Info("shutting down", "source", "daemon")
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
	read := d.cfg.ReadTimeout
	if read <= 0 {
		read = Defaults().ReadTimeout
	}
	write := d.cfg.WriteTimeout
	if write <= 0 {
		write = d.cfg.QuoteWindow + time.Minute
	}
	idle := d.cfg.IdleTimeout
	if idle <= 0 {
		idle = Defaults().IdleTimeout
	}
	return &http.Server{Handler: d.handler, ReadHeaderTimeout: min(10*time.Second, read), ReadTimeout: read,
		WriteTimeout: write, IdleTimeout: idle, MaxHeaderBytes: 64 << 10,
		ErrorLog: slog.NewLogLogger(d.log.Handler(), slog.LevelWarn)}
}

// limit wraps ln with the connection caps of the configuration.
func (d *Daemon) limit(ln net.Listener) net.Listener {
	lim := connLimits{total: d.cfg.MaxConns, perIP: d.cfg.MaxConnsPerIP, exempt: map[string]bool{}}
	if lim.total <= 0 {
		lim.total = autoMaxConns()
	}
	for _, p := range d.cfg.TrustedProxies {
		lim.exempt[p] = true
	}
	var last time.Time
	var mu sync.Mutex
	d.log.Info("connection limits", "source", "daemon", "max_conns", lim.total, "max_conns_per_ip", lim.perIP)
	return newLimitListener(ln, lim, func(reason string) {
		d.metrics.observe("shed", 0, true, d.now())
		mu.Lock()
		defer mu.Unlock()
		if time.Since(last) > 10*time.Second { // one line per burst, not one per connection
			last = time.Now()
			d.log.Warn("connections shed", "source", "daemon", "reason", reason)
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
		close(d.stop)
		d.bg.Wait()
		d.leader.Close()
		d.pusher.Close()
		d.chain.Close()
		if d.metrics != nil {
			d.metrics.flush()
		}
		d.sink.close()
		if d.db != nil {
			err = d.db.Close()
		}
	})
	return err
}

func (d *Daemon) background() {
	defer d.bg.Done()
	flush := time.NewTicker(5 * time.Second)
	prune := time.NewTicker(time.Hour)
	sweep := time.NewTicker(d.cfg.SweepEvery)
	defer flush.Stop()
	defer prune.Stop()
	defer sweep.Stop()
	// A daemon prunes when it starts leading (at once on bbolt; when it takes the lead on a shared
	// PostgreSQL store), then hourly.
	led := d.leading()
	if led {
		d.prune()
		d.pruneRecorded()
	}
	for {
		select {
		case <-d.stop:
			return
		case <-flush.C:
			if err := d.metrics.flush(); err != nil {
				d.log.Warn("metrics flush failed", "source", "daemon", "err", err)
			}
		case <-prune.C:
			if d.leading() {
				d.prune()
			}
		case <-sweep.C:
			now := d.leading()
			if now && !led {
				d.prune()
				d.pruneRecorded()
			}
			if led = now; !now {
				continue
			}
			d.sweep(context.Background())
			d.liveness(context.Background())
			d.recoverPaidCalls(context.Background())
		}
	}
}

// leading tells whether this daemon runs the once-only background work now.
func (d *Daemon) leading() bool { return d.leader.Leading() }

// Leading tells whether this daemon leads the daemons sharing its store (always, on bbolt).
func (d *Daemon) Leading() bool { return d.leading() }

// prune deletes log rows past retention and idempotency records older than a day.
func (d *Daemon) prune() {
	now := d.now()
	var logs, idem int
	err := d.db.Update(func(tx *store.Tx) error {
		var err error
		if logs, err = tx.PruneLog(now.Add(-d.cfg.LogRetention)); err != nil {
			return err
		}
		if idem, err = tx.PruneIdempotency(now.Add(-24 * time.Hour)); err != nil {
			return err
		}
		_, err = tx.PruneTrials(now.UTC().Format(time.DateOnly))
		return err
	})
	if err != nil {
		d.log.Warn("prune failed", "source", "daemon", "err", err)
	} else if logs+idem > 0 {
		d.log.Info("pruned old rows", "source", "daemon", "log_rows", logs, "idempotency_records", idem)
	}
	// Packing runs beside the sweeper, not before it: after an upgrade the first pass packs the
	// whole history, thousands of short transactions.
	d.bg.Add(1)
	go func() {
		defer d.bg.Done()
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
		err := d.db.Update(func(tx *store.Tx) error {
			var err error
			moved, err = tx.Pack(now, packBlocks, false)
			return err
		})
		if err != nil {
			d.log.Warn("packing history failed", "source", "daemon", "err", err)
			return
		}
		if total += moved; moved == 0 {
			break
		}
		select {
		case <-d.stop:
			return
		case <-time.After(time.Since(start)):
		}
	}
	if total > 0 {
		d.log.Info("packed history", "source", "daemon", "records", total)
	}
}

// FlushLogs writes queued log entries to the store (tests and the trace endpoint use it).
func (d *Daemon) FlushLogs() { d.sink.flush() }

// --- pipeline.Backend ---

// Observe records metrics and logs the request.
func (d *Daemon) Observe(r *http.Request, route string, status int, elapsed time.Duration, c axp.Caller, err error) {
	d.metrics.observe(route, elapsed, status >= 500, d.now())
	level := slog.LevelDebug
	switch {
	case status >= 500:
		level = slog.LevelError
	case status >= 400 || r.Method != http.MethodGet:
		level = slog.LevelInfo
	}
	if !d.log.Enabled(r.Context(), level) {
		return
	}
	attrs := []any{"source", "http", "method", r.Method, "route", route, "status", status,
		"ms", float64(elapsed.Microseconds()) / 1000, "actor", c.Actor(), "ip", protocol.Fingerprint(c.IP)}
	if err != nil {
		attrs = append(attrs, "error", errorText(err))
	}
	d.log.Log(r.Context(), level, "request", attrs...)
}

func errorText(err error) string {
	var e *axp.Error
	if errors.As(err, &e) {
		return string(e.Code) + ": " + e.Message
	}
	return err.Error()
}

// Admit applies the rate limits of DESIGN.md section 8. The limits on task creation, registrations
// and operator messages count only calls that change something: the door calls refund when a call
// is refused, replayed or fails. The general limit on anonymous calls counts every call.
func (d *Daemon) Admit(op *axp.Op, c axp.Caller) (refund func(), err error) {
	now := d.now()
	anonymous := c.Kind == axp.Anonymous || c.Kind == axp.BuyerToken
	switch op.Limit {
	case axp.LimitTaskPosts:
		if anonymous {
			return d.anonTasks.allow(c.IP, now)
		}
	case axp.LimitRegistrations:
		return d.registrations.allow(c.IP, now)
	case axp.LimitOperatorMessages:
		return d.operatorMsgs.allow(c.MemberID, now)
	case axp.LimitBoardPosts:
		return d.boardPosts.allow(c.MemberID, now)
	}
	if anonymous {
		_, err := d.anonReads.allow(c.IP, now)
		return nil, err
	}
	return nil, nil
}

// Replay finds an earlier answer to an idempotent call. A key used with another body answers
// status -1 (the door turns it into a conflict).
func (d *Daemon) Replay(i *axp.Idempotency, c axp.Caller) (int, []byte, bool, error) {
	var rec *store.Idempotency
	if err := d.db.View(func(tx *store.Tx) error {
		var err error
		rec, err = tx.Idempotency(i.Key)
		return err
	}); err != nil || rec == nil {
		return 0, nil, false, err
	}
	if rec.BodyHash != i.BodyHash {
		return -1, nil, true, nil
	}
	body, err := openWith(i.Seal, rec.Sealed)
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

// change is the context of one state change: the transaction, who makes it and when.
type change struct {
	tx    *store.Tx
	ctx   context.Context
	actor string
	now   time.Time
	// notices are sent to members and callback URLs after the transaction commits.
	notices []notice
	// afters run after the transaction commits (log lines, cache resets, follow-up work).
	afters []func()
	// answered: the call's idempotency record was written by answerWithTask.
	answered bool
	// events are the subscribers of typed events emitted in this change.
	events subscribers
}

// answerWithTask writes the call's idempotency record (when it has a key) in this transaction as a
// reference to task id: a replay answers with the task's current view, and with extra (sealed
// with the caller's key) for what the task does not keep. Handlers whose answer comes only after
// further work (a quote round) use it, so that the change and its record commit together.
func (c *change) answerWithTask(id string, extra any) error {
	i := axp.IdempotencyFrom(c.ctx)
	if i == nil || i.Stored() {
		return nil
	}
	body, err := json.Marshal(extra)
	if err != nil {
		return err
	}
	c.answered = true
	return c.tx.PutIdempotency(i.Key, &store.Idempotency{BodyHash: i.BodyHash, Op: i.Op, Status: i.Status,
		Sealed: sealWith(i.Seal, store.Compress(body)), At: c.now, Task: id})
}

// replayTask renders the answer of a record written by answerWithTask: the task as it is now.
func (d *Daemon) replayTask(rec *store.Idempotency, extra []byte, c axp.Caller) ([]byte, error) {
	var view axp.Task
	if err := d.db.View(func(tx *store.Tx) error {
		t, err := loadTask(tx, rec.Task)
		if err != nil {
			return err
		}
		view, err = d.view(tx, t, c, viewBuyer)
		return err
	}); err != nil {
		return nil, err
	}
	var out any = &view
	// The stored answer is of the type the operation declares: the task, or the task as created.
	if op := axp.Lookup(rec.Op); op != nil && op.Out == reflect.TypeFor[axp.CreatedTask]() {
		var created axp.CreatedTask
		if err := json.Unmarshal(extra, &created); err != nil {
			return nil, err
		}
		created.Task = view
		out = &created
	}
	body, err := json.Marshal(out)
	return append(body, '\n'), err
}

// notify queues a notice, sent only if the change commits.
func (c *change) notify(n notice) { c.notices = append(c.notices, n) }

// after queues fn to run once the change has committed.
func (c *change) after(fn func()) { c.afters = append(c.afters, fn) }

// audit appends an audit record to the change's transaction.
func (c *change) audit(action, entityType, entityID string, details map[string]any) error {
	return c.tx.Audit(&axp.AuditRecord{ID: axp.NewID("aud", c.now), Time: c.now, Actor: c.actor, Action: action,
		EntityType: entityType, EntityID: entityID, TraceID: axp.TraceID(c.ctx), Details: details})
}

var errKeyAnswered = axp.Conflict("another request with this idempotency key was answered meanwhile",
	"retry with the same key to get its answer")

// mutate runs fn in one write transaction; with an Idempotency-Key on the call, the answer is stored
// in the same transaction, sealed with the caller's key. On PostgreSQL the transaction may run again
// after a serialization failure: fn starts from a fresh change each time, and only the notices and
// follow-up work of the run that committed are kept.
func (d *Daemon) mutate(ctx context.Context, actor string, fn func(c *change) (any, error)) (any, error) {
	var out any
	var notices []notice
	var afters []func()
	var stored *axp.Idempotency
	err := d.db.Update(func(tx *store.Tx) error {
		stored = nil
		out, notices, afters = nil, nil, nil
		if i := axp.IdempotencyFrom(ctx); i != nil && !i.Stored() {
			// Another daemon on the same database may have answered this key since Replay
			// looked: the record and this change cannot both commit.
			if rec, err := tx.Idempotency(i.Key); err != nil || rec != nil {
				return errors.Join(err, errKeyAnswered)
			}
		}
		c := &change{tx: tx, ctx: ctx, actor: actor, now: d.now(), events: d.events}
		var err error
		if out, err = fn(c); err != nil {
			return err
		}
		notices, afters = c.notices, c.afters
		// One record per call, written by its first committed change; a later transaction of
		// the same call (follow-up work) does not overwrite it.
		if i := axp.IdempotencyFrom(ctx); i != nil && !i.Stored() {
			stored = i
			if c.answered {
				return nil
			}
			body, err := json.Marshal(out)
			if err != nil {
				return err
			}
			return tx.PutIdempotency(i.Key, &store.Idempotency{BodyHash: i.BodyHash, Op: i.Op, Status: i.Status,
				Sealed: sealWith(i.Seal, store.Compress(append(body, '\n'))), At: c.now})
		}
		return nil
	})
	if err == nil && stored != nil {
		stored.MarkStored()
	}
	if err == nil {
		d.send(ctx, notices)
		for _, f := range afters {
			f()
		}
	}
	return out, err
}

// --- authentication ---

// Authenticate establishes the caller: a member secret, the admin token, or a buyer token.
func (d *Daemon) Authenticate(r *http.Request) (axp.Caller, error) {
	c := axp.Caller{Kind: axp.Anonymous, IP: d.clientIP(r)}
	cred := ""
	if h := r.Header.Get("Authorization"); h != "" {
		scheme, val, ok := strings.Cut(h, " ")
		if !ok || !strings.EqualFold(scheme, "Bearer") || strings.TrimSpace(val) == "" {
			return c, axp.Unauthorized("the Authorization header is malformed", "send Authorization: Bearer <secret>")
		}
		cred = strings.TrimSpace(val)
	}
	if cred == "" {
		if t := queryToken(r); t != "" {
			c.Kind, c.Token = axp.BuyerToken, t
		}
		return c, nil
	}
	if strings.HasPrefix(cred, "ss_") {
		m, err := d.memberBySecret(cred)
		if err != nil {
			return c, err
		}
		c.Kind, c.MemberID, c.Roles = axp.MemberCall, m.ID, m.Roles
		if t := queryToken(r); t != "" {
			c.Token = t
		}
		d.touch(r.Context(), m.ID)
		return c, nil
	}
	given := sha256.Sum256([]byte(cred))
	if hmac.Equal(given[:], d.adminHash[:]) {
		c.Kind = axp.Operator
		return c, nil
	}
	c.Kind, c.Token = axp.BuyerToken, cred
	return c, nil
}

// queryToken reads ?token= without parsing the query when it cannot hold one.
func queryToken(r *http.Request) string {
	if !strings.Contains(r.URL.RawQuery, "token=") {
		return ""
	}
	return r.URL.Query().Get("token")
}

var errBadSecret = axp.Unauthorized("the member secret is not valid", "use the member_secret returned at registration (ss_<member_id>_<64 hex>)")

func (d *Daemon) memberBySecret(secret string) (*axp.Member, error) {
	id, ok := axp.MemberIDFromSecret(secret)
	if !ok {
		return nil, errBadSecret
	}
	var m *axp.Member
	if err := d.db.View(func(tx *store.Tx) error {
		var err error
		m, err = tx.Member(id)
		return err
	}); err != nil {
		return nil, err
	}
	given := sha256.Sum256([]byte(secret))
	var want []byte
	if m != nil {
		want, _ = hex.DecodeString(m.SecretHash)
	}
	if m == nil || !hmac.Equal(given[:], want) {
		return nil, errBadSecret
	}
	if m.State == axp.MemberSuspended {
		return nil, axp.Forbidden("this member is suspended", "send a message to the operator through the contact on /api/faq")
	}
	return m, nil
}

// touch resets a member's check-in clock, writing at most once a minute per member.
func (d *Daemon) touch(ctx context.Context, id string) {
	now := d.now()
	d.seenMu.Lock()
	last := d.seen[id]
	fresh := now.Sub(last) < time.Minute
	if !fresh {
		d.seen[id] = now
	}
	d.seenMu.Unlock()
	if fresh {
		return
	}
	err := d.db.Update(func(tx *store.Tx) error {
		m, err := tx.Member(id)
		if err != nil || m == nil {
			return err
		}
		m.LastSeenAt = now
		return tx.PutMember(m)
	})
	if err != nil {
		d.log.WarnContext(ctx, "could not record member contact", "source", "members", "member", id, "err", err)
	}
}

func (d *Daemon) clientIP(r *http.Request) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		host = r.RemoteAddr
	}
	for _, p := range d.cfg.TrustedProxies {
		if p == host {
			if xff := r.Header.Get("X-Forwarded-For"); xff != "" {
				parts := strings.Split(xff, ",")
				return strings.TrimSpace(parts[len(parts)-1])
			}
		}
	}
	return host
}

// DataDirDefault is the default data dir: $XDG_DATA_HOME/axp, else ~/.local/share/axp.
func DataDirDefault(xdgDataHome, home string) string {
	if xdgDataHome != "" {
		return filepath.Join(xdgDataHome, "axp")
	}
	return filepath.Join(home, ".local", "share", "axp")
}

// as is the answer of a change (mutate and its helpers answer any) as the type its operation
// declares; another type is an internal error, never a wrong answer.
func as[T any](v any, err error) (*T, error) {
	if err != nil || v == nil {
		return nil, err
	}
	switch out := v.(type) {
	case *T:
		return out, nil
	case T:
		return &out, nil
	}
	return nil, fmt.Errorf("answer of type %T where %T is declared", v, (*T)(nil))
}
