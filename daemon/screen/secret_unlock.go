package screen

import (
	"regexp"
	"strings"
)

// Passwords that unlock something without a password word before them: a key store handed to
// the call that opens it, a password echoed into a tool or a file, a database address without a
// scheme, and second-factor seeds.

// echoed is the value of echo or printf, quoted or bare: groups 1 to 3.
const echoed = `\b(?:echo|printf)(?:[ \t]+-[ne]+)?(?:[ \t]+(?:'%s(?:\\n)?'|"%s(?:\\n)?"))?[ \t]+(?:'([^'\n]{3,})'|"([^"\n]{3,})"|([^\s"'|>)]{3,}))`

var unlockSecretRules = []secretRule{
	// geth --password <(echo '...'): a password file made on the fly.
	srule(SecretPassword, []string{"<("},
		`(?i)--?[a-z\-]*pass[a-z\-]*(?:[ \t]+|=)<\([ \t]*`+echoed, -1, passwordValue),
	// echo '...' > keystore.pass: a password written to a file named for one.
	srule(SecretPassword, []string{"echo"},
		echoed+`[ \t]*>>?[ \t]*[^\s;|&]*(?i:pass|pwd|pw\b|secret)[^\s;|&]*`, -1,
		func(v, m string) bool { return passwordValue(v, m) && !strings.ContainsAny(v, " =") }).withPre(func(text string) bool {
		return strings.Contains(text, ">")
	}),
	// echo '...' | any tool that reads its password from standard input.
	srule(SecretPassword, []string{"stdin", "-fd"},
		echoed+`[ \t]*\|[^\n]*?(?:--password-stdin|--passphrase-stdin|--pass(?:word|phrase)?(?:-file)?[ =]/dev/stdin|--passphrase-fd[ =]0|-passin[ \t]+stdin)`, -1,
		passwordValue),
	// A file named for a password, and what it holds: "pass.txt contains X", "password.txt: X",
	// "keystore.pass has X", "в pass.txt лежит X".
	srule(SecretPassword, []string{"pass", "pwd", "pw.", "secret"},
		`(?i)\b(?:[\w\-]*(?:pass|pwd|pw|secret)[\w\-]*\.(?:txt|dat|cfg|conf)|[\w\-]+\.(?:pass|pwd|secret|password))\b[ \t]*(?:contains|contain|holds|has|reads|says|is|:|=|->|→|enthält|contient|contiene|contém|zawiera|bevat|içeriği|содержит|лежит|містить|里是|にはい?)[ \t]*(?:only[ \t]+|just[ \t]+|the[ \t]+(?:line|text|string|password)[ \t]+)?(?:'([^'\n]{3,})'|"([^"\n]{3,})"|`+"`"+`([^`+"`"+`\n]{3,})`+"`"+`|([^\s"'`+"`"+`]*[^\s"'`+"`"+`.,;:]))`, -1,
		func(v, _ string) bool { return passwordToken(v) || paddedToken(v) || labelledPassword(v) }).withPre(func(text string) bool {
		return strings.Contains(text, ".")
	}),
	// A password given to a tool that logs in with it: az login -p, docker login -p, oc login -p,
	// cf login -p, helm registry login --password, sqlcmd -P, keytool -storepass, wget
	// --password; a flag's value that is a variable ($PASS) or another flag is none.
	srule(SecretPassword, []string{"login", "sqlcmd", "bcp", "keytool", "wget", "lftp"},
		`(?:\b(?:az|docker|podman|nerdctl|buildah|skopeo|helm(?:[ \t]+registry)?|oras|crane|oc|cf|argocd|heroku)[ \t]+(?:auth[ \t]+)?login\b|\b(?:sqlcmd|bcp|keytool|wget|lftp)\b)[^\n|;]*?[ \t](?:-p|-P|--password|--passwd|-storepass|-keypass|-srcstorepass|-deststorepass|--(?:http|ftp)-password|--client-secret)(?:[ \t]+|=)(?:'([^'\n]{3,})'|"([^"\n]{3,})"|([^\s"']{3,}))`, -1,
		func(v, m string) bool { return passwordValue(v, m) && !strings.HasPrefix(v, "-") }),
	// More tools' passwords: lftp -u user,password, rabbitmqctl add_user user password, unrar
	// -pPASSWORD, xfreerdp /p:password, psexec -p password, net use \\host\share password
	// /user:name and net use ... /user:name password.
	srule(SecretPassword, []string{"lftp", "rabbitmqctl", "unrar", "freerdp", "psexec", "paexec", "net use"},
		`(?i)(?:\blftp\b[^\n|;]*?[ \t]-u[ \t]+[^\s,]+,|\brabbitmqctl\b[^\n|;]*?\b(?:add_user|change_password)[ \t]+\S+[ \t]+|\bunrar\b[^\n|;]*?[ \t]-p|\b[a-z\-]*freerdp\b[^\n|;]*?[ \t]/p:|\b(?:ps|pa)exec\b[^\n|;]*?[ \t]-p[ \t]+|\bnet[ \t]+use\b[^\n|;]*?[ \t]/user:\S+[ \t]+|\bnet[ \t]+use[ \t]+(?:[a-z]:[ \t]+)?\\\\\S+[ \t]+)`+
			`(?:'([^'\n]{3,})'|"([^"\n]{3,})"|([^\s"'/]{3,}))`, -1,
		func(v, m string) bool { return passwordValue(v, m) && !strings.HasPrefix(v, "-") }),
	// An app password (Google's and Apple's: four groups of four small letters) after a word for
	// one, in the languages sellers write in.
	{kind: SecretPassword, keywords: appPasswordWords,
		re:    regexp.MustCompile(`\b(?:[a-z]{4} [a-z]{4} [a-z]{4} [a-z]{4}|[a-z]{4}-[a-z]{4}-[a-z]{4}-[a-z]{4}|[a-z]{16})\b`),
		check: appPassword, around: appPasswordContext},
	// bitcoin-cli walletpassphrase "..." 600
	srule(SecretPassword, []string{"walletpassphrase"},
		`\bwalletpassphrase(?:change)?[ \t]+(?:"([^"\n]{3,})"|'([^'\n]{3,})'|([^\s"']{3,}))`, -1, passwordValue),
	// A password given to a tool on its command line: unzip -P, ssh-keygen -N/-P, openssl -k,
	// htpasswd -b file user password, net user name password (one that reads as a password:
	// ".NET user guide" is prose), user:password piped into chpasswd.
	srule(SecretPassword, []string{"unzip", "ssh-keygen", "openssl", "htpasswd", "net user"},
		`(?:\bunzip\b[^\n|;]*?[ \t]-P[ \t]*|\bssh-keygen\b[^\n|;]*?[ \t]-[NP][ \t]*|\bopenssl\b[^\n|;]*?[ \t]-k[ \t]+|\bhtpasswd\b[^\n|;]*?[ \t]-[a-zA-Z]*b[a-zA-Z]*(?:[ \t]+-[a-zA-Z]+)*[ \t]+[^\s-][^\s]*[ \t]+[^\s-][^\s]*[ \t]+|\bnet[ \t]+user[ \t]+[^\s/]+[ \t]+)(?:'([^'\n]{3,})'|"([^"\n]{3,})"|([^\s"']{3,}))`, -1,
		func(v, m string) bool {
			if strings.HasPrefix(strings.ToLower(m), "net") {
				return passwordToken(v)
			}
			return passwordValue(v, m) && !strings.HasPrefix(v, "-")
		}),
	// ssh-keygen -p -P old -N new: the new passphrase after the old one.
	srule(SecretPassword, []string{"ssh-keygen"}, `\bssh-keygen\b[^\n|;]*[ \t]-N[ \t]*(?:'([^'\n]{3,})'|"([^"\n]{3,})"|([^\s"']{3,}))`, -1,
		func(v, m string) bool { return passwordValue(v, m) && !strings.HasPrefix(v, "-") }),
	srule(SecretPassword, []string{"chpasswd"},
		`\becho(?:[ \t]+-[ne]+)?[ \t]+["']?[^\s:'"]+:([^\s'":|]{3,})["']?[ \t]*\|[ \t]*(?:sudo[ \t]+)?chpasswd`, 1, passwordValue),
	// A database address without a scheme: Go's user:password@tcp(host:3306)/db, Oracle's
	// user/password@host (sqlplus, JDBC thin).
	srule(SecretPassword, []string{"@tcp", "@unix", "@udp"},
		`:([^\s@/"'`+"`"+`<>]{1,128})@(?:tcp6?|udp|unix)\(`, 1, passwordValue),
	srule(SecretPassword, []string{"sqlplus", "expdp", "impdp", "sqlldr", ":thin:"},
		`(?i)(?:\b(?:sqlplus|expdp|impdp|sqlldr)\b[^\n|;]*?[ \t]["']?|jdbc:oracle:thin:)[A-Za-z0-9_$#]{1,30}/([^\s@/"']{3,128})@`, 1,
		passwordValue).withPre(func(text string) bool { return strings.Contains(text, "/") && strings.Contains(text, "@") }),
	// secretKey, secret_key, --secret-key: a value as random as after "secret" (an exchange's
	// secret key in hexadecimal capitals too).
	srule(SecretGeneric, []string{"secretkey", "secret_key", "secret-key"},
		`(?i)(?:secret[_\-]?key(?:[_\-]?base)?["']?[ \t]*(?::=|=>|=|:)[ \t]*|(?:^|\s)--?[a-z\-]*secret-key[ \t]+)["'`+"`"+`]?([^\s"'`+"`"+`,;<>]{12,200})`, 1,
		func(v, _ string) bool {
			return !placeholder(v) && !publicValue(v) && entropy(v) >= 3 && classes(v) >= 2
		}),
	// A long random value after "token" without a sign: "cloudflare token ...", "refresh token ...".
	srule(SecretToken, []string{"token"},
		`(?i)\btoken[ \t]+["']?([A-Za-z0-9_\-+/]{32,})`, 1,
		func(v, m string) bool { return apiValue(v, m) }).notPublic().runOf(32),
	// A second factor's seed (base32, as an authenticator app shows it: groups of four, or in one
	// piece) after a word for it.
	{kind: SecretGeneric, keywords: []string{"2fa", "totp", "mfa", "otp", "authenticator", "two-factor", "two factor", "2-factor", "2-step"},
		re:    regexp.MustCompile(`\b(?:[A-Z2-7]{4}(?:[ \-][A-Z2-7]{4}){3,15}|[a-z2-7]{4}(?: [a-z2-7]{4}){3,15}|[A-Z2-7]{16,64}|[a-z2-7]{16,64})\b`),
		check: totpSeed, around: totpContext, pre: func(text string) bool { return totpWord(strings.ToLower(text)) }},
}

