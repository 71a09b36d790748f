package checks

import (
	"errors"
	"fmt"
	"net/url"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"golang.org/x/text/language"
	"golang.org/x/text/message"

	"github.com/axp-exchange/axp"
	"github.com/axp-exchange/axp/protocol"
)

// The json_schema check: a full JSON Schema (draft 2020-12 unless the schema's $schema names an
// earlier draft), validated by santhosh-tekuri/jsonschema. $ref works within the schema ($defs,
// JSON pointers, anchors); a reference to anything outside it is refused when the task is posted,
// so checking never reaches the network. Formats are asserted (date-time, email, uri, ... and the
// exchange's evm-address and http-url), so that a schema that names one means it.

// schemaURL is the address the buyer's schema is compiled under; relative references resolve
// against it and stay inside it.
const schemaURL = "mem:///acceptance-check.json"

var printer = message.NewPrinter(language.English)

// noRemote refuses every schema the buyer's schema would load from elsewhere.
type noRemote struct{}

func (noRemote) Load(u string) (any, error) {
	return nil, fmt.Errorf("%s is outside the schema", u)
}

var customFormats = []*jsonschema.Format{
	{Name: "evm-address", Validate: func(v any) error {
		if s, ok := v.(string); ok && !protocol.IsEVMAddress(s) {
			return errors.New("not an EVM address (0x and 40 hex digits)")
		}
		return nil
	}},
	{Name: "http-url", Validate: func(v any) error {
		if s, ok := v.(string); ok {
			u, err := url.Parse(s)
			if err != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https") {
				return errors.New("not an absolute http or https URL")
			}
		}
		return nil
	}},
}

type schemaCheck struct{ schema *jsonschema.Schema }

func parseSchemaCheck(v any, field string) (any, checker, *axp.Error) {
	if _, ok := v.(map[string]any); !ok {
		return nil, nil, axp.Invalid(field, "must be a JSON Schema object, not "+checkKind(v), "give the schema itself, for example {\"type\": \"object\", \"required\": [\"total\"]}")
	}
	norm, err := normalizeJSONValue(v, field, 0)
	if err != nil {
		return nil, nil, err
	}
	if n := countSchemaNodes(norm); n > checkMaxSchemas {
		return nil, nil, axp.Invalid(field, fmt.Sprintf("has %d objects and arrays, more than %d", n, checkMaxSchemas), "simplify the schema")
	}
	sch, err := compileSchema(norm, field)
	if err != nil {
		return nil, nil, err
	}
	return norm, schemaCheck{sch}, nil
}

// compileSchema compiles a buyer's schema; a problem is an invalid_input error naming the keyword.
func compileSchema(doc any, field string) (*jsonschema.Schema, *axp.Error) {
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	c.AssertFormat()
	c.UseLoader(noRemote{})
	for _, f := range customFormats {
		c.RegisterFormat(f)
	}
	if err := c.AddResource(schemaURL, doc); err != nil {
		return nil, axp.Invalid(field, "is not a usable JSON Schema: "+err.Error(), "")
	}
	sch, err := c.Compile(schemaURL)
	if err == nil {
		return sch, nil
	}
	var sve *jsonschema.SchemaValidationError
	if errors.As(err, &sve) {
		if ve, ok := sve.Err.(*jsonschema.ValidationError); ok {
			loc, msg := leafError(ve)
			return nil, axp.Invalid(field+dotted(loc), "is not valid JSON Schema: "+msg, "see https://json-schema.org/draft/2020-12 for the keywords")
		}
	}
	var lue *jsonschema.LoadURLError
	if errors.As(err, &lue) {
		return nil, axp.Invalid(field, "refers to "+lue.URL+", which is outside the schema",
			"put the referenced schema under $defs and refer to it as #/$defs/NAME")
	}
	var pnf *jsonschema.JSONPointerNotFoundError
	if errors.As(err, &pnf) {
		_, frag, _ := strings.Cut(pnf.URL, "#")
		return nil, axp.Invalid(field, "refers to #"+frag+", which the schema does not define",
			"define it under $defs, or fix the $ref")
	}
	var ire *jsonschema.InvalidRegexError
	if errors.As(err, &ire) {
		return nil, axp.Invalid(field+dotted(pointerOf(ire.URL)), "is not a valid regular expression: "+ire.Err.Error(),
			"patterns use RE2 syntax: no lookaround or backreferences")
	}
	msg := err.Error()
	if i := strings.Index(msg, schemaURL); i >= 0 {
		msg = strings.ReplaceAll(msg, schemaURL, "the schema")
	}
	return nil, axp.Invalid(field, "is not a usable JSON Schema: "+msg, "")
}

func (c schemaCheck) run(s *checkSubject) (bool, string) {
	v, problem := s.parsed()
	if problem != "" {
		return false, "not valid JSON: " + problem
	}
	err := c.schema.Validate(v)
	if err == nil {
		return true, ""
	}
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return false, err.Error()
	}
	loc, msg := leafError(ve)
	return false, "at " + jsonPath(loc) + ": " + msg
}

// leafError is the first innermost cause of a validation error: where (the instance location) and
// what, as the library words it.
func leafError(ve *jsonschema.ValidationError) ([]string, string) {
	for len(ve.Causes) > 0 {
		ve = ve.Causes[0]
	}
	return ve.InstanceLocation, ve.ErrorKind.LocalizedString(printer)
}

// jsonPath writes an instance location as $.a.b[2].
func jsonPath(loc []string) string {
	var b strings.Builder
	b.WriteString("$")
	for _, p := range loc {
		if p != "" && strings.Trim(p, "0123456789") == "" {
			b.WriteString("[" + p + "]")
		} else {
			b.WriteString("." + p)
		}
	}
	return b.String()
}

// dotted writes a location inside the schema as the suffix of a field name: .properties.n.
func dotted(loc []string) string {
	var b strings.Builder
	for _, p := range loc {
		if p != "" && strings.Trim(p, "0123456789") == "" {
			b.WriteString("[" + p + "]")
		} else {
			b.WriteString("." + p)
		}
	}
	return b.String()
}

// pointerOf splits the JSON pointer fragment of a schema URL into its tokens.
func pointerOf(u string) []string {
	_, frag, ok := strings.Cut(u, "#")
	if !ok || frag == "" || frag == "/" {
		return nil
	}
	var out []string
	for _, t := range strings.Split(strings.TrimPrefix(frag, "/"), "/") {
		t = strings.ReplaceAll(strings.ReplaceAll(t, "~1", "/"), "~0", "~")
		if un, err := url.PathUnescape(t); err == nil {
			t = un
		}
		out = append(out, t)
	}
	return out
}

// countSchemaNodes counts the objects and arrays of a schema document, a bound on its size.
func countSchemaNodes(v any) int {
	switch x := v.(type) {
	case map[string]any:
		n := 1
		for _, e := range x {
			n += countSchemaNodes(e)
		}
		return n
	case []any:
		n := 1
		for _, e := range x {
			n += countSchemaNodes(e)
		}
		return n
	}
	return 0
}
