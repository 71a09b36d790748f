package axp_test

import (
	"encoding/json"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/axp-exchange/axp"
	"github.com/axp-exchange/axp/protocol"
)

func f64(v float64) *float64 { return &v }
func i64(v int64) *int64     { return &v }
func strp(v string) *string  { return &v }

func TestBadges(t *testing.T) {
	cases := []struct {
		name string
		rep  axp.Reputation
		want []string
	}{
		{"nothing yet", axp.Reputation{}, []string{"new"}},
		{"two finished", axp.Reputation{CompletedJobs: 1, DisputedJobs: 1}, []string{"new"}},
		{"three finished", axp.Reputation{CompletedJobs: 2, DisputedJobs: 1}, []string{}},
		{"reliable", axp.Reputation{CompletedJobs: 10, OnTimeJobs: 9}, []string{"reliable"}},
		{"9 completed", axp.Reputation{CompletedJobs: 9, OnTimeJobs: 9}, []string{}},
		{"89% on time", axp.Reputation{CompletedJobs: 100, OnTimeJobs: 89}, []string{}},
		{"5% disputed", axp.Reputation{CompletedJobs: 19, DisputedJobs: 1, OnTimeJobs: 19}, []string{"reliable"}},
		{"over 5% disputed", axp.Reputation{CompletedJobs: 18, DisputedJobs: 1, OnTimeJobs: 18}, []string{}},
		{"first pass pro", axp.Reputation{CompletedJobs: 3, Deliveries: 20, FirstPassJobs: 19}, []string{"first_pass_pro"}},
		{"94% first pass", axp.Reputation{CompletedJobs: 3, Deliveries: 100, FirstPassJobs: 94}, []string{}},
		{"9 deliveries", axp.Reputation{CompletedJobs: 3, Deliveries: 9, FirstPassJobs: 9}, []string{}},
		{"top rated", axp.Reputation{CompletedJobs: 5, Rating: f64(4.8), DistinctReviewers: 5}, []string{"top_rated"}},
		{"4.79", axp.Reputation{CompletedJobs: 5, Rating: f64(4.79), DistinctReviewers: 9}, []string{}},
		{"4 reviewers", axp.Reputation{CompletedJobs: 5, Rating: f64(5), DistinctReviewers: 4}, []string{}},
		{"mean 24/5", axp.Reputation{CompletedJobs: 5, Rating: f64(24.0 / 5), DistinctReviewers: 5}, []string{"top_rated"}},
		{"fast quotes", axp.Reputation{CompletedJobs: 3, QuoteCount: 5, MedianQuoteMillis: i64(999)}, []string{"fast_quotes"}},
		{"1 s median", axp.Reputation{CompletedJobs: 3, QuoteCount: 5, MedianQuoteMillis: i64(1000)}, []string{}},
		{"4 quotes", axp.Reputation{CompletedJobs: 3, QuoteCount: 4, MedianQuoteMillis: i64(10)}, []string{}},
		{"all of them", axp.Reputation{CompletedJobs: 40, OnTimeJobs: 40, Deliveries: 40, FirstPassJobs: 40,
			Rating: f64(5), DistinctReviewers: 12, QuoteCount: 40, MedianQuoteMillis: i64(200)},
			[]string{"reliable", "first_pass_pro", "top_rated", "fast_quotes"}},
	}
	for _, c := range cases {
		got := axp.Badges(c.rep)
		if got == nil || !slices.Equal(got, c.want) {
			t.Errorf("%s: %v, want %v", c.name, got, c.want)
		}
	}
}

