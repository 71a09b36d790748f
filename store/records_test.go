package store_test

import (
	"encoding/json"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/axp-exchange/axp"
	"github.com/axp-exchange/axp/store"
)

var t0 = time.Date(2026, 10, 7, 12, 0, 0, 0, time.UTC)

func TestMembers(t *testing.T) { eachBackend(t, testMembers) }

func testMembers(t *testing.T) {
	db := open(t)
	ids := []string{axp.NewID("mem", t0), axp.NewID("mem", t0.Add(time.Second)), axp.NewID("mem", t0.Add(2*time.Second))}
	update(t, db, func(tx *store.Tx) error {
		for i, id := range ids {
			m := &axp.Member{ID: id, Name: fmt.Sprint("m", i), Roles: []string{"seller"}, State: axp.MemberVerified,
				Skills: []axp.Skill{{TaskType: "text-file"}}, SecretHash: "h", PlatformKeyEnc: []byte{1, 2}, CreatedAt: t0}
			if err := tx.PutMember(m); err != nil {
				return err
			}
			if m.V != 1 {
				t.Errorf("PutMember did not set the version")
			}
		}
		return nil
	})
	view(t, db, func(tx *store.Tx) error {
		m, err := tx.Member(ids[1])
		if err != nil || m == nil || m.Name != "m1" || m.V != 1 || m.Skills[0].TaskType != "text-file" ||
			string(m.PlatformKeyEnc) != "\x01\x02" || !m.CreatedAt.Equal(t0) {
			t.Errorf("Member = %+v, %v", m, err)
		}
		if m, err := tx.Member("mem_nobody"); m != nil || err != nil {
			t.Errorf("unknown member = %+v, %v", m, err)
		}
		var order []string
		if err := tx.EachMember(func(m *axp.Member) bool { order = append(order, m.ID); return true }); err != nil {
			return err
		}
		if !slices.Equal(order, ids) {
			t.Errorf("EachMember order %v, want %v", order, ids)
		}
		n := 0
		tx.EachMember(func(*axp.Member) bool { n++; return false })
		if n != 1 {
			t.Errorf("EachMember did not stop: %d", n)
		}
		if tx.AdminTokenHash() != "" {
			t.Errorf("admin token hash before one is set")
		}
		return nil
	})
	// Replacing a member keeps one record.
	update(t, db, func(tx *store.Tx) error {
		return tx.PutMember(&axp.Member{ID: ids[0], Name: "renamed"})
	})
	update(t, db, func(tx *store.Tx) error { return tx.SetAdminTokenHash("abc") })
	view(t, db, func(tx *store.Tx) error {
		m, _ := tx.Member(ids[0])
		n := 0
		tx.EachMember(func(*axp.Member) bool { n++; return true })
		if m.Name != "renamed" || n != 3 || tx.AdminTokenHash() != "abc" {
			t.Errorf("after replace: %q, %d members, hash %q", m.Name, n, tx.AdminTokenHash())
		}
		return nil
	})
}

func audit(id string, at time.Time, actor, action, etype, eid, trace string) *axp.AuditRecord {
	return &axp.AuditRecord{ID: id, Time: at, Actor: actor, Action: action, EntityType: etype, EntityID: eid, TraceID: trace,
		Details: map[string]any{"k": "v"}}
}

func TestAuditAndTrace(t *testing.T) { eachBackend(t, testAuditAndTrace) }

