package screen

import (
	"regexp"
	"strings"
)

// Round 15: ordinary passwords where a sentence, a chat or a table gives them, credential pairs
// after login words, passwords handed to code by position or to a setter, signing keys in code,
// Solana and Nostr secret keys in prose, and YAML tags that stand for a value.

// ordinaryPassword reports a password as people choose one, for where the text names it: a word
// and digits (kasztan81, summer1996, sven98morango, k0tek56), a name with a sign and digits
// (Nadia!4142, Kotek66=, Winter=retniw6), words joined with a digit (moonlight-fenix-zorro-3,
// biscuit!tiucsib7, Rosalie.eilasor6). 6 to 40 characters without a space, three letters or
// more, a small letter and a digit, two digits and four letters when it is nothing but small
// letters and digits; not the name of an algorithm or a format (sha256, base64, float64), a
// version, a date, a path, an address, a reference, a mask or a placeholder. (Three digits
// with three letters do too: z0rr026.)
func ordinaryPassword(v string) bool {
	if len(v) < 6 || len(v) > 40 || !isASCII(v) || strings.ContainsAny(v, " \t\n") || letters(v) < 3 || digits(v) == 0 || !hasLower(v) {
		return false
	}
	if strings.Trim(v, "abcdefghijklmnopqrstuvwxyz0123456789") == "" && !(digits(v) >= 2 && letters(v) >= 4 || digits(v) >= 3) {
		return false
	}
	if placeholderWord(v) || secretRef(v) || hashName(v) || maskedValue(v) || passwordManagers[strings.ToLower(v)] ||
		strings.IndexByte("$%{[(<&/\\", v[0]) >= 0 || formatName(v) {
		return false
	}
	if name, val, ok := strings.Cut(v, "="); ok && val != "" && !capitalised(name) {
		return false // a setting: timeout=30s
	}
	if len(v) >= 16 && hexOnly(v) || v[0] == '#' && !signedPassword(v[1:]) {
		return false // a hash or a commit; a tag or a colour
	}
	if codeRef.MatchString(v) {
		// a name and a word with digits, Rosalie.eilasor6; not apps.v1beta1 or np.float64
		head, tail, _ := strings.Cut(v, ".")
		word := strings.TrimRight(tail, "0123456789")
		return strings.Count(v, ".") == 1 && len(head) >= 4 && letters(head) == len(head) && !codeHeads[strings.ToLower(head)] &&
			len(word) >= 4 && letters(word) == len(word) && !formatName(tail)
	}
	return !notSecretShape(v)
}

func hasLower(v string) bool {
	return strings.IndexFunc(v, func(r rune) bool { return r >= 'a' && r <= 'z' }) >= 0
}

// capitalised reports a word of letters with a capital first: Winter, Ivan.
func capitalised(w string) bool {
	return len(w) >= 2 && w[0] >= 'A' && w[0] <= 'Z' && strings.Trim(w[1:], "abcdefghijklmnopqrstuvwxyz") == ""
}

// ticketPass reports whether the value at text[s] follows "pass" after a word naming a ticket
// ("Day pass: summer2024 edition", "season pass: ..."): a ticket, not a password.
func ticketPass(text string, s int) bool {
	i := s
	for i > 0 && s-i < 4 && strings.IndexByte(" \t:=\"'", text[i-1]) >= 0 {
		i--
	}
	if i < 5 || !strings.EqualFold(text[i-4:i], "pass") || IsAlnum(text[i-5]) || text[i-5] == '_' {
		return false
	}
	j := i - 5
	for j > 0 && (text[j] == ' ' || text[j] == '-') {
		j--
	}
	k := j
	for k > 0 && isAlpha(text[k-1]) {
		k--
	}
	return passKinds[strings.ToLower(text[k:j+1])]
}

// formatName reports the name of an algorithm, an encoding or a type with its width or
// version: sha256, base64, utf8, float64, aes256, ipv6, http2, x86_64, win32.
func formatName(v string) bool {
	lo := strings.ToLower(v)
	k := 0
	for k < len(lo) && isLower(lo[k]) {
		k++
	}
	head := lo[:k] // the letters before the first digit or sign: iso-8859-1, aes-256-gcm, Office365
	if (widthTypes[head] || formatWords[head]) && (len(head) >= 2 || strings.Trim(lo[k:], "0123456789") == "") {
		return true // a single letter only before digits alone: x25519, p256, m365
	}
	if i := strings.LastIndexAny(lo, "-_"); i > 0 && proseSuffixes[lo[i+1:]] {
		return true // 2FA-protected, md5-hashed, 12-char
	}
	return false
}

// passwordManagerNames name the password managers: a value after a password's name that
// starts with one names where the password is kept.
var passwordManagerNames = Set("keepass", "keepassxc", "bitwarden", "lastpass", "1password", "dashlane", "keeper", "enpass", "nordpass",
	"protonpass", "roboform", "vaultwarden")

