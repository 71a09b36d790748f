package store

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/axp-exchange/axp"
)

// Packed history (schema 14). The records a finished piece of work leaves behind (audit records,
// log lines and their trace rows, ledger entries, approvals, tasks with their timelines, quotes,
// approvals by task and offers by id) are written one value a record, each compressed alone: what
// stays in a small record is its ids, times and hashes, 100-200 bytes of them, and its key. Once
// records are past a packing age, the background pass moves them into blocks of records
// compressed together, in a sibling bucket ("<name>_packed") keyed by the block's last key: ids,
// times, hashes and field values shared by neighbouring records are then back-references, and the
// keys go with them.
//
// packedBucket makes the pair one bucket to every reader: Get looks in the live bucket, then in the
// one block whose range holds the key; cursors merge the live records and the blocks' in key order,
// a live record shadowing a packed one of the same key. A write always goes to the live bucket (a
// record changed after packing shadows its packed copy until the next pass folds it in), a delete
// removes the key from both. Blocks never overlap: a live key that sorts at or before the last
// block is folded into the block Seek finds for it, so the ranges only widen towards each other.

// A block holds at most packRecords records and, for records read one by one (a task, its
// timeline, its quotes), packBlockBytes of them raw, so reading one decodes at most 64 KB; blocks
// of records read in scans (audit records, log lines, trace rows, the ledger, approvals) may hold
// four times the bytes, and compress better.
const (
	packRecords    = 512      // records a block
	packBlockBytes = 64 << 10 // raw bytes a block, at most (a record larger than it gets a block alone)
	packScanFactor = 4        // blocks of scanned buckets may hold this many times the bytes
	packFoldMax    = 4096     // live records folded into blocks in one pass, at most
	packFormat     = 1        // the first byte of a block
)

// packedAge is how old a bucket's records are before they are packed, and how to make the key that
// the records older than a time sort before. Tasks and what is keyed by them wait a week: a task can
// run for days, and every change after packing is folded in again.
var packedAge = []struct {
	name   []byte
	age    time.Duration
	cutoff func(time.Time) []byte
	floor  []byte // keys before it are never packed (nil: none)
	scan   bool   // read in scans: blocks of more bytes
}{
	{bAudit, time.Hour, idCutoff("aud"), nil, true},
	{bLog, time.Hour, func(t time.Time) []byte { return u64(uint64(t.UnixNano())) }, nil, true},
	{bLedger, time.Hour, idCutoff("led"), nil, true},
	{bApprovals, 24 * time.Hour, idCutoff("apr"), nil, true},
	{bEvents, 7 * 24 * time.Hour, idCutoff("tsk"), nil, false},
	{bQuotes, 7 * 24 * time.Hour, idCutoff("tsk"), nil, false},
	{bTasks, 7 * 24 * time.Hour, idCutoff("tsk"), nil, false},
	{bTaskApproval, 7 * 24 * time.Hour, idCutoff("tsk"), nil, false},
	{bOfferIndex, 7 * 24 * time.Hour, idCutoff("ofr"), nil, false},
	// Only the time-ordered rows of the exchange's own trace ids (records.go).
	{bTraceIndex, time.Hour, traceCutoff, []byte{traceTimed}, true},
}

func idCutoff(prefix string) func(time.Time) []byte {
	return func(t time.Time) []byte { return []byte(axp.IDFloor(prefix, t)) }
}

// packing is where a packed bucket's blocks are and how large they get.
type packing struct {
	blocks         []byte // the blocks' bucket
	records, bytes int    // a block's records and raw bytes, at most
}

// packedOf maps a packed bucket's name to its packing.
var packedOf = func() map[string]packing {
	m := map[string]packing{}
	for _, p := range packedAge {
		pk := packing{blocks: append(slices.Clip(p.name), "_packed"...), records: packRecords, bytes: packBlockBytes}
		if p.scan {
			pk.bytes = packScanFactor * packBlockBytes
		}
		m[string(p.name)] = pk
	}
	return m
}()

