package daemon_test

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/axp-exchange/axp"
	"github.com/axp-exchange/axp/client"
	"github.com/axp-exchange/axp/contract"
	"github.com/axp-exchange/axp/daemon/mcp"
	"github.com/axp-exchange/axp/protocol"
)

// schemaCheck collects the answers of real calls and checks each against the output schema its
// operation declares (the schema of /openapi.json and of the MCP tool), strictly.
type schemaCheck struct {
	t        *testing.T
	checked  map[string]int
	mismatch map[string]string // "op: field: message" -> a body excerpt
}

func newContract(t *testing.T) *schemaCheck {
	return &schemaCheck{t: t, checked: map[string]int{}, mismatch: map[string]string{}}
}

// call runs op through c and checks its answer.
func (k *schemaCheck) call(c *client.Client, name string, in any, opt ...client.Options) map[string]any {
	k.t.Helper()
	resp, err := do(c, name, in, opt...)
	if err != nil {
		k.t.Fatalf("%s: %v", name, err)
	}
	return k.check(name, resp.Body)
}

// check validates one answer body of op against its declared output schema.
func (k *schemaCheck) check(name string, body []byte) map[string]any {
	k.t.Helper()
	op := contract.Lookup(name)
	if op == nil || op.Out == nil {
		k.t.Fatalf("%s: no such operation with an output", name)
	}
	v, perr := protocol.ParseJSON(body)
	if perr != nil {
		k.t.Fatalf("%s: answer is not JSON: %v\n%s", name, perr, body)
	}
	k.checked[name]++
	// The MCP tool's output schema admits exactly what the Go types send: every answer matches it.
	if s := mcp.OutputSchema(op); s != nil {
		if err := protocol.Validate(s, v, ""); err != nil {
			k.t.Errorf("%s: answer does not match the MCP output schema: %v", name, err)
		}
	}
	k.walk(name, protocol.SchemaOf(op.Out), v, "")
	m, _ := v.(map[string]any)
	return m
}

// walk records every violation, not just the first: it validates v, and on failure removes the
// offending value and validates again, so one run reports the whole list.
func (k *schemaCheck) walk(name string, s *protocol.Schema, v any, _ string) {
	for range 50 {
		err := protocol.Validate(s, v, "")
		if err == nil {
			return
		}
		key := fmt.Sprintf("%s: %s: %s", name, generic(err.Field), err.Message)
		if _, seen := k.mismatch[key]; !seen {
			k.mismatch[key] = excerpt(v, err.Field)
		}
		if !drop(v, err.Field) {
			return
		}
	}
}

// path splits a field path of protocol.Validate ("offers[0].seller.id") into keys and indexes.
func path(field string) []string {
	return strings.FieldsFunc(field, func(r rune) bool { return r == '.' || r == '[' || r == ']' })
}

// generic turns the list indexes of a field path into [] so one mismatch is one entry.
func generic(field string) string {
	var b strings.Builder
	for _, p := range path(field) {
		if strings.Trim(p, "0123456789") == "" {
			b.WriteString("[]")
			continue
		}
		if b.Len() > 0 {
			b.WriteByte('.')
		}
		b.WriteString(p)
	}
	return b.String()
}

func resolve(v any, keys []string) (parent any, last string, ok bool) {
	cur := v
	for i, p := range keys {
		if i == len(keys)-1 {
			return cur, p, true
		}
		switch c := cur.(type) {
		case map[string]any:
			cur = c[p]
		case []any:
			var n int
			if _, err := fmt.Sscan(p, &n); err != nil || n >= len(c) {
				return nil, "", false
			}
			cur = c[n]
		default:
			return nil, "", false
		}
	}
	return nil, "", false
}

func drop(v any, field string) bool {
	if field == "" || field == "body" {
		return false
	}
	parent, last, ok := resolve(v, path(field))
	if !ok {
		return false
	}
	if m, isMap := parent.(map[string]any); isMap {
		if _, has := m[last]; has {
			delete(m, last)
			return true
		}
	}
	return false
}

func excerpt(v any, field string) string {
	parent, last, ok := resolve(v, path(field))
	if !ok {
		return ""
	}
	if m, isMap := parent.(map[string]any); isMap {
		b, _ := json.Marshal(m[last])
		if len(b) > 120 {
			b = append(b[:117], "..."...)
		}
		return string(b)
	}
	return ""
}

