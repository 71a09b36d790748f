package store

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/axp-exchange/axp"
)

// --- idempotency ---

// Idempotency is a stored answer to a mutating call made with an Idempotency-Key.
type Idempotency struct {
	V        int       `json:"v"`
	BodyHash string    `json:"body_hash"`
	Op       string    `json:"op"`
	Status   int       `json:"status"`
	Sealed   []byte    `json:"sealed"` // the answer body, sealed with a key derived from the caller's key
	At       time.Time `json:"at"`
	// Task, when set, makes the answer the task's current view: the record is written in the
	// transaction that creates or changes the task, before the answer exists (a quote round runs
	// after it), and Sealed holds only what the task does not keep (the buyer token).
	Task string `json:"task,omitempty"`
}

// Idempotency records are stored compactly (schema 13): the key's hash as 32 raw bytes rather than
// 64 hex digits, and the value as idemBinary, uvarint status, varint time, then the body hash, the
// operation and the task as length-prefixed bytes (the body hash raw when it is 64 hex digits, as
// the exchange's always are), then the sealed answer as it is (sealed bytes do not compress, and
// JSON carried them in base64, a third larger). Records of earlier schemas (hex keys, JSON values)
// are read until they expire, 24 hours after their call.
const idemBinary = 0x10

// lowerHex decodes s when it is lower-case hex (the form that encodes back to s), for storing the
// exchange's hashes and ids as their bytes.
func lowerHex(s string) ([]byte, bool) {
	if len(s) == 0 || len(s)%2 != 0 {
		return nil, false
	}
	raw, err := hex.DecodeString(s)
	if err != nil || hex.EncodeToString(raw) != s {
		return nil, false
	}
	return raw, true
}

// idemKey is the stored form of a record's key: 64 hex digits as their 32 bytes.
func idemKey(key string) []byte {
	if raw, ok := lowerHex(key); ok && len(raw) == 32 {
		return raw
	}
	return []byte(key)
}

// Idempotency loads the record under key (already hashed by the caller), or nil.
func (t *Tx) Idempotency(key string) (*Idempotency, error) {
	b := t.bucket(bIdempotency)
	raw := b.Get(idemKey(key))
	if raw == nil {
		raw = b.Get([]byte(key)) // written before schema 13
	}
	if raw == nil {
		return nil, nil
	}
	return decodeIdempotency(raw)
}

// PutIdempotency stores a record under key.
func (t *Tx) PutIdempotency(key string, r *Idempotency) error {
	r.V = 1
	return t.bucket(bIdempotency).Put(idemKey(key), encodeIdempotency(r))
}

func encodeIdempotency(r *Idempotency) []byte {
	out := make([]byte, 0, 64+len(r.Op)+len(r.Task)+len(r.Sealed))
	out = append(out, idemBinary)
	out = binary.AppendUvarint(out, uint64(r.Status))
	out = binary.AppendVarint(out, r.At.UnixNano())
	hash := []byte(r.BodyHash)
	flag := byte(0)
	if raw, ok := lowerHex(r.BodyHash); ok && len(raw) == 32 {
		hash, flag = raw, 1
	}
	out = append(out, flag)
	for _, f := range [][]byte{hash, []byte(r.Op), []byte(r.Task)} {
		out = binary.AppendUvarint(out, uint64(len(f)))
		out = append(out, f...)
	}
	return append(out, r.Sealed...)
}

func decodeIdempotency(raw []byte) (*Idempotency, error) {
	var r Idempotency
	if len(raw) == 0 || raw[0] != idemBinary {
		if err := decode(raw, &r); err != nil {
			return nil, fmt.Errorf("decode idempotency record: %w", err)
		}
		return &r, nil
	}
	bad := fmt.Errorf("decode idempotency record: truncated")
	p := raw[1:]
	status, n := binary.Uvarint(p)
	if n <= 0 {
		return nil, bad
	}
	p = p[n:]
	at, n := binary.Varint(p)
	if n <= 0 || len(p) < n+1 {
		return nil, bad
	}
	flag := p[n]
	p = p[n+1:]
	var fields [3][]byte
	for i := range fields {
		l, n := binary.Uvarint(p)
		if n <= 0 || uint64(len(p)-n) < l {
			return nil, bad
		}
		fields[i], p = p[n:n+int(l)], p[n+int(l):]
	}
	r.V, r.Status, r.At = 1, int(status), time.Unix(0, at).UTC()
	r.BodyHash, r.Op, r.Task = string(fields[0]), string(fields[1]), string(fields[2])
	if flag == 1 {
		r.BodyHash = hex.EncodeToString(fields[0])
	}
	r.Sealed = append([]byte(nil), p...)
	return &r, nil
}

