package protocol_test

import (
	"strings"
	"testing"
	"time"

	"github.com/axp-exchange/axp/protocol"
)

func money(m protocol.Money) *protocol.Money { return &m }
func intp(v int) *int                        { return &v }

func TestQuoteAnswerCheck(t *testing.T) {
	now := time.Date(2026, 10, 20, 12, 0, 0, 0, time.UTC)
	price := func(p protocol.Money, eta int) protocol.QuoteAnswer {
		return protocol.QuoteAnswer{PriceUSD: money(p), ETAMinutes: intp(eta)}
	}
	with := func(q protocol.QuoteAnswer, f func(*protocol.QuoteAnswer)) protocol.QuoteAnswer {
		f(&q)
		return q
	}
	questions := func(n int) []string {
		out := make([]string, n)
		for i := range out {
			out[i] = "question?"
		}
		return out
	}
	cases := []struct {
		name  string
		q     protocol.QuoteAnswer
		free  bool
		field string // "" means accepted
		msg   string
	}{
		{"paid price", price(protocol.USD(4, 50), 30), false, "", ""},
		{"smallest price", price(protocol.USD(0, 1), 1), false, "", ""},
		{"largest price and eta", price(protocol.USD(100000, 0), 43200), false, "", ""},
		{"zero price for a paid job", price(0, 30), false, "price_usd", "greater than 0"},
		{"negative price", price(-protocol.USD(1, 0), 30), false, "price_usd", "greater than 0"},
		{"free job at 0", price(0, 30), true, "", ""},
		{"free job with a price", price(protocol.USD(1, 0), 30), true, "price_usd", "must be 0 for a free job"},
		{"above the maximum", price(protocol.USD(100000, 1), 30), false, "price_usd", "maximum of 100000"},
		{"three decimals", price(4_555_000, 30), false, "price_usd", "more than 2 decimals"},
		{"six decimals", price(1, 30), false, "price_usd", "more than 2 decimals"},
		{"eta 0", price(protocol.USD(1, 0), 0), false, "eta_minutes", "1 to 43200"},
		{"eta above", price(protocol.USD(1, 0), 43201), false, "eta_minutes", "1 to 43200"},
		{"price without eta", protocol.QuoteAnswer{PriceUSD: money(protocol.USD(1, 0))}, false, "eta_minutes", "is required"},
		{"eta without price", protocol.QuoteAnswer{ETAMinutes: intp(5)}, false, "price_usd", "is required"},
		{"valid_until in the future", with(price(protocol.USD(1, 0), 5), func(q *protocol.QuoteAnswer) { q.ValidUntil = "2026-10-21T00:00:00Z" }), false, "", ""},
		{"valid_until in the past", with(price(protocol.USD(1, 0), 5), func(q *protocol.QuoteAnswer) { q.ValidUntil = "2026-10-19T00:00:00Z" }), false, "valid_until", "in the past"},
		{"valid_until now", with(price(protocol.USD(1, 0), 5), func(q *protocol.QuoteAnswer) { q.ValidUntil = "2026-10-20T12:00:00Z" }), false, "valid_until", "in the past"},
		{"valid_until not a time", with(price(protocol.USD(1, 0), 5), func(q *protocol.QuoteAnswer) { q.ValidUntil = "soon" }), false, "valid_until", "RFC 3339"},
		{"flat details", with(price(protocol.USD(1, 0), 5), func(q *protocol.QuoteAnswer) {
			q.Details = map[string]any{"resolution": "1080p", "fps": 30, "hdr": true, "none": nil}
		}), false, "", ""},
		{"nested object in details", with(price(protocol.USD(1, 0), 5), func(q *protocol.QuoteAnswer) {
			q.Details = map[string]any{"a": "x", "b": map[string]any{"c": 1}}
		}), false, "details.b", "plain value"},
		{"array in details", with(price(protocol.USD(1, 0), 5), func(q *protocol.QuoteAnswer) {
			q.Details = map[string]any{"list": []any{1, 2}}
		}), false, "details.list", "plain value"},
		{"Go slice in details", with(price(protocol.USD(1, 0), 5), func(q *protocol.QuoteAnswer) {
			q.Details = map[string]any{"list": []string{"a"}}
		}), false, "details.list", "plain value"},
		{"availability", with(price(protocol.USD(1, 0), 5), func(q *protocol.QuoteAnswer) { q.Availability = "medium" }), false, "", ""},
		{"bad availability", with(price(protocol.USD(1, 0), 5), func(q *protocol.QuoteAnswer) { q.Availability = "always" }), false, "availability", "not one of"},
		{"guarantee", with(price(protocol.USD(1, 0), 5), func(q *protocol.QuoteAnswer) {
			q.Guarantee = &protocol.Guarantee{FreeRedo: 3, RefundIfFailsChecks: true}
		}), false, "", ""},
		{"guarantee too many redos", with(price(protocol.USD(1, 0), 5), func(q *protocol.QuoteAnswer) {
			q.Guarantee = &protocol.Guarantee{FreeRedo: 4}
		}), false, "guarantee.free_redo", "0 to 3"},

		{"clarify", protocol.QuoteAnswer{Clarify: true, Questions: questions(1)}, false, "", ""},
		{"clarify five", protocol.QuoteAnswer{Clarify: true, Questions: questions(5)}, false, "", ""},
		{"clarify six", protocol.QuoteAnswer{Clarify: true, Questions: questions(6)}, false, "questions", "has 6 questions; at most 5"},
		{"clarify none", protocol.QuoteAnswer{Clarify: true}, false, "questions", "at least one"},
		{"clarify on a free job", protocol.QuoteAnswer{Clarify: true, Questions: questions(2)}, true, "", ""},

		{"decline", protocol.QuoteAnswer{Decline: true, ReasonCode: "cannot_do", Reason: "no GPU"}, false, "", ""},
		{"decline free job", protocol.QuoteAnswer{Decline: true, ReasonCode: "other"}, true, "", ""},
		{"decline without code", protocol.QuoteAnswer{Decline: true}, false, "reason_code", "is required"},
		{"decline bad code", protocol.QuoteAnswer{Decline: true, ReasonCode: "bored"}, false, "reason_code", "not a decline reason code"},

		{"no shape", protocol.QuoteAnswer{}, false, "body", "exactly one"},
		{"note only", protocol.QuoteAnswer{Note: "hi"}, false, "body", "exactly one"},
		{"price and decline", with(price(protocol.USD(1, 0), 5), func(q *protocol.QuoteAnswer) { q.Decline, q.ReasonCode = true, "other" }), false, "body", "exactly one"},
		{"price and clarify", with(price(protocol.USD(1, 0), 5), func(q *protocol.QuoteAnswer) { q.Clarify, q.Questions = true, questions(1) }), false, "body", "exactly one"},
		{"clarify and decline", protocol.QuoteAnswer{Clarify: true, Questions: questions(1), Decline: true, ReasonCode: "other"}, false, "body", "exactly one"},
	}
	for _, c := range cases {
		err := c.q.Check(c.free, now)
		switch {
		case c.field == "" && err != nil:
			t.Errorf("%s: unexpected %v", c.name, err)
		case c.field != "" && err == nil:
			t.Errorf("%s: accepted, want an error on %s", c.name, c.field)
		case c.field != "" && (err.Code != protocol.CodeInvalidInput || err.Field != c.field || !strings.Contains(err.Message, c.msg)):
			t.Errorf("%s: got {%q %q}, want %q containing %q", c.name, err.Field, err.Message, c.field, c.msg)
		}
	}
	for _, code := range []string{"cannot_do", "no_capacity", "too_expensive", "deadline", "other"} {
		if err := (protocol.QuoteAnswer{Decline: true, ReasonCode: code}).Check(false, now); err != nil {
			t.Errorf("reason code %s refused: %v", code, err)
		}
	}
}

