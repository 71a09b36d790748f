package screen

import (
	"regexp"
	"strings"
)

// Round 11 (classes of miss of the eleventh held-out set): a value set apart from the name that
// names it by the layout of a file rather than by "name = value" on one line, two-factor
// recovery codes, and a key cut into strings joined by concatenation.

// pairedValue finds a name and its value in the layouts that keep them apart: a property list
// (<key>name</key> then <string>value</string>), an Android resource (<string
// name="name">value</string>), and a JSON list of name and value objects ({"name": "sessionid",
// "value": "..."}: HAR headers and cookies, Postman variables, container environments).
var pairedValue = regexp.MustCompile(`<key>([^<\n]{1,80})</key>\s{0,40}<string>([^<\n]{1,400})</string>` +
	`|<string name="([^"\n]{1,80})">([^<\n]{1,400})</string>` +
	`|"(?:name|key)"\s{0,4}:\s{0,4}"([^"\n]{1,80})"\s{0,4},\s{0,40}"value"\s{0,4}:\s{0,4}"([^"\n]{1,400})"`)

// typedResult finds the generated value of a resource or object whose type names a password or
// a secret (Terraform state's random_password: "type": "random_password" ... "result": "...").
var typedResult = regexp.MustCompile(`"type"\s{0,4}:\s{0,4}"[a-z_]*(?:password|secret)[a-z_]*"[^\]]{0,300}?"(?:result|value)"\s{0,4}:\s{0,4}"([^"\n]{6,200})"`)

// sessionNames are cookie names that carry a logged-in session: whoever holds the value is the
// user until it expires.
var sessionNames = Set("session", "sessionid", "session_id", "sid", "connect.sid", "phpsessid", "jsessionid",
	"_session", "session_token", "sessiontoken", "auth_session", "laravel_session", "_gh_sess")

// findPairedValues reports the values of the layouts above whose name names a credential.
func findPairedValues(text, lo string) []found {
	if !strings.Contains(lo, "<key>") && !strings.Contains(lo, "<string name=") && !strings.Contains(lo, `"value"`) &&
		!strings.Contains(lo, `"type"`) {
		return nil
	}
	var out []found
	for _, m := range pairedValue.FindAllStringSubmatchIndex(text, -1) {
		for g := 1; g <= 5; g += 2 {
			if m[2*g] < 0 {
				continue
			}
			name, s, e := text[m[2*g]:m[2*g+1]], m[2*g+2], m[2*g+3]
			if kind, ok := namedKind(name); ok && pairValue(text[s:e], kind) {
				if kind == pairSession {
					kind = SecretToken
				}
				out = append(out, found{s, e, kind})
			}
		}
	}
	if strings.Contains(lo, `"type"`) && (strings.Contains(lo, "password") || strings.Contains(lo, "secret")) {
		for _, m := range typedResult.FindAllStringSubmatchIndex(text, -1) {
			if v := text[m[2]:m[3]]; credValue(v, wordPassword, 0) || keyValue(v, 0) {
				out = append(out, found{m[2], m[3], SecretPassword})
			}
		}
	}
	return out
}

// pairSession is namedKind's answer for a session cookie's name.
const pairSession = "session"

// namedKind reports what a name set apart from its value names: a password, a key or token, a
// session; ok is false when it names none or names something public (a publishable key, a key id).
func namedKind(name string) (string, bool) {
	lo := strings.ToLower(strings.TrimSpace(name))
	if sessionNames[lo] || strings.HasSuffix(lo, "_session") || strings.HasSuffix(lo, ".sid") {
		return pairSession, true
	}
	var buf []lword
	l := ""
	if isASCII(name) {
		l = lo
	}
	for _, t := range credTerms(name, l, &buf) {
		switch t.kind {
		case wordPassword:
			return SecretPassword, true
		case wordKey:
			return SecretAPIKey, true
		}
	}
	return "", false
}

// pairValue decides on the value of a paired name by its shape, as the scorer does right after
// a word of the same kind.
func pairValue(v, kind string) bool {
	if placeholder(v) || maskedValue(v) {
		return false
	}
	switch kind {
	case SecretPassword:
		return credValue(v, wordPassword, 0)
	case pairSession:
		return len(v) >= 16 && entropy(v) >= 3.5 && !notSecretShape(v) && !wordish(v)
	}
	return credValue(v, wordKey, 0)
}

// recoveryLabel names a list of two-factor recovery or backup codes.
var recoveryLabel = regexp.MustCompile(`(?i)\b(?:recovery|backup|emergency|scratch)[ -]codes?\b|codes? de (?:récupération|secours|recuperación|respaldo)|wiederherstellungscodes|backup-codes|恢复码|备用码|リカバリーコード|복구 코드`)

