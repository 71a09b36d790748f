package tasks

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/axp-exchange/axp"
	"github.com/axp-exchange/axp/daemon/chain"
	"github.com/axp-exchange/axp/daemon/kernel"
	"github.com/axp-exchange/axp/daemon/members"
	"github.com/axp-exchange/axp/daemon/money"
	"github.com/axp-exchange/axp/daemon/pipeline"
	"github.com/axp-exchange/axp/daemon/screening"
	"github.com/axp-exchange/axp/protocol"
	"github.com/axp-exchange/axp/store"
)

func (s *Service) getTask(ctx context.Context, c *pipeline.Call, in *axp.TaskQuery) (*axp.Task, error) {
	var out axp.Task
	err := s.base.Store.View(func(tx *store.Tx) error {
		// The pipeline checked the caller against the task (Owner: TaskAudience) and kept what it
		// read: the task is decoded once, and its side is the one the pipeline admitted.
		t, side, err := kernel.LoadOwned(tx, c, in.ID)
		if err != nil {
			return err
		}
		aud := kernel.ViewBuyer
		if side == axp.SideSeller {
			aud = kernel.ViewSeller
		}
		if aud == kernel.ViewSeller {
			out, err = s.quoteView(tx, t, c.Caller, buyerRefs{})
		} else {
			out, err = s.View(tx, t, c.Caller, aud)
		}
		if in.Sort != "" {
			axp.RankOffers(out.Offers, in.Sort)
		}
		return err
	})
	return &out, err
}

// taskChange loads a task inside a change, checks the caller against the operation's owner, runs fn and answers the
// buyer's or seller's view of the result.
func (s *Service) taskChange(ctx context.Context, c *pipeline.Call, id string,
	audience string, fn func(ch *kernel.Change, t *axp.TaskRecord) error) (*axp.Task, error) {
	return kernel.Apply(s.base, ctx, c, func(ch *kernel.Change) (*axp.Task, error) {
		t, _, err := kernel.LoadOwned(ch.Tx, c, id)
		if err != nil {
			return nil, err
		}
		if err := fn(ch, t); err != nil {
			return nil, err
		}
		v, err := s.View(ch.Tx, t, c.Caller, audience)
		return &v, err
	})
}

// cancelTask withdraws a task before its job starts (open or awaiting payment). A task that holds
// a payment no job used (the seller refused the job and the task went back to open) is cancelled
// with a refund for the operator to approve. A reported payment still awaiting confirmation stops
// the cancel: the operator decides it first.
func (s *Service) cancelTask(ctx context.Context, c *pipeline.Call, in *axp.CancelInput) (*axp.Task, error) {
	return s.taskChange(ctx, c, in.ID, kernel.ViewBuyer, func(ch *kernel.Change, t *axp.TaskRecord) error {
		if t.Status == axp.TaskAwaitingPayment && t.TxHash != "" {
			return axp.Conflict("a payment ("+t.TxHash+") was reported for this task and awaits the operator's confirmation",
				"wait for the confirmation (the job then starts) or the rejection (then cancel)")
		}
		prev := t.Status
		if err := t.Move(axp.TrigCancel, "", ch.Now); err != nil {
			return err
		}
		reason, sc, err := s.screen.CleanText(ch, screening.BuyerParty(t), "cancel_reason", strings.TrimSpace(in.Reason), false)
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
		if err := s.refundUnused(ch, t, "the buyer cancelled a task holding a payment no job used: refund the buyer", detail); err != nil {
			return err
		}
		if err := ch.Save(t, prev, "cancel", detail); err != nil {
			return err
		}
		s.notices.StatusNotices(ch, t)
		return nil
	})
}

func (s *Service) chooseOffer(ctx context.Context, c *pipeline.Call, in *axp.ChooseInput) (*axp.Task, error) {
	return s.taskChange(ctx, c, in.ID, kernel.ViewBuyer, func(ch *kernel.Change, t *axp.TaskRecord) error {
		return s.choose(ch, t, in.OfferID)
	})
}

