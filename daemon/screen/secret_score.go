package screen

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// A scorer of credentials by context and shape, beside the rules written for each kind: a word
// naming a credential, then within a few tokens on its line a value whose shape reads as a
// password or a generated key. The words are one lexicon for every language, matched on word
// parts (SECRET_KEY, X-oktaApiToken, algolia_admin_key) with diacritics folded and a typo or two
// allowed in long words (paswrod, passwrd, contrasena), not a rule per language or per miss. The
// value decides more than the word: a password needs three kinds of character or words joined
// with digits, a key sixteen or more varied characters; placeholders, masks, hashes, addresses,
// ids and references never pass.

// Kinds of credential word.
const (
	wordPassword = iota + 1 // the value is a password
	wordLogin               // a user's name comes first: the value is the password after it
	wordKey                 // the value is a key, token or secret
)

type credWord struct {
	w    string
	kind int
}

// credLexicon holds the words, folded to lower case without diacritics; several words are
// written with a space. Words in scripts other than Latin are looked for as they are written.
var credLexicon = []credWord{
	// passwords
	{"password", wordPassword}, {"passwort", wordPassword}, {"pass", wordPassword}, {"passwd", wordPassword}, {"pwd", wordPassword}, {"pw", wordPassword},
	{"passcode", wordPassword}, {"passphrase", wordPassword}, {"kennwort", wordPassword},
	{"pword", wordPassword}, {"pswd", wordPassword}, {"psw", wordPassword}, {"pass word", wordPassword},
	{"contrasena", wordPassword}, {"contrasenya", wordPassword}, {"senha", wordPassword}, {"parola", wordPassword},
	{"haslo", wordPassword}, {"heslo", wordPassword}, {"sifre", wordPassword}, {"sifresi", wordPassword},
	{"lozinka", wordPassword}, {"jelszo", wordPassword}, {"losenord", wordPassword}, {"wachtwoord", wordPassword},
	{"adgangskode", wordPassword}, {"passord", wordPassword}, {"salasana", wordPassword}, {"geslo", wordPassword},
	{"parool", wordPassword}, {"mot de passe", wordPassword}, {"mdp", wordPassword}, {"mat khau", wordPassword},
	{"kata sandi", wordPassword}, {"kata sandinya", wordPassword}, {"requirepass", wordPassword}, {"masterauth", wordPassword}, {"katalaluan", wordPassword}, {"nenosiri", wordPassword},
	{"kalmar sirri", wordPassword}, {"kalmar wucewa", wordPassword}, {"kalmar shiga", wordPassword},
	{"lykilord", wordPassword}, {"wifi key", wordPassword}, {"wpa key", wordPassword}, {"wpa2 key", wordPassword},
	{"пароль", wordPassword}, {"пароля", wordPassword}, {"гасло", wordPassword}, {"лозинка", wordPassword},
	{"كلمة المرور", wordPassword}, {"كلمة السر", wordPassword}, {"رمز عبور", wordPassword}, {"گذرواژه", wordPassword},
	{"پسورد", wordPassword}, {"پاسورد", wordPassword}, {"پاس ورڈ", wordPassword}, {"پاسورڈ", wordPassword},
	{"पासवर्ड", wordPassword}, {"পাসওয়ার্ড", wordPassword}, {"密码", wordPassword}, {"密碼", wordPassword},
	{"口令", wordPassword}, {"パスワード", wordPassword}, {"暗証番号", wordPassword}, {"비밀번호", wordPassword},
	{"비번", wordPassword}, {"암호", wordPassword}, {"รหัสผ่าน", wordPassword}, {"סיסמה", wordPassword},
	{"סיסמא", wordPassword}, {"κωδικός", wordPassword},
	{"парола", wordPassword}, {"kata laluan", wordPassword}, {"slaptazodis", wordPassword}, {"salasona", wordPassword},
	{"zaporka", wordPassword}, {"fjalekalimi", wordPassword}, {"fjalekalim", wordPassword}, {"pasahitza", wordPassword},
	{"contrasinal", wordPassword}, {"cyfrinair", wordPassword}, {"pasfhocal", wordPassword}, {"wagwoord", wordPassword},
	{"parol", wordPassword}, {"parolasi", wordPassword}, {"პაროლი", wordPassword}, {"գաղտնաբառ", wordPassword},
	{"құпия сөз", wordPassword}, {"нууц үг", wordPassword}, {"கடவுச்சொல்", wordPassword}, {"የይለፍ ቃል", wordPassword},
	// round 15: inflections and the languages and scripts still missing. Words in other scripts
	// are found inside longer words, so a stem takes its inflections (парол: пароль, пароля,
	// паролем, парола, паролата).
	{"hasla", wordPassword}, {"haslem", wordPassword}, {"hesla", wordPassword}, {"heslem", wordPassword}, {"hesle", wordPassword},
	{"sifreniz", wordPassword}, {"sifren", wordPassword}, {"sifrem", wordPassword}, {"sifreyi", wordPassword},
	{"lozinku", wordPassword}, {"lozinke", wordPassword}, {"jelszava", wordPassword}, {"jelszavam", wordPassword}, {"jelszavad", wordPassword},
	{"jelszot", wordPassword}, {"salasanan", wordPassword}, {"salasanasi", wordPassword}, {"salasanani", wordPassword},
	{"adgangskoden", wordPassword}, {"kodeord", wordPassword}, {"kodeordet", wordPassword}, {"passordet", wordPassword},
	{"losenordet", wordPassword}, {"lykilordid", wordPassword}, {"parooli", wordPassword}, {"paroli", wordPassword},
	{"slaptazodi", wordPassword}, {"slaptazodzio", wordPassword}, {"gesla", wordPassword}, {"zaporku", wordPassword},
	{"wachtwoorden", wordPassword}, {"sandi", wordPassword}, {"sandinya", wordPassword}, {"nywila", wordPassword},
	{"contrasenas", wordPassword}, {"contrasenya", wordPassword}, {"parolei", wordPassword}, {"parolele", wordPassword},
	{"passwortes", wordPassword}, {"kennworts", wordPassword}, {"motdepasse", wordPassword},
	{"парол", wordPassword}, {"лозинк", wordPassword}, {"гасл", wordPassword}, {"сыр сөз", wordPassword},
	{"סיסמ", wordPassword}, {"κωδικό", wordPassword}, {"κωδικού", wordPassword}, {"συνθηματικό", wordPassword},
	{"كلمه المرور", wordPassword}, {"كلمة مرور", wordPassword}, {"كلمة سر", wordPassword}, {"الرقم السري", wordPassword}, {"رمز المرور", wordPassword},
	{"باسورد", wordPassword}, {"باسوورد", wordPassword}, {"رمز ورود", wordPassword}, {"کلمه عبور", wordPassword}, {"رمزعبور", wordPassword},
	{"พาสเวิร์ด", wordPassword}, {"รหัส wifi", wordPassword}, {"รหัสwifi", wordPassword}, {"รหัสไวไฟ", wordPassword}, {"รหัส wi-fi", wordPassword}, {"패스워드", wordPassword}, {"비밀 번호", wordPassword}, {"密碼是", wordPassword},
	{"ਪਾਸਵਰਡ", wordPassword}, {"પાસવર્ડ", wordPassword}, {"పాస్‌వర్డ్", wordPassword}, {"పాస్వర్డ్", wordPassword}, {"ಪಾಸ್‌ವರ್ಡ್", wordPassword},
	{"ಪಾಸ್ವರ್ಡ್", wordPassword}, {"പാസ്‌വേഡ്", wordPassword}, {"പാസ്വേഡ്", wordPassword}, {"කුරපදය", wordPassword}, {"මුරපදය", wordPassword},
	{"စကားဝှက်", wordPassword}, {"ពាក្យសម្ងាត់", wordPassword}, {"ລະຫັດຜ່ານ", wordPassword}, {"গোপন নম্বর", wordPassword}, {"पासवर्ड", wordPassword},
	{"कूटशब्द", wordPassword}, {"गुप्तशब्द", wordPassword},
	// a user's name, then the password
	{"login", wordLogin}, {"log in", wordLogin}, {"logon", wordLogin}, {"sign in", wordLogin}, {"user", wordLogin},
	{"username", wordLogin}, {"usuario", wordLogin}, {"utilisateur", wordLogin}, {"benutzer", wordLogin},
	{"creds", wordLogin}, {"credentials", wordLogin}, {"zugangsdaten", wordLogin}, {"identifiants", wordLogin},
	{"credenciales", wordLogin}, {"credenciais", wordLogin}, {"sunan mai amfani", wordLogin},
	{"아이디", wordLogin}, {"用户名", wordLogin}, {"用戶名", wordLogin}, {"ユーザー", wordLogin}, {"логин", wordLogin},
	{"пользователь", wordLogin}, {"اسم المستخدم", wordLogin}, {"نام کاربری", wordLogin},
	{"identifiant", wordLogin}, {"anmeldedaten", wordLogin}, {"logindaten", wordLogin}, {"inloggning", wordLogin}, {"kullanici", wordLogin},
	{"nazwa uzytkownika", wordLogin}, {"uzivatel", wordLogin}, {"felhasznalo", wordLogin}, {"kayttaja", wordLogin}, {"brugernavn", wordLogin},
	{"brukernavn", wordLogin}, {"anvandarnamn", wordLogin}, {"gebruikersnaam", wordLogin}, {"nome utente", wordLogin}, {"utente", wordLogin},
	{"tendangnhap", wordLogin}, {"ten dang nhap", wordLogin}, {"nama pengguna", wordLogin}, {"用户", wordLogin}, {"账号", wordLogin}, {"帳號", wordLogin},
	{"계정", wordLogin}, {"ชื่อผู้ใช้", wordLogin}, {"שם משתמש", wordLogin}, {"όνομα χρήστη", wordLogin}, {"користувач", wordLogin},
	// keys, tokens, secrets
	{"key", wordKey}, {"keys", wordKey}, {"token", wordKey}, {"auth", wordKey}, {"secret", wordKey}, {"apikey", wordKey},
	{"privkey", wordKey}, {"clave", wordKey}, {"chave", wordKey}, {"cle", wordKey}, {"clef", wordKey},
	{"schlussel", wordKey}, {"chiave", wordKey}, {"klucz", wordKey}, {"anahtar", wordKey}, {"kunci", wordKey},
	{"khoa", wordKey}, {"sleutel", wordKey}, {"nyckel", wordKey}, {"cheie", wordKey}, {"kulcs", wordKey},
	{"ufunguo", wordKey}, {"llave", wordKey}, {"jeton", wordKey}, {"pat", wordKey},
	{"ключ", wordKey}, {"токен", wordKey}, {"секрет", wordKey}, {"密钥", wordKey}, {"秘钥", wordKey},
	{"令牌", wordKey}, {"キー", wordKey}, {"トークン", wordKey}, {"키", wordKey}, {"토큰", wordKey},
	{"مفتاح", wordKey}, {"کلید", wordKey}, {"توکن", wordKey}, {"מפתח", wordKey}, {"κλειδί", wordKey},
	{"कुंजी", wordKey}, {"টোকেন", wordKey},
}

