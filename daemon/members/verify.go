package members

import (
	"bytes"
	"context"
	"crypto/hmac"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/axp-exchange/axp"
	"github.com/axp-exchange/axp/daemon/kernel"
	"github.com/axp-exchange/axp/daemon/outbound"
	"github.com/axp-exchange/axp/daemon/pipeline"
	"github.com/axp-exchange/axp/protocol"
	"github.com/axp-exchange/axp/store"
)

// practiceWindow is how long a pull member has to answer its practice request.
const practiceWindow = time.Hour

// PracticePrefix marks practice request ids; they live on the member record, never in the market.
const PracticePrefix = "prc_"

func Step(name string, err error, detail, hint string, latency time.Duration) axp.Step {
	s := axp.Step{Name: name, OK: err == nil, Detail: detail, LatencyMS: latency.Milliseconds()}
	if err != nil {
		s.Detail = strings.TrimSpace(strings.TrimSpace(detail+" ") + err.Error())
		s.Hint = hint
		var ce *outbound.CallError
		if errors.As(err, &ce) && hint == "" {
			s.Hint = ce.Message
		}
	}
	return s
}

// passed says whether every required step passed (warnings do not fail a run).
func passed(steps []axp.Step) bool {
	for _, s := range steps {
		if !s.OK && s.Required() {
			return false
		}
	}
	return len(steps) > 0
}

// TestBuyer is the buyer of the exchange's test requests: verification, practice and sandbox quote
// requests, pushed or pulled.
var TestBuyer = protocol.BuyerRef{ID: "anonymous", Name: "exchange test buyer", Anonymous: true}

// SampleQuote is the quote request the exchange sends in test mode for a task type.
func SampleQuote(m *axp.Member, taskType string) protocol.QuoteInput {
	params := map[string]any{}
	if svc := axp.ServiceFor(taskType); svc != nil {
		if p, err := svc.Normalize(sampleParams(svc), false, "params"); err == nil {
			params = p
		}
	}
	return protocol.QuoteInput{TaskID: "tsk_test_" + axp.RandomHex(4), TaskType: taskType,
		Description: "Test request from the exchange: nothing is booked.", Params: params,
		Buyer: TestBuyer, PaymentMethod: axp.PayCrypto, Test: true}
}

func sampleParams(s *axp.Service) map[string]any {
	p := map[string]any{}
	for _, x := range s.Params {
		switch x.Name {
		case "prompt":
			p["prompt"] = "A short test request"
		case "source_url":
			p["source_url"] = "https://media.example/test.mp3"
		case "target_language":
			p["target_language"] = "fr"
		case "text":
			p["text"] = "Hello"
		}
	}
	return p
}

// verifyPush runs the handshake against a member's MCP server.
func (s *Service) verifyPush(ctx context.Context, m *axp.Member) []axp.Step {
	var steps []axp.Step
	start := time.Now()
	t, err := s.reach.Target(m)
	if err != nil {
		return []axp.Step{Step("platform_key", err, "", "contact the operator", 0)}
	}
	nonce := axp.RandomHex(16)
	var ct protocol.ContactTestOutput
	_, err = s.caller.Call(ctx, t, "contact_test", protocol.ContactTestInput{Nonce: nonce, MemberID: m.ID}, &ct)
	if err == nil {
		want := protocol.ContactTestSignature(t.PlatformKey, nonce)
		switch {
		case ct.Nonce != nonce:
			err = errors.New("the nonce came back changed")
		case !hmac.Equal([]byte(ct.Signature), []byte(want)):
			err = errors.New("the signature does not match")
		}
	}
	steps = append(steps, Step("contact_test", err, "", `return {"nonce": <the nonce>, "signature": hex HMAC-SHA256(platform_key, "contact_test." + nonce)}`, time.Since(start)))
	if err != nil {
		return steps
	}
	start = time.Now()
	tools, err := s.caller.ListTools(ctx, t)
	if err == nil {
		var missing []string
		for _, name := range protocol.RequiredTools(m.Roles) {
			if !slices.Contains(tools, name) {
				missing = append(missing, name)
			}
		}
		if len(missing) > 0 {
			err = fmt.Errorf("missing tools: %s", strings.Join(missing, ", "))
		}
	}
	steps = append(steps, Step("tools_list", err, "", "offer every required tool of your roles; see /api/protocol/tools.json", time.Since(start)))
	if err != nil {
		return steps
	}
	return append(steps, s.roleCalls(ctx, m, t)...)
}

