package recorded

import (
	"context"
	"fmt"
	"math/big"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/axp-exchange/axp"
	"github.com/axp-exchange/axp/contract"
	"github.com/axp-exchange/axp/daemon/kernel"
	"github.com/axp-exchange/axp/daemon/pipeline"
	"github.com/axp-exchange/axp/daemon/record"
	"github.com/axp-exchange/axp/store"
)

// Register binds the operations of the recorded service to their handlers.
func (s *Service) Register(r *pipeline.Registry) {
	pipeline.Precheck(r, contract.PaidMarketAsOf, func(in *axp.MarketAsOfQuery) error { _, _, _, err := s.marketQuery(in); return err })
	pipeline.Handle(r, contract.PaidMarketAsOf, s.paidMarketAsOf)
	pipeline.Precheck(r, contract.PaidMarketBrief, func(in *axp.MarketBriefQuery) error { return s.needs("paid_market_brief") })
	pipeline.Handle(r, contract.PaidMarketBrief, s.paidMarketBrief)
	pipeline.Precheck(r, contract.PaidNewsAsOf, func(in *axp.NewsAsOfQuery) error { _, _, err := s.newsQuery(in); return err })
	pipeline.Handle(r, contract.PaidNewsAsOf, s.paidNewsAsOf)
	s.handleProof(r, contract.PaidMarketProof, "px:", "recorded price")
	s.handleProof(r, contract.PaidNewsProof, "nws_", "news item")
	pipeline.Precheck(r, contract.PaidTrackrecordTop, s.checkTrackRecordTop)
	pipeline.Handle(r, contract.PaidTrackrecordTop, s.paidTrackRecordTop)
	pipeline.Precheck(r, contract.PaidTrackrecordVerify, s.checkTrackRecordVerify)
	pipeline.Handle(r, contract.PaidTrackrecordVerify, s.paidTrackRecordVerify)
	pipeline.Handle(r, contract.GetStrategyLeaderboard, s.getStrategyLeaderboard)
	pipeline.Precheck(r, contract.PublishSignal, s.checkSignal)
	pipeline.Handle(r, contract.PublishSignal, s.publishSignal)
	pipeline.HandleNoInput(r, contract.GetBacktestSample, s.getBacktestSample)
	pipeline.HandleNoInput(r, contract.GetLatestProof, s.getLatestProof)
	pipeline.Handle(r, contract.ListProofChain, s.listProofChain)
}

// Recorders are the market and news recorders (docs/decisions.md, "Recorded data and proofs"):
// each poll fetches outside any transaction, then records its batch and chain entry in one.
type Recorders struct {
	source  *record.PriceSource // nil: no market_source_url
	matcher *record.Matcher
	feeds   []string
	httpc   *http.Client

	mu     sync.Mutex
	sample *axp.BacktestSample // the cached backtest, regenerated daily
}

func (s *Service) SetupRecorders() error {
	cfg := *s.base.Cfg()
	r := &Recorders{feeds: cfg.NewsFeeds, httpc: s.caller.HTTPClient(20 * time.Second)}
	if cfg.MarketSourceURL != "" {
		src, err := record.NewPriceSource(cfg.MarketSource, cfg.MarketSourceURL, cfg.MarketCoins, cfg.MarketPaths, r.httpc)
		if err != nil {
			return err
		}
		r.source = src
	}
	m, err := record.NewMatcher(cfg.NewsEntities)
	if err != nil {
		return err
	}
	r.matcher = m
	s.rec = r
	return nil
}

func durationOr(v, def time.Duration) time.Duration {
	if v <= 0 {
		return def
	}
	return v
}

func (s *Service) marketRetention() time.Duration {
	return durationOr(s.base.Cfg().MarketRetention, kernel.Defaults().MarketRetention)
}

func (s *Service) newsRetention() time.Duration {
	return durationOr(s.base.Cfg().NewsRetention, kernel.Defaults().NewsRetention)
}

