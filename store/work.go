package store

import "sync/atomic"

// Work is what the stores of this process have done since it started: values encoded to JSON
// and stored, how many of them compressed, values decoded and how many of those decompressed
// first, and read transactions (View; GroupStats counts the writes). Tests and benchmarks take
// the difference over a path to pin its cost; each count is one atomic add.
type Work struct {
	Encoded, Compressed, Decoded, Decompressed, Views int64
}

var work struct {
	encoded, compressed, decoded, decompressed, views atomic.Int64
}

// Counted answers the work done so far.
func Counted() Work {
	return Work{
		Encoded: work.encoded.Load(), Compressed: work.compressed.Load(),
		Decoded: work.decoded.Load(), Decompressed: work.decompressed.Load(), Views: work.views.Load(),
	}
}

// Sub is the work done between o and w.
func (w Work) Sub(o Work) Work {
	return Work{
		Encoded: w.Encoded - o.Encoded, Compressed: w.Compressed - o.Compressed,
		Decoded: w.Decoded - o.Decoded, Decompressed: w.Decompressed - o.Decompressed, Views: w.Views - o.Views,
	}
}
