package paidtools

import (
	"fmt"
	"math/big"
	"strings"

	"github.com/axp-exchange/axp"
)

// Bounds of the trading risk inputs, as the input's schema declares them.
var (
	maxAccount = big.NewRat(1_000_000_000_000_000, 1) // 10^15
	maxPrice   = big.NewRat(1_000_000_000_000, 1)     // 10^12
	hundred    = big.NewRat(100, 1)
)

// Decimals kept in the results (see axp.TradingRiskResult).
const (
	amountDecimals  = 8
	percentDecimals = 4
	exposureDecimal = 2
	priceDecimals   = 10
)

// TradingRisk sizes a position so that the loss at the stop is risk_pct of the account. Every
// input is checked (an *axp.Error naming the field); all arithmetic is exact (math/big), and each
// result is rounded as its field documents: the position size down, so the loss at the stop never
// exceeds the risk amount; the others half up.
func TradingRisk(in *axp.TradingRiskQuery) (*axp.TradingRiskResult, error) {
	if in == nil {
		return nil, axp.Invalid("account", "is required", "give account, risk_pct, entry and stop")
	}
	account, err := axp.PositiveDecimal("account", in.Account, maxAccount, amountDecimals)
	if err != nil {
		return nil, err
	}
	riskPct, err := axp.PositiveDecimal("risk_pct", in.RiskPct, hundred, percentDecimals)
	if err != nil {
		return nil, err
	}
	entry, err := axp.PositiveDecimal("entry", in.Entry, maxPrice, priceDecimals)
	if err != nil {
		return nil, err
	}
	stop, err := axp.PositiveDecimal("stop", in.Stop, maxPrice, priceDecimals)
	if err != nil {
		return nil, err
	}
	sizeDecimals := axp.TradingRiskDefaultSizeDecimals
	if in.SizeDecimals != nil {
		sizeDecimals = *in.SizeDecimals
		if sizeDecimals < 0 || sizeDecimals > 8 {
			return nil, axp.Invalid("size_decimals", fmt.Sprintf("is %d; it must be 0 to 8", sizeDecimals), "0 rounds to whole units")
		}
	}
	out := &axp.TradingRiskResult{Direction: "long", SizeDecimals: sizeDecimals}
	distance := new(big.Rat).Sub(entry, stop)
	switch distance.Sign() {
	case 0:
		return nil, axp.Invalid("stop", "equals entry", "put the stop below the entry for a long, above it for a short")
	case -1:
		out.Direction = "short"
		distance.Neg(distance)
	}
	risk := new(big.Rat).Mul(account, riskPct)
	risk.Quo(risk, hundred)
	size := roundDown(new(big.Rat).Quo(risk, distance), sizeDecimals)
	loss := new(big.Rat).Mul(size, distance)
	notional := new(big.Rat).Mul(size, entry)

	out.PositionSize = axp.FormatRat(size, sizeDecimals, false)
	out.RiskAmount = axp.FormatRat(risk, amountDecimals, true)
	out.LossAtStop = axp.FormatRat(loss, amountDecimals, true)
	out.StopDistance = axp.FormatRat(distance, priceDecimals, true) // exact: both prices have at most 10 decimals
	out.StopDistancePct = axp.FormatRat(new(big.Rat).Quo(new(big.Rat).Mul(distance, hundred), entry), percentDecimals, true)
	out.Notional = axp.FormatRat(notional, amountDecimals, true)
	exposure := new(big.Rat).Quo(new(big.Rat).Mul(notional, hundred), account)
	out.NotionalPct = axp.FormatRat(exposure, exposureDecimal, true)

	var notes []string
	if size.Sign() == 0 {
		notes = append(notes, fmt.Sprintf("the risk amount buys no position: one unit at %d decimals loses more than %s at the stop", sizeDecimals, out.RiskAmount))
	}
	if exposure.Cmp(hundred) > 0 {
		notes = append(notes, "the position is worth more than the account: it needs leverage or margin")
	}
	out.Note = strings.Join(notes, "; ")
	return out, nil
}

func pow10(n int) *big.Rat {
	return new(big.Rat).SetInt(new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(n)), nil))
}

// roundDown is r (not negative) rounded down to places decimals.
func roundDown(r *big.Rat, places int) *big.Rat {
	scale := pow10(places)
	scaled := new(big.Rat).Mul(r, scale)
	q := new(big.Int).Quo(scaled.Num(), scaled.Denom())
	return new(big.Rat).Quo(new(big.Rat).SetInt(q), scale)
}

// clip shortens a caller's text quoted in a message.
func clip(s string) string {
	if r := []rune(s); len(r) > 40 {
		return string(r[:37]) + "..."
	}
	return s
}
