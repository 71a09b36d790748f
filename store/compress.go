package store

import (
	"bytes"
	"compress/flate"
	"encoding/json"
	"fmt"
	"io"
	"runtime"
	"sync"

	"github.com/klauspost/compress/zstd"
)

// Stored values. A JSON value of at least compressMin bytes is stored compressed with a preset
// dictionary behind a marker byte (a JSON text never starts with one); shorter values and
// everything written before schema 11 stay plain JSON, and reading takes every form. Records are
// small, so without the dictionary a compressor finds little to share within one record; with it,
// the keys and common values of tasks, events, audit records, log lines, quotes, approvals and
// ledger entries are back-references from the first byte. zDict is part of the file format:
// changing it needs a new marker. (A dictionary trained on thousands of real records was tried and
// came within 3% of this hand-written one: what is left in a record is ids, hashes and times.)

const (
	zMarker     = 0x01 // deflate, schemas 11 and 12
	compressMin = 96
	zstdDictID  = 1
	zstdLevel   = zstd.SpeedFastest
)

// zDict holds typical records, the most frequent last (deflate reaches the end of it cheapest).
const zDict = `{"v":1,"id":"led_06h119wa5rdfwh87m0hm9e2sfc","task_id":"tsk_06h119w9t0vfgwdacftb9vbgs8","kind":"payout","postings":[{"account":"escrow:tsk_06h119w9t0vfgwdacftb9vbgs8","amount_usd":-0.200002},{"account":"platform:fees","amount_usd":0.002},{"account":"external:seller","amount_usd":0.198},{"account":"platform:excess","amount_usd":0.000002},{"account":"external:buyer"` +
	`{"v":1,"approval_id":"apr_06h119wa4x22ctb8wj4qkdds44","kind":"payout","status":"approved","task_id":"tsk_06h119w9t0vfgwdacftb9vbgs8","task_type":"text-file","amount_usd":0.198,"price_usd":0.2,"refund_usd":0,"seller_net_usd":0.198,"platform_fee_usd":0.002,"booking":[{"account":"escrow:tsk_06h119w9t0vfgwdacftb9vbgs8","amount_usd":-0.200002}],"buyer_id":"anonymous","seller_id":"mem_06h119w9sqyyrfp87fc0kmspgr","seller_name":"","payout_address":"0x","tx_hash":"0x","rail":"manual","reason":"the buyer accepted the delivery; the seller requests payment","created_at":"2026-11-25T03:02:25.063258016Z","decided_at":"2026-11-25T03:02:25.070986866Z","age_seconds":0}` +
	`{"v":1,"task_id":"tsk_06h119w9t0vfgwdacftb9vbgs8","seller_id":"mem_06h119w9sqyyrfp87fc0kmspgr","seller_name":"","kind":"price","offer_id":"ofr_06h119w9zpgdhd26sndtmm0svc","answer":{"price_usd":0.2,"eta_minutes":5},"fee":{"buyer_total_usd":0.2,"platform_fee_usd":0.002,"seller_net_usd":0.198,"fee_bps":100},"instant":true,"pull":false,"latency_ms":0,"created_at":"2026-11-25T03:02:25.021692997Z"}` +
	`{"v":1,"id":"tsk_06h119w9t0vfgwdacftb9vbgs8","type":"text-file","description":"","params":{"filename":"output.txt","prompt":""},"payment_method":"crypto","status":"released","buyer_member_id":"mem_","buyer_token_hash":"","chosen_offer_id":"ofr_06h119w9zpgdhd26sndtmm0svc","seller_id":"mem_06h119w9sqyyrfp87fc0kmspgr","seller_name":"","price_usd":0.2,"eta_minutes":5,"fee":{"buyer_total_usd":0.2,"platform_fee_usd":0.002,"seller_net_usd":0.198,"fee_bps":100},"free_redo":0,"refund_if_fails_checks":false,"payable_usd":0.200002,"deposit_address":"0x","tx_hash":"0x","received_usd":0.200002,"deliveries":[{"sha256":"","filename":"deliverable.txt","mime_type":"text/plain; charset=utf-8","size":24,"checks_passed":true,"screening":{"flagged":false,"risk":0,"verdict":"clean"},"at":"2026-11-25T03:02:25.054890985Z","retrieved_at":"2026-11-25T03:02:25.05788627Z"}],"redos_used":0,"auto_release_at":"2026-11-28T03:02:25.054890985Z","release_due":false,"disputed":false,"screening":{"flagged":false,"risk":0,"verdict":"clean"},"review_asked":["buyer"],"started_at":"2026-11-25T03:02:25.04951728Z","open_until":"2026-11-26T03:02:25.021692997Z","pay_by":"2026-11-26T03:02:25.038647628Z","created_at":"2026-11-25T03:02:25.021692997Z","updated_at":"2026-11-25T03:02:25.070986866Z","events":10}` +
	`{"v":1,"body_hash":"","op":"create_task","status":201,"sealed":"","at":"2026-11-25T03:02:25.021692997Z","task":"tsk_06h119w9t0vfgwdacftb9vbgs8"}` +
	`{"time":"2026-11-25T03:02:25.037683826Z","level":"info","source":"http","message":"request","trace_id":"48215fc0fa31f5ad7a0f37b0","attrs":{"actor":"anonymous","ip":"12ca17b4","method":"POST","ms":61.092,"route":"POST /api/tasks/{id}/","status":200}}` +
	`{"id":"aud_06h119wa36g112etpxnzfre6a4","time":"2026-11-25T03:02:25.04951728Z","actor":"admin","action":"approval.approve","entity_type":"approval","entity_id":"apr_06h119wa22a6grdd974hfzybzg","trace_id":"1f4be61655a85da24d8f529d","details":{"amount_usd":0.200002,"kind":"payment","task":"tsk_06h119w9t0vfgwdacftb9vbgs8","tx_hash":"0x"}}` +
	`{"id":"aud_06h119wa36g112etpxnzfre6a0","time":"2026-11-25T03:02:25.04951728Z","actor":"admin","action":"task.pay","entity_type":"task","entity_id":"tsk_06h119w9t0vfgwdacftb9vbgs8","trace_id":"1f4be61655a85da24d8f529d","details":{"from":"awaiting_payment","received_usd":0.200002,"status":"paid","tx_hash":"0x0000000000000000000000000000000000000000000000000000000000000003"}}` +
	`{"seq":2,"at":"2026-11-25T03:02:25.021692997Z","kind":"create","actor":"anonymous","status":"open","detail":{"buyer":"anonymous","payment_method":"crypto","screening":{"flagged":false,"risk":0,"verdict":"clean"},"token_fp":"c4834c80","type":"text-file"}}` +
	`{"seq":6,"at":"2026-11-25T03:02:25.054890985Z","kind":"deliver","actor":"member:mem_06h119w9sqyyrfp87fc0kmspgr","status":"delivered","detail":{"checks_passed":true,"sha256":"","size":24}}` +
	`{"seq":1,"at":"2026-11-25T03:02:25.021692997Z","kind":"quote","actor":"anonymous","status":"open","detail":{"kind":"price","offer_id":"ofr_06h119w9zpgdhd26sndtmm0svc","price_usd":0.2,"seller":"mem_06h119w9sqyyrfp87fc0kmspgr"}}`

