package screen

import (
	"encoding/base64"
	"math"
	"regexp"
	"sort"
	"strings"
)

// Kinds of credential. A credential handed over in a deliverable gives the buyer access to the
// seller's (or a third party's) systems: the exchange passes work, never access.
const (
	SecretPrivateKey       = "private_key"
	SecretAWSSecretKey     = "aws_secret_key"
	SecretGitHubToken      = "github_token"
	SecretGitLabToken      = "gitlab_token"
	SecretSlackToken       = "slack_token"
	SecretSlackWebhook     = "slack_webhook"
	SecretStripeKey        = "stripe_key"
	SecretGoogleAPIKey     = "google_api_key"
	SecretOpenAIKey        = "openai_key"
	SecretAnthropicKey     = "anthropic_key"
	SecretJWT              = "jwt"
	SecretPassword         = "password"
	SecretGeneric          = "secret"
	SecretToken            = "token"
	SecretAPIKey           = "api_key"
	SecretConnection       = "connection_string"
	SecretBasicAuth        = "basic_auth"
	SecretBearer           = "bearer_token"
	SecretNPMToken         = "npm_token"
	SecretTwilioKey        = "twilio_key"
	SecretSendGridKey      = "sendgrid_key"
	SecretAzureStorageKey  = "azure_storage_key"
	SecretHerokuKey        = "heroku_key"
	SecretDigitalOcean     = "digitalocean_token"
	SecretTelegramBotToken = "telegram_bot_token"
	SecretPyPIToken        = "pypi_token"
	SecretWalletKey        = "wallet_private_key"
	SecretSeedPhrase       = "seed_phrase"
	SecretAgeKey           = "age_secret_key"
	SecretDiscordToken     = "discord_bot_token"
	SecretHuggingFace      = "huggingface_token"
	SecretVaultToken       = "vault_token"
	SecretShopifyToken     = "shopify_token"
	SecretAzureSAS         = "azure_sas_token"
)

// SecretMarker is the text that replaces a removed credential of the given kind, such as
// "[credential removed: aws secret key]".
func SecretMarker(kind string) string {
	return "[credential removed: " + strings.ReplaceAll(kind, "_", " ") + "]"
}

// secretRule is one kind of credential. Rules are hand-written in the spirit of gitleaks' default
// rules (a keyword prefilter, an expression, a group holding the secret, a check of the value),
// kept in the standard library.
type secretRule struct {
	kind string
	// keywords (lowercase): the rule runs only on texts holding one of them.
	keywords []string
	re       *regexp.Regexp
	// group is the submatch that is the secret (0: the whole match). Only it is replaced, so
	// "password: hunter2" becomes "password: [credential removed: password]".
	group int
	// check, when set, decides on the value (the group's text) and the whole match.
	check func(value, match string) bool
	// kindOf, when set, names the kind from the match (the generic assignment rule).
	kindOf func(match string) string
	// around, when set, decides on the secret text[s:e] from the text around it.
	around func(text string, s, e int) bool
	// pre, when set, is a fast test the text must pass besides a keyword.
	pre func(text string) bool
	// nASCII counts the keywords written in ASCII, which come first: an ASCII text is searched
	// for those alone.
	nASCII int
}

func srule(kind string, keywords []string, expr string, group int, check func(value, match string) bool) secretRule {
	return secretRule{kind: kind, keywords: keywords, re: regexp.MustCompile(expr), group: group, check: check}
}

// Values that name a secret rather than hold one.
var placeholderWords = []string{"your", "example", "placeholder", "changeme", "change_me", "change-me", "redacted",
	"dummy", "xxxx", "****", "....", "…", "<", ">", "{{", "${", "%(", "insert", "replace", "here", "todo",
	"secret_key_base", "fake", "sample", "mock"}

// proseValues are words that follow "password:" in prose and documentation rather than a password.
var proseValues = map[string]bool{
	"reset": true, "required": true, "optional": true, "must": true, "should": true, "will": true, "is": true,
	"the": true, "a": true, "an": true, "and": true, "or": true, "for": true, "of": true, "to": true, "in": true,
	"field": true, "fields": true, "manager": true, "managers": true, "policy": true, "hash": true, "hashed": true,
	"hashing": true, "strength": true, "length": true, "protected": true, "none": true, "null": true, "nil": true,
	"empty": true, "true": true, "false": true, "yes": true, "no": true, "n/a": true, "na": true, "hidden": true,
	"masked": true, "same": true, "see": true, "as": true, "set": true, "string": true, "str": true, "text": true,
	"prompt": true, "input": true, "login": true, "user": true, "username": true, "credentials": true,
	"stored": true, "sent": true, "provided": true, "given": true, "below": true, "above": true, "encrypted": true,
	"secure": true, "unchanged": true, "not": true, "never": true, "only": true, "at": true, "with": true,
	"via": true, "from": true, "on": true, "by": true, "this": true, "that": true, "it": true, "be": true,
	"expired": true, "expires": true, "rotated": true, "type": true, "char": true, "bytes": true, "int": true,
	"bool": true, "number": true, "value": true, "omitted": true, "removed": true, "withheld": true, "blank": true,
	"undefined": true, "unset": true, "env": true, "environment": true, "vault": true, "sent.": true,
	"password": true, "passwd": true, "pass": true, "pwd": true, "secret": true, "token": true, "key": true,
	"apikey": true, "api_key": true, "default": true, "auto": true, "generated": true, "random": true,
	"generate": true, "create": true, "choose": true, "pick": true, "change": true, "enter": true, "ask": true,
	"android": true, // the published password of Android's debug keystore
}

