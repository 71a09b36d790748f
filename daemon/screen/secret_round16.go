package screen

import (
	"regexp"
	"strings"
	"unicode"
)

// Round 16: a password on the line after its label, passwords that a sentence hands over
// without a colon ("new one: X", "changed it to X", "X as the password", "log in with admin and
// X"), a Wi-Fi's key beside its network's name, a user and a password handed to a client's
// constructor, the private members of a JSON Web Key, and a password of dotted words in an
// environment entry. Not secrets: a label's translation, a path to a file, an account's id
// beside a secret read from the environment.

// labelWords are the labels a password's line may hold alone: the password words and the
// columns named for a password.
var labelWords = func() map[string]bool {
	m := Set(passwordWords...)
	for _, w := range secretColumns {
		m[w] = true
	}
	for _, w := range []string{"token", "api_key", "apikey", "api key", "api-key", "credential", "app_key", "license_key", "secret",
		"pass", "pw", "pwd", "mdp", "clave"} {
		delete(m, w) // too short or too wide to stand for a password alone on a line
	}
	return m
}()

// storedPassword reports a value that reads as a password wherever a label gives it: an
// ordinary one, or a generated one of eight characters or more mixing small letters, capitals
// and digits or signs.
func storedPassword(v string) bool {
	if ordinaryPassword(v) || generatedCell(v) {
		return true
	}
	return len(v) >= 8 && len(v) <= 64 && isASCII(v) && !strings.ContainsAny(v, " \t/\\") && hasLower(v) && innerCapitals(v) >= 1 &&
		digits(v) >= 1 && !placeholderWord(v) && !masked(v) && !notSecretShape(v) && entropy(v) >= 3
}

// oneDigitPassword reports small letters with one digit or more (trustno1zebra), which only a
// label that stands for nothing else makes a password: 8 to 40 characters, five letters or
// more, not a format's name or a reference.
func oneDigitPassword(v string) bool {
	return len(v) >= 8 && len(v) <= 40 && digits(v) >= 1 && letters(v) >= 5 && strings.Trim(v, "abcdefghijklmnopqrstuvwxyz0123456789") == "" &&
		!formatName(v) && !placeholderWord(v) && !secretRef(v) && !hexOnly(v) && !notSecretShape(v)
}

// findLabelLines reports a password alone on the line after a line that holds only its label
// ("Password:" newline value; "Usuario" newline user newline "Contraseña" newline value).
func findLabelLines(text string) []found {
	var out []found
	prev, blank := "", false
	for at := 0; at < len(text); {
		end := strings.IndexByte(text[at:], '\n')
		if end < 0 {
			end = len(text)
		} else {
			end += at
		}
		line := strings.TrimRight(text[at:end], "\r")
		if labelWords[prev] {
			s := at + len(line) - len(strings.TrimLeft(line, " \t"))
			v := strings.TrimSpace(line)
			if v != "" && !strings.ContainsAny(v, " \t") && (storedPassword(v) || oneDigitPassword(v)) {
				out = append(out, found{s, s + len(v), SecretPassword})
			}
		}
		if strings.TrimSpace(line) != "" || !labelWords[prev] || blank {
			prev = ""
			if len(line) <= 48 {
				prev = strings.ToLower(strings.Trim(line, " \t*:#_|-=>"))
			}
			blank = false
		} else {
			blank = true // one blank line may stand between a label and its value
		}
		at = end + 1
	}
	return out
}

