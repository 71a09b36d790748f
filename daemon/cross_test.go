package daemon_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/axp-exchange/axp"
	"github.com/axp-exchange/axp/client"
	"github.com/axp-exchange/axp/contract"
	"github.com/axp-exchange/axp/daemon"
	"github.com/axp-exchange/axp/protocol"
	"github.com/axp-exchange/axp/store/pgtest"
	bolt "go.etcd.io/bbolt"
)

// TestBadInputEveryOperation sends, to every implemented operation with input, inputs derived from
// its schema that break one rule each (wrong type, unknown enum value, out-of-range number,
// over-long string, missing required field, unknown field, malformed JSON) and checks the 400 names
// the field and nothing is stored.
func TestBadInputEveryOperation(t *testing.T) {
	e := newEnv(t)
	seller := e.seller("video")
	buyer := e.register(map[string]any{"roles": []string{"buyer"}})
	token := e.anon.With("bt_" + strings.Repeat("0", 48))
	// Each operation's declared example is the valid input the mutations start from, sent by a
	// caller its access level admits (authorization comes before the input is read).
	callerOf := map[contract.Access]*client.Client{contract.Public: e.anon, contract.Paid: e.anon, contract.BuyerAuth: token, contract.TaskParty: token,
		contract.MemberAuth: seller.c, contract.SellerAuth: seller.c, contract.AdminAuth: e.admin}
	valid := func(op *contract.Op) (c *client.Client, in map[string]any) {
		b, err := json.Marshal(op.Example)
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(b, &in); err != nil {
			t.Fatal(err)
		}
		return callerOf[op.Access], in
	}

	auditBefore, st := e.auditCount(), e.stats()
	cases := 0
	for i := range contract.Ops {
		op := contract.Ops[i]
		if op.In == nil || op.Later != "" {
			continue
		}
		if op.Example == nil {
			t.Errorf("%s declares no example input", op.Name)
			continue
		}
		var v struct {
			c  *client.Client
			in map[string]any
		}
		v.c, v.in = valid(op)
		schema := protocol.SchemaOf(op.In)
		forms := []bool{op.Method == http.MethodGet}
		if op.GETForm {
			forms = append(forms, true)
		}
		for _, viaGET := range forms {
			for _, m := range mutations(schema, op, v.in, viaGET) {
				cases++
				resp, err := do(v.c, op.Name, m.in, client.Options{GET: viaGET && op.Method != http.MethodGet})
				if resp == nil || resp.Status != 400 {
					t.Errorf("%s (GET %v) %s: want 400, got %v %v", op.Name, viaGET, m.what, resp, err)
					continue
				}
				b := checkErrorBody(t, resp, 400, "invalid_input")
				if b.Error.Field != m.field {
					t.Errorf("%s (GET %v) %s: field %q, want %q (%s)", op.Name, viaGET, m.what, b.Error.Field, m.field, b.Error.Message)
				}
			}
			if viaGET {
				continue
			}
			// Malformed and non-object JSON bodies.
			path := op.Path
			for _, p := range op.PathParams() {
				path = strings.Replace(path, "{"+p+"}", fmt.Sprint(v.in[p]), 1)
			}
			for _, body := range []string{`{"x":`, `{"a":1}}`, `[1]`, `"s"`, `12`, `{'a':1}`} {
				cases++
				resp, err := raw(v.c, op.Method, path, []byte(body), nil)
				if resp == nil || resp.Status != 400 {
					t.Errorf("%s body %s: %v %v", op.Name, body, resp, err)
					continue
				}
				if b := checkErrorBody(t, resp, 400, "invalid_input"); b.Error.Field != "body" {
					t.Errorf("%s body %s: field %q", op.Name, body, b.Error.Field)
				}
			}
		}
	}
	t.Logf("%d bad inputs sent", cases)

	// Over-long path ids.
	long := strings.Repeat("x", 101)
	_, err := do(buyer.c, "read_announcement", map[string]any{"id": long})
	apiErr(t, err, axp.CodeInvalidInput, "id")
	_, err = do(e.anon, "get_reputation", map[string]any{"id": long})
	apiErr(t, err, axp.CodeInvalidInput, "id")
	_, err = do(e.admin, "admin_trace", map[string]any{"traceId": strings.Repeat("t", 129)})
	apiErr(t, err, axp.CodeInvalidInput, "traceId")

	if n := e.auditCount(); n != auditBefore {
		var l axp.AuditList
		call(t, e.admin, "admin_audit", map[string]any{"limit": n - auditBefore}, &l)
		t.Fatalf("bad input wrote %d audit records: %+v", n-auditBefore, l.Records)
	}
	got := e.stats()
	if fmt.Sprint(got.Members, got.MembersByRole, got.Submissions) != fmt.Sprint(st.Members, st.MembersByRole, st.Submissions) {
		t.Fatalf("bad input changed the store: %+v -> %+v", st, got)
	}
	var p axp.PrivateMember
	call(t, seller.c, "get_my_profile", nil, &p)
	if p.State != "registered" || len(p.Skills) != 1 || p.Skills[0].TaskType != "video" {
		t.Fatalf("bad input changed the seller: %+v", p)
	}
}

