package protocol_test

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/axp-exchange/axp/protocol"
)

type vSkill struct {
	TaskType string          `json:"task_type" schema:"required;pattern=^[a-z0-9][a-z0-9_-]{1,40}$"`
	Price    *protocol.Money `json:"price,omitempty" schema:"min=0;max=100000;decimals=2"`
}

type vParams struct {
	Duration int `json:"duration" schema:"min=5;max=30"`
}

type vBody struct {
	Name     string                    `json:"name" schema:"required;minLength=1;maxLength=5"`
	Roles    []string                  `json:"roles,omitempty" schema:"minItems=1;maxItems=2;enum=buyer|seller"`
	Skills   []vSkill                  `json:"skills,omitempty" schema:"maxItems=3"`
	Params   *vParams                  `json:"params,omitempty"`
	Count    *int                      `json:"count,omitempty" schema:"min=1;max=8"`
	Ratio    *float64                  `json:"ratio,omitempty" schema:"exclusiveMin=0"`
	Flag     *bool                     `json:"flag,omitempty"`
	Token    protocol.Nullable[string] `json:"token,omitzero" schema:"maxLength=4"`
	Pct      *int                      `json:"pct,omitempty" schema:"nullable;min=0;max=100"`
	Email    string                    `json:"email,omitempty" schema:"format=email"`
	URL      string                    `json:"url,omitempty" schema:"format=uri"`
	When     string                    `json:"when,omitempty" schema:"format=date-time"`
	Wallet   string                    `json:"wallet,omitempty" schema:"format=evm-address"`
	Answers  map[string]string         `json:"answers,omitempty"`
	Free     map[string]any            `json:"free,omitempty"`
	Anything any                       `json:"anything,omitempty"`
}

func parse(t *testing.T, s string) any {
	t.Helper()
	v, err := protocol.ParseJSON([]byte(s))
	if err != nil {
		t.Fatalf("ParseJSON(%s): %v", s, err)
	}
	return v
}