// formatWords start the names of algorithms, formats, languages, systems and products written
// with a version or a width.
var formatWords = Set("md", "crc", "rot", "win", "ed", "bcrypt", "scrypt", "pbkdf", "des", "rc", "ecdh", "hmacsha", "hmac",
	"chacha", "poly", "gzip", "mp", "h", "vp", "av", "ac", "python", "java", "node", "php", "ruby", "lua", "net", "dotnet", "ubuntu",
	"debian", "centos", "windows", "macos", "ios", "android", "office", "microsoft", "m", "outlook", "gsuite", "exchange", "sql",
	"postgres", "postgresql", "mysql", "redis", "gpt", "llama", "claude", "gemini", "arm", "amd", "i", "wpa", "wep", "ipv", "tls", "ssl", "oauth")

// proseSuffixes end compounds of prose joined by a dash: 2FA-protected, 12-char, 90-day.
var proseSuffixes = Set("protected", "enabled", "based", "only", "required", "compatible", "encoded", "encrypted", "hashed", "managed",
	"generated", "specific", "free", "like", "style", "friendly", "safe", "secured", "wide", "level", "char", "chars", "character",
	"characters", "digit", "digits", "letter", "letters", "word", "words", "bit", "bits", "byte", "bytes", "day", "days", "min", "max",
	"long", "length", "factor", "step", "time", "year", "years", "month", "months", "hour", "hours", "minute", "minutes", "sensitive",
	"insensitive", "personal", "enterprise")

// plainPassword reports an ordinary password or one of small words joined by dashes
// (tulipan-harbor-velvet), not a placeholder (xxxx-xxxx-xxxx).
func plainPassword(v string) bool {
	if ordinaryPassword(v) {
		return true
	}
	if !dashedPassword(v) || placeholderWord(v) || maskedValue(v) {
		return false
	}
	for _, w := range strings.Split(v, "-") {
		if proseParts[w] || proseSuffixes[w] {
			return false // read-only-access, well-known-default: a compound of prose
		}
	}
	return true
}

// idShaped is an id of capitals and digits: ORD-2024-11A, INV-00042.
// At most three parts and sixteen characters: a licence key's groups are more.
var idShaped = regexp.MustCompile(`^[A-Z]{2,5}-[0-9]{2,8}(?:-[0-9A-Z]{1,6})?$`)

// spacedProse start a value of several words that is prose: "in the vault", "sent separately".
var spacedProse = Set("in", "on", "at", "not", "see", "sent", "same", "ask", "no", "stored", "kept", "written", "saved", "check",
	"im", "en", "dans", "auf", "na", "w", "v", "siehe", "voir", "ver", "wie", "como", "comme", "igual", "gleich", "dasselbe")

// proseParts are words that compounds of prose are made of and generated passphrases hardly
// hold: read-only-access, rotated-every-quarter, well-known-default.
var proseParts = Set("only", "well", "known", "read", "write", "every", "end", "self", "non", "single", "double", "first", "last", "all",
	"any", "out", "off", "sign", "case", "state", "art", "default", "field", "access", "managed", "stored", "rotated", "changed", "mixed",
	"user", "admin", "email", "name", "same", "ask", "see", "set", "random", "long", "short", "strong", "weak", "secure", "safe", "secret",
	"private", "public", "one", "two", "three", "four", "new", "old", "per", "via", "down", "time", "quarter", "month", "week", "year",
	"key", "token", "vault", "login", "account", "password", "pass", "code", "number", "digit", "letter", "special", "upper", "lower",
	"staging", "prod", "production", "test", "demo", "doc", "docs", "onboarding", "ticket", "team", "shared", "temporary", "temp")

// givenPassword reports a value that a sentence, a form or a call hands over as a password: a
// password of any shape round 14 takes, or an ordinary one.
func givenPassword(v string) bool {
	return (heardPassword(v) || ordinaryPassword(v)) && !formatName(v)
}

