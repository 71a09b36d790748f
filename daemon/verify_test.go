package daemon_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/axp-exchange/axp"
	"github.com/axp-exchange/axp/contract"
	"github.com/axp-exchange/axp/daemon"
	"github.com/axp-exchange/axp/daemon/kernel/kerneltest"
	"github.com/axp-exchange/axp/protocol"
)

// signingAnswers makes a push seller answer contact_test correctly with its platform key.
func signingAnswers(key *[]byte) map[string]func(map[string]any) any {
	return map[string]func(map[string]any) any{
		"contact_test": func(args map[string]any) any {
			nonce, _ := args["nonce"].(string)
			return map[string]any{"nonce": nonce, "signature": protocol.ContactTestSignature(*key, nonce)}
		},
	}
}

func TestVerifyPushSellerAndConformance(t *testing.T) {
	e := newMarket(t)
	var key []byte
	p := e.newPushSeller("text-file", signingAnswers(&key), nil, nil)
	key = []byte(p.PlatformKey)
	e.setState(p.MemberID, axp.MemberRegistered)

	var v axp.Verification
	v = *callOp(t, p.c, contract.Verify, axp.EmptyInput{})
	if !v.Passed || v.State != axp.MemberVerified || v.Mode != "push" {
		t.Fatalf("verification: %+v", v)
	}
	names := map[string]bool{}
	for _, s := range v.Steps {
		names[s.Name] = s.OK
	}
	for _, n := range []string{"contact_test", "tools_list", "get_skills", "quote", "task_update"} {
		if !names[n] {
			t.Errorf("step %s missing or failed: %+v", n, v.Steps)
		}
	}
	var me axp.PrivateMember
	me = *callOp(t, p.c, contract.GetMyProfile, contract.NoInput{})
	if !me.Verified || len(me.LastChecks) == 0 {
		t.Errorf("profile after verify: verified %v, checks %d", me.Verified, len(me.LastChecks))
	}

	var rep axp.Conformance
	rep = *callOp(t, p.c, contract.RunConformance, axp.EmptyInput{})
	if !rep.Passed || rep.Failed != 0 {
		t.Fatalf("conformance: %+v", rep)
	}
	for _, n := range []string{"refuses_forged_signature", "refuses_stale_timestamp", "refuses_future_timestamp", "refuses_missing_headers", "refuses_other_member", "honest_quote:text-file", "timing"} {
		found := false
		for _, c := range rep.Checks {
			if c.Name == n && c.OK {
				found = true
			}
		}
		if !found {
			t.Errorf("conformance check %s missing or failed: %+v", n, rep.Checks)
		}
	}
	if p.refusedCount() < 5 {
		t.Errorf("the seller refused %d forged calls; the conformance test sends 5", p.refusedCount())
	}
	// This test seller answers a replayed call again: reported as a warning, the run still passes.
	var replay axp.Step
	for _, c := range rep.Checks {
		if c.Name == "refuses_replay" {
			replay = c
		}
	}
	if replay.OK || replay.Level != axp.LevelWarning || replay.Hint == "" || rep.Warnings != 1 || !strings.Contains(rep.Summary, "1 warning") {
		t.Errorf("replay check of a member that accepts replays: %+v (warnings %d, %q)", replay, rep.Warnings, rep.Summary)
	}
}

// A member built exactly to spec section 5 (timestamp and signature checked, X-AX-Member-Id not)
// passes conformance: refuses_other_member is a warning, with its hint.
func TestConformanceSpecOnlyMemberPasses(t *testing.T) {
	e := newMarket(t)
	var key []byte
	p := e.newPushSeller("text-file", signingAnswers(&key), nil, nil)
	key = []byte(p.PlatformKey)
	p.mu.Lock()
	p.specOnly = true
	p.mu.Unlock()
	var rep axp.Conformance
	rep = *callOp(t, p.c, contract.RunConformance, axp.EmptyInput{})
	if !rep.Passed || rep.Failed != 0 {
		t.Fatalf("conformance of a spec-only member: %+v", rep)
	}
	for _, c := range rep.Checks {
		if c.Name == "refuses_other_member" && (c.OK || c.Level != axp.LevelWarning || c.Hint == "") {
			t.Fatalf("refuses_other_member: %+v", c)
		}
	}
}

