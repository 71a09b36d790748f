package contract

import (
	"github.com/axp-exchange/axp"
)

// PaidMarketAsOf declares paid_market_as_of, GET /paid/market/as-of.
var PaidMarketAsOf = Define[axp.MarketAsOfQuery, axp.MarketAsOf](Op{Name: "paid_market_as_of", Method: get, Path: "/paid/market/as-of", Tag: "paid", Access: Paid, Category: "market", Price: 10_000, Needs: "market_source_url", Summary: "Prices as the exchange recorded them at or before as_of, each with its own time (up to 5 coins; series=1: the per-minute series of one coin, up to 6 hours); never anything recorded later."},
	&axp.MarketAsOfQuery{AsOf: "2026-10-10T00:00:00Z", Coins: "bitcoin", Series: true, Hours: 2})

// PaidMarketBrief declares paid_market_brief, GET /paid/market/brief.
var PaidMarketBrief = Define[axp.MarketBriefQuery, axp.MarketBrief](Op{Name: "paid_market_brief", Method: get, Path: "/paid/market/brief", Tag: "paid", Access: Paid, Category: "market", Price: 5_000, Needs: "market_source_url", Summary: "24-hour change, high, low and top movers computed from the exchange's recorded prices, with the time it was computed at."},
	&axp.MarketBriefQuery{Coins: "bitcoin"})

// PaidNewsAsOf declares paid_news_as_of, GET /paid/news/as-of.
var PaidNewsAsOf = Define[axp.NewsAsOfQuery, axp.NewsAsOf](Op{Name: "paid_news_as_of", Method: get, Path: "/paid/news/as-of", Tag: "paid", Access: Paid, Category: "news", Price: 10_000, Needs: "news_feeds", Summary: "News naming an entity that the exchange first saw at or before as_of, newest first, each with its proof id."},
	&axp.NewsAsOfQuery{Entity: "Bitcoin", AsOf: "2026-10-10T00:00:00Z", Limit: 5})

// PaidMarketProof declares paid_market_proof, GET /paid/market/proof.
var PaidMarketProof = Define[axp.ProofQuery, axp.Proof](Op{Name: "paid_market_proof", Method: get, Path: "/paid/market/proof", Tag: "paid", Access: Paid, Category: "market", Price: 2_000, Needs: "market_source_url", Summary: "Inclusion proof of a recorded price (its proof_id in market/as-of): the item, its hash, the path to its batch's root and the chained root (check it offline with axp verify-proof)."},
	&axp.ProofQuery{ID: "px:bitcoin@1"})

// PaidNewsProof declares paid_news_proof, GET /paid/news/proof.
var PaidNewsProof = Define[axp.ProofQuery, axp.Proof](Op{Name: "paid_news_proof", Method: get, Path: "/paid/news/proof", Tag: "paid", Access: Paid, Category: "news", Price: 2_000, Needs: "news_feeds", Summary: "Inclusion proof of a recorded news item: the item, its hash, the path to its batch's root and the chained root (check it offline with axp verify-proof)."},
	&axp.ProofQuery{ID: "nws_x"})

// PaidTrackrecordTop declares paid_trackrecord_top, GET /paid/trackrecord/top.
var PaidTrackrecordTop = Define[axp.TrackRecordTopQuery, axp.TrackRecordTop](Op{Name: "paid_trackrecord_top", Method: get, Path: "/paid/trackrecord/top", Tag: "paid", Access: Paid, Category: "trading", Price: 20_000, Needs: "market_source_url", Summary: "The top strategies of a market over a window, scored against recorded prices, with their signals."},
	&axp.TrackRecordTopQuery{Market: "bitcoin", Window: "7d", Limit: 5})

// PaidTrackrecordVerify declares paid_trackrecord_verify, GET /paid/trackrecord/verify.
var PaidTrackrecordVerify = Define[axp.ProofQuery, axp.SignalVerification](Op{Name: "paid_trackrecord_verify", Method: get, Path: "/paid/trackrecord/verify", Tag: "paid", Access: Paid, Category: "trading", Price: 5_000, Needs: "market_source_url", Summary: "Prove a strategy signal existed before the move it claims: its chained proof and the first price recorded after it."},
	&axp.ProofQuery{ID: "sig_x"})

// GetStrategyLeaderboard declares get_strategy_leaderboard, GET /trackrecord.
var GetStrategyLeaderboard = Define[axp.TrackRecordQuery, axp.TrackRecordBoard](Op{Name: "get_strategy_leaderboard", Method: get, Path: "/trackrecord", Tag: "paid", Access: Public, Tool: "get_strategy_leaderboard", Summary: "Strategy track-record leaderboard (free): members' published signals scored against recorded prices."},
	&axp.TrackRecordQuery{Market: "bitcoin", Window: "7d"})

// PublishSignal declares publish_signal, POST /api/members/me/signals.
var PublishSignal = Define[axp.PublishSignalInput, axp.Signal](Op{Name: "publish_signal", Method: post, Path: "/api/members/me/signals", Tag: "paid", Access: MemberAuth, Status: created, Tool: "publish_signal", Summary: "Publish a strategy signal (market, side, entry, stop, target, horizon): recorded and chained at once, scored against recorded prices when its horizon passes."},
	&axp.PublishSignalInput{Strategy: "s", Market: "bitcoin", Side: "long", Entry: "100", Stop: "95", Target: "110", Horizon: "4h"})

// GetBacktestSample declares get_backtest_sample, GET /backtest/sample.json.
var GetBacktestSample = Define[NoInput, axp.BacktestSample](Op{Name: "get_backtest_sample", Method: get, Path: "/backtest/sample.json", Tag: "paid", Access: Public, Summary: "A small backtest of a documented reference strategy over the exchange's recorded prices (free), regenerated daily."},
	nil)

// GetLatestProof declares get_latest_proof, GET /proofs/latest.
var GetLatestProof = Define[NoInput, axp.ProofHead](Op{Name: "get_latest_proof", Method: get, Path: "/proofs/latest", Tag: "paid", Access: Public, Summary: "The newest entry of the exchange's hash chain of recorded data (free): copy it elsewhere to hold the exchange to its history."},
	nil)

// ListProofChain declares list_proof_chain, GET /proofs/chain.
var ListProofChain = Define[axp.ProofChainQuery, axp.ProofChain](Op{Name: "list_proof_chain", Method: get, Path: "/proofs/chain", Tag: "paid", Access: Public, Summary: "The hash chain of recorded data, oldest first (free): every link recomputes from its entry."},
	&axp.ProofChainQuery{Limit: 5})
