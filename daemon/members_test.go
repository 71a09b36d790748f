package daemon_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/axp-exchange/axp"
	"github.com/axp-exchange/axp/client"
	"github.com/axp-exchange/axp/contract"
)

var secretRe = regexp.MustCompile(`^ss_(.+)_[0-9a-f]{64}$`)

func TestRegister(t *testing.T) {
	e := newEnv(t)
	resp, err := do(e.anon, "register", map[string]any{
		"roles": []string{"seller", "seller"}, "name": "  Scribe  ", "description": "writes",
		"skills": []map[string]any{{"task_type": "text-file", "description": "essays", "min_price_usd": 0.2, "typical_eta_minutes": 5,
			"instant_price_usd": 0.5, "instant_eta_minutes": 3, "guarantee": map[string]any{"free_redo": 3, "refund_if_fails_checks": true}}},
		"mcp_url": "https://scribe.example/mcp", "contact_email": "ops@scribe.example", "auth_token": "bearer-abc",
		"payment_methods": []string{"crypto", "free"}, "payout_address": "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed",
		"preferred_payment": "usdc on base",
		"identity": map[string]any{"operator_name": "Op", "operator_website": "https://op.example", "agent_framework": "fw",
			"agent_model": "m", "agent_card_url": "https://scribe.example/.well-known/agent.json"},
	})
	if err != nil || resp.Status != http.StatusCreated {
		t.Fatalf("register: %v %v", resp, err)
	}
	var reg axp.Registered
	json.Unmarshal(resp.Body, &reg)
	m := secretRe.FindStringSubmatch(reg.MemberSecret)
	if m == nil || m[1] != reg.MemberID || !strings.HasPrefix(reg.MemberID, "mem_") {
		t.Fatalf("member_secret %q for member %q", reg.MemberSecret, reg.MemberID)
	}
	if reg.PlatformKey == "" || reg.PlatformKey == reg.MemberSecret || reg.Warning == "" {
		t.Fatalf("registered %+v", reg)
	}
	p := reg.Member
	if p.ID != reg.MemberID || p.Name != "Scribe" || len(p.Roles) != 1 || p.State != "registered" || p.Verified ||
		p.Mode != "push" || !p.AuthTokenSet || p.ContactEmail != "ops@scribe.example" || len(p.Skills) != 1 ||
		p.Skills[0].Guarantee.FreeRedo != 3 || p.PayoutAddress == "" || p.Identity.AgentCardURL == "" || len(p.NextSteps) == 0 {
		t.Fatalf("private record %+v", p)
	}
	if strings.Contains(string(resp.Body), "bearer-abc") {
		t.Fatalf("the auth token is echoed back: %s", resp.Body)
	}

	// The private record (GET /me) has the profile, skills and last checks; never the secrets.
	me := e.anon.With(reg.MemberSecret)
	resp, err = doOp(me, contract.GetMyProfile, contract.NoInput{})
	if err != nil {
		t.Fatal(err)
	}
	body := string(resp.Body)
	for _, k := range []string{`"mcp_url"`, `"contact_email"`, `"payout_address"`, `"identity"`, `"skills"`, `"last_checks"`, `"auth_token_set":true`, `"secret_fingerprint"`} {
		if !strings.Contains(body, k) {
			t.Fatalf("private record lacks %s: %s", k, body)
		}
	}
	for _, s := range []string{reg.MemberSecret, reg.PlatformKey, "bearer-abc", "secret_hash", "platform_key"} {
		if strings.Contains(body, s) {
			t.Fatalf("private record shows %q", s)
		}
	}
	var priv axp.PrivateMember
	json.Unmarshal(resp.Body, &priv)
	if priv.SecretFingerprint != fingerprint(reg.MemberSecret) {
		t.Fatalf("fingerprint %q", priv.SecretFingerprint)
	}

	// Defaults: pull mode, crypto only.
	b := e.register(map[string]any{"roles": []string{"buyer"}})
	if b.Member.Mode != "pull" || len(b.Member.PaymentMethods) != 1 || b.Member.PaymentMethods[0] != "crypto" || b.Member.AuthTokenSet {
		t.Fatalf("defaults %+v", b.Member)
	}

	// Credentials.
	for _, tok := range []string{"", "ss_" + reg.MemberID + "_" + strings.Repeat("0", 64), "ss_nobody_" + strings.Repeat("a", 64), "ss_short", reg.PlatformKey} {
		resp, err := doOp(e.anon.With(tok), contract.GetMyProfile, contract.NoInput{})
		checkErrorBody(t, resp, 401, "unauthorized")
		apiErr(t, err, axp.CodeUnauthorized, "-")
	}
	resp, err = raw(e.anon, "GET", "/api/members/me", nil, http.Header{"Authorization": {"Basic abc"}})
	checkErrorBody(t, resp, 401, "unauthorized")
}

// fingerprint is how secrets appear in logs and records: the first 8 hex of their SHA-256.
func fingerprint(s string) string { return sha256Hex(s)[:8] }

