package daemon_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/axp-exchange/axp"
	"github.com/axp-exchange/axp/contract"
	"github.com/axp-exchange/axp/daemon"
	"github.com/axp-exchange/axp/daemon/x402"
	"github.com/axp-exchange/axp/store"
)

// priceSource is a loopback stand-in of the CoinGecko simple-price API
// (GET /simple/price?ids=a,b&vs_currencies=usd -> {"a": {"usd": 1.5}}).
type priceSource struct {
	*httptest.Server
	mu     sync.Mutex
	prices map[string]string
	fail   bool
}

func newPriceSource(t *testing.T) *priceSource {
	s := &priceSource{prices: map[string]string{}}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		defer s.mu.Unlock()
		if r.URL.Path != "/api/v3/simple/price" || r.URL.Query().Get("vs_currencies") != "usd" {
			http.NotFound(w, r)
			return
		}
		if s.fail {
			http.Error(w, "rate limited", http.StatusTooManyRequests)
			return
		}
		out := map[string]map[string]json.Number{}
		for _, id := range strings.Split(r.URL.Query().Get("ids"), ",") {
			if p, ok := s.prices[id]; ok {
				out[id] = map[string]json.Number{"usd": json.Number(p)}
			}
		}
		json.NewEncoder(w).Encode(out)
	}))
	t.Cleanup(s.Close)
	return s
}

func (s *priceSource) set(fail bool, kv ...string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.fail = fail
	for i := 0; i+1 < len(kv); i += 2 {
		s.prices[kv[i]] = kv[i+1]
	}
}

// feedServer serves an RSS feed at /rss and an Atom feed at /atom whose items the test adds.
type feedServer struct {
	*httptest.Server
	mu   sync.Mutex
	rss  []string // titles
	atom []string
}