func testAuditAndTrace(t *testing.T) {
	db := open(t)
	recs := []*axp.AuditRecord{
		audit(axp.NewID("aud", t0), t0, "member:mem_1", "member.register", "member", "mem_1", "tr-1"),
		audit(axp.NewID("aud", t0.Add(time.Second)), t0.Add(time.Second), "admin", "member.suspend", "member", "mem_2", "tr-2"),
		audit(axp.NewID("aud", t0.Add(2*time.Second)), t0.Add(2*time.Second), "member:mem_1", "member.update", "member", "mem_1", "tr-1"),
		audit(axp.NewID("aud", t0.Add(3*time.Second)), t0.Add(3*time.Second), "anonymous", "feedback.submit", "feedback", "fb_1", ""),
		audit(axp.NewID("aud", t0.Add(4*time.Second)), t0.Add(4*time.Second), "admin", "announce", "announcement", "ann_1", "tr-10"),
	}
	update(t, db, func(tx *store.Tx) error {
		for _, r := range recs {
			if err := tx.Audit(r); err != nil {
				return err
			}
		}
		return tx.AppendLog([]axp.LogEntry{
			{Time: t0.Add(500 * time.Millisecond), Level: "info", Source: "http", Message: "POST /api/members/register", TraceID: "tr-1"},
			{Time: t0.Add(600 * time.Millisecond), Level: "info", Source: "http", Message: "other", TraceID: "tr-2"},
			{Time: t0.Add(2500 * time.Millisecond), Level: "warn", Source: "store", Message: "slow", TraceID: "tr-1"},
		}, 0)
	})

	ids := func(list []axp.AuditRecord) []string {
		var out []string
		for _, r := range list {
			out = append(out, r.ID)
		}
		return out
	}
	cases := []struct {
		name string
		q    axp.AuditQuery
		want []string
	}{
		{"all, newest first", axp.AuditQuery{}, []string{recs[4].ID, recs[3].ID, recs[2].ID, recs[1].ID, recs[0].ID}},
		{"limit", axp.AuditQuery{Limit: 2}, []string{recs[4].ID, recs[3].ID}},
		{"entity type", axp.AuditQuery{EntityType: "member"}, []string{recs[2].ID, recs[1].ID, recs[0].ID}},
		{"entity id", axp.AuditQuery{EntityID: "mem_1"}, []string{recs[2].ID, recs[0].ID}},
		{"actor", axp.AuditQuery{Actor: "admin"}, []string{recs[4].ID, recs[1].ID}},
		{"action", axp.AuditQuery{Action: "member.suspend"}, []string{recs[1].ID}},
		{"type and actor", axp.AuditQuery{EntityType: "member", Actor: "admin"}, []string{recs[1].ID}},
		{"limit after filter", axp.AuditQuery{EntityID: "mem_1", Limit: 1}, []string{recs[2].ID}},
		{"nothing", axp.AuditQuery{Actor: "member:mem_9"}, nil},
	}
	view(t, db, func(tx *store.Tx) error {
		for _, c := range cases {
			got, err := tx.AuditRecords(c.q)
			if err != nil {
				return err
			}
			if got == nil {
				t.Errorf("%s: nil list (want an empty JSON array)", c.name)
			}
			if !slices.Equal(ids(got), c.want) {
				t.Errorf("%s: %v, want %v", c.name, ids(got), c.want)
			}
		}
		got, _ := tx.AuditRecords(axp.AuditQuery{Action: "member.register"})
		if len(got) != 1 || got[0].Details["k"] != "v" || !got[0].Time.Equal(t0) || got[0].TraceID != "tr-1" {
			t.Errorf("record round trip %+v", got)
		}

		tr, err := tx.Trace("tr-1")
		if err != nil {
			return err
		}
		if tr.TraceID != "tr-1" || !slices.Equal(ids(tr.Audit), []string{recs[0].ID, recs[2].ID}) {
			t.Errorf("trace audit %v", ids(tr.Audit))
		}
		if len(tr.Log) != 2 || tr.Log[0].Message != "POST /api/members/register" || tr.Log[1].Message != "slow" {
			t.Errorf("trace log %+v", tr.Log)
		}
		// "tr-1" is not a prefix match for "tr-10".
		tr10, _ := tx.Trace("tr-10")
		if len(tr10.Audit) != 1 || tr10.Audit[0].ID != recs[4].ID || len(tr10.Log) != 0 {
			t.Errorf("trace tr-10 %+v", tr10)
		}
		none, _ := tx.Trace("tr-unknown")
		if none.Log == nil || none.Audit == nil || len(none.Log)+len(none.Audit) != 0 {
			t.Errorf("unknown trace %+v", none)
		}
		// A record without a trace id is in no trace.
		empty, _ := tx.Trace("")
		if len(empty.Audit) != 0 {
			t.Errorf("empty trace id matched %+v", empty.Audit)
		}
		return nil
	})
}