// RecordLoop polls the configured sources (the first poll one period after start), scores due
// signals and prunes past retention.
func (s *Service) RecordLoop() {
	defer s.base.Bg.Done()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		select {
		case <-s.base.Stop:
			cancel()
		case <-ctx.Done():
		}
	}()
	var market, news <-chan time.Time
	if s.rec.source != nil {
		t := time.NewTicker(durationOr(s.base.Cfg().MarketPoll, time.Minute))
		defer t.Stop()
		market = t.C
	}
	if len(s.rec.feeds) > 0 {
		t := time.NewTicker(durationOr(s.base.Cfg().NewsPoll, kernel.Defaults().NewsPoll))
		defer t.Stop()
		news = t.C
	}
	prune := time.NewTicker(time.Hour)
	defer prune.Stop()
	// Only the leader records, so that daemons sharing a store record each poll once.
	for {
		select {
		case <-s.base.Stop:
			return
		case <-market:
			if s.base.Leading() {
				s.RecordMarket(ctx)
				s.ScoreSignals()
			}
		case <-news:
			if s.base.Leading() {
				s.RecordNews(ctx)
			}
		case <-prune.C:
			if s.base.Leading() {
				s.PruneRecorded()
				s.ScoreSignals()
			}
		}
	}
}

// RecordMarket records one poll of the price source as one batch; a failed poll leaves a gap.
func (s *Service) RecordMarket(ctx context.Context) (*axp.ChainEntry, error) {
	prices, err := s.rec.source.Fetch(ctx)
	if err != nil {
		s.base.Log.Warn("price source poll failed: the minute stays a gap", "source", "record", "err", err)
		return nil, err
	}
	now := s.base.Now()
	var e *axp.ChainEntry
	err = s.base.Store.Update(func(tx *store.Tx) error {
		var err error
		e, err = tx.RecordPrices(now, prices)
		return err
	})
	if err != nil {
		s.base.Log.Warn("recording prices failed", "source", "record", "err", err)
	}
	return e, err
}

// RecordNews polls every feed and records the items not seen before as one batch.
func (s *Service) RecordNews(ctx context.Context) (int, error) {
	type fetched struct {
		url  string
		feed *record.Feed
	}
	var got []fetched
	for _, u := range s.rec.feeds {
		f, err := record.FetchFeed(ctx, s.rec.httpc, u)
		if err != nil {
			s.base.Log.Warn("feed poll failed", "source", "record", "feed", u, "err", err)
			continue
		}
		got = append(got, fetched{u, f})
	}
	now := s.base.Now()
	var items []axp.NewsItem
	for _, f := range got {
		items = append(items, record.NewsItems(f.url, f.feed, s.rec.matcher, now)...)
	}
	if len(items) == 0 {
		return 0, nil
	}
	var fresh []axp.NewsItem
	err := s.base.Store.Update(func(tx *store.Tx) error {
		var err error
		_, fresh, err = tx.RecordNews(now, items)
		return err
	})
	if err != nil {
		s.base.Log.Warn("recording news failed", "source", "record", "err", err)
	}
	return len(fresh), err
}

// ScoreSignals scores the signals whose horizon has passed against the prices recorded from their
// publication to their due time; it returns how many it scored.
func (s *Service) ScoreSignals() int {
	now := s.base.Now()
	var due []axp.Signal
	if err := s.base.Store.View(func(tx *store.Tx) error {
		var err error
		due, err = tx.DueSignals(now, 200)
		return err
	}); err != nil {
		s.base.Log.Warn("reading due signals failed", "source", "record", "err", err)
		return 0
	}
	n := 0
	for _, sig := range due {
		err := s.base.Store.Update(func(tx *store.Tx) error {
			var pts []record.Point
			err := tx.PricesBetween(sig.Market, sig.PublishedAt.Add(time.Millisecond), sig.Due, func(p store.Price) bool {
				r, _ := new(big.Rat).SetString(p.Price)
				pts = append(pts, record.Point{At: p.RecordedAt, Price: r})
				return true
			})
			if err != nil {
				return err
			}
			record.Score(&sig, pts, now)
			return tx.ScoreSignal(&sig)
		})
		if err != nil {
			s.base.Log.Warn("scoring a signal failed", "source", "record", "signal", sig.ID, "err", err)
			continue
		}
		n++
	}
	return n
}

