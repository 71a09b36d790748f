package protocol

import (
	"encoding/json"
	"net/url"
	"sort"
	"strings"
)

// FromQuery turns query parameters into a JSON-like object typed by s: integers and numbers become
// json.Number, booleans bool, arrays are read from repeated keys or comma lists. Keys s does not
// declare go to extra (when extra is non-nil) or are kept as strings, so that Validate names them.
// skip lists keys to ignore (such as "token").
func FromQuery(s *Schema, q url.Values, extra map[string]any, skip ...string) map[string]any {
	out := map[string]any{}
	keys := make([]string, 0, len(q))
	for k := range q {
		keys = append(keys, k)
	}
	sort.Strings(keys)
next:
	for _, k := range keys {
		for _, sk := range skip {
			if k == sk {
				continue next
			}
		}
		vals := q[k]
		p, ok := s.Properties[k]
		if !ok {
			if extra != nil {
				extra[k] = vals[len(vals)-1]
				continue
			}
			out[k] = vals[len(vals)-1]
			continue
		}
		out[k] = coerce(p, vals)
	}
	return out
}

func coerce(p *Schema, vals []string) any {
	last := vals[len(vals)-1]
	switch p.PrimaryType() {
	case "integer", "number":
		// Only JSON number text becomes a number: strconv would also take "0x10", "1_000", "Inf"
		// and "NaN", which no JSON client could send and json.Marshal refuses to write.
		if t := strings.TrimSpace(last); isJSONNumber(t) {
			return json.Number(t)
		}
		return last
	case "boolean":
		switch strings.ToLower(last) {
		case "true", "1", "yes", "":
			return true
		case "false", "0", "no":
			return false
		}
		return last
	case "array":
		if len(vals) == 1 && strings.HasPrefix(strings.TrimSpace(last), "[") {
			// An array as JSON in one key, for items that hold commas.
			var a []any
			d := json.NewDecoder(strings.NewReader(last))
			d.UseNumber()
			if d.Decode(&a) == nil {
				return a
			}
		}
		var items []string
		for _, v := range vals {
			for _, x := range strings.Split(v, ",") {
				if x = strings.TrimSpace(x); x != "" {
					items = append(items, x)
				}
			}
		}
		out := make([]any, len(items))
		for i, x := range items {
			out[i] = coerce(itemsOf(p), []string{x})
		}
		return out
	case "object":
		var m map[string]any
		d := json.NewDecoder(strings.NewReader(last))
		d.UseNumber()
		if d.Decode(&m) == nil {
			return m
		}
		return last
	}
	return last
}

func itemsOf(p *Schema) *Schema {
	if p.Items != nil {
		return p.Items
	}
	return &Schema{}
}

// QueryValues is url.Values, re-exported so callers need not import net/url for FromQuery.
type QueryValues = url.Values

// Coerce types string values of m by the properties of s, as FromQuery does; values of other types
// are left alone. It is for values that arrived as query text.
func Coerce(s *Schema, m map[string]any) {
	for k, v := range m {
		if str, ok := v.(string); ok {
			if p, ok := s.Properties[k]; ok {
				m[k] = coerce(p, []string{str})
			}
		}
	}
}
