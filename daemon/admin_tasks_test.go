package daemon_test

import (
	"context"
	"testing"
	"time"

	"github.com/axp-exchange/axp"
	"github.com/axp-exchange/axp/client"
	"github.com/axp-exchange/axp/contract"
)

func TestAdminTasksListAndView(t *testing.T) {
	e := newMarket(t)
	seller := e.instantSeller("text-file", "0", 5, nil, map[string]any{"payment_methods": []string{"crypto", "free"}})
	first, _ := createTask(t, e.anon, map[string]any{"type": "text-file", "payment_method": "free", "params": map[string]any{"prompt": "a haiku"}})
	callOp(t, e.anon.With(first.BuyerToken), contract.ChooseOffer, axp.ChooseInput{TaskRef: axp.TaskRef{ID: first.ID}, OfferID: first.Offers[0].OfferID})
	second, _ := createTask(t, e.anon, map[string]any{"type": "text-file", "payment_method": "free", "params": map[string]any{"prompt": "a limerick"}})
	third, _ := createTask(t, e.anon, map[string]any{"type": "text-file", "payment_method": "free", "params": map[string]any{"prompt": "an ode"}})

	ids := func(l axp.AdminTaskList) []string {
		var out []string
		for _, r := range l.Tasks {
			out = append(out, r.ID)
		}
		return out
	}
	var all axp.AdminTaskList
	all = *callOp(t, e.admin, contract.AdminTasks, axp.AdminTasksQuery{})
	if got := ids(all); len(got) != 3 || got[0] != third.ID || got[1] != second.ID || got[2] != first.ID || all.NextCursor != "" {
		t.Fatalf("every task, newest first: %v (next %q)", got, all.NextCursor)
	}
	var page axp.AdminTaskList
	page = *callOp(t, e.admin, contract.AdminTasks, axp.AdminTasksQuery{Limit: 2})
	if got := ids(page); len(got) != 2 || got[0] != third.ID || page.NextCursor != second.ID {
		t.Fatalf("first page of 2: %v (next %q)", got, page.NextCursor)
	}
	var rest axp.AdminTaskList
	rest = *callOp(t, e.admin, contract.AdminTasks, axp.AdminTasksQuery{Limit: 2, Cursor: page.NextCursor})
	if got := ids(rest); len(got) != 1 || got[0] != first.ID || rest.NextCursor != "" {
		t.Fatalf("second page: %v (next %q)", got, rest.NextCursor)
	}

	var mine axp.AdminTaskList
	mine = *callOp(t, e.admin, contract.AdminTasks, axp.AdminTasksQuery{Member: seller.MemberID})
	if got := ids(mine); len(got) != 1 || got[0] != first.ID || mine.Tasks[0].SellerID != seller.MemberID || mine.Tasks[0].Price == nil || mine.Tasks[0].Buyer != "token" {
		t.Fatalf("the seller's tasks: %+v", mine.Tasks)
	}
	var byStatus axp.AdminTaskList
	byStatus = *callOp(t, e.admin, contract.AdminTasks, axp.AdminTasksQuery{Status: mine.Tasks[0].Status})
	if got := ids(byStatus); len(got) != 1 || got[0] != first.ID {
		t.Fatalf("status %s: %v", mine.Tasks[0].Status, got)
	}
	var none axp.AdminTaskList
	none = *callOp(t, e.admin, contract.AdminTasks, axp.AdminTasksQuery{Type: "video"})
	var later axp.AdminTaskList
	later = *callOp(t, e.admin, contract.AdminTasks, axp.AdminTasksQuery{Since: time.Now().Add(time.Hour).UTC().Format(time.RFC3339)})
	if len(none.Tasks) != 0 || len(later.Tasks) != 0 {
		t.Fatalf("another type: %v; created after an hour from now: %v", ids(none), ids(later))
	}
	if err := e.admin.Call(context.Background(), "admin_tasks", map[string]any{"since": "yesterday"}, nil); !client.IsCode(err, axp.CodeInvalidInput) {
		t.Errorf("since not a time: %v", err)
	}

	var v axp.Task
	v = *callOp(t, e.admin, contract.AdminTask, axp.IDPath{ID: first.ID})
	if v.ID != first.ID || v.Seller == nil || v.Seller.ID != seller.MemberID || v.AlsoSell != nil {
		t.Fatalf("the operator's view: %+v", v)
	}
	for _, op := range []string{"admin_tasks", "admin_task"} {
		if err := e.anon.With(first.BuyerToken).Call(context.Background(), op, map[string]any{"id": first.ID}, nil); !client.IsCode(err, axp.CodeUnauthorized) {
			t.Errorf("%s with the buyer token: %v", op, err)
		}
	}
	if err := e.admin.Call(context.Background(), "admin_task", map[string]any{"id": "tsk_none"}, nil); !client.IsCode(err, axp.CodeNotFound) {
		t.Errorf("unknown task: %v", err)
	}
}