// proseValue reports a value after a password's name that is a word of prose or a format's
// name, not a password: "the password is 2FA-protected", "case-sensitive", "iso-8859-1 encoded",
// a password manager's name, a date or a time, a version, an id, a compound of prose words
// (read-only-access), words of prose ('in the vault', 'at least 8 characters').
func proseValue(v string) bool {
	lo := strings.ToLower(v)
	k := 0
	for k < len(lo) && (isLower(lo[k]) || lo[k] == '1' && k == 0) {
		k++
	}
	if passwordManagerNames[lo[:k]] {
		return true // "password manager: Bitwarden2024 plan", "siehe KeePass2"
	}
	if dateShaped(v) && strings.ContainsAny(v, "-/:") && digits(v) >= 4 && digits(v) <= 14 {
		return true // "password: 2026-11-30": when it changed
	}
	if dottedVersion(v) && strings.Count(v, ".") >= 2 || len(v) <= 16 && idShaped.MatchString(v) {
		return true // v2.4.1; ORD-2024-11A, an order's or a ticket's id
	}
	if f := strings.Fields(lo); len(f) >= 2 && len(f) <= 5 && len(v) <= 40 && (spacedProse[f[0]] || phraseStopWords[f[0]] || strings.Contains(lo, "char")) {
		return true // 'in the vault', 'same as before', 'at least 8 characters'
	}
	if parts := strings.Split(v, "-"); len(parts) >= 3 && len(parts) <= 6 && strings.Trim(v, "abcdefghijklmnopqrstuvwxyz-") == "" {
		for _, w := range parts {
			if len(w) <= 2 || proseParts[w] || phraseStopWords[w] || proseSuffixes[w] {
				return true // state-of-the-art, read-only-access: a compound of prose
			}
		}
	}
	if i := strings.LastIndexAny(v, "-_"); i > 0 && strings.Count(v, "-")+strings.Count(v, "_") <= 2 && proseSuffixes[strings.ToLower(v[i+1:])] {
		return true // 2FA-protected, case-sensitive
	}
	return len(v) <= 16 && formatName(v) && !upLowDigit(v) && strings.Trim(v, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_") == ""
}

// trailingCopulas close a sentence after the value in languages that put the verb last: Persian
// "رمز عبور پنل X است", Hindi "पासवर्ड X है", Korean "X 입니다", Japanese "X です".
var trailingCopulas = Set("است", "هست", "است.", "है", "हैं", "है।", "ہے", "hai", "です", "です。", "だ", "입니다", "입니다.", "이에요", "예요", "임",
	"ครับ", "ค่ะ", "นะ", "ni", "dir")

// trailingCopula reports whether the next token of rest is a copula that closes the sentence.
func trailingCopula(rest string) bool {
	f := strings.Fields(rest)
	return len(f) > 0 && trailingCopulas[strings.ToLower(f[0])]
}

// widePunct cuts a token that starts in ASCII where a script other than Latin starts, which CJK
// text writes without a space: "X，用完", "sakura1998です", "nadia18입니다".
func widePunct(tok string) int {
	if tok == "" || tok[0] >= 0x80 {
		return -1
	}
	for k, r := range tok {
		if otherScript(r) {
			return k
		}
	}
	return -1
}

// otherScript reports a letter or a sign of a script other than Latin (Greek and beyond, but not
// Vietnamese's Latin letters): where a Latin value glued to it ends or starts.
func otherScript(r rune) bool {
	return r >= 0x370 && !(r >= 0x1E00 && r <= 0x1EFF) && r != '’' && r != '“' && r != '”' && r != '…' && r != '—' && r != '–' && r != '€'
}

// wifiWords name a wireless network: a key word beside one names its password ("la clave del wifi").
var wifiWords = Set("wifi", "wi", "wlan", "wpa", "wpa2", "wpa3", "router", "hotspot", "ssid", "red", "rede", "reseau", "netzwerk")

// yamlTags stand for a value rather than holding it: an Ansible Vault block (!vault |), a Home
// Assistant secret (!secret name), CloudFormation's functions, an environment lookup.
var yamlTags = Set("!vault", "!secret", "!env", "!env_var", "!ENV", "!Ref", "!Sub", "!GetAtt", "!ImportValue", "!include", "!FindInMap", "!Join", "!Select")

// yamlTagValue reports a value at text[s:e] that is a YAML tag followed by a space, a block
// scalar or the line's end.
func yamlTagValue(text string, s, e int) bool {
	if text[s] != '!' {
		return false
	}
	k := s + 1
	for k < len(text) && (IsAlnum(text[k]) || text[k] == '_') {
		k++
	}
	return yamlTags[text[s:k]] && (k == len(text) || strings.IndexByte(" \t\n|>", text[k]) >= 0)
}

var (
	// "use X to get in", "try X to log in", "usa X para entrar", "nutze X zum Einloggen": a value
	// used to get in.
	useToGetIn = regexp.MustCompile(`(?i)\b(?:use|try|enter|type|with|usa|utilise|utilisez|nutze|nimm|benutze|prova|gebruik|probeer)[ \t]+["'“«]?([^\s"'”»,]{6,40})["'”»]?[ \t]+` +
		`(?:(?:to|for)[ \t]+(?:get(?:ting)?[ \t]+in|log(?:ging)?[ \t]?in|login|sign(?:ing)?[ \t]?in|access|unlock|connect)` +
		`|para[ \t]+(?:entrar|acceder|acessar|iniciar[ \t]+sesi[oó]n|logar)|pour[ \t]+(?:te|vous)[ \t]+connecter|pour[ \t]+entrer` +
		`|zum[ \t]+(?:einloggen|anmelden)|um[ \t]+dich[ \t]+(?:einzuloggen|anzumelden)|per[ \t]+(?:entrare|accedere)|om[ \t]+(?:in[ \t]+te[ \t]+loggen|binnen[ \t]+te[ \t]+komen))\b`)
	// A value alone, or tried, on one line, and the next line says what it opens: "try X\nthat's
	// the wifi one".
	namedNextLine = regexp.MustCompile(`(?im)^[ \t]*(?:(?:try|use|type|enter|it'?s|its|prueba|usa|essaie|probier)[ \t]+)?["'“]?([^\s"'”]{6,40})["'”]?[ \t]*\n[ \t]*` +
		`(?:that'?s|thats|that is|it'?s|this is|esa es|es la|es el|c'est|das ist|é a|é o|è la|è il)[ \t]+` +
		`(?:the|my|our|your|for the|la|el|le|das|der|die|a|o|il|mon|mi|mein|meine)?[ \t]*[^\n]{0,30}?` +
		`\b(?:one|password|pass|passcode|pw|pwd|login|wifi|wi-fi|wlan|clave|contraseña|mot de passe|mdp|passwort|kennwort|senha|del wifi|du wifi)\b`)
	// A password spoken in the sentence that names it: "the password, I'll read it out, it's X".
	spokenIts = regexp.MustCompile(`(?i)\b(?:password|passcode|passphrase|passwort|pw|pwd|pin)\b[^\n.?!]{0,60}?\b(?:it'?s|it’s|it is)[ \t]+["'“]?([^\s,"'”]{6,40})`)
	// A user and a password joined by a slash or a plus: "amara / chelse@64", "root + Zorro12".
	pairJoin = regexp.MustCompile(`(?:^|[\s(:,>])([A-Za-z][A-Za-z0-9._@-]{1,40})[ \t]+([/+])[ \t]+([^\s<,;]{6,64})`)
	// A login label, a user's name and the password after it on the line: "login: admin Zorro12".
	loginUserPass = regexp.MustCompile(`(?im)\b(?:login|logon|user|username|usuario|utilisateur|benutzer|account)[ \t]*:[ \t]*([A-Za-z][A-Za-z0-9._@-]{1,40})[ \t]+([^\s]{8,64})[ \t]*$`)
	// A chat's question about a password and the next turn's answer alone, the speaker named
	// after a time stamp in brackets or an export's date and time, in angle brackets, or before
	// a time in brackets (ana (14:06):).
	chatTurnAnswer = regexp.MustCompile(`(?m)^[^\n]*\?[ \t]*\n(?:\[[^\]\n]{1,32}\][ \t]*)?` +
		`(?:[0-9]{1,4}[/.-][0-9]{1,2}[/.-][0-9]{1,4},?[ \t]+[0-9]{1,2}:[0-9]{2}(?::[0-9]{2})?(?:[ \t]?[AaPp][Mm])?[ \t]+-[ \t]+)?` +
		`(?:<[^>\n]{1,32}>|[^\n:\[\]<>]{1,40}(?:[ \t]*[\[(][0-9:.]{3,8}[\])])?:)[ \t]*([^\s]{6,64})[ \t]*$`)
	// Short and colloquial names for a password that count only before a colon: Spanish "contra:".
	colonPassword = regexp.MustCompile(`(?im)(?:^|[\s(])(?:contra|contr|psswd|passw|kennw|wachtw)[ \t]*:[ \t]*["']?([^\s"',]{6,64})`)
)

// loginContext names getting into an account, in many languages: a pair of user and password
// after one of these is a login.
var loginContext = []string{"login", "log in", "usuario", "utilisateur", "benutzer", "user:", "username", "logging in", "logged in", "sign in", "signed in", "account", "access", "credential",
	"creds", "identifiant", "zugang", "anmeld", "credenciales", "credenciais", "acceso", "acesso", "accesso", "cuenta", "conta", "compte",
	"konto", "ssh", "admin", "root", "panel", "dashboard", "staging", "cpanel", "wp-admin", "server", "vps", "portal",
	"логин", "учетн", "учётн", "аккаунт", "вход", "账号", "帐号", "賬號", "登录", "登入", "アカウント", "ログイン", "계정", "로그인", "حساب", "ورود", "כניסה", "חשבון"}

// pairWords are words a slash or a plus joins that are no user's name: "read / write", "yes / no".
var pairWords = Set("read", "write", "yes", "no", "on", "off", "in", "out", "and", "or", "true", "false", "input", "output", "buy", "sell",
	"up", "down", "left", "right", "before", "after", "old", "new", "min", "and/or", "either", "c", "cpp", "java", "page", "item")

// namingStarts start a line that names the value on the line before it: "that's the wifi one".
var namingStarts = []string{"that", "it", "this", "esa ", "es ", "c'est", "das ist", "é ", "è "}

// getInWords end the phrasings of a value used to get in.
var getInWords = []string{" get in", " getting in", " log in", " login", " logging in", " sign in", " signin", " signing in", " access",
	" unlock", " connect", " entrar", " acceder", " acessar", " iniciar", " logar", " entrer", " einloggen", " anmelden", " einzuloggen",
	" anzumelden", " entrare", " accedere", " loggen", " komen"}

// mayWords keeps the words whose every pair of bytes the text holds: the others are not in it.
func mayWords(pairs *bytePairs, words []string) []string {
	var out []string
	for _, w := range words {
		if pairs.may(w) {
			out = append(out, w)
		}
	}
	return out
}

// anyPrefix reports whether s starts with one of ps.
func anyPrefix(s string, ps []string) bool {
	for _, p := range ps {
		if strings.HasPrefix(s, p) {
			return true
		}
	}
	return false
}

// findSpokenRound15 reports passwords that speech, chat and messages give without a password
// word right before them: used to get in, named by the next line, spoken as "it's X", a user
// and password pair after a login word, a login label's user then password, the answer on the
// next chat turn, and Spanish "contra:".
func findSpokenRound15(text, lo string, pairs *bytePairs) []found {
	var out []found
	keep := func(s, e int, ok func(string) bool) {
		if v := text[s:e]; ok(v) && !notSecretHere(text, s, e) {
			out = append(out, found{s, e, SecretPassword})
		}
	}
	add := func(s, e int, ok func(string) bool) {
		keep(s, s+len(strings.TrimRight(text[s:e], ".!?…—")), ok) // the sentence's stop is not the password's
	}
	if has(lo, pairs, " to ") || has(lo, pairs, " for ") || has(lo, pairs, " para ") || has(lo, pairs, " pour ") || has(lo, pairs, " zum ") ||
		has(lo, pairs, " um ") || has(lo, pairs, " per ") || has(lo, pairs, " om ") {
		for _, m := range nearMatches(useToGetIn, text, lo, mayWords(pairs, getInWords), false, 20, anyRest) {
			keep(m[2], m[3], givenPassword) // a word follows: a sign at the end is the password's
		}
	}
	if has(lo, pairs, "\n") {
		for from := 0; ; {
			k := strings.IndexByte(text[from:], '\n')
			if k < 0 {
				break
			}
			nl := from + k
			from = nl + 1
			rest := strings.TrimLeft(lo[from:min(len(lo), from+12)], " \t")
			if !anyPrefix(rest, namingStarts) {
				continue
			}
			ls := strings.LastIndexByte(text[:nl], '\n') + 1
			if m := namedNextLine.FindStringSubmatchIndex(text[ls:lineEnd(text, from)]); m != nil {
				add(ls+m[2], ls+m[3], givenPassword)
			}
		}
	}
	if has(lo, pairs, "it") && (has(lo, pairs, "pass") || has(lo, pairs, "pw") || has(lo, pairs, "pin")) {
		for _, m := range nearMatches(spokenIts, text, lo, []string{"pass", "pw", "pin"}, false, 120, anyRest) {
			add(m[2], m[3], plainPassword)
		}
	}
	if (has(lo, pairs, " / ") || has(lo, pairs, " + ")) && anyIn(lo, loginContext) {
		for _, m := range pairJoin.FindAllStringSubmatchIndex(text, -1) {
			u := text[m[2]:m[3]]
			if !userArg(u) || pairWords[strings.ToLower(u)] || digits(u) == len(u) {
				continue
			}
			ctx := strings.ToLower(text[max(0, m[0]-160):m[0]])
			if text[m[4]] == '+' && (!anyIn(ctx+strings.ToLower(text[m[1]:min(len(text), m[1]+40)]), loginContext) ||
				strings.ContainsAny(text[strings.LastIndexByte(text[:m[0]+1], '\n')+1:lineEnd(text, m[0])], "=(){}")) {
				continue // a sum in code: pos + strings.Index(...)
			}
			if !anyIn(ctx, loginContext) && !anyIn(strings.ToLower(u), []string{"admin", "root", "ops", "dev"}) {
				continue
			}
			add(m[6], m[7], func(v string) bool {
				return v[0] != '#' && !strings.ContainsAny(v, "()[]{}") && (givenPassword(v) || signedStart(v))
			})
		}
	}
	if has(lo, pairs, ":") {
		for _, m := range nearMatches(loginUserPass, text, lo, mayWords(pairs, []string{"login", "logon", "user", "usuario", "utilisateur", "benutzer", "account"}), false, 120, anyRest) {
			if v := text[m[4]:m[5]]; upLowDigit(v) && (secretArg(v) || ordinaryPassword(v)) || signedStart(v) {
				add(m[4], m[5], func(string) bool { return true })
			}
		}
	}
	if has(lo, pairs, "?") && anyIn(lo, []string{"password", "passcode", "pw", "pwd", "pass", "which one", "wifi"}) {
		for _, m := range chatTurnAnswer.FindAllStringSubmatchIndex(text, -1) {
			q := lo[m[0]:min(len(lo), m[2])]
			if nl := strings.IndexByte(q, '\n'); nl >= 0 && anyIn(q[:nl], []string{"password", "passcode", " pw", "pwd", " pass", "wifi"}) {
				add(m[2], m[3], func(v string) bool { return dashedPassword(v) || ordinaryPassword(v) || upLowDigit(v) && secretArg(v) })
			}
		}
	}
	if has(lo, pairs, ":") && (has(lo, pairs, "contr") || has(lo, pairs, "psswd") || has(lo, pairs, "passw") || has(lo, pairs, "kennw") || has(lo, pairs, "wachtw")) {
		for _, m := range colonPassword.FindAllStringSubmatchIndex(text, -1) {
			add(m[2], m[3], givenPassword)
		}
	}
	return out
}

// signedStart reports a generated password that starts with a sign a mask or a reference starts
// with (-Y*LYsqGnCxK5zKG62X): twelve characters or more, capitals, small letters, digits and
// another sign (a hashtag or a mention holds none).
func signedStart(v string) bool {
	return len(v) >= 12 && strings.IndexByte("-*@", v[0]) >= 0 && v[1] != v[0] && upLowDigit(v) && entropy(v) >= 3.3 && !strings.Contains(v, "**") &&
		strings.IndexFunc(v[1:], isSymbol) >= 0
}

var (
	// A setter or a builder given the password: setPassword("..."), .password("..."),
	// withPassword("..."), set_password("...").
	passwordSetter = regexp.MustCompile(`(?i)(?:^|[^A-Za-z0-9_])(?:set_?|with_?)?(?:password|passwd|passphrase|pass_phrase)[ \t]*\([ \t]*["']([^"'\n]{6,128})["'][ \t]*\)`)
	// A key for signing given as a literal in code: Go's name := []byte("..."), hmac.New(h,
	// []byte("...")), Python's KEY = b"...", hmac.new(b"..."), Node's createHmac(alg, "..."),
	// Java's new SecretKeySpec("...".getBytes(), ...), a JWT's SignedString([]byte("...")), Rust's
	// new_from_slice(b"..."), PHP's hash_hmac(alg, data, "..."), Ruby's OpenSSL::HMAC.x(alg, "...").
	signingKey = regexp.MustCompile(`\b([A-Za-z_][A-Za-z0-9_]*)[ \t]*(?::=|=)[ \t]*\[\]byte\([ \t]*"([^"\n]{12,256})"[ \t]*\)` +
		`|\bhmac\.New\([^,\n]{1,40},[ \t]*\[\]byte\([ \t]*"([^"\n]{12,256})"` +
		`|\b([A-Za-z_][A-Za-z0-9_]*)[ \t]*=[ \t]*b["']([^"'\n]{12,256})["']` +
		`|\bhmac\.new\([ \t]*b["']([^"'\n]{12,256})["']` +
		`|\bcreateHmac\([ \t]*["'][A-Za-z0-9-]{3,12}["'][ \t]*,[ \t]*["']([^"'\n]{12,256})["']` +
		`|\bnew[ \t]+SecretKeySpec\([ \t]*"([^"\n]{12,256})"[ \t]*\.getBytes` +
		`|\b(?:SignedString|Sign|NewHMAC|new_from_slice|from_slice)\([ \t]*(?:\[\]byte\([ \t]*"|b")([^"\n]{12,256})"` +
		`|\bhash_hmac\([ \t]*['"][A-Za-z0-9-]{3,12}['"][ \t]*,[^,\n]{1,60},[ \t]*['"]([^'"\n]{12,256})['"]` +
		`|\bOpenSSL::HMAC\.[a-z]+\([ \t]*['"][A-Za-z0-9-]{3,12}['"][ \t]*,[ \t]*['"]([^'"\n]{12,256})['"]`)
	// A value echoed into a command that reads a password from its input: sudo -S, passwd
	// --stdin, --password-stdin, --passwd-on-stdin, kinit, cryptsetup.
	echoedPassword = regexp.MustCompile(`\b(?:echo|printf)[ \t]+(?:-[ne]+[ \t]+)?(?:"([^"\n$]{4,128}?)(?:\\n)?"|'([^'\n]{4,128}?)(?:\\n)?'|([^\s"'|$;&]{4,128}))[ \t]*\|[ \t]*` +
		`(?:sudo[ \t]+(?:-[A-Za-z]+[ \t]+)*-[A-Za-z]*S\b|passwd[ \t]+--stdin|[A-Za-z0-9_.-]+[ \t][^\n|;]*--(?:password|passwd)-(?:on-)?stdin|kinit\b|cryptsetup\b)`)
	// sshpass's password flag.
	sshpassFlag = regexp.MustCompile(`\bsshpass[ \t]+-p[ \t]*(?:"([^"\n]{1,128})"|'([^'\n]{1,128})'|([^\s"']{1,128}))`)
)

// loginCallWords are words in a call's name that say it checks or opens a login: the password
// follows the user's name among its strings.
var loginCallWords = []string{"login", "logon", "signin", "sign_in", "authenticat", "auth", "credential", "bind", "connect",
	"create_user", "createuser", "create_superuser", "add_user", "adduser", "signup", "sign_up", "register_user", "registeruser"}

// findCodeRound15 reports passwords and keys in code: a password after a user's name among the
// strings of a call whose name says login, auth, credential, bind or connect (auth.Check("u",
// "..."), new NetworkCredential("u", "..."), conn.simple_bind_s(dn, "...")), a password given to
// a setter or a builder, a signing key written as a literal, a value echoed into a command that
// reads a password from its input, sshpass's -p.
func findCodeRound15(text, lo string, pairs *bytePairs) []found {
	var out []found
	if pairs.may("(") && strings.ContainsAny(text, "\"'") {
		for _, w := range loginCallWords {
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
				k := from
				for k < len(lo) && k-at < 40 && (isLower(lo[k]) || IsDigit(lo[k]) || lo[k] == '_' || lo[k] == '.') {
					k++ // auth.Check(: the word may name the receiver
				}
				if k >= len(lo) || lo[k] != '(' {
					continue
				}
				s := at
				for s > 0 && (isLower(lo[s-1]) || IsDigit(lo[s-1]) || lo[s-1] == '_' || lo[s-1] == '.') {
					s--
				}
				name := lo[s:k]
				if anyIn(name, []string{"mock", "fake", "stub", "hash", "valid", "strength", "policy", "encrypt", "assert", "expect", "lookup", "delete"}) ||
					anyIn(name, []string{"token", "key", "secret"}) && !anyIn(name, []string{"password", "credential"}) {
					continue // a lookup of a token (auth.GetToken("svc", "scope")); UsernamePasswordAuthenticationToken holds one
				}
				args := callArgs(text, k+1, 0)
				for n := 0; n < len(args); n++ {
					v := text[args[n][0]:args[n][1]]
					if !ordinaryPassword(v) && !secretArg(v) && !dashedPassword(v) {
						continue
					}
					user := ""
					if n > 0 && adjacentArgs(text, args[n-1][1], args[n][0]) {
						user = strings.ToLower(text[args[n-1][0]:args[n-1][1]])
					}
					byName := userVariable(text, k+1, args[n][0]-1)
					switch {
					case w == "connect" && !hostAround(text, args, n) && !anyIn(lo[k+1:args[n][0]], []string{"url", "host", "dsn", "server", "addr"}):
						continue // a connect call names its host besides the user (mqtt.connect(host, clientID) does not)
					case w == "bind" && !byName && !strings.HasPrefix(user, "cn=") && !strings.HasPrefix(user, "uid="):
						continue // a bind's user is a directory name: bind_s("cn=admin,...", "...")
					}
					if user != "" && userArg(user) || byName {
						out = append(out, found{args[n][0], args[n][1], SecretPassword})
						break
					}
				}
			}
		}
	}
	if has(lo, pairs, "pass") {
		for _, m := range nearMatches(passwordSetter, text, lo, []string{"password(", "passwd(", "passphrase(", "pass_phrase("}, false, 160, anyRest) {
			if v := text[m[2]:m[3]]; givenPassword(v) || secretArg(v) {
				out = append(out, found{m[2], m[3], SecretPassword})
			}
		}
	}
	if has(lo, pairs, "byte(\"") || has(lo, pairs, "hmac") || has(lo, pairs, "= b") || has(lo, pairs, "=b") || has(lo, pairs, "secretkeyspec") || has(lo, pairs, "slice(b") {
		for _, m := range signingKey.FindAllStringSubmatchIndex(text, -1) {
			for g := 2; 2*g+1 < len(m); g++ {
				if m[2*g] < 0 || g == 4 {
					continue
				}
				name := ""
				if g == 2 {
					name = text[m[2]:m[3]]
				} else if g == 5 {
					name = text[m[8]:m[9]]
				}
				if (g == 2 || g == 5) && !keyName(name) {
					continue
				}
				if v := text[m[2*g]:m[2*g+1]]; !placeholderWord(v) && entropy(v) >= 3.3 && !strings.ContainsAny(v, " {$%") && classes(v) >= 2 {
					out = append(out, found{m[2*g], m[2*g+1], SecretAPIKey})
				}
			}
		}
	}
	if (has(lo, pairs, "echo") || has(lo, pairs, "printf")) && has(lo, pairs, "|") && (has(lo, pairs, "sudo") || has(lo, pairs, "stdin") || has(lo, pairs, "kinit") || has(lo, pairs, "cryptsetup")) {
		for _, m := range echoedPassword.FindAllStringSubmatchIndex(text, -1) {
			for g := 1; g <= 3; g++ {
				if m[2*g] >= 0 {
					if v := text[m[2*g]:m[2*g+1]]; !placeholderWord(v) && !secretRef(v) && !strings.ContainsAny(v, "({[`") && (givenPassword(v) || len(v) >= 6 && letters(v) > 0 && digits(v) > 0) {
						out = append(out, found{m[2*g], m[2*g+1], SecretPassword})
					}
				}
			}
		}
	}
	if has(lo, pairs, "sshpass") {
		for _, m := range sshpassFlag.FindAllStringSubmatchIndex(text, -1) {
			for g := 1; g <= 3; g++ {
				if m[2*g] >= 0 {
					if v := text[m[2*g]:m[2*g+1]]; len(v) >= 4 && !strings.HasPrefix(v, "$") && !placeholderWord(v) && !secretRef(v) && !strings.ContainsAny(v, "({[") {
						out = append(out, found{m[2*g], m[2*g+1], SecretPassword})
					}
				}
			}
		}
	}
	return out
}

