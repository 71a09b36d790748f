package daemon_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/axp-exchange/axp"
	"github.com/axp-exchange/axp/client"
	"github.com/axp-exchange/axp/contract"
	"github.com/axp-exchange/axp/store"
)

func TestDiscoveryDocuments(t *testing.T) {
	e := newEnv(t)
	base := e.srv.URL

	var ok axp.OK
	ok = *callOp(t, e.anon, contract.Health, contract.NoInput{})
	if !ok.OK {
		t.Fatalf("health: %+v", ok)
	}

	var p axp.ProtocolInfo
	p = *callOp(t, e.anon, contract.GetProtocol, contract.NoInput{})
	if p.Protocol != "axp/1" || p.BaseURL != base || p.ToolsURL != base+"/api/protocol/tools.json" ||
		p.OpenAPIURL != base+"/openapi.json" || p.JoinURL != base+"/join" {
		t.Fatalf("protocol: %+v", p)
	}
	if p.ErrorCodes["invalid_input"] != 400 || p.ErrorCodes["rate_limited"] != 429 || p.ErrorCodes["unavailable"] != 503 {
		t.Fatalf("protocol error codes: %v", p.ErrorCodes)
	}
	if p.Versions["openapi"] != "3.1.0" || p.Versions["api"] != "0.2.0" {
		t.Fatalf("protocol versions: %v", p.Versions)
	}
	wantSeller := []string{"contact_test", "quote", "do_task", "get_skills", "task_update", "announcement", "mediation", "review"}
	for _, tool := range wantSeller {
		if !contains(p.RequiredTools["seller"], tool) {
			t.Fatalf("required seller tools %v lack %s", p.RequiredTools["seller"], tool)
		}
	}

	// tools.json: input and output schemas of every member tool of spec section 6.
	var tools map[string]any
	call(t, e.anon, "get_member_tools", nil, &tools)
	rawTools, _ := json.Marshal(tools)
	for _, tool := range []string{"contact_test", "quote", "do_task", "receive_offers", "get_skills", "task_update", "announcement", "mediation", "review"} {
		if !strings.Contains(string(rawTools), `"`+tool+`"`) {
			t.Fatalf("tools.json lacks %s", tool)
		}
	}
	if !strings.Contains(string(rawTools), "inputSchema") && !strings.Contains(string(rawTools), "input_schema") {
		t.Fatalf("tools.json has no input schemas: %.300s", rawTools)
	}

	// /join is Markdown a newcomer can follow.
	resp, err := doOp(e.anon, contract.GetJoin, contract.NoInput{})
	if err != nil {
		t.Fatal(err)
	}
	if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/markdown") {
		t.Fatalf("/join Content-Type %q", ct)
	}
	join := string(resp.Body)
	for _, want := range []string{"# Join", base + "/api/members/register", "member_secret", "platform_key", "contact_test", base + "/api/members/me/verify", "X-AX-Signature"} {
		if !strings.Contains(join, want) {
			t.Fatalf("/join lacks %q", want)
		}
	}

	var why axp.Why
	why = *callOp(t, e.anon, contract.GetWhy, contract.NoInput{})
	if why.Headline == "" || len(why.ForBuyers) == 0 || len(why.ForSellers) == 0 || why.StartHere["join"] != base+"/join" {
		t.Fatalf("why: %+v", why)
	}

	var faq axp.FAQ
	faq = *callOp(t, e.anon, contract.GetFAQ, contract.NoInput{})
	if len(faq.Entries) < 5 {
		t.Fatalf("faq has %d entries", len(faq.Entries))
	}
	resp, err = doOp(e.anon, contract.GetFAQMarkdown, contract.NoInput{})
	if err != nil {
		t.Fatal(err)
	}
	if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/markdown") {
		t.Fatalf("/faq.md Content-Type %q", ct)
	}
	for _, q := range faq.Entries {
		if !strings.Contains(string(resp.Body), "## "+q.Question) {
			t.Fatalf("/faq.md lacks %q", q.Question)
		}
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func TestServicesCatalog(t *testing.T) {
	e := newEnv(t)
	var list axp.ServiceList
	list = *callOp(t, e.anon, contract.ListServices, contract.NoInput{})
	if list.Currency != "USD" {
		t.Fatalf("currency %q", list.Currency)
	}
	want := map[string]int{"text-file": 5, "video": 30, "image": 15, "transcription": 20, "translation": 20}
	if len(list.Services) != len(want) {
		t.Fatalf("%d services", len(list.Services))
	}
	for _, s := range list.Services {
		eta, ok := want[s.Type]
		if !ok || s.ETAMinutes != eta {
			t.Fatalf("service %s eta %d", s.Type, s.ETAMinutes)
		}
		if s.Name == "" || s.Summary == "" || s.AcceptanceCriteria == "" || len(s.Params) == 0 || s.Pricing.Text == "" {
			t.Fatalf("incomplete entry %+v", s)
		}
		if !strings.HasPrefix(s.ExampleQuoteURL, e.srv.URL+"/api/quote?") {
			t.Fatalf("example quote url %q", s.ExampleQuoteURL)
		}
		// The example quote link works.
		u, _ := url.Parse(s.ExampleQuoteURL)
		resp, err := raw(e.anon, "GET", u.RequestURI(), nil, nil)
		if err != nil || resp.Status != 200 {
			t.Fatalf("example quote %s: %v", s.ExampleQuoteURL, err)
		}
	}
	video := list.Services[1]
	if video.Type != "video" || video.Params[1].Name != "duration" || *video.Params[1].Min != 5 || *video.Params[1].Max != 30 ||
		video.Params[1].Default.(float64) != 8 || video.Params[2].Default != "16:9" {
		t.Fatalf("video params %+v", video.Params)
	}
	if list.OnOffer == nil || len(list.OnOffer) != 0 {
		t.Fatalf("on_offer of an empty exchange: %+v", list.OnOffer)
	}

	// on_offer lists verified sellers' skills only.
	s1 := e.seller("video")
	e.seller("logo-design") // registered, never verified: not on offer
	e.setState(s1.MemberID, axp.MemberVerified)
	price, eta := axp.USD(3, 0), 12
	callOp(t, s1.c, contract.UpdateSkills, axp.SkillsUpdate{Skills: []axp.Skill{
		{TaskType: "video", Description: "short clips", MinPriceUSD: &price, TypicalETAMinutes: &eta},
		{TaskType: "voice-over", Description: "narration"},
	}})
	list = *callOp(t, e.anon, contract.ListServices, contract.NoInput{})
	if len(list.OnOffer) != 2 {
		t.Fatalf("on_offer %+v", list.OnOffer)
	}
	byType := map[string]axp.OnOffer{}
	for _, o := range list.OnOffer {
		byType[o.TaskType] = o
	}
	v := byType["video"]
	if v.Providers != 1 || !v.InCatalog || v.FromPriceUSD == nil || *v.FromPriceUSD != price || *v.FastestETAMinutes != 12 || v.Examples[0] != "short clips" {
		t.Fatalf("video on offer %+v", v)
	}
	if vo := byType["voice-over"]; vo.InCatalog || vo.FromPriceUSD != nil {
		t.Fatalf("voice-over on offer %+v", vo)
	}
	if _, listed := byType["logo-design"]; listed {
		t.Fatalf("an unverified seller's skill is on offer")
	}
	// Dropping verification (a new mcp_url) takes the skills off the list at once.
	s2 := e.seller("translation")
	e.setState(s2.MemberID, axp.MemberVerified)
	call(t, s2.c, "update_skills", map[string]any{"skills": []map[string]any{{"task_type": "translation"}}}, nil)
	list = *callOp(t, e.anon, contract.ListServices, contract.NoInput{})
	if len(list.OnOffer) != 3 {
		t.Fatalf("on_offer with a second verified seller: %+v", list.OnOffer)
	}
	callOp(t, s2.c, contract.UpdateProfile, axp.ProfileUpdate{MCPURL: given("https://new.example/mcp")})
	list = axp.ServiceList{}
	list = *callOp(t, e.anon, contract.ListServices, contract.NoInput{})
	if len(list.OnOffer) != 2 {
		t.Fatalf("on_offer after the seller's verification dropped: %+v", list.OnOffer)
	}
	// Suspension takes the seller off the list.
	callOp(t, e.admin, contract.AdminSuspend, axp.SuspendBody{ID: s1.MemberID, Reason: "test"})
	list = *callOp(t, e.anon, contract.ListServices, contract.NoInput{})
	if len(list.OnOffer) != 0 {
		t.Fatalf("on_offer after suspension: %+v", list.OnOffer)
	}
}

func TestPricing(t *testing.T) {
	e := newEnv(t)
	var p axp.PricingInfo
	p = *callOp(t, e.anon, contract.GetPricing, contract.NoInput{})
	if p.Promotion == nil {
		t.Fatalf("no promotion: %+v", p)
	}
	pr := p.Promotion
	if pr.Percent != "1%" || pr.BPS != 100 || pr.EndsAt != "2026-11-07T00:00:00.000Z" || pr.StartsAt != "2026-10-07T00:00:00.000Z" || pr.PromotionalDays != 30 {
		t.Fatalf("promotion %+v", pr)
	}
	// The exact wire text, not only the decoded value.
	var rawP map[string]any
	call(t, e.anon, "get_pricing", nil, &rawP)
	promo := rawP["promotion"].(map[string]any)
	if promo["ends_at"] != "2026-11-07T00:00:00.000Z" || promo["promotional_days"] != float64(30) || promo["percent"] != "1%" {
		t.Fatalf("promotion on the wire %v", promo)
	}
	if len(p.PaymentMethods) != 2 || p.PaymentMethods[0].Method != "crypto" || !p.PaymentMethods[0].Default || p.PaymentMethods[1].Method != "free" {
		t.Fatalf("payment methods %+v", p.PaymentMethods)
	}
	if !strings.Contains(p.ApprovalRule, "operator") || !strings.Contains(p.BuyerFee, "never") {
		t.Fatalf("approval rule %q, buyer fee %q", p.ApprovalRule, p.BuyerFee)
	}
	if p.Example.BuyerTotal != axp.USD(10, 0) || p.Example.PlatformFee != axp.USD(0, 10) || p.Example.SellerNet != axp.USD(9, 90) {
		t.Fatalf("example %+v", p.Example)
	}
}

func TestQuote(t *testing.T) {
	e := newEnv(t)
	type qt struct {
		q      map[string]any
		amount string
		cents  int64
	}
	for _, c := range []qt{
		{map[string]any{"type": "video", "prompt": "waves", "duration": "10"}, "4", 400},
		{map[string]any{"type": "video", "prompt": "waves"}, "3.5", 350}, // default 8 s
		{map[string]any{"type": "video", "prompt": "waves", "duration": "5"}, "2.75", 275},
		{map[string]any{"type": "video", "prompt": "waves", "duration": "30"}, "9", 900},
		{map[string]any{"type": "text-file", "prompt": "a haiku"}, "0.2", 20},
		{map[string]any{"type": "image", "prompt": "a fox", "count": "3"}, "1.2", 120},
		{map[string]any{"type": "transcription", "source_url": "https://x.example/a.mp3", "minutes": "1"}, "0.5", 50},
		{map[string]any{"type": "transcription", "source_url": "https://x.example/a.mp3", "minutes": "240"}, "4.8", 480},
		{map[string]any{"type": "transcription", "source_url": "https://x.example/a.mp3"}, "0.5", 50}, // 10 min default -> minimum
		{map[string]any{"type": "translation", "text": "hola", "target_language": "en", "words": "1"}, "0.5", 50},
		{map[string]any{"type": "translation", "text": "hola", "target_language": "en", "words": "1200"}, "2.4", 240},
		// A quote needs what the price depends on, not the text itself.
		{map[string]any{"type": "translation", "target_language": "fr", "words": "1200"}, "2.4", 240},
	} {
		q := url.Values{}
		for k, v := range c.q {
			q.Set(k, v.(string))
		}
		resp, err := raw(e.anon, "GET", "/api/quote?"+q.Encode(), nil, nil)
		if err != nil {
			t.Fatalf("%v: %v", c.q, err)
		}
		var m map[string]any
		d := json.NewDecoder(strings.NewReader(string(resp.Body)))
		d.UseNumber()
		d.Decode(&m)
		price := m["price"].(map[string]any)
		if price["amount"].(json.Number).String() != c.amount || price["amount_cents"].(json.Number).String() != jsonInt(c.cents) || price["currency"] != "USD" {
			t.Fatalf("%v: price %v, want %s / %d", c.q, price, c.amount, c.cents)
		}
		for _, k := range []string{"type", "params", "eta_minutes", "acceptance_criteria", "note", "also_sell", "create_url"} {
			if _, ok := m[k]; !ok {
				t.Fatalf("quote lacks %s: %s", k, resp.Body)
			}
		}
	}

	// Through the typed client: extra params go as query keys.
	var q axp.CatalogQuote
	call(t, e.anon, "get_quote", map[string]any{"type": "video", "params": map[string]any{"prompt": "waves", "duration": 10}}, &q)
	if q.Price.Amount != axp.USD(4, 0) || q.Price.AmountCents != 400 || q.ETAMinutes != 30 || q.Params["aspect"] != "16:9" {
		t.Fatalf("video quote %+v", q)
	}
	if q.AlsoSell == nil || q.AlsoSell.JoinURL != e.srv.URL+"/join" || !strings.HasPrefix(q.CreateURL, e.srv.URL+"/api/tasks/new?") {
		t.Fatalf("quote also_sell/create_url %+v", q)
	}
	// Params may also come as one JSON object under "params", merged with bare keys.
	resp, err := raw(e.anon, "GET", "/api/quote?type=video&prompt=x&params="+url.QueryEscape(`{"duration":10}`), nil, nil)
	if err != nil || !strings.Contains(string(resp.Body), `"amount_cents":400`) {
		t.Fatalf("params object: %v %s", err, resp.Body)
	}
	// A seller is not invited to sell.
	s := e.seller("video")
	call(t, s.c, "get_quote", map[string]any{"type": "video", "params": map[string]any{"prompt": "waves"}}, &q)
	if q.AlsoSell != nil {
		t.Fatalf("a seller got also_sell: %+v", q.AlsoSell)
	}

	// Bad input: 400 naming the field.
	for _, c := range []struct {
		q     string
		field string
	}{
		{"type=video&prompt=x&duration=31", "duration"},
		{"type=video&prompt=x&duration=4", "duration"},
		{"type=video&prompt=x&duration=abc", "duration"},
		{"type=video&prompt=x&duration=7.5", "duration"},
		{"type=video&duration=10", "prompt"},
		{"type=video&prompt=x&aspect=4:3", "aspect"},
		{"type=video&prompt=x&colour=red", "colour"},
		{"type=image&prompt=x&count=9", "count"},
		{"type=image&prompt=x&count=0", "count"},
		{"type=image&prompt=x&size=10x10", "size"},
		{"type=text-file&prompt=" + strings.Repeat("a", 4001), "prompt"},
		{"type=text-file&prompt=x&filename=" + strings.Repeat("a", 121), "filename"},
		{"type=transcription&minutes=10", "source_url"},
		{"type=transcription&source_url=https://x.example/a&minutes=241", "minutes"},
		{"type=transcription&source_url=https://x.example/a&minutes=0", "minutes"},
		{"type=translation&text=x", "target_language"},
		{"type=translation&text=x&target_language=fr&words=50001", "words"},
		{"type=unicorn&prompt=x", "type"},
		{"prompt=x", "type"},
	} {
		resp, err := raw(e.anon, "GET", "/api/quote?"+strings.ReplaceAll(c.q, ":", "%3A"), nil, nil)
		checkErrorBody(t, resp, 400, "invalid_input")
		apiErr(t, err, axp.CodeInvalidInput, c.field)
	}
}

func jsonInt(n int64) string { b, _ := json.Marshal(n); return string(b) }

func TestSearchAndSellers(t *testing.T) {
	e := newEnv(t)
	video := e.register(map[string]any{"roles": []string{"seller"}, "name": "Clipper",
		"skills":          []map[string]any{{"task_type": "video", "description": "drone videos"}},
		"mcp_url":         "https://clipper.example/mcp",
		"contact_email":   "ops@clipper.example",
		"payout_address":  "0x" + strings.Repeat("ab", 20),
		"payment_methods": []string{"crypto", "free"},
		"auth_token":      "tok-secret-value",
		"identity": map[string]any{"operator_name": "Jane Ops", "operator_website": "https://jane.example",
			"agent_framework": "memberkit", "agent_model": "m-1", "agent_card_url": "https://clipper.example/card.json"},
	})
	crypto := e.seller("image")
	e.register(map[string]any{"roles": []string{"buyer"}}) // buyers are not sellers
	unverified := e.seller("image")                        // registered, never verified: not a seller yet
	e.setState(video.MemberID, axp.MemberVerified)
	e.setState(crypto.MemberID, axp.MemberVerified)

	var sl axp.SellerList
	sl = *callOp(t, e.anon, contract.ListSellers, axp.SellersQuery{})
	if len(sl.Sellers) != 2 || !sl.Sellers[0].Verified || !sl.Sellers[1].Verified {
		t.Fatalf("sellers %+v", sl.Sellers)
	}
	for _, s := range sl.Sellers {
		if s.ID == unverified.MemberID {
			t.Fatalf("an unverified member is listed as a seller: %+v", s)
		}
	}
	sl = *callOp(t, e.anon, contract.ListSellers, axp.SellersQuery{PaymentMethod: "free"})
	if len(sl.Sellers) != 1 || sl.Sellers[0].ID != video.MemberID {
		t.Fatalf("free sellers %+v", sl.Sellers)
	}
	sl = *callOp(t, e.anon, contract.ListSellers, axp.SellersQuery{PaymentMethod: "crypto"})
	if len(sl.Sellers) != 2 {
		t.Fatalf("crypto sellers %+v", sl.Sellers)
	}
	sl = *callOp(t, e.anon, contract.ListSellers, axp.SellersQuery{TaskType: "image"})
	if len(sl.Sellers) != 1 || sl.Sellers[0].ID != crypto.MemberID {
		t.Fatalf("image sellers %+v", sl.Sellers)
	}
	_, err := doOp(e.anon, contract.ListSellers, axp.SellersQuery{PaymentMethod: "card"})
	apiErr(t, err, axp.CodeInvalidInput, "payment_method")

	// Public records expose public fields only.
	resp, err := raw(e.anon, "GET", "/api/sellers", nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	body := string(resp.Body)
	for _, secret := range []string{"clipper.example", "Jane Ops", "jane.example", "abababab", "tok-secret-value", "card.json",
		"mcp_url", "contact_email", "payout_address", "operator_name", "operator_website", "agent_card_url", "auth_token",
		"secret", "platform_key", "127.0.0.1", "favourites", "last_checks"} {
		if strings.Contains(body, secret) {
			t.Fatalf("public seller list shows %q: %s", secret, body)
		}
	}
	var generic struct {
		Sellers []map[string]any `json:"sellers"`
	}
	json.Unmarshal(resp.Body, &generic)
	allowed := map[string]bool{"id": true, "name": true, "description": true, "roles": true, "skills": true, "payment_methods": true,
		"verified": true, "state": true, "mode": true, "agent_framework": true, "agent_model": true, "badges": true, "reputation": true, "member_since": true}
	for _, s := range generic.Sellers {
		for k := range s {
			if !allowed[k] {
				t.Fatalf("public seller record has field %q", k)
			}
		}
	}
	if generic.Sellers[0]["agent_framework"] != "memberkit" || generic.Sellers[0]["mode"] != "push" {
		t.Fatalf("public record %v", generic.Sellers[0])
	}

	// Search suggests a task, services and matching sellers.
	var sr axp.SearchResult
	sr = *callOp(t, e.anon, contract.Search, axp.SearchQuery{Q: "a short drone video of a coastline"})
	if sr.SuggestedTask == nil || sr.SuggestedTask.Type != "video" || sr.SuggestedTask.Quote == nil || sr.SuggestedTask.Quote.Price.AmountCents != 350 {
		t.Fatalf("search suggestion %+v", sr.SuggestedTask)
	}
	if len(sr.Services) == 0 || sr.Services[0].Type != "video" {
		t.Fatalf("search services %+v", sr.Services)
	}
	if len(sr.Sellers) != 1 || sr.Sellers[0].ID != video.MemberID {
		t.Fatalf("search sellers %+v", sr.Sellers)
	}
	sr = *callOp(t, e.anon, contract.Search, axp.SearchQuery{Q: "zzzz qqqq"})
	if sr.SuggestedTask != nil || len(sr.Questions) == 0 || len(sr.Services) != 0 {
		t.Fatalf("vague search %+v", sr)
	}
	for _, q := range []string{"", "   "} {
		_, err = doOp(e.anon, contract.Search, axp.SearchQuery{Q: q})
		apiErr(t, err, axp.CodeInvalidInput, "q")
	}
	_, err = raw(e.anon, "GET", "/api/search", nil, nil)
	apiErr(t, err, axp.CodeInvalidInput, "q")
	_, err = doOp(e.anon, contract.Search, axp.SearchQuery{Q: strings.Repeat("v", 501)})
	apiErr(t, err, axp.CodeInvalidInput, "q")

	// Reputation: a fresh member has no reviews; unknown members are 404.
	var rep axp.Reputation
	rep = *callOp(t, e.anon, contract.GetReputation, axp.IDPath{ID: crypto.MemberID})
	if rep.MemberID != crypto.MemberID || rep.Rating != nil || rep.Reviews != 0 || rep.RecentReviews == nil {
		t.Fatalf("reputation %+v", rep)
	}
	resp, err = doOp(e.anon, contract.GetReputation, axp.IDPath{ID: "mem_nobody"})
	checkErrorBody(t, resp, 404, "not_found")
	apiErr(t, err, axp.CodeNotFound, "-")
}

func TestSubmissions(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()

	// Feedback.
	var rec axp.Recorded
	resp, err := e.anon.Do(ctx, "submit_feedback", map[string]any{"message": "great", "category": "praise", "rating": 5, "context": map[string]any{"page": "/join"}})
	if err != nil || resp.Status != http.StatusCreated {
		t.Fatalf("feedback: %v %v", resp, err)
	}
	json.Unmarshal(resp.Body, &rec)
	if !rec.Recorded || !strings.HasPrefix(rec.ID, "fbk_") {
		t.Fatalf("feedback answer %+v", rec)
	}
	for _, bad := range []struct {
		in    map[string]any
		field string
	}{
		{map[string]any{}, "message"},
		{map[string]any{"message": "  "}, "message"},
		{map[string]any{"message": "x", "category": "rant"}, "category"},
		{map[string]any{"message": "x", "rating": 6}, "rating"},
		{map[string]any{"message": "x", "rating": 0}, "rating"},
		{map[string]any{"message": "x", "rating": "5"}, "rating"},
		{map[string]any{"message": strings.Repeat("x", 4001)}, "message"},
		{map[string]any{"message": "x", "context": "page"}, "context"},
	} {
		_, err := do(e.anon, "submit_feedback", bad.in)
		apiErr(t, err, axp.CodeInvalidInput, bad.field)
	}

	// Payment preference.
	var info axp.PaymentPreferenceInfo
	info = *callOp(t, e.anon, contract.GetPaymentPreference, contract.NoInput{})
	if len(info.Supported) != 2 || info.Question == "" || len(info.Options) == 0 {
		t.Fatalf("payment preference info %+v", info)
	}
	resp, err = doOp(e.anon, contract.PaymentPreferenceOp, axp.PaymentPreference{Preferred: "Card", Note: "visa", Role: "buyer"})
	if err != nil || resp.Status != 201 {
		t.Fatalf("payment preference: %v", err)
	}
	callOp(t, e.anon, contract.PaymentPreferenceOp, axp.PaymentPreference{Preferred: "card "})
	info = *callOp(t, e.anon, contract.GetPaymentPreference, contract.NoInput{})
	if info.Totals["card"] != 2 {
		t.Fatalf("totals %v", info.Totals)
	}
	_, err = doOp(e.anon, contract.PaymentPreferenceOp, axp.PaymentPreference{Preferred: "card", Role: "operator"})
	apiErr(t, err, axp.CodeInvalidInput, "role")
	_, err = do(e.anon, "payment_preference", map[string]any{"note": "x"})
	apiErr(t, err, axp.CodeInvalidInput, "preferred")

	// Interest: POST body and GET query.
	resp, err = doOp(e.anon, contract.RegisterInterest, axp.Interest{Type: "Logo-Design", Note: "vector", BudgetUSD: ptr(axp.USD(25, 50))})
	if err != nil || resp.Status != 201 {
		t.Fatalf("interest: %v", err)
	}
	resp, err = doOp(e.anon, contract.RegisterInterest, axp.Interest{Type: "logo-design", BudgetUSD: ptr(axp.USD(10, 0))}, client.Options{GET: true})
	if err != nil || resp.Status != 201 {
		t.Fatalf("interest GET: %v", err)
	}
	// Sellers see the demand where they see what is on offer.
	var sl axp.ServiceList
	sl = *callOp(t, e.anon, contract.ListServices, contract.NoInput{})
	if len(sl.Demand) != 1 || sl.Demand[0].TaskType != "logo-design" || sl.Demand[0].Requests != 2 ||
		sl.Demand[0].MedianBudgetUSD == nil || *sl.Demand[0].MedianBudgetUSD != axp.USD(10, 0) || sl.Demand[0].Providers != 0 {
		t.Fatalf("demand %+v", sl.Demand)
	}
	if !strings.Contains(string(resp.Body), "GET /api/services") {
		t.Fatalf("the answer does not say where sellers see the demand: %s", resp.Body)
	}
	resp, err = raw(e.anon, "GET", "/api/interest?type=video&budget_usd=abc", nil, nil)
	apiErr(t, err, axp.CodeInvalidInput, "budget_usd")
	_, err = do(e.anon, "register_interest", map[string]any{"type": "x", "budget_usd": 1.234})
	apiErr(t, err, axp.CodeInvalidInput, "budget_usd")
	_, err = do(e.anon, "register_interest", map[string]any{"type": "x", "budget_usd": -1})
	apiErr(t, err, axp.CodeInvalidInput, "budget_usd")
	_, err = do(e.anon, "register_interest", map[string]any{"note": "x"}, client.Options{GET: true})
	apiErr(t, err, axp.CodeInvalidInput, "type")

	// Survey.
	var sq axp.SurveyQuestions
	sq = *callOp(t, e.anon, contract.GetSurvey, contract.NoInput{})
	if len(sq.Questions) != 9 || sq.Questions[0].Field != "task" || !sq.Questions[0].Required || sq.SubmitTo != e.srv.URL+"/api/survey" {
		t.Fatalf("survey %+v", sq)
	}
	for _, q := range sq.Questions {
		if q.Field == "payment" && (len(q.Options) != 6 || q.Options[0] != "base-network") {
			t.Fatalf("payment options %v", q.Options)
		}
		if q.Field == "category" && len(q.Options) != 19 {
			t.Fatalf("category options %v", q.Options)
		}
	}
	answers := []map[string]any{
		{"task": "search the web", "category": "web-search", "max_usd_per_call": 0.01, "calls_per_day": 100, "payment": "base-network", "has_wallet": true},
		{"task": "scrape", "category": "web-scraping", "max_usd_per_call": 0.05, "calls_per_day": 50, "payment": "card", "has_wallet": false},
		{"task": "news", "category": "web-search", "max_usd_per_call": 0.02, "agent_name": "a", "framework": "f", "missing": "m"},
	}
	for _, a := range answers {
		resp, err := do(e.anon, "answer_survey", a)
		if err != nil || resp.Status != 201 {
			t.Fatalf("survey answer: %v", err)
		}
	}
	var res axp.SurveyResults
	res = *callOp(t, e.anon, contract.GetSurveyResults, contract.NoInput{})
	if res.Responses != 3 || res.ByCategory["web-search"] != 2 || res.ByCategory["web-scraping"] != 1 || res.ByPayment["card"] != 1 ||
		res.HasWallet["yes"] != 1 || res.HasWallet["no"] != 1 || res.TotalCallsPerDay != 150 || res.MedianMaxUSDPerCall == nil || *res.MedianMaxUSDPerCall != axp.USD(0, 2) {
		t.Fatalf("survey results %+v", res)
	}
	for _, bad := range []struct {
		in    map[string]any
		field string
	}{
		{map[string]any{"category": "web-search"}, "task"},
		{map[string]any{"task": "x", "category": "gardening"}, "category"},
		{map[string]any{"task": "x", "payment": "cash"}, "payment"},
		{map[string]any{"task": "x", "has_wallet": "yes"}, "has_wallet"},
		{map[string]any{"task": "x", "calls_per_day": -1}, "calls_per_day"},
		{map[string]any{"task": "x", "max_usd_per_call": 100001}, "max_usd_per_call"},
	} {
		_, err := do(e.anon, "answer_survey", bad.in)
		apiErr(t, err, axp.CodeInvalidInput, bad.field)
	}
	st := e.stats()
	if st.Submissions["feedback"] != 1 || st.Submissions["payment_preference"] != 2 || st.Submissions["interest"] != 2 || st.Submissions["survey"] != 3 {
		t.Fatalf("submissions %v", st.Submissions)
	}
}

func TestOpenAPI(t *testing.T) {
	e := newEnv(t)
	var doc struct {
		OpenAPI string `json:"openapi"`
		Info    struct {
			Version string `json:"version"`
		} `json:"info"`
		Paths map[string]map[string]map[string]any `json:"paths"`
	}
	call(t, e.anon, "get_openapi", nil, &doc)
	if doc.OpenAPI != "3.1.0" || doc.Info.Version != "0.2.0" {
		t.Fatalf("openapi %q version %q", doc.OpenAPI, doc.Info.Version)
	}
	for _, op := range contract.Ops {
		p, ok := doc.Paths[op.Path]
		if !ok {
			t.Fatalf("no path %s for %s", op.Path, op.Name)
		}
		o, ok := p[strings.ToLower(op.Method)]
		if !ok {
			t.Fatalf("no %s %s for %s", op.Method, op.Path, op.Name)
		}
		if o["operationId"] != op.Name {
			t.Fatalf("%s %s has operationId %v", op.Method, op.Path, o["operationId"])
		}
		if op.In != nil && o["requestBody"] == nil && o["parameters"] == nil {
			t.Fatalf("%s has input but neither requestBody nor parameters", op.Name)
		}
		if op.GETForm && p["get"] == nil {
			t.Fatalf("%s has no GET form in openapi", op.Name)
		}
		resps, _ := o["responses"].(map[string]any)
		if resps[jsonInt(int64(op.SuccessStatus()))] == nil {
			t.Fatalf("%s lacks its success response", op.Name)
		}
	}
	// Every operation is routed: nothing in the catalog answers 404 or 405.
	for _, op := range contract.Ops {
		path := strings.NewReplacer("{id}", "x", "{traceId}", "x", "{settlement_id}", "x").Replace(op.Path)
		resp, _ := raw(e.anon, op.Method, path, nil, nil)
		if resp == nil || resp.Status == 404 && strings.Contains(string(resp.Body), "no such endpoint") || resp.Status == 405 {
			t.Fatalf("%s %s is not routed: %v", op.Method, path, resp)
		}
		if resp.TraceID == "" {
			t.Fatalf("%s %s answered without X-Trace-Id", op.Method, path)
		}
		if resp.Status >= 400 {
			var b errorBody
			if err := json.Unmarshal(resp.Body, &b); err != nil || b.Error.Code == "" || b.Error.Message == "" || b.TraceID != resp.TraceID {
				t.Fatalf("%s %s: error body %s", op.Method, path, resp.Body)
			}
		}
	}
}

func TestReputationFromReviews(t *testing.T) {
	e := newEnv(t)
	s := e.seller("video")
	e.setState(s.MemberID, axp.MemberVerified)
	// Reviews arrive with the trust-and-safety part; write them as it will.
	five, four := 5, 4
	reviews := []store.ReviewRecord{
		{ReviewView: axp.ReviewView{ReviewID: "rev_1", TaskID: "tsk_1", Role: "buyer", Rating: 5, Quality: &five, Comment: "great"}, ReviewerID: "mem_a", RevieweeID: s.MemberID},
		{ReviewView: axp.ReviewView{ReviewID: "rev_2", TaskID: "tsk_2", Role: "buyer", Rating: 4, Timeliness: &four}, ReviewerID: "mem_a", RevieweeID: s.MemberID},
		{ReviewView: axp.ReviewView{ReviewID: "rev_3", TaskID: "tsk_3", Role: "buyer", Rating: 5}, ReviewerID: "mem_b", RevieweeID: s.MemberID},
		{ReviewView: axp.ReviewView{ReviewID: "rev_4", TaskID: "tsk_4", Role: "buyer", Rating: 1}, ReviewerID: "mem_c", RevieweeID: s.MemberID, Removed: true},
		{ReviewView: axp.ReviewView{ReviewID: "rev_5", TaskID: "tsk_5", Role: "buyer", Rating: 1}, ReviewerID: "mem_d", RevieweeID: s.MemberID, Sandbox: true},
		{ReviewView: axp.ReviewView{ReviewID: "rev_6", TaskID: "tsk_6", Role: "seller", Rating: 3}, ReviewerID: "mem_e", RevieweeID: s.MemberID},
	}
	err := e.d.DB().Update(func(tx *store.Tx) error {
		for i := range reviews {
			if err := tx.PutReview(&reviews[i]); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	var rep axp.Reputation
	rep = *callOp(t, e.anon, contract.GetReputation, axp.IDPath{ID: s.MemberID})
	if rep.Reviews != 3 || rep.Rating == nil || *rep.Rating != 4.66 || rep.DistinctReviewers != 2 ||
		rep.Ratings.Five != 2 || rep.Ratings.Four != 1 || rep.Ratings.One != 0 || len(rep.RecentReviews) != 4 {
		t.Fatalf("reputation %+v", rep)
	}
	if rep.AsBuyer.Reviews != 1 || rep.AsBuyer.Rating == nil || *rep.AsBuyer.Rating != 3 {
		t.Fatalf("as buyer %+v", rep.AsBuyer)
	}
	// Removed and sandbox reviews are not shown; the review written about the member as a buyer
	// is, with the reviewer's role (spec 2.7: reviews are public on the reviewee's profile).
	asBuyer := 0
	for _, r := range rep.RecentReviews {
		if r.ReviewID == "rev_4" || r.ReviewID == "rev_5" {
			t.Fatalf("recent reviews show %s", r.ReviewID)
		}
		if r.ReviewID == "rev_6" && r.Role == "seller" {
			asBuyer++
		}
	}
	if asBuyer != 1 {
		t.Fatalf("the review of the member as a buyer is not listed: %+v", rep.RecentReviews)
	}
	// The public seller record carries the same reputation, without reviewer ids.
	resp, err := raw(e.anon, "GET", "/api/sellers", nil, nil)
	if err != nil || strings.Contains(string(resp.Body), "mem_a") || !strings.Contains(string(resp.Body), `"distinct_reviewers":2`) {
		t.Fatalf("sellers %s", resp.Body)
	}
}

// TestJoinAndFAQInABrowser: /join and /faq.md are HTML pages for a browser, and Markdown for
// Accept: text/markdown, curl's */* or no Accept at all.
func TestJoinAndFAQInABrowser(t *testing.T) {
	e := newEnv(t)
	get := func(path, accept string) (string, string) {
		t.Helper()
		req, _ := http.NewRequest(http.MethodGet, e.srv.URL+path, nil)
		if accept != "" {
			req.Header.Set("Accept", accept)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("%s: %s", path, resp.Status)
		}
		return resp.Header.Get("Content-Type"), string(b)
	}
	const browser = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"
	ct, page := get("/join", browser)
	if !strings.HasPrefix(ct, "text/html") {
		t.Fatalf("/join in a browser: %s\n%.300s", ct, page)
	}
	for _, want := range []string{"<title>Join the exchange</title>", "<h1>Join the exchange as a seller (or buyer) agent</h1>", "<h2>1. Register</h2>",
		"<pre><code>curl -s -X POST " + e.srv.URL + "/api/members/register", "<code>member_secret</code>", `<a href="` + e.srv.URL + `/api/pricing">`, "<li>"} {
		if !strings.Contains(page, want) {
			t.Errorf("/join page lacks %q", want)
		}
	}
	if strings.Contains(page, "\n# ") || strings.Contains(page, "`") {
		t.Errorf("/join page shows Markdown syntax:\n%s", page)
	}
	ct, page = get("/faq.md", browser)
	if !strings.HasPrefix(ct, "text/html") || !strings.Contains(page, "<h1>Frequently asked questions</h1>") || !strings.Contains(page, "<h2>") {
		t.Fatalf("/faq.md in a browser: %s\n%.300s", ct, page)
	}
	for _, path := range []string{"/join", "/faq.md"} {
		for _, accept := range []string{"text/markdown", "*/*", ""} {
			if ct, body := get(path, accept); !strings.HasPrefix(ct, "text/markdown") || !strings.HasPrefix(body, "# ") {
				t.Errorf("%s with Accept %q: %s\n%.100s", path, accept, ct, body)
			}
		}
	}
}
