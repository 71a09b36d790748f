package screen

import (
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Credentials named by the words around them rather than by a prefix of their own: a cloud key
// after a key word or an access key id, a service token after its name, and passwords given in
// prose, in several languages, or on a command line.
var contextSecretRules = []secretRule{
	// An Azure storage key (64 bytes in base64, 88 characters ending in ==) after any key word or
	// flag: --account-key ..., key: ... under storage.
	srule(SecretAzureStorageKey, []string{"=="},
		`(?i)key["']?(?:[ \t]*[=:][ \t]*|[ \t]+)["']?([A-Za-z0-9+/]{86}==)`, 1, randomish(80, 4.5)).notPublic().runOf(86),
	// An AWS secret key (40 characters) after a secret word, or right after an access key id.
	srule(SecretAWSSecretKey, []string{"secret", "sk"},
		`(?i)\b(?:secret|sk)(?:[ _\-]?access)?(?:[ _\-]?key)?["']?(?:[ \t]*\[none\])?(?:[ \t]*(?:=|:|\bis\b)[ \t]*|[ \t]+)["']?([A-Za-z0-9/+]{40})(?:[^A-Za-z0-9/+=]|$)`, 1,
		awsSecret).runOf(40),
	srule(SecretAWSSecretKey, []string{"akia", "asia"},
		`\b(?:AKIA|ASIA)[A-Z0-9]{16}["']?[ \t]*(?:[,/:|;][ \t]*)?(?:(?i:secret|sk)(?:[ _\-]?(?i:access))?(?:[ _\-]?(?i:key))?[ \t]*[=:]?[ \t]*)?["']?([A-Za-z0-9/+]{40})(?:[^A-Za-z0-9/+=]|$)`, 1,
		awsSecret),
	// Twilio: an auth token after its name, or after an account SID as the second argument.
	srule(SecretTwilioKey, []string{"auth"}, `(?i)\bauth[ _\-]?token["']?[ \t]*[=:,]?[ \t]*["']?([0-9a-f]{32})\b`, 1, randomish(32, 3)),
	srule(SecretTwilioKey, []string{"ac"}, `\bAC[0-9a-f]{32}["']?[ \t]*[,:/][ \t]*["']?([0-9a-f]{32})\b`, 1, randomish(32, 3)).withPre(hex32),
	// A Mailgun key, a Stripe webhook secret, a Telegram bot token inside an API address.
	srule(SecretAPIKey, []string{"key-"}, `\bkey-[0-9a-f]{32}\b`, 0, randomish(36, 3)),
	srule(SecretStripeKey, []string{"whsec_"}, `\bwhsec_[A-Za-z0-9+/]{24,}`, 0, randomish(30, 3.5)),
	srule(SecretTelegramBotToken, []string{"/bot"}, `/bot(\d{8,10}:[0-9A-Za-z_\-]{35})\b`, 1, randomish(40, 3.5)),
	// A framework's secret key in quotes (Django's holds symbols and parentheses).
	srule(SecretGeneric, []string{"secret_key"}, `(?i)secret_key["']?[ \t]*[=:][ \t]*(?:'([^'\s]{32,})'|"([^"\s]{32,})")`, -1,
		func(v, _ string) bool { return entropy(v) >= 4 && classes(v) >= 3 && !placeholderWord(v) }),
	// A long random value after "API key", "api secret", "secret", "key:" (Binance, Alchemy).
	srule(SecretAPIKey, []string{"key", "secret"},
		`(?i)\b(public[ _\-]?|pub[ _\-]?)?(?:api[ _\-]?key|api[ _\-]?secret|secret|key)["']?(?:[ \t]*(?:=|:|\bis\b)[ \t]*|[ \t]+)["']?([A-Za-z0-9_\-+/]{32,})`, 0,
		apiValue).notPublic().runOf(32),
	// <add key="SmtpPassword" value="..."/>
	srule(SecretPassword, []string{"value="},
		`(?i)key="[^"]*(?:passw|pwd|secret|token|apikey)[^"]*"[ \t]+value="([^"]{3,200})"`, 1, passwordValue),
	// mysql -pSECRET (the password glued to -p)
	srule(SecretPassword, []string{"mysql"}, `\bmysql(?:dump|admin)?\b[^\n|;]*?[ \t]-p(?:'([^'\n]{3,})'|"([^"\n]{3,})"|([^\s"']{3,}))`, -1, passwordValue),
	// echo SECRET | docker login ... --password-stdin
	srule(SecretPassword, []string{"login"},
		`\becho[ \t]+["']?([^\s"'|]{6,})["']?[ \t]*\|[ \t]*(?:docker|podman|helm|oras|buildah|nerdctl)[ \t]+(?:registry[ \t]+)?login\b`, 1, passwordValue),
	// A password given to a tool's flag: redis-cli -a, ldapsearch -w, zip -P, 7z -p, openssl
	// pass:, smbclient -U user%password, mongosh -p.
	srule(SecretPassword, []string{"redis-cli", "ldap", "zip", "7z", "pass:", "smbclient", "mongo"},
		`(?:\bredis-cli\b[^\n|;]*?[ \t]-a[ \t]+|\bldap[a-z]+\b[^\n|;]*?[ \t]-w[ \t]+|\bzip\b[^\n|;]*?[ \t]-P[ \t]+|\b7za?\b[^\n|;]*?[ \t]-p|-pass(?:in|out)?[ \t]+pass:|\bsmbclient\b[^\n|;]*?[ \t]-U[ \t]+[^\s%]+%|\bmongo(?:sh)?\b[^\n|;]*?[ \t]-p[ \t]+)["']?([^\s"']{3,})`, 1,
		passwordValue),
	// Authorization: Token ..., Authorization: ApiKey ...
	srule(SecretToken, []string{"authorization"}, `(?i)\bauthorization["']?[ \t]*[:=][ \t]*["']?(?:token|apikey|api-key|key|sso-key)[ \t]+([A-Za-z0-9\-._~+/:]{16,}=*)`, 1,
		func(v, m string) bool { return randomish(16, 3.2)(v, m) && strings.ContainsAny(v, "0123456789") }),
	// user / password after a login word: "admin login: svc_backend / Mango!Tiger!447198"
	srule(SecretPassword, []string{" / "},
		`(?i)\b(?:login|logins|admin|creds|credentials|user|username|account|wifi|wi-fi|wlan|ssid|zugangsdaten|zugang|identifiants|credenciales|credenciais|acceso|accesso|dostęp|dane logowania|доступ|доступы|логин)[^\n]{0,40}?[ \t:][\w.\-]{2,32}[ \t]+/[ \t]+([^\s]{5,63}[^\s.,;:)])`, 1,
		func(v, _ string) bool { return passwordToken(v) }),
	// user:password right after a login word: "login admin:...", "creds → admin:..."
	srule(SecretPassword, []string{"login", "creds", "credentials", "zugang", "identifiants", "credenc", "acceso", "accesso", "доступ", "логин"},
		`(?i)\b(?:login|creds|credentials|zugangsdaten|zugang|identifiants|credenciales|credenciais|acceso|accesso|доступ|доступы|логин)[ \t]*(?::|→|->|=|-)?[ \t]*[\w.\-]{2,32}:([^\s]{5,63}[^\s.,;:)])`, 1,
		func(v, _ string) bool { return passwordToken(v) && !strings.HasPrefix(v, "//") }),
	// a password before its word: "use X as the password", "X is the password for root"
	srule(SecretPassword, []string{" as the password", " as my password", " as your password", " as a password", " as password", " as the passphrase"},
		`(?i)\b(?:use|try|enter|type)[ \t]+["'`+"`"+`]?([^\s"'`+"`"+`]{6,64})["'`+"`"+`]?[ \t]+as[ \t]+(?:the[ \t]+|my[ \t]+|your[ \t]+|a[ \t]+)?(?:password|passphrase)(?:[ \t]*(?:$|[.,;:!)\n])|[ \t]+(?:for|to|of|on|at|here|now)\b)`, 1,
		func(v, _ string) bool { return passwordToken(v) }),
	srule(SecretPassword, []string{"is the password", "is my password", "is your password", "is our password", "is the admin password", "is the root password"},
		`(?i)(?:^|[ \t(])["'`+"`"+`]?([^\s"'`+"`"+`]{6,64})["'`+"`"+`]?[ \t]+is[ \t]+(?:the|my|your|our)[ \t]+(?:\w+[ \t]+)?(?:password|passphrase)(?:[ \t]*(?:$|[.,;:!)\n])|[ \t]+(?:for|to|of|on|at|here|now)\b)`, 1,
		func(v, _ string) bool { return passwordToken(v) }),
}

var (
	fileName = regexp.MustCompile(`\.[A-Za-z][A-Za-z0-9]{1,4}$`)
	// content ids (IPFS) look like keys
	contentID = regexp.MustCompile(`^(?:Qm[1-9A-HJ-NP-Za-km-z]{44}|bafy[a-z2-7]{50,})$`)
)

func init() {
	addRules(contextSecretRules)
}

// awsSecret decides on a 40-character AWS secret key: mixed case and digits, not a hex digest.
func awsSecret(v, _ string) bool {
	return !hexOnly(v) && classes(v) >= 3 && entropy(v) >= 4 && !placeholderWord(v)
}

// apiValue decides on a long value after a key word: mixed case and digits, random-looking, not a
// hex digest, not an SSH public key's body (AAAA...), not a content id.
func apiValue(m, _ string) bool {
	lo := strings.ToLower(m)
	if strings.HasPrefix(lo, "pub") {
		return false
	}
	v := m[strings.LastIndexAny(m, " \t:=\"'")+1:]
	if publicValue(v) || evmAddress(v) {
		return false
	}
	if strings.Contains(lo, "api") && len(v) >= 32 && hexOnly(v) && !strings.Contains(v, "-") && !sameChar(v) {
		return true // "API key: <32 hex>"
	}
	if strings.Contains(lo, "api") && len(v) >= 32 && strings.ToUpper(v) == v && strings.ContainsAny(v, "0123456789") &&
		classes(v) == 2 && entropy(v) >= 4 && !placeholderWord(v) {
		return true // "Etherscan API key: <34 capitals and digits>"
	}
	return upLowDigit(v) && len(v) >= 32 && entropy(v) >= 4.2 && !placeholderWord(v) && !strings.HasPrefix(v, "AAAA") &&
		!contentID.MatchString(v)
}

// publicValue reports whether a value starts as a key made to be published: a Stripe publishable
// key (pk_live_, pk_test_), a Mapbox public token (pk.).
func publicValue(v string) bool {
	return strings.HasPrefix(v, "pk_live_") || strings.HasPrefix(v, "pk_test_") || strings.HasPrefix(v, "pk.")
}

// withPre sets a rule's fast test.
func (r secretRule) withPre(pre func(string) bool) secretRule {
	r.pre = pre
	return r
}

// hex32 reports whether text holds 32 hexadecimal digits in a row.
func hex32(text string) bool { return hexRun(text, 32) }

// runOf makes a rule run only on texts holding n or more characters of base64 (or base64url) in a
// row: the long value the rule looks for.
func (r secretRule) runOf(n int) secretRule {
	r.pre = func(text string) bool {
		k := 0
		for i := 0; i < len(text); i++ {
			c := text[i]
			if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '+' || c == '/' || c == '_' || c == '-' {
				if k++; k >= n {
					return true
				}
			} else {
				k = 0
			}
		}
		return false
	}
	return r
}

// notPublic makes a rule pass values that the words before name public: a public key in base64.
func (r secretRule) notPublic() secretRule {
	r.around = func(text string, s, _ int) bool {
		from := max(0, s-40)
		before := strings.ToLower(text[from:s])
		return !strings.Contains(before, "public") && !strings.Contains(before, "publishable") &&
			!strings.Contains(before, "pubkey") && !strings.Contains(before, "ssh-") && !publicValue(text[s:])
	}
	return r
}

// passwordWords name a password in prose, in the languages sellers write in.
var passwordWords = []string{"password", "passwort", "passwd", "pass", "pw", "pwd", "contraseña", "mot de passe",
	"senha", "wachtwoord", "hasło", "пароль", "parola", "heslo", "lösenord", "passord", "adgangskode", "kennwort",
	"パスワード", "密码", "密碼", "비밀번호", "口令", "şifre", "sifre", "kata sandi", "mật khẩu", "jelszó", "salasana",
	"lozinka", "geslo", "κωδικός", "كلمة المرور", "סיסמה", "पासवर्ड", "รหัสผ่าน",
	// with an article or a conjunction written onto the word, and other words for it
	"passphrase", "passcode", "clave", "clave de acceso", "palavra-passe", "mdp", "şifresi", "sifresi", "şifreniz",
	"parolası", "sandinya", "password-nya", "passwordnya", "lösenordet", "passordet", "adgangskoden", "hasła", "hasłem",
	"пароля", "паролем", "паролі", "hesla", "heslem", "κωδικό", "κωδικού", "كلمة مرور", "كلمة السر", "وكلمة السر", "وكلمة المرور", "পাসওয়ার্ড", "رمز عبور", "گذرواژه", "کلمه عبور", "הסיסמה", "סיסמא", "הסיסמא", "συνθηματικό",
	// Swahili, and the typos sellers make of "password"
	"nenosiri", "pasword", "passwrod", "passowrd", "pssword",
	// a code word: Ukrainian, Russian
	"кодове слово", "кодовое слово"}

// passwordWordsASCII counts the password words written in ASCII, which come first.
var passwordWordsASCII = asciiFirst(passwordWords)

// findProsePasswords reports passwords given in prose: a password word, then, within a few words
// on the same line, a value that reads as a password (passwordToken). "Password: choose one you
// can remember" holds none. lo is text in lower case, pairs its pairs of bytes.
func findProsePasswords(text, lo string, pairs *bytePairs) [][2]int {
	if len(lo) != len(text) {
		return nil // a letter changed its length in lower case: offsets would not match
	}
	var out [][2]int
	words := passwordWords
	if isASCII(text) {
		words = passwordWords[:passwordWordsASCII]
	}
	for _, w := range words {
		if !pairs.may(w) {
			continue
		}
		for from := 0; ; {
			i := strings.Index(lo[from:], w)
			if i < 0 {
				break
			}
			s, e := from+i, from+i+len(w)
			from = e
			if !wordEdge(lo, s, e) && !compoundLabel(lo, s, e) {
				continue
			}
			if v, ok := passwordAfter(text, e, w == "pass" || w == "pw" || w == "pwd" || w == "clave"); ok {
				out = append(out, v)
			} else if v, ok := passwordBelow(text, e); ok {
				out = append(out, v)
			}
		}
	}
	return out
}

// wordEdge reports whether lo[s:e] stands as a word of prose: not inside a longer word, an
// identifier (bad_password, $(pwd), REDIS_PASSWORD}) or a name with dots or dashes.
func wordEdge(lo string, s, e int) bool {
	if s > 0 {
		r, _ := utf8.DecodeLastRuneInString(lo[:s])
		if (unicode.IsLetter(r) || unicode.IsDigit(r)) && !cjk(r) || strings.ContainsRune("_${-.", r) {
			return false
		}
		if r == '(' && (s < 2 || lo[s-2] == '$' || isLower(lo[s-2]) || lo[s-2] == '_') {
			return false // $(pwd), getpass(...): code; "(pass X)" in prose is a word
		}
	}
	if e < len(lo) {
		r, _ := utf8.DecodeRuneInString(lo[e:])
		if (unicode.IsLetter(r) || unicode.IsDigit(r)) && !cjk(r) || strings.ContainsRune("_)}-.(", r) {
			return false
		}
	}
	return true
}

// compoundLabel reports whether lo[s:e] ends a word joined by a dash to the word before it and
// followed by a colon, an equals sign or a space: "Keystore-Passwort:", "WLAN-Kennwort =", "das
// Keystore-Passwort lautet". passwordAfter still wants a value that reads as a password.
func compoundLabel(lo string, s, e int) bool {
	if s < 2 || lo[s-1] != '-' || !isLower(lo[s-2]) {
		return false
	}
	if e == len(lo) {
		return false
	}
	if r, _ := utf8.DecodeRuneInString(lo[e:]); unicode.IsLetter(r) || unicode.IsDigit(r) {
		return false
	}
	rest := strings.TrimLeft(lo[e:], " \t")
	return strings.HasPrefix(rest, ":") || strings.HasPrefix(rest, "=") || strings.HasPrefix(rest, "：") ||
		len(rest) < len(lo)-e && rest != "" && rest[0] != '-' && rest[0] != '.'
}

// cjk reports whether r is written without spaces between words (Chinese, Japanese, Korean, Thai
// and its neighbours): a
// word next to it still stands as a word ("パスワードは", "密码是").
func cjk(r rune) bool {
	return unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul, unicode.Thai, unicode.Lao, unicode.Khmer,
		unicode.Myanmar)
}

