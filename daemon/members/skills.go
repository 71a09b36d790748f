package members

import (
	"github.com/axp-exchange/axp"
)

// skillWarnings names the skills whose task type neither the catalog nor any other seller
// offers, with the known types it is close to: such a skill gets no task unless a buyer types the
// same word, and is most often a typo ("text-files" for text-file).
func (s *Service) skillWarnings(pm *axp.PrivateMember) []string {
	if len(pm.Skills) == 0 {
		return nil
	}
	offer, err := s.OnOffer()
	if err != nil {
		return nil
	}
	mine := map[string]bool{}
	types := make([]string, len(pm.Skills))
	for i, v := range pm.Skills {
		types[i] = v.TaskType
		if pm.State == axp.MemberVerified {
			mine[v.TaskType] = true // its own offers are among on_offer: they do not make a type known
		}
	}
	var out []string
	for _, u := range axp.UnknownTaskTypes(types, offer, mine) {
		out = append(out, u.String())
	}
	return out
}

// warned adds the skill warnings to a member's private record.
func (s *Service) warned(pm *axp.PrivateMember) *axp.PrivateMember {
	pm.SkillWarnings = s.skillWarnings(pm)
	return pm
}