// TestOutputContract validates real answers of HTTP calls, through a whole free job, against the
// output schemas the catalog declares.
func TestOutputContract(t *testing.T) {
	t.Parallel()
	e := newMarket(t)
	k := newContract(t)
	free := map[string]any{"payment_methods": []string{"crypto", "free"}}
	seller := e.instantSeller("text-file", "4.50", 5, nil, free)
	pull := e.pullSeller("text-file", free)

	for _, name := range []string{"health", "get_protocol", "get_member_tools", "get_why", "list_services", "get_pricing", "get_faq",
		"get_payment_preference", "get_survey", "get_survey_results"} {
		k.call(e.anon, name, nil)
	}
	k.call(e.anon, "search", map[string]any{"q": "write a short poem about the sea"})
	k.call(e.anon, "list_sellers", map[string]any{"payment_method": "free"})
	k.call(e.anon, "get_quote", map[string]any{"type": "text-file", "params": map[string]any{"prompt": "a poem"}})
	k.call(e.anon, "get_reputation", map[string]any{"id": seller.MemberID})
	k.call(e.anon, "submit_feedback", map[string]any{"message": "nice", "category": "praise", "rating": 5})
	k.call(e.anon, "payment_preference", map[string]any{"preferred": "crypto"})
	k.call(e.anon, "register_interest", map[string]any{"type": "video", "budget_usd": 3})
	k.call(e.anon, "answer_survey", map[string]any{"task": "translations", "category": "other"})

	reg := k.call(e.anon, "register", map[string]any{"name": "contract buyer", "roles": []string{"buyer"}})
	buyerMember := e.anon.With(reg["member_secret"].(string))
	k.call(buyerMember, "get_my_profile", nil)
	k.call(buyerMember, "heartbeat", nil)
	k.call(buyerMember, "favourites", map[string]any{"seller_ids": []string{seller.MemberID}})
	k.call(buyerMember, "announcements", nil)
	k.call(buyerMember, "message_operator", map[string]any{"title": "hello", "body": "a question", "kind": "question"})
	k.call(pull.c, "update_skills", map[string]any{"skills": []map[string]any{{"task_type": "text-file", "description": "poems"}}})

	created := k.call(e.anon, "create_task", map[string]any{"type": "text-file", "payment_method": "free", "params": map[string]any{"prompt": "a haiku about rain"}})
	id := created["id"].(string)
	buyer := e.anon.With(created["buyer_token"].(string))
	k.call(buyerMember, "create_task", map[string]any{"description": "write a limerick about a cat", "payment_method": "free"})
	k.call(buyerMember, "list_my_tasks", nil)
	k.call(buyer, "get_task", map[string]any{"id": id})
	k.call(pull.c, "list_quote_requests", nil)
	offer := k.call(pull.c, "submit_offer", map[string]any{"id": id, "price_usd": 0, "eta_minutes": 5, "note": "glad to"})
	k.call(buyer, "get_task", map[string]any{"id": id, "sort": "price"})
	k.call(buyer, "choose_offer", map[string]any{"id": id, "offer_id": offer["offer_id"]})
	k.call(pull.c, "list_jobs", nil)
	k.call(pull.c, "deliver", map[string]any{"id": id, "content": "rain on the roof\n", "filename": "haiku.txt", "mime_type": "text/plain"})
	k.call(pull.c, "get_task", map[string]any{"id": id})
	retrieve(t, buyer, id)
	k.call(buyer, "accept_task", map[string]any{"id": id})
	k.call(pull.c, "list_jobs", map[string]any{"status": "all"})

	var found []string
	for key := range k.mismatch {
		found = append(found, key)
	}
	sort.Strings(found)
	for _, key := range found {
		t.Errorf("answer does not match its declared output schema: %s (value %s)", key, k.mismatch[key])
	}
	if len(k.checked) < 30 {
		t.Errorf("only %d operations checked", len(k.checked))
	}
}

// TestDeclaredResponsesMatch: every answer an operation gives is one /openapi.json declares for it.
// Each operation is called as an outsider (no credentials) and as an unrelated member, with an
// empty input, on a task that exists, so that refusals by the handler (not only by the access
// level) are seen: an operation declared open to anyone that answers 401 is caught.
func TestDeclaredResponsesMatch(t *testing.T) {
	e := newEnv(t)
	var doc struct {
		Paths map[string]map[string]struct {
			Responses map[string]any `json:"responses"`
		} `json:"paths"`
	}
	resp, err := raw(e.anon, "GET", "/openapi.json", nil, nil)
	if err != nil || json.Unmarshal(resp.Body, &doc) != nil {
		t.Fatalf("openapi: %v", err)
	}
	var created axp.CreatedTask
	call(t, e.anon, "create_task", map[string]any{"type": "text-file", "params": map[string]any{"prompt": "declared answers"}}, &created)
	stranger := e.register(map[string]any{"roles": []string{"buyer", "seller"}, "skills": []map[string]any{{"task_type": "video"}}})
	checked := 0
	for i := range contract.Ops {
		op := contract.Ops[i]
		if op.Later != "" || op.Name == "admin_backup" {
			continue
		}
		declared := doc.Paths[op.Path][strings.ToLower(op.Method)].Responses
		if declared == nil {
			t.Errorf("%s: %s %s is not in /openapi.json", op.Name, op.Method, op.Path)
			continue
		}
		path := op.Path
		for _, p := range op.PathParams() {
			v := "x_unknown"
			if p == "id" && strings.HasPrefix(op.Path, "/api/tasks/") {
				v = created.ID
			}
			path = strings.ReplaceAll(path, "{"+p+"}", v)
		}
		var body []byte
		if op.Mutating() {
			body = []byte("{}")
		}
		for who, c := range map[string]*client.Client{"anonymous": e.anon, "a stranger": stranger.c} {
			r, _ := raw(c, op.Method, path, body, nil)
			if r == nil {
				t.Fatalf("%s: no answer", op.Name)
			}
			checked++
			if _, ok := declared[fmt.Sprint(r.Status)]; !ok {
				keys := make([]string, 0, len(declared))
				for k := range declared {
					keys = append(keys, k)
				}
				sort.Strings(keys)
				t.Errorf("%s called by %s answered %d, which /openapi.json does not declare (%s): %.200s", op.Name, who, r.Status, strings.Join(keys, ", "), r.Body)
			}
		}
	}
	if checked < 100 {
		t.Fatalf("only %d calls checked", checked)
	}
}