func TestValidate(t *testing.T) {
	schema := protocol.SchemaFor[vBody]()
	cases := []struct {
		body  string
		field string // "" means valid
		msg   string
	}{
		{`{"name":"ok"}`, "", ""},
		{`{"name":"ok","roles":["buyer","seller"],"skills":[{"task_type":"text-file","price":4.25}],"params":{"duration":5},"count":8,"ratio":0.1,"flag":false}`, "", ""},

		// required, unknown, types
		{`{}`, "name", "is required"},
		{`{"name":"ok","nickname":"x"}`, "nickname", "is not a known field"},
		{`{"name":"ok","params":{"duration":10,"speed":2}}`, "params.speed", "is not a known field"},
		{`{"name":5}`, "name", "must be a string, not the number 5"},
		{`{"name":"ok","count":"3"}`, "count", `must be a number, not the string "3"`},
		{`{"name":"ok","flag":"yes"}`, "flag", "must be true or false"},
		{`{"name":"ok","roles":"buyer"}`, "roles", "must be an array"},
		{`{"name":"ok","params":[]}`, "params", "must be an object, not an array"},
		{`[]`, "body", "must be an object, not an array"},
		{`"x"`, "body", "must be an object"},

		// null handling
		{`{"name":null}`, "name", "must not be null"},
		{`{"name":"ok","count":null}`, "count", "must not be null"},
		{`{"name":"ok","token":null}`, "", ""},
		{`{"name":"ok","pct":null}`, "", ""},
		{`{"name":"ok","anything":null}`, "", ""},
		{`{"name":"ok","free":{"a":null,"b":[1,{"c":true}]}}`, "", ""},

		// strings: lengths in runes, not bytes
		{`{"name":""}`, "name", "must not be empty"},
		{`{"name":"abcdef"}`, "name", "is 6 characters; at most 5 are allowed"},
		{`{"name":"日本語です"}`, "", ""}, // 5 runes, 15 bytes
		{`{"name":"日本語ですね"}`, "name", "is 6 characters"},
		{`{"name":"ok","token":"toolong"}`, "token", "at most 4"},

		// numbers
		{`{"name":"ok","count":0}`, "count", "is 0; the minimum is 1"},
		{`{"name":"ok","count":9}`, "count", "is 9; the maximum is 8"},
		{`{"name":"ok","count":2.5}`, "count", "must be a whole number, not 2.5"},
		{`{"name":"ok","count":2.0}`, "", ""},
		{`{"name":"ok","count":1e0}`, "", ""},
		{`{"name":"ok","count":1e9999}`, "count", "is out of range"},
		{`{"name":"ok","ratio":0}`, "ratio", "must be greater than 0"},
		{`{"name":"ok","ratio":1e-300}`, "", ""},
		{`{"name":"ok","pct":101}`, "pct", "the maximum is 100"},
		{`{"name":"ok","params":{"duration":4}}`, "params.duration", "the minimum is 5"},
		{`{"name":"ok","params":{"duration":31}}`, "params.duration", "the maximum is 30"},

		// arrays: counts, enum on items, paths
		{`{"name":"ok","roles":[]}`, "roles", "at least 1"},
		{`{"name":"ok","roles":["buyer","seller","buyer"]}`, "roles", "has 3 items; at most 2"},
		{`{"name":"ok","roles":["admin"]}`, "roles[0]", `"admin" is not one of the allowed values`},
		{`{"name":"ok","roles":["buyer",7]}`, "roles[1]", "must be a string"},
		{`{"name":"ok","skills":[{"task_type":"ok-type"},{"task_type":"Bad Type"}]}`, "skills[1].task_type", "is not a task type"},
		{`{"name":"ok","skills":[{"task_type":"x"}]}`, "skills[0].task_type", "is not a task type"},
		{`{"name":"ok","skills":[{}]}`, "skills[0].task_type", "is required"},
		{`{"name":"ok","skills":[{"task_type":"abc","price":1.234}]}`, "skills[0].price", "1.234 has too many decimals; at most 2 are allowed"},
		{`{"name":"ok","skills":[{"task_type":"abc","price":-1}]}`, "skills[0].price", "the minimum is 0"},
		{`{"name":"ok","skills":[{"task_type":"abc","extra":1}]}`, "skills[0].extra", "is not a known field"},

		// maps
		{`{"name":"ok","answers":{"q1":"yes"}}`, "", ""},
		{`{"name":"ok","answers":{"q1":2}}`, "answers.q1", "must be a string"},

		// formats
		{`{"name":"ok","email":"ops@example.com"}`, "", ""},
		{`{"name":"ok","email":"Ops <ops@example.com>"}`, "email", "plain email address"},
		{`{"name":"ok","email":"ops@localhost"}`, "email", "plain email address"},
		{`{"name":"ok","url":"https://agent.example.com/mcp"}`, "", ""},
		{`{"name":"ok","url":"ftp://agent.example.com"}`, "url", "absolute http or https URL"},
		{`{"name":"ok","url":"/relative"}`, "url", "absolute http or https URL"},
		{`{"name":"ok","when":"2026-11-21T12:00:00Z"}`, "", ""},
		{`{"name":"ok","when":"tomorrow"}`, "when", "RFC 3339"},
		{`{"name":"ok","wallet":"0x52908400098527886E0F7030069857D2E4169EE7"}`, "", ""},
		{`{"name":"ok","wallet":"0x5290840009852788"}`, "wallet", "EVM address"},
		{`{"name":"ok","wallet":"0xZZ908400098527886E0F7030069857D2E4169EE7"}`, "wallet", "EVM address"},
	}
	for _, c := range cases {
		err := protocol.Validate(schema, parse(t, c.body), "")
		switch {
		case c.field == "" && err != nil:
			t.Errorf("%s: unexpected error %v", c.body, err)
		case c.field != "" && err == nil:
			t.Errorf("%s: accepted, want an error on %s", c.body, c.field)
		case c.field != "":
			if err.Code != protocol.CodeInvalidInput || err.Field != c.field || !strings.Contains(err.Message, c.msg) {
				t.Errorf("%s: got {%s %q %q}, want field %q message containing %q", c.body, err.Code, err.Field, err.Message, c.field, c.msg)
			}
		}
	}
}

func TestValidateUnknownFieldHint(t *testing.T) {
	err := protocol.Validate(protocol.SchemaFor[vParams](), parse(t, `{"speed":1}`), "params")
	if err == nil || err.Field != "params.speed" || !strings.Contains(err.Hint, "known fields: duration") {
		t.Fatalf("got %+v", err)
	}
}

func TestValidateRequiredHint(t *testing.T) {
	s := &protocol.Schema{Type: "object"}
	s.AddProperty("kind", &protocol.Schema{Type: "string", Enum: []any{"a", "b"}, Description: "what kind"}, true)
	err := protocol.Validate(s, parse(t, `{}`), "")
	if err == nil || err.Field != "kind" || err.Hint != "give a string: what kind (one of: a, b)" {
		t.Fatalf("got %+v", err)
	}
}

