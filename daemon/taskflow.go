package daemon

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/axp-exchange/axp"
	"github.com/axp-exchange/axp/daemon/chain"
	"github.com/axp-exchange/axp/daemon/pipeline"
	"github.com/axp-exchange/axp/protocol"
	"github.com/axp-exchange/axp/store"
)

// audienceOf says how the caller sees a task: its buyer, its chosen seller, or a seller that may
// quote on it while it is open. Anyone else is refused.
func audienceOf(tx *store.Tx, t *axp.TaskRecord, c axp.Caller) (string, error) {
	buyerErr := asBuyer(t, c)
	if buyerErr == nil {
		return viewBuyer, nil
	}
	if c.Kind == axp.MemberCall {
		if c.MemberID == t.SellerID {
			return viewSeller, nil
		}
		if t.Status == axp.TaskOpen {
			m, err := tx.Member(c.MemberID)
			if err != nil {
				return "", err
			}
			if m != nil {
				if _, ok := matches(m, t); ok {
					return viewSeller, nil
				}
			}
		}
	}
	return "", buyerErr
}

func (d *Daemon) getTask(ctx context.Context, c *pipeline.Call, in *axp.TaskQuery) (*axp.Task, error) {
	var out axp.Task
	err := d.db.View(func(tx *store.Tx) error {
		t, err := loadTask(tx, in.ID)
		if err != nil {
			return err
		}
		aud, err := audienceOf(tx, t, c.Caller)
		if err != nil {
			return err
		}
		if aud == viewSeller {
			out, err = d.quoteView(tx, t, c.Caller, buyerRefs{})
		} else {
			out, err = d.view(tx, t, c.Caller, aud)
		}
		if in.Sort != "" {
			axp.RankOffers(out.Offers, in.Sort)
		}
		return err
	})
	return &out, err
}

// taskChange loads a task inside a change, checks the caller with auth, runs fn and answers the
// buyer's or seller's view of the result.
func (d *Daemon) taskChange(ctx context.Context, c *pipeline.Call, id string, auth func(*axp.TaskRecord, axp.Caller) error,
	audience string, fn func(ch *change, t *axp.TaskRecord) error) (any, error) {
	return d.mutate(ctx, c.Caller.Actor(), func(ch *change) (any, error) {
		t, err := loadTask(ch.tx, id)
		if err != nil {
			return nil, err
		}
		if err := auth(t, c.Caller); err != nil {
			return nil, err
		}
		if err := fn(ch, t); err != nil {
			return nil, err
		}
		v, err := d.view(ch.tx, t, c.Caller, audience)
		return &v, err
	})
}

// cancelTask withdraws a task before its job starts (open or awaiting payment). A task that holds
// a payment no job used (the seller refused the job and the task went back to open) is cancelled
// with a refund for the operator to approve. A reported payment still awaiting confirmation stops
// the cancel: the operator decides it first.
func (d *Daemon) cancelTask(ctx context.Context, c *pipeline.Call, in *axp.CancelInput) (*axp.Task, error) {
	return as[axp.Task](d.taskChange(ctx, c, in.ID, asBuyer, viewBuyer, func(ch *change, t *axp.TaskRecord) error {
		if t.Status == axp.TaskAwaitingPayment && t.TxHash != "" {
			return axp.Conflict("a payment ("+t.TxHash+") was reported for this task and awaits the operator's confirmation",
				"wait for the confirmation (the job then starts) or the rejection (then cancel)")
		}
		prev := t.Status
		if err := t.Move(axp.TrigCancel, "", ch.now); err != nil {
			return err
		}
		reason, sc, err := d.cleanText(ch, buyerParty(t), "cancel_reason", strings.TrimSpace(in.Reason), false)
		if err != nil {
			return err
		}
		detail := map[string]any{}
		if reason != "" {
			detail["reason"] = reason
		}
		if sc != nil {
			detail["screening"] = sc
		}
		if err := d.refundUnused(ch, t, "the buyer cancelled a task holding a payment no job used: refund the buyer", detail); err != nil {
			return err
		}
		if err := ch.save(t, prev, "cancel", detail); err != nil {
			return err
		}
		d.statusNotices(ch, t)
		return nil
	}))
}

// --- choosing and paying ---

func (d *Daemon) chooseOffer(ctx context.Context, c *pipeline.Call, in *axp.ChooseInput) (*axp.Task, error) {
	return as[axp.Task](d.taskChange(ctx, c, in.ID, asBuyer, viewBuyer, func(ch *change, t *axp.TaskRecord) error {
		return d.choose(ch, t, in.OfferID)
	}))
}

