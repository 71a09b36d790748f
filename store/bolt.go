package store

import bolt "go.etcd.io/bbolt"

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

func (b boltBucket) Cursor() cursor { return boltCursor{b.b.Cursor()} }

func (b boltBucket) Count() int { return b.b.Stats().KeyN }

func (b boltBucket) SetFillPercent(f float64) { b.b.FillPercent = f }

// boltCursor is a bbolt cursor without Delete.
type boltCursor struct{ c *bolt.Cursor }

func (c boltCursor) First() ([]byte, []byte)        { return c.c.First() }
func (c boltCursor) Last() ([]byte, []byte)         { return c.c.Last() }
func (c boltCursor) Next() ([]byte, []byte)         { return c.c.Next() }
func (c boltCursor) Prev() ([]byte, []byte)         { return c.c.Prev() }
func (c boltCursor) Seek(k []byte) ([]byte, []byte) { return c.c.Seek(k) }
