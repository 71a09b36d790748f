package screen

import (
	"encoding/base64"
	"regexp"
	"strings"
)

// namedValue finds a value next to a name: group 1 is the name, group 2 the value. The value is a
// secret when the name is named for one (secretName) and genericValue takes it after that name.
type namedValue struct {
	keys []string // lower case: the expression runs only on a text holding one of them
	all  []string // and, when set, one of these
	re   *regexp.Regexp
}

// namedValues are the places of the eighth round where a name stands apart from its value.
var namedValues = []namedValue{
	// a call whose first argument names a secret and whose second is its value: PHP's
	// define('X', '...'), props.put("mail.smtp.password", "..."), an environment read with a
	// fallback (os.getenv("X", "..."), os.environ.get, ENV.fetch), setenv("X", "...").
	{keys: []string{"(\"", "('", "( '", "( \""}, all: secretWords, re: regexp.MustCompile(`(?i)\b(?:define|put|setproperty|set|setdefault|getenv|get|fetch|setenv|putenv|setenvironmentvariable|add|env|getproperty|getstring|getordefault)\([ \t]*["']([A-Za-z0-9_.\-]{2,80})["'][ \t]*,[ \t]*["']([^"'\n]{3,200})["']`)},
	// an environment read and its fallback: process.env.X || '...', ?? "...", getenv("X") ?: "...",
	// env::var("X").unwrap_or("..."), os.environ["X"] or "..."
	{keys: []string{"env.", "env[", "getenv(", "env::var", "env(", "environ["}, re: regexp.MustCompile(`(?i)(?:\benv\.|\benv\[["']|getenv\([ \t]*["']|env::var\([ \t]*"|\benv\([ \t]*["']|environ\[["'])([A-Za-z0-9_]{2,80})["'\])]*[ \t]*(?:\|\||\?\?|\?:|\bor\b|\.unwrap_or(?:_else)?\([ \t]*(?:\|_\|[ \t]*)?)[ \t]*["'` + "`" + `]([^"'` + "`" + `\n]{3,200})["'` + "`" + `]`)},
	// a constant with its type: NAME: &str = "...", NAME: String = "...", Go's NAME string = "..."
	{keys: []string{"str =", "str=", "string =", "string="}, re: regexp.MustCompile(`\b([A-Za-z_][A-Za-z0-9_]{1,80})(?:[ \t]*:[ \t]*&?(?:'static[ \t]+)?|[ \t]+)(?:str|String|string)[ \t]*=[ \t]*["'` + "`" + `]([^"'` + "`" + `\n]{3,1000})["'` + "`" + `]`)},
	// a YAML list of variables: - name: X, then value: ...
	{keys: []string{"value:"}, re: regexp.MustCompile(`-[ \t]+name:[ \t]*["']?([A-Za-z0-9_.\-]{2,80})["']?[ \t]*\r?\n[ \t]*value:[ \t]*["']?([^"'\s]{3,300})`)},
	// a name holding a secret's word before its last part (TF_TOKEN_app_terraform_io=...,
	// tf-token-app-terraform-io=...), set with = or :
	{keys: []string{"token_", "token-", "token.", "secret_", "secret-", "secret.", "password_", "password-", "password.", "passwd_", "key_", "key-", "key.", "pat_", "pat-"}, re: regexp.MustCompile(`(?i)(?:^|[^A-Za-z0-9_.\-])([A-Za-z0-9_.\-]{0,40}(?:token|secret|password|passwd|key|pat)[_.\-][A-Za-z0-9_.\-]{1,40})["']?[ \t]*[=:][ \t]*["']?([^\s"',;]{8,300})`)},
	// a name ending in key (ALGOLIA_ADMIN_KEY, $env:X_KEY) set to a random value
	{keys: []string{"_key", "-key", ".key"}, re: regexp.MustCompile(`(?i)(?:^|[^A-Za-z0-9_.\-])([A-Za-z0-9_.\-]{1,40}[_.\-]key)["']?[ \t]*[=:][ \t]*["']?([A-Za-z0-9_\-+/=.]{16,300})`)},
	// a CSV or tab-separated row whose first cell is a variable's name: OKTA_API_TOKEN,00wB...
	{keys: []string{"token", "secret", "key", "pass", "_pat", "pwd"}, re: regexp.MustCompile(`(?m)^[ \t]*"?([A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+)"?[ \t]*[,\t][ \t]*"?([^\s,"]{8,300})`)},
	// a Markdown table's row whose first cell names a secret: | ` + "`" + `TWILIO_AUTH_TOKEN` + "`" + ` | ` + "`" + `...` + "`" + ` |
	{keys: []string{"|"}, all: secretWords, re: regexp.MustCompile("(?m)^\\|?[ \\t]*`?([A-Za-z][A-Za-z0-9_.\\-]{2,80})`?[ \\t]*\\|[ \\t]*`?([^|`\\s]{8,300})`?[ \\t]*(?:\\||$)")},
}

