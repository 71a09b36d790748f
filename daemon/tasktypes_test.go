package daemon_test

import (
	"strings"
	"testing"

	"github.com/axp-exchange/axp"
	"github.com/axp-exchange/axp/contract"
)

// A skill whose task type no catalog entry and no other seller has is warned about at
// registration, on the profile, on a skills update and in conformance, with a did-you-mean; in
// conformance it is a required check: such a seller is never matched, so it does not conform.
func TestSkillTaskTypeWarnings(t *testing.T) {
	e := newEnv(t)
	m := e.register(map[string]any{"roles": []string{"seller"}, "skills": []map[string]any{{"task_type": "text-files"}, {"task_type": "video"}}})
	w := m.Member.SkillWarnings
	if len(w) != 1 || !strings.Contains(w[0], `"text-files"`) || !strings.Contains(w[0], "did you mean text-file?") {
		t.Fatalf("at registration: %q", w)
	}
	var me axp.PrivateMember
	me = *callOp(t, m.c, contract.GetMyProfile, contract.NoInput{})
	if len(me.SkillWarnings) != 1 {
		t.Fatalf("profile: %q", me.SkillWarnings)
	}
	me = axp.PrivateMember{}
	call(t, m.c, "update_skills", map[string]any{"skills": []map[string]any{{"task_type": "text-file"}, {"task_type": "web-research"}}}, &me)
	if len(me.SkillWarnings) != 1 || !strings.Contains(me.SkillWarnings[0], `"web-research"`) || strings.Contains(me.SkillWarnings[0], "did you mean") {
		t.Fatalf("after update: %q", me.SkillWarnings)
	}
	// Once another verified seller offers it, the type is known; when that seller is no longer
	// verified, it is not (on_offer is cached until what verified sellers offer changes, however
	// the change is written).
	other := e.verified(map[string]any{"roles": []string{"seller"}, "skills": []map[string]any{{"task_type": "web-research"}}})
	me = axp.PrivateMember{}
	me = *callOp(t, m.c, contract.GetMyProfile, contract.NoInput{})
	if len(me.SkillWarnings) != 0 {
		t.Fatalf("offered by another seller: %q", me.SkillWarnings)
	}
	e.setState(other.MemberID, axp.MemberUnreachable)
	me = axp.PrivateMember{}
	me = *callOp(t, m.c, contract.GetMyProfile, contract.NoInput{})
	if len(me.SkillWarnings) != 1 {
		t.Fatalf("the other seller unreachable: %q", me.SkillWarnings)
	}
	e.setState(other.MemberID, axp.MemberVerified)
	call(t, m.c, "update_skills", map[string]any{"skills": []map[string]any{{"task_type": "imagez"}}}, &me)
	var rep axp.Conformance
	rep = *callOp(t, m.c, contract.RunConformance, axp.EmptyInput{})
	found := false
	for _, s := range rep.Checks {
		if s.Name == "task_types" {
			found = true
			if s.OK || s.Level != axp.LevelRequired || !strings.Contains(s.Detail, "did you mean image?") || rep.Passed || rep.Failed == 0 {
				t.Fatalf("conformance step %+v", s)
			}
		}
	}
	if !found {
		t.Fatalf("no task_types check in %+v", rep.Checks)
	}
}