// PruneIdempotency deletes records older than before and reports how many.
func (t *Tx) PruneIdempotency(before time.Time) (int, error) {
	var keys [][]byte
	c := t.bucket(bIdempotency).Cursor()
	for k, raw := c.First(); k != nil; k, raw = c.Next() {
		r, err := decodeIdempotency(raw)
		if err != nil {
			return 0, err
		}
		if r.At.Before(before) {
			keys = append(keys, append([]byte(nil), k...))
		}
	}
	for _, k := range keys {
		if err := t.bucket(bIdempotency).Delete(k); err != nil {
			return 0, err
		}
	}
	return len(keys), nil
}

// --- audit ---

// Audit appends an audit record (its ID must be a time-sortable id) and indexes it by trace.
func (t *Tx) Audit(r *axp.AuditRecord) error {
	if err := putJSON(t.bucket(bAudit), []byte(r.ID), r); err != nil {
		return err
	}
	return t.indexTrace(r.TraceID, traceAudit, []byte(r.ID))
}

// AuditRecords returns records matching q, newest first.
func (t *Tx) AuditRecords(q axp.AuditQuery) ([]axp.AuditRecord, error) {
	limit := q.Limit
	if limit <= 0 {
		limit = 200
	}
	out := []axp.AuditRecord{}
	err := each(t.bucket(bAudit), true, func(_ []byte, r *axp.AuditRecord) (bool, error) {
		if (q.EntityType == "" || r.EntityType == q.EntityType) && (q.EntityID == "" || r.EntityID == q.EntityID) &&
			(q.Actor == "" || r.Actor == q.Actor) && (q.Action == "" || r.Action == q.Action) {
			out = append(out, *r)
		}
		return len(out) < limit, nil
	})
	return out, err
}

// Trace index rows. Since schema 14, where the trace id is 12 bytes of lower-case hex (the
// exchange's own, axp.NewTraceID: 6 bytes of time, 6 random), a row is 0x01, the id's 12 bytes,
// then a log line's key (12 bytes), or the millisecond of an audit id (its first 6 bytes:
// auditMilli); the length tells which. The time in front keeps these rows in time order, so they are packed with the
// history (packed.go) an hour after their trace. Other lower-case hex ids (and rows of schema 13,
// and audit ids not of NewID's form) have the compact rows of schema 13: 0x00, the id's length in
// bytes, the id's bytes, a kind byte ('a' audit, 'l' log), then the key. Other trace ids, and rows
// written before schema 13, have the textual form: trace id \x00 kind \x00 key. Trace reads all
// three.
const (
	traceAudit = 'a'
	traceLog   = 'l'
	traceTimed = 0x01 // the marker of the schema 14 form
	logKeyLen  = 12
)

// traceNames are the kinds' names in the textual form.
var traceNames = map[byte]string{traceAudit: "audit", traceLog: "log"}

// tracePrefix is the compact prefix of a trace id's rows, or nil when the id is not lower-case hex.
func tracePrefix(traceID string) []byte {
	raw, ok := lowerHex(traceID)
	if !ok || len(raw) > 64 {
		return nil
	}
	return append([]byte{0, byte(len(raw))}, raw...)
}

// timedPrefix is the prefix of a trace id's schema 14 rows, or nil when it has none.
func timedPrefix(traceID string) []byte {
	raw, ok := lowerHex(traceID)
	if !ok || len(raw) != 12 {
		return nil
	}
	return append([]byte{traceTimed}, raw...)
}

