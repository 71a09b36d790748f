package store

import (
	"bytes"

	bolt "go.etcd.io/bbolt"
)

// boltBucket is a bbolt bucket whose writes go through the transaction's undo log.
type boltBucket struct {
	b *bolt.Bucket
	t *Tx
}

func (b boltBucket) Get(key []byte) []byte { return b.b.Get(key) }

func (b boltBucket) Put(key, value []byte) error {
	b.t.remember(b.b, key)
	return b.b.Put(key, value)
}

func (b boltBucket) Delete(key []byte) error {
	b.t.remember(b.b, key)
	return b.b.Delete(key)
}

func (b boltBucket) Cursor() cursor { return &boltCursor{c: b.b.Cursor(), b: b.b} }

func (b boltBucket) Count() int { return b.b.Stats().KeyN }

func (b boltBucket) SetFillPercent(f float64) { b.b.FillPercent = f }

// boltCursor is a bbolt cursor without Delete. It remembers the key it stands on for Prev: in a
// write transaction, deletes can leave a leaf empty until the commit rebalances the tree, and
// bbolt's Prev (unlike Last and Next, which skip empty leaves) answers nil when it reaches one, as
// if the bucket began there.
type boltCursor struct {
	c  *bolt.Cursor
	b  *bolt.Bucket
	at []byte
}

func (c *boltCursor) moved(k, v []byte) ([]byte, []byte) {
	c.at = k
	return k, v
}

func (c *boltCursor) First() ([]byte, []byte)        { return c.moved(c.c.First()) }
func (c *boltCursor) Last() ([]byte, []byte)         { return c.moved(c.c.Last()) }
func (c *boltCursor) Next() ([]byte, []byte)         { return c.moved(c.c.Next()) }
func (c *boltCursor) Seek(k []byte) ([]byte, []byte) { return c.moved(c.c.Seek(k)) }

func (c *boltCursor) Prev() ([]byte, []byte) {
	k, v := c.c.Prev()
	if k == nil && c.at != nil && c.b.Writable() {
		// Keys before the one the cursor stood on: the nil was an empty leaf. Each Prev passes one.
		if first, _ := c.b.Cursor().First(); first != nil && bytes.Compare(first, c.at) < 0 {
			for i := 0; k == nil && i < 1<<20; i++ {
				k, v = c.c.Prev()
			}
		}
	}
	return c.moved(k, v)
}
