package screen

import (
	"crypto/sha256"
	"math/big"
	"strings"
)

const (
	btcAlphabet    = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz"
	rippleAlphabet = "rpshnaf39wBUDNEGHJKLM4PQRST7VWXYZ2bcdeCg65jkm8oFqi1tuvAxyz"
	bech32Charset  = "qpzry9x8gf2tvdw0s3jn54khce6mua7l"
)

// bech32HRPs are the human-readable prefixes of bech32 addresses of common chains.
var bech32HRPs = Set("bc", "tb", "ltc", "cosmos", "osmo", "terra", "addr", "stake", "bnb", "inj", "sei",
	"kava", "juno", "celestia", "zil", "one", "evmos", "secret", "akash", "axelar", "dydx", "noble",
	"neutron", "stars", "band", "persistence", "regen", "thor", "maya", "kujira", "archway", "tia",
	"zig", "bcrt", "doge", "nano", "xrb", "erd", "hs", "ckb", "lnbc", "lntb")

// wallets finds wallet addresses: EVM (0x + 40 hex), Bitcoin and other base58check addresses
// (legacy Bitcoin, Tron, Litecoin, Dogecoin, XRP ...), bech32 addresses (bc1..., cosmos1...),
// Solana keys near a wallet word, TON, Monero and Stellar addresses, also when split into groups.
func (sc *scan) wallets() {
	s, n := sc.s, len(sc.s)
	type tok struct{ s, e int }
	var toks []tok
	for p := 0; p < n; {
		if !IsAlnum(s[p]) {
			p++
			continue
		}
		st := p
		for p < n && (IsAlnum(s[p]) || s[p] == '_' || s[p] == '-') {
			p++
		}
		e := p
		// TON addresses use base64url; other tokens end at the first '_' or '-'.
		if e-st == 48 && (s[st] == 'E' || s[st] == 'U' || s[st] == 'k' || s[st] == '0') && s[st+1] == 'Q' {
			if !sc.inURL(st) {
				sc.add(st, e, KindWallet)
			}
			continue
		}
		for k := st; k < e; {
			j := k
			for j < e && IsAlnum(s[j]) {
				j++
			}
			toks = append(toks, tok{k, j})
			k = j + 1
		}
	}
	for i, t := range toks {
		if t.e-t.s < 25 || sc.inURL(t.s) {
			continue
		}
		if cashAddr(s, t.s, t.e) {
			k := t.s - 1
			for k > 0 && isAlpha(s[k-1]) {
				k--
			}
			sc.add(k, t.e, KindWallet)
			toks[i] = tok{}
			continue
		}
		if w := string(s[t.s:t.e]); sc.isWallet(w, t.s) {
			st := t.s
			if st >= 12 && strings.EqualFold(string(s[st-12:st]), "bitcoincash:") {
				st -= 12
			}
			sc.add(st, t.e, KindWallet)
			toks[i] = tok{}
		}
	}
	// addresses split into groups: "0x71C7 656E C7ab 88b0 ...", "bc1q xy2k gdyg ...": a chain of
	// at least three short groups, starting with one that holds a digit, mostly holding digits.
	for i := 0; i < len(toks); i++ {
		t0 := toks[i]
		if l := t0.e - t0.s; l < 2 || l > 12 || !hasDigit(s[t0.s:t0.e]) {
			continue
		}
		j, digits := i, 0
		for ; j < len(toks) && j-i < 48; j++ {
			t := toks[j]
			if l := t.e - t.s; l < 2 || l > 12 {
				break
			}
			if j > i {
				gap := string(s[toks[j-1].e:t.s])
				if gap != " " && gap != "-" && gap != "  " && gap != " - " {
					break
				}
			}
			if hasDigit(s[t.s:t.e]) {
				digits++
			}
		}
		first := strings.ToLower(string(s[t0.s:t0.e]))
		prefixed := strings.HasPrefix(first, "0x") || strings.HasPrefix(first, "bc1") || strings.HasPrefix(first, "ltc1")
		if j-i < 3 || !(prefixed || digits*2 >= j-i) {
			continue
		}
		var joined []byte
		for k := i; k < j; k++ {
			joined = append(joined, s[toks[k].s:toks[k].e]...)
			if k-i >= 2 && addressLength[len(joined)] && sc.isWallet(string(joined), t0.s) {
				sc.add(t0.s, toks[k].e, KindWallet)
				i = k
				break
			}
			if len(joined) > 95 {
				break
			}
		}
	}
}