func TestRegisterValidation(t *testing.T) {
	e := newEnv(t)
	before := e.auditCount()
	st := e.stats()
	valid := func() map[string]any {
		return map[string]any{"roles": []any{"seller"}, "name": "x",
			"skills": []any{map[string]any{"task_type": "text-file"}}}
	}
	skill := func(kv ...any) map[string]any {
		r := valid()
		s := map[string]any{"task_type": "text-file"}
		for i := 0; i < len(kv); i += 2 {
			s[kv[i].(string)] = kv[i+1]
		}
		r["skills"] = []any{s}
		return r
	}
	with := func(kv ...any) map[string]any {
		r := valid()
		for i := 0; i < len(kv); i += 2 {
			if kv[i+1] == nil {
				delete(r, kv[i].(string))
			} else {
				r[kv[i].(string)] = kv[i+1]
			}
		}
		return r
	}
	long := func(n int) string { return strings.Repeat("a", n) }
	cases := []struct {
		name  string
		in    map[string]any
		field string
	}{
		{"roles missing", with("roles", nil), "roles"},
		{"roles empty", with("roles", []any{}), "roles"},
		{"roles unknown", with("roles", []any{"admin"}), "roles[0]"},
		{"roles not array", with("roles", "seller"), "roles"},
		{"roles too many", with("roles", []any{"buyer", "seller", "buyer"}), "roles"},
		{"name missing", with("name", nil), "name"},
		{"name empty", with("name", ""), "name"},
		{"name blank", with("name", "   "), "name"},
		{"name too long", with("name", long(101)), "name"},
		{"name number", with("name", 7), "name"},
		{"description too long", with("description", long(2001)), "description"},
		{"skills for a buyer", with("roles", []any{"buyer"}), "skills"},
		{"skills not array", with("skills", map[string]any{}), "skills"},
		{"skills too many", with("skills", func() []any {
			var s []any
			for i := 0; i < 51; i++ {
				s = append(s, map[string]any{"task_type": fmt.Sprintf("t%02d", i)})
			}
			return s
		}()), "skills"},
		{"task_type missing", with("skills", []any{map[string]any{"description": "x"}}), "skills[0].task_type"},
		{"task_type upper", skill("task_type", "Text"), "skills[0].task_type"},
		{"task_type short", skill("task_type", "a"), "skills[0].task_type"},
		{"task_type long", skill("task_type", "a"+long(41)), "skills[0].task_type"},
		{"task_type leading dash", skill("task_type", "-ab"), "skills[0].task_type"},
		{"task_type space", skill("task_type", "ab c"), "skills[0].task_type"},
		{"task_type duplicate", with("skills", []any{map[string]any{"task_type": "ab"}, map[string]any{"task_type": "ab"}}), "skills[1].task_type"},
		{"skill description long", skill("description", long(1001)), "skills[0].description"},
		{"min price negative", skill("min_price_usd", -1), "skills[0].min_price_usd"},
		{"min price too high", skill("min_price_usd", 100000.01), "skills[0].min_price_usd"},
		{"min price 3 decimals", skill("min_price_usd", 1.001), "skills[0].min_price_usd"},
		{"min price string", skill("min_price_usd", "1"), "skills[0].min_price_usd"},
		{"eta zero", skill("typical_eta_minutes", 0), "skills[0].typical_eta_minutes"},
		{"eta too long", skill("typical_eta_minutes", 43201), "skills[0].typical_eta_minutes"},
		{"eta fraction", skill("typical_eta_minutes", 1.5), "skills[0].typical_eta_minutes"},
		{"instant price alone", skill("instant_price_usd", 1), "skills[0].instant_eta_minutes"},
		{"instant eta alone", skill("instant_eta_minutes", 5), "skills[0].instant_price_usd"},
		{"instant free without free", skill("instant_price_usd", 0, "instant_eta_minutes", 5), "skills[0].instant_price_usd"},
		{"free redo 4", skill("guarantee", map[string]any{"free_redo": 4}), "skills[0].guarantee.free_redo"},
		{"free redo -1", skill("guarantee", map[string]any{"free_redo": -1}), "skills[0].guarantee.free_redo"},
		{"refund not bool", skill("guarantee", map[string]any{"refund_if_fails_checks": "yes"}), "skills[0].guarantee.refund_if_fails_checks"},
		{"skill unknown field", skill("colour", "red"), "skills[0].colour"},
		{"mcp_url not a url", with("mcp_url", "not a url"), "mcp_url"},
		{"mcp_url ftp", with("mcp_url", "ftp://agent.example/mcp"), "mcp_url"},
		{"mcp_url relative", with("mcp_url", "/mcp"), "mcp_url"},
		{"mcp_url too long", with("mcp_url", "https://a.example/"+long(2000)), "mcp_url"},
		{"contact_email bad", with("contact_email", "ops at example"), "contact_email"},
		{"contact_email named", with("contact_email", "Ops <ops@example.com>"), "contact_email"},
		{"contact_email long", with("contact_email", long(250)+"@x.io"), "contact_email"},
		{"auth_token long", with("auth_token", long(513)), "auth_token"},
		{"auth_token number", with("auth_token", 5), "auth_token"},
		{"payment unknown", with("payment_methods", []any{"card"}), "payment_methods[0]"},
		{"payment not array", with("payment_methods", "crypto"), "payment_methods"},
		{"payout short", with("payout_address", "0x1234"), "payout_address"},
		{"payout no 0x", with("payout_address", strings.Repeat("a", 42)), "payout_address"},
		{"payout not hex", with("payout_address", "0x"+strings.Repeat("g", 40)), "payout_address"},
		{"payout solana", with("payout_address", "7EcDhSYGxXyscszYEp35KHN8vvw3svAuLKTzXwCFLtV"), "payout_address"},
		{"preferred payment long", with("preferred_payment", long(501)), "preferred_payment"},
		{"identity not object", with("identity", "me"), "identity"},
		{"identity website", with("identity", map[string]any{"operator_website": "op.example"}), "identity.operator_website"},
		{"identity card url", with("identity", map[string]any{"agent_card_url": "javascript:alert(1)"}), "identity.agent_card_url"},
		{"identity name long", with("identity", map[string]any{"operator_name": long(201)}), "identity.operator_name"},
		{"identity unknown", with("identity", map[string]any{"twitter": "@x"}), "identity.twitter"},
		{"unknown field", with("member_secret", "ss_x"), "member_secret"},
		{"state is not settable", with("state", "verified"), "state"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			resp, err := do(e.anon, "register", c.in)
			checkErrorBody(t, resp, 400, "invalid_input")
			apiErr(t, err, axp.CodeInvalidInput, c.field)
		})
	}
	// Malformed bodies.
	for _, body := range []string{`{"roles":["seller"],"name":"x"`, `[]`, `"x"`, `{"roles":["buyer"],"name":"x"} {}`, `nul`, `{"name":"x","roles":["buyer"],}`, "{\"roles\":[\"buyer\"],\"name\":\"\xff\xfe\"}"} {
		resp, err := raw(e.anon, "POST", "/api/members/register", []byte(body), nil)
		checkErrorBody(t, resp, 400, "invalid_input")
		apiErr(t, err, axp.CodeInvalidInput, "body")
	}
	resp, err := raw(e.anon, "POST", "/api/members/register", nil, nil)
	checkErrorBody(t, resp, 400, "invalid_input")
	apiErr(t, err, axp.CodeInvalidInput, "roles")

	// Nothing was stored.
	if n := e.auditCount(); n != before {
		t.Fatalf("audit grew from %d to %d after refused registrations", before, n)
	}
	if got := e.stats(); fmt.Sprint(got.Members) != fmt.Sprint(st.Members) {
		t.Fatalf("members changed: %v -> %v", st.Members, got.Members)
	}

	// The edges of the bounds are accepted.
	e.register(map[string]any{"roles": []any{"seller"}, "name": long(100), "description": long(2000),
		"payment_methods": []any{"free"},
		"skills": []any{map[string]any{"task_type": "a" + long(40), "min_price_usd": 100000, "typical_eta_minutes": 43200,
			"instant_price_usd": 0, "instant_eta_minutes": 1, "guarantee": map[string]any{"free_redo": 0}}},
		"auth_token": long(512), "payout_address": "0x" + strings.Repeat("F", 40)})
}

