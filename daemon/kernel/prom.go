package kernel

import (
	"errors"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/axp-exchange/axp"
	"github.com/axp-exchange/axp/daemon/outbound"
	"github.com/axp-exchange/axp/store"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// Prom holds the exchange's Prometheus series (GET /metrics, docs/decisions.md "Logs and
// metrics"). It has its own registry, not the process-wide default one, so that several daemons
// in one process (tests) keep apart. The in-house per-route figures (Metrics) stay as they are:
// they are kept in the store for axp admin metrics; these are for a scraper.
type Prom struct {
	Registry *prometheus.Registry

	requests *prometheus.CounterVec
	duration *prometheus.HistogramVec
	errs     *prometheus.CounterVec
	// calls caches the children of one (operation, door, status, code), so that observing a
	// call costs a map read under a read lock and no allocation once the series exists.
	callsMu sync.RWMutex
	calls   map[callKey]*callSeries

	outCalls    *prometheus.CounterVec
	outDuration *prometheus.HistogramVec

	quoteRounds prometheus.Histogram

	commit prometheus.Histogram

	chainHead, chainCursor, chainLag, chainLastPass prometheus.Gauge
	walletBalance                                   prometheus.Gauge
	sentReorged                                     prometheus.Counter

	reconcileCovered, reconcileDifference, reconcileAt prometheus.Gauge
	reconcileDeposit                                   prometheus.Gauge
	reconcileMissing, reconcileUnknown                 prometheus.Gauge
}

type callKey struct {
	op, door string
	status   int
	code     axp.Code
}

type callSeries struct {
	count prometheus.Counter
	dur   prometheus.Observer
	err   prometheus.Counter // nil for a call that succeeded
}

// stateEvery is how long the figures read from the store at scrape time (tasks by status, open
// approvals) are reused: a scrape every few seconds then costs a scan of the indexes at most
// every ten.
const stateEvery = 10 * time.Second

// NewProm builds the series of an exchange over its store; leads tells whether this daemon leads.
func NewProm(db *store.DB, leads func() bool) *Prom {
	reg := prometheus.NewRegistry()
	p := &Prom{Registry: reg, calls: map[callKey]*callSeries{}}
	f := factory{reg}
	p.requests = f.counterVec("axp_requests_total", "Operation calls answered, by operation, door and HTTP status.", "op", "door", "code")
	p.duration = f.histogramVec("axp_request_duration_seconds", "How long operation calls took, by operation and door.",
		[]float64{.0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30}, "op", "door")
	p.errs = f.counterVec("axp_request_errors_total", "Operation calls that failed, by operation, door and error code.", "op", "door", "error")
	p.outCalls = f.counterVec("axp_outbound_calls_total", "Calls the exchange made to members, callbacks and its providers, by call and result (ok or the failure's kind).", "call", "result")
	p.outDuration = f.histogramVec("axp_outbound_call_duration_seconds", "How long outbound calls took, by call.",
		[]float64{.01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30, 60}, "call")
	p.quoteRounds = f.histogram("axp_quote_round_duration_seconds", "How long quote rounds took, from the first call to a seller until every seller answered or the quote window closed.",
		[]float64{.01, .05, .1, .25, .5, 1, 2, 5, 10, 20, 30, 60})
	p.commit = f.histogram("axp_store_commit_duration_seconds", "How long the store's write transactions took to commit (retries included).",
		[]float64{.0001, .00025, .0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1})
	reg.MustRegister(
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "axp_leader", Help: "1 when this daemon runs the once-only background work (always on bbolt)."},
			func() float64 { return b2f(leads()) }),
		prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "axp_store_commits_total", Help: "Write transactions committed (or failed) since start."},
			func() float64 { c, _ := db.GroupStats(); return float64(c) }),
		prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "axp_store_updates_total", Help: "Store updates since start; concurrent ones share a transaction."},
			func() float64 { _, c := db.GroupStats(); return float64(c) }),
		prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "axp_store_serialization_retries_total", Help: "Transactions run again after a PostgreSQL serialization failure or deadlock (0 on bbolt)."},
			func() float64 { return float64(db.PostgresStats().Retries) }),
		&stateCollector{db: db},
		collectors.NewGoCollector(),
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
	)
	p.chainHead = gauge("axp_chain_head", "The newest block the payment watcher read from the node.")
	p.chainCursor = gauge("axp_chain_cursor", "The last block the payment watcher has processed.")
	p.chainLag = gauge("axp_chain_lag_blocks", "Blocks between the chain head and the payment watcher's cursor (confirmations included).")
	p.chainLastPass = gauge("axp_chain_last_pass_timestamp_seconds", "When the payment watcher last finished a pass without error (Unix time).")
	p.sentReorged = prometheus.NewCounter(prometheus.CounterOpts{Name: "axp_payouts_reorged_total",
		Help: "Payout, refund and split transfers confirmed, then removed by a reorg deeper than the confirmations (each is sent again)."})
	p.walletBalance = gauge("axp_hot_wallet_balance_usd", "The hot wallet's token balance in US dollars, read once per payment watcher pass.")
	p.reconcileCovered = gauge("axp_ledger_reconcile_covered", "1 when the last reconciliation found the chain holding at least what the ledger says, with no unknown or missing transfer; 0 otherwise.")
	p.reconcileDifference = gauge("axp_ledger_reconcile_difference_usd", "What the exchange's addresses held beyond the ledger at the last reconciliation (negative: money missing).")
	p.reconcileDeposit = gauge("axp_ledger_reconcile_deposit_difference_usd", "What the deposit address held beyond what the ledger expects of it at the last reconciliation, apart from the hot wallet's float (negative: money left it that the ledger does not know of).")
	p.reconcileMissing = gauge("axp_ledger_reconcile_missing_transfers", "Ledger movements the chain did not show at the last reconciliation.")
	p.reconcileUnknown = gauge("axp_ledger_reconcile_unknown_transfers", "Transfers to the deposit address funding no task at the last reconciliation.")
	p.reconcileAt = gauge("axp_ledger_reconcile_timestamp_seconds", "When the ledger was last reconciled with the chain (Unix time; 0: never since start).")
	db.ObserveCommits(func(elapsed time.Duration, _ int) { p.commit.Observe(elapsed.Seconds()) })
	return p
}

