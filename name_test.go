package axp_test

import (
	"strings"
	"testing"
	"time"

	"github.com/axp-exchange/axp"
)

// A name is one line of visible text: control, bidirectional-control and invisible characters are
// refused with the field and what to do.
func TestCheckNameRefusesHiddenCharacters(t *testing.T) {
	for _, tt := range []struct{ name, in, what string }{
		{"right-to-left override", "Good\u202eSeller", "U+202E"},
		{"left-to-right embedding", "\u202aSeller", "U+202A"},
		{"pop directional formatting", "Seller\u202c", "U+202C"},
		{"isolate", "Best\u2066Seller\u2069", "U+2066"},
		{"right-to-left mark", "Seller\u200f", "U+200F"},
		{"left-to-right mark", "\u200eSeller", "U+200E"},
		{"arabic letter mark", "Seller\u061c", "U+061C"},
		{"zero-width space", "Good\u200bSeller", "U+200B"},
		{"zero-width joiner", "Good\u200dSeller", "U+200D"},
		{"zero-width non-joiner", "Good\u200cSeller", "U+200C"},
		{"word joiner", "Good\u2060Seller", "U+2060"},
		{"byte-order mark", "\ufeffSeller", "U+FEFF"},
		{"soft hyphen", "Sel\u00adler", "U+00AD"},
		{"mongolian vowel separator", "Sel\u180eler", "U+180E"},
		{"tag character", "Seller\U000E0041", "U+E0041"},
		{"NUL", "Seller\x00", "U+0000"},
		{"hangul filler", "\u3164", "U+3164"},
		{"hangul choseong filler", "Bob\u115f", "U+115F"},
		{"hangul jungseong filler", "Bob\u1160", "U+1160"},
		{"halfwidth hangul filler", "Bob\uffa0", "U+FFA0"},
		{"braille blank", "Bob\u2800", "U+2800"},
		{"variation selector 16", "bob\ufe0f", "U+FE0F"},
		{"variation selector supplement", "bob\U000E0100", "U+E0100"},
		{"private use", "Bob\ue000", "U+E000"},
		{"tab", "Good\tSeller", "U+0009"},
		{"newline", "Good\nSeller", "U+000A"},
		{"escape", "\x1b[2JSeller", "U+001B"},
		{"DEL", "Seller\x7f", "U+007F"},
		{"C1 control", "Seller\u0085", "U+0085"},
		{"line separator", "Good\u2028Seller", "U+2028"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			err := axp.CheckName("name", tt.in)
			if err == nil {
				t.Fatalf("CheckName(%q) accepted it", tt.in)
			}
			if err.Code != axp.CodeInvalidInput || err.Field != "name" || !strings.Contains(err.Message, tt.what) || err.Hint == "" {
				t.Fatalf("CheckName(%q) = %+v", tt.in, err)
			}
		})
	}
}

func TestCheckNameAcceptsVisibleNames(t *testing.T) {
	for _, in := range []string{"", "Good Seller", "Café Übersetzer", "東京 翻訳", "مترجم سريع", "מתרגם", "Rocket 🚀 Bot",
		"A\u00a0B", "e\u0301", "Seller (v2) - fast & cheap"} {
		if err := axp.CheckName("name", in); err != nil {
			t.Errorf("CheckName(%q) = %v", in, err)
		}
	}
}

// Registration and profile updates refuse such names, and the public identity labels too.
func TestRegistrationRefusesSpoofedNames(t *testing.T) {
	reg := &axp.Registration{Roles: []string{"seller"}, Name: "Good\u202eSeller"}
	if err := axp.CheckRegistration(reg); err == nil || err.Field != "name" {
		t.Fatalf("registration: %v", err)
	}
	reg = &axp.Registration{Roles: []string{"seller"}, Name: "  Good Seller\n", Identity: &axp.Identity{AgentModel: "gpt\u202e"}}
	if err := axp.CheckRegistration(reg); err == nil || err.Field != "identity.agent_model" {
		t.Fatalf("registration with a spoofed agent_model: %v", err)
	}
	reg.Identity = nil
	if err := axp.CheckRegistration(reg); err != nil {
		t.Fatalf("surrounding spaces are trimmed, not refused: %v", err)
	}

	m := axp.NewMember("mem_1", reg, time.Now())
	for _, u := range []axp.ProfileUpdate{
		{Name: strp("Good\u200bSeller")},
		{Identity: &axp.Identity{AgentFramework: "x\x00"}},
	} {
		if _, err := m.ApplyUpdate(&u, nil, time.Now()); err == nil {
			t.Fatalf("update %+v accepted", u)
		}
	}
	if m.Name != "Good Seller" || m.Identity.AgentFramework != "" {
		t.Fatalf("a refused update changed the member: %q %+v", m.Name, m.Identity)
	}
}
