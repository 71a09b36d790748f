package screen

import (
	"github.com/nyaruka/phonenumbers"
)

// phoneRegions are tried, in order, to check that a number written in national form has a
// possible length somewhere.
var phoneRegions = []string{"US", "GB", "DE", "FR", "IN", "BR", "RU", "CN", "ES", "IT", "NG", "AU"}

// phoneNotWords before a number make it something else (an order, an invoice, an ISBN...).
var phoneNotWords = Set("order", "invoice", "isbn", "issn", "ean", "upc", "sku", "ref", "reference",
	"id", "ticket", "tracking", "account", "acct", "iban", "swift", "routing", "serial", "version",
	"build", "case", "claim", "policy", "patent", "doi", "pmid", "arxiv", "tx", "txid", "block",
	"height", "nonce", "hash", "pid", "port", "zip", "postcode", "vin", "imei", "ssn", "item", "lot",
	"batch", "model", "part", "sn", "po")

// phones finds telephone numbers: international ones ("+44 20 7946 0958", "0044 ...") checked with
// libphonenumber, national ones by their grouping ("(415) 555-0132", "020 7946 0958"), any run of
// 7 to 15 digits next to a word such as "call" or "whatsapp", and numbers written as words or
// spaced out.
func (sc *scan) phones() {
	s, n := sc.s, len(sc.s)
	for p := 0; p < n; p++ {
		c := s[p]
		if !(IsDigit(c) || (c == '+' && IsDigit(at(s, skipBlanks(s, p+1)))) || (c == '(' && (IsDigit(at(s, p+1)) || at(s, p+1) == '+'))) {
			continue
		}
		if p > 0 {
			prev := s[p-1]
			if IsAlnum(prev) || prev == '.' || prev == '$' || prev == '#' || prev == '/' || prev == '=' ||
				prev == '_' || prev == '%' || prev == '@' || prev == '-' || prev == '+' || prev == '&' || prev == '^' || prev == '*' {
				for p < n && (IsAlnum(s[p]) || s[p] == '.' || s[p] == ',') {
					p++
				}
				continue
			}
			if r := sc.prevRune(p); r >= 0x80 && isSymbolCurrency(r) {
				for p < n && (IsDigit(s[p]) || s[p] == '.' || s[p] == ',') {
					p++
				}
				continue
			}
		}
		e, groups, seps := phoneRun(s, p)
		if e < 0 {
			for p < n && (IsDigit(s[p]) || s[p] == '.' || s[p] == ',') {
				p++
			}
			continue
		}
		if sc.phone(p, e, groups, seps) {
			sc.add(p, e, KindPhone)
		}
		p = e
	}
}

// phoneRun reads digits and separators from p; it returns the end (-1 when the run continues into
// letters or other numbers), the digit groups and the separators between them.
func phoneRun(s []byte, p int) (int, []string, []string) {
	n := len(s)
	// cheap first look: fewer than seven digits before the run ends cannot be a phone number
	digits0 := 0
	for k := p; k < n && digits0 < 7; k++ {
		c := s[k]
		if IsDigit(c) {
			digits0++
		} else if !(c == ' ' || c == '-' || c == '.' || c == '(' || c == ')' || c == '/' || c == '+') {
			break
		}
	}
	if digits0 < 7 {
		return -1, nil, nil
	}
	var groups, seps []string
	k := p
	sep := ""
	digits := 0
	for k < n {
		// separator run (at most 3 bytes of " -.()/")
		st := k
		for k < n && k-st < 4 && (s[k] == ' ' || s[k] == '-' || s[k] == '.' || s[k] == '(' || s[k] == ')' || s[k] == '/' || s[k] == '+') {
			if s[k] == '+' && (k != p || len(groups) > 0) {
				break
			}
			k++
		}
		if k >= n || !IsDigit(s[k]) {
			k = st
			break
		}
		sep = string(s[st:k])
		ds := k
		for k < n && IsDigit(s[k]) {
			k++
		}
		digits += k - ds
		if len(groups) > 0 || sep != "" && sep != "+" && sep != "(" && sep != "+(" {
			seps = append(seps, sep)
		}
		groups = append(groups, string(s[ds:k]))
		if digits > 17 {
			return -1, nil, nil
		}
	}
	e := k
	// a closing parenthesis stays out; trailing letters, digits or a decimal part spoil the run
	if e < n && (IsAlnum(s[e]) || s[e] == '%' || s[e] == '_' || (s[e] == ',' || s[e] == '.') && IsDigit(at(s, e+1))) {
		return -1, nil, nil
	}
	if len(groups) == 0 {
		return -1, nil, nil
	}
	if len(seps) == len(groups) { // a leading separator such as "(" was counted
		seps = seps[1:]
	}
	return e, groups, seps
}