type mutation struct {
	what  string
	in    map[string]any
	field string
}

// mutations derives invalid inputs from a valid one, each breaking one rule of the schema.
func mutations(s *protocol.Schema, op *contract.Op, valid map[string]any, viaGET bool) []mutation {
	var out []mutation
	with := func(k string, v any) map[string]any {
		m := map[string]any{}
		for kk, vv := range valid {
			m[kk] = vv
		}
		if v == nil {
			delete(m, k)
		} else {
			m[k] = v
		}
		return m
	}
	add := func(what, k string, v any, field string) {
		out = append(out, mutation{what + " " + k, with(k, v), field})
	}
	path := op.PathParams()
	names := append([]string(nil), s.PropertyOrder()...)
	sort.Strings(names)
	for _, k := range names {
		if contains(path, k) || k == op.ExtraQuery {
			continue
		}
		p := s.Properties[k]
		typ := p.PrimaryType()
		if viaGET && (typ == "array" || typ == "object") {
			continue // the query form has no way to send these
		}
		switch typ {
		case "string":
			if !viaGET {
				add("wrong type", k, 12345, k)
				add("wrong type", k, []any{"a"}, k)
			}
			if len(p.Enum) > 0 {
				add("unknown enum", k, "zz-not-allowed", k)
			}
			if p.MaxLength != nil {
				add("over-long", k, strings.Repeat("a", *p.MaxLength+1), k)
			}
			if p.MinLength != nil && *p.MinLength > 0 {
				add("empty", k, "", k)
			}
			if p.Format == "uri" {
				add("not a url", k, "not a url", k)
			}
			if p.Format == "email" {
				add("not an email", k, "not an email", k)
			}
			if p.Format == "evm-address" {
				add("not an address", k, "0xabc", k)
			}
		case "integer", "number":
			add("wrong type", k, "abc", k)
			if !viaGET {
				add("wrong type", k, true, k)
			}
			if p.Minimum != "" {
				n, _ := p.Minimum.Float64()
				add("below minimum", k, json.Number(fmt.Sprint(n-1)), k)
			}
			if p.Maximum != "" {
				n, _ := p.Maximum.Float64()
				add("above maximum", k, json.Number(fmt.Sprint(n+1)), k)
			}
			if typ == "integer" {
				add("fraction", k, json.Number("1.5"), k)
			}
			if p.MultipleOf != "" {
				// One decimal more than the field allows.
				_, frac, _ := strings.Cut(string(p.MultipleOf), ".")
				add("too many decimals", k, json.Number("1."+strings.Repeat("0", len(frac))+"1"), k)
			}
		case "boolean":
			add("wrong type", k, "maybe", k)
		case "array":
			add("wrong type", k, "a", k)
			add("wrong type", k, map[string]any{}, k)
			if p.Items != nil && len(p.Items.Enum) > 0 {
				add("unknown enum item", k, []any{"zz-not-allowed"}, k+"[0]")
			}
			if p.Items != nil && p.Items.PrimaryType() == "string" {
				add("wrong item type", k, []any{7}, k+"[0]")
			}
			if p.MaxItems != nil && p.Items != nil && p.Items.PrimaryType() == "string" {
				items := make([]any, *p.MaxItems+1)
				for i := range items {
					if len(p.Items.Enum) > 0 {
						items[i] = p.Items.Enum[0]
					} else {
						items[i] = fmt.Sprint("i", i)
					}
				}
				add("too many items", k, items, k)
			}
			if p.MinItems != nil && *p.MinItems > 0 {
				add("empty", k, []any{}, k)
			}
		case "object":
			add("wrong type", k, "a", k)
			if p.AdditionalProperties == false {
				add("unknown nested field", k, map[string]any{"zz_unknown": "x"}, k+".zz_unknown")
			}
		}
		if !nullable(p) && !viaGET {
			out = append(out, mutation{"null " + k, with(k, nil), k})
			out[len(out)-1].in[k] = nil
		}
		if contains(s.Required, k) {
			add("missing", k, nil, k)
		}
	}
	// A connector's extra query keys are its data source's parameters: none is unknown.
	if !(viaGET && op.Name == "paid_connector") {
		out = append(out, mutation{"unknown field", with("zz_unknown", "x"), "zz_unknown"})
	}
	return out
}