// notCredWords are near a credential word by spelling and mean something else.
var notCredWords = Set("passed", "passes", "passage", "passport", "parole", "passer", "passers")

// keyQualifiers, as the word part before or after a key word, name something that opens
// nothing: a public or publishable key, an id, a cache or sort key, a token's address.
var keyQualifiers = Set("public", "pub", "publishable", "anon", "site", "search", "cache", "idempotency", "sort",
	"partition", "primary", "foreign", "composite", "slot", "id", "ids", "hash", "name", "names", "path",
	"file", "fingerprint", "size", "length", "type", "pair", "ring", "words", "csrf", "xsrf", "address", "contract",
	"mint", "symbol", "program", "pubkey", "recipient", "usage", "limit", "count", "rotation", "format", "event",
	"index", "map", "value", "query", "field", "column", "shortcut", "board", "note", "signature", "object", "hint",
	"ref", "reference", "arn", "alias", "vault", "manager", "store", "url", "uri", "endpoint", "host", "env", "page",
	"pagination", "continuation", "cursor", "offentlicher", "offentliche", "offentlichen", "publique", "publico", "publica",
	"pubblica", "pubblico", "publiczny", "only", "authorized", "known", "no", "without", "ohne", "sin", "sans")

// denyWords in the window between the word and the value say it is not given: an example, a
// hash, a rule about passwords.
var denyWords = Set("example", "e.g.", "eg", "z.b.", "ejemplo", "beispiel", "exemple", "hash", "hashed", "hashes",
	"policy", "reset", "length", "must", "should", "format", "placeholder", "not", "never", "nicht", "kein", "no",
	"requirements", "rules", "strength", "expired", "rotated", "revoked", "fingerprint", "digest", "checksum",
	"sha256", "md5", "sha1", "id", "commit", "address", "hint", "like", "mask", "masked", "env", "vault", "stored",
	"niemals", "nie", "jamais", "nunca", "manager", "public", "ssh-ed25519", "ssh-rsa", "ssh-dss", "ecdsa-sha2-nistp256",
	"see", "siehe", "voir", "vedi", "zie", "veja", "zobacz", "viz")

// credTerm is a credential word found in a line: its kind and where it ends.
type credTerm struct {
	kind, end int
	short     bool // a word of three letters or fewer (pwd, mdp, key): only the next token counts
	answer    bool // the value is looked for on the line after a question
	api       bool // an API key, an API token or a secret: no account's address is named so
}

// asked reports whether the credential word ending at line[e] is asked about: the line is a
// question, or ends a few words after the word ("I need the DB password to run the report").
func asked(line string, e, kind int) bool {
	rest := strings.TrimSpace(line[e:])
	if strings.HasSuffix(rest, "?") || strings.HasSuffix(rest, "？") {
		return true
	}
	if kind == wordLogin {
		return strings.Trim(rest, ".!…") == "" // "... doesn't accept my credentials"
	}
	return kind == wordPassword && len(strings.Fields(rest)) <= 5 && !strings.ContainsAny(rest, ":=()")
}

// consoleRead reports whether the key word ending at line[e] closes the line inside a call or a
// subscript that reads it (getItem('refresh_token'), settings["API_TOKEN"]): a console prints the
// value on the next line.
func consoleRead(line string, e int) bool {
	rest := strings.TrimSpace(line[e:])
	return rest != "" && strings.Trim(rest, "\"'`)];") == "" && strings.ContainsAny(rest, ")]") &&
		strings.ContainsAny(line[:e], "([")
}

