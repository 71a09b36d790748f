package memberkit_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/axp-exchange/axp/daemon/outbound"
	"github.com/axp-exchange/axp/memberkit"
	"github.com/axp-exchange/axp/protocol"
)

// The tests here call a memberkit server the way the exchange does: with daemon/outbound's Caller,
// which signs every request (real signing at both ends).

const (
	memberID    = "mem_test_1"
	platformKey = "pk_0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
	secret      = "ss_mem_test_1_0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
)

var quiet = slog.New(slog.DiscardHandler)

func money(t *testing.T, s string) *protocol.Money {
	t.Helper()
	m, err := protocol.ParseMoney(s)
	if err != nil {
		t.Fatal(err)
	}
	return &m
}

func intp(n int) *int { return &n }

// skills: an instant skill, a priced one, one without a price.
func skills(t *testing.T) []protocol.Skill {
	return []protocol.Skill{
		{TaskType: "text-file", InstantPriceUSD: money(t, "0.5"), InstantETAMinutes: intp(3), Guarantee: &protocol.Guarantee{FreeRedo: 1}},
		{TaskType: "translation", MinPriceUSD: money(t, "2.25"), TypicalETAMinutes: intp(20)},
		{TaskType: "video"},
	}
}

// member is a memberkit server on loopback with a caller that reaches it as the exchange.
type member struct {
	t      *testing.T
	srv    *memberkit.Server
	http   *httptest.Server
	caller *outbound.Caller
	target outbound.Target
}

func newMember(t *testing.T, o memberkit.Options) *member {
	t.Helper()
	if o.Logger == nil {
		o.Logger = quiet
	}
	srv, err := memberkit.NewServer(o)
	if err != nil {
		t.Fatalf("NewServer: %v", err)
	}
	hs := httptest.NewServer(srv.Handler())
	t.Cleanup(hs.Close)
	return &member{t: t, srv: srv, http: hs, caller: &outbound.Caller{Timeout: 5 * time.Second},
		target: outbound.Target{MemberID: memberID, MCPURL: hs.URL + memberkit.Path, PlatformKey: []byte(platformKey)}}
}

// register gives the server its credentials; deliveries go to exchange.
func (m *member) register(exchange string) {
	m.srv.SetCredentials(&memberkit.Credentials{Exchange: exchange, MemberID: memberID, MemberSecret: secret, PlatformKey: platformKey})
}

func (m *member) call(tool string, in, out any) error {
	m.t.Helper()
	_, err := m.caller.Call(context.Background(), m.target, tool, in, out)
	return err
}

func callErr(t *testing.T, err error, kind string, contains string) *outbound.CallError {
	t.Helper()
	var ce *outbound.CallError
	if !errors.As(err, &ce) {
		t.Fatalf("want a %s CallError, got %v", kind, err)
	}
	if ce.Kind != kind {
		t.Fatalf("want kind %s, got %s: %v", kind, ce.Kind, ce)
	}
	if contains != "" && !strings.Contains(ce.Message, contains) {
		t.Fatalf("error %q does not say %q", ce.Message, contains)
	}
	return ce
}

func sellerOptions(t *testing.T) memberkit.Options {
	return memberkit.Options{Roles: []string{"seller"}, Seller: memberkit.Defaults{Skills: skills(t)}}
}

func TestHandshakeAndTools(t *testing.T) {
	for _, roles := range [][]string{{"seller"}, {"buyer"}, {"buyer", "seller"}} {
		t.Run(strings.Join(roles, "+"), func(t *testing.T) {
			m := newMember(t, memberkit.Options{Roles: roles, Seller: memberkit.Defaults{}})
			m.register("http://127.0.0.1:1")
			var ct protocol.ContactTestOutput
			if err := m.call("contact_test", protocol.ContactTestInput{Nonce: "n-123", MemberID: memberID}, &ct); err != nil {
				t.Fatal(err)
			}
			if ct.Nonce != "n-123" || ct.Signature != protocol.ContactTestSignature([]byte(platformKey), "n-123") {
				t.Fatalf("contact_test answered %+v", ct)
			}
			tools, err := m.caller.ListTools(context.Background(), m.target)
			if err != nil {
				t.Fatal(err)
			}
			want := protocol.RequiredTools(roles)
			slices.Sort(tools)
			slices.Sort(want)
			if !slices.Equal(tools, want) {
				t.Fatalf("tools/list = %v, want %v", tools, want)
			}
		})
	}
}