var (
	// "new one: X", "la nueva es X", "le nouveau : X"
	newOne = regexp.MustCompile(`(?i)(?:^|[^\pL])(?:the new one|new one|new pw|la nueva|el nuevo|le nouveau|la nouvelle|das neue|die neue|a nova|o novo|la nuova|il nuovo|nowe|nowy)[ \t]*(?:is|es|est|ist|é|è|to|:|=|-)+[ \t]*["'“‘]?([^\s"'“”‘’]{6,40})`)
	// "changed it to 'X'", "la cambié a X", "je l'ai changé en X", "mudei para X", "auf X geändert"
	changedTo     = regexp.MustCompile(`(?i)(?:\b(?:changed|set|reset|switched|updated)[ \t]+(?:it|the password|the pw|my password|the wifi|the wifi password|hers|his)[ \t]+to|\bcambi[eé][ \t]+(?:a|por)|(?:l'ai|l’ai)[ \t]+chang[ée]+[ \t]+(?:en|pour|à)|\b(?:mudei|troquei|alterei)[ \t]+(?:para|pra)|\bcambiat[ao][ \t]+in|\bzmieni(?:łem|łam|łe[sś])[ \t]+na)[ \t]+["'“‘]?([^\s"'“”‘’]{6,40})`)
	changedGerman = regexp.MustCompile(`(?i)\bauf[ \t]+["'„“]?([^\s"'“”]{6,40}?)["'“”]?[ \t]+(?:geändert|geaendert|gesetzt|umgestellt)`)
	// "X as the password", "X como contraseña", "X comme mot de passe", "X als Passwort"
	asPassword = regexp.MustCompile(`(?i)(?:^|[\s"'“‘(])([^\s"'“”‘’(]{6,40}?)["'”’]?[ \t]+(?:as|como|comme|als|come|jako)[ \t]+(?:(?:the|my|your|a|la|el|le|das|il|o|mon|mi|tu|sein|ihr|new|nueva|nouveau|neues)[ \t]+){0,2}(?:password|passwort|kennwort|contraseña|mot de passe|senha|hasło|haslo|wachtwoord|parola|pw)\b`)
	// "the password for the staging server, which Tom set up, is X": a clause between the word and
	// its copula
	farCopula = regexp.MustCompile(`(?i)\b(?:password|passwort|kennwort|contraseña|clave|mot de passe|senha|wachtwoord|heslo|hasło|parola|lösenord|passord|adgangskode|salasana|pw|pwd)\b[ \t]+(\pL+)([^\n.?!;:]{0,140}?,[^\n.?!;:]{1,140}?)[ \t]+(?:is|was|is now|es|era|est|était|ist|war|é|è|je|jest|är|er|on)[ \t]+["'“‘]?([^\s"'“”‘’]{6,40})`)
	// "log in with admin and X", "entra con admin y X", "connecte-toi avec admin et X"
	loginWith       = regexp.MustCompile(`(?i)\b(?:log(?:ged)?[ \t]*in(?:to \S+)?|sign(?:ed)?[ \t]*in|login|entra|entrar|inicia sesión|connecte-toi|connectez-vous|accedi|entre|acesse|loguj się|zaloguj się)[ \t]+(?:with|con|avec|com|using|usando|z|jako)[ \t]+["']?([\w.@-]{2,40})["']?[ \t]+(?:and|y|et|e|i|\+|&)[ \t]+["'“‘]?([^\s"'“”‘’]{6,40})`)
	loginWithGerman = regexp.MustCompile(`(?i)\bmit[ \t]+["']?([\w.@-]{2,40})["']?[ \t]+und[ \t]+["'„“]?([^\s"'“”]{6,40}?)["'“”]?[ \t]+(?:an|ein)(?:melden|loggen)`)
)

// notLoginUsers are words after "log in with" that name a way to log in, not a user.
var notLoginUsers = Set("google", "github", "facebook", "apple", "microsoft", "sso", "email", "e-mail", "your", "the", "my", "a", "okta",
	"saml", "passkey", "phone", "twitter", "gitlab", "azure", "ldap", "oauth", "magic", "tu", "su", "votre", "ton", "seu", "sua", "deinem", "deiner")

// spokenContext are words that must stand in the text for a bare "new one: X" to be a password.
var spokenContext = append([]string{"wifi", "wi-fi", "login", "log in", "account", "reset", "changed", "cuenta", "compte", "konto", "conta"}, passwordWords[:passwordWordsASCII]...)

