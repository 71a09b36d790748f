package site_test

import (
	"testing"
	"time"

	"github.com/axp-exchange/axp"
	"github.com/axp-exchange/axp/contract"
	"github.com/axp-exchange/axp/daemon/kernel/kerneltest"
	"github.com/axp-exchange/axp/daemon/members"
	"github.com/axp-exchange/axp/daemon/money"
	"github.com/axp-exchange/axp/daemon/screening"
	"github.com/axp-exchange/axp/daemon/site"
	"github.com/axp-exchange/axp/daemon/tasks"
	"github.com/axp-exchange/axp/daemon/trust"
	"github.com/axp-exchange/axp/protocol"
)

// newSite builds site over the members and trust services it uses, as daemon/services.go does.
func newSite(t *testing.T) *kerneltest.Fixture {
	f := kerneltest.New(t)
	scr := screening.New(f.K.Base(), f.K)
	life := tasks.NewLifecycle(f.K.Base(), f.K)
	mem := members.New(f.K.Base(), scr, f.K, f.K, f.K.Caller, f.K.Keys)
	site.New(f.K.Base(), f.K, mem, trust.New(f.K.Base(), scr, life, f.K, f.K.Caller, money.New(f.K.Base(), f.K.Rail, f.K.Prom, life))).Register(f.Reg)
	return f
}

var anonymous = axp.Caller{Kind: axp.Anonymous, IP: "192.0.2.1"}

func TestFrontDoorCountsTheMarketNow(t *testing.T) {
	f := newSite(t)
	f.AddMember(t, axp.Registration{Roles: []string{"seller"}, Name: "Ann", Skills: []protocol.Skill{{TaskType: "text-file"}, {TaskType: "image"}}})
	f.AddMember(t, axp.Registration{Roles: []string{"seller"}, Name: "Bob", Skills: []protocol.Skill{{TaskType: "text-file"}}})
	f.Clock.Add(30 * time.Minute)
	fd, err := kerneltest.Call(t, f.Reg, contract.GetFrontDoor, anonymous, nil)
	if err != nil {
		t.Fatal(err)
	}
	m := fd.Market
	if m.ServicesOnOffer != 2 || m.SellersOnline != 2 || len(m.TopServices) == 0 || m.TopServices[0] != (axp.MarketService{Type: "text-file", Sellers: 2}) ||
		!m.AsOf.Equal(kerneltest.Start.Add(30*time.Minute)) {
		t.Fatalf("market %+v", m)
	}
	// Sellers heard from more than 65 minutes ago are not online.
	f.Clock.Add(time.Hour)
	if fd, err = kerneltest.Call(t, f.Reg, contract.GetFrontDoor, anonymous, nil); err != nil || fd.Market.SellersOnline != 0 {
		t.Fatalf("an hour and a half later: %+v, %v", fd.Market, err)
	}
}

func TestProtocolDocumentNamesTheBaseURL(t *testing.T) {
	f := newSite(t)
	p, err := kerneltest.Call(t, f.Reg, contract.GetProtocol, anonymous, nil)
	if err != nil {
		t.Fatal(err)
	}
	if p.Protocol != protocol.ProtocolVersion || p.BaseURL != "http://127.0.0.1:8420" || p.Transports["rest"] != "http://127.0.0.1:8420/api" {
		t.Fatalf("protocol %+v", p)
	}
	if len(p.RequiredTools) == 0 || len(p.TaskStatuses) == 0 {
		t.Fatalf("protocol %+v", p)
	}
}

func TestRegisterInterestIsRecordedAsDemand(t *testing.T) {
	f := newSite(t)
	rec, err := kerneltest.Call(t, f.Reg, contract.RegisterInterest, anonymous, &axp.Interest{Type: " Video "})
	if err != nil || !rec.Recorded || !rec.CreatedAt.Equal(kerneltest.Start) {
		t.Fatalf("recorded %+v, %v", rec, err)
	}
	list, err := kerneltest.Call(t, f.Reg, contract.ListServices, anonymous, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(list.Demand) != 1 || list.Demand[0].TaskType != "video" || list.Demand[0].Requests != 1 || list.Demand[0].Providers != 0 {
		t.Fatalf("demand %+v", list.Demand)
	}
	_, err = kerneltest.Call(t, f.Reg, contract.RegisterInterest, anonymous, &axp.Interest{Type: "call me at +1 415 555 0134"})
	if e := kerneltest.Err(t, err, axp.CodeInvalidInput); e.Field != "type" {
		t.Fatalf("refusal names %q", e.Field)
	}
}