func TestSecrets(t *testing.T) {
	id := axp.NewID("mem", time.Now())
	secret := axp.SecretFor(id)
	if !regexp.MustCompile(`^ss_` + id + `_[0-9a-f]{64}$`).MatchString(secret) {
		t.Fatalf("secret %q", secret)
	}
	if got, ok := axp.MemberIDFromSecret(secret); !ok || got != id {
		t.Fatalf("MemberIDFromSecret = %q %v", got, ok)
	}
	if axp.SecretFor(id) == secret {
		t.Fatal("two secrets alike")
	}
	hex64 := strings.Repeat("ab", 32)
	bad := []string{
		"",
		"ss_",
		"ss__" + hex64,                       // empty id
		"xx_mem_1_" + hex64,                  // wrong prefix
		"ss_mem_1_" + hex64[:63],             // 63 hex
		"ss_mem_1_" + hex64 + "a",            // 65 hex
		"ss_mem_1_" + strings.ToUpper(hex64), // upper case
		"ss_mem_1_" + strings.Repeat("zz", 32),
		"ss_mem_1" + hex64, // no separator
	}
	for _, s := range bad {
		if id, ok := axp.MemberIDFromSecret(s); ok {
			t.Errorf("MemberIDFromSecret(%q) = %q, want refusal", s, id)
		}
	}
	if id, ok := axp.MemberIDFromSecret("ss_a_b_c_" + hex64); !ok || id != "a_b_c" {
		t.Errorf("ids with underscores: %q %v", id, ok)
	}
	if r := axp.RandomHex(16); !regexp.MustCompile(`^[0-9a-f]{32}$`).MatchString(r) {
		t.Errorf("RandomHex %q", r)
	}
}

func TestNewID(t *testing.T) {
	base := time.Date(2026, 10, 7, 0, 0, 0, 0, time.UTC)
	re := regexp.MustCompile(`^task_[0-9a-hjkmnp-tv-z]{26}$`)
	var ids []string
	seen := map[string]bool{}
	for i := 0; i < 200; i++ {
		id := axp.NewID("task", base.Add(time.Duration(i)*time.Millisecond))
		if !re.MatchString(id) {
			t.Fatalf("id %q", id)
		}
		if seen[id] {
			t.Fatalf("duplicate %q", id)
		}
		seen[id] = true
		ids = append(ids, id)
	}
	if !sort.StringsAreSorted(ids) {
		t.Fatal("ids of later milliseconds do not sort later")
	}
	// Far apart times sort too (the time part is big-endian).
	a := axp.NewID("x", time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC))
	b := axp.NewID("x", time.Date(2090, 1, 1, 0, 0, 0, 0, time.UTC))
	if a >= b {
		t.Fatalf("%s >= %s", a, b)
	}
	// Same millisecond: still unique.
	if axp.NewID("x", base) == axp.NewID("x", base) {
		t.Fatal("same-millisecond ids collide")
	}
	if !strings.HasPrefix(axp.NewID("mem", base), "mem_") {
		t.Fatal("prefix")
	}
}

func decodeRegistration(t *testing.T, body string) (*axp.Registration, *axp.Error) {
	t.Helper()
	var r axp.Registration
	if err := protocol.Decode([]byte(body), &r); err != nil {
		return nil, err
	}
	return &r, axp.CheckRegistration(&r)
}