// secretWords are the words of secretParts, to look for in a text before a costly expression.
var secretWords = []string{"token", "secret", "pass", "pwd", "_pat", "key", "credential"}

// secretParts are the words of a name that make it a secret's name.
var secretParts = map[string]string{"token": SecretToken, "secret": SecretGeneric, "password": SecretPassword,
	"passwd": SecretPassword, "pwd": SecretPassword, "pass": SecretPassword, "passphrase": SecretPassword,
	"pat": SecretToken, "key": SecretAPIKey, "apikey": SecretAPIKey, "credential": SecretGeneric,
	"credentials": SecretGeneric, "privkey": SecretPrivateKey}

// publicParts make a name one of a public value or of a secret's description.
var publicParts = map[string]bool{"id": true, "public": true, "pub": true, "publishable": true, "site": true,
	"anon": true, "url": true, "uri": true, "file": true, "path": true, "name": true, "type": true, "hash": true,
	"length": true, "policy": true, "expiry": true, "expires": true, "ttl": true, "header": true, "hint": true,
	"tokens": true, "count": true, "max": true, "min": true, "page": true, "cursor": true, "csrf": true, "xsrf": true,
	"reset": true, "field": true, "env": true, "var": true, "format": true, "prefix": true, "salt": true,
	"cache": true, "sort": true, "partition": true, "idempotency": true, "primary": true, "foreign": true, "dedup": true,
	"dedupe": true, "lookup": true, "routing": true, "object": true, "bucket": true, "map": true, "ssh": true, "host": true,
	"storage": true, "group": true, "row": true, "range": true, "shard": true, "lock": true, "hotkey": true, "fingerprint": true}

// secretName reports the kind of secret a name names (DD_API_KEY, TF_TOKEN_app_terraform_io,
// mail.smtp.password, airtablePat), or "" for a name of something else (ALGOLIA_APP_ID,
// PUBLIC_KEY, token_url).
func secretName(name string) string {
	var parts []string
	start := 0
	for i := 0; i <= len(name); i++ {
		if i == len(name) || strings.IndexByte("_.- ", name[i]) >= 0 ||
			i > start && name[i] >= 'A' && name[i] <= 'Z' && name[i-1] >= 'a' && name[i-1] <= 'z' {
			if i > start {
				parts = append(parts, strings.ToLower(name[start:i]))
			}
			start = i
			if i < len(name) && strings.IndexByte("_.- ", name[i]) >= 0 {
				start = i + 1
			}
		}
	}
	kind := ""
	for _, p := range parts {
		if publicParts[p] {
			return ""
		}
		if k, ok := secretParts[p]; ok && (kind == "" || k == SecretPassword) {
			kind = k
		}
	}
	return kind
}

