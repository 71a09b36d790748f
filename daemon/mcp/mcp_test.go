package mcp

import (
	"slices"
	"strings"
	"testing"

	"github.com/axp-exchange/axp/contract"
	"github.com/axp-exchange/axp/protocol"
)

// The tools are the catalog's: one per operation with a tool name, in catalog order, each with an
// object input schema built from the operation's input type.
func TestToolsFromCatalog(t *testing.T) {
	var want []string
	for _, op := range contract.Ops {
		if op.Tool != "" {
			want = append(want, op.Tool)
		}
	}
	var got []string
	for _, tl := range Tools() {
		got = append(got, tl.Name)
		op := lookupTool(tl.Name)
		in := InputSchema(op)
		if in.Type != "object" || in.AdditionalProperties != false {
			t.Errorf("%s: input schema %+v", tl.Name, in)
		}
		for _, p := range op.PathParams() {
			if in.Properties[p] == nil || !slices.Contains(in.Required, p) {
				t.Errorf("%s: path parameter %s is not a required argument", tl.Name, p)
			}
		}
		if _, has := in.Properties["token"]; has {
			t.Errorf("%s: takes token; the buyer token is buyer_token", tl.Name)
		}
		if op.Access == contract.BuyerAuth && in.Properties[BuyerTokenArg] == nil {
			t.Errorf("%s: a buyer step without buyer_token", tl.Name)
		}
		if op.In != nil {
			for n := range protocol.SchemaOf(op.In).Properties {
				if n != "token" && in.Properties[n] == nil {
					t.Errorf("%s: input field %s is not an argument", tl.Name, n)
				}
			}
		}
		if tl.RawOutputSchema == nil && OutputSchema(op) != nil {
			t.Errorf("%s: no output schema", tl.Name)
		}
		if op.Later != "" && !strings.Contains(tl.Description, "Not available yet") {
			t.Errorf("%s: the description does not say it is not available yet", tl.Name)
		}
	}
	if !slices.Equal(got, want) {
		t.Fatalf("tools %v, want %v", got, want)
	}
	if InputSchema(lookupTool("get_task")).Properties[BuyerTokenArg] == nil {
		t.Errorf("get_task does not take buyer_token")
	}
	if InputSchema(lookupTool("create_task")).Properties[BuyerTokenArg] != nil {
		t.Errorf("create_task takes buyer_token")
	}
	if q := InputSchema(lookupTool("get_quote")); q.Properties["type"] == nil || q.Properties["params"] == nil {
		t.Errorf("get_quote takes {type, params}: %+v", q.Properties)
	}
}

// Member tools are exactly the operations for members and sellers.
func TestMemberOnly(t *testing.T) {
	var got []string
	for _, op := range contract.Ops {
		if op.Tool != "" && MemberOnly(op) {
			got = append(got, op.Tool)
		}
	}
	slices.Sort(got)
	// The spec's member tools, object_to_review (member access in the catalog: only members are
	// reviewed), and the other member steps (profile, verification, conformance, sandbox,
	// announcements, strategy signals).
	want := strings.Fields(`announcements board_list board_post board_read board_reply deliver favourites get_my_earnings get_my_profile get_sandbox
		heartbeat list_jobs list_my_tasks list_quote_requests message_operator object_to_review publish_signal read_announcement request_payment
		run_conformance start_sandbox submit_offer update_profile update_skills verify_membership`)
	if !slices.Equal(got, want) {
		t.Fatalf("member tools %v, want %v", got, want)
	}
}

// Output schemas admit null where the Go types send it, at any depth, and nowhere else.
func TestOutputSchemaNullable(t *testing.T) {
	s := OutputSchema(lookupTool("create_task"))
	for _, p := range []string{"recommended_offer", "deliverable", "auto_release_at", "also_sell"} {
		if !nullableType(s.Properties[p]) {
			t.Errorf("create_task %s: %v", p, s.Properties[p].Type)
		}
	}
	for _, p := range []string{"id", "status", "offers", "buyer_token", "params"} {
		if nullableType(s.Properties[p]) {
			t.Errorf("create_task %s admits null", p)
		}
	}
	rel := s.Properties["offers"].Items.Properties["reliability"]
	if !nullableType(rel.Properties["on_time_rate"]) {
		t.Errorf("offers[].reliability.on_time_rate: %v", rel.Properties["on_time_rate"].Type)
	}
	// A document (a deliverable, a Markdown page) is answered as JSON: content, encoding, mime
	// type and SHA-256.
	if ds := OutputSchema(contract.Lookup("get_deliverable")); ds == nil || ds.Properties["sha256"] == nil || ds.Properties["content"] == nil {
		t.Errorf("a document answer has no content schema: %+v", ds)
	}
}

func nullableType(s *protocol.Schema) bool {
	ts, ok := s.Type.([]string)
	return ok && slices.Contains(ts, "null")
}