// Values are compressed with zstd (marker zstdMarker, the frame without its 4-byte magic number,
// no checksum: bbolt pages and PostgreSQL rows carry their own), using zDict as a raw-content
// dictionary. Values written by schemas 11 and 12 were deflated with the same dictionary (marker
// zMarker) and still read. zstd encodes a small record about ten times faster than deflate with a
// preset dictionary (which reset and re-hashed the dictionary for every value) and decodes it about
// three times faster, at a size within a few percent.
const zstdMarker = 0x02

var zstdMagic = []byte{0x28, 0xb5, 0x2f, 0xfd}

var (
	zDictBytes = []byte(zDict) // once: converting the constant at every call would copy it each time
	zEncoder   = mustEncoder()
	zDecoder   = mustDecoder()
	zReaders   = make(chan io.ReadCloser, 4)
)

func mustEncoder() *zstd.Encoder {
	e, err := zstd.NewWriter(nil, zstd.WithEncoderDictRaw(zstdDictID, zDictBytes),
		zstd.WithEncoderLevel(zstdLevel), zstd.WithEncoderCRC(false), zstd.WithSingleSegment(true),
		zstd.WithEncoderConcurrency(runtime.GOMAXPROCS(0)), zstd.WithZeroFrames(true), zstd.WithLowerEncoderMem(true))
	if err != nil {
		panic(err)
	}
	return e
}

