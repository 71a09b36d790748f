package axp

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"slices"
	"strconv"
	"time"
	"unicode/utf16"
)

// Proofs of recorded data (docs/decisions.md, "Recorded data and proofs"). Every batch the exchange
// records (a minute's prices, a poll's news items, one strategy signal) is a Merkle tree over its
// items, and its root is appended to one hash chain:
//
//	leaf  = SHA-256(0x00 || JCS(item))
//	node  = SHA-256(0x01 || left || right)             (RFC 6962 tree over the batch's leaves)
//	link  = SHA-256(JCS(entry without its link))        (the entry holds the previous link)
//
// JCS is the JSON Canonicalization Scheme (RFC 8785) for the JSON the items use: objects with keys
// sorted by their UTF-16 code units, no white space, strings with only the escapes JSON requires,
// integers as plain decimals (recorded items hold no fractions: prices are decimal strings).
// Hashes are lower-case hex.

// ProofAlgorithm names the hashing of proofs, written into each proof.
const ProofAlgorithm = "sha256; leaf = sha256(0x00 || jcs(item)); node = sha256(0x01 || left || right); link = sha256(jcs(entry without link))"

// ChainEntry is one recorded batch in the exchange's hash chain.
type ChainEntry struct {
	Seq        int64     `json:"seq" doc:"position in the chain, from 1"`
	Kind       string    `json:"kind" schema:"enum=market|news|signal" doc:"what the batch holds"`
	RecordedAt time.Time `json:"recorded_at" doc:"when the exchange recorded the batch (milliseconds, UTC)"`
	Count      int       `json:"count" doc:"items in the batch"`
	Root       string    `json:"root" doc:"Merkle root of the batch's items"`
	Prev       string    `json:"prev" doc:"the previous entry's link (64 zeros for the first entry)"`
	Link       string    `json:"link,omitempty" doc:"SHA-256 of the canonical entry without this field: the chained root"`
}

// ZeroLink is the prev of the first entry of the chain.
var ZeroLink = hex.EncodeToString(make([]byte, sha256.Size))

// ComputeLink is the link of e: SHA-256 of the canonical JSON of e without its link.
func (e ChainEntry) ComputeLink() (string, error) {
	e.Link = ""
	raw, err := json.Marshal(e)
	if err != nil {
		return "", err
	}
	c, err := Canonical(raw)
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256(c)
	return hex.EncodeToString(sum[:]), nil
}

// ChainWalk checks a chain read page by page, oldest first, from its first entry: every entry
// follows the one before (seq + 1, prev = its link) and hashes to its own link. Pinned entries
// (a proof's entry and head, a head copied earlier) must appear with the same link, which is what
// holds the exchange to its history: a copied head that is not in today's chain means the chain
// was rewritten.
type ChainWalk struct {
	prev   ChainEntry
	n      int64
	pinned map[int64]string
}

// Pin requires entry e (seq and link) to be part of the chain.
func (w *ChainWalk) Pin(e ChainEntry) {
	if w.pinned == nil {
		w.pinned = map[int64]string{}
	}
	w.pinned[e.Seq] = e.Link
}

// Add checks the next entries.
func (w *ChainWalk) Add(entries []ChainEntry) error {
	for _, e := range entries {
		prev := ZeroLink
		if w.n > 0 {
			prev = w.prev.Link
		}
		if e.Seq != w.n+1 {
			return fmt.Errorf("entry seq %d follows seq %d: the chain has a gap or a repeat", e.Seq, w.n)
		}
		if e.Prev != prev {
			return fmt.Errorf("entry %d names prev %s, but entry %d's link is %s", e.Seq, e.Prev, w.n, prev)
		}
		link, err := e.ComputeLink()
		if err != nil {
			return err
		}
		if link != e.Link {
			return fmt.Errorf("entry %d hashes to %s, not to its link %s: it was changed", e.Seq, link, e.Link)
		}
		if want, ok := w.pinned[e.Seq]; ok && want != e.Link {
			return fmt.Errorf("entry %d has link %s in the chain, %s where it was pinned: the chain was rewritten", e.Seq, e.Link, want)
		}
		w.prev, w.n = e, e.Seq
	}
	return nil
}