// choose moves an open task to the chosen offer: awaiting payment, or paid at once for free jobs
// (and for tasks already funded by an earlier payment that covers the new price).
func (d *Daemon) choose(ch *change, t *axp.TaskRecord, offerID string) error {
	q, err := ch.tx.OfferByID(offerID)
	if err != nil {
		return err
	}
	if q == nil || q.TaskID != t.ID || q.Kind != "price" {
		return axp.Invalid("offer_id", fmt.Sprintf("%q is not a live offer on this task", offerID), "use an offer_id from GET /api/tasks/"+t.ID)
	}
	if q.Answer.ValidUntil != "" {
		if vu, err := time.Parse(time.RFC3339, q.Answer.ValidUntil); err == nil && !vu.After(ch.now) {
			return axp.Conflict("the offer expired at "+q.Answer.ValidUntil, "choose another offer")
		}
	}
	prev := t.Status
	// Funds already received cover the new price when they are short of it by no more than a
	// payable tag would have been (the platform gives that up out of its fee).
	funded := t.Received > 0
	covered := funded && t.Received >= *q.Answer.PriceUSD-axp.TagRoom(*q.Answer.PriceUSD, q.Fee.FeeBPS)
	f := t.Facts()
	f.Free = t.Free() || covered
	if err := t.MoveWith(axp.TrigChoose, f, ch.now); err != nil {
		return err
	}
	seller, err := loadMember(ch.tx, q.SellerID)
	if err != nil {
		return err
	}
	t.ChosenOfferID, t.SellerID, t.SellerName = q.OfferID, q.SellerID, q.SellerName
	t.Price, t.ETAMinutes, t.Fee = *q.Answer.PriceUSD, *q.Answer.ETAMinutes, q.Fee
	if covered {
		t.Tag = max(0, t.Price-t.Received)
	}
	if q.Answer.Guarantee != nil {
		t.FreeRedo, t.RefundIfFails = q.Answer.Guarantee.FreeRedo, q.Answer.Guarantee.RefundIfFailsChecks
	}
	if t.Status == axp.TaskAwaitingPayment && d.cfg.DepositAddress == "" {
		return axp.Errorf(axp.CodeUnavailable, "this exchange cannot take crypto payments yet: its operator has not set deposit_address").
			WithHint("choose a free offer, or ask the operator to set deposit_address (AXP_DEPOSIT_ADDRESS)")
	}
	if t.Status == axp.TaskAwaitingPayment {
		// A task back from a seller's refusal keeps what it received; its earlier transaction
		// is booked (and stays claimed), so the payment still due is reported with a new one.
		t.TxHash = ""
		// The tag makes the amount distinct among recent tasks; it is taken off the price, so the
		// buyer never pays more than the offer's buyer total (DESIGN.md section 15).
		newTag(ch.tx, t)
		t.DepositAddress = d.cfg.DepositAddress
		payBy := ch.now.Add(d.cfg.PaymentWindow)
		t.PayBy = &payBy
	}
	if err := ch.save(t, prev, "choose", map[string]any{"offer_id": q.OfferID, "seller": q.SellerID, "price_usd": t.Price}); err != nil {
		return err
	}
	if t.Status == axp.TaskPaid {
		return d.startJob(ch, t, seller)
	}
	return nil
}

// subscribeTasks: a confirmed payment starts the task's job.
func (d *Daemon) subscribeTasks() {
	on(d, func(ch *change, e paymentConfirmed) error { return d.startJob(ch, e.task, e.seller) })
}

// startJob records a funded job and asks a push seller to do it.
func (d *Daemon) startJob(ch *change, t *axp.TaskRecord, seller *axp.Member) error {
	st, err := ch.tx.SellerStats(seller.ID)
	if err != nil {
		return err
	}
	st.Jobs++
	if err := ch.tx.PutSellerStats(st); err != nil {
		return err
	}
	started := ch.now
	t.StartedAt = &started
	if err := ch.tx.PutTask(t, t.Status); err != nil {
		return err
	}
	ch.notify(d.doTaskNotice(t, seller))
	d.statusNotices(ch, t)
	return nil
}

