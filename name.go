package axp

import (
	"fmt"
	"unicode"
)

// nameHint says what to do about a name CheckName refuses.
const nameHint = "a name is one line of visible text: remove control characters (NUL, tab, newline, escape), " +
	"direction marks, embeddings, overrides and isolates (U+200E, U+200F, U+061C, U+202A-U+202E, U+2066-U+2069) " +
	"zero-width or other invisible characters (U+200B-U+200D, U+2060, U+FEFF, U+00AD), " +
	"including the joiners inside emoji sequences, blank fillers (U+3164, U+115F, U+1160, U+FFA0, U+2800), " +
	"variation selectors (U+FE00-U+FE0F, U+E0100-U+E01EF) and private-use characters"

// CheckName refuses a name that other parties read (a member's name, a task's agent_name, a
// deliverable's filename, the public identity labels) when it holds a character that is not drawn
// or that changes how the characters around it are drawn: every control character (Unicode
// category Cc, tab and newline included: a name is one line), every format character (category
// Cf: bidirectional marks, embeddings, overrides and isolates, zero-width spaces and joiners, the
// byte-order mark, soft hyphens, tag characters), the line and paragraph separators, private-use
// and surrogate characters, the Hangul and Braille fillers that are drawn blank (a name of
// U+3164 alone reads as no name) and variation selectors (which only change how the character
// before them is drawn, so "bob" and "bob\uFE0F" look alike). With
// them a seller could have its name drawn reversed or as another's in a buyer's offer list
// ("Good\u202eSeller"), or look like another member while being a different string. Free texts
// keep joiners; names do not, since a name needs none to be read and is matched by eye.
// Surrounding spaces are the caller's to trim.
func CheckName(field, name string) *Error {
	n := 0
	for _, r := range name {
		n++
		what := ""
		switch {
		case r == 0x061C || r == 0x200E || r == 0x200F || (r >= 0x202A && r <= 0x202E) || (r >= 0x2066 && r <= 0x2069):
			what = "a bidirectional control character"
		case unicode.Is(unicode.Cc, r):
			what = "a control character"
		case unicode.Is(unicode.Cf, r):
			what = "an invisible formatting character"
		case r == 0x2028 || r == 0x2029:
			what = "a line or paragraph separator"
		case unicode.In(r, unicode.Co, unicode.Cs) || r == unicode.ReplacementChar:
			what = "a private-use, surrogate or replacement character"
		case r == 0x115F || r == 0x1160 || r == 0x3164 || r == 0xFFA0 || r == 0x2800:
			what = "a blank filler character"
		case (r >= 0xFE00 && r <= 0xFE0F) || (r >= 0xE0100 && r <= 0xE01EF):
			what = "a variation selector"
		default:
			continue
		}
		return Invalid(field, fmt.Sprintf("holds %s (U+%04X) at character %d", what, r, n), nameHint)
	}
	return nil
}
