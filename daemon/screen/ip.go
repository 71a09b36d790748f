package screen

import (
	"net/netip"
)

// ipNotWords are words before a dotted quad that make it a version or section number.
var ipNotWords = Set("v", "version", "ver", "build", "section", "sec", "chapter", "release", "rel",
	"firmware", "fw", "rule", "clause", "paragraph", "para", "step", "item", "figure", "fig", "table",
	"appendix", "article", "art", "rev", "revision", "edition", "sdk", "api", "schema", "spec")

// ips finds IPv4 and IPv6 addresses, with their port when one follows.
func (sc *scan) ips() {
	s, n := sc.s, len(sc.s)
	for p := 0; p < n; p++ {
		if !IsDigit(s[p]) || (p > 0 && (IsAlnum(s[p-1]) || s[p-1] == '.')) {
			continue
		}
		e, octets, ok := dottedQuad(s, p)
		if !ok {
			for p < n && (IsDigit(s[p]) || s[p] == '.') {
				p++
			}
			continue
		}
		if sc.inURL(p) {
			p = e
			continue
		}
		sc.ipv4(p, e, octets)
		p = e
	}
	sc.ipv6()
}

// dottedQuad parses a.b.c.d at p and returns the end, the octets and whether it is one.
func dottedQuad(s []byte, p int) (int, [4]int, bool) {
	var oct [4]int
	k := p
	for i := 0; i < 4; i++ {
		st := k
		v := 0
		for k < len(s) && IsDigit(s[k]) && k-st < 4 {
			v = v*10 + int(s[k]-'0')
			k++
		}
		if k == st || k-st > 3 || v > 255 || (k-st > 1 && s[st] == '0') {
			return 0, oct, false
		}
		oct[i] = v
		if i < 3 {
			if at(s, k) != '.' {
				return 0, oct, false
			}
			k++
		}
	}
	if k < len(s) && (IsAlnum(s[k]) || (s[k] == '.' && IsDigit(at(s, k+1)))) {
		return 0, oct, false
	}
	return k, oct, true
}

func (sc *scan) ipv4(p, e int, o [4]int) {
	s, n := sc.s, len(sc.s)
	switch {
	case o[0] == 127, o == [4]int{0, 0, 0, 0}:
		return
	case o[0] == 255 && isMaskOctet(o[1]) && isMaskOctet(o[2]) && isMaskOctet(o[3]):
		return // a netmask
	}
	if sc.contextBefore(p, 14, ipNotWords) {
		return
	}
	obf := sc.v.AnyObf(p, e)
	if o[0] < 10 && o[1] < 10 && o[2] < 10 && o[3] < 10 && !obf && !sc.contextBefore(p, 40, endpointContext) {
		return // "1.2.3.4" is more often a version or a section than an address
	}
	st, end, kind := p, e, KindIP
	if at(s, e) == ':' && IsDigit(at(s, e+1)) {
		k := e + 1
		for k < n && IsDigit(s[k]) {
			k++
		}
		if k-e-1 <= 5 && !IsAlnum(at(s, k)) {
			end, kind = k, KindEndpoint
		}
	}
	if at(s, end) == '/' && end+1 < n && !isSpace(s[end+1]) {
		k := end
		for k < n && !isSpace(s[k]) && s[k] != '"' && s[k] != '<' && s[k] != '>' {
			k++
		}
		end, kind = trimPunct(s, end, k), KindEndpoint
	}
	if p > 1 && s[p-1] == '@' && localByte(s[p-2]) {
		k := p - 1
		for k > 0 && localByte(s[k-1]) {
			k--
		}
		st, kind = k, KindEndpoint
	}
	sc.add(st, end, kind)
}

func isMaskOctet(v int) bool {
	switch v {
	case 0, 128, 192, 224, 240, 248, 252, 254, 255:
		return true
	}
	return false
}

// ipv6 finds runs of hex digits and colons that parse as an IPv6 address.
func (sc *scan) ipv6() {
	s, n := sc.s, len(sc.s)
	for p := indexByteFrom(s, ':', 0); p >= 0 && p < n; p = indexByteFrom(s, ':', p+1) {
		st := p
		for st > 0 && (isHex(s[st-1]) || s[st-1] == ':' || s[st-1] == '.') {
			st--
		}
		e := p
		for e < n && (isHex(s[e]) || s[e] == ':' || s[e] == '.') {
			e++
		}
		for e > p && s[e-1] == '.' {
			e--
		}
		if (st > 0 && (IsAlnum(s[st-1]) || s[st-1] == '_')) || (e < n && (IsAlnum(s[e]) || s[e] == '_')) {
			p = e
			continue
		}
		tok := string(s[st:e])
		colons := 0
		for i := 0; i < len(tok); i++ {
			if tok[i] == ':' {
				colons++
			}
		}
		if colons < 2 {
			p = e
			continue
		}
		ip, err := netip.ParseAddr(tok)
		if err != nil || !ip.Is6() || ip.IsLoopback() || ip.IsUnspecified() || len(tok) < 6 {
			p = e
			continue
		}
		kind := KindIP
		start, end := st, e
		if st > 0 && s[st-1] == '[' && at(s, e) == ']' {
			start, end = st-1, e+1
			if at(s, end) == ':' && IsDigit(at(s, end+1)) {
				k := end + 1
				for k < n && IsDigit(s[k]) {
					k++
				}
				end, kind = k, KindEndpoint
			}
		}
		if sc.inURL(st) {
			p = e
			continue
		}
		sc.add(start, end, kind)
		p = e
	}
}