// placeholder reports whether a value names a secret without holding one: "<password>",
// "your-api-key", "xxx", "****", "${DB_PASSWORD}", "process.env.TOKEN", "changeme", a marker left
// by an earlier redaction, and the like. "changeme" counts as a placeholder: it is the
// conventional "set this" value of configuration templates.
func placeholder(value string) bool {
	v := strings.Trim(value, "\"'`")
	if v == "" || placeholderWord(v) {
		return true
	}
	switch v[0] {
	case '{', '[', '(', '@', '&', '*':
		return true
	case '$':
		return !literalDollar(v)
	case '%':
		return !literalPercent(v)
	}
	if strings.ContainsAny(v, "()") {
		return true // a call: os.getenv("X"), get_password()
	}
	if envName.MatchString(v) || codeRef.MatchString(v) && !wordDigits(v) || subscript.MatchString(v) {
		return true
	}
	if secretRef(v) || strings.HasPrefix(v, "ENC[") {
		return true // a reference, or a value encrypted by SOPS
	}
	if (strings.HasPrefix(v, "/") || strings.HasPrefix(v, "~/") || strings.HasPrefix(v, "./")) && strings.Count(v, "/") >= 2 {
		return true // a path: pwd: /home/deploy
	}
	if name, path, ok := strings.Cut(v, ":/"); ok && !strings.HasPrefix(path, "/") && strings.Count(path, "/") >= 1 &&
		!strings.ContainsAny(name, " /@") {
		return true // a name and a path: LoadCredential=signer:/etc/credstore/signer
	}
	return false
}

// secretRefs start a reference to a secret kept in a secret manager: Vault, 1Password, AWS
// Secrets Manager and Parameter Store, Google Secret Manager, Azure Key Vault, Doppler, SOPS.
var secretRefs = []string{"vault:", "op://", "arn:aws:secretsmanager", "arn:aws:ssm", "ssm:", "secretsmanager:",
	"gcp:secretmanager", "projects/", "sm://", "azure-keyvault", "keyvault:", "akv://", "doppler://", "sops:",
	"bws://", "infisical://", "secret://", "secrets://", "ref+"}

// secretRef reports whether v names a secret in a secret manager rather than holding it:
// vault:secret/data/shop/db#password, op://Shop/DB/password, arn:aws:secretsmanager:....
func secretRef(v string) bool {
	lo := strings.ToLower(v)
	for _, r := range secretRefs {
		if strings.HasPrefix(lo, r) {
			return true
		}
	}
	return false
}

// wordDigits reports whether a dotted value has a part of letters and then three or more digits
// ("Alter9786.blam", "tiger1977.jaguar"): a password of a word, a number and a word, not a code
// reference (config.db.password, settings.SECRET_KEY; sha256 has three digits but no capital
// before them and stands in hashlib.sha256, so a part must also start with a capital or hold
// four digits).
func wordDigits(v string) bool {
	for _, part := range strings.Split(v, ".") {
		i := 0
		for i < len(part) && (part[i] >= 'a' && part[i] <= 'z' || part[i] >= 'A' && part[i] <= 'Z') {
			i++
		}
		d := len(part[i:]) - len(strings.TrimLeft(part[i:], "0123456789"))
		if i >= 2 && (d >= 4 || d >= 3 && part[0] >= 'A' && part[0] <= 'Z') {
			return true
		}
	}
	return dottedWords(v)
}

// dottedWords reports a password of small words joined by dots and ending in two to four digits
// ("marble.zephyr88", "bramble.tundra.63"): each word of four or more letters, the first not a
// name code starts from (self, config, settings...) and the last not a type with its width
// (np.float64, torch.int32, encoding.utf16), so a code reference does not read as one.
func dottedWords(v string) bool {
	parts := strings.Split(v, ".")
	if len(parts) < 2 || len(parts) > 4 || codeHeads[parts[0]] {
		return false
	}
	last := parts[len(parts)-1]
	if len(parts) == 2 && len(parts[0]) >= 4 && strings.Trim(parts[0], "abcdefghijklmnopqrstuvwxyz") == "" && innerDigit(last) {
		return true // lighthouse.s4mf: a word and a generated tail with a digit inside it
	}
	letters := strings.TrimRight(last, "0123456789")
	if d := len(last) - len(letters); d < 2 || d > 4 {
		return false
	}
	if letters == "" {
		parts = parts[:len(parts)-1] // bramble.tundra.63
		if len(parts) < 2 {
			return false
		}
	} else {
		parts[len(parts)-1] = letters
	}
	if widthTypes[letters] {
		return false
	}
	for _, p := range parts {
		if len(p) < 4 || strings.Trim(p, "abcdefghijklmnopqrstuvwxyz") != "" {
			return false
		}
	}
	return true
}

// codeHeads start code references rather than passwords: self.conn42, config.pool16.
var codeHeads = map[string]bool{"self": true, "this": true, "config": true, "conf": true, "settings": true, "options": true,
	"opts": true, "params": true, "args": true, "props": true, "process": true, "request": true, "response": true,
	"secrets": true, "vault": true, "models": true, "model": true, "schema": true, "types": true, "numpy": true,
	"torch": true, "math": true, "string": true, "data": true, "state": true, "store": true, "window": true,
	"document": true, "module": true, "exports": true, "global": true, "globals": true, "local": true, "locals": true,
	"context": true, "ctx": true, "credentials": true, "creds": true, "environ": true, "keys": true, "java": true,
	"javax": true, "android": true, "crypto": true, "hashlib": true, "encoding": true, "codecs": true, "builtins": true}

// widthTypes are types named with their width in bits (float64, uint8, utf16, sha256, ipv6...).
var widthTypes = map[string]bool{"float": true, "int": true, "uint": true, "complex": true, "bfloat": true, "utf": true,
	"ucs": true, "sha": true, "base": true, "latin": true, "iso": true, "ipv": true, "http": true, "tls": true, "ssl": true,
	"rfc": true, "level": true, "version": true, "blake": true, "keccak": true,
	"crc": true, "md": true, "aes": true, "rsa": true, "ecdsa": true, "secp": true, "curve": true, "p": true, "x": true}

// placeholderWord reports whether a value holds a placeholder word ("your", "example", "xxxx")
// or is one character repeated. Token-shaped values are checked with it alone: a dotted token is not
// a code reference.
func placeholderWord(v string) bool {
	if v == "" || sameChar(v) {
		return true
	}
	lo := strings.ToLower(v)
	for _, w := range placeholderWords {
		if strings.Contains(lo, w) {
			return true
		}
	}
	return false
}