// passwordAfter finds a password among the few words after text[:e] on its line: the next word
// only after a short word ("pass X", "pw: X"; "tests pass (42/42)" holds none), six words after
// the others ("the password for the admin account is X").
func passwordAfter(text string, e int, short bool) ([2]int, bool) {
	rest := text[e:]
	if i := strings.IndexByte(rest, '\n'); i >= 0 {
		rest = rest[:i]
	}
	if len(rest) > 512 {
		// six words end well before: reading the whole of a long line after each password
		// word would take time in the square of its length
		rest = rest[:strings.LastIndexAny(rest[:512], " \t")+1]
	}
	most := 6
	if short {
		most = 1
	}
	pos := e
	n := 0
	for _, f := range strings.Fields(rest) {
		at := strings.Index(text[pos:], f) + pos
		pos = at + len(f)
		if f == ":" || f == "=" || f == "-" || f == "—" || f == "–" {
			continue
		}
		if n++; n > most && !(short && n <= 4) && !(!short && n <= most+4) {
			break
		}
		f = strings.TrimRight(f, ".,;:)?\"'`»”。，、；：！？）」』")
		v := strings.TrimLeft(f, "\"'`«“「『（：([")
		if !passwordToken(v) {
			v = strings.TrimRight(v, "!") // a password may end in "!", a sentence too
		}
		s := at + strings.Index(text[at:], v)
		if n > most && short && !copulaEnd(text[e:s]) || n > most && !short && !labelled(text[e:s]) {
			continue // "clave del panel es X", "password for the zip with the source: X": further words only up to a copula or a label
		}
		if passwordToken(v) || paddedToken(v) || labelled(text[e:s]) && (labelledPassword(v) || wordNumber(v)) {
			return [2]int{s, s + len(v)}, true
		}
	}
	return [2]int{}, false
}

