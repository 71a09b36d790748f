package tasks

import (
	"math/big"
	"time"

	"github.com/axp-exchange/axp"
	"github.com/axp-exchange/axp/daemon/chain"
	"github.com/axp-exchange/axp/daemon/kernel"
	"github.com/axp-exchange/axp/protocol"
	"github.com/axp-exchange/axp/store"
)

// offers renders the live offers of a task, ranked by value, with each seller's record.
func offers(tx *store.Tx, t *axp.TaskRecord, now time.Time) ([]axp.Offer, []axp.Declined, []axp.Clarification, error) {
	qs, err := tx.Quotes(t.ID)
	if err != nil {
		return nil, nil, nil, err
	}
	out, declined, clar := make([]axp.Offer, 0, len(qs)), []axp.Declined{}, []axp.Clarification{}
	for _, q := range qs {
		seller := protocol.SellerRef{ID: q.SellerID, Name: q.SellerName}
		switch q.Kind {
		case "decline":
			declined = append(declined, axp.Declined{Seller: seller, ReasonCode: q.Answer.ReasonCode, Reason: q.Answer.Reason, Screening: q.Screening})
		case "clarify":
			clar = append(clar, axp.Clarification{Seller: seller, Questions: q.Answer.Questions, Screening: q.Screening})
		default:
			if q.Answer.ValidUntil != "" {
				if vu, err := time.Parse(time.RFC3339, q.Answer.ValidUntil); err == nil && !vu.After(now) {
					continue // expired offers are no longer shown
				}
			}
			st, err := tx.SellerStats(q.SellerID)
			if err != nil {
				return nil, nil, nil, err
			}
			rel := st.Reliability()
			o := axp.Offer{OfferID: q.OfferID, Seller: seller, PriceUSD: *q.Answer.PriceUSD, ETAMinutes: *q.Answer.ETAMinutes,
				Note: q.Answer.Note, Fee: q.Fee, Availability: q.Answer.Availability, Details: q.Answer.Details,
				ValidUntil: q.Answer.ValidUntil, Reliability: rel, Instant: q.Instant, Screening: q.Screening, CreatedAt: q.CreatedAt}
			if q.Answer.Guarantee != nil {
				o.Guarantee = *q.Answer.Guarantee
			}
			rep := axp.Reputation{CompletedJobs: st.Completed, DisputedJobs: st.Disputed, Deliveries: st.Deliveries,
				FirstPassJobs: st.FirstPass, OnTimeJobs: st.OnTime, QuoteCount: len(st.QuoteLatencyMS), MedianQuoteMillis: rel.MedianQuoteMillis}
			if rating, reviewers, err := ratingOf(tx, q.SellerID); err == nil {
				rep.Rating, rep.DistinctReviewers = rating, reviewers
			}
			o.Badges = axp.Badges(rep)
			out = append(out, o)
		}
	}
	axp.RankOffers(out, "value")
	return out, declined, clar, nil
}

