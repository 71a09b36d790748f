package members_test

import (
	"testing"

	"github.com/axp-exchange/axp"
	"github.com/axp-exchange/axp/daemon/kernel/kerneltest"
	"github.com/axp-exchange/axp/daemon/members"
	"github.com/axp-exchange/axp/daemon/screening"
	"github.com/axp-exchange/axp/protocol"
	"github.com/axp-exchange/axp/store"
)

func TestOnOfferSummarisesVerifiedSellersUntilTheyChange(t *testing.T) {
	f := kerneltest.New(t)
	s := members.New(f.K.Base(), screening.New(f.K.Base(), f.K), f.K, f.K, f.K.Caller, f.K.Keys)
	usd := func(d int64) *axp.Money { m := axp.USD(d, 0); return &m }
	eta := func(n int) *int { return &n }
	f.AddMember(t, axp.Registration{Roles: []string{"seller"}, Name: "Ann", Skills: []protocol.Skill{
		{TaskType: "text-file", Description: "haiku", MinPriceUSD: usd(3), TypicalETAMinutes: eta(60)},
		{TaskType: "image", MinPriceUSD: usd(9)}}})
	f.AddMember(t, axp.Registration{Roles: []string{"seller"}, Name: "Bob", Skills: []protocol.Skill{
		{TaskType: "text-file", InstantPriceUSD: usd(2), InstantETAMinutes: eta(5)}}})
	f.AddMember(t, axp.Registration{Roles: []string{"buyer"}, Name: "Cid", Skills: []protocol.Skill{{TaskType: "audio"}}})

	list, err := s.OnOffer()
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != 2 || list[0].TaskType != "text-file" || list[1].TaskType != "image" {
		t.Fatalf("on_offer %+v", list)
	}
	text := list[0]
	if text.Providers != 2 || *text.FromPriceUSD != axp.USD(2, 0) || *text.FastestETAMinutes != 5 || len(text.Examples) != 1 || text.Examples[0] != "haiku" {
		t.Errorf("text-file %+v", text)
	}
	again, _ := s.OnOffer()
	if &again[0] != &list[0] {
		t.Error("the summary was rebuilt though no seller changed")
	}

	// A new verified seller changes it; a suspended one leaves it.
	dan, _ := f.AddMember(t, axp.Registration{Roles: []string{"seller"}, Name: "Dan", Skills: []protocol.Skill{{TaskType: "summary"}}})
	if list, _ = s.OnOffer(); len(list) != 3 {
		t.Fatalf("with a third seller: %+v", list)
	}
	f.Update(t, func(tx *store.Tx) error {
		m, err := tx.Member(dan.MemberID)
		if err != nil {
			return err
		}
		m.State = axp.MemberSuspended
		return tx.PutMember(m)
	})
	if list, _ = s.OnOffer(); len(list) != 2 {
		t.Errorf("after a suspension: %+v", list)
	}
}

func TestAlsoSellInvitesNonSellersAtTheCurrentBaseURL(t *testing.T) {
	f := kerneltest.New(t)
	s := members.New(f.K.Base(), screening.New(f.K.Base(), f.K), f.K, f.K, f.K.Caller, f.K.Keys)
	if s.AlsoSell(axp.Caller{Kind: axp.MemberCall, Roles: []string{"seller"}}) != nil {
		t.Error("a seller was invited to sell")
	}
	// Built before the listener's port is known, it follows the base URL set then.
	early := s.AlsoSell(anonymous)
	f.K.SetBaseURL("http://127.0.0.1:4321")
	first := s.AlsoSell(anonymous)
	if early == nil || early == first {
		t.Errorf("the invitation before the base URL was set: %+v", early)
	}
	if first == nil || first.JoinURL != "http://127.0.0.1:4321/join" || len(first.Steps) != 4 {
		t.Fatalf("invitation %+v", first)
	}
	if s.AlsoSell(axp.Caller{Kind: axp.MemberCall, Roles: []string{"buyer"}}) != first {
		t.Error("the invitation was built again for the same base URL")
	}
}