// AsErr turns a typed *axp.Error into an error interface that is nil when the pointer is.
func AsErr(e *axp.Error) error {
	if e == nil {
		return nil
	}
	return e
}

// roleCalls makes one test call (test: true) to each role tool and checks the answers' schemas.
func (s *Service) roleCalls(ctx context.Context, m *axp.Member, t outbound.Target) []axp.Step {
	var steps []axp.Step
	call := func(name, tool string, in, out any, hint string) error {
		start := time.Now()
		_, err := s.caller.Call(ctx, t, tool, in, out)
		steps = append(steps, Step(name, err, "", hint, time.Since(start)))
		return err
	}
	if m.HasRole(protocol.RoleSeller) {
		var gs protocol.GetSkillsOutput
		call("get_skills", "get_skills", protocol.GetSkillsInput{MemberID: m.ID}, &gs, "return {\"skills\": [...]} as declared at registration")
		taskType := "text-file"
		if len(m.Skills) > 0 {
			taskType = m.Skills[0].TaskType
		}
		var q protocol.QuoteAnswer
		if call("quote", "quote", SampleQuote(m, taskType), &q, "answer a price, clarifying questions or a decline (spec 2.4)") == nil {
			if err := q.Check(false, s.base.Now()); err != nil {
				steps[len(steps)-1] = Step("quote", err, "the test quote breaks a rule:", "", 0)
			}
		}
	}
	if m.HasRole(protocol.RoleBuyer) {
		var r protocol.Received
		call("receive_offers", "receive_offers", protocol.ReceiveOffersInput{TaskID: "tsk_test", Offers: []protocol.OfferSummary{},
			ChooseURL: s.base.BaseURL() + "/api/tasks/tsk_test/choose", Test: true}, &r, "return {\"received\": true}")
	}
	var r protocol.Received
	call("task_update", "task_update", protocol.TaskUpdateInput{TaskID: "tsk_test", Status: axp.TaskPaid, Test: true}, &r, "return {\"received\": true}")
	return steps
}

func (s *Service) verifyMember(ctx context.Context, c *pipeline.Call, _ *axp.EmptyInput) (*axp.Verification, error) {
	m, err := s.reach.Member(c.Caller.MemberID)
	if err != nil {
		return nil, err
	}
	if m.State == axp.MemberSuspended {
		return nil, axp.Forbidden("a suspended member cannot verify", "message the operator")
	}
	now := s.base.Now()
	v := &axp.Verification{MemberID: m.ID, Mode: kernel.ModeOf(m), CheckedAt: now}
	if m.PullMode() {
		v.Steps, v.Practice = s.verifyPull(m, now)
	} else {
		v.Steps = s.verifyPush(ctx, m)
	}
	v.Steps = axp.Leveled(v.Steps)
	v.Passed = passed(v.Steps)
	out, err := kernel.Apply(s.base, ctx, c, func(ch *kernel.Change) (*axp.Verification, error) {
		m, err := kernel.LoadMember(ch.Tx, m.ID)
		if err != nil {
			return nil, err
		}
		if m.PullMode() && v.Practice != nil {
			m.Practice = &axp.Practice{TaskID: v.Practice.TaskID, TaskType: v.Practice.TaskType, ExpiresAt: v.Practice.ExpiresAt}
		}
		m.LastChecks = checksOf(v.Steps, ch.Now)
		if v.Passed && m.State != axp.MemberSuspended {
			m.State, m.LivenessFailures, m.Practice = axp.MemberVerified, 0, nil
			at := ch.Now
			m.VerifiedAt = &at
		}
		m.LastSeenAt, m.UpdatedAt = ch.Now, ch.Now
		if err := ch.Tx.PutMember(m); err != nil {
			return nil, err
		}
		if err := ch.Audit("member.verify", "member", m.ID, map[string]any{"passed": v.Passed, "mode": v.Mode}); err != nil {
			return nil, err
		}
		v.State = m.State
		if !v.Passed {
			v.NextSteps = []string{"fix the failed steps (each has a hint), then POST /api/members/me/verify again"}
			if v.Practice != nil {
				v.NextSteps = []string{"answer the practice request: POST /api/tasks/" + v.Practice.TaskID + "/offers, then POST /api/members/me/verify again"}
			}
		} else {
			v.NextSteps = []string{"POST /api/members/me/conformance for the deep test"}
		}
		return v, nil
	})
	if err == nil {
		s.catalog.Invalidate()
	}
	return out, err
}

