package store_test

import (
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/axp-exchange/axp"
	"github.com/axp-exchange/axp/store"
)

func putIndexed12(t *testing.T, db *store.DB, now time.Time) {
	t.Helper()
	update(t, db, func(tx *store.Tx) error {
		for _, r := range []*axp.TaskRecord{
			{ID: "tsk_1", Type: "text-file", Status: axp.TaskOpen},
			{ID: "tsk_2", Type: "video", Status: axp.TaskOpen},
			{ID: "tsk_3", Type: "text-file", Status: axp.TaskOpen},
			{ID: "tsk_4", Type: "text-file", Status: axp.TaskReleased},
			{ID: "tsk_pay1", Type: "text-file", Status: axp.TaskAwaitingPayment, Payable: 4_500_017},
			{ID: "tsk_pay2", Type: "text-file", Status: axp.TaskAwaitingPayment, Payable: 2_000_017},
			{ID: "tsk_pay3", Type: "text-file", Status: axp.TaskAwaitingPayment, Payable: 4_500_018},
			{ID: "tsk_paid", Type: "text-file", Status: axp.TaskPaid, Payable: 4_500_017},
		} {
			if err := tx.PutTask(r, ""); err != nil {
				return err
			}
		}
		for _, m := range []*axp.Member{
			{ID: "mem_a", Roles: []string{"seller"}, State: axp.MemberVerified, LastSeenAt: now.Add(-48 * time.Hour), Skills: []axp.Skill{{TaskType: "text-file"}}},
			{ID: "mem_b", Roles: []string{"seller"}, State: axp.MemberVerified, LastSeenAt: now.Add(-time.Hour)},
			{ID: "mem_c", Roles: []string{"buyer"}, State: axp.MemberRegistered, LastSeenAt: now.Add(-72 * time.Hour)},
		} {
			if err := tx.PutMember(m); err != nil {
				return err
			}
		}
		return nil
	})
}

func openIDs(tx *store.Tx, typ string) []string {
	var ids []string
	tx.OpenTaskIDs(typ, func(id string) bool { ids = append(ids, id); return true })
	return ids
}

func seenBefore(tx *store.Tx, at time.Time) []string {
	var ids []string
	tx.VerifiedSeenBefore(at, func(m *axp.Member) bool { ids = append(ids, m.ID); return true })
	return ids
}

func checkIndexes12(t *testing.T, db *store.DB, now time.Time) {
	t.Helper()
	view(t, db, func(tx *store.Tx) error {
		if got := openIDs(tx, "text-file"); !slices.Equal(got, []string{"tsk_1", "tsk_3"}) {
			t.Errorf("open text-file tasks %v", got)
		}
		exact, tagged := tx.PayableTaskIDs(4_500_017)
		if !slices.Equal(exact, []string{"tsk_pay1"}) || !slices.Equal(tagged, []string{"tsk_pay2"}) {
			t.Errorf("payable 4.500017: exact %v, tagged %v", exact, tagged)
		}
		if got := tx.MemberIDsByState(axp.MemberVerified); !slices.Equal(got, []string{"mem_a", "mem_b"}) {
			t.Errorf("verified members %v", got)
		}
		if got := seenBefore(tx, now.Add(-24*time.Hour)); !slices.Equal(got, []string{"mem_a"}) {
			t.Errorf("verified members unseen for a day %v", got)
		}
		return nil
	})
}

// TestIndexes12: open tasks by type, tasks awaiting payment by amount, members by state and last
// seen follow their records, and the offer revision moves only when what verified sellers offer
// changes.
func TestIndexes12(t *testing.T) { eachBackend(t, testIndexes12) }

