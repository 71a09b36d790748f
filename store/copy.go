package store

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"sort"

	"github.com/axp-exchange/axp"
)

// copyBatch is how many keys one write transaction of Copy carries.
const copyBatch = 2000

// CopyReport is what Copy moved and verified.
type CopyReport struct {
	// Counts is the number of keys of every bucket, the same in both databases after the copy.
	Counts map[string]int
	// Entries and LedgerSum are the ledger's entries (live and packed) and the sum of all their
	// postings (zero), read back from the destination.
	Entries   int
	LedgerSum axp.Money
}

// Copy copies every bucket of src into dst, which must hold no records yet (a fresh database: only
// its meta keys), and verifies the copy: the same number of keys in every bucket and a ledger that
// still sums to zero. src is read in one transaction (one consistent state); dst is written in
// transactions of copyBatch keys (its meta keys, the schema version and creation time among them,
// are the source's) and then migrated, so a src of an older schema version arrives at
// this build's. Stop the exchange using src first: writes made after the read are not copied.
func Copy(dst, src *DB) (*CopyReport, error) {
	have, err := dst.Counts()
	if err != nil {
		return nil, err
	}
	for name, n := range have {
		if name != string(bMeta) && n > 0 {
			return nil, fmt.Errorf("the destination %s already holds records (%d in %s): copy into an empty database", dst.path, n, name)
		}
	}
	names, err := src.bucketNames()
	if err != nil {
		return nil, err
	}
	type kv struct{ k, v []byte }
	var batch []kv
	var bucketOf []string
	flush := func() error {
		if len(batch) == 0 {
			return nil
		}
		err := dst.Update(func(tx *Tx) error {
			for i, r := range batch {
				if err := tx.rawBucket([]byte(bucketOf[i])).Put(r.k, r.v); err != nil {
					return err
				}
			}
			return nil
		})
		batch, bucketOf = batch[:0], bucketOf[:0]
		return err
	}
	counts := map[string]int{}
	err = src.View(func(stx *Tx) error {
		if err := dst.Update(func(dtx *Tx) error {
			for _, name := range names {
				if err := dtx.createBucket([]byte(name)); err != nil {
					return err
				}
			}
			return nil
		}); err != nil {
			return err
		}
		for _, name := range names {
			c := stx.rawBucket([]byte(name)).Cursor()
			n := 0
			for k, v := c.First(); k != nil; k, v = c.Next() {
				batch = append(batch, kv{bytes.Clone(k), bytes.Clone(v)})
				bucketOf = append(bucketOf, name)
				n++
				if len(batch) == copyBatch {
					if err := flush(); err != nil {
						return err
					}
				}
			}
			counts[name] = n
		}
		return flush()
	})
	if err != nil {
		return nil, fmt.Errorf("copy: %w", err)
	}
	got, err := dst.Counts()
	if err != nil {
		return nil, err
	}
	var bad []string
	for name, n := range counts {
		if got[name] != n {
			bad = append(bad, fmt.Sprintf("%s: %d copied, %d found", name, n, got[name]))
		}
	}
	sort.Strings(bad)
	if len(bad) > 0 {
		return nil, fmt.Errorf("copy verification failed: %v", bad)
	}
	if err := dst.migrate(); err != nil {
		return nil, err
	}
	rep := &CopyReport{Counts: counts}
	var srcSum axp.Money
	var srcEntries int
	if err := src.View(func(tx *Tx) error {
		l, err := tx.Ledger()
		srcEntries = len(l)
		for _, e := range l {
			srcSum += e.Sum()
		}
		return err
	}); err != nil {
		return nil, err
	}
	if err := dst.View(func(tx *Tx) error {
		l, err := tx.Ledger()
		rep.Entries = len(l)
		for _, e := range l {
			rep.LedgerSum += e.Sum()
		}
		return err
	}); err != nil {
		return nil, err
	}
	if rep.Entries != srcEntries || rep.LedgerSum != srcSum || rep.LedgerSum != 0 {
		return rep, fmt.Errorf("copy verification failed: the ledger has %d entries summing to %s (source: %d, %s); it must sum to zero",
			rep.Entries, rep.LedgerSum.Display(), srcEntries, srcSum.Display())
	}
	return rep, nil
}

// bucketNames lists the buckets of the database.
func (db *DB) bucketNames() ([]string, error) {
	counts, err := db.Counts()
	if err != nil {
		return nil, err
	}
	names := make([]string, 0, len(counts))
	for n := range counts {
		names = append(names, n)
	}
	sort.Strings(names)
	return names, nil
}

// Digests are a hash of each bucket's keys and values, read in one transaction: two digests of a
// database differ exactly in the buckets a write between them changed.
func (db *DB) Digests() (map[string]string, error) {
	names, err := db.bucketNames()
	if err != nil {
		return nil, err
	}
	out := make(map[string]string, len(names))
	err = db.View(func(tx *Tx) error {
		for _, name := range names {
			h := sha256.New()
			c := tx.rawBucket([]byte(name)).Cursor()
			for k, v := c.First(); k != nil; k, v = c.Next() {
				fmt.Fprintf(h, "%d:%s%d:%s", len(k), k, len(v), v)
			}
			out[name] = hex.EncodeToString(h.Sum(nil))
		}
		return nil
	})
	return out, err
}
