package store

import (
	"fmt"
	"math/rand/v2"
)

// FillForTest puts keys (value: the key reversed) into the blobs bucket.
func FillForTest(tx *Tx, keys [][]byte) error {
	for _, k := range keys {
		v := make([]byte, len(k))
		for i := range k {
			v[i] = k[len(k)-1-i]
		}
		if err := tx.bucket(bBlobs).Put(k, v); err != nil {
			return err
		}
	}
	return nil
}

// WalkForTest makes n random cursor moves over the blobs bucket and records each answer.
func WalkForTest(tx *Tx, r *rand.Rand, n int) []string {
	c := tx.bucket(bBlobs).Cursor()
	var out []string
	for range n {
		var k, v []byte
		var move string
		switch r.IntN(8) {
		case 0:
			move = "first"
			k, v = c.First()
		case 1:
			move = "last"
			k, v = c.Last()
		case 2:
			seek := fmt.Sprintf("k%04d", r.IntN(5200))
			move = "seek " + seek
			k, v = c.Seek([]byte(seek))
		case 3, 4:
			move = "prev"
			k, v = c.Prev()
		default:
			move = "next"
			k, v = c.Next()
		}
		out = append(out, fmt.Sprintf("%s -> %q=%q", move, k, v))
		if k == nil {
			// Past an end bbolt and the paged cursor need not agree on where they stand: start again.
			k, v = c.Seek([]byte(fmt.Sprintf("k%04d", r.IntN(5000))))
			out = append(out, fmt.Sprintf("reseek -> %q=%q", k, v))
		}
	}
	return out
}

// DeleteForTest deletes keys from the blobs bucket.
func DeleteForTest(tx *Tx, keys [][]byte) error {
	for _, k := range keys {
		if err := tx.bucket(bBlobs).Delete(k); err != nil {
			return err
		}
	}
	return nil
}
