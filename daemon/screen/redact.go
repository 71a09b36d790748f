package screen

import (
	"crypto/sha256"
	"encoding/hex"
	"sort"
	"strings"
)

// Kinds of contact detail.
const (
	KindEmail    = "email"
	KindPhone    = "phone"
	KindURL      = "url"
	KindDomain   = "domain"
	KindHandle   = "handle"
	KindWallet   = "wallet"
	KindIP       = "ip"
	KindEndpoint = "endpoint"
)

// Kinds lists every kind of contact detail, most specific first.
var Kinds = []string{KindEmail, KindWallet, KindHandle, KindURL, KindEndpoint, KindIP, KindPhone, KindDomain}

// priority decides the kind of overlapping detections: the more specific one names the removal.
var priority = map[string]int{
	KindEmail: 8, KindWallet: 7, KindHandle: 6, KindURL: 5, KindEndpoint: 4, KindIP: 3, KindPhone: 2, KindDomain: 1,
}

// Removal is one contact detail, or one run of stripped characters (see Stripped), taken out of a
// text. It never carries the removed text itself, only a fingerprint that lets repeated attempts be
// matched.
type Removal struct {
	Kind        string `json:"kind"`
	Start       int    `json:"-"`           // byte offset in the input
	End         int    `json:"-"`           // byte offset in the input, exclusive
	Fingerprint string `json:"fingerprint"` // first 8 hex digits of the SHA-256 of the removed text
}

// Marker is the text that replaces a removed contact detail of the given kind.
func Marker(kind string) string { return "[" + kind + " removed]" }

// Redact removes contact details from text, replacing each with a marker such as
// "[email removed]", strips control, bidirectional-control and invisible characters (see
// KindControl, KindBidi, KindInvisible; no marker is left for them) and reports what it removed, in
// order. The detectors read the text as it is without those characters, so splitting a contact
// detail with them ("jo\u200bhn@example.com", "john\x00@example.com") does not hide it. A text
// with nothing to remove is returned unchanged (the same string) with no removals.
func Redact(text string) (string, []Removal) {
	return apply(text, withChars(text, detect(text, false, nil)), Marker)
}

// RedactOwn is Redact (or RedactKeepLinks with keepLinks) that leaves alone the links, domains and
// addresses whose host is one of own: the exchange's own base URL and deliver links are never a
// contact detail, since they lead nowhere but to the exchange itself. Hosts are compared without
// port and case.
func RedactOwn(text string, keepLinks bool, own []string) (string, []Removal) {
	return apply(text, withChars(text, detect(text, keepLinks, own)), Marker)
}

// RedactKeepLinks is Redact for data-source fields (source_url and the like): web links and bare
// domains survive, everything else is removed. Links that are themselves a way to reach someone
// (mailto:, tel:, t.me/..., wa.me/...) are still removed.
func RedactKeepLinks(text string) (string, []Removal) {
	return apply(text, withChars(text, detect(text, true, nil)), Marker)
}

// Find reports the contact details in text without changing it (characters Redact would strip are
// not reported).
func Find(text string) []Removal { return detect(text, false, nil) }

// apply replaces each removal's bytes with marker(kind), or with nothing for stripped characters.
func apply(text string, rs []Removal, marker func(kind string) string) (string, []Removal) {
	if len(rs) == 0 {
		return text, nil
	}
	var b strings.Builder
	b.Grow(len(text))
	prev := 0
	for _, r := range rs {
		b.WriteString(text[prev:r.Start])
		if !r.Stripped() {
			b.WriteString(marker(r.Kind))
		}
		prev = r.End
	}
	b.WriteString(text[prev:])
	return b.String(), rs
}

// hit is a detection in the deobfuscated view: bytes [s, e).
type hit struct {
	s, e int
	kind string
}

func detect(text string, keepLinks bool, own []string) []Removal {
	if !mayContain(text) {
		return nil
	}
	a := fold(text)
	v := deobfuscate(a)
	sc := newScan(v)
	sc.run()
	if len(sc.hits) == 0 {
		return nil
	}
	type span struct {
		s, e int
		kind string
	}
	spans := make([]span, 0, len(sc.hits))
	for _, h := range sc.hits {
		s, e := v.Orig(h.s, h.e)
		if s < e {
			spans = append(spans, span{s, e, h.kind})
		}
	}
	if len(own) > 0 {
		// A link to the exchange itself goes with everything detected inside it (its IP host).
		var mine []span
		for _, sp := range spans {
			switch sp.kind {
			case KindURL, KindDomain, KindIP, KindEndpoint:
				if ownHost(strings.ToLower(text[sp.s:sp.e]), own) {
					mine = append(mine, sp)
				}
			}
		}
		if len(mine) > 0 {
			kept := spans[:0]
			for _, sp := range spans {
				inside := false
				for _, l := range mine {
					if l.s <= sp.s && sp.e <= l.e {
						inside = true
						break
					}
				}
				if !inside {
					kept = append(kept, sp)
				}
			}
			spans = kept
		}
	}
	if keepLinks {
		var links []span
		for _, sp := range spans {
			if sp.kind == KindURL || sp.kind == KindDomain {
				links = append(links, sp)
			}
		}
		kept := spans[:0]
		for _, sp := range spans {
			inLink := false
			for _, l := range links {
				if l.s <= sp.s && sp.e <= l.e {
					inLink = true
					break
				}
			}
			if !inLink {
				kept = append(kept, sp)
			}
		}
		spans = kept
	}
	sort.Slice(spans, func(i, j int) bool {
		if spans[i].s != spans[j].s {
			return spans[i].s < spans[j].s
		}
		return spans[i].e > spans[j].e
	})
	var out []Removal
	for _, sp := range spans {
		if n := len(out); n > 0 && sp.s < out[n-1].End {
			last := &out[n-1]
			if sp.e > last.End {
				last.End = sp.e
			}
			if priority[sp.kind] > priority[last.Kind] {
				last.Kind = sp.kind
			}
			continue
		}
		out = append(out, Removal{Kind: sp.kind, Start: sp.s, End: sp.e})
	}
	for i := range out {
		out[i].Fingerprint = fingerprint(text[out[i].Start:out[i].End])
	}
	return out
}

// ownHost reports whether a detected link, domain or address (lowercase) is on one of the hosts
// own.
func ownHost(found string, own []string) bool {
	h := hostOf(strings.TrimRight(found, ".,;:!?)]}'\""))
	h = strings.Trim(h, "[]")
	if h == "" {
		return false
	}
	for _, o := range own {
		if o != "" && h == strings.TrimPrefix(o, "www.") {
			return true
		}
	}
	return false
}

// fingerprint is the first 8 hex digits of the SHA-256 of a removed text.
func fingerprint(removed string) string {
	sum := sha256.Sum256([]byte(removed))
	return hex.EncodeToString(sum[:4])
}

// mayContain is a cheap first look: a text of fewer than four bytes cannot hold a contact detail.
func mayContain(text string) bool {
	return len(text) >= 4
}