// PruneRecorded deletes prices and news past their retention; the chain's entries stay.
func (s *Service) PruneRecorded() {
	now := s.base.Now()
	var prices, news int
	err := s.base.Store.Update(func(tx *store.Tx) error {
		var err error
		if prices, err = tx.PrunePrices(now.Add(-s.marketRetention())); err != nil {
			return err
		}
		news, err = tx.PruneNews(now.Add(-s.newsRetention()))
		return err
	})
	if err != nil {
		s.base.Log.Warn("pruning recorded data failed", "source", "record", "err", err)
	} else if prices+news > 0 {
		s.base.Log.Info("pruned recorded data past retention", "source", "record", "prices", prices, "news", news)
	}
}

// RecordedUnavailable says why a recorded-data tool cannot answer, naming the setting, or "".
func (s *Service) RecordedUnavailable(needs string) string {
	switch needs {
	case "market_source_url":
		if s.rec.source == nil {
			return "needs a price source: set market_source_url (and market_coins; market_source coingecko or jsonpath)"
		}
	case "news_feeds":
		if len(s.rec.feeds) == 0 {
			return "needs news feeds: set news_feeds (RSS or Atom URLs) and news_entities"
		}
	}
	return ""
}

// needs refuses a call of a tool whose data source is not configured (503 naming the setting),
// before anything is paid.
func (s *Service) needs(op string) error {
	o := contract.Lookup(op)
	if why := s.RecordedUnavailable(o.Needs); why != "" {
		return axp.Errorf(axp.CodeUnavailable, "%s is unavailable on this exchange: it %s", o.Path, why).
			WithHint("nothing was charged; GET /paid lists what is available")
	}
	return nil
}

// asOf reads an as_of time: RFC 3339, not in the future, not before retention.
func (s *Service) asOf(str string, retention time.Duration) (time.Time, error) {
	t, err := time.Parse(time.RFC3339Nano, strings.TrimSpace(str))
	if err != nil {
		return t, axp.Invalid("as_of", fmt.Sprintf("%q is not an RFC 3339 time", clipText(str)), "e.g. 2026-10-20T12:00:00Z")
	}
	now := s.base.Now()
	if t.After(now) {
		return t, axp.Invalid("as_of", "is in the future (it is "+now.Format(time.RFC3339)+" here)", "ask about a time that has passed")
	}
	if from := now.Add(-retention); t.Before(from) {
		return t, axp.Invalid("as_of", fmt.Sprintf("is before the recorded data kept: %d days, from %s", int(retention.Hours()/24), from.Format(time.RFC3339)), "")
	}
	return t.UTC(), nil
}

func clipText(s string) string {
	if r := []rune(s); len(r) > 40 {
		return string(r[:37]) + "..."
	}
	return s
}

// coinsOf reads a comma list of configured coins (all of them when empty and allowEmpty).
func (s *Service) coinsOf(str string, allowEmpty bool) ([]string, error) {
	var out []string
	for _, c := range strings.Split(str, ",") {
		if c = strings.ToLower(strings.TrimSpace(c)); c != "" && !slices.Contains(out, c) {
			out = append(out, c)
		}
	}
	known := s.rec.source.Coins()
	if len(out) == 0 {
		if allowEmpty {
			return slices.Clone(known), nil
		}
		return nil, axp.Invalid("coins", "names no coin", "e.g. coins=bitcoin,ethereum")
	}
	if len(out) > axp.AsOfMaxCoins {
		return nil, axp.Invalid("coins", fmt.Sprintf("names %d coins; at most %d are answered at once (beyond: %s)", len(out), axp.AsOfMaxCoins,
			strings.Join(out[axp.AsOfMaxCoins:], ",")), "split the coins over several calls")
	}
	for _, c := range out {
		if !slices.Contains(known, c) {
			return nil, axp.Invalid("coins", fmt.Sprintf("%q is not recorded here; recorded coins: %s", clipText(c), strings.Join(known, ", ")), "")
		}
	}
	return out, nil
}