// yamlParentQualified reports whether an indented line sits under a YAML key that names
// something other than a secret (cache:, public:).
func yamlParentQualified(text string, lines [][2]int, li int) bool {
	line := text[lines[li][0]:lines[li][1]]
	ind := len(line) - len(strings.TrimLeft(line, " "))
	if ind == 0 {
		return false
	}
	for k := li - 1; k >= 0 && k >= li-20; k-- {
		l := text[lines[k][0]:lines[k][1]]
		t := strings.TrimLeft(l, " ")
		if t == "" || len(l)-len(t) >= ind {
			continue
		}
		name, _, ok := strings.Cut(strings.TrimSpace(t), ":")
		return ok && keyQualifiers[strings.ToLower(strings.Trim(name, "-\"' "))]
	}
	return false
}

// findScored reports the credentials the scorer finds in text, as passwords and keys.
func findScored(text, lo string) (passwords, keys [][2]int) {
	ascii := isASCII(text) && len(lo) == len(text)
	lines := lineSpans(text)
	var buf []lword
	for li, ln := range lines {
		line, lline := text[ln[0]:ln[1]], ""
		if ascii {
			lline = lo[ln[0]:ln[1]]
		}
		for _, t := range credTerms(line, lline, &buf) {
			if t.kind == wordKey && yamlParentQualified(text, lines, li) {
				continue
			}
			s, e, ok := scoredValue(line, t)
			at := ln[0]
			if !ok && li+1 < len(lines) && t.kind == wordKey && consoleRead(line, t.end) {
				// a console prints what the line read: localStorage.getItem('refresh_token') / 'X'
				next := strings.TrimSpace(text[lines[li+1][0]:lines[li+1][1]])
				if v := strings.Trim(next, "\"'"); len(v) == len(next)-2 && next[0] == next[len(next)-1] && keyValue(v, 0) && !notSecretShape(v) {
					s := strings.Index(text[lines[li+1][0]:], v)
					keys = append(keys, [2]int{lines[li+1][0] + s, lines[li+1][0] + s + len(v)})
					continue
				}
			}
			if !ok && li+1 < len(lines) && asked(line, t.end, t.kind) {
				// a question about a password on one line or turn, the answer on the next
				next := text[lines[li+1][0]:lines[li+1][1]]
				s, e, ok = scoredValue(next, credTerm{kind: t.kind, end: 0, answer: true})
				q := strings.TrimSpace(line)
				if v := strings.TrimSpace(next); !ok && t.kind == wordPassword && (strings.HasSuffix(q, "?") || strings.HasSuffix(q, "？")) &&
					v != "" && !strings.ContainsAny(v, " \t,;|") && plainPassword(v) {
					s = strings.Index(next, v) // the answer alone on its line: "what's the wifi password?" / mango2021
					e, ok = s+len(v), true
				}
				at = lines[li+1][0]
			}
			if !ok {
				continue
			}
			sp := [2]int{at + s, at + e}
			if t.kind == wordKey {
				keys = append(keys, sp)
			} else {
				passwords = append(passwords, sp)
			}
		}
	}
	return passwords, keys
}

// lword is a word part of a line, folded, and where it ends in the line.
type lword struct {
	w      string
	end    int
	joined bool // written onto the word before it (camelCase, snake_case, kebab-case)
}

// lineWords splits a line into word parts: runs of letters, split again where a small letter is
// followed by a capital, folded to lower case without diacritics. Digits join a word (wpa2). lo
// is the line in lower case when it is ASCII (words are cut from it), or "".
func lineWords(line, lo string, buf *[]lword) []lword {
	if lo != "" {
		*buf = asciiWords(line, lo, (*buf)[:0])
		return *buf
	}
	var out []lword
	var b []byte
	start, prevLower, glued, folded := -1, false, false, false
	flush := func(end int) {
		if start >= 0 {
			w := ""
			if folded || lo == "" {
				w = string(b)
			} else {
				w = lo[start:end]
			}
			out = append(out, lword{w, end, glued})
		}
		b, start, folded = b[:0], -1, false
	}
	for i, r := range line {
		letter := unicode.IsLetter(r) || r >= '0' && r <= '9' && start >= 0
		if !letter {
			wasWord := start >= 0
			flush(i)
			glued = wasWord && (r == '_' || r == '-') && i+1 < len(line) && (isAlpha(line[i+1]) || line[i+1] >= 0x80)
			prevLower = false
			continue
		}
		if prevLower && unicode.IsUpper(r) {
			flush(i)
			glued = true
		}
		if start < 0 {
			start = i
		}
		prevLower = unicode.IsLower(r)
		if r < 0x80 {
			if r >= 'A' && r <= 'Z' {
				r += 'a' - 'A'
			}
			b = append(b, byte(r))
		} else {
			folded = true
			b = append(b, foldLetter(r)...)
		}
	}
	flush(len(line))
	return out
}

// foldLetter lowers a letter and takes the diacritics off the Latin ones.
func foldLetter(r rune) string {
	r = unicode.ToLower(r)
	if f, ok := foldMap[r]; ok {
		return f
	}
	return string(r)
}

var foldMap = func() map[rune]string {
	m := map[rune]string{'ß': "ss", 'ł': "l", 'ø': "o", 'æ': "ae", 'œ': "oe", 'đ': "d", 'ı': "i", 'ð': "d"}
	for _, g := range []struct{ to, from string }{
		{"a", "àáâãäåāăąǎạảấầẩẫậắằẳẵặ"}, {"c", "çćĉċč"}, {"e", "èéêëēĕėęěẹẻẽếềểễệ"}, {"g", "ĝğġģ"},
		{"i", "ìíîïĩīĭįǐịỉ"}, {"n", "ñńņňŉ"}, {"o", "òóôõöōŏőơǒọỏốồổỗộớờởỡợ"}, {"s", "śŝşšș"}, {"t", "ţťț"},
		{"u", "ùúûüũūŭůűųưǔụủứừửữự"}, {"y", "ýÿŷỳỵỷỹ"}, {"z", "źżž"}, {"d", "ď"}, {"r", "ŕřŗ"},
	} {
		for _, r := range g.from {
			m[r] = g.to
		}
	}
	return m
}()

// asciiWords is lineWords for an ASCII line.
func asciiWords(line, lo string, out []lword) []lword {
	start, glued := -1, false
	for i := 0; i <= len(line); i++ {
		c := byte(' ')
		if i < len(line) {
			c = line[i]
		}
		lower, upper := c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z'
		if lower || upper || start >= 0 && c >= '0' && c <= '9' {
			if upper && start >= 0 && i > 0 && line[i-1] >= 'a' && line[i-1] <= 'z' {
				out = append(out, lword{lo[start:i], i, glued})
				start, glued = i, true
			}
			if start < 0 {
				start = i
			}
			continue
		}
		if start >= 0 {
			out = append(out, lword{lo[start:i], i, glued})
			start = -1
			glued = (c == '_' || c == '-') && i+1 < len(line) && isAlpha(line[i+1])
		} else {
			glued = false
		}
	}
	return out
}

// lexicon indexes credLexicon: single words exactly, words of several parts by their first, the
// longer single words by their first letter for typos, and those in other scripts.
var lexicon = func() (x struct {
	exact   map[string]credWord
	multi   map[string][]credWord // by first word; rest holds the others
	rest    map[string][]string
	fuzzy   [128][]credWord
	scripts []credWord
}) {
	x.exact, x.multi, x.rest = map[string]credWord{}, map[string][]credWord{}, map[string][]string{}
	for _, c := range credLexicon {
		switch first, _, several := strings.Cut(c.w, " "); {
		case !isASCII(c.w):
			x.scripts = append(x.scripts, c)
		case several:
			x.multi[first] = append(x.multi[first], c)
			x.rest[c.w] = strings.Split(c.w, " ")[1:]
		default:
			x.exact[c.w] = c
			if len(c.w) >= 6 {
				x.fuzzy[c.w[0]] = append(x.fuzzy[c.w[0]], c)
			}
		}
	}
	return x
}()

