package record_test

import (
	"encoding/json"
	"math/big"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/axp-exchange/axp"
	"github.com/axp-exchange/axp/daemon/record"
)

func TestMatcher(t *testing.T) {
	m, err := record.NewMatcher([]string{"Bitcoin=BTC|XBT", "Ethereum=ETH|Ether", "Solana"})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		text string
		want []string
	}{
		{"BTC rallies; (eth) follows", []string{"Bitcoin", "Ethereum"}},
		{"BTCUSD and Ethereal sounds", []string{}},
		{"bitcoin-solana bridge", []string{"Bitcoin", "Solana"}},
	} {
		if got := m.Match(c.text); !slices.Equal(got, c.want) {
			t.Errorf("%q: %v, want %v", c.text, got, c.want)
		}
	}
	if m.Resolve("xbt") != "Bitcoin" || m.Resolve("doge") != "" {
		t.Error("resolve")
	}
}

func TestPriceText(t *testing.T) {
	for in, want := range map[string]string{`64123.120`: "64123.12", `1.2e-05`: "0.000012", `"42"`: "42"} {
		var v any
		d := json.NewDecoder(strings.NewReader(in))
		d.UseNumber()
		d.Decode(&v)
		if got, ok := record.PriceText(v); !ok || got != want {
			t.Errorf("%s: %q %v, want %q", in, got, ok, want)
		}
	}
	if _, ok := record.PriceText(json.Number("-1")); ok {
		t.Error("a negative price")
	}
}

func pts(start time.Time, prices ...string) []record.Point {
	var out []record.Point
	for i, p := range prices {
		r, _ := new(big.Rat).SetString(p)
		out = append(out, record.Point{At: start.Add(time.Duration(i) * time.Minute), Price: r})
	}
	return out
}

func TestScoreAndStats(t *testing.T) {
	t0 := time.Date(2026, 10, 10, 0, 0, 0, 0, time.UTC)
	sig := func(side, stop, target string) axp.Signal {
		return axp.Signal{SignalItem: axp.SignalItem{Side: side, Entry: "100", Stop: stop, Target: target}, Outcome: axp.OutcomeOpen}
	}
	long := sig("long", "95", "110")
	record.Score(&long, pts(t0, "99", "97.5", "104", "111", "90"), t0)
	if long.Outcome != axp.OutcomeTarget || long.ExitPrice != "110" || long.ReturnPct != "10" || long.Drawdown != "-2.5" || !long.ExitAt.Equal(t0.Add(3*time.Minute)) {
		t.Fatalf("long %+v", long)
	}
	short := sig("short", "103", "90")
	record.Score(&short, pts(t0, "101", "104"), t0)
	if short.Outcome != axp.OutcomeStop || short.ReturnPct != "-3" || short.Drawdown != "-3" {
		t.Fatalf("short %+v", short)
	}
	exp := sig("long", "90", "120")
	record.Score(&exp, pts(t0, "100.1", "100.3333"), t0)
	if exp.Outcome != axp.OutcomeExpired || exp.ReturnPct != "0.3333" || exp.Drawdown != "0" {
		t.Fatalf("expired %+v", exp)
	}
	none := sig("long", "90", "120")
	record.Score(&none, nil, t0)
	if none.Outcome != axp.OutcomeNoData {
		t.Fatalf("no data %+v", none)
	}
	st := record.Stats("mem_a", "s", []axp.Signal{long, short, exp, none, sig("long", "1", "200")})
	if st.Signals != 3 || st.Open != 1 || st.Hits != 1 || st.HitRate != "33.33" || st.TotalReturn != "7.3333" ||
		st.AvgReturn != "2.4444" || st.MaxDrawdown != "-3" {
		t.Fatalf("stats %+v", st)
	}
}

func TestBacktest(t *testing.T) {
	t0 := time.Date(2026, 10, 10, 0, 0, 0, 0, time.UTC)
	var prices []string
	for i := range 30 { // falling, then rising, then falling
		prices = append(prices, big.NewRat(int64(200-i), 1).FloatString(0))
	}
	for i := range 30 {
		prices = append(prices, big.NewRat(int64(170+3*i), 1).FloatString(0))
	}
	for i := range 30 {
		prices = append(prices, big.NewRat(int64(260-4*i), 1).FloatString(0))
	}
	var hourly []record.Point
	for i, p := range pts(t0, prices...) {
		p.At = t0.Add(time.Duration(i) * time.Hour)
		hourly = append(hourly, p)
	}
	trades, total, dd := record.Backtest(record.HourlyCloses(hourly))
	if len(trades) != 1 || trades[0].Open || total == "0" || dd == "0" {
		t.Fatalf("trades %+v total %s dd %s", trades, total, dd)
	}
}
