package screen

import (
	"regexp"
	"strings"
)

// Credentials that read as such by their own shape or by a file format that holds nothing else
// there, wherever they stand: more services' tokens with a prefix of their own, a Wi-Fi QR
// code's password, the private half of a PuTTY key file, an agent's auth token given to its
// command.
var generalSecretRules = []secretRule{
	// Tokens by prefix and shape: LangSmith (lsv2_pt_, lsv2_sk_), Pinecone (pcsk_), Brevo
	// (xkeysib-, xsmtpsib-), HubSpot private apps (pat-na1-<uuid>), PlanetScale (pscale_pw_,
	// pscale_tkn_, pscale_oauth_), Flutterwave (FLWSECK-), Terraform Cloud (<id>.atlasv1.<body>),
	// Airtable (pat<id>.<64 hex>), Dropbox (sl.), Bitbucket app passwords (ATBB), CircleCI
	// (CCIPAT_), Contentful (CFPAT-), Fly.io (FlyV1 fm2_), RubyGems (rubygems_), Duffel
	// (duffel_live_, duffel_test_), EasyPost (EZAK, EZTK), Dynatrace (dt0c01.), Buildkite (bkua_),
	// Prefect (pnu_), Sourcegraph (sgp_), Typeform (tfp_), Together (tgp_v1_), Supabase secret
	// keys (sb_secret_), Yandex OAuth (y0_), Langfuse secret keys (sk-lf-), ElevenLabs (sk_ and 48
	// hex), DeepSeek-style sk- and 32 hex, Resend (re_), Fireworks (fw_), Databricks (dapi and 32
	// hex), Braintree access tokens (access_token$production$...), Intercom (base64 of "tok:"), X's app bearer tokens (a run of A, then %-escaped base64),
	// Vercel (vcp_, vci_, vca_, vcr_, vck_), NuGet (oy2 and 43).
	prefixRule([]string{"lsv2_"}, `lsv2_(?:pt|sk)_[0-9a-f]{32}_[0-9a-f]{10}`),
	prefixRule([]string{"pcsk_"}, `pcsk_[A-Za-z0-9]{4,8}_[A-Za-z0-9]{40,}`),
	prefixRule([]string{"keysib-", "smtpsib-"}, `x(?:keysib|smtpsib)-[0-9a-f]{64}-[A-Za-z0-9]{16}`),
	prefixRule([]string{"pat-na", "pat-eu", "pat-ap"}, `pat-(?:na|eu|ap)[12]-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`),
	prefixRule([]string{"pscale_"}, `pscale_(?:pw|tkn|oauth)_[A-Za-z0-9_\-.]{32,64}`),
	prefixRule([]string{"flwseck"}, `FLWSECK(?:_TEST)?-[0-9a-f]{32}-X`),
	prefixRule([]string{".atlasv1."}, `[A-Za-z0-9]{14}\.atlasv1\.[A-Za-z0-9_\-=]{60,}`),
	prefixRule([]string{"pat"}, `pat[A-Za-z0-9]{14}\.[0-9a-f]{64}`).withPre(hex64),
	prefixRule([]string{"sl.a", "sl.b", "sl.u."}, `sl\.(?:u\.)?[A-Za-z0-9_\-]{130,}`),
	prefixRule([]string{"atbb"}, `ATBB[A-Za-z0-9_=.\-]{32}`),
	prefixRule([]string{"ccipat_"}, `CCIPAT_[A-Za-z0-9]{22}_[0-9a-f]{40}`),
	prefixRule([]string{"cfpat-"}, `CFPAT-[A-Za-z0-9_\-]{43}`),
	prefixRule([]string{"flyv1"}, `FlyV1 fm[12][ar]?_[A-Za-z0-9+/=,_\-]{40,}`),
	prefixRule([]string{"rubygems_"}, `rubygems_[0-9a-f]{48}`),
	prefixRule([]string{"duffel_"}, `duffel_(?:live|test)_[A-Za-z0-9_\-]{43}`),
	prefixRule([]string{"ezak", "eztk"}, `EZ[AT]K[0-9a-zA-Z]{54}`),
	prefixRule([]string{"dt0c01."}, `dt0c01\.[A-Z0-9]{24}\.[A-Z0-9]{64}`),
	prefixRule([]string{"bkua_"}, `bkua_[0-9a-f]{40}`),
	prefixRule([]string{"pnu_"}, `pnu_[A-Za-z0-9]{36}`).withCheck(mixedToken),
	prefixRule([]string{"sgp_"}, `sgp_(?:[0-9a-f]{16}_)?[0-9a-f]{40}`),
	prefixRule([]string{"tfp_"}, `tfp_[A-Za-z0-9_\-.]{40,60}`),
	prefixRule([]string{"tgp_v1_"}, `tgp_v1_[A-Za-z0-9_\-]{40,}`),
	prefixRule([]string{"sb_secret_"}, `sb_secret_[A-Za-z0-9_\-]{24,}`),
	prefixRule([]string{"y0_"}, `y0_[A-Za-z0-9_\-]{50,}`).withCheck(mixedToken),
	prefixRule([]string{"sk-lf-"}, `sk-lf-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`),
	prefixRule([]string{"sk_", "sk-"}, `sk(?:_[0-9a-f]{48}|-[0-9a-f]{32})`).withPre(func(text string) bool { return hexRun(text, 32) }),
	prefixRule([]string{"re_"}, `re_[A-Za-z0-9]{8}_[A-Za-z0-9]{24}`).withCheck(mixedToken),
	prefixRule([]string{"fw_"}, `fw_[A-Za-z0-9]{24}`).withCheck(mixedToken),
	prefixRule([]string{"dapi"}, `dapi[0-9a-f]{32}(?:-\d)?`),
	prefixRule([]string{"access_token$"}, `access_token\$(?:production|sandbox)\$[a-z0-9]{16}\$[0-9a-f]{32}`),
	prefixRule([]string{"dg9roj"}, `dG9rOj[A-Za-z0-9+/_\-]{40,}={0,2}`),
	prefixRule([]string{"aaaaaaaaaaaaaaaaaaaa"}, `A{20,}[A-Za-z0-9]*%[A-Za-z0-9%]{50,}`),
	prefixRule([]string{"vcp_", "vci_", "vca_", "vcr_", "vck_"}, `vc[pirak]_[A-Za-z0-9]{24,}`),
	prefixRule([]string{"oy2"}, `oy2[a-z0-9]{43}`),
	// A Wi-Fi QR code's payload: WIFI:T:WPA;S:<network>;P:<password>;;
	srule(SecretPassword, []string{"wifi:"}, `(?i)\bWIFI:(?:[A-Z]:(?:\\.|[^;\\\n])*;)*?P:((?:\\.|[^;\\\n])+)`, 1,
		func(v, _ string) bool { return !placeholder(v) && len(v) >= 4 }),
	// An Asana personal access token (1/ or 2/, the user's and the app's ids, 32 hex) where Asana
	// is named.
	srule(SecretToken, []string{"asana"}, `\b[12]/\d{12,20}(?:/\d{12,20})?:[0-9a-f]{32}\b`, 0, shapedToken),
	// A PuTTY key file's private lines (its public lines are public).
	srule(SecretPrivateKey, []string{"private-lines:"}, `(?m)^Private-Lines:[ \t]*\d+[ \t]*\r?\n((?:[A-Za-z0-9+/=]{4,}\r?\n?)+)`, 1,
		func(v, _ string) bool { return len(strings.TrimSpace(v)) >= 40 && entropy(v) >= 4 }),
	// A Wi-Fi or VPN pre-shared key: NetworkManager's and wpa_supplicant's psk=, ipsec.secrets'
	// : PSK "...".
	srule(SecretPassword, []string{"psk"}, `(?im)(?:^[ \t]*(?:wpa_)?psk[ \t]*=[ \t]*"?([^"\s]{8,63})"?[ \t]*$|:[ \t]*PSK[ \t]+"([^"\n]{4,128})")`, -1,
		func(v, _ string) bool { return !placeholder(v) && !(len(v) == 64 && hexOnly(v) && sameChar(v)) }),
	// An SNMP community string, the password of SNMP v1 and v2c: Cisco's snmp-server community
	// X RO, net-snmp's rocommunity X; "public" and "private", the defaults, pass.
	srule(SecretPassword, []string{"community"}, `(?im)(?:\bsnmp-server[ \t]+community|^[ \t]*r[ow]community6?|\bcommunity[ \t]*[=:])[ \t]+["']?([^\s"']{4,64})`, 1,
		func(v, _ string) bool {
			lo := strings.ToLower(v)
			return lo != "public" && lo != "private" && !placeholder(v) && classes(v) >= 2
		}),
	// An IRC services password: /msg NickServ IDENTIFY [account] password.
	srule(SecretPassword, []string{"identify"}, `(?i)\bnickserv[ \t]+identify[ \t]+(?:[^\s]+[ \t]+)?([^\s]{4,64})[ \t]*$`, 1,
		func(v, _ string) bool { return !placeholder(v) }),
	// A Lightning node's macaroon (LND's version 2 "lnd" header), in hex or base64: admin rights
	// to the node.
	prefixRule([]string{"0201036c6e64", "agedbg5k"}, `(?:0201036c6e64[0-9a-f]{100,}|AgEDbG5k[A-Za-z0-9+/_\-]{80,}={0,2})`),
	// A key handed over in prose: "use <key> as the api key", "paste <token> as your token".
	srule(SecretAPIKey, []string{" as "}, `(?i)\b(?:use|try|set|put|paste|add)[ \t]+["'`+"`"+`]?([A-Za-z0-9_\-+/=.]{20,200})["'`+"`"+`]?[ \t]+as[ \t]+(?:the[ \t]+|my[ \t]+|your[ \t]+|an?[ \t]+)?(?:api[ _\-]?key|key|token|access[ _\-]token|bearer[ _\-]token|secret|client[ _\-]secret)\b`, 1,
		func(v, _ string) bool {
			return len(v) >= 20 && entropy(v) >= 3.5 && strings.ContainsAny(v, "0123456789") && classes(v) >= 2 && !placeholderWord(v) && !notSecretShape(v)
		}),
	// A value piped or fed as a here-string into a command that stores a secret: vercel env add,
	// gh secret set, wrangler secret put, fly secrets import, docker secret create, firebase
	// functions:secrets:set.
	srule(SecretToken, []string{"secret", "env add"},
		`(?:`+echoed+`[ \t]*\|[ \t]*[^\n]*?\b(?:secrets?[ \t:]+(?:set|put|add|create|import)|secrets:set|env[ \t]+add)\b|`+
			`\b(?:secrets?[ \t:]+(?:set|put|add|create)|secrets:set|env[ \t]+add)\b[^\n]*?<<<[ \t]*(?:'([^'\n]{3,})'|"([^"\n]{3,})"|([^\s"']{3,})))`, -1,
		func(v, _ string) bool {
			return !placeholder(v) && (credValue(v, wordKey, 0) || credValue(v, wordPassword, 0))
		}),
	// A password flag after a user flag on one command line, in any tool: -u X -p Y, --user X
	// --password Y, /user:X /pass:Y, /RU X /RP Y, -U X -P Y; the value reads as a password.
	srule(SecretPassword, []string{"-u", "--user", "/user", "/ru", "-l "},
		`(?i)(?:\s-u|\s--user(?:name)?|\s-U|\s-l|\s/user:?|\s/RU)[ \t=]+[^\s]+[^\n|;&]*?\s(?:-p|-P|-pw|--pass(?:word)?|/pass:|/RP|/p:)[ \t=]?(?:'([^'\n]{4,64})'|"([^"\n]{4,64})"|([^\s"'|;&]{4,64}))`, -1,
		func(v, m string) bool {
			if (strings.Contains(m, "mysql") || strings.Contains(m, "mariadb")) && strings.Contains(m, "-p ") {
				return false // mysql -u root -p shop: -p asks for the password, shop is the database
			}
			return !placeholder(v) && !strings.Contains(v, "=") && (passwordToken(v) || labelledPassword(v) && upLowDigit(v))
		}),
	// Credentials given to a tool by position: mc alias set NAME URL ACCESS SECRET, composer's
	// and poetry's http-basic.NAME USER PASSWORD, a token after a login subcommand (cargo
	// login X).
	srule(SecretPassword, []string{"mc ", "http-basic.", "login"},
		`(?:\bmc[ \t]+(?:alias[ \t]+set|config[ \t]+host[ \t]+add)[ \t]+\S+[ \t]+https?://\S+[ \t]+\S+[ \t]+["']?([^\s"']{8,128})|`+
			`\bhttp-basic\.\S+[ \t]+\S+[ \t]+["']?([^\s"']{4,128})|\b[a-z0-9\-]+[ \t]+login[ \t]+["']?([A-Za-z0-9_\-]{30,128})["']?[ \t]*$)`, -1,
		func(v, m string) bool {
			if strings.Contains(m, "login") && !strings.Contains(m, "http-basic") && !strings.HasPrefix(m, "mc") {
				return len(v) >= 30 && entropy(v) >= 3.5 && classes(v) >= 2 && hasDigitStr(v) && !placeholderWord(v)
			}
			return !placeholder(v) && (passwordToken(v) || labelledPassword(v) || keyValue(v, 0))
		}).withPre(func(text string) bool { return strings.Contains(text, " ") }),
	// An expect script's answer to a password prompt: expect "password:" then send "X\r".
	srule(SecretPassword, []string{"expect"},
		`(?i)\bexpect[ \t]+[^\n]*?(?:pass(?:word|phrase)?|pin)[^\n]*\n[ \t]*send[ \t]+(?:--[ \t]+)?"([^"\n\\$\[]{4,64})(?:\\r|\\n)?"`, 1,
		func(v, _ string) bool { return !placeholder(v) }),
	// An XML element named for a password, with attributes: FileZilla's <Pass encoding="base64">.
	srule(SecretPassword, []string{"<pass"},
		`(?i)<(pass|password|passwd|pwd|secret)[ \t]+[a-z_:\-]+="[^"]*"[^>]*>([^<\s]{4,200})</(?:pass|password|passwd|pwd|secret)>`, 2,
		func(v, _ string) bool { return !placeholder(v) && classes(v) >= 2 }),
	// Other chains' private keys by their own prefix: Sui (suiprivkey1, bech32), Cardano
	// (ed25519_sk1, ed25519e_sk1); a Stellar secret seed (S, then A to D, 56 base32 characters)
	// whose checksum holds or that the words on its line name; Substrate's secret seed; a
	// Tendermint validator's private key object.
	srule(SecretWalletKey, []string{"suiprivkey1", "_sk1"}, `\b(?:suiprivkey1[qpzry9x8gf2tvdw0s3jn54khce6mua7l]{50,}|ed25519e?_sk1[qpzry9x8gf2tvdw0s3jn54khce6mua7l]{50,})\b`, 0, nil),
	{kind: SecretWalletKey, keywords: []string{"s"}, group: 0, pre: base32Run56,
		re: regexp.MustCompile(`\bS[A-Z2-7]{55}\b`), around: stellarSeed},
	srule(SecretWalletKey, []string{"seed"}, `(?i)\bsecret[ _]?seed["']?[ \t]*[:=][ \t]*["']?(0x[0-9a-fA-F]{64})\b`, 1, nil),
	srule(SecretWalletKey, []string{"priv_key", "privkey", "private_key"}, `(?i)"priv(?:ate)?_?key"[ \t]*:[ \t]*\{[^{}]{0,200}?"value"[ \t]*:[ \t]*"([A-Za-z0-9+/=]{40,}|(?:0x)?[0-9a-fA-F]{64})"`, 1,
		func(v, _ string) bool { return entropy(v) >= 3.5 }),
	// An agent's auth token given to its command or its configuration: ngrok's authtoken.
	srule(SecretToken, []string{"authtoken"}, `(?i)\bauthtoken(?:[ \t]*[:=][ \t]*|[ \t]+)["']?([A-Za-z0-9_\-]{30,})`, 1, mixedKey),
}

