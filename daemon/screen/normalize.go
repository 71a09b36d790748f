package screen

import (
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// view is a normalised copy of a text that remembers, for every byte, the bytes of the original it
// came from, so that a match in the view can be cut out of the original.
type view struct {
	B     []byte
	start []int32 // start[i]: offset in the original of the first byte that produced b[i]
	end   []int32 // end[i]: offset just past the last byte that produced b[i]
	obf   []bool  // obf[i]: b[i] was produced by undoing an obfuscation
}

func newView(capacity int) *view {
	return &view{
		B:     make([]byte, 0, capacity),
		start: make([]int32, 0, capacity),
		end:   make([]int32, 0, capacity),
		obf:   make([]bool, 0, capacity),
	}
}

func (v *view) push(c byte, s, e int, obf bool) {
	v.B = append(v.B, c)
	v.start = append(v.start, int32(s))
	v.end = append(v.end, int32(e))
	v.obf = append(v.obf, obf)
}

func (v *view) pushString(str string, s, e int, obf bool) {
	for i := 0; i < len(str); i++ {
		v.push(str[i], s, e, obf)
	}
}

// copyFrom appends byte i of another view with its origin.
func (v *view) copyFrom(o *view, i int) {
	v.B = append(v.B, o.B[i])
	v.start = append(v.start, o.start[i])
	v.end = append(v.end, o.end[i])
	v.obf = append(v.obf, o.obf[i])
}

// truncate drops the bytes from n on.
func (v *view) truncate(n int) {
	v.B = v.B[:n]
	v.start = v.start[:n]
	v.end = v.end[:n]
	v.obf = v.obf[:n]
}

// Orig returns the span of the original text that produced view bytes [i, j).
func (v *view) Orig(i, j int) (int, int) {
	return int(v.start[i]), int(v.end[j-1])
}

// AnyObf reports whether a byte in [i, j) came from undoing an obfuscation.
func (v *view) AnyObf(i, j int) bool {
	for k := i; k < j; k++ {
		if v.obf[k] {
			return true
		}
	}
	return false
}

// lookalike maps characters that are drawn like an ASCII character (after compatibility folding)
// to that character: Cyrillic and Greek letters, dashes, dots and at signs used to dodge filters.
var lookalike = map[rune]byte{
	// Cyrillic
	'а': 'a', 'в': 'b', 'е': 'e', 'ё': 'e', 'к': 'k', 'м': 'm', 'н': 'h', 'о': 'o', 'р': 'p', 'с': 'c', 'т': 't',
	'у': 'y', 'х': 'x', 'ѕ': 's', 'і': 'i', 'ї': 'i', 'ј': 'j', 'ԁ': 'd', 'ԛ': 'q', 'ԝ': 'w', 'һ': 'h',
	'ӏ': 'l', 'ɡ': 'g', 'ո': 'n', 'ս': 'u', 'ց': 'g', 'օ': 'o', 'ɑ': 'a', 'ʏ': 'y', 'ı': 'i', 'ȷ': 'j',
	'А': 'A', 'В': 'B', 'Е': 'E', 'К': 'K', 'М': 'M', 'Н': 'H', 'О': 'O', 'Р': 'P', 'С': 'C', 'Т': 'T',
	'У': 'Y', 'Х': 'X', 'Ѕ': 'S', 'І': 'I', 'Ј': 'J', 'Ԛ': 'Q', 'Ԝ': 'W', 'Ӏ': 'I', 'Һ': 'H',
	// Greek
	'α': 'a', 'β': 'b', 'ε': 'e', 'ι': 'i', 'κ': 'k', 'ν': 'v', 'ο': 'o', 'ρ': 'p', 'τ': 't', 'υ': 'u',
	'χ': 'x', 'ω': 'w', 'γ': 'y',
	'Α': 'A', 'Β': 'B', 'Ε': 'E', 'Ζ': 'Z', 'Η': 'H', 'Ι': 'I', 'Κ': 'K', 'Μ': 'M', 'Ν': 'N', 'Ο': 'O',
	'Ρ': 'P', 'Τ': 'T', 'Υ': 'Y', 'Χ': 'X',
	// punctuation
	'‐': '-', '‑': '-', '‒': '-', '–': '-', '—': '-', '―': '-', '−': '-', '⁃': '-',
	'。': '.', '｡': '.', '︒': '.', '·': '.', '•': '.', '∙': '.', '⋅': '.',
	'＠': '@', '﹫': '@', 'ⓐ': '@',
	'‘': '\'', '’': '\'', '‚': '\'', '′': '\'', '“': '"', '”': '"', '„': '"', '″': '"',
	'\u2028': '\n', '\u2029': '\n', // U+0085, a C1 control, is stripped (charKind) and so dropped
}

// invisible reports characters that render as nothing (or nearly) and are used to split a contact
// detail or an instruction so that filters miss it. It includes every character Redact strips
// (charKind), so the detectors read what the reader is shown.
func invisible(r rune) bool {
	switch {
	case charKind(r) != "":
		return true
	case r == 0x115F, r == 0x1160, r == 0x3164, r == 0xFFA0, r == 0x2800, r == 0x034F:
		return true
	case r >= 0x180B && r <= 0x180F, r >= 0xFE00 && r <= 0xFE0F, r >= 0xE0100 && r <= 0xE01EF:
		return true
	}
	return unicode.Is(unicode.Cf, r) || unicode.Is(unicode.Mn, r) || unicode.Is(unicode.Me, r)
}

// digitValue returns the value of a decimal digit of any script.
func digitValue(r rune) byte {
	z := r
	for r-z < 9 && unicode.IsDigit(z-1) {
		z--
	}
	return byte(r - z)
}

// fold builds the normalised view of s: compatibility folding (full-width, mathematical and
// circled letters and digits become ASCII), look-alike letters mapped to Latin, digits of other
// scripts to ASCII, Unicode spaces to ' ', invisible and control characters (but tab, newline and
// carriage return) dropped. Case is kept.
func fold(s string) *view { return FoldCase(s, false) }

// FoldCase is fold that, with lower, also lowercases letters of every script (the view then has
// ASCII letters in lower case too).
func FoldCase(s string, lower bool) *view {
	v := newView(len(s) + 8)
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if charKind(rune(c)) == "" {
				v.push(c, i, i+1, false)
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		end := i + size
		if r == utf8.RuneError && size == 1 {
			v.push(' ', i, end, false)
			i = end
			continue
		}
		raw := s[i:end]
		if lower && unicode.IsUpper(r) {
			r = unicode.ToLower(r)
			raw = string(r)
		}
		if b, ok := lookalike[r]; ok {
			v.push(b, i, end, false)
			i = end
			continue
		}
		if invisible(r) {
			i = end
			continue
		}
		d := norm.NFKC.PropertiesString(raw).Decomposition()
		if d == nil {
			foldRune(v, r, raw, i, end)
		} else {
			for k := 0; k < len(d); {
				dr, ds := utf8.DecodeRune(d[k:])
				foldRune(v, dr, string(d[k:k+ds]), i, end)
				k += ds
			}
		}
		i = end
	}
	return v
}

// foldRune appends one (already decomposed) rune to the view.
func foldRune(v *view, r rune, raw string, s, e int) {
	switch {
	case r < utf8.RuneSelf:
		v.push(byte(r), s, e, false)
	case invisible(r):
	case lookalike[r] != 0:
		v.push(lookalike[r], s, e, false)
	case unicode.IsDigit(r):
		v.push('0'+digitValue(r), s, e, false)
	case unicode.IsSpace(r):
		v.push(' ', s, e, false)
	default:
		v.pushString(raw, s, e, false)
	}
}

// bytesOrString is the text a scanning helper accepts: the view's bytes or its lowercase string.
type bytesOrString interface{ ~string | ~[]byte }

// lowerString returns b with ASCII letters lowercased, as a string (offsets agree with b).
func lowerString(b []byte) string { return string(asciiLower(b)) }

// asciiLower returns b with ASCII letters lowercased; other bytes are kept, so offsets agree.
func asciiLower(b []byte) []byte {
	out := make([]byte, len(b))
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		out[i] = c
	}
	return out
}

func IsDigit(c byte) bool { return '0' <= c && c <= '9' }

func isAlpha(c byte) bool { return ('a' <= c && c <= 'z') || ('A' <= c && c <= 'Z') }

func IsAlnum(c byte) bool { return IsDigit(c) || isAlpha(c) }

func IsLower(c byte) bool { return 'a' <= c && c <= 'z' }

func isUpper(c byte) bool { return 'A' <= c && c <= 'Z' }

func isHex(c byte) bool {
	return IsDigit(c) || ('a' <= c && c <= 'f') || ('A' <= c && c <= 'F')
}

// isWordByte is a letter, digit or any byte of a non-ASCII character (letters of other scripts).
func isWordByte(c byte) bool { return IsAlnum(c) || c >= utf8.RuneSelf }

func isBlank(c byte) bool { return c == ' ' || c == '\t' }

func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'
}