func newFeedServer(t *testing.T) *feedServer {
	f := &feedServer{}
	f.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		f.mu.Lock()
		defer f.mu.Unlock()
		switch r.URL.Path {
		case "/rss":
			w.Header().Set("Content-Type", "application/rss+xml")
			fmt.Fprint(w, `<?xml version="1.0"?><rss version="2.0"><channel><title>Desk</title><link>https://desk.example/</link><description>news</description>`)
			for i, title := range f.rss {
				fmt.Fprintf(w, `<item><title>%s</title><link>https://desk.example/%d</link><guid>desk-%d</guid><description>&lt;p&gt;Story %d about %s.&lt;/p&gt;</description><pubDate>Mon, 12 Oct 2026 10:00:00 GMT</pubDate></item>`, title, i, i, i, title)
			}
			fmt.Fprint(w, `</channel></rss>`)
		case "/atom":
			w.Header().Set("Content-Type", "application/atom+xml")
			fmt.Fprint(w, `<?xml version="1.0" encoding="utf-8"?><feed xmlns="http://www.w3.org/2005/Atom"><title>Wire</title><id>urn:wire</id><updated>2026-10-12T10:00:00Z</updated>`)
			for i, title := range f.atom {
				fmt.Fprintf(w, `<entry><title>%s</title><id>urn:wire:%d</id><link href="https://wire.example/%d"/><updated>2026-10-12T10:00:00Z</updated><summary>%s</summary></entry>`, title, i, i, title)
			}
			fmt.Fprint(w, `</feed>`)
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(f.Close)
	return f
}

func (f *feedServer) add(rss, atom []string) {
	f.mu.Lock()
	f.rss, f.atom = append(f.rss, rss...), append(f.atom, atom...)
	f.mu.Unlock()
}

// recordedEnv is an exchange recording from the stand-ins on a clock the test moves; the
// recorders' own timers are an hour away, so the test drives every poll. Trial calls are plenty.
func recordedEnv(t *testing.T, clk *clock, src *priceSource, feeds *feedServer, mod ...func(*daemon.Config)) *env {
	return newEnv(t, append([]func(*daemon.Config){func(cfg *daemon.Config) {
		cfg.Now = clk.Now
		cfg.TrialCallsPerDay = 10_000
		cfg.MarketPoll, cfg.NewsPoll = time.Hour, time.Hour
		if src != nil {
			cfg.MarketSourceURL, cfg.MarketCoins = src.URL+"/api/v3", []string{"bitcoin", "ethereum", "solana"}
		}
		if feeds != nil {
			cfg.NewsFeeds = []string{feeds.URL + "/rss", feeds.URL + "/atom"}
			cfg.NewsEntities = []string{"Bitcoin=BTC|XBT", "Ethereum=ETH"}
		}
	}}, mod...)...)
}

// getRecorded is a GET of a recorded-data path; it fails the test unless the status is want.
func getRecorded(t *testing.T, e *env, path string, want int, out any) []byte {
	t.Helper()
	resp := paidCall(t, e.anon, "GET", path, "", nil)
	if resp.Status != want {
		t.Fatalf("GET %s: %d %s", path, resp.Status, resp.Body)
	}
	if out != nil {
		if err := json.Unmarshal(resp.Body, out); err != nil {
			t.Fatalf("GET %s: %v", path, err)
		}
	}
	return resp.Body
}

func head(t *testing.T, e *env) *axp.ChainEntry {
	t.Helper()
	var h axp.ProofHead
	getRecorded(t, e, "/proofs/latest", 200, &h)
	return h.Head
}

// The market recorder on a moved clock: per-minute prices with their recorded time, a failed poll a
// gap; no as-of answer holds anything recorded after as_of; bad input is 400 naming the field;
// retention refuses and prunes.
func TestMarketRecorderAsOf(t *testing.T) {
	clk := &clock{}
	src := newPriceSource(t)
	e := recordedEnv(t, clk, src, nil)
	ctx := context.Background()

	type rec struct {
		at       time.Time
		btc, eth string
	}
	var recorded []rec
	for i := range 10 {
		btc, eth := fmt.Sprintf("%d.5", 100+i), fmt.Sprintf("%d", 10+i)
		src.set(i == 4, "bitcoin", btc, "ethereum", eth)
		err := e.d.RecordMarket(ctx)
		if i == 4 {
			if err == nil {
				t.Fatal("a failed poll recorded prices")
			}
		} else {
			if err != nil {
				t.Fatalf("poll %d: %v", i, err)
			}
			h := head(t, e)
			if h == nil || h.Kind != axp.ChainMarket || h.Count != 2 {
				t.Fatalf("head after poll %d: %+v", i, h)
			}
			recorded = append(recorded, rec{h.RecordedAt, btc, eth})
		}
		clk.Advance(time.Minute)
	}
	last := recorded[len(recorded)-1]

	// At a recorded time, that poll's prices; a millisecond before, the previous poll's; across
	// the gap, the last before it. Never a price recorded after as_of.
	asOf := func(at time.Time, extra string) axp.MarketAsOf {
		var out axp.MarketAsOf
		getRecorded(t, e, "/paid/market/as-of?trial=1&coins=bitcoin,ethereum,solana&as_of="+url.QueryEscape(at.Format(time.RFC3339Nano))+extra, 200, &out)
		for _, p := range out.Prices {
			if p.RecordedAt.After(at) || p.AgeSeconds < 0 {
				t.Fatalf("as of %s: %s recorded at %s, after as_of", at, p.Coin, p.RecordedAt)
			}
		}
		for _, p := range out.Series {
			if p.RecordedAt.After(at) {
				t.Fatalf("series as of %s: a point recorded at %s", at, p.RecordedAt)
			}
		}
		return out
	}
	for i, r := range recorded {
		out := asOf(r.at, "")
		if len(out.Prices) != 2 || out.Prices[0].Price != axp.Decimal(r.btc) || out.Prices[1].Price != axp.Decimal(r.eth) ||
			len(out.Missing) != 1 || out.Missing[0] != "solana" {
			t.Fatalf("as of poll %d: %+v", i, out)
		}
		before := asOf(r.at.Add(-time.Millisecond), "")
		if i == 0 {
			if len(before.Prices) != 0 {
				t.Fatalf("before the first poll: %+v", before)
			}
		} else if before.Prices[0].Price != axp.Decimal(recorded[i-1].btc) {
			t.Fatalf("just before poll %d: %+v, want %s", i, before.Prices, recorded[i-1].btc)
		}
	}
	// Any moment in between: the newest price recorded at or before it.
	rng := rand.New(rand.NewPCG(1, 2))
	span := last.at.Sub(recorded[0].at) + time.Minute
	for range 40 {
		at := recorded[0].at.Add(-30 * time.Second).Add(time.Duration(rng.Int64N(int64(span))))
		out := asOf(at, "")
		want := ""
		for _, r := range recorded {
			if !r.at.After(at) {
				want = r.btc
			}
		}
		got := ""
		if len(out.Prices) > 0 {
			got = string(out.Prices[0].Price)
		}
		if got != want {
			t.Fatalf("as of %s: bitcoin %q, want %q", at, got, want)
		}
	}
	// The series: one point per recorded minute, the failed poll's minute a gap.
	var series axp.MarketAsOf
	getRecorded(t, e, "/paid/market/as-of?trial=1&coins=bitcoin&series=1&hours=1&as_of="+url.QueryEscape(last.at.Format(time.RFC3339Nano)), 200, &series)
	if len(series.Series) != 9 || series.Gaps != 60-9 || series.Series[8].Price != axp.Decimal(last.btc) {
		t.Fatalf("series: %d points, %d gaps: %+v", len(series.Series), series.Gaps, series.Series)
	}

	// A price's proof: it verifies, and names the price as recorded.
	var last1 axp.MarketAsOf
	getRecorded(t, e, "/paid/market/as-of?trial=1&coins=bitcoin&as_of="+url.QueryEscape(last.at.Format(time.RFC3339Nano)), 200, &last1)
	pr := last1.Prices[0]
	if !strings.HasSuffix(pr.ProofURL, "/paid/market/proof?id="+url.QueryEscape(pr.ProofID)) {
		t.Fatalf("price %+v has no proof url", pr)
	}
	var pp axp.Proof
	getRecorded(t, e, "/paid/market/proof?trial=1&id="+url.QueryEscape(pr.ProofID), 200, &pp)
	if err := pp.Verify(); err != nil || pp.Note != "" || !strings.Contains(string(pp.Item), `"price":"`+last.btc+`"`) {
		t.Fatalf("price proof %s: %v", pp.Item, err)
	}
	getRecorded(t, e, "/paid/market/proof?trial=1&id="+url.QueryEscape("px:bitcoin@1"), 404, nil)
	if body := getRecorded(t, e, "/paid/market/proof?trial=1&id=nws_x", 400, nil); !strings.Contains(string(body), `"field":"id"`) {
		t.Errorf("a news id as a price proof: %s", body)
	}

	// Bad input: 400 naming the field, before anything is paid.
	lastQ := url.QueryEscape(last.at.Format(time.RFC3339))
	for _, c := range []struct{ query, field string }{
		{"coins=a,b,c,d,e,f&as_of=" + lastQ, "coins"},
		{"coins=bitcoin,dogecoin&as_of=" + lastQ, "coins"},
		{"coins=bitcoin,ethereum&series=1&as_of=" + lastQ, "coins"},
		{"coins=bitcoin&as_of=yesterday", "as_of"},
		{"coins=bitcoin&as_of=" + url.QueryEscape(clk.Now().Add(time.Hour).Format(time.RFC3339)), "as_of"},
		{"coins=bitcoin&as_of=" + url.QueryEscape(clk.Now().Add(-61*24*time.Hour).Format(time.RFC3339)), "as_of"},
		{"coins=bitcoin&hours=7&series=1&as_of=" + lastQ, "hours"},
	} {
		body := getRecorded(t, e, "/paid/market/as-of?"+c.query, 400, nil)
		if !strings.Contains(string(body), `"field":"`+c.field+`"`) {
			t.Errorf("%s: %s", c.query, body)
		}
	}
	// Without payment: 503 here (no chain), the terms on a chain (TestRecordedPaidCallOverX402).
	if resp := paidCall(t, e.anon, "GET", "/paid/market/as-of?coins=bitcoin&as_of="+lastQ, "", nil); resp.Status != 503 {
		t.Fatalf("unpaid: %d %s", resp.Status, resp.Body)
	}

	// The brief: computed from what was recorded, with its time.
	var brief axp.MarketBrief
	getRecorded(t, e, "/paid/market/brief?trial=1", 200, &brief)
	if len(brief.Coins) != 2 || brief.Coins[0].Coin != "bitcoin" || brief.Coins[0].High != "109.5" || brief.Coins[0].Low != "100.5" ||
		brief.Coins[0].ChangePct != "8.9552" || brief.Coins[0].Points != 9 || brief.TopMovers[0] != "ethereum" ||
		len(brief.Missing) != 1 || brief.ComputedAt.Before(last.at) {
		t.Fatalf("brief %+v", brief)
	}

	// Retention: 61 days on, the old prices are refused as of their time and pruned.
	clk.Advance(61 * 24 * time.Hour)
	getRecorded(t, e, "/paid/market/as-of?trial=1&coins=bitcoin&as_of="+lastQ, 400, nil)
	e.d.PruneRecorded()
	e.d.DB().View(func(tx *store.Tx) error {
		if p, _ := tx.PriceAsOf("bitcoin", clk.Now(), time.Time{}); p != nil {
			t.Errorf("a price past retention was kept: %+v", p)
		}
		return nil
	})
	var now axp.MarketAsOf
	getRecorded(t, e, "/paid/market/as-of?trial=1&coins=bitcoin&as_of="+url.QueryEscape(clk.Now().Format(time.RFC3339Nano)), 200, &now)
	if len(now.Prices) != 0 || len(now.Missing) != 1 {
		t.Fatalf("after pruning: %+v", now)
	}
	if h := head(t, e); h.Seq != 9 {
		t.Fatalf("the chain lost entries when prices were pruned: %+v", h)
	}
}

// The news recorder: items of RSS and Atom feeds with their first-seen time and entities, recorded
// once; news as of a time holds only what was seen by then, newest first, each with a proof that
// verifies offline, and that fails once the stored item is changed.
func TestNewsRecorderAndProofs(t *testing.T) {
	clk := &clock{}
	feeds := newFeedServer(t)
	dir := t.TempDir()
	mod := func(cfg *daemon.Config) { cfg.DataDir = dir }
	e := recordedEnv(t, clk, nil, feeds, mod)
	ctx := context.Background()

	feeds.add([]string{"BTC breaks a record", "Markets calm"}, []string{"Ethereum ships an upgrade"})
	if n, err := e.d.RecordNews(ctx); n != 3 || err != nil {
		t.Fatalf("first poll: %d %v", n, err)
	}
	first := head(t, e).RecordedAt
	clk.Advance(5 * time.Minute)
	if n, err := e.d.RecordNews(ctx); n != 0 || err != nil {
		t.Fatalf("the same items again: %d %v", n, err)
	}
	feeds.add([]string{"Bitcoin miners and ETH stakers"}, nil)
	if n, err := e.d.RecordNews(ctx); n != 1 || err != nil {
		t.Fatalf("second poll: %d %v", n, err)
	}
	second := head(t, e).RecordedAt

	var before, after axp.NewsAsOf
	getRecorded(t, e, "/paid/news/as-of?trial=1&entity=btc&as_of="+url.QueryEscape(second.Add(-time.Millisecond).Format(time.RFC3339Nano)), 200, &before)
	if before.Entity != "Bitcoin" || len(before.Items) != 1 || before.Items[0].Title != "BTC breaks a record" || !before.Items[0].FirstSeen.Equal(first) {
		t.Fatalf("before the second poll: %+v", before)
	}
	getRecorded(t, e, "/paid/news/as-of?trial=1&entity=Bitcoin&as_of="+url.QueryEscape(second.Format(time.RFC3339Nano)), 200, &after)
	if len(after.Items) != 2 || after.Items[0].Title != "Bitcoin miners and ETH stakers" ||
		strings.Join(after.Items[0].Entities, ",") != "Bitcoin,Ethereum" || after.Items[1].Summary != "Story 0 about BTC breaks a record." {
		t.Fatalf("after the second poll: %+v", after)
	}
	for _, it := range after.Items {
		if it.FirstSeen.After(after.AsOf) {
			t.Fatalf("an item first seen after as_of: %+v", it)
		}
	}
	var eth axp.NewsAsOf
	getRecorded(t, e, "/paid/news/as-of?trial=1&entity=eth&as_of="+url.QueryEscape(second.Format(time.RFC3339Nano)), 200, &eth)
	if len(eth.Items) != 2 || eth.Items[1].Feed != feeds.URL+"/atom" || eth.Items[1].Link != "https://wire.example/0" {
		t.Fatalf("ethereum: %+v", eth)
	}
	for _, c := range []struct{ query, field string }{
		{"entity=dogecoin&as_of=" + url.QueryEscape(second.Format(time.RFC3339)), "entity"},
		{"entity=btc&as_of=" + url.QueryEscape(clk.Now().Add(time.Minute).Format(time.RFC3339)), "as_of"},
		{"entity=btc", "as_of"},
	} {
		if body := getRecorded(t, e, "/paid/news/as-of?trial=1&"+c.query, 400, nil); !strings.Contains(string(body), `"field":"`+c.field+`"`) {
			t.Errorf("%s: %s", c.query, body)
		}
	}

	// The proof of an item: it verifies, it leads to a link of the chain, and the chain recomputes.
	id := after.Items[1].ProofID
	var p axp.Proof
	getRecorded(t, e, "/paid/news/proof?trial=1&id="+id, 200, &p)
	if err := p.Verify(); err != nil || p.Entry.Seq != 1 || p.Head.Seq != 2 || p.Note != "" {
		t.Fatalf("proof %+v: %v", p, err)
	}
	var chain axp.ProofChain
	getRecorded(t, e, "/proofs/chain", 200, &chain)
	prev := axp.ZeroLink
	for _, c := range chain.Entries {
		if l, _ := c.ComputeLink(); l != c.Link || c.Prev != prev {
			t.Fatalf("chain entry %+v does not recompute", c)
		}
		prev = c.Link
	}
	if len(chain.Entries) != 2 || prev != p.Head.Link {
		t.Fatalf("chain %+v", chain)
	}
	getRecorded(t, e, "/paid/news/proof?trial=1&id=nws_nothing", 404, nil)
	getRecorded(t, e, "/paid/news/proof?trial=1&id=sig_x", 400, nil)

	// Change the stored item behind the exchange's back: its proof no longer verifies.
	e.close()
	rewriteStored(t, dir, "news", id, func(plain []byte) []byte {
		return []byte(strings.Replace(string(plain), "BTC breaks a record", "BTC falls", 1))
	})
	e = recordedEnv(t, clk, nil, feeds, mod)
	getRecorded(t, e, "/paid/news/proof?trial=1&id="+id, 200, &p)
	if err := p.Verify(); err == nil || !strings.Contains(p.Note, "does not verify") || !strings.Contains(string(p.Item), "BTC falls") {
		t.Fatalf("a tampered item's proof: %v, note %q", err, p.Note)
	}
}

// Track records: a member publishes signals (recorded and chained at once), the sweeper scores
// them against recorded prices once their horizon passes, /trackrecord ranks the strategies, the
// paid top list details them, and verify proves a signal was chained before the move it claims.
func TestSignalsAndTrackRecord(t *testing.T) {
	clk := &clock{}
	src := newPriceSource(t)
	e := recordedEnv(t, clk, src, nil)
	ctx := context.Background()
	alice := e.register(map[string]any{"roles": []string{"buyer"}})
	bob := e.register(map[string]any{"roles": []string{"seller"}})

	src.set(false, "bitcoin", "100", "ethereum", "10")
	if err := e.d.RecordMarket(ctx); err != nil {
		t.Fatal(err)
	}
	clk.Advance(time.Minute)
	publish := func(m *member, body map[string]any) axp.Signal {
		t.Helper()
		var s axp.Signal
		call(t, m.c, "publish_signal", body, &s)
		if s.Outcome != axp.OutcomeOpen || s.Seq == 0 || !strings.HasPrefix(s.ID, "sig_") || s.Member != m.MemberID {
			t.Fatalf("published %+v", s)
		}
		return s
	}
	long := publish(alice, map[string]any{"strategy": "breakout", "market": "bitcoin", "side": "long", "entry": 100, "stop": 95, "target": 110, "horizon": "10m"})
	short := publish(bob, map[string]any{"strategy": "fade", "market": "bitcoin", "side": "short", "entry": 100, "stop": 104, "target": 90, "horizon": "10m"})
	if h := head(t, e); h.Kind != axp.ChainSignal || h.Seq != short.Seq {
		t.Fatalf("the signal is not the chain's head: %+v", h)
	}
	// Over MCP too.
	a := e.mcpCall(alice.MemberSecret, "publish_signal", map[string]any{"strategy": "breakout", "market": "ethereum", "side": "short", "entry": 10, "stop": 11, "target": 8.5, "horizon": "1h"})
	ethSig := toolOK(t, a)
	for _, c := range []struct {
		body  map[string]any
		field string
	}{
		{map[string]any{"strategy": "x", "market": "bitcoin", "side": "long", "entry": 100, "stop": 101, "target": 110, "horizon": "1h"}, "stop"},
		{map[string]any{"strategy": "x", "market": "bitcoin", "side": "short", "entry": 100, "stop": 101, "target": 110, "horizon": "1h"}, "target"},
		{map[string]any{"strategy": "x", "market": "dogecoin", "side": "long", "entry": 1, "stop": 0.5, "target": 2, "horizon": "1h"}, "market"},
		{map[string]any{"strategy": "x", "market": "bitcoin", "side": "long", "entry": 100, "stop": 95, "target": 110, "horizon": "1m"}, "horizon"},
		{map[string]any{"strategy": "x", "market": "bitcoin", "side": "long", "entry": 100, "stop": 95, "target": 110, "horizon": "40d"}, "horizon"},
	} {
		_, err := do(alice.c, "publish_signal", c.body)
		apiErr(t, err, axp.CodeInvalidInput, c.field)
	}
	if _, err := do(e.anon, "publish_signal", map[string]any{"strategy": "x", "market": "bitcoin", "side": "long", "entry": 100, "stop": 95, "target": 110, "horizon": "1h"}); err == nil {
		t.Fatal("an anonymous caller published a signal")
	}

	// The market moves: bitcoin to 103, then 111 (the long's target; the short's stop was hit first).
	for _, p := range []string{"103", "106", "111"} {
		clk.Advance(time.Minute)
		src.set(false, "bitcoin", p)
		if err := e.d.RecordMarket(ctx); err != nil {
			t.Fatal(err)
		}
	}
	if n := e.d.ScoreSignals(); n != 0 {
		t.Fatalf("scored %d before their horizon", n)
	}
	clk.Advance(10 * time.Minute)
	src.set(false, "bitcoin", "80") // recorded after the horizon: never counted
	e.d.RecordMarket(ctx)
	if n := e.d.ScoreSignals(); n != 2 {
		t.Fatalf("scored %d, want 2", n)
	}

	var board axp.TrackRecordBoard
	getRecorded(t, e, "/trackrecord?market=bitcoin", 200, &board)
	if len(board.Strategies) != 2 || board.Strategies[0].Strategy != "breakout" || board.Strategies[0].Rank != 1 ||
		board.Strategies[0].Hits != 1 || board.Strategies[0].TotalReturn != "10" || board.Strategies[0].HitRate != "100" ||
		board.Strategies[1].Strategy != "fade" || board.Strategies[1].TotalReturn != "-4" || board.Strategies[1].MaxDrawdown != "-4" {
		t.Fatalf("leaderboard %+v", board)
	}
	// The MCP tool answers the same board; without market, alice's open ethereum signal counts too.
	res := toolOK(t, e.mcpCall("", "get_strategy_leaderboard", map[string]any{}))
	if strats := res["strategies"].([]any); len(strats) != 2 || fmt.Sprint(strats[0].(map[string]any)["open"]) != "1" {
		t.Fatalf("MCP board %v", res)
	}
	getRecorded(t, e, "/trackrecord?window=100d", 400, nil)

	var top axp.TrackRecordTop
	getRecorded(t, e, "/paid/trackrecord/top?trial=1&market=bitcoin&window=7d", 200, &top)
	if len(top.Strategies) != 2 || len(top.Strategies[0].Recent) != 1 || top.Strategies[0].Recent[0].Outcome != axp.OutcomeTarget ||
		top.Strategies[0].Recent[0].ExitPrice != "110" || top.Strategies[1].Recent[0].Outcome != axp.OutcomeStop {
		t.Fatalf("top %+v", top)
	}
	getRecorded(t, e, "/paid/trackrecord/top?trial=1&market=dogecoin", 400, nil)

	var v axp.SignalVerification
	getRecorded(t, e, "/paid/trackrecord/verify?trial=1&id="+long.ID, 200, &v)
	if err := v.Proof.Verify(); err != nil || v.FirstPriceAfter == nil || !v.FirstPriceAfter.RecordedAt.After(v.Proof.Entry.RecordedAt) ||
		!v.Signal.ExitAt.After(v.Proof.Entry.RecordedAt) || v.FirstPriceAfter.Price != "103" || !strings.Contains(v.Verdict, "after it was chained") {
		t.Fatalf("verify %+v: %v", v, err)
	}
	var item axp.SignalItem
	json.Unmarshal(v.Proof.Item, &item)
	if item.Entry != "100" || item.Target != "110" || !item.PublishedAt.Equal(long.PublishedAt) {
		t.Fatalf("the chained item %s", v.Proof.Item)
	}
	getRecorded(t, e, "/paid/trackrecord/verify?trial=1&id="+ethSig["id"].(string), 200, nil)
	getRecorded(t, e, "/paid/trackrecord/verify?trial=1&id=sig_unknown", 404, nil)
}

// The backtest sample runs the reference strategy over recorded prices and is regenerated daily.
func TestBacktestSample(t *testing.T) {
	clk := &clock{}
	src := newPriceSource(t)
	e := recordedEnv(t, clk, src, nil)
	var empty axp.BacktestSample
	getRecorded(t, e, "/backtest/sample.json", 200, &empty)
	if empty.Bars != 0 || !strings.Contains(empty.Note, "not enough") {
		t.Fatalf("empty sample %+v", empty)
	}
	clk.Advance(24 * time.Hour)
	// 3 days of hourly prices: down, up, down.
	for i := range 72 {
		p := 200 - i
		if i >= 24 && i < 48 {
			p = 176 + 3*(i-24)
		} else if i >= 48 {
			p = 248 - 4*(i-48)
		}
		src.set(false, "bitcoin", fmt.Sprint(p), "ethereum", "10")
		if err := e.d.RecordMarket(context.Background()); err != nil {
			t.Fatal(err)
		}
		clk.Advance(time.Hour)
	}
	var s axp.BacktestSample
	getRecorded(t, e, "/backtest/sample.json", 200, &s)
	if s.Coin != "bitcoin" || s.Bars < 70 || len(s.Trades) != 1 || s.Trades[0].Open || s.TotalReturn == "0" || s.BuyAndHold == "" ||
		s.Strategy != "sma-crossover-6h-24h" || !s.NextAt.After(s.GeneratedAt) {
		t.Fatalf("sample %+v", s)
	}
	// Cached until the next UTC day.
	var again axp.BacktestSample
	getRecorded(t, e, "/backtest/sample.json", 200, &again)
	if !again.GeneratedAt.Equal(s.GeneratedAt) {
		t.Fatalf("regenerated within the day: %s then %s", s.GeneratedAt, again.GeneratedAt)
	}
	clk.Advance(24 * time.Hour)
	getRecorded(t, e, "/backtest/sample.json", 200, &again)
	if !again.GeneratedAt.After(s.GeneratedAt) {
		t.Fatalf("not regenerated the next day")
	}
}

// Without a source, the recorded-data tools are listed unavailable naming the setting, and
// answer 503 naming it (nothing charged).
func TestRecordedToolsWithoutSources(t *testing.T) {
	e := newEnv(t)
	var list axp.PaidToolList
	list = *callOp(t, e.anon, contract.FindPaidTools, axp.PaidToolsQuery{})
	seen := 0
	for _, tl := range list.Tools {
		want := map[string]string{"market": "market_source_url", "news": "news_feeds"}[tl.Category]
		if tl.Name == "paid_trackrecord_top" || tl.Name == "paid_trackrecord_verify" {
			want = "market_source_url"
		}
		if want == "" {
			continue
		}
		seen++
		if tl.Available || !strings.Contains(tl.Unavailable, want) {
			t.Errorf("%s: %+v", tl.Name, tl)
		}
	}
	if seen != 7 {
		t.Fatalf("%d recorded-data tools listed", seen)
	}
	for _, path := range []string{"/paid/market/as-of?coins=bitcoin&as_of=2026-10-10T00:00:00Z&trial=1", "/paid/market/brief?trial=1",
		"/paid/news/as-of?entity=x&as_of=2026-10-10T00:00:00Z&trial=1", "/paid/news/proof?id=nws_x&trial=1",
		"/paid/market/proof?id=px:bitcoin@1&trial=1",
		"/paid/trackrecord/top?market=bitcoin&trial=1", "/paid/trackrecord/verify?id=sig_x&trial=1"} {
		resp := paidCall(t, e.anon, "GET", path, "", nil)
		if resp.Status != 503 || !strings.Contains(string(resp.Body), "market_source_url") && !strings.Contains(string(resp.Body), "news_feeds") {
			t.Errorf("%s: %d %s", path, resp.Status, resp.Body)
		}
	}
	var s axp.BacktestSample
	getRecorded(t, e, "/backtest/sample.json", 200, &s)
	if !strings.Contains(s.Note, "market_source_url") {
		t.Fatalf("sample %+v", s)
	}
	var h axp.ProofHead
	getRecorded(t, e, "/proofs/latest", 200, &h)
	if h.Head != nil || h.Algorithm == "" {
		t.Fatalf("head %+v", h)
	}
	var board axp.TrackRecordBoard
	getRecorded(t, e, "/trackrecord", 200, &board)
	if len(board.Strategies) != 0 || board.Window != "30d" {
		t.Fatalf("board %+v", board)
	}
}

// One recorded-data call paid over x402 on the chain: 402 with the price, then the answer and the
// settlement; the payer pays the price.
func TestRecordedPaidCallOverX402(t *testing.T) {
	src := newPriceSource(t)
	m := newChainMarket(t, func(cfg *daemon.Config) {
		cfg.MarketSourceURL, cfg.MarketCoins, cfg.MarketPoll = src.URL+"/api/v3", []string{"bitcoin"}, time.Hour
	})
	payer := m.buyerWallet(1_000_000)
	src.set(false, "bitcoin", "64000.25")
	if err := m.d.RecordMarket(context.Background()); err != nil {
		t.Fatal(err)
	}
	path := "/paid/market/as-of?coins=bitcoin&as_of=" + url.QueryEscape(time.Now().UTC().Format(time.RFC3339Nano))
	req := terms(t, paidCall(t, m.anon, "GET", path, "", nil))
	if req.Accepts[0].Amount != "10000" {
		t.Fatalf("terms %+v", req.Accepts[0])
	}
	resp := paidCall(t, m.anon, "GET", path, "", map[string]string{x402.HeaderSignature: pay(t, payer, req)})
	var out axp.MarketAsOf
	if err := json.Unmarshal(resp.Body, &out); err != nil || resp.Status != 200 || len(out.Prices) != 1 || out.Prices[0].Price != "64000.25" {
		t.Fatalf("paid as-of: %d %s", resp.Status, resp.Body)
	}
	settlement(t, resp, x402.HeaderResponse)
	if b := m.balances(); b[axp.AcctPaidCalls] != 10_000 {
		t.Fatalf("balances %v", b)
	}
}
