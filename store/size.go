package store

import (
	"context"

	bolt "go.etcd.io/bbolt"
)

// BucketBytes sums the bytes of the keys and values of every bucket, by bucket name: what the
// records take before bbolt's page overhead (benchmarks report it per task lifecycle).
func (db *DB) BucketBytes() (map[string]int64, error) {
	if db.pg != nil {
		return db.pg.bucketBytes(context.Background())
	}
	out := map[string]int64{}
	err := db.bolt.View(func(tx *bolt.Tx) error {
		return tx.ForEach(func(name []byte, b *bolt.Bucket) error {
			var n int64
			err := b.ForEach(func(k, v []byte) error {
				n += int64(len(k) + len(v))
				return nil
			})
			out[string(name)] = n
			return err
		})
	})
	return out, err
}

// Counts is the number of keys in every bucket, by bucket name (axp admin copy compares them).
func (db *DB) Counts() (map[string]int, error) {
	if db.pg != nil {
		return db.pg.counts(context.Background())
	}
	out := map[string]int{}
	err := db.bolt.View(func(tx *bolt.Tx) error {
		return tx.ForEach(func(name []byte, b *bolt.Bucket) error {
			out[string(name)] = b.Stats().KeyN
			return nil
		})
	})
	return out, err
}
