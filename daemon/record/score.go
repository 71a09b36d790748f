package record

import (
	"cmp"
	"fmt"
	"math/big"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/axp-exchange/axp"
)

// Point is a recorded price.
type Point struct {
	At    time.Time
	Price *big.Rat
}

var (
	hundred  = big.NewRat(100, 1)
	maxPrice = big.NewRat(1_000_000_000_000, 1)
)

// pctPlaces are the decimals of percentages in answers.
const pctPlaces = 4

// Ranking says how the leaderboard orders strategies.
const Ranking = "total return over the window (sum of the signals' returns), then hit rate, then number of signals"

// CheckSignal validates a signal's levels and horizon: entry, stop and target in the order the
// side needs (stop < entry < target for a long, target < entry < stop for a short). It returns the
// horizon as a duration. Errors name the field.
func CheckSignal(in *axp.PublishSignalInput) (time.Duration, error) {
	entry, err := axp.PositiveDecimal("entry", in.Entry, maxPrice, 10)
	if err != nil {
		return 0, err
	}
	stop, err := axp.PositiveDecimal("stop", in.Stop, maxPrice, 10)
	if err != nil {
		return 0, err
	}
	target, err := axp.PositiveDecimal("target", in.Target, maxPrice, 10)
	if err != nil {
		return 0, err
	}
	switch in.Side {
	case "long":
		if stop.Cmp(entry) >= 0 {
			return 0, axp.Invalid("stop", "must be below entry for a long", "")
		}
		if target.Cmp(entry) <= 0 {
			return 0, axp.Invalid("target", "must be above entry for a long", "")
		}
	case "short":
		if stop.Cmp(entry) <= 0 {
			return 0, axp.Invalid("stop", "must be above entry for a short", "")
		}
		if target.Cmp(entry) >= 0 {
			return 0, axp.Invalid("target", "must be below entry for a short", "")
		}
	default:
		return 0, axp.Invalid("side", "must be long or short", "")
	}
	h, err := ParseSpan(in.Horizon)
	if err != nil || h < axp.SignalMinHorizon || h > axp.SignalMaxHorizon {
		return 0, axp.Invalid("horizon", fmt.Sprintf("%q is not a duration from 5m to 30d", in.Horizon), "e.g. 90m, 4h or 7d")
	}
	return h, nil
}

// ParseSpan reads a duration in Go's form (90m, 4h) or whole days (7d).
func ParseSpan(s string) (time.Duration, error) {
	s = strings.TrimSpace(s)
	if d, ok := strings.CutSuffix(s, "d"); ok {
		n, err := strconv.Atoi(d)
		if err != nil || n <= 0 || n > 3650 {
			return 0, fmt.Errorf("%q is not a number of days", s)
		}
		return time.Duration(n) * 24 * time.Hour, nil
	}
	return time.ParseDuration(s)
}

func rat(d string) *big.Rat {
	r, _ := axp.Decimal(d).Rat()
	return r
}