// packedBlockNames are the names of the blocks' buckets (schema 14 creates them).
var packedBlockNames = func() []string {
	var out []string
	for _, p := range packedAge {
		out = append(out, string(packedOf[string(p.name)].blocks))
	}
	return out
}()

// block is a decoded block: its keys and values in key order (values are plain JSON).
type block struct {
	keys, vals [][]byte
}

func (b *block) find(k []byte) (int, bool) {
	return slices.BinarySearchFunc(b.keys, k, bytes.Compare)
}

// encodeBlock is a block's stored form: the format byte, the record count, then one zstd frame
// (without its magic number, as compress writes them) of key length, key, value length, value for
// every record.
func encodeBlock(b *block) []byte {
	var raw []byte
	for i, k := range b.keys {
		raw = binary.AppendUvarint(raw, uint64(len(k)))
		raw = append(raw, k...)
		raw = binary.AppendUvarint(raw, uint64(len(b.vals[i])))
		raw = append(raw, b.vals[i]...)
	}
	out := binary.AppendUvarint([]byte{packFormat}, uint64(len(b.keys)))
	frame := zEncoder.EncodeAll(raw, nil)
	return append(out, frame[len(zstdMagic):]...)
}

var errBlock = errors.New("packed block malformed")

// blockCount reads a stored block's record count without decoding it.
func blockCount(v []byte) int {
	if len(v) < 2 || v[0] != packFormat {
		return 0
	}
	n, _ := binary.Uvarint(v[1:])
	return int(n)
}

func decodeBlock(v []byte) (*block, error) {
	if len(v) < 2 || v[0] != packFormat {
		return nil, errBlock
	}
	n, w := binary.Uvarint(v[1:])
	if w <= 0 || n > 1<<20 {
		return nil, errBlock
	}
	frame := append(slices.Clip(zstdMagic), v[1+w:]...)
	raw, err := zDecoder.DecodeAll(frame, nil)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", errBlock, err)
	}
	b := &block{keys: make([][]byte, 0, n), vals: make([][]byte, 0, n)}
	for range n {
		var parts [2][]byte
		for j := range parts {
			l, w := binary.Uvarint(raw)
			if w <= 0 || uint64(len(raw)-w) < l {
				return nil, errBlock
			}
			parts[j] = raw[w : w+int(l) : w+int(l)]
			raw = raw[w+int(l):]
		}
		b.keys, b.vals = append(b.keys, parts[0]), append(b.vals, parts[1])
	}
	if len(raw) != 0 || !slices.IsSortedFunc(b.keys, bytes.Compare) {
		return nil, errBlock
	}
	return b, nil
}

// packedBucket is a live bucket and its blocks, read as one.
type packedBucket struct {
	live, blocks   bucket
	records, bytes int        // a block's size (packing)
	tail           *blockTail // the transaction's knowledge of the last block
	name           string     // the blocks' bucket
	pg             *pgTx      // on PostgreSQL: where the blocks end, read with a statement
}

// blockTail is the key of a bucket's last block as a transaction last read it. Reads of keys past
// it (new records: a quote round's, a new task's timeline) skip the blocks without asking the
// backend, one query less each on PostgreSQL. Every write to the blocks forgets it, and so does
// undoing a call (Tx.rollbackCall).
type blockTail struct {
	known bool
	key   []byte
}

// last is the key of the last block (nil when there is none).
func (p packedBucket) last() []byte {
	if !p.tail.known {
		k, ok := []byte(nil), false
		if p.pg != nil {
			k, ok = p.pg.blockTail(p.name)
		}
		if !ok {
			k, _ = p.blocks.Cursor().Last()
		}
		p.tail.key, p.tail.known = bytes.Clone(k), true
	}
	return p.tail.key
}

// want has PostgreSQL read where the blocks end with the next statement (the live read that comes
// first), so that the blocks' side of a read seldom costs a round trip of its own.
func (p packedBucket) want() {
	if p.pg != nil && !p.tail.known {
		p.pg.wantTail(p.name)
	}
}

