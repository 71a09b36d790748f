package screen

import (
	"crypto/sha256"
	_ "embed"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Wallet keys and recovery phrases. On this exchange transaction hashes, block hashes, digests and
// storage slots (0x and 64 hex digits, like a private key) are everyday text, so a 64-hex value is
// a key only when its context says so; a recovery phrase is a run of 12 to 24 words of the BIP-39
// list that either carries a valid checksum or is introduced or numbered as a phrase (see
// docs/decisions.md, "Credentials and dry-run reservations").

// keyContext are the words that, shortly before a 64-hex value, name it a private key: English
// names, configuration fields and flags, and "private key" in the languages sellers write in.
var keyContext = []string{"private key", "private_key", "privatekey", "private-key", "privkey", "priv_key",
	"priv key", "secret key", "secret_key", "secretkey", "signing key", "signer key", "signer_key", "deployer key",
	"deployer_key", "deployer_private", "wallet key", "wallet_key", "account key", "pk=", "pk:", "pk =", "pk\":",
	"accounts:", "accounts =", "accounts\":", "metamask", "wallet import", "import this key",
	"clave privada", "chave privada", "clé privée", "cle privee", "privater schlüssel", "privatschlüssel",
	"chiave privata", "klucz prywatny", "özel anahtar", "приватный ключ", "закрытый ключ", "секретный ключ",
	"приватний ключ", "私钥", "私鑰", "秘密鍵", "秘密键", "개인키", "개인 키", "kunci privat", "khóa riêng", "sleutel",
	"schlüssel", "key", "from_key", "hextoecdsa", "privatekeys", "pk for", "pk ", "_pk", "pk\"", "pk'",
	"密钥", "秘钥", "密鑰", "clave", "chave", "klucz", "ключ", "chiave", "clé", "anahtar",
	// "private key" and "key" in Arabic, Persian, Hebrew, Greek, Thai, Hindi, Czech, Swedish,
	// Romanian, Hungarian, and more Indonesian and Vietnamese
	"المفتاح الخاص", "مفتاح خاص", "المفتاح السري", "مفتاح", "کلید خصوصی", "کلید", "מפתח פרטי", "מפתח",
	"ιδιωτικό κλειδί", "κλειδί", "คีย์ส่วนตัว", "กุญแจส่วนตัว", "คีย์", "กุญแจ", "निजी कुंजी", "प्राइवेट की", "প্রাইভেট কী", "প্রাইভেট কি", "कुंजी",
	"soukromý klíč", "klíč", "privat nyckel", "nyckel", "cheie privată", "cheia privată", "cheie", "privát kulcs",
	"kulcs", "kunci pribadi", "kunci", "khóa bí mật", "llave privada", "llave", "ufunguo binafsi", "ufunguo wa siri", "ufunguo",
	// calls that take a private key: web3j, Nethereum, brownie, Foundry, PHP, Ruby
	"credentials.create(", "eckeypair.create(", "account(", "accounts.add(", "broadcast(", "rememberkey(",
	"vm.addr(", "etheckey(", "->sign(", "priv:", "privatekeytoaccount(",
	// a key given as PRIV=, French "clef privée"
	"priv=", "priv =", "priv\":", "clef privée", "clef privee", "clef"}

// weakKeyContext are words that name a 64-hex value a key only when no hash word is near: "new
// Wallet(...)", "a funded deployer ... use mine: ...", but not "the Merkle root of the wallet list".
var weakKeyContext = []string{"wallet", "signer", "deployer", "use mine", "to sign", "sign with", "signing with",
	"monedero", "billetera", "cartera", "carteira", "portefeuille", "portafoglio", "portfel", "кошел", "гаманц", "钱包",
	"錢包", "ウォレット", "지갑", "cüzdan", "dompet", "محفظ", "کیف پول", "ארנק", "πορτοφόλι", "กระเป๋าเงิน", "वॉलेट",
	"peněženk", "plånbok", "portofel", "tárca", "pochi"}

// hashContext are the words that name a 64-hex value a hash: a transaction, a block, a digest, a
// slot. The nearer of a key word and a hash word before the value decides.
var hashContext = []string{"tx", "transaction", "hash", "block", "receipt", "/tx/", "slot", "keccak", "bytes32",
	"topic", "digest", "sha", "commit", "root", "salt", "nonce", "event", "log", "logs", "checksum", "merkle",
	"signature", "sig ", "sig:", "sig=", "sig_", "sig\"", "mac", "id", "ids", "uuid", "seed", "public key", "public_key",
	"publickey", "pubkey", "хеш", "хэш", "транзакц", "блок", "transacción", "transação", "transaktion", "transazione",
	"transakcj", "bloque", "bloco", "hachage", "哈希", "交易", "区块", "區塊", "ハッシュ", "トランザクション", "ブロック", "해시",
	"트랜잭션", "블록", "معامل", "تجزئة", "هاش", "تراکنش", "עסקה", "συναλλαγ", "ธุรกรรม", "แฮช", "लेनदेन", "हैश",
	"transakc", "tranzac", "tranzakc"}

// The words of each list written in ASCII come first; an ASCII text is searched for them alone.
var (
	keyContextASCII     = asciiFirst(keyContext)
	hashContextASCII    = asciiFirst(hashContext)
	weakKeyContextASCII = asciiFirst(weakKeyContext)
)

// closedOnly are hash words that count only when no letter follows ("sha256" and "id:" count,
// "share", "login" and "idea" do not).
var closedOnly = map[string]bool{"sha": true, "log": true, "id": true, "root": true, "mac": true}

// hashVerbs are hash words that are also verbs: denied ("do not commit", "never log this") they
// speak of keeping the value out of a repository or a log, which is said of keys.
var hashVerbs = map[string]bool{"commit": true, "log": true, "logs": true}

// deniedVerb reports whether s ends with a negation: "do not ", "don't ", "never ", "(not ".
func deniedVerb(s string) bool {
	s = strings.TrimRight(s, " \t")
	for _, n := range []string{" not", "(not", "n't", "never", " no", "nicht", "nie", " pas"} {
		if strings.HasSuffix(s, n) {
			return true
		}
	}
	return false
}

// keyAfter are words right after a value that name it a key ("import this key into MetaMask").
var keyAfter = []string{"metamask", "private key", "import it", "import this", "key.txt", "keyfile", "into key",
	"localwallet", "privatekeysigner", "signingkey"}

// evmKey decides on a 64-hex value (0x or bare) at text[s:e] from its context.
func evmKey(text string, s, e int) bool {
	if sameChar(strings.TrimPrefix(text[s:e], "0x")) || dummyHex(text[s:e]) {
		return false // 0x000...0: a placeholder
	}
	from := s - 80
	if from > 0 && hex64(text[from:s]) {
		from -= 70 // a list of keys: look past the one before
	}
	if from < 0 {
		from = 0
	}
	before := strings.ToLower(text[from:s])
	keyWords, hashWords, weakWords := keyContext, hashContext, weakKeyContext
	if isASCII(before) {
		keyWords, hashWords, weakWords = keyContext[:keyContextASCII], hashContext[:hashContextASCII], weakKeyContext[:weakKeyContextASCII]
	}
	if publicTestKeys[strings.ToLower(strings.TrimPrefix(text[s:e], "0x"))] {
		return false
	}
	if signingArg(text, s) {
		return true // sign_transaction(tx, "0x..."), Account.from_key("0x..."), new Wallet("0x...")
	}
	key, keyAt, hash := -1, -1, -1
	for _, w := range keyWords {
		i := strings.LastIndex(before, w)
		if w == "key" && i >= 0 && namedKey(before[:i]) {
			continue // a storage slot key, a cache key
		}
		if i >= 0 && i+len(w) > key {
			key, keyAt = i+len(w), i
		}
	}
	if key >= 0 && negated(before, keyAt) || key >= 0 && negated(before, firstWordOf(before, keyAt)) {
		key = -1 // "the transaction hash, NOT my private key: ..."
	}
	for _, w := range hashWords {
		i := lastWord(before, w)
		if w == "hash" {
			i = strings.LastIndex(before, w) // keyHash, codeHash, blockhash: hashes
		}
		if i >= 0 && closedOnly[w] && i+len(w) < len(before) && isLower(before[i+len(w)]) {
			continue // "share", "login", "idea": not sha, log, id
		}
		if i >= 0 && hashVerbs[w] && deniedVerb(before[:i]) {
			continue // "do not commit", "never log": an order about the key, not a hash
		}
		if i >= 0 && i+len(w) > hash {
			hash = i + len(w)
		}
	}
	if key >= 0 && key > hash { // "public key" ends where "key" does: a hash word
		return true
	}
	if hash < 0 {
		for _, w := range weakWords {
			if strings.Contains(before, w) {
				return true
			}
		}
	}
	to := e + 60
	if to > len(text) {
		to = len(text)
	}
	after := strings.ToLower(text[e:to])
	if strings.Contains(after, "/tx/") || hash >= 0 && hash > key {
		return false
	}
	for _, w := range keyAfter {
		if strings.Contains(after, w) {
			return true
		}
	}
	return false
}

// signingCalls take a private key among their arguments, and no hash: web3.py's sign_transaction
// and Account.from_key, ethers' Wallet and SigningKey, viem's privateKeyToAccount, web3.js's
// signTransaction, go-ethereum's HexToECDSA. Calls that sign a message or a hash (sign,
// signMessage, unsafe_sign_hash) are left out: their other argument may be a 64-hex hash.
var signingCalls = map[string]bool{"sign_transaction": true, "signtransaction": true, "from_key": true, "fromkey": true,
	"privatekeytoaccount": true, "wallet": true, "signingkey": true, "hextoecdsa": true, "localaccount": true,
	"keypair": true, "fromprivatekey": true, "from_private_key": true, "privatekeysigner": true, "localsigner": true}

// signingArg reports whether text[s:] is an argument of a call that signs with a private key:
// the nearest open bracket before it, within 200 bytes on its line, follows one of
// signingCalls.
func signingArg(text string, s int) bool {
	depth := 0
	for i := s - 1; i >= 0 && i >= s-200; i-- {
		switch text[i] {
		case '\n':
			return false
		case ')':
			depth++
		case '(':
			if depth > 0 {
				depth--
				continue
			}
			j := i
			for j > 0 && (isLower(text[j-1]|0x20) || text[j-1] >= '0' && text[j-1] <= '9' || text[j-1] == '_') {
				j--
			}
			return signingCalls[strings.ToLower(text[j:i])]
		}
	}
	return false
}

// firstWordOf is where the words of a key phrase ending at i start: "private key" holds two, and
// the negation stands before the first ("а не приватный ключ").
func firstWordOf(before string, i int) int {
	j := strings.LastIndexAny(before[:i], " \t\n") + 1
	if j > 0 && j == i {
		k := strings.LastIndexAny(strings.TrimRight(before[:i], " \t"), " \t\n") + 1
		return k
	}
	return j
}

// publicTestKeys are the private keys of the accounts Hardhat and Anvil fund on a local chain
// (from their published "test test ... junk" mnemonic). They are printed by the tools themselves
// and in their documentation: public facts, not secrets.
var publicTestKeys = map[string]bool{
	"ac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80": true,
	"59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d": true,
	"5de4111afa1a4b94908f83103eb1f1706367c2e68ca870fc3fb9a804cdab365a": true,
	"7c852118294e51e653712a81e05800f419141751be58f605c371e15141b007a6": true,
	"47e179ec197488593b187f80a00eb0da91f1b9d0b13f8733639f19c30a34926a": true,
	"8b3a350cf5c34c9194ca85829a2df0ec3153be0318b5e2d3348e872092edffba": true,
	"92db14e403b83dfe3df233f83dfa3a0d7096f21ca9b0d6d6b8d88b2b4ec1564e": true,
	"4bbbf85ce3377467afe5d46f804f221813b2bb87f24d81f60f1fcdbf7cbf4356": true,
	"dbda1821b80551c9d65939329250298aa3472ba22feea921c0cf5d620ea67b97": true,
	"2a871d0798f97d79848a013d4936a73bf4cc922c825d33c1cf7073dff6d409c6": true,
	"f214f2b2cd398c806f84e317254e0f0b801d0643303237d97a22a48e01628897": true,
	"701b615bbdfb9de65240bc28bd21bbc0d996645a3dd57e7b12bc2bdf6f192c82": true,
	"a267530f49f8280200edf313ee7af6b827f2a8bce2897751d06a843f644967b1": true,
	"47c99abed3324a2707c28affff1267e45918ec8c3f20b8aa892e8b065d2942dd": true,
	"c526ee95bf44d8fc405a158bb884d9d1238d99f0612e9f33d006bb0789009aaa": true,
	"8166f546bab6da521a8369cab06c5d2b9e46670292d85c875ee9ec20e84ffb61": true,
	"ea6c44ac03bff858b476bba40716402b03e41b8e97e276d1baec7c37d42484a0": true,
	"689af8efa8c651a91ad287602527f3af2fe9f6501a7ac4b061667b5a93e037fd": true,
	"de9be858da4a475276426320d5e9262ecfc3ba460bfac56360bfa6c4c28b4ee0": true,
	"df57089febbacf7ba0bc227dafbffa9fc08a93fdc68e1e42411a14efcf23656e": true,
}

// keyNouns are words that, right before "key", name a key that is not a secret.
var keyNouns = map[string]bool{"slot": true, "storage": true, "cache": true, "mapping": true, "map": true,
	"lookup": true, "idempotency": true, "partition": true, "index": true, "primary": true, "foreign": true,
	"sort": true, "row": true, "dedup": true, "object": true, "public": true, "pub": true, "verification": true,
	"verifying": true, "hash": true, "tx": true, "event": true, "topic": true, "s3": true, "bucket": true}

// namedKey reports whether the word ending s (before "key") names a key that is not a secret.
func namedKey(s string) bool {
	s = strings.TrimRight(s, " _-.")
	i := strings.LastIndexAny(s, " \t\n_-.(\"'`:=")
	return keyNouns[s[i+1:]]
}

// lastWord is the last index of w in s where w does not continue a longer word on its left
// ("tx" in "ctx" does not count; "txHash", "tx_hash" do).
func lastWord(s, w string) int {
	for end := len(s); ; {
		i := strings.LastIndex(s[:end], w)
		if i < 0 {
			return -1
		}
		if i == 0 || !isLower(s[i-1]) {
			return i
		}
		end = i + len(w) - 1
		if end <= 0 {
			return -1
		}
	}
}

func isLower(c byte) bool { return c >= 'a' && c <= 'z' }

//go:embed bip39_english.txt
var bip39Text string

var bip39Index = func() map[string]int {
	m := make(map[string]int, 2048)
	for i, w := range strings.Fields(bip39Text) {
		m[w] = i
	}
	return m
}()

// phraseContext are words that, before a run of list words, call it a recovery phrase.
var phraseContext = []string{"seed", "mnemonic", "phrase", "recovery", "backup", "secret words", "wallet words",
	"12 words", "24 words", "twelve words", "metamask", "ledger", "trezor", "wallet",
	"semilla", "semente", "mnemónic", "mnemônic", "mnémonique", "mnemonik", "мнемон", "сид-фраз", "сид фраз",
	"frase de recupera", "frase secreta", "frase di recupero", "frase segreta", "phrase de récupération",
	"wiederherstellung", "fraza odzyskiw", "助记词", "助記詞", "助记", "种子词", "種子詞", "恢复短语", "ニーモニック",
	"シードフレーズ", "復元フレーズ", "시드 구문", "복구 구문", "니모닉"}

// negations are words that, just before a phrase word, deny it: "(not a wallet)".
var negations = []string{"not", "no", "non", "nicht", "kein", "keine", "pas", "não", "nie", "не", "ni"}

// articles may stand between a negation and a phrase word ("not a wallet", "no es una semilla").
var articles = map[string]bool{"a": true, "an": true, "the": true, "is": true, "es": true, "un": true, "una": true,
	"une": true, "ein": true, "eine": true, "é": true, "um": true, "uma": true, "ist": true, "real": true, "my": true}

// negated reports whether the words just before before[:i] deny the phrase word at i: "not a
// wallet", "kein Seed", "no es una semilla", "not a seed phrase"; "do not lose this seed phrase"
// does not.
func negated(before string, i int) bool {
	f := strings.Fields(before[max(0, i-24):i])
	for k := len(f) - 1; k >= 0 && k >= len(f)-4; k-- {
		w := strings.Trim(f[k], "([\"'")
		if slices.Contains(negations, w) {
			return true
		}
		if !articles[w] && !slices.ContainsFunc(phraseContext, func(c string) bool { return strings.Contains(w, c) }) {
			return false
		}
	}
	return false
}

// apartFrom reports whether the non-ASCII letter or sign next to a word (before it when left)
// leaves the word standing on its own: a sign such as "：" or a letter of a script written without
// spaces, not a letter that continues a word ("café").
func apartFrom(s string, left bool) bool {
	var r rune
	if left {
		r, _ = utf8.DecodeLastRuneInString(s)
	} else {
		r, _ = utf8.DecodeRuneInString(s)
	}
	return !unicode.IsLetter(r) && !unicode.IsMark(r) || cjk(r)
}

// word is a word of the BIP-39 list at text[s:e], idx its index in the list.
type word struct {
	s, e, idx int
}

// findSeedPhrases reports the recovery phrases in text: runs of 12 or more words of the BIP-39
// English list, separated by spaces, line breaks, commas or numbering, with a valid checksum, a
// phrase word before them, or numbering.
func findSeedPhrases(text string) [][2]int {
	if len(text) < 12*4 {
		return nil
	}
	var out [][2]int
	var run []word
	numbered := 0
	flush := func() {
		if len(run) >= 12 {
			if sp, ok := seedSpan(text, run, numbered); ok {
				out = append(out, sp)
			}
		}
		run, numbered = run[:0], 0
	}
	var buf [8]byte
	for i := 0; i < len(text); {
		c := text[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z') {
			i++
			continue
		}
		j := i
		for j < len(text) && (text[j] >= 'a' && text[j] <= 'z' || text[j] >= 'A' && text[j] <= 'Z') {
			j++
		}
		idx := -1
		if n := j - i; n >= 3 && n <= 8 && (j == len(text) || text[j] < 0x80 || apartFrom(text[j:], false)) &&
			(i == 0 || text[i-1] < 0x80 || apartFrom(text[:i], true)) {
			for k := 0; k < n; k++ {
				buf[k] = text[i+k] | 0x20
			}
			if v, ok := bip39Index[string(buf[:n])]; ok {
				idx = v
			}
		}
		if idx < 0 {
			flush()
		} else {
			if len(run) > 0 {
				gap, ok := phraseGap(text[run[len(run)-1].e:i])
				if !ok {
					flush()
				} else if gap {
					numbered++
				}
			}
			run = append(run, word{i, j, idx})
		}
		i = j
	}
	flush()
	return out
}

// numberBefore is where a number such as "1. " or "1) " right before s starts, or s.
func numberBefore(text string, s int) int {
	i := s
	for i > 0 && (text[i-1] == ' ' || text[i-1] == '\t') {
		i--
	}
	if i == 0 || text[i-1] != '.' && text[i-1] != ')' {
		return s
	}
	j := i - 1
	for j > 0 && text[j-1] >= '0' && text[j-1] <= '9' {
		j--
	}
	if j == i-1 {
		return s
	}
	return j
}

// phraseGap reports whether the text between two words keeps them in one phrase (spaces, line
// breaks, commas, quotes, brackets, numbering such as "2." or "3)"), and whether it holds a number.
func phraseGap(g string) (numbered, ok bool) {
	digit := false
	for i := 0; i < len(g); i++ {
		switch c := g[i]; {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == ',' || c == ';' || c == '"' || c == '\'' ||
			c == '[' || c == ']' || c == '-' || c == '|':
		case c >= '0' && c <= '9':
			digit = true
		case c == '.' || c == ')' || c == ':':
			if !digit {
				return false, false
			}
		default:
			return false, false
		}
	}
	return digit, true
}

// seedSpan decides on a run of list words. Only 12, 15, 18, 21 or 24 words with a valid BIP-39
// checksum are a phrase: a word list of that length whose checksum fails is a game's, a spelling
// list, tags or a validator's test, whatever the words around it say (a random list passes
// with a chance of 1 in 16 for 12 words to 1 in 256 for 24). A run of a phrase's length is one
// on its checksum alone; in a longer or shorter run (a phrase word or a stray list word next to
// the phrase), a window of a phrase's length with a valid checksum is one where it is numbered,
// a phrase word not denied is in the 80 bytes before it or the 60 after (the words of the run
// before it count: "phrase injury-quiz-..."), or it is set apart (quoted, or 18 words or more
// after a colon). A run of fewer than 6 distinct words is not a secret (Hardhat's public "test
// test ... junk").
func seedSpan(text string, run []word, numbered int) ([2]int, bool) {
	if distinctWords(run) < 6 {
		return [2]int{}, false
	}
	n := len(run)
	// a strong phrase word may itself be a list word that starts the run: "derive-private-key '...'"
	for lead := 0; lead <= 3 && n-lead >= 12; lead++ {
		if strongPhraseNear(text, run[lead].s, run[n-1].e) {
			s := run[lead].s
			if numbered > 0 {
				s = numberBefore(text, s)
			}
			return [2]int{s, run[n-1].e}, true
		}
	}
	if n <= 24 && n%3 == 0 {
		if !bip39Checksum(indices(run)) {
			return [2]int{}, false
		}
		s := run[0].s
		if numbered > 0 {
			s = numberBefore(text, s) // "1. " goes with the list
		}
		return [2]int{s, run[n-1].e}, true
	}
	for w := min(n, 24) / 3 * 3; w >= 12; w -= 3 {
		for k := 0; k+w <= n; k++ {
			win := run[k : k+w]
			s, e := win[0].s, win[w-1].e
			if distinctWords(win) < 6 || !bip39Checksum(indices(win)) {
				continue
			}
			if numbered >= w-2 || phraseNear(text, s, e) || setApart(text, s, e, w >= 18) {
				if numbered > 0 {
					s = numberBefore(text, s)
				}
				return [2]int{s, e}, true
			}
		}
	}
	return [2]int{}, false
}

// strongPhraseWords name a run of list words a wallet's recovery phrase beyond doubt: a phrase
// handed to a wallet tool whose checksum is off by one mistyped word is still the key to it.
// "phrase", "12 words", "wallet" or numbering alone do not: a word game, a spelling list or a
// validator's test case says as much.
var strongPhraseWords = []string{"seed", "mnemonic", "recovery", "restore", "derive", "semilla", "semente",
	"mnemónic", "mnemônic", "mnémonique", "mnemonik", "мнемон", "сид-фраз", "сид фраз", "frase de recupera",
	"frase di recupero", "phrase de récupération", "wiederherstellung", "fraza odzyskiw", "助记词", "助記詞", "助记",
	"种子词", "種子詞", "恢复短语", "ニーモニック", "シードフレーズ", "復元フレーズ", "시드 구문", "복구 구문", "니모닉"}

// checksumTalk are words that speak of a phrase's checksum or its validation: a list next to
// them is a test case, not a phrase.
var checksumTalk = []string{"checksum", "invalid", "validator", "validation", "should be rejected", "not valid"}

// strongPhraseNear reports whether a strong phrase word, not denied, stands in the 40 bytes before
// text[s:e] or the 60 after it, with no word about checksums in the 120 before.
func strongPhraseNear(text string, s, e int) bool {
	wide := strings.ToLower(text[max(0, s-120):s])
	for _, w := range checksumTalk {
		if strings.Contains(wide, w) {
			return false
		}
	}
	before := strings.ToLower(text[max(0, s-40):s])
	after := strings.ToLower(text[e:min(len(text), e+60)])
	for _, w := range strongPhraseWords {
		if i := strings.LastIndex(before, w); i >= 0 && !negated(before, i) && !otherSeed(before, i, w) {
			return true
		}
		if i := strings.Index(after, w); i >= 0 && !negated(after, i) && !otherSeed(after, i, w) {
			return true
		}
	}
	return false
}

// otherSeed reports a "seed" that names something else by the noun after it: seed ideas, seed
// data, a seed round. A wallet's seed stands alone or before phrase, words, backup.
func otherSeed(lo string, i int, w string) bool {
	if w != "seed" {
		return false
	}
	rest := strings.TrimLeft(lo[i+len(w):], " ")
	if rest == "" || len(rest) == len(lo[i+len(w):]) || !isAlpha(rest[0]) {
		return false
	}
	j := 0
	for j < len(rest) && isAlpha(rest[j]) {
		j++
	}
	return !walletSeedNouns[rest[:j]]
}

var walletSeedNouns = Set("phrase", "phrases", "words", "word", "is", "was", "backup", "of", "from", "in", "here",
	"below", "for", "and", "to", "list", "sentence", "mnemonic", "recovery", "key", "card")

// phraseNear reports whether a phrase word, not denied ("not a wallet"), stands in the 80 bytes
// before text[s:e] or the 60 after it ("'...' | cast wallet address --mnemonic-stdin").
func phraseNear(text string, s, e int) bool {
	before := strings.ToLower(text[max(0, s-80):s])
	for _, w := range phraseContext {
		if i := strings.LastIndex(before, w); i >= 0 && !negated(before, i) {
			return true
		}
	}
	after := strings.ToLower(text[e:min(len(text), e+60)])
	for _, w := range phraseContext {
		if i := strings.Index(after, w); i >= 0 && !negated(after, i) {
			return true
		}
	}
	return false
}

// setApart reports whether text[s:e] stands alone: quoted ("echo '...' | cast"), or, for a long
// run, after a colon and before a comma, a full stop, a line break or the end ("pasted in chat:
// ..."). Twelve words after a colon are as often tags or a word list.
func setApart(text string, s, e int, long bool) bool {
	i := s
	for i > 0 && text[i-1] == ' ' {
		i--
	}
	j := e
	for j < len(text) && text[j] == ' ' {
		j++
	}
	if i == 0 || j == len(text) {
		return long && i > 0 && text[i-1] == ':'
	}
	if q := text[i-1]; q == '\'' || q == '"' || q == '`' {
		return text[j] == q
	}
	return long && text[i-1] == ':' && strings.ContainsRune(",.\n\r", rune(text[j]))
}

// bip39Checksum reports whether 12, 15, 18, 21 or 24 word indices carry a valid checksum: the
// last bits are the first bits of the SHA-256 of the entropy before them.
func bip39Checksum(idx []int) bool {
	bits := len(idx) * 11
	cs := bits / 33
	ent := make([]byte, (bits-cs)/8)
	bit := func(k int) int { return idx[k/11] >> (10 - k%11) & 1 }
	for k := 0; k < len(ent)*8; k++ {
		ent[k/8] |= byte(bit(k) << (7 - k%8))
	}
	sum := sha256.Sum256(ent)
	for k := 0; k < cs; k++ {
		if int(sum[k/8]>>(7-k%8)&1) != bit(len(ent)*8+k) {
			return false
		}
	}
	return true
}

// indices are the list indices of a run's words.
func indices(run []word) []int {
	idx := make([]int, len(run))
	for i, w := range run {
		idx[i] = w.idx
	}
	return idx
}

// distinctWords counts the distinct list words of a run.
func distinctWords(run []word) int {
	seen := map[int]bool{}
	for _, w := range run {
		seen[w.idx] = true
	}
	return len(seen)
}
