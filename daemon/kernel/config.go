package kernel

import (
	"time"

	"github.com/axp-exchange/axp"
)

// Config is the resolved configuration of the exchange. cmd fills it from defaults, the config file,
// AXP_* environment variables and flags; nothing in daemon reads the environment.
type Config struct {
	Addr    string
	DataDir string
	// Store is where the exchange's records live (key store): empty for the bbolt file in the data
	// dir, bolt:PATH for another file, or a postgres:// URL, which several daemons may share
	// (docs/decisions.md, "PostgreSQL"). The sealing key stays in the data dir either way.
	Store string
	// StoreNoMigrate refuses a database of another schema version instead of migrating it at
	// start (key store_migrate: false; then axp admin migrate applies migrations).
	StoreNoMigrate bool
	// StoreWait bounds how long axp serve waits at start for a store that cannot be reached (key
	// store_wait; zero: for ever), serving /healthz 200 and /readyz 503 meanwhile. A refused login
	// or schema ends the start at once.
	StoreWait time.Duration
	// LeaderEvery is how often a daemon on PostgreSQL tries to become the leader, and a leader
	// checks its connection (zero: 1 s).
	LeaderEvery time.Duration
	// BaseURL is the public address of the exchange; empty means http://<Addr>.
	BaseURL string
	// AdminToken, when set, is the operator's token; otherwise one is generated on first start.
	AdminToken string

	AnonTasksPerMinute     int
	RegistrationsPerHour   int
	OperatorMessagesPerDay int
	AnonReadsPerMinute     int
	// BoardPostsPerHour limits each member's board threads and replies (key board_posts_per_hour;
	// 0 turns it off).
	BoardPostsPerHour int

	QuoteWindow   time.Duration
	OpenWindow    time.Duration
	PaymentWindow time.Duration
	AutoRelease   time.Duration

	ContactWarnAt    int
	ContactSuspendAt int

	// MediationWindow is how long a mediation collects statements; when it ends the Mediator
	// decides without the missing one (key mediation_window; zero means the default, 24 h).
	MediationWindow time.Duration
	// The AI provider behind the Mediator, translation and the talk assistant: any
	// OpenAI-compatible chat-completions endpoint (keys ai_base_url, ai_api_key, ai_model).
	// Without a base URL and a model the built-in Mediator decides, the built-in assistant talks
	// and translation answers 503. The API key is a secret: it is logged
	// and recorded only as a fingerprint.
	AIBaseURL string
	AIAPIKey  string
	AIModel   string
	// AIPromptPrice and AICompletionPrice price a million prompt and completion tokens, for the cost
	// recorded with every AI call (keys ai_prompt_usd_per_mtok, ai_completion_usd_per_mtok).
	AIPromptPrice     axp.Money
	AICompletionPrice axp.Money
	// AITimeout bounds one AI call (key ai_timeout; zero means the default, 60 s).
	AITimeout time.Duration

	Fees axp.FeeSchedule

	// DepositAddress is the exchange's stablecoin address buyers pay to. Without it, a buyer who
	// chooses a paid offer gets 503 naming the setting (free jobs still run).
	DepositAddress string
	// Money on chain (docs/design.md section 12, keys chain_rpc_url, chain_id, token_address,
	// token_decimals, confirmations, chain_poll, chain_start_block). With ChainRPCURL set the exchange
	// checks the chain at start, verifies reported payments on it and finds payments itself (the
	// evm verifier and its watcher). ChainID and TokenAddress alone (no RPC URL) only name the
	// chain and token to buyers; the operator confirms payments.
	ChainRPCURL string
	// TestMode runs the exchange on its own test chain (axp serve --test-mode, key test_mode):
	// cmd starts the chain in the data dir and fills the chain settings and PayoutKeyFile from it.
	// Money here is not real, and every place that shows money says so.
	TestMode bool
	// TestChainListen is the test chain's JSON-RPC address (key test_chain_listen; default a free
	// loopback port).
	TestChainListen string
	// FaucetPerCaller and FaucetPerHour are test mode's faucet budgets for an hour: what one caller
	// (by client IP, and by member or buyer token when it gives one) and the whole exchange may be
	// given (keys faucet_usd_per_caller_hour, default US$5,000, and faucet_usd_per_hour, default
	// US$50,000; docs/decisions.md, "Test mode's faucet"). Each address also gets one gift every
	// 10 s and at most US$5,000 an hour.
	FaucetPerCaller axp.Money
	FaucetPerHour   axp.Money
	ChainID         uint64
	TokenAddress    string
	TokenDecimals   uint8
	Confirmations   uint64
	ChainPoll       time.Duration
	ChainStartBlock uint64
	// PayoutKeyFile holds the hot wallet's key (keystore JSON, decrypted with PayoutKeyPassphrase,
	// or hex in a file of mode 0600): with it, approved payouts, refunds and splits are sent by the
	// exchange (the evm payout rail). The key is never logged or stored in the database.
	PayoutKeyFile       string
	PayoutKeyPassphrase string
	// EscrowAddress and EscrowCollectorAddress name the escrow contract (an AuthCaptureEscrow) and
	// its ERC-3009 payment collector on the chain (keys escrow_address, escrow_collector_address;
	// test mode deploys its own). With both, a hot wallet and an EIP-3009 token, tasks may be paid
	// into the escrow (pay_escrow); the deposit address still takes plain transfers.
	EscrowAddress          string
	EscrowCollectorAddress string
	// Pay-per-call tools (docs/design.md section 13). X402FacilitatorURL names an outside x402
	// facilitator (/verify, /settle, /supported); without it the exchange settles payments itself
	// from the hot wallet. PaidPrices overrides tools' prices (key paid_prices: tool name -> USD).
	// TrialCallsPerDay free calls per caller and UTC day with ?trial=1 (key paid_trial_per_day).
	// X402MaxTimeout is the maxTimeoutSeconds offered to payers (key x402_max_timeout).
	// SearchURL is the SearxNG-compatible search backend of /paid/web/search (key search_url).
	X402FacilitatorURL string
	// PaidFetchLoopback lets /paid/web/contents fetch pages on the exchange's own machine (tests
	// and local development only; no configuration key).
	PaidFetchLoopback bool
	PaidPrices        map[string]axp.Money
	TrialCallsPerDay  int
	X402MaxTimeout    time.Duration
	SearchURL         string
	// Recorded data (docs/decisions.md, "Recorded data and proofs"). The market recorder polls
	// MarketSourceURL every MarketPoll for MarketCoins (MarketSource coingecko: the simple-price
	// API; jsonpath: MarketPaths maps each coin to a dotted path into the answer) and keeps
	// MarketRetention; the news recorder polls NewsFeeds (RSS/Atom) every NewsPoll, tags items with
	// NewsEntities ("Name=alias|alias") and keeps NewsRetention. Keys market_source_url,
	// market_source, market_coins, market_paths, market_poll, market_retention, news_feeds,
	// news_entities, news_poll, news_retention.
	MarketSourceURL string
	MarketSource    string
	MarketCoins     []string
	MarketPaths     map[string]string
	MarketPoll      time.Duration
	MarketRetention time.Duration
	NewsFeeds       []string
	NewsEntities    []string
	NewsPoll        time.Duration
	NewsRetention   time.Duration
	// Verifier checks reported crypto payments; nil means the manual verifier (the operator
	// confirms every payment).
	Verifier PaymentVerifier
	// SandboxWait bounds how long a sandbox job waits for the member's quote and delivery.
	SandboxWait time.Duration
	// SweepEvery is how often expiry and auto-release windows are checked.
	SweepEvery time.Duration

	MaxBodyBytes   int64
	TrustedProxies []string

	// ReadTimeout bounds reading a whole request, headers and body (key read_timeout): a client
	// that trickles its body, or promises more than it sends, is cut off.
	ReadTimeout time.Duration
	// WriteTimeout bounds a request from the end of its headers to the end of its answer (key
	// write_timeout; zero: the quote window plus a minute, since POST /api/tasks waits for it).
	WriteTimeout time.Duration
	// IdleTimeout closes a kept-alive connection with no request (key idle_timeout).
	IdleTimeout time.Duration
	// MaxConns caps the connections held at once (key max_conns; zero: three quarters of the
	// process's file descriptors). Beyond it a connection is answered 503 with Retry-After.
	MaxConns int
	// MaxConnsPerIP caps the connections of one client address (key max_conns_per_ip; 0: no cap).
	// Trusted proxies are exempt: their connections carry many clients.
	MaxConnsPerIP int
	LogRetention  time.Duration
	LogLevel      string

	// AllowedHosts are the host names (or host:port) the MCP and A2A doors answer besides loopback
	// addresses and the base URL's host: their DNS-rebinding protection. "*" allows any host.
	AllowedHosts []string

	// OutboundPrivate decides whether the exchange may call private addresses (key
	// outbound_private): "allow", or "deny" (also the zero value), which refuses 10/8, 172.16/12,
	// 192.168/16, 169.254/16, 100.64/10, 0/8, fc00::/7, fe80::/10 and :: for a task's callback_url
	// and a member's mcp_url, at dial time and, for IP literals, when the URL is given. Loopback is
	// refused too unless the exchange listens on loopback only (Kernel.DenyLoopback,
	// docs/decisions.md, "Outbound targets (SSRF)").
	OutboundPrivate string

	// MetricsToken, when set, opens GET /metrics (the Prometheus series) on the exchange's own
	// listener to a scraper sending it as Authorization: Bearer (key metrics_token); without it
	// /metrics is not served there (404). It is a secret, like the admin token.
	MetricsToken string
	// MetricsListen, when set, is a second address (e.g. 127.0.0.1:9464) serving only /metrics,
	// with no token: its reach is the operator's to limit (key metrics_listen).
	MetricsListen string

	// NoSync disables fsync on commit (benchmarks only).
	NoSync bool
	// Hooks are the test seams (nil: none).
	Hooks *Hooks
	// Now is the clock (tests); nil means time.Now.
	Now func() time.Time
}