// marketQuery checks the input of market/as-of.
func (s *Service) marketQuery(in *axp.MarketAsOfQuery) (time.Time, []string, int, error) {
	if err := s.needs("paid_market_as_of"); err != nil {
		return time.Time{}, nil, 0, err
	}
	at, err := s.asOf(in.AsOf, s.marketRetention())
	if err != nil {
		return at, nil, 0, err
	}
	coins, err := s.coinsOf(in.Coins, false)
	if err != nil {
		return at, nil, 0, err
	}
	hours := in.Hours
	if hours == 0 {
		hours = axp.SeriesMaxHours
	}
	if hours < 1 || hours > axp.SeriesMaxHours {
		return at, nil, 0, axp.Invalid("hours", fmt.Sprintf("is %d; a series covers 1 to %d hours", in.Hours, axp.SeriesMaxHours), "")
	}
	if in.Series && len(coins) != 1 {
		return at, nil, 0, axp.Invalid("coins", "names more than one coin with series=1: a series is of one coin", "ask one coin per series")
	}
	return at, coins, hours, nil
}

func (s *Service) paidMarketAsOf(ctx context.Context, c *pipeline.Call, in *axp.MarketAsOfQuery) (*axp.MarketAsOf, error) {
	at, coins, hours, err := s.marketQuery(in)
	if err != nil {
		return nil, err
	}
	notBefore := s.base.Now().Add(-s.marketRetention())
	out := &axp.MarketAsOf{AsOf: at, Prices: []axp.RecordedPrice{}, Missing: []string{}, Source: s.rec.source.Kind()}
	err = s.base.Store.View(func(tx *store.Tx) error {
		for _, coin := range coins {
			p, err := tx.PriceAsOf(coin, at, notBefore)
			if err != nil {
				return err
			}
			if p == nil {
				out.Missing = append(out.Missing, coin)
				continue
			}
			rp := s.recordedPrice(p)
			rp.AgeSeconds = int64(at.Sub(p.RecordedAt) / time.Second)
			out.Prices = append(out.Prices, rp)
		}
		if !in.Series {
			return nil
		}
		out.Series = []axp.SeriesPoint{}
		slots := hours * 60
		first := at.Truncate(time.Minute).Add(-time.Duration(slots-1) * time.Minute)
		if first.Before(notBefore) {
			first = notBefore
		}
		return tx.PricesBetween(coins[0], first, at, func(p store.Price) bool {
			m := p.RecordedAt.Truncate(time.Minute)
			pt := axp.SeriesPoint{Minute: m, Price: axp.Decimal(p.Price), RecordedAt: p.RecordedAt}
			if n := len(out.Series); n > 0 && out.Series[n-1].Minute.Equal(m) {
				out.Series[n-1] = pt
			} else {
				out.Series = append(out.Series, pt)
			}
			return true
		})
	})
	if in.Series {
		out.Gaps = hours*60 - len(out.Series)
	}
	return out, err
}

func (s *Service) paidMarketBrief(ctx context.Context, c *pipeline.Call, in *axp.MarketBriefQuery) (*axp.MarketBrief, error) {
	if err := s.needs("paid_market_brief"); err != nil {
		return nil, err
	}
	coins, err := s.coinsOf(in.Coins, true)
	if err != nil {
		return nil, err
	}
	now := s.base.Now().Truncate(time.Millisecond)
	out := &axp.MarketBrief{ComputedAt: now, From: now.Add(-24 * time.Hour), Coins: []axp.CoinBrief{}, TopMovers: []string{}}
	type mover struct {
		coin string
		abs  *big.Rat
	}
	var movers []mover
	err = s.base.Store.View(func(tx *store.Tx) error {
		for _, coin := range coins {
			var b axp.CoinBrief
			var open, last, high, low *big.Rat
			err := tx.PricesBetween(coin, out.From, now, func(p store.Price) bool {
				r, _ := new(big.Rat).SetString(p.Price)
				if open == nil {
					open, high, low = r, r, r
					b.Open, b.OpenAt = axp.Decimal(p.Price), p.RecordedAt
				}
				if r.Cmp(high) > 0 {
					high = r
				}
				if r.Cmp(low) < 0 {
					low = r
				}
				last = r
				b.Last, b.LastAt = axp.Decimal(p.Price), p.RecordedAt
				b.Points++
				return true
			})
			if err != nil {
				return err
			}
			if open == nil {
				out.Missing = append(out.Missing, coin)
				continue
			}
			b.Coin, b.High, b.Low = coin, axp.Decimal(record.Plain(high)), axp.Decimal(record.Plain(low))
			b.ChangePct = record.Change(open, last)
			out.Coins = append(out.Coins, b)
			ch, _ := b.ChangePct.Rat()
			movers = append(movers, mover{coin, ch.Abs(ch)})
		}
		return nil
	})
	slices.SortStableFunc(movers, func(a, b mover) int { return b.abs.Cmp(a.abs) })
	for i := 0; i < len(movers) && i < 3; i++ {
		out.TopMovers = append(out.TopMovers, movers[i].coin)
	}
	return out, err
}

