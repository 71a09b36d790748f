package screen

import (
	"strings"
)

// handleByte may appear in a chat handle.
func handleByte(c byte) bool { return IsAlnum(c) || c == '_' || c == '.' || c == '-' }

// handles finds chat handles: a platform name followed by a handle ("tg: @name", "discord -
// name#1234", "skype: live:.cid.x", "wechat id wxid_x"), "@name" after "dm me" and the like,
// Discord tags, Skype live: ids, WeChat ids, Matrix ids, and ssh targets.
func (sc *scan) handles() {
	lo, n := sc.lo, len(sc.lo)
	for p := 0; p < n; {
		if !IsAlnum(lo[p]) || (p > 0 && (IsAlnum(lo[p-1]) || lo[p-1] == '.' || lo[p-1] == '/' || lo[p-1] == '@' || lo[p-1] == '_')) {
			p++
			continue
		}
		w := wordAt(lo, p)
		e := p + len(w)
		name := w
		// two-word names: "whats app", "we chat", "kakao talk", "cash app", "user name"
		if k := skipBlanks(lo, e); k > e {
			switch nw := wordAt(lo, k); {
			case w == "whats" && nw == "app", w == "we" && nw == "chat", w == "kakao" && nw == "talk",
				w == "cash" && nw == "app", w == "user" && nw == "name", w == "screen" && nw == "name":
				name, e = w+nw, k+len(nw)
			}
		}
		if strong, ok := platforms[name]; ok && !sc.inURL(p) && at(lo, e) != '.' && at(lo, e) != '_' && at(lo, e) != '/' {
			sc.platformHandle(e, strong)
			if strong {
				sc.handleBefore(p)
			}
		}
		if mailProviders[w] && !sc.inURL(p) && at(lo, e) != '.' {
			sc.providerLocal(e)
		}
		switch {
		case w == "live" && at(lo, e) == ':':
			sc.skypeLive(p, e)
		case strings.HasPrefix(w, "wxid") && at(lo, e) == '_':
			k := e
			for k < n && handleByte(lo[k]) {
				k++
			}
			sc.add(p, k, KindHandle)
		case w == "ssh" || w == "scp" || w == "sftp" || w == "mosh" || w == "telnet" || w == "rsync":
			sc.sshTarget(e)
		}
		p = e
	}
	sc.mentions()
	sc.discordTags()
	sc.hostPorts()
}

// platformHandle looks for a handle after a platform name ending at e.
func (sc *scan) platformHandle(e int, strong bool) {
	s, lo, n := sc.s, sc.lo, len(sc.s)
	p := e
	sep, label := false, false
	for step := 0; step < 6 && p < n; step++ {
		k := skipBlanks(lo, p)
		if k >= n {
			return
		}
		c := lo[k]
		switch {
		case c == ':' || c == '=' || c == '|' || c == '>' || c == '~':
			sep = true
			p = k + 1
			continue
		case c == '-' && (isBlank(at(lo, k+1)) || at(lo, k+1) == '>'):
			sep = true
			p = k + 1
			continue
		case c == '(' || c == ')' || c == '[' || c == ']' || c == '"' || c == '\'' || c == '*':
			p = k + 1
			continue
		case isAlpha(c):
			w := wordAt(lo, k)
			if handleFillers[w] && !handleByte(at(lo, k+len(w))) || handleFillers[w] && at(lo, k+len(w)) == '.' && !IsAlnum(at(lo, k+len(w)+1)) {
				if handleLabels[w] {
					label = true
				}
				p = k + len(w)
				continue
			}
		}
		p = k
		break
	}
	if p >= n {
		return
	}
	st := p
	mention := lo[p] == '@' || lo[p] == '$' && isAlpha(at(lo, p+1))
	if mention {
		p++
	}
	hs := p
	for p < n && (handleByte(lo[p]) || (lo[p] == ':' && handleByte(at(lo, p+1)) && strings.HasPrefix(string(lo[hs:p]), "live"))) {
		p++
	}
	for p > hs && (lo[p-1] == '.' || lo[p-1] == '-') {
		p--
	}
	h := string(lo[hs:p])
	if len(h) < 2 || len(h) > 40 {
		return
	}
	if at(lo, p) == '#' && IsDigit(at(lo, p+1)) {
		k := p + 1
		for k < n && IsDigit(lo[k]) {
			k++
		}
		if k-p-1 == 4 {
			sc.add(st, k, KindHandle)
			return
		}
	}
	if at(lo, p) == '@' || (p < n && lo[p] == '.' && isAlpha(at(lo, p+1))) {
		return // an email address or a domain: their own detectors judge them
	}
	letters, digits := 0, 0
	for i := 0; i < len(h); i++ {
		switch {
		case isAlpha(h[i]):
			letters++
		case IsDigit(h[i]):
			digits++
		}
	}
	if letters == 0 {
		return // digits: a phone number, for the phone detector
	}
	if !mention && (handleNotNames[h] || Stopwords[h] || platforms[h] || isStop(h)) {
		return
	}
	shaped := strings.ContainsAny(h, "_.") || (digits > 0 && letters > 0 && !versionLike(h)) || strings.HasPrefix(h, "live:")
	endsClause := clauseEnds(s, p)
	ok := false
	switch {
	case mention:
		ok = len(h) >= 3
	case strong:
		ok = (sep || label) && (shaped || endsClause) || shaped && len(h) >= 4
	default:
		ok = label && (shaped || endsClause) || sep && shaped && len(h) >= 4
	}
	if ok {
		sc.add(st, p, KindHandle)
	}
}