// credTerms finds the credential words of a line.
func credTerms(line, lo string, buf *[]lword) []credTerm {
	var out []credTerm
	ascii := lo != ""
	ws := lineWords(line, lo, buf)
	for i := 0; i < len(ws); i++ {
		c, n, ok := lexiconWord(ws, i)
		if !ok {
			continue
		}
		last := ws[i+n-1]
		i += n - 1
		if !termEnd(line, last.end) || c.kind == wordKey && qualified(ws, i-n+1, i) || negatedTerm(ws, i-n+1) ||
			c.w == "pass" && i > 0 && passKinds[ws[i-1].w] {
			continue
		}
		api := c.kind == wordKey && (c.w == "apikey" || c.w == "secret" || apiNear(ws, i-n+1, i))
		kind := c.kind
		if kind == wordKey && !api && (wifiNear(ws, i-n+1, i) || passwordKeyWords[c.w] && loginBefore(ws, i-n+1)) {
			kind = wordPassword // la clave del wifi, the router key, "usuario: admin, clave: X": a password
		}
		out = append(out, credTerm{kind: kind, end: last.end, short: len(c.w) <= 3 || c.w == "pass", api: api})
	}
	if !ascii {
		lo := strings.ToLower(line)
		for _, c := range lexicon.scripts {
			for from := 0; ; {
				j := strings.Index(lo[from:], c.w)
				if j < 0 {
					break
				}
				from += j + len(c.w)
				if from <= len(line) {
					api := c.kind == wordKey && strings.Contains(lo[max(0, from-len(c.w)-6):from], "api")
					out = append(out, credTerm{kind: c.kind, end: from, api: api})
				}
			}
		}
	}
	return out
}

// lexiconWord reports the credential word that starts at ws[i] and how many parts it takes.
func lexiconWord(ws []lword, i int) (credWord, int, bool) {
	w := ws[i].w
	for _, c := range lexicon.multi[w] {
		parts := lexicon.rest[c.w]
		if i+len(parts) < len(ws) {
			ok := true
			for k, p := range parts {
				ok = ok && ws[i+1+k].w == p
			}
			if ok {
				return c, len(parts) + 1, true
			}
		}
	}
	if c, ok := lexicon.exact[w]; ok {
		if c.w == "user" && i+1 < len(ws) && ws[i+1].w == "name" {
			return credWord{"username", wordLogin}, 2, true
		}
		return c, 1, true
	}
	if len(w) >= 5 && w[0] < 128 {
		for _, c := range lexicon.fuzzy[w[0]] {
			if d := len(w) - len(c.w); d >= -2 && d <= 2 && (w[1] == c.w[1] || w[2] == c.w[2]) && credMatch(w, c.w) {
				return c, 1, true
			}
		}
	}
	return credWord{}, 0, false
}

// termEnd reports whether a credential word ending at line[e] ends its token, perhaps before a
// quote, a colon, an equals sign or a bracket: a word inside a longer name (password_hash,
// credential_secret.txt) names something else.
func termEnd(line string, e int) bool {
	if e == len(line) {
		return true
	}
	switch c := line[e]; c {
	case ' ', '\t', '"', '\'', '`', ':', '=', ',', ')', ']', '>', ';', '(', '\\', '?':
		return true
	case '-':
		return strings.HasPrefix(line[e+1:], "nya") && (e+4 == len(line) || !isAlpha(line[e+4])) // Indonesian password-nya
	case '.':
		return e+1 == len(line) || line[e+1] == ' '
	default:
		return c >= 0x80
	}
}

// negatedTerm reports a credential word one or two words after a negation: "(not a secret)",
// "kein Passwort".
func negatedTerm(ws []lword, i int) bool {
	for k := i - 1; k >= 0 && k >= i-2; k-- {
		if termNegations[ws[k].w] {
			return true
		}
	}
	return false
}

var termNegations = Set("not", "no", "nicht", "kein", "keine", "pas", "non", "never", "without", "niemals", "nunca", "jamais")

// qualified reports whether the key word ws[i..j] has a qualifier beside it that names something
// other than a secret (a public key, a key id, a cache key).
func qualified(ws []lword, i, j int) bool {
	for k := i - 1; k >= 0; k-- {
		if keyQualifiers[ws[k].w] {
			return true
		}
		if !ws[k+1].joined {
			break
		}
	}
	return j+1 < len(ws) && keyQualifiers[ws[j+1].w] && (ws[j+1].joined || ws[j+1].end-len(ws[j+1].w)-ws[j].end <= 1)
}

// credMatch reports whether a word is a credential word or one with a typo: one edit in words of
// six or seven letters, two in longer ones with the first two letters right.
func credMatch(w, c string) bool {
	if w == c {
		return true
	}
	lw, lc := utf8.RuneCountInString(w), utf8.RuneCountInString(c)
	if lc < 6 || lw < 5 || notCredWords[w] || w[0] != c[0] {
		return false
	}
	d := lw - lc
	if d < -2 || d > 2 {
		return false
	}
	max := 1
	if lc >= 8 && len(w) > 1 && w[1] == c[1] {
		max = 2
	}
	if strings.HasPrefix(w, c) && lw == lc+1 && w[len(w)-1] == 's' {
		return true // a plural
	}
	return editDistance(w, c, max) <= max
}

// editDistance is the optimal string alignment distance between a and b (insertions, deletions,
// substitutions and swaps of neighbours), or max+1 when it is more than max.
func editDistance(a, b string, max int) int {
	ra, rb := []rune(a), []rune(b)
	if len(rb) > 31 || len(ra) > 31 {
		return max + 1
	}
	var rows [3][32]int
	prev2, prev, cur := rows[0][:len(rb)+1], rows[1][:len(rb)+1], rows[2][:len(rb)+1]
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		low := cur[0]
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			v := min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				v = min(v, prev2[j-2]+1)
			}
			cur[j] = v
			low = min(low, v)
		}
		if low > max {
			return max + 1
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(rb)]
}