// findNamedValues reports the values of namedValues whose name names a secret.
func findNamedValues(text, lo string, pairs *bytePairs) []found {
	var out []found
	for _, nv := range namedValues {
		hit := false
		for _, k := range nv.keys {
			if pairs.may(k) && strings.Contains(lo, k) {
				hit = true
				break
			}
		}
		if hit && nv.all != nil {
			hit = anyMay(lo, pairs, nv.all)
		}
		if !hit {
			continue
		}
		for _, m := range nv.re.FindAllStringSubmatchIndex(text, -1) {
			name, v := text[m[2]:m[3]], text[m[4]:m[5]]
			kind := secretName(name)
			if kind == "" || secretRef(v) || strings.Contains(v, "${") || strings.HasPrefix(v, "ENC[") {
				continue
			}
			if kind == SecretPassword && !passwordToken(v) && !labelledPassword(v) && !strongish(v) {
				continue
			}
			check := v
			if codeRef.MatchString(v) && len(v) >= 20 && upLowDigit(v) {
				check = strings.ReplaceAll(v, ".", "-") // a token of dotted parts, not a code reference
			}
			if !genericValue(kind, name, "=", check, true) {
				continue
			}
			out = append(out, found{s: m[4], e: m[5], kind: kind})
		}
	}
	return out
}

// publicJWT reports whether a JWT is a Supabase anon key: its payload names the anon role and
// Supabase as its issuer; it is public by design.
func publicJWT(v string) bool {
	parts := strings.Split(v, ".")
	if len(parts) < 2 {
		return false
	}
	dec, err := base64.RawURLEncoding.DecodeString(strings.TrimRight(parts[1], "="))
	if err != nil {
		return false
	}
	p := strings.ReplaceAll(string(dec), " ", "")
	return strings.Contains(p, `"role":"anon"`) && strings.Contains(p, `"iss":"supabase`)
}

// dummyHex reports whether a key of hex digits is a dummy: all but two of its digits zero
// (0x000...01).
func dummyHex(v string) bool {
	v = strings.TrimPrefix(strings.TrimPrefix(v, "0x"), "0X")
	return len(v) >= 32 && len(v)-strings.Count(v, "0") <= 2
}

// hashNames name a password's hash, not a password: "stored as an Argon2-Hash".
var hashNames = []string{"argon2", "bcrypt", "scrypt", "pbkdf2", "sha256", "sha-256", "sha512", "sha-512", "sha1", "md5"}

// hashName reports whether v names a hashing algorithm (Argon2-Hash, bcrypt-hashed, SHA-256).
func hashName(v string) bool {
	lo := strings.ToLower(v)
	for _, h := range hashNames {
		if strings.HasPrefix(lo, h) && (len(lo) == len(h) || strings.Contains(lo, "hash") || lo[len(h)] == 'i' || lo[len(h)] == 'd') {
			return true
		}
	}
	return false
}

