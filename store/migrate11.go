package store

import (
	"fmt"

	"github.com/axp-exchange/axp"
	bolt "go.etcd.io/bbolt"
)

// migrateIndexes (schema 11) creates the indexes of tasks by sweep deadline, of sellers by the task
// types of their skills and of sellers' active jobs, and fills them from the records: only the tasks
// in the statuses concerned are read (through the status index), and every member once.
func migrateIndexes(btx *bolt.Tx) error {
	for _, b := range [][]byte{bTaskDue, bTaskDueAt, bSkillSellers, bSellerActive} {
		if _, err := btx.CreateBucketIfNotExists(b); err != nil {
			return fmt.Errorf("create bucket %s: %w", b, err)
		}
	}
	tx := &Tx{tx: btx}
	for _, status := range axp.TaskStatuses {
		swept := status == axp.TaskOpen || status == axp.TaskAwaitingPayment || status == axp.TaskDelivered
		if !swept && !axp.ActiveJob(status) {
			continue
		}
		for _, id := range tx.TaskIDsByStatus(status) {
			r, err := tx.Task(id)
			if err != nil {
				return err
			}
			if r == nil {
				continue
			}
			if err := tx.indexDue(r); err != nil {
				return err
			}
			if r.SellerID != "" && axp.ActiveJob(r.Status) {
				if err := tx.bucket(bSellerActive).Put(pair(r.SellerID, r.ID), nil); err != nil {
					return err
				}
			}
		}
	}
	c := btx.Bucket(bMembers).Cursor()
	for k, raw := c.First(); k != nil; k, raw = c.Next() {
		var m axp.Member
		if err := decode(raw, &m); err != nil {
			return fmt.Errorf("decode member %s: %w", k, err)
		}
		for _, s := range m.Skills {
			if err := tx.bucket(bSkillSellers).Put(pair(s.TaskType, m.ID), nil); err != nil {
				return err
			}
		}
	}
	return nil
}