// passwordBelow finds a password alone on the line after a label that ends its own line
// ("keystore password:", "Passwort für den Keystore:"), past blank lines and a code fence: a value
// that reads as a password, the line's only word.
func passwordBelow(text string, e int) ([2]int, bool) {
	nl := strings.IndexByte(text[e:], '\n')
	if nl < 0 || nl > 40 {
		return [2]int{}, false
	}
	label := strings.TrimRight(text[e:e+nl], " \t\r")
	if !strings.HasSuffix(label, ":") && !strings.HasSuffix(label, "：") || strings.Count(label, " ") > 4 {
		return [2]int{}, false
	}
	lo := strings.ToLower(label)
	for _, w := range aboutPasswords {
		if strings.Contains(lo, w) {
			return [2]int{}, false // "password policy:", "password example:"
		}
	}
	pos := e + nl + 1
	for skipped := 0; pos < len(text) && skipped < 3; skipped++ {
		end := strings.IndexByte(text[pos:], '\n')
		if end < 0 {
			end = len(text) - pos
		}
		line := strings.TrimSpace(text[pos : pos+end])
		if line == "" || strings.HasPrefix(line, "```") && len(strings.Fields(line)) == 1 {
			pos += end + 1
			continue
		}
		v := strings.Trim(line, "`\"'")
		if strings.ContainsAny(v, " \t") || !passwordToken(v) && !paddedToken(v) {
			return [2]int{}, false
		}
		s := pos + strings.Index(text[pos:pos+end], v)
		return [2]int{s, s + len(v)}, true
	}
	return [2]int{}, false
}