// WatchChain adds the series of the payment watcher and of reconciliations, for an exchange with
// a chain configured; wallet: with a hot wallet, whose balance is a series too.
func (p *Prom) WatchChain(wallet bool) {
	p.Registry.MustRegister(p.chainHead, p.chainCursor, p.chainLag, p.chainLastPass,
		p.reconcileCovered, p.reconcileDifference, p.reconcileDeposit, p.reconcileMissing, p.reconcileUnknown, p.reconcileAt)
	if wallet {
		p.Registry.MustRegister(p.walletBalance, p.sentReorged)
	}
}

// Handler serves the series in the Prometheus exposition format.
func (p *Prom) Handler() http.Handler {
	return promhttp.HandlerFor(p.Registry, promhttp.HandlerOpts{Registry: p.Registry})
}

// Call records one finished operation call. err, when not nil, is the call's error; status is
// the HTTP status it answered with.
func (p *Prom) Call(op, door string, status int, err error, elapsed time.Duration) {
	k := callKey{op: op, door: door, status: status}
	if err != nil {
		k.code = codeOf(err)
	}
	p.callsMu.RLock()
	s := p.calls[k]
	p.callsMu.RUnlock()
	if s == nil {
		s = &callSeries{count: p.requests.WithLabelValues(op, door, strconv.Itoa(status)), dur: p.duration.WithLabelValues(op, door)}
		if err != nil {
			s.err = p.errs.WithLabelValues(op, door, string(k.code))
		}
		p.callsMu.Lock()
		p.calls[k] = s
		p.callsMu.Unlock()
	}
	s.count.Inc()
	s.dur.Observe(elapsed.Seconds())
	if s.err != nil {
		s.err.Inc()
	}
}

// codeOf is the code of a call's error: internal for an untyped one. The common case, a typed
// error as such, is read without errors.As, whose target would escape (an allocation per call).
func codeOf(err error) axp.Code {
	if e, ok := err.(*axp.Error); ok {
		return e.Code
	}
	var e *axp.Error
	if errors.As(err, &e) {
		return e.Code
	}
	return axp.CodeInternal
}

// Outbound records one outbound call: call names it ("mcp:quote", "callback", "ai:mediation").
func (p *Prom) Outbound(call string, elapsed time.Duration, err error) {
	result := "ok"
	if err != nil {
		result = "error"
		var ce *outbound.CallError
		if errors.As(err, &ce) {
			result = ce.Kind
		}
	}
	p.outCalls.WithLabelValues(call, result).Inc()
	p.outDuration.WithLabelValues(call).Observe(elapsed.Seconds())
}