var (
	envName = regexp.MustCompile(`^[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+$`)
	codeRef = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)+(?:\[[^\]]*\])?$`)
	// subscript is a name indexed in code: params[:password], cfg["db"], argv[2].
	subscript = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*\[(?::?[A-Za-z_][A-Za-z0-9_]*|"[^"]*"|'[^']*'|[0-9]+)\]$`)
)

func sameChar(v string) bool {
	for i := 1; i < len(v); i++ {
		if v[i] != v[0] {
			return false
		}
	}
	return true
}

// entropy is the Shannon entropy of s in bits per byte.
func entropy(s string) float64 {
	if s == "" {
		return 0
	}
	var n [256]int
	for i := 0; i < len(s); i++ {
		n[s[i]]++
	}
	var h float64
	l := float64(len(s))
	for _, c := range n {
		if c > 0 {
			p := float64(c) / l
			h -= p * math.Log2(p)
		}
	}
	return h
}

// classes counts the character classes (lower, upper, digit, other) in s.
func classes(s string) int {
	var lo, up, dg, ot int
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c >= 'a' && c <= 'z':
			lo = 1
		case c >= 'A' && c <= 'Z':
			up = 1
		case c >= '0' && c <= '9':
			dg = 1
		default:
			ot = 1
		}
	}
	return lo + up + dg + ot
}

// upLowDigit reports whether s holds an upper-case letter, a lower-case letter and a digit.
func upLowDigit(s string) bool {
	var up, low, dg bool
	for i := 0; i < len(s); i++ {
		c := s[i]
		up = up || c >= 'A' && c <= 'Z'
		low = low || c >= 'a' && c <= 'z'
		dg = dg || c >= '0' && c <= '9'
	}
	return up && low && dg
}

// randomish reports whether a value looks generated: long enough, varied and not a placeholder.
func randomish(min int, minEntropy float64) func(string, string) bool {
	return func(v, _ string) bool {
		return len(v) >= min && entropy(v) >= minEntropy && classes(v) >= 2 && !placeholderWord(v)
	}
}

func notPlaceholder(v, _ string) bool { return !placeholderWord(v) }

// jwtHeader reports whether a JWT's first part decodes to a JSON header naming its algorithm.
func jwtHeader(v, _ string) bool {
	h, _, _ := strings.Cut(v, ".")
	dec, err := base64.RawURLEncoding.DecodeString(strings.TrimRight(h, "="))
	if err != nil {
		return false
	}
	return strings.HasPrefix(strings.TrimSpace(string(dec)), "{") && strings.Contains(string(dec), `"alg"`) && !publicJWT(v)
}

// hexOnly reports whether s is all hexadecimal digits and dashes: git hashes, SHA-256 sums, UUIDs.
func hexOnly(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F' || c == '-') {
			return false
		}
	}
	return true
}