func checksOf(steps []axp.Step, now time.Time) []axp.Check {
	out := make([]axp.Check, len(steps))
	for i, s := range steps {
		out[i] = axp.Check{Name: s.Name, OK: s.OK, Detail: s.Detail, Hint: s.Hint, At: now}
	}
	return out
}

// verifyPull checks a pull member's practice request: issued on the first call, answered through
// POST /api/tasks/{id}/offers, and checked on the next call.
func (s *Service) verifyPull(m *axp.Member, now time.Time) ([]axp.Step, *axp.PracticeRequest) {
	if !m.HasRole(protocol.RoleSeller) {
		// A pull buyer has no server and quotes on nothing: holding its secret and reaching the
		// exchange is the whole handshake.
		return []axp.Step{{Name: "authenticated", OK: true, Detail: "pull-mode buyer: your calls are signed with your member secret",
			Hint: ""}}, nil
	}
	if m.State == axp.MemberVerified {
		return []axp.Step{{Name: "practice_request", OK: true, Detail: "already verified; your practice answer stands"}}, nil
	}
	p := m.Practice
	if p != nil && p.Answer != nil && now.Before(p.ExpiresAt) {
		err := AsErr(p.Answer.Check(false, now))
		return []axp.Step{Step("practice_request", err, "answered with a "+p.Answer.Kind(), "", 0)}, nil
	}
	taskType := "text-file"
	if len(m.Skills) > 0 {
		taskType = m.Skills[0].TaskType
	}
	if p == nil || !now.Before(p.ExpiresAt) {
		p = &axp.Practice{TaskID: PracticePrefix + axp.RandomHex(8), TaskType: taskType, ExpiresAt: now.Add(practiceWindow)}
	}
	req := &axp.PracticeRequest{TaskID: p.TaskID, TaskType: p.TaskType, ExpiresAt: p.ExpiresAt}
	return []axp.Step{{Name: "practice_request", OK: false, Detail: "a practice quote request is waiting: " + p.TaskID,
		Hint: "it is listed in GET /api/members/me/quote-requests; answer it with POST /api/tasks/" + p.TaskID + "/offers"}}, req
}

// PracticeView is the practice request as a quote request.
func PracticeView(m *axp.Member) axp.Task {
	p := m.Practice
	q := SampleQuote(m, p.TaskType)
	return axp.Task{ID: p.TaskID, Type: p.TaskType, Description: "Practice request for verification: answer as you would a real one. Nothing is booked.",
		Params: q.Params, Buyer: &q.Buyer, PaymentMethod: axp.PayCrypto, Status: axp.TaskOpen, Offers: []axp.Offer{}, Declined: []axp.Declined{},
		NextSteps: []string{"POST /api/tasks/" + p.TaskID + "/offers with a price, clarify or decline; then POST /api/members/me/verify"}}
}