func TestLog(t *testing.T) { eachBackend(t, testLog) }

func testLog(t *testing.T) {
	db := open(t)
	entries := []axp.LogEntry{
		{Time: t0, Level: "debug", Source: "http", Message: "d1", TraceID: "tr-a"},
		{Time: t0.Add(time.Second), Level: "info", Source: "http", Message: "i1", TraceID: "tr-a"},
		{Time: t0.Add(2 * time.Second), Level: "warn", Source: "store", Message: "w1", TraceID: "tr-b"},
		{Time: t0.Add(3 * time.Second), Level: "error", Source: "dispatch", Message: "e1", Attrs: map[string]any{"member": "mem_1"}},
		{Time: t0.Add(4 * time.Second), Level: "info", Source: "httpx", Message: "i2", TraceID: "tr-b"},
	}
	update(t, db, func(tx *store.Tx) error { return tx.AppendLog(entries[:3], 0) })
	update(t, db, func(tx *store.Tx) error { return tx.AppendLog(entries[3:], 3) })
	// Two entries of the same nanosecond in one batch both stay.
	same := []axp.LogEntry{
		{Time: t0.Add(5 * time.Second), Level: "info", Source: "x", Message: "same-1"},
		{Time: t0.Add(5 * time.Second), Level: "info", Source: "x", Message: "same-2"},
	}
	update(t, db, func(tx *store.Tx) error { return tx.AppendLog(same, 10) })

	msgs := func(list []axp.LogEntry) []string {
		var out []string
		for _, e := range list {
			out = append(out, e.Message)
		}
		return out
	}
	cases := []struct {
		name string
		q    axp.LogQuery
		want []string
	}{
		{"default is info and up, newest first", axp.LogQuery{}, []string{"same-2", "same-1", "i2", "e1", "w1", "i1"}},
		{"debug is everything", axp.LogQuery{Level: "debug"}, []string{"same-2", "same-1", "i2", "e1", "w1", "i1", "d1"}},
		{"warn", axp.LogQuery{Level: "warn"}, []string{"e1", "w1"}},
		{"error", axp.LogQuery{Level: "error"}, []string{"e1"}},
		{"source prefix", axp.LogQuery{Source: "http"}, []string{"i2", "i1"}},
		{"source and level", axp.LogQuery{Source: "http", Level: "debug"}, []string{"i2", "i1", "d1"}},
		{"limit", axp.LogQuery{Limit: 2, Level: "debug"}, []string{"same-2", "same-1"}},
		{"no match", axp.LogQuery{Source: "nope"}, nil},
	}
	view(t, db, func(tx *store.Tx) error {
		for _, c := range cases {
			got, err := tx.LogEntries(c.q)
			if err != nil {
				return err
			}
			if got == nil || !slices.Equal(msgs(got), c.want) {
				t.Errorf("%s: %v, want %v", c.name, msgs(got), c.want)
			}
		}
		got, _ := tx.LogEntries(axp.LogQuery{Level: "error"})
		if got[0].Attrs["member"] != "mem_1" || !got[0].Time.Equal(t0.Add(3*time.Second)) {
			t.Errorf("entry round trip %+v", got[0])
		}
		return nil
	})

	// PruneLog removes entries older than the cut, and their trace index rows.
	var pruned int
	update(t, db, func(tx *store.Tx) error {
		var err error
		pruned, err = tx.PruneLog(t0.Add(2 * time.Second))
		return err
	})
	if pruned != 2 {
		t.Fatalf("PruneLog removed %d, want 2", pruned)
	}
	view(t, db, func(tx *store.Tx) error {
		got, _ := tx.LogEntries(axp.LogQuery{Level: "debug"})
		if !slices.Equal(msgs(got), []string{"same-2", "same-1", "i2", "e1", "w1"}) {
			t.Errorf("after prune: %v", msgs(got))
		}
		a, _ := tx.Trace("tr-a")
		b, _ := tx.Trace("tr-b")
		if len(a.Log) != 0 || !slices.Equal(msgs(b.Log), []string{"w1", "i2"}) {
			t.Errorf("traces after prune: a %v b %v", msgs(a.Log), msgs(b.Log))
		}
		return nil
	})
	// The trace index rows are gone, not merely unresolvable: a backup shows no leftovers.
	update(t, db, func(tx *store.Tx) error {
		n, err := tx.PruneLog(t0.Add(time.Hour))
		if n != 5 {
			t.Errorf("second prune removed %d, want 5", n)
		}
		return err
	})
	assertBucketEmpty(t, db, "trace_index")
	assertBucketEmpty(t, db, "log")
}