func nullable(s *protocol.Schema) bool {
	t, ok := s.Type.([]string)
	return ok && contains(t, "null")
}

func TestErrorsRoutesAndTraces(t *testing.T) {
	e := newEnv(t)

	// Unknown routes: 404 in the error body.
	for _, c := range []struct{ method, path string }{
		{"GET", "/nope"}, {"GET", "/api/nope"}, {"POST", "/api/members/me/nothing"}, {"GET", "/api/members/x/y/reputation"}, {"DELETE", "/nope"},
	} {
		resp, err := raw(e.anon, c.method, c.path, nil, nil)
		checkErrorBody(t, resp, 404, "not_found")
		apiErr(t, err, axp.CodeNotFound, "-")
	}
	// Wrong method: 405 with Allow.
	for _, c := range []struct{ method, path, allow string }{
		{"DELETE", "/api/services", "GET"},
		{"DELETE", "/", "GET"},
		{"POST", "/api/services", "GET"},
		{"GET", "/api/members/register", "POST"},
		{"POST", "/api/members/me", "GET, PATCH"},
		{"GET", "/api/members/me/skills", "PUT"},
		{"PUT", "/api/interest", "GET, POST"},
		{"PATCH", "/api/payment-preference", "GET, POST"},
	} {
		resp, err := raw(e.anon, c.method, c.path, nil, nil)
		if resp == nil || resp.Status != 405 {
			t.Fatalf("%s %s: %v %v", c.method, c.path, resp, err)
		}
		checkErrorBody(t, resp, 405, "not_found")
		if got := resp.Header.Get("Allow"); got != c.allow {
			t.Fatalf("%s %s: Allow %q, want %q", c.method, c.path, got, c.allow)
		}
	}

	// X-Trace-Id on every response: the caller's own when well-formed.
	tc := *e.anon
	tc.TraceID = "my-trace.1:abc"
	for _, op := range []string{"health", "list_services", "get_join", "get_openapi", "get_my_profile"} {
		resp, _ := do(&tc, op, nil)
		if resp == nil || resp.TraceID != "my-trace.1:abc" {
			t.Fatalf("%s: trace %v", op, resp)
		}
	}
	resp, _ := raw(&tc, "GET", "/nope", nil, nil)
	if resp.TraceID != "my-trace.1:abc" {
		t.Fatalf("404 trace %q", resp.TraceID)
	}
	for _, bad := range []string{"has space", strings.Repeat("a", 129), "semi;colon"} {
		resp, _ := raw(e.anon, "GET", "/healthz", nil, http.Header{"X-Trace-Id": {bad}})
		if resp.TraceID == "" || resp.TraceID == bad {
			t.Fatalf("malformed trace id %q answered with %q", bad, resp.TraceID)
		}
	}
	seen := map[string]bool{}
	for i := 0; i < 20; i++ {
		resp, _ := do(e.anon, "health", nil)
		if len(resp.TraceID) < 16 || seen[resp.TraceID] {
			t.Fatalf("fresh trace id %q", resp.TraceID)
		}
		seen[resp.TraceID] = true
	}

	// The trace endpoint shows the audit and log rows of a mutating call made with a trace id.
	tc.TraceID = "trace-register-1"
	var reg axp.Registered
	call(t, &tc, "register", map[string]any{"roles": []string{"buyer"}, "name": "traced"}, &reg)
	// The request row is logged just after the answer is sent: wait for it.
	var tr axp.Trace
	eventually(t, func() error {
		tr = axp.Trace{}
		call(t, e.admin, "admin_trace", map[string]any{"traceId": "trace-register-1"}, &tr)
		for _, l := range tr.Log {
			if l.Source == "http" {
				return nil
			}
		}
		return fmt.Errorf("no http row in %+v", tr.Log)
	})
	if tr.TraceID != "trace-register-1" || len(tr.Audit) != 1 || tr.Audit[0].Action != "member.register" || tr.Audit[0].EntityID != reg.MemberID ||
		tr.Audit[0].TraceID != "trace-register-1" || tr.Audit[0].Actor != "anonymous" {
		t.Fatalf("trace audit %+v", tr.Audit)
	}
	var sources []string
	for _, l := range tr.Log {
		if l.TraceID != "trace-register-1" {
			t.Fatalf("foreign log row %+v", l)
		}
		sources = append(sources, l.Source+":"+l.Message)
	}
	if !contains(sources, "members:member registered") || !contains(sources, "http:request") {
		t.Fatalf("trace log rows %v", sources)
	}
	for _, l := range tr.Log {
		b, _ := json.Marshal(l)
		if bytes.Contains(b, []byte(reg.MemberSecret)) || bytes.Contains(b, []byte(reg.PlatformKey)) {
			t.Fatalf("a log row holds a secret: %s", b)
		}
	}
	call(t, e.admin, "admin_trace", map[string]any{"traceId": "never-used"}, &tr)
	if len(tr.Audit) != 0 || len(tr.Log) != 0 {
		t.Fatalf("unknown trace %+v", tr)
	}
}