func TestCheckRegistration(t *testing.T) {
	ok := []string{
		`{"roles":["buyer"],"name":"Buyer bot"}`,
		`{"roles":["seller"],"name":"S","skills":[{"task_type":"text-file","min_price_usd":0.5}]}`,
		`{"roles":["seller","buyer"],"name":"S","mcp_url":"https://agent.example/mcp","auth_token":null,"payment_methods":["crypto","free"],
		  "skills":[{"task_type":"image","instant_price_usd":0,"instant_eta_minutes":5}],"payout_address":"0x52908400098527886E0F7030069857D2E4169EE7",
		  "identity":{"operator_name":"Ops","agent_framework":"x"}}`,
	}
	for _, b := range ok {
		if _, err := decodeRegistration(t, b); err != nil {
			t.Errorf("%s: %v", b, err)
		}
	}
	bad := []struct{ body, field string }{
		{`{"name":"x"}`, "roles"},
		{`{"roles":[],"name":"x"}`, "roles"},
		{`{"roles":["admin"],"name":"x"}`, "roles[0]"},
		{`{"roles":["buyer"]}`, "name"},
		{`{"roles":["buyer"],"name":"   "}`, "name"},
		{`{"roles":["buyer"],"name":"x","skills":[{"task_type":"text-file"}]}`, "skills"},
		{`{"roles":["seller"],"name":"x","skills":[{"task_type":"Text File"}]}`, "skills[0].task_type"},
		{`{"roles":["seller"],"name":"x","skills":[{"task_type":"abc"},{"task_type":"abc"}]}`, "skills[1].task_type"},
		{`{"roles":["seller"],"name":"x","skills":[{"task_type":"abc","instant_price_usd":0,"instant_eta_minutes":5}]}`, "skills[0].instant_price_usd"},
		{`{"roles":["seller"],"name":"x","mcp_url":"agent.example"}`, "mcp_url"},
		{`{"roles":["seller"],"name":"x","contact_email":"nope"}`, "contact_email"},
		{`{"roles":["seller"],"name":"x","payment_methods":["paypal"]}`, "payment_methods[0]"},
		{`{"roles":["seller"],"name":"x","payout_address":"0x12"}`, "payout_address"},
		{`{"roles":["seller"],"name":"x","identity":{"operator_website":"nope"}}`, "identity.operator_website"},
		{`{"roles":["seller"],"name":"x","secret":"s"}`, "secret"},
	}
	for _, c := range bad {
		_, err := decodeRegistration(t, c.body)
		if err == nil || err.Field != c.field {
			t.Errorf("%s: got %v, want field %s", c.body, err, c.field)
		}
	}
}

func TestNewMember(t *testing.T) {
	now := time.Date(2026, 10, 7, 9, 0, 0, 0, time.UTC)
	r := &axp.Registration{Roles: []string{"seller", "seller", "buyer"}, Name: "  Bot  ", Identity: &axp.Identity{AgentModel: "m"}}
	m := axp.NewMember("mem_1", r, now)
	if m.State != axp.MemberRegistered || m.Name != "Bot" || !slices.Equal(m.Roles, []string{"seller", "buyer"}) ||
		!slices.Equal(m.PaymentMethods, []string{"crypto"}) || m.Identity.AgentModel != "m" || !m.CreatedAt.Equal(now) || !m.PullMode() {
		t.Fatalf("member %+v", m)
	}
	if !m.HasRole("buyer") || !m.Accepts("crypto") || m.Accepts("free") {
		t.Fatal("roles or payment methods")
	}
}

func verifiedMember() *axp.Member {
	now := time.Date(2026, 10, 7, 9, 0, 0, 0, time.UTC)
	m := axp.NewMember("mem_1", &axp.Registration{Roles: []string{"seller"}, Name: "S", MCPURL: "https://a.example/mcp",
		Skills: []axp.Skill{{TaskType: "text-file"}}}, now)
	m.State = axp.MemberVerified
	m.VerifiedAt = &now
	m.AuthTokenEnc = []byte("sealed-old")
	return m
}

func applyJSON(t *testing.T, m *axp.Member, body string) (bool, *axp.Error) {
	t.Helper()
	var u axp.ProfileUpdate
	if err := protocol.Decode([]byte(body), &u); err != nil {
		return false, err
	}
	return m.ApplyUpdate(&u, func(s string) []byte { return []byte("sealed:" + s) }, time.Date(2026, 10, 8, 0, 0, 0, 0, time.UTC))
}

