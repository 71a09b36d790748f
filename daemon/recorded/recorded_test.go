package recorded_test

import (
	"testing"
	"time"

	"github.com/axp-exchange/axp"
	"github.com/axp-exchange/axp/contract"
	"github.com/axp-exchange/axp/daemon/kernel"
	"github.com/axp-exchange/axp/daemon/kernel/kerneltest"
	"github.com/axp-exchange/axp/daemon/recorded"
)

// newRecorded builds recorded with its recorders set up as daemon.New does (none polls here).
func newRecorded(t *testing.T, opts ...kerneltest.Option) *kerneltest.Fixture {
	f := kerneltest.New(t, opts...)
	rec := recorded.New(f.K.Base(), f.K.Caller)
	if err := rec.SetupRecorders(); err != nil {
		t.Fatal(err)
	}
	rec.Register(f.Reg)
	return f
}

var anonymous = axp.Caller{Kind: axp.Anonymous, IP: "192.0.2.1"}

func withMarket(c *kernel.Config) { c.MarketSourceURL = "https://prices.example/api/v3/simple/price" }

func TestProofChainOfAnEmptyStore(t *testing.T) {
	f := newRecorded(t)
	head, err := kerneltest.Call(t, f.Reg, contract.GetLatestProof, anonymous, nil)
	if err != nil || head.Head != nil || head.Algorithm == "" || head.ChainURL == "" {
		t.Fatalf("latest proof %+v, %v", head, err)
	}
	chain, err := kerneltest.Call(t, f.Reg, contract.ListProofChain, anonymous, &axp.ProofChainQuery{})
	if err != nil || len(chain.Entries) != 0 || chain.Next != 0 {
		t.Fatalf("chain %+v, %v", chain, err)
	}
}

func TestMarketAsOfNeedsASourceAndATimeNotInTheFuture(t *testing.T) {
	f := newRecorded(t)
	q := &axp.MarketAsOfQuery{AsOf: kerneltest.Start.Format(time.RFC3339), Coins: "bitcoin"}
	_, err := kerneltest.Call(t, f.Reg, contract.PaidMarketAsOf, anonymous, q)
	kerneltest.Err(t, err, axp.CodeUnavailable)

	f = newRecorded(t, withMarket)
	q.AsOf = kerneltest.Start.Add(time.Hour).Format(time.RFC3339)
	_, err = kerneltest.Call(t, f.Reg, contract.PaidMarketAsOf, anonymous, q)
	if e := kerneltest.Err(t, err, axp.CodeInvalidInput); e.Field != "as_of" {
		t.Fatalf("refusal names %q", e.Field)
	}
	f.Clock.Add(2 * time.Hour)
	// Once the clock passed it, the time is taken: nothing was recorded, and the answer says so.
	out, err := kerneltest.Call(t, f.Reg, contract.PaidMarketAsOf, anonymous, q)
	if err != nil || len(out.Prices) != 0 || len(out.Missing) != 1 || out.Missing[0] != "bitcoin" || !out.AsOf.Equal(kerneltest.Start.Add(time.Hour)) {
		t.Fatalf("as of %+v, %v", out, err)
	}
}

func TestPublishedSignalIsChained(t *testing.T) {
	f := newRecorded(t, withMarket)
	ann, _ := f.AddMember(t, axp.Registration{Roles: []string{"seller"}, Name: "Ann"})
	sig, err := kerneltest.Call(t, f.Reg, contract.PublishSignal, ann, &axp.PublishSignalInput{Strategy: "breakout", Market: "bitcoin", Side: "long",
		Entry: "100", Stop: "95", Target: "110", Horizon: "4h"})
	if err != nil {
		t.Fatal(err)
	}
	if sig.Outcome != "open" || sig.Seq != 1 || !sig.Due.Equal(kerneltest.Start.Add(4*time.Hour)) || sig.Member != ann.MemberID {
		t.Fatalf("signal %+v", sig)
	}
	head, err := kerneltest.Call(t, f.Reg, contract.GetLatestProof, anonymous, nil)
	if err != nil || head.Head == nil || head.Head.Seq != 1 || head.Head.Kind != "signal" || head.Head.Count != 1 {
		t.Fatalf("latest proof %+v, %v", head, err)
	}
	_, err = kerneltest.Call(t, f.Reg, contract.PublishSignal, ann, &axp.PublishSignalInput{Strategy: "breakout", Market: "bitcoin", Side: "long",
		Entry: "100", Stop: "105", Target: "110", Horizon: "4h"})
	if e := kerneltest.Err(t, err, axp.CodeInvalidInput); e.Field != "stop" {
		t.Fatalf("refusal names %q", e.Field)
	}
}
