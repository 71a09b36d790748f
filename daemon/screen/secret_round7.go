package screen

import (
	"encoding/base64"
	"regexp"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Classes of credential from the seventh round: every Authorization scheme, a user and a
// password set side by side, credentials in a table's column, in an SQL INSERT, handed to a
// connection's constructor, under a Kubernetes Secret's data.
var round7SecretRules = []secretRule{
	// Authorization with any scheme: Bearer, Basic, Token token="...", SSWS, Splunk, key=...,
	// in a header, curl -H, nginx's proxy_set_header, a dict, an f-string.
	srule(SecretToken, []string{"authorization"},
		`(?i)\bauthorization["']?(?:[ \t]*[:=,][ \t]*|[ \t]+)(?:f?["'])?[ \t]*(?:([A-Za-z][A-Za-z0-9_\-]{1,24})[ \t]+)?(?:[A-Za-z_]{1,16}=)?["'{]*([A-Za-z0-9\-._~+/:=]{12,})`, 2,
		authValue),
	// SQL: IDENTIFIED BY '...', IDENTIFIED WITH plugin BY '...', SET PASSWORD ... = '...'
	srule(SecretPassword, []string{"identified", "set password"},
		`(?i)\b(?:identified[ \t]+(?:with[ \t]+\S+[ \t]+)?by(?:[ \t]+password)?|set[ \t]+password\b[^;'\n]{0,60}?=(?:[ \t]*password[ \t]*\()?)[ \t]*['"]([^'"\n]{3,200})['"]`, 1,
		passwordValue),
	// an XML element named for a secret: <password>...</password>, <apiToken>...</apiToken>
	srule(SecretPassword, []string{"pass", "pwd"},
		`(?i)<([A-Za-z_:\-]{0,30}(?:password|passwd|passphrase|pwd|pass)[A-Za-z_\-]{0,20})>([^<\n]{3,200})</`, 2, xmlValue),
	srule(SecretToken, []string{"secret", "token", "key"},
		`(?i)<([A-Za-z_:\-]{0,30}(?:secret|token|api_?key|apikey|private_?key|access_?key)[A-Za-z_\-]{0,20})>([^<\n]{3,200})</`, 2, xmlValue),
	// user : password after a word for credentials: "creds for the staging admin -> lin.wei : X"
	srule(SecretPassword, []string{"login", "creds", "credentials", "account", "access"},
		`(?i)\b(?:login|logins|creds|credentials|account|access)\b[^\n]{0,40}?[ \t][\w.\-]{2,32}[ \t]+:[ \t]+([^\s]{5,63}[^\s.,;:)'"])`, 1,
		func(v, _ string) bool { return passwordToken(v) }).withPre(func(text string) bool { return strings.Contains(text, " : ") }),
	// a conventional administrator's name, a slash and a password: "root / X", "admin/X"
	srule(SecretPassword, []string{"/"},
		`(?i)(?:^|[\s'"(`+"`"+`])(?:root|admin|administrator|ubuntu|deploy|deployer|postgres|sa|pi|ec2-user|debian|centos|oracle|ftpuser|guest|operator|support|webmaster)[ \t]*/[ \t]*([^\s'"`+"`"+`]{5,63}[^\s.,;:)'"`+"`"+`])`, 1,
		func(v, _ string) bool { return passwordToken(v) }).withPre(adminSlash),
}

func init() {
	addRules(round7SecretRules)
}

// adminNames are the conventional names of an administrator's account.
var adminNames = map[string]bool{"root": true, "admin": true, "administrator": true, "ubuntu": true, "deploy": true,
	"deployer": true, "postgres": true, "sa": true, "pi": true, "ec2-user": true, "debian": true, "centos": true,
	"oracle": true, "ftpuser": true, "guest": true, "operator": true, "support": true, "webmaster": true}

// adminSlash reports whether text holds an administrator's name right before a slash ("root /",
// "admin/"), not inside a path ("/root/"): the fast test of the "root / X" rule.
func adminSlash(text string) bool {
	for i := strings.IndexByte(text, '/'); i >= 0; {
		j := i
		for j > 0 && (text[j-1] == ' ' || text[j-1] == '\t') {
			j--
		}
		k := j
		for k > 0 && (isLower(text[k-1]|0x20) || text[k-1] == '-' || text[k-1] == '2') {
			k--
		}
		if k < j && (k == 0 || text[k-1] != '/') && adminNames[strings.ToLower(text[k:j])] {
			return true
		}
		n := strings.IndexByte(text[i+1:], '/')
		if n < 0 {
			break
		}
		i += 1 + n
	}
	return false
}

// xmlValue decides on the text of an XML element named for a secret, as after its name.
func xmlValue(v, m string) bool {
	tag := m[1:strings.IndexByte(m, '>')]
	if secretColumn(tag) == "" {
		return false // <passwordPolicy>, <tokenType>: about a secret, not one
	}
	return genericValue(genericKind(tag), tag, "=", strings.TrimSpace(v), true)
}

// authValue decides on the credential of an Authorization header: for Basic, user:password in
// base64 or a random value; for any other scheme a random-looking value with a digit.
func authValue(v, m string) bool {
	v = strings.TrimRight(v, ".,")
	if placeholder(v) || strings.Contains(m, "${") || strings.Contains(m, "{{") {
		return false
	}
	lo := strings.ToLower(m)
	if strings.Contains(lo, "basic ") {
		return basicValue(v, m) || len(v) >= 12 && upLowDigit(v) && entropy(v) >= 3.5 && !placeholderWord(v)
	}
	return len(v) >= 12 && entropy(v) >= 3.2 && strings.ContainsAny(v, "0123456789") && classes(v) >= 2 && !placeholderWord(v)
}

// credentialCalls take a user's password among their string arguments: PDO, .NET's
// NetworkCredential, Ruby's Net::SMTP.start, JDBC, Python's database drivers, ftplib's and
// smtplib's login, LDAP binds, HTTP basic-auth helpers.
var credentialCalls = []string{"pdo(", "networkcredential(", "net::smtp.start(", "getconnection(", "psycopg2.connect(",
	"pymysql.connect(", "mysqldb.connect(", "connector.connect(", "mysqli(", "mysqli_connect(", "mysql_connect(",
	"pg_connect(", ".login(", "bind_s(", ".bind(", "usernamepasswordcredentials(", "usernamepasswordcredentialsimpl(", "passwordauthentication(",
	"httpbasicauth(", "basicauth(", "digestauth(", "passwordcredential(", "credential(", "smtp.start(",
	"ftp.open(", "setcredentials(", "withcredentials(", "authenticate(", "redis(", "strictredis(", "ftp.new(", "pop3(",
	"imap4(", "imap4_ssl(", "pop3_ssl(", ".pass_(", "ldap_bind(", "sqlconnection("}

// findCallCredentials reports the credentials handed to a call: a string argument that reads as
// a password, given to a call that logs in (credentialCalls), and a key-shaped string (a UUID, 24
// or more hex digits, a random mixed-case value) or a password given to a service client's
// constructor (Client(...), ApiClient.new(...), RestClientV5(...)). lo is text in lower case.
func findCallCredentials(text, lo string, pairs *bytePairs) (passwords, keys [][2]int) {
	if len(lo) != len(text) || !pairs.may("(") {
		return nil, nil
	}
	var out [][2]int
	for _, c := range credentialCalls {
		if !pairs.may(c) {
			continue
		}
		for from := 0; ; {
			i := strings.Index(lo[from:], c)
			if i < 0 {
				break
			}
			at := from + i
			from = at + len(c)
			if c[0] != '.' && inName(lo, at) && !strings.HasSuffix(lo[:at], "new ") {
				continue // another name: "mycredential(" is not "credential("
			}
			args := callArgs(text, from, 1)
			out = append(out, passwordArgs(text, args)...)
			if n := len(args); n > 0 && strings.Contains(text[from:args[n-1][0]], ",") {
				if v := text[args[n-1][0]:args[n-1][1]]; !passwordToken(v) && joinedWords(v) && !placeholder(v) {
					out = append(out, args[n-1]) // server.login(user, 'walnut_sparrow-20')
				}
			}
		}
	}
	if pairs.may("client") {
		for from := 0; ; {
			i := strings.Index(lo[from:], "client")
			if i < 0 {
				break
			}
			at := from + i
			from = at + len("client")
			j := from
			for j < len(lo) && (lo[j] >= '0' && lo[j] <= '9' || lo[j] == 'v') {
				j++ // RestClientV5
			}
			rest := lo[j:]
			switch {
			case strings.HasPrefix(rest, "("):
				j++
			case strings.HasPrefix(rest, ".new("), strings.HasPrefix(rest, "::new("):
				j += strings.IndexByte(rest, '(') + 1
			default:
				continue
			}
			for _, a := range callArgs(text, j, 1) {
				v := text[a[0]:a[1]]
				if keyArg(v, secretArgName(text, a[0])) || passwordToken(v) && !strings.ContainsAny(v, "/\\") &&
					(strings.ContainsAny(v, "!#$%^&*+?~") || passphrase(v)) {
					keys = append(keys, a)
				}
			}
		}
	}
	return out, keys
}

// keyArg reports whether a client's string argument is shaped as a key: a UUID, 24 or more hex
// digits, or random letters and digits of both cases, 24 or more of them, 16 after a name for a
// secret ({ key: '...', secret: '...' }).
func keyArg(v string, named bool) bool {
	if len(v) >= 24 && len(v) <= 64 && hexOnly(v) && !sameChar(strings.ReplaceAll(v, "-", "")) {
		return strings.Count(v, "-") == 0 || uuidShape(v)
	}
	return (len(v) >= 24 || named && len(v) >= 16) && b64url(v) && mixedCase(v)
}

// secretArgName reports whether the string whose text starts at text[s] follows a name for a
// secret and a colon or an equals sign: key: '...', apiSecret = "...".
func secretArgName(text string, s int) bool {
	i := s - 1 // the opening quote
	for i > 0 && strings.IndexByte(" \t:=", text[i-1]) >= 0 {
		i--
	}
	if i == s-1 {
		return false
	}
	j := i
	for j > 0 && (isLower(text[j-1]|0x20) || text[j-1] == '_' || text[j-1] >= '0' && text[j-1] <= '9') {
		j--
	}
	n := strings.ToLower(text[j:i])
	return strings.Contains(n, "key") || strings.Contains(n, "secret") || strings.Contains(n, "token") ||
		strings.Contains(n, "auth") || strings.Contains(n, "pass")
}

// uuidShape reports whether v is 8-4-4-4-12 hex digits.
func uuidShape(v string) bool {
	if len(v) != 36 {
		return false
	}
	for _, i := range []int{8, 13, 18, 23} {
		if v[i] != '-' {
			return false
		}
	}
	return hexOnly(v)
}

// callArgs reports the string arguments of the call whose arguments start at text[i:], at its
// own depth or inside up to literals levels of object or array literals ({ key: '...', secret:
// '...' }), never inside a call nested in it (open('keystore.json')).
func callArgs(text string, i, literals int) [][2]int {
	var out [][2]int
	depth, calls := 1, 0
	var stack []bool // for each open bracket: whether it opened a call
	for end := min(len(text), i+400); i < end && depth > 0; i++ {
		switch c := text[i]; c {
		case '(':
			depth++
			stack = append(stack, true)
			calls++
		case '[', '{':
			depth++
			stack = append(stack, false)
		case ')', ']', '}':
			depth--
			if n := len(stack); n > 0 {
				if stack[n-1] {
					calls--
				}
				stack = stack[:n-1]
			}
		case '"', '\'', '`':
			j := i + 1
			for j < len(text) && text[j] != c && text[j] != '\n' {
				if text[j] == '\\' {
					j++
				}
				j++
			}
			if j >= len(text) || text[j] != c {
				return out
			}
			if calls == 0 && depth <= 1+literals && j > i+1 {
				out = append(out, [2]int{i + 1, j})
			}
			i = j
		}
	}
	return out
}

// secretColumn names the kind of secret a table's column or an SQL column holds, from its name,
// or "" for a column of anything else: password, pwd, secret, token, api_key, private key, pk_hex,
// passphrase; not password_hash, token_expires_at, key_id.
func secretColumn(name string) string {
	k := strings.ToLower(strings.Trim(strings.TrimSpace(name), "`\"'[]*"))
	if k == "" || len(k) > 40 {
		return ""
	}
	if k == "key" || k == "keys" {
		return SecretAPIKey // a column of keys: cellSecret wants a key's shape under it
	}
	for _, w := range notSecretColumns {
		if strings.Contains(k, w) {
			return ""
		}
	}
	for i, w := range secretColumns {
		if strings.Contains(k, w) {
			if i >= firstPasswordWordColumn {
				return SecretPassword // пароль, contraseña, 密码: password in another language
			}
			return genericKind(k)
		}
	}
	return ""
}

var (
	secretColumns = []string{"password", "passwd", "passphrase", "pwd", "pass", "secret", "token", "api_key", "apikey",
		"api key", "api-key", "private_key", "private key", "privkey", "pk_hex", "credential", "app_key", "license_key",
		// password in other languages (firstPasswordWordColumn on)
		"пароль", "contraseña", "senha", "passwort", "mot de passe", "密码", "パスワード", "비밀번호",
		// round 15
		"kennwort", "wachtwoord", "mot_de_passe", "motdepasse", "hasło", "haslo", "heslo", "jelszó", "jelszo", "lösenord", "losenord",
		"adgangskode", "passord", "salasana", "şifre", "sifre", "parola", "parolă", "лозинка", "парола", "סיסמה", "סיסמא", "كلمة المرور",
		"رمز عبور", "密碼", "암호", "รหัสผ่าน", "κωδικός", "mật khẩu", "kata sandi", "nenosiri"}
	notSecretColumns = []string{"hash", "hint", "policy", "expir", "_at", "date", "changed", "length", "strength", "reset",
		"_id", " id", "type", "name", "count", "salt", "set", "required", "encrypted", "passed", "bypass", "compass",
		"url", "uri", "endpoint", "path", "file", "mode", "rule", "format"}
)

// columnName reports whether a header cell reads as a column's name: a letter, then up to 39
// letters, digits, spaces, dots, dashes or underscores, in three words at most; not a file name.
func columnName(name string) bool {
	if name == "" || len(name) > 40 || len(strings.Fields(name)) > 3 || knownFile(name) {
		return false
	}
	for i, r := range name {
		if !(unicode.IsLetter(r) || i > 0 && (unicode.IsDigit(r) || strings.ContainsRune(" _.-", r))) {
			return false
		}
	}
	return true
}

// firstPasswordWordColumn is the index in secretColumns of the first word for a password in
// another language.
var firstPasswordWordColumn = slices.Index(secretColumns, "пароль")

// aboutSecretColumns name a column of a table about passwords rather than of credentials.
var aboutSecretColumns = []string{"strength", "score", "entropy", "crack", "example", "sample", "weak", "guess"}

// cellSecret decides on a table cell under a secret column: a value of one piece that
// genericValue would take after the column's name.
func cellSecret(kind, col, v string) bool {
	v = strings.TrimSpace(v)
	if q := strings.Trim(v, "`\"'"); len(q) == len(v)-2 {
		v = q
	}
	if v == "" || strings.ContainsAny(v, " \t") || v == "NULL" || v == "null" || v == "-" || v == "—" || knownFile(v) {
		return false
	}
	if c := strings.ToLower(strings.Trim(strings.TrimSpace(col), "`\"'[]*")); (c == "key" || c == "keys") && !keyShapedCell(v) {
		return false // a column named key alone: a lookup key, a label's key, unless the value is a key's
	}
	if kind == SecretPassword && (columnPassword(v) || dashedPassword(v) || ordinaryPassword(v) || generatedCell(v)) {
		return true // @Lighthouse_2012, velvet-uazw! under a password column
	}
	if kind == SecretPassword && !passwordToken(v) && !labelledPassword(v) && !(len(v) >= 8 && letters(v) >= 2 && digits(v) >= 1) {
		return false // "test,pass\nlogin,PASS": a result, not a password
	}
	return genericValue(kind, col, "=", v, true)
}

// findTableSecrets reports the cells under a secret column of a CSV or Markdown table: a header
// line of names, one of which names a secret ("service,user,password", "| login | password |"),
// and the rows after it with as many cells.
func findTableSecrets(text, lo string) []found {
	if len(lo) != len(text) || !strings.ContainsAny(text, ",|\t;") || strings.IndexByte(text, '\n') < 0 || !tableShaped(text) && !semicolonShaped(text, lo) {
		return nil
	}
	var out []found
	for hs := 0; hs < len(text); {
		he := lineEnd(text, hs)
		if he >= len(text) {
			break
		}
		header, ns := text[hs:he], he+1
		next := text[ns:lineEnd(text, ns)]
		hline := [2]int{hs, he}
		hs = ns
		sep := byte(',')
		if nb := strings.Count(header, "|"); nb >= 2 && nb == strings.Count(next, "|") {
			sep = '|'
		} else if nt := strings.Count(header, "\t"); nt >= 1 && nt == strings.Count(next, "\t") {
			sep = '\t'
		} else if nc := strings.Count(header, ","); nc >= 1 && nc == strings.Count(next, ",") {
			sep = ','
		} else if nsc := strings.Count(header, ";"); nsc >= 2 && nsc == strings.Count(next, ";") {
			sep = ';'
		} else {
			continue
		}
		if sep == '|' && !strings.HasPrefix(strings.TrimSpace(header), "|") && strings.HasPrefix(strings.TrimSpace(next), "|") {
			hline[0] += strings.IndexByte(header, '|') // "Review (4/5): | Service | Key |": the table starts at its first bar
			header = text[hline[0]:hline[1]]
		}
		if len(header) > 400 || !anyIn(lo[hline[0]:hline[1]], secretColumns) && !strings.Contains(lo[hline[0]:hline[1]], "key") {
			continue
		}
		names := cells(text, hline, sep)
		if len(names) < 2 {
			continue
		}
		kinds := make([]string, len(names))
		any := false
		for i, c := range names {
			name := text[c[0]:c[1]]
			if !columnName(name) {
				any = false
				break
			}
			if kinds[i] = secretColumn(name); kinds[i] != "" {
				any = true
			}
		}
		if !any || anyIn(strings.ToLower(header), aboutSecretColumns) {
			continue // "password,strength": a table about passwords
		}
		for rs := ns; rs < len(text); {
			re := lineEnd(text, rs)
			row, line := text[rs:re], [2]int{rs, re}
			rs = re + 1
			if sep == '|' && strings.Trim(row, "|-: \t") == "" && strings.Contains(row, "-") {
				continue // the Markdown rule under the header
			}
			cs := cells(text, line, sep)
			if len(cs) != len(names) {
				break
			}
			for i, c := range cs {
				if kinds[i] != "" && cellSecret(kinds[i], text[names[i][0]:names[i][1]], text[c[0]:c[1]]) {
					out = append(out, found{c[0], c[1], kinds[i]})
				}
			}
		}
	}
	return out
}

// lineEnd is the end of the line starting at text[s:]: its line break or the end of text.
func lineEnd(text string, s int) int {
	if i := strings.IndexByte(text[s:], '\n'); i >= 0 {
		return s + i
	}
	return len(text)
}

// found is a credential at text[s:e] of the given kind.
type found struct {
	s, e int
	kind string
}

// tableShaped reports whether two lines in a row hold as many commas, or as many bars, and at
// least one: the fast test that a text may hold a table.
func tableShaped(text string) bool {
	pc, pb, pt, c, b, t := -1, -1, -1, 0, 0, 0
	for i := 0; i <= len(text); i++ {
		if i == len(text) || text[i] == '\n' {
			if c > 0 && c == pc || b > 1 && b == pb || t > 0 && t == pt {
				return true
			}
			pc, pb, pt, c, b, t = c, b, t, 0, 0, 0
			continue
		}
		switch text[i] {
		case ',':
			c++
		case '|':
			b++
		case '\t':
			t++
		}
	}
	return false
}

// semicolonShaped reports whether two lines in a row hold as many semicolons, two at least, in a
// text that names a password or a secret: the fast test that a text may hold a
// semicolon-separated table of credentials (code's lines hold semicolons too).
func semicolonShaped(text, lo string) bool {
	if strings.IndexByte(text, ';') < 0 || !anyIn(lo, []string{"pass", "pwd", "secret", "token", "key", "пароль", "contraseña", "senha",
		"kennwort", "wachtwoord", "hasło", "haslo", "heslo", "jelsz", "lösenord", "adgangskode", "salasana", "şifre", "sifre", "parola", "密码", "密碼"}) {
		return false
	}
	p, n := -1, 0
	for i := 0; i <= len(text); i++ {
		if i == len(text) || text[i] == '\n' {
			if n > 1 && n == p {
				return true
			}
			p, n = n, 0
		} else if text[i] == ';' {
			n++
		}
	}
	return false
}

// anyIn reports whether lo holds one of ws.
func anyIn(lo string, ws []string) bool {
	for _, w := range ws {
		if strings.Contains(lo, w) {
			return true
		}
	}
	return false
}

// lineSpans are the start and end of each line of text.
func lineSpans(text string) [][2]int {
	var out [][2]int
	for s := 0; s <= len(text); {
		e := strings.IndexByte(text[s:], '\n')
		if e < 0 {
			out = append(out, [2]int{s, len(text)})
			break
		}
		out = append(out, [2]int{s, s + e})
		s += e + 1
	}
	return out
}

// cells are the trimmed cells of a line split at sep; a Markdown row's outer bars start and end
// no cell.
func cells(text string, line [2]int, sep byte) [][2]int {
	s, e := line[0], line[1]
	for s < e && (text[s] == ' ' || text[s] == '\t') {
		s++
	}
	for e > s && (text[e-1] == ' ' || text[e-1] == '\t' || text[e-1] == '\r') {
		e--
	}
	if sep == '|' {
		if s < e && text[s] == '|' {
			s++
		}
		if e > s && text[e-1] == '|' {
			e--
		}
	}
	var out [][2]int
	for a := s; a <= e; {
		b := strings.IndexByte(text[a:e], sep)
		end := e
		if b >= 0 {
			end = a + b
		}
		cs, ce := a, end
		for cs < ce && (text[cs] == ' ' || text[cs] == '\t') {
			cs++
		}
		for ce > cs && (text[ce-1] == ' ' || text[ce-1] == '\t') {
			ce--
		}
		if ce-cs >= 2 && (text[cs] == '"' && text[ce-1] == '"' || text[cs] == '\'' && text[ce-1] == '\'') {
			cs, ce = cs+1, ce-1
		}
		out = append(out, [2]int{cs, ce})
		if b < 0 {
			break
		}
		a = end + 1
	}
	return out
}

// sqlInsert reads INSERT INTO table (columns) VALUES (...), (...): the columns and where the first
// row starts.
var sqlInsert = regexp.MustCompile(`(?i)\binsert[ \t]+(?:ignore[ \t]+)?into[ \t]+[\w."` + "`" + `\[\]]+[ \t]*\(([^()\n]{1,400})\)[ \t\n]*values[ \t\n]*\(`)

// findInsertSecrets reports the values an SQL INSERT puts into a secret column (password,
// api_secret, pk_hex, ...), read as after the column's name.
func findInsertSecrets(text, lo string) []found {
	if !strings.Contains(lo, "insert") {
		return nil
	}
	var out []found
	for _, m := range sqlInsert.FindAllStringSubmatchIndex(text, -1) {
		var names []string
		for _, c := range strings.Split(text[m[2]:m[3]], ",") {
			names = append(names, strings.TrimSpace(c))
		}
		kinds := make([]string, len(names))
		any := false
		for i, n := range names {
			if kinds[i] = secretColumn(n); kinds[i] != "" {
				any = true
			}
		}
		if !any {
			continue
		}
		// each row: (v1, v2, ...), separated by commas, up to ';' or the end
		for i := m[1]; i < len(text); {
			vals, end := sqlRow(text, i)
			if len(vals) == len(names) {
				for k, v := range vals {
					if kinds[k] != "" && cellSecret(kinds[k], names[k], text[v[0]:v[1]]) {
						out = append(out, found{v[0], v[1], kinds[k]})
					}
				}
			}
			j := end
			for j < len(text) && (text[j] == ' ' || text[j] == '\t' || text[j] == '\n' || text[j] == '\r' || text[j] == ',') {
				j++
			}
			if j >= len(text) || text[j] != '(' {
				break
			}
			i = j + 1
		}
	}
	return out
}

// sqlRow reads the values of one row starting after its '(' at text[i:]: quoted strings (their
// insides) and bare values, up to the closing ')'; end is just after it.
func sqlRow(text string, i int) (vals [][2]int, end int) {
	for i < len(text) && len(vals) < 64 {
		for i < len(text) && (text[i] == ' ' || text[i] == '\t' || text[i] == '\n') {
			i++
		}
		if i >= len(text) {
			return vals, i
		}
		switch c := text[i]; {
		case c == '\'' || c == '"':
			j := i + 1
			for j < len(text) && text[j] != c {
				if text[j] == '\\' {
					j++
				}
				j++
			}
			if j >= len(text) {
				return vals, j
			}
			vals = append(vals, [2]int{i + 1, j})
			i = j + 1
		default:
			j := i
			depth := 0
			for j < len(text) && (depth > 0 || text[j] != ',' && text[j] != ')') {
				if text[j] == '(' {
					depth++
				} else if text[j] == ')' {
					depth--
				}
				j++
			}
			vals = append(vals, [2]int{i, j})
			i = j
		}
		for i < len(text) && (text[i] == ' ' || text[i] == '\t' || text[i] == '\n') {
			i++
		}
		if i >= len(text) {
			return vals, i
		}
		if text[i] == ')' {
			return vals, i + 1
		}
		if text[i] != ',' {
			return nil, i
		}
		i++
	}
	return vals, i
}

// findEncodedData reports the values of a Kubernetes Secret's data (or any "data:" map of
// base64 values) that decode to a credential: the decoded value after its key is read as
// "KEY=value" by the rules, so STRIPE_KEY: <base64 of sk_live_...> and DB_PASSWORD: <base64 of a
// password> go and LOG_LEVEL: <base64 of info> stays. Under stringData the value is read as is.
func findEncodedData(text, lo string) []found {
	if !strings.Contains(lo, "data:") {
		return nil
	}
	var out []found
	lines := lineSpans(text)
	for h := 0; h < len(lines); h++ {
		head := strings.TrimSpace(text[lines[h][0]:lines[h][1]])
		if head != "data:" && head != "stringData:" {
			continue
		}
		indent := -1
		for r := h + 1; r < len(lines); r++ {
			line := text[lines[r][0]:lines[r][1]]
			body := strings.TrimLeft(line, " \t")
			in := len(line) - len(body)
			if body == "" {
				continue
			}
			if indent < 0 {
				indent = in
			}
			if in != indent || in == 0 {
				break
			}
			key, val, ok := strings.Cut(body, ":")
			val = strings.TrimSpace(val)
			if !ok || key == "" || strings.ContainsAny(key, " \t") || val == "" {
				continue
			}
			uq := strings.Trim(val, "\"'")
			plain := uq
			if head == "data:" {
				dec, err := base64.StdEncoding.DecodeString(uq)
				if err != nil || len(dec) < 6 || !printable(string(dec)) {
					continue
				}
				plain = string(dec)
			}
			if len(FindSecrets(key+"="+plain)) == 0 && len(FindSecrets(plain)) == 0 {
				continue
			}
			s := lines[r][0] + len(line) - len(strings.TrimLeft(line, " \t")) + len(key) + 1
			s += strings.Index(text[s:lines[r][1]], uq)
			out = append(out, found{s, s + len(uq), genericKind(key)})
		}
	}
	return out
}

// printable reports whether s is text of one line: no control characters, valid UTF-8.
func printable(s string) bool {
	if !utf8.ValidString(s) {
		return false
	}
	for _, r := range s {
		if r < 0x20 || r == 0x7f {
			return false
		}
	}
	return true
}