func init() {
	addRules(unlockSecretRules)
}

// totpSeed decides on a base32 seed: letters and digits 2 to 7, varied, not a word of capitals.
func totpSeed(v, _ string) bool {
	s := strings.NewReplacer(" ", "", "-", "").Replace(v)
	return len(s) >= 16 && strings.ContainsAny(s, "234567") && entropy(s) >= 3.3 && !placeholderWord(s)
}

// totpContext reports whether a second-factor word stands in the 80 bytes before text[s:].
func totpContext(text string, s, _ int) bool {
	return totpWord(strings.ToLower(text[max(0, s-80):s]))
}

// totpWord reports whether lo holds a second-factor word as a word: "otp", not "footprint".
func totpWord(lo string) bool {
	for _, w := range []string{"2fa", "totp", "mfa", "otp", "authenticator", "two-factor", "two factor", "2-factor", "2-step"} {
		for from := 0; ; {
			i := strings.Index(lo[from:], w)
			if i < 0 {
				break
			}
			i += from
			from = i + len(w)
			if (i == 0 || !isLower(lo[i-1])) && (from == len(lo) || !isLower(lo[from])) {
				return true
			}
		}
	}
	return false
}

// appPasswordWords name an app password: one a mail or cloud account issues to a program in
// place of its own password.
var appPasswordWords = []string{"app password", "app-password", "app pass", "app-pass", "app specific password", "app-specific password",
	"application password", "application-specific password", "app-passwort", "anwendungspasswort", "mot de passe d'application",
	"mot de passe d’application", "contraseña de aplicación", "contraseña de la aplicación", "senha de app", "senha de aplicativo",
	"senha de aplicação", "password per le app", "password dell'app", "app-wachtwoord", "hasło aplikacji", "hasło do aplikacji",
	"пароль приложения", "пароль для приложения", "пароль додатка", "пароль застосунку", "アプリパスワード", "アプリ パスワード",
	"アプリ用パスワード", "应用专用密码", "应用密码", "應用程式密碼", "앱 비밀번호", "uygulama şifresi", "mật khẩu ứng dụng",
	"sandi aplikasi", "kata sandi aplikasi"}