// TestToolSchemas checks that tools/list carries the schemas of tools.json.
func TestToolSchemas(t *testing.T) {
	m := newMember(t, sellerOptions(t))
	m.register("http://127.0.0.1:1")
	body := `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{}}`
	res := m.raw(body, func(h http.Header, b []byte) {
		protocol.SignRequest(h, memberID, []byte(platformKey), "", b, time.Now())
	})
	if res.StatusCode != 200 {
		t.Fatalf("tools/list: %d %s", res.StatusCode, res.Body)
	}
	var out struct {
		Result struct {
			Tools []struct {
				Name         string          `json:"name"`
				InputSchema  json.RawMessage `json:"inputSchema"`
				OutputSchema json.RawMessage `json:"outputSchema"`
			} `json:"tools"`
		} `json:"result"`
	}
	if err := json.Unmarshal(res.Body, &out); err != nil {
		t.Fatalf("%v: %s", err, res.Body)
	}
	if len(out.Result.Tools) != len(protocol.RequiredTools([]string{"seller"})) {
		t.Fatalf("got %d tools", len(out.Result.Tools))
	}
	for _, tool := range out.Result.Tools {
		var spec protocol.ToolDoc
		for _, d := range protocol.Tools().Tools {
			if d.Name == tool.Name {
				spec = d
			}
		}
		wantIn, _ := json.Marshal(spec.InputSchema)
		wantOut, _ := json.Marshal(spec.OutputSchema)
		if !jsonEqual(t, tool.InputSchema, wantIn) || !jsonEqual(t, tool.OutputSchema, wantOut) {
			t.Errorf("%s: schemas differ from tools.json:\n in  %s\n want %s\n out %s\n want %s", tool.Name, tool.InputSchema, wantIn, tool.OutputSchema, wantOut)
		}
	}
}

func jsonEqual(t *testing.T, a, b []byte) bool {
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	return fmt.Sprint(x) == fmt.Sprint(y)
}

type rawResponse struct {
	StatusCode int
	Header     http.Header
	Body       []byte
}

