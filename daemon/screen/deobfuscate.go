package screen

import (
	"strings"
)

// deobfuscate builds, from the folded view, a view in which the usual disguises of contact details
// are undone: "(at)", "[dot]", "[.]", " at " and " dot " between name-like words, blanks around
// "@" and lone dots, s p a c e d   o u t letters, and digits written as words. Bytes produced this
// way are marked obf, which detectors take as evidence of intent.
func deobfuscate(a *view) *view {
	d := &deob{a: a, s: a.B, lo: lowerString(a.B), b: newView(len(a.B) + 8), spacedUntil: -1}
	d.run()
	return d.b
}

type deob struct {
	a  *view
	s  []byte // the folded text
	lo string // its lowercase copy
	b  *view

	spacedUntil int // a run of one-character tokens that did not spell anything ends here
}

func (d *deob) last(k int) byte {
	if len(d.b.B) < k {
		return 0
	}
	return d.b.B[len(d.b.B)-k]
}

// popBlanks removes blanks at the end of the output and returns the original offset where the
// first of them started (or def when there were none).
func (d *deob) popBlanks(def int32) int32 {
	st := def
	n := len(d.b.B)
	for n > 0 && isBlank(d.b.B[n-1]) {
		n--
		st = d.b.start[n]
	}
	d.b.truncate(n)
	return st
}

func (d *deob) emit(c byte, origStart, origEnd int32) {
	d.b.push(c, int(origStart), int(origEnd), true)
}

func (d *deob) run() {
	s, lo, n := d.s, d.lo, len(d.s)
	i := 0
	for i < n {
		c := s[i]
		if c == '(' || c == '[' || c == '{' || c == '<' {
			if sym, j := bracketObf(lo, i); j > 0 && isWordByte(d.lastNonBlank()) && isWordByte(at(s, skipBlanks(s, j))) {
				st := d.popBlanks(d.a.start[i])
				k := skipBlanks(s, j)
				d.emit(sym, st, d.a.end[k-1])
				i = k
				continue
			}
		}
		if isBlank(c) {
			j := skipBlanks(s, i)
			if k, sym, ok := d.wordObf(i, j); ok {
				d.emit(sym, d.a.start[i], d.a.end[k-1])
				i = k
				continue
			}
			if d.dropBlanks(j) {
				i = j
				continue
			}
			if j < n && s[j] == '.' && j+1 < n && isBlank(s[j+1]) && isWordByte(d.last(1)) {
				k := skipBlanks(s, j+1)
				if k < n && IsAlnum(s[k]) {
					d.emit('.', d.a.start[i], d.a.end[k-1])
					i = k
					continue
				}
			}
		}
		if i == 0 || isSpace(s[i-1]) || s[i-1] == ',' || s[i-1] == ':' || s[i-1] == '(' {
			if k := d.digitWords(i); k > i {
				i = k
				continue
			}
			if k := d.spaced(i); k > i {
				i = k
				continue
			}
			if k := d.dashed(i); k > i {
				i = k
				continue
			}
		}
		d.b.copyFrom(d.a, i)
		i++
	}
}

func at[T bytesOrString](s T, i int) byte {
	if i < 0 || i >= len(s) {
		return 0
	}
	return s[i]
}

func skipBlanks[T bytesOrString](s T, i int) int {
	for i < len(s) && isBlank(s[i]) {
		i++
	}
	return i
}

func (d *deob) lastNonBlank() byte {
	for k := len(d.b.B) - 1; k >= 0; k-- {
		if !isBlank(d.b.B[k]) {
			return d.b.B[k]
		}
	}
	return 0
}

// bracketObf recognises "(at)", "[ at ]", "{dot}", "<dot>", "[.]", "(@)" at i and returns the
// symbol and the index after the closing bracket.
func bracketObf[T bytesOrString](lo T, i int) (byte, int) {
	j := skipBlanks(lo, i+1)
	var sym byte
	var w int
	switch {
	case hasWordAt(lo, j, "at"):
		sym, w = '@', 2
	case hasWordAt(lo, j, "dot"):
		sym, w = '.', 3
	case hasWordAt(lo, j, "d0t"):
		sym, w = '.', 3
	case at(lo, j) == '@':
		sym, w = '@', 1
	case at(lo, j) == '.':
		sym, w = '.', 1
	default:
		return 0, 0
	}
	k := skipBlanks(lo, j+w)
	switch at(lo, k) {
	case ')', ']', '}', '>':
		return sym, k + 1
	}
	return 0, 0
}

// hasWordAt reports whether lo[i:] starts with word followed by a non-letter.
func hasWordAt[T bytesOrString](lo T, i int, word string) bool {
	if i+len(word) > len(lo) || string(lo[i:i+len(word)]) != word {
		return false
	}
	return !IsAlnum(at(lo, i+len(word)))
}

// wordAt returns the alphanumeric word (lowercase) starting at i.
func wordAt[T bytesOrString](lo T, i int) string {
	j := i
	for j < len(lo) && IsAlnum(lo[j]) {
		j++
	}
	return string(lo[i:j])
}

