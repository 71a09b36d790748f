package axp

import (
	"time"

	"github.com/axp-exchange/axp/protocol"
)

// Money is an amount in integer micro-USD (see protocol.Money).
type Money = protocol.Money

// USD builds an amount from dollars and cents.
func USD(dollars, cents int64) Money { return protocol.USD(dollars, cents) }

// FeeWindow is a period with its own platform fee, in basis points of the seller's price.
type FeeWindow struct {
	Name  string    `json:"name" koanf:"name"`
	From  time.Time `json:"from" koanf:"from"`
	Until time.Time `json:"until" koanf:"until"`
	BPS   int64     `json:"bps" koanf:"bps"`
	// PromotionalDays is the advertised length of a promotion window (spec 1.7 says 30 for the
	// launch promotion, whose window runs from 2026-10-07 to the end of 2026-11-06).
	PromotionalDays int `json:"promotional_days,omitempty" koanf:"promotional_days"`
}

// FeeSchedule is the platform fee over time: windows, and a default outside them.
type FeeSchedule struct {
	Windows    []FeeWindow `json:"windows"`
	DefaultBPS int64       `json:"default_bps"`
}

// LaunchPromotion is the shipped fee schedule: 1% from 2026-10-07 until the end of 2026-11-06 (UTC),
// and the promotion rate continuing until a new fee is announced.
func LaunchPromotion() FeeSchedule {
	return FeeSchedule{
		Windows: []FeeWindow{{
			Name:  "launch_promotion",
			From:  time.Date(2026, 10, 7, 0, 0, 0, 0, time.UTC),
			Until: time.Date(2026, 11, 7, 0, 0, 0, 0, time.UTC),
			BPS:   100,

			PromotionalDays: 30,
		}},
		DefaultBPS: 100,
	}
}

// At returns the fee in basis points at t and the window that set it (nil outside every window).
func (f FeeSchedule) At(t time.Time) (int64, *FeeWindow) {
	for i := range f.Windows {
		w := &f.Windows[i]
		if !t.Before(w.From) && t.Before(w.Until) {
			return w.BPS, w
		}
	}
	return f.DefaultBPS, nil
}

// Fee is the breakdown of a price: the buyer pays Total, the platform keeps Fee, the seller nets Net.
type Fee struct {
	BuyerTotal  Money `json:"buyer_total_usd"`
	PlatformFee Money `json:"platform_fee_usd"`
	SellerNet   Money `json:"seller_net_usd"`
	FeeBPS      int64 `json:"fee_bps"`
}

// FeeFor splits price at bps: fee = price x bps / 10,000 rounded half-up to the micro-USD; buyers
// never pay a platform fee.
func FeeFor(price Money, bps int64) Fee {
	fee := price.MulDiv(bps, 10_000)
	return Fee{BuyerTotal: price, PlatformFee: fee, SellerNet: price - fee, FeeBPS: bps}
}