// choose moves an open task to the chosen offer: awaiting payment, or paid at once for free jobs
// (and for tasks already funded by an earlier payment that covers the new price).
func (s *Service) choose(ch *kernel.Change, t *axp.TaskRecord, offerID string) error {
	q, err := ch.Tx.OfferByID(offerID)
	if err != nil {
		return err
	}
	if q == nil || q.TaskID != t.ID || q.Kind != "price" {
		return axp.Invalid("offer_id", fmt.Sprintf("%q is not a live offer on this task", offerID), "use an offer_id from GET /api/tasks/"+t.ID)
	}
	if q.Answer.ValidUntil != "" {
		if vu, err := time.Parse(time.RFC3339, q.Answer.ValidUntil); err == nil && !vu.After(ch.Now) {
			return axp.Conflict("the offer expired at "+q.Answer.ValidUntil, "choose another offer")
		}
	}
	if err := money.BoundToSeller(t); err != nil {
		return err
	}
	prev := t.Status
	// Funds already received cover the new price when they are short of it by no more than a
	// payable tag would have been (the platform gives that up out of its fee).
	funded := t.Received > 0
	covered := funded && t.Received >= *q.Answer.PriceUSD-axp.TagRoom(*q.Answer.PriceUSD, q.Fee.FeeBPS)
	f := t.Facts()
	f.Free = t.Free() || covered
	if err := t.MoveWith(axp.TrigChoose, f, ch.Now); err != nil {
		return err
	}
	seller, err := kernel.LoadMember(ch.Tx, q.SellerID)
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
	if t.Status == axp.TaskAwaitingPayment && s.base.Cfg().DepositAddress == "" {
		return axp.Errorf(axp.CodeUnavailable, "this exchange cannot take crypto payments yet: its operator has not set deposit_address").
			WithHint("choose a free offer, or ask the operator to set deposit_address (AXP_DEPOSIT_ADDRESS)")
	}
	if t.Status == axp.TaskAwaitingPayment {
		// A task back from a seller's refusal keeps what it received; its earlier transaction
		// is booked (and stays claimed), so the payment still due is reported with a new one.
		t.TxHash = ""
		// The tag makes the amount distinct among recent tasks; it is taken off the price, so the
		// buyer never pays more than the offer's buyer total (docs/design.md section 15).
		money.NewTag(ch.Tx, t)
		t.DepositAddress = s.base.Cfg().DepositAddress
		payBy := ch.Now.Add(s.base.Cfg().PaymentWindow)
		t.PayBy = &payBy
	}
	if t.Status == axp.TaskPaid {
		if err := s.startJob(ch, t, seller); err != nil {
			return err
		}
	}
	return ch.Save(t, prev, "choose", map[string]any{"offer_id": q.OfferID, "seller": q.SellerID, "price_usd": t.Price})
}

// subscribeTasks: a confirmed payment starts the task's job.
func (s *Service) subscribeTasks() {
	kernel.On(s.base, func(ch *kernel.Change, e kernel.PaymentConfirmed) error { return s.startJob(ch, e.Task, e.Seller) })
}

// startJob records a funded job and asks a push seller to do it. It sets the task's start but does
// not store the task: the change that funded it saves it once, after.
func (s *Service) startJob(ch *kernel.Change, t *axp.TaskRecord, seller *axp.Member) error {
	st, err := ch.Tx.SellerStats(seller.ID)
	if err != nil {
		return err
	}
	st.Jobs++
	if err := ch.Tx.PutSellerStats(st); err != nil {
		return err
	}
	started := ch.Now
	t.StartedAt = &started
	ch.Notify(s.notices.DoTaskNotice(t, seller))
	s.notices.StatusNotices(ch, t)
	return nil
}

