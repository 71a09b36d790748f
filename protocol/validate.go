package protocol

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/big"
	"reflect"
	"regexp"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"unicode/utf8"
)

// patterns caches compiled patterns. Schema patterns come from the code and, through acceptance
// checks, from buyers, so the cache is bounded: past maxPatterns, patterns compile on each use.
var (
	patterns     sync.Map // string -> *regexp.Regexp
	patternCount atomic.Int64
)

const maxPatterns = 4096

// compiled returns the compiled pattern, or nil when it does not compile (it then matches nothing).
func compiled(p string) *regexp.Regexp {
	if r, ok := patterns.Load(p); ok {
		return r.(*regexp.Regexp)
	}
	r, err := regexp.Compile(p)
	if err != nil {
		return nil
	}
	if patternCount.Load() < maxPatterns {
		if _, loaded := patterns.LoadOrStore(p, r); !loaded {
			patternCount.Add(1)
		}
	}
	return r
}

func joinPath(base, name string) string {
	if base == "" {
		return name
	}
	return base + "." + name
}

// Validate checks a decoded JSON value (numbers as json.Number) against s. The first violation is
// returned as an invalid_input Error naming the field by its dotted path under base.
func Validate(s *Schema, v any, base string) *Error {
	if s == nil {
		return nil
	}
	field := base
	if field == "" {
		field = "body"
	}
	if v == nil {
		if (s.Type == nil && len(s.OneOf) == 0) || s.nullable() {
			return nil
		}
		want := article(s.PrimaryType())
		if s.Type == nil {
			want = "a value"
			if s.Description != "" {
				want = s.Description
			}
		}
		return Invalid(field, "must not be null", "give "+want+" or leave the field out")
	}
	t := s.PrimaryType()
	switch t {
	case "object":
		m, ok := v.(map[string]any)
		if !ok {
			return typeErr(field, "an object", v)
		}
		for _, r := range s.Required {
			if _, ok := m[r]; !ok {
				return Invalid(joinPath(base, r), "is required", describe(s.Properties[r]))
			}
		}
		keys := make([]string, 0, len(m))
		for k := range m {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			p, known := s.Properties[k]
			if !known {
				switch ap := s.AdditionalProperties.(type) {
				case bool:
					if !ap {
						return Invalid(joinPath(base, k), "is not a known field", knownFields(s))
					}
					continue
				case *Schema:
					p = ap
				default:
					continue
				}
			}
			if err := Validate(p, m[k], joinPath(base, k)); err != nil {
				return err
			}
		}
	case "array":
		a, ok := v.([]any)
		if !ok {
			return typeErr(field, "an array", v)
		}
		if s.MinItems != nil && len(a) < *s.MinItems {
			return Invalid(field, fmt.Sprintf("must have at least %d item(s)", *s.MinItems), "")
		}
		if s.MaxItems != nil && len(a) > *s.MaxItems {
			return Invalid(field, fmt.Sprintf("has %d items; at most %d are allowed", len(a), *s.MaxItems), "")
		}
		for i, x := range a {
			if err := Validate(s.Items, x, fmt.Sprintf("%s[%d]", field, i)); err != nil {
				return err
			}
		}
	case "string":
		str, ok := v.(string)
		if !ok {
			return typeErr(field, "a string", v)
		}
		n := utf8.RuneCountInString(str)
		if !utf8.ValidString(str) {
			return Invalid(field, "is not valid UTF-8", "")
		}
		if s.MinLength != nil && n < *s.MinLength {
			if *s.MinLength == 1 {
				return Invalid(field, "must not be empty", "")
			}
			return Invalid(field, fmt.Sprintf("must be at least %d characters", *s.MinLength), "")
		}
		if s.MaxLength != nil && n > *s.MaxLength {
			return Invalid(field, fmt.Sprintf("is %d characters; at most %d are allowed", n, *s.MaxLength), "shorten it")
		}
		if re := compiled(s.Pattern); s.Pattern != "" && (re == nil || !re.MatchString(str)) {
			if s.Pattern == TaskTypePattern {
				return CheckTaskType(field, str)
			}
			return Invalid(field, fmt.Sprintf("%q does not match the pattern %s", clip(str), s.Pattern), "")
		}
		if err := checkFormat(s.Format, str, field); err != nil {
			return err
		}
	case "integer", "number":
		r, num, problem, ok := numberOf(v)
		if !ok {
			return typeErr(field, "a number", v)
		}
		if problem == notANumber {
			return typeErr(field, "a number", v)
		}
		if problem != "" {
			return Invalid(field, clip(num)+" "+problem, "")
		}
		if t == "integer" && !r.IsInt() {
			return Invalid(field, fmt.Sprintf("must be a whole number, not %s", num), "")
		}
		if s.Minimum != "" && r.Cmp(rat(s.Minimum)) < 0 {
			return Invalid(field, fmt.Sprintf("is %s; the minimum is %s", num, s.Minimum), "")
		}
		if s.ExclusiveMinimum != "" && r.Cmp(rat(s.ExclusiveMinimum)) <= 0 {
			return Invalid(field, fmt.Sprintf("is %s; it must be greater than %s", num, s.ExclusiveMinimum), "")
		}
		if s.Maximum != "" && r.Cmp(rat(s.Maximum)) > 0 {
			return Invalid(field, fmt.Sprintf("is %s; the maximum is %s", num, s.Maximum), "")
		}
		if s.MultipleOf != "" {
			q := new(big.Rat).Quo(r, rat(s.MultipleOf))
			if !q.IsInt() {
				m := s.MultipleOf.String()
				if m == "1" {
					return Invalid(field, fmt.Sprintf("must be a whole number, not %s", num), "")
				}
				if strings.HasPrefix(m, "0.") && strings.HasSuffix(m, "1") && strings.Trim(m[2:len(m)-1], "0") == "" {
					return Invalid(field, fmt.Sprintf("%s has too many decimals; at most %d are allowed", num, len(m)-2), "")
				}
				return Invalid(field, fmt.Sprintf("%s is not a multiple of %s", num, s.MultipleOf), "")
			}
		}
	case "boolean":
		if _, ok := v.(bool); !ok {
			return typeErr(field, "true or false", v)
		}
	}
	if len(s.OneOf) > 0 {
		if err := validateOneOf(s, v, base, field); err != nil {
			return err
		}
	}
	if len(s.Enum) > 0 {
		for _, e := range s.Enum {
			if fmt.Sprint(e) == fmt.Sprint(v) {
				return nil
			}
		}
		return Invalid(field, fmt.Sprintf("%q is not one of the allowed values", clip(fmt.Sprint(v))), "use one of: "+enumList(s.Enum))
	}
	return nil
}