// appPassword decides on sixteen small letters: varied, not a run of the alphabet, and not four
// groups that each read as a syllable of prose ("that will work fine").
func appPassword(v, _ string) bool {
	s := strings.NewReplacer(" ", "", "-", "").Replace(v)
	if entropy(s) < 3.2 || placeholderWord(s) || strings.Contains("abcdefghijklmnopqrstuvwxyz", s[:4]) {
		return false
	}
	for i := 0; i < 16; i += 4 {
		if !strings.ContainsAny(s[i:i+4], "aeiouy") || strings.IndexFunc(s[i:i+4], func(r rune) bool { return strings.ContainsRune("qxj", r) }) >= 0 {
			return true // a group no word of four letters holds
		}
	}
	return false
}

// appPasswordContext reports whether an app password word stands in the 80 bytes before text[s:].
func appPasswordContext(text string, s, _ int) bool {
	before := strings.ToLower(text[max(0, s-80):s])
	for _, w := range appPasswordWords {
		if strings.Contains(before, w) {
			return true
		}
	}
	return false
}

// keystoreCalls open or make a key store with a password among their arguments: eth_account and
// web3.js (Account.decrypt, accounts.decrypt), ethers (fromEncryptedJson, decryptKeystore),
// go-ethereum (keystore.DecryptKey, ks.Unlock, TimedUnlock, NewAccount, Import), web3j
// (WalletUtils.loadCredentials, Wallet.decrypt), Nethereum (DecryptKeyStoreFromJson,
// LoadFromKeyStore, EncryptAndGenerateDefaultKeyStoreAsJson), ethereumjs-wallet (fromV3, toV3),
// personal.unlockAccount, Rust's eth-keystore, ethers-rs and alloy (decrypt_key, decrypt_keystore),
// eth-keyfile (decode_keyfile_json), web3j's generateNewWalletFile, go-ethereum's bind.NewTransactor.
var keystoreCalls = []string{"account.decrypt(", "accounts.decrypt(", "fromencryptedjson(", "fromencryptedjsonsync(",
	"decryptkeystore(", "decryptkeystorejson(", "decryptkeystoresync(", "decryptkeystorejsonsync(", "decryptkey(",
	"decryptkeystorefromjson(", "loadfromkeystore(", "loadcredentials(", "wallet.decrypt(", "fromv3(", "tov3(",
	"unlockaccount(", "timedunlock(", "ks.unlock(", "keystore.unlock(", "ks.newaccount(", "keystore.newaccount(",
	"ks.import(", "keystore.import(", "importecdsa(", "account.encrypt(", "wallet.encrypt(", "encryptkey(",
	"decrypt_key(", "decrypt_keystore(", "encrypt_keystore(", "decode_keyfile_json(", "extract_key_from_keyfile(",
	"generatenewwalletfile(", "generatefullnewwalletfile(", "generatelightnewwalletfile(",
	"encryptandgeneratedefaultkeystoreasjson(", "storekey(", "newtransactor(", "newtransactorwithchainid("}