func (d *Daemon) doTaskNotice(t *axp.TaskRecord, seller *axp.Member) notice {
	return notice{memberID: seller.ID, tool: "do_task", taskID: t.ID, input: protocol.DoTaskInput{
		TaskID: t.ID, TaskType: t.Type, Description: t.Brief(), Params: t.Params, PriceUSD: t.Price,
		ETAMinutes: t.ETAMinutes, DeliverURL: d.BaseURL() + "/api/members/me/jobs/" + t.ID + "/deliver",
		AcceptanceChecks: t.AcceptanceChecks, Screening: t.Screening, Test: t.Test}}
}

// statusNotices queues task_update to both parties and the task's callback URL.
func (d *Daemon) statusNotices(ch *change, t *axp.TaskRecord) {
	in := protocol.TaskUpdateInput{TaskID: t.ID, Status: t.Status, AutoReleaseAt: rfc3339(t.AutoReleaseAt), Test: t.Test}
	if dl := t.LastDelivery(); dl != nil {
		in.Deliverable = d.deliverableRef(t, dl)
	}
	if t.BuyerMemberID != "" {
		ch.notify(notice{memberID: t.BuyerMemberID, tool: "task_update", taskID: t.ID, input: in})
	}
	if t.SellerID != "" {
		ch.notify(notice{memberID: t.SellerID, tool: "task_update", taskID: t.ID, input: in})
	}
	if t.CallbackURL != "" {
		ch.notify(d.callback(ch, t, map[string]any{"event": "task_update", "task_update": in}))
	}
}

// autoChoose picks the cheapest or fastest offer when the quote window closes.
func (d *Daemon) autoChoose(ctx context.Context, id string) error {
	_, err := d.mutate(ctx, "system", func(ch *change) (any, error) {
		t, err := loadTask(ch.tx, id)
		if err != nil || t.Status != axp.TaskOpen {
			return nil, err
		}
		offs, _, _, err := offers(ch.tx, t, ch.now)
		if err != nil || len(offs) == 0 {
			return nil, err
		}
		by := "price"
		if t.AutoChoose == "fastest" {
			by = "eta"
		}
		axp.RankOffers(offs, by)
		return nil, d.choose(ch, t, offs[0].OfferID)
	})
	return err
}