// userVariable reports whether the argument right before the string that opens at text[q] is a
// variable naming a user (smtp.login(sender_email, "..."), ldap.bind(bind_dn, "...")): a name
// holding user, login, email, account, dn or name, after the call's parenthesis at text[open]
// or a comma.
func userVariable(text string, open, q int) bool {
	c := strings.LastIndexByte(text[open:q], ',')
	if c < 0 {
		return false
	}
	prev := strings.TrimSpace(text[open : open+c])
	if p := strings.LastIndexByte(prev, ','); p >= 0 {
		prev = strings.TrimSpace(prev[p+1:])
	}
	if !identifier(strings.ReplaceAll(prev, ".", "_")) || strings.Trim(text[open+c+1:q], " \t") != "" {
		return false
	}
	var buf []lword
	for _, w := range lineWords(prev, strings.ToLower(prev), &buf) {
		switch w.w {
		case "user", "username", "usr", "login", "email", "mail", "account", "dn", "uid", "name", "principal", "sender":
			return true
		}
	}
	return false
}

// keyName reports a name in code for a key that signs or a secret: webhookKey, HMAC_SECRET,
// signing_key; not a public key's, an id's or a cache key's.
func keyName(name string) bool {
	var buf []lword
	ws := lineWords(name, strings.ToLower(name), &buf)
	secret := false
	for _, w := range ws {
		if keyQualifiers[w.w] || w.w == "pub" || w.w == "public" {
			return false
		}
		secret = secret || w.w == "key" || w.w == "secret" || w.w == "token" || w.w == "hmac"
	}
	return secret
}