// AnswerPractice records a pull member's answer to its practice request.
func (s *Service) AnswerPractice(ctx context.Context, c *pipeline.Call, taskID string, a protocol.QuoteAnswer) (*axp.QuoteRecorded, error) {
	return kernel.Apply(s.base, ctx, c, func(ch *kernel.Change) (*axp.QuoteRecorded, error) {
		m, err := kernel.LoadMember(ch.Tx, c.Caller.MemberID)
		if err != nil {
			return nil, err
		}
		if m.Practice == nil || m.Practice.TaskID != taskID || !ch.Now.Before(m.Practice.ExpiresAt) {
			return nil, axp.NotFound("practice request", taskID).WithHint("POST /api/members/me/verify to get a practice request")
		}
		if err := a.Check(false, ch.Now); err != nil {
			return nil, err
		}
		m.Practice.Answer = &a
		if err := ch.Tx.PutMember(m); err != nil {
			return nil, err
		}
		return &axp.QuoteRecorded{TaskID: taskID, Kind: a.Kind(), Recorded: true,
			Next: "POST /api/members/me/verify to finish verification"}, nil
	})
}

func (s *Service) runConformance(ctx context.Context, c *pipeline.Call, _ *axp.EmptyInput) (*axp.Conformance, error) {
	m, err := s.reach.Member(c.Caller.MemberID)
	if err != nil {
		return nil, err
	}
	rep := &axp.Conformance{MemberID: m.ID, CheckedAt: s.base.Now()}
	if m.PullMode() {
		rep.Checks = s.conformancePull(m)
	} else {
		rep.Checks = s.conformancePush(ctx, m)
	}
	if m.HasRole(protocol.RoleSeller) {
		// Required: a skill whose task type no buyer's task carries is never matched, so a seller
		// with one does not conform, however well its server answers.
		pm := kernel.Private(m)
		var err error
		if warn := s.skillWarnings(&pm); len(warn) > 0 {
			err = errors.New(strings.Join(warn, "; "))
		}
		rep.Checks = append(rep.Checks, Step("task_types", err, "", "use a catalog type (GET /api/services) or one other sellers offer; PUT /api/members/me/skills", 0))
	}
	rep.Checks = axp.Leveled(rep.Checks)
	for _, stx := range rep.Checks {
		switch {
		case stx.OK:
		case stx.Required():
			rep.Failed++
		default:
			rep.Warnings++
		}
	}
	rep.Passed = rep.Failed == 0 && len(rep.Checks) > 0
	rep.Summary = fmt.Sprintf("%d of %d checks passed", len(rep.Checks)-rep.Failed-rep.Warnings, len(rep.Checks))
	if rep.Failed > 0 {
		rep.Summary += fmt.Sprintf(", %d required check(s) failed", rep.Failed)
	}
	if rep.Warnings > 0 {
		rep.Summary += fmt.Sprintf(", %d warning(s)", rep.Warnings)
	}
	// The report is the answer of the change that audits it, so that a retry with the same key
	// replays it.
	return kernel.Apply(s.base, ctx, c, func(ch *kernel.Change) (*axp.Conformance, error) {
		return rep, ch.Audit("member.conformance", "member", m.ID, map[string]any{"passed": rep.Passed, "failed": rep.Failed})
	})
}

func (s *Service) conformancePull(m *axp.Member) []axp.Step {
	steps := []axp.Step{Step("verified", verifiedErr(m), "", "POST /api/members/me/verify and answer the practice request", 0)}
	err := error(nil)
	if len(m.Skills) == 0 && m.HasRole(protocol.RoleSeller) {
		err = errors.New("no skills declared")
	}
	steps = append(steps, Step("skills", err, "", "PUT /api/members/me/skills", 0))
	if time.Since(m.LastSeenAt) > kernel.CheckInPeriod {
		err = errors.New("no contact for over 24 h")
	}
	return append(steps, Step("check_in", err, "", "call POST /api/members/me/heartbeat at least daily", 0))
}

func verifiedErr(m *axp.Member) error {
	if m.State != axp.MemberVerified {
		return fmt.Errorf("state is %s", m.State)
	}
	return nil
}

