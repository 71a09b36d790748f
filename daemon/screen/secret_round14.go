package screen

import (
	"regexp"
	"strings"
)

// Round 14: passwords set by their column in more table layouts, by their place in a login call,
// by speech around them, and by the shape of a command or a file that carries them.

// dashedPassword reports a password of three to six small words joined by dashes, as a password
// manager makes them (tulipan-tartine-harbor): each of 3 to 12 letters and no little word of
// prose, 14 characters or more; dashedWords takes four words or more anywhere.
func dashedPassword(v string) bool {
	if len(v) < 14 || len(v) > 80 {
		return false
	}
	parts := strings.Split(v, "-")
	if len(parts) < 3 || len(parts) > 6 {
		return false
	}
	for _, p := range parts {
		if len(p) < 3 || len(p) > 12 || strings.Trim(p, "abcdefghijklmnopqrstuvwxyz") != "" || phraseStopWords[p] {
			return false
		}
	}
	return true
}

// masked reports a value that hides the secret: bullets, stars, crosses.
func masked(v string) bool {
	v = strings.TrimSpace(v)
	return v != "" && strings.Trim(v, "•●*·xX∙◦.…") == ""
}

// referenceSuffixes end a name whose value points at a secret rather than holding it:
// passwordRef, secret_name, keyId, password_file, token_env.
var referenceSuffixes = []string{"ref", "reference", "name", "id", "file", "path", "env"}

// referenceName reports whether the value at text[s] is given to a name that refers to a
// secret (<passwordRef>erp-db</passwordRef>, secretName: db-creds, password_file=/run/x): a
// secret's word, then one of referenceSuffixes, right before the value.
func referenceName(text string, s int) bool {
	i := s
	for i > 0 && s-i < 6 && strings.IndexByte(" \t\"'>:=", text[i-1]) >= 0 {
		i--
	}
	j := i
	for j > 0 && i-j < 40 && (IsAlnum(text[j-1]) || text[j-1] == '_' || text[j-1] == '-') {
		j--
	}
	if j == i || i == s {
		return false
	}
	name := strings.ToLower(text[j:i])
	if !strings.Contains(name, "pass") && !strings.Contains(name, "secret") && !strings.Contains(name, "token") && !strings.Contains(name, "key") {
		return false
	}
	for _, suf := range referenceSuffixes {
		if strings.HasSuffix(name, suf) && len(name) > len(suf) {
			c := text[i-len(suf)]
			p := text[i-len(suf)-1]
			if c >= 'A' && c <= 'Z' || p == '_' || p == '-' {
				return true // passwordRef, secret_name: the suffix is a word of its own
			}
		}
	}
	return false
}

// heardPassword reports a value said or typed as a password: one of the shapes a password takes
// and no word of a sentence.
func heardPassword(v string) bool {
	if len(v) < 6 || len(v) > 64 || placeholderWord(v) || secretRef(v) || masked(v) || strings.Contains(v, "://") {
		return false
	}
	return dashedPassword(v) || secretArg(v) || passwordToken(v) && (digits(v) > 0 || classes(v) >= 3)
}

var (
	// A Markdown or HTML table's row and cell.
	htmlRow  = regexp.MustCompile(`(?is)<tr[^>]*>(.*?)</tr>`)
	htmlCell = regexp.MustCompile(`(?is)<(t[hd])[^>]*>(.*?)</t[hd]>`)
	// A spreadsheet's cell given by its reference: "C1: Pass", "C2: value".
	sheetCell = regexp.MustCompile(`\b([A-Z])([0-9]{1,4}):[ \t]*([^\s]+(?: [^\s:]+)?)`)
)

// passwordColumn reports whether a column's name names a password or a secret.
func passwordColumn(name string) bool {
	n := strings.ToLower(strings.Trim(strings.TrimSpace(name), "*`'\":"))
	switch n {
	case "password", "passwd", "pass", "pwd", "passphrase", "secret", "passwort", "contraseña", "senha", "mot de passe", "пароль", "jelszó", "lösenord",
		"kennwort", "wachtwoord", "hasło", "heslo", "adgangskode", "passord", "salasana", "şifre", "parola", "密码", "密碼", "パスワード", "비밀번호", "סיסמה":
		return true
	}
	return false
}

