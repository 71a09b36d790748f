package axp

import "time"

// Recorded data (spec 4.6, issue "recorded data with proofs"): prices and news the exchange
// recorded itself, strategy signals members published, and the answers built from them. An
// answer "as of T" holds only what was recorded at or before T. Every recorded item is chained
// (proof.go).

// Limits of the recorded-data tools.
const (
	AsOfMaxCoins       = 5
	SeriesMaxHours     = 6
	NewsAsOfMaxLimit   = 50
	NewsAsOfDefault    = 20
	SignalMaxHorizon   = 30 * 24 * time.Hour
	SignalMinHorizon   = 5 * time.Minute
	TrackRecordMaxDays = 90
)

// Kinds of chain entries.
const (
	ChainMarket = "market"
	ChainNews   = "news"
	ChainSignal = "signal"
)

// PriceItem is one recorded price: the item hashed into the chain. Price is a decimal string.
type PriceItem struct {
	Kind       string    `json:"kind"` // "price"
	Coin       string    `json:"coin"`
	Currency   string    `json:"currency"` // "usd"
	Price      string    `json:"price"`
	RecordedAt time.Time `json:"recorded_at"`
}

// NewsItem is one recorded news item: the item hashed into the chain.
type NewsItem struct {
	Kind        string     `json:"kind"` // "news"
	ID          string     `json:"id"`
	Feed        string     `json:"feed" doc:"the feed's URL"`
	GUID        string     `json:"guid,omitempty"`
	Link        string     `json:"link,omitempty"`
	Title       string     `json:"title"`
	Summary     string     `json:"summary,omitempty" doc:"the item's description as plain text, cut at 1,000 characters"`
	PublishedAt *time.Time `json:"published_at,omitempty" doc:"what the feed says; the exchange's own time is first_seen"`
	FirstSeen   time.Time  `json:"first_seen" doc:"when the exchange first recorded the item"`
	Entities    []string   `json:"entities" doc:"the configured entities the title or summary names"`
	ContentHash string     `json:"content_hash" doc:"hex SHA-256 of title, a newline and summary"`
}

// SignalItem is a strategy signal as published and chained: what a member claimed, and when.
type SignalItem struct {
	Kind        string    `json:"kind"` // "signal"
	ID          string    `json:"id"`
	Member      string    `json:"member"`
	Strategy    string    `json:"strategy"`
	Market      string    `json:"market"`
	Side        string    `json:"side"`
	Entry       string    `json:"entry"`
	Stop        string    `json:"stop"`
	Target      string    `json:"target"`
	Horizon     string    `json:"horizon"`
	PublishedAt time.Time `json:"published_at"`
	Due         time.Time `json:"due" doc:"published_at plus the horizon: when the signal is scored"`
}

// Signal outcomes.
const (
	OutcomeOpen    = "open"    // the horizon has not passed
	OutcomeTarget  = "target"  // the target was reached first
	OutcomeStop    = "stop"    // the stop was reached first
	OutcomeExpired = "expired" // neither within the horizon: closed at the last price
	OutcomeNoData  = "no_data" // no recorded price in the horizon: not counted
)

// Signal is a published signal with its score once its horizon has passed.
type Signal struct {
	SignalItem
	Outcome   string     `json:"outcome" schema:"enum=open|target|stop|expired|no_data"`
	ExitPrice Decimal    `json:"exit_price,omitempty"`
	ExitAt    *time.Time `json:"exit_at,omitempty" doc:"the recorded time of the price the signal closed at"`
	ReturnPct Decimal    `json:"return_pct,omitempty" doc:"(exit - entry) / entry x 100, negated for a short; 4 decimals"`
	Drawdown  Decimal    `json:"drawdown_pct,omitempty" doc:"the worst move against the signal before it closed, in percent of entry (0 or negative); 4 decimals"`
	ScoredAt  *time.Time `json:"scored_at,omitempty"`
	Seq       int64      `json:"chain_seq"`
	ProofURL  string     `json:"proof_url,omitempty"`
}

// PublishSignalInput is the body of POST /api/members/me/signals.
type PublishSignalInput struct {
	Strategy string  `json:"strategy" schema:"required;minLength=1;maxLength=60;pattern=^[A-Za-z0-9][A-Za-z0-9 ._-]*$" doc:"the strategy's name; a member's signals of one name form its track record"`
	Market   string  `json:"market" schema:"required;minLength=1;maxLength=60" doc:"the coin, one of the exchange's market_coins"`
	Side     string  `json:"side" schema:"required;enum=long|short"`
	Entry    Decimal `json:"entry" schema:"required;exclusiveMin=0;max=1000000000000;decimals=10"`
	Stop     Decimal `json:"stop" schema:"required;exclusiveMin=0;max=1000000000000;decimals=10" doc:"below entry for a long, above for a short"`
	Target   Decimal `json:"target" schema:"required;exclusiveMin=0;max=1000000000000;decimals=10" doc:"above entry for a long, below for a short"`
	Horizon  string  `json:"horizon" schema:"required;maxLength=10" doc:"how long the signal runs: a duration such as 90m, 4h or 7d, from 5m to 30d"`
}

