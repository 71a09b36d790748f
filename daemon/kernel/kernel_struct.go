package kernel

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"github.com/axp-exchange/axp"
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
	Started                                                       time.Time
	AdminHash                                                     [32]byte
	AnonTasks, Registrations, OperatorMsgs, AnonReads, BoardPosts *Limiter
	SeenMu                                                        sync.Mutex
	Seen                                                          map[string]time.Time // member id -> last time LastSeenAt was written
	CacheMu                                                       sync.Mutex
	Services                                                      *axp.ServiceList   // cached /api/services answer; reset when skills change
	ServicesAt                                                    time.Time          // when services was built
	Invite                                                        *protocol.AlsoSell // the also_sell invitation for the current base URL
	Offers                                                        OfferCache         // on_offer, until what verified sellers offer changes
	Pipe                                                          *pipeline.Pipeline
	Verifier                                                      PaymentVerifier
	// chain is the evm verifier's and the payout rail's chain (nil: manual); wallet the hot
	// wallet (nil: the operator sends payouts).
	Chain     *chain.Client
	ChainInfo axp.ChainInfo
	Wallet    *chain.Wallet
	Caller    *outbound.Caller
	Pusher    *outbound.Pusher
	// callTool calls a member's MCP tool (nil until the outbound path is wired).
	CallTool func(ctx context.Context, m *axp.Member, tool string, in, out any) error
	// quoteParallel caps the calls of one quote round under way at once (outbound.MaxParallel).
	QuoteParallel int
	// outbox sends a committed notice to a member or callback URL (nil: notices are dropped).
	Outbox func(ctx context.Context, n Notice)
	// events holds the subscribers of the typed events services emit (events.go).
	Events Subscribers
	// afterScan, when set (tests), runs between a sweeper's read of what is due and the write
	// transactions that act on it, so a test can change the state in between.
	AfterScan func(what string)
	// paidHook, when set (tests), runs at the stages of a paid call ("held", "settled"), so that a
	// test can stop one there as a crash would.
	PaidHook func(stage string)
	Stop     chan struct{}
	Bg       sync.WaitGroup
}
