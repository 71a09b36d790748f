package api_test

import (
	"context"
	"strings"
	"testing"

	"github.com/axp-exchange/axp"
	"github.com/axp-exchange/axp/api"
	"github.com/axp-exchange/axp/contract"
)

// TestRoute: method, path and body come from the catalog, path parameters filled in and escaped,
// query inputs on the query string, GET forms on request.
func TestRoute(t *testing.T) {
	m, p, body, err := contract.Route("submit_offer", map[string]any{"id": "tsk 1", "price_usd": 2}, false)
	if err != nil || m != "POST" || p != "/api/tasks/tsk%201/offers" || string(body) != `{"price_usd":2}` {
		t.Fatalf("submit_offer: %s %s %s %v", m, p, body, err)
	}
	m, p, body, err = contract.Route("list_jobs", map[string]any{"status": "all"}, false)
	if err != nil || m != "GET" || p != "/api/members/me/jobs?status=all" || body != nil {
		t.Fatalf("list_jobs: %s %s %s %v", m, p, body, err)
	}
	m, p, _, err = contract.Route("cancel_task", map[string]any{"id": "tsk_1", "token": "bt_x"}, true)
	if err != nil || m != "GET" || p != "/api/tasks/tsk_1/cancel?token=bt_x" {
		t.Fatalf("cancel_task GET form: %s %s %v", m, p, err)
	}
	if _, _, _, err := contract.Route("get_task", map[string]any{}, false); err == nil || !strings.Contains(err.Error(), "id") {
		t.Fatalf("a missing path parameter: %v", err)
	}
	if _, _, _, err := contract.Route("get_taks", nil, false); err == nil {
		t.Fatal("an unknown operation was routed")
	}
}

// TestTypedChecksTheOutputType: Typed refuses an output type the operation does not answer before
// sending anything.
func TestTypedChecksTheOutputType(t *testing.T) {
	c := api.New("http://127.0.0.1:1", "")
	if _, err := api.Typed[axp.Task](context.Background(), c, "list_services", nil); err == nil || !strings.Contains(err.Error(), "answers") {
		t.Fatalf("a wrong output type: %v", err)
	}
}