// View renders a task for one of its parties.
func (s *Service) View(tx *store.Tx, t *axp.TaskRecord, c axp.Caller, audience string) (axp.Task, error) {
	v := axp.Task{ID: t.ID, Type: t.Type, Description: t.Description, Params: t.Params, DeadlineMinutes: t.DeadlineMinutes,
		AutoChoose: t.AutoChoose, AcceptanceChecks: t.AcceptanceChecks, PaymentMethod: t.PaymentMethod, Status: t.Status,
		Offers: []axp.Offer{}, Declined: []axp.Declined{}, AutoReleaseAt: kernel.RFC3339(t.AutoReleaseAt),
		ChosenOfferID: t.ChosenOfferID, Deliveries: len(t.Deliveries), RedosLeft: t.FreeRedo - t.RedosUsed,
		ReleaseDue: t.ReleaseDue, Screening: t.Screening, DisputeReason: t.DisputeReason, DisputeScreening: t.DisputeScreening,
		CreatedAt: t.CreatedAt, UpdatedAt: t.UpdatedAt, TestMode: s.base.Cfg().TestMode || t.Test}
	if audience != kernel.ViewBuyer {
		// Sellers read the brief with the buyer's answers to sellers' questions.
		v.Description = t.Brief()
	}
	if audience == kernel.ViewBuyer {
		v.PreferredPayment, v.Contact, v.CallbackURL, v.AgentName = t.PreferredPayment, t.Contact, t.CallbackURL, t.AgentName
		switch t.InviteMode {
		case "favourites":
			v.InviteSellers = axp.SellerInvite{Favourites: true}
		case "ids":
			v.InviteSellers = axp.SellerInvite{IDs: append([]string{}, t.Invited...)}
		}
		offs, declined, clar, err := offers(tx, t, s.base.Now())
		if err != nil {
			return v, err
		}
		v.Offers, v.Declined, v.Clarifications = offs, declined, clar
		if len(offs) > 0 && t.Status == axp.TaskOpen {
			id := offs[0].OfferID
			v.RecommendedOffer = &id
		}
		if !c.HasRole(protocol.RoleSeller) {
			v.AlsoSell = s.members.AlsoSell(c)
		}
	}
	if t.SellerID != "" {
		v.Seller = &protocol.SellerRef{ID: t.SellerID, Name: t.SellerName}
		price, fee := t.Price, t.Fee
		v.PriceUSD, v.Fee = &price, &fee
		if audience == kernel.ViewSeller {
			net := t.Fee.SellerNet
			v.PayoutUSD = &net
		}
	}
	if (t.SellerID != "" || t.Received > 0) && !t.Free() {
		p := &axp.PaymentInfo{Method: t.PaymentMethod, AmountUSD: t.Price, PayableUSD: t.Payable, Currency: "USD",
			DepositAddress: t.DepositAddress, PayBy: t.PayBy, TxHash: t.TxHash, ReceivedUSD: t.Received, Status: "unpaid"}
		switch {
		case t.Reorged:
			p.Status = "reorged"
		case t.WrittenOff > 0:
			p.Status = "written_off"
		case t.Funded():
			p.Status = "confirmed"
		case t.TxHash != "", t.Authorization != nil && t.Authorization.Status == axp.AuthSubmitted:
			p.Status = "reported"
			if t.TxHash == "" {
				p.TxHash = t.Authorization.TxHash
			}
		case t.Received > 0:
			p.Status, p.MissingUSD = "partial", t.Price-t.Received
		}
		p.Verifier, p.TestMode = s.rail.Verifier.Name(), s.base.Cfg().TestMode
		if ci, ok := s.market.ChainNames(); ok && t.Status == axp.TaskAwaitingPayment && t.DepositAddress != "" {
			units := new(big.Int).Mul(big.NewInt(int64(t.Payable)), new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(ci.TokenDecimals)-6), nil))
			p.ChainID, p.TokenAddress, p.TokenSymbol, p.TokenDecimals = ci.ChainID, ci.TokenAddress, ci.TokenSymbol, ci.TokenDecimals
			p.PayableUnits = units.String()
			p.PaymentURI = chain.PaymentURI(ci.TokenAddress, ci.ChainID, chain.Checksummed(t.DepositAddress), units)
			if s.rail.Chain != nil {
				p.PayerMessage = axp.PayerMessage(t.ID, s.rail.Chain.ChainID(), s.rail.Chain.Deposit())
				p.Authorization = s.money.AuthorizationTerms(t)
				p.Escrow = s.money.EscrowTerms(tx, t)
				p.AmountNote = amountNote(tx, t)
			}
		}
		v.Payment = p
		v.Escrow = escrowHold(t, audience)
	}
	if dl := t.LastDelivery(); dl != nil {
		v.Deliverable = s.notices.DeliverableRef(t, dl)
		v.Checks = dl.Checks
		passed := dl.Passed
		v.ChecksPassed = &passed
	}
	v.NextSteps = nextSteps(t, audience)
	if t.Status == axp.TaskAwaitingPayment && audience != kernel.ViewSeller && s.rail.Chain != nil {
		v.NextSteps = []string{"send payable_usd of the stablecoin to deposit_address (payment_uri prefills a wallet): the exchange finds the transfer on chain by itself; POST /api/tasks/" + t.ID + "/pay/crypto with the tx_hash only speeds it up"}
	}
	return v, nil
}