// phrased pairs each of round 16's sentence patterns with the words it starts near and what
// the rest of the word's line must hold for it to match.
var phrased = []struct {
	re    *regexp.Regexp
	words []string
	pre   func(rest string) bool
	user  bool // the pattern's first group is a user, its second the password
}{
	{newOne, []string{"new one", "new pw", "la nueva", "el nuevo", "le nouveau", "la nouvelle", "das neue", "die neue", "a nova", "o novo", "la nuova", "il nuovo", "nowe", "nowy"}, anyRest, false},
	{changedTo, []string{"changed", "set ", "reset", "switched", "updated", "cambi", "l'ai", "l’ai", "mudei", "troquei", "alterei", "zmieni"},
		near(40, " to ", " a ", " por ", " en ", " pour ", " à ", " para ", " pra ", " in ", " na "), false},
	{changedGerman, []string{"geändert", "geaendert", "gesetzt", "umgestellt"}, anyRest, false},
	{asPassword, []string{" as ", " como ", " comme ", " als ", " come ", " jako "},
		near(40, "password", "passwort", "kennwort", "contraseña", "mot de passe", "senha", "hasło", "haslo", "wachtwoord", "parola", "pw"), false},
	{loginWith, []string{"log", "sign", "entra", "inicia", "connecte", "accedi", "entre", "acesse"},
		near(40, " with ", " con ", " avec ", " com ", " using ", " usando ", " z ", " jako "), true},
	{loginWithGerman, []string{"melden", "loggen"}, anyRest, true},
	{farCopula, []string{"password", "passwort", "kennwort", "contraseña", "clave", "mot de passe", "senha", "wachtwoord", "heslo", "hasło", "parola", "lösenord", "passord", "adgangskode", "salasana", "pw"},
		func(rest string) bool { return strings.IndexByte(rest, ',') >= 0 }, true},
}

// near returns a test that one of words stands in the first n bytes of a line's rest.
func near(n int, words ...string) func(string) bool {
	return func(rest string) bool { return anyIn(rest[:min(n, len(rest))], words) }
}

// notPasswordHeads are nouns a password word makes a compound with: "the password policy, ...,
// is X" speaks of the policy.
var notPasswordHeads = Set("policy", "policies", "manager", "reset", "hint", "length", "requirements", "requirement", "field", "rules",
	"rule", "change", "expiry", "hash", "file", "strength", "prompt", "form", "page", "dialog", "screen", "vault", "generator", "history",
	"complexity", "rotation", "protected", "recovery")

// endsClause reports whether rest, the text after a value, ends the value's clause: the text
// ends, a sign or a conjunction follows.
func endsClause(rest string) bool {
	t := strings.TrimLeft(rest, " \t")
	if t == "" || strings.IndexByte(".,;!?)\n\r(-\"'", t[0]) >= 0 {
		return true
	}
	if len(t) == len(rest) {
		return false
	}
	w, _, _ := strings.Cut(strings.ToLower(t), " ")
	return clauseJoins[w]
}

var clauseJoins = Set("and", "but", "so", "if", "y", "pero", "et", "mais", "und", "aber", "e", "ma", "mas", "i", "a", "och", "og", "ja")

// findPhrasedRound16 reports passwords a sentence hands over without a colon after a password
// word.
func findPhrasedRound16(text, lo string, pairs *bytePairs) []found {
	var out []found
	for i, p := range phrased {
		ms := nearMatches(p.re, text, lo, mayWords(pairs, p.words), false, 240, p.pre)
		if i == 0 && len(ms) > 0 && !anyIn(lo, spokenContext) {
			continue // "new one: X" says a password only where the text speaks of one
		}
		for _, m := range ms {
			s, e := m[2], m[3]
			if p.re == farCopula {
				if notPasswordHeads[strings.ToLower(text[s:e])] || !endsClause(text[m[7]:]) {
					continue
				}
				s, e = m[6], m[7]
			} else if p.user {
				if notLoginUsers[strings.ToLower(text[s:e])] {
					continue
				}
				s, e = m[4], m[5]
			}
			e = s + len(strings.TrimRight(text[s:e], ".,;:!?)…"))
			if ordinaryPassword(text[s:e]) {
				out = append(out, found{s, e, SecretPassword})
			}
		}
	}
	return out
}

