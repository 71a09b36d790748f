package tasks

import (
	"context"
	"strings"
	"time"

	"github.com/axp-exchange/axp"
	"github.com/axp-exchange/axp/daemon/kernel"
	"github.com/axp-exchange/axp/daemon/pipeline"
	"github.com/axp-exchange/axp/store"
)

// adminTasks lists every task, newest first, for the operator. The filters are read from each
// stored task while walking the tasks bucket backwards; since stops the walk, as ids sort in the
// order tasks were made.
func (s *Service) adminTasks(ctx context.Context, c *pipeline.Call, in *axp.AdminTasksQuery) (*axp.AdminTaskList, error) {
	if in.Cursor != "" && !strings.HasPrefix(in.Cursor, "tsk_") {
		return nil, axp.Invalid("cursor", "is not a cursor of this list", "pass the next_cursor of the previous page, or leave it out")
	}
	var since time.Time
	if in.Since != "" {
		var err error
		if since, err = time.Parse(time.RFC3339, in.Since); err != nil {
			return nil, axp.Invalid("since", "is not an RFC 3339 time", "e.g. 2026-01-02T15:04:05Z")
		}
	}
	limit := in.Limit
	if limit <= 0 {
		limit = axp.AdminTasksPageDefault
	}
	limit = min(limit, axp.AdminTasksPageMax)
	out := &axp.AdminTaskList{Tasks: []axp.AdminTaskRow{}}
	err := s.base.Store.View(func(tx *store.Tx) error {
		return tx.TasksNewestFirst(in.Cursor, func(t *axp.TaskRecord) (bool, error) {
			if !since.IsZero() && t.CreatedAt.Before(since) {
				return false, nil
			}
			if (in.Status != "" && t.Status != in.Status) || (in.Type != "" && t.Type != in.Type) ||
				(in.Member != "" && t.BuyerMemberID != in.Member && t.SellerID != in.Member) {
				return true, nil
			}
			if len(out.Tasks) == limit {
				out.NextCursor = out.Tasks[limit-1].ID
				return false, nil
			}
			out.Tasks = append(out.Tasks, adminTaskRow(t))
			return true, nil
		})
	})
	return out, err
}

func adminTaskRow(t *axp.TaskRecord) axp.AdminTaskRow {
	r := axp.AdminTaskRow{ID: t.ID, Type: t.Type, Status: t.Status, Buyer: t.BuyerMemberID, SellerID: t.SellerID,
		SellerName: t.SellerName, CreatedAt: t.CreatedAt, UpdatedAt: t.UpdatedAt}
	if r.Buyer == "" {
		r.Buyer = "token"
	}
	if t.SellerID != "" {
		price := t.Price
		r.Price = &price
	}
	return r
}

// adminTask answers any task as its buyer sees it, for the operator.
func (s *Service) adminTask(ctx context.Context, c *pipeline.Call, in *axp.IDPath) (*axp.Task, error) {
	var out axp.Task
	err := s.base.Store.View(func(tx *store.Tx) error {
		t, err := kernel.LoadTask(tx, in.ID)
		if err != nil {
			return err
		}
		out, err = s.View(tx, t, c.Caller, kernel.ViewBuyer)
		out.AlsoSell, out.NextSteps = nil, nil
		return err
	})
	return &out, err
}