// newsQuery checks the input of news/as-of: the entity (or an alias) and the time.
func (s *Service) newsQuery(in *axp.NewsAsOfQuery) (string, time.Time, error) {
	if err := s.needs("paid_news_as_of"); err != nil {
		return "", time.Time{}, err
	}
	name := s.rec.matcher.Resolve(in.Entity)
	if name == "" {
		return "", time.Time{}, axp.Invalid("entity", fmt.Sprintf("%q is not one of the entities recorded here: %s", clipText(in.Entity),
			strings.Join(s.rec.matcher.Names(), ", ")), "")
	}
	at, err := s.asOf(in.AsOf, s.newsRetention())
	return name, at, err
}

func (s *Service) paidNewsAsOf(ctx context.Context, c *pipeline.Call, in *axp.NewsAsOfQuery) (*axp.NewsAsOf, error) {
	name, at, err := s.newsQuery(in)
	if err != nil {
		return nil, err
	}
	limit := in.Limit
	if limit <= 0 {
		limit = axp.NewsAsOfDefault
	}
	out := &axp.NewsAsOf{Entity: name, AsOf: at, Items: []axp.RecordedNews{}}
	var items []axp.NewsItem
	err = s.base.Store.View(func(tx *store.Tx) error {
		var err error
		items, err = tx.NewsAsOf(name, at, s.base.Now().Add(-s.newsRetention()), min(limit, axp.NewsAsOfMaxLimit))
		return err
	})
	for _, it := range items {
		out.Items = append(out.Items, axp.RecordedNews{NewsItem: it, ProofID: it.ID,
			ProofURL: s.proofURL("/paid/news/proof", it.ID)})
	}
	return out, err
}

// proofOf loads the proof of a recorded item whose id starts with prefix ("nws_", "px:"), 404
// when there is none.
func (s *Service) proofOf(id, prefix, what string) (*axp.Proof, error) {
	if !strings.HasPrefix(id, prefix) {
		return nil, axp.Invalid("id", fmt.Sprintf("%q is not the id of a %s (%s...)", clipText(id), what, prefix), "")
	}
	var p *axp.Proof
	err := s.base.Store.View(func(tx *store.Tx) error {
		var err error
		p, err = tx.Proof(id)
		return err
	})
	if err == nil && p == nil {
		err = axp.NotFound(what, id)
	}
	return p, err
}

// handleProof registers op, the paid proof of recorded items whose ids start with prefix: checked
// (the operation is on, the id has that shape and a proof) before the payment, answered after.
func (s *Service) handleProof(r *pipeline.Registry, def contract.Def[axp.ProofQuery, axp.Proof], prefix, what string) {
	op := def.Op().Name
	pipeline.Precheck(r, def, func(in *axp.ProofQuery) error {
		if err := s.needs(op); err != nil {
			return err
		}
		_, err := s.proofOf(in.ID, prefix, what)
		return err
	})
	pipeline.Handle(r, def, func(ctx context.Context, c *pipeline.Call, in *axp.ProofQuery) (*axp.Proof, error) {
		return s.answerProof(in.ID, prefix, what)
	})
}

// answerProof answers the proof of a recorded item. Stored data that no longer matches what was
// chained is answered as it is, and says so, so that the caller sees it fail too.
func (s *Service) answerProof(id, prefix, what string) (*axp.Proof, error) {
	p, err := s.proofOf(id, prefix, what)
	if err != nil {
		return nil, err
	}
	if verr := p.Verify(); verr != nil {
		p.Note = "this proof does not verify: " + verr.Error()
		s.base.Log.Error("a recorded item no longer matches its chained hash", "source", "record", "id", id, "err", verr)
	}
	return p, nil
}

