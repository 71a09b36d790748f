package money

import (
	"context"
	"strings"
	"sync"
	"time"

	"github.com/axp-exchange/axp"
	"github.com/axp-exchange/axp/daemon/chain"
	"github.com/axp-exchange/axp/daemon/kernel"
	"github.com/axp-exchange/axp/daemon/pipeline"
)

// Faucet limits: what one call mints by default and at most, and how often one address is funded.
const (
	faucetDefault = axp.Money(100_000_000)   // US$100
	faucetMax     = axp.Money(1_000_000_000) // US$1,000
	faucetEvery   = 10 * time.Second
	faucetPerHour = axp.Money(5_000_000_000) // US$5,000
)

// faucetLimit remembers what the faucet gave each address in the last hour.
type faucetLimit struct {
	mu    sync.Mutex
	given map[string][]faucetGift
}

type faucetGift struct {
	at  time.Time
	usd axp.Money
}

// take books a gift of usd to addr at now, or says why not and when to come back.
func (l *faucetLimit) take(addr string, usd axp.Money, now time.Time) *axp.Error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.given == nil {
		l.given = map[string][]faucetGift{}
	}
	var keep []faucetGift
	var hour axp.Money
	for _, g := range l.given[addr] {
		if now.Sub(g.at) < time.Hour {
			keep = append(keep, g)
			hour += g.usd
		}
	}
	if n := len(keep); n > 0 && now.Sub(keep[n-1].at) < faucetEvery {
		wait := faucetEvery - now.Sub(keep[n-1].at)
		return limited(wait, axp.Errorf(axp.CodeRateLimited, "the faucet funded %s %s ago: one gift per address every %s", addr,
			now.Sub(keep[n-1].at).Round(time.Second), faucetEvery).WithHint("try again in "+wait.Round(time.Second).String()))
	}
	if hour+usd > faucetPerHour {
		return limited(time.Hour-now.Sub(keep[0].at), axp.Errorf(axp.CodeRateLimited, "the faucet gave %s %s in the last hour, at most %s an hour", addr,
			hour.Display(), faucetPerHour.Display()).WithHint("spend what it holds, or use another address"))
	}
	l.given[addr] = append(keep, faucetGift{now, usd})
	return nil
}

// undo forgets the gift take booked to addr at at: the chain did not send it.
func (l *faucetLimit) undo(addr string, at time.Time) {
	l.mu.Lock()
	defer l.mu.Unlock()
	gifts := l.given[addr]
	for i := len(gifts) - 1; i >= 0; i-- {
		if gifts[i].at.Equal(at) {
			l.given[addr] = append(gifts[:i], gifts[i+1:]...)
			return
		}
	}
}

// limited sets e's Retry-After to wait, in whole seconds (at least one).
func limited(wait time.Duration, e *axp.Error) *axp.Error {
	e.RetryAfter = max(1, int((wait+time.Second-1)/time.Second))
	return e
}

// testFund is the faucet of test mode (POST /api/test/fund): it mints TestUSD to an address and
// sends it gas when it has too little. An exchange not in test mode has no faucet: its money is real.
func (s *Service) testFund(ctx context.Context, c *pipeline.Call, in *axp.TestFundInput) (*axp.TestFunds, error) {
	if s.Faucet == nil {
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
	addr, now := strings.ToLower(in.Address), s.Now()
	if err := s.faucet.take(addr, usd, now); err != nil {
		return nil, err
	}
	out, err := s.Faucet.Fund(ctx, chain.Checksummed(in.Address), usd)
	if err != nil {
		s.faucet.undo(addr, now) // nothing was given: the address may ask again at once
		return nil, err
	}
	// Stored as the call's answer, so that a retry with the same key replays the gift instead of
	// meeting the faucet's limit.
	return kernel.Apply(s.Kernel, ctx, c.Caller.Actor(), func(ch *kernel.Change) (*axp.TestFunds, error) { return &out, nil })
}
