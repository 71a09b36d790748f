package mediator_test

import (
	"strings"
	"testing"

	"github.com/axp-exchange/axp"
	"github.com/axp-exchange/axp/daemon/trust/mediator"
)

func ip(n int) *int { return &n }

// TestDispute covers each rule of the built-in Mediator and the bounds set by the proposals.
func TestDispute(t *testing.T) {
	cases := []struct {
		name string
		f    mediator.Facts
		pct  int
		rule string
	}{
		{"failed checks refund", mediator.Facts{ChecksGiven: true, BuyerStated: true, SellerStated: true}, 100, "checks_failed"},
		{"failed checks, buyer asked less", mediator.Facts{ChecksGiven: true, BuyerStated: true, BuyerPct: ip(80), SellerStated: true}, 80, "checks_failed"},
		{"silent seller", mediator.Facts{WindowEnded: true, BuyerStated: true}, 100, "seller_silent"},
		{"silent seller, buyer's proposal", mediator.Facts{WindowEnded: true, BuyerStated: true, BuyerPct: ip(60)}, 60, "seller_silent"},
		{"silent buyer", mediator.Facts{WindowEnded: true, SellerStated: true}, 0, "buyer_silent"},
		{"silent buyer, seller offers", mediator.Facts{WindowEnded: true, SellerStated: true, SellerPct: ip(15)}, 15, "buyer_silent"},
		{"very late", mediator.Facts{Late: true, VeryLate: true, BuyerStated: true, SellerStated: true}, 50, "very_late"},
		{"late", mediator.Facts{Late: true, BuyerStated: true, SellerStated: true}, 25, "late"},
		{"late, seller offers more", mediator.Facts{Late: true, BuyerStated: true, SellerStated: true, SellerPct: ip(40)}, 40, "late"},
		{"midpoint", mediator.Facts{BuyerStated: true, BuyerPct: ip(60), SellerStated: true, SellerPct: ip(20)}, 40, "both_proposed"},
		{"midpoint rounds half up", mediator.Facts{BuyerStated: true, BuyerPct: ip(61), SellerStated: true, SellerPct: ip(20)}, 41, "both_proposed"},
		{"checks passed", mediator.Facts{ChecksGiven: true, ChecksPassed: true, BuyerStated: true, SellerStated: true}, 0, "checks_passed"},
		{"one proposal", mediator.Facts{BuyerStated: true, SellerStated: true, SellerPct: ip(30)}, 30, "one_proposal"},
		{"no evidence", mediator.Facts{BuyerStated: true, SellerStated: true}, 50, "no_evidence"},
		{"no evidence, buyer asks less", mediator.Facts{BuyerStated: true, BuyerPct: ip(20), SellerStated: true}, 20, "one_proposal"},
	}
	for _, c := range cases {
		pct, rule, why := mediator.Dispute(c.f)
		if pct != c.pct || rule != c.rule || !strings.Contains(why, rule) {
			t.Errorf("%s: %d %s (%s), want %d %s", c.name, pct, rule, why, c.pct, c.rule)
		}
	}
	if !strings.Contains(mediator.RulesText(), "checks_failed") && !strings.Contains(mediator.RulesText(), "acceptance checks") {
		t.Error("the FAQ text does not describe the rules")
	}
}

func TestObjection(t *testing.T) {
	plain := &axp.TaskRecord{}
	disputed := &axp.TaskRecord{Disputed: true}
	cases := []struct {
		name    string
		r       axp.ReviewView
		t       *axp.TaskRecord
		outcome string
	}{
		{"contact details", axp.ReviewView{Rating: 4, Comment: "x", Screening: &axp.Screening{Removed: []string{"email"}}}, plain, "remove"},
		{"injection", axp.ReviewView{Rating: 5, Comment: "x", Screening: &axp.Screening{Flagged: true}}, plain, "remove"},
		{"bare low rating, no dispute", axp.ReviewView{Rating: 1}, plain, "remove"},
		{"bare low rating after a dispute", axp.ReviewView{Rating: 1}, disputed, "keep"},
		{"an opinion", axp.ReviewView{Rating: 2, Comment: "slow"}, plain, "keep"},
	}
	for _, c := range cases {
		if got, _, _ := mediator.Objection(&c.r, c.t); got != c.outcome {
			t.Errorf("%s: %s, want %s", c.name, got, c.outcome)
		}
	}
}
