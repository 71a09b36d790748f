package checks

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/axp-exchange/axp"
)

// pngBytes is the start of a real PNG file: signature and IHDR chunk.
var pngBytes = []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x06\x00\x00\x00\x1f\x15\xc4\x89\x00\x00\x00\x0bIDATx\x9cc\x00\x01\x00\x00\x05\x00\x01\r\n-\xb4")

// checksOf parses a JSON check set the way the REST door does (numbers as json.Number).
func checksOf(t *testing.T, s string) map[string]any {
	t.Helper()
	dec := json.NewDecoder(strings.NewReader(s))
	dec.UseNumber()
	var m map[string]any
	if err := dec.Decode(&m); err != nil {
		t.Fatalf("bad test JSON %s: %v", s, err)
	}
	return m
}

func TestValidateChecksNormalizes(t *testing.T) {
	tests := []struct {
		in   string
		want map[string]any
	}{
		{`{}`, map[string]any{}},
		{`{"must_contain": "total"}`, map[string]any{"must_contain": []string{"total"}}},
		{`{"must_contain": ["a", "b"]}`, map[string]any{"must_contain": []string{"a", "b"}}},
		{`{"must_not_contain": "TODO"}`, map[string]any{"must_not_contain": []string{"TODO"}}},
		{`{"must_contain_lines": ["total: 4"]}`, map[string]any{"must_contain_lines": []string{"total: 4"}}},
		{`{"must_contain_lines": "total: 4"}`, map[string]any{"must_contain_lines": []string{"total: 4"}}},
		{`{"regex": "^\\d+$"}`, map[string]any{"regex": []string{`^\d+$`}}},
		{`{"max_bytes": 4096, "min_bytes": 1.0, "max_lines": 4e2, "min_lines": 0}`,
			map[string]any{"max_bytes": int64(4096), "min_bytes": int64(1), "max_lines": int64(400), "min_lines": int64(0)}},
		{`{"min_bytes": 10, "max_bytes": 10}`, map[string]any{"min_bytes": int64(10), "max_bytes": int64(10)}},
		{`{"json": true}`, map[string]any{"json": true}},
		{`{"json": false}`, map[string]any{}},
		{`{"mime_type": "Text/Plain"}`, map[string]any{"mime_type": "text/plain"}},
		{`{"mime_type": "text/plain; charset=UTF-8"}`, map[string]any{"mime_type": "text/plain; charset=utf-8"}},
		{`{"mime_type": "application/json;charset=\"utf8\""}`, map[string]any{"mime_type": "application/json; charset=utf-8"}},
		{`{"mime_type": "image/*"}`, map[string]any{"mime_type": "image/*"}},
		{`{"mime_type": "image/jpg"}`, map[string]any{"mime_type": "image/jpeg"}},
		{`{"json_schema": {"type": "object", "properties": {"n": {"type": "number", "minimum": 0.5, "maximum": 10}}}}`,
			map[string]any{"json_schema": map[string]any{"type": "object", "properties": map[string]any{
				"n": map[string]any{"type": "number", "minimum": json.Number("0.5"), "maximum": int64(10)}}}}},
	}
	for _, tt := range tests {
		got, err := Validate(checksOf(t, tt.in))
		if err != nil {
			t.Errorf("%s: unexpected error %v", tt.in, err)
			continue
		}
		if !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%s:\n got  %#v\n want %#v", tt.in, got, tt.want)
		}
	}
	if got, err := Validate(nil); got != nil || err != nil {
		t.Errorf("nil checks: got %v, %v", got, err)
	}
}

func TestValidateChecksAcceptsGoValues(t *testing.T) {
	got, err := Validate(map[string]any{
		"max_bytes": 100, "min_bytes": int64(1), "max_lines": float64(3), "min_lines": uint8(1),
		"must_contain": []string{"a"},
		"json_schema":  map[string]any{"type": []string{"integer", "null"}, "maximum": float32(5)},
	})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]any{"max_bytes": int64(100), "min_bytes": int64(1), "max_lines": int64(3), "min_lines": int64(1),
		"must_contain": []string{"a"},
		"json_schema":  map[string]any{"type": []any{"integer", "null"}, "maximum": int64(5)}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %#v\nwant %#v", got, want)
	}
}

