package store_test

import (
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/axp-exchange/axp"
	"github.com/axp-exchange/axp/store"
	bolt "go.etcd.io/bbolt"
)

// TestMigrateFromVersion3 opens a database as version 3 wrote it (its buckets, a task and a review,
// version "3" in meta) and checks that migration 4 adds the trust-and-safety buckets and keeps the
// data.
func TestMigrateFromVersion3(t *testing.T) {
	path := filepath.Join(t.TempDir(), store.FileName)
	b, err := bolt.Open(path, 0o600, &bolt.Options{Timeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	err = b.Update(func(tx *bolt.Tx) error {
		for _, name := range append(append(append([]string(nil), v1Buckets...), v2Buckets...), v3Buckets...) {
			if _, err := tx.CreateBucket([]byte(name)); err != nil {
				return err
			}
		}
		tx.Bucket([]byte("meta")).Put([]byte("schema_version"), []byte("3"))
		tx.Bucket([]byte("tasks")).Put([]byte("tsk_old"), []byte(`{"v":1,"id":"tsk_old","type":"text-file","status":"released","params":{}}`))
		return tx.Bucket([]byte("reviews")).Put([]byte("rev_old"), []byte(`{"v":1,"review_id":"rev_old","task_id":"tsk_old","reviewer_role":"buyer","rating":4,"reviewee_id":"mem_s"}`))
	})
	b.Close()
	if err != nil {
		t.Fatal(err)
	}
	db, err := store.Open(path, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if v, err := db.Version(); err != nil || v != store.SchemaVersion || v < 4 {
		t.Fatalf("version after migration %d %v", v, err)
	}
	view(t, db, func(tx *store.Tx) error {
		if task, err := tx.Task("tsk_old"); err != nil || task == nil || task.Status != "released" {
			t.Errorf("task after migration %+v %v", task, err)
		}
		if r, err := tx.Review("rev_old"); err != nil || r == nil || r.Rating != 4 {
			t.Errorf("review after migration %+v %v", r, err)
		}
		if ids := tx.AwaitingMediationIDs(); len(ids) != 0 {
			t.Errorf("mediations in a migrated database: %v", ids)
		}
		return nil
	})
}

func TestTrustRecords(t *testing.T) { eachBackend(t, testTrustRecords) }

func testTrustRecords(t *testing.T) {
	db := open(t)
	now := time.Now().UTC()
	pct := 40
	update(t, db, func(tx *store.Tx) error {
		for _, m := range []axp.Message{{ID: "msg_2", TaskID: "tsk_a", Body: "second"}, {ID: "msg_1", TaskID: "tsk_a", Body: "first"},
			{ID: "msg_3", TaskID: "tsk_b", Body: "other"}} {
			if err := tx.PutMessage(&m); err != nil {
				return err
			}
		}
		for _, s := range []axp.Settlement{{ID: "stl_1", TaskID: "tsk_a", RefundPct: 10}, {ID: "stl_2", TaskID: "tsk_a", RefundPct: 20}} {
			if err := tx.PutSettlement(&s); err != nil {
				return err
			}
		}
		for _, m := range []axp.Mediation{{ID: "med_1", TaskID: "tsk_a", Status: axp.MediationAwaiting},
			{ID: "med_2", TaskID: "tsk_b", Status: axp.MediationAwaiting}} {
			if err := tx.PutMediation(&m); err != nil {
				return err
			}
		}
		// Leaving the awaiting state drops a mediation from the sweeper's index.
		if err := tx.PutMediation(&axp.Mediation{ID: "med_2", TaskID: "tsk_b", Status: axp.MediationDecided,
			Decision: &axp.MediationDecision{RefundPct: &pct}}); err != nil {
			return err
		}
		r := &store.ReviewRecord{ReviewView: axp.ReviewView{ReviewID: "rev_1", TaskID: "tsk_a", Role: "buyer", Rating: 5}, RevieweeID: "mem_s"}
		if err := tx.PutTaskReview(r); err != nil {
			return err
		}
		if err := tx.PutListingRejection(&axp.ListingRejection{ID: "lst_1", BriefHash: "h1", Status: axp.ListingRejected}); err != nil {
			return err
		}
		if err := tx.PutAICall(&axp.AICall{ID: "aic_1", Purpose: "mediation"}); err != nil {
			return err
		}
		for i, m := range []string{"mem_x", "mem_y", "mem_x"} {
			if err := tx.PutContactRemoval(&store.ContactRemoval{ID: "rmv_" + string(rune('a'+i)), MemberID: m, Kind: "email", Fingerprint: "abcd1234", At: now}); err != nil {
				return err
			}
		}
		return nil
	})
	view(t, db, func(tx *store.Tx) error {
		msgs, _ := tx.Messages("tsk_a")
		if len(msgs) != 2 || msgs[0].ID != "msg_1" || msgs[1].ID != "msg_2" {
			t.Errorf("messages %+v", msgs)
		}
		stl, _ := tx.TaskSettlements("tsk_a")
		if len(stl) != 2 || stl[1].RefundPct != 20 {
			t.Errorf("settlements %+v", stl)
		}
		if ids := tx.AwaitingMediationIDs(); !slices.Equal(ids, []string{"med_1"}) {
			t.Errorf("awaiting mediations %v", ids)
		}
		if m, _ := tx.Mediation("med_2"); m == nil || m.Status != axp.MediationDecided || *m.Decision.RefundPct != 40 {
			t.Errorf("mediation %+v", m)
		}
		if list, _ := tx.TaskMediations("tsk_b"); len(list) != 1 {
			t.Errorf("task mediations %+v", list)
		}
		if tx.TaskReviewID("tsk_a", "buyer") != "rev_1" || tx.TaskReviewID("tsk_a", "seller") != "" {
			t.Error("task review index")
		}
		if rs, _ := tx.ReviewsOf("mem_s"); len(rs) != 1 {
			t.Errorf("reviews of the reviewee %+v", rs)
		}
		if r, _ := tx.ListingByHash("h1"); r == nil || r.ID != "lst_1" {
			t.Errorf("listing by hash %+v", r)
		}
		if r, _ := tx.ListingByHash("h2"); r != nil {
			t.Errorf("unknown hash found %+v", r)
		}
		n := 0
		tx.EachAICall(func(*axp.AICall) bool { n++; return true })
		if n != 1 {
			t.Errorf("AI calls %d", n)
		}
		if rs, _ := tx.ContactRemovals("mem_x", 0); len(rs) != 2 || rs[0].ID != "rmv_c" {
			t.Errorf("removals of mem_x %+v", rs)
		}
		if rs, _ := tx.ContactRemovals("", 1); len(rs) != 1 {
			t.Errorf("limited removals %+v", rs)
		}
		return nil
	})
}
