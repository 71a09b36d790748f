// Package faucet is the limits of test mode's faucet: what one call mints, how often and how much
// one address is funded, and the budgets of an hour per caller and for the whole exchange. The
// money service records each gift and asks Admit before it sends one.
package faucet

import (
	"crypto/sha256"
	"encoding/hex"
	"slices"
	"time"

	"github.com/axp-exchange/axp"
	"github.com/axp-exchange/axp/store"
)

// The limits: what one call mints by default and at most, and how often and how much one
// address is funded. The budgets per caller and for the whole exchange are configuration
// (Config.FaucetPerCaller, Config.FaucetPerHour).
const (
	Default    = axp.Money(100_000_000)   // US$100
	Max        = axp.Money(1_000_000_000) // US$1,000
	Every      = 10 * time.Second
	PerAddress = axp.Money(5_000_000_000) // US$5,000 an hour per address
)

// budget is one budget of an hour: the gifts it counts, its limit, and what it is called in
// a refusal.
type budget struct {
	counts       func(store.FaucetGift) bool
	limit        axp.Money
	what, remedy string
}

// Admit says why gifts (the last hour's, oldest first) leave no room for g, with when to come
// back, or nil.
func Admit(gifts []store.FaucetGift, g store.FaucetGift, perCaller, perHour axp.Money) *axp.Error {
	now := g.At
	for i := len(gifts) - 1; i >= 0; i-- {
		if p := gifts[i]; p.Address == g.Address {
			if ago := now.Sub(p.At); ago < Every {
				wait := Every - ago
				return limited(wait, axp.Errorf(axp.CodeRateLimited, "the faucet funded %s %s ago: one gift per address every %s", g.Address,
					ago.Round(time.Second), Every).WithHint("try again in "+wait.Round(time.Second).String()))
			}
			break
		}
	}
	budgets := []budget{
		{func(p store.FaucetGift) bool { return p.Address == g.Address }, PerAddress,
			"the faucet's limit per address (" + PerAddress.Display() + " an hour)", "spend what it holds, or use another address"},
		{func(p store.FaucetGift) bool { return shareCaller(p.Callers, g.Callers) }, perCaller,
			"the faucet's budget per caller (faucet_usd_per_caller_hour: " + perCaller.Display() + " an hour per IP, member or token)",
			"spend the test money you have; the budget frees up as the hour's gifts age"},
		{func(store.FaucetGift) bool { return true }, perHour,
			"the faucet's budget for the whole exchange (faucet_usd_per_hour: " + perHour.Display() + " an hour)",
			"try again later; the operator can raise faucet_usd_per_hour"},
	}
	for _, b := range budgets {
		var given axp.Money
		for _, p := range gifts {
			if b.counts(p) {
				given += p.USD
			}
		}
		if given+g.USD <= b.limit {
			continue
		}
		// Come back when enough of the counted gifts have aged out of the hour.
		wait, left := time.Hour, given
		for _, p := range gifts {
			if b.counts(p) {
				left -= p.USD
				if left+g.USD <= b.limit {
					wait = p.At.Add(time.Hour).Sub(now)
					break
				}
			}
		}
		return limited(wait, axp.Errorf(axp.CodeRateLimited, "%s is spent: %s given in the last hour, %s asked", b.what,
			given.Display(), g.USD.Display()).WithHint(b.remedy+"; room for this gift in "+wait.Round(time.Second).String()))
	}
	return nil
}

// shareCaller reports whether two gifts share a caller.
func shareCaller(a, b []string) bool {
	for _, x := range a {
		if slices.Contains(b, x) {
			return true
		}
	}
	return false
}

// Callers are the keys a caller's gifts are counted under: its IP, and its member or
// buyer token (hashed) when it gave one.
func Callers(c axp.Caller) []string {
	out := []string{"ip:" + c.IP}
	if c.MemberID != "" {
		out = append(out, "member:"+c.MemberID)
	}
	if c.Token != "" {
		sum := sha256.Sum256([]byte(c.Token))
		out = append(out, "token:"+hex.EncodeToString(sum[:8]))
	}
	return out
}

// limited sets e's Retry-After to wait, in whole seconds (at least one).
func limited(wait time.Duration, e *axp.Error) *axp.Error {
	e.RetryAfter = max(1, int((wait+time.Second-1)/time.Second))
	return e
}
