package tasks

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/axp-exchange/axp"
	"github.com/axp-exchange/axp/contract"
	"github.com/axp-exchange/axp/daemon/checks"
	"github.com/axp-exchange/axp/daemon/kernel"
	"github.com/axp-exchange/axp/daemon/pipeline"
	"github.com/axp-exchange/axp/daemon/screening"
	"github.com/axp-exchange/axp/protocol"
	"github.com/axp-exchange/axp/store"
)

// Register binds the operations of the tasks service to their handlers and subscribes it to the events it handles.
func (s *Service) Register(r *pipeline.Registry) {
	pipeline.Handle(r, contract.CreateTask, s.createTask)
	pipeline.Handle(r, contract.CreateTaskGet, s.createTask)
	pipeline.Handle(r, contract.GetTask, s.getTask)
	pipeline.Handle(r, contract.ChooseOffer, s.chooseOffer)
	pipeline.Handle(r, contract.PayCryptoOp, s.payCrypto)
	pipeline.Handle(r, contract.PayAuthorizationOp, s.payAuthorization)
	pipeline.Handle(r, contract.PayEscrowOp, s.payEscrow)
	pipeline.Handle(r, contract.GetDeliverable, s.getDeliverable)
	pipeline.Handle(r, contract.AcceptTask, s.acceptTask)
	pipeline.Handle(r, contract.DisputeTask, s.disputeTask)
	pipeline.Handle(r, contract.CancelTask, s.cancelTask)
	pipeline.Handle(r, contract.GetTimeline, s.getTimeline)
	pipeline.Handle(r, contract.GetTaskReceipt, s.getTaskReceipt)
	pipeline.Handle(r, contract.RequestRedo, s.requestRedo)
	pipeline.Handle(r, contract.AnswerClarifications, s.answerClarifications)
	pipeline.HandleNoInput(r, contract.ListQuoteRequests, s.listQuoteRequests)
	pipeline.Handle(r, contract.SubmitOffer, s.submitOffer)
	pipeline.Handle(r, contract.ListJobs, s.listJobs)
	pipeline.Handle(r, contract.Deliver, s.deliver)
	pipeline.Handle(r, contract.RequestPayment, s.requestPayment)
	pipeline.Handle(r, contract.StartSandbox, s.startSandbox)
	pipeline.Handle(r, contract.GetSandbox, s.getSandbox)
	pipeline.Handle(r, contract.ListMyTasks, s.listMyTasks)
	pipeline.Handle(r, contract.AdminTasks, s.adminTasks)
	pipeline.Handle(r, contract.AdminTask, s.adminTask)
	s.subscribeTasks()
}

// maxCustomParams bounds the params of task types outside the catalog (bytes of JSON).
const maxCustomParams = 20_000