// handleBefore finds "name_88 on telegram": a handle-shaped word, then "on", "in" or "via", then
// the platform name starting at p.
func (sc *scan) handleBefore(p int) {
	lo := sc.lo
	k := p
	for k > 0 && isBlank(lo[k-1]) {
		k--
	}
	w := k
	for w > 0 && isAlpha(lo[w-1]) {
		w--
	}
	switch lo[w:k] {
	case "on", "in", "via", "at":
	default:
		return
	}
	k = w
	for k > 0 && isBlank(lo[k-1]) {
		k--
	}
	e := k
	for k > 0 && handleByte(lo[k-1]) {
		k--
	}
	if k > 0 && lo[k-1] == '@' {
		k--
	}
	h := strings.Trim(lo[k:e], ".-")
	if len(h) < 4 || !strings.ContainsAny(h, "_.0123456789") || versionLike(h) || !strings.ContainsAny(h, "abcdefghijklmnopqrstuvwxyz") {
		return
	}
	sc.add(k, e, KindHandle)
}

// versionLike reports words such as "v2", "v1.2" or "3d" that mix digits and letters without
// being names.
func versionLike(h string) bool {
	if len(h) <= 3 {
		return true
	}
	if h[0] == 'v' && IsDigit(h[1]) {
		return true
	}
	return false
}

// clauseEnds reports whether the text after p ends the clause: end of text, end of line, or
// punctuation followed by a blank.
func clauseEnds(s []byte, p int) bool {
	k := skipBlanks(s, p)
	if k >= len(s) || s[k] == '\n' || s[k] == '\r' {
		return true
	}
	switch s[k] {
	case '.', ',', ';', '!', '?', ')', ']', '"', '\'', '(':
		return k+1 >= len(s) || isSpace(s[k+1]) || s[k+1] == '"' || s[k+1] == ')'
	}
	return false
}

// providerLocal handles "gmail: name" and "my gmail is name.surname": a webmail name followed by
// the local part of the address.
func (sc *scan) providerLocal(e int) {
	lo, n := sc.lo, len(sc.lo)
	k := skipBlanks(lo, e)
	switch {
	case k < n && (lo[k] == ':' || lo[k] == '='):
		k = skipBlanks(lo, k+1)
	case hasWordAt(lo, k, "is"):
		k = skipBlanks(lo, k+2)
	case hasWordAt(lo, k, "id"):
		k = skipBlanks(lo, k+2)
		if k < n && lo[k] == ':' {
			k = skipBlanks(lo, k+1)
		}
	default:
		return
	}
	st := k
	for k < n && (IsAlnum(lo[k]) || lo[k] == '.' || lo[k] == '_' || lo[k] == '-' || lo[k] == '+') {
		k++
	}
	for k > st && (lo[k-1] == '.' || lo[k-1] == '-') {
		k--
	}
	local := string(lo[st:k])
	if len(local) < 4 || at(lo, k) == '@' || Stopwords[local] || handleNotNames[local] || !strings.ContainsAny(local, "abcdefghijklmnopqrstuvwxyz") {
		return
	}
	if !strings.ContainsAny(local, "._0123456789") && !clauseEnds(sc.s, k) {
		return
	}
	sc.add(st, k, KindEmail)
}

