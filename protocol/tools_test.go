package protocol_test

import (
	"encoding/json"
	"slices"
	"testing"

	"github.com/axp-exchange/axp/protocol"
)

func TestToolsDocument(t *testing.T) {
	d := protocol.Tools()
	if d.Protocol != "axp/1" {
		t.Fatalf("protocol %q", d.Protocol)
	}
	// Spec section 6: every tool, in its order.
	var names []string
	for _, tool := range d.Tools {
		names = append(names, tool.Name)
	}
	want := []string{"contact_test", "quote", "do_task", "receive_offers", "get_skills", "task_update", "announcement", "mediation", "review"}
	if !slices.Equal(names, want) {
		t.Fatalf("tools %v, want %v", names, want)
	}
	buyer := []string{"contact_test", "receive_offers", "task_update", "announcement", "mediation", "review"}
	seller := []string{"contact_test", "quote", "do_task", "get_skills", "task_update", "announcement", "mediation", "review"}
	if !slices.Equal(d.Required["buyer"], buyer) {
		t.Errorf("buyer tools %v, want %v", d.Required["buyer"], buyer)
	}
	if !slices.Equal(d.Required["seller"], seller) {
		t.Errorf("seller tools %v, want %v", d.Required["seller"], seller)
	}
	both := protocol.RequiredTools([]string{"seller", "buyer"})
	if !slices.Equal(both, want) {
		t.Errorf("both roles %v", both)
	}
	if got := protocol.RequiredTools(nil); len(got) != 0 {
		t.Errorf("no roles %v", got)
	}

	roles := map[string][]string{
		"contact_test": {"buyer", "seller"}, "quote": {"seller"}, "do_task": {"seller"}, "receive_offers": {"buyer"},
		"get_skills": {"seller"}, "task_update": {"buyer", "seller"}, "announcement": {"buyer", "seller"},
		"mediation": {"buyer", "seller"}, "review": {"buyer", "seller"},
	}
	for _, tool := range d.Tools {
		if !slices.Equal(tool.Roles, roles[tool.Name]) {
			t.Errorf("%s roles %v, want %v", tool.Name, tool.Roles, roles[tool.Name])
		}
		if tool.Description == "" {
			t.Errorf("%s has no description", tool.Name)
		}
		// MCP requires object schemas for tool input and output.
		if tool.InputSchema == nil || tool.InputSchema.Type != "object" {
			t.Errorf("%s input schema type %v", tool.Name, tool.InputSchema)
		}
		if tool.OutputSchema == nil || tool.OutputSchema.Type != "object" {
			t.Errorf("%s output schema type %v", tool.Name, tool.OutputSchema)
		}
	}

	// Input fields of spec section 6.
	inputs := map[string][]string{
		"contact_test":   {"nonce", "member_id"},
		"quote":          {"task_id", "task_type", "description", "params", "deadline_minutes", "acceptance_checks", "buyer", "payment_method", "test"},
		"do_task":        {"task_id", "task_type", "description", "params", "price_usd", "eta_minutes", "deliver_url", "acceptance_checks", "test"},
		"receive_offers": {"task_id", "offers", "choose_url", "also_sell", "test"},
		"get_skills":     {"member_id"},
		"task_update":    {"task_id", "status", "deliverable", "auto_release_at", "test"},
		"announcement":   {"announcement_id", "from", "severity", "title", "body", "reply_to", "test"},
		"mediation":      {"mediation_id", "kind", "task_id", "your_role", "opened_by", "reason", "other_statement", "task", "review", "test"},
		"review":         {"task_id", "your_role", "counterparty", "task", "criteria", "test"},
	}
	for _, tool := range d.Tools {
		for _, f := range inputs[tool.Name] {
			if tool.InputSchema.Properties[f] == nil {
				t.Errorf("%s input lacks %s", tool.Name, f)
			}
		}
	}
	out := map[string]*protocol.Schema{}
	for _, tool := range d.Tools {
		out[tool.Name] = tool.OutputSchema
	}
	if s := out["mediation"].Properties["statement"]; s == nil || *s.MaxLength != 4000 {
		t.Errorf("mediation statement %+v", s)
	}
	if p := out["mediation"].Properties["proposed_refund_pct"]; p == nil || p.Maximum != "100" || !slices.Contains(p.Type.([]string), "null") {
		t.Errorf("mediation proposed_refund_pct %+v", p)
	}
	if r := out["review"].Properties["rating"]; r == nil || r.Minimum != "1" || r.Maximum != "5" {
		t.Errorf("review rating %+v", r)
	}
	if len(out["quote"].OneOf) != 3 {
		t.Errorf("quote output %+v", out["quote"])
	}

	// The document marshals (it is served as /api/protocol/tools.json).
	b, err := json.Marshal(d)
	if err != nil {
		t.Fatal(err)
	}
	var back map[string]any
	if err := json.Unmarshal(b, &back); err != nil || back["signing"].(map[string]any)["timestamp_tolerance"] != 300.0 {
		t.Fatalf("marshalled %v %v", err, back["signing"])
	}
}

