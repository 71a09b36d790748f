package api_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/axp-exchange/axp"
	"github.com/axp-exchange/axp/api"
	"github.com/axp-exchange/axp/contract"
)

// TestCall: Call, Do and URL take the operation's declaration, whose types they take on.
func TestCall(t *testing.T) {
	f, c := newFake(t)
	ctx := context.Background()

	// Typed input: path params, zero values the tags keep (accept: false), a decoded answer and the
	// body as it came.
	f.body = `{"settlement_id":"stl_1","refund_pct":30,"status":"rejected"}`
	s, raw, err := api.Call(ctx, c, contract.AnswerSettlement, axp.SettlementAnswer{TaskRef: axp.TaskRef{ID: "tsk_1"}, SettlementID: "stl_1"})
	if err != nil || s.ID != "stl_1" || s.RefundPct != 30 || string(raw) != f.body {
		t.Fatalf("answer_settlement: %v %+v %s", err, s, raw)
	}
	if r := f.last(t); r.Method != "POST" || r.Path != "/api/tasks/tsk_1/settlement/stl_1" || r.Body != `{"accept":false}` {
		t.Fatalf("request %+v", r)
	}
	// A query input leaves out empty optional fields.
	f.body = `{"id":"tsk_1"}`
	if _, _, err := api.Call(ctx, c, contract.GetTask, axp.TaskQuery{TaskRef: axp.TaskRef{ID: "tsk_1"}}); err != nil {
		t.Fatal(err)
	}
	if r := f.last(t); r.Path != "/api/tasks/tsk_1" || r.Query != "" {
		t.Fatalf("get_task %+v", r)
	}
	// No input: no body, no query. The GET form on request.
	f.body = `{"services":[]}`
	if _, _, err := api.Call(ctx, c, contract.ListServices, contract.NoInput{}); err != nil {
		t.Fatal(err)
	}
	if r := f.last(t); r.Method != "GET" || r.Path != "/api/services" || r.Query != "" || r.Body != "" {
		t.Fatalf("list_services %+v", r)
	}
	f.body = `{"id":"tsk_1"}`
	if _, _, err := api.Call(ctx, c, contract.ChooseOffer, axp.ChooseInput{TaskRef: axp.TaskRef{ID: "tsk_1", Token: "bt_x"}, OfferID: "off_1"}, api.Options{GET: true}); err != nil {
		t.Fatal(err)
	}
	if r := f.last(t); r.Method != "GET" || r.Path != "/api/tasks/tsk_1/choose" || r.Query != "offer_id=off_1&token=bt_x" {
		t.Fatalf("GET form %+v", r)
	}

	// A document is the body as it is, with its content type, file name and the headers the
	// operation declares; Do keeps all the headers.
	f.body, f.header = "hello\n", map[string][]string{"X-Content-Sha256": {"abc"}, "Content-Type": {"text/plain"},
		"Content-Disposition": {`attachment; filename="poem.txt"`}, "X-Other": {"x"}}
	d, raw, err := api.Call(ctx, c, contract.GetDeliverable, axp.TaskRef{ID: "tsk_1"})
	if err != nil || string(d.Body) != "hello\n" || string(raw) != "hello\n" || d.ContentType != "text/plain" || d.Filename != "poem.txt" ||
		len(d.Header) != 1 || d.Header["X-Content-SHA256"] != "abc" {
		t.Fatalf("document: %v %+v %q", err, d, raw)
	}
	if r := f.last(t); r.Path != "/api/tasks/tsk_1/deliverable" || r.Header.Get("Accept") != "" {
		t.Fatalf("document request %+v", r)
	}
	resp, err := api.Do(ctx, c, contract.GetDeliverable, axp.TaskRef{ID: "tsk_1"})
	if err != nil || resp.Header.Get("X-Content-SHA256") != "abc" {
		t.Fatalf("Do: %v %+v", err, resp)
	}
	f.header = nil
	f.body = "# Join\n"
	if j, _, err := api.Call(ctx, c, contract.GetJoin, contract.NoInput{}); err != nil || string(j.Body) != "# Join\n" || j.Filename != "" || j.Header != nil {
		t.Fatalf("get_join: %v %+v", err, j)
	}

	// URL: the address of the call, path parameters filled in and a query input on the query string.
	u, err := api.URL(c, contract.GetTask, axp.TaskQuery{TaskRef: axp.TaskRef{ID: "tsk 1", Token: "bt_x"}})
	if want := strings.TrimRight(c.BaseURL, "/") + "/api/tasks/tsk%201?token=bt_x"; err != nil || u != want {
		t.Fatalf("URL = %q %v, want %q", u, err, want)
	}

	// A body that does not decode names the operation; an error body is an *axp.Error.
	f.body = "not json"
	if _, _, err := api.Call(ctx, c, contract.GetPricing, contract.NoInput{}); err == nil || !strings.Contains(err.Error(), "get_pricing") {
		t.Fatalf("bad body: %v", err)
	}
	f.status, f.body = 404, `{"error":{"code":"not_found","message":"task tsk_9 does not exist"}}`
	_, raw, err = api.Call(ctx, c, contract.GetTask, axp.TaskQuery{TaskRef: axp.TaskRef{ID: "tsk_9"}})
	var e *axp.Error
	if !errors.As(err, &e) || e.Code != axp.CodeNotFound || raw != nil {
		t.Fatalf("error answer: %v %s", err, raw)
	}
}