// skypeLive handles "live:name" and "live:.cid.123abc" Skype ids; p and e delimit "live".
func (sc *scan) skypeLive(p, e int) {
	lo, n := sc.lo, len(sc.lo)
	k := e + 1
	for k < n && handleByte(lo[k]) {
		k++
	}
	id := strings.Trim(string(lo[e+1:k]), ".-")
	switch id {
	case "", "true", "false", "yes", "no", "null", "none", "on", "off", "0", "1":
		return
	}
	if len(id) < 3 {
		return
	}
	sc.add(p, trimPunct(sc.s, p, k), KindHandle)
}

// sshTarget flags the host after "ssh", skipping options ("ssh -p 2222 root@box").
func (sc *scan) sshTarget(e int) {
	s, n := sc.s, len(sc.s)
	p := e
	for step := 0; step < 5 && p < n; step++ {
		k := skipBlanks(s, p)
		if k == p && step > 0 || k >= n {
			return
		}
		j := k
		for j < n && !isSpace(s[j]) {
			j++
		}
		tok := string(s[k:j])
		switch {
		case strings.HasPrefix(tok, "-"):
			p = j
			continue
		case allDigits(tok) && step > 0:
			p = j
			continue
		case strings.ContainsAny(tok, "@:") || strings.Count(tok, ".") >= 1 && IsAlnum(tok[len(tok)-1]):
			if strings.HasSuffix(tok, ".pem") || strings.HasSuffix(tok, ".key") || strings.HasPrefix(tok, "~") {
				p = j
				continue
			}
			sc.add(k, trimPunct(s, k, j), KindEndpoint)
			return
		default:
			return
		}
	}
}

// mentions finds "@name" announced as a way to talk: "dm me @name", "my ig is @name", and Matrix
// ids "@name:server.org".
func (sc *scan) mentions() {
	s, lo, n := sc.s, sc.lo, len(sc.s)
	for p := indexByteFrom(s, '@', 0); p >= 0; p = indexByteFrom(s, '@', p+1) {
		if p > 0 && (localByte(s[p-1]) || s[p-1] == '@') {
			continue
		}
		k := p + 1
		for k < n && (IsAlnum(lo[k]) || lo[k] == '_' || lo[k] == '.') {
			k++
		}
		for k > p+1 && lo[k-1] == '.' {
			k--
		}
		if k == p+1 || sc.inURL(p) {
			continue
		}
		if at(s, k) == ':' && IsAlnum(at(s, k+1)) {
			j := k + 1
			for j < n && (IsAlnum(lo[j]) || lo[j] == '.' || lo[j] == '-') {
				j++
			}
			if strings.Contains(string(lo[k+1:j]), ".") {
				sc.add(p, trimPunct(s, p, j), KindHandle) // Matrix
				continue
			}
		}
		if k-p-1 < 3 || at(s, k) == '/' { // "@types/node"
			continue
		}
		if sc.mentionContext(p) || sc.contextAfter(k, 20, platformNames) {
			sc.add(p, k, KindHandle)
		}
	}
}

// platformNames are the names of chat platforms, for "@name on tg".
var platformNames = func() map[string]bool {
	m := make(map[string]bool, len(platforms))
	for p := range platforms {
		if p != "x" && p != "line" && p != "session" && p != "element" && p != "matrix" && p != "teams" {
			m[p] = true
		}
	}
	return m
}()

// needsMe are verbs that announce a handle only about oneself: "add me @x", not "add the
// @Override annotation".
var needsMe = Set("add", "follow", "hit", "find", "reach", "contact", "write", "text", "message", "msg", "ping",
	"user", "account", "profile", "id", "line", "session", "element", "matrix", "wire", "threads", "x")