// timedKey is a record's key as a schema 14 row holds it, or nil when the row cannot take it.
func timedKey(kind byte, key []byte) []byte {
	switch kind {
	case traceLog:
		if len(key) == logKeyLen {
			return key
		}
	case traceAudit:
		if prefix, raw, ok := axp.IDBytes(string(key)); ok && prefix == "aud" {
			return raw[:auditMilli]
		}
	}
	return nil
}

// auditMilli is how much of an audit id a schema 14 row holds: its millisecond (the first 6 bytes).
// The records of that millisecond carrying the trace id are the trace's: one row serves all of a
// trace's audit records made in one millisecond (the records of one change), and the row holds
// nothing random.
const auditMilli = 6

// auditIn calls fn with every audit record whose id was made in the millisecond of milli (the
// first 6 bytes of an id).
func (t *Tx) auditIn(milli []byte, fn func(key []byte) error) error {
	var floor [16]byte
	copy(floor[:], milli)
	c := t.bucket(bAudit).Cursor()
	for k, _ := c.Seek([]byte(axp.IDFromBytes("aud", floor[:]))); k != nil; k, _ = c.Next() {
		prefix, raw, ok := axp.IDBytes(string(k))
		if !ok || prefix != "aud" || !bytes.Equal(raw[:auditMilli], milli) {
			return nil
		}
		if err := fn(k); err != nil {
			return err
		}
	}
	return nil
}

// traceCutoff is the first schema 14 row of the traces made at t or later.
func traceCutoff(t time.Time) []byte {
	return append([]byte{traceTimed}, u64(uint64(t.UnixMilli()) << 16)[:6]...)
}

// textTraceKey is a row's textual form (name is "audit" or "log").
func textTraceKey(traceID, name string, key []byte) []byte {
	k := make([]byte, 0, len(traceID)+len(name)+len(key)+2)
	return append(append(append(append(append(k, traceID...), 0), name...), 0), key...)
}

// timedRow is a record's schema 14 row, or nil when the trace id or the key cannot have one.
func timedRow(traceID string, kind byte, key []byte) []byte {
	if p, k := timedPrefix(traceID), timedKey(kind, key); p != nil && k != nil {
		return append(p, k...)
	}
	return nil
}

// compactRow is a record's schema 13 row, or nil when the trace id is not lower-case hex.
func compactRow(traceID string, kind byte, key []byte) []byte {
	if p := tracePrefix(traceID); p != nil {
		return append(append(p, kind), key...)
	}
	return nil
}

// traceKey is the row a record gets now: the first form it can have of schema 14, 13, or text.
func traceKey(traceID string, kind byte, key []byte) []byte {
	if r := timedRow(traceID, kind, key); r != nil {
		return r
	}
	if r := compactRow(traceID, kind, key); r != nil {
		return r
	}
	return textTraceKey(traceID, traceNames[kind], key)
}

// traceKeys are the rows a record may have, of every schema (pruning deletes them all).
func traceKeys(traceID string, kind byte, key []byte) [][]byte {
	out := [][]byte{textTraceKey(traceID, traceNames[kind], key)}
	for _, r := range [][]byte{compactRow(traceID, kind, key), timedRow(traceID, kind, key)} {
		if r != nil {
			out = append(out, r)
		}
	}
	return out
}

func (t *Tx) indexTrace(traceID string, kind byte, key []byte) error {
	if traceID == "" {
		return nil
	}
	return t.bucket(bTraceIndex).Put(traceKey(traceID, kind, key), nil)
}

// --- log ---

// AppendLog stores log entries (one transaction for a batch) and indexes them by trace.
func (t *Tx) AppendLog(entries []axp.LogEntry, seq uint32) error {
	b := t.bucket(bLog)
	for i := range entries {
		e := &entries[i]
		key := make([]byte, 12)
		binary.BigEndian.PutUint64(key, uint64(e.Time.UnixNano()))
		binary.BigEndian.PutUint32(key[8:], seq+uint32(i))
		if err := putJSON(b, key, e); err != nil {
			return err
		}
		if err := t.indexTrace(e.TraceID, traceLog, key); err != nil {
			return err
		}
	}
	return nil
}

var levelRank = map[string]int{"debug": 0, "info": 1, "warn": 2, "error": 3}