// Every member tool's schema validates a well-formed call of that tool.
func TestToolSchemasAcceptExamples(t *testing.T) {
	examples := map[string]string{
		"contact_test":   `{"nonce":"n1","member_id":"mem_1"}`,
		"quote":          `{"task_id":"t1","task_type":"video","description":"waves","params":{"duration":10},"buyer":{"id":"anonymous","name":"anonymous","anonymous":true},"payment_method":"crypto","test":true}`,
		"do_task":        `{"task_id":"t1","task_type":"video","description":"","params":{},"price_usd":4,"eta_minutes":30,"deliver_url":"https://ex.example/deliver/t1","test":false}`,
		"receive_offers": `{"task_id":"t1","offers":[{"offer_id":"o1","seller":{"id":"mem_2","name":"S"},"price_usd":4,"eta_minutes":30}],"choose_url":"https://ex.example/c","also_sell":null,"test":false}`,
		"get_skills":     `{"member_id":"mem_1"}`,
		"task_update":    `{"task_id":"t1","status":"delivered","deliverable":{"url":"https://ex.example/d","sha256":"ab"},"auto_release_at":null,"test":false}`,
		"announcement":   `{"announcement_id":"a1","from":"operator","severity":"info","title":"T","body":"B","reply_to":"","test":false}`,
		"mediation":      `{"mediation_id":"m1","kind":"dispute","task_id":"t1","your_role":"seller","opened_by":"buyer","reason":"late","test":false}`,
		"review":         `{"task_id":"t1","your_role":"buyer","counterparty":{"id":"mem_2","name":"S"},"test":false}`,
	}
	for _, tool := range protocol.MemberTools {
		v, perr := protocol.ParseJSON([]byte(examples[tool.Name]))
		if perr != nil {
			t.Fatalf("%s: %v", tool.Name, perr)
		}
		if err := protocol.Validate(protocol.SchemaOf(tool.In), v, ""); err != nil {
			t.Errorf("%s input refused: %v", tool.Name, err)
		}
	}
	outputs := map[string]string{
		"contact_test": `{"nonce":"n1","signature":"` + hmacHex("k", "contact_test.n1") + `"}`,
		"mediation":    `{"statement":"we agree","proposed_refund_pct":null}`,
		"review":       `{"skip":true}`,
	}
	for _, tool := range protocol.MemberTools {
		raw, ok := outputs[tool.Name]
		if !ok {
			continue
		}
		v, _ := protocol.ParseJSON([]byte(raw))
		if err := protocol.Validate(protocol.SchemaOf(tool.Out), v, ""); err != nil {
			t.Errorf("%s output refused: %v", tool.Name, err)
		}
	}
}
