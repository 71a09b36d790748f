package screen

import (
	"regexp"
	"sort"
	"strings"
)

// Round 13: credentials set by their place in a call, a command line or a file rather than by a
// name right before them, and values that a secret's name stands before but that hold none.

// connectWords name a call that opens a session with a password among its arguments:
// mysql_real_connect, DBI->connect, new PDO, Net::SMTP.start, ldap.bind, client.login, red:auth.
var connectWords = []string{"connect", "login", "logon", "signin", "auth", "open", "bind", "start", "pdo", "client"}

// secretArg reports whether a string handed to a call reads as a password or a key: 8 to 128
// characters without spaces, three kinds of character (or small words and digits, as
// passwordToken takes them), varied, and no reference, path, link, address or DSN.
func secretArg(v string) bool {
	if len(v) < 8 || len(v) > 128 || strings.ContainsAny(v, " \t\n") || placeholderWord(v) || secretRef(v) || hashName(v) {
		return false
	}
	if strings.HasPrefix(v, "${") || strings.HasPrefix(v, "{{") || strings.HasPrefix(v, "$(") || varRef.MatchString(v) ||
		strings.HasPrefix(v, "%") && !literalPercent(v) || strings.HasPrefix(v, "**") || strings.Contains(v, "://") ||
		strings.HasPrefix(v, "/") || strings.HasPrefix(v, "./") || strings.HasPrefix(v, "~/") || knownFile(v) {
		return false
	}
	if strings.Contains(v, "=") && strings.Contains(v, ";") || strings.Count(v, ":") >= 2 {
		return false // a DSN: mysql:host=...;dbname=...
	}
	if at := strings.IndexByte(v, '@'); at > 0 && strings.Contains(v[at:], ".") && strings.Trim(v[:at], "abcdefghijklmnopqrstuvwxyz0123456789._-") == "" {
		return false // an address
	}
	if passwordToken(v) {
		return true
	}
	return classes(v) >= 3 && entropy(v) >= 3 && (strings.ContainsAny(v, "0123456789") || len(v) >= 12 && entropy(v) >= 3.5)
}

// signedWords reports small words joined by an underscore or a dash and closed by a sign, as a
// password is written to meet a rule (pelikan_gqur!, velvet-uazw!): ten characters or more.
func signedWords(v string) bool {
	body := strings.TrimRight(v, "!?#$%&*+@")
	if len(v) < 10 || len(body) == len(v) || len(v)-len(body) > 3 || !strings.ContainsAny(body, "_-") {
		return false
	}
	for _, w := range strings.FieldsFunc(body, func(r rune) bool { return r == '_' || r == '-' }) {
		if len(w) < 3 || strings.Trim(w, "abcdefghijklmnopqrstuvwxyz") != "" {
			return false
		}
	}
	return true
}

// userArg reports whether a string reads as a user's name: a short name or an address.
func userArg(v string) bool {
	lo := strings.ToLower(v)
	if len(v) == 0 || len(v) > 64 || strings.ContainsAny(v, " \t/:;") {
		return false
	}
	if strings.HasPrefix(lo, "cn=") || strings.HasPrefix(lo, "uid=") {
		return strings.Trim(lo, "abcdefghijklmnopqrstuvwxyz0123456789_.@+-=,") == "" // an LDAP bind DN
	}
	return strings.Trim(lo, "abcdefghijklmnopqrstuvwxyz0123456789_.@+-") == ""
}

// hostArg reports whether a string reads as a host or a data source: a dotted name, an address,
// localhost or a DSN.
func hostArg(v string) bool {
	lo := strings.ToLower(v)
	return strings.Contains(lo, ".") && !strings.Contains(lo, "@") || strings.Contains(lo, "host=") || strings.HasPrefix(lo, "dbi:") ||
		strings.HasPrefix(lo, "localhost") || strings.Contains(lo, "://")
}

