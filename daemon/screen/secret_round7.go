package screen

import (
	"strings"
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
	// user : password after a word for credentials: "creds for the staging admin -> lin.wei : X"
	srule(SecretPassword, []string{"login", "creds", "credentials", "account", "access"},
		`(?i)\b(?:login|logins|creds|credentials|account|access)\b[^\n]{0,40}?[ \t][\w.\-]{2,32}[ \t]+:[ \t]+([^\s]{5,63}[^\s.,;:)'"])`, 1,
		func(v, _ string) bool { return passwordToken(v) }),
	// a conventional administrator's name, a slash and a password: "root / X", "admin/X"
	srule(SecretPassword, []string{"/"},
		`(?i)(?:^|[\s'"(`+"`"+`])(?:root|admin|administrator|ubuntu|deploy|deployer|postgres|sa|pi|ec2-user|debian|centos|oracle|ftpuser|guest|operator|support|webmaster)[ \t]*/[ \t]*([^\s'"`+"`"+`]{5,63}[^\s.,;:)'"`+"`"+`])`, 1,
		func(v, _ string) bool { return passwordToken(v) }),
}

func init() {
	addRules(round7SecretRules)
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
	"pg_connect(", ".login(", "bind_s(", ".bind(", "usernamepasswordcredentials(", "passwordauthentication(",
	"httpbasicauth(", "basicauth(", "digestauth(", "passwordcredential(", "credential(", "smtp.start(",
	"ftp.open(", "setcredentials(", "withcredentials(", "authenticate("}

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
			if c[0] != '.' && at > 0 && (isLower(lo[at-1]) || lo[at-1] >= '0' && lo[at-1] <= '9' || lo[at-1] == '_') &&
				!strings.HasSuffix(lo[:at], "new ") {
				continue // another name: "mycredential(" is not "credential("
			}
			for _, a := range callArgs(text, from) {
				if v := text[a[0]:a[1]]; passwordToken(v) && !strings.ContainsAny(v, "/\\") {
					out = append(out, a)
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
			for _, a := range callArgs(text, j) {
				if v := text[a[0]:a[1]]; keyArg(v) || passwordToken(v) && !strings.ContainsAny(v, "/\\") {
					keys = append(keys, a)
				}
			}
		}
	}
	return out, keys
}

// keyArg reports whether a client's string argument is shaped as a key: a UUID, 24 or more hex
// digits, or 16 or more random letters and digits of both cases.
func keyArg(v string) bool {
	if len(v) >= 24 && len(v) <= 64 && hexOnly(v) && !sameChar(strings.ReplaceAll(v, "-", "")) {
		return strings.Count(v, "-") == 0 || uuidShape(v)
	}
	return len(v) >= 16 && b64url(v) && mixedCase(v)
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
// own depth or inside one object or array literal ({ key: '...', secret: '...' }), not inside a
// call nested in it (open('keystore.json')).
func callArgs(text string, i int) [][2]int {
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
			if calls == 0 && depth <= 2 && j > i+1 {
				out = append(out, [2]int{i + 1, j})
			}
			i = j
		}
	}
	return out
}