var (
	// A Solana secret key in base58: 64 bytes, like a transaction's signature.
	solanaSecret = regexp.MustCompile(`\b[1-9A-HJ-NP-Za-km-z]{86,88}\b`)
	// A Nostr secret key.
	nostrSecret = regexp.MustCompile(`\bnsec1[02-9ac-hj-np-z]{58}\b`)
)

// solanaKeyWords name a wallet's secret on the line before a Solana secret key; signatureWords
// name a signature, which has the same shape.
var (
	solanaKeyWords = []string{"export", "private", "secret", "keypair", "phantom", "solflare", "backpack", "import", "wallet key", "seed",
		"privad", "privat", "privé", "privee", "priv", "секрет", "приват", "私钥", "私鑰", "秘密鍵", "개인 키", "개인키", "exporta", "segreta"}
	signatureWords = []string{"signature", "sig ", "sig:", "txid", "tx ", "tx:", "transaction", "signed", "solscan", "explorer", "hash",
		"firma", "signatur", "подпись", "签名", "транзакц", "transacci", "transaç"}
)

// findKeysRound15 reports a Solana secret key in base58 where its line names a wallet's export or
// a secret and no signature, and a Nostr nsec key whose bech32 checksum holds.
func findKeysRound15(text, lo string, pairs *bytePairs) []found {
	var out []found
	if base58Word(text, 86, 88, "") && anyIn(lo, solanaKeyWords) {
		for _, m := range solanaSecret.FindAllStringIndex(text, -1) {
			ls := strings.LastIndexByte(lo[:m[0]], '\n') + 1
			before := lo[max(ls, m[0]-120):m[0]]
			if anyIn(before, solanaKeyWords) && !anyIn(before, signatureWords) && len(base58Decode(text[m[0]:m[1]], btcAlphabet)) == 64 {
				out = append(out, found{m[0], m[1], SecretWalletKey})
			}
		}
	}
	if has(lo, pairs, "nsec1") {
		for _, m := range nostrSecret.FindAllStringIndex(text, -1) {
			if bech32Sum(text[m[0]:m[1]]) {
				out = append(out, found{m[0], m[1], SecretPrivateKey})
			}
		}
	}
	return out
}

