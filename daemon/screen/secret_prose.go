package screen

import (
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Exchange and payment keys written as prose rather than as configuration: "bybit key X / secret
// Y", "clé API Kraken : X", "ключ X, секрет Y", "secret for signing: X", a Mistral key after
// "Mistral-Schlüssel ... :", Mollie and Circle keys by their prefixes, and the value of a Postman
// collection's key entry.
var exchangeSecretRules = []secretRule{
	// ALTER ROLE ... PASSWORD '...', CREATE USER ... PASSWORD '...'
	srule(SecretPassword, []string{"password '"}, `(?i)\b(?:alter|create)[ \t]+(?:role|user)\b[^;'\n]{0,80}?\bpassword[ \t]+'([^'\n]{4,200})'`, 1,
		func(v, _ string) bool { return !placeholder(v) }),
	// requests' auth=('user', 'password')
	srule(SecretPassword, []string{"auth=("}, `\bauth[ \t]*=[ \t]*\([ \t]*["'][^"'\n]{1,64}["'][ \t]*,[ \t]*["']([^"'\n]{6,200})["'][ \t]*\)`, 1,
		func(v, _ string) bool { return !placeholder(v) && classes(v) >= 2 }),
	// a .pgpass line: host:port:database:user:password
	srule(SecretPassword, []string{"pgpass"}, `(?m)^[A-Za-z0-9.\-*]+:(?:\d{1,5}|\*):[A-Za-z0-9_\-*]+:[A-Za-z0-9_.\-*]+:(\S{6,200})$`, 1,
		func(v, _ string) bool { return !placeholder(v) && classes(v) >= 2 }),
	srule(SecretAPIKey, []string{"live_", "test_"}, `\b(?:live|test)_[A-Za-z0-9]{30}\b`, 0, func(v, _ string) bool { return mixedCase(v[5:]) }),
	srule(SecretAPIKey, []string{"_api_key:"}, `\b(?:LIVE|TEST|SAND)_API_KEY:[0-9a-f]{32}:[0-9a-f]{32}\b`, 0, randomish(40, 3)),
	srule(SecretAPIKey, []string{"\"value\""},
		`"key"[ \t]*:[ \t]*"(?:value|token|apikey|api_key|secret|password|key)"[ \t]*,[ \t]*"value"[ \t]*:[ \t]*"([A-Za-z0-9+/_\-.]{16,200})"`, 1,
		func(v, _ string) bool { return mixedCase(v) }),
	// An exchange's API key that is a UUID (OKX; KuCoin's secret) or 24 hex digits (KuCoin's key):
	// the shape of a request id, so flagged only after a key or secret label with an exchange, or
	// the passphrase these exchanges add to key and secret, named in the 300 bytes around it.
	{kind: SecretAPIKey, keywords: []string{"key", "secret"},
		re: regexp.MustCompile(`(?i)\b(?:api[ _\-]?key|apikey|access[ _\-]?key|key|api[ _\-]?secret|secret(?:[ _\-]?key)?)["']?[ \t]*(?:[:=：][ \t]*)?["']?` +
			`([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}|[0-9a-f]{24})\b`),
		group: 1, check: func(v, _ string) bool { return !sameChar(strings.ReplaceAll(v, "-", "")) && entropy(v) >= 2.8 },
		around: exchangeContext},
}

func init() {
	addRules(exchangeSecretRules)
}

// exchangeContext reports whether an exchange, or the passphrase an exchange's key comes with, is
// named in the 300 bytes on either side of text[s:e].
func exchangeContext(text string, s, e int) bool {
	around := strings.ToLower(text[max(0, s-300):s] + " " + text[e:min(len(text), e+300)])
	if strings.Contains(around, "passphrase") || strings.Contains(around, "okex") {
		return true
	}
	before := strings.ToLower(text[max(0, s-40):s])
	for _, w := range notAPIKeyWords {
		if strings.Contains(before, w) {
			return false // an idempotency key, an order's id: a UUID with no secret in it
		}
	}
	for _, n := range exchangeNames {
		if n != "exchange" && containsWord(around, n) {
			return true
		}
	}
	return false
}

// notAPIKeyWords name a key that is an id rather than a credential.
var notAPIKeyWords = []string{"idempotency", "request", "order", "trace", "correlation", "licen", "product", "activation",
	"session", "cache", "partition", "primary", "foreign", "object", "client_order", "clordid", "public"}

// containsWord reports whether lo holds w with no letter on either side: "gate", not "aggregate".
func containsWord(lo, w string) bool {
	for from := 0; ; {
		i := strings.Index(lo[from:], w)
		if i < 0 {
			return false
		}
		i += from
		from = i + len(w)
		if (i == 0 || !isLower(lo[i-1])) && (from == len(lo) || !isLower(lo[from])) {
			return true
		}
	}
}

// proseKeyRe reads a key or secret word in English, Russian, French, Spanish or German, then the
// value itself or a few words and a colon, from the start of its input.
var proseKeyRe = regexp.MustCompile(`^(?:[Kk][Ee][Yy]|[Ss][Ee][Cc][Rr][Ee][Tt]|[Кк]люч|[Сс]екрет|[Cc]lé|[Ll]lave|[Ss]chlüssel|` + otherKeyWords + `|` + cjkKeyWords + `)(?:[ \t]*[:：=][ \t]*|[ \t]+(?:is|ist|lautet|est|es|é|è|jest|adalah|är|er|je|là|—)[ \t]+|[ \t]*(?:は|는|은|이|가|是|为|為|：)[ \t]*|[ \t]+|[ \t][^\n:：=«»"']{1,48}?[:：][ \t]*)([A-Za-z0-9+/_\-]{16,100}={0,2})(?:[^A-Za-z0-9+/_\-=]|$)`)

// otherKeyWords are "key", "token" and "secret" in more languages, any case of the first letter:
// clave, chave, chiave, klucz, anahtar, kunci, khóa, sleutel, nyckel, nøgle, nøkkel, avain, kulcs,
// cheie, klíč, токен, jeton, token.
const otherKeyWords = `[Cc]lave|[Cc]have|[Cc]hiave|[Kk]lucz|[Aa]nahtar|[Kk]unci|[Kk]hóa|[Ss]leutel|[Nn]yckel|[Nn]øgle|[Nn]økkel|[Aa]vain|[Kk]ulcs|[Cc]heie|[Kk]líč|[Тт]окен|[Jj]eton|[Tt]oken|TOKEN|KEY|SECRET`

// cjkKeyWords are "key", "secret" and "token" in Chinese, Japanese and Korean: 密钥, 秘钥,
// 令牌, シークレット, キー, トークン, 시크릿, 키, 토큰.
const cjkKeyWords = `密钥|秘钥|密鑰|秘鑰|令牌|シークレット|キー|トークン|シークレットキー|시크릿|키|토큰|비밀 키|비밀키`

// firstOtherKeyWord is the index in proseKeyWords of the first word added in round 7 ("clave"):
// these count only as whole words ("enclave" is not "clave").
const firstOtherKeyWord = 7

// proseKeyWords start proseKeyRe; only its window after each is read.
var proseKeyWords = []string{"key", "secret", "ключ", "секрет", "clé", "llave", "schlüssel", "clave", "chave", "chiave",
	"klucz", "anahtar", "kunci", "khóa", "sleutel", "nyckel", "nøgle", "nøkkel", "avain", "kulcs", "cheie", "klíč", "токен",
	"jeton", "token", "密钥", "秘钥", "密鑰", "秘鑰",
	"令牌", "シークレット", "キー", "トークン", "시크릿", "키", "토큰", "비밀 키"}

// findProseKeys reports keys and secrets in prose ("bybit key X / secret Y", "clé API Kraken : X",
// "ключ X", "secret for signing: X"): a value proseKey takes, in a context proseKeyContext
// passes. "key" and "secret" count as words, not inside one or after a dash (--secret-key X is a
// flag's). lo is text in lower case.
func findProseKeys(text, lo string) [][2]int {
	if len(lo) != len(text) || !keyShaped(text) {
		return nil
	}
	var out [][2]int
	for k, w := range proseKeyWords {
		for from := 0; ; {
			i := strings.Index(lo[from:], w)
			if i < 0 {
				break
			}
			i += from
			from = i + len(w)
			if r, _ := utf8.DecodeLastRuneInString(text[:i]); (w == "key" || w == "secret") && i > 0 &&
				(unicode.IsLetter(r) || unicode.IsDigit(r) || r == '-' || r == '_') ||
				k >= firstOtherKeyWord && i > 0 && !cjkWord(w) && (unicode.IsLetter(r) || unicode.IsDigit(r) || r == '_') {
				continue
			}
			end := min(len(text), i+200)
			m := proseKeyRe.FindStringSubmatchIndex(text[i:end])
			if m == nil || m[1] == end-i && end < len(text) {
				continue
			}
			s, e := i+m[2], i+m[3]
			if digestLabel(text[:s]) || text[s] == '/' {
				continue // "key fingerprint is SHA256:...": a digest of a public key
			}
			if proseKey(text[s:e], text[i:i+m[1]]) && proseKeyContext(text, s, e) {
				out = append(out, [2]int{s, e})
			}
		}
	}
	return out
}

// cjkWord reports whether w starts with a letter of a script written without spaces.
func cjkWord(w string) bool {
	r, _ := utf8.DecodeRuneInString(w)
	return cjk(r)
}

// digestLabel reports whether before ends with a digest's name and a colon (SHA256:, MD5:) or
// speaks of a fingerprint just before: the value after it is a digest.
func digestLabel(before string) bool {
	lo := strings.ToLower(before[max(0, len(before)-40):])
	return strings.HasSuffix(lo, "sha256:") || strings.HasSuffix(lo, "sha1:") || strings.HasSuffix(lo, "sha512:") ||
		strings.HasSuffix(lo, "md5:") || strings.Contains(lo, "fingerprint")
}

// keyShaped reports whether text holds a run of 16 or more letters and digits with both cases and
// a digit, or of 32 or more hex digits: the values proseKey may take. Most prose holds none.
func keyShaped(text string) bool {
	for i := 0; i < len(text); {
		var up, low, dg, other bool
		j := i
		for ; j < len(text); j++ {
			c := text[j]
			switch {
			case c >= 'A' && c <= 'Z':
				up = true
				other = other || c > 'F'
			case c >= 'a' && c <= 'z':
				low = true
				other = other || c > 'f'
			case c >= '0' && c <= '9':
				dg = true
			case c == '+' || c == '/' || c == '_' || c == '-':
			default:
				goto end
			}
		}
	end:
		if n := j - i; n >= 16 && up && low && dg || n >= 32 && !other && dg {
			return true
		}
		i = j + 1
	}
	return false
}

// mixedCase reports whether v holds capitals, small letters and digits, random-looking, and is not a
// placeholder.
func mixedCase(v string) bool {
	return upLowDigit(v) && entropy(v) >= 3.5 && !placeholderWord(v)
}

// exchangeNames name an exchange shortly before a hex key: a Gate.io key is 32 hex digits.
var exchangeNames = []string{"gate", "kraken", "bybit", "kucoin", "bitget", "okx", "binance", "coinbase", "mexc", "huobi",
	"bitfinex", "exchange", "биржи", "биржа", "交易所", "börse", "bourse"}

// proseKeyContext passes a value that the words before name public, and a hex value unless an
// exchange is named in the 80 bytes before it (elsewhere 32 to 64 hex digits are hashes).
func proseKeyContext(text string, s, e int) bool {
	before := strings.ToLower(text[max(0, s-80):s])
	if strings.Contains(before, "public") || strings.Contains(before, "publishable") || strings.Contains(before, "pubkey") {
		return false
	}
	if !hexOnly(text[s:e]) {
		return true
	}
	if !strings.Contains(text[s:e], "-") && strings.Contains(strings.ToLower(text[max(0, s-40):s]), "api") {
		return true // "API secret: <hex>", "APIシークレットは <hex>"
	}
	for _, n := range exchangeNames {
		if strings.Contains(before, n) {
			return true
		}
	}
	return false
}

// proseKey decides on a value after a key or secret word in prose: mixed case and digits, not a
// public key's shape (xpub, AAAA..., a Solana address: 32 to 44 base58 characters, a content id);
// or 32 to 64 hex digits (see proseKeyContext).
func proseKey(v, m string) bool {
	if publicValue(v) || strings.HasPrefix(v, "AAAA") || contentID.MatchString(v) || len(v) >= 4 && v[1:4] == "pub" || evmAddress(v) {
		return false
	}
	if hexOnly(v) {
		return len(v) >= 32 && len(v) <= 64 && !sameChar(v) // an exchange's hex key; proseKeyContext decides
	}
	if len(v) >= 32 && len(v) <= 44 && base58Word(v, len(v), len(v), "") {
		return false // a Solana address
	}
	return mixedCase(v) && (len(v) >= 24 || entropy(v) >= 3.6)
}