func TestMetrics(t *testing.T) { eachBackend(t, testMetrics) }

func testMetrics(t *testing.T) {
	db := open(t)
	h1 := t0.Truncate(time.Hour)
	h2 := h1.Add(time.Hour)
	update(t, db, func(tx *store.Tx) error {
		if err := tx.AddMetrics(h1, "GET /api/services", store.MetricAgg{Count: 2, Errors: 1, Buckets: []int64{1, 1}}); err != nil {
			return err
		}
		if err := tx.AddMetrics(h1, "GET /api/services", store.MetricAgg{Count: 3, Buckets: []int64{0, 1, 2}}); err != nil {
			return err
		}
		if err := tx.AddMetrics(h1, "POST /api/feedback", store.MetricAgg{Count: 1, Buckets: []int64{1}}); err != nil {
			return err
		}
		return tx.AddMetrics(h2, "GET /api/services", store.MetricAgg{Count: 7, Errors: 2, Buckets: []int64{7}})
	})
	type row struct {
		hour  time.Time
		route string
		agg   store.MetricAgg
	}
	collect := func(since time.Time) []row {
		var rows []row
		view(t, db, func(tx *store.Tx) error {
			return tx.EachMetric(since, func(h time.Time, r string, a store.MetricAgg) { rows = append(rows, row{h, r, a}) })
		})
		return rows
	}
	rows := collect(h1)
	if len(rows) != 3 {
		t.Fatalf("rows %+v", rows)
	}
	// Rows of an hour come in route order.
	if r := rows[0]; !r.hour.Equal(h1) || r.route != "GET /api/services" || r.agg.Count != 5 || r.agg.Errors != 1 ||
		!slices.Equal(r.agg.Buckets, []int64{1, 2, 2}) {
		t.Errorf("merged row %+v", r)
	}
	if r := rows[1]; r.route != "POST /api/feedback" || r.agg.Count != 1 {
		t.Errorf("row %+v", r)
	}
	if r := rows[2]; !r.hour.Equal(h2) || r.agg.Count != 7 || r.hour.Location() != time.UTC {
		t.Errorf("row %+v", r)
	}
	if rows := collect(h2); len(rows) != 1 || rows[0].agg.Count != 7 {
		t.Errorf("since h2: %+v", rows)
	}
	if rows := collect(h2.Add(time.Hour)); len(rows) != 0 {
		t.Errorf("since later: %+v", rows)
	}
}

func TestSubmissions(t *testing.T) { eachBackend(t, testSubmissions) }

func testSubmissions(t *testing.T) {
	db := open(t)
	kinds := []string{store.KindFeedback, store.KindPaymentPref, store.KindInterest, store.KindSurvey}
	update(t, db, func(tx *store.Tx) error {
		for i, k := range kinds {
			for j := 0; j <= i; j++ {
				s := &store.Submission{ID: axp.NewID("sub", t0.Add(time.Duration(j)*time.Second)), Actor: "anonymous", CreatedAt: t0,
					Body: json.RawMessage(fmt.Sprintf(`{"kind":%q,"n":%d}`, k, j))}
				if err := tx.PutSubmission(k, s); err != nil {
					return err
				}
			}
		}
		return nil
	})
	view(t, db, func(tx *store.Tx) error {
		for i, k := range kinds {
			if n := tx.CountSubmissions(k); n != i+1 {
				t.Errorf("%s: %d submissions, want %d", k, n, i+1)
			}
			var bodies []string
			tx.EachSubmission(k, func(s *store.Submission) bool {
				if s.V != 1 || s.Actor != "anonymous" {
					t.Errorf("%s: %+v", k, s)
				}
				bodies = append(bodies, string(s.Body))
				return true
			})
			if len(bodies) != i+1 || bodies[0] != fmt.Sprintf(`{"kind":%q,"n":0}`, k) {
				t.Errorf("%s: bodies %v", k, bodies)
			}
		}
		defer func() {
			if recover() == nil {
				t.Error("an unknown submission kind did not panic")
			}
		}()
		tx.CountSubmissions("gossip")
		return nil
	})
}