func TestSecretsNotStoredInClear(t *testing.T) {
	e := newEnv(t)
	a := e.register(map[string]any{"roles": []string{"seller"}, "auth_token": "auth-token-in-clear-0123"})
	var b axp.Registered
	key := client.Options{IdempotencyKey: "reg-key-1-0123456789"}
	body := map[string]any{"roles": []string{"buyer"}, "name": "idem"}
	resp, err := do(e.anon, "register", body, key)
	if err != nil || resp.Status != 201 {
		t.Fatal(err)
	}
	json.Unmarshal(resp.Body, &b)
	replay, err := do(e.anon, "register", body, key)
	if err != nil || replay.Status != 201 || replay.Header.Get("Idempotent-Replayed") != "true" {
		t.Fatalf("replay: %v %v", replay, err)
	}
	var b2 axp.Registered
	json.Unmarshal(replay.Body, &b2)
	if b2.MemberSecret != b.MemberSecret || b2.MemberID != b.MemberID || b2.PlatformKey != b.PlatformKey {
		t.Fatalf("replay gave another registration: %s vs %s", b2.MemberID, b.MemberID)
	}
	// The replayed secret works.
	callOp(t, e.anon.With(b2.MemberSecret), contract.GetMyProfile, contract.NoInput{})
	e.close()

	db := stored(t, e.dir)
	for _, s := range []string{a.MemberSecret, a.PlatformKey, b.MemberSecret, b.PlatformKey, "auth-token-in-clear-0123", adminToken,
		a.MemberSecret[len(a.MemberSecret)-64:], b.MemberSecret[len(b.MemberSecret)-64:], "reg-key-1-0123456789"} {
		if bytes.Contains(db, []byte(s)) {
			t.Fatalf("the store holds %q in clear", s)
		}
	}
	// Sanity: the file does hold the members.
	if !bytes.Contains(db, []byte(a.MemberID)) || !bytes.Contains(db, []byte(b.MemberID)) {
		t.Fatalf("the database does not hold the member ids")
	}
}

