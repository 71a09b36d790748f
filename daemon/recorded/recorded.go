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
	"github.com/axp-exchange/axp/daemon/kernel"
	"github.com/axp-exchange/axp/daemon/pipeline"
	"github.com/axp-exchange/axp/daemon/record"
	"github.com/axp-exchange/axp/store"
)

// Register binds the operations of the recorded service to their handlers.
func (d *Service) Register(r *pipeline.Registry) {
	pipeline.Precheck(r, axp.PaidMarketAsOf, func(in *axp.MarketAsOfQuery) error { _, _, _, err := d.marketQuery(in); return err })
	pipeline.Handle(r, axp.PaidMarketAsOf, d.paidMarketAsOf)
	pipeline.Precheck(r, axp.PaidMarketBrief, func(in *axp.MarketBriefQuery) error { return d.needs("paid_market_brief") })
	pipeline.Handle(r, axp.PaidMarketBrief, d.paidMarketBrief)
	pipeline.Precheck(r, axp.PaidNewsAsOf, func(in *axp.NewsAsOfQuery) error { _, _, err := d.newsQuery(in); return err })
	pipeline.Handle(r, axp.PaidNewsAsOf, d.paidNewsAsOf)
	d.handleProof(r, axp.PaidMarketProof, "px:", "recorded price")
	d.handleProof(r, axp.PaidNewsProof, "nws_", "news item")
	pipeline.Precheck(r, axp.PaidTrackrecordTop, d.checkTrackRecordTop)
	pipeline.Handle(r, axp.PaidTrackrecordTop, d.paidTrackRecordTop)
	pipeline.Precheck(r, axp.PaidTrackrecordVerify, d.checkTrackRecordVerify)
	pipeline.Handle(r, axp.PaidTrackrecordVerify, d.paidTrackRecordVerify)
	pipeline.Handle(r, axp.GetStrategyLeaderboard, d.getStrategyLeaderboard)
	pipeline.Precheck(r, axp.PublishSignal, d.checkSignal)
	pipeline.Handle(r, axp.PublishSignal, d.publishSignal)
	pipeline.HandleNoInput(r, axp.GetBacktestSample, d.getBacktestSample)
	pipeline.HandleNoInput(r, axp.GetLatestProof, d.getLatestProof)
	pipeline.Handle(r, axp.ListProofChain, d.listProofChain)
}

// recorders are the market and news recorders (docs/decisions.md, "Recorded data and proofs"):
// each poll fetches outside any transaction, then records its batch and chain entry in one.
type Recorders struct {
	source  *record.PriceSource // nil: no market_source_url
	matcher *record.Matcher
	feeds   []string
	httpc   *http.Client

	mu     sync.Mutex
	sample *axp.BacktestSample // the cached backtest, regenerated daily
}

func (d *Service) SetupRecorders() error {
	cfg := d.Cfg
	r := &Recorders{feeds: cfg.NewsFeeds, httpc: d.Caller.HTTPClient(20 * time.Second)}
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
	d.rec = r
	return nil
}

func durationOr(v, def time.Duration) time.Duration {
	if v <= 0 {
		return def
	}
	return v
}

func (d *Service) marketRetention() time.Duration {
	return durationOr(d.Cfg.MarketRetention, kernel.Defaults().MarketRetention)
}

func (d *Service) newsRetention() time.Duration {
	return durationOr(d.Cfg.NewsRetention, kernel.Defaults().NewsRetention)
}

// recordLoop polls the configured sources (the first poll one period after start), scores due
// signals and prunes past retention.
func (d *Service) RecordLoop() {
	defer d.Bg.Done()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		select {
		case <-d.Stop:
			cancel()
		case <-ctx.Done():
		}
	}()
	var market, news <-chan time.Time
	if d.rec.source != nil {
		t := time.NewTicker(durationOr(d.Cfg.MarketPoll, time.Minute))
		defer t.Stop()
		market = t.C
	}
	if len(d.rec.feeds) > 0 {
		t := time.NewTicker(durationOr(d.Cfg.NewsPoll, kernel.Defaults().NewsPoll))
		defer t.Stop()
		news = t.C
	}
	prune := time.NewTicker(time.Hour)
	defer prune.Stop()
	// Only the leader records, so that daemons sharing a store record each poll once.
	for {
		select {
		case <-d.Stop:
			return
		case <-market:
			if d.Leads() {
				d.RecordMarket(ctx)
				d.ScoreSignals()
			}
		case <-news:
			if d.Leads() {
				d.RecordNews(ctx)
			}
		case <-prune.C:
			if d.Leads() {
				d.PruneRecorded()
				d.ScoreSignals()
			}
		}
	}
}