func (s *Service) createTask(ctx context.Context, c *pipeline.Call, in *axp.NewTask) (*axp.CreatedTask, error) {
	fromQuery := c.FromQuery
	t, questions, err := s.newTask(c.Caller, in, fromQuery)
	if err != nil {
		return nil, err
	}
	if err := s.trust.CheckListing(ctx, c.Caller, t); err != nil {
		return nil, err
	}
	token := "bt_" + axp.RandomHex(24)
	t.BuyerTokenHash = kernel.TokenHash(token)
	// With an Idempotency-Key, the record is written with the task: a retry after a crash (or
	// while the quote round runs) finds the task, not a second one; it answers with the task as it
	// is then and the same buyer token.
	var pushSellers []*axp.Member
	var chooseErr error
	chooseNow := t.AutoChoose != ""
	draft := *t // each run of the change starts from the task as it was built
	create := func(ch *kernel.Change) (any, error) {
		*t, chooseErr = draft, nil
		t.CreatedAt, t.UpdatedAt = ch.Now, ch.Now
		t.OpenUntil = ch.Now.Add(s.base.Cfg().OpenWindow)
		err := s.screen.CleanBrief(ch, t)
		if err != nil {
			return nil, err
		}
		if pushSellers, err = s.instantOffers(ch, t); err != nil {
			return nil, err
		}
		detail := map[string]any{"type": t.Type, "payment_method": t.PaymentMethod,
			"buyer": t.BuyerLabel(), "token_fp": protocol.Fingerprint(token)}
		if t.Screening != nil {
			detail["screening"] = t.Screening
		}
		if err := ch.AnswerWithTask(t.ID, &axp.CreatedTask{BuyerToken: token, Questions: questions}); err != nil {
			return nil, err
		}
		if err := ch.Save(t, "", "create", detail); err != nil {
			return nil, err
		}
		if chooseNow && len(pushSellers) == 0 {
			// No seller is asked for a quote: the window closes at once, and the offers to
			// choose from are the instant ones of this change.
			chooseErr = s.autoChoose(ch, t.ID)
		}
		return nil, chooseErr
	}
	_, err = s.base.MutateCall(ctx, c, create)
	if chooseErr != nil {
		// A choice refused (no deposit address, say) leaves the task open with its offers.
		s.base.Log.WarnContext(ctx, "auto choose failed", "source", "tasks", "task", t.ID, "err", chooseErr)
		chooseNow = false
		_, err = s.base.MutateCall(ctx, c, create)
	}
	if err != nil {
		return nil, err
	}
	s.base.Log.InfoContext(ctx, "task posted", "source", "tasks", "task", t.ID, "type", t.Type, "token_fp", protocol.Fingerprint(token))
	// With push sellers, the automatic choice is made in the transaction that stores the
	// window's answers.
	var choose func(ch *kernel.Change) error
	if chooseNow && len(pushSellers) > 0 {
		choose = func(ch *kernel.Change) error { return s.autoChoose(ch, t.ID) }
	}
	if err := s.quoteRound(ctx, t.ID, pushSellers, false, choose); err != nil {
		s.base.Log.WarnContext(ctx, "auto choose failed", "source", "tasks", "task", t.ID, "err", err)
	}
	out := &axp.CreatedTask{BuyerToken: token, Questions: questions}
	var notices []kernel.Notice
	if err := s.base.Store.View(func(tx *store.Tx) error {
		cur, err := kernel.LoadTask(tx, t.ID)
		if err != nil {
			return err
		}
		out.Task, err = s.View(tx, cur, c.Caller, kernel.ViewBuyer)
		if err == nil && cur.Status == axp.TaskOpen && len(out.Offers) > 0 {
			// The collected offers go to a buyer member's receive_offers and the callback URL.
			ch := s.base.ReadChange(tx, ctx)
			s.offerNotices(ch, cur, out.Offers)
			notices = ch.Notices
		}
		return err
	}); err != nil {
		return nil, err
	}
	s.base.Send(ctx, notices)
	return out, nil
}

