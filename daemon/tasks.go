package daemon

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/axp-exchange/axp"
	"github.com/axp-exchange/axp/daemon/checks"
	"github.com/axp-exchange/axp/daemon/pipeline"
	"github.com/axp-exchange/axp/protocol"
	"github.com/axp-exchange/axp/store"
)

// registerTasks binds the operations of the tasks service to their handlers and subscribes it to the events it handles.
func (d *Daemon) registerTasks(r *pipeline.Registry) {
	pipeline.Handle(r, axp.CreateTask, d.createTask)
	pipeline.Handle(r, axp.CreateTaskGet, d.createTask)
	pipeline.Handle(r, axp.GetTask, d.getTask)
	pipeline.Handle(r, axp.ChooseOffer, d.chooseOffer)
	pipeline.Handle(r, axp.PayCryptoOp, d.payCrypto)
	pipeline.Handle(r, axp.GetDeliverable, d.getDeliverable)
	pipeline.Handle(r, axp.AcceptTask, d.acceptTask)
	pipeline.Handle(r, axp.DisputeTask, d.disputeTask)
	pipeline.Handle(r, axp.CancelTask, d.cancelTask)
	pipeline.Handle(r, axp.GetTimeline, d.getTimeline)
	pipeline.Handle(r, axp.RequestRedo, d.requestRedo)
	pipeline.Handle(r, axp.AnswerClarifications, d.answerClarifications)
	pipeline.HandleNoInput(r, axp.ListQuoteRequests, d.listQuoteRequests)
	pipeline.Handle(r, axp.SubmitOffer, d.submitOffer)
	pipeline.Handle(r, axp.ListJobs, d.listJobs)
	pipeline.Handle(r, axp.Deliver, d.deliver)
	pipeline.Handle(r, axp.RequestPayment, d.requestPayment)
	pipeline.Handle(r, axp.StartSandbox, d.startSandbox)
	pipeline.Handle(r, axp.GetSandbox, d.getSandbox)
	pipeline.Handle(r, axp.ListMyTasks, d.listMyTasks)
	d.subscribeTasks()
}

// maxCustomParams bounds the params of task types outside the catalog (bytes of JSON).
const maxCustomParams = 20_000

// loadTask reads a task, as not_found when missing.
func loadTask(tx *store.Tx, id string) (*axp.TaskRecord, error) {
	t, err := tx.Task(id)
	if err != nil {
		return nil, err
	}
	if t == nil {
		return nil, axp.NotFound("task", id)
	}
	return t, nil
}

func tokenHash(token string) string {
	h := sha256.Sum256([]byte(token))
	return hex.EncodeToString(h[:])
}

// asBuyer checks that the caller acts for the task's buyer: the buyer token (query or Bearer), or
// the member secret of the buyer member who posted it.
func asBuyer(t *axp.TaskRecord, c axp.Caller) error {
	if c.Kind == axp.MemberCall && t.BuyerMemberID != "" && c.MemberID == t.BuyerMemberID {
		return nil
	}
	if c.Token == "" {
		if c.Kind == axp.MemberCall {
			return axp.Forbidden("you are not the buyer of this task", "use the task's buyer_token as ?token=")
		}
		return axp.Unauthorized("this step needs the task's buyer token", "send ?token=<buyer_token> or Authorization: Bearer <buyer_token>")
	}
	want, _ := hex.DecodeString(t.BuyerTokenHash)
	got := sha256.Sum256([]byte(c.Token))
	if !hmac.Equal(got[:], want) {
		return axp.Unauthorized("the buyer token does not match this task", "use the buyer_token returned when the task was created")
	}
	return nil
}

// asSeller checks that the caller is the chosen seller of the task.
func asSeller(t *axp.TaskRecord, c axp.Caller) error {
	if c.Kind != axp.MemberCall {
		return axp.Unauthorized("this step needs the chosen seller's member secret", "send Authorization: Bearer <member_secret>")
	}
	if t.SellerID == "" || c.MemberID != t.SellerID {
		return axp.Forbidden("you are not the chosen seller of this task", "only the seller whose offer was chosen may do this")
	}
	return nil
}