// escrowHold is where the money of a task paid into the escrow contract is, or nil for a task
// paid otherwise. It follows from the task alone: a confirmed capture releases the task, a
// confirmed void refunds it, and a reclaim the watcher saw is on its escrow record.
func escrowHold(t *axp.TaskRecord, audience string) *axp.EscrowHold {
	a := t.Authorization
	if a == nil || a.Escrow == nil || a.Status != axp.AuthUsed {
		return nil
	}
	e := a.Escrow
	h := &axp.EscrowHold{EscrowAddress: e.EscrowAddress, PaymentHash: e.PaymentHash, AmountUSD: a.Amount, State: axp.EscrowHeld,
		AuthorizationExpiry: time.Unix(e.PaymentInfo.AuthorizationExpiry, 0).UTC(), ReclaimTxHash: e.ReclaimTxHash, PaymentInfo: e.PaymentInfo}
	switch {
	case e.ReclaimTxHash != "":
		h.State = axp.EscrowReclaimed
	case t.Status == axp.TaskReleased:
		h.State = axp.EscrowCaptured
	case t.Status == axp.TaskRefunded:
		h.State = axp.EscrowVoided
	case audience == kernel.ViewBuyer:
		h.Reclaim = "axp wallet reclaim " + t.ID
	}
	return h
}

// quoteView is an open task as a seller that may quote on it sees it: the seller view with the
// buyer its push quote call names (refs keeps the buyers of one read).
func (s *Service) quoteView(tx *store.Tx, t *axp.TaskRecord, c axp.Caller, refs buyerRefs) (axp.Task, error) {
	v, err := s.View(tx, t, c, kernel.ViewSeller)
	if err == nil && t.Status == axp.TaskOpen {
		b := refs.of(tx, t)
		v.Buyer = &b
	}
	return v, err
}

func nextSteps(t *axp.TaskRecord, audience string) []string {
	if audience == kernel.ViewSeller {
		switch t.Status {
		case axp.TaskPaid, axp.TaskInProgress:
			return []string{"POST /api/members/me/jobs/" + t.ID + "/deliver with the result"}
		case axp.TaskAccepted:
			return []string{"POST /api/members/me/jobs/" + t.ID + "/request-payment"}
		}
		return nil
	}
	switch t.Status {
	case axp.TaskOpen:
		return []string{"POST /api/tasks/" + t.ID + "/choose with an offer_id (offers arrive within the quote window; poll GET /api/tasks/" + t.ID + ")"}
	case axp.TaskAwaitingPayment:
		return []string{"send payable_usd of the stablecoin to deposit_address, then POST /api/tasks/" + t.ID + "/pay/crypto with the tx_hash"}
	case axp.TaskDelivered:
		return []string{"GET /api/tasks/" + t.ID + "/deliverable, then POST /api/tasks/" + t.ID + "/accept or /dispute with a reason"}
	}
	return nil
}

// ratingOf is a seller's mean rating as a seller and its distinct reviewers, from stored reviews
// (sandbox and removed reviews never count), without loading the member.
func ratingOf(tx *store.Tx, sellerID string) (*float64, int, error) {
	reviews, err := tx.ReviewsOf(sellerID)
	if err != nil || len(reviews) == 0 {
		return nil, 0, err
	}
	sum, n := 0, 0
	reviewers := map[string]bool{}
	for _, r := range reviews {
		if r.Removed || r.Sandbox || r.Role == protocol.RoleSeller {
			continue
		}
		sum += r.Rating
		n++
		reviewers[r.ReviewerID] = true
	}
	if n == 0 {
		return nil, 0, nil
	}
	avg := float64(sum*100/n) / 100
	return &avg, len(reviewers), nil
}

// amountNote says why a task's payable amount does not name it alone, or "".
func amountNote(tx *store.Tx, t *axp.TaskRecord) string {
	const how = ": pay by authorization (payment.authorization), or report the transfer with payer_signature, else it is credited to no task"
	if t.Tag == 0 {
		return "the price leaves no room for a payment tag (the tag is under one cent and no more than the platform fee), so the amount alone does not say which task a transfer pays" + how
	}
	exact, tagged := tx.PayableTaskIDs(t.Payable)
	for _, id := range append(exact, tagged...) {
		if id != t.ID {
			return "another task awaiting payment has the same payment tag, so the amount alone does not say which task a transfer pays" + how
		}
	}
	return ""
}