// findKeystorePasswords reports the password handed to a key store's call: a string argument of
// the call itself (not of a call inside it, such as open('keystore.json')) that reads as a
// password. lo is text in lower case, pairs its pairs of bytes.
func findKeystorePasswords(text, lo string, pairs *bytePairs) [][2]int {
	if len(lo) != len(text) || !pairs.may("(") {
		return nil
	}
	var out [][2]int
	// Java: ks.load(in, "...".toCharArray()), new PBEKeySpec("...".toCharArray()) on a line that
	// loads a store or speaks of a key store, a key or a password.
	for from := 0; pairs.may(".tochararray()"); {
		i := strings.Index(lo[from:], "\".tochararray()")
		if i < 0 {
			break
		}
		e := from + i
		from = e + 1
		ls := strings.LastIndexByte(lo[:e], '\n') + 1
		q := strings.LastIndexByte(lo[ls:e], '"')
		if q < 0 {
			continue
		}
		line := lo[ls : ls+q]
		if v := text[ls+q+1 : e]; passwordToken(v) && (strings.Contains(line, "store") || strings.Contains(line, "key") ||
			strings.Contains(line, "pass") || strings.Contains(line, ".load(") || strings.Contains(line, "spec(")) {
			out = append(out, [2]int{ls + q + 1, e})
		}
	}
	for _, c := range keystoreCalls {
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
			if inName(lo, at) {
				continue // "locks.unlock(", "protov3(": another name
			}
			out = append(out, passwordArgs(text, callArgs(text, from, 0))...)
		}
	}
	return out
}

// passwordArgs are the call arguments in args read as passwords: password-shaped, not a path.
func passwordArgs(text string, args [][2]int) [][2]int {
	var out [][2]int
	for _, a := range args {
		if v := text[a[0]:a[1]]; passwordToken(v) && !strings.ContainsAny(v, "/\\") {
			out = append(out, a)
		}
	}
	return out
}

// inName reports whether lo[at:] continues a longer name: a letter, digit or underscore is
// before it ("locks.unlock(", "protov3(", "mycredential(").
func inName(lo string, at int) bool {
	return at > 0 && (isLower(lo[at-1]) || lo[at-1] >= '0' && lo[at-1] <= '9' || lo[at-1] == '_')
}