func TestBodyLimits(t *testing.T) {
	e := newEnv(t, func(c *daemon.Config) { c.MaxBodyBytes = 4096 })
	big := bytes.Repeat([]byte("a"), 5000)
	body := append(append([]byte(`{"message":"`), big...), `"}`...)

	// With a Content-Length over the limit.
	resp, err := raw(e.anon, "POST", "/api/feedback", body, nil)
	checkErrorBody(t, resp, 413, "too_large")
	apiErr(t, err, axp.CodeTooLarge, "-")
	// Chunked, with no length given.
	resp, err = e.anon.Raw(context.Background(), "POST", "/api/feedback", io.MultiReader(bytes.NewReader(body)), nil)
	checkErrorBody(t, resp, 413, "too_large")
	apiErr(t, err, axp.CodeTooLarge, "-")
	// On a member call too.
	m := e.register(map[string]any{"roles": []string{"buyer"}})
	resp, _ = m.c.Raw(context.Background(), "PATCH", "/api/members/me", io.MultiReader(bytes.NewReader(body)), nil)
	checkErrorBody(t, resp, 413, "too_large")
	// At the limit is fine.
	ok := append(append([]byte(`{"message":"`), bytes.Repeat([]byte("b"), 4000)...), `"}`...)
	resp, err = raw(e.anon, "POST", "/api/feedback", ok, nil)
	if err != nil || resp.Status != 201 {
		t.Fatalf("a body under the limit: %v", err)
	}
	if got := e.stats().Submissions["feedback"]; got != 1 {
		t.Fatalf("%d feedback stored", got)
	}

	// The refusal comes before the body is read whole: the exchange answers while most of the
	// announced body has not even been sent.
	addr := strings.TrimPrefix(e.srv.URL, "http://")
	for _, chunked := range []bool{false, true} {
		conn, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		hdr := "POST /api/feedback HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
		if chunked {
			hdr += "Transfer-Encoding: chunked\r\n\r\n"
			chunk := bytes.Repeat([]byte("a"), 8192)
			hdr += fmt.Sprintf("%x\r\n%s\r\n", len(chunk), chunk) // more than the limit; no last chunk
		} else {
			hdr += "Content-Length: 1073741824\r\n\r\n{\"message\":\"aaaa"
		}
		if _, err := io.WriteString(conn, hdr); err != nil {
			t.Fatal(err)
		}
		res, err := http.ReadResponse(bufio.NewReader(conn), nil)
		if err != nil {
			t.Fatalf("chunked=%v: %v", chunked, err)
		}
		b, _ := io.ReadAll(res.Body)
		conn.Close()
		if res.StatusCode != 413 || !bytes.Contains(b, []byte(`"too_large"`)) || res.Header.Get("X-Trace-Id") == "" {
			t.Fatalf("chunked=%v: %d %s", chunked, res.StatusCode, b)
		}
	}
}