func TestValidateChecksRefusals(t *testing.T) {
	long := strings.Repeat("x", 2001)
	many := `[` + strings.TrimSuffix(strings.Repeat(`"a",`, 51), ",") + `]`
	deep := `{"type": "array", "items": `
	deepSchema := strings.Repeat(deep, 101) + `{"type": "string"}` + strings.Repeat("}", 101)
	tests := []struct {
		in, field, msg string
	}{
		// unknown keys
		{`{"max_size": 1}`, "acceptance_checks.max_size", "is not a known check"},
		{`{"Json": true}`, "acceptance_checks.Json", "is not a known check"},
		// integers
		{`{"max_bytes": "4096"}`, "acceptance_checks.max_bytes", `must be a non-negative integer, not the string "4096"`},
		{`{"max_bytes": -1}`, "acceptance_checks.max_bytes", "must not be negative"},
		{`{"min_lines": -0.5}`, "acceptance_checks.min_lines", "must not be negative"},
		{`{"max_lines": 2.5}`, "acceptance_checks.max_lines", "must be a whole number, not 2.5"},
		{`{"max_bytes": 1e300}`, "acceptance_checks.max_bytes", "is too large"},
		{`{"max_bytes": null}`, "acceptance_checks.max_bytes", "not null"},
		{`{"max_bytes": true}`, "acceptance_checks.max_bytes", "not true"},
		{`{"min_bytes": 10, "max_bytes": 5}`, "acceptance_checks.min_bytes", "is 10, more than max_bytes (5)"},
		{`{"min_lines": 3, "max_lines": 2}`, "acceptance_checks.min_lines", "more than max_lines"},
		// strings and lists
		{`{"must_contain": 5}`, "acceptance_checks.must_contain", "must be a string or an array of strings"},
		{`{"must_contain": ""}`, "acceptance_checks.must_contain", "must not be empty"},
		{`{"must_contain": []}`, "acceptance_checks.must_contain", "at least one"},
		{`{"must_contain": ["a", 3]}`, "acceptance_checks.must_contain[1]", "must be a string, not the number 3"},
		{`{"must_contain": ["` + long + `"]}`, "acceptance_checks.must_contain[0]", "is 2,001 characters; at most 2,000"},
		{`{"must_contain": ` + many + `}`, "acceptance_checks.must_contain", "has 51 entries; at most 50"},
		{`{"must_not_contain": {"a": 1}}`, "acceptance_checks.must_not_contain", "not an object"},
		{`{"must_contain_lines": ["a", "b", "c\nd"]}`, "acceptance_checks.must_contain_lines[2]", "must be a single line"},
		{`{"must_contain_lines": ["a", ""]}`, "acceptance_checks.must_contain_lines[1]", "must not be empty"},
		{`{"must_contain_lines": 7}`, "acceptance_checks.must_contain_lines", "must be"},
		// regex
		{`{"regex": "(a"}`, "acceptance_checks.regex", "is not a valid regular expression: missing closing )"},
		{`{"regex": ["ok", "(?<=a)b"]}`, "acceptance_checks.regex[1]", "is not a valid regular expression"},
		{`{"regex": ["` + strings.Repeat("a", 501) + `"]}`, "acceptance_checks.regex[0]", "at most 500"},
		// json
		{`{"json": "yes"}`, "acceptance_checks.json", "must be true or false"},
		{`{"json": 1}`, "acceptance_checks.json", "must be true or false"},
		// mime_type
		{`{"mime_type": 5}`, "acceptance_checks.mime_type", "must be a string"},
		{`{"mime_type": "png"}`, "acceptance_checks.mime_type", "is not a media type"},
		{`{"mime_type": "application/vnd.openxmlformats-officedocument.wordprocessingml.document"}`, "acceptance_checks.mime_type", "is not a type the exchange can recognize"},
		{`{"mime_type": "*/*"}`, "acceptance_checks.mime_type", "matches any content"},
		{`{"mime_type": "model/*"}`, "acceptance_checks.mime_type", "matches no type"},
		{`{"mime_type": "application/octet-stream"}`, "acceptance_checks.mime_type", "matches any content"},
		{`{"mime_type": "text/plain; charset=latin1"}`, "acceptance_checks.mime_type", "charset \"latin1\" is not checked"},
		{`{"mime_type": "text/plain; format=flowed"}`, "acceptance_checks.mime_type", "parameter \"format\" is not checked"},
		{`{"mime_type": "image/png; charset=utf-8"}`, "acceptance_checks.mime_type", "charset applies only to text"},
		// json_schema: full draft 2020-12; what is refused is what is not a schema, or reaches outside it
		{`{"json_schema": "{\"type\":\"object\"}"}`, "acceptance_checks.json_schema", "must be a JSON Schema object"},
		{`{"json_schema": true}`, "acceptance_checks.json_schema", "must be a JSON Schema object"},
		{`{"json_schema": {"$ref": "#/$defs/x"}}`, "acceptance_checks.json_schema", "does not define"},
		{`{"json_schema": {"$ref": "https://schemas.example.com/order.json"}}`, "acceptance_checks.json_schema", "outside the schema"},
		{`{"json_schema": {"$defs": {"a": {"$ref": "other.json"}}, "$ref": "#/$defs/a"}}`, "acceptance_checks.json_schema", "outside the schema"},
		{`{"json_schema": {"type": "strin"}}`, "acceptance_checks.json_schema.type", "must be one of"},
		{`{"json_schema": {"type": "array", "items": [{"type": "string"}]}}`, "acceptance_checks.json_schema.items", "want boolean or object"},
		{`{"json_schema": {"type": "string", "pattern": "(?!x)"}}`, "acceptance_checks.json_schema.pattern", "not valid regex"},
		{`{"json_schema": {"type": "number", "multipleOf": 0}}`, "acceptance_checks.json_schema.multipleOf", "exclusiveMinimum"},
		{`{"json_schema": {"type": "string", "maxLength": -1}}`, "acceptance_checks.json_schema.maxLength", "minimum"},
		{`{"json_schema": {"type": "object", "properties": {"a": 3}}}`, "acceptance_checks.json_schema.properties.a", "want boolean or object"},
		{`{"json_schema": {"enum": 3}}`, "acceptance_checks.json_schema.enum", "want array"},
		{`{"json_schema": ` + deepSchema + `}`, "acceptance_checks.json_schema" + strings.Repeat(".items", 101), "nests too deeply"},
	}
	for _, tt := range tests {
		got, err := Validate(checksOf(t, tt.in))
		if err == nil {
			t.Errorf("%.120s: accepted as %v", tt.in, got)
			continue
		}
		if err.Code != axp.CodeInvalidInput || err.Field != tt.field || !strings.Contains(err.Message, tt.msg) {
			t.Errorf("%.120s:\n got  %s %q: %q (%s)\n want %q containing %q", tt.in, err.Code, err.Field, err.Message, err.Hint, tt.field, tt.msg)
		}
		if got != nil {
			t.Errorf("%.120s: returned checks with an error", tt.in)
		}
	}
}