var (
	networkWords = []string{"ssid", "wifi", "wi-fi", "wlan", "network name", "netzwerkname", "nombre de red", "nom du réseau", "rede:", "red:", "réseau", "netz:"}
	wifiKey      = regexp.MustCompile(`(?i)(?:^|[\s/,;|(])(?:key|code|psk|wpa key|wpa2 key|network key|clave|código|codigo|chave|clé|cle|chiave|schlüssel|schluessel|sleutel|klucz|kod|kód|kode|contraseña|passwort|mot de passe|senha)[ \t]*[:=\-][ \t]*["'“‘]?([^\s"'“”‘’,;]{8,63})`)
)

// findWifiKeys reports a Wi-Fi's key or code on the line that names its network or the next two
// ("SSID: CafeNet / Key: X", "Wifi: CafeNet, code: X").
func findWifiKeys(text, lo string, pairs *bytePairs) []found {
	if !anyIn(lo, mayWords(pairs, networkWords)) {
		return nil
	}
	var out []found
	for _, m := range nearMatches(wifiKey, text, lo, networkWords, true, 300, anyRest) {
		ls := m[2]
		for n := 0; n < 3 && ls > 0; n++ {
			ls = strings.LastIndexByte(lo[:ls-1], '\n') + 1
		}
		if !anyIn(lo[ls:m[2]], networkWords) {
			continue
		}
		s, e := m[2], m[3]
		e = s + len(strings.TrimRight(text[s:e], ".!?)"))
		if storedPassword(text[s:e]) {
			out = append(out, found{s, e, SecretPassword})
		}
	}
	return out
}

// clientCtor is a user's string then a password's string handed to a client's, a connection's or
// a session's constructor, after a host or nothing: PostgresClient('admin', 'X'), new
// FtpClient(host, "u", "X"), smtp_client("mail", "u", "X").
var clientCtor = regexp.MustCompile(`\b(?:(?:[A-Z]\w*)?(?:Client|Connection|Connector|Session|Database|Db|DB|Pool|Conn|Api|API|Mailer|Store)|[a-z]\w*(?:_client|Client|_connection|Connection|_session|Session|_conn|Conn))[ \t]*\([ \t]*(?:[^()"'\n,]{1,80},[ \t]*|["'][^"'\n]{1,120}["'][ \t]*,[ \t]*)?["']([\w.@+-]{2,40})["'][ \t]*,[ \t]*["']([^"'\n]{6,64})["']`)

var ctorWords = []string{"client", "connection", "connector", "session", "database", "db", "pool", "conn", "api", "mailer", "store"}

// openParen says a constructor's name ends at the word: its call's parenthesis follows.
func openParen(rest string) bool { return strings.HasPrefix(strings.TrimLeft(rest, " \t"), "(") }

// findClientCtors reports the password handed to a client's constructor after its user.
func findClientCtors(text, lo string, pairs *bytePairs) []found {
	if !strings.Contains(text, "(") {
		return nil
	}
	var out []found
	for _, m := range nearMatches(clientCtor, text, lo, mayWords(pairs, ctorWords), false, 400, openParen) {
		user, pw := text[m[2]:m[3]], text[m[4]:m[5]]
		if letters(user) == 0 || len(user) >= 16 && hexOnly(user) || strings.ContainsAny(pw, "/ ") || strings.Contains(user, "://") {
			continue
		}
		if storedPassword(pw) && !calledPublic(text, m[4], m[5]) {
			out = append(out, found{m[4], m[5], SecretPassword})
		}
	}
	return out
}

// jwkPrivate is a private member of a JSON Web Key: RSA's d, p, q, dp, dq, qi, an EC or OKP
// key's d, a symmetric key's k.
var jwkPrivate = regexp.MustCompile(`"(d|p|q|dp|dq|qi|k)"[ \t]*:[ \t]*"([A-Za-z0-9_-]{16,})"`)

