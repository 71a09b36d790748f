package answers_test

import (
	"testing"

	"github.com/axp-exchange/axp"
	"github.com/axp-exchange/axp/daemon/talk/answers"
	"github.com/axp-exchange/axp/protocol"
)

// TestTalkPlainAnswers: the built-in assistant reads amounts, durations, agreement and picks among
// offers from plain answers.
func TestTalkPlainAnswers(t *testing.T) {
	for _, c := range []struct {
		in             string
		bare           bool
		want           string
		free, none, ok bool
	}{
		{"$5", false, "5", false, false, true},
		{"US$ 7.50 tops", false, "7.5", false, false, true},
		{"about 12 dollars", false, "12", false, false, true},
		{"3 usd", false, "3", false, false, true},
		{"free", true, "0", true, false, true},
		{"$0", false, "0", true, false, true},
		{"no limit", true, "0", false, true, true},
		{"20", true, "20", false, false, true},
		{"20", false, "0", false, false, false},
		{"a free redo would be nice", true, "0", false, false, false},
	} {
		m, free, none, ok := answers.Budget(c.in, c.bare)
		if want, _ := protocol.ParseMoney(c.want); m != want || free != c.free || none != c.none || ok != c.ok {
			t.Errorf("Budget(%q, %v) = %s %v %v %v", c.in, c.bare, m, free, none, ok)
		}
	}
	for _, c := range []struct {
		in       string
		bare     bool
		minutes  int
		none, ok bool
	}{
		{"2 hours", true, 120, false, true},
		{"within 2 hours", false, 120, false, true},
		{"in 45 minutes please", false, 45, false, true},
		{"3 days", true, 3 * 1440, false, true},
		{"a week", true, 7 * 1440, false, true},
		{"half an hour", true, 30, false, true},
		{"tomorrow", true, 1440, false, true},
		{"by tomorrow", false, 1440, false, true},
		{"no rush", true, 0, true, true},
		{"90", true, 90, false, true},
		{"a 30 minute podcast", false, 0, false, false},
		{"10 seconds", true, 0, false, false},
	} {
		m, none, ok := answers.Deadline(c.in, c.bare)
		if m != c.minutes || none != c.none || ok != c.ok {
			t.Errorf("Deadline(%q, %v) = %d %v %v", c.in, c.bare, m, none, ok)
		}
	}
	for in, want := range map[string]bool{"yes": true, "Yes, list it!": true, "ok": true, "sure thing": true, "go ahead": true,
		"no": false, "not yet": false, "yes but make it 12 seconds long and in black and white": false} {
		if answers.IsYes(in) != want {
			t.Errorf("IsYes(%q) = %v", in, !want)
		}
	}
	offers := []axp.Offer{
		{OfferID: "a", Seller: protocol.SellerRef{Name: "Quill"}, PriceUSD: axp.USD(3, 0), ETAMinutes: 30},
		{OfferID: "b", Seller: protocol.SellerRef{Name: "Scribe"}, PriceUSD: axp.USD(1, 0), ETAMinutes: 60},
		{OfferID: "c", Seller: protocol.SellerRef{Name: "Pen"}, PriceUSD: axp.USD(5, 0), ETAMinutes: 5},
	}
	for in, want := range map[string]int{"the second one": 1, "2": 1, "#3": 2, "third": 2, "the first one": 0, "cheapest": 1,
		"the fastest please": 2, "your recommendation": 0, "Scribe": 1, "the last one": 2, "offer 2": 1, "hmm": -1, "7": -1} {
		if got := answers.Pick(in, offers, 0); got != want {
			t.Errorf("Pick(%q) = %d, want %d", in, got, want)
		}
	}
	for in, want := range map[string]string{"web-research": "web-research", "web research": "web-research", "something else": "custom",
		"a data-cleaning job": "data-cleaning", "I am not sure what to call it really": "custom"} {
		if got := answers.CustomType(in); got != want {
			t.Errorf("CustomType(%q) = %q, want %q", in, got, want)
		}
	}
	for in, want := range map[string]string{"translate hello world into French": "hello world", "Please translate good morning to Spanish.": "good morning",
		"translate my README into French": "", "translate this into German": "", "I need a translation": ""} {
		if got := answers.BriefText(in); got != want {
			t.Errorf("BriefText(%q) = %q, want %q", in, got, want)
		}
	}
	for in, want := range map[string]bool{"free": true, "$5": true, "tomorrow": true, "no rush": true,
		"hello world": false, "free as a bird, says the poem": false} {
		if answers.OnlyTerms(in) != want {
			t.Errorf("OnlyTerms(%q) = %v", in, !want)
		}
	}
}