func TestAnnouncementsAndReads(t *testing.T) { eachBackend(t, testAnnouncementsAndReads) }

func testAnnouncementsAndReads(t *testing.T) {
	db := open(t)
	a1 := &store.AnnouncementRecord{Announcement: axp.Announcement{ID: axp.NewID("ann", t0), From: "operator", Severity: "info", Title: "one", CreatedAt: t0}}
	a2 := &store.AnnouncementRecord{Announcement: axp.Announcement{ID: axp.NewID("ann", t0.Add(time.Minute)), From: "operator", Severity: "important", Title: "two"},
		MemberIDs: []string{"mem_1"}}
	update(t, db, func(tx *store.Tx) error {
		if err := tx.PutAnnouncement(a1); err != nil {
			return err
		}
		return tx.PutAnnouncement(a2)
	})
	view(t, db, func(tx *store.Tx) error {
		got, err := tx.Announcement(a2.ID)
		if err != nil || got == nil || got.Title != "two" || got.V != 1 || !slices.Equal(got.MemberIDs, []string{"mem_1"}) {
			t.Errorf("Announcement = %+v, %v", got, err)
		}
		if got, err := tx.Announcement("ann_none"); got != nil || err != nil {
			t.Errorf("unknown announcement %+v %v", got, err)
		}
		var titles []string
		tx.EachAnnouncement(func(a *store.AnnouncementRecord) bool { titles = append(titles, a.Title); return true })
		if !slices.Equal(titles, []string{"two", "one"}) {
			t.Errorf("newest first: %v", titles)
		}
		if tx.ReadAt("mem_1", a1.ID) != nil {
			t.Error("read before MarkRead")
		}
		return nil
	})

	first := t0.Add(time.Hour).Add(123456789 * time.Nanosecond)
	update(t, db, func(tx *store.Tx) error {
		at, err := tx.MarkRead("mem_1", a1.ID, first)
		if err != nil || !at.Equal(first) {
			t.Errorf("MarkRead = %v, %v", at, err)
		}
		at, err = tx.MarkRead("mem_1", a1.ID, first.Add(time.Hour))
		if err != nil || !at.Equal(first) {
			t.Errorf("second MarkRead = %v, %v; want the first read time kept", at, err)
		}
		return nil
	})
	view(t, db, func(tx *store.Tx) error {
		if at := tx.ReadAt("mem_1", a1.ID); at == nil || !at.Equal(first) {
			t.Errorf("ReadAt = %v", at)
		}
		if tx.ReadAt("mem_2", a1.ID) != nil || tx.ReadAt("mem_1", a2.ID) != nil {
			t.Error("reads leak across members or announcements")
		}
		return nil
	})
}

func TestOperatorMessages(t *testing.T) { eachBackend(t, testOperatorMessages) }

func testOperatorMessages(t *testing.T) {
	db := open(t)
	update(t, db, func(tx *store.Tx) error {
		for i := 0; i < 4; i++ {
			m := &axp.OperatorMessageView{ID: axp.NewID("opm", t0.Add(time.Duration(i)*time.Minute)), MemberID: "mem_1", Title: fmt.Sprint("t", i), Kind: "notice"}
			if err := tx.PutOperatorMessage(m); err != nil {
				return err
			}
		}
		return nil
	})
	titles := func(limit int) []string {
		var out []string
		view(t, db, func(tx *store.Tx) error {
			list, err := tx.OperatorMessages(limit)
			for _, m := range list {
				out = append(out, m.Title)
			}
			return err
		})
		return out
	}
	if got := titles(2); !slices.Equal(got, []string{"t3", "t2"}) {
		t.Errorf("limit 2: %v", got)
	}
	if got := titles(10); !slices.Equal(got, []string{"t3", "t2", "t1", "t0"}) {
		t.Errorf("limit 10: %v", got)
	}
	if got := titles(0); !slices.Equal(got, []string{"t3", "t2", "t1", "t0"}) {
		t.Errorf("limit 0 means all: %v", got)
	}
}

