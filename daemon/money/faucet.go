package money

import (
	"context"
	"slices"
	"strings"
	"time"

	"github.com/axp-exchange/axp"
	"github.com/axp-exchange/axp/daemon/chain"
	"github.com/axp-exchange/axp/daemon/kernel"
	"github.com/axp-exchange/axp/daemon/money/faucet"
	"github.com/axp-exchange/axp/daemon/pipeline"
	"github.com/axp-exchange/axp/store"
)

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
		if refused = faucet.Admit(gifts, g, s.base.Cfg().FaucetPerCaller, s.base.Cfg().FaucetPerHour); refused != nil {
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
	usd := faucet.Default
	if in.USD != nil {
		usd = *in.USD
	}
	if usd <= 0 || usd > faucet.Max {
		return nil, axp.Invalid("usd", "the faucet mints more than 0 and at most "+faucet.Max.Display()+" a call", "ask for at most "+faucet.Max.String())
	}
	g := store.FaucetGift{ID: axp.RandomHex(8), At: s.base.Now(), Address: strings.ToLower(in.Address), USD: usd, Callers: faucet.Callers(c.Caller)}
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