var secretRules = []secretRule{
	// A private key block; a truncated one (no END line) too. "-----BEGIN ... PRIVATE KEY-----"
	// followed by "..." in documentation is not a key.
	srule(SecretPrivateKey, []string{"private key"},
		`-----BEGIN[ A-Z0-9]*PRIVATE KEY(?: BLOCK)?-----(?:[\s\S]*?-----END[ A-Z0-9]*PRIVATE KEY(?: BLOCK)?-----|[A-Za-z0-9+/=\s:,\-]*)`, 0,
		func(v, _ string) bool {
			n := 0
			body := v[5:]
			body = body[strings.Index(body, "-----")+5:]
			if i := strings.Index(body, "-----END"); i >= 0 {
				body = body[:i]
			}
			for i := 0; i < len(body); i++ {
				c := body[i]
				if c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '+' || c == '/' {
					n++
				}
			}
			return n >= 40 && !strings.Contains(body, "...") && !strings.Contains(body, "…")
		}),
	srule(SecretAnthropicKey, []string{"sk-ant-"}, `\bsk-ant-[A-Za-z0-9_\-]{32,}`, 0, randomish(40, 4)),
	srule(SecretOpenAIKey, []string{"sk-"}, `\bsk-(?:proj-|svcacct-|admin-|None-)?[A-Za-z0-9_\-]{32,}`, 0,
		func(v, m string) bool {
			return !strings.HasPrefix(v, "sk-ant-") && randomish(36, 4)(v, m) && strings.ContainsAny(v, "0123456789")
		}),
	srule(SecretAWSSecretKey, []string{"aws"},
		`(?i)\baws[\w.\-]{0,30}?(?:secret|sk)[\w.\-]{0,20}["']?\s*(?::=|=>|=|:)\s*["']?([A-Za-z0-9/+]{40})(?:[^A-Za-z0-9/+=]|$)`, 1,
		randomish(40, 3.5)),
	srule(SecretGitHubToken, []string{"ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"},
		`\b(?:gh[pousr]_[A-Za-z0-9]{36,251}|github_pat_[A-Za-z0-9_]{22,255})\b`, 0, randomish(36, 3.5)),
	srule(SecretGitLabToken, []string{"gl"},
		`\b(?:gl(?:pat|ptt|dt|rt|oas|cbt|ft|imt|soat|agent)-[A-Za-z0-9_\-]{20,}|GR1348941[A-Za-z0-9_\-]{20})`, 0, randomish(24, 3.5)),
	srule(SecretSlackWebhook, []string{"hooks.slack.com"},
		`https?://hooks\.slack\.com/(?:services|workflows|triggers)/[A-Za-z0-9+/_\-]{20,}`, 0,
		func(v, _ string) bool {
			return !placeholder(strings.TrimPrefix(v, "https://hooks.slack.com/")) && strings.Count(v, "/") >= 5
		}),
	srule(SecretSlackToken, []string{"xox", "xapp-"},
		`\b(?:xox[abposre](?:\.xox[bp])?|xapp)-\d+-[0-9A-Za-z\-]{10,}`, 0, randomish(20, 3)),
	srule(SecretStripeKey, []string{"sk_live", "rk_live", "sk_test", "rk_test"}, `\b[sr]k_(?:live|test)_[0-9A-Za-z]{16,}`, 0, randomish(24, 3.5)),
	srule(SecretGoogleAPIKey, []string{"aiza"}, `\bAIza[0-9A-Za-z_\-]{35}`, 0, randomish(39, 3.5)),
	srule(SecretSendGridKey, []string{"sg."}, `\bSG\.[A-Za-z0-9_\-]{22}\.[A-Za-z0-9_\-]{43,}`, 0, randomish(60, 4)),
	srule(SecretNPMToken, []string{"npm_"}, `\bnpm_[A-Za-z0-9]{36}\b`, 0, randomish(40, 3.5)),
	srule(SecretPyPIToken, []string{"pypi-"}, `\bpypi-AgE[A-Za-z0-9_\-]{50,}`, 0, randomish(50, 3.5)),
	srule(SecretTwilioKey, []string{"sk"}, `\bSK[0-9a-fA-F]{32}\b`, 0, randomish(34, 3)),
	srule(SecretDigitalOcean, []string{"_v1_"}, `\bdo[por]_v1_[a-f0-9]{64}\b`, 0, randomish(64, 3)),
	srule(SecretTelegramBotToken, []string{":aa"}, `\b\d{8,10}:AA[0-9A-Za-z_\-]{33}\b`, 0, randomish(40, 3.5)),
	srule(SecretHerokuKey, []string{"heroku", "hrku-"},
		`(?i)(?:\bheroku[\w.\-]{0,30}["']?\s*(?::=|=>|=|:)\s*["']?([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\b|\b(HRKU-[A-Za-z0-9_\-]{20,}))`, -1,
		nil),
	srule(SecretAzureStorageKey, []string{"accountkey", "account_key", "sharedaccesskey", "azure"},
		`(?i)(?:\b(?:account_?key|sharedaccesskey)["']?\s*[=:]\s*["']?|\bazure[\w.\-]{0,30}["']?\s*(?::=|=>|=|:)\s*["']?)([A-Za-z0-9+/]{86}==|[A-Za-z0-9+/]{43}=)`, 1, randomish(40, 4)),
	// A JWT anywhere (a header, a cookie, a URL, a JSON field, a storage dump): three parts, the
	// first a JSON header naming its algorithm, the second a JSON object, the signature possibly
	// empty (alg none).
	srule(SecretJWT, []string{"eyj"}, `\beyJ[A-Za-z0-9_\-]{10,}={0,2}\.ey[A-Za-z0-9_\-]{10,}={0,2}\.[A-Za-z0-9_\-]*`, 0, jwtHeader),
	srule(SecretAgeKey, []string{"age-secret-key-1"}, `\bAGE-SECRET-KEY-1[QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L]{58}\b`, 0, nil),
	// A Discord bot token: the bot's id in base64, a timestamp, an HMAC.
	// No keyword: the token may stand alone, as in client.run("..."); its ".xxxxxx." part is
	// looked for first.
	{kind: SecretDiscordToken, keywords: []string{"."}, pre: discordShape,
		re: regexp.MustCompile(`\b[MNO][A-Za-z0-9_\-]{23,27}\.[A-Za-z0-9_\-]{6}\.[A-Za-z0-9_\-]{27,38}\b`), check: discordID},
	srule(SecretHuggingFace, []string{"hf_"}, `\bhf_[A-Za-z0-9]{34,40}\b`, 0, randomish(37, 3.5)),
	srule(SecretVaultToken, []string{"hvs.", "hvb."}, `\bhv[sb]\.[A-Za-z0-9_\-]{24,}`, 0, randomish(28, 3.5)),
	// A Vault token of the older shape (s. and 24 characters) where Vault is named.
	srule(SecretVaultToken, []string{"vault"}, `(?i)\bvault\b[^\n]{0,60}?\b(s\.[A-Za-z0-9]{24})\b`, 1, randomish(26, 3.5)),
	srule(SecretShopifyToken, []string{"shpat_", "shpca_", "shppa_", "shpss_"}, `\bshp(?:at|ca|pa|ss)_[a-fA-F0-9]{32}\b`, 0, randomish(38, 3)),
	// A shared access signature's sig= parameter, in a URL or a connection string.
	srule(SecretAzureSAS, []string{"sig="}, `(?i)(?:[?&;]|\b)sig=([A-Za-z0-9%+/_\-]{30,}(?:%3D|=){0,2})`, 1, randomish(30, 4)),
	// scheme://user:password@host: the whole link goes, so no address is left half-removed.
	srule(SecretConnection, []string{"://"},
		`\b[A-Za-z][A-Za-z0-9+.\-]{1,20}://([^\s:/@"'<>\[\]]{0,64}):([^\s@/"'<>]{1,128})@[^\s"'<>]+`, 0,
		func(v, _ string) bool {
			m := connRe.FindStringSubmatch(v)
			if m == nil {
				return false
			}
			pass := strings.ToLower(m[2])
			switch pass {
			case "pass", "password", "passwd", "pwd", "secret", "pw", "p", "x", "token":
				return false
			}
			return !connPlaceholder(m[2])
		}),
	srule(SecretBasicAuth, []string{"basic", "-u", "--user"},
		`(?i)(?:\b(?:authorization|auth[ _\-]?header|basic[ _\-]auth(?:[ _\-]?header)?)\s*[:=]\s*["']?basic\s+([A-Za-z0-9+/]{8,}={0,2})|\bcurl\b[^\n]*?\s(?:-u|--user)\s+["']?([^\s:"']+:[^\s"']+))`, -1,
		func(v, m string) bool { return basicValue(v, m) || basicHeader(v, m) }),
	// A docker config.json login: "auth" holds base64 of user:password.
	srule(SecretBasicAuth, []string{`"auth"`}, `"auth"\s*:\s*"([A-Za-z0-9+/]{8,}={0,2})"`, 1, basicValue),
	// .netrc: machine host login user password secret (on one line or several).
	srule(SecretPassword, []string{"machine"}, `(?i)\b(?:machine\s+\S+|default)\s+login\s+\S+\s+password\s+(\S+)`, 1, passwordValue),
	srule(SecretPassword, []string{"sshpass"}, `\bsshpass\s+-p\s*(?:"([^"\n]+)"|'([^'\n]+)'|([^\s"']+))`, -1, passwordValue),
	srule(SecretBearer, []string{"bearer"}, `(?i)\bbearer\s+([A-Za-z0-9\-._~+/]{16,}=*)`, 1,
		func(v, m string) bool { return randomish(16, 3.2)(v, m) && strings.ContainsAny(v, "0123456789") }),
	// A wallet's private key: 64 hex digits (with or without 0x) that the words before name a key;
	// the same shape named a transaction, a block, a hash or a slot passes (evmKey).
	{kind: SecretWalletKey, keywords: []string{"key", "accounts", "pk", "metamask", "wallet", "signer", "deployer", "hextoecdsa", "use mine", "ключ", "鍵", "键", "鑰", "钥", "키",
		"account", "broadcast", "credentials", "priv:", "->sign(", "rememberkey(", "vm.addr(", "sign", "monedero", "billetera",
		"cartera", "carteira", "portefeuille", "portafoglio", "portfel", "кошел", "гаманц", "钱包", "錢包", "ウォレット", "지갑",
		"cüzdan", "dompet",
		"clave", "chave", "clé", "cle ", "clef", "priv=", "priv =", "schlüssel", "chiave", "klucz", "anahtar", "kunci", "khóa", "sleutel",
		"مفتاح", "محفظ", "کلید", "کیف پول", "מפתח", "ארנק", "κλειδί", "πορτοφόλι", "คีย์", "กุญแจ", "กระเป๋าเงิน", "कुंजी",
		"प्राइवेट की", "वॉलेट", "প্রাইভেট কী", "ওয়ালেট", "klíč", "peněženk", "nyckel", "plånbok", "cheie", "kulcs", "tárca", "ufunguo", "pochi", "llave"},
		re: regexp.MustCompile(`\b(?:0[xX])?[0-9a-fA-F]{64}\b`), around: evmKey, pre: hex64},
	// key = value, key: value, "key": "value", --password value. Any value after a word for a
	// password (but a placeholder or a word of prose); a random-looking one after the others.
	// The key may be a subscript (cfg['SECRET_KEY'] = ...) or a flag in an argument list
	// (["--requirepass", "..."]).
	{kind: SecretGeneric, keywords: []string{"pass", "pw", "secret", "token", "key", "auth", "credential", "pk_hex"},
		re:    regexp.MustCompile(`(?i)(?:^|[^A-Za-z0-9])([A-Za-z0-9_.\-]{0,40}?(?:passwd|password|passphrase|pwd|pass|pw|secret|token|api[_\-]?key|apikey|access[_\-]?key|auth[_\-]?key|private[_\-]?key|privkey|priv[_\-]key|pk[_\-]hex|app[_\-]?key|licen[cs]e[_\-]?key|signing[_\-]?key|master[_\-]?key|encryption[_\-]?key|credentials?|authtok)(?:[_\-]?(?:string|value|key|hex|phrase))?)(?:["']?\]?[ \t]*(?::=|=>|=|:|\bis\b|\bwas\b)[ \t]*|["'][ \t]*,[ \t]*|[ \t]+)(?:"([^"\n]{1,200})"|'([^'\n]{1,200})'|` + "`" + `([^` + "`" + `\n]{1,200})` + "`" + `|([^\s"'` + "`" + `,;<>]{1,200}))`),
		group: -1, kindOf: genericKind},
}

