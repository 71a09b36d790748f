package contract

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"reflect"
	"strings"

	"github.com/axp-exchange/axp"
)

// Route resolves a call of the operation called name from the catalog: its HTTP method, its path
// with the path parameters filled in from in (and, for a query-string input, the query), and its
// JSON body (nil when it has none). get asks for the operation's GET form. Every Go client of the
// exchange (the client package, memberkit) builds its requests here, so none keeps paths of its own.
func Route(name string, in any, get bool) (method, path string, body []byte, err error) {
	op := Lookup(name)
	if op == nil {
		return "", "", nil, fmt.Errorf("no operation %q", name)
	}
	fields, err := toMap(in)
	if err != nil {
		return "", "", nil, err
	}
	method = op.Method
	if get {
		if !op.GETForm && op.Method != http.MethodGet {
			return "", "", nil, fmt.Errorf("%s has no GET form", name)
		}
		method = http.MethodGet
	}
	path = op.Path
	if method != op.Method {
		path = op.GETFormPath()
	}
	for _, p := range op.PathParams() {
		v, ok := fields[p]
		if !ok {
			return "", "", nil, axp.Invalid(p, "is required", "give the "+p+" of the call")
		}
		path = strings.Replace(path, "{"+p+"}", url.PathEscape(fmt.Sprint(v)), 1)
		delete(fields, p)
	}
	if op.QueryInput(method) {
		q := url.Values{}
		for k, v := range fields {
			if k == op.ExtraQuery {
				if m, ok := v.(map[string]any); ok {
					for pk, pv := range m {
						q.Set(pk, fmt.Sprint(pv))
					}
				}
				continue
			}
			addQuery(q, k, v)
		}
		if len(q) > 0 {
			path += "?" + q.Encode()
		}
		return method, path, nil, nil
	}
	if op.In != nil {
		if body, err = json.Marshal(fields); err != nil {
			return "", "", nil, err
		}
	}
	return method, path, body, nil
}

func addQuery(q url.Values, k string, v any) {
	switch x := v.(type) {
	case []any:
		for _, e := range x {
			q.Add(k, fmt.Sprint(e))
		}
	case map[string]any:
		b, _ := json.Marshal(x)
		q.Set(k, string(b))
	case nil:
	case json.Number:
		q.Set(k, x.String())
	default:
		q.Set(k, fmt.Sprint(x))
	}
}

// toMap turns an input value into its JSON object form (numbers kept exact).
func toMap(in any) (map[string]any, error) {
	if in == nil {
		return map[string]any{}, nil
	}
	if m, ok := in.(map[string]any); ok {
		out := make(map[string]any, len(m))
		for k, v := range m {
			out[k] = v
		}
		return out, nil
	}
	if rv := reflect.ValueOf(in); rv.Kind() == reflect.Pointer && rv.IsNil() {
		return map[string]any{}, nil
	}
	raw, err := json.Marshal(in)
	if err != nil {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var m map[string]any
	if err := dec.Decode(&m); err != nil {
		return nil, fmt.Errorf("input must be a JSON object: %w", err)
	}
	return m, nil
}