// newTask validates a new task and builds its record (not yet stored).
func (s *Service) newTask(c axp.Caller, in *axp.NewTask, fromQuery bool) (*axp.TaskRecord, []string, error) {
	if err := s.market.CheckTarget("callback_url", in.CallbackURL); err != nil {
		return nil, nil, err
	}
	// Sellers read agent_name as the anonymous buyer's name.
	if in.AgentName != "" {
		in.AgentName = screening.FoldName(in.AgentName)
	}
	if err := screening.CheckPublicName("agent_name", in.AgentName); err != nil {
		return nil, nil, err
	}
	desc := strings.TrimSpace(in.Description)
	typ := in.Type
	var questions []string
	if typ == "" && desc == "" {
		return nil, nil, axp.Invalid("type", "give a type or a description", "e.g. type=text-file with params.prompt, or a description of what you want")
	}
	if typ == "" {
		typ = axp.InferType(desc)
	}
	if typ == "" {
		typ = "custom"
		questions = []string{
			"What should the result be: a text file, an image, a video, a transcript, a translation, or something else?",
			"What format, length, language or size do you need?",
			"By when do you need it (deadline_minutes)?",
		}
	}
	params := in.Params
	if params == nil {
		params = map[string]any{}
	}
	if svc := axp.ServiceFor(typ); svc != nil {
		if _, has := params["prompt"]; !has && desc != "" && svc.HasParam("prompt") {
			params["prompt"] = desc
		}
		if typ == "translation" && desc != "" && params["text"] == nil && params["source_url"] == nil {
			params["text"] = desc
		}
		if typ == "translation" && params["target_language"] == nil {
			if l := axp.BriefLanguage(desc); l != "" {
				params["target_language"] = l
			}
		}
		// The text given is what is priced: its words, not the default count.
		if text, ok := params["text"].(string); ok && typ == "translation" && params["words"] == nil {
			params["words"] = max(1, len(strings.Fields(text)))
		}
		norm, err := svc.Normalize(params, fromQuery, axp.ParamsField(fromQuery))
		if err != nil {
			return nil, nil, err
		}
		params = norm
	} else if raw, _ := json.Marshal(params); len(raw) > maxCustomParams {
		return nil, nil, axp.Invalid("params", fmt.Sprintf("is %d bytes of JSON; at most %d are allowed", len(raw), maxCustomParams), "put long material in description")
	}
	if desc == "" && len(questions) == 0 && len(strings.Fields(fmt.Sprint(params["prompt"]))) < 3 && axp.ServiceFor(typ) == nil {
		questions = append(questions, "Describe the result you want in a sentence or two, so sellers can quote.")
	}
	t := &axp.TaskRecord{ID: axp.NewID("tsk", s.base.Now()), Type: typ, Description: desc, Params: params,
		DeadlineMinutes: in.DeadlineMinutes, AutoChoose: in.AutoChoose, PaymentMethod: in.PaymentMethod,
		PreferredPayment: in.PreferredPayment, Contact: in.Contact, CallbackURL: in.CallbackURL, AgentName: in.AgentName,
		Questions: questions, Status: axp.TaskOpen}
	if t.PaymentMethod == "" {
		t.PaymentMethod = axp.PayCrypto
	}
	if s.rail.Chain != nil {
		t.PostedBlock = s.rail.Chain.LastHead()
	}
	if len(in.AcceptanceChecks) > 0 {
		checks, err := checks.Validate(in.AcceptanceChecks)
		if err != nil {
			return nil, nil, err
		}
		t.AcceptanceChecks = checks
	}
	if c.Kind == axp.MemberCall {
		if !c.HasRole(protocol.RoleBuyer) {
			return nil, nil, axp.Forbidden("only buyer members post tasks with their secret", `add "buyer" to your roles, or post without credentials to get a buyer token`)
		}
		t.BuyerMemberID = c.MemberID
	}
	if err := s.invites(t, in.InviteSellers.Value()); err != nil {
		return nil, nil, err
	}
	return t, questions, nil
}

// invites resolves invite_sellers: "favourites" (a buyer member's list) or seller ids.
func (s *Service) invites(t *axp.TaskRecord, v any) error {
	switch x := v.(type) {
	case nil:
		return nil
	case string:
		if x != "favourites" {
			return axp.Invalid("invite_sellers", fmt.Sprintf("%q is not understood", x), `give "favourites" or an array of seller ids`)
		}
		if t.BuyerMemberID == "" {
			return axp.Invalid("invite_sellers", "favourites need a buyer member", "post with your member secret, or list seller ids")
		}
		m, err := s.market.Member(t.BuyerMemberID)
		if err != nil {
			return err
		}
		if len(m.Favourites) == 0 {
			return axp.Invalid("invite_sellers", "you have no favourites", "PUT /api/members/me/favourites first, or list seller ids")
		}
		t.InviteMode, t.Invited = "favourites", append([]string(nil), m.Favourites...)
	case []any:
		if len(x) == 0 || len(x) > 200 {
			return axp.Invalid("invite_sellers", "must list 1 to 200 seller ids", "")
		}
		return s.base.Store.View(func(tx *store.Tx) error {
			for i, e := range x {
				id, _ := e.(string)
				field := fmt.Sprintf("invite_sellers[%d]", i)
				m, err := tx.Member(id)
				if err != nil {
					return err
				}
				if m == nil || !m.HasRole(protocol.RoleSeller) {
					return axp.Invalid(field, fmt.Sprintf("%q is not a seller", id), "see GET /api/sellers for seller ids")
				}
				t.Invited = append(t.Invited, id)
			}
			t.InviteMode = "ids"
			return nil
		})
	default:
		return axp.Invalid("invite_sellers", "must be \"favourites\" or an array of seller ids", "")
	}
	return nil
}