// conformancePush is the deep test of a member's server: forged calls refused, schemas, honesty
// of quotes against the declared skills, and timing within the call budget.
func (s *Service) conformancePush(ctx context.Context, m *axp.Member) []axp.Step {
	t, err := s.reach.Target(m)
	if err != nil {
		return []axp.Step{Step("platform_key", err, "", "contact the operator", 0)}
	}
	var steps []axp.Step
	now := s.base.Now()
	forged := []struct {
		name, hint string
		mutate     func(h http.Header, body []byte)
		level      string
	}{
		{"refuses_forged_signature", "verify X-AX-Signature = hex HMAC-SHA256(platform_key, \"<timestamp>.<raw body>\") with a constant-time compare", func(h http.Header, body []byte) {
			protocol.SignRequest(h, m.ID, []byte("not-the-platform-key"), t.AuthToken, body, now)
		}, axp.LevelRequired},
		{"refuses_stale_timestamp", "refuse calls whose X-AX-Timestamp is more than 300 s from now", func(h http.Header, body []byte) {
			protocol.SignRequest(h, m.ID, t.PlatformKey, t.AuthToken, body, now.Add(-10*time.Minute))
		}, axp.LevelRequired},
		{"refuses_future_timestamp", "refuse calls whose X-AX-Timestamp is more than 300 s from now", func(h http.Header, body []byte) {
			protocol.SignRequest(h, m.ID, t.PlatformKey, t.AuthToken, body, now.Add(10*time.Minute))
		}, axp.LevelRequired},
		{"refuses_missing_headers", "refuse calls without X-AX-Member-Id, X-AX-Timestamp and X-AX-Signature", func(h http.Header, body []byte) {
			if t.AuthToken != "" {
				h.Set("Authorization", "Bearer "+t.AuthToken)
			}
		}, axp.LevelRequired},
		// Spec 5 asks for timestamp and signature checks only: a member signed for another id
		// with its own key is a safeguard beyond it, reported as a warning.
		{"refuses_other_member", "refuse calls whose X-AX-Member-Id is not yours (memberkit does)", func(h http.Header, body []byte) {
			protocol.SignRequest(h, "mem_someone_else", t.PlatformKey, t.AuthToken, body, now)
		}, axp.LevelWarning},
	}
	for _, f := range forged {
		start := time.Now()
		accepted, detail := s.probe(ctx, t.MCPURL, f.mutate)
		var err error
		if accepted {
			err = errors.New("the forged call was answered with a result")
		}
		st := Step(f.name, err, detail, f.hint, time.Since(start))
		st.Level = f.level
		steps = append(steps, st)
	}
	steps = append(steps, s.replayProbe(ctx, m, t))
	verify := s.verifyPush(ctx, m)
	steps = append(steps, verify...)
	if !passed(verify) {
		return steps
	}
	if m.HasRole(protocol.RoleSeller) {
		steps = append(steps, s.honesty(ctx, m, t)...)
	}
	slow := error(nil)
	var worst int64
	for _, stx := range steps {
		worst = max(worst, stx.LatencyMS)
	}
	if worst > protocol.ToolCallTimeoutMillis {
		slow = fmt.Errorf("the slowest call took %d ms", worst)
	}
	steps = append(steps, Step("timing", slow, fmt.Sprintf("slowest call %d ms (budget %d ms)", worst, protocol.ToolCallTimeoutMillis),
		"answer every call within 10 s; quote fast (under 1 s earns the fast_quotes badge)", 0))
	return steps
}

