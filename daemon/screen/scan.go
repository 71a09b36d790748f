package screen

import (
	"bytes"
	"strings"
	"unicode"
	"unicode/utf8"
)

// scan runs the detectors over a deobfuscated view.
type scan struct {
	v    *view
	s    []byte // the view's text
	lo   string // lowercase copy
	hits []hit
	urls []hit // links with a scheme, found first; other detectors skip inside them
}

func newScan(v *view) *scan {
	return &scan{v: v, s: v.B, lo: lowerString(v.B)}
}

func (sc *scan) add(s, e int, kind string) {
	if s < e {
		sc.hits = append(sc.hits, hit{s, e, kind})
	}
}

func (sc *scan) run() {
	sc.schemeURLs()
	sc.emails()
	sc.domains()
	sc.ips()
	sc.wallets()
	sc.ibans()
	sc.handles()
	sc.phones()
}

// inURL reports whether byte i lies inside a link found by schemeURLs.
func (sc *scan) inURL(i int) bool {
	for _, u := range sc.urls {
		if u.s <= i && i < u.e {
			return true
		}
	}
	return false
}

// contextBefore reports whether one of words (ASCII, lowercase) appears as a word in the window
// bytes before i, or a non-ASCII one appears as a substring.
func (sc *scan) contextBefore(i, window int, words map[string]bool) bool {
	st := i - window
	if st < 0 {
		st = 0
	}
	return hasContext(sc.lo[st:i], words)
}

// contextAfter is contextBefore for the window bytes from i on.
func (sc *scan) contextAfter(i, window int, words map[string]bool) bool {
	e := i + window
	if e > len(sc.lo) {
		e = len(sc.lo)
	}
	if i > e {
		return false
	}
	return hasContext(sc.lo[i:e], words)
}

func hasContext[T bytesOrString](w T, words map[string]bool) bool {
	for k := 0; k < len(w); {
		if !isWordByte(w[k]) {
			k++
			continue
		}
		j := k
		ascii := true
		for j < len(w) && isWordByte(w[j]) {
			if w[j] >= utf8.RuneSelf {
				ascii = false
			}
			j++
		}
		if ascii {
			if words[string(w[k:j])] {
				return true
			}
		} else {
			tok := strings.ToLower(string(w[k:j]))
			for word := range words {
				if !isASCII(word) && strings.Contains(tok, word) {
					return true
				}
			}
		}
		k = j
	}
	return false
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// folded returns words as the detectors see them: folded like the text (look-alike letters
// become Latin), then lowercased.
func folded(words map[string]bool) map[string]bool {
	out := make(map[string]bool, len(words))
	for w := range words {
		out[strings.ToLower(string(fold(w).B))] = true
	}
	return out
}

// prevRune returns the rune that ends just before byte i of the view.
func (sc *scan) prevRune(i int) rune {
	if i <= 0 {
		return 0
	}
	r, _ := utf8.DecodeLastRune(sc.s[:i])
	return r
}

// trimPunct drops trailing punctuation that ends a sentence rather than an address.
func trimPunct(s []byte, st, e int) int {
	for e > st {
		switch s[e-1] {
		case '.', ',', ';', ':', '!', '?', '\'', '"', ')', ']', '}', '>', '*', '_', '-', '`':
			if s[e-1] == ')' && bytes.Count(s[st:e], []byte("(")) >= bytes.Count(s[st:e], []byte(")")) {
				return e
			}
			e--
		default:
			return e
		}
	}
	return e
}

func isSymbolCurrency(r rune) bool { return unicode.Is(unicode.Sc, r) }