func TestIdempotency(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	key := client.Options{IdempotencyKey: "feedback-key-0001"}
	in := map[string]any{"message": "hello", "rating": 4}
	first, err := do(e.anon, "submit_feedback", in, key)
	if err != nil || first.Status != 201 || first.Header.Get("Idempotent-Replayed") != "" {
		t.Fatalf("first: %v %v", first, err)
	}
	audit := e.auditCount()
	for i := 0; i < 3; i++ {
		again, err := do(e.anon, "submit_feedback", in, key)
		if err != nil || again.Status != 201 || again.Header.Get("Idempotent-Replayed") != "true" || !bytes.Equal(again.Body, first.Body) {
			t.Fatalf("replay: %v %v\n%s\n%s", again, err, again.Body, first.Body)
		}
	}
	if got := e.stats().Submissions["feedback"]; got != 1 {
		t.Fatalf("%d feedback stored after replays", got)
	}
	if n := e.auditCount(); n != audit {
		t.Fatalf("replays wrote %d audit records", n-audit)
	}
	// Same key, different body: 409, nothing stored.
	resp, err := do(e.anon, "submit_feedback", map[string]any{"message": "other"}, key)
	checkErrorBody(t, resp, 409, "conflict")
	apiErr(t, err, axp.CodeConflict, "-")
	if got := e.stats().Submissions["feedback"]; got != 1 {
		t.Fatalf("%d feedback stored after a conflict", got)
	}
	// The key is scoped to the operation and the caller.
	resp, err = do(e.anon, "payment_preference", map[string]any{"preferred": "card"}, key)
	if err != nil || resp.Header.Get("Idempotent-Replayed") != "" {
		t.Fatalf("another operation with the same key: %v", err)
	}
	m := e.register(map[string]any{"roles": []string{"buyer"}})
	resp, err = do(m.c, "submit_feedback", in, key)
	if err != nil || resp.Header.Get("Idempotent-Replayed") != "" {
		t.Fatalf("another caller with the same key: %v", err)
	}
	// PATCH and PUT honour it too.
	pk := client.Options{IdempotencyKey: "patch-1"}
	r1, err := do(m.c, "update_profile", map[string]any{"description": "one"}, pk)
	if err != nil {
		t.Fatal(err)
	}
	call(t, m.c, "update_profile", map[string]any{"description": "two"}, nil)
	r2, err := do(m.c, "update_profile", map[string]any{"description": "one"}, pk)
	if err != nil || r2.Header.Get("Idempotent-Replayed") != "true" || !bytes.Equal(r1.Body, r2.Body) {
		t.Fatalf("patch replay: %v", err)
	}
	var p axp.PrivateMember
	call(t, m.c, "get_my_profile", nil, &p)
	if p.Description != "two" {
		t.Fatalf("a replay changed the profile again: %q", p.Description)
	}
	// Over-long keys are refused.
	_, err = do(e.anon, "submit_feedback", in, client.Options{IdempotencyKey: strings.Repeat("k", 256)})
	apiErr(t, err, axp.CodeInvalidInput, "Idempotency-Key")
	// So are short keys from callers without credentials: the key is all that tells two of them
	// behind one address apart, and a replay hands out secrets. Members may use short keys.
	_, err = do(e.anon, "submit_feedback", in, client.Options{IdempotencyKey: "retry-1"})
	if e := apiErr(t, err, axp.CodeInvalidInput, "Idempotency-Key"); !strings.Contains(e.Hint, "UUID") {
		t.Fatalf("the hint does not say what to use: %q", e.Hint)
	}
	// A refused call stores no answer: fixing the body under the same key then works.
	bad := client.Options{IdempotencyKey: "fix-me-key-000001"}
	_, err = do(e.anon, "submit_feedback", map[string]any{"message": ""}, bad)
	apiErr(t, err, axp.CodeInvalidInput, "message")
	resp, err = do(e.anon, "submit_feedback", map[string]any{"message": "fixed"}, bad)
	if err != nil || resp.Status != 201 {
		t.Fatalf("after a refused call: %v", err)
	}

	// The same key on another resource is another request: 409, not the first answer.
	s1, s2 := e.seller("video"), e.seller("image")
	sk := client.Options{IdempotencyKey: "suspend-1"}
	if _, err := do(e.admin, "admin_suspend", map[string]any{"id": s1.MemberID}, sk); err != nil {
		t.Fatal(err)
	}
	_, err = do(e.admin, "admin_suspend", map[string]any{"id": s2.MemberID}, sk)
	apiErr(t, err, axp.CodeConflict, "-")
	call(t, s2.c, "get_my_profile", nil, nil) // not suspended

	// Concurrent retries with one key: the change happens once; every answer is the first one
	// or a 409 "still in progress".
	before := e.stats().Submissions["feedback"]
	ck := client.Options{IdempotencyKey: "concurrent-key-0001"}
	cin := map[string]any{"message": "concurrent"}
	type res struct {
		r   *client.Response
		err error
	}
	out := make(chan res, 30)
	for i := 0; i < 30; i++ {
		go func() {
			r, err := e.anon.Do(ctx, "submit_feedback", cin, ck)
			out <- res{r, err}
		}()
	}
	var ids []string
	for i := 0; i < 30; i++ {
		x := <-out
		if x.err != nil {
			apiErr(t, x.err, axp.CodeConflict, "-")
			continue
		}
		var rec axp.Recorded
		json.Unmarshal(x.r.Body, &rec)
		ids = append(ids, rec.ID)
	}
	if len(ids) == 0 {
		t.Fatalf("no concurrent retry got an answer")
	}
	for _, id := range ids {
		if id != ids[0] {
			t.Fatalf("concurrent retries got different answers: %v", ids)
		}
	}
	if got := e.stats().Submissions["feedback"]; got != before+1 {
		t.Fatalf("concurrent retries stored %d feedback", got-before)
	}
}