// windowOf reads a window of whole days (7d), def when empty.
func windowOf(field, s, def string) (time.Duration, string, error) {
	if s = strings.TrimSpace(s); s == "" {
		s = def
	}
	n, err := strconv.Atoi(strings.TrimSuffix(s, "d"))
	if err != nil || !strings.HasSuffix(s, "d") || n < 1 || n > axp.TrackRecordMaxDays {
		return 0, "", axp.Invalid(field, fmt.Sprintf("%q is not a window of 1d to %dd", clipText(s), axp.TrackRecordMaxDays), "e.g. 7d")
	}
	return time.Duration(n) * 24 * time.Hour, s, nil
}

// strategies groups the signals published since from (of market, when given) by member and
// strategy, scored into stats and ranked.
func (s *Service) strategies(from time.Time, market string) ([]axp.StrategyStats, map[string][]axp.Signal, error) {
	groups := map[string][]axp.Signal{}
	err := s.base.Store.View(func(tx *store.Tx) error {
		return tx.SignalsSince(from, func(sig *axp.Signal) bool {
			if market == "" || sig.Market == market {
				k := sig.Member + "\x00" + sig.Strategy
				groups[k] = append(groups[k], *sig)
			}
			return true
		})
	})
	list := []axp.StrategyStats{}
	for k, sigs := range groups {
		member, name, _ := strings.Cut(k, "\x00")
		list = append(list, record.Stats(member, name, sigs))
	}
	record.Rank(list)
	return list, groups, err
}

func (s *Service) getStrategyLeaderboard(ctx context.Context, c *pipeline.Call, in *axp.TrackRecordQuery) (*axp.TrackRecordBoard, error) {
	span, window, err := windowOf("window", in.Window, "30d")
	if err != nil {
		return nil, err
	}
	now := s.base.Now()
	list, _, err := s.strategies(now.Add(-span), strings.ToLower(strings.TrimSpace(in.Market)))
	return &axp.TrackRecordBoard{Window: window, Market: strings.ToLower(strings.TrimSpace(in.Market)), ComputedAt: now, Ranking: record.Ranking, Strategies: list}, err
}

func (s *Service) checkTrackRecordTop(in *axp.TrackRecordTopQuery) error {
	if err := s.needs("paid_trackrecord_top"); err != nil {
		return err
	}
	if _, _, err := windowOf("window", in.Window, "7d"); err != nil {
		return err
	}
	if m := strings.ToLower(strings.TrimSpace(in.Market)); !slices.Contains(s.rec.source.Coins(), m) {
		return axp.Invalid("market", fmt.Sprintf("%q is not recorded here; recorded coins: %s", clipText(in.Market), strings.Join(s.rec.source.Coins(), ", ")), "")
	}
	return nil
}

func (s *Service) paidTrackRecordTop(ctx context.Context, c *pipeline.Call, in *axp.TrackRecordTopQuery) (*axp.TrackRecordTop, error) {
	if err := s.checkTrackRecordTop(in); err != nil {
		return nil, err
	}
	span, window, _ := windowOf("window", in.Window, "7d")
	market := strings.ToLower(strings.TrimSpace(in.Market))
	now := s.base.Now()
	list, groups, err := s.strategies(now.Add(-span), market)
	if err != nil {
		return nil, err
	}
	limit := in.Limit
	if limit <= 0 {
		limit = 10
	}
	out := &axp.TrackRecordTop{Market: market, Window: window, ComputedAt: now, Ranking: record.Ranking, Strategies: []axp.StrategyDetail{}}
	for _, st := range list[:min(limit, len(list))] {
		sigs := groups[st.Member+"\x00"+st.Strategy]
		slices.Reverse(sigs)
		sigs = sigs[:min(50, len(sigs))]
		for i := range sigs {
			sigs[i].ProofURL = s.proofURL("/paid/trackrecord/verify", sigs[i].ID)
		}
		out.Strategies = append(out.Strategies, axp.StrategyDetail{StrategyStats: st, Recent: sigs})
	}
	return out, nil
}

// proofURL is where the proof of the recorded item id is answered (path: its proof endpoint).
func (s *Service) proofURL(path, id string) string {
	return s.base.BaseURL() + path + "?id=" + url.QueryEscape(id)
}

