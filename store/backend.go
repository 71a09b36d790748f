package store

// The store's methods read and write buckets: ordered maps from byte keys to byte values, read with
// cursors. bucket and cursor are that abstraction; bbolt (bolt.go) and PostgreSQL (pg.go) implement
// it, so every method on *Tx runs unchanged on either backend.

// bucket is one named bucket inside a transaction. Get returns nil when the key is absent and a
// non-nil (possibly empty) slice when it is present; slices are valid until the transaction ends.
// A backend that fails while reading (PostgreSQL) records the error on the transaction, which then
// cannot commit, and answers as if the key were absent.
type bucket interface {
	Get(key []byte) []byte
	Put(key, value []byte) error
	Delete(key []byte) error
	// Cursor reads the bucket in key order; deletes go through the bucket, not the cursor.
	Cursor() cursor
	// Count is the number of keys in the bucket.
	Count() int
	// SetFillPercent hints that keys are only ever appended in order (bbolt fills its pages fuller;
	// PostgreSQL ignores it).
	SetFillPercent(f float64)
}

// cursor walks a bucket in key order. Each move returns the key and value it lands on, or nil, nil
// past either end.
type cursor interface {
	First() ([]byte, []byte)
	Last() ([]byte, []byte)
	Next() ([]byte, []byte)
	Prev() ([]byte, []byte)
	Seek(k []byte) ([]byte, []byte)
}
