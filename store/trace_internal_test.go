package store

import (
	"testing"
	"time"

	"github.com/axp-exchange/axp"
	"github.com/axp-exchange/axp/store/pgtest"
)

// TestTraceIndexForms: 12-byte hex trace ids get the rows of schema 14 (the id, the record's key in
// binary); audit ids not of NewID's form and hex ids of other lengths the compact rows of schema
// 13; other ids the textual form. Rows written before schema 13 (textual for every id) are still
// found, in time order with the new ones; a trace id sharing its first bytes with another finds
// only its own records; audit records of one trace made in one millisecond share a row, and a
// record of another trace in that millisecond is not its; and pruning the log removes the rows of
// every form.
func TestTraceIndexForms(t *testing.T) { pgtest.Both(t, testTraceIndexForms) }

func testTraceIndexForms(t *testing.T) {
	db := openBackend(t)
	const hexID, textID, twinID = "48964af63f8c19ad53228e0a", "caller-trace.1", "48964af6ffffffffffffffff"
	t0 := time.Date(2026, 11, 25, 4, 0, 0, 0, time.UTC)
	if err := db.Update(func(tx *Tx) error {
		// What schema 12 wrote: a log line and an audit record under the textual row.
		old := axp.LogEntry{Time: t0, Level: "info", Source: "http", Message: "old", TraceID: hexID}
		key := append(u64(uint64(t0.UnixNano())), 0, 0, 0, 1)
		if err := putJSON(tx.bucket(bLog), key, &old); err != nil {
			return err
		}
		if err := tx.bucket(bTraceIndex).Put(textTraceKey(hexID, "log", key), nil); err != nil {
			return err
		}
		oldAudit := &axp.AuditRecord{ID: "aud_00000000000000000000000001", Time: t0, Action: "task.create", TraceID: hexID}
		if err := putJSON(tx.bucket(bAudit), []byte(oldAudit.ID), oldAudit); err != nil {
			return err
		}
		if err := tx.bucket(bTraceIndex).Put(textTraceKey(hexID, "audit", []byte(oldAudit.ID)), nil); err != nil {
			return err
		}
		if err := tx.AppendLog([]axp.LogEntry{
			{Time: t0.Add(time.Second), Level: "info", Source: "http", Message: "new", TraceID: hexID},
			{Time: t0.Add(2 * time.Second), Level: "info", Source: "http", Message: "text", TraceID: textID},
			{Time: t0.Add(3 * time.Second), Level: "info", Source: "http", Message: "twin", TraceID: twinID},
		}, 2); err != nil {
			return err
		}
		for _, r := range []*axp.AuditRecord{
			{ID: "aud_00000000000000000000000002", Time: t0.Add(time.Second), Action: "task.choose", TraceID: hexID},
			{ID: "aud_00000000000000000000000003", Time: t0.Add(time.Second), Action: "task.pay", TraceID: textID},
			{ID: axp.IDFloor("aud", t0.Add(2*time.Second)), Time: t0.Add(2 * time.Second), Action: "task.deliver", TraceID: hexID},
			// The same millisecond: one of this trace (one row for both), one of another.
			{ID: sameMilli(t, t0.Add(2*time.Second), 1), Time: t0.Add(2 * time.Second), Action: "approval.approve", TraceID: hexID},
			{ID: sameMilli(t, t0.Add(2*time.Second), 2), Time: t0.Add(2 * time.Second), Action: "task.create", TraceID: textID},
			{ID: axp.IDFloor("aud", t0.Add(3*time.Second)), Time: t0.Add(3 * time.Second), Action: "task.accept", TraceID: twinID},
		} {
			if err := tx.Audit(r); err != nil {
				return err
			}
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if err := db.View(func(tx *Tx) error {
		if tx.bucket(bTraceIndex).Get(traceKey(hexID, traceAudit, []byte("aud_00000000000000000000000002"))) == nil ||
			len(traceKey(hexID, traceAudit, []byte("aud_00000000000000000000000002"))) != 2+12+1+30 ||
			len(traceKey(hexID, traceLog, make([]byte, 12))) != 1+12+12 ||
			len(traceKey(hexID, traceAudit, []byte(axp.IDFloor("aud", t0)))) != 1+12+6 ||
			len(traceKey(hexID+"00000000", traceLog, make([]byte, 12))) != 2+16+1+12 {
			t.Error("a hex trace id's rows are not of the right form")
		}
		tr, err := tx.Trace(hexID)
		if err != nil || len(tr.Log) != 2 || tr.Log[0].Message != "old" || tr.Log[1].Message != "new" || len(tr.Audit) != 4 ||
			tr.Audit[0].Action != "task.create" || tr.Audit[1].Action != "task.choose" || tr.Audit[2].Action != "task.deliver" ||
			tr.Audit[3].Action != "approval.approve" {
			t.Errorf("hex trace: %+v, %v", tr, err)
		}
		tr, err = tx.Trace(twinID)
		if err != nil || len(tr.Log) != 1 || tr.Log[0].Message != "twin" || len(tr.Audit) != 1 || tr.Audit[0].Action != "task.accept" {
			t.Errorf("a trace id sharing the first 4 bytes: %+v, %v", tr, err)
		}
		tr, err = tx.Trace(textID)
		if err != nil || len(tr.Log) != 1 || tr.Log[0].Message != "text" || len(tr.Audit) != 2 {
			t.Errorf("textual trace: %+v, %v", tr, err)
		}
		if tr, _ := tx.Trace(""); len(tr.Log)+len(tr.Audit) != 0 {
			t.Errorf("the empty trace id found %+v", tr)
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if err := db.Update(func(tx *Tx) error {
		n, err := tx.PruneLog(t0.Add(time.Hour))
		if n != 4 || err != nil {
			t.Errorf("pruned %d, %v", n, err)
		}
		rows := 0
		c := tx.bucket(bTraceIndex).Cursor()
		for k, _ := c.First(); k != nil; k, _ = c.Next() {
			rows++
		}
		if rows != 6 { // the audit rows stay (two records of one trace and millisecond share one)
			t.Errorf("%d index rows after pruning the log, want 6", rows)
		}
		return err
	}); err != nil {
		t.Fatal(err)
	}
}

// sameMilli is an audit id of at's millisecond whose random part ends in n.
func sameMilli(t *testing.T, at time.Time, n byte) string {
	_, raw, ok := axp.IDBytes(axp.IDFloor("aud", at))
	if !ok {
		t.Fatal("IDFloor made an id IDBytes refuses")
	}
	raw[15] = n
	return axp.IDFromBytes("aud", raw[:])
}