func init() {
	addRules(generalSecretRules)
}

// prefixRule is a token found by its prefix and shape alone, standing apart from the characters
// of a token around it.
func prefixRule(keywords []string, expr string) secretRule {
	return srule(SecretToken, keywords, `(?:^|[^A-Za-z0-9_\-.+/])(`+expr+`)(?:[^A-Za-z0-9_\-+/]|$)`, 1, shapedToken)
}

// withCheck sets the rule's check.
func (r secretRule) withCheck(check func(value, match string) bool) secretRule {
	r.check = check
	return r
}

// mixedToken decides on a token whose prefix is short and common (re_, fw_): its body holds
// capitals, small letters and digits, as generated keys of those services do.
func mixedToken(v, m string) bool {
	return shapedToken(v, m) && upLowDigit(v[strings.IndexByte(v, '_')+1:])
}

// shapedToken decides on a token matched by its prefix and shape: random-looking (hex bodies
// too), with a digit, not a placeholder.
func shapedToken(v, _ string) bool {
	if len(v) < 24 || placeholderWord(v) || sameRun(v) || !strings.ContainsAny(v, "0123456789") {
		return false
	}
	return entropy(v) >= 3.3
}

// sameRun reports a body that is mostly one character repeated (sk_000...0, pat-na1-0000...).
func sameRun(v string) bool {
	n := map[rune]int{}
	for _, c := range v {
		n[c]++
	}
	for _, k := range n {
		if k*2 > len(v) && v[0] != 'A' {
			return true
		}
	}
	return false
}