// LogEntries returns entries at or above q.Level whose source starts with q.Source, newest first.
func (t *Tx) LogEntries(q axp.LogQuery) ([]axp.LogEntry, error) {
	limit, min := q.Limit, levelRank[q.Level]
	if limit <= 0 {
		limit = 200
	}
	if q.Level == "" {
		min = levelRank["info"]
	}
	out := []axp.LogEntry{}
	err := each(t.bucket(bLog), true, func(_ []byte, e *axp.LogEntry) (bool, error) {
		if levelRank[e.Level] >= min && strings.HasPrefix(e.Source, q.Source) {
			out = append(out, *e)
		}
		return len(out) < limit, nil
	})
	return out, err
}

// Trace returns every log entry and audit record of a trace id, oldest first.
func (t *Tx) Trace(traceID string) (axp.Trace, error) {
	tr := axp.Trace{TraceID: traceID, Log: []axp.LogEntry{}, Audit: []axp.AuditRecord{}}
	if traceID == "" {
		return tr, nil
	}
	seen := map[string]bool{} // a record indexed under two forms is listed once
	add := func(kind byte, key []byte) error {
		if seen[string(kind)+string(key)] {
			return nil
		}
		seen[string(kind)+string(key)] = true
		switch kind {
		case traceLog:
			var e axp.LogEntry
			if ok, err := getJSON(t.bucket(bLog), key, &e); err != nil || !ok || e.TraceID != traceID {
				return err
			}
			tr.Log = append(tr.Log, e)
		case traceAudit:
			var r axp.AuditRecord
			if ok, err := getJSON(t.bucket(bAudit), key, &r); err != nil || !ok || r.TraceID != traceID {
				return err
			}
			tr.Audit = append(tr.Audit, r)
		}
		return nil
	}
	c := t.bucket(bTraceIndex).Cursor()
	if prefix := timedPrefix(traceID); prefix != nil {
		for k, _ := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, _ = c.Next() {
			var err error
			switch key := k[len(prefix):]; len(key) {
			case logKeyLen:
				err = add(traceLog, key)
			case auditMilli:
				err = t.auditIn(key, func(k []byte) error { return add(traceAudit, bytes.Clone(k)) })
			}
			if err != nil {
				return tr, err
			}
		}
	}
	if prefix := tracePrefix(traceID); prefix != nil {
		for k, _ := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, _ = c.Next() {
			if len(k) > len(prefix) {
				if err := add(k[len(prefix)], k[len(prefix)+1:]); err != nil {
					return tr, err
				}
			}
		}
	}
	prefix := append([]byte(traceID), 0)
	for k, _ := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, _ = c.Next() {
		name, key, _ := bytes.Cut(k[len(prefix):], []byte{0})
		var kind byte
		for k, n := range traceNames {
			if n == string(name) {
				kind = k
			}
		}
		if err := add(kind, key); err != nil {
			return tr, err
		}
	}
	sort.SliceStable(tr.Log, func(i, j int) bool { return tr.Log[i].Time.Before(tr.Log[j].Time) })
	sort.SliceStable(tr.Audit, func(i, j int) bool { return tr.Audit[i].ID < tr.Audit[j].ID })
	return tr, nil
}

// PruneLog deletes log entries older than before (and their trace index rows); it reports how many.
func (t *Tx) PruneLog(before time.Time) (int, error) {
	var rows [][]byte
	n, err := t.packed(bLog).deleteBefore(u64(uint64(before.UnixNano())), func(k, raw []byte) error {
		var e axp.LogEntry
		if json.Unmarshal(raw, &e) == nil && e.TraceID != "" {
			rows = append(rows, traceKeys(e.TraceID, traceLog, k)...)
		}
		return nil
	})
	if err != nil {
		return n, err
	}
	return n, t.packed(bTraceIndex).deleteKeys(rows)
}

// --- metrics ---

// MetricAgg is the hourly aggregate of one route: counts and a latency histogram.
type MetricAgg struct {
	Count   int64   `json:"count"`
	Errors  int64   `json:"errors"`
	Buckets []int64 `json:"buckets"`
}

