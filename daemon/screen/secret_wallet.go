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
	"ιδιωτικό κλειδί", "κλειδί", "คีย์ส่วนตัว", "กุญแจส่วนตัว", "คีย์", "กุญแจ", "निजी कुंजी", "प्राइवेट की", "कुंजी",
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
	if sameChar(strings.TrimPrefix(text[s:e], "0x")) {
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
	key, hash := -1, -1
	for _, w := range keyWords {
		i := strings.LastIndex(before, w)
		if w == "key" && i >= 0 && namedKey(before[:i]) {
			continue // a storage slot key, a cache key
		}
		if i >= 0 && i+len(w) > key {
			key = i + len(w)
		}
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
		if len(run) >= 12 && seedRun(text, run[0].s, run[len(run)-1].e, numbered, func() []int { return indices(run) }) {
			s := run[0].s
			if numbered > 0 {
				s = numberBefore(text, s) // "1. " goes with the list
			}
			out = append(out, [2]int{s, run[len(run)-1].e})
		} else if len(run) > 12 {
			// a quoted phrase among list words: echo '...' | cast, "...", please
		windows:
			for n := min(len(run), 24) / 3 * 3; n >= 12; n -= 3 {
				for k := 0; k+n <= len(run); k++ {
					if setApart(text, run[k].s, run[k+n-1].e, n >= 18) && distinctWords(run[k:k+n]) >= 6 &&
						(n >= 18 || bip39Checksum(indices(run[k:k+n]))) {
						out = append(out, [2]int{run[k].s, run[k+n-1].e})
						break windows
					}
				}
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

// seedRun decides on a run of list words at text[s:e]: numbered (most gaps hold a number), a
// phrase word not denied ("not a wallet") in the 80 bytes before it or the 60 after, a valid
// checksum over the whole run, or a phrase's exact length from 18 words set apart by quotes or a
// colon. Twelve or fifteen quoted words without a checksum are as often a game's word list. A run
// of few distinct words ("test test ... junk", a public test phrase) is not a secret.
func seedRun(text string, s, e, numbered int, indices func() []int) bool {
	idx := indices()
	distinct := map[int]bool{}
	for _, i := range idx {
		distinct[i] = true
	}
	if len(distinct) < 6 { // a public test phrase
		return false
	}
	if numbered >= len(idx)-2 {
		return true
	}
	from := s - 80
	if from < 0 {
		from = 0
	}
	before := strings.ToLower(text[from:s])
	for _, w := range phraseContext {
		if i := strings.LastIndex(before, w); i >= 0 && !negated(before, i) {
			return true
		}
	}
	// A phrase word right after it: "'...' | cast wallet address --mnemonic-stdin".
	after := strings.ToLower(text[e:min(len(text), e+60)])
	for _, w := range phraseContext {
		if i := strings.Index(after, w); i >= 0 && !negated(after, i) {
			return true
		}
	}
	// Only a run of a phrase's exact length is checked: a random run passes with a chance of 1 in
	// 16 (12 words) to 1 in 256 (24 words), and every window of a longer run would add to it.
	if len(idx) > 24 || len(idx)%3 != 0 {
		return false
	}
	return len(idx) >= 18 && setApart(text, s, e, true) || bip39Checksum(idx)
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