func init() { addRules(nil) }

// addRules appends rules to secretRules, dropping from every rule the keywords that hold another
// of its keywords ("accounts" after "account", "totp" after "otp"): a text without the shorter one
// lacks the longer, and each keyword looked for costs a pass over the text.
func addRules(rs []secretRule) {
	secretRules = append(secretRules, rs...)
	for i := range secretRules {
		ks := secretRules[i].keywords
		var keep []string
		for _, k := range ks {
			redundant := false
			for _, o := range ks {
				if o != k && strings.Contains(k, o) {
					redundant = true
					break
				}
			}
			if !redundant {
				keep = append(keep, k)
			}
		}
		secretRules[i].nASCII = asciiFirst(keep)
		secretRules[i].keywords = keep
	}
}

// asciiFirst puts the words written in ASCII first and reports how many there are: most texts
// are ASCII, and no word in another script can be in them.
func asciiFirst(ws []string) int {
	sort.SliceStable(ws, func(i, j int) bool { return isASCII(ws[i]) && !isASCII(ws[j]) })
	n := 0
	for n < len(ws) && isASCII(ws[n]) {
		n++
	}
	return n
}

// basicValue decides on user:password, given as is or in base64.
func basicValue(v, _ string) bool {
	if strings.Contains(v, ":") {
		_, p, _ := strings.Cut(v, ":")
		return !placeholder(p) && !proseValues[strings.ToLower(p)]
	}
	dec, err := base64.StdEncoding.DecodeString(v)
	if err != nil {
		return false
	}
	_, p, ok := strings.Cut(string(dec), ":")
	return ok && p != "" && !placeholder(p) && !proseValues[strings.ToLower(p)]
}

// basicHeader decides on the value of an Authorization: Basic header that is not user:password
// in base64 (cut short, or made up by hand): a value of capitals, small letters and digits that
// looks random is the credential itself.
func basicHeader(v, m string) bool {
	return !strings.Contains(v, ":") && !strings.HasPrefix(strings.ToLower(m), "curl") && len(v) >= 12 &&
		upLowDigit(v) && entropy(v) >= 3.5 && !placeholderWord(v)
}

func passwordValue(v, _ string) bool {
	return len(v) >= 3 && !placeholder(v) && !proseValues[strings.ToLower(v)]
}

// discordID reports whether a Discord token's first part is a user id in base64 (digits only).
func discordID(v, _ string) bool {
	id, _, _ := strings.Cut(v, ".")
	dec, err := base64.RawURLEncoding.DecodeString(strings.TrimRight(id, "="))
	if err != nil || len(dec) < 17 {
		return false
	}
	for _, c := range dec {
		if c < '0' || c > '9' {
			return false
		}
	}
	return randomish(50, 4)(v, v)
}