// aboutPasswords are words of a label about passwords rather than before one.
var aboutPasswords = []string{"polic", "rule", "requirement", "format", "example", "sample", "hint", "length", "reset",
	"hash", "strength", "manager", "field", "tip", "change", "forgot"}

// labelled reports whether the text between a password word and a value is a label's sign, or
// a few words and then one: "密码：", "Mot de passe WiFi du coworking :", "password is".
func labelled(between string) bool {
	b := strings.TrimRight(between, " \t")
	if strings.HasSuffix(b, ":") || strings.HasSuffix(b, "：") {
		return true
	}
	for _, c := range copulas {
		if strings.HasSuffix(b, c) {
			return true
		}
	}
	return false
}

// copulaEnd reports whether the words between a password word and a value end with a copula
// ("del panel es"), not with a label's colon ("pública:").
func copulaEnd(between string) bool {
	b := strings.TrimRight(between, " \t")
	for _, c := range copulas {
		if strings.HasSuffix(b, c) {
			return !strings.Contains(strings.ToLower(b), "publ")
		}
	}
	return false
}

// copulas end the words between a password word and its value: "is", "ist", "lautet", "est",
// "es", "è", "é", "jest", "adalah", "là", "är", "er", "je", "ni", "dir", "هي", "है", "คือ", and
// the particles of CJK prose ("は", "是", "为", "는").
var copulas = []string{" is", " ist", " lautet", " est", " es", " è", " é", " jest", " adalah", " là", " är", " er",
	" je", " ni", " dir", " هي", " है", " হলো", " হল", "คือ", "は", "是", "为", "為", "는", "은"}