// addressLength holds the lengths of the addresses isWallet knows.
var addressLength = func() map[int]bool {
	m := map[int]bool{42: true, 43: true, 44: true, 45: true, 48: true, 56: true, 62: true, 95: true}
	for l := 25; l <= 35; l++ {
		m[l] = true
	}
	return m
}()

func hasDigit(b []byte) bool {
	for _, c := range b {
		if IsDigit(c) {
			return true
		}
	}
	return false
}

// ibans finds international bank account numbers ("DE89 3704 0044 0532 0130 00"), checked with
// their mod-97 check digits: a bank account is as much a way to pay around the exchange as a
// wallet.
func (sc *scan) ibans() {
	s, n := sc.s, len(sc.s)
	for p := 0; p+4 <= n; p++ {
		if !isUpper(s[p]) || !isUpper(s[p+1]) || !IsDigit(s[p+2]) || !IsDigit(s[p+3]) || (p > 0 && IsAlnum(s[p-1])) {
			continue
		}
		var acc []byte
		k, end := p, p
		for k < n && len(acc) <= 34 {
			if isUpper(s[k]) || IsDigit(s[k]) {
				acc = append(acc, s[k])
				k++
				end = k
				continue
			}
			if s[k] == ' ' && k+1 < n && (isUpper(s[k+1]) || IsDigit(s[k+1])) && (k+2 >= n || !IsLower(s[k+2])) {
				k++
				continue
			}
			break
		}
		if end < n && IsAlnum(s[end]) || len(acc) < 15 || len(acc) > 34 || !ibanValid(acc) {
			continue
		}
		sc.add(p, end, KindWallet)
		p = end
	}
}

// ibanValid applies the ISO 13616 mod-97 check.
func ibanValid(acc []byte) bool {
	r := append(append([]byte{}, acc[4:]...), acc[:4]...)
	m := 0
	for _, c := range r {
		if IsDigit(c) {
			m = (m*10 + int(c-'0')) % 97
		} else {
			m = (m*100 + int(c-'A'+10)) % 97
		}
	}
	return m == 1
}

// isWallet judges one token; at is its position, for context words.
func (sc *scan) isWallet(w string, at int) bool {
	l := len(w)
	switch {
	case l == 42 && (w[:2] == "0x" || w[:2] == "0X"):
		return allHex(w[2:])
	case l < 25:
		return false
	}
	if validBech32(w) {
		return true
	}
	if l == 56 && (w[0] == 'G' || w[0] == 'M') && isBase32Upper(w) {
		return true // Stellar
	}
	if !inAlphabet(w, btcAlphabet) {
		return false
	}
	if l <= 60 && base58Check(w, btcAlphabet) {
		return true
	}
	if w[0] == 'r' && l <= 35 && base58Check(w, rippleAlphabet) {
		return true
	}
	if l == 95 && (w[0] == '4' || w[0] == '8') {
		return true // Monero
	}
	if l >= 32 && l <= 44 {
		b := base58Decode(w, btcAlphabet)
		if len(b) != 32 {
			return false
		}
		if sc.contextBefore(at, 80, walletContext) || sc.contextAfter(at+l, 40, walletContext) {
			return true
		}
		return l >= 40 && hasClasses(w)
	}
	return l <= 60 && hasClasses(w) && sc.contextBefore(at, 60, walletContext)
}

// cashAddr reports a Bitcoin Cash or eCash address: "bitcoincash:" or "ecash:" then q or p and
// 41 more characters of the bech32 alphabet.
func cashAddr(s []byte, st, e int) bool {
	if st < 1 || s[st-1] != ':' || e-st != 42 {
		return false
	}
	k := st - 1
	for k > 0 && isAlpha(s[k-1]) {
		k--
	}
	prefix := strings.ToLower(string(s[k : st-1]))
	if prefix != "bitcoincash" && prefix != "ecash" && prefix != "bchtest" {
		return false
	}
	w := strings.ToLower(string(s[st:e]))
	if w[0] != 'q' && w[0] != 'p' {
		return false
	}
	for i := 1; i < len(w); i++ {
		if strings.IndexByte(bech32Charset, w[i]) < 0 {
			return false
		}
	}
	return true
}