// discordShape reports whether text holds ".xxxxxx." (six or seven base64url characters between dots),
// the middle of a Discord token.
func discordShape(text string) bool {
	for i := strings.IndexByte(text, '.'); i >= 0 && i+7 < len(text); {
		if text[i+7] == '.' && b64url(text[i+1:i+7]) || i+8 < len(text) && text[i+8] == '.' && b64url(text[i+1:i+8]) {
			return true
		}
		j := strings.IndexByte(text[i+1:], '.')
		if j < 0 {
			break
		}
		i += 1 + j
	}
	return false
}

func b64url(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}

// hex64 reports whether text holds 64 hexadecimal digits in a row.
func hex64(text string) bool { return hexRun(text, 64) }

// hexRun reports whether text holds n hexadecimal digits in a row.
func hexRun(text string, n int) bool {
	k := 0
	for i := 0; i < len(text); i++ {
		if isHex(text[i]) {
			if k++; k >= n {
				return true
			}
		} else {
			k = 0
		}
	}
	return false
}

// exprWords begin an expression in code: what follows "password =" is computed, not written.
var exprWords = map[string]bool{"new": true, "await": true, "yield": true, "typeof": true, "function": true,
	"lambda": true, "async": true, "fn": true, "func": true, "match": true, "try": true}

var connRe = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9+.\-]*://([^:]*):([^@]*)@`)

// genericKind names the kind of a key = value match from its key.
func genericKind(key string) string {
	k := strings.ToLower(key)
	switch {
	case strings.Contains(k, "pass") || strings.HasSuffix(k, "pwd") || strings.HasSuffix(k, "pw"):
		return SecretPassword
	case strings.Contains(k, "secret") || strings.Contains(k, "credential"):
		return SecretGeneric
	case strings.Contains(k, "private") || strings.Contains(k, "priv") || strings.Contains(k, "pk_hex") || strings.Contains(k, "pk-hex"):
		return SecretPrivateKey
	case strings.Contains(k, "token"):
		return SecretToken
	}
	return SecretAPIKey
}

// genericValue decides on the value of a key = value match: sep is the text between key and
// value, quoted whether the value was quoted.
func genericValue(kind, key, sep, v string, quoted bool) bool {
	if placeholder(v) {
		return false
	}
	lo := strings.ToLower(v)
	k := strings.ToLower(key)
	bare := strings.TrimSpace(sep) == "" // "password hunter2": only after a password word or a flag
	if strings.Contains(sep, ",") && !strings.HasPrefix(k, "-") {
		return false // ["password", "email"]: a list of names; ["--requirepass", "..."] is a flag's value
	}
	if strings.Contains(v, "-----BEGIN") {
		return false // a key block: the private key rule decides on it
	}
	if publicTestKeys[strings.ToLower(strings.TrimPrefix(v, "0x"))] {
		return false // a local chain's published test account
	}
	if strings.HasPrefix(k, "-") && (strings.HasPrefix(v, "./") || strings.HasPrefix(v, "../") || strings.HasPrefix(v, "/") ||
		strings.HasPrefix(v, "~/") || fileName.MatchString(v) && !strings.ContainsAny(v, "!@#$%^&*")) {
		return false // a flag naming a file: --password ./pw.txt, --password-file keystore.pass
	}
	if kind == SecretPassword {
		if proseValues[strings.TrimRight(lo, ".:")] || len(v) < 3 || lo == k || hashName(v) {
			return false
		}
		if bare && !strings.HasPrefix(k, "-") {
			return false
		}
		if !quoted && (exprWords[v] || psCommand.MatchString(v)) {
			return false // password = new String(...), await prompt(...): code computes it
		}
		is := strings.TrimSpace(strings.ToLower(sep))
		if !quoted && (is == ":" || is == "is" || is == "was") && !strongish(v) {
			return false // "Password: choose one you can remember"
		}
		return true
	}
	if strings.HasPrefix(lo, "arn:") && strings.Count(v, ":") >= 5 {
		return false // an Amazon resource name (a KMS key's, a role's) names, it does not open
	}
	if bare && !strings.HasPrefix(k, "-") || publicValue(v) || evmAddress(v) {
		return false // "token abc": only after a flag ("--token abc"); a token's contract address
	}
	if strings.Trim(lo, "abcdefghijklmnopqrstuvwxyz-_") == "" && v == lo {
		return false // --secret=deployer-key: a secret's name in a secret manager, not its value
	}
	// Key words that are not secrets: max_tokens, key ids, page tokens, CSRF tokens.
	if strings.HasSuffix(k, "tokens") || strings.Contains(k, "_id") || strings.Contains(k, "page") || strings.Contains(k, "cursor") ||
		strings.Contains(k, "csrf") || strings.Contains(k, "xsrf") {
		return false
	}
	if len(v) < 12 || entropy(v) < 3 || classes(v) < 2 {
		return false
	}
	if hexOnly(v) && len(v) >= 40 && !strings.Contains(k, "secret") && !strings.Contains(k, "key") && !strings.Contains(k, "token") &&
		!strings.Contains(k, "pk") {
		return false
	}
	return true
}

// connPlaceholder reports whether the password of a link's user:password@ names one rather than
// holding it: a placeholder word, ${VAR}, $VAR, {{ var }}, <password>, %(password)s. A link holds
// text as is, so a dotted value or one starting with $ and holding symbols is a password.
func connPlaceholder(p string) bool {
	if placeholderWord(p) || secretRef(p) {
		return true
	}
	switch p[0] {
	case '{', '<', '[', '%', '*':
		return true
	case '$':
		return strings.HasPrefix(p, "${") || strings.HasPrefix(p, "$(") || varRef.MatchString(p) && !upLowDigit(p)
	}
	return false
}

