package store_test

import (
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/axp-exchange/axp"
	"github.com/axp-exchange/axp/store"
)

// putDone stores tasks whose jobs were done yesterday and today (accepted, released from accepted,
// released from a settled dispute), one refunded, one still delivered.
func putDone(t *testing.T, db *store.DB, midnight time.Time) {
	t.Helper()
	update(t, db, func(tx *store.Tx) error {
		for _, r := range []*axp.TaskRecord{
			{ID: "tsk_yesterday", Status: axp.TaskReleased, UpdatedAt: midnight.Add(-time.Hour)},
			{ID: "tsk_today", Status: axp.TaskAccepted, UpdatedAt: midnight.Add(time.Hour)},
			{ID: "tsk_refunded", Status: axp.TaskRefunded, UpdatedAt: midnight.Add(time.Hour)},
			{ID: "tsk_delivered", Status: axp.TaskDelivered, UpdatedAt: midnight.Add(-2 * time.Hour)},
			{ID: "tsk_disputed", Status: axp.TaskDisputed, UpdatedAt: midnight.Add(-3 * time.Hour)},
		} {
			if err := tx.PutTask(r, ""); err != nil {
				return err
			}
		}
		return nil
	})
}

func doneSince(t *testing.T, db *store.DB, at time.Time) int {
	t.Helper()
	n := 0
	view(t, db, func(tx *store.Tx) error { n = tx.TasksDoneSince(at); return nil })
	return n
}

// move changes a stored task's status at a time, as the daemon saves a transition.
func move(t *testing.T, db *store.DB, id, status string, at time.Time) {
	t.Helper()
	update(t, db, func(tx *store.Tx) error {
		r, err := tx.Task(id)
		if err != nil {
			return err
		}
		prev := r.Status
		r.Status, r.UpdatedAt = status, at
		return tx.PutTask(r, prev)
	})
}

// TestTasksDone: a job counts once, when it became done (accepted, or released from a settled
// dispute); a release after acceptance, a refund or a delivery do not count.
func TestTasksDone(t *testing.T) { eachBackend(t, testTasksDone) }

func testTasksDone(t *testing.T) {
	db := open(t)
	midnight := time.Date(2026, 11, 27, 0, 0, 0, 0, time.UTC)
	putDone(t, db, midnight)
	if n := doneSince(t, db, midnight); n != 1 {
		t.Errorf("done today %d, want 1", n)
	}
	if n := doneSince(t, db, midnight.Add(-24*time.Hour)); n != 2 {
		t.Errorf("done since yesterday %d, want 2", n)
	}
	move(t, db, "tsk_today", axp.TaskReleased, midnight.Add(2*time.Hour))     // paid after acceptance: the same job
	move(t, db, "tsk_delivered", axp.TaskAccepted, midnight.Add(3*time.Hour)) // accepted today
	move(t, db, "tsk_disputed", axp.TaskReleased, midnight.Add(4*time.Hour))  // settled, the seller paid
	move(t, db, "tsk_refunded", axp.TaskRefunded, midnight.Add(5*time.Hour))  // a refund is no job done
	if n := doneSince(t, db, midnight); n != 3 {
		t.Errorf("done today after the changes %d, want 3", n)
	}
	if n := doneSince(t, db, midnight.Add(3*time.Hour+time.Nanosecond)); n != 1 {
		t.Errorf("done after 03:00 %d, want 1", n)
	}
}

// TestMigrateToDone opens a database as version 14 wrote it (no tasks_done) and checks that
// migration 15 files the tasks whose jobs are done, under their last change.
func TestMigrateToDone(t *testing.T) {
	path := filepath.Join(t.TempDir(), store.FileName)
	db, err := store.Open(path, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	midnight := time.Date(2026, 11, 27, 0, 0, 0, 0, time.UTC)
	putDone(t, db, midnight)
	db.Close()
	downgrade(t, path, 14, "tasks_done")
	db, err = store.Open(path, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if v, err := db.Version(); err != nil || v != store.SchemaVersion {
		t.Fatalf("version after migration %d %v", v, err)
	}
	if n, all := doneSince(t, db, midnight), doneSince(t, db, time.Time{}); n != 1 || all != 2 {
		t.Errorf("done today %d (want 1), in all %d (want 2)", n, all)
	}
}

// VerifiedSeenSince lists the verified members seen since a time, the most recent last.
func TestVerifiedSeenSince(t *testing.T) { eachBackend(t, testVerifiedSeenSince) }

func testVerifiedSeenSince(t *testing.T) {
	db := open(t)
	now := time.Now().UTC()
	putIndexed12(t, db, now)
	update(t, db, func(tx *store.Tx) error {
		return tx.PutMember(&axp.Member{ID: "mem_e", Roles: []string{"seller"}, State: axp.MemberVerified, LastSeenAt: now.Add(-time.Minute)})
	})
	var ids []string
	view(t, db, func(tx *store.Tx) error {
		return tx.VerifiedSeenSince(now.Add(-2*time.Hour), func(m *axp.Member) bool { ids = append(ids, m.ID); return true })
	})
	if !slices.Equal(ids, []string{"mem_b", "mem_e"}) {
		t.Errorf("seen in the last two hours %v", ids)
	}
}