func (d *Daemon) payCrypto(ctx context.Context, c *pipeline.Call, in *axp.PayCryptoInput) (*axp.PaymentReport, error) {
	var out *axp.PaymentReport
	var receipt chain.Receipt
	if d.chain != nil {
		// The evm verifier looks at the transaction first: what the chain already refutes is
		// refused and nothing is recorded.
		var t *axp.TaskRecord
		var credited bool
		err := d.db.View(func(tx *store.Tx) error {
			var err error
			if t, err = loadTask(tx, in.ID); err == nil {
				err = asBuyer(t, c.Caller)
			}
			credited = tx.TxHashTask(in.TxHash) == in.ID
			return err
		})
		if err != nil {
			return nil, err
		}
		if t.Status == axp.TaskAwaitingPayment && !credited {
			if receipt, err = d.checkReport(ctx, t, strings.ToLower(in.TxHash)); err != nil {
				return nil, err
			}
		}
	}
	_, err := d.mutate(ctx, c.Caller.Actor(), func(ch *change) (any, error) {
		t, err := loadTask(ch.tx, in.ID)
		if err != nil {
			return nil, err
		}
		if err := asBuyer(t, c.Caller); err != nil {
			return nil, err
		}
		if t.Status != axp.TaskAwaitingPayment {
			return nil, axp.Conflict("the task is "+t.Status+"; payment is reported while it is awaiting_payment", "")
		}
		if t.TxHash != "" && !strings.EqualFold(t.TxHash, in.TxHash) {
			return nil, axp.Conflict("a payment ("+t.TxHash+") was already reported for this task and awaits confirmation", "wait for the operator's confirmation")
		}
		// With a chain, the transfer's amount decides which task it pays when it is credited (a
		// report claims nothing, so it never blocks the task the money was meant for); the
		// operator's confirmation (manual verifier) goes to the task that claimed the hash first.
		other := ch.tx.TxHashTask(in.TxHash)
		if d.chain == nil && other == "" {
			other, err = ch.tx.ClaimTxHash(in.TxHash, t.ID)
			if err != nil {
				return nil, err
			}
		}
		if other != "" && other != t.ID {
			return nil, axp.Conflict("this transaction already funds another task", "one transaction funds one task: send a new payment")
		}
		if other == t.ID && !strings.EqualFold(t.TxHash, in.TxHash) {
			// Credited already (a part payment the watcher found first): nothing to wait for; the
			// answer says what was received and what is still due.
			v, err := d.view(ch.tx, t, c.Caller, viewBuyer)
			out = &axp.PaymentReport{TaskID: t.ID, Status: t.Status, Payment: v.Payment, Verifier: d.verifier.Name(),
				Message: "This transaction was already credited to the task."}
			return out, err
		}
		first := t.TxHash == ""
		t.TxHash, t.UpdatedAt = strings.ToLower(in.TxHash), ch.now
		if first {
			a := &axp.Approval{ID: axp.NewID("apr", ch.now), Kind: axp.ApprovePayment, Status: axp.ApprovalPending,
				TaskID: t.ID, TaskType: t.Type, Amount: t.Payable, PriceUSD: t.Price, BuyerID: buyerLabel(t),
				SellerID: t.SellerID, SellerName: t.SellerName, TxHash: t.TxHash,
				Reason:    fmt.Sprintf("confirm that %s of the stablecoin reached %s in %s", t.Payable.Display(), orUnset(t.DepositAddress), t.TxHash),
				CreatedAt: ch.now}
			if err := ch.tx.PutApproval(a); err != nil {
				return nil, err
			}
			if err := ch.save(t, t.Status, "payment_reported", map[string]any{"tx_hash": t.TxHash, "approval_id": a.ID}); err != nil {
				return nil, err
			}
		}
		v, err := d.view(ch.tx, t, c.Caller, viewBuyer)
		out = &axp.PaymentReport{TaskID: t.ID, Status: t.Status, Payment: v.Payment, Verifier: d.verifier.Name(),
			Message: "Payment reported; the job starts when it is confirmed."}
		return out, err
	})
	if err != nil {
		return nil, err
	}
	if d.chain == nil {
		d.verifyPayment(ctx, in.ID, strings.ToLower(in.TxHash))
		return out, nil
	}
	msg := "Payment reported; the chain shows it, and the job starts once it has %d confirmations (the exchange checks by itself)."
	if !receipt.Found {
		msg = "Payment reported; the transaction is not mined yet. The job starts once it is, with %d confirmations (the exchange checks by itself)."
	} else if receipt.Confirmations >= d.chain.Confirmations() {
		d.checkReported(ctx, in.ID, strings.ToLower(in.TxHash))
	}
	err = d.db.View(func(tx *store.Tx) error {
		t, err := loadTask(tx, in.ID)
		if err != nil {
			return err
		}
		v, err := d.view(tx, t, c.Caller, viewBuyer)
		m := &axp.PaymentReport{TaskID: t.ID, Status: t.Status, Payment: v.Payment, Verifier: d.verifier.Name(),
			Message: fmt.Sprintf(msg, d.chain.Confirmations())}
		switch {
		case t.Status != axp.TaskAwaitingPayment:
			m.Message = "Payment confirmed on chain; the job has started."
		case v.Payment != nil && v.Payment.MissingUSD > 0:
			m.Message = fmt.Sprintf("The transaction paid part of the task: %s is still due; send it to the deposit address (payable_usd shows the exact amount).", v.Payment.MissingUSD.Display())
		}
		out = m
		return err
	})
	return out, err
}

func orUnset(s string) string {
	if s == "" {
		return "the exchange's deposit address"
	}
	return s
}

// --- seller side ---

// quoteRequestsMax caps the tasks list_quote_requests answers with.
const quoteRequestsMax = 200