// AddMetrics merges hourly aggregates (key: hour start, route) into the store.
func (t *Tx) AddMetrics(hour time.Time, route string, add MetricAgg) error {
	b := t.bucket(bMetrics)
	key := append(u64(uint64(hour.Unix())), route...)
	var cur MetricAgg
	if _, err := getJSON(b, key, &cur); err != nil {
		return err
	}
	cur.Count += add.Count
	cur.Errors += add.Errors
	if len(cur.Buckets) < len(add.Buckets) {
		cur.Buckets = append(cur.Buckets, make([]int64, len(add.Buckets)-len(cur.Buckets))...)
	}
	for i, n := range add.Buckets {
		cur.Buckets[i] += n
	}
	return putJSON(b, key, cur)
}

// EachMetric calls fn for every aggregate at or after since.
func (t *Tx) EachMetric(since time.Time, fn func(hour time.Time, route string, a MetricAgg)) error {
	c := t.bucket(bMetrics).Cursor()
	for k, raw := c.Seek(u64(uint64(since.Unix()))); k != nil; k, raw = c.Next() {
		var a MetricAgg
		if err := decode(raw, &a); err != nil {
			return err
		}
		fn(time.Unix(int64(binary.BigEndian.Uint64(k[:8])), 0).UTC(), string(k[8:]), a)
	}
	return nil
}

// --- submissions: feedback, payment preferences, interest, survey ---

// Submission kinds, each its own bucket.
const (
	KindFeedback    = "feedback"
	KindPaymentPref = "payment_preference"
	KindInterest    = "interest"
	KindSurvey      = "survey"
)

func submissionBucket(kind string) []byte {
	switch kind {
	case KindFeedback:
		return bFeedback
	case KindPaymentPref:
		return bPaymentPrefs
	case KindInterest:
		return bInterest
	case KindSurvey:
		return bSurvey
	}
	panic("store: unknown submission kind " + kind)
}

// Submission is a stored public submission.
type Submission struct {
	V         int             `json:"v"`
	ID        string          `json:"id"`
	Actor     string          `json:"actor"`
	CreatedAt time.Time       `json:"created_at"`
	Body      json.RawMessage `json:"body"`
}

// PutSubmission stores a submission of a kind.
func (t *Tx) PutSubmission(kind string, s *Submission) error {
	s.V = 1
	return putJSON(t.bucket(submissionBucket(kind)), []byte(s.ID), s)
}

// EachSubmission calls fn for every submission of a kind, oldest first.
func (t *Tx) EachSubmission(kind string, fn func(*Submission) bool) error {
	return each(t.bucket(submissionBucket(kind)), false, func(_ []byte, s *Submission) (bool, error) { return fn(s), nil })
}

// CountSubmissions counts the submissions of a kind.
func (t *Tx) CountSubmissions(kind string) int { return t.bucket(submissionBucket(kind)).Count() }

// --- announcements and operator messages ---

// AnnouncementRecord is a stored announcement with its audience.
type AnnouncementRecord struct {
	V int `json:"v"`
	axp.Announcement
	MemberIDs []string `json:"member_ids,omitempty"`
}

// PutAnnouncement stores an announcement.
func (t *Tx) PutAnnouncement(a *AnnouncementRecord) error {
	a.V = 1
	return putJSON(t.bucket(bAnnouncements), []byte(a.ID), a)
}

// Announcement loads one announcement, or nil.
func (t *Tx) Announcement(id string) (*AnnouncementRecord, error) {
	var a AnnouncementRecord
	ok, err := getJSON(t.bucket(bAnnouncements), []byte(id), &a)
	if !ok || err != nil {
		return nil, err
	}
	return &a, nil
}

// EachAnnouncement calls fn for every announcement, newest first.
func (t *Tx) EachAnnouncement(fn func(*AnnouncementRecord) bool) error {
	return each(t.bucket(bAnnouncements), true, func(_ []byte, a *AnnouncementRecord) (bool, error) { return fn(a), nil })
}

func deliveryKey(annID, memberID string) []byte { return []byte(annID + "\x00" + memberID) }

// PutDelivery records how an announcement reached one member.
func (t *Tx) PutDelivery(annID string, d *axp.AnnouncementDelivery) error {
	return putJSON(t.bucket(bDeliveries), deliveryKey(annID, d.MemberID), d)
}