// literalDollar reports a value that starts with $ but is no variable's reference: it holds a sign
// no reference holds ($$U=Q@08r*$j285, where Terraform's $$ is a literal $), and is no crypt(3)
// hash ($2b$12$..., $argon2id$v=19$...) nor a template (${X}, $(cmd), $env:X, $_ENV[...]).
func literalDollar(v string) bool {
	if len(v) < 8 || strings.ContainsAny(v, "{}()[] ") || strings.HasPrefix(v, "$_") || hashName(strings.TrimLeft(v, "$")) {
		return false
	}
	lo := strings.ToLower(v)
	for _, h := range []string{"$1$", "$2", "$5$", "$6$", "$y$", "$7$", "$argon", "$scrypt", "$pbkdf", "$sha", "$md5", "$apr1$", "$env:", "$gy$"} {
		if strings.HasPrefix(lo, h) {
			return false
		}
	}
	return strings.ContainsAny(v, "=@*!#%^&+~?") && classes(strings.Trim(v, "$")) >= 3
}

// literalPercent reports a value that starts with % but is no variable's reference nor a format:
// %UtQY5K9HF5z0eS7y holds one %, capitals, small letters and digits; %APPDATA%, %(password)s,
// %s and %{x} are references.
func literalPercent(v string) bool {
	return len(v) >= 8 && strings.Count(v, "%") == 1 && !strings.ContainsAny(v, "{}()[] ") && upLowDigit(v)
}

var varRef = regexp.MustCompile(`^\$[A-Za-z_][A-Za-z0-9_]*$`)

// evmAddress reports whether v is 0x and 40 hex digits: an account or a contract, public
// whatever the key ("token": "0x...").
func evmAddress(v string) bool {
	return len(v) == 42 && (strings.HasPrefix(v, "0x") || strings.HasPrefix(v, "0X")) && hexOnly(v[2:]) && !strings.Contains(v, "-")
}

// arn reports whether the word holding text[i] is an Amazon resource name (arn:aws:...).
func arn(text string, i int) bool {
	w := strings.LastIndexAny(text[:i], " \t\n\"'=`") + 1
	return strings.Contains(strings.ToLower(text[w:i]), "arn:")
}

// strongish reports whether an unquoted value after "password:" or "password is" reads as a
// password rather than a word of prose: it holds a digit or a symbol, an upper-case letter after
// the first, or is a long lower-case word.
func strongish(v string) bool {
	for i := 0; i < len(v); i++ {
		c := v[i]
		switch {
		case c >= '0' && c <= '9':
			return true
		case c >= 'A' && c <= 'Z' && i > 0:
			return true
		case !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'):
			if i < len(v)-1 {
				return true
			}
		}
	}
	return len(v) >= 8 && strings.ToLower(v) == v
}

// bytePairs is a set of the pairs of adjacent bytes in a text, hashed into 4096 bits: a keyword
// one of whose pairs is missing is not in the text, and is not looked for.
type bytePairs [64]uint64

func pairHash(a, b byte) uint { return (uint(a)*131 + uint(b)) & 4095 }

func (p *bytePairs) add(s string) {
	for i := 1; i < len(s); i++ {
		h := pairHash(s[i-1], s[i])
		p[h>>6] |= 1 << (h & 63)
	}
}

// may reports whether every pair of adjacent bytes of k is in the set.
func (p *bytePairs) may(k string) bool {
	for i := 1; i < len(k); i++ {
		h := pairHash(k[i-1], k[i])
		if p[h>>6]&(1<<(h&63)) == 0 {
			return false
		}
	}
	return true
}

// FindSecrets reports the credentials in text (private keys, cloud and service keys and tokens,
// passwords and secrets given as values, connection strings with a password) without changing it.
// Each Removal names its kind (one of the Secret* constants) and the fingerprint of the removed
// text, never the text itself.
func FindSecrets(text string) []Removal {
	return findSecrets(text, true)
}

