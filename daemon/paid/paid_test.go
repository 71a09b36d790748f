package paid_test

import (
	"context"
	"strings"
	"testing"

	"github.com/axp-exchange/axp"
	"github.com/axp-exchange/axp/contract"
	"github.com/axp-exchange/axp/daemon/kernel/kerneltest"
	"github.com/axp-exchange/axp/daemon/paid"
	"github.com/axp-exchange/axp/daemon/recorded"
	"github.com/axp-exchange/axp/store"
)

// newPaid builds paid over the recorded service it uses, as daemon/services.go does, and sets its
// paywall up as daemon.New does: without a chain, the tools answer trial calls only.
func newPaid(t *testing.T) *kerneltest.Fixture {
	f := kerneltest.New(t)
	rec := recorded.New(f.K.Base(), f.K.Caller)
	if err := rec.SetupRecorders(); err != nil {
		t.Fatal(err)
	}
	p := paid.New(f.K.Base(), f.K.Rail, f.K.Caller, f.K, rec)
	if err := p.SetupPaid(context.Background()); err != nil {
		t.Fatal(err)
	}
	rec.Register(f.Reg)
	p.Register(f.Reg)
	return f
}

var anonymous = axp.Caller{Kind: axp.Anonymous, IP: "192.0.2.1"}

func TestFindPaidToolsListsPricesAndSaysWhyNotPayable(t *testing.T) {
	f := newPaid(t)
	all, err := kerneltest.Call(t, f.Reg, contract.FindPaidTools, anonymous, &axp.PaidToolsQuery{})
	if err != nil {
		t.Fatal(err)
	}
	if all.Payment.Available || !strings.Contains(all.Payment.Unavailable, "chain_rpc_url") || all.X402Version != 2 {
		t.Fatalf("payment %+v", all.Payment)
	}
	var risk *axp.PaidTool
	for i := range all.Tools {
		if all.Tools[i].Name == "paid_trading_risk" {
			risk = &all.Tools[i]
		}
	}
	if risk == nil || risk.PriceUSD != contract.PaidTradingRisk.Op().Price || risk.Path != "/paid/trading/risk" || risk.TrialURL == "" {
		t.Fatalf("paid_trading_risk listed as %+v", risk)
	}
	trading, err := kerneltest.Call(t, f.Reg, contract.FindPaidTools, anonymous, &axp.PaidToolsQuery{Category: "trading"})
	if err != nil || len(trading.Tools) == 0 || len(trading.Tools) >= len(all.Tools) {
		t.Fatalf("category trading: %d of %d tools, %v", len(trading.Tools), len(all.Tools), err)
	}
	for _, tool := range trading.Tools {
		if tool.Category != "trading" {
			t.Fatalf("category trading lists %s (%s)", tool.Name, tool.Category)
		}
	}
}

func TestTradingRiskSizesAPositionAndItsPrecheckRefusesAStopAtTheEntry(t *testing.T) {
	f := newPaid(t)
	zero := 0
	out, err := kerneltest.Call(t, f.Reg, contract.PaidTradingRisk, anonymous, &axp.TradingRiskQuery{Account: "10000", RiskPct: "1", Entry: "100", Stop: "95", SizeDecimals: &zero})
	if err != nil {
		t.Fatal(err)
	}
	if out.Direction != "long" || out.PositionSize != "20" || out.RiskAmount != "100" || out.StopDistance != "5" {
		t.Fatalf("sized %+v", out)
	}
	_, err = kerneltest.Call(t, f.Reg, contract.PaidTradingRisk, anonymous, &axp.TradingRiskQuery{Account: "10000", RiskPct: "1", Entry: "100", Stop: "100"})
	if e := kerneltest.Err(t, err, axp.CodeInvalidInput); e.Field != "stop" {
		t.Fatalf("refusal names %q", e.Field)
	}
}

func TestRequestConnectorThenGetIt(t *testing.T) {
	f := newPaid(t)
	c, err := kerneltest.Call(t, f.Reg, contract.RequestConnector, anonymous, &axp.ConnectorRequest{URL: "https://data.example/api/prices", Wants: "daily closing prices"})
	if err != nil {
		t.Fatal(err)
	}
	var stored *axp.Connector
	f.View(t, func(tx *store.Tx) (err error) { stored, err = tx.Connector(c.ID); return err })
	if stored == nil || stored.Status != c.Status || !stored.CreatedAt.Equal(kerneltest.Start) {
		t.Fatalf("stored %+v", stored)
	}
	got, err := kerneltest.Call(t, f.Reg, contract.GetConnector, anonymous, &axp.IDPath{ID: c.ID})
	if err != nil || got.ID != c.ID || got.URL != "https://data.example/api/prices" || got.SetupFeeUSD == 0 {
		t.Fatalf("get_connector %+v, %v", got, err)
	}
	_, err = kerneltest.Call(t, f.Reg, contract.GetConnector, anonymous, &axp.IDPath{ID: "con_missing"})
	kerneltest.Err(t, err, axp.CodeNotFound)
}