// has reports whether lo holds k, asking the pairs first.
func has(lo string, pairs *bytePairs, k string) bool {
	return pairs.may(k) && strings.Contains(lo, k)
}

// anyRest lets nearMatches try every window.
func anyRest(string) bool { return true }

// sheetHeader reports whether text holds a first-row cell reference (A1:, C1:) as a word of its
// own: the fast test that a text may hold a spreadsheet given by cell references.
func sheetHeader(text string) bool {
	for from := 0; ; {
		i := strings.Index(text[from:], "1:")
		if i < 0 {
			return false
		}
		at := from + i
		from = at + 2
		if at >= 1 && text[at-1] >= 'A' && text[at-1] <= 'Z' && (at == 1 || !IsAlnum(text[at-2])) {
			return true
		}
	}
}

// findHTMLTableSecrets reports the cells under a password column of an HTML table (a row of
// <th> names, rows of <td> after it) and of a spreadsheet given by cell references (A1: Account
// B1: Email C1: Pass, then C2: the password).
func findHTMLTableSecrets(text, lo string, pairs *bytePairs) []found {
	var out []found
	if has(lo, pairs, "<th") && has(lo, pairs, "<td") {
		col := -1
		for _, r := range htmlRow.FindAllStringSubmatchIndex(text, -1) {
			cs := htmlCell.FindAllStringSubmatchIndex(text[r[2]:r[3]], -1)
			if len(cs) > 0 && strings.EqualFold(text[r[2]+cs[0][2]:r[2]+cs[0][3]], "th") {
				col = -1
				for i, c := range cs {
					if passwordColumn(text[r[2]+c[4] : r[2]+c[5]]) {
						col = i
					}
				}
				continue
			}
			if col >= 0 && col < len(cs) {
				s, e := r[2]+cs[col][4], r[2]+cs[col][5]
				if v := strings.TrimSpace(text[s:e]); givenPassword(v) || columnPassword(v) {
					s += strings.Index(text[s:e], v)
					out = append(out, found{s, s + len(v), SecretPassword})
				}
			}
		}
	}
	if has(lo, pairs, "1:") && has(lo, pairs, "2:") && sheetHeader(text) {
		cols := map[byte]bool{}
		for _, m := range sheetCell.FindAllStringSubmatchIndex(text, -1) {
			c, row, v := text[m[2]], text[m[4]:m[5]], text[m[6]:m[7]]
			if row == "1" {
				cols[c] = passwordColumn(v)
				continue
			}
			if cols[c] && !strings.Contains(v, " ") && (givenPassword(v) || columnPassword(v)) {
				out = append(out, found{m[6], m[7], SecretPassword})
			}
		}
	}
	return out
}

var (
	// A value typed into an input whose selector names a password (Cypress, Playwright,
	// Selenium, WebdriverIO): cy.get("input[name=pass]").type("..."), page.fill("#password",
	// "..."), find_element(By.ID, "pwd").send_keys("...").
	typedPassword = regexp.MustCompile(`(?i)["'][^"'\n]{0,60}(?:pass|pwd)[^"'\n]{0,40}["'][ \t]*\)?[ \t]*\)?[ \t]*\.(?:type|fill|send_keys|sendkeys|setvalue|press_sequentially)\([ \t]*["']([^"'\n]{6,128})["']` +
		`|\b(?:fill|type)\([ \t]*["'][^"'\n]{0,60}(?:pass|pwd)[^"'\n]{0,40}["'][ \t]*,[ \t]*["']([^"'\n]{6,128})["']`)
	// libcurl's user and password in one string.
	curlUserPwd = regexp.MustCompile(`CURLOPT_USERPWD[ \t]*,[ \t]*"[^":\n]{1,64}:([^"\n]{6,128})"`)
	// A typed field's default: Kotlin's val secret: String = "...", Swift's let password:
	// String = "...", TypeScript's password: string = "...", Python's password: str = "...".
	typedDefault = regexp.MustCompile(`(?i)\b[a-z_]*(?:password|passwd|secret|passphrase|pwd)[ \t]*:[ \t]*(?:string|str|String)\??[ \t]*=[ \t]*"([^"\n]{6,128})"`)
	// A form filled with a user and a password in a test: form.fill("ops", "...").
	fillPair = regexp.MustCompile(`\.(?:fill|fillIn|fill_in|enter|submit|signIn|sign_in|logIn|log_in)\([ \t]*["']([^"'\n]{1,64})["'][ \t]*,[ \t]*["']([^"'\n]{6,128})["'][ \t]*\)`)
)