// Credentials of the eighth round set by their place rather than their name: a JWT library's
// signing secret, a builder's password, PowerShell's secure string made from plain text, a Cisco
// password of type 0, a .pgpass line, HTTPie's -a, Django's generated secret key, a private key
// block in base64 (a kubeconfig's client-key-data).
var round8SecretRules = []secretRule{
	srule(SecretGeneric, []string{"jwt.", "signedstring"},
		`(?i)(?:\bjwt\.(?:sign|encode)\([^,\n]{1,120}?,[ \t]*|\bSignedString\([ \t]*\[\]byte\([ \t]*)["'`+"`"+`]([^"'`+"`"+`\n]{8,200})["'`+"`"+`]`, 1,
		func(v, _ string) bool {
			return !placeholder(v) && !placeholderWord(v) && (passwordToken(v) || labelledPassword(v))
		}),
	srule(SecretPassword, []string{"password(", "passwd(", "pwd("},
		`(?i)\.(?:set|with)?(?:password|passwd|pwd)\([ \t]*["']([^"'\n]{3,200})["'][ \t]*\)`, 1,
		func(v, _ string) bool { return passwordToken(v) || labelledPassword(v) }),
	srule(SecretPassword, []string{"convertto-securestring"},
		`(?i)\bConvertTo-SecureString[ \t]+(?:-String[ \t]+)?["']([^"'\n]{3,200})["']`, 1,
		func(v, _ string) bool { return !placeholder(v) }),
	srule(SecretPassword, []string{"secret 0", "password 0"},
		`\b(?:secret|password)[ \t]+0[ \t]+([^\s"']{3,100})`, 1,
		func(v, _ string) bool { return !placeholder(v) }),
	srule(SecretPassword, []string{":"},
		`(?m)^[A-Za-z0-9.\-*\[\]]{1,100}:(?:\d{2,5}|\*):[^\s:]{1,64}:[^\s:]{1,64}:([^\s]{3,100})$`, 1,
		func(v, _ string) bool { return placedPassword(strings.TrimRight(v, ".")) }).withPre(colonLine),
	srule(SecretPassword, []string{"-a ", "--auth"},
		`(?i)\b(?:http|https|xh|xhs)(?:[ \t][^\n]*?)?[ \t](?:-a|--auth)[ \t]+["']?[^\s:"']+:([^\s"']+)`, 1,
		func(v, _ string) bool { return placedPassword(v) }).withPre(func(text string) bool {
		return strings.Contains(text, "http") || strings.Contains(text, "xh")
	}),
	srule(SecretGeneric, []string{"django-insecure-"}, `django-insecure-[^\s"'`+"`"+`]{30,}`, 0, nil),
	// a wallet's key copied in groups (8 of 8 hex digits, 16 of 4) or sent in two halves
	// ("part 1: 0x<32>" ... "part 2: <32>") after a word for a key
	{kind: SecretWalletKey, keywords: []string{"key", "pk", "wallet", "private", "priv"}, pre: hex8Group,
		re:     regexp.MustCompile(`\b(?:0[xX])?(?:[0-9a-fA-F]{8}(?:[ \t][0-9a-fA-F]{8}){7}|[0-9a-fA-F]{4}(?:[ \t][0-9a-fA-F]{4}){15})\b`),
		around: groupedKey},
	{kind: SecretWalletKey, keywords: []string{"part", "half"}, pre: hex32,
		re: regexp.MustCompile(`(?i)\b(?:part[ \t]*(?:1|one|a)|(?:first|1st)[ \t]+half)\b[^\n]{0,20}?\b(?:0x)?[0-9a-f]{32}\b[\s\S]{0,200}?\b(?:part[ \t]*(?:2|two|b)|(?:second|2nd|other)[ \t]+half)\b[^\n]{0,20}?\b[0-9a-f]{32}\b`),
		around: func(text string, s, e int) bool {
			return evmKey(text, s, e) || strings.Contains(strings.ToLower(text[:s+20]), "key")
		}},
	// a password after a user's name on a login line: "login: admin senha X", "user admin pass X"
	srule(SecretPassword, []string{"login", "user", "usuário", "usuario", "benutzer"},
		`(?i)\b(?:login|user(?:name)?|usuário|usuario|benutzer)[ \t]*:?[ \t]*[\w.@\-]{2,40}[ \t]+(?:senha|password|passwort|pass|pw|contraseña|kennwort)[ \t]*:?[ \t]*([^\s'"]{5,63}[^\s.,;:?!)'"])`, 1,
		func(v, _ string) bool { return passwordToken(v) || wordNumber(v) || labelledPassword(v) }),
	// the answer to a question about a password: "...password...?\nA: yes — it's X"
	srule(SecretPassword, []string{"it's", "it’s", "it is"},
		`(?i)\b(?:password|passwort|senha|contraseña|pass|pw)\b[^\n]{0,80}\?[ \t]*\r?\n[^\n]{0,30}?\b(?:it(?:'|’)?s|it[ \t]+is)[ \t]+([^\s'"]{5,63}[^\s.,;:?!)'"])`, 1,
		func(v, _ string) bool { return passwordToken(v) || wordNumber(v) }),
	srule(SecretPrivateKey, []string{"ls0tls1crudjtib"}, `\bLS0tLS1CRUdJTi[A-Za-z0-9+/]{40,}={0,2}`, 0, encodedKeyBlock),
}

func init() {
	addRules(round8SecretRules)
}

// encodedKeyBlock reports whether a base64 value opens with a private key block's first line.
func encodedKeyBlock(v, _ string) bool {
	head := v[:min(len(v), 64)/4*4]
	dec, err := base64.StdEncoding.DecodeString(head)
	return err == nil && strings.Contains(string(dec), "PRIVATE KEY")
}

