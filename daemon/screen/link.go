package screen

import (
	"regexp"
	"strings"
	"sync"

	"mvdan.cc/xurls/v2"
)

var (
	xurlsOnce sync.Once
	xurlsRe   *regexp.Regexp
	tlds      map[string]bool
)

// linkRegexp is xurls' matcher for links with any scheme. It is slow on long texts, so it only
// ever sees the few bytes from a scheme to the next blank.
func linkRegexp() *regexp.Regexp {
	xurlsOnce.Do(func() {
		xurlsRe = regexp.MustCompile(`^(?:` + mustStrict(`[a-z][a-z0-9.+\-]*://|(?:mailto|tel|sms|callto|sip|xmpp|bitcoin|ethereum|matrix|skype|magnet|geo|facetime):`).String() + `)`)
		xurlsRe.Longest()
	})
	return xurlsRe
}

func mustStrict(schemes string) *regexp.Regexp {
	re, err := xurls.StrictMatchingScheme(schemes)
	if err != nil {
		panic(err)
	}
	return re
}

func init() {
	tlds = make(map[string]bool, len(xurls.TLDs)+4)
	for _, t := range xurls.TLDs {
		tlds[t] = true
	}
	for _, t := range []string{"onion", "i2p", "bit"} {
		tlds[t] = true
	}
}

// linkKind names what a link with the given scheme leads to.
func linkKind(scheme string) string {
	switch scheme {
	case "mailto":
		return KindEmail
	case "tel", "sms", "callto", "sip", "facetime", "facetime-audio":
		return KindPhone
	case "skype", "tg", "whatsapp", "viber", "discord", "signal", "sgnl", "xmpp", "matrix", "line",
		"weixin", "wechat", "kakaotalk", "fb-messenger", "threema", "snapchat", "instagram":
		return KindHandle
	case "bitcoin", "ethereum", "solana", "tron", "litecoin", "monero", "dogecoin", "ton":
		return KindWallet
	case "ssh", "sftp", "telnet", "rdp", "vnc", "redis", "rediss", "postgres", "postgresql", "mysql",
		"mongodb", "mongodb+srv", "amqp", "amqps", "mqtt", "mqtts", "jdbc", "smb", "nfs", "tcp", "udp",
		"socks", "socks5", "socks5h", "ldap", "ldaps", "rtsp", "rtmp", "grpc", "irc", "ircs":
		return KindEndpoint
	}
	return KindURL
}

var noAuthority = []string{"mailto:", "tel:", "sms:", "callto:", "sip:", "xmpp:", "bitcoin:", "ethereum:", "matrix:", "skype:", "facetime:"}

// schemeURLs finds links with a scheme ("https://...", "mailto:...", "tel:+44...").
func (sc *scan) schemeURLs() {
	s, lo := sc.s, sc.lo
	for p := indexByteFrom(lo, ':', 0); p >= 0; p = indexByteFrom(lo, ':', p+1) {
		st := p
		for st > 0 && (IsAlnum(lo[st-1]) || lo[st-1] == '+' || lo[st-1] == '.' || lo[st-1] == '-') {
			st--
		}
		for st < p && !isAlpha(lo[st]) {
			st++
		}
		scheme := string(lo[st:p])
		authority := p+2 < len(lo) && lo[p+1] == '/' && lo[p+2] == '/'
		if !authority {
			ok := false
			for _, na := range noAuthority {
				if scheme+":" == na {
					ok = true
				}
			}
			if !ok || p+1 >= len(lo) || isSpace(lo[p+1]) {
				continue
			}
		}
		e := p + 1
		for e < len(s) && !isSpace(s[e]) && s[e] != '<' && s[e] != '>' && s[e] != '"' {
			e++
		}
		end := e
		if m := linkRegexp().FindIndex(s[st:e]); m != nil && m[0] == 0 {
			end = st + m[1]
		} else {
			end = trimPunct(s, st, e)
		}
		if end <= p+1 {
			continue
		}
		kind := linkKind(scheme)
		if kind == KindURL || kind == KindEndpoint {
			if host := hostOf(lo[st:end]); chatHost(host) {
				kind = KindHandle
			}
		}
		sc.add(st, end, kind)
		sc.urls = append(sc.urls, hit{st, end, kind})
		p = end - 1
	}
}

// indexByteFrom returns the index of the first c in b at or after i, or -1.
func indexByteFrom[T bytesOrString](b T, c byte, i int) int {
	for ; i < len(b); i++ {
		if b[i] == c {
			return i
		}
	}
	return -1
}

// hostOf returns the host of a lowercase link ("https://user@host:port/path" -> "host").
func hostOf(link string) string {
	s := link
	if i := strings.Index(s, "://"); i >= 0 {
		s = s[i+3:]
	}
	if i := strings.IndexAny(s, "/?#"); i >= 0 {
		s = s[:i]
	}
	if i := strings.LastIndexByte(s, '@'); i >= 0 {
		s = s[i+1:]
	}
	if i := strings.LastIndexByte(s, ':'); i >= 0 && !strings.Contains(s, "]") {
		s = s[:i]
	}
	return strings.TrimPrefix(s, "www.")
}

