package protocol_test

import (
	"encoding/json"
	"reflect"
	"slices"
	"testing"

	"github.com/axp-exchange/axp/protocol"
)

type schemaInner struct {
	Code string `json:"code" schema:"required;pattern=^[a-z]+$"`
}

type SchemaBase struct {
	ID    string `json:"id" schema:"required;maxLength=100"`
	Token string `json:"token,omitempty"`
}

type schemaHidden struct {
	Secret string `json:"promoted"`
}

type schemaSample struct {
	SchemaBase
	schemaHidden
	Name      string                    `json:"name" schema:"required;minLength=1;maxLength=10" doc:"a name"`
	Count     int                       `json:"count,omitempty" schema:"min=1;max=8;default=1"`
	Ratio     float64                   `json:"ratio" schema:"exclusiveMin=0"`
	Price     protocol.Money            `json:"price" schema:"min=0;max=100000;decimals=2"`
	Whole     protocol.Money            `json:"whole" schema:"decimals=0"`
	OptPrice  *protocol.Money           `json:"opt_price,omitempty" schema:"decimals=2"`
	Ptr       *int                      `json:"ptr,omitempty" schema:"min=0"`
	NullPtr   *int                      `json:"null_ptr" schema:"nullable;min=0;max=100"`
	Maybe     protocol.Nullable[string] `json:"maybe,omitzero" schema:"maxLength=5"`
	Kind      string                    `json:"kind" schema:"enum=a|b"`
	Tags      []string                  `json:"tags" schema:"maxItems=3;minItems=1;enum=x|y"`
	Inner     schemaInner               `json:"inner"`
	Inners    []schemaInner             `json:"inners"`
	Map       map[string]string         `json:"map"`
	Free      map[string]any            `json:"free"`
	Anything  any                       `json:"anything"`
	Raw       json.RawMessage           `json:"raw"`
	URL       string                    `json:"url" schema:"format=uri"`
	Flag      bool                      `json:"flag" schema:"default=true"`
	Ignored   string                    `json:"-"`
	unexp     string
	NoTag     string
	Formatted string `json:"formatted" schema:"format=date-time"`
}

func TestSchemaOfStruct(t *testing.T) {
	s := protocol.SchemaFor[schemaSample]()
	if s.Type != "object" || s.AdditionalProperties != false {
		t.Fatalf("type %v additionalProperties %v", s.Type, s.AdditionalProperties)
	}
	want := []string{"id", "token", "promoted", "name", "count", "ratio", "price", "whole", "opt_price", "ptr", "null_ptr",
		"maybe", "kind", "tags", "inner", "inners", "map", "free", "anything", "raw", "url", "flag", "NoTag", "formatted"}
	if got := s.PropertyOrder(); !slices.Equal(got, want) {
		t.Fatalf("properties\n got %v\nwant %v", got, want)
	}
	if !slices.Equal(s.Required, []string{"id", "name"}) {
		t.Fatalf("required %v", s.Required)
	}
	p := s.Properties
	if p["id"].MaxLength == nil || *p["id"].MaxLength != 100 {
		t.Errorf("embedded id maxLength %v", p["id"].MaxLength)
	}
	if n := p["name"]; n.Type != "string" || *n.MinLength != 1 || *n.MaxLength != 10 || n.Description != "a name" {
		t.Errorf("name %+v", n)
	}
	if c := p["count"]; c.Type != "integer" || c.Minimum != "1" || c.Maximum != "8" || c.Default != int64(1) {
		t.Errorf("count %+v", c)
	}
	if r := p["ratio"]; r.Type != "number" || r.ExclusiveMinimum != "0" {
		t.Errorf("ratio %+v", r)
	}
	if pr := p["price"]; pr.Type != "number" || pr.MultipleOf != "0.01" || pr.Minimum != "0" || pr.Maximum != "100000" {
		t.Errorf("price %+v", pr)
	}
	if w := p["whole"]; w.MultipleOf != "1" {
		t.Errorf("decimals=0 gives multipleOf %q, want 1", w.MultipleOf)
	}
	if op := p["opt_price"]; op.Type != "number" || op.MultipleOf != "0.01" {
		t.Errorf("pointer to Money %+v", op)
	}
	if pt := p["ptr"]; pt.Type != "integer" || pt.Minimum != "0" {
		t.Errorf("pointer field %+v", pt)
	}
	if np := p["null_ptr"]; !reflect.DeepEqual(np.Type, []string{"integer", "null"}) || np.Maximum != "100" {
		t.Errorf("nullable pointer %+v", np)
	}
	if m := p["maybe"]; !reflect.DeepEqual(m.Type, []string{"string", "null"}) || *m.MaxLength != 5 {
		t.Errorf("Nullable[string] %+v", m)
	}
	if k := p["kind"]; !reflect.DeepEqual(k.Enum, []any{"a", "b"}) {
		t.Errorf("enum %+v", k.Enum)
	}
	tags := p["tags"]
	if tags.Type != "array" || *tags.MaxItems != 3 || *tags.MinItems != 1 || len(tags.Enum) != 0 {
		t.Errorf("tags %+v", tags)
	}
	if !reflect.DeepEqual(tags.Items.Enum, []any{"x", "y"}) || tags.Items.Type != "string" {
		t.Errorf("an enum on an array applies to its items: %+v", tags.Items)
	}
	if in := p["inner"]; in.Type != "object" || !slices.Equal(in.Required, []string{"code"}) || in.Properties["code"].Pattern != "^[a-z]+$" {
		t.Errorf("inner %+v", in)
	}
	if ins := p["inners"]; ins.Type != "array" || ins.Items.Type != "object" || ins.Items.Properties["code"] == nil {
		t.Errorf("inners %+v", ins)
	}
	if m := p["map"]; m.Type != "object" || m.AdditionalProperties.(*protocol.Schema).Type != "string" {
		t.Errorf("map %+v", m)
	}
	if f := p["free"]; f.Type != "object" || f.AdditionalProperties != nil {
		t.Errorf("free map %+v", f)
	}
	if a := p["anything"]; a.Type != nil {
		t.Errorf("any %+v", a)
	}
	if r := p["raw"]; r.Type != nil {
		t.Errorf("raw %+v", r)
	}
	if u := p["url"]; u.Format != "uri" {
		t.Errorf("url %+v", u)
	}
	if f := p["flag"]; f.Type != "boolean" || f.Default != true {
		t.Errorf("flag %+v", f)
	}
	if f := p["formatted"]; f.Format != "date-time" {
		t.Errorf("formatted %+v", f)
	}
	// The shared cache answers the same schema.
	if protocol.SchemaFor[schemaSample]() != s {
		t.Error("SchemaOf is not cached")
	}
}

