package screen

import (
	"regexp"
	"strings"
)

// Private keys of other chains than Ethereum's: Bitcoin's WIF keys (where a key, a wallet or
// Bitcoin is spoken of) and extended private keys (xprv and its kin) by their own shape and checksum, Solana's secret keys (64 bytes in base58,
// like a transaction signature, so only where a key word names them) and keypair files (64 numbers
// of 0 to 255 in brackets; not after "public": an uncompressed public key is 64 bytes too).
var chainSecretRules = []secretRule{
	srule(SecretWalletKey, []string{"prv"}, `\b[xtyzuvYZUV]prv[1-9A-HJ-NP-Za-km-z]{100,112}\b`, 0,
		func(v, _ string) bool { return base58Check(v, btcAlphabet) }),
	{kind: SecretWalletKey, keywords: []string{"wif", "key", "priv", "bitcoin", "btc", "wallet", "import", "electrum", "sweep", "ltc", "doge", "private", "secret"}, pre: func(text string) bool { return base58Word(text, 51, 52, "5KLc9") },
		re: regexp.MustCompile(`\b[5KLc9][1-9A-HJ-NP-Za-km-z]{50,51}\b`), check: wif},
	{kind: SecretWalletKey, keywords: []string{"key", "keypair", "ключ", "密钥", "私钥", "clave", "chave", "schlüssel", "clé", "llave"},
		pre: func(text string) bool { return base58Word(text, 86, 88, "") },
		re:  regexp.MustCompile(`\b[1-9A-HJ-NP-Za-km-z]{86,88}\b`), check: func(v, _ string) bool { return len(base58Decode(v, btcAlphabet)) == 64 },
		around: evmKey},
	srule(SecretWalletKey, []string{"keypair", "solana", "id.json", "secret", "private", "key", "wallet"},
		`\[\s*(?:\d{1,3}\s*,\s*){63}\d{1,3}\s*\]`, 0, byteArray).withPre(func(text string) bool { return strings.Count(text, ",") >= 63 }).notPublic(),
}

func init() {
	addRules(chainSecretRules)
}

var base58Byte = func() (t [256]bool) {
	for i := 0; i < len(btcAlphabet); i++ {
		t[btcAlphabet[i]] = true
	}
	return t
}()

// base58Word reports whether text holds a run of lo to hi base58 characters, starting with one of
// first when first is not empty.
func base58Word(text string, lo, hi int, first string) bool {
	for i := 0; i < len(text); {
		if !base58Byte[text[i]] {
			i++
			continue
		}
		j := i
		for j < len(text) && base58Byte[text[j]] {
			j++
		}
		if n := j - i; n >= lo && n <= hi && (first == "" || strings.IndexByte(first, text[i]) >= 0) {
			return true
		}
		i = j
	}
	return false
}

// wif decides on a Bitcoin private key in wallet import format: version 0x80 (0xef on testnet),
// 32 bytes, perhaps the compression flag, and a valid checksum.
func wif(v, m string) bool {
	b := base58Decode(v, btcAlphabet)
	if len(b) != 37 && !(len(b) == 38 && b[33] == 1) || b[0] != 0x80 && b[0] != 0xef {
		return false
	}
	return base58Check(v, btcAlphabet)
}

// byteArray decides on 64 numbers in brackets: a Solana keypair holds bytes (0 to 255), varied.
func byteArray(v, _ string) bool {
	distinct := map[string]bool{}
	for _, f := range strings.FieldsFunc(v, func(r rune) bool { return r < '0' || r > '9' }) {
		if len(f) > 3 || f > "255" && len(f) == 3 {
			return false
		}
		distinct[f] = true
	}
	return len(distinct) >= 24
}