// wordObf recognises " at " or " dot " (blanks [i, j) then the word then blanks) between two
// name-like words and returns the index of the next word and the symbol.
func (d *deob) wordObf(i, j int) (int, byte, bool) {
	lo := d.lo
	w := wordAt(lo, j)
	var sym byte
	switch w {
	case "at", "arroba":
		sym = '@'
	case "dot", "d0t", "punto":
		sym = '.'
	default:
		return 0, 0, false
	}
	e := j + len(w)
	if e >= len(lo) || !isBlank(lo[e]) {
		return 0, 0, false
	}
	k := skipBlanks(lo, e)
	if k >= len(lo) || !IsAlnum(lo[k]) {
		return 0, 0, false
	}
	left := d.leftToken()
	right := wordAt(lo, k)
	if left == "" || right == "" || isStop(left) || isStop(right) {
		return 0, 0, false
	}
	if sym == '@' && !mailProviders[right] && !d.domainAhead(k) && !d.b.AnyObf(len(d.b.B)-len(left), len(d.b.B)) {
		return 0, 0, false
	}
	return k, sym, true
}

func isStop(w string) bool {
	if Stopwords[w] {
		return true
	}
	// verbs and participles before "at": "looking at", "located at", "aimed at".
	n := len(w)
	return n > 4 && (w[n-3:] == "ing" || w[n-2:] == "ed")
}

// leftToken returns the lowercase address-like word just before the blanks at the end of the output.
func (d *deob) leftToken() string {
	b := d.b.B
	k := len(b)
	for k > 0 && (IsAlnum(b[k-1]) || b[k-1] == '.' || b[k-1] == '_' || b[k-1] == '-' || b[k-1] == '+') {
		k--
	}
	w := asciiLower(b[k:])
	for len(w) > 0 && (w[0] == '.' || w[0] == '-') {
		w = w[1:]
	}
	return string(w)
}

// domainAhead reports whether the words from k on look like a (possibly disguised) domain: a word,
// then a dot, "dot" or a bracketed dot, then another word.
func (d *deob) domainAhead(k int) bool {
	lo := d.lo
	for step := 0; step < 3; step++ {
		for k < len(lo) && (IsAlnum(lo[k]) || lo[k] == '-' || lo[k] == '_') {
			k++
		}
		if k >= len(lo) {
			return false
		}
		if lo[k] == '.' && IsAlnum(at(lo, k+1)) {
			return true
		}
		j := skipBlanks(lo, k)
		if j < len(lo) && (lo[j] == '(' || lo[j] == '[' || lo[j] == '{' || lo[j] == '<') {
			if sym, e := bracketObf(lo, j); e > 0 {
				return sym == '.'
			}
		}
		if j > k && (hasWordAt(lo, j, "dot") || hasWordAt(lo, j, "d0t") || hasWordAt(lo, j, "punto")) {
			return true
		}
		if j > k && at(lo, j) == '.' && isBlank(at(lo, j+1)) {
			return true
		}
		return false
	}
	return false
}

// dropBlanks decides whether the blanks before j are part of a spaced-out address: around a lone
// "@", after an "@" that follows a name, or before a top-level domain split off its name.
func (d *deob) dropBlanks(j int) bool {
	s, n := d.s, len(d.s)
	if j >= n {
		return false
	}
	prev := d.last(1)
	switch {
	case s[j] == '@' && isWordByte(prev):
		// "john @ gmail.com", "john @gmail.com" (but not "thanks @john")
		return isBlank(at(s, j+1)) || d.domainAhead(j+1)
	case prev == '@' && isWordByte(d.last(2)) && isWordByte(s[j]):
		return true
	case s[j] == '.' && isWordByte(prev) && IsLower(at(s, j+1)):
		// "gmail .com"
		return splitTLD(s, j+1)
	case prev == '.' && isWordByte(d.last(2)) && IsLower(s[j]):
		// "gmail. com"
		return splitTLD(s, j)
	case s[j] == '/' && strings.Contains(d.leftToken(), ".") && IsAlnum(at(s, skipBlanks(s, j+1))):
		// "t . me / name"
		return true
	case prev == '/' && IsAlnum(s[j]) && d.domainBeforeSlash():
		return true
	}
	return false
}

// domainBeforeSlash reports whether the output ends with "host.tld/" where the slash was
// written apart ("t.me /").
func (d *deob) domainBeforeSlash() bool {
	b := d.b.B
	k := len(b) - 1 // the slash
	if k < 1 {
		return false
	}
	dot := false
	for k > 0 && (IsAlnum(b[k-1]) || b[k-1] == '.' || b[k-1] == '-') {
		if b[k-1] == '.' {
			dot = true
		}
		k--
	}
	return dot && (k == 0 || !IsAlnum(b[k-1]))
}

// splitTLD reports whether s[i:] is one of the top-level domains people split off their address
// ("gmail . com"), followed by a non-letter.
func splitTLD[T bytesOrString](s T, i int) bool {
	switch wordAt(s, i) {
	case "com", "net", "org", "ru", "io":
		return true
	}
	return false
}