// past tells whether k sorts after every block.
func (p packedBucket) past(k []byte) bool {
	last := p.last()
	return last == nil || bytes.Compare(k, last) > 0
}

func (p packedBucket) putBlock(k, v []byte) error {
	p.wrote()
	return p.blocks.Put(k, v)
}

func (p packedBucket) deleteBlock(k []byte) error {
	p.wrote()
	return p.blocks.Delete(k)
}

func (p packedBucket) wrote() {
	p.tail.known = false
	if p.pg != nil {
		p.pg.staleTail(p.name)
	}
}

// holder is the block whose range holds k (or the first block after it), with its stored key.
func (p packedBucket) holder(k []byte) ([]byte, *block, error) {
	if p.past(k) {
		return nil, nil, nil
	}
	bk, bv := p.blocks.Cursor().Seek(k)
	if bk == nil {
		return nil, nil, nil
	}
	b, err := decodeBlock(bv)
	if err != nil {
		return nil, nil, fmt.Errorf("block %x: %w", bk, err)
	}
	return bytes.Clone(bk), b, nil
}

func (p packedBucket) Get(k []byte) []byte {
	p.want()
	if v := p.live.Get(k); v != nil {
		return v
	}
	_, b, err := p.holder(k)
	if err != nil || b == nil {
		return nil
	}
	if i, ok := b.find(k); ok {
		return b.vals[i]
	}
	return nil
}

func (p packedBucket) Put(k, v []byte) error { return p.live.Put(k, v) }

func (p packedBucket) Delete(k []byte) error { return p.deleteKeys([][]byte{bytes.Clone(k)}) }

// rewrite stores b in place of the block stored under bk (deleting it when b is empty; a block whose
// last key changed moves to its new key; one that folding made twice too big is split in blocks of
// the bucket's size).
func (p packedBucket) rewrite(bk []byte, b *block) error {
	if len(b.keys) == 0 || !bytes.Equal(b.keys[len(b.keys)-1], bk) {
		if err := p.deleteBlock(bk); err != nil {
			return err
		}
	}
	size := 0
	for i := range b.keys {
		size += len(b.keys[i]) + len(b.vals[i])
	}
	step := len(b.keys)
	if step > 2*p.records || size > 2*p.bytes {
		step = p.records
	}
	for lo := 0; lo < len(b.keys); lo += step {
		part := &block{keys: b.keys[lo:min(lo+step, len(b.keys))], vals: b.vals[lo:min(lo+step, len(b.keys))]}
		if err := p.putBlock(part.keys[len(part.keys)-1], encodeBlock(part)); err != nil {
			return err
		}
	}
	return nil
}

// Count walks the bucket (a live record may shadow a packed one of the same key).
func (p packedBucket) Count() int {
	n := 0
	c := p.Cursor()
	for k, _ := c.First(); k != nil; k, _ = c.Next() {
		n++
	}
	return n
}

func (p packedBucket) SetFillPercent(f float64) {
	p.live.SetFillPercent(f)
	p.blocks.SetFillPercent(f)
}

func (p packedBucket) Cursor() cursor {
	p.want()
	return &mergedCursor{live: p.live.Cursor(), packed: &blockCursor{c: p.blocks.Cursor(), p: p}}
}

// blockCursor walks the records of every block in key order. A block that does not decode reads as
// empty (the live records still read).
type blockCursor struct {
	c cursor
	p packedBucket
	b *block
	i int
}

func (c *blockCursor) load(k, v []byte, last bool) ([]byte, []byte) {
	for k != nil {
		if b, err := decodeBlock(v); err == nil && len(b.keys) > 0 {
			c.b, c.i = b, 0
			if last {
				c.i = len(b.keys) - 1
			}
			return c.at()
		}
		if last {
			k, v = c.c.Prev()
		} else {
			k, v = c.c.Next()
		}
	}
	c.b = nil
	return nil, nil
}