// notPasswordInputs name inputs whose selector holds "pass" but no password.
var notPasswordInputs = []string{"passport", "passenger", "bypass", "compass", "passage", "passed"}

// findTypedPasswords reports passwords typed into a password input, given to libcurl with the
// user, defaulted in a typed field, or filled in a form after a user's name.
func findTypedPasswords(text, lo string, pairs *bytePairs) []found {
	var out []found
	if has(lo, pairs, "pass") || has(lo, pairs, "pwd") {
		for _, m := range nearMatches(typedPassword, text, lo, []string{"type(", "fill(", "send_keys(", "sendkeys(", "setvalue(", "press_sequentially("}, false, 200, anyRest) {
			for g := 1; g <= 2; g++ {
				if m[2*g] >= 0 && givenPassword(text[m[2*g]:m[2*g+1]]) && !anyIn(lo[m[0]:m[2*g]], notPasswordInputs) {
					out = append(out, found{m[2*g], m[2*g+1], SecretPassword})
				}
			}
		}
	}
	if has(lo, pairs, "userpwd") {
		for _, m := range curlUserPwd.FindAllStringSubmatchIndex(text, -1) {
			if heardPassword(text[m[2]:m[3]]) {
				out = append(out, found{m[2], m[3], SecretPassword})
			}
		}
	}
	if has(lo, pairs, ":") && has(lo, pairs, "str") {
		for _, m := range nearMatches(typedDefault, text, lo, []string{": str", ":str"}, false, 150, anyRest) {
			if heardPassword(text[m[2]:m[3]]) {
				out = append(out, found{m[2], m[3], SecretPassword})
			}
		}
	}
	if has(lo, pairs, "(\"") || has(lo, pairs, "('") {
		for _, m := range nearMatches(fillPair, text, lo, []string{".fill", ".enter(", ".submit(", ".signin(", ".sign_in(", ".login(", ".log_in("}, false, 200, anyRest) {
			if u, v := text[m[2]:m[3]], text[m[4]:m[5]]; userArg(u) && (dashedPassword(v) || secretArg(v) && upLowDigit(v)) && !strings.Contains(lo[max(0, m[0]-200):m[0]], "mock") ||
				userArg(u) && (dashedPassword(v) || secretArg(v) && upLowDigit(v)) && strings.Contains(lo[max(0, m[0]-200):m[0]], "login") {
				out = append(out, found{m[4], m[5], SecretPassword})
			}
		}
	}
	return out
}

var (
	// Webhooks by their path, whatever the host: a Discord-style /api/webhooks/<id>/<token> and
	// a Slack-style /services/T.../B.../<secret>.
	webhookPath = regexp.MustCompile(`/api/webhooks/[0-9]{17,20}/([A-Za-z0-9_-]{60,100})\b` +
		`|/services/T[A-Z0-9]{8,12}/B[A-Z0-9]{8,12}/([A-Za-z0-9]{24})\b`)
	// A node's RPC link with the project's key in its path: /v3/<32 hex>.
	rpcKeyPath = regexp.MustCompile(`\b(?:https?|wss?)://[A-Za-z0-9.-]+(?::[0-9]+)?(?:/ws)?/v3/([0-9a-f]{32})\b`)
	// A password that holds @ in a link: the last @ before the host ends it.
	atPassword = regexp.MustCompile(`\b[a-z][a-z0-9+.-]{1,20}://[^:/\s@]{1,64}:([^\s/@]*@[^\s/]*)@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)+`)
	// A Tendermint or Cosmos private key as JSON.
	tendermintKey = regexp.MustCompile(`"type"[ \t]*:[ \t]*"tendermint/PrivKey[A-Za-z0-9]*"[ \t]*,[ \t]*"value"[ \t]*:[ \t]*"([A-Za-z0-9+/]{40,}={0,2})"`)
)

