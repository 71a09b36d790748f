package memberkit

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/axp-exchange/axp"
	"github.com/axp-exchange/axp/protocol"
)

// Runner is pull mode, for members without a server: it polls the exchange's REST API and answers
// with the same handlers a Server would call. A seller answers quote requests with Quote (through
// POST /api/tasks/{id}/offers) and runs DoTask for each new job (the seller delivers with
// job.Deliver, as in push mode); a buyer's ReceiveOffers and TaskUpdate are called for new offers
// and status changes of the tasks it posted; announcements go to Announcement and are marked read.
// The check-in clock is reset with a heartbeat. Mediation and review have no REST equivalent and
// are not polled.
type Runner struct {
	// Client is the member's client (its Secret set).
	Client *Client
	// PollEvery is the time between two polls (0: 2 s).
	PollEvery time.Duration
	// HeartbeatEvery is the time between two heartbeats (0: 1 h).
	HeartbeatEvery time.Duration
	// OnVerify, when set, is given the result of the verification Run starts with (nil: it is
	// logged).
	OnVerify func(v *axp.Verification, err error)

	h        *handlers
	memberID string

	mu        sync.Mutex
	answered  map[string]string // task id -> kind of our answer
	started   map[string]bool   // "task id#deliveries" of jobs handed to DoTask
	offers    map[string]map[string]bool
	statuses  map[string]string
	since     time.Time // tasks last changed before this are old news to a buyer
	lastBeat  time.Time
	wg        sync.WaitGroup
	lastError string
}

// NewRunner builds a pull-mode runner of the member whose client c is, answering with the
// handlers of o (Options.AuthToken, MaxBody and AllowReplays do not apply).
func NewRunner(c *Client, o Options) (*Runner, error) {
	if c == nil || c.Secret == "" {
		return nil, errors.New("memberkit: the runner needs a client with the member secret")
	}
	h, err := newHandlers(o)
	if err != nil {
		return nil, err
	}
	id, ok := axp.MemberIDFromSecret(c.Secret)
	if !ok {
		return nil, errors.New("memberkit: the client's secret is not a member secret (ss_<member_id>_<64 hex>)")
	}
	return &Runner{Client: c, h: h, memberID: id, answered: map[string]string{}, started: map[string]bool{},
		offers: map[string]map[string]bool{}, statuses: map[string]string{}, since: time.Now()}, nil
}

func (r *Runner) seller() bool { return slices.Contains(r.h.roles, protocol.RoleSeller) }
func (r *Runner) buyer() bool  { return slices.Contains(r.h.roles, protocol.RoleBuyer) }

// Run verifies the member (see Verify and OnVerify), then polls until ctx ends, and waits for the
// jobs it started. A failed poll is logged and retried on the next round; Run returns nil when ctx
// ends.
func (r *Runner) Run(ctx context.Context) error {
	v, err := r.Verify(ctx)
	switch {
	case r.OnVerify != nil:
		r.OnVerify(v, err)
	case err != nil:
		r.h.log.Warn("memberkit: verification failed", "err", err)
	case !v.Passed:
		r.h.log.Warn("memberkit: not verified yet", "state", v.State, "steps", fmt.Sprint(failedSteps(v.Steps)))
	}
	every := r.PollEvery
	if every <= 0 {
		every = 2 * time.Second
	}
	tick := time.NewTicker(every)
	defer tick.Stop()
	for {
		if err := r.Poll(ctx); err != nil && ctx.Err() == nil {
			r.logOnce(err)
		}
		select {
		case <-ctx.Done():
			r.wg.Wait()
			return nil
		case <-tick.C:
		}
	}
}

// logOnce logs a poll error, once until it changes (an exchange that is down fails every poll).
func (r *Runner) logOnce(err error) {
	r.mu.Lock()
	same := r.lastError == err.Error()
	r.lastError = err.Error()
	r.mu.Unlock()
	switch {
	case same:
	case IsCode(err, protocol.CodeForbidden) && strings.Contains(err.Error(), "suspended"):
		// A suspended member cannot read the notice that says so: say it here, in plain words.
		r.h.log.Warn("memberkit: this member is suspended: the exchange refuses its calls and sends it no work. " +
			"Write to the operator (the contact on the exchange's /faq) to be reinstated; polling goes on, and once reinstated, " +
			"jobs resume and accepted jobs ask for their payment again by themselves")
	default:
		r.h.log.Warn("memberkit: poll failed", "err", err)
	}
}

func failedSteps(steps []axp.Step) []string {
	var out []string
	for _, s := range steps {
		if !s.OK {
			out = append(out, s.Name+": "+s.Detail)
		}
	}
	return out
}

