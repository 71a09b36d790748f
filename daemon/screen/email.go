package screen

import (
	"net/netip"
	"strings"
)

// emails finds addresses around each "@": name@host.tld (reserved top-level domains included),
// name@gmail (a webmail without its top-level domain), and user@1.2.3.4.
func (sc *scan) emails() {
	s, lo, n := sc.s, sc.lo, len(sc.s)
	for p := indexByteFrom(s, '@', 0); p >= 0; p = indexByteFrom(s, '@', p+1) {
		if sc.inURL(p) {
			continue
		}
		ls := p
		for ls > 0 && p-ls < 64 && localByte(s[ls-1]) {
			ls--
		}
		for ls < p && (s[ls] == '.' || s[ls] == '-' || s[ls] == '\'' || s[ls] == '+') {
			ls++
		}
		if ls == p {
			continue
		}
		de := p + 1
		for de < n && (IsAlnum(s[de]) || s[de] == '-' || s[de] == '.') {
			de++
		}
		for de > p+1 && (s[de-1] == '.' || s[de-1] == '-') {
			de--
		}
		if de == p+1 {
			continue
		}
		domain := string(lo[p+1 : de])
		labels := strings.Split(domain, ".")
		tld := labels[len(labels)-1]
		kind := ""
		switch {
		case len(labels) >= 2 && isAlphaString(tld) && (tlds[tld] || reservedTLDs[tld]):
			kind = KindEmail
		case len(labels) == 1 && mailProviders[domain]:
			kind = KindEmail
		case len(labels) == 4:
			if ip, err := netip.ParseAddr(domain); err == nil && ip.Is4() {
				kind = KindEndpoint
			}
		}
		if kind == "" {
			continue
		}
		end := de
		// git@github.com:owner/repo.git
		if at(s, de) == ':' && de+1 < n && (IsAlnum(s[de+1]) || s[de+1] == '/') {
			k := de + 1
			for k < n && !isSpace(s[k]) {
				k++
			}
			end = trimPunct(s, de, k)
		}
		sc.add(ls, end, kind)
	}
}

func isAlphaString(w string) bool {
	if w == "" {
		return false
	}
	for i := 0; i < len(w); i++ {
		if !isAlpha(w[i]) {
			return false
		}
	}
	return true
}