func TestProfileUpdate(t *testing.T) {
	e := newEnv(t)
	s := e.register(map[string]any{"roles": []string{"seller"}, "mcp_url": "https://a.example/mcp",
		"skills": []map[string]any{{"task_type": "video"}}})
	var p axp.PrivateMember
	update := func(c *client.Client, in map[string]any) {
		t.Helper()
		p = axp.PrivateMember{} // absent fields must not keep earlier values
		call(t, c, "update_profile", in, &p)
	}

	// Plain fields keep the state.
	e.setState(s.MemberID, axp.MemberVerified)
	update(s.c, map[string]any{"name": "New name", "description": "d", "contact_email": "a@b.example",
		"payout_address": "0x" + strings.Repeat("1", 40), "preferred_payment": "usdc", "payment_methods": []string{"crypto", "free"},
		"identity": map[string]any{"agent_model": "m2"}})
	if p.Name != "New name" || p.State != "verified" || !p.Verified || p.ContactEmail != "a@b.example" || len(p.PaymentMethods) != 2 || p.Identity.AgentModel != "m2" {
		t.Fatalf("after plain update %+v", p)
	}
	// Clearing a nullable field.
	update(s.c, map[string]any{"contact_email": nil})
	if p.ContactEmail != "" || p.State != "verified" {
		t.Fatalf("after clearing contact_email %+v", p)
	}
	// The same mcp_url is no change.
	update(s.c, map[string]any{"mcp_url": "https://a.example/mcp"})
	if p.State != "verified" {
		t.Fatalf("an unchanged mcp_url dropped verification")
	}

	// Changing mcp_url, auth_token or roles drops verification, and the audit says so.
	for _, change := range []map[string]any{
		{"mcp_url": "https://b.example/mcp"},
		{"mcp_url": nil},
		{"auth_token": "new-token"},
		{"auth_token": nil},
		{"roles": []string{"seller", "buyer"}},
	} {
		e.setState(s.MemberID, axp.MemberVerified)
		tr := "trace-" + fmt.Sprint(names.Add(1))
		c := *s.c
		c.TraceID = tr
		update(&c, change)
		if p.State != "registered" || p.Verified || p.VerifiedAt != nil {
			t.Fatalf("%v kept verification: %+v", change, p)
		}
		var trace axp.Trace
		trace = *callOp(t, e.admin, contract.AdminTrace, axp.TraceQuery{TraceID: tr})
		if len(trace.Audit) != 1 || trace.Audit[0].Action != "member.update" || trace.Audit[0].Details["verification"] == nil ||
			trace.Audit[0].Actor != "member:"+s.MemberID {
			t.Fatalf("audit of %v: %+v", change, trace.Audit)
		}
		var field string
		for k := range change {
			field = k
		}
		if !strings.Contains(fmt.Sprint(trace.Audit[0].Details["fields"]), field) {
			t.Fatalf("audit fields %v lack %s", trace.Audit[0].Details, field)
		}
	}
	if p.Mode != "pull" || p.AuthTokenSet {
		t.Fatalf("after clearing mcp_url and auth_token %+v", p)
	}
	// Dropping the seller role drops the skills.
	update(s.c, map[string]any{"roles": []string{"buyer"}})
	if len(p.Skills) != 0 || len(p.Roles) != 1 {
		t.Fatalf("after dropping seller %+v", p)
	}

	before := e.auditCount()
	for _, bad := range []struct {
		in    map[string]any
		field string
	}{
		{map[string]any{"name": ""}, "name"},
		{map[string]any{"name": "  "}, "name"},
		{map[string]any{"name": nil}, "name"},
		{map[string]any{"roles": []string{}}, "roles"},
		{map[string]any{"roles": []string{"boss"}}, "roles[0]"},
		{map[string]any{"mcp_url": "nope"}, "mcp_url"},
		{map[string]any{"contact_email": "nope"}, "contact_email"},
		{map[string]any{"payout_address": "0x12"}, "payout_address"},
		{map[string]any{"payout_address": "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAeD"}, "payout_address"}, // EIP-55 checksum wrong
		{map[string]any{"payment_methods": []string{}}, "payment_methods"},
		{map[string]any{"payment_methods": []string{"iou"}}, "payment_methods[0]"},
		{map[string]any{"skills": []map[string]any{{"task_type": "video"}}}, "skills"}, // a buyer has no skills
		{map[string]any{"identity": map[string]any{"operator_website": "x"}}, "identity.operator_website"},
		{map[string]any{"state": "verified"}, "state"},
		{map[string]any{"description": strings.Repeat("d", 2001)}, "description"},
	} {
		resp, err := do(s.c, "update_profile", bad.in)
		checkErrorBody(t, resp, 400, "invalid_input")
		apiErr(t, err, axp.CodeInvalidInput, bad.field)
	}
	if n := e.auditCount(); n != before {
		t.Fatalf("refused updates wrote %d audit records", n-before)
	}
	p = *callOp(t, s.c, contract.GetMyProfile, contract.NoInput{})
	if p.Name != "New name" || len(p.Roles) != 1 {
		t.Fatalf("a refused update changed the profile: %+v", p)
	}
	_, err := doOp(e.anon, contract.UpdateProfile, axp.ProfileUpdate{Name: ptr("x")})
	apiErr(t, err, axp.CodeUnauthorized, "-")
}