// Score closes a signal over the prices recorded from its publication to its due time (oldest
// first): the first price at or beyond the target closes it at the target, at or beyond the stop
// at the stop; neither closes it at the last price. Without prices it is no_data. The return and
// the worst move against it are percentages of entry, exact, rounded to 4 decimals.
func Score(s *axp.Signal, prices []Point, now time.Time) {
	entry, stop, target := rat(s.Entry), rat(s.Stop), rat(s.Target)
	long := s.Side == "long"
	// against is how far p is against the signal, as a percentage of entry (0 or negative).
	against := func(p *big.Rat) *big.Rat {
		m := new(big.Rat).Sub(p, entry)
		if !long {
			m.Neg(m)
		}
		m.Mul(m, hundred).Quo(m, entry)
		if m.Sign() > 0 {
			m.SetInt64(0)
		}
		return m
	}
	worst := new(big.Rat)
	scored := now.UTC()
	s.ScoredAt = &scored
	if len(prices) == 0 {
		s.Outcome = axp.OutcomeNoData
		return
	}
	var exit *big.Rat
	var at time.Time
	for _, p := range prices {
		switch {
		case long && p.Price.Cmp(target) >= 0, !long && p.Price.Cmp(target) <= 0:
			s.Outcome, exit, at = axp.OutcomeTarget, target, p.At
		case long && p.Price.Cmp(stop) <= 0, !long && p.Price.Cmp(stop) >= 0:
			s.Outcome, exit, at = axp.OutcomeStop, stop, p.At
		}
		level := p.Price
		if exit != nil {
			level = exit
		}
		if a := against(level); a.Cmp(worst) < 0 {
			worst = a
		}
		if exit != nil {
			break
		}
	}
	if exit == nil {
		last := prices[len(prices)-1]
		s.Outcome, exit, at = axp.OutcomeExpired, last.Price, last.At
	}
	ret := new(big.Rat).Sub(exit, entry)
	if !long {
		ret.Neg(ret)
	}
	ret.Mul(ret, hundred).Quo(ret, entry)
	at = at.UTC()
	s.ExitPrice, s.ExitAt = axp.Decimal(Plain(exit)), &at
	s.ReturnPct, s.Drawdown = roundRat(ret, pctPlaces), roundRat(worst, pctPlaces)
}

// Stats sums up one strategy's signals (any order): scored signals count, open ones are counted
// apart, no_data ones not at all. The drawdown is that of the cumulative return, signals taken in
// the order they closed.
func Stats(member, strategy string, signals []axp.Signal) axp.StrategyStats {
	st := axp.StrategyStats{Member: member, Strategy: strategy}
	var closed []axp.Signal
	for _, s := range signals {
		switch s.Outcome {
		case axp.OutcomeOpen:
			st.Open++
		case axp.OutcomeTarget, axp.OutcomeStop, axp.OutcomeExpired:
			closed = append(closed, s)
			if s.Outcome == axp.OutcomeTarget {
				st.Hits++
			}
		}
	}
	slices.SortStableFunc(closed, func(a, b axp.Signal) int { return a.ExitAt.Compare(*b.ExitAt) })
	st.Signals = len(closed)
	total, peak, dd := new(big.Rat), new(big.Rat), new(big.Rat)
	for _, s := range closed {
		total.Add(total, rat(string(s.ReturnPct)))
		if total.Cmp(peak) > 0 {
			peak.Set(total)
		}
		if d := new(big.Rat).Sub(total, peak); d.Cmp(dd) < 0 {
			dd = d
		}
	}
	st.TotalReturn, st.MaxDrawdown = roundRat(total, pctPlaces), roundRat(dd, pctPlaces)
	st.AvgReturn, st.HitRate = "0", "0"
	if st.Signals > 0 {
		n := big.NewRat(int64(st.Signals), 1)
		st.AvgReturn = roundRat(new(big.Rat).Quo(total, n), pctPlaces)
		st.HitRate = Percent(st.Hits, st.Signals)
	}
	return st
}

// Rank orders strategies by Ranking and numbers them from 1.
func Rank(list []axp.StrategyStats) {
	slices.SortFunc(list, func(a, b axp.StrategyStats) int {
		if c := rat(string(b.TotalReturn)).Cmp(rat(string(a.TotalReturn))); c != 0 {
			return c
		}
		if c := rat(string(b.HitRate)).Cmp(rat(string(a.HitRate))); c != 0 {
			return c
		}
		if c := cmp.Compare(b.Signals, a.Signals); c != 0 {
			return c
		}
		return cmp.Or(cmp.Compare(a.Member, b.Member), cmp.Compare(a.Strategy, b.Strategy))
	})
	for i := range list {
		list[i].Rank = i + 1
	}
}

// Change is (last - first) / first x 100, 4 decimals.
func Change(first, last *big.Rat) axp.Decimal {
	c := new(big.Rat).Sub(last, first)
	return roundRat(c.Mul(c, hundred).Quo(c, first), pctPlaces)
}

// Percent is part / whole x 100, 2 decimals (whole > 0).
func Percent(part, whole int) axp.Decimal {
	return roundRat(big.NewRat(int64(part)*100, int64(whole)), 2)
}
