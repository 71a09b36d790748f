package store

import "github.com/axp-exchange/axp"

// migrateIndexes (schema 11) creates the indexes of tasks by sweep deadline, of sellers by the task
// types of their skills and of sellers' active jobs, and fills them from the records: only the tasks
// in the statuses concerned are read (through the status index), and every member once.
func migrateIndexes(tx *Tx) error {
	if err := tx.createBucket(bTaskDue, bTaskDueAt, bSkillSellers, bSellerActive); err != nil {
		return err
	}
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
	return each(tx.bucket(bMembers), false, func(_ []byte, m *axp.Member) (bool, error) {
		for _, s := range m.Skills {
			if err := tx.bucket(bSkillSellers).Put(pair(s.TaskType, m.ID), nil); err != nil {
				return false, err
			}
		}
		return true, nil
	})
}