func (c *blockCursor) at() ([]byte, []byte) {
	if c.b == nil || c.i < 0 || c.i >= len(c.b.keys) {
		return nil, nil
	}
	return c.b.keys[c.i], c.b.vals[c.i]
}

func (c *blockCursor) First() ([]byte, []byte) { k, v := c.c.First(); return c.load(k, v, false) }
func (c *blockCursor) Last() ([]byte, []byte)  { k, v := c.c.Last(); return c.load(k, v, true) }

func (c *blockCursor) Next() ([]byte, []byte) {
	if c.b == nil {
		return nil, nil
	}
	if c.i++; c.i < len(c.b.keys) {
		return c.at()
	}
	k, v := c.c.Next()
	return c.load(k, v, false)
}

func (c *blockCursor) Prev() ([]byte, []byte) {
	if c.b == nil {
		return nil, nil
	}
	if c.i--; c.i >= 0 {
		return c.at()
	}
	k, v := c.c.Prev()
	return c.load(k, v, true)
}

func (c *blockCursor) Seek(s []byte) ([]byte, []byte) {
	if c.p.past(s) {
		c.b = nil
		return nil, nil
	}
	k, v := c.c.Seek(s)
	if k == nil {
		c.b = nil
		return nil, nil
	}
	if key, val := c.load(k, v, false); key == nil || bytes.Compare(key, s) >= 0 {
		return key, val
	}
	c.i, _ = c.b.find(s)
	if c.i == len(c.b.keys) { // cannot happen: the block's last key is at least s
		return c.Next()
	}
	return c.at()
}

// mergedCursor merges the live records and the packed ones; on equal keys the live record wins.
// Each side is kept on the record it would give next in the direction of the last move.
type mergedCursor struct {
	live, packed   cursor
	lk, lv, pk, pv []byte
	cur            []byte
	back           bool
}

func (m *mergedCursor) pick() ([]byte, []byte) {
	useLive := m.lk != nil
	if m.lk != nil && m.pk != nil {
		c := bytes.Compare(m.lk, m.pk)
		useLive = c == 0 || (c < 0) != m.back
	} else if m.lk == nil && m.pk == nil {
		m.cur = nil
		return nil, nil
	}
	if useLive {
		m.cur = m.lk
		return m.lk, m.lv
	}
	m.cur = m.pk
	return m.pk, m.pv
}

func (m *mergedCursor) First() ([]byte, []byte) {
	m.back = false
	m.lk, m.lv = m.live.First()
	m.pk, m.pv = m.packed.First()
	return m.pick()
}

func (m *mergedCursor) Last() ([]byte, []byte) {
	m.back = true
	m.lk, m.lv = m.live.Last()
	m.pk, m.pv = m.packed.Last()
	return m.pick()
}

func (m *mergedCursor) Seek(s []byte) ([]byte, []byte) {
	m.back = false
	m.lk, m.lv = m.live.Seek(s)
	m.pk, m.pv = m.packed.Seek(s)
	return m.pick()
}

func (m *mergedCursor) Next() ([]byte, []byte) {
	if m.cur == nil { // past an end: back in from the start, or stay past the end
		if m.back {
			return m.First()
		}
		return nil, nil
	}
	cur := bytes.Clone(m.cur)
	if m.back { // turn: put both sides on their first record at or after cur
		m.back = false
		m.lk, m.lv = m.live.Seek(cur)
		m.pk, m.pv = m.packed.Seek(cur)
	}
	if m.lk != nil && bytes.Equal(m.lk, cur) {
		m.lk, m.lv = m.live.Next()
	}
	if m.pk != nil && bytes.Equal(m.pk, cur) {
		m.pk, m.pv = m.packed.Next()
	}
	return m.pick()
}