// findShapedRound14 reports webhooks by their path, RPC keys in a link's path, a link's
// password that holds an @, and a Tendermint private key.
func findShapedRound14(text, lo string, pairs *bytePairs) []found {
	var out []found
	if has(lo, pairs, "/api/webhooks/") || has(lo, pairs, "/services/t") {
		for _, m := range webhookPath.FindAllStringSubmatchIndex(text, -1) {
			for g := 1; g <= 2; g++ {
				if m[2*g] >= 0 && entropy(text[m[2*g]:m[2*g+1]]) >= 3.5 {
					out = append(out, found{m[2*g], m[2*g+1], SecretToken})
				}
			}
		}
	}
	if has(lo, pairs, "/v3/") {
		for _, m := range rpcKeyPath.FindAllStringSubmatchIndex(text, -1) {
			if entropy(text[m[2]:m[3]]) >= 3.3 {
				out = append(out, found{m[2], m[3], SecretAPIKey})
			}
		}
	}
	if has(lo, pairs, "://") && strings.Count(text, "@") >= 2 {
		for _, m := range atPassword.FindAllStringSubmatchIndex(text, -1) {
			if v := text[m[2]:m[3]]; len(v) >= 6 && !placeholder(v) {
				out = append(out, found{m[2], m[3], SecretPassword})
			}
		}
	}
	if has(lo, pairs, "tendermint/") {
		for _, m := range tendermintKey.FindAllStringSubmatchIndex(text, -1) {
			out = append(out, found{m[2], m[3], SecretPrivateKey})
		}
	}
	return out
}

var (
	// Secrets given to commands: restic's --password-command 'echo ...', a here-string to
	// --passwd-on-stdin or --password-stdin, SNMP's auth and privacy passphrases and community.
	commandSecret = regexp.MustCompile(`(?i)--password-command[ =]+["']?(?:echo|printf)[ \t]+["']?([^\s"']{6,128})` +
		`|--(?:passwd|password)-(?:on-)?stdin[^\n<]{0,40}<<<[ \t]*["']?([^\s"']{6,128})`)
	snmpCommand = regexp.MustCompile(`\bsnmp(?:walk|get|getnext|set|bulkwalk|bulkget|table|trap|inform|status|df|netstat)\b[^\n]*`)
	snmpSecret  = regexp.MustCompile(`(?:^|[ \t])-(?:A|X|c)[ \t]*["']?([^\s"']{4,128})`)
	// A pre-shared key after its name: PSK 433d..., psk=..., _SNMP_COMMUNITY ...
	pskValue       = regexp.MustCompile(`\b(?:PSK|psk)[ \t]*[:=]?[ \t]*([0-9a-fA-F]{32,128})\b`)
	snmpCommunity  = regexp.MustCompile(`(?i)snmp_?community[ \t]*[:=]?[ \t]+["']?([A-Za-z0-9!@#$%^&*_.+=-]{6,64})`)
	publicCommunty = map[string]bool{"public": true, "private": true}
)