// findConnectArgs reports the password handed by position to a call that connects or logs in: in
// a call whose name holds a connect word, a string that reads as a secret right after a string
// that reads as a user's name, with a host before them (or the call's name says login, auth,
// bind); the one string of an auth call (red:auth("..."), client.auth("...")); the second of an
// auth=("user", "...") pair.
func findConnectArgs(text, lo string, pairs *bytePairs) []found {
	if len(lo) != len(text) || !pairs.may("(") {
		return nil
	}
	var out []found
	seen := map[int]bool{}
	for _, w := range connectWords {
		if !pairs.may(w) {
			continue
		}
		for from := 0; ; {
			i := strings.Index(lo[from:], w)
			if i < 0 {
				break
			}
			at := from + i
			from = at + len(w)
			j := from
			for j < len(lo) && (isLower(lo[j]) || lo[j] >= '0' && lo[j] <= '9' || lo[j] == '_') {
				j++
			}
			k := j
			for k < len(lo) && (lo[k] == ' ' || lo[k] == '\t') {
				k++
			}
			if k >= len(lo) || lo[k] != '(' && lo[k] != '=' {
				continue
			}
			s := at
			for s > 0 && (isLower(lo[s-1]) || lo[s-1] >= '0' && lo[s-1] <= '9' || lo[s-1] == '_') {
				s--
			}
			name := lo[s:j]
			if seen[k] || strings.Contains(name, "test") || strings.Contains(name, "mock") || strings.Contains(name, "fake") {
				continue
			}
			if lo[k] == '=' {
				// auth=("user", "..."), auth = ('user', '...')
				if name != "auth" {
					continue
				}
				k++
				for k < len(lo) && (lo[k] == ' ' || lo[k] == '\t') {
					k++
				}
				if k >= len(lo) || lo[k] != '(' && lo[k] != '[' {
					continue
				}
			}
			seen[k] = true
			args := callArgs(text, k+1, 0)
			login := strings.Contains(name, "login") || strings.Contains(name, "logon") || strings.Contains(name, "signin") ||
				strings.Contains(name, "auth") || strings.Contains(name, "bind")
			if len(args) == 1 && (name == "auth" || name == "authenticate") && lo[k] == '(' {
				if v := text[args[0][0]:args[0][1]]; secretArg(v) && classes(v) >= 3 && strings.ContainsAny(v, "!#$%^&*+=?~@") {
					out = append(out, found{args[0][0], args[0][1], SecretPassword})
				}
				continue
			}
			for n := 1; n < len(args); n++ {
				v := text[args[n][0]:args[n][1]]
				if (login || hostAround(text, args, n)) && userArg(text[args[n-1][0]:args[n-1][1]]) && adjacentArgs(text, args[n-1][1], args[n][0]) && (secretArg(v) || dashedPassword(v) || ordinaryPassword(v) && hostAround(text, args, n)) {
					out = append(out, found{args[n][0], args[n][1], SecretPassword})
					break
				}
			}
		}
	}
	return out
}

// hostAround reports whether a string argument of the call other than the n-th and the one
// before it reads as a host or a data source: before them (mysql_real_connect(conn, "host",
// "user", "...")) or after them (oci_connect('user', '...', 'host/XE')).
func hostAround(text string, args [][2]int, n int) bool {
	for i, a := range args {
		if i != n && i != n-1 && hostArg(text[a[0]:a[1]]) {
			return true
		}
	}
	return false
}

// adjacentArgs reports whether only a comma and spaces (and the closing and opening quotes)
// stand between two string arguments.
func adjacentArgs(text string, e, s int) bool {
	between := text[e+1 : s-1]
	return strings.Count(between, ",") == 1 && strings.Trim(between, ", \t") == ""
}

// secretField is a record's or an object's field whose name ends in a password or secret word,
// set to a quoted string: Haskell's connectPassword = "...", Go's Password: "...", PHP's
// 'db_password' => '...', Clojure's :password "...".
var secretField = regexp.MustCompile(`(?i)(?:password|passwd|passphrase|secret|pwd)["']?(?:[ \t]*(?:=|:|=>)[ \t]*|[ \t]+)(?:"([^"\n]{8,128})"|'([^'\n]{8,128})')`)

// findSecretFields reports the value of a password-named field that reads as a secret though it
// starts with a sign a reference or a mask starts with (*Wv5!..., @Lighthouse_2012, #Sonne_1995).
func findSecretFields(text, lo string, pairs *bytePairs) []found {
	if !pairs.may("pass") && !pairs.may("secret") && !pairs.may("pwd") {
		return nil
	}
	var out []found
	for _, m := range nearMatches(secretField, text, lo, []string{"pass", "secret", "pwd"}, false, 200, signedQuote) {
		g := 2
		if m[g] < 0 {
			g = 4
		}
		v := text[m[g]:m[g+1]]
		if strings.IndexByte("*@#-", v[0]) >= 0 && v[1] != v[0] && secretArg(v) && upLowDigit(v) || v[0] == '*' && starredPassword(v) {
			out = append(out, found{m[g], m[g+1], SecretPassword})
		}
	}
	return out
}