// phone judges a candidate run [p, e).
func (sc *scan) phone(p, e int, groups, seps []string) bool {
	s := sc.s
	digits := ""
	for _, g := range groups {
		digits += g
	}
	nd := len(digits)
	if nd < 7 || nd > 15 {
		return false
	}
	if sc.inURL(p) {
		return false
	}
	context := sc.contextBefore(p, 40, phoneContext) || sc.contextAfter(e, 16, phoneContext)
	if monotone(digits) && !context {
		return false
	}
	plus := s[p] == '+' || (s[p] == '(' && at(s, p+1) == '+')
	idd := !plus && len(digits) >= 11 && digits[:2] == "00" && digits[2] != '0'
	obf := sc.v.AnyObf(p, e)
	if dateLike(groups, seps) || ipLike(groups, seps) || yearRange(groups, seps) {
		return false
	}
	if sc.contextBefore(p, 16, phoneNotWords) && !plus && !obf {
		return false
	}
	if len(groups) == 2 && len(seps) == 1 && seps[0] == "." && !plus && !obf {
		return false // a decimal number
	}
	if plus || idd {
		num := string(s[p:e])
		if idd {
			num = "+" + digits[2:]
		}
		pn, err := phonenumbers.Parse(num, "ZZ")
		if err == nil && phonenumbers.IsPossibleNumber(pn) {
			return true
		}
		// numbering plans change ("+52 1 ..."): a "+" and a word such as "phone" are enough
		return context && err == nil
	}
	if obf || context {
		return true
	}
	if !phoneShape(groups, seps) {
		return false
	}
	num := string(s[p:e])
	for _, region := range phoneRegions {
		if pn, err := phonenumbers.Parse(num, region); err == nil && phonenumbers.IsPossibleNumber(pn) {
			return true
		}
	}
	return false
}

// phoneShape reports whether digit groups are grouped as people write phone numbers:
// "(415) 555-0132", "415-555-0132", "020 7946 0958", "07700 900123", "06 12 34 56 78".
func phoneShape(groups, seps []string) bool {
	if len(groups) < 2 {
		return false
	}
	nd := 0
	trunk := groups[0][0] == '0'
	for i, g := range groups {
		nd += len(g)
		max := 6
		if trunk && len(groups) == 2 {
			max = 8 // "030 12345678"
		}
		if i > 0 && (len(g) < 2 || len(g) > max) {
			return false
		}
		if len(g) > 5 && i == 0 {
			return false
		}
	}
	if len(groups) == 2 && nd < 10 && !(len(seps) == 1 && (seps[0] == ") " || seps[0] == ")")) {
		return false // "555-1234", "1000-2000": too easily something else
	}
	// thousands: "1 000 000", "12.345.678"
	thousands := len(groups[0]) <= 3
	for i, g := range groups[1:] {
		if len(g) != 3 || (seps[i] != "." && seps[i] != " " && seps[i] != ",") {
			thousands = false
		}
	}
	if thousands && (len(groups[0]) < 3 || seps[0] == ".") {
		return false
	}
	mixed := map[string]bool{}
	for _, sp := range seps {
		switch sp {
		case " ", "-", ".", ") ", ")", ")-", " - ", "/", " / ", "-(", " (":
			mixed[sp] = true
		default:
			return false
		}
	}
	return len(mixed) <= 2
}

// dateLike reports dates: 2026-10-07, 07.10.2026, 10/07/2026, 2026/10/07 10.
func dateLike(groups, seps []string) bool {
	if len(groups) < 3 {
		return false
	}
	year := func(g string) bool { return len(g) == 4 && (g[:2] == "19" || g[:2] == "20") }
	small := func(g string, max int) bool {
		if len(g) > 2 || len(g) == 0 {
			return false
		}
		v := 0
		for i := 0; i < len(g); i++ {
			v = v*10 + int(g[i]-'0')
		}
		return v >= 1 && v <= max
	}
	if year(groups[0]) && small(groups[1], 12) && small(groups[2], 31) {
		return true
	}
	if small(groups[0], 31) && small(groups[1], 31) && year(groups[2]) {
		return true
	}
	return false
}

// ipLike reports a dotted quad, left to the IP detector.
func ipLike(groups, seps []string) bool {
	if len(groups) != 4 {
		return false
	}
	for _, sp := range seps {
		if sp != "." {
			return false
		}
	}
	for _, g := range groups {
		if len(g) > 3 {
			return false
		}
	}
	return true
}

// yearRange reports "2019-2023".
func yearRange(groups, seps []string) bool {
	return len(groups) == 2 && len(groups[0]) == 4 && len(groups[1]) == 4 &&
		(groups[0][:2] == "19" || groups[0][:2] == "20") && (groups[1][:2] == "19" || groups[1][:2] == "20")
}

// monotone reports digit runs such as 1234567, 7654321 or 0000000 that are counting, not
// numbers.
func monotone(d string) bool {
	up, down, same := true, true, true
	for i := 1; i < len(d); i++ {
		diff := int(d[i]) - int(d[i-1])
		if diff != 1 && !(d[i] == '0' && d[i-1] == '9') {
			up = false
		}
		if diff != -1 {
			down = false
		}
		if diff != 0 {
			same = false
		}
	}
	return up || down || same
}