// QuoteRound records how long a quote round took.
func (p *Prom) QuoteRound(elapsed time.Duration) { p.quoteRounds.Observe(elapsed.Seconds()) }

// ChainPass records a finished pass of the payment watcher: the head it read and the cursor it
// reached.
func (p *Prom) ChainPass(head, cursor uint64, at time.Time) {
	p.chainHead.Set(float64(head))
	p.chainCursor.Set(float64(cursor))
	lag := 0.0
	if head > cursor {
		lag = float64(head - cursor)
	}
	p.chainLag.Set(lag)
	p.chainLastPass.Set(float64(at.UnixNano()) / 1e9)
}

// SentReorged counts a sent transfer a reorg removed after its confirmations.
func (p *Prom) SentReorged() { p.sentReorged.Inc() }

// WalletBalance records the hot wallet's balance.
func (p *Prom) WalletBalance(m axp.Money) { p.walletBalance.Set(usd(m)) }

// Reconciled records the outcome of a reconciliation of the ledger with the chain.
func (p *Prom) Reconciled(r *axp.Reconciliation, at time.Time) {
	p.reconcileCovered.Set(b2f(r.Covered))
	p.reconcileDifference.Set(usd(r.DifferenceUSD))
	p.reconcileDeposit.Set(usd(r.DepositDifferenceUSD))
	p.reconcileMissing.Set(float64(len(r.MissingTransfers)))
	p.reconcileUnknown.Set(float64(len(r.UnknownTransfers)))
	p.reconcileAt.Set(float64(at.UnixNano()) / 1e9)
}

func usd(m axp.Money) float64 { return float64(m) / 1e6 }

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// stateCollector reads, at scrape time, the tasks by status and the open approvals by kind,
// reusing what it read for stateEvery.
type stateCollector struct {
	db *store.DB

	mu        sync.Mutex
	at        time.Time
	tasks     map[string]int
	approvals map[string]int
}

var (
	tasksDesc     = prometheus.NewDesc("axp_tasks", "Tasks by status (read from the store at most every 10 s).", []string{"status"}, nil)
	approvalsDesc = prometheus.NewDesc("axp_approvals_pending", "Open approvals waiting for the operator (or for their transfer), by kind (read at most every 10 s).", []string{"kind"}, nil)
)

func (c *stateCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- tasksDesc
	ch <- approvalsDesc
}

func (c *stateCollector) Collect(ch chan<- prometheus.Metric) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.tasks == nil || time.Since(c.at) >= stateEvery {
		// Every kind is exported, 0 when none waits: an absent series reads as unknown, not empty.
		tasks, approvals := map[string]int{}, make(map[string]int, len(axp.ApprovalKinds))
		for _, kind := range axp.ApprovalKinds {
			approvals[kind] = 0
		}
		err := c.db.View(func(tx *store.Tx) error {
			tasks = tx.CountByStatus()
			return tx.OpenApprovals(func(a *axp.Approval) bool {
				approvals[a.Kind]++
				return true
			})
		})
		if err != nil {
			ch <- prometheus.NewInvalidMetric(tasksDesc, err)
			return
		}
		c.tasks, c.approvals, c.at = tasks, approvals, time.Now()
	}
	for status, n := range c.tasks {
		ch <- prometheus.MustNewConstMetric(tasksDesc, prometheus.GaugeValue, float64(n), status)
	}
	for kind, n := range c.approvals {
		ch <- prometheus.MustNewConstMetric(approvalsDesc, prometheus.GaugeValue, float64(n), kind)
	}
}

// factory registers each series it makes on one registry.
type factory struct{ reg *prometheus.Registry }

func (f factory) counterVec(name, help string, labels ...string) *prometheus.CounterVec {
	v := prometheus.NewCounterVec(prometheus.CounterOpts{Name: name, Help: help}, labels)
	f.reg.MustRegister(v)
	return v
}

func (f factory) histogramVec(name, help string, buckets []float64, labels ...string) *prometheus.HistogramVec {
	v := prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: name, Help: help, Buckets: buckets}, labels)
	f.reg.MustRegister(v)
	return v
}

func (f factory) histogram(name, help string, buckets []float64) prometheus.Histogram {
	h := prometheus.NewHistogram(prometheus.HistogramOpts{Name: name, Help: help, Buckets: buckets})
	f.reg.MustRegister(h)
	return h
}

// gauge makes a gauge registered later (WatchChain).
func gauge(name, help string) prometheus.Gauge {
	return prometheus.NewGauge(prometheus.GaugeOpts{Name: name, Help: help})
}
