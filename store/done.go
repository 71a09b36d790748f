package store

import (
	"time"

	"github.com/axp-exchange/axp"
)

// Jobs done (schema 15): tasks_done keys a task by when its job was done, so that the jobs done
// since a time (the front door's jobs done today) are counted from keys alone, without reading a
// task. A job is done when the task becomes accepted (the buyer, or the operator on the buyer's
// behalf, accepted the delivery) or released from a dispute settled with the seller paid; a task
// accepted and then released counts once, when it was accepted.

// jobDone reports whether a task in status has its job done.
func jobDone(status string) bool { return status == axp.TaskAccepted || status == axp.TaskReleased }

// doneKey is a task's key in tasks_done: the time of its last change, then its id.
func doneKey(r *axp.TaskRecord) []byte {
	return append(u64(uint64(max(r.UpdatedAt.UnixNano(), 0))), r.ID...)
}

// indexDone records a task whose job became done: its status is done and prev (the status it was
// loaded with, "" for a new task) was not. Test tasks are not the market's jobs.
func (t *Tx) indexDone(r *axp.TaskRecord, prev string) error {
	if !jobDone(r.Status) || jobDone(prev) || r.Test {
		return nil
	}
	return t.bucket(bTasksDone).Put(doneKey(r), nil)
}

// TasksDoneSince counts the tasks whose job was done at or after since.
func (t *Tx) TasksDoneSince(since time.Time) int {
	n := 0
	c := t.bucket(bTasksDone).Cursor()
	for k, _ := c.Seek(u64(uint64(max(since.UnixNano(), 0)))); k != nil; k, _ = c.Next() {
		n++
	}
	return n
}

// migrateDone (schema 15) creates tasks_done and files the tasks whose job is already done, each
// under the time of its last change (when it was accepted, or released after that).
func migrateDone(tx *Tx) error {
	if err := tx.createBucket(bTasksDone); err != nil {
		return err
	}
	for _, status := range []string{axp.TaskAccepted, axp.TaskReleased} {
		for _, id := range tx.TaskIDsByStatus(status) {
			r, err := tx.Task(id)
			if err != nil {
				return err
			}
			if r == nil || r.Test {
				continue
			}
			if err := tx.bucket(bTasksDone).Put(doneKey(r), nil); err != nil {
				return err
			}
		}
	}
	return nil
}
