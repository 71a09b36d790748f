package tasks

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/axp-exchange/axp"
	"github.com/axp-exchange/axp/daemon/checks"
	"github.com/axp-exchange/axp/daemon/kernel"
	"github.com/axp-exchange/axp/daemon/members"
	"github.com/axp-exchange/axp/daemon/pipeline"
	"github.com/axp-exchange/axp/protocol"
	"github.com/axp-exchange/axp/store"
)

// sandboxPrefix marks sandbox job ids: practice jobs that never reach the market or the ledger.
const sandboxPrefix = "sbx_"

// sandboxChecks are the acceptance checks every sandbox delivery runs.
var sandboxChecks = map[string]any{"min_bytes": int64(1)}

func (s *Service) startSandbox(ctx context.Context, c *pipeline.Call, in *axp.SandboxBody) (*axp.Sandbox, error) {
	m, err := s.market.Member(c.Caller.MemberID)
	if err != nil {
		return nil, err
	}
	if !m.HasRole(in.As) {
		return nil, axp.Forbidden("you are not a "+in.As, `the sandbox plays the other side of your own role; add "`+in.As+`" to your roles to try it`)
	}
	if in.As == protocol.RoleBuyer && m.PullMode() {
		return nil, axp.Conflict("a pull-mode buyer has no server to receive offers and updates", "pull buyers poll GET /api/tasks/{id}; post a free task to practise")
	}
	taskType := in.TaskType
	if taskType == "" {
		taskType = "text-file"
		if in.As == protocol.RoleSeller && len(m.Skills) > 0 {
			taskType = m.Skills[0].TaskType
		}
	}
	now := s.base.Now()
	r := &axp.SandboxRecord{Sandbox: axp.Sandbox{SandboxID: axp.NewID("sbx", now), MemberID: m.ID, As: in.As, TaskType: taskType,
		Status: axp.SandboxRunning, Steps: []axp.Step{}, CreatedAt: now}, Pull: m.PullMode(), Deadline: now.Add(s.base.Cfg().SandboxWait)}
	r.TaskID = r.SandboxID
	if r.Pull {
		r.Stage = axp.SandboxQuote
	}
	// The answer is the change's own, so that a retry with the same key replays it.
	out, err := kernel.Apply(s.base, ctx, c, func(ch *kernel.Change) (*axp.Sandbox, error) {
		if err := ch.Tx.PutSandbox(r); err != nil {
			return nil, err
		}
		return &r.Sandbox, ch.Audit("sandbox.start", "sandbox", r.SandboxID, map[string]any{"as": in.As, "task_type": taskType})
	})
	if err != nil {
		return nil, err
	}
	s.base.Bg.Add(1)
	go func() {
		defer s.base.Bg.Done()
		s.runSandbox(axp.WithTrace(context.Background(), axp.TraceID(ctx)), r.SandboxID, m)
	}()
	return out, nil
}

func (s *Service) getSandbox(ctx context.Context, c *pipeline.Call, in *axp.IDPath) (*axp.Sandbox, error) {
	var out *axp.Sandbox
	err := s.base.Store.View(func(tx *store.Tx) error {
		r, err := tx.Sandbox(in.ID)
		if err != nil {
			return err
		}
		if r == nil || r.MemberID != c.Caller.MemberID {
			return axp.NotFound("sandbox job", in.ID)
		}
		out = &r.Sandbox
		return nil
	})
	return out, err
}

// sandboxUpdate changes a sandbox record in one transaction.
func (s *Service) sandboxUpdate(id string, fn func(r *axp.SandboxRecord) error) (*axp.SandboxRecord, error) {
	var out *axp.SandboxRecord
	err := s.base.Store.Update(func(tx *store.Tx) error {
		r, err := tx.Sandbox(id)
		if err != nil || r == nil {
			return errors.Join(err, errors.New("sandbox job gone"))
		}
		if err := fn(r); err != nil {
			return err
		}
		out = r
		return tx.PutSandbox(r)
	})
	return out, err
}

func (s *Service) sandboxStep(id string, st axp.Step) {
	s.sandboxUpdate(id, func(r *axp.SandboxRecord) error {
		r.Steps = append(r.Steps, axp.Leveled([]axp.Step{st})...)
		return nil
	})
}