// The test mode faucet's default budgets for an hour.
const (
	DefaultFaucetPerCaller = axp.Money(5_000_000_000)  // US$5,000 per caller
	DefaultFaucetPerHour   = axp.Money(50_000_000_000) // US$50,000 for the whole exchange
)

// Defaults returns the defaults of docs/design.md section 8.
func Defaults() Config {
	return Config{
		Addr:                   "127.0.0.1:8420",
		AnonTasksPerMinute:     20,
		RegistrationsPerHour:   5,
		OperatorMessagesPerDay: 10,
		AnonReadsPerMinute:     600,
		BoardPostsPerHour:      20,
		QuoteWindow:            10 * time.Second,
		OpenWindow:             24 * time.Hour,
		PaymentWindow:          24 * time.Hour,
		AutoRelease:            72 * time.Hour,
		ContactWarnAt:          3,
		ContactSuspendAt:       5,
		FaucetPerCaller:        DefaultFaucetPerCaller,
		FaucetPerHour:          DefaultFaucetPerHour,
		Fees:                   axp.LaunchPromotion(),
		MaxBodyBytes:           1 << 20,
		ReadTimeout:            30 * time.Second,
		IdleTimeout:            60 * time.Second,
		MaxConnsPerIP:          DefaultMaxConnsPerIP,
		LogRetention:           90 * 24 * time.Hour,
		LogLevel:               "info",
		SweepEvery:             30 * time.Second,
		SandboxWait:            5 * time.Minute,
		OutboundPrivate:        "deny",
		Confirmations:          DefaultConfirmations,
		TrialCallsPerDay:       axp.TrialCallsPerDay,
		X402MaxTimeout:         5 * time.Minute,
		ChainPoll:              DefaultChainPoll,
		MarketSource:           "coingecko",
		MarketCoins:            []string{"bitcoin", "ethereum"},
		MarketPoll:             time.Minute,
		MarketRetention:        60 * 24 * time.Hour,
		NewsPoll:               5 * time.Minute,
		NewsRetention:          60 * 24 * time.Hour,
	}
}

// Defaults of the trust-and-safety keys, applied where the configured value is zero.
const (
	DefaultMediationWindow = 24 * time.Hour
	DefaultAITimeout       = 60 * time.Second
	DefaultConfirmations   = 3
	DefaultChainPoll       = 5 * time.Second
)