// recordedPrice is a recorded price as answers show it, with where its proof is.
func (s *Service) recordedPrice(p *store.Price) axp.RecordedPrice {
	id := store.PriceID(p.Coin, p.RecordedAt.UnixMilli())
	return axp.RecordedPrice{Coin: p.Coin, Price: axp.Decimal(p.Price), RecordedAt: p.RecordedAt,
		ProofID: id, ProofURL: s.proofURL("/paid/market/proof", id)}
}

func (s *Service) checkTrackRecordVerify(in *axp.ProofQuery) error {
	if err := s.needs("paid_trackrecord_verify"); err != nil {
		return err
	}
	_, err := s.proofOf(in.ID, "sig_", "signal")
	return err
}

func (s *Service) paidTrackRecordVerify(ctx context.Context, c *pipeline.Call, in *axp.ProofQuery) (*axp.SignalVerification, error) {
	p, err := s.proofOf(in.ID, "sig_", "signal")
	if err != nil {
		return nil, err
	}
	out := &axp.SignalVerification{Proof: *p}
	err = s.base.Store.View(func(tx *store.Tx) error {
		sig, err := tx.Signal(in.ID)
		if err != nil || sig == nil {
			return err
		}
		out.Signal = *sig
		fp, err := tx.PriceAfter(sig.Market, p.Entry.RecordedAt)
		if fp != nil {
			rp := s.recordedPrice(fp)
			out.FirstPriceAfter = &rp
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	sigx := out.Signal
	sigx.ProofURL = s.proofURL("/paid/trackrecord/verify", sigx.ID)
	out.Signal = sigx
	if verr := p.Verify(); verr != nil {
		out.Verdict = "the proof does not verify: " + verr.Error()
		return out, nil
	}
	v := fmt.Sprintf("the signal was chained at %s (chain entry %d, link %s)", p.Entry.RecordedAt.Format(time.RFC3339Nano), p.Entry.Seq, p.Entry.Link)
	if out.FirstPriceAfter != nil {
		v += fmt.Sprintf("; the first %s price recorded after it is %s at %s", sigx.Market, out.FirstPriceAfter.Price, out.FirstPriceAfter.RecordedAt.Format(time.RFC3339Nano))
	}
	switch sigx.Outcome {
	case axp.OutcomeTarget, axp.OutcomeStop, axp.OutcomeExpired:
		v += fmt.Sprintf("; it closed (%s) at %s on a price recorded at %s, after it was chained", sigx.Outcome, sigx.ExitPrice, sigx.ExitAt.Format(time.RFC3339Nano))
	case axp.OutcomeOpen:
		v += "; its horizon has not passed yet (due " + sigx.Due.Format(time.RFC3339) + ")"
	case axp.OutcomeNoData:
		v += "; no price was recorded within its horizon, so it is not scored"
	}
	out.Verdict = v
	return out, nil
}

func (s *Service) checkSignal(in *axp.PublishSignalInput) error {
	if _, err := record.CheckSignal(in); err != nil {
		return err
	}
	if s.rec.source == nil {
		return axp.Invalid("market", "this exchange records no prices to score signals against (market_source_url is not set)", "")
	}
	if m := strings.ToLower(strings.TrimSpace(in.Market)); !slices.Contains(s.rec.source.Coins(), m) {
		return axp.Invalid("market", fmt.Sprintf("%q is not recorded here; recorded coins: %s", clipText(in.Market), strings.Join(s.rec.source.Coins(), ", ")), "")
	}
	return nil
}

// publishSignal records a member's signal and chains it in the same transaction.
func (s *Service) publishSignal(ctx context.Context, c *pipeline.Call, in *axp.PublishSignalInput) (*axp.Signal, error) {
	if err := s.checkSignal(in); err != nil {
		return nil, err
	}
	horizon, _ := record.CheckSignal(in)
	plain := func(v axp.Decimal) string { r, _ := v.Rat(); return record.Plain(r) }
	return kernel.Apply(s.base, ctx, c, func(ch *kernel.Change) (*axp.Signal, error) {
		now := ch.Now.Truncate(time.Millisecond)
		sig := &axp.Signal{SignalItem: axp.SignalItem{Kind: "signal", ID: axp.NewID("sig", now), Member: c.Caller.MemberID,
			Strategy: strings.TrimSpace(in.Strategy), Market: strings.ToLower(strings.TrimSpace(in.Market)), Side: in.Side,
			Entry: plain(in.Entry), Stop: plain(in.Stop), Target: plain(in.Target), Horizon: strings.TrimSpace(in.Horizon),
			PublishedAt: now, Due: now.Add(horizon)}}
		e, err := ch.Tx.RecordSignal(sig)
		if err != nil {
			return nil, err
		}
		sig.ProofURL = s.proofURL("/paid/trackrecord/verify", sig.ID)
		return sig, ch.Audit("signal.publish", "signal", sig.ID, map[string]any{"strategy": sig.Strategy, "market": sig.Market, "chain_seq": e.Seq})
	})
}

func (s *Service) getLatestProof(ctx context.Context, c *pipeline.Call) (*axp.ProofHead, error) {
	out := &axp.ProofHead{Algorithm: axp.ProofAlgorithm, ChainURL: s.base.BaseURL() + "/proofs/chain"}
	err := s.base.Store.View(func(tx *store.Tx) error {
		var err error
		out.Head, err = tx.ChainHead()
		return err
	})
	return out, err
}

func (s *Service) listProofChain(ctx context.Context, c *pipeline.Call, in *axp.ProofChainQuery) (*axp.ProofChain, error) {
	limit := in.Limit
	if limit <= 0 {
		limit = 500
	}
	out := &axp.ProofChain{}
	err := s.base.Store.View(func(tx *store.Tx) error {
		var err error
		out.Entries, err = tx.Chain(in.After, limit)
		return err
	})
	if n := len(out.Entries); n == limit {
		out.Next = out.Entries[n-1].Seq
	}
	return out, err
}

// getBacktestSample answers the reference backtest, computed at most once a UTC day.
func (s *Service) getBacktestSample(ctx context.Context, c *pipeline.Call) (*axp.BacktestSample, error) {
	now := s.base.Now()
	s.rec.mu.Lock()
	defer s.rec.mu.Unlock()
	if samplex := s.rec.sample; samplex != nil && now.Before(samplex.NextAt) {
		return samplex, nil
	}
	samplexx := &axp.BacktestSample{Strategy: record.BacktestStrategy, Rules: record.BacktestRules, Trades: []axp.BacktestTrade{},
		TotalReturn: "0", MaxDrawdown: "0", GeneratedAt: now.Truncate(time.Second),
		NextAt: now.UTC().Truncate(24 * time.Hour).Add(24 * time.Hour)}
	if s.rec.source == nil {
		samplexx.Note = "no price source is configured (market_source_url): nothing is recorded to backtest"
		return samplexx, nil
	}
	samplexx.Coin = s.rec.source.Coins()[0]
	var bars []record.Point
	err := s.base.Store.View(func(tx *store.Tx) error {
		return tx.PricesBetween(samplexx.Coin, now.Add(-s.marketRetention()), now, func(p store.Price) bool {
			r, _ := new(big.Rat).SetString(p.Price)
			bars = record.AppendClose(bars, record.Point{At: p.RecordedAt, Price: r})
			return true
		})
	})
	if err != nil {
		return nil, err
	}
	samplexx.Bars = len(bars)
	if len(bars) < record.BacktestMinBars {
		samplexx.Note = fmt.Sprintf("not enough recorded data yet: %d hourly closes, the strategy needs %d", len(bars), record.BacktestMinBars)
	} else {
		samplexx.From, samplexx.Until = bars[0].At, bars[len(bars)-1].At
		samplexx.Trades, samplexx.TotalReturn, samplexx.MaxDrawdown = record.Backtest(bars)
		samplexx.BuyAndHold = record.Change(bars[0].Price, bars[len(bars)-1].Price)
		hits := 0
		for _, t := range samplexx.Trades {
			if r, _ := t.ReturnPct.Rat(); r.Sign() > 0 {
				hits++
			}
		}
		if len(samplexx.Trades) > 0 {
			samplexx.HitRate = record.Percent(hits, len(samplexx.Trades))
		}
	}
	s.rec.sample = samplexx
	return samplexx, nil
}
