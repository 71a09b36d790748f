package kernel

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/axp-exchange/axp"
	"github.com/axp-exchange/axp/contract"
	"github.com/axp-exchange/axp/daemon/chain"
	"github.com/axp-exchange/axp/daemon/outbound"
	"github.com/axp-exchange/axp/daemon/pipeline"
	"github.com/axp-exchange/axp/protocol"
	"github.com/axp-exchange/axp/store"
)

// Kernel is what every service of the exchange shares.
type Kernel struct {
	Cfg   Config
	Store *store.DB
	// leader says whether this daemon runs the work that must run once among the daemons sharing
	// a PostgreSQL store (sweeper, payment watcher, liveness, recorders); on bbolt it always leads.
	Leader                                                        *store.Leader
	Keys                                                          *Sealer
	Log                                                           *slog.Logger
	Sink                                                          *LogSink
	Metrics                                                       *Metrics
	Prom                                                          *Prom
	Started                                                       time.Time
	AdminHash                                                     [32]byte
	AnonTasks, Registrations, OperatorMsgs, AnonReads, BoardPosts *Limiter
	SeenMu                                                        sync.Mutex
	Seen                                                          map[string]time.Time // member id -> last time LastSeenAt was written
	CacheMu                                                       sync.Mutex
	Services                                                      *axp.ServiceList // cached /api/services answer; reset when skills change
	ServicesAt                                                    time.Time        // when services was built
	Pipe                                                          *pipeline.Pipeline
	// Outages logs calls refused while the store cannot be reached, once a second.
	Outages OutageLog
	// Rail is the chain the exchange is paid and pays on, filled in once at start.
	*Rail
	Caller *outbound.Caller
	Pusher *outbound.Pusher
	// quoteParallel caps the calls of one quote round under way at once (outbound.MaxParallel).
	QuoteParallel int
	// Outbox sends committed notices to members and callback URLs (nil: notices are dropped).
	Outbox Outbox
	// events holds the subscribers of the typed events services emit (change.go).
	Events Subscribers
	Stop   chan struct{}
	Bg     sync.WaitGroup
}

// Rail is the chain the exchange is paid and pays on: set up once when the exchange starts (the
// services that use it take it in their New and read it afterwards), empty without a chain.
type Rail struct {
	// Verifier checks reported payments: by hand, or on chain.
	Verifier PaymentVerifier
	// Chain is the evm verifier's and the payout rail's chain (nil: manual); ChainInfo what
	// buyers are told of it; Wallet the hot wallet (nil: the operator sends payouts).
	Chain     *chain.Client
	ChainInfo axp.ChainInfo
	Wallet    *chain.Wallet
	// Faucet mints test money on the exchange's own test chain (test mode only, else nil).
	Faucet Faucet
}

// New builds the kernel of an exchange over its opened store and sealing key: the leader, metrics,
// Prometheus series and rate limits of cfg (whose Now must be set). The log, the outbox and the
// outbound path are the caller's to set.
func New(cfg Config, db *store.DB, keys *Sealer) *Kernel {
	k := &Kernel{Cfg: cfg, Store: db, Leader: db.Lead(cfg.LeaderEvery), Keys: keys, Metrics: NewMetrics(db), Started: cfg.Now(),
		Seen: map[string]time.Time{}, QuoteParallel: outbound.MaxParallel, Events: Subscribers{}, Rail: &Rail{}, Stop: make(chan struct{})}
	k.Prom = NewProm(db, k.Leading)
	k.AnonTasks = NewLimiter("anonymous task creation", cfg.AnonTasksPerMinute, time.Minute, fmt.Sprintf("anonymous callers may post %d tasks a minute per IP; register as a buyer member for more", cfg.AnonTasksPerMinute))
	k.Registrations = NewLimiter("registrations", cfg.RegistrationsPerHour, time.Hour, fmt.Sprintf("%d registrations an hour per IP", cfg.RegistrationsPerHour))
	k.OperatorMsgs = NewLimiter("operator messages", cfg.OperatorMessagesPerDay, 24*time.Hour, fmt.Sprintf("%d operator messages a day per member", cfg.OperatorMessagesPerDay))
	k.BoardPosts = NewLimiter("board posts", cfg.BoardPostsPerHour, time.Hour, fmt.Sprintf("%d board posts and replies an hour per member", cfg.BoardPostsPerHour))
	k.AnonReads = NewLimiter("anonymous calls", cfg.AnonReadsPerMinute, time.Minute, fmt.Sprintf("%d anonymous calls a minute per IP", cfg.AnonReadsPerMinute))
	return k
}

// Faucet mints TestUSD, and sends gas along when an address has too little, on test mode's chain.
type Faucet interface {
	Fund(ctx context.Context, addr string, usd axp.Money) (axp.TestFunds, error)
}