// Verify runs the verification handshake of a pull member: it asks for verification, answers the
// practice quote request with the Seller's Quote and asks again.
func (r *Runner) Verify(ctx context.Context) (*axp.Verification, error) {
	v, err := r.Client.Verify(ctx)
	if err != nil || v.Passed || v.Practice == nil {
		return v, err
	}
	if !r.seller() {
		return v, errors.New("the practice request is a quote request, which only sellers can answer")
	}
	if err := r.answerPractice(ctx, v.Practice); err != nil {
		return v, err
	}
	return r.Client.Verify(ctx)
}

func (r *Runner) answerPractice(ctx context.Context, p *axp.PracticeRequest) error {
	t := axp.Task{ID: p.TaskID, Type: p.TaskType, PaymentMethod: axp.PayCrypto}
	if list, err := r.Client.QuoteRequests(ctx); err == nil {
		for _, x := range list {
			if x.ID == p.TaskID {
				t = x
			}
		}
	}
	return r.quote(ctx, t)
}

// Poll runs one round: heartbeat when due, quote requests and jobs (sellers), offers and status
// changes (buyers), announcements. The first error is returned after the round.
func (r *Runner) Poll(ctx context.Context) error {
	var errs []error
	every := r.HeartbeatEvery
	if every <= 0 {
		every = time.Hour
	}
	if time.Since(r.lastBeat) >= every {
		if _, err := r.Client.Heartbeat(ctx); err != nil {
			errs = append(errs, fmt.Errorf("heartbeat: %w", err))
		} else {
			r.lastBeat = time.Now()
		}
	}
	if r.seller() {
		errs = append(errs, r.pollQuotes(ctx), r.pollJobs(ctx))
	}
	if r.buyer() {
		errs = append(errs, r.pollTasks(ctx))
	}
	errs = append(errs, r.pollAnnouncements(ctx))
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

func (r *Runner) pollQuotes(ctx context.Context) error {
	list, err := r.Client.QuoteRequests(ctx)
	if err != nil {
		if IsCode(err, protocol.CodeForbidden) {
			return nil // not verified (yet): nothing to quote on
		}
		return fmt.Errorf("quote requests: %w", err)
	}
	for _, t := range list {
		if !r.shouldQuote(t) {
			continue
		}
		if err := r.quote(ctx, t); err != nil {
			r.h.log.Warn("memberkit: quote failed", "task", t.ID, "err", err)
			continue
		}
		if strings.HasPrefix(t.ID, practicePrefix) {
			if _, err := r.Client.Verify(ctx); err != nil {
				r.h.log.Warn("memberkit: verification after the practice request failed", "err", err)
			}
		}
	}
	return nil
}

// shouldQuote: a task not answered yet, or one we asked questions on that the buyer has answered
// (our questions are gone from its clarifications).
func (r *Runner) shouldQuote(t axp.Task) bool {
	r.mu.Lock()
	kind, done := r.answered[t.ID]
	r.mu.Unlock()
	if !done {
		return true
	}
	if kind != "clarify" {
		return false
	}
	for _, c := range t.Clarifications {
		if c.Seller.ID == r.memberID {
			return false
		}
	}
	return true
}

func (r *Runner) quote(ctx context.Context, t axp.Task) error {
	in := protocol.QuoteInput{TaskID: t.ID, TaskType: t.Type, Description: t.Description, Params: t.Params,
		DeadlineMinutes: t.DeadlineMinutes, AcceptanceChecks: t.AcceptanceChecks, PaymentMethod: t.PaymentMethod,
		Buyer: protocol.BuyerRef{ID: "anonymous", Name: "buyer", Anonymous: true}, Test: practice(t.ID)}
	if t.Buyer != nil { // exchanges name the buyer as in the push quote call; older ones did not
		in.Buyer = *t.Buyer
	}
	if in.PaymentMethod == "" {
		in.PaymentMethod = axp.PayCrypto
	}
	q, err := r.h.quote(ctx, in)
	if err != nil {
		return err
	}
	if _, err := r.Client.Offer(ctx, t.ID, q); err != nil {
		return err
	}
	r.mu.Lock()
	r.answered[t.ID] = q.Kind()
	r.mu.Unlock()
	return nil
}

func (r *Runner) pollJobs(ctx context.Context) error {
	list, err := r.Client.Jobs(ctx, false)
	if err != nil {
		return fmt.Errorf("jobs: %w", err)
	}
	for _, t := range list {
		if t.Status == axp.TaskAccepted && r.h.askPay && !practice(t.ID) {
			// Asked until the exchange takes it: a suspended seller's request fails until it is
			// reinstated.
			if !r.h.paymentRequested(t.ID) {
				r.h.requestPayment(ctx, r.Client, t.ID)
			}
			continue
		}
		if t.Status != axp.TaskPaid && t.Status != axp.TaskInProgress {
			continue
		}
		key := fmt.Sprintf("%s#%d", t.ID, t.Deliveries)
		r.mu.Lock()
		seen := r.started[key]
		r.started[key] = true
		r.mu.Unlock()
		if seen {
			continue
		}
		in := protocol.DoTaskInput{TaskID: t.ID, TaskType: t.Type, Description: t.Description, Params: t.Params,
			DeliverURL: r.Client.DeliverURL(t.ID), AcceptanceChecks: t.AcceptanceChecks, Test: practice(t.ID)}
		if t.PriceUSD != nil {
			in.PriceUSD = *t.PriceUSD
		}
		for _, o := range t.Offers {
			if o.OfferID == t.ChosenOfferID {
				in.ETAMinutes = o.ETAMinutes
			}
		}
		job := &Job{DoTaskInput: in, bg: ctx, deliver: r.Client.deliverTo, spawn: r.spawn}
		out, err := r.h.doTask(ctx, job)
		switch {
		case err != nil:
			r.h.log.Warn("memberkit: do_task failed", "task", t.ID, "err", err)
		case !out.Accepted:
			r.h.log.Warn("memberkit: the job was not taken; in pull mode the exchange is not told: deliver or ask the operator",
				"task", t.ID, "reason", out.Reason)
		}
	}
	return nil
}

// Ids of the exchange's practice requests (verification) and sandbox jobs: nothing is booked.
const (
	practicePrefix = "prc_"
	sandboxPrefix  = "sbx_"
)

func practice(id string) bool {
	return strings.HasPrefix(id, practicePrefix) || strings.HasPrefix(id, sandboxPrefix)
}

func (r *Runner) spawn(f func()) {
	r.wg.Add(1)
	go func() {
		defer r.wg.Done()
		f()
	}()
}

func (r *Runner) pollTasks(ctx context.Context) error {
	list, err := r.Client.MyTasks(ctx)
	if err != nil {
		return fmt.Errorf("my tasks: %w", err)
	}
	for _, t := range list {
		var fresh []protocol.OfferSummary
		r.mu.Lock()
		seen := r.offers[t.ID]
		if seen == nil {
			seen = map[string]bool{}
			r.offers[t.ID] = seen
		}
		for _, o := range t.Offers {
			if !seen[o.OfferID] {
				seen[o.OfferID] = true
				fresh = append(fresh, protocol.OfferSummary{OfferID: o.OfferID, Seller: o.Seller, PriceUSD: o.PriceUSD, ETAMinutes: o.ETAMinutes, Note: o.Note})
			}
		}
		prev, known := r.statuses[t.ID]
		r.statuses[t.ID] = t.Status
		r.mu.Unlock()
		if !known && t.UpdatedAt.Before(r.since) {
			continue // unchanged since before the runner started: old news
		}
		if len(fresh) > 0 && t.Status == axp.TaskOpen {
			in := protocol.ReceiveOffersInput{TaskID: t.ID, Offers: fresh, ChooseURL: r.Client.chooseURL(t.ID), AlsoSell: t.AlsoSell}
			if err := r.h.buyer.ReceiveOffers(ctx, in); err != nil {
				r.h.log.Warn("memberkit: receive_offers handler failed", "task", t.ID, "err", err)
			}
		}
		if known && prev != t.Status || !known && t.Status != axp.TaskOpen {
			in := protocol.TaskUpdateInput{TaskID: t.ID, Status: t.Status, Deliverable: t.Deliverable, AutoReleaseAt: t.AutoReleaseAt}
			if err := r.h.party.TaskUpdate(ctx, in); err != nil {
				r.h.log.Warn("memberkit: task_update handler failed", "task", t.ID, "err", err)
			}
		}
	}
	return nil
}

func (r *Runner) pollAnnouncements(ctx context.Context) error {
	l, err := r.Client.Announcements(ctx)
	if err != nil {
		return fmt.Errorf("announcements: %w", err)
	}
	if l.Unread == 0 {
		return nil
	}
	for _, a := range l.Announcements {
		if a.ReadAt != nil {
			continue
		}
		in := protocol.AnnouncementInput{AnnouncementID: a.ID, From: a.From, Severity: a.Severity, Title: a.Title, Body: a.Body, ReplyTo: a.ReplyTo}
		if err := r.h.party.Announcement(ctx, in); err != nil {
			r.h.log.Warn("memberkit: announcement handler failed", "announcement", a.ID, "err", err)
			continue
		}
		if err := r.Client.ReadAnnouncement(ctx, a.ID); err != nil {
			return fmt.Errorf("read announcement: %w", err)
		}
	}
	return nil
}