func TestSkills(t *testing.T) {
	e := newEnv(t)
	s := e.seller("video")
	b := e.register(map[string]any{"roles": []string{"buyer"}})
	var p axp.PrivateMember
	call(t, s.c, "update_skills", map[string]any{"skills": []map[string]any{{"task_type": "image"}, {"task_type": "logo", "instant_price_usd": 2, "instant_eta_minutes": 10}}}, &p)
	if len(p.Skills) != 2 || p.Skills[0].TaskType != "image" || !p.Skills[1].Instant() {
		t.Fatalf("skills %+v", p.Skills)
	}
	before := e.auditCount()
	for _, bad := range []struct {
		in    map[string]any
		field string
	}{
		{map[string]any{"skills": []map[string]any{{"task_type": "a1"}, {"task_type": "a1"}}}, "skills[1].task_type"},
		{map[string]any{}, "skills"},
		{map[string]any{"skills": nil}, "skills"},
		{map[string]any{"skills": []map[string]any{{"task_type": "A"}}}, "skills[0].task_type"},
		{map[string]any{"skills": []map[string]any{{"task_type": "ab", "instant_eta_minutes": 3}}}, "skills[0].instant_price_usd"},
		{map[string]any{"skills": []map[string]any{{"task_type": "ab", "typical_eta_minutes": 43201}}}, "skills[0].typical_eta_minutes"},
		{map[string]any{"skills": []map[string]any{{"task_type": "ab"}}, "extra": 1}, "extra"},
	} {
		resp, err := do(s.c, "update_skills", bad.in)
		checkErrorBody(t, resp, 400, "invalid_input")
		apiErr(t, err, axp.CodeInvalidInput, bad.field)
	}
	if n := e.auditCount(); n != before {
		t.Fatalf("refused skills wrote audit records")
	}
	resp, err := do(b.c, "update_skills", map[string]any{"skills": []map[string]any{{"task_type": "video"}}})
	checkErrorBody(t, resp, 403, "forbidden")
	apiErr(t, err, axp.CodeForbidden, "-")
	_, err = do(e.anon, "update_skills", map[string]any{"skills": []map[string]any{}})
	apiErr(t, err, axp.CodeUnauthorized, "-")
	// An empty list clears the skills.
	call(t, s.c, "update_skills", map[string]any{"skills": []map[string]any{}}, &p)
	if len(p.Skills) != 0 {
		t.Fatalf("skills not cleared: %+v", p.Skills)
	}
}

func TestHeartbeatAndTasks(t *testing.T) {
	e := newEnv(t)
	m := e.register(map[string]any{"roles": []string{"buyer"}})
	var hb axp.Heartbeat
	hb = *callOp(t, m.c, contract.HeartbeatOp, axp.EmptyInput{})
	if hb.MemberID != m.MemberID || hb.State != "registered" || hb.NextDueBy.Sub(hb.LastSeenAt).Hours() != 24 || hb.LastSeenAt.Before(m.Member.CreatedAt) {
		t.Fatalf("heartbeat %+v", hb)
	}
	var tl axp.TaskList
	tl = *callOp(t, m.c, contract.ListMyTasks, axp.MyTasksQuery{})
	if tl.Tasks == nil || len(tl.Tasks) != 0 {
		t.Fatalf("tasks %+v", tl)
	}
	_, err := doOp(e.anon, contract.HeartbeatOp, axp.EmptyInput{})
	apiErr(t, err, axp.CodeUnauthorized, "-")
}

