package daemon

import (
	"fmt"
	"sort"
	"strings"

	"github.com/axp-exchange/axp"
	"github.com/axp-exchange/axp/protocol"
)

// skillWarnings names the skills whose task type neither the catalog nor any other seller
// offers, with the known types it is close to: such a skill gets no task unless a buyer types the
// same word, and is most often a typo ("text-files" for text-file).
func (d *Daemon) skillWarnings(pm *axp.PrivateMember) []string {
	if len(pm.Skills) == 0 {
		return nil
	}
	offer, err := d.onOffer()
	if err != nil {
		return nil
	}
	known := map[string]bool{}
	for _, s := range axp.Services {
		known[s.Type] = true
	}
	mine := map[string]bool{}
	if pm.State == axp.MemberVerified {
		// Its own offers count among on_offer: they do not make a type known.
		for _, s := range pm.Skills {
			mine[s.TaskType] = true
		}
	}
	for _, o := range offer {
		others := o.Providers
		if mine[o.TaskType] {
			others--
		}
		if others > 0 {
			known[o.TaskType] = true
		}
	}
	var out []string
	seen := map[string]bool{}
	for _, s := range pm.Skills {
		t := s.TaskType
		if known[t] || seen[t] {
			continue
		}
		seen[t] = true
		var near []string
		for k := range known {
			if protocol.EditDistance(t, k) <= 2 || (len(t) >= 4 && (strings.Contains(k, t) || strings.Contains(t, k))) {
				near = append(near, k)
			}
		}
		sort.Strings(near)
		w := fmt.Sprintf("task_type %q is neither in the catalog nor offered by any other seller: buyers find it only by that exact word", t)
		if len(near) > 0 {
			w += "; did you mean " + strings.Join(near, " or ") + "?"
		}
		out = append(out, w)
	}
	return out
}

// withSkillWarnings adds the skill warnings to a member's own view.
func (d *Daemon) withSkillWarnings(out any, err error) (any, error) {
	if err != nil {
		return out, err
	}
	switch v := out.(type) {
	case axp.PrivateMember:
		v.SkillWarnings = d.skillWarnings(&v)
		return v, nil
	case *axp.Registered:
		v.Member.SkillWarnings = d.skillWarnings(&v.Member)
		return v, nil
	}
	return out, nil
}
