package axp_test

import (
	"encoding/hex"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/axp-exchange/axp"
)

// Every leaf of trees of 1 to 9 leaves has a path to the root; a changed item or entry fails.
func TestProofPaths(t *testing.T) {
	for n := 1; n <= 9; n++ {
		var items [][]byte
		var leaves [][32]byte
		for i := range n {
			it := []byte(fmt.Sprintf(`{"kind": "price", "coin": "c%d", "price": "1.5", "n": %d}`, i, i))
			h, err := axp.LeafHash(it)
			if err != nil {
				t.Fatal(err)
			}
			items, leaves = append(items, it), append(leaves, h)
		}
		root := axp.MerkleRoot(leaves)
		e := axp.ChainEntry{Seq: 1, Kind: "market", RecordedAt: time.Date(2026, 10, 10, 0, 0, 0, 0, time.UTC), Count: n,
			Root: hex.EncodeToString(root[:]), Prev: axp.ZeroLink}
		e.Link, _ = e.ComputeLink()
		for i := range n {
			p := &axp.Proof{V: 1, Item: items[i], LeafHash: hex.EncodeToString(leaves[i][:]), Index: i,
				Path: axp.MerklePath(leaves, i), Entry: e, Head: e}
			if err := p.Verify(); err != nil {
				t.Fatalf("n=%d i=%d: %v", n, i, err)
			}
			bad := *p
			bad.Item = []byte(strings.Replace(string(items[i]), "1.5", "1.6", 1))
			if bad.Verify() == nil {
				t.Fatalf("n=%d i=%d: a changed item verifies", n, i)
			}
			bad = *p
			bad.Entry.RecordedAt = bad.Entry.RecordedAt.Add(-time.Hour)
			if bad.Verify() == nil {
				t.Fatalf("n=%d i=%d: a backdated entry verifies", n, i)
			}
		}
	}
}

// The canonical form sorts keys, drops white space and keeps only required escapes.
func TestCanonical(t *testing.T) {
	got, err := axp.Canonical([]byte(` {"b": [1, true, null], "a": "x\u00e9<\n", "é": {"z": 1, "y": 2}} `))
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"a":"xé<\n","b":[1,true,null],"é":{"y":2,"z":1}}`; string(got) != want {
		t.Fatalf("%s, want %s", got, want)
	}
	if _, err := axp.Canonical([]byte(`{"p": 1.5}`)); err == nil {
		t.Fatal("a fraction was accepted")
	}
}

// TestChainWalk: a chain that links up walks; a changed entry, a gap, a rewritten pinned entry and a
// pinned entry beyond the end are each refused, naming the entry.
func TestChainWalk(t *testing.T) {
	var chain []axp.ChainEntry
	prev := axp.ZeroLink
	for i := int64(1); i <= 5; i++ {
		e := axp.ChainEntry{Seq: i, Kind: axp.ChainMarket, RecordedAt: time.UnixMilli(1_700_000_000_000 + i*60_000).UTC(), Count: 2,
			Root: fmt.Sprintf("%064x", i), Prev: prev}
		e.Link, _ = e.ComputeLink()
		prev = e.Link
		chain = append(chain, e)
	}
	walk := func(entries []axp.ChainEntry, pins ...axp.ChainEntry) error {
		var w axp.ChainWalk
		for _, p := range pins {
			w.Pin(p)
		}
		if err := w.Add(entries[:2]); err != nil {
			return err
		}
		if err := w.Add(entries[2:]); err != nil {
			return err
		}
		_, err := w.Done()
		return err
	}
	if err := walk(chain, chain[1], chain[4]); err != nil {
		t.Fatalf("a sound chain: %v", err)
	}
	changed := append([]axp.ChainEntry(nil), chain...)
	changed[2].Count = 3
	gap := append(append([]axp.ChainEntry(nil), chain[:2]...), chain[3:]...)
	rewritten := chain[3]
	rewritten.Link = axp.ZeroLink
	beyond := axp.ChainEntry{Seq: 9, Link: axp.ZeroLink}
	for name, c := range map[string]struct {
		err  error
		want string
	}{
		"changed":   {walk(changed), "entry 3 hashes to"},
		"gap":       {walk(gap), "entry seq 4 follows seq 2"},
		"rewritten": {walk(chain, rewritten), "entry 4 has link"},
		"beyond":    {walk(chain, beyond), "entry 9 is pinned but the chain ends at 5"},
	} {
		if c.err == nil || !strings.Contains(c.err.Error(), c.want) {
			t.Errorf("%s: %v", name, c.err)
		}
	}
}