// raw posts body to the member's /mcp with headers set by sign.
func (m *member) raw(body string, sign func(h http.Header, b []byte)) rawResponse {
	m.t.Helper()
	req, err := http.NewRequest(http.MethodPost, m.target.MCPURL, strings.NewReader(body))
	if err != nil {
		m.t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if sign != nil {
		sign(req.Header, []byte(body))
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		m.t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return rawResponse{res.StatusCode, res.Header, b}
}

const contactTestCall = `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"contact_test","arguments":{"nonce":"x","member_id":"mem_test_1"}}}`

// TestRefusesBadCalls: forged, stale, future, unsigned, another member's, and (by default)
// replayed calls are refused with 401 and a short JSON error; signed calls pass.
func TestRefusesBadCalls(t *testing.T) {
	m := newMember(t, memberkit.Options{Roles: []string{"seller"}, Seller: memberkit.Defaults{}})
	m.register("http://127.0.0.1:1")
	now := time.Now()
	cases := []struct {
		name string
		sign func(h http.Header, b []byte)
		says string
	}{
		{"unsigned", nil, "missing signature headers"},
		{"forged", func(h http.Header, b []byte) { protocol.SignRequest(h, memberID, []byte("pk_wrong"), "", b, now) }, "signature does not match"},
		{"stale", func(h http.Header, b []byte) {
			protocol.SignRequest(h, memberID, []byte(platformKey), "", b, now.Add(-301*time.Second))
		}, "300 s"},
		{"future", func(h http.Header, b []byte) {
			protocol.SignRequest(h, memberID, []byte(platformKey), "", b, now.Add(302*time.Second))
		}, "300 s"},
		{"other member", func(h http.Header, b []byte) { protocol.SignRequest(h, "mem_other", []byte(platformKey), "", b, now) }, "another member"},
		{"body changed", func(h http.Header, b []byte) {
			protocol.SignRequest(h, memberID, []byte(platformKey), "", append([]byte(" "), b...), now)
		}, "signature does not match"},
		{"bad timestamp", func(h http.Header, b []byte) {
			protocol.SignRequest(h, memberID, []byte(platformKey), "", b, now)
			h.Set(protocol.HeaderTimestamp, "yesterday")
		}, "unix seconds"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res := m.raw(contactTestCall, c.sign)
			if res.StatusCode != http.StatusUnauthorized {
				t.Fatalf("status %d, want 401: %s", res.StatusCode, res.Body)
			}
			if ct := res.Header.Get("Content-Type"); ct != "application/json" {
				t.Fatalf("Content-Type %q", ct)
			}
			// MCP clients are told the endpoint is HMAC-signed, not OAuth-protected.
			if wa := res.Header.Get("WWW-Authenticate"); !strings.HasPrefix(wa, "AXP-HMAC ") {
				t.Fatalf("WWW-Authenticate %q", wa)
			}
			var e struct {
				Error struct{ Code, Message string } `json:"error"`
			}
			if err := json.Unmarshal(res.Body, &e); err != nil || e.Error.Code != "unauthorized" || !strings.Contains(e.Error.Message, c.says) {
				t.Fatalf("error body %s does not say %q", res.Body, c.says)
			}
		})
	}

	// A call signed right is answered; sent again as it is, it is a replay.
	var sig http.Header
	ok := m.raw(contactTestCall, func(h http.Header, b []byte) {
		protocol.SignRequest(h, memberID, []byte(platformKey), "", b, now)
		sig = h.Clone()
	})
	if ok.StatusCode != 200 || !bytes.Contains(ok.Body, []byte(protocol.ContactTestSignature([]byte(platformKey), "x"))) {
		t.Fatalf("signed call: %d %s", ok.StatusCode, ok.Body)
	}
	replay := m.raw(contactTestCall, func(h http.Header, b []byte) {
		for k, v := range sig {
			h[k] = v
		}
	})
	if replay.StatusCode != http.StatusUnauthorized || !bytes.Contains(replay.Body, []byte("replay")) {
		t.Fatalf("replay: %d %s", replay.StatusCode, replay.Body)
	}
	// Replays stay refused: the third and fourth sends too.
	for range 2 {
		if again := m.raw(contactTestCall, func(h http.Header, b []byte) {
			for k, v := range sig {
				h[k] = v
			}
		}); again.StatusCode != http.StatusUnauthorized {
			t.Fatalf("a later replay: %d %s", again.StatusCode, again.Body)
		}
	}
	// With AllowReplays the same call is answered again.
	open := newMember(t, memberkit.Options{Roles: []string{"seller"}, Seller: memberkit.Defaults{}, AllowReplays: true})
	open.register("http://127.0.0.1:1")
	for i := range 2 {
		if r := open.raw(contactTestCall, func(h http.Header, b []byte) { copyOrSign(h, b, &sig, now) }); r.StatusCode != 200 {
			t.Fatalf("AllowReplays, send %d: %d %s", i+1, r.StatusCode, r.Body)
		}
	}

	// Through the exchange's own caller: a wrong key and a clock 6 minutes off are HTTP 401s.
	bad := m.target
	bad.PlatformKey = []byte("pk_wrong")
	callErr(t, m.call2(bad, nil), outbound.KindHTTP, "401")
	late := &outbound.Caller{Timeout: 5 * time.Second, Now: func() time.Time { return time.Now().Add(-6 * time.Minute) }}
	_, err := late.Call(context.Background(), m.target, "contact_test", protocol.ContactTestInput{Nonce: "n", MemberID: memberID}, nil)
	callErr(t, err, outbound.KindHTTP, "401")
}

// copyOrSign signs a call the first time (into *sig) and repeats those headers after.
func copyOrSign(h http.Header, b []byte, sig *http.Header, now time.Time) {
	if *sig == nil {
		protocol.SignRequest(h, memberID, []byte(platformKey), "", b, now)
		*sig = h.Clone()
		return
	}
	for k, v := range *sig {
		h[k] = v
	}
}

func (m *member) call2(target outbound.Target, out any) error {
	_, err := m.caller.Call(context.Background(), target, "contact_test", protocol.ContactTestInput{Nonce: "n", MemberID: memberID}, out)
	return err
}

// TestUnregisteredAndAuthToken: no credentials yet -> 503; an auth token is required when set.
func TestUnregisteredAndAuthToken(t *testing.T) {
	m := newMember(t, memberkit.Options{Roles: []string{"buyer"}, AuthToken: "tok-123"})
	res := m.raw(contactTestCall, func(h http.Header, b []byte) {
		protocol.SignRequest(h, memberID, []byte(platformKey), "", b, time.Now())
	})
	if res.StatusCode != http.StatusServiceUnavailable {
		t.Fatalf("before registration: %d %s", res.StatusCode, res.Body)
	}
	m.register("http://127.0.0.1:1")
	callErr(t, m.call("contact_test", protocol.ContactTestInput{Nonce: "n", MemberID: memberID}, nil), outbound.KindHTTP, "401")
	m.target.AuthToken = "tok-123"
	if err := m.call("contact_test", protocol.ContactTestInput{Nonce: "n", MemberID: memberID}, nil); err != nil {
		t.Fatal(err)
	}
	m.target.AuthToken = "tok-124"
	callErr(t, m.call("contact_test", protocol.ContactTestInput{Nonce: "n", MemberID: memberID}, nil), outbound.KindHTTP, "401")
}

func quoteIn(taskType, payment string) protocol.QuoteInput {
	return protocol.QuoteInput{TaskID: "tsk_1", TaskType: taskType, Description: "d", Params: map[string]any{"prompt": "p"},
		Buyer: protocol.BuyerRef{ID: "anonymous", Name: "buyer", Anonymous: true}, PaymentMethod: payment, Test: true}
}

// TestDefaultQuotes: instant prices honoured, min price and typical ETA otherwise, 0 for free
// jobs, decline without a price or a skill.
func TestDefaultQuotes(t *testing.T) {
	m := newMember(t, sellerOptions(t))
	m.register("http://127.0.0.1:1")
	cases := []struct {
		taskType, payment, price string
		eta                      int
		decline                  string
	}{
		{"text-file", "crypto", "0.5", 3, ""},
		{"text-file", "free", "0", 3, ""},
		{"translation", "crypto", "2.25", 20, ""},
		{"video", "crypto", "", 0, "cannot_do"},
		{"image", "crypto", "", 0, "cannot_do"},
	}
	for _, c := range cases {
		var q protocol.QuoteAnswer
		if err := m.call("quote", quoteIn(c.taskType, c.payment), &q); err != nil {
			t.Fatalf("%s: %v", c.taskType, err)
		}
		if c.decline != "" {
			if !q.Decline || q.ReasonCode != c.decline || q.Reason == "" {
				t.Errorf("%s: want a %s decline, got %+v", c.taskType, c.decline, q)
			}
			continue
		}
		if q.PriceUSD == nil || q.PriceUSD.String() != c.price || q.ETAMinutes == nil || *q.ETAMinutes != c.eta {
			t.Errorf("%s/%s: got %+v", c.taskType, c.payment, q)
		}
	}
	var q protocol.QuoteAnswer
	m.call("quote", quoteIn("text-file", "crypto"), &q)
	if q.Guarantee == nil || q.Guarantee.FreeRedo != 1 {
		t.Errorf("the skill's guarantee is not quoted: %+v", q.Guarantee)
	}
	var gs protocol.GetSkillsOutput
	if err := m.call("get_skills", protocol.GetSkillsInput{MemberID: memberID}, &gs); err != nil || len(gs.Skills) != 3 {
		t.Fatalf("get_skills: %v %+v", err, gs)
	}
	var med protocol.MediationOutput
	if err := m.call("mediation", protocol.MediationInput{MediationID: "med_1", Kind: "dispute", TaskID: "tsk_1", YourRole: "seller", OpenedBy: "buyer"}, &med); err != nil || med.Statement == "" || med.ProposedRefundPct != nil {
		t.Fatalf("mediation: %v %+v", err, med)
	}
	var rev protocol.ReviewOutput
	if err := m.call("review", protocol.ReviewInput{TaskID: "tsk_1", YourRole: "seller", Counterparty: protocol.SellerRef{ID: "b", Name: "b"}}, &rev); err != nil || !rev.Skip {
		t.Fatalf("review: %v %+v", err, rev)
	}
	var r protocol.Received
	if err := m.call("task_update", protocol.TaskUpdateInput{TaskID: "tsk_1", Status: "paid", Test: true}, &r); err != nil || !r.Received {
		t.Fatalf("task_update: %v %+v", err, r)
	}
	// Fields the kit does not know yet are read leniently.
	if err := m.call("announcement", map[string]any{"announcement_id": "ann_1", "from": "operator", "severity": "info",
		"title": "t", "body": "b", "reply_to": "", "test": true, "new_field": 1}, &r); err != nil {
		t.Fatalf("announcement with an unknown field: %v", err)
	}
	// A call missing a required input field is a tool error naming it.
	callErr(t, m.call("quote", map[string]any{"task_type": "text-file"}, nil), outbound.KindToolError, "task_id")
}

// badSeller answers wrongly in every way it can.
type badSeller struct {
	memberkit.Defaults
	quote  protocol.QuoteAnswer
	review protocol.ReviewOutput
	med    protocol.MediationOutput
	err    error
}

func (b *badSeller) Quote(ctx context.Context, in protocol.QuoteInput) (protocol.QuoteAnswer, error) {
	return b.quote, b.err
}

func (b *badSeller) Review(ctx context.Context, in protocol.ReviewInput) (protocol.ReviewOutput, error) {
	return b.review, nil
}

func (b *badSeller) Mediation(ctx context.Context, in protocol.MediationInput) (protocol.MediationOutput, error) {
	return b.med, nil
}

// TestWrongAnswersCaught: answers that break the schema or the quote rules never leave; the
// exchange sees a tool error that names the mistake.
func TestWrongAnswersCaught(t *testing.T) {
	b := &badSeller{}
	m := newMember(t, memberkit.Options{Roles: []string{"seller"}, Seller: b})
	m.register("http://127.0.0.1:1")
	cases := []struct {
		name  string
		quote protocol.QuoteAnswer
		says  string
	}{
		{"zero price", memberkit.Price(0, 5, ""), "price_usd"},
		{"three decimals", memberkit.Price(1_234_500, 5, ""), "decimals"},
		{"no eta", protocol.QuoteAnswer{PriceUSD: money(t, "1")}, "eta_minutes"},
		{"eta too long", memberkit.Price(protocol.USD(1, 0), 50000, ""), "eta_minutes"},
		{"two shapes", protocol.QuoteAnswer{PriceUSD: money(t, "1"), ETAMinutes: intp(1), Decline: true, ReasonCode: "other"}, ""},
		{"bad reason code", memberkit.Decline("busy", ""), "reason_code"},
		{"six questions", memberkit.Clarify("1", "2", "3", "4", "5", "6"), "questions"},
		{"nested details", protocol.QuoteAnswer{PriceUSD: money(t, "1"), ETAMinutes: intp(1), Details: map[string]any{"x": map[string]any{}}}, "details"},
	}
	for _, c := range cases {
		b.quote = c.quote
		err := m.call("quote", quoteIn("text-file", "crypto"), nil)
		callErr(t, err, outbound.KindToolError, c.says)
		if !strings.Contains(err.Error(), "breaks the protocol") {
			t.Errorf("%s: %v does not say the answer breaks the protocol", c.name, err)
		}
	}
	// A price on a free job must be 0.
	b.quote = memberkit.Price(protocol.USD(1, 0), 5, "")
	callErr(t, m.call("quote", quoteIn("text-file", "free"), nil), outbound.KindToolError, "free job")
	// A handler error is a tool error carrying its text.
	b.err = errors.New("the model is down")
	callErr(t, m.call("quote", quoteIn("text-file", "crypto"), nil), outbound.KindToolError, "the model is down")

	b.review = protocol.ReviewOutput{Rating: intp(7)}
	callErr(t, m.call("review", protocol.ReviewInput{TaskID: "t", YourRole: "seller", Counterparty: protocol.SellerRef{ID: "b", Name: "b"}}, nil), outbound.KindToolError, "rating")
	b.review = protocol.ReviewOutput{}
	callErr(t, m.call("review", protocol.ReviewInput{TaskID: "t", YourRole: "seller", Counterparty: protocol.SellerRef{ID: "b", Name: "b"}}, nil), outbound.KindToolError, "skip")
	b.med = protocol.MediationOutput{Statement: strings.Repeat("x", 4001)}
	callErr(t, m.call("mediation", protocol.MediationInput{MediationID: "m", Kind: "dispute", TaskID: "t", YourRole: "seller", OpenedBy: "buyer"}, nil), outbound.KindToolError, "statement")
	pct := 101
	b.med = protocol.MediationOutput{Statement: "ok", ProposedRefundPct: &pct}
	callErr(t, m.call("mediation", protocol.MediationInput{MediationID: "m", Kind: "dispute", TaskID: "t", YourRole: "seller", OpenedBy: "buyer"}, nil), outbound.KindToolError, "proposed_refund_pct")
}

func TestCheckAnswer(t *testing.T) {
	now := time.Now()
	if err := memberkit.CheckAnswer("quote", memberkit.Price(protocol.USD(4, 50), 30, "ok"), false, now); err != nil {
		t.Fatal(err)
	}
	err := memberkit.CheckAnswer("quote", memberkit.Price(protocol.USD(4, 50), 30, ""), true, now)
	var ae *memberkit.AnswerError
	if !errors.As(err, &ae) || ae.Tool != "quote" || ae.Err.Field != "price_usd" {
		t.Fatalf("free job priced: %v", err)
	}
	if err := memberkit.CheckAnswer("do_task", protocol.DoTaskOutput{Accepted: true}, false, now); err != nil {
		t.Fatal(err)
	}
	dup := protocol.GetSkillsOutput{Skills: []protocol.Skill{{TaskType: "text-file"}, {TaskType: "text-file"}}}
	if err := memberkit.CheckAnswer("get_skills", dup, false, now); err == nil || !strings.Contains(err.Error(), "twice") {
		t.Fatalf("duplicate skills: %v", err)
	}
	if err := memberkit.CheckAnswer("nope", nil, false, now); err == nil {
		t.Fatal("unknown tool accepted")
	}
}

// exchange is a stand-in for the exchange's deliver endpoint: it records deliveries.
type exchange struct {
	srv *httptest.Server
	mu  sync.Mutex
	got []delivery
}

type delivery struct {
	Path, Auth string
	Body       map[string]any
}

func newExchange(t *testing.T) *exchange {
	e := &exchange{}
	e.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var body map[string]any
		json.NewDecoder(r.Body).Decode(&body)
		e.mu.Lock()
		e.got = append(e.got, delivery{r.URL.Path, r.Header.Get("Authorization"), body})
		e.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"id":"tsk_1","status":"delivered"}`)
	}))
	t.Cleanup(e.srv.Close)
	return e
}

func (e *exchange) deliveries() []delivery {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]delivery(nil), e.got...)
}

// eventually polls f until it returns nil or the deadline passes.
func eventually(t *testing.T, f func() error) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		err := f()
		if err == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatal(err)
		}
		time.Sleep(10 * time.Millisecond) // polling interval, not a wait for an outcome
	}
}

func doTaskIn(deliverURL string) protocol.DoTaskInput {
	return protocol.DoTaskInput{TaskID: "tsk_1", TaskType: "text-file", Params: map[string]any{"prompt": "hi"}, PriceUSD: protocol.USD(0, 50),
		ETAMinutes: 3, DeliverURL: deliverURL, Test: true}
}

// TestWorkerDelivers: do_task is accepted, the work runs, and its result is delivered to the
// deliver_url with the member secret; a failure within the fail-fast window declines instead;
// binary content travels as a data: URL.
func TestWorkerDelivers(t *testing.T) {
	ex := newExchange(t)
	var mu sync.Mutex
	var done []error
	w := &memberkit.Worker{Defaults: memberkit.Defaults{Skills: skills(t)}, Logger: quiet,
		Work: func(ctx context.Context, job *memberkit.Job) (memberkit.Deliverable, error) {
			switch job.Params["prompt"] {
			case "fail":
				return memberkit.Deliverable{}, errors.New("cannot do this one")
			case "binary":
				return memberkit.Deliverable{Content: "\x89PNG\x00\xff", Filename: "a.png", MimeType: "image/png"}, nil
			case "empty":
				return memberkit.Deliverable{}, nil
			}
			return memberkit.Deliverable{Content: "hello " + job.TaskID, Filename: "out.txt"}, nil
		},
		OnDone: func(job *memberkit.Job, err error) {
			mu.Lock()
			done = append(done, err)
			mu.Unlock()
		}}
	m := newMember(t, memberkit.Options{Roles: []string{"seller"}, Seller: w})
	m.register(ex.srv.URL)
	deliverURL := ex.srv.URL + "/api/members/me/jobs/tsk_1/deliver"

	var out protocol.DoTaskOutput
	if err := m.call("do_task", doTaskIn(deliverURL), &out); err != nil || !out.Accepted {
		t.Fatalf("do_task: %v %+v", err, out)
	}
	eventually(t, func() error {
		if len(ex.deliveries()) != 1 {
			return fmt.Errorf("%d deliveries", len(ex.deliveries()))
		}
		return nil
	})
	d := ex.deliveries()[0]
	if d.Path != "/api/members/me/jobs/tsk_1/deliver" || d.Auth != "Bearer "+secret || d.Body["content"] != "hello tsk_1" || d.Body["filename"] != "out.txt" {
		t.Fatalf("delivery %+v", d)
	}

	in := doTaskIn(deliverURL)
	in.Params = map[string]any{"prompt": "fail"}
	if err := m.call("do_task", in, &out); err != nil || out.Accepted || out.Reason != "cannot do this one" {
		t.Fatalf("failing work: %v %+v", err, out)
	}
	in.Params = map[string]any{"prompt": "empty"}
	if err := m.call("do_task", in, &out); err != nil || out.Accepted || !strings.Contains(out.Reason, "empty") {
		t.Fatalf("empty work: %v %+v", err, out)
	}
	in.Params = map[string]any{"prompt": "binary"}
	if err := m.call("do_task", in, &out); err != nil || !out.Accepted {
		t.Fatalf("binary work: %v %+v", err, out)
	}
	eventually(t, func() error {
		if len(ex.deliveries()) != 2 {
			return fmt.Errorf("%d deliveries", len(ex.deliveries()))
		}
		return nil
	})
	if u, _ := ex.deliveries()[1].Body["url"].(string); !strings.HasPrefix(u, "data:image/png;base64,") {
		t.Fatalf("binary delivery %+v", ex.deliveries()[1].Body)
	}
	if err := m.srv.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	// A delivered job's OnDone runs after the exchange answered the delivery, so it may come after
	// the refusals that followed it: the test counts outcomes, not their order.
	eventually(t, func() error {
		mu.Lock()
		defer mu.Unlock()
		var delivered int
		var failed []string
		for _, err := range done {
			if err == nil {
				delivered++
			} else {
				failed = append(failed, err.Error())
			}
		}
		slices.Sort(failed)
		if len(done) != 4 || delivered != 2 || len(failed) != 2 || failed[0] != "cannot do this one" || !strings.Contains(failed[1], "empty") {
			return fmt.Errorf("OnDone saw %v", done)
		}
		return nil
	})
}

// TestWorkerSlowJob: work that outlasts the fail-fast window is accepted at once and delivered
// later; a late failure is reported to OnDone, not to the exchange.
func TestWorkerSlowJob(t *testing.T) {
	ex := newExchange(t)
	release := make(chan error)
	ended := make(chan error, 1)
	w := &memberkit.Worker{FailFast: 50 * time.Millisecond, Logger: quiet,
		Work: func(ctx context.Context, job *memberkit.Job) (memberkit.Deliverable, error) {
			if err := <-release; err != nil {
				return memberkit.Deliverable{}, err
			}
			return memberkit.Deliverable{Content: "late"}, nil
		},
		OnDone: func(job *memberkit.Job, err error) { ended <- err }}
	m := newMember(t, memberkit.Options{Roles: []string{"seller"}, Seller: w})
	m.register(ex.srv.URL)
	var out protocol.DoTaskOutput
	if err := m.call("do_task", doTaskIn(ex.srv.URL+"/api/members/me/jobs/tsk_1/deliver"), &out); err != nil || !out.Accepted {
		t.Fatalf("do_task: %v %+v", err, out)
	}
	release <- errors.New("ran out of credits")
	if err := <-ended; err == nil || !strings.Contains(err.Error(), "credits") {
		t.Fatalf("late failure: %v", err)
	}
	if len(ex.deliveries()) != 0 {
		t.Fatal("a failed job delivered")
	}
	if err := m.call("do_task", doTaskIn(ex.srv.URL+"/api/members/me/jobs/tsk_1/deliver"), &out); err != nil || !out.Accepted {
		t.Fatalf("do_task: %v %+v", err, out)
	}
	release <- nil
	if err := <-ended; err != nil {
		t.Fatal(err)
	}
	if d := ex.deliveries(); len(d) != 1 || d[0].Body["content"] != "late" {
		t.Fatalf("deliveries %+v", d)
	}
}

// TestJobDeliversToItsDeliverURL: a job delivers with the deliver operation's declaration to the
// exchange its deliver_url names (which may sit under a path prefix); a deliver_url that is not the
// job's deliver address is refused before anything is sent.
func TestJobDeliversToItsDeliverURL(t *testing.T) {
	ex := newExchange(t)
	c := memberkit.NewClient("http://127.0.0.1:1", "ms_secret")
	ctx := context.Background()
	job := memberkit.NewJob(ctx, doTaskIn(ex.srv.URL+"/ax/api/members/me/jobs/tsk_1/deliver"), c)
	if err := job.Deliver(ctx, memberkit.Deliverable{Content: "hi", Filename: "a.txt"}); err != nil {
		t.Fatal(err)
	}
	d := ex.deliveries()
	if len(d) != 1 || d[0].Path != "/ax/api/members/me/jobs/tsk_1/deliver" || d[0].Auth != "Bearer ms_secret" || d[0].Body["content"] != "hi" ||
		d[0].Body["filename"] != "a.txt" || d[0].Body["id"] != nil {
		t.Fatalf("deliveries %+v", d)
	}
	for _, u := range []string{ex.srv.URL + "/deliver", ex.srv.URL + "/api/members/me/jobs/tsk_2/deliver"} {
		job := memberkit.NewJob(ctx, doTaskIn(u), c)
		if err := job.Deliver(ctx, memberkit.Deliverable{Content: "hi"}); err == nil || !strings.Contains(err.Error(), "not the deliver address") {
			t.Fatalf("%s: %v", u, err)
		}
	}
	if len(ex.deliveries()) != 1 {
		t.Fatal("a delivery went to an address that is not the job's")
	}
}

func TestDeliverableLimits(t *testing.T) {
	if err := (memberkit.Deliverable{}).Check(); err == nil {
		t.Fatal("empty deliverable accepted")
	}
	if err := (memberkit.Deliverable{Content: strings.Repeat("x", protocol.MaxInlineDeliverable+1)}).Check(); err == nil || !strings.Contains(err.Error(), "256 KB") {
		t.Fatalf("oversized deliverable: %v", err)
	}
	if err := (memberkit.Deliverable{Content: strings.Repeat("x", protocol.MaxInlineDeliverable)}).Check(); err != nil {
		t.Fatal(err)
	}
}

func TestNewServerNeedsHandlers(t *testing.T) {
	if _, err := memberkit.NewServer(memberkit.Options{Roles: []string{"seller"}}); err == nil {
		t.Fatal("a seller without a Seller handler was accepted")
	}
	if _, err := memberkit.NewServer(memberkit.Options{}); err == nil {
		t.Fatal("no roles accepted")
	}
	if _, err := memberkit.NewServer(memberkit.Options{Roles: []string{"admin"}}); err == nil {
		t.Fatal("unknown role accepted")
	}
}

// The exchange's conformance probes (forged contact_test calls, nonce "probe") are refused and
// logged as expected at info level; any other refused call is a warning.
func TestProbesLoggedAsExpected(t *testing.T) {
	var logs syncLog
	m := newMember(t, memberkit.Options{Roles: []string{"buyer"}, Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	m.register("http://127.0.0.1:1")
	post := func(nonce string) {
		body := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"contact_test","arguments":{"nonce":"` + nonce + `","member_id":"probe"}}}`
		res, err := http.Post(m.http.URL+memberkit.Path, "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if res.StatusCode != http.StatusUnauthorized {
			t.Fatalf("an unsigned call: HTTP %d", res.StatusCode)
		}
	}
	post("probe")
	if got := logs.String(); !strings.Contains(got, `level=INFO msg="memberkit: refused a conformance probe, as expected"`) || strings.Contains(got, "WARN") {
		t.Fatalf("probe log: %s", got)
	}
	post("someone")
	if got := logs.String(); !strings.Contains(got, `level=WARN msg="memberkit: call refused"`) {
		t.Fatalf("other refused call: %s", got)
	}
}

type syncLog struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *syncLog) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *syncLog) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}
