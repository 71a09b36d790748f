package record

import (
	"math/big"
	"time"

	"github.com/axp-exchange/axp"
)

// The reference strategy of GET /backtest/sample.json.
const (
	BacktestStrategy = "sma-crossover-6h-24h"
	BacktestRules    = "hourly closes (the last price recorded in each UTC hour; hours without one are skipped); buy at the close when the 6-hour simple moving average crosses above the 24-hour one, sell at the close when it crosses below; long or flat, no fees; returns compound; a position still open at the end is marked at the last close"
	fastBars         = 6
	slowBars         = 24
	// BacktestMinBars is the fewest hourly closes the strategy is run on.
	BacktestMinBars = slowBars + 1
)

// AppendClose adds a price (later than every bar's) to hourly closes: it replaces the close of its
// hour, or opens the next bar.
func AppendClose(bars []Point, p Point) []Point {
	if n := len(bars); n > 0 && bars[n-1].At.UTC().Truncate(time.Hour).Equal(p.At.UTC().Truncate(time.Hour)) {
		bars[n-1] = p
		return bars
	}
	return append(bars, p)
}

// HourlyCloses keeps the last price of each UTC hour of prices (oldest first).
func HourlyCloses(prices []Point) []Point {
	var out []Point
	for _, p := range prices {
		out = AppendClose(out, p)
	}
	return out
}

// Backtest runs the reference strategy over hourly closes.
func Backtest(bars []Point) (trades []axp.BacktestTrade, total, maxDD axp.Decimal) {
	one := big.NewRat(1, 1)
	equity, peak, worst := new(big.Rat).Set(one), new(big.Rat).Set(one), new(big.Rat)
	var entry *Point
	var prevDiff int
	sma := func(i, n int) *big.Rat {
		s := new(big.Rat)
		for _, p := range bars[i-n+1 : i+1] {
			s.Add(s, p.Price)
		}
		return s.Quo(s, big.NewRat(int64(n), 1))
	}
	trades = []axp.BacktestTrade{}
	closeAt := func(p Point, open bool) {
		r := new(big.Rat).Quo(p.Price, entry.Price)
		equity.Mul(equity, r)
		trades = append(trades, axp.BacktestTrade{EntryAt: entry.At, EntryPrice: axp.Decimal(Plain(entry.Price)), ExitAt: p.At,
			ExitPrice: axp.Decimal(Plain(p.Price)), ReturnPct: Change(entry.Price, p.Price), Open: open})
		entry = nil
	}
	for i := slowBars - 1; i < len(bars); i++ {
		diff := sma(i, fastBars).Cmp(sma(i, slowBars))
		p := bars[i]
		switch {
		case entry == nil && diff > 0 && prevDiff <= 0 && i > slowBars-1:
			entry = &p
		case entry != nil && diff < 0:
			closeAt(p, false)
		}
		prevDiff = diff
		// Equity marked at this close, for the drawdown.
		mark := new(big.Rat).Set(equity)
		if entry != nil {
			mark.Mul(mark, new(big.Rat).Quo(p.Price, entry.Price))
		}
		if mark.Cmp(peak) > 0 {
			peak.Set(mark)
		}
		dd := new(big.Rat).Sub(mark, peak)
		dd.Mul(dd, hundred).Quo(dd, peak)
		if dd.Cmp(worst) < 0 {
			worst = dd
		}
	}
	if entry != nil {
		closeAt(bars[len(bars)-1], true)
	}
	return trades, Change(one, equity), roundRat(worst, pctPlaces)
}
