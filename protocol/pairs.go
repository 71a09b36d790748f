package protocol

import (
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"
)

// Pairs renders free-form details (a timeline event's, an audit line's, a task's params) for
// people as key=value, sorted by key: nested objects as key.sub=value, lists comma-separated,
// numbers as written, and absent (null) values left out, so neither Go's map[...] nor <nil>
// reaches a terminal.
func Pairs(m map[string]any) string {
	var parts []string
	addPairs(&parts, "", m)
	return strings.Join(parts, " ")
}

func addPairs(parts *[]string, prefix string, m map[string]any) {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		switch v := m[k].(type) {
		case nil:
		case map[string]any:
			addPairs(parts, prefix+k+".", v)
		default:
			*parts = append(*parts, prefix+k+"="+pairValue(v))
		}
	}
}

func pairValue(v any) string {
	switch v := v.(type) {
	case nil:
		return ""
	case string:
		return v
	case float64:
		return strconv.FormatFloat(v, 'f', -1, 64)
	case json.Number:
		return v.String()
	case []any:
		out := make([]string, 0, len(v))
		for _, x := range v {
			if x != nil {
				out = append(out, pairValue(x))
			}
		}
		return strings.Join(out, ",")
	case []string:
		return strings.Join(v, ",")
	case map[string]any:
		var parts []string
		addPairs(&parts, "", v)
		return "{" + strings.Join(parts, " ") + "}"
	}
	return fmt.Sprint(v)
}