func (d *Daemon) listQuoteRequests(ctx context.Context, c *pipeline.Call) (*axp.TaskList, error) {
	out := &axp.TaskList{Tasks: []axp.Task{}}
	err := d.db.View(func(tx *store.Tx) error {
		m, err := loadMember(tx, c.Caller.MemberID)
		if err != nil {
			return err
		}
		if p := m.Practice; p != nil && p.Answer == nil && d.now().Before(p.ExpiresAt) {
			out.Tasks = append(out.Tasks, practiceView(m))
		}
		out.Tasks = append(out.Tasks, d.sandboxViews(tx, m.ID, axp.SandboxQuote)...)
		if m.State != axp.MemberVerified {
			if len(out.Tasks) > 0 {
				return nil
			}
			return axp.Forbidden("only verified sellers get quote requests", "POST /api/members/me/verify first")
		}
		// The open tasks of the seller's skills' types (store.OpenTaskIDs), oldest first: at most
		// quoteRequestsMax of each type are read past the ones it does not match.
		var open []*axp.TaskRecord
		types := map[string]bool{}
		for _, s := range m.Skills {
			if types[s.TaskType] {
				continue
			}
			types[s.TaskType] = true
			n := 0
			var err error
			tx.OpenTaskIDs(s.TaskType, func(id string) bool {
				var t *axp.TaskRecord
				if t, err = tx.Task(id); err != nil {
					return false
				}
				if t == nil || t.Status != axp.TaskOpen {
					return true
				}
				if _, ok := matches(m, t); ok {
					open = append(open, t)
					n++
				}
				return n < quoteRequestsMax
			})
			if err != nil {
				return err
			}
		}
		sort.Slice(open, func(i, j int) bool { return open[i].ID < open[j].ID })
		refs := buyerRefs{}
		for _, t := range open[:min(len(open), max(quoteRequestsMax-len(out.Tasks), 0))] {
			v, err := d.quoteView(tx, t, c.Caller, refs)
			if err != nil {
				return err
			}
			out.Tasks = append(out.Tasks, v)
		}
		return nil
	})
	return out, err
}

// pullLatency is how long a pull seller took to answer: from when the task became visible to it
// (posted, answered after clarification, or the seller verified since) to now. Only a first answer
// counts (0 otherwise): a replaced offer says nothing of quoting speed.
func pullLatency(ch *change, t *axp.TaskRecord, m *axp.Member) (int64, error) {
	if q, err := ch.tx.Quote(t.ID, m.ID); err != nil || q != nil {
		return 0, err
	}
	visible := t.CreatedAt
	if n := len(t.Clarified); n > 0 && t.Clarified[n-1].At.After(visible) {
		visible = t.Clarified[n-1].At
	}
	if m.VerifiedAt != nil && m.VerifiedAt.After(visible) {
		visible = *m.VerifiedAt
	}
	return max(ch.now.Sub(visible).Milliseconds(), 1), nil
}

func (d *Daemon) submitOffer(ctx context.Context, c *pipeline.Call, in *axp.OfferInput) (*axp.Offer, error) {
	id := c.Path["id"]
	if strings.HasPrefix(id, practicePrefix) {
		return as[axp.Offer](d.answerPractice(ctx, c, id, in.QuoteAnswer))
	}
	if strings.HasPrefix(id, sandboxPrefix) {
		return as[axp.Offer](d.sandboxOffer(ctx, c, id, in.QuoteAnswer))
	}
	var offer any
	_, err := d.mutate(ctx, c.Caller.Actor(), func(ch *change) (any, error) {
		t, err := loadTask(ch.tx, id)
		if err != nil {
			return nil, err
		}
		m, err := loadMember(ch.tx, c.Caller.MemberID)
		if err != nil {
			return nil, err
		}
		if _, ok := matches(m, t); !ok {
			return nil, axp.Forbidden("you cannot quote on this task", "quotes come from verified sellers with a skill of this task type who accept its payment method (and are invited, if the buyer invited sellers)")
		}
		if _, err := axp.Next(t.Status, axp.TrigQuote, t.Facts()); err != nil {
			return nil, err
		}
		if err := in.QuoteAnswer.Check(t.Free(), ch.now); err != nil {
			return nil, err
		}
		latency, err := pullLatency(ch, t, m)
		if err != nil {
			return nil, err
		}
		if err := d.storeAnswer(ch, t, m, in.QuoteAnswer, false, true, latency); err != nil {
			return nil, err
		}
		if err := ch.tx.PutTask(t, t.Status); err != nil {
			return nil, err
		}
		if err := ch.audit("task.quote", "task", t.ID, map[string]any{"seller": m.ID, "kind": in.QuoteAnswer.Kind()}); err != nil {
			return nil, err
		}
		q, err := ch.tx.Quote(t.ID, m.ID)
		if err != nil {
			return nil, err
		}
		offs, _, _, err := offers(ch.tx, t, ch.now)
		if err != nil {
			return nil, err
		}
		for _, o := range offs {
			if o.OfferID == q.OfferID && q.OfferID != "" {
				offer = o
				d.offerNotices(ch, t, []axp.Offer{o})
				return nil, nil
			}
		}
		offer = map[string]any{"task_id": t.ID, "kind": q.Kind, "recorded": true}
		return nil, nil
	})
	return as[axp.Offer](offer, err)
}