// An enum on an array field must not leak into the shared schema of the element type.
func TestSchemaEnumOnArrayDoesNotLeak(t *testing.T) {
	type a struct {
		Roles []string `json:"roles" schema:"enum=buyer|seller"`
		Other []string `json:"other"`
	}
	s := protocol.SchemaFor[a]()
	if s.Properties["other"].Items.Enum != nil {
		t.Fatalf("enum leaked: %+v", s.Properties["other"].Items)
	}
}

func TestSchemaRecursiveType(t *testing.T) {
	type node struct {
		Name     string  `json:"name"`
		Children []*node `json:"children"`
	}
	s := protocol.SchemaFor[node]()
	if c := s.Properties["children"]; c.Type != "array" || c.Items.Type != "object" {
		t.Fatalf("children %+v", c)
	}
}

func TestSchemaUnknownOptionPanics(t *testing.T) {
	type bad struct {
		X string `json:"x" schema:"maxlen=3"`
	}
	defer func() {
		if recover() == nil {
			t.Fatal("an unknown schema option did not panic")
		}
	}()
	protocol.SchemaFor[bad]()
}

// A struct that embeds a self-describing type (OfferInput embeds QuoteAnswer) is described by its
// own fields: a promoted JSONSchema would drop them.
func TestSchemaEmbeddedSchemaer(t *testing.T) {
	type offer struct {
		ID string `json:"id" schema:"required"`
		protocol.QuoteAnswer
	}
	s := protocol.SchemaFor[offer]()
	if s.Properties["id"] == nil || len(s.OneOf) != 0 {
		t.Fatalf("embedding QuoteAnswer lost the struct's own fields: %+v", s)
	}
	for _, k := range []string{"price_usd", "eta_minutes", "clarify", "questions", "decline", "reason_code"} {
		if s.Properties[k] == nil {
			t.Errorf("flattened field %s missing", k)
		}
	}
	if s.Properties["price_usd"].MultipleOf != "0.01" {
		t.Errorf("price_usd %+v", s.Properties["price_usd"])
	}
	// QuoteAnswer on its own still describes itself as a oneOf.
	if q := protocol.SchemaFor[protocol.QuoteAnswer](); len(q.OneOf) != 3 || q.Type != "object" {
		t.Fatalf("QuoteAnswer schema %+v", q)
	}
}

func TestNullableJSON(t *testing.T) {
	type upd struct {
		A protocol.Nullable[string] `json:"a,omitzero"`
		B protocol.Nullable[int]    `json:"b,omitzero"`
	}
	var u upd
	if err := json.Unmarshal([]byte(`{"a":null,"b":3}`), &u); err != nil {
		t.Fatal(err)
	}
	if !u.A.Set || !u.A.Null || u.A.Given() {
		t.Errorf("a: %+v", u.A)
	}
	if !u.B.Set || u.B.Null || u.B.Value != 3 || !u.B.Given() {
		t.Errorf("b: %+v", u.B)
	}
	var empty upd
	if err := json.Unmarshal([]byte(`{}`), &empty); err != nil || empty.A.Set || empty.B.Set {
		t.Errorf("absent fields: %+v %v", empty, err)
	}
	// Left out stays out; null stays null; a value is written as itself.
	b, _ := json.Marshal(upd{})
	if string(b) != `{}` {
		t.Errorf("unset fields marshal as %s, want {}", b)
	}
	b, _ = json.Marshal(upd{A: protocol.Nullable[string]{Set: true, Null: true}, B: protocol.Nullable[int]{Set: true, Value: 4}})
	if string(b) != `{"a":null,"b":4}` {
		t.Errorf("marshal = %s", b)
	}
}