// scoredValue looks for the value a credential word names among the next tokens of its line and
// reports where it is.
func scoredValue(line string, t credTerm) (int, int, bool) {
	ts := strings.LastIndexAny(line[:t.end], " \t;&,{") + 1 // a connection string's, a query's or an object's pairs
	if !t.answer && strings.ContainsAny(line[ts:t.end], ":/") && !strings.HasSuffix(strings.TrimRight(line[ts:t.end], "\"'"), ":") &&
		!strings.Contains(line[ts:t.end], "/:_") {
		return 0, 0, false // inside a link, a path or a resource name: redis://:${REDIS_PASSWORD}@, arn:...:secret:prod
	}
	i := t.end
	wide := strings.HasPrefix(line[i:], "：") || strings.HasPrefix(line[i:], "，")
	if wide {
		i += len("：") // a full-width colon or comma
	}
	for i < len(line) && strings.IndexByte("\"'`]\\", line[i]) >= 0 {
		i++
	}
	sep := i
	if strings.HasPrefix(line[i:], " ?=") || strings.HasPrefix(line[i:], "?=") {
		i = strings.IndexByte(line[i:], '?') + i + 1 // make's NAME ?= value
	}
	for i < len(line) && strings.IndexByte(":=>", line[i]) >= 0 {
		i++
	}
	inCode := false // the word is glued to code after it: get_password("shop", ...)
	if i < len(line) && line[i] != ' ' && line[i] != '\t' && i == sep && !wide {
		for i < len(line) && line[i] != ' ' && line[i] != '\t' {
			if r, _ := utf8.DecodeLastRuneInString(line[sep:i]); i > sep && otherScript(r) && line[i] < 0x80 && IsAlnum(line[i]) {
				break // 密码是xiaolong88, パスワードはsakura1998: a particle glued to the value
			}
			i++ // the word is part of a longer token
		}
		inCode = strings.ContainsAny(line[sep:i], "()[]{}\"'.,")
	}
	labelColon := i > sep // the word ends in a colon, an equals sign or an arrow
	n := 0                // tokens passed over that are not separators
	afterSep := false     // the token before was a colon, an equals sign, a copula or a label
	labelled := t.short && (t.kind == wordPassword || t.kind == wordKey) && labelAhead(line[i:])
	for k := 0; k < 8 && n < 6 && i < len(line) && i-t.end < 100; k++ {
		for i < len(line) && (line[i] == ' ' || line[i] == '\t') {
			i++
		}
		j := i
		for j < len(line) && line[j] != ' ' && line[j] != '\t' {
			j++
		}
		if i == j {
			break
		}
		tok := line[i:j]
		if labelColon && n == 0 && k == 0 && strings.HasPrefix(tok, ";") && line[i-1] == '=' {
			return 0, 0, false // Pwd=;Encrypt=yes: an empty value, then the next pair
		}
		if k := strings.IndexByte(tok, ';'); k > 0 && labelColon && strings.Contains(tok[k:], "=") {
			j, tok = i+k, tok[:k] // Pwd=X;Encrypt=yes: the pair ends at the semicolon
		}
		if t.kind == wordPassword && (n == 0 || afterSep) {
			if s, e, ok := quotedPhrase(line, i); ok {
				return s, e, true // "pixel bramble thunder saffron 75"
			}
			if rest := strings.TrimRight(line[i:], " \t."); n == 0 && labelColon && spacedWords(rest) &&
				digits(rest[strings.LastIndexByte(rest, ' ')+1:]) > 0 {
				return i, i + len(rest), true // passphrase: meadow nimbus violet walnut falcon 79
			}
		}
		s, e := trimToken(tok)
		v := tok[s:e]
		if s >= e || separatorToken(v) {
			i, afterSep = j, true
			continue
		}
		if k := widePunct(v); k > 0 {
			e = s + k // 密码是 X，用完请告诉我: the value ends at the full-width comma
			v = v[:k]
		}
		if dw := strings.ToLower(strings.TrimRight(v, ":.,")); denyWords[dw] && !(dw == "reset" && prevAfter(line[:i])) {
			return 0, 0, false
		}
		if t.kind == wordPassword && !t.answer && (afterSep || n == 0 && !inCode && (labelColon || clauseEnd(line, j)) || n <= 1 && trailingCopula(line[j:])) &&
			!(t.short && n > 0 && !labelled) && plainPassword(v) ||
			t.kind == wordPassword && t.answer && (n == 0 || afterSep && n == 1) && strings.TrimSpace(line[j:]) == "" && plainPassword(v) {
			return i + s, i + e, true // a password as people choose them, where the sentence or the answer gives it
		}
		if name, _, ok := strings.Cut(v, "="); strings.HasSuffix(v, ":") || strings.HasSuffix(v, "：") || ok && settingName(name) {
			i, n, afterSep = j, n+1, strings.HasSuffix(v, ":") || strings.HasSuffix(v, "：")
			continue // a label, or another name set to a value
		}
		if t.kind == wordLogin && userLabels[strings.ToLower(strings.Trim(v, "-:="))] {
			i, n, afterSep = j, n+1, false
			if k := strings.IndexAny(line[i:], "\"'"); k >= 0 && k <= 1 {
				if q := strings.IndexByte(line[i+k+1:], line[i+k]); q >= 0 {
					i = i + k + 1 + q + 1 // -UserName 'CORP\svc': the user's name, not the password
				}
			}
			continue
		}
		if t.short && n > 0 && !(afterSep && labelled) {
			if !labelled {
				return 0, 0, false // pwd, mdp, key: only the next token
			}
			i, n = j, n+1
			continue // "pw for the staging box: X": on to the label's value
		}
		near := n
		if afterSep && n > 0 {
			near = 1 // right after "is", a colon or a label: as near as the next word
		}
		if t.answer && t.kind != wordKey {
			near = 1
		}
		if credValue(v, t.kind, near) || t.api && base58Address(v) && apiKeyShape(v) {
			return i + s, i + e, true
		}
		if t.kind != wordLogin && !t.answer && n >= 1 && len(v) >= 6 && hasDigitStr(v) {
			return 0, 0, false // a value, not the secret's shape
		}
		i, n, afterSep = j, n+1, false
	}
	return 0, 0, false
}

// userLabels name the user's name that follows them, as a flag or a label.
var userLabels = Set("username", "user", "userid", "uid", "u", "login", "usuario", "benutzer", "utilisateur")

// labelAhead reports whether a label ending in a colon or a copula comes within the next five
// tokens of rest, in the same clause: "pw for the staging box: X", "mdp du back-office c'est X".
func labelAhead(rest string) bool {
	for k, tok := range strings.Fields(rest) {
		if k == 5 {
			break
		}
		if strings.HasSuffix(tok, ":") || joiningWords[strings.ToLower(tok)] {
			return k > 0
		}
		if strings.ContainsAny(tok[len(tok)-1:], ".!?);,") {
			break
		}
	}
	return false
}

// separatorToken reports a token that only joins a name to its value: punctuation, or a copula.
func separatorToken(v string) bool {
	if alnumRun(v) == 0 && (isASCII(v) || strings.IndexFunc(v, func(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }) < 0) {
		return true // punctuation, an arrow (→, ⇒) or a dash (—)
	}
	return joiningWords[strings.ToLower(v)]
}

var joiningWords = Set("is", "are", "was", "c'est", "ist", "est", "es", "lautet", "lauten", "é", "è", "ni", "là", "adalah", "jest",
	"to", "je", "er", "är", "on", "olan", "هو", "هي", "است", "هست", "है", "是", "为", "は", "는", "은", "คือ", "это",
	// round 15: Hebrew, Greek, Romanian, Malay and Indonesian, Tagalog, Latvian, Lithuanian, Polish,
	// Ukrainian, Bulgarian and Serbian, Catalan, and speech
	"היא", "הוא", "είναι", "este", "ialah", "yaitu", "yakni", "ay", "ir", "yra", "wynosi", "є", "е", "је", "és", "it's", "it’s", "its", "sind", "zijn", "was:", "c’est", "hai")

// clauseEnd reports whether the token ending at line[j] ends its clause: the line's end, or a
// comma, a bracket, a semicolon or a stop closing it ("password k0tek2011) on day one"; not
// "our password policy2024 document").
func clauseEnd(line string, j int) bool {
	if strings.TrimSpace(line[j:]) == "" || j > 0 && strings.IndexByte(",);.!?", line[j-1]) >= 0 {
		return true
	}
	f := strings.Fields(line[j:])
	return len(f) > 0 && clauseVerbs[strings.ToLower(f[0])] // "the password kotek2011 didn't work"
}