// honesty asks for a quote on each declared skill and checks it against what the seller declared.
func (s *Service) honesty(ctx context.Context, m *axp.Member, t outbound.Target) []axp.Step {
	var steps []axp.Step
	for _, v := range m.Skills {
		start := time.Now()
		var q protocol.QuoteAnswer
		_, err := s.caller.Call(ctx, t, "quote", SampleQuote(m, v.TaskType), &q)
		detail := ""
		if err == nil {
			err = AsErr(q.Check(false, s.base.Now()))
		}
		if err == nil {
			switch q.Kind() {
			case "decline":
				err = fmt.Errorf("declined a task type it lists (%s: %s)", q.ReasonCode, q.Reason)
			case "price":
				detail = fmt.Sprintf("quoted %s in %d min", q.PriceUSD.Display(), *q.ETAMinutes)
				switch {
				case v.Instant() && (*q.PriceUSD != *v.InstantPriceUSD || *q.ETAMinutes != *v.InstantETAMinutes):
					err = fmt.Errorf("the instant price is %s in %d min but the quote differs", v.InstantPriceUSD.Display(), *v.InstantETAMinutes)
				case v.MinPriceUSD != nil && *q.PriceUSD < *v.MinPriceUSD:
					err = fmt.Errorf("quoted below the declared minimum %s", v.MinPriceUSD.Display())
				}
			}
		}
		steps = append(steps, Step("honest_quote:"+v.TaskType, err, detail, "quote what your skills declare: instant prices exactly, never below min_price_usd; decline only what you cannot do now", time.Since(start)))
	}
	return steps
}

// replayProbe sends one correctly signed contact_test twice, byte for byte: the second is what an
// eavesdropper would replay, and must be refused. A warning-level check (spec 5 asks only for the
// 300 s window); memberkit refuses replays by default.
func (s *Service) replayProbe(ctx context.Context, m *axp.Member, t outbound.Target) axp.Step {
	const name, hint = "refuses_replay", "remember the signatures accepted in the last 300 s and refuse a call that repeats one (memberkit does by default)"
	start := time.Now()
	body := probeBody(m.ID)
	var signed http.Header
	sign := func(h http.Header, b []byte) {
		if signed == nil {
			protocol.SignRequest(h, m.ID, t.PlatformKey, t.AuthToken, b, s.base.Now())
			signed = h.Clone()
			return
		}
		for k, v := range signed {
			h[k] = v
		}
	}
	var err error
	detail := ""
	if ok, first := s.probeBody(ctx, t.MCPURL, body, sign); !ok {
		err, detail = errors.New("the signed call was not answered: "+first), "cannot test replays"
	} else if again, second := s.probeBody(ctx, t.MCPURL, body, sign); again {
		err, detail = errors.New("the same signed call was answered a second time"), second
	} else {
		detail = "the repeated call was " + second
	}
	st := Step(name, err, detail, hint, time.Since(start))
	st.Level = axp.LevelWarning
	return st
}

// probeBody is a contact_test call with an id of its own.
func probeBody(memberID string) []byte {
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": outbound.NextRequestID(), "method": "tools/call",
		"params": map[string]any{"name": "contact_test", "arguments": map[string]any{"nonce": "probe", "member_id": memberID}}})
	return body
}

// probe sends one tools/call contact_test with headers set by mutate and reports whether the
// server answered it with a result (a forged call accepted).
func (s *Service) probe(ctx context.Context, url string, mutate func(h http.Header, body []byte)) (bool, string) {
	return s.probeBody(ctx, url, probeBody("probe"), mutate)
}

// probeBody sends body with headers set by mutate and reports whether it was answered with a result.
func (s *Service) probeBody(ctx context.Context, url string, body []byte, mutate func(h http.Header, body []byte)) (bool, string) {
	ctx, cancel := context.WithTimeout(ctx, protocol.ToolCallTimeoutMillis*time.Millisecond)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return false, err.Error()
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	mutate(req.Header, body)
	// Through the outbound guard like every call to a member: a host name that resolves to a
	// private address is refused before anything is sent.
	res, err := s.caller.HTTPClient(0).Do(req)
	if err != nil {
		// The exchange's refusal is named; anything else on the wire (refused, closed, reset,
		// timed out) reads the same, so the probes cannot scan the ports of a host.
		var re *outbound.RefusedError
		if errors.As(err, &re) {
			return false, "not sent: " + re.Error()
		}
		return false, "no answer: could not reach the MCP server; check that it is running and reachable from the internet"
	}
	defer res.Body.Close()
	raw, _ := io.ReadAll(io.LimitReader(res.Body, 64<<10))
	if res.StatusCode >= 300 {
		return false, "refused with HTTP " + strconv.Itoa(res.StatusCode)
	}
	text := string(raw)
	if strings.Contains(text, `"result"`) && !strings.Contains(text, `"isError":true`) {
		return true, "HTTP " + strconv.Itoa(res.StatusCode) + " with a result"
	}
	return false, "refused (HTTP " + strconv.Itoa(res.StatusCode) + ", no result)"
}