func testIndexes12(t *testing.T) {
	db := open(t)
	now := time.Now().UTC()
	putIndexed12(t, db, now)
	checkIndexes12(t, db, now)
	var rev uint64
	view(t, db, func(tx *store.Tx) error { rev = tx.OfferRev(); return nil })
	revAfter := func(what string, change func(tx *store.Tx) error, moves bool) {
		t.Helper()
		update(t, db, change)
		view(t, db, func(tx *store.Tx) error {
			if got := tx.OfferRev(); (got != rev) != moves {
				t.Errorf("%s: offer revision %d -> %d", what, rev, got)
			}
			rev = tx.OfferRev()
			return nil
		})
	}
	member := func(id string, fn func(m *axp.Member)) func(tx *store.Tx) error {
		return func(tx *store.Tx) error {
			m, _ := tx.Member(id)
			fn(m)
			return tx.PutMember(m)
		}
	}
	revAfter("a heartbeat", member("mem_a", func(m *axp.Member) { m.LastSeenAt = now }), false)
	revAfter("a new unverified seller", func(tx *store.Tx) error {
		return tx.PutMember(&axp.Member{ID: "mem_d", Roles: []string{"seller"}, State: axp.MemberRegistered, Skills: []axp.Skill{{TaskType: "video"}}})
	}, false)
	revAfter("a verification", member("mem_d", func(m *axp.Member) { m.State = axp.MemberVerified }), true)
	revAfter("a skill change", member("mem_b", func(m *axp.Member) { m.Skills = []axp.Skill{{TaskType: "audio"}} }), true)
	revAfter("a buyer's change", member("mem_c", func(m *axp.Member) { m.Name = "renamed" }), false)
	revAfter("a seller unreachable", member("mem_b", func(m *axp.Member) { m.State = axp.MemberUnreachable }), true)

	update(t, db, func(tx *store.Tx) error {
		r, _ := tx.Task("tsk_1")
		r.Status = axp.TaskAwaitingPayment
		r.Payable = 3_000_017
		if err := tx.PutTask(r, axp.TaskOpen); err != nil {
			return err
		}
		r, _ = tx.Task("tsk_pay1")
		r.Payable = 1_000_018 // a partial payment: the rest, under a new amount
		return tx.PutTask(r, r.Status)
	})
	view(t, db, func(tx *store.Tx) error {
		if got := openIDs(tx, "text-file"); !slices.Equal(got, []string{"tsk_3"}) {
			t.Errorf("open text-file tasks after one was chosen %v", got)
		}
		exact, tagged := tx.PayableTaskIDs(4_500_017)
		slices.Sort(tagged)
		if len(exact) != 0 || !slices.Equal(tagged, []string{"tsk_1", "tsk_pay2"}) {
			t.Errorf("payable 4.500017 after the changes: exact %v, tagged %v", exact, tagged)
		}
		if exact, _ := tx.PayableTaskIDs(1_000_018); !slices.Equal(exact, []string{"tsk_pay1"}) {
			t.Errorf("payable 1.000018: %v", exact)
		}
		if got := tx.MemberIDsByState(axp.MemberVerified); !slices.Equal(got, []string{"mem_a", "mem_d"}) {
			t.Errorf("verified members after the changes %v", got)
		}
		if got := seenBefore(tx, now.Add(-24*time.Hour)); len(got) != 1 || got[0] != "mem_d" {
			t.Errorf("verified members unseen for a day after the changes %v", got)
		}
		return nil
	})
}

// TestMigrateToIndexes12 opens a database as version 11 wrote it and checks that migration 12 fills
// the indexes from the records.
func TestMigrateToIndexes12(t *testing.T) {
	path := filepath.Join(t.TempDir(), store.FileName)
	db, err := store.Open(path, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now().UTC()
	putIndexed12(t, db, now)
	db.Close()
	downgrade(t, path, 11, "open_by_type", "payable", "payable_at", "member_state", "members_seen")
	db, err = store.Open(path, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if v, err := db.Version(); err != nil || v != store.SchemaVersion {
		t.Fatalf("version after migration %d %v", v, err)
	}
	checkIndexes12(t, db, now)
}