// MarketAsOfQuery is the input of GET /paid/market/as-of.
type MarketAsOfQuery struct {
	AsOf   string `json:"as_of" schema:"required;maxLength=40" doc:"RFC 3339 time, e.g. 2026-10-20T12:00:00Z; not in the future nor before retention"`
	Coins  string `json:"coins" schema:"required;maxLength=400" doc:"comma-separated coins, up to 5 (one with series)"`
	Series bool   `json:"series,omitempty" doc:"1: also the per-minute series of one coin ending at as_of"`
	Hours  int    `json:"hours,omitempty" schema:"min=1;max=6" doc:"hours of the series, 1 to 6 (default 6)"`
}

// RecordedPrice is a recorded price with its own time.
type RecordedPrice struct {
	Coin       string    `json:"coin"`
	Price      Decimal   `json:"price" doc:"US dollars"`
	RecordedAt time.Time `json:"recorded_at"`
	AgeSeconds int64     `json:"age_seconds" doc:"as_of minus recorded_at"`
	ProofID    string    `json:"proof_id,omitempty" doc:"the recorded price's id in the hash chain"`
	ProofURL   string    `json:"proof_url,omitempty" doc:"where its inclusion proof is (paid)"`
}

// SeriesPoint is a minute of a series: the last price recorded in it.
type SeriesPoint struct {
	Minute     time.Time `json:"minute"`
	Price      Decimal   `json:"price"`
	RecordedAt time.Time `json:"recorded_at"`
}

// MarketAsOf is the answer of GET /paid/market/as-of.
type MarketAsOf struct {
	AsOf    time.Time       `json:"as_of"`
	Prices  []RecordedPrice `json:"prices" doc:"per coin asked, the last price recorded at or before as_of"`
	Missing []string        `json:"missing" doc:"coins asked with no price recorded at or before as_of within retention"`
	Series  []SeriesPoint   `json:"series,omitempty" doc:"with series=1: one point per minute that has a recorded price, oldest first; minutes without one are gaps"`
	Gaps    int             `json:"gaps,omitempty" doc:"minutes of the series without a recorded price (never filled in)"`
	Source  string          `json:"source"`
}

// NewsAsOfQuery is the input of GET /paid/news/as-of.
type NewsAsOfQuery struct {
	Entity string `json:"entity" schema:"required;minLength=1;maxLength=100" doc:"one of the configured news entities (or an alias)"`
	AsOf   string `json:"as_of" schema:"required;maxLength=40" doc:"RFC 3339 time"`
	Limit  int    `json:"limit,omitempty" schema:"min=1;max=50" doc:"items, default 20"`
}

// RecordedNews is a news item in an answer, with where its proof is.
type RecordedNews struct {
	NewsItem
	ProofID  string `json:"proof_id"`
	ProofURL string `json:"proof_url"`
}

// NewsAsOf is the answer of GET /paid/news/as-of: newest first.
type NewsAsOf struct {
	Entity string         `json:"entity"`
	AsOf   time.Time      `json:"as_of"`
	Items  []RecordedNews `json:"items"`
}

// ProofQuery names a recorded item.
type ProofQuery struct {
	ID string `json:"id" schema:"required;minLength=1;maxLength=80"`
}

// MarketBriefQuery is the input of GET /paid/market/brief.
type MarketBriefQuery struct {
	Coins string `json:"coins,omitempty" schema:"maxLength=400" doc:"comma-separated coins; default every recorded coin"`
}

// CoinBrief is one coin's last 24 hours.
type CoinBrief struct {
	Coin      string    `json:"coin"`
	Last      Decimal   `json:"last"`
	LastAt    time.Time `json:"last_at"`
	Open      Decimal   `json:"open" doc:"the first price recorded in the 24 hours"`
	OpenAt    time.Time `json:"open_at"`
	High      Decimal   `json:"high"`
	Low       Decimal   `json:"low"`
	ChangePct Decimal   `json:"change_pct" doc:"(last - open) / open x 100, 4 decimals"`
	Points    int       `json:"points" doc:"prices recorded in the 24 hours"`
}

// MarketBrief is the answer of GET /paid/market/brief.
type MarketBrief struct {
	ComputedAt time.Time   `json:"computed_at" doc:"the as-of time of the brief: nothing recorded after it is used"`
	From       time.Time   `json:"from"`
	Coins      []CoinBrief `json:"coins"`
	TopMovers  []string    `json:"top_movers" doc:"coins by absolute change, largest first (up to 3)"`
	Missing    []string    `json:"missing,omitempty"`
}

// TrackRecordQuery filters the leaderboard.
type TrackRecordQuery struct {
	Market string `json:"market,omitempty" schema:"maxLength=60"`
	Window string `json:"window,omitempty" schema:"maxLength=4" doc:"days back from now, e.g. 7d (1d to 90d; default 30d)"`
}