// Done reports the entries walked, or an error when a pinned entry lies beyond them.
func (w *ChainWalk) Done() (int64, error) {
	for seq := range w.pinned {
		if seq > w.n {
			return w.n, fmt.Errorf("entry %d is pinned but the chain ends at %d", seq, w.n)
		}
	}
	return w.n, nil
}

// ProofStep is one sibling on the way from a leaf to its batch's root.
type ProofStep struct {
	Side string `json:"side" schema:"enum=left|right" doc:"where the sibling sits: left means node = sha256(0x01 || sibling || current)"`
	Hash string `json:"hash"`
}

// Proof is an inclusion proof of one recorded item: the item, its leaf hash, the path to its
// batch's root and the chain entry whose link commits to that root and to every earlier entry.
type Proof struct {
	V         int             `json:"v" doc:"proof format, 1"`
	Algorithm string          `json:"algorithm"`
	ID        string          `json:"id" doc:"the item's id"`
	Item      json.RawMessage `json:"item" doc:"the recorded item as stored"`
	LeafHash  string          `json:"leaf_hash"`
	Index     int             `json:"index" doc:"the item's place in its batch, from 0"`
	Path      []ProofStep     `json:"path" doc:"siblings from the leaf up to the batch's root"`
	Entry     ChainEntry      `json:"entry" doc:"the chain entry of the item's batch; entry.root is where the path leads, entry.link the chained root"`
	Head      ChainEntry      `json:"head" doc:"the newest chain entry when the proof was made (also at GET /proofs/latest)"`
	Note      string          `json:"note,omitempty"`
}

// LeafHash is the leaf hash of an item given as JSON.
func LeafHash(item []byte) ([32]byte, error) {
	c, err := Canonical(item)
	if err != nil {
		return [32]byte{}, err
	}
	return sha256.Sum256(append([]byte{0}, c...)), nil
}

func nodeHash(l, r [32]byte) [32]byte {
	b := make([]byte, 0, 65)
	b = append(append(append(b, 1), l[:]...), r[:]...)
	return sha256.Sum256(b)
}

// MerkleRoot is the RFC 6962 tree hash of leaves (SHA-256 of nothing for none).
func MerkleRoot(leaves [][32]byte) [32]byte {
	switch len(leaves) {
	case 0:
		return sha256.Sum256(nil)
	case 1:
		return leaves[0]
	}
	k := split(len(leaves))
	return nodeHash(MerkleRoot(leaves[:k]), MerkleRoot(leaves[k:]))
}

// split is the largest power of two below n (n >= 2).
func split(n int) int {
	k := 1
	for k*2 < n {
		k *= 2
	}
	return k
}

// MerklePath is the path of leaf m to the root of leaves, bottom up.
func MerklePath(leaves [][32]byte, m int) []ProofStep {
	if len(leaves) <= 1 {
		return []ProofStep{}
	}
	k := split(len(leaves))
	if m < k {
		r := MerkleRoot(leaves[k:])
		return append(MerklePath(leaves[:k], m), ProofStep{Side: "right", Hash: hex.EncodeToString(r[:])})
	}
	l := MerkleRoot(leaves[:k])
	return append(MerklePath(leaves[k:], m-k), ProofStep{Side: "left", Hash: hex.EncodeToString(l[:])})
}