// placedPassword decides on a value a format puts in a password's place (a .pgpass line's last
// field, HTTPie's user:password): not a placeholder, six characters or more with a letter and a
// digit or a symbol.
func placedPassword(v string) bool {
	if len(v) < 6 || placeholder(v) || placeholderWord(v) || strings.Contains(v, "://") || strings.HasPrefix(v, "$") {
		return false
	}
	letter, other := false, false
	for i := 0; i < len(v); i++ {
		c := v[i] | 0x20
		if c >= 'a' && c <= 'z' {
			letter = true
		} else {
			other = true
		}
	}
	return letter && other
}

// colonLine reports whether a line of text holds four colons and no space: the fast test of a
// .pgpass line.
func colonLine(text string) bool {
	n := 0
	for i := 0; i < len(text); i++ {
		switch text[i] {
		case ':':
			if n++; n >= 4 {
				return true
			}
		case ' ', '\t', '\n':
			n = 0
		}
	}
	return false
}

// wordNumber reports whether v is a word of three or more letters and three or more digits
// (tiger9423, rocket7342): a password right after a password word's label or copula ("Passwort
// lautet: tiger9423", "a senha ... é rocket7342"), not a hash's name (sha256, argon2id).
func wordNumber(v string) bool {
	i := 0
	for i < len(v) && (v[i]|0x20 >= 'a' && v[i]|0x20 <= 'z') {
		i++
	}
	j := i
	for j < len(v) && v[j] >= '0' && v[j] <= '9' {
		j++
	}
	return i >= 3 && j-i >= 3 && j == len(v) && !hashName(v) && !placeholderWord(v)
}

// hex8Group reports whether text holds a run of eight hex digits or groups of four: the fast
// test of a key copied in groups.
func hex8Group(text string) bool { return hexRun(text, 8) || hex4Groups(text) }

// hex4Groups reports whether text holds four groups of four hex digits apart by spaces.
func hex4Groups(text string) bool {
	n, run := 0, 0
	for i := 0; i < len(text); i++ {
		c := text[i] | 0x20
		switch {
		case c >= '0' && c <= '9' || c >= 'a' && c <= 'f':
			run++
		case text[i] == ' ' && run == 4:
			if n++; n >= 3 {
				return true
			}
			run = 0
		default:
			n, run = 0, 0
		}
	}
	return false
}

// groupedKey decides on a key copied in groups as on the same 64 digits written together: a word
// for a key before it, not a hash's.
func groupedKey(text string, s, e int) bool {
	v := strings.NewReplacer(" ", "", "\t", "").Replace(text[s:e])
	if !strings.ContainsAny(v, "0123456789") || dummyHex(v) || sameChar(strings.TrimPrefix(v, "0x")) {
		return false
	}
	return evmKey(text, s, e)
}

// keyShapedCell reports whether a value under a column named only "key" has a key's shape: 20 or
// more characters, random with capitals, small letters and digits, or 32 or more hex digits.
func keyShapedCell(v string) bool {
	if len(v) < 20 || strings.ContainsAny(v, " :/@") {
		return false
	}
	hex := 0
	for i := 0; i < len(v); i++ {
		if c := v[i] | 0x20; c >= '0' && c <= '9' || c >= 'a' && c <= 'f' {
			hex++
		}
	}
	return upLowDigit(v) && entropy(v) >= 3.5 || hex >= 32 && hexOnly(v)
}

// numberedWord is a number and a word after it: "| 7 | puppy |", "7. puppy", "7) puppy".
var numberedWord = regexp.MustCompile(`(?:^|[|\s(])(\d{1,2})[ \t]*[|.):\-]?[ \t]*\|?[ \t]*([A-Za-z]{3,8})\b`)

// bipWord matches a word that may be of the BIP-39 list.
var bipWord = regexp.MustCompile(`[A-Za-z]{3,8}`)