func TestValidateChecksHints(t *testing.T) {
	_, err := Validate(checksOf(t, `{"max_size": 1}`))
	if err == nil || !strings.Contains(err.Hint, "max_bytes") || !strings.Contains(err.Hint, "json_schema") {
		t.Errorf("unknown key hint should list known keys: %v", err)
	}
	_, err = Validate(checksOf(t, `{"json_schema": {"$ref": "https://schemas.example.com/order.json"}}`))
	if err == nil || !strings.Contains(err.Hint, "$defs") {
		t.Errorf("a remote $ref should say to put the schema under $defs: %v", err)
	}
	_, err = Validate(checksOf(t, `{"regex": "(?=x)"}`))
	if err == nil || !strings.Contains(err.Hint, "RE2") {
		t.Errorf("bad regex hint should name RE2: %v", err)
	}
}

func TestValidateChecksSchemaSize(t *testing.T) {
	props := map[string]any{}
	for i := 0; i < 600; i++ {
		props[strings.Repeat("p", i+1)] = map[string]any{"type": "string"}
	}
	_, err := Validate(map[string]any{"json_schema": map[string]any{"type": "object", "properties": props}})
	if err == nil || !strings.Contains(err.Message, "more than 500") {
		t.Errorf("a schema of 602 nodes should be refused, got %v", err)
	}
}

func checkResultNamed(t *testing.T, checks map[string]any, content string, name string) axp.CheckResult {
	t.Helper()
	for _, r := range Run(checks, []byte(content)) {
		if r.Name == name {
			return r
		}
	}
	t.Fatalf("no result named %s", name)
	return axp.CheckResult{}
}

