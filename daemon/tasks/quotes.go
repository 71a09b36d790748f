package tasks

import (
	"context"
	"encoding/json"
	"strings"
	"sync/atomic"
	"time"

	"github.com/axp-exchange/axp"
	"github.com/axp-exchange/axp/daemon/kernel"
	"github.com/axp-exchange/axp/daemon/outbound"
	"github.com/axp-exchange/axp/daemon/pipeline"
	"github.com/axp-exchange/axp/daemon/screening"
	"github.com/axp-exchange/axp/daemon/trust"
	"github.com/axp-exchange/axp/protocol"
	"github.com/axp-exchange/axp/store"
)

// earlyStoreMin is the number of sellers from which a quote round stores its answers in batches
// while the others are still coming in: whenever a tenth of the sellers' answers wait, they are
// stored in one transaction, and the last ones when they are in. Storing a thousand answers takes
// long enough (some 35 ms) that doing most of it while answers still arrive shortens the round, at
// the cost of a few more transactions (the batches grow when storing falls behind). A smaller
// round stores everything in one transaction at the end; a round whose offers are pushed to the
// buyer stores nine tenths, then the rest.
const earlyStoreMin = 100

// quoteAnswer is one push seller's answer (or failure) in a quote round.
type quoteAnswer struct {
	seller  *axp.Member
	answer  protocol.QuoteAnswer
	err     error
	latency time.Duration
}

// quoteRound asks every matching push seller for a quote in parallel (at most quoteParallel calls
// at once), each call bounded by the member call timeout, and stores what arrives within the quote
// window in one transaction (a few, in batches as the answers arrive, in a large round: see
// earlyStoreMin). The round ends early when every seller answered. Answers that
// arrive later are stored one by one and pushed to the buyer as late offers. push says that the
// offers of the window are pushed too (a round after clarification: the buyer's call that
// started it answers with the task, but receive_offers and the callback hear of every new or
// replaced offer); task creation pushes them itself with the instant offers. sellers, when not
// nil, are the push sellers to ask (task creation has just read them); nil: those matching now.
// then, when not nil, runs in the transaction that stores the window's answers (task creation's
// automatic choice); when it fails, the answers are stored without it and its error is returned.
func (s *Service) quoteRound(ctx context.Context, taskID string, sellers []*axp.Member, push bool, then func(ch *kernel.Change) error) error {
	var t *axp.TaskRecord
	s.base.Store.View(func(tx *store.Tx) error {
		var err error
		if t, err = tx.Task(taskID); err != nil || t == nil || sellers != nil {
			return err
		}
		return tx.SellersFor(t.Type, func(m *axp.Member) bool {
			if v, ok := m.Matches(t); ok && !m.PullMode() && !v.Instant() {
				sellers = append(sellers, m)
			}
			return true
		})
	})
	if t == nil || len(sellers) == 0 {
		return s.storeRound(ctx, taskID, nil, push, then)
	}
	in, err := json.Marshal(s.quoteInput(t)) // once, for every seller
	if err != nil {
		s.base.Log.WarnContext(ctx, "the quote input cannot be encoded", "source", "tasks", "task", taskID, "err", err)
		return s.storeRound(ctx, taskID, nil, push, then)
	}
	round := time.Now()
	results := make(chan quoteAnswer, len(sellers))
	callCtx := context.WithoutCancel(ctx) // a call outlives the request that started the round
	// At most quoteParallel calls are under way at once: each worker calls the next seller
	// nobody has called yet.
	var next atomic.Int64
	for range min(len(sellers), s.base.QuoteParallel()) {
		go func() {
			for {
				i := int(next.Add(1)) - 1
				if i >= len(sellers) {
					return
				}
				m := sellers[i]
				start := time.Now()
				var a protocol.QuoteAnswer
				err := s.market.CallTool(callCtx, m, "quote", outbound.Args(in), &a)
				results <- quoteAnswer{seller: m, answer: a, err: err, latency: time.Since(start)}
			}
		}()
	}
	window := time.NewTimer(s.base.Cfg().QuoteWindow)
	defer window.Stop()
	batch := len(sellers)
	switch {
	case len(sellers) < earlyStoreMin:
	case push:
		// Each batch is pushed to the buyer as one notice (and reads the task's offers): two
		// batches, nine tenths and the rest.
		batch = len(sellers) - len(sellers)/10
	default:
		batch = len(sellers) / 10
	}
	received := 0
	var got []quoteAnswer
	take := func(r quoteAnswer) {
		got = append(got, r)
		received++
	}
collect:
	for received < len(sellers) {
		select {
		case r := <-results:
			take(r)
			for pending := len(results); pending > 0; pending-- {
				take(<-results)
			}
			if len(got) >= batch && received < len(sellers) {
				s.storeRound(ctx, taskID, got, push, nil)
				got = nil
			}
		case <-window.C:
			// Answers delivered while a batch was being stored came in time.
			for pending := len(results); pending > 0; pending-- {
				take(<-results)
			}
			break collect
		}
	}
	s.prom.QuoteRound(time.Since(round))
	err = s.storeRound(ctx, taskID, got, push, then)
	if late := len(sellers) - received; late > 0 {
		go func() {
			// Late answers that arrived together are stored (and pushed) together.
			for late > 0 {
				got := []quoteAnswer{<-results}
				for pending := min(len(results), late-1); pending > 0; pending-- {
					got = append(got, <-results)
				}
				late -= len(got)
				s.storeRound(callCtx, taskID, got, true, nil)
			}
		}()
	}
	return err
}