// runSandbox plays the other side of a job step by step; every call carries test: true and
// nothing is booked.
func (s *Service) runSandbox(ctx context.Context, id string, m *axp.Member) {
	var ok bool
	switch {
	case m.PullMode():
		ok = s.sandboxPullSeller(ctx, id, m)
	case s.sandboxAs(id) == protocol.RoleBuyer:
		ok = s.sandboxPushBuyer(ctx, id, m)
	default:
		ok = s.sandboxPushSeller(ctx, id, m)
	}
	s.sandboxUpdate(id, func(r *axp.SandboxRecord) error {
		r.Status, r.Stage = axp.SandboxFailed, axp.SandboxDone
		if ok {
			r.Status = axp.SandboxPassed
		}
		end := s.base.Now()
		r.EndedAt = &end
		return nil
	})
}

func (s *Service) sandboxAs(id string) string {
	var as string
	s.base.Store.View(func(tx *store.Tx) error {
		if r, _ := tx.Sandbox(id); r != nil {
			as = r.As
		}
		return nil
	})
	return as
}

// sandboxCall makes one test call and records it as a step.
func (s *Service) sandboxCall(ctx context.Context, id string, m *axp.Member, name, tool string, in, out any, hint string) bool {
	start := time.Now()
	err := s.market.CallTool(ctx, m, tool, in, out)
	s.sandboxStep(id, members.Step(name, err, "", hint, time.Since(start)))
	return err == nil
}

func (s *Service) sandboxPushSeller(ctx context.Context, id string, m *axp.Member) bool {
	r, _ := s.sandboxUpdate(id, func(*axp.SandboxRecord) error { return nil })
	if r == nil {
		return false
	}
	q := members.SampleQuote(m, r.TaskType)
	q.TaskID = id
	var a protocol.QuoteAnswer
	if !s.sandboxCall(ctx, id, m, "quote", "quote", q, &a, "answer a price, clarifying questions or a decline") {
		return false
	}
	if !s.sandboxQuoted(id, a) {
		return false
	}
	var dt protocol.DoTaskOutput
	if !s.sandboxCall(ctx, id, m, "do_task", "do_task", s.sandboxJob(r, a), &dt, "answer {\"accepted\": true} and deliver to deliver_url") {
		return false
	}
	if !dt.Accepted {
		s.sandboxStep(id, axp.Step{Name: "do_task_accepted", OK: false, Detail: "the job was refused: " + dt.Reason, Hint: "accept jobs you quoted on"})
		return false
	}
	if !s.sandboxAwaitDelivery(ctx, id) {
		return false
	}
	return s.sandboxFinish(ctx, id, m)
}

func (s *Service) sandboxJob(r *axp.SandboxRecord, a protocol.QuoteAnswer) protocol.DoTaskInput {
	price, eta := axp.Money(0), 5
	if a.PriceUSD != nil {
		price = *a.PriceUSD
	}
	if a.ETAMinutes != nil {
		eta = *a.ETAMinutes
	}
	return protocol.DoTaskInput{TaskID: r.SandboxID, TaskType: r.TaskType, Description: "Sandbox job: deliver any small result. Nothing is booked.",
		Params: map[string]any{}, PriceUSD: price, ETAMinutes: eta, DeliverURL: s.base.BaseURL() + "/api/members/me/jobs/" + r.SandboxID + "/deliver",
		AcceptanceChecks: sandboxChecks, Test: true}
}

// sandboxQuoted checks and records the seller's quote.
func (s *Service) sandboxQuoted(id string, a protocol.QuoteAnswer) bool {
	err := members.AsErr(a.Check(false, s.base.Now()))
	if err == nil && a.Kind() != "price" {
		err = fmt.Errorf("answered %s; the sandbox goes on with a price", a.Kind())
	}
	s.sandboxStep(id, members.Step("quote_valid", err, "", "quote a price for the sandbox job", 0))
	s.sandboxUpdate(id, func(r *axp.SandboxRecord) error {
		r.Quote, r.Stage = &a, axp.SandboxWork
		return nil
	})
	return err == nil
}

// sandboxAwait polls the record until cond holds or the deadline passes.
func (s *Service) sandboxAwait(ctx context.Context, id string, cond func(r *axp.SandboxRecord) bool) *axp.SandboxRecord {
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for {
		var r *axp.SandboxRecord
		s.base.Store.View(func(tx *store.Tx) error {
			r, _ = tx.Sandbox(id)
			return nil
		})
		if r == nil {
			return nil
		}
		if cond(r) {
			return r
		}
		if !s.base.Now().Before(r.Deadline) {
			return nil
		}
		select {
		case <-tick.C:
		case <-s.base.Stop:
			return nil
		case <-ctx.Done():
			return nil
		}
	}
}