func TestRunChecks(t *testing.T) {
	report := "Report\r\ntotal: 4\r\nstatus: ok\r\n"
	tests := []struct {
		name    string
		checks  string
		content string
		pass    bool
		detail  string // substring of the detail, when given
	}{
		// sizes
		{"max_bytes", `{"max_bytes": 5}`, "hello", true, "5 bytes"},
		{"max_bytes", `{"max_bytes": 4096}`, strings.Repeat("x", 4512), false, "4,512 bytes; at most 4,096 allowed"},
		{"min_bytes", `{"min_bytes": 1}`, "", false, "0 bytes; at least 1 required"},
		{"min_bytes", `{"min_bytes": 1}`, "x", true, "1 byte"},
		{"max_lines", `{"max_lines": 2}`, "a\nb\n", true, "2 lines"},
		{"max_lines", `{"max_lines": 2}`, "a\nb\nc", false, "3 lines; at most 2 allowed"},
		{"max_lines", `{"max_lines": 0}`, "", true, "0 lines"},
		{"min_lines", `{"min_lines": 2}`, "a\n", false, "1 line; at least 2 required"},
		{"min_lines", `{"min_lines": 2}`, "a\n\n", true, "2 lines"},
		{"min_lines", `{"min_lines": 1}`, "\n", true, "1 line"},
		// lines
		{"must_contain_lines", `{"must_contain_lines": ["total: 4", "status: ok"]}`, report, true, ""},
		{"must_contain_lines", `{"must_contain_lines": ["Report", "total: 4", "status: done"]}`, report, false, `missing line 3 of 3: "status: done"`},
		{"must_contain_lines", `{"must_contain_lines": ["a", "total: 5", "c"]}`, report, false, `missing lines 1, 2 and 3 of 3: "a", "total: 5", "c"`},
		{"must_contain_lines", `{"must_contain_lines": "total"}`, report, false, `missing line "total"`},
		{"must_contain_lines", `{"must_contain_lines": ["x", "total: 4"]}`, "total: 4 \nx", false, `line 1 of the content differs only in spacing: "total: 4 "`},
		{"must_contain_lines", `{"must_contain_lines": ["last"]}`, "first\nlast", true, ""},
		{"must_contain_lines", `{"must_contain_lines": ["a"]}`, "", false, `missing line "a"`},
		// substrings
		{"must_contain", `{"must_contain": "total: 4"}`, report, true, ""},
		{"must_contain", `{"must_contain": ["Report", "grand"]}`, report, false, `missing string 2 of 2: "grand"`},
		{"must_contain", `{"must_contain": "report"}`, report, false, `"report" appears with different letter case at line 1`},
		{"must_contain", `{"must_contain": "x"}`, "", false, `missing string "x"`},
		{"must_not_contain", `{"must_not_contain": ["TODO", "FIXME"]}`, report, true, ""},
		{"must_not_contain", `{"must_not_contain": "status"}`, report, false, `found "status" at line 3`},
		{"must_not_contain", `{"must_not_contain": ["Report", "x", "ok"]}`, report, false, `found 2 of 3: "Report" at line 1, "ok" at line 3`},
		// regex
		{"regex", `{"regex": "total: \\d+"}`, report, true, ""},
		{"regex", `{"regex": ["total: \\d+", "sum: \\d+"]}`, report, false, "no match for pattern 2 of 2: `sum: \\d+`"},
		{"regex", `{"regex": "^total: \\d+$"}`, "head\ntotal: 4\n", false, "would match with (?m)"},
		{"regex", `{"regex": "(?m)^total: \\d+$"}`, "head\ntotal: 4\n", true, ""},
		{"regex", `{"regex": "x"}`, "", false, "no match for `x`"},
		// json
		{"json", `{"json": true}`, `{"total": 4}`, true, "valid JSON (an object)"},
		{"json", `{"json": true}`, " [1, 2] \n", true, "an array"},
		{"json", `{"json": true}`, "{\n  \"a\": 1,\n}", false, "not valid JSON: invalid character '}' looking for beginning of object key string at line 3, column 1"},
		{"json", `{"json": true}`, `{"a": 1`, false, "ends before the JSON value is complete"},
		{"json", `{"json": true}`, "{} {}", false, "unexpected data after the JSON value at line 1, column 4"},
		{"json", `{"json": true}`, "", false, "the content is empty"},
		{"json", `{"json": true}`, "\xef\xbb\xbf{}", false, "byte order mark"},
		{"json", `{"json": true}`, string(pngBytes), false, "not UTF-8 text (byte 0x89 at offset 0)"},
		// json_schema
		{"json_schema", `{"json_schema": {"type": "object", "required": ["total"], "properties": {"total": {"type": "integer", "minimum": 0}}}}`,
			`{"total": 4}`, true, ""},
		{"json_schema", `{"json_schema": {"type": "object", "required": ["total"]}}`, `{"sum": 4}`, false, "at $: missing property 'total'"},
		{"json_schema", `{"json_schema": {"type": "object", "properties": {"items": {"type": "array", "items": {"type": "number"}}}}}`,
			`{"items": [1, 2, "3"]}`, false, "at $.items[2]: got string, want number"},
		{"json_schema", `{"json_schema": {"type": "object", "additionalProperties": false, "properties": {"a": true}}}`, `{"a": 1, "b": 2}`, false, "additional properties 'b' not allowed"},
		{"json_schema", `{"json_schema": {"type": "array", "minItems": 2}}`, `[1]`, false, "at $: minItems: got 1, want 2"},
		{"json_schema", `{"json_schema": {"type": "string", "pattern": "^[a-z]+$"}}`, `"abc"`, true, ""},
		{"json_schema", `{"json_schema": {"type": "string", "pattern": "^[a-z]+$"}}`, `"ab1"`, false, "does not match pattern"},
		{"json_schema", `{"json_schema": {"type": "string", "format": "date-time"}}`, `"yesterday"`, false, "is not valid date-time"},
		{"json_schema", `{"json_schema": {"type": "number", "multipleOf": 0.01}}`, `1.005`, false, "multipleOf"},
		{"json_schema", `{"json_schema": {"type": "number", "exclusiveMinimum": 0}}`, `0`, false, "exclusiveMinimum"},
		{"json_schema", `{"json_schema": {"type": "integer"}}`, `4.0`, true, ""},
		{"json_schema", `{"json_schema": {"type": "integer"}}`, `4.5`, false, "want integer"},
		{"json_schema", `{"json_schema": {"type": ["string", "null"]}}`, `null`, true, ""},
		{"json_schema", `{"json_schema": {"type": "string"}}`, `null`, false, "got null, want string"},
		{"json_schema", `{"json_schema": {}}`, `[1, "a"]`, true, ""},
		{"json_schema", `{"json_schema": {}}`, `not json`, false, "not valid JSON"},
		{"json_schema", `{"json_schema": {"type": "object"}}`, string(pngBytes), false, "not valid JSON"},
		// enum and const: string enums fix the type, so the number 1 does not pass as "1"
		{"json_schema", `{"json_schema": {"enum": ["1", "2"]}}`, `1`, false, "value must be one of"},
		{"json_schema", `{"json_schema": {"enum": ["1", "2"]}}`, `"2"`, true, ""},
		{"json_schema", `{"json_schema": {"enum": [true]}}`, `"true"`, false, "value must be true"},
		{"json_schema", `{"json_schema": {"enum": ["a", null]}}`, `null`, true, ""},
		{"json_schema", `{"json_schema": {"enum": ["a"]}}`, `null`, false, "value must be 'a'"},
		{"json_schema", `{"json_schema": {"type": ["string", "null"], "enum": ["a"]}}`, `null`, false, "value must be 'a'"},
		{"json_schema", `{"json_schema": {"type": ["string", "null"], "enum": ["a", null]}}`, `null`, true, ""},
		// numeric enums compare by value, not by spelling
		{"json_schema", `{"json_schema": {"enum": [1, 2.5]}}`, `2.50`, true, ""},
		{"json_schema", `{"json_schema": {"enum": [1, 2.5, 1.0]}}`, `1e0`, true, ""},
		{"json_schema", `{"json_schema": {"enum": [1, 2.5]}}`, `3`, false, "one of 1, 2.5"},
		{"json_schema", `{"json_schema": {"type": "object", "properties": {"n": {"const": 3}}}}`, `{"n": 3.0}`, true, ""},
		{"json_schema", `{"json_schema": {"type": "object", "properties": {"n": {"const": 3}}}}`, `{"n": "3"}`, false, "at $.n: value must be 3"},
		// oneOf branches inherit the enclosing type
		{"json_schema", `{"json_schema": {"type": "object", "oneOf": [{"required": ["a"]}, {"required": ["b"]}]}}`, `{"a": 1}`, true, ""},
		{"json_schema", `{"json_schema": {"type": "object", "oneOf": [{"required": ["a"]}, {"required": ["b"]}]}}`, `{"a": 1, "b": 2}`, false, "subschemas 0, 1 matched"},
		// mime_type
		{"mime_type", `{"mime_type": "text/plain"}`, "hello", true, "text/plain"},
		{"mime_type", `{"mime_type": "text/plain"}`, string(pngBytes), false, "the content looks like image/png, not text/plain"},
		{"mime_type", `{"mime_type": "image/png"}`, string(pngBytes), true, "image/png"},
		{"mime_type", `{"mime_type": "image/*"}`, string(pngBytes), true, ""},
		{"mime_type", `{"mime_type": "image/*"}`, "hello", false, "looks like text/plain, not image/*"},
		{"mime_type", `{"mime_type": "image/jpeg"}`, string(pngBytes), false, "looks like image/png, not image/jpeg"},
		{"mime_type", `{"mime_type": "application/json"}`, `{"a": [1, 2]}`, true, "application/json"},
		{"mime_type", `{"mime_type": "application/json"}`, `{"a": [1, 2]`, false, "looks like text/plain, not application/json"},
		{"mime_type", `{"mime_type": "text/plain"}`, `{"a": 1}`, true, ""},
		{"mime_type", `{"mime_type": "text/*"}`, `{"a": 1}`, true, ""},
		{"mime_type", `{"mime_type": "text/markdown"}`, "# Title\n\nSome *text*.\n", true, "text/markdown"},
		{"mime_type", `{"mime_type": "text/markdown"}`, "Intro\n\n- one\n- two\n", true, ""},
		{"mime_type", `{"mime_type": "text/markdown"}`, "See [the docs](https://x.test/a).", true, ""},
		{"mime_type", `{"mime_type": "text/markdown"}`, "Just a sentence of prose.\nAnd another one.\n", false, "looks like text/plain, not text/markdown"},
		{"mime_type", `{"mime_type": "text/markdown"}`, `{"title": "# x"}`, false, "looks like application/json"},
		{"mime_type", `{"mime_type": "text/csv"}`, "name,total\r\nann,4\r\nbob,5\r\n", true, "text/csv"},
		{"mime_type", `{"mime_type": "text/csv"}`, "name,total\nann,4,extra\n", false, "not text/csv"},
		{"mime_type", `{"mime_type": "text/csv"}`, "just one line, with a comma\n", false, "not text/csv"},
		{"mime_type", `{"mime_type": "text/html"}`, "<!DOCTYPE html><html><body>hi</body></html>", true, "text/html"},
		{"mime_type", `{"mime_type": "application/xml"}`, "<?xml version=\"1.0\"?><a/>", true, ""},
		{"mime_type", `{"mime_type": "application/pdf"}`, "%PDF-1.7\n...", true, ""},
		{"mime_type", `{"mime_type": "text/plain"}`, "text" + strings.Repeat(" ", 600) + "\x00\x01binary", false, "looks like application/octet-stream"},
		{"mime_type", `{"mime_type": "text/plain; charset=utf-8"}`, "héllo", true, ""},
		{"mime_type", `{"mime_type": "text/plain; charset=utf-8"}`, "h\xe9llo", false, "not valid UTF-8 (byte 0xe9 at offset 1)"},
		{"mime_type", `{"mime_type": "text/plain; charset=us-ascii"}`, "héllo", false, "not ASCII (byte 0xc3 at offset 1)"},
		{"mime_type", `{"mime_type": "text/plain"}`, "", true, ""},
	}
	for _, tt := range tests {
		r := checkResultNamed(t, checksOf(t, tt.checks), tt.content, tt.name)
		if r.Passed != tt.pass || !strings.Contains(r.Detail, tt.detail) {
			t.Errorf("%s on %.40q: got passed=%v %q; want passed=%v with %q", tt.checks, tt.content, r.Passed, r.Detail, tt.pass, tt.detail)
		}
		// Every check set in this table is valid at creation too.
		if _, err := Validate(checksOf(t, tt.checks)); err != nil {
			t.Errorf("%s: refused at creation: %v", tt.checks, err)
		}
	}
}

