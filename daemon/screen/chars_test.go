package screen

import (
	"strings"
	"testing"
	"unicode"
)

// Control, bidirectional-control and invisible characters are stripped from free texts, without a
// marker, and reported like contact details.
func TestRedactStripsHiddenCharacters(t *testing.T) {
	tests := []struct {
		name, in, want string
		kinds          []string
	}{
		{"bidi override", "Good\u202eSeller", "GoodSeller", []string{KindBidi}},
		{"isolates", "price \u2066USD 5\u2069 firm", "price USD 5 firm", []string{KindBidi, KindBidi}},
		{"marks", "a\u200eb\u200fc\u061cd", "abcd", []string{KindBidi, KindBidi, KindBidi}},
		{"embeddings run", "x\u202a\u202b\u202c\u202dy", "xy", []string{KindBidi}},
		{"zero-width space", "fast\u200b delivery", "fast delivery", []string{KindInvisible}},
		{"byte-order mark and word joiner", "\ufeffhello\u2060world", "helloworld", []string{KindInvisible, KindInvisible}},
		{"soft hyphen and mongolian separator", "co\u00adop\u180eer", "cooper", []string{KindInvisible, KindInvisible}},
		{"tag characters", "ok\U000E0001\U000E0069\U000E0067\U000E006E\U000E007F", "ok", []string{KindInvisible}},
		{"NUL", "a\x00b", "ab", []string{KindControl}},
		{"escape sequence", "red \x1b[31mtext\x1b[0m", "red [31mtext[0m", []string{KindControl, KindControl}},
		{"DEL and C1", "a\x7f\u0085\u009bb", "ab", []string{KindControl}},
		{"mixed kinds in a row", "a\u202e\u200b\x00b", "ab", []string{KindBidi, KindInvisible, KindControl}},
		{"all four of the audit", "Deliver\u202e in \u200b2 days\u2066 sure\x00", "Deliver in 2 days sure", []string{KindBidi, KindInvisible, KindBidi, KindControl}},
		{"only hidden characters", "\u202e\u200b", "", []string{KindBidi, KindInvisible}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, rs := Redact(tt.in)
			if got != tt.want {
				t.Errorf("Redact(%q) = %q, want %q", tt.in, got, tt.want)
			}
			var kinds []string
			for _, r := range rs {
				kinds = append(kinds, r.Kind)
				if !r.Stripped() || len(r.Fingerprint) != 8 {
					t.Errorf("removal %+v", r)
				}
				for _, c := range tt.in[r.Start:r.End] {
					if charKind(c) != r.Kind {
						t.Errorf("removal %+v covers %U", r, c)
					}
				}
			}
			if strings.Join(kinds, ",") != strings.Join(tt.kinds, ",") {
				t.Errorf("kinds %v, want %v", kinds, tt.kinds)
			}
			if kl, _ := RedactKeepLinks(tt.in); kl != tt.want {
				t.Errorf("RedactKeepLinks(%q) = %q, want %q", tt.in, kl, tt.want)
			}
		})
	}
}

// Tab, newline and carriage return, joiners (Persian, Indic scripts, emoji sequences), variation
// selectors, combining marks and the format characters of scripts stay.
func TestRedactKeepsCharactersTextsNeed(t *testing.T) {
	for _, in := range []string{
		"line one\r\nline two\n\tindented",
		"می\u200cخواهم",                      // Persian: "I want", with a zero-width non-joiner
		"क्\u200dष",                          // Devanagari with a zero-width joiner
		"family 👨\u200d👩\u200d👧 and ❤\ufe0f", // emoji sequences
		"café naïve e\u0301",
		"\u0600\u0661\u0662",          // Arabic number sign
		"שלום עולם and مرحبا بالعالم", // right-to-left scripts without controls
		"\u00a0non-breaking\u2009thin space",
	} {
		if got, rs := Redact(in); got != in || rs != nil {
			t.Errorf("Redact(%q) = %q, %v; want it unchanged", in, got, rs)
		}
	}
}

// Hidden characters cannot hide a contact detail: the detectors read the text without them, and
// the characters inside a detail go with it.
func TestRedactSeesThroughHiddenCharacters(t *testing.T) {
	tests := []struct {
		name, in, want string
		kinds          []string
	}{
		{"zero-width inside an email", "mail na\u200bme@exa\u200bmple.com", "mail [email removed]", []string{KindEmail}},
		{"NUL inside an email", "mail name\x00@example.com", "mail [email removed]", []string{KindEmail}},
		{"bidi inside an email", "mail name@\u202eexample.com", "mail [email removed]", []string{KindEmail}},
		{"escape inside a phone number", "call +44 20\x1b 7946 0958", "call [phone removed]", []string{KindPhone}},
		{"C1 control inside a domain", "visit acme\u0085widgets.com", "visit [domain removed]", []string{KindDomain}},
		{"hidden characters around an email", "\u202email me\u200b: bob@example.com\x00", "mail me: [email removed]",
			[]string{KindBidi, KindInvisible, KindEmail, KindControl}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, rs := Redact(tt.in)
			if got != tt.want {
				t.Errorf("Redact(%q) = %q, want %q", tt.in, got, tt.want)
			}
			var kinds []string
			prev := 0
			for _, r := range rs {
				kinds = append(kinds, r.Kind)
				if r.Start < prev || r.End <= r.Start {
					t.Errorf("removals out of order or overlapping: %+v", rs)
				}
				prev = r.End
			}
			if strings.Join(kinds, ",") != strings.Join(tt.kinds, ",") {
				t.Errorf("kinds %v, want %v", kinds, tt.kinds)
			}
		})
	}
}

// Every stripped character is one the detectors' view drops, so stripping cannot join the parts of
// a contact detail the detectors did not see.
func TestStrippedCharactersAreInvisibleToDetectors(t *testing.T) {
	n := 0
	for r := rune(0); r <= unicode.MaxRune; r++ {
		if charKind(r) == "" {
			continue
		}
		n++
		if v := fold("a" + string(r) + "b"); string(v.B) != "ab" {
			t.Errorf("%U is stripped but the view keeps it: %q", r, v.B)
		}
	}
	if n < 150 {
		t.Errorf("only %d characters are stripped", n)
	}
	// Every bidirectional control of Unicode is stripped.
	for r := rune(0); r <= unicode.MaxRune; r++ {
		if unicode.In(r, unicode.Bidi_Control) && charKind(r) != KindBidi {
			t.Errorf("%U is a bidi control but is not stripped as one", r)
		}
	}
}
