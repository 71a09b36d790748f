package screen

import (
	"strings"
	"unicode/utf8"
)

// Kinds of character stripped from free texts. They are removed without a marker: they are not
// drawn, so nothing visible goes missing.
const (
	// KindControl is a C0 or C1 control character other than tab, newline and carriage return
	// (NUL, escape, backspace, form feed, DEL, U+0080-U+009F, ...).
	KindControl = "control_character"
	// KindBidi is a bidirectional control: the marks U+200E, U+200F and U+061C, the embeddings and
	// overrides U+202A-U+202E and the isolates U+2066-U+2069. They reorder the text around them, so
	// "Good\u202eSeller" is drawn as "GoodrelleS".
	KindBidi = "bidi_control"
	// KindInvisible is a character drawn as nothing that has no use in a text between parties:
	// zero-width space U+200B, word joiner and invisible operators U+2060-U+2064, deprecated format
	// characters U+206A-U+206F, byte-order mark U+FEFF, Mongolian vowel separator U+180E, soft
	// hyphen U+00AD, interlinear annotation U+FFF9-U+FFFB and tag characters U+E0001,
	// U+E0020-U+E007F (which spell ASCII invisibly).
	KindInvisible = "invisible_character"
)

// CharKinds lists the kinds of stripped character.
var CharKinds = []string{KindBidi, KindControl, KindInvisible}

// Stripped reports whether the removal is of control, bidirectional-control or invisible
// characters (stripped without a marker) rather than of a contact detail.
func (r Removal) Stripped() bool {
	switch r.Kind {
	case KindControl, KindBidi, KindInvisible:
		return true
	}
	return false
}

// charKind is the kind of a character stripped from free texts, or "" for a character that stays.
//
// Zero-width joiner and non-joiner (U+200D, U+200C) stay: Persian, Arabic and Indic scripts spell
// with them and emoji sequences are built with them; they reorder nothing, and the contact
// detector looks through them anyway. Other format characters of category Cf (Arabic number
// signs, Egyptian hieroglyph and shorthand format controls, ...) belong to their scripts and stay.
func charKind(r rune) string {
	switch {
	case r == '\t', r == '\n', r == '\r':
		return ""
	case r < 0x20, r >= 0x7F && r <= 0x9F:
		return KindControl
	case r < 0xAD:
		return ""
	case r == 0x061C, r == 0x200E, r == 0x200F, r >= 0x202A && r <= 0x202E, r >= 0x2066 && r <= 0x2069:
		return KindBidi
	case r == 0x00AD, r == 0x180E, r == 0x200B, r >= 0x2060 && r <= 0x206F, r == 0xFEFF, r >= 0xFFF9 && r <= 0xFFFB,
		r == 0xE0001, r >= 0xE0020 && r <= 0xE007F:
		return KindInvisible
	}
	return ""
}

// hasChars reports whether text holds a character to strip.
func hasChars(text string) bool {
	for i := 0; i < len(text); i++ {
		c := text[i]
		if c < utf8.RuneSelf {
			if charKind(rune(c)) != "" {
				return true
			}
			continue
		}
		return strings.IndexFunc(text[i:], func(r rune) bool { return charKind(r) != "" }) >= 0
	}
	return false
}

// withChars adds to the contact-detail removals rs (in order, not overlapping) the runs of
// characters to strip that lie outside them, one removal per run of adjacent characters of one
// kind. Characters inside a contact detail go with it: the view the detectors read has already
// dropped them, so a contact detail never starts or ends with one.
func withChars(text string, rs []Removal) []Removal {
	if !hasChars(text) {
		return rs
	}
	out := make([]Removal, 0, len(rs)+1)
	k := 0
	for i := 0; i < len(text); {
		if k < len(rs) && i >= rs[k].Start {
			out = append(out, rs[k])
			i = rs[k].End
			k++
			continue
		}
		r, size := utf8.DecodeRuneInString(text[i:])
		kind := charKind(r)
		if kind == "" {
			i += size
			continue
		}
		j := i + size
		for j < len(text) && (k == len(rs) || j < rs[k].Start) {
			r, size := utf8.DecodeRuneInString(text[j:])
			if charKind(r) != kind {
				break
			}
			j += size
		}
		out = append(out, Removal{Kind: kind, Start: i, End: j, Fingerprint: fingerprint(text[i:j])})
		i = j
	}
	return append(out, rs[k:]...)
}
