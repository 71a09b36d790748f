package tasks_test

import (
	"context"
	"strings"
	"testing"

	"github.com/axp-exchange/axp"
	"github.com/axp-exchange/axp/daemon/kernel"
	"github.com/axp-exchange/axp/daemon/kernel/kerneltest"
	"github.com/axp-exchange/axp/daemon/tasks"
	"github.com/axp-exchange/axp/protocol"
	"github.com/axp-exchange/axp/store"
)

// accepted stores a task its buyer member accepted from seller, with a callback URL.
func accepted(t *testing.T, f *kerneltest.Fixture, id, buyer, seller string, disputed bool) *axp.TaskRecord {
	t.Helper()
	task := &axp.TaskRecord{ID: id, Type: "text-file", Status: axp.TaskAccepted, BuyerMemberID: buyer, SellerID: seller,
		CallbackURL: "https://buyer.example/hook", Disputed: disputed, CreatedAt: f.K.Now()}
	task.Deliveries = []axp.Delivery{{SHA256: "ab12", Note: "the haiku"}}
	f.Update(t, func(tx *store.Tx) error { return tx.PutTask(task, "") })
	return task
}

func TestFinishReleasesCountsEmitsAndNotifies(t *testing.T) {
	f := kerneltest.New(t)
	life := tasks.NewLifecycle(f.K.Base(), f.K)
	var finished []string
	kernel.On(f.K.Base(), func(ch *kernel.Change, e kernel.TaskFinished) error {
		finished = append(finished, e.Task.ID+":"+e.Task.Status)
		return nil
	})
	buyer, _ := f.AddMember(t, axp.Registration{Roles: []string{"buyer"}, Name: "Tide Buyer"})
	seller, _ := f.AddMember(t, axp.Registration{Roles: []string{"seller"}, Name: "Tide Reader"})
	finish := func(task *axp.TaskRecord, tr axp.Trigger) error {
		_, err := f.K.Mutate(context.Background(), "operator", func(ch *kernel.Change) (any, error) {
			cur, err := kernel.LoadTask(ch.Tx, task.ID)
			if err != nil {
				return nil, err
			}
			return nil, life.Finish(ch, cur, tr, "release", map[string]any{"approval": "apr_1"})
		})
		return err
	}

	task := accepted(t, f, "tsk_1", buyer.MemberID, seller.MemberID, false)
	if err := finish(task, axp.TrigRelease); err != nil {
		t.Fatal(err)
	}
	var stats *axp.SellerStats
	var events []axp.Event
	f.View(t, func(tx *store.Tx) (err error) {
		if task, err = tx.Task("tsk_1"); err != nil {
			return err
		}
		if stats, err = tx.SellerStats(seller.MemberID); err != nil {
			return err
		}
		events, err = tx.Events("tsk_1")
		return err
	})
	if task.Status != axp.TaskReleased || stats.Completed != 1 {
		t.Fatalf("status %s, completed jobs %d", task.Status, stats.Completed)
	}
	if last := events[len(events)-1]; last.Kind != "release" || last.Status != axp.TaskReleased || last.Detail["approval"] != "apr_1" {
		t.Errorf("timeline's last event %+v", last)
	}
	if len(finished) != 1 || finished[0] != "tsk_1:"+axp.TaskReleased {
		t.Errorf("TaskFinished seen %q", finished)
	}
	var to []string
	for _, n := range f.Sent() {
		p, ok := n.Msg.(kernel.Push)
		if !ok || n.TaskID != "tsk_1" {
			t.Errorf("unexpected notice %+v", n)
			continue
		}
		in, _ := p.In.(protocol.TaskUpdateInput)
		if cb, ok := p.In.(map[string]any); ok {
			in, _ = cb["task_update"].(protocol.TaskUpdateInput)
		}
		if in.Status != axp.TaskReleased || in.Deliverable == nil || !strings.HasSuffix(in.Deliverable.URL, "/api/tasks/tsk_1/deliverable") ||
			in.Deliverable.SHA256 != "ab12" {
			t.Errorf("task_update to %q%q: %+v", n.MemberID, n.CallbackURL, in)
		}
		to = append(to, n.MemberID+n.CallbackURL)
	}
	if strings.Join(to, " ") != buyer.MemberID+" "+seller.MemberID+" https://buyer.example/hook" {
		t.Errorf("notices went to %q", to)
	}

	// A disputed task's release is no completed job; a move the machine refuses changes nothing.
	accepted(t, f, "tsk_2", buyer.MemberID, seller.MemberID, true)
	if err := finish(&axp.TaskRecord{ID: "tsk_2"}, axp.TrigRelease); err != nil {
		t.Fatal(err)
	}
	if err := finish(&axp.TaskRecord{ID: "tsk_2"}, axp.TrigRefund); err == nil {
		t.Error("a released task was refunded")
	}
	f.View(t, func(tx *store.Tx) (err error) { stats, err = tx.SellerStats(seller.MemberID); return err })
	if stats.Completed != 1 || len(finished) != 2 {
		t.Errorf("completed jobs %d, TaskFinished seen %q", stats.Completed, finished)
	}
}

func TestDoTaskNoticeCallsTheSellerWithTheBrief(t *testing.T) {
	f := kerneltest.New(t, func(c *kernel.Config) { c.BaseURL = "https://axp.example" })
	life := tasks.NewLifecycle(f.K.Base(), f.K)
	task := &axp.TaskRecord{ID: "tsk_1", Type: "text-file", Description: "a haiku", Price: axp.USD(2, 0), ETAMinutes: 30}
	n := life.DoTaskNotice(task, &axp.Member{ID: "mem_1"})
	call, ok := n.Msg.(kernel.DoTask)
	if !ok || n.MemberID != "mem_1" || n.TaskID != "tsk_1" {
		t.Fatalf("notice %+v", n)
	}
	if call.In.DeliverURL != "https://axp.example/api/members/me/jobs/tsk_1/deliver" || call.In.PriceUSD != axp.USD(2, 0) ||
		call.In.TaskType != "text-file" || call.In.ETAMinutes != 30 {
		t.Errorf("do_task input %+v", call.In)
	}
}