// CLI commands that take a secret by position: Backblaze's b2 authorize-account <key id> <key>,
// cloudflared service install <tunnel token>, and any tool's login, auth or authorize subcommand
// followed by an id and a secret.
var (
	cliSecret = regexp.MustCompile(`(?im)(?:^|[$>#;&|]\s|\s&&\s|^\s*(?:sudo\s+)?)(?:` +
		`b2\s+(?:authorize-account|authorize_account|account\s+authorize)\s+[A-Za-z0-9]{12,40}\s+(\S{20,})` +
		`|cloudflared\s+(?:service\s+install|tunnel\s+run\s+--token)\s+(\S{40,})` +
		`|[a-z][a-z0-9_.-]{1,30}(?:\s+[a-z][a-z0-9:_-]{1,20})?\s+(?:login|auth|authorize|authorize-account|install-token|set-token|authtoken)\s+(?:[A-Za-z0-9_.@-]{3,64}\s+)?([A-Za-z0-9+/=_\-.]{20,200}))(?:\s|$)`)
)

// findCLISecrets reports a secret handed by position to a command that logs in.
func findCLISecrets(text, lo string, pairs *bytePairs) []found {
	if !pairs.may("b2") && !pairs.may("cloudflared") && !pairs.may("login") && !pairs.may("auth") && !pairs.may("token") {
		return nil
	}
	var out []found
	for _, m := range nearMatches(cliSecret, text, lo, []string{"b2 ", "cloudflared", "login", "auth", "install-token", "set-token"}, false, 300,
		func(rest string) bool { return longRun(rest, 20) }) {
		for g := 1; g <= 3; g++ {
			if m[2*g] < 0 {
				continue
			}
			v := text[m[2*g]:m[2*g+1]]
			if strings.HasPrefix(v, "-") || placeholder(v) || strings.Contains(v, "://") || strings.Count(v, ".") >= 2 && !strings.HasPrefix(v, "eyJ") {
				continue
			}
			if upLowDigit(v) && entropy(v) >= 3.5 || len(v) >= 40 && entropy(v) >= 4 {
				out = append(out, found{m[2*g], m[2*g+1], SecretToken})
			}
		}
	}
	return out
}

// secretsFile names a file of user:password lines (rsyncd.secrets, a passwd or credentials
// file) on the line before them.
var secretsFile = regexp.MustCompile(`(?im)^[^\n]*(?:[-_.]secrets?|secrets?\.txt|passwd|passwords?(?:\.txt)?|credentials|\.htpasswd|\.pass)[ \t]*:?[ \t]*\n((?:[ \t]*[A-Za-z0-9_.@-]{1,32}:[^\s:]{6,128}[ \t]*(?:\n|$))+)`)

// findSecretsFileLines reports the passwords of user:password lines under a line naming a
// secrets file; a crypt(3) hash or a field list (/etc/passwd's x:0:0) is no password.
func findSecretsFileLines(text, lo string, pairs *bytePairs) []found {
	if !pairs.may("secret") && !pairs.may("pass") && !pairs.may("credentials") {
		return nil
	}
	var out []found
	for _, m := range nearMatches(secretsFile, text, lo, []string{"secret", "passw", "credentials", ".pass"}, true, 2000, endsName) {
		for ls := m[2]; ls < m[3]; {
			le := lineEnd(text, ls)
			line := text[ls:le]
			if c := strings.IndexByte(line, ':'); c > 0 {
				v := strings.TrimSpace(line[c+1:])
				vs := ls + c + 1 + strings.Index(line[c+1:], v)
				if secretArg(v) && (upLowDigit(v) || classes(v) >= 3) && !strings.HasPrefix(v, "$") && !strings.HasPrefix(v, "{") {
					out = append(out, found{vs, vs + len(v), SecretPassword})
				}
			}
			ls = le + 1
		}
	}
	return out
}

var (
	// A Twitch chat token: oauth: and 30 small letters and digits.
	twitchOAuth = regexp.MustCompile(`\boauth:([a-z0-9]{30})\b`)
	// A signed URL's signature (Google Cloud Storage, S3 presigned, v2 GCS): whoever holds the
	// link reads the object until it expires.
	urlSignature = regexp.MustCompile(`(?i)[?&](?:x-goog-signature|x-amz-signature)=([0-9a-f]{64,}|[A-Za-z0-9%+/_\-]{40,}={0,2})`)
	// A passphrase of small words spaced and ending in a number after a passphrase word, a few
	// words and a copula: "the passphrase for the signing key is orbit velvet lantern ferry 21".
	spacedPassphrase = regexp.MustCompile(`(?i)\b(?:passphrase|password|passwort|contraseña|mot de passe|senha)\b[^\n:]{0,40}?(?:\bis|:|\bwas)[ \t]+((?:[a-z]{3,10}[ \t]+){3,8}\d{1,4})\b`)
)