func TestRunChecksOrderAndPassed(t *testing.T) {
	checks := checksOf(t, `{"regex": "a", "json": true, "max_bytes": 10, "must_contain": "b", "json_schema": {"type": "array"}}`)
	results := Run(checks, []byte(`["a","b"]`))
	var names []string
	for _, r := range results {
		names = append(names, r.Name)
	}
	if want := []string{"json", "json_schema", "max_bytes", "must_contain", "regex"}; !reflect.DeepEqual(names, want) {
		t.Errorf("order: got %v, want %v", names, want)
	}
	if !Passed(results) {
		t.Errorf("all should pass: %+v", results)
	}
	results = Run(checks, []byte(`["a","c"]`))
	if Passed(results) {
		t.Errorf("must_contain should fail: %+v", results)
	}
	if !Passed(nil) || len(Run(nil, []byte("x"))) != 0 {
		t.Error("no checks pass and give no results")
	}
	// "json": false asks for nothing and gives no result.
	if r := Run(map[string]any{"json": false}, []byte("x")); len(r) != 0 {
		t.Errorf("json false: %+v", r)
	}
}

// TestRunChecksRefusesDamagedChecks: a stored check set is not trusted; a key it cannot run fails.
func TestRunChecksRefusesDamagedChecks(t *testing.T) {
	results := Run(map[string]any{
		"max_bytes":   "ten",
		"regex":       "(",
		"colour":      "blue",
		"json_schema": map[string]any{"type": "object", "if": true},
	}, []byte("x"))
	if len(results) != 4 {
		t.Fatalf("want 4 results, got %+v", results)
	}
	for _, r := range results {
		if r.Passed || r.Detail == "" {
			t.Errorf("%s should fail with a detail: %+v", r.Name, r)
		}
	}
	if results[0].Name != "colour" || !strings.Contains(results[0].Detail, "unknown check") {
		t.Errorf("unknown key: %+v", results[0])
	}
}

