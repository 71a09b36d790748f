package store_test

import (
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/axp-exchange/axp"
	"github.com/axp-exchange/axp/store"
)

// indexedTasks are tasks in each status the indexes of schema 11 care about, with the deadline the
// sweeper must look at each one (zero: never).
func indexedTasks(now time.Time) ([]*axp.TaskRecord, map[string]time.Time) {
	hour, day := now.Add(time.Hour), now.Add(24*time.Hour)
	ts := []*axp.TaskRecord{
		{ID: "tsk_open", Status: axp.TaskOpen, OpenUntil: hour},
		{ID: "tsk_await", Status: axp.TaskAwaitingPayment, PayBy: &day, SellerID: "mem_s"},
		{ID: "tsk_reported", Status: axp.TaskAwaitingPayment, PayBy: &day, TxHash: "0xabc", SellerID: "mem_s"},
		{ID: "tsk_delivered", Status: axp.TaskDelivered, AutoReleaseAt: &day, SellerID: "mem_s"},
		{ID: "tsk_due_queued", Status: axp.TaskDelivered, AutoReleaseAt: &hour, ReleaseDue: true, SellerID: "mem_s"},
		{ID: "tsk_paid", Status: axp.TaskPaid, SellerID: "mem_s"},
		{ID: "tsk_released", Status: axp.TaskReleased, SellerID: "mem_s"},
	}
	return ts, map[string]time.Time{"tsk_open": hour, "tsk_await": day, "tsk_delivered": day}
}

func checkIndexes(t *testing.T, db *store.DB, now time.Time) {
	t.Helper()
	view(t, db, func(tx *store.Tx) error {
		if got := tx.TasksDue(now.Add(2 * time.Hour)); !slices.Equal(got, []string{"tsk_open"}) {
			t.Errorf("due in two hours: %v", got)
		}
		got := tx.TasksDue(now.Add(48 * time.Hour))
		slices.Sort(got)
		if want := []string{"tsk_await", "tsk_delivered", "tsk_open"}; !slices.Equal(got, want) {
			t.Errorf("due in two days: %v, want %v", got, want)
		}
		if got := tx.TasksDue(now); len(got) != 0 {
			t.Errorf("due now: %v", got)
		}
		active := tx.SellerActiveJobIDs("mem_s")
		slices.Sort(active)
		if want := []string{"tsk_delivered", "tsk_due_queued", "tsk_paid"}; !slices.Equal(active, want) {
			t.Errorf("active jobs %v, want %v", active, want)
		}
		var sellers []string
		tx.SellersFor("text-file", func(m *axp.Member) bool { sellers = append(sellers, m.ID); return true })
		if !slices.Equal(sellers, []string{"mem_a", "mem_b"}) {
			t.Errorf("text-file sellers %v", sellers)
		}
		sellers = nil
		tx.SellersFor("video", func(m *axp.Member) bool { sellers = append(sellers, m.ID); return true })
		if !slices.Equal(sellers, []string{"mem_b"}) {
			t.Errorf("video sellers %v", sellers)
		}
		return nil
	})
}

func putIndexed(t *testing.T, db *store.DB, now time.Time) {
	t.Helper()
	ts, _ := indexedTasks(now)
	update(t, db, func(tx *store.Tx) error {
		for _, r := range ts {
			if err := tx.PutTask(r, ""); err != nil {
				return err
			}
		}
		for _, m := range []*axp.Member{
			{ID: "mem_a", Skills: []axp.Skill{{TaskType: "text-file"}}},
			{ID: "mem_b", Skills: []axp.Skill{{TaskType: "text-file"}, {TaskType: "video"}}},
			{ID: "mem_c", Skills: []axp.Skill{{TaskType: "audio"}}},
		} {
			if err := tx.PutMember(m); err != nil {
				return err
			}
		}
		return nil
	})
}

// TestIndexes: the indexes follow tasks as they change status and deadlines, and members as their
// skills change.
func TestIndexes(t *testing.T) { eachBackend(t, testIndexes) }

func testIndexes(t *testing.T) {
	db := open(t)
	now := time.Now().UTC()
	putIndexed(t, db, now)
	checkIndexes(t, db, now)

	update(t, db, func(tx *store.Tx) error {
		r, _ := tx.Task("tsk_open")
		r.OpenUntil = now.Add(72 * time.Hour) // a new deadline replaces the old
		if err := tx.PutTask(r, axp.TaskOpen); err != nil {
			return err
		}
		r, _ = tx.Task("tsk_paid")
		r.Status = axp.TaskReleased // leaves the active jobs
		if err := tx.PutTask(r, axp.TaskPaid); err != nil {
			return err
		}
		r, _ = tx.Task("tsk_await")
		r.TxHash = "0xdef" // a reported payment is not the sweeper's
		if err := tx.PutTask(r, r.Status); err != nil {
			return err
		}
		if err := tx.DropSellerJob("mem_s", "tsk_delivered"); err != nil {
			return err
		}
		m, _ := tx.Member("mem_b")
		m.Skills = []axp.Skill{{TaskType: "video"}}
		return tx.PutMember(m)
	})
	view(t, db, func(tx *store.Tx) error {
		got := tx.TasksDue(now.Add(48 * time.Hour))
		if !slices.Equal(got, []string{"tsk_delivered"}) {
			t.Errorf("due in two days after the changes: %v", got)
		}
		if got := tx.TasksDue(now.Add(73 * time.Hour)); !slices.Equal(got, []string{"tsk_delivered", "tsk_open"}) {
			t.Errorf("due in 73 h: %v", got)
		}
		if got := tx.SellerActiveJobIDs("mem_s"); !slices.Equal(got, []string{"tsk_due_queued"}) {
			t.Errorf("active jobs after the changes: %v", got)
		}
		var sellers []string
		tx.SellersFor("text-file", func(m *axp.Member) bool { sellers = append(sellers, m.ID); return true })
		if !slices.Equal(sellers, []string{"mem_a"}) {
			t.Errorf("text-file sellers after mem_b dropped the skill: %v", sellers)
		}
		return nil
	})
}

// TestMigrateToIndexes opens a database as version 8 wrote it (no index buckets) and checks that
// migration 11 fills the indexes from the records.
func TestMigrateToIndexes(t *testing.T) {
	path := filepath.Join(t.TempDir(), store.FileName)
	db, err := store.Open(path, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now().UTC()
	putIndexed(t, db, now)
	db.Close()
	downgrade(t, path, 8, "task_due", "task_due_at", "skill_sellers", "seller_active")
	db, err = store.Open(path, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if v, err := db.Version(); err != nil || v != store.SchemaVersion || v < 11 {
		t.Fatalf("version after migration %d %v", v, err)
	}
	checkIndexes(t, db, now)
}