// autoChoose picks the cheapest or fastest offer of task id when the quote window closes, in the
// change that closes it. The choice is the exchange's ("system"), whoever's change it is made in.
func (s *Service) autoChoose(ch *kernel.Change, id string) error {
	actor := ch.Actor
	ch.Actor = "system"
	defer func() { ch.Actor = actor }()
	t, err := kernel.LoadTask(ch.Tx, id)
	if err != nil || t.Status != axp.TaskOpen {
		return err
	}
	offs, _, _, err := offers(ch.Tx, t, ch.Now)
	if err != nil || len(offs) == 0 {
		return err
	}
	by := "price"
	if t.AutoChoose == "fastest" {
		by = "eta"
	}
	axp.RankOffers(offs, by)
	return s.choose(ch, t, offs[0].OfferID)
}

func (s *Service) payCrypto(ctx context.Context, c *pipeline.Call, in *axp.PayCryptoInput) (*axp.PaymentReport, error) {
	var out *axp.PaymentReport
	var receipt chain.Receipt
	var signer string
	if s.rail.Chain != nil && in.PayerSignature != "" {
		var err error
		msg := axp.PayerMessage(in.ID, s.rail.Chain.ChainID(), s.rail.Chain.Deposit())
		if signer, err = chain.TextSigner(msg, in.PayerSignature); err != nil {
			return nil, axp.Invalid("payer_signature", "is not a signature of the task's payer_message: "+err.Error(),
				"sign payment.payer_message (personal_sign) with the address the transfer came from")
		}
	}
	if s.rail.Chain != nil {
		// The evm verifier looks at the transaction first: what the chain already refutes is
		// refused and nothing is recorded.
		var t *axp.TaskRecord
		var credited bool
		err := s.base.Store.View(func(tx *store.Tx) error {
			var err error
			t, _, err = kernel.LoadOwned(tx, c, in.ID)
			credited = tx.TxHashTask(in.TxHash) == in.ID
			return err
		})
		if err != nil {
			return nil, err
		}
		if t.Status == axp.TaskAwaitingPayment && !credited {
			if receipt, err = s.money.CheckReport(ctx, t, strings.ToLower(in.TxHash), signer); err != nil {
				return nil, err
			}
		}
	}
	_, err := s.base.MutateCall(ctx, c, func(ch *kernel.Change) (any, error) {
		t, _, err := kernel.LoadOwned(ch.Tx, c, in.ID)
		if err != nil {
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
		other := ch.Tx.TxHashTask(in.TxHash)
		if s.rail.Chain == nil && other == "" {
			other, err = ch.Tx.ClaimTxHash(in.TxHash, t.ID)
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
			v, err := s.View(ch.Tx, t, c.Caller, kernel.ViewBuyer)
			out = &axp.PaymentReport{TaskID: t.ID, Status: t.Status, Payment: v.Payment, Verifier: s.rail.Verifier.Name(),
				Message: "This transaction was already credited to the task."}
			return out, err
		}
		bound := signer != "" && !slices.ContainsFunc(t.Payers, func(p string) bool { return strings.EqualFold(p, signer) })
		if bound {
			// The sender proved it pays this task: its transfers are credited here whatever their amount.
			t.Payers = append(t.Payers, signer)
		}
		first := t.TxHash == ""
		t.TxHash, t.UpdatedAt = strings.ToLower(in.TxHash), ch.Now
		if !first && bound {
			if err := ch.Save(t, t.Status, "payer_bound", map[string]any{"tx_hash": t.TxHash, "payer": signer}); err != nil {
				return nil, err
			}
		}
		if first {
			a := &axp.Approval{ID: axp.NewID("apr", ch.Now), Kind: axp.ApprovePayment, Status: axp.ApprovalPending,
				TaskID: t.ID, TaskType: t.Type, Amount: t.Payable, PriceUSD: t.Price, BuyerID: t.BuyerLabel(),
				SellerID: t.SellerID, SellerName: t.SellerName, TxHash: t.TxHash,
				Reason:    fmt.Sprintf("confirm that %s of the stablecoin reached %s in %s", t.Payable.Display(), orUnset(t.DepositAddress), t.TxHash),
				CreatedAt: ch.Now}
			if err := ch.Tx.PutApproval(a); err != nil {
				return nil, err
			}
			data := map[string]any{"tx_hash": t.TxHash, "approval_id": a.ID}
			if bound {
				data["payer"] = signer
			}
			if err := ch.Save(t, t.Status, "payment_reported", data); err != nil {
				return nil, err
			}
		}
		v, err := s.View(ch.Tx, t, c.Caller, kernel.ViewBuyer)
		out = &axp.PaymentReport{TaskID: t.ID, Status: t.Status, Payment: v.Payment, Verifier: s.rail.Verifier.Name(),
			Message: "Payment reported; the job starts when it is confirmed."}
		return out, err
	})
	if err != nil {
		return nil, err
	}
	if s.rail.Chain == nil {
		s.money.VerifyPayment(ctx, in.ID, strings.ToLower(in.TxHash))
		return out, nil
	}
	msg := "Payment reported; the chain shows it, and the job starts once it has %d confirmations (the exchange checks by itself)."
	if !receipt.Found {
		msg = "Payment reported; the transaction is not mined yet. The job starts once it is, with %d confirmations (the exchange checks by itself)."
	} else if receipt.Confirmations >= s.rail.Chain.Confirmations() {
		s.money.CheckReported(ctx, in.ID, strings.ToLower(in.TxHash))
	}
	err = s.base.Store.View(func(tx *store.Tx) error {
		t, err := kernel.LoadTask(tx, in.ID)
		if err != nil {
			return err
		}
		v, err := s.View(tx, t, c.Caller, kernel.ViewBuyer)
		m := &axp.PaymentReport{TaskID: t.ID, Status: t.Status, Payment: v.Payment, Verifier: s.rail.Verifier.Name(),
			Message: fmt.Sprintf(msg, s.rail.Chain.Confirmations())}
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

// payAuthorization pays a task by the buyer's signed EIP-3009 authorization, which the exchange
// submits: the money is for this task by construction.
func (s *Service) payAuthorization(ctx context.Context, c *pipeline.Call, in *axp.PayAuthorizationInput) (*axp.PaymentReport, error) {
	return s.paySigned(ctx, c, in.ID, func(t *axp.TaskRecord) error { return s.money.PayByAuthorization(ctx, t, in) },
		"Authorization submitted; the job starts once its transfer has %d confirmations (the exchange checks by itself).")
}

// payEscrow pays a task into the escrow contract by the buyer's signature of its escrow terms: the
// exchange calls the escrow's authorize with it.
func (s *Service) payEscrow(ctx context.Context, c *pipeline.Call, in *axp.PayEscrowInput) (*axp.PaymentReport, error) {
	return s.paySigned(ctx, c, in.ID, func(t *axp.TaskRecord) error { return s.money.PayByEscrow(ctx, t, in) },
		"Escrow authorization submitted; the money goes into the escrow contract and the job starts once the transaction has %d confirmations (the exchange checks by itself).")
}

// paySigned runs pay, which submits a payment the buyer signed for task id, and answers the
// report; pending is its message while the transaction waits (with the confirmations as %d).
func (s *Service) paySigned(ctx context.Context, c *pipeline.Call, id string, pay func(*axp.TaskRecord) error, pending string) (*axp.PaymentReport, error) {
	var t *axp.TaskRecord
	if err := s.base.Store.View(func(tx *store.Tx) error {
		var err error
		t, _, err = kernel.LoadOwned(tx, c, id)
		return err
	}); err != nil {
		return nil, err
	}
	if err := pay(t); err != nil {
		return nil, err
	}
	// The report is stored as the call's answer (the submission itself was stored without it,
	// inside the payment service), so that a retry with the same key replays it; a retry without
	// one is recognised by the authorization it carries and submits nothing more.
	return kernel.Apply(s.base, ctx, c, func(ch *kernel.Change) (*axp.PaymentReport, error) {
		t, err := kernel.LoadTask(ch.Tx, id)
		if err != nil {
			return nil, err
		}
		v, err := s.View(ch.Tx, t, c.Caller, kernel.ViewBuyer)
		if err != nil {
			return nil, err
		}
		out := &axp.PaymentReport{TaskID: t.ID, Status: t.Status, Payment: v.Payment, Verifier: s.rail.Verifier.Name(),
			Message: fmt.Sprintf(pending, s.rail.Chain.Confirmations())}
		if a := t.Authorization; a != nil {
			out.Message += " Transaction: " + a.TxHash + "."
		}
		if t.Status != axp.TaskAwaitingPayment {
			out.Message = "Payment confirmed on chain; the job has started."
		}
		return out, nil
	})
}

func orUnset(s string) string {
	if s == "" {
		return "the exchange's deposit address"
	}
	return s
}

// quoteRequestsMax caps the tasks list_quote_requests answers with.
const quoteRequestsMax = 200

func (s *Service) listQuoteRequests(ctx context.Context, c *pipeline.Call) (*axp.TaskList, error) {
	out := &axp.TaskList{Tasks: []axp.Task{}}
	err := s.base.Store.View(func(tx *store.Tx) error {
		m, err := kernel.LoadMember(tx, c.Caller.MemberID)
		if err != nil {
			return err
		}
		if p := m.Practice; p != nil && p.Answer == nil && s.base.Now().Before(p.ExpiresAt) {
			out.Tasks = append(out.Tasks, members.PracticeView(m))
		}
		out.Tasks = append(out.Tasks, s.sandboxViews(tx, m.ID, axp.SandboxQuote)...)
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
		for _, vx := range m.Skills {
			if types[vx.TaskType] {
				continue
			}
			types[vx.TaskType] = true
			n := 0
			var err error
			tx.OpenTaskIDs(vx.TaskType, func(id string) bool {
				var t *axp.TaskRecord
				if t, err = tx.Task(id); err != nil {
					return false
				}
				if t == nil || t.Status != axp.TaskOpen {
					return true
				}
				if _, ok := m.Matches(t); ok {
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
			v, err := s.quoteView(tx, t, c.Caller, refs)
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
func pullLatency(ch *kernel.Change, t *axp.TaskRecord, m *axp.Member) (int64, error) {
	if q, err := ch.Tx.Quote(t.ID, m.ID); err != nil || q != nil {
		return 0, err
	}
	visible := t.CreatedAt
	if n := len(t.Clarified); n > 0 && t.Clarified[n-1].At.After(visible) {
		visible = t.Clarified[n-1].At
	}
	if m.VerifiedAt != nil && m.VerifiedAt.After(visible) {
		visible = *m.VerifiedAt
	}
	return max(ch.Now.Sub(visible).Milliseconds(), 1), nil
}

func (s *Service) submitOffer(ctx context.Context, c *pipeline.Call, in *axp.OfferInput) (*axp.OfferAnswer, error) {
	id := c.Path["id"]
	if strings.HasPrefix(id, members.PracticePrefix) {
		rec, err := s.members.AnswerPractice(ctx, c, id, in.QuoteAnswer)
		if err != nil {
			return nil, err
		}
		return &axp.OfferAnswer{Recorded: rec}, nil
	}
	if strings.HasPrefix(id, sandboxPrefix) {
		rec, err := s.sandboxOffer(ctx, c, id, in.QuoteAnswer)
		if err != nil {
			return nil, err
		}
		return &axp.OfferAnswer{Recorded: rec}, nil
	}
	// The answer is the change's own, so that a retry with the same key replays it.
	return kernel.Apply(s.base, ctx, c, func(ch *kernel.Change) (*axp.OfferAnswer, error) {
		t, err := kernel.LoadTask(ch.Tx, id)
		if err != nil {
			return nil, err
		}
		m, err := kernel.LoadMember(ch.Tx, c.Caller.MemberID)
		if err != nil {
			return nil, err
		}
		if _, ok := m.Matches(t); !ok {
			return nil, axp.Forbidden("you cannot quote on this task", "quotes come from verified sellers with a skill of this task type who accept its payment method (and are invited, if the buyer invited sellers)")
		}
		if _, err := axp.Next(t.Status, axp.TrigQuote, t.Facts()); err != nil {
			return nil, err
		}
		if err := in.QuoteAnswer.Check(t.Free(), ch.Now); err != nil {
			return nil, err
		}
		latency, err := pullLatency(ch, t, m)
		if err != nil {
			return nil, err
		}
		if err := s.storeAnswer(ch, t, m, in.QuoteAnswer, false, true, latency); err != nil {
			return nil, err
		}
		if err := ch.Tx.PutTask(t, t.Status); err != nil {
			return nil, err
		}
		if err := ch.Audit("task.quote", "task", t.ID, map[string]any{"seller": m.ID, "kind": in.QuoteAnswer.Kind()}); err != nil {
			return nil, err
		}
		q, err := ch.Tx.Quote(t.ID, m.ID)
		if err != nil {
			return nil, err
		}
		offs, _, _, err := offers(ch.Tx, t, ch.Now)
		if err != nil {
			return nil, err
		}
		for _, o := range offs {
			if o.OfferID == q.OfferID && q.OfferID != "" {
				s.offerNotices(ch, t, []axp.Offer{o})
				return &axp.OfferAnswer{Offer: &o}, nil
			}
		}
		return &axp.OfferAnswer{Recorded: &axp.QuoteRecorded{TaskID: t.ID, Kind: q.Kind, Recorded: true, Screening: q.Screening}}, nil
	})
}

// offerNotices pushes offers that arrive after creation to a buyer member and the callback URL.
func (s *Service) offerNotices(ch *kernel.Change, t *axp.TaskRecord, offs []axp.Offer) {
	in := protocol.ReceiveOffersInput{TaskID: t.ID, ChooseURL: s.base.BaseURL() + "/api/tasks/" + t.ID + "/choose", Test: t.Test}
	// Buyers that do not sell yet are invited to (spec 6), like in every answer they read.
	buyer := axp.Caller{Kind: axp.Anonymous}
	if t.BuyerMemberID != "" {
		if m, err := ch.Tx.Member(t.BuyerMemberID); err == nil && m != nil {
			buyer = axp.Caller{Kind: axp.MemberCall, MemberID: m.ID, Roles: m.Roles}
		}
	}
	in.AlsoSell = s.members.AlsoSell(buyer)
	for _, o := range offs {
		in.Offers = append(in.Offers, protocol.OfferSummary{OfferID: o.OfferID, Seller: o.Seller, PriceUSD: o.PriceUSD, ETAMinutes: o.ETAMinutes, Note: o.Note, Screening: o.Screening})
	}
	if t.BuyerMemberID != "" {
		ch.Notify(kernel.Notice{MemberID: t.BuyerMemberID, TaskID: t.ID, Msg: kernel.Push{Name: "receive_offers", In: in}})
	}
	if t.CallbackURL != "" {
		ch.Notify(s.notices.Callback(ch, t, map[string]any{"event": "offers", "offers": in}))
	}
}

func (s *Service) listJobs(ctx context.Context, c *pipeline.Call, in *axp.JobsQuery) (*axp.TaskList, error) {
	out := &axp.TaskList{Tasks: []axp.Task{}}
	err := s.base.Store.View(func(tx *store.Tx) error {
		out.Tasks = append(out.Tasks, s.sandboxViews(tx, c.Caller.MemberID, axp.SandboxWork)...)
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
			v, err := s.View(tx, t, c.Caller, kernel.ViewSeller)
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
func (s *Service) listMyTasks(ctx context.Context, c *pipeline.Call, in *axp.MyTasksQuery) (*axp.TaskList, error) {
	if in.Cursor != "" && !strings.HasPrefix(in.Cursor, "tsk_") {
		return nil, axp.Invalid("cursor", "is not a cursor of this list", "pass the next_cursor of the previous page, or leave it out")
	}
	limit := in.Limit
	if limit <= 0 {
		limit = axp.MyTasksPageDefault
	}
	limit = min(limit, axp.MyTasksPageMax)
	out := &axp.TaskList{Tasks: []axp.Task{}}
	err := s.base.Store.View(func(tx *store.Tx) error {
		ids, more := tx.BuyerTaskIDsPage(c.Caller.MemberID, in.Cursor, limit)
		if more {
			out.NextCursor = ids[len(ids)-1]
		}
		for _, id := range ids {
			t, err := tx.Task(id)
			if err != nil || t == nil {
				continue
			}
			v, err := s.View(tx, t, c.Caller, kernel.ViewBuyer)
			if err != nil {
				return err
			}
			out.Tasks = append(out.Tasks, v)
		}
		return nil
	})
	return out, err
}

func (s *Service) getTimeline(ctx context.Context, c *pipeline.Call, in *axp.TaskRef) (*axp.Timeline, error) {
	out := &axp.Timeline{TaskID: in.ID}
	err := s.base.Store.View(func(tx *store.Tx) error {
		t, _, err := kernel.LoadOwned(tx, c, in.ID)
		if err != nil {
			return err
		}
		out.Events, err = tx.Events(t.ID)
		return err
	})
	return out, err
}

// getTaskReceipt answers the task's money for its buyer: the transfers credited to it and each
// payout, refund or split with its transactions (the pipeline checked the caller is the buyer).
func (s *Service) getTaskReceipt(ctx context.Context, c *pipeline.Call, in *axp.TaskRef) (*axp.TaskReceipt, error) {
	out := &axp.TaskReceipt{Payments: []axp.PaidIn{}, Movements: []axp.ReceiptMovement{}}
	err := s.base.Store.View(func(tx *store.Tx) error {
		t, err := kernel.LoadTask(tx, in.ID)
		if err != nil {
			return err
		}
		out.TaskID, out.Status, out.PriceUSD, out.ReceivedUSD, out.Test = t.ID, t.Status, t.Price, t.Received, t.Test
		out.Payments = append(out.Payments, t.Paid...)
		if len(t.Paid) == 0 && t.Received > 0 {
			// Funded before each transfer was recorded, or confirmed by hand: one payment.
			out.Payments = append(out.Payments, axp.PaidIn{TxHash: t.TxHash, From: t.PayerAddress, Amount: t.Received})
		}
		items, err := tx.TaskApprovals(t.ID)
		if err != nil {
			return err
		}
		for _, a := range items {
			if !axp.SendsMoney(a.Kind) {
				continue
			}
			m := axp.ReceiptMovement{ApprovalID: a.ID, Kind: a.Kind, Status: a.Shown(), ToSeller: a.SellerNetUSD, ToBuyer: a.RefundUSD, FeeUSD: a.FeeUSD}
			for _, h := range append([]string{a.TxHash, a.BuyerPartTxHash}, transferHashes(a.Transfers)...) {
				if h != "" && !slices.Contains(m.TxHashes, h) {
					m.TxHashes = append(m.TxHashes, h)
				}
			}
			switch {
			case a.Status == axp.ApprovalConfirmed || a.Status == axp.ApprovalApproved:
				out.RefundedUSD += a.RefundUSD
			case a.BuyerPartTxHash != "" && a.Status != axp.ApprovalRejected:
				out.RefundedUSD += a.RefundUSD // the buyer's part of a split, sent while the seller's waits
			}
			out.Movements = append(out.Movements, m)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// transferHashes are the hashes of an item's transfers.
func transferHashes(l []axp.OutTransfer) []string {
	out := make([]string, 0, len(l))
	for _, x := range l {
		out = append(out, x.TxHash)
	}
	return out
}
