package store_test

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/axp-exchange/axp/store"
)

// BenchmarkRecordedMarket60Days fills a database with 60 days of per-minute prices of 5 coins, as
// the market recorder writes them (one chained batch a minute), and measures the as-of query (one
// Seek and a step back per coin), a 6-hour series of one coin, and one minute's write; it reports
// the recorder's storage per day (database file size / 60).
func BenchmarkRecordedMarket60Days(b *testing.B) {
	const days, coins = 60, 5
	path := filepath.Join(b.TempDir(), store.FileName)
	db, err := store.Open(path, store.Options{NoSync: true})
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	names := []string{"bitcoin", "ethereum", "solana", "cardano", "ripple"}
	start := time.Date(2026, 10, 9, 0, 0, 3, 0, time.UTC)
	rng := rand.New(rand.NewPCG(7, 9))
	cents := []int64{6_400_000, 250_000, 15_000, 45, 60}
	at := start
	for range days {
		err := db.Update(func(tx *store.Tx) error {
			for range 24 * 60 {
				prices := map[string]string{}
				for i, c := range names {
					cents[i] += rng.Int64N(21) - 10
					if cents[i] < 1 {
						cents[i] = 1
					}
					prices[c] = fmt.Sprintf("%d.%02d", cents[i]/100, cents[i]%100)
				}
				if _, err := tx.RecordPrices(at, prices); err != nil {
					return err
				}
				at = at.Add(time.Minute)
			}
			return nil
		})
		if err != nil {
			b.Fatal(err)
		}
	}
	st, err := os.Stat(path)
	if err != nil {
		b.Fatal(err)
	}
	perDay := float64(st.Size()) / days
	span := int64(at.Sub(start))

	b.Run("as-of-5-coins", func(b *testing.B) {
		for b.Loop() {
			t := start.Add(time.Duration(rng.Int64N(span)))
			db.View(func(tx *store.Tx) error {
				for _, c := range names {
					if p, err := tx.PriceAsOf(c, t, start); err != nil || p == nil || p.RecordedAt.After(t) {
						b.Fatalf("as of %s: %+v %v", t, p, err)
					}
				}
				return nil
			})
		}
		b.ReportMetric(perDay, "bytes/day")
	})
	b.Run("series-6h", func(b *testing.B) {
		for b.Loop() {
			t := start.Add(6*time.Hour + time.Duration(rng.Int64N(span-int64(6*time.Hour))))
			n := 0
			db.View(func(tx *store.Tx) error {
				return tx.PricesBetween("bitcoin", t.Add(-6*time.Hour), t, func(store.Price) bool { n++; return true })
			})
			if n < 359 {
				b.Fatalf("series of %d points", n)
			}
		}
	})
	b.Run("record-minute", func(b *testing.B) {
		for b.Loop() {
			at = at.Add(time.Minute)
			if err := db.Update(func(tx *store.Tx) error {
				_, err := tx.RecordPrices(at, map[string]string{"bitcoin": "64000.5", "ethereum": "2500.25", "solana": "150", "cardano": "0.45", "ripple": "0.6"})
				return err
			}); err != nil {
				b.Fatal(err)
			}
		}
	})
}