// bech32Sum checks the checksum of a bech32 string whatever its prefix.
func bech32Sum(w string) bool {
	sep := strings.LastIndexByte(w, '1')
	if sep < 1 {
		return false
	}
	hrp := w[:sep]
	exp := make([]int, 0, 2*len(hrp)+1+len(w)-sep-1)
	for i := 0; i < len(hrp); i++ {
		exp = append(exp, int(hrp[i]>>5))
	}
	exp = append(exp, 0)
	for i := 0; i < len(hrp); i++ {
		exp = append(exp, int(hrp[i]&31))
	}
	for i := sep + 1; i < len(w); i++ {
		d := strings.IndexByte(bech32Charset, w[i])
		if d < 0 {
			return false
		}
		exp = append(exp, d)
	}
	pm := bech32Polymod(exp)
	return pm == 1 || pm == 0x2bc830a3
}

// findRound15 gathers round 15's finders.
func findRound15(text, lo string, pairs *bytePairs) []found {
	if len(lo) != len(text) {
		return findSpokenWide(text)
	}
	out := findSpokenRound15(text, lo, pairs)
	out = append(out, findCodeRound15(text, lo, pairs)...)
	return append(out, findKeysRound15(text, lo, pairs)...)
}

// findSpokenWide is findRound15 for a text whose lower case changes its length: the Nostr keys,
// which need no lower case.
func findSpokenWide(text string) []found {
	var out []found
	if strings.Contains(text, "nsec1") {
		for _, m := range nostrSecret.FindAllStringIndex(text, -1) {
			if bech32Sum(text[m[0]:m[1]]) {
				out = append(out, found{m[0], m[1], SecretPrivateKey})
			}
		}
	}
	return out
}

// generatedCell reports a cell under a password column that reads as generated though it holds
// no digit: capitals and small letters mixed inside the words, joined by a sign
// (OGaerTs_ovt_I): eight characters or more, two capitals after the first letter, one of them
// right after a small letter (not Seed-Phrase-Backup).
func generatedCell(v string) bool {
	hump := false
	for i := 1; i < len(v); i++ {
		hump = hump || isLower(v[i-1]) && v[i] >= 'A' && v[i] <= 'Z'
	}
	return len(v) >= 8 && len(v) <= 64 && !strings.ContainsAny(v, " \t") && innerCapitals(v) >= 2 && hump &&
		strings.ContainsAny(v, "_-.!#$%&*+=?~@") && !placeholderWord(v) && entropy(v) >= 3
}