// Verify recomputes the proof: the item's leaf hash, the path to the entry's root and the entry's
// link. It does not say that the head's chain contains the entry (the chain's links between them
// do, GET /proofs/chain).
func (p *Proof) Verify() error {
	if p.V != 1 {
		return fmt.Errorf("proof format %d is not known (this axp checks format 1)", p.V)
	}
	leaf, err := LeafHash(p.Item)
	if err != nil {
		return fmt.Errorf("item: %w", err)
	}
	if hex.EncodeToString(leaf[:]) != p.LeafHash {
		return fmt.Errorf("the item does not hash to leaf_hash: it was changed (sha256(0x00 || jcs(item)) is %x)", leaf)
	}
	acc := leaf
	for i, s := range p.Path {
		h, err := hex.DecodeString(s.Hash)
		if err != nil || len(h) != sha256.Size {
			return fmt.Errorf("path[%d].hash is not 64 hex digits", i)
		}
		sib := [32]byte(h)
		switch s.Side {
		case "left":
			acc = nodeHash(sib, acc)
		case "right":
			acc = nodeHash(acc, sib)
		default:
			return fmt.Errorf("path[%d].side is %q, not left or right", i, s.Side)
		}
	}
	if hex.EncodeToString(acc[:]) != p.Entry.Root {
		return fmt.Errorf("the path leads to %x, not to the entry's root %s: the item or its batch was changed", acc, p.Entry.Root)
	}
	link, err := p.Entry.ComputeLink()
	if err != nil {
		return err
	}
	if link != p.Entry.Link {
		return fmt.Errorf("the entry hashes to %s, not to its link %s: the entry was changed", link, p.Entry.Link)
	}
	if p.Head.Seq < p.Entry.Seq {
		return fmt.Errorf("the head (seq %d) is older than the entry (seq %d)", p.Head.Seq, p.Entry.Seq)
	}
	if p.Head.Seq == p.Entry.Seq && p.Head.Link != p.Entry.Link {
		return errors.New("the head has the entry's seq but another link")
	}
	return nil
}

// Canonical writes JSON in the JSON Canonicalization Scheme (RFC 8785) for the values recorded
// items use: numbers must be integers of at most 2^53 in magnitude.
func Canonical(raw []byte) ([]byte, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	if dec.More() {
		return nil, errors.New("more than one JSON value")
	}
	var b bytes.Buffer
	if err := canon(&b, v); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

var maxSafe = big.NewInt(1 << 53)

func canon(b *bytes.Buffer, v any) error {
	switch x := v.(type) {
	case nil:
		b.WriteString("null")
	case bool:
		b.WriteString(strconv.FormatBool(x))
	case json.Number:
		n, ok := new(big.Int).SetString(string(x), 10)
		if !ok || new(big.Int).Abs(n).Cmp(maxSafe) > 0 {
			return fmt.Errorf("number %s: recorded items hold only integers up to 2^53 (decimals are strings)", x)
		}
		b.WriteString(n.String())
	case string:
		canonString(b, x)
	case []any:
		b.WriteByte('[')
		for i, e := range x {
			if i > 0 {
				b.WriteByte(',')
			}
			if err := canon(b, e); err != nil {
				return err
			}
		}
		b.WriteByte(']')
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		slices.SortFunc(keys, func(a, c string) int {
			return slices.Compare(utf16.Encode([]rune(a)), utf16.Encode([]rune(c)))
		})
		b.WriteByte('{')
		for i, k := range keys {
			if i > 0 {
				b.WriteByte(',')
			}
			canonString(b, k)
			b.WriteByte(':')
			if err := canon(b, x[k]); err != nil {
				return err
			}
		}
		b.WriteByte('}')
	default:
		return fmt.Errorf("unexpected JSON value %T", v)
	}
	return nil
}

func canonString(b *bytes.Buffer, s string) {
	const hexd = "0123456789abcdef"
	b.WriteByte('"')
	for _, r := range s {
		switch r {
		case '"':
			b.WriteString(`\"`)
		case '\\':
			b.WriteString(`\\`)
		case '\b':
			b.WriteString(`\b`)
		case '\f':
			b.WriteString(`\f`)
		case '\n':
			b.WriteString(`\n`)
		case '\r':
			b.WriteString(`\r`)
		case '\t':
			b.WriteString(`\t`)
		default:
			if r < 0x20 {
				b.WriteString(`\u00`)
				b.WriteByte(hexd[r>>4])
				b.WriteByte(hexd[r&15])
			} else {
				b.WriteRune(r)
			}
		}
	}
	b.WriteByte('"')
}