// findCommandSecrets reports passwords given to commands by shape.
func findCommandSecrets(text, lo string, pairs *bytePairs) []found {
	var out []found
	if has(lo, pairs, "--pass") {
		for _, m := range commandSecret.FindAllStringSubmatchIndex(text, -1) {
			for g := 1; g <= 2; g++ {
				if m[2*g] >= 0 {
					if v := text[m[2*g]:m[2*g+1]]; !strings.HasPrefix(v, "$") && heardPassword(v) {
						out = append(out, found{m[2*g], m[2*g+1], SecretPassword})
					}
				}
			}
		}
	}
	if has(lo, pairs, "snmp") {
		for _, c := range snmpCommand.FindAllStringIndex(text, -1) {
			for _, m := range snmpSecret.FindAllStringSubmatchIndex(text[c[0]:c[1]], -1) {
				v := text[c[0]+m[2] : c[0]+m[3]]
				if !publicCommunty[strings.ToLower(v)] && !strings.HasPrefix(v, "$") && !placeholder(v) {
					out = append(out, found{c[0] + m[2], c[0] + m[3], SecretPassword})
				}
			}
		}
		for _, m := range nearMatches(snmpCommunity, text, lo, []string{"snmp_community", "snmpcommunity"}, false, 120, anyRest) {
			if v := text[m[2]:m[3]]; !publicCommunty[strings.ToLower(v)] && !placeholder(v) && digits(v) > 0 && letters(v) > 0 {
				out = append(out, found{m[2], m[3], SecretPassword})
			}
		}
	}
	if has(lo, pairs, "psk") {
		for _, m := range nearMatches(pskValue, text, lo, []string{"psk"}, false, 200, anyRest) {
			if entropy(text[m[2]:m[3]]) >= 3 {
				out = append(out, found{m[2], m[3], SecretPassword})
			}
		}
	}
	return out
}

var (
	// Speech: "just type X that's the password", "use X for now" about a lock-out.
	saidPassword = regexp.MustCompile(`(?i)\b(?:type|enter|use|try|put in)[ \t]+([^\s,]{6,64}),?[ \t]+(?:that'?s|that is|it'?s|which is)[ \t]+(?:the|your|my|our)[ \t]+(?:new[ \t]+|temp[ \t]+|temporary[ \t]+)?(?:password|passcode|pass)\b`)
	forNow       = regexp.MustCompile(`(?i)\buse[ \t]+([^\s,]{8,64})[ \t]+for now\b`)
	// A chat's question about a password and the next turn's answer alone.
	chatAnswer = regexp.MustCompile(`(?m)^[^\n:]{1,40}:[^\n]*\bpassword\b[^\n]*\?[ \t]*\n[^\n:]{1,40}:[ \t]*([^\s]{6,64})[ \t]*$`)
	// A user and its password in a chat line: "user reporting, pass ...".
	userPass = regexp.MustCompile(`(?i)\buser[ \t]+[A-Za-z0-9._@-]{1,64}[ \t]*,[ \t]*(?:pass|pw|pwd|password)[ \t]*:?[ \t]+([^\s,]{6,64})`)
	// Password words of other languages: Hungarian "jelszó ...: X", Swedish "lösenordet ... är X".
	otherPassword = regexp.MustCompile(`(?i)\bjelsz(?:ó|ava|avam|avad)[^\n:]{0,40}:[ \t]*([^\s,]{6,64})` +
		`|\blösenord(?:et)?\b[^\n]{0,40}?[ \t]är[ \t]+([^\s,]{6,64})`)
	// A login given as user / password after a login word: "admin login: owner / ...",
	// <dd>admin / ...</dd> under a <dt> that names an admin.
	slashLogin = regexp.MustCompile(`(?i)\b(?:login|logins|credentials|creds|admin)\b[^\n]{0,30}?(?::|</dt>[ \t]*<dd>)[ \t]*([a-z][a-z0-9._@-]{1,31})[ \t]+/[ \t]+([^\s<,;]{6,64})`)
	// An FTP session's password line after the server asked for it.
	ftpPass = regexp.MustCompile(`(?im)^(?:ftp>|>)?[ \t]*pass[ \t]+([^\s]{6,64})[ \t]*$`)
)

// lockoutWords tell a text that talks about getting in.
var lockoutWords = []string{"locked out", "password", "log in", "login", "sign in", "log on", "passcode"}