// clauseVerbs, right after a value, say the value was the subject or the object just named:
// "the password X didn't work", "la contraseña X no funciona".
var clauseVerbs = Set("didn't", "doesn't", "don't", "won't", "wasn't", "isn't", "was", "works", "worked", "failed", "fails", "no",
	"not", "still", "but", "and", "never", "expired", "funciona", "funcionó", "funcionou", "marche", "fonctionne", "geht", "funktioniert",
	"klappt", "werkt", "działa", "nefunguje", "funguje", "funziona", "çalışmıyor", "не", "works.", "worked.", "yesterday", "today",
	"tonight", "earlier", "already", "again", "via", "over", "by", "to", "at", "in", "on", "when", "because", "though", "although", "if",
	"ayer", "hoy", "hier", "gestern", "heute", "ontem", "hoje", "ieri", "oggi", "wczoraj", "dzisiaj", "вчера", "сегодня")

// passKinds, before "pass", name a ticket, not a password: a day pass, a boarding pass.
var passKinds = Set("day", "season", "boarding", "bus", "train", "rail", "ski", "backstage", "hall", "free", "mountain", "press",
	"weekly", "monthly", "annual", "festival", "vip", "gym", "museum", "park", "battle", "event", "visitor", "parking", "transit")

// prevAfter reports whether the last word before a token says after ("new password after reset
// is X": the reset is done, the value is given).
func prevAfter(before string) bool {
	f := strings.Fields(before)
	return len(f) > 0 && (strings.EqualFold(f[len(f)-1], "after") || strings.EqualFold(f[len(f)-1], "since"))
}

// trimToken takes off the quotes, brackets and sentence punctuation around a token.
func trimToken(tok string) (int, int) {
	s, e := 0, len(tok)
	for s < e && strings.ContainsRune("\"'`(«“‘[<{\\", rune(tok[s])) {
		s++
	}
	for s < e {
		r, size := utf8.DecodeLastRuneInString(tok[s:e])
		if !strings.ContainsRune("\"'`)»”’],;}\\", r) && !(r == '.' && e == len(tok)) {
			break
		}
		e -= size
	}
	for s < e && tok[s] >= 0x80 {
		r, size := utf8.DecodeRuneInString(tok[s:e])
		if r != '«' && r != '“' && r != '‘' && r != '：' && r != '，' && r != '「' {
			break
		}
		s += size
	}
	return s, e
}

// settingName reports the name in "name=value": four or more letters, no digits, in one case or
// capitalised (DB_HOST, region, Timeout).
func settingName(name string) bool {
	if letters(name) < 4 || !identifier(name) || hasDigitStr(name) {
		return false
	}
	return name == strings.ToLower(name) || name == strings.ToUpper(name) || innerCapitals(name) == 0
}

// identifier reports a name of letters, digits and underscores.
func identifier(s string) bool {
	return s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_") == ""
}

func letters(s string) int {
	n := 0
	for i := 0; i < len(s); i++ {
		if isAlpha(s[i]) {
			n++
		}
	}
	return n
}

func hasDigitStr(s string) bool { return strings.ContainsAny(s, "0123456789") }

// credValue decides on a value from its shape. n is how many tokens stand between it and the
// credential word.
func credValue(v string, kind, n int) bool {
	if len(v) < 6 || len(v) > 256 || !isASCII(v) || maskedValue(v) || notSecretShape(v) {
		return false
	}
	if kind != wordKey && n <= 1 && dashedWords(v) {
		return true // orbit-velvet-canyon-sprocket: a passphrase right after the word
	}
	if wordish(v) && !randomLetters(v) {
		return false
	}
	switch kind {
	case wordKey:
		return keyValue(v, n)
	case wordLogin:
		return n >= 1 && (classes(v) >= 3 && len(v) >= 8 && entropy(v) >= 3 || wordsAndDigits(v) || randomLetters(v)) ||
			n == 0 && notUserName(v)
	}
	if classes(v) >= 3 && len(v) >= 8 && entropy(v) >= 2.8 || wordsAndDigits(v) {
		return true
	}
	if kind != wordLogin && n <= 1 && signedWords(v) {
		return true // pelikan_gqur!: words joined and closed by a sign, right after the word
	}
	// mixed case alone, or letters and digits, set right after the word
	return n <= 1 && len(v) >= 10 && entropy(v) >= 3.2 && (innerCapitals(v) >= 2 || digits(v) >= 3 && letters(v) >= 3 ||
		randomLetters(v)) && classes(v) >= 2 || n <= 1 && randomLetters(v)
}