func TestValidateGoValues(t *testing.T) {
	// Values built by code rather than parsed: Go numbers are numbers.
	s := protocol.SchemaFor[vBody]()
	for _, v := range []any{3, int64(3), 3.0, float32(3), uint8(3)} {
		if err := protocol.Validate(s, map[string]any{"name": "ok", "count": v}, ""); err != nil {
			t.Errorf("count %T %v: %v", v, v, err)
		}
	}
	if err := protocol.Validate(s, map[string]any{"name": "ok", "count": 2.5}, ""); err == nil || err.Field != "count" {
		t.Errorf("2.5 accepted as an integer: %v", err)
	}
	if err := protocol.Validate(s, map[string]any{"name": 5}, ""); err == nil || !strings.Contains(err.Message, "not the number 5") {
		t.Errorf("got %v", err)
	}
	// A json.Number outside the JSON grammar is not a number.
	if err := protocol.Validate(s, map[string]any{"name": "ok", "count": json.Number("0x10")}, ""); err == nil || err.Field != "count" {
		t.Errorf("0x10 accepted: %v", err)
	}
}

func TestValidateInvalidUTF8(t *testing.T) {
	s := &protocol.Schema{Type: "string"}
	if err := protocol.Validate(s, "ok\xff", "x"); err == nil || !strings.Contains(err.Message, "UTF-8") {
		t.Fatalf("got %v", err)
	}
}

func TestValidateOneOf(t *testing.T) {
	s := protocol.SchemaFor[protocol.QuoteAnswer]()
	cases := []struct {
		body, field, msg string
	}{
		{`{"price_usd":4.5,"eta_minutes":30}`, "", ""},
		{`{"price_usd":4.5,"eta_minutes":30,"note":"fine","availability":"high","details":{"resolution":"1080p"}}`, "", ""},
		{`{"clarify":true,"questions":["which language?"]}`, "", ""},
		{`{"decline":true,"reason_code":"no_capacity","reason":"busy"}`, "", ""},
		{`{"decline":true,"reason_code":"bored"}`, "reason_code", "not one of the allowed values"},
		{`{"clarify":true,"questions":["1","2","3","4","5","6"]}`, "questions", "at most 5"},
		{`{"price_usd":4.555,"eta_minutes":30}`, "price_usd", "too many decimals"},
		{`{"price_usd":4.5,"eta_minutes":0}`, "eta_minutes", "the minimum is 1"},
		{`{"price_usd":4.5}`, "eta_minutes", "is required"},
		{`{}`, "body", "does not match any of the allowed shapes (Price, Clarify, Decline)"},
		{`{"price_usd":4,"eta_minutes":5,"decline":true,"reason_code":"other"}`, "body", "matches more than one"},
	}
	for _, c := range cases {
		err := protocol.Validate(s, parse(t, c.body), "")
		switch {
		case c.field == "" && err != nil:
			t.Errorf("%s: unexpected error %v", c.body, err)
		case c.field != "" && err == nil:
			t.Errorf("%s: accepted, want an error on %s", c.body, c.field)
		case c.field != "" && (err.Field != c.field || !strings.Contains(err.Message, c.msg)):
			t.Errorf("%s: got {%q %q}, want %q containing %q", c.body, err.Field, err.Message, c.field, c.msg)
		}
	}
}

func TestParseJSON(t *testing.T) {
	v, err := protocol.ParseJSON([]byte(` {"a": 1.10, "b": [12345678901234567890]} `))
	if err != nil {
		t.Fatal(err)
	}
	m := v.(map[string]any)
	if m["a"] != json.Number("1.10") || m["b"].([]any)[0] != json.Number("12345678901234567890") {
		t.Fatalf("numbers not kept exact: %#v", m)
	}
	bad := []struct{ in, msg string }{
		{"", "is empty"},
		{"  \n\t", "is empty"},
		{`{"a":1} {"b":2}`, "has data after the JSON value"},
		{`{"a":1}}`, "has data after the JSON value"},
		{`{"a":1} x`, "has data after the JSON value"},
		{`{"a":}`, "is not valid JSON: invalid character '}' looking for beginning of value (at byte 6)"},
		{`{"a" 1}`, "is not valid JSON: invalid character '1' after object key (at byte 6)"},
		{`{"a":1`, "is not valid JSON: unexpected EOF"},
	}
	for _, c := range bad {
		_, err := protocol.ParseJSON([]byte(c.in))
		if err == nil || err.Field != "body" || err.Code != protocol.CodeInvalidInput || !strings.Contains(err.Message, c.msg) {
			t.Errorf("ParseJSON(%q) = %v, want %q", c.in, err, c.msg)
		}
	}
}