// event appends a timeline event to the task in the change's transaction.
func (c *change) event(t *axp.TaskRecord, kind string, detail map[string]any) error {
	return c.tx.AppendEvent(t, axp.Event{At: c.now, Kind: kind, Actor: c.actor, Status: t.Status, Detail: detail})
}

// save stores a task moved from status prev, with its timeline event and audit record.
func (c *change) save(t *axp.TaskRecord, prev, action string, detail map[string]any) error {
	if err := c.event(t, action, detail); err != nil {
		return err
	}
	if err := c.tx.PutTask(t, prev); err != nil {
		return err
	}
	d := map[string]any{"status": t.Status}
	if prev != "" && prev != t.Status {
		d["from"] = prev
	}
	for k, v := range detail {
		d[k] = v
	}
	return c.audit("task."+action, "task", t.ID, d)
}

// --- creation ---

func (d *Daemon) createTask(ctx context.Context, c *pipeline.Call, in *axp.NewTask) (*axp.CreatedTask, error) {
	fromQuery := c.FromQuery
	t, questions, err := d.newTask(c.Caller, in, fromQuery)
	if err != nil {
		return nil, err
	}
	if err := d.checkListing(ctx, c.Caller, t); err != nil {
		return nil, err
	}
	token := "bt_" + axp.RandomHex(24)
	t.BuyerTokenHash = tokenHash(token)
	// With an Idempotency-Key, the record is written with the task: a retry after a crash (or
	// while the quote round runs) finds the task, not a second one; it answers with the task as it
	// is then and the same buyer token.
	var pushSellers []*axp.Member
	if _, err := d.mutate(ctx, c.Caller.Actor(), func(ch *change) (any, error) {
		t.CreatedAt, t.UpdatedAt = ch.now, ch.now
		t.OpenUntil = ch.now.Add(d.cfg.OpenWindow)
		if err := d.cleanBrief(ch, t); err != nil {
			return nil, err
		}
		if pushSellers, err = d.instantOffers(ch, t); err != nil {
			return nil, err
		}
		detail := map[string]any{"type": t.Type, "payment_method": t.PaymentMethod,
			"buyer": buyerLabel(t), "token_fp": protocol.Fingerprint(token)}
		if t.Screening != nil {
			detail["screening"] = t.Screening
		}
		if err := ch.answerWithTask(t.ID, &axp.CreatedTask{BuyerToken: token, Questions: questions}); err != nil {
			return nil, err
		}
		return nil, ch.save(t, "", "create", detail)
	}); err != nil {
		return nil, err
	}
	d.log.InfoContext(ctx, "task posted", "source", "tasks", "task", t.ID, "type", t.Type, "token_fp", protocol.Fingerprint(token))
	d.quoteRound(ctx, t.ID, pushSellers, false)
	if t.AutoChoose != "" {
		if err := d.autoChoose(ctx, t.ID); err != nil {
			d.log.WarnContext(ctx, "auto choose failed", "source", "tasks", "task", t.ID, "err", err)
		}
	}
	out := &axp.CreatedTask{BuyerToken: token, Questions: questions}
	var notices []notice
	if err := d.db.View(func(tx *store.Tx) error {
		cur, err := loadTask(tx, t.ID)
		if err != nil {
			return err
		}
		out.Task, err = d.view(tx, cur, c.Caller, viewBuyer)
		if err == nil && cur.Status == axp.TaskOpen && len(out.Offers) > 0 {
			// The collected offers go to a buyer member's receive_offers and the callback URL.
			ch := &change{tx: tx, ctx: ctx, now: d.now(), events: d.events}
			d.offerNotices(ch, cur, out.Offers)
			notices = ch.notices
		}
		return err
	}); err != nil {
		return nil, err
	}
	d.send(ctx, notices)
	return out, nil
}

func buyerLabel(t *axp.TaskRecord) string {
	if t.BuyerMemberID != "" {
		return "member:" + t.BuyerMemberID
	}
	return "anonymous"
}