func (m *mergedCursor) Prev() ([]byte, []byte) {
	if m.cur == nil {
		if !m.back {
			return m.Last()
		}
		return nil, nil
	}
	cur := bytes.Clone(m.cur)
	if !m.back { // turn: put both sides on their last record at or before cur
		m.back = true
		m.lk, m.lv = atOrBefore(m.live, cur)
		m.pk, m.pv = atOrBefore(m.packed, cur)
	}
	if m.lk != nil && bytes.Equal(m.lk, cur) {
		m.lk, m.lv = m.live.Prev()
	}
	if m.pk != nil && bytes.Equal(m.pk, cur) {
		m.pk, m.pv = m.packed.Prev()
	}
	return m.pick()
}

// atOrBefore moves c to its last record with a key at or before s.
func atOrBefore(c cursor, s []byte) ([]byte, []byte) {
	k, v := c.Seek(s)
	if k == nil {
		return c.Last()
	}
	if bytes.Equal(k, s) {
		return k, v
	}
	return c.Prev()
}

// pack folds live records that sort at or before the last block into their blocks, then packs live
// records with keys before cutoff into new blocks of the bucket's size (a shorter run waits for
// more, unless short). It writes at most limit blocks and reports how many records it moved.
func (p packedBucket) pack(floor, cutoff []byte, limit int, short bool) (int, error) {
	moved, err := p.fold(floor)
	if err != nil {
		return moved, err
	}
	after := p.last()
	c := p.live.Cursor()
	var k, v []byte
	if after == nil {
		k, v = seekFrom(c, floor)
	} else if k, v = c.Seek(after); k != nil && bytes.Equal(k, after) {
		k, v = c.Next()
	}
	var run block
	size := 0
	var blocks []block
	for ; k != nil && bytes.Compare(k, cutoff) < 0 && len(blocks) < limit; k, v = c.Next() {
		raw, err := decompress(v)
		if err != nil {
			return moved, fmt.Errorf("pack %x: %w", k, err)
		}
		run.keys, run.vals = append(run.keys, bytes.Clone(k)), append(run.vals, bytes.Clone(raw))
		size += len(k) + len(raw)
		if len(run.keys) == p.records || size >= p.bytes {
			blocks = append(blocks, run)
			run, size = block{}, 0
		}
	}
	if short && len(run.keys) > 0 && len(blocks) < limit {
		blocks = append(blocks, run)
	}
	for _, b := range blocks {
		if err := p.putBlock(b.keys[len(b.keys)-1], encodeBlock(&b)); err != nil {
			return moved, err
		}
		for _, k := range b.keys {
			if err := p.live.Delete(k); err != nil {
				return moved, err
			}
		}
		moved += len(b.keys)
	}
	return moved, nil
}

// seekFrom puts c on its first key at or after floor (the first key when floor is nil).
func seekFrom(c cursor, floor []byte) ([]byte, []byte) {
	if floor == nil {
		return c.First()
	}
	return c.Seek(floor)
}

// fold moves live records (from floor on) that sort at or before the last block into the blocks
// holding their ranges (packFoldMax at most), each touched block written once.
func (p packedBucket) fold(floor []byte) (int, error) {
	last := p.last()
	if last == nil {
		return 0, nil
	}
	type rec struct{ k, v []byte }
	var recs []rec
	c := p.live.Cursor()
	for k, v := seekFrom(c, floor); k != nil && bytes.Compare(k, last) <= 0 && len(recs) < packFoldMax; k, v = c.Next() {
		raw, err := decompress(v)
		if err != nil {
			return 0, fmt.Errorf("fold %x: %w", k, err)
		}
		recs = append(recs, rec{bytes.Clone(k), bytes.Clone(raw)})
	}
	for i := 0; i < len(recs); {
		bk, b, err := p.holder(recs[i].k)
		if err != nil {
			return 0, err
		}
		for ; i < len(recs) && bytes.Compare(recs[i].k, bk) <= 0; i++ {
			j, ok := b.find(recs[i].k)
			if ok {
				b.vals[j] = recs[i].v
			} else {
				b.keys, b.vals = slices.Insert(b.keys, j, recs[i].k), slices.Insert(b.vals, j, recs[i].v)
			}
		}
		if err := p.rewrite(bk, b); err != nil {
			return 0, err
		}
	}
	for _, r := range recs {
		if err := p.live.Delete(r.k); err != nil {
			return 0, err
		}
	}
	return len(recs), nil
}