func TestDecode(t *testing.T) {
	var b vBody
	err := protocol.Decode([]byte(`{"name":"ok","count":3,"token":null,"free":{"n":1.50,"deep":{"m":2}},"skills":[{"task_type":"abc","price":0.1}]}`), &b)
	if err != nil {
		t.Fatal(err)
	}
	if b.Name != "ok" || *b.Count != 3 || !b.Token.Set || !b.Token.Null || *b.Skills[0].Price != 100_000 {
		t.Fatalf("decoded %+v", b)
	}
	// Numbers in untyped places stay exact json.Number, not float64.
	if b.Free["n"] != json.Number("1.50") || b.Free["deep"].(map[string]any)["m"] != json.Number("2") {
		t.Fatalf("free = %#v", b.Free)
	}

	// Validation happens before decoding, naming the field.
	if err := protocol.Decode([]byte(`{"name":"ok","params":{"duration":3}}`), &b); err == nil || err.Field != "params.duration" {
		t.Fatalf("got %v", err)
	}
	if err := protocol.Decode([]byte(``), &b); err == nil || err.Message != "is empty" {
		t.Fatalf("got %v", err)
	}
	if err := protocol.Decode([]byte(`{"name":"ok"} []`), &b); err == nil || !strings.Contains(err.Message, "data after") {
		t.Fatalf("got %v", err)
	}
	// A string where Money is expected is refused.
	if err := protocol.Decode([]byte(`{"name":"ok","skills":[{"task_type":"abc","price":"4"}]}`), &b); err == nil || err.Field != "skills[0].price" {
		t.Fatalf("got %v", err)
	}
}

func TestErrorType(t *testing.T) {
	e := protocol.Invalid("skills[0].task_type", "is required", "give one")
	if e.Error() != "skills[0].task_type: is required (give one)" {
		t.Fatalf("Error() = %q", e.Error())
	}
	if got := protocol.Errorf(protocol.CodeConflict, "task %s is %s", "t1", "open").Error(); got != "task t1 is open" {
		t.Fatalf("Errorf = %q", got)
	}
	// The field prefixes only invalid_input messages.
	if got := (&protocol.Error{Code: protocol.CodeForbidden, Field: "x", Message: "no"}).Error(); got != "no" {
		t.Fatalf("forbidden Error() = %q", got)
	}
	h := e.WithHint("other")
	if h.Hint != "other" || e.Hint != "give one" {
		t.Fatal("WithHint changed the original")
	}
	wrapped := errors.Join(errors.New("ctx"), e)
	if protocol.ErrorCode(wrapped) != protocol.CodeInvalidInput || protocol.ErrorCode(errors.New("x")) != protocol.CodeInternal {
		t.Fatal("ErrorCode")
	}
	b, _ := json.Marshal(protocol.ErrorBody{Error: *e, TraceID: "tr"})
	if string(b) != `{"error":{"code":"invalid_input","message":"is required","hint":"give one","field":"skills[0].task_type"},"trace_id":"tr"}` {
		t.Fatalf("body %s", b)
	}
	if len(protocol.Codes) != 10 {
		t.Fatalf("codes %v", protocol.Codes)
	}
}

func TestValidateNullHint(t *testing.T) {
	err := protocol.Validate(protocol.SchemaFor[vBody](), parse(t, `{"name":"ok","count":null}`), "")
	if err == nil || err.Hint != "give an integer or leave the field out" {
		t.Fatalf("got %+v", err)
	}
}

func TestDecodeWholeNumbersIntoIntegers(t *testing.T) {
	type in struct {
		Rating int            `json:"rating" schema:"required;min=1;max=5"`
		Items  []int          `json:"items"`
		Loose  map[string]any `json:"loose"`
	}
	var got in
	if err := protocol.Decode([]byte(`{"rating": 5.0, "items": [1e0, 2.00], "loose": {"x": 1.5}}`), &got); err != nil {
		t.Fatalf("Decode: %v", err)
	}
	if got.Rating != 5 || len(got.Items) != 2 || got.Items[0] != 1 || got.Items[1] != 2 {
		t.Fatalf("got %+v", got)
	}
	if err := protocol.Decode([]byte(`{"rating": 4.5}`), &got); err == nil || err.Field != "rating" {
		t.Fatalf("4.5 as an integer: got %v, want an error on rating", err)
	}
}