// clientPairArgs are an id and a secret handed side by side to a client's constructor or
// factory: Twitch('<client id>', '<secret>'), algoliasearch('<app>', '<admin key>'), new
// KrakenClient('<key>', '<secret>'). It is matched at a call's opening bracket.
var clientPairArgs = regexp.MustCompile(`^\(\s*["']([A-Za-z0-9_.+/=\-]{6,100})["']\s*,\s*["']([A-Za-z0-9_+/=.\-]{20,128})["']`)

// notClientCalls are names of calls whose two strings are no id and secret: tests, comparisons,
// hashing, formatting, logging, translation.
var notClientCalls = []string{"assert", "equal", "expect", "compare", "verify", "check", "hash", "digest", "replace", "format",
	"print", "log", "warn", "error", "debug", "info", "trace", "test", "describe", "translate", "i18n", "gettext", "route",
	"get", "set", "put", "post", "fetch", "find", "match", "split", "join", "encode", "decode", "parse", "address", "contract",
	"transaction", "block", "tx", "storage", "cache", "path", "url", "uri", "file", "open", "read", "write", "env", "getenv"}

// publicNote words on a line say its key is public: a search-only key, a publishable or anon one.
var publicNote = []string{"search-only", "search only", "searchonly", "public", "publishable", "browser", "anon", "client-side", "frontend"}

