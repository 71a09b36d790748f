package daemon_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/axp-exchange/axp"
	"github.com/axp-exchange/axp/contract"
	"github.com/axp-exchange/axp/store"
)

// The look-alikes an audit found: a variation selector, a Hangul filler drawn blank, an
// all-Cyrillic word that reads as Latin, fullwidth and mathematical letters.
var auditLookAlikes = []string{"video\uFE0F", "\u3164", "\u0430\u0440\u0435", "\uFF56\uFF49\uFF44\uFF45\uFF4F", "\U0001D42F\U0001D422\U0001D41D"}

// Interest is a task type: a slug, or a 400 naming the field with what a slug is (and the slug
// meant, when the text folds to one); /api/services republishes none of the look-alikes, not
// even one recorded before the rule.
func TestInterestTypeIsSlug(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	for _, typ := range auditLookAlikes {
		err := apiErr(t, e.anon.Call(ctx, "register_interest", map[string]any{"type": typ}, nil), axp.CodeInvalidInput, "type")
		if !strings.Contains(err.Hint, "slug") {
			t.Errorf("%q: hint %q does not say what a task type is", typ, err.Hint)
		}
	}
	err := apiErr(t, e.anon.Call(ctx, "register_interest", map[string]any{"type": "\uFF56\uFF49\uFF44\uFF45\uFF4F"}, nil), axp.CodeInvalidInput, "type")
	if !strings.Contains(err.Hint, `"video"`) {
		t.Errorf("hint %q does not suggest video", err.Hint)
	}
	// Recorded before types were held to slugs.
	if err := e.d.DB().Update(func(tx *store.Tx) error {
		return tx.PutSubmission(store.KindInterest, &store.Submission{ID: axp.NewID("int", time.Now()), Actor: "buyer",
			CreatedAt: time.Now(), Body: []byte(`{"type":"\uff56\uff49\uff44\uff45\uff4f"}`)})
	}); err != nil {
		t.Fatal(err)
	}
	callOp(t, e.anon, contract.RegisterInterest, axp.Interest{Type: "video"})
	var sl axp.ServiceList
	sl = *callOp(t, e.anon, contract.ListServices, contract.NoInput{})
	if len(sl.Demand) != 1 || sl.Demand[0].TaskType != "video" || sl.Demand[0].Requests != 1 {
		t.Fatalf("demand %+v", sl.Demand)
	}
	// The other doors that take a task type from outside hold it to the same rule.
	apiErr(t, e.anon.Call(ctx, "list_sellers", map[string]any{"task_type": "\uFF56\uFF49\uFF44\uFF45\uFF4F"}, nil), axp.CodeInvalidInput, "task_type")
	apiErr(t, e.anon.Call(ctx, "create_task", map[string]any{"type": "\u0430\u0440\u0435", "description": "a poem"}, nil), axp.CodeInvalidInput, "type")
	apiErr(t, e.anon.Call(ctx, "register", map[string]any{"name": "Skilled", "roles": []string{"seller"},
		"skills": []map[string]any{{"task_type": "video\uFE0F"}}}, nil), axp.CodeInvalidInput, "skills[0].task_type")
}

// Member names are folded (NFKC) and refused when they hold hidden or filler characters,
// contact details, or read like another member's name; names in other scripts stay welcome.
func TestRegisterNameLookAlikes(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	for _, n := range []string{"video", "ape", "vid", "Alice", "BOB"} {
		e.register(map[string]any{"name": n, "roles": []string{"buyer"}})
	}
	for _, n := range append(auditLookAlikes, "bob@example.com", "call +1 415 555 0100", "\u0410lice",
		"\u0412\u041E\u0412", "alice", "\uFF21\uFF4C\uFF49\uFF43\uFF45") {
		apiErr(t, e.anon.Call(ctx, "register", map[string]any{"name": n, "roles": []string{"buyer"}}, nil), axp.CodeInvalidInput, "name")
	}
	// Алиса is another name, in Cyrillic; a fullwidth name is stored in its plain form.
	alisa := e.register(map[string]any{"name": "\u0410\u043B\u0438\u0441\u0430", "roles": []string{"buyer"}})
	if alisa.Member.Name != "\u0410\u043B\u0438\u0441\u0430" {
		t.Fatalf("name %q", alisa.Member.Name)
	}
	carol := e.register(map[string]any{"name": "\uFF43\uFF41\uFF52\uFF4F\uFF4C", "roles": []string{"buyer"}})
	if carol.Member.Name != "carol" {
		t.Fatalf("fullwidth name stored as %q", carol.Member.Name)
	}
	// Renaming follows the same rules; a member may keep its own name.
	apiErr(t, carol.c.Call(ctx, "update_profile", map[string]any{"name": "\u0410lice"}, nil), axp.CodeInvalidInput, "name")
	apiErr(t, carol.c.Call(ctx, "update_profile", map[string]any{"name": "\u0430\u0440\u0435"}, nil), axp.CodeInvalidInput, "name")
	apiErr(t, carol.c.Call(ctx, "update_profile", map[string]any{"name": "carol@example.com"}, nil), axp.CodeInvalidInput, "name")
	callOp(t, carol.c, contract.UpdateProfile, axp.ProfileUpdate{Name: ptr("Carol")})
	// An all-Cyrillic name that reads as no one's is accepted.
	e.register(map[string]any{"name": "\u0412\u0410\u0420", "roles": []string{"buyer"}})
	// agent_name is public too.
	apiErr(t, e.anon.Call(ctx, "create_task", map[string]any{"type": "text-file", "params": map[string]any{"prompt": "a poem"},
		"agent_name": "bob@example.com"}, nil), axp.CodeInvalidInput, "agent_name")
}
