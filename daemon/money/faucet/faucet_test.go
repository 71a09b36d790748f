package faucet_test

import (
	"strings"
	"testing"
	"time"

	"github.com/axp-exchange/axp"
	"github.com/axp-exchange/axp/daemon/money/faucet"
	"github.com/axp-exchange/axp/store"
)

// The faucet's limits: per address one gift every 10 s and US$5,000 an hour; per caller and for
// the whole exchange the configured budgets of an hour, each refusal naming its limit with when to
// come back.
func TestAdmit(t *testing.T) {
	at := time.Date(2026, 11, 27, 10, 0, 0, 0, time.UTC)
	const perCaller, perHour = axp.Money(3_000_000_000), axp.Money(4_000_000_000)
	var gifts []store.FaucetGift
	give := func(addr, caller string, usd axp.Money, when time.Time) *axp.Error {
		g := store.FaucetGift{At: when, Address: addr, USD: usd, Callers: []string{caller}}
		err := faucet.Admit(gifts, g, perCaller, perHour)
		if err == nil {
			gifts = append(gifts, g)
		}
		return err
	}
	refused := func(err *axp.Error, limit string, minWait int) {
		t.Helper()
		if err == nil || err.Code != axp.CodeRateLimited || !strings.Contains(err.Message, limit) || err.RetryAfter < minWait {
			t.Fatalf("want a refusal naming %q (Retry-After at least %d): %v", limit, minWait, err)
		}
	}
	if err := give("a", "ip:1", faucet.Max, at); err != nil {
		t.Fatal(err)
	}
	refused(give("a", "ip:2", faucet.Max, at.Add(5*time.Second)), "every 10s", 5)
	// One caller, fresh addresses: refused past its budget, whichever address it names.
	for i, addr := range []string{"b", "c"} {
		if err := give(addr, "ip:1", faucet.Max, at.Add(time.Duration(i+1)*time.Second)); err != nil {
			t.Fatal(err)
		}
	}
	refused(give("d", "ip:1", faucet.Default, at.Add(time.Minute)), "faucet_usd_per_caller_hour", 3500)
	// Another caller fits until the whole exchange's hour is spent.
	if err := give("d", "ip:2", faucet.Max, at.Add(time.Minute)); err != nil {
		t.Fatal(err)
	}
	refused(give("e", "ip:3", faucet.Default, at.Add(2*time.Minute)), "faucet_usd_per_hour", 3400)
	// An hour after the first gifts, they no longer count.
	var kept []store.FaucetGift
	for _, g := range gifts {
		if at.Add(time.Hour+5*time.Second).Sub(g.At) < time.Hour {
			kept = append(kept, g)
		}
	}
	gifts = kept
	if err := give("e", "ip:1", faucet.Max, at.Add(time.Hour+5*time.Second)); err != nil {
		t.Fatalf("an hour later: %v", err)
	}
}