func (s *Service) sandboxAwaitDelivery(ctx context.Context, id string) bool {
	start := time.Now()
	r := s.sandboxAwait(ctx, id, func(r *axp.SandboxRecord) bool { return r.Delivered != nil })
	var err error
	if r == nil {
		err = fmt.Errorf("nothing was delivered within %s", s.base.Cfg().SandboxWait)
	}
	s.sandboxStep(id, members.Step("deliver", err, "", "POST {content, filename, mime_type} to the deliver_url with your member secret", time.Since(start)))
	if r == nil {
		return false
	}
	res := checks.Run(sandboxChecks, r.Content)
	err = nil
	if !checks.Passed(res) {
		err = errors.New("the delivery failed its acceptance checks")
	}
	s.sandboxStep(id, members.Step("acceptance_checks", err, fmt.Sprintf("%d bytes, %s", r.Delivered.Size, r.Delivered.MimeType), "", 0))
	return err == nil
}

// sandboxFinish sends the buyer's acceptance and asks for a review.
func (s *Service) sandboxFinish(ctx context.Context, id string, m *axp.Member) bool {
	if m.PullMode() {
		s.sandboxStep(id, axp.Step{Name: "accepted", OK: true, Detail: "the exchange accepted the delivery (pull members see it in GET /api/members/me/jobs?status=all)"})
		return true
	}
	var rcv protocol.Received
	ok := s.sandboxCall(ctx, id, m, "task_update", "task_update", protocol.TaskUpdateInput{TaskID: id, Status: axp.TaskAccepted, Test: true}, &rcv, "return {\"received\": true}")
	var rv protocol.ReviewOutput
	ok = s.sandboxCall(ctx, id, m, "review", "review", protocol.ReviewInput{TaskID: id, YourRole: protocol.RoleSeller,
		Counterparty: protocol.SellerRef{ID: "anonymous", Name: "sandbox buyer"}, Criteria: []string{"rating"}, Test: true}, &rv,
		"return review scores (rating 1-5) or {\"skip\": true}") && ok
	return ok
}

func (s *Service) sandboxPullSeller(ctx context.Context, id string, m *axp.Member) bool {
	start := time.Now()
	r := s.sandboxAwait(ctx, id, func(r *axp.SandboxRecord) bool { return r.Quote != nil })
	var err error
	if r == nil {
		err = fmt.Errorf("no quote within %s", s.base.Cfg().SandboxWait)
	}
	s.sandboxStep(id, members.Step("quote", err, "", "the job is listed in GET /api/members/me/quote-requests; answer with POST /api/tasks/"+id+"/offers", time.Since(start)))
	if r == nil || !s.sandboxQuoted(id, *r.Quote) {
		return false
	}
	if !s.sandboxAwaitDelivery(ctx, id) {
		return false
	}
	return s.sandboxFinish(ctx, id, m)
}

func (s *Service) sandboxPushBuyer(ctx context.Context, id string, m *axp.Member) bool {
	price, eta := axp.USD(0, 20), 5
	offer := protocol.OfferSummary{OfferID: "ofr_" + strings.TrimPrefix(id, sandboxPrefix), Seller: protocol.SellerRef{ID: "sandbox", Name: "sandbox seller"},
		PriceUSD: price, ETAMinutes: eta, Note: "sandbox offer"}
	var rcv protocol.Received
	ok := s.sandboxCall(ctx, id, m, "receive_offers", "receive_offers", protocol.ReceiveOffersInput{TaskID: id, Offers: []protocol.OfferSummary{offer},
		ChooseURL: s.base.BaseURL() + "/api/tasks/" + id + "/choose", Test: true}, &rcv, "return {\"received\": true}")
	for _, status := range []string{axp.TaskPaid, axp.TaskDelivered} {
		in := protocol.TaskUpdateInput{TaskID: id, Status: status, Test: true}
		if status == axp.TaskDelivered {
			in.Deliverable = &protocol.DeliverableRef{URL: s.base.BaseURL() + "/api/tasks/" + id + "/deliverable", SHA256: strings.Repeat("0", 64)}
		}
		ok = s.sandboxCall(ctx, id, m, "task_update:"+status, "task_update", in, &rcv, "return {\"received\": true}") && ok
	}
	var rv protocol.ReviewOutput
	ok = s.sandboxCall(ctx, id, m, "review", "review", protocol.ReviewInput{TaskID: id, YourRole: protocol.RoleBuyer,
		Counterparty: protocol.SellerRef{ID: "sandbox", Name: "sandbox seller"}, Criteria: []string{"rating"}, Test: true}, &rv,
		"return review scores (rating 1-5) or {\"skip\": true}") && ok
	return ok
}