// findClientPairs reports the secret of an id and a secret handed to a client: the callee's name
// a type's (capitalised) or a client's or a service's factory (…client, …search, …sdk, …api,
// …auth), the id an identifier and the secret random-looking, and no word on the line calling the
// key public.
func findClientPairs(text string) [][2]int {
	if !strings.Contains(text, "(") || !strings.Contains(text, ",") {
		return nil
	}
	var out [][2]int
	for from := 0; ; {
		k := strings.IndexByte(text[from:], '(')
		if k < 0 {
			break
		}
		at := from + k
		from = at + 1
		j := at + 1
		for j < len(text) && (text[j] == ' ' || text[j] == '\t' || text[j] == '\n') {
			j++
		}
		if j >= len(text) || text[j] != '"' && text[j] != '\'' {
			continue
		}
		ns := at
		for ns > 0 && (isLower(text[ns-1]|0x20) || text[ns-1] >= '0' && text[ns-1] <= '9' || text[ns-1] == '_' || text[ns-1] == '.') {
			ns--
		}
		if ns == at {
			continue
		}
		a := clientPairArgs.FindStringSubmatchIndex(text[at:])
		if a == nil {
			continue
		}
		m := []int{ns, at + a[1], ns, at, at + a[2], at + a[3], at + a[4], at + a[5]}
		name := text[m[2]:m[3]]
		base := strings.ToLower(name[strings.LastIndexByte(name, '.')+1:])
		if base == "" || !(name[strings.LastIndexByte(name, '.')+1] >= 'A' && name[strings.LastIndexByte(name, '.')+1] <= 'Z' ||
			anyIn(base, []string{"client", "search", "sdk", "api", "auth", "connect", "init", "configure", "create"})) {
			continue
		}
		if anyIn(base, notClientCalls) && !anyIn(base, []string{"client", "search", "sdk", "auth"}) {
			continue
		}
		id, secret := text[m[4]:m[5]], text[m[6]:m[7]]
		if id == secret || placeholder(secret) || placeholderWord(id) || !clientSecret(secret) {
			continue
		}
		if hexOnly(secret) && !anyIn(base, []string{"client", "search", "sdk", "api", "auth"}) && lineHas(text, m[0], m[0], hashWords) {
			continue // Download('setup.exe', '<md5>'): a file's digest, not a key
		}
		if calledPublic(text, m[0], m[1]) {
			continue
		}
		out = append(out, [2]int{m[6], m[7]})
	}
	return out
}