// newTask validates a new task and builds its record (not yet stored).
func (d *Daemon) newTask(c axp.Caller, in *axp.NewTask, fromQuery bool) (*axp.TaskRecord, []string, error) {
	if err := d.checkTarget("callback_url", in.CallbackURL); err != nil {
		return nil, nil, err
	}
	// Sellers read agent_name as the anonymous buyer's name.
	if err := axp.CheckName("agent_name", in.AgentName); err != nil {
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
		if _, has := params["prompt"]; !has && desc != "" && hasParam(svc, "prompt") {
			params["prompt"] = desc
		}
		if typ == "translation" && desc != "" && params["text"] == nil && params["source_url"] == nil {
			params["text"] = desc
		}
		norm, err := svc.Normalize(params, fromQuery, paramsField(fromQuery))
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
	t := &axp.TaskRecord{ID: axp.NewID("tsk", d.now()), Type: typ, Description: desc, Params: params,
		DeadlineMinutes: in.DeadlineMinutes, AutoChoose: in.AutoChoose, PaymentMethod: in.PaymentMethod,
		PreferredPayment: in.PreferredPayment, Contact: in.Contact, CallbackURL: in.CallbackURL, AgentName: in.AgentName,
		Questions: questions, Status: axp.TaskOpen}
	if t.PaymentMethod == "" {
		t.PaymentMethod = axp.PayCrypto
	}
	if d.chain != nil {
		t.PostedBlock = d.chain.LastHead()
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
	if err := d.invites(t, in.InviteSellers.Value()); err != nil {
		return nil, nil, err
	}
	return t, questions, nil
}

// invites resolves invite_sellers: "favourites" (a buyer member's list) or seller ids.
func (d *Daemon) invites(t *axp.TaskRecord, v any) error {
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
		m, err := d.member(t.BuyerMemberID)
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
		return d.db.View(func(tx *store.Tx) error {
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

// matches reports whether a seller takes part in the quote round of a task (DESIGN.md section 4).
func matches(m *axp.Member, t *axp.TaskRecord) (*axp.Skill, bool) {
	if !matchable(m) || m.ID == t.BuyerMemberID || !m.Accepts(t.PaymentMethod) {
		return nil, false
	}
	if t.InviteMode != "" {
		invited := false
		for _, id := range t.Invited {
			if id == m.ID {
				invited = true
				break
			}
		}
		if !invited {
			return nil, false
		}
	}
	for i := range m.Skills {
		if m.Skills[i].TaskType == t.Type {
			return &m.Skills[i], true
		}
	}
	return nil, false
}

// instantOffers turns the standing prices of matching sellers into offers, in the creating
// transaction. It returns the matching push sellers too, read in the same pass: those the task's
// quote round asks (never nil).
func (d *Daemon) instantOffers(ch *change, t *axp.TaskRecord) ([]*axp.Member, error) {
	var skills []struct {
		m *axp.Member
		s axp.Skill
	}
	push := []*axp.Member{}
	if err := ch.tx.SellersFor(t.Type, func(m *axp.Member) bool {
		s, ok := matches(m, t)
		switch {
		case !ok:
		case s.Instant():
			skills = append(skills, struct {
				m *axp.Member
				s axp.Skill
			}{m, *s})
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
		if err := d.storeAnswer(ch, t, x.m, a, true, false, 0); err != nil {
			return nil, err
		}
	}
	return push, nil
}

// storeAnswer records a seller's answer on an open task (replacing any earlier one), with the fee
// of the moment frozen on the offer.
func (d *Daemon) storeAnswer(ch *change, t *axp.TaskRecord, m *axp.Member, a protocol.QuoteAnswer, instant, pull bool, latency int64) error {
	sc, err := d.cleanAnswer(ch, t, m.ID, &a, instant)
	if err != nil {
		return err
	}
	q := &axp.QuoteRecord{TaskID: t.ID, SellerID: m.ID, SellerName: m.Name, Kind: a.Kind(), Answer: a,
		Instant: instant, Pull: pull, LatencyMS: latency, Screening: sc, CreatedAt: ch.now}
	if q.Kind == "price" {
		bps, _ := d.cfg.Fees.At(ch.now)
		q.Fee = axp.FeeFor(*a.PriceUSD, bps)
		q.OfferID = axp.NewID("ofr", ch.now)
	}
	if err := ch.tx.PutQuote(q); err != nil {
		return err
	}
	if !instant && latency > 0 {
		st, err := ch.tx.SellerStats(m.ID)
		if err != nil {
			return err
		}
		st.AddQuoteLatency(latency)
		if err := ch.tx.PutSellerStats(st); err != nil {
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
	return ch.event(t, "quote", detail)
}