// digitWords turns a run of digit words ("five five five, one two three four...") into digits
// when it spells at least seven digits with at least three words.
func (d *deob) digitWords(i int) int {
	lo, n := d.lo, len(d.lo)
	type dg struct {
		c    byte
		s, e int // folded indices of the word
	}
	var out []dg
	words := 0
	k := i
	repeat := 1
	first := true
	for k < n && len(out) <= 16 {
		w := wordAt(lo, k)
		if w == "" {
			if lo[k] == '+' && first {
				out = append(out, dg{'+', k, k + 1})
				k++
				continue
			}
			break
		}
		e := k + len(w)
		switch {
		case w == "plus" && first:
			out = append(out, dg{'+', k, e})
		case w == "double" || w == "triple":
			repeat = 2
			if w == "triple" {
				repeat = 3
			}
			words++
		case allDigits(w) && len(w) <= 4 && !first:
			for x := 0; x < len(w); x++ {
				out = append(out, dg{w[x], k, e})
			}
		default:
			c, ok := digitWords[w]
			if !ok || (first && (w == "o" || w == "oh")) {
				goto done
			}
			for r := 0; r < repeat; r++ {
				out = append(out, dg{c, k, e})
			}
			repeat = 1
			words++
		}
		first = false
		k = e
		// separators: blanks, one comma, dash or dot
		j := skipBlanks(lo, k)
		if j < n && (lo[j] == ',' || lo[j] == '-' || lo[j] == '.') {
			j = skipBlanks(lo, j+1)
		}
		if j == k || j >= n || !(IsAlnum(lo[j])) {
			break
		}
		k = j
	}
done:
	digits := 0
	for _, x := range out {
		if x.c != '+' {
			digits++
		}
	}
	if words < 3 || digits < 7 || digits > 15 {
		return i
	}
	last := out[len(out)-1].e
	for _, x := range out {
		d.emit(x.c, d.a.start[x.s], d.a.end[x.e-1])
	}
	return last
}

func allDigits(w string) bool {
	if w == "" {
		return false
	}
	for i := 0; i < len(w); i++ {
		if !IsDigit(w[i]) {
			return false
		}
	}
	return true
}

// dashed rewrites a word such as "john-at-gmail-dot-com" or "john_at_gmail_dot_com": "at" and
// "dot" between hyphens or underscores, both present, as "@" and ".".
func (d *deob) dashed(i int) int {
	lo, n := d.lo, len(d.lo)
	e := i
	for e < n && (IsAlnum(lo[e]) || lo[e] == '-' || lo[e] == '_' || lo[e] == '.') {
		e++
	}
	w := lo[i:e]
	at := max(strings.Index(w, "-at-"), strings.Index(w, "_at_"))
	if at <= 0 {
		return i
	}
	rest := w[at+4:]
	if !strings.Contains(rest, "-dot-") && !strings.Contains(rest, "_dot_") && !strings.Contains(rest, ".") {
		return i
	}
	for k := i; k < e; {
		sep := lo[k]
		if (sep == '-' || sep == '_') && k > i {
			for _, word := range [...]string{"at", "dot"} {
				end := k + 1 + len(word)
				if end < e && lo[k+1:end] == word && lo[end] == sep {
					sym := byte('@')
					if word == "dot" {
						sym = '.'
					}
					d.emit(sym, d.a.start[k], d.a.end[end])
					k = end + 1
					goto next
				}
			}
		}
		d.b.copyFrom(d.a, k)
		k++
	next:
	}
	return e
}

// spaced collapses a run of at least four one-character tokens separated by blanks
// ("j o h n @ g m a i l . c o m", "5 5 5 1 2 3 4").
func (d *deob) spaced(i int) int {
	s, n := d.s, len(d.s)
	single := func(p int) bool {
		return p < n && s[p] > ' ' && s[p] < 0x7f && (p+1 == n || isSpace(s[p+1]))
	}
	if i <= d.spacedUntil || !single(i) {
		return i
	}
	var pos []int
	p := i
	for single(p) && len(pos) < 200 {
		pos = append(pos, p)
		q := p + 1
		gap := 0
		for q < n && isBlank(s[q]) && gap < 3 {
			q++
			gap++
		}
		if gap == 0 || !single(q) {
			break
		}
		p = q
	}
	alnum := 0
	for _, x := range pos {
		if IsAlnum(s[x]) {
			alnum++
		}
	}
	min := 4
	if n := len(d.b.B); n > 0 && d.b.obf[n-1] && (d.b.B[n-1] == '.' || d.b.B[n-1] == '@') {
		min = 2 // "e x a m p l e (dot) c o m": the run goes on after a converted dot
	}
	if len(pos) < min || alnum < max(min-1, 2) {
		d.spacedUntil = pos[len(pos)-1] // do not look at this run again from its next token
		return i
	}
	for _, x := range pos {
		d.emit(s[x], d.a.start[x], d.a.end[x])
	}
	return pos[len(pos)-1] + 1
}