func allHex(w string) bool {
	for i := 0; i < len(w); i++ {
		if !isHex(w[i]) {
			return false
		}
	}
	return true
}

func isBase32Upper(w string) bool {
	for i := 0; i < len(w); i++ {
		c := w[i]
		if !(isUpper(c) || ('2' <= c && c <= '7')) {
			return false
		}
	}
	return true
}

// hasClasses reports whether w mixes upper case, lower case and digits, as random keys do and
// words do not.
func hasClasses(w string) bool {
	var u, l, d bool
	for i := 0; i < len(w); i++ {
		switch c := w[i]; {
		case isUpper(c):
			u = true
		case IsLower(c):
			l = true
		case IsDigit(c):
			d = true
		}
	}
	return u && l && d
}

func inAlphabet(w, alphabet string) bool {
	for i := 0; i < len(w); i++ {
		if strings.IndexByte(alphabet, w[i]) < 0 {
			return false
		}
	}
	return true
}

// base58Decode decodes w; it returns nil when w holds a character outside the alphabet.
func base58Decode(w, alphabet string) []byte {
	n := new(big.Int)
	radix := big.NewInt(58)
	for i := 0; i < len(w); i++ {
		d := strings.IndexByte(alphabet, w[i])
		if d < 0 {
			return nil
		}
		n.Mul(n, radix)
		n.Add(n, big.NewInt(int64(d)))
	}
	b := n.Bytes()
	zeros := 0
	for zeros < len(w) && w[zeros] == alphabet[0] {
		zeros++
	}
	out := make([]byte, zeros+len(b))
	copy(out[zeros:], b)
	return out
}

// base58Check reports whether w decodes to a payload followed by the first four bytes of its
// double SHA-256, as Bitcoin, Tron, Litecoin, Dogecoin and XRP addresses do.
func base58Check(w, alphabet string) bool {
	b := base58Decode(w, alphabet)
	if len(b) < 21 {
		return false
	}
	payload, sum := b[:len(b)-4], b[len(b)-4:]
	h := sha256.Sum256(payload)
	h = sha256.Sum256(h[:])
	return string(h[:4]) == string(sum)
}

// validBech32 checks a bech32 or bech32m string with a known prefix.
func validBech32(w string) bool {
	lower := strings.ToLower(w)
	if lower != w && strings.ToUpper(w) != w {
		return false
	}
	sep := strings.LastIndexByte(lower, '1')
	if sep < 1 || len(lower)-sep-1 < 6 || !bech32HRPs[lower[:sep]] {
		return false
	}
	values := make([]int, 0, len(lower)-sep-1)
	for i := sep + 1; i < len(lower); i++ {
		d := strings.IndexByte(bech32Charset, lower[i])
		if d < 0 {
			return false
		}
		values = append(values, d)
	}
	hrp := lower[:sep]
	exp := make([]int, 0, 2*len(hrp)+1+len(values))
	for i := 0; i < len(hrp); i++ {
		exp = append(exp, int(hrp[i]>>5))
	}
	exp = append(exp, 0)
	for i := 0; i < len(hrp); i++ {
		exp = append(exp, int(hrp[i]&31))
	}
	exp = append(exp, values...)
	pm := bech32Polymod(exp)
	return pm == 1 || pm == 0x2bc830a3
}

func bech32Polymod(values []int) int {
	gen := [5]int{0x3b6a57b2, 0x26508e6d, 0x1ea119fa, 0x3d4233dd, 0x2a1462b3}
	chk := 1
	for _, v := range values {
		top := chk >> 25
		chk = (chk&0x1ffffff)<<5 ^ v
		for i := 0; i < 5; i++ {
			if (top>>i)&1 == 1 {
				chk ^= gen[i]
			}
		}
	}
	return chk
}