// hashWords name a digest on a line.
var hashWords = []string{"md5", "sha", "hash", "checksum", "digest", "etag", "commit", "crc", "fingerprint", "integrity"}

// lineHas reports whether the line or lines holding text[s:e] hold one of ws, in lower case.
func lineHas(text string, s, e int, ws []string) bool {
	return anyIn(strings.ToLower(text[strings.LastIndexByte(text[:s], '\n')+1:lineEnd(text, e)]), ws)
}

// calledPublic reports whether the line around text[s:e] calls its key public.
func calledPublic(text string, s, e int) bool { return lineHas(text, s, e, publicNote) }

// clientSecret decides on a client's secret: random letters and digits (a hex key too), or
// base64 with its signs; not a hash or an address (0x...), a path, a version or a word.
func clientSecret(v string) bool {
	if strings.HasPrefix(v, "0x") || strings.Count(v, "/") >= 2 && !strings.ContainsAny(v, "+=") || strings.Count(v, ".") >= 2 ||
		sameChar(v) || !strings.ContainsAny(v, "0123456789") || entropy(v) < 3.5 && !(hexOnly(v) && entropy(v) >= 3) {
		return false
	}
	var letters, small int
	for i := 0; i < len(v); i++ {
		if c := v[i] | 0x20; c >= 'a' && c <= 'z' {
			letters++
		}
		if v[i] >= 'a' && v[i] <= 'z' {
			small++
		}
	}
	// capitals and digits alone are a SKU's or an order's reference more often than a secret
	return letters >= 4 && small > 0 && (len(v) != 40 && len(v) != 64 || !hexOnly(v))
}