func TestApplyUpdateReverify(t *testing.T) {
	reverify := []string{
		`{"mcp_url":"https://b.example/mcp"}`,
		`{"mcp_url":null}`,
		`{"auth_token":"new-token"}`,
		`{"auth_token":null}`,
		`{"roles":["seller","buyer"]}`,
	}
	for _, b := range reverify {
		m := verifiedMember()
		again, err := applyJSON(t, m, b)
		if err != nil || !again || m.State != axp.MemberRegistered || m.VerifiedAt != nil {
			t.Errorf("%s: reverify %v err %v state %s", b, again, err, m.State)
		}
	}
	keep := []string{
		`{"name":"New name"}`,
		`{"description":"d"}`,
		`{"contact_email":"ops@example.com"}`,
		`{"contact_email":null}`,
		`{"payout_address":"0x52908400098527886E0F7030069857D2E4169EE7"}`,
		`{"preferred_payment":"usdc on base"}`,
		`{"payment_methods":["crypto","free"]}`,
		`{"skills":[{"task_type":"image"}]}`,
		`{"identity":{"agent_model":"m2"}}`,
		`{"mcp_url":"https://a.example/mcp"}`, // the same URL is no change
		`{"roles":["seller"]}`,                // the same roles
		`{"roles":["seller","seller"]}`,       // the same set
		`{}`,
	}
	for _, b := range keep {
		m := verifiedMember()
		again, err := applyJSON(t, m, b)
		if err != nil || again || m.State != axp.MemberVerified || m.VerifiedAt == nil {
			t.Errorf("%s: reverify %v err %v state %s", b, again, err, m.State)
		}
	}
	// A suspended member stays suspended.
	m := verifiedMember()
	m.State = axp.MemberSuspended
	if again, err := applyJSON(t, m, `{"mcp_url":"https://c.example/mcp"}`); err != nil || !again || m.State != axp.MemberSuspended {
		t.Errorf("suspended: %v %v %s", again, err, m.State)
	}
}

func TestApplyUpdateFields(t *testing.T) {
	m := verifiedMember()
	_, err := applyJSON(t, m, `{"name":"  N  ","description":"D","contact_email":"a@b.example","mcp_url":"https://b.example/mcp",
		"auth_token":"tok","payment_methods":["free","crypto"],"payout_address":"0x52908400098527886E0F7030069857D2E4169EE7",
		"preferred_payment":"p","identity":{"agent_framework":"f"},"skills":[{"task_type":"image","instant_price_usd":0,"instant_eta_minutes":3}]}`)
	if err != nil {
		t.Fatal(err)
	}
	if m.Name != "N" || m.Description != "D" || m.ContactEmail != "a@b.example" || m.MCPURL != "https://b.example/mcp" ||
		string(m.AuthTokenEnc) != "sealed:tok" || !slices.Equal(m.PaymentMethods, []string{"free", "crypto"}) ||
		m.PayoutAddress == "" || m.PreferredPayment != "p" || m.Identity.AgentFramework != "f" || m.Skills[0].TaskType != "image" ||
		!m.UpdatedAt.Equal(time.Date(2026, 10, 8, 0, 0, 0, 0, time.UTC)) {
		t.Fatalf("member %+v", m)
	}
	// null clears.
	if _, err := applyJSON(t, m, `{"contact_email":null,"payout_address":null,"auth_token":null,"mcp_url":null}`); err != nil {
		t.Fatal(err)
	}
	if m.ContactEmail != "" || m.PayoutAddress != "" || m.AuthTokenEnc != nil || m.MCPURL != "" || !m.PullMode() {
		t.Fatalf("after nulls %+v", m)
	}
	// Dropping the seller role drops the skills.
	if _, err := applyJSON(t, m, `{"roles":["buyer"]}`); err != nil || m.Skills != nil || m.HasRole("seller") {
		t.Fatalf("drop seller: %v %+v", err, m)
	}
}

func TestApplyUpdateRefusals(t *testing.T) {
	cases := []struct{ body, field string }{
		{`{"name":"   "}`, "name"},
		{`{"name":""}`, "name"},
		{`{"roles":["buyer"],"skills":[{"task_type":"image"}]}`, "skills"},
		{`{"payment_methods":["crypto"],"skills":[{"task_type":"image","instant_price_usd":0,"instant_eta_minutes":3}]}`, "skills[0].instant_price_usd"},
		{`{"mcp_url":""}`, "mcp_url"},
		{`{"roles":[]}`, "roles"},
		{`{"unknown":1}`, "unknown"},
	}
	for _, c := range cases {
		m := verifiedMember()
		before := *m
		_, err := applyJSON(t, m, c.body)
		if err == nil || err.Field != c.field {
			t.Errorf("%s: got %v, want field %s", c.body, err, c.field)
		}
		if m.Name != before.Name || m.State != before.State || !slices.Equal(m.Roles, before.Roles) {
			t.Errorf("%s: a refused update changed the member", c.body)
		}
	}
	// Removing free while an instant skill is priced 0 is refused.
	m := verifiedMember()
	if _, err := applyJSON(t, m, `{"payment_methods":["crypto","free"],"skills":[{"task_type":"image","instant_price_usd":0,"instant_eta_minutes":3}]}`); err != nil {
		t.Fatal(err)
	}
	if _, err := applyJSON(t, m, `{"payment_methods":["crypto"]}`); err == nil || err.Field != "skills[0].instant_price_usd" {
		t.Fatalf("got %v", err)
	}
}