// labelledPassword reports whether a value right after a password label reads as one, more
// loosely than passwordToken: random symbols with no digit (Ons%RD+JXJ^TUXL), an equals sign
// (Volna=pelikan164), two words and a number (pelikan_kasza9997); not a word, a path or a call.
func labelledPassword(v string) bool {
	if len(v) < 8 || len(v) > 64 || placeholderWord(v) || strings.IndexByte("$%{[(@&*<", v[0]) >= 0 || envName.MatchString(v) ||
		codeRef.MatchString(v) && strings.TrimRight(v, "0123456789") == v || subscript.MatchString(v) || strings.Contains(v, "://") || strings.ContainsAny(v, "()") ||
		strings.Count(v, "/") >= 2 || strings.HasPrefix(v, "$") || strings.HasPrefix(v, "%") && strings.HasSuffix(v, "%") {
		return false
	}
	var up, low, dg bool
	sym := 0
	for i := 0; i < len(v); i++ {
		c := v[i]
		switch {
		case c >= 'A' && c <= 'Z':
			up = true
		case c >= 'a' && c <= 'z':
			low = true
		case c >= '0' && c <= '9':
			dg = true
		case c >= 0x80:
			return false
		case strings.IndexByte("-_.:/,", c) < 0:
			sym++
		}
	}
	if !up && !low {
		return false
	}
	if dg {
		return (low || up) && (sym > 0 || up && low || strings.ContainsAny(v, "-_.")) && entropy(v) >= 3
	}
	return sym >= 2 && entropy(v) >= 3.3
}

