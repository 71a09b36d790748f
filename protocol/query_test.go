package protocol_test

import (
	"encoding/json"
	"net/url"
	"reflect"
	"testing"

	"github.com/axp-exchange/axp/protocol"
)

type qInput struct {
	ID       string         `json:"id" schema:"required"`
	Limit    int            `json:"limit,omitempty" schema:"min=1;max=50"`
	Ratio    float64        `json:"ratio,omitempty"`
	Active   bool           `json:"active,omitempty"`
	Roles    []string       `json:"roles,omitempty" schema:"enum=buyer|seller"`
	Counts   []int          `json:"counts,omitempty"`
	Token    string         `json:"token,omitempty"`
	Filter   map[string]any `json:"filter,omitempty"`
	Name     string         `json:"name,omitempty"`
	Nullable *int           `json:"nullable,omitempty" schema:"nullable"`
}

func TestFromQuery(t *testing.T) {
	s := protocol.SchemaFor[qInput]()
	q, _ := url.ParseQuery("id=t1&limit=10&ratio=0.5&active=true&roles=buyer&roles=seller&counts=1,2,,3&token=secret" +
		"&filter=%7B%22a%22%3A1.5%7D&name=10&nullable=7&unknown=x&unknown=y")
	got := protocol.FromQuery(s, q, nil, "token")
	want := map[string]any{
		"id":       "t1",
		"limit":    json.Number("10"),
		"ratio":    json.Number("0.5"),
		"active":   true,
		"roles":    []any{"buyer", "seller"},
		"counts":   []any{json.Number("1"), json.Number("2"), json.Number("3")},
		"filter":   map[string]any{"a": json.Number("1.5")},
		"name":     "10", // a string field stays a string
		"nullable": json.Number("7"),
		"unknown":  "y", // kept (last value) so that Validate names it
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("FromQuery\n got %#v\nwant %#v", got, want)
	}
	// Validate names the undeclared key.
	if err := protocol.Validate(s, got, ""); err == nil || err.Field != "unknown" {
		t.Fatalf("Validate = %v, want unknown named", err)
	}
}

func TestFromQueryCommaListAndEnum(t *testing.T) {
	s := protocol.SchemaFor[qInput]()
	q := url.Values{"id": {"t"}, "roles": {"buyer, seller"}}
	got := protocol.FromQuery(s, q, nil)
	if !reflect.DeepEqual(got["roles"], []any{"buyer", "seller"}) {
		t.Fatalf("roles = %#v", got["roles"])
	}
	q = url.Values{"id": {"t"}, "roles": {"buyer,admin"}}
	if err := protocol.Validate(s, protocol.FromQuery(s, q, nil), ""); err == nil || err.Field != "roles[1]" {
		t.Fatalf("enum on array items: %v", err)
	}
}

func TestFromQueryExtra(t *testing.T) {
	s := protocol.SchemaFor[qInput]()
	extra := map[string]any{}
	q := url.Values{"id": {"t"}, "prompt": {"a fox"}, "duration": {"1", "10"}, "token": {"tok"}}
	got := protocol.FromQuery(s, q, extra, "token")
	if !reflect.DeepEqual(got, map[string]any{"id": "t"}) {
		t.Fatalf("declared = %#v", got)
	}
	if !reflect.DeepEqual(extra, map[string]any{"prompt": "a fox", "duration": "10"}) {
		t.Fatalf("extra = %#v", extra)
	}
}

func TestFromQueryBooleansAndNumbers(t *testing.T) {
	s := protocol.SchemaFor[qInput]()
	bools := map[string]any{"true": true, "1": true, "yes": true, "": true, "TRUE": true, "false": false, "0": false, "no": false, "maybe": "maybe"}
	for in, want := range bools {
		got := protocol.FromQuery(s, url.Values{"active": {in}}, nil)
		if got["active"] != want {
			t.Errorf("active=%q -> %#v, want %#v", in, got["active"], want)
		}
	}
	nums := map[string]any{
		"10":   json.Number("10"),
		"-3":   json.Number("-3"),
		"1e2":  json.Number("1e2"),
		" 7 ":  json.Number("7"),
		"abc":  "abc",
		"":     "",
		"0x10": "0x10", // not JSON number text: stays a string, refused by Validate as "not a number"
		"1_0":  "1_0",
		"NaN":  "NaN",
		"Inf":  "Inf",
	}
	for in, want := range nums {
		got := protocol.FromQuery(s, url.Values{"limit": {in}}, nil)
		if got["limit"] != want {
			t.Errorf("limit=%q -> %#v, want %#v", in, got["limit"], want)
		}
	}
	err := protocol.Validate(s, protocol.FromQuery(s, url.Values{"id": {"t"}, "limit": {"0x10"}}, nil), "")
	if err == nil || err.Field != "limit" {
		t.Fatalf("limit=0x10: %v", err)
	}
	// A decoded query input is a real typed value.
	var in qInput
	if err := protocol.DecodeValue(protocol.FromQuery(s, url.Values{"id": {"t"}, "limit": {"12"}, "active": {""}}, nil), &in); err != nil {
		t.Fatal(err)
	}
	if in.Limit != 12 || !in.Active || in.ID != "t" {
		t.Fatalf("decoded %+v", in)
	}
}

func TestCoerce(t *testing.T) {
	s := protocol.SchemaFor[qInput]()
	m := map[string]any{"limit": "10", "active": "no", "roles": "buyer,seller", "name": "5", "unknown": "3", "ratio": json.Number("2")}
	protocol.Coerce(s, m)
	want := map[string]any{"limit": json.Number("10"), "active": false, "roles": []any{"buyer", "seller"}, "name": "5", "unknown": "3", "ratio": json.Number("2")}
	if !reflect.DeepEqual(m, want) {
		t.Fatalf("Coerce\n got %#v\nwant %#v", m, want)
	}
}
