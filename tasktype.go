package axp

import (
	"fmt"
	"sort"
	"strings"

	"github.com/axp-exchange/axp/protocol"
)

// UnknownTaskType is a skill's task_type that is neither in the exchange's catalog nor offered by
// any other seller: buyers post catalog types, so such a skill matches a task only if a buyer types
// the same word, and it is most often a typo ("text-files" for text-file).
type UnknownTaskType struct {
	TaskType string `json:"task_type"`
	// Suggestions are the known task types close to it ("did you mean").
	Suggestions []string `json:"suggestions,omitempty"`
}

// String is the warning to show.
func (u UnknownTaskType) String() string {
	s := fmt.Sprintf("skill task_type %q is neither in the exchange's catalog nor offered by any other seller, so no buyer's task will match it", u.TaskType)
	if len(u.Suggestions) > 0 {
		s += "; did you mean " + strings.Join(u.Suggestions, " or ") + "?"
	} else {
		s += " (see the catalog with `axp services`)"
	}
	return s
}

// UnknownTaskTypes checks task types against the catalog and what verified sellers offer now
// (onOffer, as GET /api/services lists it). mine holds the member's own task types when it is a
// verified seller: its own offers are among onOffer and do not make a type known.
func UnknownTaskTypes(types []string, onOffer []OnOffer, mine map[string]bool) []UnknownTaskType {
	known := map[string]bool{}
	for _, s := range Services {
		known[s.Type] = true
	}
	for _, o := range onOffer {
		others := o.Providers
		if mine[o.TaskType] {
			others--
		}
		if o.InCatalog || others > 0 {
			known[o.TaskType] = true
		}
	}
	var out []UnknownTaskType
	seen := map[string]bool{}
	for _, t := range types {
		if known[t] || seen[t] {
			continue
		}
		seen[t] = true
		u := UnknownTaskType{TaskType: t}
		lt := strings.ToLower(t)
		for k := range known {
			if protocol.EditDistance(lt, k) <= 2 || (len(lt) >= 4 && (strings.Contains(k, lt) || strings.Contains(lt, k))) {
				u.Suggestions = append(u.Suggestions, k)
			}
		}
		sort.Strings(u.Suggestions)
		out = append(out, u)
	}
	return out
}
