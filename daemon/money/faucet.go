package money

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"slices"
	"strings"
	"time"

	"github.com/axp-exchange/axp"
	"github.com/axp-exchange/axp/daemon/chain"
	"github.com/axp-exchange/axp/daemon/kernel"
	"github.com/axp-exchange/axp/daemon/pipeline"
	"github.com/axp-exchange/axp/store"
)

// Faucet limits: what one call mints by default and at most, and how often and how much one
// address is funded. The budgets per caller and for the whole exchange are configuration
// (Config.FaucetPerCaller, Config.FaucetPerHour).
const (
	faucetDefault = axp.Money(100_000_000)   // US$100
	faucetMax     = axp.Money(1_000_000_000) // US$1,000
	faucetEvery   = 10 * time.Second
	faucetPerHour = axp.Money(5_000_000_000) // US$5,000 per address
)

// faucetBudget is one budget of an hour: the gifts it counts, its limit, and what it is called in
// a refusal.
type faucetBudget struct {
	counts       func(store.FaucetGift) bool
	limit        axp.Money
	what, remedy string
}

// admit says why gifts (the last hour's, oldest first) leave no room for g, with when to come
// back, or nil.
func admit(gifts []store.FaucetGift, g store.FaucetGift, perCaller, perHour axp.Money) *axp.Error {
	now := g.At
	for i := len(gifts) - 1; i >= 0; i-- {
		if p := gifts[i]; p.Address == g.Address {
			if ago := now.Sub(p.At); ago < faucetEvery {
				wait := faucetEvery - ago
				return limited(wait, axp.Errorf(axp.CodeRateLimited, "the faucet funded %s %s ago: one gift per address every %s", g.Address,
					ago.Round(time.Second), faucetEvery).WithHint("try again in "+wait.Round(time.Second).String()))
			}
			break
		}
	}
	budgets := []faucetBudget{
		{func(p store.FaucetGift) bool { return p.Address == g.Address }, faucetPerHour,
			"the faucet's limit per address (" + faucetPerHour.Display() + " an hour)", "spend what it holds, or use another address"},
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

func shareCaller(a, b []string) bool {
	for _, x := range a {
		if slices.Contains(b, x) {
			return true
		}
	}
	return false
}

// faucetCallers are the keys a caller's gifts are counted under: its IP, and its member or
// buyer token (hashed) when it gave one.
func faucetCallers(c axp.Caller) []string {
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

// takeGift records g before anything is sent, in one transaction with the check of every budget:
// a daemon killed while the gift is on its way still counts it when it starts again, so no caller
// is given twice beyond a budget.
func (s *Service) takeGift(g store.FaucetGift) error {
	var refused *axp.Error
	err := s.base.Store.Update(func(tx *store.Tx) error {
		all, err := tx.FaucetGifts()
		if err != nil {
			return err
		}
		var gifts []store.FaucetGift
		for _, p := range all {
			if g.At.Sub(p.At) < time.Hour {
				gifts = append(gifts, p)
			}
		}
		if refused = admit(gifts, g, s.base.Cfg().FaucetPerCaller, s.base.Cfg().FaucetPerHour); refused != nil {
			return nil
		}
		return tx.SetFaucetGifts(append(gifts, g))
	})
	if err != nil {
		return err
	}
	return asError(refused)
}

// dropGift forgets gift id: the chain took nothing of it.
func (s *Service) dropGift(id string) error {
	return s.base.Store.Update(func(tx *store.Tx) error {
		gifts, err := tx.FaucetGifts()
		if err != nil {
			return err
		}
		return tx.SetFaucetGifts(slices.DeleteFunc(gifts, func(p store.FaucetGift) bool { return p.ID == id }))
	})
}

// asError turns a typed *axp.Error into an error that is nil when the pointer is.
func asError(e *axp.Error) error {
	if e == nil {
		return nil
	}
	return e
}

// limited sets e's Retry-After to wait, in whole seconds (at least one).
func limited(wait time.Duration, e *axp.Error) *axp.Error {
	e.RetryAfter = max(1, int((wait+time.Second-1)/time.Second))
	return e
}

// testFund is the faucet of test mode (POST /api/test/fund): it mints TestUSD to an address and
// sends it gas when it has too little. An exchange not in test mode has no faucet: its money is real.
func (s *Service) testFund(ctx context.Context, c *pipeline.Call, in *axp.TestFundInput) (*axp.TestFunds, error) {
	if s.rail.Faucet == nil {
		return nil, axp.Errorf(axp.CodeUnavailable, "this exchange is not in test mode: its money is real, and no faucet mints it").
			WithHint("pay with the stablecoin from your own wallet; for test money run an exchange with axp serve --test-mode")
	}
	if !chain.IsAddress(in.Address) {
		return nil, axp.Invalid("address", "not an address: "+in.Address, "give a 0x address of 40 hex digits, for example the one axp wallet address prints")
	}
	usd := faucetDefault
	if in.USD != nil {
		usd = *in.USD
	}
	if usd <= 0 || usd > faucetMax {
		return nil, axp.Invalid("usd", "the faucet mints more than 0 and at most "+faucetMax.Display()+" a call", "ask for at most "+faucetMax.String())
	}
	g := store.FaucetGift{ID: axp.RandomHex(8), At: s.base.Now(), Address: strings.ToLower(in.Address), USD: usd, Callers: faucetCallers(c.Caller)}
	if err := s.takeGift(g); err != nil {
		return nil, err
	}
	out, err := s.rail.Faucet.Fund(ctx, chain.Checksummed(in.Address), usd)
	if err != nil {
		// Forgotten only when nothing was sent: a mint on its way may still arrive, and counts.
		if out.TokenTx == "" {
			if derr := s.dropGift(g.ID); derr != nil {
				s.base.Log.Warn("the faucet could not forget a gift it did not send", "source", "payments", "err", derr)
			}
		}
		return nil, err
	}
	// Stored as the call's answer, so that a retry with the same key replays the gift instead of
	// meeting the faucet's limit.
	return kernel.Apply(s.base, ctx, c, func(ch *kernel.Change) (*axp.TestFunds, error) { return &out, nil })
}