// validateOneOf requires v to match exactly one of s.OneOf. When it matches none, the error is the
// one of the shape v most resembles (the most of its properties present), so that a decline with a
// bad reason_code is told about reason_code rather than about a missing price.
func validateOneOf(s *Schema, v any, base, field string) *Error {
	matched := 0
	var best *Error
	bestScore := 0
	m, _ := v.(map[string]any)
	for _, b := range s.OneOf {
		err := Validate(b, v, base)
		if err == nil {
			matched++
			continue
		}
		score := 0
		for k := range m {
			if _, ok := b.Properties[k]; ok {
				score++
			}
		}
		if score > bestScore {
			best, bestScore = err, score
		}
	}
	switch {
	case matched == 1:
		return nil
	case matched > 1:
		return Invalid(field, "matches more than one of the allowed shapes ("+shapeNames(s)+")", "send the fields of one shape only")
	case best != nil:
		return best
	}
	hint := ""
	if s.Description != "" {
		hint = "send " + s.Description
	}
	return Invalid(field, "does not match any of the allowed shapes ("+shapeNames(s)+")", hint)
}

func shapeNames(s *Schema) string {
	names := make([]string, len(s.OneOf))
	for i, b := range s.OneOf {
		names[i] = b.Title
		if names[i] == "" {
			names[i] = b.PrimaryType()
		}
	}
	return strings.Join(names, ", ")
}

// rat reads a schema's bound (minimum, maximum, multipleOf). Bounds are few and answers are many
// (a quote round validates a thousand), so each is read once and kept; the values kept are shared
// and must not be changed.
func rat(n json.Number) *big.Rat {
	ratMu.RLock()
	r, ok := rats[n]
	ratMu.RUnlock()
	if ok {
		return r
	}
	r, _ = new(big.Rat).SetString(n.String())
	ratMu.Lock()
	if len(rats) < maxRats {
		rats[n] = r
	}
	ratMu.Unlock()
	return r
}

// maxRats bounds the bounds kept by rat, should schemas ever come with endless distinct ones.
const maxRats = 1024

var (
	ratMu sync.RWMutex
	rats  = map[json.Number]*big.Rat{}
)

func clip(s string) string {
	if len(s) > 60 {
		return s[:57] + "..."
	}
	return s
}

func enumList(e []any) string {
	parts := make([]string, len(e))
	for i, x := range e {
		parts[i] = fmt.Sprint(x)
	}
	return strings.Join(parts, ", ")
}

func knownFields(s *Schema) string {
	names := append([]string(nil), s.PropertyOrder()...)
	if len(names) == 0 {
		return "this object takes no fields"
	}
	return "known fields: " + strings.Join(names, ", ")
}

func describe(s *Schema) string {
	if s == nil {
		return ""
	}
	d := "give " + article(s.PrimaryType())
	if s.Description != "" {
		d += ": " + s.Description
	}
	if len(s.Enum) > 0 {
		d += " (one of: " + enumList(s.Enum) + ")"
	}
	return d
}

func article(t string) string {
	switch t {
	case "":
		return "a value"
	case "object", "array", "integer":
		return "an " + t
	}
	return "a " + t
}

func typeErr(field, want string, got any) *Error {
	return Invalid(field, fmt.Sprintf("must be %s, not %s", want, jsonKind(got)), "")
}