// passwordToken reports whether a word reads as a password: 6 to 64 characters holding lower-case
// letters and digits and either a symbol or a capital letter, or four or more small words joined
// by dashes (dashedWords), and not an address, a path, a call, an identifier or a
// code such as ORD-2024-11A, argon2id or db01:5432.
func passwordToken(v string) bool {
	if len(v) < 6 || len(v) > 64 || placeholder(v) || hashName(v) || strings.Contains(v, "://") || strings.Contains(v, "=") || v[0] == '#' && !signedPassword(v[1:]) {
		return false
	}
	var up, low, dg, sym bool
	for i := 0; i < len(v); i++ {
		c := v[i]
		switch {
		case c >= 'A' && c <= 'Z':
			up = true
		case c >= 'a' && c <= 'z':
			low = true
		case c >= '0' && c <= '9':
			dg = true
		case c >= 0x80:
			low = true
		case strings.IndexByte("-_.:/,", c) < 0:
			sym = true
		}
	}
	if dashedWords(v) {
		return true // pixel-sierra-falcon-raven
	}
	if !dg || !low || !(sym || up || passphrase(v)) || passwordManagers[strings.ToLower(v)] {
		return false // ORD-2024-11A, argon2id, bcrypt-12, db01:5432
	}
	if at := strings.IndexByte(v, '@'); at >= 0 && strings.Contains(v[at:], ".") {
		return false // an address
	}
	if strings.Count(v, "/") >= 2 || strings.Count(v, ".") >= 2 || strings.HasPrefix(v, "-") || knownFile(v) {
		return false // a path, a version or a host, a flag, a file
	}
	return true
}