// findJWKPrivate reports the private members of a JSON Web Key, alone or in a key set: members
// of an object that holds "kty".
func findJWKPrivate(text, lo string, pairs *bytePairs) []found {
	if !has(lo, pairs, `"kty"`) {
		return nil
	}
	var out []found
	for _, m := range jwkPrivate.FindAllStringSubmatchIndex(text, -1) {
		open := strings.LastIndexByte(text[:m[0]], '{')
		close := strings.IndexByte(text[m[1]:], '}')
		if open < 0 || close < 0 {
			continue
		}
		obj := text[open : m[1]+close]
		if !strings.Contains(obj, `"kty"`) || text[m[2]:m[3]] == "k" && !strings.Contains(obj, `"oct"`) {
			continue
		}
		out = append(out, found{m[4], m[5], SecretPrivateKey})
	}
	return out
}

// dottedEnv is a password of small words joined by dots in an environment entry
// (POSTGRES_PASSWORD=correct.horse.battery.staple), as docker-compose and .env files write them.
var dottedEnv = regexp.MustCompile(`(?m)(?:^|[\s"'])[A-Z][A-Z0-9_]*(?:PASSWORD|PASSWD|_PASS|_PWD|PASSPHRASE)[ \t]*[=:][ \t]*["']?([a-z]{3,12}(?:\.[a-z]{3,12}){2,6})["']?[ \t]*\r?$`)

// notDottedWords are parts of a dotted value that make it a host, a setting's path or a
// placeholder, not a password.
var notDottedWords = Set("com", "org", "net", "dev", "local", "internal", "cloud", "app", "svc", "cluster", "env", "secret", "secrets",
	"password", "passwd", "value", "config", "settings", "example", "vault", "properties", "spring", "datasource", "changeme", "www")

func findDottedEnv(text string) []found {
	if !strings.Contains(text, "PASS") {
		return nil
	}
	var out []found
	for _, m := range dottedEnv.FindAllStringSubmatchIndex(text, -1) {
		ok := true
		for _, w := range strings.Split(text[m[2]:m[3]], ".") {
			ok = ok && !notDottedWords[w]
		}
		if ok {
			out = append(out, found{m[2], m[3], SecretPassword})
		}
	}
	return out
}

// jwtSecret is a literal signing or verifying secret handed to a JWT library: jwt.sign(payload,
// 'X'), jwt.encode(payload, "X", algorithm="HS256"), JWT::decode($jwt, new Key('X', 'HS256')),
// Algorithm.HMAC256("X"), new SymmetricSecurityKey(Encoding.UTF8.GetBytes("X")).
var jwtSecret = regexp.MustCompile(`(?i)(?:\b(?:jwt|jsonwebtoken|jose)(?:\.|::)(?:sign|verify|encode|decode)[ \t]*\([ \t]*[^,()\n'"]{1,80},[ \t]*|\bnew[ \t]+Key[ \t]*\([ \t]*|\bAlgorithm\.HMAC(?:256|384|512)[ \t]*\([ \t]*|SymmetricSecurityKey[ \t]*\([ \t]*Encoding\.\w+\.GetBytes[ \t]*\([ \t]*)["']([^"'\n]{6,128})["']`)

// jwtWords are the words jwtSecret starts near.
var jwtWords = []string{"jwt", "jsonwebtoken", "jose", "new key", "algorithm.hmac", "symmetricsecuritykey"}

// findJWTSecrets reports a JWT library's signing secret given as a literal: random-looking, or a
// password's shape; not a placeholder ('your-256-bit-secret', 'secret', 'shhhhh').
func findJWTSecrets(text, lo string, pairs *bytePairs) []found {
	var out []found
	for _, m := range nearMatches(jwtSecret, text, lo, mayWords(pairs, jwtWords), false, 300, anyRest) {
		v := text[m[2]:m[3]]
		if placeholderWord(v) || masked(v) || strings.Contains(v, "${") || strings.HasPrefix(v, "-----") {
			continue
		}
		if storedPassword(v) || ordinaryPassword(v) || len(v) >= 12 && entropy(v) >= 3.2 && !strings.Contains(v, " ") {
			out = append(out, found{m[2], m[3], SecretGeneric})
		}
	}
	return out
}