// A client marshalling a partial update must send only what it sets: an unset Nullable travelling
// as null would clear the field (and an unset mcp_url would force verification again).
func TestProfileUpdateMarshalsOnlyWhatIsSet(t *testing.T) {
	b, err := json.Marshal(axp.ProfileUpdate{Name: strp("x")})
	if err != nil || string(b) != `{"name":"x"}` {
		t.Fatalf("marshal = %s %v", b, err)
	}
	b, _ = json.Marshal(axp.ProfileUpdate{MCPURL: protocol.Nullable[string]{Set: true, Null: true}})
	if string(b) != `{"mcp_url":null}` {
		t.Fatalf("marshal = %s", b)
	}
	// And the round trip keeps "left out" apart from "null".
	m := verifiedMember()
	var u axp.ProfileUpdate
	if err := protocol.Decode(b, &u); err != nil {
		t.Fatal(err)
	}
	m.ApplyUpdate(&u, nil, time.Now())
	if m.MCPURL != "" || string(m.AuthTokenEnc) != "sealed-old" {
		t.Fatalf("round trip %+v", m)
	}
	b, _ = json.Marshal(axp.Registration{Roles: []string{"buyer"}, Name: "b"})
	if strings.Contains(string(b), "auth_token") {
		t.Fatalf("registration marshal = %s", b)
	}
}

func jsonKeys(t *testing.T, v any) map[string]any {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

func TestMemberPublicHidesPrivateFields(t *testing.T) {
	m := verifiedMember()
	m.ContactEmail = "ops@example.com"
	m.PayoutAddress = "0x52908400098527886E0F7030069857D2E4169EE7"
	m.Identity = axp.Identity{OperatorName: "Op", OperatorWebsite: "https://op.example", AgentFramework: "fw", AgentModel: "mo", AgentCardURL: "https://op.example/card"}
	m.SecretHash = "deadbeef"
	m.PlatformKeyEnc = []byte("pk")
	m.PreferredPayment = "p"
	pub := m.Public(axp.Reputation{MemberID: m.ID})
	keys := jsonKeys(t, pub)
	for _, k := range []string{"mcp_url", "contact_email", "payout_address", "operator_name", "operator_website", "agent_card_url",
		"secret_hash", "platform_key_enc", "auth_token_enc", "identity", "last_checks", "favourites", "preferred_payment"} {
		if _, ok := keys[k]; ok {
			t.Errorf("public record shows %s", k)
		}
	}
	b, _ := json.Marshal(pub)
	for _, secret := range []string{"ops@example.com", "0x5290", "https://a.example", "op.example", "deadbeef", `"Op"`} {
		if strings.Contains(string(b), secret) {
			t.Errorf("public record contains %s: %s", secret, b)
		}
	}
	if keys["agent_framework"] != "fw" || keys["agent_model"] != "mo" || keys["verified"] != true || keys["mode"] != "push" ||
		keys["id"] != "mem_1" || keys["badges"] == nil {
		t.Errorf("public record %s", b)
	}

	priv := jsonKeys(t, m.Private("abcd1234"))
	if priv["contact_email"] != "ops@example.com" || priv["secret_fingerprint"] != "abcd1234" || priv["auth_token_set"] != true {
		t.Errorf("private record %v", priv)
	}
	for _, k := range []string{"secret_hash", "platform_key_enc", "auth_token_enc"} {
		if _, ok := priv[k]; ok {
			t.Errorf("private record shows %s", k)
		}
	}
}

func TestMemberPrivateNextSteps(t *testing.T) {
	m := axp.NewMember("mem_2", &axp.Registration{Roles: []string{"seller"}, Name: "S"}, time.Now())
	p := m.Private("fp")
	if len(p.NextSteps) != 3 || p.Verified || p.Mode != "pull" || p.Skills == nil || p.Favourites == nil || p.LastChecks == nil {
		t.Fatalf("private %+v", p)
	}
	b := axp.NewMember("mem_3", &axp.Registration{Roles: []string{"buyer"}, Name: "B"}, time.Now())
	b.State = axp.MemberVerified
	if steps := b.Private("fp").NextSteps; len(steps) != 0 {
		t.Fatalf("verified buyer next steps %v", steps)
	}
}

func TestNewIDMonotonicWithinAMillisecond(t *testing.T) {
	now := time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)
	prev := axp.NewID("x", now)
	for i := 0; i < 1000; i++ {
		id := axp.NewID("x", now)
		if id <= prev {
			t.Fatalf("id %d %s does not sort after %s", i, id, prev)
		}
		prev = id
	}
	// A clock stepping back still yields increasing ids.
	if back := axp.NewID("x", now.Add(-time.Hour)); back <= prev {
		t.Fatalf("id after a clock step back %s does not sort after %s", back, prev)
	}
}