func TestRateLimits(t *testing.T) {
	e := newEnv(t, func(c *daemon.Config) { c.RegistrationsPerHour = 5; c.AnonReadsPerMinute = 30 })
	// Refused registrations and replays do not use up the limit.
	for i := 0; i < 3; i++ {
		_, err := do(e.anon, "register", map[string]any{"roles": []string{"buyer"}})
		apiErr(t, err, axp.CodeInvalidInput, "name")
	}
	key := client.Options{IdempotencyKey: "register-key-00001"}
	in := map[string]any{"roles": []string{"buyer"}, "name": "r1"}
	for i := 0; i < 3; i++ {
		if _, err := do(e.anon, "register", in, key); err != nil {
			t.Fatal(err)
		}
	}
	var last *member
	for i := 0; i < 4; i++ {
		last = e.register(map[string]any{"roles": []string{"buyer"}})
	}
	resp, err := do(e.anon, "register", map[string]any{"roles": []string{"buyer"}, "name": "sixth"})
	checkErrorBody(t, resp, 429, "rate_limited")
	e429 := apiErr(t, err, axp.CodeRateLimited, "-")
	if resp.Header.Get("Retry-After") != "720" || e429.RetryAfter != 720 {
		t.Fatalf("Retry-After %q (%d), want 720 (one registration every 12 minutes)", resp.Header.Get("Retry-After"), e429.RetryAfter)
	}
	if got := e.stats().Members["registered"]; got != 5 {
		t.Fatalf("%d members after the limit", got)
	}
	// Anonymous calls in general are limited per IP; members are not.
	var limited *client.Response
	for i := 0; i < 40 && limited == nil; i++ {
		if r, err := do(e.anon, "health", nil); err != nil {
			limited = r
		}
	}
	if limited == nil {
		t.Fatalf("40 anonymous calls were not limited at 30 a minute")
	}
	checkErrorBody(t, limited, 429, "rate_limited")
	if limited.Header.Get("Retry-After") == "" {
		t.Fatalf("no Retry-After")
	}
	// Members are not held to the anonymous limit, though they call from the same address.
	for i := 0; i < 40; i++ {
		call(t, last.c, "health", nil, nil)
	}
}