// findSpokenPasswords reports passwords in speech and chat: typed or used as the password, the
// answer to a question about one, a user and password pair, the words for a password in other
// languages, user / password after a login word, and an FTP session's pass line.
func findSpokenPasswords(text, lo string, pairs *bytePairs) []found {
	var out []found
	add := func(s, e int) {
		if v := strings.TrimRight(text[s:e], ".!?"); heardPassword(v) {
			out = append(out, found{s, s + len(v), SecretPassword})
		}
	}
	if has(lo, pairs, "pass") {
		for _, m := range nearMatches(saidPassword, text, lo, []string{" password", " passcode", " pass"}, false, 20, anyRest) {
			add(m[2], m[3])
		}
		for _, m := range nearMatches(chatAnswer, text, lo, []string{"password"}, true, 300, func(rest string) bool { return strings.IndexByte(rest, '?') >= 0 }) {
			if v := text[m[2]:m[3]]; dashedPassword(v) || upLowDigit(v) && secretArg(v) {
				add(m[2], m[3])
			}
		}
		for _, m := range nearMatches(userPass, text, lo, []string{"user "}, false, 150, anyRest) {
			add(m[2], m[3])
		}
		if strings.Contains(lo, "331") || strings.Contains(lo, "ftp>") {
			for _, m := range ftpPass.FindAllStringSubmatchIndex(text, -1) {
				add(m[2], m[3])
			}
		}
	}
	if has(lo, pairs, "for now") && anyIn(lo, lockoutWords) {
		for _, m := range nearMatches(forNow, text, lo, []string{" for now"}, false, 10, anyRest) {
			if v := text[m[2]:m[3]]; upLowDigit(v) || dashedPassword(v) {
				add(m[2], m[3])
			}
		}
	}
	if has(lo, pairs, "jelsz") || has(lo, pairs, "lösenord") {
		for _, m := range otherPassword.FindAllStringSubmatchIndex(text, -1) {
			for g := 1; g <= 2; g++ {
				if m[2*g] >= 0 {
					add(m[2*g], m[2*g+1])
				}
			}
		}
	}
	if has(lo, pairs, " / ") {
		for _, m := range nearMatches(slashLogin, text, lo, []string{" / "}, false, 80, anyRest) {
			if v := strings.TrimRight(text[m[4]:m[5]], ".!?"); dashedPassword(v) || upLowDigit(v) || secretArg(v) {
				add(m[4], m[5])
			}
		}
	}
	return out
}

var (
	// OpenVPN's auth-user-pass file shown after it: a user line and a password line.
	authUserPass = regexp.MustCompile(`(?i)auth-user-pass[^\n]*\n(?:[ \t]*\([^\n]*\)[ \t]*\n)?[ \t]*[A-Za-z0-9._@-]{1,64}[ \t]*\n[ \t]*([^\s]{6,128})[ \t]*(?:\n|$)`)
	// Postfix's sasl_passwd line: [host]:port user:password.
	saslLine = regexp.MustCompile(`\[[A-Za-z0-9.-]+\](?::[0-9]{1,5})?[ \t]+[^\s:]{1,64}:([^\s]{6,128})`)
	// A hidden input holding a secret: <input type="hidden" name="api_secret" value="...">.
	hiddenSecret = regexp.MustCompile(`(?i)<input\b[^>]*\bname=["']?[a-z0-9_.-]*(?:secret|password|passwd|api_?key|private_?key|access_?token)["']?[^>]*\bvalue=["']([^"'\n]{16,256})["']`)
	// Android meta-data whose name ends in a secret or token (an API_KEY there is a public
	// maps or SDK key).
	metaSecret = regexp.MustCompile(`<meta-data\b[^>]*android:name="[A-Za-z0-9_.]*(?:SECRET|TOKEN|PRIVATE_KEY|SECRET_KEY|CLIENT_SECRET)"[^>]*android:value="([^"\n]{16,256})"`)
	// An environment map set in code: ENV["SERVICE_KEY"] = "...", os.environ["X_TOKEN"] = "...".
	envAssign = regexp.MustCompile(`(?:ENV|environ|env|process\.env)\[["'][A-Z0-9_]*(?:KEY|SECRET|TOKEN|PASSWORD|PASS)["']\][ \t]*=[ \t]*["']([A-Za-z0-9_\-+/=.]{20,256})["']`)
	// A private key exported as base64 after a label that names it: "gpg private subkey
	// export (base64): ...".
	privateExport = regexp.MustCompile(`(?i)\bprivate[ \t]+(?:sub)?key[^\n:]{0,40}:[ \t]*([A-Za-z0-9+/]{60,}={0,2})`)
	// A passphrase of dashed words after its name, no sign between, beside an API key (an
	// exchange's key, secret and passphrase).
	passphraseWords = regexp.MustCompile(`(?i)\bpassphrase[ \t]+([a-z]{3,12}(?:-[a-z]{3,12}){2,5})\b`)
)