// ChainNames reports the chain and token buyers are told about: the checked ones, or the configured
// ones when no RPC URL is set.
func (k *Kernel) ChainNames() (axp.ChainInfo, bool) {
	if k.Chain != nil {
		return k.ChainInfo, true
	}
	if k.Cfg.ChainID == 0 || k.Cfg.TokenAddress == "" {
		return axp.ChainInfo{}, false
	}
	dec := k.Cfg.TokenDecimals
	if dec == 0 {
		dec = 6
	}
	return axp.ChainInfo{ChainID: k.Cfg.ChainID, TokenAddress: chain.Checksummed(k.Cfg.TokenAddress), TokenDecimals: dec,
		DepositAddress: k.Cfg.DepositAddress}, true
}

// DefaultMaxConnsPerIP caps the connections one client address may hold open.
const DefaultMaxConnsPerIP = 256

// Logger is the exchange's logger.
func (k *Kernel) Logger() *slog.Logger { return k.Log }

// DB is the exchange's database.
func (k *Kernel) DB() *store.DB { return k.Store }

// BaseURL is the public address of the exchange.
func (k *Kernel) BaseURL() string {
	if k.Cfg.BaseURL != "" {
		return strings.TrimRight(k.Cfg.BaseURL, "/")
	}
	return "http://" + k.Cfg.Addr
}

// SetBaseURL fixes the base URL once the listener's address is known (port 0).
func (k *Kernel) SetBaseURL(u string) {
	if k.Cfg.BaseURL == "" {
		k.Cfg.BaseURL = u
	}
	k.CacheMu.Lock()
	k.Services = nil
	k.CacheMu.Unlock()
}

// Now is the exchange's clock, to the microsecond: every time it records (tasks, timelines, audit,
// approvals, the ledger) has PostgreSQL's precision, and the nanoseconds below it, noise that no
// reader uses, are not stored ~60 times a task.
func (k *Kernel) Now() time.Time { return k.Cfg.Now().UTC().Truncate(time.Microsecond) }

// Leading tells whether this daemon leads the daemons sharing its store (always, on bbolt): only
// the leader runs the once-only background work.
func (k *Kernel) Leading() bool { return k.Leader.Leading() }

// Observe records metrics and logs the request.
func (k *Kernel) Observe(r *http.Request, route string, status int, elapsed time.Duration, c axp.Caller, err error) {
	k.Metrics.Observe(route, elapsed, status >= 500, k.Now())
	if errors.Is(err, store.ErrUnavailable) {
		k.Outages.Note(r.Context(), k.Log, err)
		return
	}
	level := slog.LevelDebug
	switch {
	case status >= 500:
		level = slog.LevelError
	case status >= 400 || r.Method != http.MethodGet:
		level = slog.LevelInfo
	}
	if !k.Log.Enabled(r.Context(), level) {
		return
	}
	attrs := []any{"source", "http", "method", r.Method, "route", route, "status", status,
		"ms", float64(elapsed.Microseconds()) / 1000, "actor", c.Actor(), "ip", protocol.Fingerprint(c.IP)}
	if err != nil {
		attrs = append(attrs, "error", ErrorText(err))
	}
	k.Log.Log(r.Context(), level, "request", attrs...)
}

// Measure records a finished operation call in the Prometheus series.
func (k *Kernel) Measure(op *contract.Op, door pipeline.Door, status int, err error, elapsed time.Duration) {
	k.Prom.Call(op.Name, string(door), status, err, elapsed)
}

// ObserveOutbound records a call the exchange made (to a member, a callback URL, a provider):
// call names it ("mcp:quote", "callback", "ai:mediation").
func (k *Kernel) ObserveOutbound(call string, elapsed time.Duration, err error) {
	k.Metrics.Observe("out:"+call, elapsed, err != nil, k.Now())
	k.Prom.Outbound(call, elapsed, err)
}

func ErrorText(err error) string {
	var e *axp.Error
	if errors.As(err, &e) {
		return string(e.Code) + ": " + e.Message
	}
	return err.Error()
}

// Admit applies the rate limits of docs/design.md section 8. The limits on task creation, registrations
// and operator messages count only calls that change something: the door calls refund when a call
// is refused, replayed or fails. The general limit on anonymous calls counts every call.
func (k *Kernel) Admit(op *contract.Op, c axp.Caller) (refund func(), err error) {
	now := k.Now()
	anonymous := c.Kind == axp.Anonymous || c.Kind == axp.BuyerToken
	switch op.Limit {
	case contract.LimitTaskPosts:
		if anonymous {
			return k.AnonTasks.allow(c.IP, now)
		}
	case contract.LimitRegistrations:
		return k.Registrations.allow(c.IP, now)
	case contract.LimitOperatorMessages:
		return k.OperatorMsgs.allow(c.MemberID, now)
	case contract.LimitBoardPosts:
		return k.BoardPosts.allow(c.MemberID, now)
	}
	if anonymous {
		_, err := k.AnonReads.allow(c.IP, now)
		return nil, err
	}
	return nil, nil
}