func TestFavourites(t *testing.T) {
	e := newEnv(t)
	s1, s2 := e.seller("video"), e.seller("image")
	b := e.register(map[string]any{"roles": []string{"buyer"}})
	var f axp.Favourites
	f = *callOp(t, b.c, contract.FavouritesOp, axp.Favourites{SellerIDs: []string{s1.MemberID, s2.MemberID, s1.MemberID}})
	if len(f.SellerIDs) != 2 || f.SellerIDs[0] != s1.MemberID || f.SellerIDs[1] != s2.MemberID {
		t.Fatalf("favourites %+v", f)
	}
	var p axp.PrivateMember
	p = *callOp(t, b.c, contract.GetMyProfile, contract.NoInput{})
	if len(p.Favourites) != 2 {
		t.Fatalf("profile favourites %v", p.Favourites)
	}
	before := e.auditCount()
	for _, bad := range []struct {
		ids   any
		field string
	}{
		{[]string{s1.MemberID, "mem_unknown"}, "seller_ids[1]"},
		{[]string{b.MemberID}, "seller_ids[0]"}, // not a seller
		{[]any{s1.MemberID, 5}, "seller_ids[1]"},
		{"mem_x", "seller_ids"},
		{nil, "seller_ids"},
	} {
		resp, err := do(b.c, "favourites", map[string]any{"seller_ids": bad.ids})
		checkErrorBody(t, resp, 400, "invalid_input")
		apiErr(t, err, axp.CodeInvalidInput, bad.field)
	}
	_, err := doOp(s1.c, contract.FavouritesOp, axp.Favourites{SellerIDs: []string{s1.MemberID}})
	apiErr(t, err, axp.CodeInvalidInput, "seller_ids[0]")
	if n := e.auditCount(); n != before {
		t.Fatalf("refused favourites wrote audit records")
	}
	p = *callOp(t, b.c, contract.GetMyProfile, contract.NoInput{})
	if len(p.Favourites) != 2 {
		t.Fatalf("a refused update changed favourites: %v", p.Favourites)
	}
	f = *callOp(t, b.c, contract.FavouritesOp, axp.Favourites{SellerIDs: []string{}})
	if len(f.SellerIDs) != 0 {
		t.Fatalf("favourites not cleared")
	}
}

func TestAnnouncements(t *testing.T) {
	e := newEnv(t)
	buyer := e.register(map[string]any{"roles": []string{"buyer"}})
	seller := e.seller("video")
	var all, sellers, direct axp.Announcement
	resp, err := doOp(e.admin, contract.AdminAnnounce, axp.NewAnnouncement{Severity: "info", Title: "Hello", Body: "Welcome"})
	if err != nil || resp.Status != 201 {
		t.Fatalf("announce: %v", err)
	}
	json.Unmarshal(resp.Body, &all)
	sellers = *callOp(t, e.admin, contract.AdminAnnounce, axp.NewAnnouncement{Severity: "important", Title: "Sellers", Body: "Fees", Audience: "sellers"})
	direct = *callOp(t, e.admin, contract.AdminAnnounce, axp.NewAnnouncement{Severity: "action_required", Title: "You", Body: "Fix", MemberIDs: []string{buyer.MemberID}})
	if all.From != "operator" || all.Audience != "all" || all.ReplyTo != e.srv.URL+"/api/members/me/operator-messages" || all.ReadAt != nil || !strings.HasPrefix(all.ID, "ann_") {
		t.Fatalf("announcement %+v", all)
	}

	var l axp.AnnouncementList
	l = *callOp(t, buyer.c, contract.Announcements, contract.NoInput{})
	if len(l.Announcements) != 2 || l.Unread != 2 {
		t.Fatalf("buyer announcements %+v", l)
	}
	l = *callOp(t, seller.c, contract.Announcements, contract.NoInput{})
	if len(l.Announcements) != 2 || l.Unread != 2 {
		t.Fatalf("seller announcements %+v", l)
	}

	var read axp.Announcement
	read = *callOp(t, buyer.c, contract.ReadAnnouncement, axp.IDPath{ID: all.ID})
	if read.ReadAt == nil || read.ID != all.ID {
		t.Fatalf("read receipt %+v", read)
	}
	first := *read.ReadAt
	read = *callOp(t, buyer.c, contract.ReadAnnouncement, axp.IDPath{ID: all.ID}) // again: same time
	if !read.ReadAt.Equal(first) {
		t.Fatalf("a second read moved read_at from %v to %v", first, read.ReadAt)
	}
	l = *callOp(t, buyer.c, contract.Announcements, contract.NoInput{})
	if l.Unread != 1 {
		t.Fatalf("unread after one read: %+v", l)
	}
	var audit axp.AuditList
	audit = *callOp(t, e.admin, contract.AdminAudit, axp.AuditQuery{Action: "announcement.read", Actor: "member:" + buyer.MemberID})
	if len(audit.Records) != 1 || audit.Records[0].EntityID != all.ID {
		t.Fatalf("read receipts audited %+v", audit.Records)
	}

	// Unknown, or not addressed to this member: 404.
	for _, id := range []string{"ann_unknown", sellers.ID} {
		resp, err := doOp(buyer.c, contract.ReadAnnouncement, axp.IDPath{ID: id})
		checkErrorBody(t, resp, 404, "not_found")
		apiErr(t, err, axp.CodeNotFound, "-")
	}
	_, err = doOp(seller.c, contract.ReadAnnouncement, axp.IDPath{ID: direct.ID})
	apiErr(t, err, axp.CodeNotFound, "-")

	// Only the operator announces.
	for _, c := range []*client.Client{e.anon, buyer.c} {
		_, err := doOp(c, contract.AdminAnnounce, axp.NewAnnouncement{Severity: "info", Title: "x", Body: "y"})
		apiErr(t, err, axp.CodeUnauthorized, "-")
	}
	before := e.auditCount()
	for _, bad := range []struct {
		in    map[string]any
		field string
	}{
		{map[string]any{"title": "x", "body": "y"}, "severity"},
		{map[string]any{"severity": "urgent", "title": "x", "body": "y"}, "severity"},
		{map[string]any{"severity": "info", "body": "y"}, "title"},
		{map[string]any{"severity": "info", "title": "", "body": "y"}, "title"},
		{map[string]any{"severity": "info", "title": strings.Repeat("t", 201), "body": "y"}, "title"},
		{map[string]any{"severity": "info", "title": "x", "body": "y", "audience": "everyone"}, "audience"},
		{map[string]any{"severity": "info", "title": "x", "body": "y", "member_ids": []string{"mem_nobody"}}, "member_ids[0]"},
	} {
		_, err := do(e.admin, "admin_announce", bad.in)
		apiErr(t, err, axp.CodeInvalidInput, bad.field)
	}
	if n := e.auditCount(); n != before {
		t.Fatalf("refused announcements wrote audit records")
	}
}