// joinedWords reports a password of small words joined by _, - or . with two or more digits
// (walnut_sparrow-20, maple.finch.2044): the shape people give a login call.
func joinedWords(v string) bool {
	if len(v) < 8 || len(v) > 40 || strings.ContainsAny(v, " /@:") {
		return false
	}
	words, digits := 0, 0
	for _, p := range strings.FieldsFunc(v, func(r rune) bool { return r == '_' || r == '-' || r == '.' }) {
		l := strings.TrimRight(p, "0123456789")
		digits += len(p) - len(l)
		switch {
		case len(l) >= 3 && strings.Trim(l, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ") == "":
			words++
		case l != "":
			return false
		}
	}
	return words >= 2 && digits >= 2
}

// joinedStrings are two or more quoted strings joined by concatenation (+, PHP's ., VB's &,
// SQL's ||) or set side by side on lines of their own (Python's and C's adjacent strings).
var joinedStrings = regexp.MustCompile(`(?:"[^"\n\\]{1,100}"|'[^'\n\\]{1,100}')(?:[ \t]*(?:\+|\.|&|\|\||\\?\n)[ \t]*\n?[ \t]*(?:"[^"\n\\]{1,100}"|'[^'\n\\]{1,100}')){1,6}`)

// joiners are the texts that join two strings; a text without one has no joined strings.
var joiners = []string{`" +`, `"+`, `' +`, `'+`, `" .`, `' .`, `" &`, `" ||`, `' ||`, "\"\n", "'\n"}

// findJoinedStrings reads strings joined by concatenation as the one string they make, in the
// line that starts them ("sk_live_1ZNFMl" + "tKIp...": a key cut in two, each half too short to
// read as one): what the rules find in the joined string goes, every part of it.
func findJoinedStrings(text string) []found {
	if !anyIn(text, joiners) {
		return nil
	}
	var out []found
	for _, m := range joinedStrings.FindAllStringIndex(text, -1) {
		var parts [][2]int
		var joined strings.Builder
		for i := m[0]; i < m[1]; i++ {
			if q := text[i]; q == '"' || q == '\'' {
				j := i + 1 + strings.IndexByte(text[i+1:m[1]], q)
				parts = append(parts, [2]int{i + 1, j})
				joined.WriteString(text[i+1 : j])
				i = j
			}
		}
		if len(parts) < 2 || joined.Len() < 8 {
			continue
		}
		ls := strings.LastIndexByte(text[:m[0]], '\n') + 1
		if m[0]-ls > 100 {
			ls = m[0] - 100
		}
		le := strings.IndexByte(text[m[1]:], '\n')
		if le < 0 || le > 40 {
			le = min(len(text)-m[1], 40)
		}
		q := text[m[0] : m[0]+1]
		head := text[ls:m[0]] + q
		synth := head + joined.String() + q + text[m[1]:m[1]+le]
		vs, ve := len(head), len(head)+joined.Len()
		for _, r := range findSecrets(synth, false) {
			if r.Start < ve && r.End > vs {
				for _, p := range parts {
					out = append(out, found{p[0], p[1], r.Kind})
				}
				break
			}
		}
	}
	return out
}

// hclVariable is a Terraform variable block, its name and its body.
var hclVariable = regexp.MustCompile(`\bvariable[ \t]+"([A-Za-z0-9_\-]+)"[ \t]*\{([^{}]{0,600})\}`)

// hclDefault is the default value in a variable's body.
var hclDefault = regexp.MustCompile(`(?m)^[ \t]*default[ \t]*=[ \t]*"([^"\n]{1,200})"`)

// findHCLDefaults reports the default value of a Terraform variable whose name names a secret
// (variable "db_password" { default = "..." }): the name is set apart from its value by the
// block, as in a property list.
func findHCLDefaults(text string) []found {
	if !strings.Contains(text, "variable") || !strings.Contains(text, "default") {
		return nil
	}
	var out []found
	for _, m := range hclVariable.FindAllStringSubmatchIndex(text, -1) {
		kind, ok := namedKind(text[m[2]:m[3]])
		if !ok || kind == pairSession {
			continue
		}
		body := text[m[4]:m[5]]
		if d := hclDefault.FindStringSubmatchIndex(body); d != nil && pairValue(body[d[2]:d[3]], kind) {
			out = append(out, found{m[4] + d[2], m[4] + d[3], kind})
		}
	}
	return out
}

// secretReads are commands that print a secret: a secret manager's, a password store's, a
// Kubernetes secret decoded, a CLI's own token.
var secretReads = []string{"op item get", "op read", "vault kv get", "vault read", "gcloud secrets versions access",
	"az keyvault secret show", "aws secretsmanager get-secret-value", "aws ssm get-parameter", "pass show", "gopass show",
	"security find-generic-password", "security find-internet-password", "gh auth token", "heroku auth:token",
	"base64 -d", "base64 --decode", "bw get password", "lpass show", "doppler secrets get", "infisical secrets get",
	"kubectl get secret", "keyring get", "secret-tool lookup", "cat ~/.pgpass", "printenv"}

// findConsoleSecrets reports the value a console prints alone on the line after a command that
// reads a secret (vault kv get -field=password secret/db / X, op read op://.../password / X).
func findConsoleSecrets(text, lo string, pairs *bytePairs) []found {
	if strings.IndexByte(text, '\n') < 0 || len(lo) != len(text) {
		return nil
	}
	var out []found
	done := -1 // the end of the last command line read
	for _, r := range secretReads {
		if !pairs.may(r) {
			continue
		}
		for from := 0; ; {
			k := strings.Index(lo[from:], r)
			if k < 0 {
				break
			}
			at := from + k
			from = at + len(r)
			ce := strings.IndexByte(text[at:], '\n')
			if ce < 0 {
				break
			}
			ce += at
			if ce == done {
				continue
			}
			done = ce
			cmd := lo[strings.LastIndexByte(lo[:at], '\n')+1 : ce]
			ne := strings.IndexByte(text[ce+1:], '\n')
			after := ""
			if ne < 0 {
				ne = len(text)
			} else {
				ne += ce + 1
				if ae := strings.IndexByte(text[ne+1:], '\n'); ae < 0 {
					after = text[ne+1:]
				} else {
					after = text[ne+1 : ne+1+ae]
				}
			}
			next := text[ce+1 : ne]
			v := strings.TrimSpace(next)
			if a := strings.TrimSpace(after); v == "" || strings.ContainsAny(v, " \t") || a != "" && !strings.HasPrefix(a, "$") {
				continue // the output is one value alone, then a blank line, a prompt or the end
			}
			kind := SecretAPIKey
			if strings.Contains(cmd, "pass") || strings.Contains(cmd, "pwd") {
				kind = SecretPassword
			}
			ok := kind == SecretPassword && (passwordToken(v) || labelledPassword(v)) || keyValue(v, 0) && !notSecretShape(v)
			if ok && !placeholder(v) {
				s := ce + 1 + strings.Index(next, v)
				out = append(out, found{s, s + len(v), kind})
			}
		}
	}
	return out
}

// htmlCells are a table's label cell and the value cell after it: <td>Password</td><td>X</td>,
// <th>API key</th><td>X</td>, <dt>Token</dt><dd>X</dd>.
var htmlCells = regexp.MustCompile(`(?i)<(?:t[dh]|dt)\b[^>]*>[ \t]*(?:<(?:b|strong)>)?([^<\n]{2,40}?)[ \t:]*(?:</(?:b|strong)>)?[ \t]*</(?:t[dh]|dt)>\s*<(?:td|dd)\b[^>]*>[ \t]*(?:<code>)?([^<\s]{4,200})(?:</code>)?[ \t]*</(?:td|dd)>`)

// htmlPassword is a password field filled in: <input type="password" value="X">.
var htmlPassword = regexp.MustCompile(`(?i)<input\b[^>]*?\btype=["']?password["']?[^>]*?\bvalue=["']([^"'\n]{3,128})["']|<input\b[^>]*?\bvalue=["']([^"'\n]{3,128})["'][^>]*?\btype=["']?password\b`)

// yamlBlock is a YAML key whose value is a block scalar on the lines below: password: |.
var yamlBlock = regexp.MustCompile(`(?m)^([ \t]*)([A-Za-z0-9_.\-]{2,60})[ \t]*:[ \t]*[|>][+\-]?[ \t]*\r?\n([ \t]+)([^\s#][^\n]{3,200})$`)

// findLayoutValues reports values set apart from their names by a document's layout: an HTML
// table's or definition list's label and value cells, a password input's value, a YAML block
// scalar's first line.
func findLayoutValues(text string) []found {
	var out []found
	if strings.Contains(text, "</t") || strings.Contains(text, "</dt>") {
		for _, m := range htmlCells.FindAllStringSubmatchIndex(text, -1) {
			if kind, ok := namedKind(text[m[2]:m[3]]); ok && kind != pairSession && pairValue(text[m[4]:m[5]], kind) {
				out = append(out, found{m[4], m[5], kind})
			}
		}
	}
	if strings.Contains(text, "<input") || strings.Contains(text, "<INPUT") {
		for _, m := range htmlPassword.FindAllStringSubmatchIndex(text, -1) {
			s, e := m[2], m[3]
			if s < 0 {
				s, e = m[4], m[5]
			}
			if v := text[s:e]; !placeholder(v) && !maskedValue(v) {
				out = append(out, found{s, e, SecretPassword})
			}
		}
	}
	if strings.Contains(text, ": |") || strings.Contains(text, ": >") || strings.Contains(text, ":|") {
		for _, m := range yamlBlock.FindAllStringSubmatchIndex(text, -1) {
			if len(text[m[6]:m[7]]) <= len(text[m[2]:m[3]]) {
				continue // the next line is no deeper: not the block's body
			}
			if kind, ok := namedKind(text[m[4]:m[5]]); ok && kind != pairSession && pairValue(strings.TrimSpace(text[m[8]:m[9]]), kind) {
				out = append(out, found{m[8], m[8] + len(strings.TrimRight(text[m[8]:m[9]], " \t\r")), kind})
			}
		}
	}
	return out
}

// base32Run56 reports a run of 56 upper-case base32 characters, the length of a Stellar key.
func base32Run56(text string) bool {
	k := 0
	for i := 0; i < len(text); i++ {
		if c := text[i]; c >= 'A' && c <= 'Z' || c >= '2' && c <= '7' {
			if k++; k >= 56 {
				return true
			}
		} else {
			k = 0
		}
	}
	return false
}

// stellarSeed decides on a Stellar secret seed: its CRC16 checksum holds, or its line names
// Stellar, a seed or a secret.
func stellarSeed(text string, s, e int) bool {
	if strkeyValid(text[s:e]) {
		return true
	}
	return lineHas(text, s, s, []string{"stellar", "xlm", "seed", "secret", "private key", "signing key"})
}

// strkeyValid checks a Stellar key's base32 body: a version byte, 32 bytes, and the CRC16
// (XModem) of those, little-endian.
func strkeyValid(v string) bool {
	var bits, n uint
	var out []byte
	for i := 0; i < len(v); i++ {
		c := v[i]
		var d byte
		switch {
		case c >= 'A' && c <= 'Z':
			d = c - 'A'
		case c >= '2' && c <= '7':
			d = c - '2' + 26
		default:
			return false
		}
		bits = bits<<5 | uint(d)
		n += 5
		if n >= 8 {
			out = append(out, byte(bits>>(n-8)))
			n -= 8
		}
	}
	if len(out) != 35 {
		return false
	}
	var crc uint16
	for _, b := range out[:33] {
		crc ^= uint16(b) << 8
		for k := 0; k < 8; k++ {
			if crc&0x8000 != 0 {
				crc = crc<<1 ^ 0x1021
			} else {
				crc <<= 1
			}
		}
	}
	return out[33] == byte(crc) && out[34] == byte(crc>>8)
}

// htmlEntities are the escapes a page or a template puts on quotes and brackets.
var htmlEntities = []struct{ from, to string }{{"&quot;", `"`}, {"&lt;", "<"}, {"&gt;", ">"}, {"&amp;", "&"},
	{"&#39;", "'"}, {"&#x27;", "'"}, {"&apos;", "'"}, {"&#34;", `"`}, {"&#x22;", `"`}}

// findEscapedHTML reads a text whose quotes and brackets are HTML entities (a page's source, a
// template, a ticket system's export) as it reads once unescaped: what the rules find there
// goes, mapped back onto the escaped text.
func findEscapedHTML(text string) []found {
	if !strings.Contains(text, "&quot;") && !strings.Contains(text, "&lt;") && !strings.Contains(text, "&#") && !strings.Contains(text, "&apos;") {
		return nil
	}
	var b strings.Builder
	at := make([]int, 0, len(text)+1) // at[i]: where the unescaped text's byte i starts in text
	for i := 0; i < len(text); {
		if text[i] == '&' {
			matched := false
			for _, en := range htmlEntities {
				if strings.HasPrefix(text[i:], en.from) {
					b.WriteString(en.to)
					at = append(at, i)
					i += len(en.from)
					matched = true
					break
				}
			}
			if matched {
				continue
			}
		}
		b.WriteByte(text[i])
		at = append(at, i)
		i++
	}
	at = append(at, len(text))
	var out []found
	for _, r := range findSecrets(b.String(), false) {
		s, e := at[r.Start], at[r.End]
		if e > s {
			out = append(out, found{s, e, r.Kind})
		}
	}
	return out
}