func TestIdempotency(t *testing.T) { eachBackend(t, testIdempotency) }

func testIdempotency(t *testing.T) {
	db := open(t)
	update(t, db, func(tx *store.Tx) error {
		if err := tx.PutIdempotency("k-old", &store.Idempotency{BodyHash: "b1", Op: "register", Status: 201, Sealed: []byte("s1"), At: t0}); err != nil {
			return err
		}
		return tx.PutIdempotency("k-new", &store.Idempotency{BodyHash: "b2", Op: "submit_feedback", Status: 201, Sealed: []byte("s2"), At: t0.Add(48 * time.Hour)})
	})
	view(t, db, func(tx *store.Tx) error {
		r, err := tx.Idempotency("k-old")
		if err != nil || r == nil || r.V != 1 || r.BodyHash != "b1" || r.Op != "register" || r.Status != 201 || string(r.Sealed) != "s1" || !r.At.Equal(t0) {
			t.Errorf("Idempotency = %+v, %v", r, err)
		}
		if r, err := tx.Idempotency("k-none"); r != nil || err != nil {
			t.Errorf("unknown key %+v %v", r, err)
		}
		return nil
	})
	update(t, db, func(tx *store.Tx) error {
		n, err := tx.PruneIdempotency(t0.Add(24 * time.Hour))
		if n != 1 {
			t.Errorf("pruned %d, want 1", n)
		}
		return err
	})
	view(t, db, func(tx *store.Tx) error {
		if r, _ := tx.Idempotency("k-old"); r != nil {
			t.Error("old record survived the prune")
		}
		if r, _ := tx.Idempotency("k-new"); r == nil {
			t.Error("new record was pruned")
		}
		return nil
	})
}

func TestReviews(t *testing.T) { eachBackend(t, testReviews) }

func testReviews(t *testing.T) {
	db := open(t)
	review := func(i int, reviewee string) *store.ReviewRecord {
		return &store.ReviewRecord{
			ReviewView: axp.ReviewView{ReviewID: axp.NewID("rev", t0.Add(time.Duration(i)*time.Minute)), TaskID: fmt.Sprint("task_", i), Rating: i%5 + 1, Role: "buyer"},
			ReviewerID: "mem_buyer", RevieweeID: reviewee,
		}
	}
	update(t, db, func(tx *store.Tx) error {
		for i, who := range []string{"mem_1", "mem_10", "mem_1", "mem_2", "mem_1"} {
			if err := tx.PutReview(review(i, who)); err != nil {
				return err
			}
		}
		return nil
	})
	tasks := func(member string) []string {
		var out []string
		view(t, db, func(tx *store.Tx) error {
			list, err := tx.ReviewsOf(member)
			for _, r := range list {
				if r.RevieweeID != member || r.V != 1 {
					t.Errorf("%s: review %+v", member, r)
				}
				out = append(out, r.TaskID)
			}
			return err
		})
		return out
	}
	// Newest first, and "mem_1" does not pick up the reviews of "mem_10".
	if got := tasks("mem_1"); !slices.Equal(got, []string{"task_4", "task_2", "task_0"}) {
		t.Errorf("mem_1: %v", got)
	}
	if got := tasks("mem_10"); !slices.Equal(got, []string{"task_1"}) {
		t.Errorf("mem_10: %v", got)
	}
	if got := tasks("mem_3"); len(got) != 0 {
		t.Errorf("mem_3: %v", got)
	}
	// Storing a review again (e.g. marked removed) keeps one index row.
	r := review(0, "mem_1")
	update(t, db, func(tx *store.Tx) error {
		list, _ := tx.ReviewsOf("mem_1")
		r.ReviewID = list[2].ReviewID
		r.Removed = true
		return tx.PutReview(r)
	})
	view(t, db, func(tx *store.Tx) error {
		list, _ := tx.ReviewsOf("mem_1")
		if len(list) != 3 || !list[2].Removed {
			t.Errorf("after update: %+v", list)
		}
		return nil
	})
}
