package axp_test

import (
	"testing"
	"time"

	"github.com/axp-exchange/axp"
)

func TestFeeFor(t *testing.T) {
	cases := []struct {
		price axp.Money
		bps   int64
		fee   axp.Money
	}{
		{axp.USD(4, 0), 100, axp.USD(0, 4)}, // 1% of 4.00
		{axp.USD(100000, 0), 100, axp.USD(1000, 0)},
		{axp.USD(0, 1), 100, 100}, // 1% of one cent is 100 micro-USD
		{50, 100, 1},              // 0.5 micro-USD rounds half-up
		{49, 100, 0},
		{150, 100, 2}, // 1.5 -> 2
		{axp.USD(3, 33), 100, 33_300},
		{0, 100, 0},
		{axp.USD(4, 0), 0, 0},
		{axp.USD(4, 0), 250, axp.USD(0, 10)},
	}
	for _, c := range cases {
		f := axp.FeeFor(c.price, c.bps)
		if f.PlatformFee != c.fee || f.BuyerTotal != c.price || f.SellerNet != c.price-c.fee || f.FeeBPS != c.bps {
			t.Errorf("FeeFor(%s, %d) = %+v, want fee %s", c.price, c.bps, f, c.fee)
		}
		if f.BuyerTotal != f.PlatformFee+f.SellerNet {
			t.Errorf("FeeFor(%s, %d) does not balance: %+v", c.price, c.bps, f)
		}
	}
	f := axp.FeeFor(axp.USD(4, 0), 100)
	if f.SellerNet != axp.USD(3, 96) || f.BuyerTotal != axp.USD(4, 0) {
		t.Fatalf("4.00 at 1%%: %+v", f)
	}
}

func TestFeeScheduleAt(t *testing.T) {
	f := axp.LaunchPromotion()
	if len(f.Windows) != 1 || f.DefaultBPS != 100 {
		t.Fatalf("schedule %+v", f)
	}
	w0 := f.Windows[0]
	if w0.Name != "launch_promotion" || w0.BPS != 100 || w0.PromotionalDays != 30 ||
		!w0.From.Equal(time.Date(2026, 10, 7, 0, 0, 0, 0, time.UTC)) || !w0.Until.Equal(time.Date(2026, 11, 7, 0, 0, 0, 0, time.UTC)) {
		t.Fatalf("window %+v", w0)
	}
	utc := func(s string) time.Time {
		tm, err := time.Parse(time.RFC3339Nano, s)
		if err != nil {
			t.Fatal(err)
		}
		return tm
	}
	cases := []struct {
		at     string
		inside bool
	}{
		{"2026-10-06T23:59:59.999999999Z", false},
		{"2026-10-07T00:00:00Z", true},
		{"2026-10-20T12:00:00Z", true},
		{"2026-11-06T23:59:59.999999999Z", true},
		{"2026-11-07T00:00:00Z", false},
		{"2026-11-07T00:00:00+01:00", true}, // 2026-11-06T23:00Z
		{"2027-01-01T00:00:00Z", false},
	}
	for _, c := range cases {
		bps, w := f.At(utc(c.at))
		if c.inside && (w == nil || w.Name != "launch_promotion" || bps != 100) {
			t.Errorf("%s: %d %v, want inside the promotion", c.at, bps, w)
		}
		if !c.inside && (w != nil || bps != f.DefaultBPS) {
			t.Errorf("%s: %d %v, want the default", c.at, bps, w)
		}
	}

	// Windows are checked in order and the default applies outside them.
	custom := axp.FeeSchedule{
		Windows: []axp.FeeWindow{
			{Name: "a", From: utc("2027-01-01T00:00:00Z"), Until: utc("2027-02-01T00:00:00Z"), BPS: 50},
			{Name: "b", From: utc("2027-02-01T00:00:00Z"), Until: utc("2027-03-01T00:00:00Z"), BPS: 0},
		},
		DefaultBPS: 300,
	}
	if bps, w := custom.At(utc("2027-02-01T00:00:00Z")); bps != 0 || w == nil || w.Name != "b" {
		t.Errorf("edge of b: %d %v", bps, w)
	}
	if bps, w := custom.At(utc("2027-01-31T23:59:59Z")); bps != 50 || w.Name != "a" {
		t.Errorf("end of a: %d %v", bps, w)
	}
	if bps, w := custom.At(utc("2027-03-01T00:00:00Z")); bps != 300 || w != nil {
		t.Errorf("after: %d %v", bps, w)
	}
}