// findFileSecrets reports secrets in the files and markup that carry them by shape.
func findFileSecrets(text, lo string, pairs *bytePairs) []found {
	var out []found
	if has(lo, pairs, "auth-user-pass") {
		for _, m := range authUserPass.FindAllStringSubmatchIndex(text, -1) {
			if heardPassword(text[m[2]:m[3]]) {
				out = append(out, found{m[2], m[3], SecretPassword})
			}
		}
	}
	if has(lo, pairs, "sasl") {
		for _, m := range saslLine.FindAllStringSubmatchIndex(text, -1) {
			if v := text[m[2]:m[3]]; !placeholder(v) && classes(v) >= 2 && !strings.HasPrefix(v, "$") {
				out = append(out, found{m[2], m[3], SecretPassword})
			}
		}
	}
	if has(lo, pairs, "<input") {
		for _, m := range hiddenSecret.FindAllStringSubmatchIndex(text, -1) {
			if v := text[m[2]:m[3]]; !placeholder(v) && entropy(v) >= 3.3 && !strings.ContainsAny(v, " {$") {
				out = append(out, found{m[2], m[3], SecretAPIKey})
			}
		}
	}
	if has(lo, pairs, "meta-data") {
		for _, m := range metaSecret.FindAllStringSubmatchIndex(text, -1) {
			if v := text[m[2]:m[3]]; !placeholder(v) && entropy(v) >= 3.5 && !strings.ContainsAny(v, " @{$") {
				out = append(out, found{m[2], m[3], SecretAPIKey})
			}
		}
	}
	if has(lo, pairs, "\"]") || has(lo, pairs, "']") {
		for _, m := range nearMatches(envAssign, text, lo, []string{"env[", "environ["}, false, 300, anyRest) {
			if v := text[m[2]:m[3]]; !placeholder(v) && entropy(v) >= 3.5 {
				out = append(out, found{m[2], m[3], SecretAPIKey})
			}
		}
	}
	if has(lo, pairs, "private") {
		for _, m := range nearMatches(privateExport, text, lo, []string{"private"}, false, 4000, anyRest) {
			if entropy(text[m[2]:m[3]]) >= 4.5 {
				out = append(out, found{m[2], m[3], SecretPrivateKey})
			}
		}
	}
	if has(lo, pairs, "passphrase") && anyIn(lo, []string{"apikey", "api key", "api_key", "secretkey", "secret key", "secret_key"}) {
		for _, m := range passphraseWords.FindAllStringSubmatchIndex(text, -1) {
			if dashedPassword(text[m[2]:m[3]]) {
				out = append(out, found{m[2], m[3], SecretPassword})
			}
		}
	}
	return out
}

// findRound14 gathers round 14's finders.
func findRound14(text, lo string, pairs *bytePairs) []found {
	if len(lo) != len(text) {
		return nil
	}
	out := findHTMLTableSecrets(text, lo, pairs)
	out = append(out, findTypedPasswords(text, lo, pairs)...)
	out = append(out, findShapedRound14(text, lo, pairs)...)
	out = append(out, findCommandSecrets(text, lo, pairs)...)
	out = append(out, findSpokenPasswords(text, lo, pairs)...)
	return append(out, findFileSecrets(text, lo, pairs)...)
}