// instantOffers turns the standing prices of matching sellers into offers, in the creating
// transaction. It returns the matching push sellers too, read in the same pass: those the task's
// quote round asks (never nil).
func (s *Service) instantOffers(ch *kernel.Change, t *axp.TaskRecord) ([]*axp.Member, error) {
	var skills []struct {
		m *axp.Member
		s axp.Skill
	}
	push := []*axp.Member{}
	if err := ch.Tx.SellersFor(t.Type, func(m *axp.Member) bool {
		v, ok := m.Matches(t)
		switch {
		case !ok:
		case v.Instant():
			skills = append(skills, struct {
				m *axp.Member
				s axp.Skill
			}{m, *v})
		case !m.PullMode():
			push = append(push, m)
		}
		return true
	}); err != nil {
		return nil, err
	}
	for _, x := range skills {
		price := *x.s.InstantPriceUSD
		if t.Free() {
			price = 0
		} else if price == 0 {
			continue
		}
		eta := *x.s.InstantETAMinutes
		a := protocol.QuoteAnswer{PriceUSD: &price, ETAMinutes: &eta, Note: x.s.Description, Guarantee: x.s.Guarantee}
		if err := s.storeAnswer(ch, t, x.m, a, true, false, 0); err != nil {
			return nil, err
		}
	}
	return push, nil
}

// storeAnswer records a seller's answer on an open task (replacing any earlier one), with the fee
// of the moment frozen on the offer.
func (s *Service) storeAnswer(ch *kernel.Change, t *axp.TaskRecord, m *axp.Member, a protocol.QuoteAnswer, instant, pull bool, latency int64) error {
	sc, err := s.screen.CleanAnswer(ch, t, m.ID, &a, instant)
	if err != nil {
		return err
	}
	if a.Guarantee == nil {
		// The skill's guarantee is the seller's default; an answer that names one overrides it.
		for _, k := range m.Skills {
			if k.TaskType == t.Type && k.Guarantee != nil {
				g := *k.Guarantee
				a.Guarantee = &g
			}
		}
	}
	q := &axp.QuoteRecord{TaskID: t.ID, SellerID: m.ID, SellerName: m.Name, Kind: a.Kind(), Answer: a,
		Instant: instant, Pull: pull, LatencyMS: latency, Screening: sc, CreatedAt: ch.Now}
	if q.Kind == "price" {
		bps, _ := s.base.Cfg().Fees.At(ch.Now)
		q.Fee = axp.FeeFor(*a.PriceUSD, bps)
		q.OfferID = axp.NewID("ofr", ch.Now)
	}
	if err := ch.Tx.PutQuote(q); err != nil {
		return err
	}
	if !instant && latency > 0 {
		st, err := ch.Tx.SellerStats(m.ID)
		if err != nil {
			return err
		}
		st.AddQuoteLatency(latency)
		if err := ch.Tx.PutSellerStats(st); err != nil {
			return err
		}
	}
	detail := map[string]any{"seller": m.ID, "kind": q.Kind}
	if q.Screening != nil {
		detail["screening"] = q.Screening
	}
	if q.OfferID != "" {
		detail["offer_id"], detail["price_usd"] = q.OfferID, a.PriceUSD
	}
	return ch.PlainEvent(t, "quote", detail)
}