// chatHost reports whether host (lowercase) serves chat handles or invitations.
func chatHost(host string) bool {
	host = strings.TrimPrefix(host, "www.")
	for {
		if chatDomains[host] {
			return true
		}
		i := strings.IndexByte(host, '.')
		if i < 0 || !strings.Contains(host[i+1:], ".") {
			return false
		}
		host = host[i+1:]
	}
}

// ensTLDs are naming-service suffixes that resolve to wallets rather than web sites.
var ensTLDs = Set("eth", "crypto", "nft", "wallet", "blockchain", "bitcoin", "dao", "x")

// domains finds bare domains ("example.com", "shop.example.co.uk/deals", "example.com:8443").
func (sc *scan) domains() {
	lo, n := sc.lo, len(sc.lo)
	for p := 1; p < n-1; p++ {
		if lo[p] != '.' || !IsAlnum(lo[p-1]) || !isAlpha(lo[p+1]) {
			continue
		}
		hs := p
		for hs > 0 && (IsAlnum(lo[hs-1]) || lo[hs-1] == '-' || lo[hs-1] == '.') {
			hs--
		}
		he := p
		for he < n && (IsAlnum(lo[he]) || lo[he] == '-' || lo[he] == '.') {
			he++
		}
		next := he
		for hs < p && (lo[hs] == '.' || lo[hs] == '-') {
			hs++
		}
		for he > p && (lo[he-1] == '.' || lo[he-1] == '-') {
			he--
		}
		p = next
		if sc.inURL(hs) {
			continue
		}
		sc.domain(hs, he)
	}
}

// domain judges the host-like token [hs, he).
func (sc *scan) domain(hs, he int) {
	s, lo, n := sc.s, sc.lo, len(sc.s)
	before := byte(0)
	if hs > 0 {
		before = s[hs-1]
	}
	after := at(s, he)
	switch before {
	case '/', '\\', '_', '$', '#', '%', '=', '~':
		return
	case '@':
		if hs >= 2 && localByte(s[hs-2]) {
			return // the domain of an email address
		}
	}
	if he < n && (after == '(' || after == '_' || after == '@' || after == '[' || after == '$' || after == '\\') {
		return
	}
	host := string(lo[hs:he])
	labels := strings.Split(host, ".")
	for _, l := range labels {
		if l == "" || len(l) > 63 || l[0] == '-' || l[len(l)-1] == '-' {
			return
		}
	}
	tld := labels[len(labels)-1]
	raw := string(s[he-len(tld) : he])
	if raw != tld && raw != strings.ToUpper(tld) {
		return // "fmt.Println", "done.Next": not a domain
	}
	if ensTLDs[tld] && tld != "x" && len(labels) == 2 && len(labels[0]) >= 3 {
		sc.add(hs, he, KindWallet)
		return
	}
	if !tlds[tld] || codeFamous[host] || fileStems[labels[0]] {
		return
	}
	// what follows: a port or a path
	end := he
	kind := KindDomain
	evidence := false
	if after == ':' && IsDigit(at(s, he+1)) {
		k := he + 1
		for k < n && IsDigit(s[k]) {
			k++
		}
		if k-he-1 <= 5 && !IsAlnum(at(s, k)) && !(at(s, k) == '.' && IsDigit(at(s, k+1))) {
			end, kind, evidence = k, KindEndpoint, true
		}
	}
	if at(s, end) == '/' && (end+1 >= n || !isSpace(s[end+1]) || end == he) {
		k := end
		for k < n && !isSpace(s[k]) && s[k] != '<' && s[k] != '>' && s[k] != '"' && s[k] != '`' {
			k++
		}
		if k2 := trimPunct(s, end, k); k2 > end {
			if kind != KindEndpoint {
				kind = KindURL
			}
			end, evidence = k2, true
		}
	}
	chat := chatHost(host)
	switch {
	case chat:
		evidence = true
		kind = KindHandle
	case labels[0] == "www" && len(labels) >= 3:
		evidence = true
		if kind == KindDomain {
			kind = KindURL
		}
	case len(labels) >= 3 && secondLevel[labels[len(labels)-2]] && len(tld) == 2:
		evidence = true
	case sc.v.AnyObf(hs, he):
		evidence = true // written " dot " or spaced out on purpose
	}
	if !evidence && sc.contextBefore(hs, 24, domainContext) && !codeReceivers[labels[0]] && tld != "py" && tld != "sh" && tld != "md" {
		evidence = true
	}
	strong := strongTLDs[tld]
	if !evidence {
		if !strong {
			return
		}
		if len(labels) == 2 && codeMemberTLDs[tld] && codeReceivers[labels[0]] {
			return
		}
		if allDigits(labels[0]) && len(labels) == 2 {
			return
		}
	}
	if tld == "local" || tld == "localhost" || host == "localhost" {
		return
	}
	sc.add(hs, end, kind)
}

func localByte(c byte) bool {
	return IsAlnum(c) || c == '.' || c == '_' || c == '%' || c == '+' || c == '-' || c == '\'' || c >= 0x80
}