// fileExts are the endings of file names and host names a value after a password word may be:
// "keystore.json", "pw.txt", "shop2024.com"; "Alter9786.blam" ends in none and is a password.
var fileExts = map[string]bool{"txt": true, "pdf": true, "zip": true, "json": true, "yaml": true, "yml": true,
	"toml": true, "env": true, "key": true, "pem": true, "crt": true, "cer": true, "der": true, "p12": true, "pfx": true,
	"jks": true, "log": true, "csv": true, "xml": true, "html": true, "htm": true, "js": true, "ts": true, "go": true,
	"py": true, "rb": true, "php": true, "java": true, "sh": true, "conf": true, "cfg": true, "ini": true, "md": true,
	"doc": true, "docx": true, "xls": true, "xlsx": true, "png": true, "jpg": true, "jpeg": true, "gif": true,
	"svg": true, "tar": true, "gz": true, "tgz": true, "bz2": true, "xz": true, "rar": true, "sql": true, "db": true,
	"sqlite": true, "bak": true, "bin": true, "exe": true, "dll": true, "so": true, "dmg": true, "iso": true,
	"img": true, "mp3": true, "mp4": true, "wav": true, "pass": true, "pwd": true, "secret": true, "kdbx": true,
	"asc": true, "gpg": true, "pgp": true, "sig": true, "lock": true, "tmp": true, "old": true, "out": true,
	"dat": true, "keystore": true, "wallet": true, "pub": true, "ppk": true, "rsa": true, "rs": true, "kt": true,
	"swift": true, "vue": true, "jsx": true, "tsx": true, "css": true, "scss": true, "map": true, "com": true,
	"net": true, "org": true, "io": true, "dev": true, "app": true, "ai": true, "co": true, "local": true,
	"internal": true, "lan": true, "example": true, "test": true, "service": true, "socket": true, "timer": true,
	"cpp": true, "hpp": true, "cs": true, "lua": true, "pl": true, "ps1": true, "bat": true, "cmd": true, "tf": true,
	"hcl": true, "properties": true, "gradle": true, "apk": true, "ipa": true, "deb": true, "rpm": true, "sum": true,
	"mod": true, "cnf": true, "ovpn": true, "p8": true, "jwk": true, "csr": true}

// knownFile reports whether v ends as a file or host name: a dot and a known ending.
func knownFile(v string) bool {
	i := strings.LastIndexByte(v, '.')
	return i >= 0 && fileName.MatchString(v) && fileExts[strings.ToLower(v[i+1:])]
}

// paddedToken reports whether v reads as a password once the equals signs that end it are set
// aside: "tiger-8288MM2B=" (an equals sign inside is an assignment's).
func paddedToken(v string) bool {
	t := strings.TrimRight(v, "=")
	return t != v && len(v)-len(t) <= 2 && passwordToken(t)
}

// passwordManagers are names that follow password words without being passwords.
var passwordManagers = map[string]bool{"1password": true, "1password.": true, "1passwords": true}

// passphrase reports whether v is three or more words joined by dashes, underscores or dots, each
// of three letters or more and perhaps digits after them: "uncover-zebra-ketchup-velvet38", not
// "ORD-2024-11A", "bcrypt-12" or "feature-branch-reset-v2".
func passphrase(v string) bool {
	words := strings.FieldsFunc(v, func(r rune) bool { return r == '-' || r == '_' || r == '.' })
	if len(words) < 3 {
		return false
	}
	for k, w := range words {
		i := 0
		for i < len(w) && (w[i] >= 'a' && w[i] <= 'z' || w[i] >= 'A' && w[i] <= 'Z') {
			i++
		}
		if i == 0 && k == len(words)-1 && k >= 3 && len(w) >= 2 && len(w) <= 4 && strings.TrimLeft(w, "0123456789") == "" {
			continue // "shallow-broom-general-24": three words and a number
		}
		if i < 3 || strings.TrimLeft(w[i:], "0123456789") != "" {
			return false
		}
	}
	return true
}
