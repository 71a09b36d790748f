package store_test

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/axp-exchange/axp"
	"github.com/axp-exchange/axp/store"
	bolt "go.etcd.io/bbolt"
)

// Prices: the last one at or before a time is found (never a later one), gaps stay gaps, and
// pruning deletes what is older than the cutoff while the chain keeps its entries.
func TestPricesAsOfAndPrune(t *testing.T) { eachBackend(t, testPricesAsOfAndPrune) }

func testPricesAsOfAndPrune(t *testing.T) {
	db := open(t)
	base := time.Date(2026, 10, 10, 0, 0, 7, 0, time.UTC)
	for i := range 10 {
		if i == 4 || i == 5 {
			continue // a gap
		}
		update(t, db, func(tx *store.Tx) error {
			_, err := tx.RecordPrices(base.Add(time.Duration(i)*time.Minute), map[string]string{"bitcoin": "100" + string(rune('0'+i)), "ether": "5"})
			return err
		})
	}
	view(t, db, func(tx *store.Tx) error {
		for _, c := range []struct {
			at   time.Time
			want string
		}{
			{base.Add(-time.Second), ""},
			{base, "1000"},
			{base.Add(time.Minute - time.Millisecond), "1000"},
			{base.Add(6 * time.Minute).Add(-time.Millisecond), "1003"}, // across the gap: the last before it
			{base.Add(6 * time.Minute), "1006"},
			{base.Add(time.Hour), "1009"},
		} {
			p, err := tx.PriceAsOf("bitcoin", c.at, base.Add(-time.Hour))
			if err != nil {
				return err
			}
			got := ""
			if p != nil {
				got = p.Price
				if p.RecordedAt.After(c.at) {
					t.Errorf("as of %s: recorded at %s, after it", c.at, p.RecordedAt)
				}
			}
			if got != c.want {
				t.Errorf("as of %s: %q, want %q", c.at, got, c.want)
			}
		}
		if p, _ := tx.PriceAsOf("bitcoin", base.Add(time.Hour), base.Add(30*time.Minute)); p != nil {
			t.Errorf("a price older than notBefore: %+v", p)
		}
		if got := tx.RecordedCoins(); strings.Join(got, ",") != "bitcoin,ether" {
			t.Errorf("coins %v", got)
		}
		n := 0
		tx.PricesBetween("bitcoin", base, base.Add(9*time.Minute), func(store.Price) bool { n++; return true })
		if n != 8 {
			t.Errorf("between: %d, want 8 (two minutes are a gap)", n)
		}
		return nil
	})
	update(t, db, func(tx *store.Tx) error {
		n, err := tx.PrunePrices(base.Add(3 * time.Minute))
		if n != 6 {
			t.Errorf("pruned %d, want 6", n)
		}
		return err
	})
	view(t, db, func(tx *store.Tx) error {
		if p, _ := tx.PriceAsOf("bitcoin", base.Add(2*time.Minute), time.Time{}); p != nil {
			t.Errorf("a pruned price: %+v", p)
		}
		if h, _ := tx.ChainHead(); h == nil || h.Seq != 8 {
			t.Errorf("head %+v", h)
		}
		return nil
	})
}

// A recorded item's proof verifies; once the stored item is changed, its proof does not.
func TestTamperedItemBreaksItsProof(t *testing.T) {
	path := filepath.Join(t.TempDir(), store.FileName)
	db, err := store.Open(path, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	at := time.Date(2026, 10, 10, 9, 0, 0, 0, time.UTC)
	var ids []string
	update(t, db, func(tx *store.Tx) error {
		if _, err := tx.RecordPrices(at, map[string]string{"bitcoin": "64000.5"}); err != nil {
			return err
		}
		var items []axp.NewsItem
		for i, title := range []string{"Bitcoin rallies", "Ether upgrade ships", "Solana outage", "Bitcoin again"} {
			id := axp.NewID("nws", at)
			ids = append(ids, id)
			ents := []string{strings.Fields(title)[0]}
			items = append(items, axp.NewsItem{Kind: "news", ID: id, Feed: "https://feed.example/rss", GUID: title, Title: title,
				FirstSeen: at.Add(time.Duration(i) * time.Second), Entities: ents, ContentHash: "00"})
		}
		// The same item twice in one poll is recorded once.
		items = append(items, items[0])
		e, fresh, err := tx.RecordNews(at.Add(time.Minute), items)
		if err != nil || e == nil || len(fresh) != 4 || e.Count != 4 || e.Seq != 2 {
			t.Fatalf("news batch %+v, %d fresh, %v", e, len(fresh), err)
		}
		// Seen before: nothing new, no entry.
		if e, _, err := tx.RecordNews(at.Add(2*time.Minute), items[:2]); e != nil || err != nil {
			t.Fatalf("dedup: %+v %v", e, err)
		}
		return nil
	})
	view(t, db, func(tx *store.Tx) error {
		for _, id := range append([]string{store.PriceID("bitcoin", at.UnixMilli())}, ids...) {
			p, err := tx.Proof(id)
			if err != nil || p == nil {
				t.Fatalf("proof of %s: %v", id, err)
			}
			if err := p.Verify(); err != nil {
				t.Errorf("proof of %s: %v", id, err)
			}
		}
		got, _ := tx.NewsAsOf("bitcoin", at.Add(2*time.Second), time.Time{}, 10)
		if len(got) != 1 || got[0].Title != "Bitcoin rallies" {
			t.Errorf("news as of: %+v", got)
		}
		got, _ = tx.NewsAsOf("bitcoin", at.Add(time.Hour), time.Time{}, 10)
		if len(got) != 2 || got[0].Title != "Bitcoin again" {
			t.Errorf("news as of, newest first: %+v", got)
		}
		return nil
	})
	db.Close()

	// Change one stored news item behind the exchange's back.
	raw, err := bolt.Open(path, 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := raw.Update(func(tx *bolt.Tx) error {
		b := tx.Bucket([]byte("news"))
		var rec map[string]any
		plain, err := store.Decompress(b.Get([]byte(ids[2])))
		if err != nil {
			return err
		}
		json.Unmarshal(plain, &rec)
		rec["item"].(map[string]any)["title"] = "Solana runs fine"
		v, _ := json.Marshal(rec)
		return b.Put([]byte(ids[2]), store.Compress(v))
	}); err != nil {
		t.Fatal(err)
	}
	raw.Close()

	db, err = store.Open(path, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	view(t, db, func(tx *store.Tx) error {
		p, err := tx.Proof(ids[2])
		if err != nil || p == nil {
			t.Fatalf("proof: %v", err)
		}
		if err := p.Verify(); err == nil || !strings.Contains(err.Error(), "was changed") {
			t.Errorf("the tampered item's proof verifies: %v", err)
		}
		// Its neighbours' proofs now lead elsewhere too: the batch no longer matches its root.
		p, _ = tx.Proof(ids[3])
		if err := p.Verify(); err == nil {
			t.Errorf("a neighbour's proof verifies over a tampered batch")
		}
		return nil
	})
}