// notUserName reports a value right after a login word that no user's name looks like: capitals,
// small letters, digits and a sign a name does not hold (not . _ - @), eight characters or more
// ("use this to log in: Zephyr5858?").
func notUserName(v string) bool {
	return len(v) >= 8 && classes(v) >= 4 && strings.Trim(v, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-") != "" &&
		!strings.Contains(v, "@") && entropy(v) >= 3
}

// randomLetters reports small letters, perhaps with digits, that read as generated rather than as
// a word: ten or more, and either digits and letters alternating at least twice (zdc029bi42mc,
// 9vvfec8gtvwm) or hardly any vowels (lvntogufmmnt).
func randomLetters(v string) bool {
	if len(v) < 10 || strings.Trim(v, "abcdefghijklmnopqrstuvwxyz0123456789") != "" || entropy(v) < 2.8 {
		return false
	}
	turns, vowels := 0, 0
	for i := 0; i < len(v); i++ {
		if i > 0 && IsDigit(v[i]) != IsDigit(v[i-1]) {
			turns++
		}
		if strings.IndexByte("aeiou", v[i]) >= 0 {
			vowels++
		}
	}
	l := letters(v)
	return digits(v) >= 2 && l >= 3 && (turns >= 3 || turns >= 2 && vowels*3 < l) || digits(v) == 0 && vowels*4 < l
}

// dashedWords reports a passphrase of four to eight words of three to ten small letters joined by
// single dashes (orbit-velvet-canyon-sprocket), as password managers generate them; a
// capitalised name (Seed-Phrase-Backup) or a word of prose between them is not one.
func dashedWords(v string) bool {
	ws := strings.Split(v, "-")
	if len(ws) < 4 || len(ws) > 8 {
		return false
	}
	for _, w := range ws {
		if len(w) < 3 || len(w) > 10 || strings.Trim(w, "abcdefghijklmnopqrstuvwxyz") != "" || phraseStopWords[w] {
			return false
		}
	}
	return true
}

// spacedWords reports a passphrase written with spaces: four or more words of three to ten small
// letters, perhaps with a number of up to four digits, nine parts at most, and none of the little
// words prose is made of ("the name of your first pet").
func spacedWords(v string) bool {
	ws := strings.Fields(v)
	if len(ws) < 4 || len(ws) > 9 || strings.Join(ws, " ") != v {
		return false
	}
	words := 0
	for _, w := range ws {
		switch {
		case len(w) <= 4 && strings.Trim(w, "0123456789") == "":
		case len(w) >= 3 && len(w) <= 10 && strings.Trim(w, "abcdefghijklmnopqrstuvwxyz") == "" && !phraseStopWords[w]:
			words++
		default:
			return false
		}
	}
	return words >= 4
}

// phraseStopWords are the little words of prose, never in a generated passphrase.
var phraseStopWords = Set("the", "and", "for", "you", "your", "our", "with", "from", "that", "this", "not", "use", "are",
	"was", "one", "any", "all", "same", "new", "old", "see", "set", "via", "then", "when", "what", "which", "into",
	"has", "have", "can", "will", "must", "should", "please", "here", "there", "login", "user", "name", "password",
	"reset", "change", "enter", "type", "choose", "first", "last", "account", "email")

// quotedPhrase reports a passphrase in quotes that starts at line[i]: the quote closes on the
// line and what it holds reads as spaced words.
func quotedPhrase(line string, i int) (int, int, bool) {
	if i >= len(line) || line[i] != '"' && line[i] != '\'' {
		return 0, 0, false
	}
	e := strings.IndexByte(line[i+1:], line[i])
	if e < 0 || e > 100 {
		return 0, 0, false
	}
	if !spacedWords(line[i+1 : i+1+e]) {
		return 0, 0, false
	}
	return i + 1, i + 1 + e, true
}

// keyValue decides on a value after a key, token or secret word.
// apiWords, next to a key word, name an API's key or an access token.
var apiWords = Set("api", "access", "acces", "acceso", "accesso", "zugriff", "zugriffs", "dostepu", "доступа")

// apiNear reports whether an API word stands two words before ws[s:e+1] or three after ("clave
// de la API").
func apiNear(ws []lword, s, e int) bool {
	for _, k := range []int{s - 2, s - 1, e + 1, e + 2, e + 3} {
		if k >= 0 && k < len(ws) && apiWords[ws[k].w] {
			return true
		}
	}
	return false
}

// passwordKeyWords are the key words that also name a password in their language (clave,
// chave, clé, chiave, klucz, kunci, anahtar, kulcs).
var passwordKeyWords = Set("clave", "chave", "cle", "clef", "chiave", "klucz", "kunci", "anahtar", "kulcs", "cheie", "llave")

// loginBefore reports whether a login word (user, usuario, login) stands among the six words
// before ws[s]: a key word after it names the account's password.
func loginBefore(ws []lword, s int) bool {
	for k := max(0, s-6); k < s; k++ {
		if c, ok := lexicon.exact[ws[k].w]; ok && c.kind == wordLogin {
			return true
		}
	}
	return false
}

// wifiNear reports whether a word naming a wireless network stands two words before ws[s:e+1]
// or three after ("clave del wifi", "WLAN-Schlüssel", "router key").
func wifiNear(ws []lword, s, e int) bool {
	for _, k := range []int{s - 2, s - 1, e + 1, e + 2, e + 3} {
		if k >= 0 && k < len(ws) && wifiWords[ws[k].w] {
			return true
		}
	}
	return false
}

// apiKeyShape reports a generated key of letters of both cases and digits, 26 to 44 of them,
// which an account's address in base58 shares: after "API key" or "secret" it is the key.
func apiKeyShape(v string) bool {
	return upLowDigit(v) && entropy(v) >= 3.8 && !maskedValue(v) && !placeholderWord(v)
}

func keyValue(v string, n int) bool {
	h := entropy(v)
	if base58Address(v) {
		return false
	}
	switch {
	case hexOnly(v) && !strings.Contains(v, "-"):
		return n <= 1 && len(v) >= 24 && len(v) != 40 && len(v) != 64 && h >= 3.3
	case classes(v) >= 3:
		return len(v) >= 16 && h >= 3.5 || n <= 1 && len(v) >= 10 && h >= 3 && strings.IndexFunc(v, isSymbol) >= 0
	}
	return len(v) >= 24 && h >= 3.8 && hasDigitStr(v) && classes(v) >= 2
}

// wordish reports a value made of words: no digit, and each run of letters split at its capitals
// reads as words (Seed-Phrase, X-API-Signature, Passwort-Manager, VaultName).
func wordish(v string) bool {
	if hasDigitStr(v) || strings.Trim(v, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ-._'") != "" {
		return false
	}
	for _, run := range strings.FieldsFunc(v, func(r rune) bool { return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z') }) {
		if len(run) == 1 {
			continue
		}
		for i := 0; i < len(run); {
			j := i
			for j < len(run) && run[j] >= 'A' && run[j] <= 'Z' {
				j++
			}
			caps := j - i
			k := j
			for k < len(run) && run[k] >= 'a' && run[k] <= 'z' {
				k++
			}
			low := k - j
			switch {
			case caps >= 2 && low == 0, caps >= 2 && low >= 2: // API, or HTTPServer's tail
			case caps <= 1 && (low >= 2 || low == 1 && caps == 1):
			default:
				return false
			}
			i = k
		}
	}
	return true
}

func isSymbol(r rune) bool {
	return r < 0x80 && !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9')
}

// base58Address reports whether v has the shape of a Solana or Bitcoin address: 32 to 44
// characters of base58.
func base58Address(v string) bool {
	return len(v) >= 26 && len(v) <= 44 && inAlphabet(v, "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz")
}

// maskedValue reports whether a value is masked, elided or a placeholder.
func maskedValue(v string) bool {
	lo := strings.ToLower(v)
	for _, m := range []string{"***", "xxx", "...", "…", "•", "<", ">", "{{", "${", "$(", "%(", "[", "]"} {
		if strings.Contains(lo, m) {
			return true
		}
	}
	for _, m := range []string{"example", "changeme", "change_me", "placeholder", "redacted", "dummy"} {
		if strings.Contains(lo, m) {
			return true
		}
	}
	if len(v) < 24 || entropy(v) < 4 {
		for _, m := range []string{"your", "sample", "password", "secret", "token", "test123", "here", "todo", "credential"} {
			if strings.Contains(lo, m) {
				return true
			}
		}
	}
	if v[0] == '$' && envName.MatchString(v[1:]) || sameChar(v) || envReference(v) {
		return true
	}
	return strings.Count(v, "*") >= 2 && strings.Trim(v, "*") != v && !starredPassword(v)
}

// starredPassword reports a generated password that holds single stars among capitals, small
// letters and another sign or a digit (*FtAqUnmCP%8*XaUTW, *UNdOW*XN#ONy): ten characters or
// more; a mask's stars come in runs or frame a word (*required*).
func starredPassword(v string) bool {
	rest := strings.ReplaceAll(v, "*", "")
	return len(v) >= 10 && !strings.Contains(v, "**") && len(rest) >= 8 && strings.ContainsAny(rest, "ABCDEFGHIJKLMNOPQRSTUVWXYZ") &&
		strings.ContainsAny(rest, "abcdefghijklmnopqrstuvwxyz") && classes(rest) >= 3 && entropy(v) >= 2.8 && strings.Trim(v, "*") != rest
}

// envReference reports a value that names an environment variable inside it ("--x=$API_KEY").
func envReference(v string) bool {
	for i := strings.IndexByte(v, '$'); i >= 0 && i+1 < len(v); {
		j := i + 1
		for j < len(v) && (v[j] >= 'A' && v[j] <= 'Z' || v[j] == '_') {
			j++
		}
		if j-i > 3 {
			return true
		}
		k := strings.IndexByte(v[i+1:], '$')
		if k < 0 {
			break
		}
		i += 1 + k
	}
	return false
}

// notSecretShape reports values that hold no secret by their shape: links, addresses, paths, file
// names, code, dates, versions, ids, hashes of passwords, EVM values.
func notSecretShape(v string) bool {
	lo := strings.ToLower(v)
	switch {
	case strings.Contains(v, "://"), strings.HasPrefix(lo, "0x"), strings.Count(v, "$") >= 2,
		strings.HasPrefix(lo, "sha") && strings.Contains(v, ":"), strings.HasPrefix(lo, "argon2"),
		strings.HasPrefix(lo, "pbkdf2"), strings.HasPrefix(lo, "scrypt"), strings.HasPrefix(v, "{SSHA}"),
		strings.HasPrefix(lo, "vault:"), strings.HasPrefix(lo, "enc["), strings.HasPrefix(lo, "age1"),
		strings.HasPrefix(lo, "op://"), strings.HasPrefix(lo, "arn:"), strings.HasPrefix(lo, "projects/"),
		strings.HasPrefix(lo, "xpub"), strings.HasPrefix(lo, "npub"), strings.HasPrefix(lo, "ypub"),
		strings.HasPrefix(lo, "zpub"), strings.HasPrefix(lo, "tpub"), strings.HasPrefix(lo, "vpub"),
		strings.Contains(v, "::"), imageRef(v), strings.HasPrefix(v, "Qm") && len(v) == 46, strings.HasPrefix(v, "bafy"), strings.ContainsAny(v, "{}\""), strings.HasPrefix(v, "cHNidP"), strings.HasPrefix(v, "lnbc"), strings.HasPrefix(lo, "pk_"),
		strings.HasPrefix(lo, "pk."), strings.HasPrefix(lo, "phc_"), strings.HasPrefix(lo, "ssh-"):
		return true
	case strings.ContainsAny(v, "()") || codeRef.MatchString(v) && !wordDigits(v) || envName.MatchString(v):
		return true
	case strings.HasPrefix(v, "/") || strings.HasPrefix(v, "./") || strings.HasPrefix(v, "~/") || strings.HasPrefix(v, "--") ||
		strings.Count(v, "/") >= 2 && entropy(v) < 4 && !strings.ContainsAny(v, "+=") || knownFile(v):
		return true
	case strings.Contains(v, "@") && strings.Contains(v[strings.Index(v, "@"):], "."):
		return true // an address or a host
	case uuidShape(v) || dottedVersion(v) || dateShaped(v):
		return true
	}
	return false
}

// imageRef reports a name and a tag or a port: image:1.0, redis:7-alpine, localhost:5432.
func imageRef(v string) bool {
	name, tag, ok := strings.Cut(v, ":")
	return ok && name != "" && tag != "" && tag[0] >= '0' && tag[0] <= '9' &&
		strings.Trim(name, "abcdefghijklmnopqrstuvwxyz0123456789./_-") == "" &&
		strings.Trim(tag, "abcdefghijklmnopqrstuvwxyz0123456789.-") == ""
}

// dottedVersion reports digits and dots, perhaps after a v (1.2.3, v10.4.1).
func dottedVersion(v string) bool {
	v = strings.TrimPrefix(strings.ToLower(v), "v")
	return strings.Trim(v, "0123456789.") == "" && strings.Contains(v, ".")
}

// dateShaped reports digits joined by dashes, slashes, colons or a T (2026-11-30, 10:30:00).
func dateShaped(v string) bool {
	return strings.Trim(v, "0123456789-/:T.Z+") == ""
}

// wordsAndDigits reports words joined by dashes, dots or hashes with digits at the end or between
// them: cinnamon-finger-guilt24, maracuja-4421, Falcon.2532.
func wordsAndDigits(v string) bool {
	if len(v) < 8 || !strings.ContainsAny(v, "-.#_") || !hasDigitStr(v) {
		return false
	}
	parts := strings.FieldsFunc(v, func(r rune) bool { return r == '-' || r == '.' || r == '#' || r == '_' })
	if len(parts) < 2 || len(parts) > 6 {
		return false
	}
	words := 0
	for _, p := range parts {
		if letters(p) >= 3 {
			words++
		}
	}
	last := parts[len(parts)-1]
	return words >= 1 && digits(v) >= 2 && digits(v) <= 6 && (digits(last) > 0)
}

func digits(s string) int {
	n := 0
	for i := 0; i < len(s); i++ {
		if s[i] >= '0' && s[i] <= '9' {
			n++
		}
	}
	return n
}

// innerCapitals counts the capitals after the first letter.
func innerCapitals(v string) int {
	n := 0
	for i := 1; i < len(v); i++ {
		if v[i] >= 'A' && v[i] <= 'Z' {
			n++
		}
	}
	return n
}

// findSplitKeys finds a wallet key written over two or more lines of hex digits that make 64
// together ("private key (the form cut it)" / 32 digits / 32 digits), where the words before name a
// key as they would for the key in one piece.
func findSplitKeys(text string) [][2]int {
	if !strings.Contains(text, "\n") {
		return nil
	}
	var out [][2]int
	lines := lineSpans(text)
	for i := 0; i < len(lines); i++ {
		var run [][2]int
		total := 0
		for k := i; k < len(lines) && total < 64; k++ {
			s, e := lines[k][0], lines[k][1]
			for s < e && (text[s] == ' ' || text[s] == '\t') {
				s++
			}
			for e > s && (text[e-1] == ' ' || text[e-1] == '\t' || text[e-1] == '\r') {
				e--
			}
			v := text[s:e]
			if k == i {
				v = strings.TrimPrefix(strings.TrimPrefix(v, "0x"), "0X")
			}
			if len(v) < 16 || len(v) > 48 || !hexOnly(v) || strings.Contains(v, "-") {
				break
			}
			run = append(run, [2]int{s, e})
			total += len(v)
		}
		if len(run) >= 2 && total == 64 && evmKey(text, run[0][0], run[len(run)-1][1]) {
			out = append(out, run...)
			i += len(run) - 1
		}
	}
	return out
}

// findNumberedPhrase finds a recovery phrase whose words are numbered and laid out in any order
// (a card of four columns, a grid read across): the numbers 1 to 12, 15, 18, 21 or 24 each once,
// each before a word of the list, and the words in the numbers' order carry the checksum.
func findNumberedPhrase(text string) [][2]int {
	type entry struct {
		idx  int
		span [2]int
	}
	var got map[int]entry
	for i := 0; i < len(text); i++ {
		if !IsDigit(text[i]) || i > 0 && !(text[i-1] == ' ' || text[i-1] == '\n' || text[i-1] == '\t' || text[i-1] == '(') {
			continue
		}
		j := i
		for j < len(text) && IsDigit(text[j]) {
			j++
		}
		if j-i > 2 || j == len(text) {
			i = j
			continue
		}
		num := int(text[i] - '0')
		if j-i == 2 {
			num = num*10 + int(text[i+1]-'0')
		}
		k := j
		if k < len(text) && strings.IndexByte(".):", text[k]) >= 0 {
			k++
		}
		if k == j && (k >= len(text) || text[k] != ' ' && text[k] != '\t') || k < len(text) && text[k] != ' ' && text[k] != '\t' {
			i = j
			continue
		}
		for k < len(text) && (text[k] == ' ' || text[k] == '\t') {
			k++
		}
		w := k
		for w < len(text) && isAlpha(text[w]) {
			w++
		}
		if w-k < 3 || w-k > 8 || w < len(text) && (isAlpha(text[w]) || IsDigit(text[w])) {
			i = j
			continue
		}
		idx, ok := bip39Index[strings.ToLower(text[k:w])]
		if !ok || num < 1 || num > 24 {
			i = j
			continue
		}
		if got == nil {
			got = map[int]entry{}
		}
		if _, dup := got[num]; dup {
			return nil
		}
		got[num] = entry{idx, [2]int{i, w}}
		i = w
	}
	n := len(got)
	if n < 12 || n%3 != 0 {
		return nil
	}
	idx := make([]int, n)
	span := [2]int{len(text), 0}
	for k := 1; k <= n; k++ {
		e, ok := got[k]
		if !ok {
			return nil
		}
		idx[k-1] = e.idx
		span = [2]int{min(span[0], e.span[0]), max(span[1], e.span[1])}
	}
	if !bip39Checksum(idx) {
		return nil
	}
	return [][2]int{span} // the numbers go too: they give the order
}