func TestVerifyPushSellerFailsWithHints(t *testing.T) {
	e := newMarket(t)
	p := e.newPushSeller("text-file", nil, nil, nil) // answers contact_test with a wrong signature
	e.setState(p.MemberID, axp.MemberRegistered)
	var v axp.Verification
	v = *callOp(t, p.c, contract.Verify, axp.EmptyInput{})
	if v.Passed || v.State != axp.MemberRegistered || len(v.Steps) == 0 || v.Steps[0].OK || v.Steps[0].Hint == "" {
		t.Fatalf("verification of a wrong signature: %+v", v)
	}
	// An instant price the seller does not honour fails the honesty check.
	var key []byte
	answers := signingAnswers(&key)
	answers["quote"] = func(map[string]any) any { return map[string]any{"price_usd": 9, "eta_minutes": 30} }
	q := e.newPushSeller("video", answers, nil, map[string]any{"skills": []map[string]any{
		{"task_type": "video", "instant_price_usd": 4, "instant_eta_minutes": 30}}})
	key = []byte(q.PlatformKey)
	var rep axp.Conformance
	rep = *callOp(t, q.c, contract.RunConformance, axp.EmptyInput{})
	if rep.Passed {
		t.Fatalf("conformance passed a seller that does not honour its instant price: %+v", rep)
	}
	for _, c := range rep.Checks {
		if c.Name == "honest_quote:video" && (c.OK || !strings.Contains(c.Detail, "instant price")) {
			t.Errorf("honesty check: %+v", c)
		}
	}
}

func TestVerifyPullSellerWithPracticeRequest(t *testing.T) {
	e := newMarket(t)
	s := e.register(map[string]any{"roles": []string{"seller"}, "skills": []map[string]any{{"task_type": "image", "min_price_usd": 1}}})
	var v axp.Verification
	v = *callOp(t, s.c, contract.Verify, axp.EmptyInput{})
	if v.Passed || v.Practice == nil || !strings.HasPrefix(v.Practice.TaskID, "prc_") || v.Practice.TaskType != "image" {
		t.Fatalf("first verify of a pull member: %+v", v)
	}
	var reqs axp.TaskList
	reqs = *callOp(t, s.c, contract.ListQuoteRequests, contract.NoInput{})
	if len(reqs.Tasks) != 1 || reqs.Tasks[0].ID != v.Practice.TaskID {
		t.Fatalf("quote requests of an unverified pull member: %+v", reqs.Tasks)
	}
	// The practice request names the buyer a push member's test quote call names.
	if b := reqs.Tasks[0].Buyer; b == nil || *b != (protocol.BuyerRef{ID: "anonymous", Name: "exchange test buyer", Anonymous: true}) {
		t.Fatalf("practice request buyer %+v", b)
	}
	// A bad answer is refused with the rule; a good one is recorded.
	if err := s.c.Call(context.Background(), "submit_offer", map[string]any{"id": v.Practice.TaskID, "price_usd": 1.234, "eta_minutes": 5}, nil); err == nil {
		t.Fatal("a 3-decimal price was accepted")
	}
	callOp(t, s.c, contract.SubmitOffer, axp.OfferInput{ID: v.Practice.TaskID, QuoteAnswer: protocol.QuoteAnswer{PriceUSD: ptr(axp.USD(1, 50)), ETAMinutes: ptr(5)}})
	v = *callOp(t, s.c, contract.Verify, axp.EmptyInput{})
	if !v.Passed || v.State != axp.MemberVerified {
		t.Fatalf("second verify: %+v", v)
	}
	var rep axp.Conformance
	rep = *callOp(t, s.c, contract.RunConformance, axp.EmptyInput{})
	if !rep.Passed {
		t.Fatalf("pull conformance: %+v", rep)
	}
}

func TestLivenessMakesSilentMembersUnreachable(t *testing.T) {
	clock := kerneltest.NewClock(time.Now())
	e := newMarket(t, func(c *daemon.Config) { c.Now = clock.Now })
	var key []byte
	good := e.newPushSeller("text-file", signingAnswers(&key), nil, nil)
	key = []byte(good.PlatformKey)
	good.useClock(clock.Now)
	bad := e.newPushSeller("text-file", nil, nil, nil) // wrong contact_test answers
	bad.useClock(clock.Now)
	pull := e.pullSeller("text-file", nil)

	for day := 1; day <= 2; day++ {
		clock.Add(25 * time.Hour)
		e.d.Liveness()
	}
	state := func(m *member) string {
		var list axp.MemberList
		list = *callOp(t, e.admin, contract.AdminMembers, axp.MembersQuery{})
		for _, x := range list.Members {
			if x.ID == m.MemberID {
				return x.State
			}
		}
		return ""
	}
	if s := state(good.member); s != axp.MemberVerified {
		t.Errorf("a healthy push seller became %s", s)
	}
	if s := state(bad.member); s != axp.MemberUnreachable {
		t.Errorf("a push seller failing contact_test twice is %s, want unreachable", s)
	}
	if s := state(pull); s != axp.MemberUnreachable {
		t.Errorf("a pull seller silent for two days is %s, want unreachable", s)
	}
}

func TestVerifyPullBuyerAtOnce(t *testing.T) {
	e := newMarket(t)
	b := e.register(map[string]any{"roles": []string{"buyer"}})
	var v axp.Verification
	v = *callOp(t, b.c, contract.Verify, axp.EmptyInput{})
	if !v.Passed || v.State != axp.MemberVerified || v.Practice != nil {
		t.Fatalf("pull buyer verification: %+v", v)
	}
}