func TestOperatorMessages(t *testing.T) {
	e := newEnv(t)
	m := e.register(map[string]any{"roles": []string{"seller"}})
	other := e.register(map[string]any{"roles": []string{"buyer"}})
	for _, bad := range []struct {
		in    map[string]any
		field string
	}{
		{map[string]any{"title": "x", "body": "y"}, "kind"},
		{map[string]any{"title": "x", "body": "y", "kind": "complaint"}, "kind"},
		{map[string]any{"body": "y", "kind": "notice"}, "title"},
		{map[string]any{"title": "x", "kind": "notice"}, "body"},
		{map[string]any{"title": "x", "body": strings.Repeat("b", 10001), "kind": "notice"}, "body"},
	} {
		_, err := do(m.c, "message_operator", bad.in)
		apiErr(t, err, axp.CodeInvalidInput, bad.field)
	}
	kinds := []string{"notice", "outage", "capability_change", "price_change", "question", "other"}
	for i := 0; i < 10; i++ {
		resp, err := doOp(m.c, contract.MessageOperator, axp.OperatorMessage{Title: fmt.Sprint("t", i), Body: "b", Kind: kinds[i%len(kinds)]})
		if err != nil || resp.Status != 201 {
			t.Fatalf("message %d: %v", i, err)
		}
		var v axp.OperatorMessageView
		json.Unmarshal(resp.Body, &v)
		if v.MemberID != m.MemberID || v.Kind != kinds[i%len(kinds)] || !strings.HasPrefix(v.ID, "opm_") {
			t.Fatalf("message %+v", v)
		}
	}
	resp, err := doOp(m.c, contract.MessageOperator, axp.OperatorMessage{Title: "eleventh", Body: "b", Kind: "other"})
	checkErrorBody(t, resp, 429, "rate_limited")
	e429 := apiErr(t, err, axp.CodeRateLimited, "-")
	if ra := resp.Header.Get("Retry-After"); ra == "" || ra == "0" || e429.RetryAfter <= 0 {
		t.Fatalf("Retry-After %q", ra)
	}
	// The limit is per member.
	callOp(t, other.c, contract.MessageOperator, axp.OperatorMessage{Title: "x", Body: "y", Kind: "question"})

	var l axp.OperatorMessageList
	l = *callOp(t, e.admin, contract.AdminOperatorMessages, contract.NoInput{})
	if len(l.Messages) != 11 {
		t.Fatalf("operator sees %d messages", len(l.Messages))
	}
	_, err = doOp(m.c, contract.AdminOperatorMessages, contract.NoInput{})
	apiErr(t, err, axp.CodeUnauthorized, "-")
}