func TestAdminEndpoints(t *testing.T) {
	e := newEnv(t)
	m := e.register(map[string]any{"roles": []string{"seller"}, "skills": []map[string]any{{"task_type": "video"}}})
	b := e.register(map[string]any{"roles": []string{"buyer"}})
	e.setState(m.MemberID, axp.MemberVerified)

	// Every admin endpoint needs the admin token.
	for _, op := range contract.Ops {
		if op.Access != contract.AdminAuth {
			continue
		}
		path := strings.NewReplacer("{id}", m.MemberID, "{traceId}", "t").Replace(op.Path)
		for _, tok := range []string{"", m.MemberSecret, "wrong-token", adminToken + "x"} {
			resp, err := raw(e.anon.With(tok), op.Method, path, []byte(`{}`), nil)
			if resp == nil || resp.Status != 401 {
				t.Fatalf("%s with token %q: %v %v", op.Name, tok, resp, err)
			}
			checkErrorBody(t, resp, 401, "unauthorized")
		}
	}

	// members, with filters.
	var ml axp.MemberList
	call(t, e.admin, "admin_members", nil, &ml)
	if len(ml.Members) != 2 {
		t.Fatalf("members %+v", ml)
	}
	call(t, e.admin, "admin_members", map[string]any{"state": "verified"}, &ml)
	if len(ml.Members) != 1 || ml.Members[0].ID != m.MemberID {
		t.Fatalf("verified members %+v", ml)
	}
	call(t, e.admin, "admin_members", map[string]any{"role": "buyer"}, &ml)
	if len(ml.Members) != 1 || ml.Members[0].ID != b.MemberID {
		t.Fatalf("buyer members %+v", ml)
	}

	// stats.
	st := e.stats()
	if st.Members["verified"] != 1 || st.Members["registered"] != 1 || st.Members["suspended"] != 0 || st.MembersByRole["seller"] != 1 ||
		st.Money.LedgerSum != 0 || st.SchemaVersion < 1 || st.Uptime == "" {
		t.Fatalf("stats %+v", st)
	}
	for _, s := range []string{"open", "awaiting_payment", "paid", "delivered", "accepted", "disputed", "released", "refunded"} {
		if _, ok := st.Tasks[s]; !ok {
			t.Fatalf("stats lack task status %s: %v", s, st.Tasks)
		}
	}
	// The only daemon leads (on PostgreSQL once it took the leader lock, at once on bbolt).
	eventually(t, func() error {
		if st := e.stats(); !st.Leader {
			return fmt.Errorf("the only daemon does not lead: %+v", st)
		}
		return nil
	})

	// audit filters.
	call(t, e.admin, "admin_suspend", map[string]any{"id": b.MemberID, "reason": "r"}, nil)
	var al axp.AuditList
	for _, c := range []struct {
		q    map[string]any
		want int
	}{
		{map[string]any{"entity_type": "member"}, 3},
		{map[string]any{"entity_id": b.MemberID}, 2},
		{map[string]any{"actor": "admin"}, 1},
		{map[string]any{"action": "member.register"}, 2},
		{map[string]any{"action": "member.register", "limit": 1}, 1},
		{map[string]any{"entity_type": "member", "actor": "anonymous", "entity_id": m.MemberID}, 1},
		{map[string]any{"entity_type": "task"}, 0},
	} {
		call(t, e.admin, "admin_audit", c.q, &al)
		if len(al.Records) != c.want {
			t.Fatalf("audit %v: %d records, want %d", c.q, len(al.Records), c.want)
		}
		for _, r := range al.Records {
			if r.ID == "" || r.Time.IsZero() || r.Actor == "" || r.Action == "" || r.EntityType == "" || r.TraceID == "" {
				t.Fatalf("incomplete audit record %+v", r)
			}
		}
	}
	// Newest first, to the millisecond (see NewID on ids made within one millisecond).
	call(t, e.admin, "admin_audit", map[string]any{"limit": 5000}, &al)
	for i := 1; i < len(al.Records); i++ {
		if al.Records[i].Time.Truncate(time.Millisecond).After(al.Records[i-1].Time.Truncate(time.Millisecond)) {
			t.Fatalf("audit order: %+v before %+v", al.Records[i-1], al.Records[i])
		}
	}

	// log, with level, source and limit.
	for i := 0; i < 3; i++ {
		raw(e.anon, "GET", "/missing", nil, nil) // 404s log at info
	}
	var ll axp.LogList
	call(t, e.admin, "admin_log", map[string]any{"source": "http", "limit": 2}, &ll)
	if len(ll.Entries) != 2 {
		t.Fatalf("log limit: %d entries", len(ll.Entries))
	}
	call(t, e.admin, "admin_log", map[string]any{"source": "members"}, &ll)
	if len(ll.Entries) != 2 || ll.Entries[0].Message != "member registered" {
		t.Fatalf("members log %+v", ll.Entries)
	}
	call(t, e.admin, "admin_log", map[string]any{"level": "debug", "limit": 5000}, &ll)
	all := len(ll.Entries)
	call(t, e.admin, "admin_log", map[string]any{"level": "warn", "limit": 5000}, &ll)
	for _, l := range ll.Entries {
		if l.Level != "warn" && l.Level != "error" {
			t.Fatalf("level=warn shows %+v", l)
		}
	}
	if all == 0 || len(ll.Entries) >= all {
		t.Fatalf("%d entries at debug, %d at warn", all, len(ll.Entries))
	}
	call(t, e.admin, "admin_log", map[string]any{"level": "error"}, &ll)
	for _, l := range ll.Entries {
		if l.Level != "error" {
			t.Fatalf("level=error shows %+v", l)
		}
	}

	// metrics: count, errors and p50/p95 per route.
	for i := 0; i < 20; i++ {
		call(t, e.anon, "list_services", nil, nil)
	}
	raw(e.anon, "GET", "/api/quote?type=nope", nil, nil)
	// Requests are counted just after their answer is sent: wait for the last ones.
	var mt axp.Metrics
	routes := map[string]axp.RouteMetrics{}
	eventually(t, func() error {
		call(t, e.admin, "admin_metrics", map[string]any{"hours": 1}, &mt)
		for _, r := range mt.Routes {
			routes[r.Route] = r
		}
		if routes["GET /api/services"].Count < 20 || routes["GET /api/quote"].Count < 1 || routes["unmatched"].Count < 3 {
			return fmt.Errorf("routes %+v", mt.Routes)
		}
		return nil
	})
	svc := routes["GET /api/services"]
	if mt.Hours != 1 || svc.Count != 20 || svc.Errors != 0 || svc.P50Millis <= 0 || svc.P95Millis < svc.P50Millis {
		t.Fatalf("metrics of GET /api/services %+v (all: %+v)", svc, mt.Routes)
	}
	if q := routes["GET /api/quote"]; q.Count != 1 {
		t.Fatalf("metrics of GET /api/quote %+v", q)
	}
	if u := routes["unmatched"]; u.Count < 3 {
		t.Fatalf("metrics of unmatched routes %+v", u)
	}
	call(t, e.admin, "admin_metrics", nil, &mt)
	if mt.Hours != 24 {
		t.Fatalf("default window %d", mt.Hours)
	}

	// operator messages are covered in TestOperatorMessages; backup here. On PostgreSQL the
	// exchange has no file to send: it says so and points to pg_dump.
	resp, err := do(e.admin, "admin_backup", nil)
	if pgtest.OnPostgres(t) {
		if ae := apiErr(t, err, axp.CodeUnavailable, "-"); !strings.Contains(ae.Hint, "pg_dump") {
			t.Fatalf("backup on PostgreSQL: %v, hint %q", ae, ae.Hint)
		}
		return
	}
	if err != nil {
		t.Fatal(err)
	}
	if resp.Header.Get("Content-Type") != "application/octet-stream" || !strings.Contains(resp.Header.Get("Content-Disposition"), "attachment") {
		t.Fatalf("backup headers %v", resp.Header)
	}
	path := filepath.Join(t.TempDir(), "backup.db")
	if err := os.WriteFile(path, resp.Body, 0o600); err != nil {
		t.Fatal(err)
	}
	bdb, err := bolt.Open(path, 0o600, &bolt.Options{ReadOnly: true})
	if err != nil {
		t.Fatalf("the backup does not open as a bbolt database: %v", err)
	}
	defer bdb.Close()
	err = bdb.View(func(tx *bolt.Tx) error {
		mb := tx.Bucket([]byte("members"))
		if mb == nil {
			return fmt.Errorf("no members bucket")
		}
		for _, id := range []string{m.MemberID, b.MemberID} {
			if mb.Get([]byte(id)) == nil {
				return fmt.Errorf("member %s missing from the backup", id)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestUnavailableOperations: a public operation still marked Later answers 503 naming itself,
// with a hint.
func TestUnavailableOperations(t *testing.T) {
	e := newEnv(t)
	for _, op := range contract.Ops {
		if op.Later == "" || op.Access != contract.Public {
			continue
		}
		resp, err := do(e.anon, op.Name, nil)
		b := checkErrorBody(t, resp, 503, "unavailable")
		apiErr(t, err, axp.CodeUnavailable, "-")
		if !strings.Contains(b.Error.Message, op.Name) || b.Error.Hint == "" {
			t.Fatalf("%s: %+v", op.Name, b.Error)
		}
	}
}

func TestInternalErrorsDoNotLeak(t *testing.T) {
	e := newEnv(t)
	m := e.register(map[string]any{"roles": []string{"buyer"}})
	// Pull the database from under the exchange: every store call now fails.
	if err := e.d.DB().Close(); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		c  *client.Client
		op string
		in any
	}{
		{m.c, "get_my_profile", nil},
		{e.anon, "register", map[string]any{"roles": []string{"buyer"}, "name": "x"}},
		{e.anon, "list_sellers", nil},
		{e.admin, "admin_stats", nil},
	} {
		resp, err := do(c.c, c.op, c.in)
		b := checkErrorBody(t, resp, 500, "internal")
		apiErr(t, err, axp.CodeInternal, "-")
		if b.Error.Message != "internal error" || !strings.Contains(b.Error.Hint, b.TraceID) || b.Error.Field != "" {
			t.Fatalf("%s: %s", c.op, resp.Body)
		}
		for _, leak := range []string{"database", "bolt", "closed", "not open", "/", ".go"} {
			if strings.Contains(b.Error.Message+b.Error.Hint, leak) {
				t.Fatalf("%s leaks %q: %s", c.op, leak, resp.Body)
			}
		}
	}
}
