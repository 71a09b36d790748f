package api_test

import (
	"bytes"
	"context"
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/axp-exchange/axp"
	"github.com/axp-exchange/axp/api"
	"github.com/axp-exchange/axp/api/internal/opsgen"
)

// TestOpsGenIsCurrent: ops_gen.go, and the client package's copy of its names, are what the
// generator writes from the catalog today.
func TestOpsGenIsCurrent(t *testing.T) {
	for file, gen := range map[string]func([]*axp.Op) ([]byte, error){"ops_gen.go": opsgen.Generate, "../client/ops_gen.go": opsgen.Reexport} {
		want, err := gen(axp.Ops)
		if err != nil {
			t.Fatal(err)
		}
		got, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s is out of date with the catalog (axp.Ops): run `%s` and commit the result", file, opsgen.Command)
		}
	}
}

func TestGoName(t *testing.T) {
	for op, want := range map[string]string{"get_task": "GetTask", "health": "Health", "get_faq_markdown": "GetFAQMarkdown",
		"admin_ai": "AdminAI", "get_openapi": "GetOpenAPI", "create_task_get": "CreateTaskGet"} {
		if got := opsgen.GoName(op); got != want {
			t.Errorf("GoName(%s) = %s, want %s", op, got, want)
		}
	}
}

// TestDefChecksTypes: an endpoint whose name or types disagree with the catalog is refused when it
// is made, before any call.
func TestDefChecksTypes(t *testing.T) {
	panics := func(name string, def func()) {
		t.Helper()
		defer func() {
			r := recover()
			if s, _ := r.(string); !strings.Contains(s, name) {
				t.Errorf("Def of %s: recovered %v", name, r)
			}
		}()
		def()
	}
	panics("get_taks", func() { api.Def[axp.TaskQuery, axp.Task]("get_taks") })
	panics("get_task", func() { api.Def[axp.TaskRef, axp.Task]("get_task") })
	panics("get_task", func() { api.Def[axp.TaskQuery, axp.Offer]("get_task") })
	panics("list_services", func() { api.Def[axp.EmptyInput, axp.ServiceList]("list_services") })
	panics("heartbeat", func() { api.Def[api.None, axp.Heartbeat]("heartbeat") })
	panics("get_pricing", func() { api.Def[api.None, []byte]("get_pricing") })
	// Documents may be read as bytes.
	if e := api.Def[api.None, []byte]("get_join"); e.Name() != "get_join" || e.Op().Path != "/join" {
		t.Errorf("document endpoint %+v", e)
	}
	if api.GetTask.Name() != "get_task" || api.AdminAI.Name() != "admin_ai" {
		t.Errorf("generated endpoints: %s %s", api.GetTask.Name(), api.AdminAI.Name())
	}
}

func TestEndpointCall(t *testing.T) {
	f, c := newFake(t)
	ctx := context.Background()

	// Typed input: path params, zero values the tags keep (accept: false), a decoded answer and the
	// body as it came.
	f.body = `{"settlement_id":"stl_1","refund_pct":30,"status":"rejected"}`
	s, raw, err := api.AnswerSettlement.Call(ctx, c, axp.SettlementAnswer{TaskRef: axp.TaskRef{ID: "tsk_1"}, SettlementID: "stl_1"})
	if err != nil || s.ID != "stl_1" || s.RefundPct != 30 || string(raw) != f.body {
		t.Fatalf("answer_settlement: %v %+v %s", err, s, raw)
	}
	if r := f.last(t); r.Method != "POST" || r.Path != "/api/tasks/tsk_1/settlement/stl_1" || r.Body != `{"accept":false}` {
		t.Fatalf("request %+v", r)
	}
	// A query input leaves out empty optional fields.
	f.body = `{"id":"tsk_1"}`
	if _, _, err := api.GetTask.Call(ctx, c, axp.TaskQuery{TaskRef: axp.TaskRef{ID: "tsk_1"}}); err != nil {
		t.Fatal(err)
	}
	if r := f.last(t); r.Path != "/api/tasks/tsk_1" || r.Query != "" {
		t.Fatalf("get_task %+v", r)
	}
	// No input: no body, no query. The GET form on request.
	f.body = `{"services":[]}`
	if _, _, err := api.ListServices.Call(ctx, c, api.None{}); err != nil {
		t.Fatal(err)
	}
	if r := f.last(t); r.Method != "GET" || r.Path != "/api/services" || r.Query != "" || r.Body != "" {
		t.Fatalf("list_services %+v", r)
	}
	f.body = `{"id":"tsk_1"}`
	if _, _, err := api.ChooseOffer.Call(ctx, c, axp.ChooseInput{TaskRef: axp.TaskRef{ID: "tsk_1", Token: "bt_x"}, OfferID: "off_1"}, api.Options{GET: true}); err != nil {
		t.Fatal(err)
	}
	if r := f.last(t); r.Method != "GET" || r.Path != "/api/tasks/tsk_1/choose" || r.Query != "offer_id=off_1&token=bt_x" {
		t.Fatalf("GET form %+v", r)
	}

	// Documents are the body as it is; Do keeps the headers.
	f.body, f.header = "hello\n", map[string][]string{"X-Content-Sha256": {"abc"}}
	d, raw, err := api.GetDeliverable.Call(ctx, c, axp.TaskRef{ID: "tsk_1"})
	if err != nil || *d != "hello\n" || string(raw) != "hello\n" {
		t.Fatalf("document: %v %q", err, raw)
	}
	resp, err := api.GetDeliverable.Do(ctx, c, axp.TaskRef{ID: "tsk_1"})
	if err != nil || resp.Header.Get("X-Content-SHA256") != "abc" {
		t.Fatalf("Do: %v %+v", err, resp)
	}
	f.header = nil

	// A body that does not decode names the operation; an error body is an *axp.Error.
	f.body = "not json"
	if _, _, err := api.GetPricing.Call(ctx, c, api.None{}); err == nil || !strings.Contains(err.Error(), "get_pricing") {
		t.Fatalf("bad body: %v", err)
	}
	f.status, f.body = 404, `{"error":{"code":"not_found","message":"task tsk_9 does not exist"}}`
	_, raw, err = api.GetTask.Call(ctx, c, axp.TaskQuery{TaskRef: axp.TaskRef{ID: "tsk_9"}})
	var e *axp.Error
	if !errors.As(err, &e) || e.Code != axp.CodeNotFound || raw != nil {
		t.Fatalf("error answer: %v %s", err, raw)
	}
}