func (s *Service) quoteInput(t *axp.TaskRecord) protocol.QuoteInput {
	var buyer protocol.BuyerRef
	s.base.Store.View(func(tx *store.Tx) error {
		buyer = buyerRefs{}.of(tx, t)
		return nil
	})
	return protocol.QuoteInput{TaskID: t.ID, TaskType: t.Type, Description: t.Brief(), Params: t.Params,
		DeadlineMinutes: t.DeadlineMinutes, AcceptanceChecks: t.AcceptanceChecks, Buyer: buyer,
		PaymentMethod: t.PaymentMethod, Screening: t.Screening, Test: t.Test}
}

// buyerRefs names the buyer of a task to sellers: the quote call of push sellers and the quote
// requests of pull sellers both build it here, so the two never differ. A buyer member is its id,
// name and reputation as a buyer; a token buyer is the anonymous marker, named by the task's
// agent_name when it gave one, without reputation. The map keeps each member's answer for one read,
// since a list of quote requests may hold many tasks of one buyer.
type buyerRefs map[string]protocol.BuyerRef

func (r buyerRefs) of(tx *store.Tx, t *axp.TaskRecord) protocol.BuyerRef {
	if t.BuyerMemberID != "" {
		if b, ok := r[t.BuyerMemberID]; ok {
			return b
		}
		if m, err := kernel.LoadMember(tx, t.BuyerMemberID); err == nil {
			b := protocol.BuyerRef{ID: m.ID, Name: m.Name}
			if rep, err := trust.Reputation(tx, m); err == nil {
				b.Reputation = &protocol.BuyerReputation{AsBuyer: rep.AsBuyer}
			}
			r[m.ID] = b
			return b
		}
	}
	b := protocol.BuyerRef{ID: "anonymous", Name: "anonymous buyer", Anonymous: true}
	if t.AgentName != "" {
		b.Name = t.AgentName
	}
	return b
}