// recoveryWords hold the label's words, the test made before the label's expression is run.
var recoveryWords = []string{"recovery code", "backup code", "emergency code", "scratch code", "recovery-code", "backup-code",
	"codes de", "wiederherstellungscode", "恢复码", "备用码", "リカバリーコード", "복구 코드"}

// recoveryCode is one code of such a list: two groups of four or five letters and digits joined
// by a dash (GitHub, GitLab), or eight to ten digits or small letters and digits in one piece or
// two groups (Google, many others).
var recoveryCode = regexp.MustCompile(`^(?:[0-9a-z]{4,6}-[0-9a-z]{4,6}|[0-9]{4} ?[0-9]{4,5}|[0-9a-z]{8,12})$`)

// findRecoveryCodes reports the codes listed after a recovery-code label: three or more codes, one
// or two a line, most of them with a digit. Each code logs in once in place of the second factor.
func findRecoveryCodes(text, lo string) [][2]int {
	if !anyIn(lo, recoveryWords) {
		return nil
	}
	loc := recoveryLabel.FindAllStringIndex(text, -1)
	if loc == nil {
		return nil
	}
	var out [][2]int
	lines := lineSpans(text)
	for _, l := range loc {
		li := 0
		for li < len(lines) && lines[li][1] < l[1] {
			li++
		}
		var codes [][2]int
		for k := li + 1; k < len(lines) && k <= li+20; k++ {
			line := text[lines[k][0]:lines[k][1]]
			if strings.TrimSpace(line) == "" || strings.HasPrefix(strings.TrimSpace(line), "```") {
				if len(codes) > 0 {
					break
				}
				continue
			}
			got := lineCodes(line, lines[k][0])
			if got == nil {
				break
			}
			codes = append(codes, got...)
		}
		withDigit := 0
		for _, c := range codes {
			if hasDigitStr(text[c[0]:c[1]]) {
				withDigit++
			}
		}
		if len(codes) >= 3 && 2*withDigit >= len(codes) {
			out = append(out, codes...)
		}
	}
	return out
}

// lineCodes reports the recovery codes of a line holding nothing else (a list marker aside).
func lineCodes(line string, at int) [][2]int {
	var out [][2]int
	i := 0
	for _, f := range strings.Fields(line) {
		j := strings.Index(line[i:], f) + i
		i = j + len(f)
		v := strings.Trim(f, "-*•,;`")
		if v == "" || len(f) <= 3 && strings.TrimRight(f, ".)") != f {
			continue // a list marker: -, *, 1.
		}
		if !recoveryCode.MatchString(v) {
			return nil
		}
		s := j + strings.Index(f, v)
		out = append(out, [2]int{at + s, at + s + len(v)})
	}
	if len(out) > 2 {
		return nil
	}
	return out
}

// concatenated reports the string that continues a secret found at text[s:e] when the secret
// closes a quoted string joined to the next one ("sk_live_ab" + "cdef", ('ab' 'cd') in Python):
// a key cut to fit a line is the same key. It reports the continuation's span.
func concatenated(text string, e int) (int, int, bool) {
	if e >= len(text) || text[e] != '"' && text[e] != '\'' {
		return 0, 0, false
	}
	i, joined := e+1, false
	for i < len(text) && i-e < 60 {
		c := text[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
		case c == '+' || c == '.' || c == '&' || c == '\\':
			joined = true
		default:
			goto value
		}
		i++
	}
	return 0, 0, false
value:
	if i >= len(text) || text[i] != '"' && text[i] != '\'' || !joined && !strings.Contains(text[e:i], "\n") {
		return 0, 0, false
	}
	q := text[i]
	j := strings.IndexByte(text[i+1:], q)
	if j < 6 || j > 200 {
		return 0, 0, false
	}
	v := text[i+1 : i+1+j]
	if strings.ContainsAny(v, " \t\n") || alnumRun(v) < 6 || !hasDigitStr(v) || classes(v) < 2 || maskedValue(v) {
		return 0, 0, false
	}
	return i + 1, i + 1 + j, true
}

// psCommand reports a PowerShell command (Verb-Noun: Read-Host, Get-Content) written as a
// value: the code computes the secret, it does not hold it.
var psCommand = regexp.MustCompile(`^(?:Get|Read|Set|New|Import|Export|ConvertTo|ConvertFrom|Invoke|Select|Out|Write|Unprotect|Protect)-[A-Z][A-Za-z]+$`)

// documentedKeys are keys printed in a service's public documentation for everyone to copy: they
// open nothing of anyone's.
var documentedKeys = Set("sk_test_4eC39HqLyjWDarjtT1zdp7dc")