// TestChecksSurviveStorage: a normalized check set stored as JSON and read back (numbers as
// float64, or as json.Number with UseNumber) validates and runs the same.
func TestChecksSurviveStorage(t *testing.T) {
	in := checksOf(t, `{
		"must_contain_lines": "total: 4",
		"must_contain": ["Report"],
		"must_not_contain": "TODO",
		"max_bytes": 4096, "min_bytes": 10, "max_lines": 20, "min_lines": 2,
		"json": false,
		"mime_type": "text/plain; charset=utf-8",
		"regex": "total: \\d+",
		"json_schema": {"type": "object", "properties": {"n": {"enum": [1, 2.5]}, "s": {"type": "string", "maxLength": 10}}}
	}`)
	norm, err := Validate(in)
	if err != nil {
		t.Fatal(err)
	}
	raw, jerr := json.Marshal(norm)
	if jerr != nil {
		t.Fatal(jerr)
	}
	var asFloat map[string]any
	if err := json.Unmarshal(raw, &asFloat); err != nil {
		t.Fatal(err)
	}
	asNumber := checksOf(t, string(raw))

	pass := []byte("Report\ntotal: 4\n")
	fail := []byte("Report\ntotal: x\nTODO\n" + strings.Repeat("y", 5000))
	want := func(c map[string]any) ([]axp.CheckResult, []axp.CheckResult) {
		return Run(c, pass), Run(c, fail)
	}
	wantPass, wantFail := want(norm)
	for _, r := range wantPass {
		if !r.Passed && r.Name != "json_schema" { // the text content is not JSON
			t.Errorf("%s should pass: %+v", r.Name, r)
		}
	}
	if Passed(wantFail) {
		t.Errorf("should fail: %+v", wantFail)
	}
	for name, stored := range map[string]map[string]any{"float64": asFloat, "json.Number": asNumber} {
		gotPass, gotFail := want(stored)
		if !reflect.DeepEqual(gotPass, wantPass) || !reflect.DeepEqual(gotFail, wantFail) {
			t.Errorf("%s: results differ after storage:\n%+v\n%+v", name, gotPass, gotFail)
		}
		again, err := Validate(stored)
		if err != nil {
			t.Errorf("%s: stored checks refused: %v", name, err)
			continue
		}
		raw2, _ := json.Marshal(again)
		if !bytes.Equal(raw, raw2) {
			t.Errorf("%s: normalization is not stable:\n%s\n%s", name, raw, raw2)
		}
	}

	// The schema's enum survives storage too.
	schema := map[string]any{"json_schema": asFloat["json_schema"]}
	for content, ok := range map[string]bool{`{"n": 2.50}`: true, `{"n": 1}`: true, `{"n": 3}`: false, `{"s": "01234567890"}`: false} {
		if got := Passed(Run(schema, []byte(content))); got != ok {
			t.Errorf("stored schema on %s: passed=%v, want %v", content, got, ok)
		}
	}
}