// findSecrets is FindSecrets; join says whether to read strings joined by concatenation as one
// and HTML-escaped text as unescaped (not when reading such a rewritten text itself).
func findSecrets(text string, join bool) []Removal {
	if len(text) < 8 {
		return nil
	}
	lo := strings.ToLower(text)
	var pairs bytePairs
	pairs.add(lo)
	type span struct {
		s, e int
		kind string
		prio int
	}
	var spans []span
	ascii := isASCII(text)
	for prio, r := range secretRules {
		hit := false
		ks := r.keywords
		if ascii {
			ks = ks[:r.nASCII]
		}
		for _, k := range ks {
			if pairs.may(k) && strings.Contains(lo, k) {
				hit = true
				break
			}
		}
		if !hit || r.pre != nil && !r.pre(text) {
			continue
		}
		for _, m := range r.re.FindAllStringSubmatchIndex(text, -1) {
			s, e := m[0], m[1]
			kind := r.kind
			switch {
			case r.kindOf != nil:
				// the generic rule: key in group 1, value in one of groups 2-5
				key := text[m[2]:m[3]]
				if arn(text, m[2]) {
					continue // arn:aws:secretsmanager:...:secret:name names a secret
				}
				kind = r.kindOf(key)
				vs, ve, quoted := -1, -1, false
				for g := 2; g <= 5; g++ {
					if m[2*g] >= 0 {
						vs, ve, quoted = m[2*g], m[2*g+1], g < 5
						break
					}
				}
				if vs < 0 {
					continue
				}
				v := text[vs:ve]
				if !quoted {
					if strings.HasSuffix(v, "[") || subscript.MatchString(v) {
						continue // a code reference: os.environ["X"], config['db'], ENV["X"], params[:password]
					}
					v = strings.TrimRight(v, ".)]}")
					ve = vs + len(v)
				}
				if ve-vs == 200 {
					ve = longValueEnd(text, ve, quoted)
					v = text[vs:ve]
				}
				sepStart := m[3]
				sepEnd := vs
				if quoted {
					sepEnd--
				}
				if !genericValue(kind, key, text[sepStart:sepEnd], v, quoted) {
					continue
				}
				s, e = vs, ve
			case r.group > 0:
				s, e = m[2*r.group], m[2*r.group+1]
			case r.group < 0:
				// the first group that matched is the secret
				s = -1
				for g := 1; 2*g+1 < len(m); g++ {
					if m[2*g] >= 0 {
						s, e = m[2*g], m[2*g+1]
						break
					}
				}
				if s < 0 {
					continue
				}
			}
			if r.check != nil && !r.check(text[s:e], text[m[0]:m[1]]) {
				continue
			}
			if r.around != nil && !r.around(text, s, e) {
				continue
			}
			if r.kind == SecretPrivateKey && strings.HasPrefix(text[e:], `\n`) {
				e += 2 // the line break that ends a key in a JSON string
			}
			if r.kind == SecretConnection || r.kind == SecretSlackWebhook {
				e = s + trimPunct([]byte(text[s:e]), 0, e-s)
			}
			p := prio
			if r.kindOf != nil && kind == SecretGeneric {
				p = len(secretRules) + 2 // "secret": a rule that knows the kind names it better
			}
			spans = append(spans, span{s, e, kind, p})
		}
	}
	for _, p := range findSplitKeys(text) {
		spans = append(spans, span{p[0], p[1], SecretWalletKey, len(secretRules) + 1})
	}
	for _, p := range append(append(findSeedPhrases(text), findSplitPhrases(text, lo, &pairs)...), findNumberedPhrase(text)...) {
		spans = append(spans, span{p[0], p[1], SecretSeedPhrase, len(secretRules)})
	}
	for _, p := range findProsePasswords(text, lo, &pairs) {
		spans = append(spans, span{p[0], p[1], SecretPassword, len(secretRules) + 1})
	}
	for _, p := range findKeystorePasswords(text, lo, &pairs) {
		spans = append(spans, span{p[0], p[1], SecretPassword, len(secretRules) + 1})
	}
	for _, h := range append(append(append(append(findTableSecrets(text, lo), findInsertSecrets(text, lo)...), findEncodedData(text, lo)...),
		findNamedValues(text, lo, &pairs)...), append(append(findPairedValues(text, lo), findRound13(text, lo, &pairs)...), append(append(findRound14(text, lo, &pairs), findRound15(text, lo, &pairs)...), findRound16(text, lo, &pairs)...)...)...) {
		spans = append(spans, span{h.s, h.e, h.kind, len(secretRules) + 1})
	}
	passwords, keys := findCallCredentials(text, lo, &pairs)
	for _, p := range passwords {
		spans = append(spans, span{p[0], p[1], SecretPassword, len(secretRules) + 1})
	}
	for _, p := range keys {
		if calledPublic(text, p[0], p[1]) {
			continue // createClient('...', '...') // anon key, fine in the browser
		}
		spans = append(spans, span{p[0], p[1], SecretAPIKey, len(secretRules) + 1})
	}
	scoredPasswords, scoredKeys := findScored(text, lo)
	for _, p := range scoredPasswords {
		spans = append(spans, span{p[0], p[1], SecretPassword, len(secretRules) + 3})
	}
	for _, p := range scoredKeys {
		spans = append(spans, span{p[0], p[1], SecretAPIKey, len(secretRules) + 3})
	}
	for _, p := range findProseKeys(text, lo) {
		spans = append(spans, span{p[0], p[1], SecretAPIKey, len(secretRules) + 1})
	}
	for _, f := range append(append(findHCLDefaults(text), findConsoleSecrets(text, lo, &pairs)...), findLayoutValues(text)...) {
		spans = append(spans, span{f.s, f.e, f.kind, len(secretRules) + 1})
	}
	for _, p := range findClientPairs(text) {
		spans = append(spans, span{p[0], p[1], SecretAPIKey, len(secretRules) + 1})
	}
	for _, p := range findRecoveryCodes(text, lo) {
		spans = append(spans, span{p[0], p[1], SecretPassword, len(secretRules) + 1})
	}
	if join {
		for _, j := range append(findJoinedStrings(text), findEscapedHTML(text)...) {
			spans = append(spans, span{j.s, j.e, j.kind, len(secretRules) + 1})
		}
	}
	for _, sp := range spans {
		if s, e, ok := concatenated(text, sp.e); ok && sp.kind != SecretPassword {
			spans = append(spans, span{s, e, sp.kind, sp.prio})
		}
	}
	kept := spans[:0]
	for _, sp := range spans {
		if sp.kind == SecretPassword {
			sp.e = quotedEnd(text, sp.s, sp.e)
		}
		if !publicID(text, sp.s, sp.e) && !signerID(text, sp.s) && !notSecretHere(text, sp.s, sp.e) {
			kept = append(kept, sp)
		}
	}
	spans = kept
	if len(spans) == 0 {
		return nil
	}
	sort.Slice(spans, func(i, j int) bool {
		if spans[i].s != spans[j].s {
			return spans[i].s < spans[j].s
		}
		return spans[i].e > spans[j].e
	})
	var out []Removal
	var prios []int
	for _, sp := range spans {
		if n := len(out); n > 0 && sp.s < out[n-1].End {
			if sp.e > out[n-1].End {
				out[n-1].End = sp.e
			}
			if sp.prio < prios[n-1] {
				out[n-1].Kind, prios[n-1] = sp.kind, sp.prio
			}
			continue
		}
		out = append(out, Removal{Kind: sp.kind, Start: sp.s, End: sp.e})
		prios = append(prios, sp.prio)
	}
	for i := range out {
		out[i].Fingerprint = fingerprint(text[out[i].Start:out[i].End])
	}
	return out
}

// quotedEnd extends a password found at the start of a quoted string over the rest of the
// string when the whole reads as a passphrase of spaced words (7z -p"sprocket pepper ember 40").
func quotedEnd(text string, s, e int) int {
	if s == 0 || text[s-1] != '"' && text[s-1] != '\'' {
		return e
	}
	q := strings.IndexByte(text[e:], text[s-1])
	if q <= 0 || q > 100 || strings.IndexByte(text[e:e+q], '\n') >= 0 || !spacedWords(text[s:e+q]) {
		return e
	}
	return e + q
}

// RedactSecrets replaces each credential in text with a marker naming its kind, such as
// "[credential removed: aws secret key]", and reports what it removed, in order. A text without
// credentials is returned unchanged with no removals. Markers are not credentials: redacting
// twice changes nothing more.
func RedactSecrets(text string) (string, []Removal) {
	return apply(text, FindSecrets(text), SecretMarker)
}