// sandboxOffer records a pull seller's quote on its sandbox job.
func (s *Service) sandboxOffer(ctx context.Context, c *pipeline.Call, id string, a protocol.QuoteAnswer) (*axp.QuoteRecorded, error) {
	if err := a.Check(false, s.base.Now()); err != nil {
		return nil, err
	}
	// A change of the call (not sandboxUpdate), so that its idempotency record is written with it:
	// a retry once the job has moved on replays this answer.
	return kernel.Apply(s.base, ctx, c, func(ch *kernel.Change) (*axp.QuoteRecorded, error) {
		r, err := ch.Tx.Sandbox(id)
		if err != nil {
			return nil, err
		}
		if r == nil || r.MemberID != c.Caller.MemberID {
			return nil, axp.NotFound("sandbox job", id)
		}
		if r.Stage != axp.SandboxQuote {
			return nil, axp.Conflict("the sandbox job is not waiting for a quote", "")
		}
		r.Quote = &a
		return &axp.QuoteRecorded{TaskID: id, Kind: a.Kind(), Recorded: true, Sandbox: true}, ch.Tx.PutSandbox(r)
	})
}

// sandboxDeliver records a delivery on a sandbox job.
func (s *Service) sandboxDeliver(ctx context.Context, c *pipeline.Call, in *axp.DeliverInput) (*axp.Task, error) {
	var body []byte
	var filename, mime string
	err := s.base.Store.View(func(tx *store.Tx) error {
		var err error
		body, filename, mime, err = s.content(tx, in, c.Caller.MemberID)
		return err
	})
	if err != nil {
		return nil, err
	}
	sum := sha256.Sum256(body)
	sha := hex.EncodeToString(sum[:])
	// A change of the call, as in sandboxOffer: a retry once the job has ended replays this answer.
	return kernel.Apply(s.base, ctx, c, func(ch *kernel.Change) (*axp.Task, error) {
		r, err := ch.Tx.Sandbox(in.ID)
		if err != nil {
			return nil, err
		}
		if r == nil || r.MemberID != c.Caller.MemberID {
			return nil, axp.NotFound("sandbox job", in.ID)
		}
		if r.Stage != axp.SandboxWork {
			return nil, axp.Conflict("the sandbox job is not waiting for a delivery", "")
		}
		r.Delivered = &axp.Delivery{SHA256: sha, Filename: filename, MimeType: mime, Size: len(body), At: ch.Now, Passed: true}
		r.Content = body
		view := axp.Task{ID: r.SandboxID, Type: r.TaskType, Status: axp.TaskDelivered, Params: map[string]any{}, PaymentMethod: axp.PayCrypto,
			Offers: []axp.Offer{}, Declined: []axp.Declined{}, Deliveries: 1,
			Deliverable: &protocol.DeliverableRef{URL: s.base.BaseURL() + "/api/tasks/" + r.SandboxID + "/deliverable", SHA256: sha}}
		return &view, ch.Tx.PutSandbox(r)
	})
}

// sandboxViews lists a member's sandbox jobs waiting on it, as quote requests or jobs.
func (s *Service) sandboxViews(tx *store.Tx, memberID, stage string) []axp.Task {
	var out []axp.Task
	now := s.base.Now()
	tx.EachSandbox(func(r *axp.SandboxRecord) bool {
		if r.MemberID == memberID && r.Stage == stage && r.Status == axp.SandboxRunning && now.Before(r.Deadline) {
			v := axp.Task{ID: r.SandboxID, Type: r.TaskType, Description: "Sandbox job: answer as you would a real one. Nothing is booked.",
				Params: map[string]any{}, AcceptanceChecks: sandboxChecks, PaymentMethod: axp.PayCrypto, Status: axp.TaskOpen,
				Offers: []axp.Offer{}, Declined: []axp.Declined{}, CreatedAt: r.CreatedAt}
			if stage == axp.SandboxQuote {
				b := members.TestBuyer
				v.Buyer = &b
			}
			if stage == axp.SandboxWork {
				v.Status = axp.TaskPaid
				if r.Quote != nil && r.Quote.PriceUSD != nil {
					p := *r.Quote.PriceUSD
					v.PriceUSD = &p
				}
			}
			out = append(out, v)
		}
		return len(out) < 20
	})
	return out
}