func TestChecksLargeAndBinaryContent(t *testing.T) {
	checks, err := Validate(checksOf(t, `{
		"must_contain_lines": ["needle"], "must_contain": "needle", "must_not_contain": "\u0000x",
		"max_bytes": 300000, "min_bytes": 1, "max_lines": 1000000, "min_lines": 1,
		"json": true, "json_schema": {"type": "object"}, "mime_type": "text/plain",
		"regex": "(a|aa)*b"
	}`))
	if err != nil {
		t.Fatal(err)
	}
	big := bytes.Repeat([]byte("aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\n"), 8192) // 256 KB of lines
	big = append(big, "needle\n"...)
	for _, content := range [][]byte{big, pngBytes, {}, {0xff, 0xfe, 0x00}, bytes.Repeat([]byte{0}, 1000)} {
		results := Run(checks, content)
		if len(results) != len(checks) {
			t.Errorf("%d bytes: %d results for %d checks", len(content), len(results), len(checks))
		}
		for _, r := range results {
			if strings.Contains(r.Detail, "internal error") {
				t.Errorf("%d bytes: %s: %s", len(content), r.Name, r.Detail)
			}
		}
	}
	r := checkResultNamed(t, checks, string(big), "must_contain_lines")
	if !r.Passed {
		t.Errorf("needle line not found in large content: %+v", r)
	}
}