// findSplitPhrases reports a BIP-39 phrase given out of order or in pieces: words numbered 1 to
// N (12 to 24) laid out in a table's columns, checked in their numbers' order; or runs of four or
// more list words apart by other text ("first half: ... and the rest: ..."), checked joined. The
// checksum decides, so words that merely are of the list pass.
func findSplitPhrases(text, lo string, pairs *bytePairs) [][2]int {
	if len(text) > 8192 || len(text) < 12*4 {
		return nil
	}
	var out [][2]int
	if strings.Count(text, "|") >= 20 && (strings.Contains(text, "12") || strings.Contains(text, "24") || strings.Contains(text, "18")) {
		byNum := map[int][2]int{}
		dup := false
		for _, m := range numberedWord.FindAllStringSubmatchIndex(text, -1) {
			w := strings.ToLower(text[m[4]:m[5]])
			if _, ok := bip39Index[w]; !ok {
				continue
			}
			n := 0
			for _, c := range text[m[2]:m[3]] {
				n = n*10 + int(c-'0')
			}
			if _, ok := byNum[n]; ok {
				dup = true
			}
			byNum[n] = [2]int{m[4], m[5]}
		}
		if n := len(byNum); !dup && n >= 12 && n <= 24 && n%3 == 0 {
			idx := make([]int, 0, n)
			for k := 1; k <= n; k++ {
				sp, ok := byNum[k]
				if !ok {
					break
				}
				idx = append(idx, bip39Index[strings.ToLower(text[sp[0]:sp[1]])])
			}
			if len(idx) == n && bip39Checksum(idx) {
				for k := 1; k <= n; k++ {
					out = append(out, byNum[k])
				}
				return out
			}
		}
	}
	// runs of list words apart by spaces, joined in the order they come
	if !anyMay(lo, pairs, splitWords) {
		return out
	}
	var runs [][][2]int
	var cur [][2]int
	last := -1
	for _, m := range bipWord.FindAllStringIndex(text, -1) {
		w := strings.ToLower(text[m[0]:m[1]])
		_, ok := bip39Index[w]
		if ok && (m[0] == 0 || !isAlpha(text[m[0]-1])) && (m[1] == len(text) || !isAlpha(text[m[1]])) {
			if last >= 0 && strings.Trim(text[last:m[0]], " ,") != "" {
				if len(cur) >= 4 {
					runs = append(runs, cur)
				}
				cur = nil
			}
			cur = append(cur, [2]int{m[0], m[1]})
			last = m[1]
			continue
		}
		if len(cur) >= 4 {
			runs = append(runs, cur)
		}
		cur, last = nil, -1
	}
	if len(cur) >= 4 {
		runs = append(runs, cur)
	}
	if len(runs) < 2 || len(runs) > 8 {
		return out
	}
	for i := range runs {
		var all [][2]int
		for j := i; j < len(runs) && len(all) < 24; j++ {
			all = append(all, runs[j]...)
			if j > i && len(all) >= 12 && len(all) <= 24 && len(all)%3 == 0 {
				idx := make([]int, len(all))
				for k, sp := range all {
					idx[k] = bip39Index[strings.ToLower(text[sp[0]:sp[1]])]
				}
				if bip39Checksum(idx) && splitHint(text, all[0][0]) {
					return append(out, all...)
				}
			}
		}
	}
	return out
}

// splitWords say a text is given in pieces: "first half", "the rest", "part 2".
var splitWords = []string{"half", "the rest", "part 1", "part 2", "part one", "part two", "remaining", "1/2", "2/2"}

// splitHint reports whether the 60 bytes before text[s:] name a piece of something or a phrase.
// A text holding none of splitWords is not looked at for pieces.
func splitHint(text string, s int) bool {
	return anyIn(strings.ToLower(text[max(0, s-60):s]), splitWords) || phraseNear(text, s, s)
}

// anyMay reports whether lo holds one of ws, looking only for those whose pairs of bytes are in
// it.
func anyMay(lo string, pairs *bytePairs, ws []string) bool {
	for _, w := range ws {
		if pairs.may(w) && strings.Contains(lo, w) {
			return true
		}
	}
	return false
}