// Badges read as words where people read them.
func TestBadgeWords(t *testing.T) {
	got := axp.BadgeWords([]string{"new", "first_pass_pro", "top_rated", "fast_quotes", "reliable"})
	if strings.Join(got, ", ") != "new, first-pass pro, top rated, fast quotes, reliable" {
		t.Fatalf("badge words %q", got)
	}
}

func TestMatches(t *testing.T) {
	seller := func(change func(m *axp.Member)) *axp.Member {
		m := &axp.Member{ID: "mem_s", Roles: []string{protocol.RoleSeller}, State: axp.MemberVerified,
			PaymentMethods: []string{"crypto"}, Skills: []axp.Skill{{TaskType: "summary"}, {TaskType: "text-file"}}}
		if change != nil {
			change(m)
		}
		return m
	}
	task := &axp.TaskRecord{Type: "text-file", PaymentMethod: "crypto", BuyerMemberID: "mem_b"}
	cases := []struct {
		name string
		m    *axp.Member
		t    *axp.TaskRecord
		want bool
	}{
		{"a verified seller with the skill", seller(nil), task, true},
		{"not verified", seller(func(m *axp.Member) { m.State = axp.MemberRegistered }), task, false},
		{"not a seller", seller(func(m *axp.Member) { m.Roles = []string{protocol.RoleBuyer} }), task, false},
		{"its own task", seller(func(m *axp.Member) { m.ID = "mem_b" }), task, false},
		{"another payment method", seller(func(m *axp.Member) { m.PaymentMethods = []string{"free"} }), task, false},
		{"no such skill", seller(nil), &axp.TaskRecord{Type: "image", PaymentMethod: "crypto"}, false},
		{"invited", seller(nil), &axp.TaskRecord{Type: "text-file", PaymentMethod: "crypto", InviteMode: "ids", Invited: []string{"mem_s"}}, true},
		{"not invited", seller(nil), &axp.TaskRecord{Type: "text-file", PaymentMethod: "crypto", InviteMode: "ids", Invited: []string{"mem_x"}}, false},
	}
	for _, c := range cases {
		skill, ok := c.m.Matches(c.t)
		if ok != c.want || ok && (skill == nil || skill.TaskType != c.t.Type) {
			t.Errorf("%s: %v %+v, want %v", c.name, ok, skill, c.want)
		}
	}
	if (&axp.TaskRecord{BuyerMemberID: "mem_b"}).BuyerLabel() != "member:mem_b" || (&axp.TaskRecord{}).BuyerLabel() != "anonymous" {
		t.Error("BuyerLabel names the buyer member, or anonymous")
	}
}
