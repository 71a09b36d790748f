package memberkit

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/axp-exchange/axp"
	"github.com/axp-exchange/axp/protocol"
)

// UnknownTaskType is a skill's task_type that is neither in the exchange's catalog nor offered by
// any other seller: buyers post catalog types, so a typo here matches no task.
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

// UnknownTaskTypes checks the task types of skills against the exchange's catalog and what
// verified sellers offer (GET /api/services). The member itself, once verified, is among those
// sellers: with a member secret its own skills are not counted.
func (c *Client) UnknownTaskTypes(ctx context.Context, skills []protocol.Skill) ([]UnknownTaskType, error) {
	var l axp.ServiceList
	if err := c.Call(ctx, "list_services", nil, &l); err != nil {
		return nil, err
	}
	mine := map[string]bool{}
	if c.Secret != "" {
		if p, err := c.Profile(ctx); err == nil && p.State == axp.MemberVerified {
			for _, s := range p.Skills {
				mine[s.TaskType] = true
			}
		}
	}
	known := map[string]bool{}
	for _, s := range l.Services {
		known[s.Type] = true
	}
	for _, o := range l.OnOffer {
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
	for _, s := range skills {
		t := s.TaskType
		if known[t] || seen[t] {
			continue
		}
		seen[t] = true
		u := UnknownTaskType{TaskType: t}
		for k := range known {
			if d := protocol.EditDistance(strings.ToLower(t), k); d <= 2 || (len(t) >= 4 && strings.Contains(k, strings.ToLower(t))) {
				u.Suggestions = append(u.Suggestions, k)
			}
		}
		sort.Strings(u.Suggestions)
		out = append(out, u)
	}
	return out, nil
}