// mentionContext reports whether the words before "@name" invite the reader to talk elsewhere.
func (sc *scan) mentionContext(p int) bool {
	st := p - 40
	if st < 0 {
		st = 0
	}
	w := sc.lo[st:p]
	me, verb := false, false
	for k := 0; k < len(w); {
		if !IsAlnum(w[k]) {
			k++
			continue
		}
		j := k
		for j < len(w) && IsAlnum(w[j]) {
			j++
		}
		word := string(w[k:j])
		switch {
		case word == "me" || word == "us" || word == "my" || word == "our":
			me = true
		case needsMe[word]:
			verb = true
		case handleVerbs[word]:
			return true
		}
		k = j
	}
	return me && verb
}

// discordNot are names before "#1234" that are issue or order numbers.
var discordNot = Set("issue", "issues", "pr", "pull", "bug", "ticket", "item", "order", "no", "number",
	"step", "page", "line", "row", "col", "id", "task", "job", "version", "build", "room", "table",
	"seat", "case", "invoice", "ref", "run", "test", "story", "epic", "req", "cve", "po", "so", "rfc",
	"part", "sku", "lot", "batch", "unit", "flight", "gate", "track", "episode", "ep", "chapter",
	"report", "request", "incident", "change", "commit", "release", "tag", "note", "offer", "quote")

// discordTags finds "name#1234".
func (sc *scan) discordTags() {
	s, lo, n := sc.s, sc.lo, len(sc.s)
	for p := indexByteFrom(s, '#', 0); p >= 0; p = indexByteFrom(s, '#', p+1) {
		k := p + 1
		for k < n && IsDigit(s[k]) {
			k++
		}
		if k-p-1 != 4 || IsAlnum(at(s, k)) {
			continue
		}
		st := p
		for st > 0 && (IsAlnum(lo[st-1]) || lo[st-1] == '_' || lo[st-1] == '.') {
			st--
		}
		if p-st < 2 || (st > 0 && (lo[st-1] == '/' || lo[st-1] == '@')) {
			continue
		}
		name := string(lo[st:p])
		if discordNot[name] || !strings.ContainsAny(name, "abcdefghijklmnopqrstuvwxyz") {
			continue
		}
		sc.add(st, k, KindHandle)
	}
}

// hostPortNot are words before ":1234" that are not machines.
var hostPortNot = Set("localhost", "line", "step", "page", "row", "col", "column", "part", "chapter",
	"verse", "item", "ratio", "version", "build", "id", "pid", "tid", "code", "error", "err", "exit",
	"status", "offset", "size", "len", "length", "count", "port", "timeout", "time", "at", "from",
	"to", "until", "till", "by", "am", "pm", "utc", "gmt", "total", "score", "price", "cost", "qty",
	"amount", "width", "height", "x", "y", "z", "n", "min", "max", "limit", "level", "rank", "year",
	"day", "days", "hours", "minutes", "seconds", "ms", "line", "lines", "col", "mark", "task", "job")

// hostPorts finds "name:port" near a word such as "ssh", "server" or "connect" ("box17:2222").
func (sc *scan) hostPorts() {
	s, lo, n := sc.s, sc.lo, len(sc.s)
	for p := indexByteFrom(s, ':', 0); p >= 0; p = indexByteFrom(s, ':', p+1) {
		if !IsDigit(at(s, p+1)) || p == 0 || !IsAlnum(s[p-1]) {
			continue
		}
		k := p + 1
		for k < n && IsDigit(s[k]) {
			k++
		}
		if l := k - p - 1; l < 2 || l > 5 || IsAlnum(at(s, k)) || at(s, k) == ':' || at(s, k) == '.' && IsDigit(at(s, k+1)) {
			continue
		}
		st := p
		for st > 0 && (IsAlnum(lo[st-1]) || lo[st-1] == '-') {
			st--
		}
		if st > 0 && (lo[st-1] == '.' || lo[st-1] == '_' || lo[st-1] == '/' || lo[st-1] == '@' || lo[st-1] == ':') {
			continue // a domain or IP (their detectors), a path, a time
		}
		host := string(lo[st:p])
		if len(host) < 2 || !isAlpha(host[0]) || hostPortNot[host] || Stopwords[host] || sc.inURL(p) {
			continue
		}
		if sc.contextBefore(st, 40, endpointContext) {
			sc.add(st, k, KindEndpoint)
		}
	}
}
