package daemon_test

import (
	"context"
	"testing"

	"github.com/axp-exchange/axp"
	"github.com/axp-exchange/axp/client"
	"github.com/axp-exchange/axp/contract"
)

func TestAdminTaskTimeline(t *testing.T) {
	e := newMarket(t)
	seller := e.instantSeller("text-file", "0", 5, nil, map[string]any{"payment_methods": []string{"crypto", "free"}})
	created, _ := createTask(t, e.anon, map[string]any{"type": "text-file", "payment_method": "free", "params": map[string]any{"prompt": "a haiku"}})
	buyer := e.anon.With(created.BuyerToken)
	callOp(t, buyer, contract.ChooseOffer, axp.ChooseInput{TaskRef: axp.TaskRef{ID: created.ID}, OfferID: created.Offers[0].OfferID})
	deliverText(t, seller.c, created.ID, "rain\n")
	retrieve(t, buyer, created.ID)
	callOp(t, buyer, contract.AcceptTask, axp.AcceptInput{TaskRef: axp.TaskRef{ID: created.ID}})

	var tl axp.AdminTimeline
	tl = *callOp(t, e.admin, contract.AdminTaskTimeline, axp.IDPath{ID: created.ID})
	kinds := map[string]int{}
	for i, r := range tl.Rows {
		kinds[r.Kind]++
		if i > 0 && r.At.Before(tl.Rows[i-1].At) {
			t.Fatalf("rows out of time order at %d: %v after %v", i, r.At, tl.Rows[i-1].At)
		}
	}
	if kinds["event"] < 5 || kinds["audit"] < 5 || kinds["request"] < 4 {
		t.Errorf("timeline kinds %v: want events, audit records and requests of create, choose, deliver, retrieve and accept", kinds)
	}
	if err := e.anon.Call(context.Background(), "admin_task_timeline", map[string]any{"id": created.ID}, nil); !client.IsCode(err, axp.CodeUnauthorized) {
		t.Errorf("without the admin token: %v", err)
	}
	if err := e.admin.Call(context.Background(), "admin_task_timeline", map[string]any{"id": "tsk_none"}, nil); !client.IsCode(err, axp.CodeNotFound) {
		t.Errorf("unknown task: %v", err)
	}
}