// chatHeaderAnswer is a question, then a chat turn whose speaker stands on a line of their own
// with the time (Slack's "Bob  2:07 PM", Telegram's "Bob, [29.11.26 14:07]", Discord's "Bob —
// Today at 2:07 PM"), then the answer alone on the next line.
var chatHeaderAnswer = regexp.MustCompile(`(?m)^([^\n]*\?)[ \t]*\r?\n[ \t]*[^\n:?]{1,40}?[ \t,—–-]+` +
	`(?:\[?(?:[0-9]{1,2}[./][0-9]{1,2}[./][0-9]{2,4},?[ \t]+)?[0-9]{1,2}:[0-9]{2}(?::[0-9]{2})?(?:[ \t]?[AaPp]\.?[Mm]\.?)?\]?` +
	`|(?:Today|Yesterday|Heute|Gestern|Hoy|Ayer|Aujourd'hui|Hier|Hoje|Ontem|Oggi|Ieri)[^\n]{0,24})[ \t]*\r?\n[ \t]*([^\s]{6,64})[ \t]*\r?$`)

// chatContext are the words a question about a password holds, in every language.
var chatContext = append(append([]string{}, spokenContext...), passwordWords[passwordWordsASCII:]...)

// findChatHeaderAnswers reports the answer to a question about a password on the next chat turn,
// the speaker on a line of their own with the time.
func findChatHeaderAnswers(text, lo string, pairs *bytePairs) []found {
	words := mayWords(pairs, chatContext)
	if !strings.Contains(text, "?") || !anyIn(lo, words) {
		return nil
	}
	var out []found
	for _, m := range chatHeaderAnswer.FindAllStringSubmatchIndex(text, -1) {
		v := text[m[4]:m[5]]
		if anyIn(lo[m[2]:m[3]], words) && (ordinaryPassword(v) || storedPassword(v)) {
			out = append(out, found{m[4], m[5], SecretPassword})
		}
	}
	return out
}

// oneDigitAfterWord is a password word, what it opens in a few words, a copula or a colon, and a
// value of small letters and digits: "password for the router is trustno1zebra", "la contraseña
// es trustno1zebra", "Passwort: sonnenschein7".
var oneDigitAfterWord = regexp.MustCompile(`(?i)(?:^|[^\pL])(?:password|passwort|kennwort|contraseña|clave|mot de passe|mdp|senha|wachtwoord|heslo|hasło|parola|lösenord(?:et)?|passord(?:et)?|adgangskode(?:n)?|salasana|pw|pwd)` +
	`(?:[ \t]+(?:for|to|of|del|de|do|da|du|für|vom|zum|on|at|dla|pro|per|van|til|för)(?:[ \t]+[\pL0-9_-]+){1,3})?` +
	`[ \t]*(?:[ \t]is|[ \t]es|[ \t]est|[ \t]ist|[ \t]lautet|[ \t]é|[ \t]è|[ \t]je|[ \t]jest|[ \t]är|[ \t]er|[ \t]on|:|=)[ \t]+["'“]?([a-z0-9]{8,40})`)

var oneDigitWords = []string{"password", "passwort", "kennwort", "contraseña", "clave", "mot de passe", "mdp", "senha", "wachtwoord", "heslo", "hasło",
	"parola", "lösenord", "passord", "adgangskode", "salasana", "pw"}

// findOneDigitPasswords reports small letters with a digit right after a password word and its
// copula or colon, the value ending its clause.
func findOneDigitPasswords(text, lo string, pairs *bytePairs) []found {
	var out []found
	for _, m := range nearMatches(oneDigitAfterWord, text, lo, mayWords(pairs, oneDigitWords), false, 200, anyRest) {
		if v := text[m[2]:m[3]]; oneDigitPassword(v) && endsClause(text[m[3]:]) && !proseValue(v) {
			out = append(out, found{m[2], m[3], SecretPassword})
		}
	}
	return out
}

// iniSecret is a secret's or a password's key and a value of small letters and digits in an INI
// or TOML file: secret = hunter2hunter.
var iniSecret = regexp.MustCompile(`(?m)^[ \t]*(?:[a-z0-9]+_)?(?:secret|password|passwd|pass|pwd)[ \t]*=[ \t]*["']?([a-z0-9]{8,40})["']?[ \t]*\r?$`)