func jsonKind(v any) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case string:
		return fmt.Sprintf("the string %q", clip(x))
	case json.Number:
		return "the number " + x.String()
	case bool:
		return fmt.Sprint(x)
	case []any:
		return "an array"
	case map[string]any:
		return "an object"
	}
	if _, text, _, ok := numberOf(v); ok {
		return "the number " + text
	}
	return fmt.Sprintf("%T", v)
}

// Decode parses raw JSON, validates it against the schema of dst's type and, if valid, decodes it
// into dst. Every failure is an invalid_input Error naming the field.
func Decode(raw []byte, dst any) *Error {
	v, err := ParseJSON(raw)
	if err != nil {
		return err
	}
	return DecodeValue(v, dst)
}

// DecodeValue validates an already parsed value and decodes it into dst. Numbers that land in
// untyped places (map[string]any, any) stay json.Number, exact, as ParseJSON gives them.
func DecodeValue(v any, dst any) *Error {
	s := SchemaOf(typeOf(dst))
	if err := Validate(s, v, ""); err != nil {
		return err
	}
	b, err := json.Marshal(integral(s, v))
	if err != nil {
		return Invalid("body", "cannot be read: "+err.Error(), "")
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	if err := dec.Decode(dst); err != nil {
		var ute *json.UnmarshalTypeError
		if errors.As(err, &ute) {
			return Invalid(ute.Field, "has the wrong type: "+ute.Value, "")
		}
		return Invalid("body", err.Error(), "")
	}
	return nil
}

// ParseJSON parses one JSON value with numbers kept exact.
func ParseJSON(raw []byte) (any, *Error) {
	if len(bytes.TrimSpace(raw)) == 0 {
		return nil, Invalid("body", "is empty", "send a JSON object")
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, Invalid("body", "is not valid JSON: "+jsonErr(err), "check quoting, commas and brackets")
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, Invalid("body", "has data after the JSON value", "send exactly one JSON object")
	}
	return v, nil
}

func jsonErr(err error) string {
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return fmt.Sprintf("%s (at byte %d)", se.Error(), se.Offset)
	}
	return err.Error()
}

func typeOf(dst any) reflect.Type { return reflect.TypeOf(dst).Elem() }

// integral rewrites numbers that the schema declares integer (and that validation found whole, such
// as 5.0 or 1e0) in plain integer form, so that they decode into Go integer fields.
func integral(s *Schema, v any) any {
	if s == nil {
		return v
	}
	switch x := v.(type) {
	case json.Number:
		if s.PrimaryType() == "integer" {
			if r, problem := parseNumber(x.String()); problem == "" && r.IsInt() {
				return json.Number(r.Num().String())
			}
		}
	case map[string]any:
		for k, e := range x {
			p := s.Properties[k]
			if p == nil {
				p, _ = s.AdditionalProperties.(*Schema)
			}
			x[k] = integral(p, e)
		}
	case []any:
		for i, e := range x {
			x[i] = integral(s.Items, e)
		}
	}
	return v
}

var lenientCache sync.Map // *Schema -> *Schema

// Lenient returns a copy of s that allows unknown properties at every level. Answers from member
// agents are read leniently (a member may add fields this exchange does not know yet); everything
// sent to the exchange stays strict.
func Lenient(s *Schema) *Schema {
	if s == nil {
		return nil
	}
	if l, ok := lenientCache.Load(s); ok {
		return l.(*Schema)
	}
	l := lenientCopy(s)
	lenientCache.Store(s, l)
	return l
}

func lenientCopy(s *Schema) *Schema {
	if s == nil {
		return nil
	}
	c := clone(s)
	if b, ok := c.AdditionalProperties.(bool); ok && !b {
		c.AdditionalProperties = nil
	}
	if ap, ok := c.AdditionalProperties.(*Schema); ok {
		c.AdditionalProperties = lenientCopy(ap)
	}
	if len(s.Properties) > 0 {
		c.Properties = make(map[string]*Schema, len(s.Properties))
		for k, p := range s.Properties {
			c.Properties[k] = lenientCopy(p)
		}
	}
	c.Items = lenientCopy(s.Items)
	if len(s.OneOf) > 0 {
		c.OneOf = make([]*Schema, len(s.OneOf))
		for i, o := range s.OneOf {
			c.OneOf[i] = lenientCopy(o)
		}
	}
	return c
}

// DecodeAnswer validates a member's answer leniently (unknown fields allowed and ignored) and
// decodes it into dst.
func DecodeAnswer(v any, dst any) *Error {
	s := Lenient(SchemaOf(typeOf(dst)))
	if err := Validate(s, v, ""); err != nil {
		return err
	}
	b, err := json.Marshal(integral(s, v))
	if err != nil {
		return Invalid("body", "cannot be read: "+err.Error(), "")
	}
	if err := json.Unmarshal(b, dst); err != nil {
		var ute *json.UnmarshalTypeError
		if errors.As(err, &ute) {
			return Invalid(ute.Field, "has the wrong type: "+ute.Value, "")
		}
		return Invalid("body", err.Error(), "")
	}
	return nil
}