// Liveness checks members with no contact for 24 h (docs/design.md section 6): push members get
// contact_test and get_skills; two consecutive failures (push) or two silent days (pull) make a
// member unreachable, out of matching until it verifies again.
func (s *Service) Liveness(ctx context.Context) {
	now := s.base.Now()
	var due []*axp.Member
	s.base.Store.View(func(tx *store.Tx) error {
		// Only verified members unseen for a check-in period are read (by when they were seen).
		return tx.VerifiedSeenBefore(now.Add(-kernel.CheckInPeriod), func(m *axp.Member) bool {
			if m.State == axp.MemberVerified && now.Sub(m.LastSeenAt) > kernel.CheckInPeriod*time.Duration(m.LivenessFailures+1) {
				due = append(due, m)
			}
			return true
		})
	})
	if len(due) > 0 {
		s.base.AfterScan("liveness")
	}
	for _, m := range due {
		var steps []axp.Step
		if m.PullMode() {
			steps = []axp.Step{{Name: "check_in", OK: false, Detail: "no authenticated call or heartbeat for over 24 h",
				Hint: "call POST /api/members/me/heartbeat at least daily"}}
		} else {
			steps = s.livenessPush(ctx, m)
		}
		ok := passed(steps)
		s.base.Mutate(ctx, "system", func(ch *kernel.Change) (any, error) {
			cur, err := kernel.LoadMember(ch.Tx, m.ID)
			// A member heard from since the scan (a call, a heartbeat, a new verification), or
			// checked by another sweep meanwhile, is not charged with this check.
			if err != nil || cur.State != axp.MemberVerified || cur.LivenessFailures != m.LivenessFailures ||
				(!ok && cur.LastSeenAt.After(m.LastSeenAt)) {
				return nil, err
			}
			cur.LastChecks = checksOf(steps, ch.Now)
			if ok {
				cur.LivenessFailures, cur.LastSeenAt = 0, ch.Now
			} else {
				cur.LivenessFailures++
				if cur.LivenessFailures >= 2 {
					cur.State, cur.VerifiedAt = axp.MemberUnreachable, nil
				}
			}
			if err := ch.Tx.PutMember(cur); err != nil {
				return nil, err
			}
			return nil, ch.Audit("member.liveness", "member", cur.ID, map[string]any{"ok": ok, "failures": cur.LivenessFailures, "state": cur.State})
		})
	}
	if len(due) > 0 {
		s.catalog.Invalidate()
	}
}

func (s *Service) livenessPush(ctx context.Context, m *axp.Member) []axp.Step {
	t, err := s.reach.Target(m)
	if err != nil {
		return []axp.Step{Step("platform_key", err, "", "", 0)}
	}
	nonce := axp.RandomHex(16)
	start := time.Now()
	var ct protocol.ContactTestOutput
	_, err = s.caller.Call(ctx, t, "contact_test", protocol.ContactTestInput{Nonce: nonce, MemberID: m.ID}, &ct)
	if err == nil && (ct.Nonce != nonce || !hmac.Equal([]byte(ct.Signature), []byte(protocol.ContactTestSignature(t.PlatformKey, nonce)))) {
		err = errors.New("wrong contact_test answer")
	}
	steps := []axp.Step{Step("contact_test", err, "", "", time.Since(start))}
	if m.HasRole(protocol.RoleSeller) {
		start = time.Now()
		var gs protocol.GetSkillsOutput
		_, err = s.caller.Call(ctx, t, "get_skills", protocol.GetSkillsInput{MemberID: m.ID}, &gs)
		steps = append(steps, Step("get_skills", err, "", "", time.Since(start)))
	}
	return steps
}