// findShapedRound13 reports a Twitch chat token, a signed URL's signature and a spaced
// passphrase after its word.
func findShapedRound13(text, lo string, pairs *bytePairs) []found {
	var out []found
	if pairs.may("oauth:") {
		for _, m := range twitchOAuth.FindAllStringSubmatchIndex(text, -1) {
			if v := text[m[2]:m[3]]; strings.ContainsAny(v, "0123456789") && entropy(v) >= 3.5 {
				out = append(out, found{m[2], m[3], SecretToken})
			}
		}
	}
	if pairs.may("signature=") {
		for _, m := range urlSignature.FindAllStringSubmatchIndex(text, -1) {
			out = append(out, found{m[2], m[3], SecretToken})
		}
	}
	if pairs.may("pass") || pairs.may("senha") || pairs.may("contrase") {
		for _, m := range nearMatches(spacedPassphrase, text, lo, []string{"passphrase", "password", "passwort", "contraseña", "mot de passe", "senha"}, false, 200,
			func(rest string) bool {
				return strings.Count(rest, " ") >= 4 && strings.ContainsAny(rest, "0123456789")
			}) {
			if v := text[m[2]:m[3]]; spacedWords(strings.Join(strings.Fields(v), " ")) {
				out = append(out, found{m[2], m[3], SecretPassword})
			}
		}
	}
	return out
}

// longQuoted is a quoted value of 40 or more token characters after a secret's name; the generic
// rule reads quoted values of up to 200.
var longQuoted = regexp.MustCompile(`(?i)(?:token|secret|key|password|passwd)["']?\]?[ \t]*(?::=|=>|=|:)[ \t]*["'` + "`" + `]([A-Za-z0-9+/=_\-.%]{40,})["'` + "`" + `]`)

// findLongQuoted reports a quoted value of more than 200 characters after a secret's name
// ($env:AWS_SESSION_TOKEN = "...", "SessionToken": "..."): random, with capitals, small letters
// and digits; the name not one of a public key, a certificate, an id, a hash, a signature or
// encrypted data.
func findLongQuoted(text, lo string, pairs *bytePairs) []found {
	var out []found
	for _, m := range nearMatches(longQuoted, text, lo, []string{"token", "secret", "key", "passw"}, false, 5000,
		func(rest string) bool { return longRun(rest, 200) }) {
		v := text[m[2]:m[3]]
		n := m[0]
		for n > 0 && (IsAlnum(text[n-1]) || text[n-1] == '_' || text[n-1] == '-') {
			n--
		}
		name := lo[n:m[0]]
		if len(v) <= 200 || !upLowDigit(v) || entropy(v) < 4 || anyIn(name, []string{"pub", "cert", "hash", "sig", "encrypt", "cipher", "sealed"}) ||
			strings.HasSuffix(name, "id_") || strings.HasSuffix(name, "id") || strings.HasSuffix(name, "id-") {
			continue
		}
		out = append(out, found{m[2], m[3], SecretToken})
	}
	return out
}

// findRound13 gathers round 13's finders.
func findRound13(text, lo string, pairs *bytePairs) []found {
	out := findLongQuoted(text, lo, pairs)
	out = append(out, findConnectArgs(text, lo, pairs)...)
	out = append(out, findSecretFields(text, lo, pairs)...)
	out = append(out, findCLISecrets(text, lo, pairs)...)
	out = append(out, findSecretsFileLines(text, lo, pairs)...)
	return append(out, findShapedRound13(text, lo, pairs)...)
}

// longValueEnd extends a value after a secret's name that filled the generic rule's 200
// characters (an AWS session token runs to 400 and more) to its end: the closing quote, or the
// first space, quote or separator.
func longValueEnd(text string, e int, quoted bool) int {
	for e < len(text) && e < 4096 {
		c := text[e]
		if c == '\n' || c == '"' || c == '\'' || c == '`' || !quoted && strings.IndexByte(" \t,;<>", c) >= 0 {
			break
		}
		e++
	}
	return e
}

// signedPassword reports whether what follows a leading # reads as a password rather than a
// hashtag, a colour or an issue number: ten or more characters with capitals, small letters,
// digits and a sign (#Sonnenblume_1995).
func signedPassword(v string) bool {
	return len(v) >= 9 && upLowDigit(v) && strings.ContainsAny(v, "_!@$%^&*+=?~.") && !strings.ContainsAny(v, " \t/")
}