// deleteKeys deletes keys, live or packed, rewriting each block that held some once.
func (p packedBucket) deleteKeys(keys [][]byte) error {
	slices.SortFunc(keys, bytes.Compare)
	keys = slices.CompactFunc(keys, bytes.Equal)
	for _, k := range keys {
		if err := p.live.Delete(k); err != nil {
			return err
		}
	}
	for i := 0; i < len(keys); {
		bk, b, err := p.holder(keys[i])
		if err != nil || b == nil {
			return err
		}
		changed := false
		for ; i < len(keys) && bytes.Compare(keys[i], bk) <= 0; i++ {
			if j, ok := b.find(keys[i]); ok {
				b.keys, b.vals = slices.Delete(b.keys, j, j+1), slices.Delete(b.vals, j, j+1)
				changed = true
			}
		}
		if changed {
			if err := p.rewrite(bk, b); err != nil {
				return err
			}
		}
	}
	return nil
}

// deleteBefore deletes every record with a key before limit, calling fn with each first; whole
// blocks go without being rewritten.
func (p packedBucket) deleteBefore(limit []byte, fn func(k, v []byte) error) (int, error) {
	n := 0
	bc := p.blocks.Cursor()
	for bk, bv := bc.First(); bk != nil; bk, bv = bc.First() {
		b, err := decodeBlock(bv)
		if err != nil {
			return n, fmt.Errorf("block %x: %w", bk, err)
		}
		i, _ := b.find(limit)
		for j := range i {
			if err := fn(b.keys[j], b.vals[j]); err != nil {
				return n, err
			}
		}
		n += i
		if i < len(b.keys) {
			if i > 0 {
				b.keys, b.vals = b.keys[i:], b.vals[i:]
				if err := p.rewrite(bytes.Clone(bk), b); err != nil {
					return n, err
				}
			}
			break
		}
		if err := p.deleteBlock(bytes.Clone(bk)); err != nil {
			return n, err
		}
	}
	c := p.live.Cursor()
	for k, v := c.First(); k != nil && bytes.Compare(k, limit) < 0; k, v = c.First() {
		k = bytes.Clone(k)
		raw, err := decompress(v)
		if err == nil {
			err = fn(k, raw)
		}
		if err != nil {
			return n, err
		}
		if err := p.live.Delete(k); err != nil {
			return n, err
		}
		n++
	}
	return n, nil
}

// Pack moves records past their packing age into blocks (writing at most limit blocks a bucket,
// and folding records written after packing back in); it reports how many records moved. A run of
// records shorter than a block waits for more, unless short (benchmarks measure what a whole
// history takes with it). The daemon runs it with its hourly pruning; readers see no difference.
func (t *Tx) Pack(now time.Time, limit int, short bool) (int, error) {
	total := 0
	for _, p := range packedAge {
		n, err := t.packed(p.name).pack(p.floor, p.cutoff(now.Add(-p.age)), limit, short)
		if err != nil {
			return total, fmt.Errorf("pack %s: %w", p.name, err)
		}
		total += n
	}
	return total, nil
}

// PackAll packs everything past its packing age (and, with short, the last short runs too), in
// transactions of up to 256 blocks a bucket, until nothing moves; it reports how many records
// moved. The daemon paces its own pass instead (Daemon.pack); this is for seeding and measuring.
func (db *DB) PackAll(now time.Time, short bool) (int, error) {
	total := 0
	for {
		var moved int
		if err := db.Update(func(tx *Tx) error {
			var err error
			moved, err = tx.Pack(now, 256, short)
			return err
		}); err != nil || moved == 0 {
			return total, err
		}
		total += moved
	}
}

// packed is a packed bucket (name must be one).
func (t *Tx) packed(name []byte) packedBucket {
	return t.bucket(name).(packedBucket)
}