func TestQuoteAnswerKind(t *testing.T) {
	if k := (protocol.QuoteAnswer{PriceUSD: money(1)}).Kind(); k != "price" {
		t.Error(k)
	}
	if k := (protocol.QuoteAnswer{Clarify: true}).Kind(); k != "clarify" {
		t.Error(k)
	}
	if k := (protocol.QuoteAnswer{Decline: true}).Kind(); k != "decline" {
		t.Error(k)
	}
}

// The same rules reach a quote that arrives as JSON.
func TestQuoteAnswerDecodeThenCheck(t *testing.T) {
	var q protocol.QuoteAnswer
	if err := protocol.Decode([]byte(`{"price_usd":0,"eta_minutes":10}`), &q); err != nil {
		t.Fatal(err)
	}
	if err := q.Check(true, time.Now()); err != nil {
		t.Fatalf("free quote of 0: %v", err)
	}
	if err := q.Check(false, time.Now()); err == nil || err.Field != "price_usd" {
		t.Fatalf("paid quote of 0: %v", err)
	}
	if err := protocol.Decode([]byte(`{"price_usd":"4","eta_minutes":10}`), &q); err == nil || err.Field != "price_usd" {
		t.Fatalf("string price: %v", err)
	}
}

func TestCheckSkills(t *testing.T) {
	p := money(protocol.USD(1, 0))
	zero := money(0)
	cases := []struct {
		name   string
		skills []protocol.Skill
		free   bool
		field  string
	}{
		{"none", nil, false, ""},
		{"two types", []protocol.Skill{{TaskType: "a1"}, {TaskType: "b1"}}, false, ""},
		{"duplicate", []protocol.Skill{{TaskType: "a1"}, {TaskType: "a1"}}, false, "skills[1].task_type"},
		{"instant pair", []protocol.Skill{{TaskType: "a1", InstantPriceUSD: p, InstantETAMinutes: intp(5)}}, false, ""},
		{"instant price only", []protocol.Skill{{TaskType: "a1", InstantPriceUSD: p}}, false, "skills[0].instant_eta_minutes"},
		{"instant eta only", []protocol.Skill{{TaskType: "a1", InstantETAMinutes: intp(5)}}, false, "skills[0].instant_price_usd"},
		{"instant 0 not free", []protocol.Skill{{TaskType: "a1", InstantPriceUSD: zero, InstantETAMinutes: intp(5)}}, false, "skills[0].instant_price_usd"},
		{"instant 0 free", []protocol.Skill{{TaskType: "a1", InstantPriceUSD: zero, InstantETAMinutes: intp(5)}}, true, ""},
	}
	for _, c := range cases {
		err := protocol.CheckSkills(c.skills, "skills", c.free)
		if (err == nil) != (c.field == "") || (err != nil && err.Field != c.field) {
			t.Errorf("%s: got %v, want field %q", c.name, err, c.field)
		}
	}
	if !(protocol.Skill{InstantPriceUSD: p, InstantETAMinutes: intp(1)}).Instant() || (protocol.Skill{InstantPriceUSD: p}).Instant() {
		t.Error("Instant")
	}
}