func TestSuspendedMember(t *testing.T) {
	e := newEnv(t)
	m := e.seller("video")
	var p axp.PrivateMember
	p = *callOp(t, e.admin, contract.AdminSuspend, axp.SuspendBody{ID: m.MemberID, Reason: "spam"})
	if p.State != "suspended" {
		t.Fatalf("after suspend %+v", p)
	}
	for _, op := range []struct {
		name string
		in   any
	}{{"get_my_profile", nil}, {"heartbeat", nil}, {"update_profile", map[string]any{"name": "x"}},
		{"message_operator", map[string]any{"title": "x", "body": "y", "kind": "question"}}, {"get_quote", map[string]any{"type": "video", "params": map[string]any{"prompt": "x"}}}} {
		resp, err := do(m.c, op.name, op.in)
		checkErrorBody(t, resp, 403, "forbidden")
		apiErr(t, err, axp.CodeForbidden, "-")
	}
	var sl axp.SellerList
	sl = *callOp(t, e.anon, contract.ListSellers, axp.SellersQuery{})
	if len(sl.Sellers) != 0 {
		t.Fatalf("a suspended seller is listed")
	}
	_, err := doOp(e.admin, contract.AdminSuspend, axp.SuspendBody{ID: m.MemberID})
	apiErr(t, err, axp.CodeConflict, "-")
	p = *callOp(t, e.admin, contract.AdminUnsuspend, axp.SuspendBody{ID: m.MemberID})
	if p.State != "registered" {
		t.Fatalf("after unsuspend %+v", p)
	}
	p = *callOp(t, m.c, contract.GetMyProfile, contract.NoInput{})
	_, err = doOp(e.admin, contract.AdminUnsuspend, axp.SuspendBody{ID: m.MemberID})
	apiErr(t, err, axp.CodeConflict, "-")
	_, err = doOp(e.admin, contract.AdminSuspend, axp.SuspendBody{ID: "mem_nobody"})
	apiErr(t, err, axp.CodeNotFound, "-")
	var audit axp.AuditList
	audit = *callOp(t, e.admin, contract.AdminAudit, axp.AuditQuery{EntityID: m.MemberID, Actor: "admin"})
	// Records come newest first to the millisecond (ids made within one millisecond do not sort
	// by time yet: see NewID), so look them up by action.
	byAction := map[string]axp.AuditRecord{}
	for _, r := range audit.Records {
		byAction[r.Action] = r
	}
	if len(audit.Records) != 2 || byAction["member.suspend"].Details["reason"] != "spam" || byAction["member.unsuspend"].ID == "" {
		t.Fatalf("suspension audit %+v", audit.Records)
	}
}

func TestConcurrentWrites(t *testing.T) {
	e := newEnv(t)
	const n = 50
	ctx := context.Background()
	type result struct {
		reg *axp.Registered
		err error
	}
	results := make(chan result, n)
	for i := 0; i < n; i++ {
		go func(i int) {
			var r axp.Registered
			err := e.anon.Call(ctx, "register", map[string]any{"roles": []string{"seller"}, "name": fmt.Sprint("c", i),
				"skills": []map[string]any{{"task_type": fmt.Sprintf("type-%02d", i)}}}, &r)
			if err == nil {
				// Patch right away, racing with the other registrations and patches.
				err = e.anon.With(r.MemberSecret).Call(ctx, "update_profile", map[string]any{"description": fmt.Sprint("desc ", i)}, nil)
			}
			if err == nil {
				err = e.anon.With(r.MemberSecret).Call(ctx, "update_skills", map[string]any{"skills": []map[string]any{{"task_type": fmt.Sprintf("type-%02d", i)}, {"task_type": "shared"}}}, nil)
			}
			results <- result{&r, err}
		}(i)
	}
	ids := map[string]bool{}
	secrets := map[string]bool{}
	var regs []*axp.Registered
	for i := 0; i < n; i++ {
		r := <-results
		if r.err != nil {
			t.Fatalf("concurrent call: %v", r.err)
		}
		ids[r.reg.MemberID] = true
		secrets[r.reg.MemberSecret] = true
		regs = append(regs, r.reg)
	}
	if len(ids) != n || len(secrets) != n {
		t.Fatalf("%d ids and %d secrets for %d registrations", len(ids), len(secrets), n)
	}
	var ml axp.MemberList
	ml = *callOp(t, e.admin, contract.AdminMembers, axp.MembersQuery{})
	if len(ml.Members) != n {
		t.Fatalf("%d members stored", len(ml.Members))
	}
	for _, m := range ml.Members {
		var i int
		fmt.Sscanf(m.Name, "c%d", &i)
		if m.Description != fmt.Sprint("desc ", i) || len(m.Skills) != 2 || m.Skills[0].TaskType != fmt.Sprintf("type-%02d", i) {
			t.Fatalf("lost write on %s: %+v", m.Name, m)
		}
	}
	var audit axp.AuditList
	audit = *callOp(t, e.admin, contract.AdminAudit, axp.AuditQuery{EntityType: "member", Limit: 5000})
	if len(audit.Records) != 3*n {
		t.Fatalf("%d member audit records, want %d", len(audit.Records), 3*n)
	}
	// Concurrent patches of one member: every one lands.
	m := regs[0]
	mc := e.anon.With(m.MemberSecret)
	done := make(chan error, n)
	for i := 0; i < n; i++ {
		go func(i int) {
			done <- mc.Call(ctx, "update_profile", map[string]any{"description": fmt.Sprint("v", i)}, nil)
		}(i)
	}
	for i := 0; i < n; i++ {
		if err := <-done; err != nil {
			t.Fatal(err)
		}
	}
	audit = *callOp(t, e.admin, contract.AdminAudit, axp.AuditQuery{EntityID: m.MemberID, Action: "member.update", Limit: 5000})
	if len(audit.Records) != n+1 {
		t.Fatalf("%d updates audited, want %d", len(audit.Records), n+1)
	}
}