// recordMarket records one poll of the price source as one batch; a failed poll leaves a gap.
func (d *Service) RecordMarket(ctx context.Context) (*axp.ChainEntry, error) {
	prices, err := d.rec.source.Fetch(ctx)
	if err != nil {
		d.Log.Warn("price source poll failed: the minute stays a gap", "source", "record", "err", err)
		return nil, err
	}
	now := d.Now()
	var e *axp.ChainEntry
	err = d.Store.Update(func(tx *store.Tx) error {
		var err error
		e, err = tx.RecordPrices(now, prices)
		return err
	})
	if err != nil {
		d.Log.Warn("recording prices failed", "source", "record", "err", err)
	}
	return e, err
}

// recordNews polls every feed and records the items not seen before as one batch.
func (d *Service) RecordNews(ctx context.Context) (int, error) {
	type fetched struct {
		url  string
		feed *record.Feed
	}
	var got []fetched
	for _, u := range d.rec.feeds {
		f, err := record.FetchFeed(ctx, d.rec.httpc, u)
		if err != nil {
			d.Log.Warn("feed poll failed", "source", "record", "feed", u, "err", err)
			continue
		}
		got = append(got, fetched{u, f})
	}
	now := d.Now()
	var items []axp.NewsItem
	for _, f := range got {
		items = append(items, record.NewsItems(f.url, f.feed, d.rec.matcher, now)...)
	}
	if len(items) == 0 {
		return 0, nil
	}
	var fresh []axp.NewsItem
	err := d.Store.Update(func(tx *store.Tx) error {
		var err error
		_, fresh, err = tx.RecordNews(now, items)
		return err
	})
	if err != nil {
		d.Log.Warn("recording news failed", "source", "record", "err", err)
	}
	return len(fresh), err
}

// scoreSignals scores the signals whose horizon has passed against the prices recorded from their
// publication to their due time; it returns how many it scored.
func (d *Service) ScoreSignals() int {
	now := d.Now()
	var due []axp.Signal
	if err := d.Store.View(func(tx *store.Tx) error {
		var err error
		due, err = tx.DueSignals(now, 200)
		return err
	}); err != nil {
		d.Log.Warn("reading due signals failed", "source", "record", "err", err)
		return 0
	}
	n := 0
	for _, s := range due {
		err := d.Store.Update(func(tx *store.Tx) error {
			var pts []record.Point
			err := tx.PricesBetween(s.Market, s.PublishedAt.Add(time.Millisecond), s.Due, func(p store.Price) bool {
				r, _ := new(big.Rat).SetString(p.Price)
				pts = append(pts, record.Point{At: p.RecordedAt, Price: r})
				return true
			})
			if err != nil {
				return err
			}
			record.Score(&s, pts, now)
			return tx.ScoreSignal(&s)
		})
		if err != nil {
			d.Log.Warn("scoring a signal failed", "source", "record", "signal", s.ID, "err", err)
			continue
		}
		n++
	}
	return n
}

// pruneRecorded deletes prices and news past their retention; the chain's entries stay.
func (d *Service) PruneRecorded() {
	now := d.Now()
	var prices, news int
	err := d.Store.Update(func(tx *store.Tx) error {
		var err error
		if prices, err = tx.PrunePrices(now.Add(-d.marketRetention())); err != nil {
			return err
		}
		news, err = tx.PruneNews(now.Add(-d.newsRetention()))
		return err
	})
	if err != nil {
		d.Log.Warn("pruning recorded data failed", "source", "record", "err", err)
	} else if prices+news > 0 {
		d.Log.Info("pruned recorded data past retention", "source", "record", "prices", prices, "news", news)
	}
}

// recordedUnavailable says why a recorded-data tool cannot answer, naming the setting, or "".
func (d *Service) RecordedUnavailable(needs string) string {
	switch needs {
	case "market_source_url":
		if d.rec.source == nil {
			return "needs a price source: set market_source_url (and market_coins; market_source coingecko or jsonpath)"
		}
	case "news_feeds":
		if len(d.rec.feeds) == 0 {
			return "needs news feeds: set news_feeds (RSS or Atom URLs) and news_entities"
		}
	}
	return ""
}