// findINISecrets reports small letters with one digit as a secret's or a password's value under a
// section of an INI or TOML file ([stripe] / secret = hunter2hunter).
func findINISecrets(text string) []found {
	if !strings.Contains(text, "]\n") || !strings.Contains(text, "=") {
		return nil
	}
	var out []found
	for _, m := range iniSecret.FindAllStringSubmatchIndex(text, -1) {
		sec := strings.LastIndex(text[:m[0]], "\n[")
		if sec < 0 && strings.HasPrefix(text, "[") {
			sec = -1
		} else if sec < 0 {
			continue
		}
		if head, _, _ := strings.Cut(text[sec+1:m[0]], "\n"); !sectionLine.MatchString(head) {
			continue
		}
		if v := text[m[2]:m[3]]; oneDigitPassword(v) && !proseValue(v) {
			out = append(out, found{m[2], m[3], SecretPassword})
		}
	}
	return out
}

// sectionLine is an INI or TOML section's header: [stripe], [mail.smtp], ["service"].
var sectionLine = regexp.MustCompile(`^[ \t]*\[\[?["']?[A-Za-z][\w.-]{0,40}["']?\]\]?[ \t]*\r?$`)

// findRound16 gathers round 16's finders.
func findRound16(text, lo string, pairs *bytePairs) []found {
	out := append(findLabelLines(text), findDottedEnv(text)...)
	out = append(out, findINISecrets(text)...)
	if len(lo) != len(text) {
		return out
	}
	out = append(out, findClientCtors(text, lo, pairs)...)
	out = append(out, findPhrasedRound16(text, lo, pairs)...)
	out = append(out, findWifiKeys(text, lo, pairs)...)
	out = append(out, findJWTSecrets(text, lo, pairs)...)
	out = append(out, findChatHeaderAnswers(text, lo, pairs)...)
	out = append(out, findOneDigitPasswords(text, lo, pairs)...)
	return append(out, findJWKPrivate(text, lo, pairs)...)
}

// labelTranslation reports a value that is a password's label in some language, as i18n files
// hold them ("password": "Contraseña", "login.password": "Mot de passe"): a password word other
// than English's, alone or with a few words of letters ("Nueva contraseña").
func labelTranslation(v string) bool {
	v = strings.Trim(v, "\"'`")
	lv := strings.ToLower(v)
	if len(v) > 40 || strings.IndexFunc(v, func(r rune) bool { return !unicode.IsLetter(r) && r != ' ' && r != '\'' && r != '’' }) >= 0 {
		return false
	}
	switch lv {
	case "password", "passwd", "pass", "pwd", "pw", "passphrase", "passcode", "secret":
		return false // an English word may be a (weak) password itself
	}
	if labelWords[lv] {
		return true
	}
	words := strings.Fields(lv)
	if len(words) < 2 || len(words) > 4 {
		return false
	}
	for _, w := range passwordWords {
		if len(w) >= 5 && containsWord(lv, w) {
			return true
		}
	}
	return false
}

var (
	// filePath is a relative or home path as a value: --from-file=password=./password.txt
	filePath = regexp.MustCompile(`^(?:\.{1,2}|~)/[\w./-]+$`)
	// accountID is a Twilio account's or key's sid: an identifier, not a secret
	accountID = regexp.MustCompile(`^A[CP][0-9a-f]{32}$`)
	// envRead is the next argument reading the environment
	envRead = regexp.MustCompile(`^["']?[ \t]*,[ \t]*(?:os\.environ|os\.getenv|os\.Getenv|process\.env|System\.getenv|ENV\[|ENV\.fetch|getenv\(|env\(|Environment\.GetEnvironmentVariable)`)
)

// notSecretRound16 reports values round 16 leaves alone: a label's translation, a path, an
// account's id handed to a client beside a secret read from the environment.
func notSecretRound16(text string, s, e int) bool {
	v := text[s:e]
	return labelTranslation(v) || filePath.MatchString(v) || accountID.MatchString(strings.Trim(v, "\"'")) && envRead.MatchString(text[e:])
}