// offerNotices pushes offers that arrive after creation to a buyer member and the callback URL.
func (d *Daemon) offerNotices(ch *change, t *axp.TaskRecord, offs []axp.Offer) {
	in := protocol.ReceiveOffersInput{TaskID: t.ID, ChooseURL: d.BaseURL() + "/api/tasks/" + t.ID + "/choose", Test: t.Test}
	// Buyers that do not sell yet are invited to (spec 6), like in every answer they read.
	buyer := axp.Caller{Kind: axp.Anonymous}
	if t.BuyerMemberID != "" {
		if m, err := ch.tx.Member(t.BuyerMemberID); err == nil && m != nil {
			buyer = axp.Caller{Kind: axp.MemberCall, MemberID: m.ID, Roles: m.Roles}
		}
	}
	in.AlsoSell = d.alsoSell(buyer)
	for _, o := range offs {
		in.Offers = append(in.Offers, protocol.OfferSummary{OfferID: o.OfferID, Seller: o.Seller, PriceUSD: o.PriceUSD, ETAMinutes: o.ETAMinutes, Note: o.Note, Screening: o.Screening})
	}
	if t.BuyerMemberID != "" {
		ch.notify(notice{memberID: t.BuyerMemberID, tool: "receive_offers", taskID: t.ID, input: in})
	}
	if t.CallbackURL != "" {
		ch.notify(d.callback(ch, t, map[string]any{"event": "offers", "offers": in}))
	}
}

func (d *Daemon) listJobs(ctx context.Context, c *pipeline.Call, in *axp.JobsQuery) (*axp.TaskList, error) {
	out := &axp.TaskList{Tasks: []axp.Task{}}
	err := d.db.View(func(tx *store.Tx) error {
		out.Tasks = append(out.Tasks, d.sandboxViews(tx, c.Caller.MemberID, axp.SandboxWork)...)
		// The default list reads the index of active jobs, not the seller's whole history.
		ids := tx.SellerActiveJobIDs(c.Caller.MemberID)
		if in.Status == "all" {
			ids = tx.SellerJobIDs(c.Caller.MemberID)
		}
		for i := len(ids) - 1; i >= 0; i-- {
			t, err := tx.Task(ids[i])
			if err != nil || t == nil || t.SellerID != c.Caller.MemberID {
				continue
			}
			if in.Status != "all" && !axp.ActiveJob(t.Status) {
				continue
			}
			v, err := d.view(tx, t, c.Caller, viewSeller)
			if err != nil {
				return err
			}
			out.Tasks = append(out.Tasks, v)
		}
		return nil
	})
	return out, err
}

// listMyTasks answers a page of the buyer member's tasks, newest first (the buyer_tasks index,
// read from the cursor on).
func (d *Daemon) listMyTasks(ctx context.Context, c *pipeline.Call, in *axp.MyTasksQuery) (*axp.TaskList, error) {
	if in.Cursor != "" && !strings.HasPrefix(in.Cursor, "tsk_") {
		return nil, axp.Invalid("cursor", "is not a cursor of this list", "pass the next_cursor of the previous page, or leave it out")
	}
	limit := in.Limit
	if limit <= 0 {
		limit = axp.MyTasksPageDefault
	}
	limit = min(limit, axp.MyTasksPageMax)
	out := &axp.TaskList{Tasks: []axp.Task{}}
	err := d.db.View(func(tx *store.Tx) error {
		ids, more := tx.BuyerTaskIDsPage(c.Caller.MemberID, in.Cursor, limit)
		if more {
			out.NextCursor = ids[len(ids)-1]
		}
		for _, id := range ids {
			t, err := tx.Task(id)
			if err != nil || t == nil {
				continue
			}
			v, err := d.view(tx, t, c.Caller, viewBuyer)
			if err != nil {
				return err
			}
			out.Tasks = append(out.Tasks, v)
		}
		return nil
	})
	return out, err
}

func (d *Daemon) getTimeline(ctx context.Context, c *pipeline.Call, in *axp.TaskRef) (*axp.Timeline, error) {
	out := &axp.Timeline{TaskID: in.ID}
	err := d.db.View(func(tx *store.Tx) error {
		t, err := loadTask(tx, in.ID)
		if err != nil {
			return err
		}
		if err := asBuyer(t, c.Caller); err != nil {
			if c.Caller.Kind != axp.MemberCall || c.Caller.MemberID != t.SellerID {
				return err
			}
		}
		out.Events, err = tx.Events(t.ID)
		return err
	})
	return out, err
}