func TestCheckCount(t *testing.T) {
	for n, want := range map[int64]string{0: "0", 999: "999", 1000: "1,000", 4096: "4,096", 262144: "262,144", 1234567: "1,234,567", -4512: "-4,512"} {
		if got := checkCount(n); got != want {
			t.Errorf("checkCount(%d) = %q, want %q", n, got, want)
		}
	}
}

// TestJSONSchemaFullDraft: json_schema is full JSON Schema 2020-12: $ref into $defs, anyOf, allOf,
// if/then, prefixItems, minProperties and exclusiveMaximum are enforced, formats are asserted.
func TestJSONSchemaFullDraft(t *testing.T) {
	schema := `{"json_schema": {
		"$defs": {"line": {"type": "object", "required": ["sku", "qty"], "properties": {
			"sku": {"type": "string", "pattern": "^[A-Z]{3}-[0-9]+$"},
			"qty": {"type": "integer", "exclusiveMinimum": 0, "exclusiveMaximum": 100}}}},
		"type": "object", "minProperties": 2,
		"properties": {
			"lines": {"type": "array", "items": {"$ref": "#/$defs/line"}, "minItems": 1},
			"pair": {"type": "array", "prefixItems": [{"type": "string"}, {"type": "number"}]},
			"contact": {"anyOf": [{"type": "string", "format": "email"}, {"type": "null"}]},
			"total": {"allOf": [{"type": "number"}, {"minimum": 0}]},
			"kind": {"enum": ["gift", "order"]}},
		"if": {"required": ["kind"], "properties": {"kind": {"const": "gift"}}}, "then": {"required": ["message"]}}}`
	checks, err := Validate(checksOf(t, schema))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		content string
		pass    bool
		detail  string
	}{
		{`{"lines": [{"sku": "ABC-1", "qty": 2}], "total": 4, "contact": "ops@example.com", "pair": ["a", 1]}`, true, ""},
		{`{"lines": [{"sku": "ABC-1", "qty": 100}], "total": 4}`, false, "at $.lines[0].qty"},
		{`{"lines": [{"sku": "abc", "qty": 1}], "total": 4}`, false, "at $.lines[0].sku"},
		{`{"lines": [{"sku": "ABC-1", "qty": 1}]}`, false, "minProperties"},
		{`{"lines": [{"sku": "ABC-1", "qty": 1}], "total": -1}`, false, "at $.total"},
		{`{"lines": [{"sku": "ABC-1", "qty": 1}], "contact": "not an address"}`, false, "at $.contact"},
		{`{"lines": [{"sku": "ABC-1", "qty": 1}], "pair": [1, 1]}`, false, "at $.pair[0]"},
		{`{"lines": [{"sku": "ABC-1", "qty": 1}], "kind": "gift"}`, false, "missing property 'message'"},
		{`{"lines": [{"sku": "ABC-1", "qty": 1}], "kind": "gift", "message": "enjoy"}`, true, ""},
	}
	for _, tt := range tests {
		r := Run(checks, []byte(tt.content))
		if len(r) != 1 || r[0].Passed != tt.pass || !strings.Contains(r[0].Detail, tt.detail) {
			t.Errorf("%s: got %+v, want passed=%v with %q", tt.content, r, tt.pass, tt.detail)
		}
	}
}