func mustDecoder() *zstd.Decoder {
	d, err := zstd.NewReader(nil, zstd.WithDecoderDictRaw(zstdDictID, zDictBytes),
		zstd.WithDecoderConcurrency(runtime.GOMAXPROCS(0)), zstd.WithDecoderMaxMemory(64<<20))
	if err != nil {
		panic(err)
	}
	return d
}

// compress returns the stored form of a JSON value.
func compress(raw []byte) []byte {
	if len(raw) < compressMin {
		return raw
	}
	work.compressed.Add(1)
	frame := zEncoder.EncodeAll(raw, make([]byte, 0, len(raw)/2+16))
	if len(frame)-len(zstdMagic)+1 >= len(raw) || !bytes.HasPrefix(frame, zstdMagic) {
		return raw
	}
	frame = frame[len(zstdMagic)-1:]
	frame[0] = zstdMarker
	return frame
}

// decompress returns the JSON of a stored value (the value itself when it is plain).
func decompress(v []byte) ([]byte, error) {
	if len(v) == 0 {
		return v, nil
	}
	switch v[0] {
	case zstdMarker:
		frame := make([]byte, 0, len(zstdMagic)+len(v)-1)
		frame = append(append(frame, zstdMagic...), v[1:]...)
		out, err := zDecoder.DecodeAll(frame, nil)
		if err != nil {
			return nil, fmt.Errorf("decompress stored value: %w", err)
		}
		return out, nil
	case zMarker:
		return inflate(v[1:])
	}
	return v, nil
}

// inflate reads a value deflated by schemas 11 and 12.
func inflate(v []byte) ([]byte, error) {
	src := bytes.NewReader(v)
	var r io.ReadCloser
	select {
	case r = <-zReaders:
		if err := r.(flate.Resetter).Reset(src, zDictBytes); err != nil {
			return nil, err
		}
	default:
		r = flate.NewReaderDict(src, zDictBytes)
	}
	out, err := io.ReadAll(r)
	select {
	case zReaders <- r:
	default:
	}
	if err != nil {
		return nil, fmt.Errorf("inflate stored value: %w", err)
	}
	return out, nil
}

// decode unmarshals a stored value, plain or compressed. A zstd value is decompressed into buffers
// kept for the next value: what json.Unmarshal makes never points into its input.
func decode(v []byte, into any) error {
	work.decoded.Add(1)
	if len(v) == 0 || v[0] != zstdMarker {
		raw, err := decompress(v)
		if err != nil {
			return err
		}
		return json.Unmarshal(raw, into)
	}
	b := decodeBufs.Get().(*decodeBuf)
	defer func() {
		if cap(b.frame)+cap(b.raw) <= maxKeptBuf { // a packed block's buffers are not kept
			decodeBufs.Put(b)
		}
	}()
	work.decompressed.Add(1)
	b.frame = append(append(b.frame[:0], zstdMagic...), v[1:]...)
	raw, err := zDecoder.DecodeAll(b.frame, b.raw[:0])
	if err != nil {
		return fmt.Errorf("decompress stored value: %w", err)
	}
	b.raw = raw
	return json.Unmarshal(raw, into)
}

// decodeBuf holds a zstd frame and what it decompresses to, for decode.
type decodeBuf struct{ frame, raw []byte }

const maxKeptBuf = 64 << 10

var decodeBufs = sync.Pool{New: func() any { return new(decodeBuf) }}

// Compress deflates b with the store's dictionary (for bytes the daemon seals before storing,
// such as idempotent answers); Decompress reverses it and passes plain JSON through.
func Compress(b []byte) []byte { return compress(b) }

// Decompress is the inverse of Compress.
func Decompress(b []byte) ([]byte, error) { return decompress(b) }