// Delivery loads the delivery of an announcement to a member, or nil.
func (t *Tx) Delivery(annID, memberID string) (*axp.AnnouncementDelivery, error) {
	var d axp.AnnouncementDelivery
	ok, err := getJSON(t.bucket(bDeliveries), deliveryKey(annID, memberID), &d)
	if !ok || err != nil {
		return nil, err
	}
	return &d, nil
}

// Deliveries lists the deliveries of an announcement, by member id.
func (t *Tx) Deliveries(annID string) ([]axp.AnnouncementDelivery, error) {
	prefix := []byte(annID + "\x00")
	out := []axp.AnnouncementDelivery{}
	c := t.bucket(bDeliveries).Cursor()
	for k, v := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, v = c.Next() {
		var d axp.AnnouncementDelivery
		if err := decode(v, &d); err != nil {
			return nil, err
		}
		out = append(out, d)
	}
	return out, nil
}

func readKey(memberID, annID string) []byte { return []byte(memberID + "\x00" + annID) }

// MarkRead records that a member read an announcement (the first read time is kept).
func (t *Tx) MarkRead(memberID, annID string, at time.Time) (time.Time, error) {
	b := t.bucket(bReads)
	if raw := b.Get(readKey(memberID, annID)); raw != nil {
		return time.Parse(time.RFC3339Nano, string(raw))
	}
	return at, b.Put(readKey(memberID, annID), []byte(at.Format(time.RFC3339Nano)))
}

// ReadAt returns when a member read an announcement, or nil.
func (t *Tx) ReadAt(memberID, annID string) *time.Time {
	raw := t.bucket(bReads).Get(readKey(memberID, annID))
	if raw == nil {
		return nil
	}
	at, err := time.Parse(time.RFC3339Nano, string(raw))
	if err != nil {
		return nil
	}
	return &at
}

// PutOperatorMessage stores a member's message to the operator.
func (t *Tx) PutOperatorMessage(m *axp.OperatorMessageView) error {
	return putJSON(t.bucket(bOperatorMsgs), []byte(m.ID), m)
}

// OperatorMessages returns up to limit messages newest first; limit 0 or less means all of them.
func (t *Tx) OperatorMessages(limit int) ([]axp.OperatorMessageView, error) {
	out := []axp.OperatorMessageView{}
	err := each(t.bucket(bOperatorMsgs), true, func(_ []byte, m *axp.OperatorMessageView) (bool, error) {
		out = append(out, *m)
		return limit <= 0 || len(out) < limit, nil
	})
	return out, err
}

// --- reviews (read side; written by the trust-and-safety part) ---

// ReviewRecord is a stored review.
type ReviewRecord struct {
	V int `json:"v"`
	axp.ReviewView
	ReviewerID string `json:"reviewer_id"`
	RevieweeID string `json:"reviewee_id"`
	Removed    bool   `json:"removed"`
	Sandbox    bool   `json:"sandbox"`
}

// ReviewsOf returns the reviews of a member, newest first.
func (t *Tx) ReviewsOf(memberID string) ([]ReviewRecord, error) {
	prefix := []byte(memberID + "\x00")
	var ids [][]byte
	c := t.bucket(bReviewsBy).Cursor()
	for k, _ := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, _ = c.Next() {
		ids = append(ids, append([]byte(nil), k[len(prefix):]...))
	}
	out := make([]ReviewRecord, 0, len(ids))
	for i := len(ids) - 1; i >= 0; i-- {
		var r ReviewRecord
		if ok, err := getJSON(t.bucket(bReviews), ids[i], &r); err != nil {
			return nil, err
		} else if ok {
			out = append(out, r)
		}
	}
	return out, nil
}

// PutReview stores a review and indexes it under its reviewee.
func (t *Tx) PutReview(r *ReviewRecord) error {
	r.V = 1
	if err := putJSON(t.bucket(bReviews), []byte(r.ReviewID), r); err != nil {
		return err
	}
	return t.bucket(bReviewsBy).Put([]byte(r.RevieweeID+"\x00"+r.ReviewID), nil)
}