// StrategyStats is one strategy's track record over a window.
type StrategyStats struct {
	Rank        int     `json:"rank"`
	Member      string  `json:"member"`
	Strategy    string  `json:"strategy"`
	Signals     int     `json:"signals" doc:"signals scored in the window (no_data excluded)"`
	Open        int     `json:"open" doc:"signals published in the window whose horizon has not passed"`
	Hits        int     `json:"hits" doc:"signals that reached their target"`
	HitRate     Decimal `json:"hit_rate_pct" doc:"hits / signals x 100, 2 decimals"`
	AvgReturn   Decimal `json:"avg_return_pct" doc:"mean return per signal in percent, 4 decimals"`
	TotalReturn Decimal `json:"total_return_pct" doc:"sum of returns in percent, 4 decimals"`
	MaxDrawdown Decimal `json:"max_drawdown_pct" doc:"largest fall of the cumulative return from a peak, in percent points (0 or negative), 4 decimals"`
}

// TrackRecordBoard is the leaderboard at GET /trackrecord.
type TrackRecordBoard struct {
	Window     string          `json:"window"`
	Market     string          `json:"market,omitempty"`
	ComputedAt time.Time       `json:"computed_at"`
	Ranking    string          `json:"ranking" doc:"how strategies are ranked"`
	Strategies []StrategyStats `json:"strategies"`
}

// TrackRecordTopQuery is the input of GET /paid/trackrecord/top.
type TrackRecordTopQuery struct {
	Market string `json:"market" schema:"required;minLength=1;maxLength=60"`
	Window string `json:"window,omitempty" schema:"maxLength=4" doc:"e.g. 7d (1d to 90d; default 7d)"`
	Limit  int    `json:"limit,omitempty" schema:"min=1;max=20" doc:"strategies, default 10"`
}

// StrategyDetail is a strategy with its signals in the window.
type StrategyDetail struct {
	StrategyStats
	Recent []Signal `json:"signals" doc:"its signals in the window, newest first (up to 50)"`
}

// TrackRecordTop is the answer of GET /paid/trackrecord/top.
type TrackRecordTop struct {
	Market     string           `json:"market"`
	Window     string           `json:"window"`
	ComputedAt time.Time        `json:"computed_at"`
	Ranking    string           `json:"ranking"`
	Strategies []StrategyDetail `json:"strategies"`
}

// SignalVerification proves a signal existed before the move it claims.
type SignalVerification struct {
	Signal Signal `json:"signal"`
	Proof  Proof  `json:"proof"`
	// FirstPriceAfter is the first price of the market recorded after the signal was chained.
	FirstPriceAfter *RecordedPrice `json:"first_price_after,omitempty"`
	Verdict         string         `json:"verdict" doc:"what the proof and the recorded prices show"`
}

// ProofHead is the chain's newest entry, free at GET /proofs/latest.
type ProofHead struct {
	Head      *ChainEntry `json:"head" doc:"null while nothing is recorded"`
	Algorithm string      `json:"algorithm"`
	ChainURL  string      `json:"chain_url"`
}

// ProofChainQuery pages the chain.
type ProofChainQuery struct {
	After int64 `json:"after,omitempty" schema:"min=0" doc:"entries after this seq"`
	Limit int   `json:"limit,omitempty" schema:"min=1;max=1000" doc:"default 500"`
}

// ProofChain is a page of the chain, oldest first.
type ProofChain struct {
	Entries []ChainEntry `json:"entries"`
	Next    int64        `json:"next,omitempty" doc:"the after of the next page; absent at the end"`
}

// BacktestTrade is one round trip of the reference strategy.
type BacktestTrade struct {
	EntryAt    time.Time `json:"entry_at"`
	EntryPrice Decimal   `json:"entry_price"`
	ExitAt     time.Time `json:"exit_at"`
	ExitPrice  Decimal   `json:"exit_price"`
	ReturnPct  Decimal   `json:"return_pct"`
	Open       bool      `json:"open,omitempty" doc:"still held at the end: marked at the last price"`
}

// BacktestSample is GET /backtest/sample.json.
type BacktestSample struct {
	Strategy    string          `json:"strategy"`
	Rules       string          `json:"rules"`
	Coin        string          `json:"coin"`
	From        time.Time       `json:"from,omitzero"`
	Until       time.Time       `json:"until,omitzero"`
	Bars        int             `json:"bars" doc:"hourly closes used (the last price recorded in each hour)"`
	Trades      []BacktestTrade `json:"trades"`
	TotalReturn Decimal         `json:"total_return_pct" doc:"compounded, 4 decimals"`
	BuyAndHold  Decimal         `json:"buy_and_hold_pct,omitempty"`
	HitRate     Decimal         `json:"hit_rate_pct,omitempty"`
	MaxDrawdown Decimal         `json:"max_drawdown_pct" doc:"of the strategy's equity, 4 decimals"`
	GeneratedAt time.Time       `json:"generated_at"`
	NextAt      time.Time       `json:"next_at" doc:"when it is regenerated"`
	Note        string          `json:"note,omitempty"`
}

// The recorded-data operations.