// storeRound stores the answers of a round in one transaction; failures and refused answers go on
// the timeline with the reason. With push, the offers stored are pushed to the buyer. then, when
// not nil, runs in the same transaction once the answers are stored; when it fails, the answers
// are stored without it and its error is returned.
func (s *Service) storeRound(ctx context.Context, taskID string, got []quoteAnswer, push bool, then func(ch *kernel.Change) error) error {
	if len(got) == 0 && then == nil {
		return nil
	}
	var thenErr error
	_, err := s.base.Mutate(ctx, "system", func(ch *kernel.Change) (any, error) {
		thenErr = nil
		t, err := kernel.LoadTask(ch.Tx, taskID)
		if err != nil {
			return nil, err
		}
		if t.Status != axp.TaskOpen {
			return nil, nil
		}
		var stored []string
		for _, r := range got {
			if r.err == nil {
				if cerr := r.answer.Check(t.Free(), ch.Now); cerr != nil {
					r.err = cerr
				}
			}
			if r.err != nil {
				if err := ch.PlainEvent(t, "quote_failed", map[string]any{"seller": r.seller.ID, "error": r.err.Error()}); err != nil {
					return nil, err
				}
				continue
			}
			ms := r.latency.Milliseconds()
			if ms == 0 {
				ms = 1
			}
			if err := s.storeAnswer(ch, t, r.seller, r.answer, false, false, ms); err != nil {
				return nil, err
			}
			stored = append(stored, r.seller.ID)
		}
		if err := ch.Tx.PutTask(t, t.Status); err != nil {
			return nil, err
		}
		if push && len(stored) > 0 {
			offs, _, _, err := offers(ch.Tx, t, ch.Now)
			if err != nil {
				return nil, err
			}
			var mine []axp.Offer
			for _, o := range offs {
				for _, id := range stored {
					if o.Seller.ID == id {
						mine = append(mine, o)
					}
				}
			}
			if len(mine) > 0 {
				s.offerNotices(ch, t, mine)
			}
		}
		if then != nil {
			thenErr = then(ch)
		}
		return nil, thenErr
	})
	if thenErr != nil {
		s.storeRound(ctx, taskID, got, push, nil)
		return thenErr
	}
	if err != nil {
		s.base.Log.WarnContext(ctx, "storing quotes failed", "source", "tasks", "task", taskID, "err", err)
	}
	return nil
}

// answerClarifications records the buyer's answers, clears the questions so sellers may answer
// anew, and runs a new quote round.
func (s *Service) answerClarifications(ctx context.Context, c *pipeline.Call, in *axp.ClarifyBody) (*axp.Task, error) {
	if len(in.Answers) == 0 || len(in.Answers) > 50 {
		return nil, axp.Invalid("answers", "must hold 1 to 50 answers", `e.g. {"answers": {"Which language?": "French"}}`)
	}
	for k, v := range in.Answers {
		if len(k) > 500 || strings.TrimSpace(k) == "" {
			return nil, axp.Invalid("answers", "each question must be 1 to 500 characters", "")
		}
		if len(v) > 2000 || strings.TrimSpace(v) == "" {
			return nil, axp.Invalid("answers."+k, "must be 1 to 2000 characters", "")
		}
	}
	// The record is written with the answers (a retry must not start another round); a replay
	// answers with the task as it is then.
	if _, err := s.taskChange(ctx, c, in.ID, kernel.ViewBuyer, func(ch *kernel.Change, t *axp.TaskRecord) error {
		if _, err := axp.Next(t.Status, axp.TrigClarify, t.Facts()); err != nil {
			return err
		}
		if err := ch.AnswerWithTask(t.ID, struct{}{}); err != nil {
			return err
		}
		qs, err := ch.Tx.Quotes(t.ID)
		if err != nil {
			return err
		}
		for _, q := range qs {
			if q.Kind == "clarify" {
				if err := ch.Tx.DeleteQuote(t.ID, q.SellerID); err != nil {
					return err
				}
			}
		}
		// The answers reach sellers in the brief: they pass the same filters as the brief.
		answers, sc, err := s.screen.CleanClarifications(ch, screening.BuyerParty(t), in.Answers)
		if err != nil {
			return err
		}
		if sc != nil {
			screening.Merge(&t.Screening, "answers", sc)
		}
		t.Clarified = append(t.Clarified, axp.ClarifyRound{At: ch.Now, Answers: answers})
		t.UpdatedAt = ch.Now
		return ch.Save(t, t.Status, "clarify", map[string]any{"answers": len(in.Answers)})
	}); err != nil {
		return nil, err
	}
	s.quoteRound(ctx, in.ID, nil, true, nil)
	var out axp.Task
	err := s.base.Store.View(func(tx *store.Tx) error {
		t, err := kernel.LoadTask(tx, in.ID)
		if err != nil {
			return err
		}
		out, err = s.View(tx, t, c.Caller, kernel.ViewBuyer)
		return err
	})
	return &out, err
}
