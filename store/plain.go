package store

import "encoding/json"

// Members, quotes and seller figures (buckets members, quotes and seller_stats), and the timeline
// events of quote answers (AppendPlainEvent), are stored as plain JSON whatever their size, and so
// are tasks until they reach an end state and approval items while they wait for a decision or
// their transfers: those are written again within the task's life, and each write compressed
// cost as much as any other (compressing a value first restores what the previous one changed of
// the encoder's 256 KB table), for bytes kept only until the next. The other values are
// compressed (see compress.go).
// Compressing a value costs about 20 µs, most of it resetting the compressor and priming it with
// the dictionary, and reading one back costs building its Huffman tables: fine for a task's own
// records, too much for the records a quote round writes by the thousand (a quote and the
// seller's latency figures per seller, and its timeline event) and for members, which every quote round and
// authenticated request reads. Reads take either form, so values written compressed before stay
// readable, and are stored plain when next written.

// putPlain stores v as plain JSON.
func putPlain(b bucket, key []byte, v any) error {
	raw, err := json.Marshal(v)
	if err != nil {
		return err
	}
	work.encoded.Add(1)
	return b.Put(key, raw)
}
