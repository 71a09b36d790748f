package store_test

import (
	"testing"

	"github.com/axp-exchange/axp"
	"github.com/axp-exchange/axp/store"
)

// TestTaskSince: a task the owner check read is taken by the next transaction without decoding
// while its stored bytes are unchanged, once; a task changed in between is read afresh.
func TestTaskSince(t *testing.T) { eachBackend(t, testTaskSince) }

func testTaskSince(t *testing.T) {
	db := open(t)
	id := axp.NewID("tsk", t0)
	put := func(status, prev string) {
		update(t, db, func(tx *store.Tx) error {
			return tx.PutTask(&axp.TaskRecord{ID: id, Type: "text-file", Status: status, CreatedAt: t0}, prev)
		})
	}
	put(axp.TaskOpen, "")

	var seen store.TaskSeen
	var first *axp.TaskRecord
	view(t, db, func(tx *store.Tx) (err error) { first, err = tx.SeeTask(id, &seen); return err })
	if first == nil || first.Status != axp.TaskOpen {
		t.Fatalf("SeeTask = %+v", first)
	}
	update(t, db, func(tx *store.Tx) error {
		got, err := tx.TaskSince(id, &seen)
		if err != nil || got != first {
			t.Errorf("TaskSince of an unchanged task = %p, %v; want the record seen (%p)", got, err, first)
		}
		again, err := tx.TaskSince(id, &seen)
		if err != nil || again == nil || again == first || again.Status != axp.TaskOpen {
			t.Errorf("TaskSince gave the record seen twice (%p, %v)", again, err)
		}
		return nil
	})

	view(t, db, func(tx *store.Tx) (err error) { first, err = tx.SeeTask(id, &seen); return err })
	put(axp.TaskCancelled, axp.TaskOpen)
	view(t, db, func(tx *store.Tx) error {
		got, err := tx.TaskSince(id, &seen)
		if err != nil || got == first || got.Status != axp.TaskCancelled {
			t.Errorf("TaskSince of a changed task = %+v, %v; want it read afresh", got, err)
		}
		return nil
	})

	view(t, db, func(tx *store.Tx) error {
		if got, err := tx.SeeTask("tsk_nobody", &seen); got != nil || err != nil {
			t.Errorf("SeeTask of no task = %+v, %v", got, err)
		}
		if got, err := tx.TaskSince("tsk_nobody", &seen); got != nil || err != nil {
			t.Errorf("TaskSince of no task = %+v, %v", got, err)
		}
		return nil
	})
}