// needs refuses a call of a tool whose data source is not configured (503 naming the setting),
// before anything is paid.
func (d *Service) needs(op string) error {
	o := axp.Lookup(op)
	if why := d.RecordedUnavailable(o.Needs); why != "" {
		return axp.Errorf(axp.CodeUnavailable, "%s is unavailable on this exchange: it %s", o.Path, why).
			WithHint("nothing was charged; GET /paid lists what is available")
	}
	return nil
}

// asOf reads an as_of time: RFC 3339, not in the future, not before retention.
func (d *Service) asOf(s string, retention time.Duration) (time.Time, error) {
	t, err := time.Parse(time.RFC3339Nano, strings.TrimSpace(s))
	if err != nil {
		return t, axp.Invalid("as_of", fmt.Sprintf("%q is not an RFC 3339 time", clipText(s)), "e.g. 2026-10-20T12:00:00Z")
	}
	now := d.Now()
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
func (d *Service) coinsOf(s string, allowEmpty bool) ([]string, error) {
	var out []string
	for _, c := range strings.Split(s, ",") {
		if c = strings.ToLower(strings.TrimSpace(c)); c != "" && !slices.Contains(out, c) {
			out = append(out, c)
		}
	}
	known := d.rec.source.Coins()
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
func (d *Service) marketQuery(in *axp.MarketAsOfQuery) (time.Time, []string, int, error) {
	if err := d.needs("paid_market_as_of"); err != nil {
		return time.Time{}, nil, 0, err
	}
	at, err := d.asOf(in.AsOf, d.marketRetention())
	if err != nil {
		return at, nil, 0, err
	}
	coins, err := d.coinsOf(in.Coins, false)
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

func (d *Service) paidMarketAsOf(ctx context.Context, c *pipeline.Call, in *axp.MarketAsOfQuery) (*axp.MarketAsOf, error) {
	at, coins, hours, err := d.marketQuery(in)
	if err != nil {
		return nil, err
	}
	notBefore := d.Now().Add(-d.marketRetention())
	out := &axp.MarketAsOf{AsOf: at, Prices: []axp.RecordedPrice{}, Missing: []string{}, Source: d.rec.source.Kind()}
	err = d.Store.View(func(tx *store.Tx) error {
		for _, coin := range coins {
			p, err := tx.PriceAsOf(coin, at, notBefore)
			if err != nil {
				return err
			}
			if p == nil {
				out.Missing = append(out.Missing, coin)
				continue
			}
			rp := d.recordedPrice(p)
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

func (d *Service) paidMarketBrief(ctx context.Context, c *pipeline.Call, in *axp.MarketBriefQuery) (*axp.MarketBrief, error) {
	if err := d.needs("paid_market_brief"); err != nil {
		return nil, err
	}
	coins, err := d.coinsOf(in.Coins, true)
	if err != nil {
		return nil, err
	}
	now := d.Now().Truncate(time.Millisecond)
	out := &axp.MarketBrief{ComputedAt: now, From: now.Add(-24 * time.Hour), Coins: []axp.CoinBrief{}, TopMovers: []string{}}
	type mover struct {
		coin string
		abs  *big.Rat
	}
	var movers []mover
	err = d.Store.View(func(tx *store.Tx) error {
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
func (d *Service) newsQuery(in *axp.NewsAsOfQuery) (string, time.Time, error) {
	if err := d.needs("paid_news_as_of"); err != nil {
		return "", time.Time{}, err
	}
	name := d.rec.matcher.Resolve(in.Entity)
	if name == "" {
		return "", time.Time{}, axp.Invalid("entity", fmt.Sprintf("%q is not one of the entities recorded here: %s", clipText(in.Entity),
			strings.Join(d.rec.matcher.Names(), ", ")), "")
	}
	at, err := d.asOf(in.AsOf, d.newsRetention())
	return name, at, err
}

func (d *Service) paidNewsAsOf(ctx context.Context, c *pipeline.Call, in *axp.NewsAsOfQuery) (*axp.NewsAsOf, error) {
	name, at, err := d.newsQuery(in)
	if err != nil {
		return nil, err
	}
	limit := in.Limit
	if limit <= 0 {
		limit = axp.NewsAsOfDefault
	}
	out := &axp.NewsAsOf{Entity: name, AsOf: at, Items: []axp.RecordedNews{}}
	var items []axp.NewsItem
	err = d.Store.View(func(tx *store.Tx) error {
		var err error
		items, err = tx.NewsAsOf(name, at, d.Now().Add(-d.newsRetention()), min(limit, axp.NewsAsOfMaxLimit))
		return err
	})
	for _, it := range items {
		out.Items = append(out.Items, axp.RecordedNews{NewsItem: it, ProofID: it.ID,
			ProofURL: d.proofURL("/paid/news/proof", it.ID)})
	}
	return out, err
}

// proofOf loads the proof of a recorded item whose id starts with prefix ("nws_", "px:"), 404
// when there is none.
func (d *Service) proofOf(id, prefix, what string) (*axp.Proof, error) {
	if !strings.HasPrefix(id, prefix) {
		return nil, axp.Invalid("id", fmt.Sprintf("%q is not the id of a %s (%s...)", clipText(id), what, prefix), "")
	}
	var p *axp.Proof
	err := d.Store.View(func(tx *store.Tx) error {
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
func (d *Service) handleProof(r *pipeline.Registry, def axp.Def[axp.ProofQuery, axp.Proof], prefix, what string) {
	op := def.Op().Name
	pipeline.Precheck(r, def, func(in *axp.ProofQuery) error {
		if err := d.needs(op); err != nil {
			return err
		}
		_, err := d.proofOf(in.ID, prefix, what)
		return err
	})
	pipeline.Handle(r, def, func(ctx context.Context, c *pipeline.Call, in *axp.ProofQuery) (*axp.Proof, error) {
		return d.answerProof(in.ID, prefix, what)
	})
}

// answerProof answers the proof of a recorded item. Stored data that no longer matches what was
// chained is answered as it is, and says so, so that the caller sees it fail too.
func (d *Service) answerProof(id, prefix, what string) (*axp.Proof, error) {
	p, err := d.proofOf(id, prefix, what)
	if err != nil {
		return nil, err
	}
	if verr := p.Verify(); verr != nil {
		p.Note = "this proof does not verify: " + verr.Error()
		d.Log.Error("a recorded item no longer matches its chained hash", "source", "record", "id", id, "err", verr)
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
func (d *Service) strategies(from time.Time, market string) ([]axp.StrategyStats, map[string][]axp.Signal, error) {
	groups := map[string][]axp.Signal{}
	err := d.Store.View(func(tx *store.Tx) error {
		return tx.SignalsSince(from, func(s *axp.Signal) bool {
			if market == "" || s.Market == market {
				k := s.Member + "\x00" + s.Strategy
				groups[k] = append(groups[k], *s)
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

func (d *Service) getStrategyLeaderboard(ctx context.Context, c *pipeline.Call, in *axp.TrackRecordQuery) (*axp.TrackRecordBoard, error) {
	span, window, err := windowOf("window", in.Window, "30d")
	if err != nil {
		return nil, err
	}
	now := d.Now()
	list, _, err := d.strategies(now.Add(-span), strings.ToLower(strings.TrimSpace(in.Market)))
	return &axp.TrackRecordBoard{Window: window, Market: strings.ToLower(strings.TrimSpace(in.Market)), ComputedAt: now, Ranking: record.Ranking, Strategies: list}, err
}

func (d *Service) checkTrackRecordTop(in *axp.TrackRecordTopQuery) error {
	if err := d.needs("paid_trackrecord_top"); err != nil {
		return err
	}
	if _, _, err := windowOf("window", in.Window, "7d"); err != nil {
		return err
	}
	if m := strings.ToLower(strings.TrimSpace(in.Market)); !slices.Contains(d.rec.source.Coins(), m) {
		return axp.Invalid("market", fmt.Sprintf("%q is not recorded here; recorded coins: %s", clipText(in.Market), strings.Join(d.rec.source.Coins(), ", ")), "")
	}
	return nil
}

func (d *Service) paidTrackRecordTop(ctx context.Context, c *pipeline.Call, in *axp.TrackRecordTopQuery) (*axp.TrackRecordTop, error) {
	if err := d.checkTrackRecordTop(in); err != nil {
		return nil, err
	}
	span, window, _ := windowOf("window", in.Window, "7d")
	market := strings.ToLower(strings.TrimSpace(in.Market))
	now := d.Now()
	list, groups, err := d.strategies(now.Add(-span), market)
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
			sigs[i].ProofURL = d.proofURL("/paid/trackrecord/verify", sigs[i].ID)
		}
		out.Strategies = append(out.Strategies, axp.StrategyDetail{StrategyStats: st, Recent: sigs})
	}
	return out, nil
}

// proofURL is where the proof of the recorded item id is answered (path: its proof endpoint).
func (d *Service) proofURL(path, id string) string {
	return d.BaseURL() + path + "?id=" + url.QueryEscape(id)
}

// recordedPrice is a recorded price as answers show it, with where its proof is.
func (d *Service) recordedPrice(p *store.Price) axp.RecordedPrice {
	id := store.PriceID(p.Coin, p.RecordedAt.UnixMilli())
	return axp.RecordedPrice{Coin: p.Coin, Price: axp.Decimal(p.Price), RecordedAt: p.RecordedAt,
		ProofID: id, ProofURL: d.proofURL("/paid/market/proof", id)}
}

func (d *Service) checkTrackRecordVerify(in *axp.ProofQuery) error {
	if err := d.needs("paid_trackrecord_verify"); err != nil {
		return err
	}
	_, err := d.proofOf(in.ID, "sig_", "signal")
	return err
}

func (d *Service) paidTrackRecordVerify(ctx context.Context, c *pipeline.Call, in *axp.ProofQuery) (*axp.SignalVerification, error) {
	p, err := d.proofOf(in.ID, "sig_", "signal")
	if err != nil {
		return nil, err
	}
	out := &axp.SignalVerification{Proof: *p}
	err = d.Store.View(func(tx *store.Tx) error {
		s, err := tx.Signal(in.ID)
		if err != nil || s == nil {
			return err
		}
		out.Signal = *s
		fp, err := tx.PriceAfter(s.Market, p.Entry.RecordedAt)
		if fp != nil {
			rp := d.recordedPrice(fp)
			out.FirstPriceAfter = &rp
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	s := out.Signal
	s.ProofURL = d.proofURL("/paid/trackrecord/verify", s.ID)
	out.Signal = s
	if verr := p.Verify(); verr != nil {
		out.Verdict = "the proof does not verify: " + verr.Error()
		return out, nil
	}
	v := fmt.Sprintf("the signal was chained at %s (chain entry %d, link %s)", p.Entry.RecordedAt.Format(time.RFC3339Nano), p.Entry.Seq, p.Entry.Link)
	if out.FirstPriceAfter != nil {
		v += fmt.Sprintf("; the first %s price recorded after it is %s at %s", s.Market, out.FirstPriceAfter.Price, out.FirstPriceAfter.RecordedAt.Format(time.RFC3339Nano))
	}
	switch s.Outcome {
	case axp.OutcomeTarget, axp.OutcomeStop, axp.OutcomeExpired:
		v += fmt.Sprintf("; it closed (%s) at %s on a price recorded at %s, after it was chained", s.Outcome, s.ExitPrice, s.ExitAt.Format(time.RFC3339Nano))
	case axp.OutcomeOpen:
		v += "; its horizon has not passed yet (due " + s.Due.Format(time.RFC3339) + ")"
	case axp.OutcomeNoData:
		v += "; no price was recorded within its horizon, so it is not scored"
	}
	out.Verdict = v
	return out, nil
}

func (d *Service) checkSignal(in *axp.PublishSignalInput) error {
	if _, err := record.CheckSignal(in); err != nil {
		return err
	}
	if d.rec.source == nil {
		return axp.Invalid("market", "this exchange records no prices to score signals against (market_source_url is not set)", "")
	}
	if m := strings.ToLower(strings.TrimSpace(in.Market)); !slices.Contains(d.rec.source.Coins(), m) {
		return axp.Invalid("market", fmt.Sprintf("%q is not recorded here; recorded coins: %s", clipText(in.Market), strings.Join(d.rec.source.Coins(), ", ")), "")
	}
	return nil
}

// publishSignal records a member's signal and chains it in the same transaction.
func (d *Service) publishSignal(ctx context.Context, c *pipeline.Call, in *axp.PublishSignalInput) (*axp.Signal, error) {
	if err := d.checkSignal(in); err != nil {
		return nil, err
	}
	horizon, _ := record.CheckSignal(in)
	plain := func(v axp.Decimal) string { r, _ := v.Rat(); return record.Plain(r) }
	return kernel.As[axp.Signal](d.Mutate(ctx, c.Caller.Actor(), func(ch *kernel.Change) (any, error) {
		now := ch.Now.Truncate(time.Millisecond)
		s := &axp.Signal{SignalItem: axp.SignalItem{Kind: "signal", ID: axp.NewID("sig", now), Member: c.Caller.MemberID,
			Strategy: strings.TrimSpace(in.Strategy), Market: strings.ToLower(strings.TrimSpace(in.Market)), Side: in.Side,
			Entry: plain(in.Entry), Stop: plain(in.Stop), Target: plain(in.Target), Horizon: strings.TrimSpace(in.Horizon),
			PublishedAt: now, Due: now.Add(horizon)}}
		e, err := ch.Tx.RecordSignal(s)
		if err != nil {
			return nil, err
		}
		s.ProofURL = d.proofURL("/paid/trackrecord/verify", s.ID)
		return s, ch.Audit("signal.publish", "signal", s.ID, map[string]any{"strategy": s.Strategy, "market": s.Market, "chain_seq": e.Seq})
	}))
}

func (d *Service) getLatestProof(ctx context.Context, c *pipeline.Call) (*axp.ProofHead, error) {
	out := &axp.ProofHead{Algorithm: axp.ProofAlgorithm, ChainURL: d.BaseURL() + "/proofs/chain"}
	err := d.Store.View(func(tx *store.Tx) error {
		var err error
		out.Head, err = tx.ChainHead()
		return err
	})
	return out, err
}

func (d *Service) listProofChain(ctx context.Context, c *pipeline.Call, in *axp.ProofChainQuery) (*axp.ProofChain, error) {
	limit := in.Limit
	if limit <= 0 {
		limit = 500
	}
	out := &axp.ProofChain{}
	err := d.Store.View(func(tx *store.Tx) error {
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
func (d *Service) getBacktestSample(ctx context.Context, c *pipeline.Call) (*axp.BacktestSample, error) {
	now := d.Now()
	d.rec.mu.Lock()
	defer d.rec.mu.Unlock()
	if s := d.rec.sample; s != nil && now.Before(s.NextAt) {
		return s, nil
	}
	s := &axp.BacktestSample{Strategy: record.BacktestStrategy, Rules: record.BacktestRules, Trades: []axp.BacktestTrade{},
		TotalReturn: "0", MaxDrawdown: "0", GeneratedAt: now.Truncate(time.Second),
		NextAt: now.UTC().Truncate(24 * time.Hour).Add(24 * time.Hour)}
	if d.rec.source == nil {
		s.Note = "no price source is configured (market_source_url): nothing is recorded to backtest"
		return s, nil
	}
	s.Coin = d.rec.source.Coins()[0]
	var bars []record.Point
	err := d.Store.View(func(tx *store.Tx) error {
		return tx.PricesBetween(s.Coin, now.Add(-d.marketRetention()), now, func(p store.Price) bool {
			r, _ := new(big.Rat).SetString(p.Price)
			bars = record.AppendClose(bars, record.Point{At: p.RecordedAt, Price: r})
			return true
		})
	})
	if err != nil {
		return nil, err
	}
	s.Bars = len(bars)
	if len(bars) < record.BacktestMinBars {
		s.Note = fmt.Sprintf("not enough recorded data yet: %d hourly closes, the strategy needs %d", len(bars), record.BacktestMinBars)
	} else {
		s.From, s.Until = bars[0].At, bars[len(bars)-1].At
		s.Trades, s.TotalReturn, s.MaxDrawdown = record.Backtest(bars)
		s.BuyAndHold = record.Change(bars[0].Price, bars[len(bars)-1].Price)
		hits := 0
		for _, t := range s.Trades {
			if r, _ := t.ReturnPct.Rat(); r.Sign() > 0 {
				hits++
			}
		}
		if len(s.Trades) > 0 {
			s.HitRate = record.Percent(hits, len(s.Trades))
		}
	}
	d.rec.sample = s
	return s, nil
}