// columnPassword reports whether a cell under a password column reads as one though it starts
// with a sign or holds no digit: 8 to 64 characters, letters, and a digit or a sign other than
// a dash, an underscore or a dot; not a reference, a mask or a placeholder.
func columnPassword(v string) bool {
	if len(v) < 8 || len(v) > 64 || strings.ContainsAny(v, " \t") || placeholderWord(v) || secretRef(v) || hashName(v) ||
		strings.HasPrefix(v, "$") || strings.HasPrefix(v, "{") || strings.HasPrefix(v, "**") || strings.HasPrefix(v, "%") ||
		strings.Contains(v, "://") || strings.HasPrefix(v, "/") || knownFile(v) || letters(v) < 3 {
		return false
	}
	if at := strings.IndexByte(v, '@'); at > 0 && strings.Contains(v[at:], ".") {
		return false // an address
	}
	return strings.ContainsAny(v, "!#$%^&*+=?~@") && (digits(v) >= 1 || letters(v) >= 6)
}

// innerDigit reports a short tail of small letters with a digit between letters: s4mf, kp4v.
func innerDigit(p string) bool {
	if len(p) < 3 || len(p) > 6 || strings.Trim(p, "abcdefghijklmnopqrstuvwxyz0123456789") != "" {
		return false
	}
	for i := 1; i < len(p)-1; i++ {
		if p[i] >= '0' && p[i] <= '9' && isLower(p[i-1]) && isLower(p[len(p)-1]) {
			return true
		}
	}
	return false
}

// signerID reports a value that names who signed a URL (X-Goog-Credential, X-Amz-Credential,
// GoogleAccessId: an account and a date) rather than the signature that opens it.
func signerID(text string, s int) bool {
	b := strings.ToLower(text[max(0, s-20):s])
	return strings.HasSuffix(b, "-credential=") || strings.HasSuffix(b, "accessid=")
}

// nearMatches runs re (whose matches start on the line of one of words) only over windows
// around each occurrence of the words in lo: from the start of its line to after bytes past it,
// within the line unless lines is set, where pre, given the rest of the word's line, says a
// match may start. A pattern with no literal to start from costs a pass
// over the whole text per position; the windows keep it to the few places it may match.
func nearMatches(re *regexp.Regexp, text, lo string, words []string, lines bool, after int, pre func(rest string) bool) [][]int {
	if len(lo) != len(text) {
		return nil
	}
	var wins [][2]int
	for _, w := range words {
		for from := 0; ; {
			i := strings.Index(lo[from:], w)
			if i < 0 {
				break
			}
			at := from + i
			from = at + len(w)
			ws := strings.LastIndexByte(lo[:at], '\n') + 1
			if at-ws > 400 {
				ws = at // a long line: the match starts at the word
			}
			le := lineEnd(text, at)
			if !pre(lo[from:le]) {
				continue
			}
			we := min(len(text), at+after)
			if !lines {
				we = min(we, le)
			}
			wins = append(wins, [2]int{ws, we})
		}
	}
	if len(wins) == 0 {
		return nil
	}
	sort.Slice(wins, func(i, j int) bool { return wins[i][0] < wins[j][0] })
	merged := wins[:1]
	for _, w := range wins[1:] {
		if l := &merged[len(merged)-1]; w[0] <= l[1] {
			l[1] = max(l[1], w[1])
		} else {
			merged = append(merged, w)
		}
	}
	var out [][]int
	for _, w := range merged {
		for _, m := range re.FindAllStringSubmatchIndex(text[w[0]:w[1]], -1) {
			for k := range m {
				if m[k] >= 0 {
					m[k] += w[0]
				}
			}
			out = append(out, m)
		}
	}
	return out
}

// signedQuote reports a quote followed by a sign a mask or a reference starts with: "*, '@, "#.
func signedQuote(rest string) bool {
	for i := 1; i < len(rest); i++ {
		if (rest[i-1] == '"' || rest[i-1] == '\'') && strings.IndexByte("*@#-", rest[i]) >= 0 {
			return true
		}
	}
	return false
}

// longRun reports a run of n or more characters other than spaces.
func longRun(rest string, n int) bool {
	k := 0
	for i := 0; i < len(rest); i++ {
		if rest[i] == ' ' || rest[i] == '\t' {
			k = 0
		} else if k++; k >= n {
			return true
		}
	}
	return false
}

// endsName reports whether the word ends its line but for a few letters, a file's ending and a
// colon: rsyncd.secrets:, /etc/chap-secrets, passwords.txt.
func endsName(rest string) bool {
	rest = strings.TrimSuffix(strings.TrimRight(rest, " \t:\r"), ".txt")
	return len(rest) <= 5 && strings.Trim(rest, "abcdefghijklmnopqrstuvwxyz") == ""
}
