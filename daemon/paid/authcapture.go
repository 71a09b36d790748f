package paid

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/axp-exchange/axp"
	"github.com/axp-exchange/axp/contract"
	"github.com/axp-exchange/axp/daemon/chain/escrow"
	"github.com/axp-exchange/axp/daemon/kernel"
	"github.com/axp-exchange/axp/daemon/x402"
	"github.com/axp-exchange/axp/store"
	"github.com/ethereum/go-ethereum/common"
)

// Paying a call in the auth-capture scheme (docs/decisions.md, "x402 auth-capture on paid calls"):
// the caller signs a ReceiveWithAuthorization of the price to the escrow's collector, for a
// PaymentInfo whose operator is the hot wallet and whose receiver is the deposit address. The
// exchange authorizes it into the escrow (and waits for the receipt) before the tool runs, captures
// it once the tool answered and voids it when the tool failed: a caller never pays for a failed
// call. Each call of the escrow is stored on the paid call before it is broadcast, so a crash
// leaves a record the recovery pass finishes: an authorized payment that was never captured is
// voided (its caller got no answer), a capture that was mined is booked, never sent twice.

// callHold is how long after the payment window an auth-capture payment stays capturable: the
// authorize, the tool's run and the capture.
const callHold = 5 * time.Minute

// minHold is the least time a payment must still be capturable when it arrives.
const minHold = 3 * time.Minute

// setupEscrow readies auth-capture payments when the exchange has an escrow (escrow_address; the
// money service checked it at start) and the hot wallet, its operator.
func (pw *Paywall) setupEscrow() {
	cfg, rail := pw.d.base.Cfg(), pw.d.rail
	if cfg.EscrowAddress == "" || cfg.EscrowCollectorAddress == "" || rail.Wallet == nil {
		return
	}
	pw.esc = &x402.Escrow{Chain: rail.Chain, Wallet: rail.Wallet, Domain: pw.domain,
		Contracts: escrow.Contracts{Escrow: common.HexToAddress(cfg.EscrowAddress), Collector: common.HexToAddress(cfg.EscrowCollectorAddress)},
		Sent:      func(string) { pw.d.base.PaidHook("broadcast") }}
}

// authCaptureTerms are the auth-capture requirements of a call of op whose exact requirements are
// v2, offered now; nil without an escrow, and for a connector's setup fee (its booking makes the
// connector live, which the exact scheme's does).
func (pw *Paywall) authCaptureTerms(v2 x402.Requirements, op *contract.Op) *x402.Requirements {
	if pw.esc == nil || op.PriceFrom == contract.PriceConnectorSetup {
		return nil
	}
	now := pw.d.base.Now()
	r := x402.AuthCaptureRequirements(v2, x402.EscrowOffer{Escrow: pw.esc.Contracts.Escrow, Collector: pw.esc.Contracts.Collector,
		Operator: common.HexToAddress(pw.d.rail.Wallet.Address()), FeeReceiver: common.HexToAddress(pw.payTo),
		CaptureDeadline: now.Add(time.Duration(pw.maxTimeout)*time.Second + callHold).Unix()})
	return &r
}

// chargeEscrow takes an auth-capture payment p of a call: checks it against the call's terms,
// holds it (stored by payer and nonce, as an exact payment is), verifies the signature on chain and
// authorizes it into the escrow. The charge it answers captures or voids it.
func (pw *Paywall) chargeEscrow(ctx context.Context, op *contract.Op, t x402.Terms, p *x402.Payment, resource string, price, tag axp.Money, connector string) (*escrowCall, error) {
	if t.AuthCapture == nil {
		return nil, pw.demand(op, t, resource, price, tag, "this call takes the exact scheme only (the auth-capture scheme needs the exchange's escrow, and pays no connector's setup fee)",
			"pay the exact terms of this 402 answer")
	}
	now := pw.d.base.Now()
	info, reason, msg := x402.MatchAuthCapture(p, *t.AuthCapture, resource, pw.d.rail.Chain.ChainID(), x402.AuthCaptureWindow{Now: now,
		MinLeft: minHold, MaxAhead: time.Duration(pw.maxTimeout)*time.Second + callHold + time.Minute})
	if reason != "" {
		return nil, pw.demand(op, t, resource, price, tag, msg, "pay the auth-capture terms of this 402 answer ("+reason+")")
	}
	h := &escrowCall{pw: pw, t: t, op: op, info: info, resource: resource, price: price, tag: tag}
	h.rec = &axp.PaidCall{ID: axp.NewID("pay", now), Tool: op.Name, Resource: resource, Payer: strings.ToLower(info.Payer.Hex()),
		Nonce: strings.ToLower(p.Payload.Authorization.Nonce), Amount: price, Status: axp.PaidClaimed, Facilitator: "exchange",
		Version: 2, ValidBefore: int64(info.PreApprovalExpiry), ConnectorID: connector, Block: pw.d.rail.Chain.LastHead(), CreatedAt: now,
		Scheme: axp.SchemeAuthCapture, Escrow: &axp.EscrowPayment{EscrowAddress: pw.esc.Contracts.Escrow.Hex(),
			CollectorAddress: pw.esc.Contracts.Collector.Hex(), PaymentInfo: escrow.Terms(info), PaymentHash: strings.ToLower(pw.esc.Hash(info).Hex())}}
	// Held before anything else, as an exact payment: the same payment sent twice, even at once,
	// answers one call.
	if err := pw.hold(ctx, h.rec, op, t, resource, price, tag); err != nil {
		return nil, err
	}
	fctx, cancel := detached(ctx)
	defer cancel()
	v, err := pw.esc.Verify(ctx, p, info)
	if err != nil || !v.IsValid {
		pw.letGoOrLog(fctx, h.rec)
		if err != nil {
			pw.d.base.Log.WarnContext(ctx, "an auth-capture payment could not be verified", "source", "paid", "err", err)
			return nil, axp.Errorf(axp.CodeUnavailable, "the payment cannot be verified now: the chain did not answer").
				WithHint("call again in a moment with the same payment; nothing was charged")
		}
		return nil, pw.demand(op, t, resource, price, tag, v.Message+" ("+v.InvalidReason+")", "pay the terms of this 402 answer with a new authorization")
	}
	pw.d.base.PaidHook("held")
	res := pw.esc.Send(ctx, x402.CallAuthorize, info, common.FromHex(p.Payload.Signature), h.submit(axp.PaidAuthorize))
	switch {
	case res.Done:
		if err := pw.bookEscrow(fctx, h.rec, axp.PaidHold, "paid_call_hold", res.Hash); err != nil {
			return nil, err
		}
		pw.d.base.PaidHook("authorized")
		return h, nil
	case res.Hash == "" || res.Reverted:
		// Nothing was sent, or the authorize reverted: the authorization is unused.
		pw.letGoOrLog(fctx, h.rec)
		why := "the escrow's authorize reverted"
		if res.Err != nil {
			why = res.Err.Error()
		}
		return nil, pw.demand(op, t, resource, price, tag, "the payment could not be authorized into the escrow ("+why+"); nothing was charged ("+x402.ReasonACSimulation+")",
			"check the payer's balance and sign the terms of this 402 answer again")
	}
	// Submitted, its outcome not known: the recovery pass voids it once mined (no answer was given).
	pw.d.base.PaidHook("kept")
	pw.d.base.Log.WarnContext(ctx, "an auth-capture payment's authorize was submitted and its outcome is not known; the recovery pass voids it if it is mined",
		"source", "paid", "id", h.rec.ID, "tx", res.Hash, "err", res.Err)
	return nil, withPayment(pw.demand(op, t, resource, price, tag, "the payment's authorize (transaction "+res.Hash+") was submitted and its outcome is not known yet; the tool did not run",
		"if it is mined the exchange voids it and the escrow gives the money back; sign a new payment to call again"), h.rec)
}

// escrowCall is an auth-capture payment the escrow holds for one call.
type escrowCall struct {
	pw       *Paywall
	t        x402.Terms
	op       *contract.Op
	info     escrow.PaymentInfo
	rec      *axp.PaidCall
	resource string
	price    axp.Money
	tag      axp.Money
}

// submit stores, on event, the hash of the escrow's call about to be broadcast (the authorize's as
// AuthorizeTx, a capture's or a void's as TxHash).
func (h *escrowCall) submit(event string) func(string) error {
	return func(hash string) error {
		return h.pw.submitEscrow(context.Background(), h.rec, event, hash)
	}
}

// Settle captures the payment once the tool answered, and answers the capture's settlement. A
// capture that cannot be sent or reverted is voided: the answer is withheld and nothing is charged.
func (h *escrowCall) Settle(ctx context.Context) (map[string]string, error) {
	pw := h.pw
	res := pw.esc.Send(ctx, x402.CallCapture, h.info, nil, h.submit(axp.PaidSubmit))
	fctx, cancel := detached(ctx)
	defer cancel()
	s := x402.Settlement{Network: h.t.V2.Network, Payer: h.info.Payer.Hex(), Transaction: res.Hash, Amount: h.t.AuthCapture.Amount}
	switch {
	case res.Done:
		pw.d.base.PaidHook("settled")
		if err := pw.bookEscrow(fctx, h.rec, axp.PaidBook, "paid_call", res.Hash); err != nil {
			return nil, err
		}
		s.Success = true
		return map[string]string{x402.HeaderResponse: x402.Encode(s), "Access-Control-Expose-Headers": x402.HeaderResponse}, nil
	case res.Hash == "" || res.Reverted:
		why := "the escrow's capture reverted"
		if res.Err != nil {
			why = res.Err.Error()
		}
		pw.d.base.Log.WarnContext(ctx, "capturing an auth-capture payment failed; it is voided", "source", "paid", "id", h.rec.ID, "tx", res.Hash, "err", why)
		v := pw.void(fctx, h.rec, h.info)
		s.ErrorReason, s.Transaction, s.Amount = x402.ReasonACReverted, v.Hash, "0"
		d := pw.demand(h.op, h.t, h.resource, h.price, h.tag, "the payment could not be captured ("+why+"); the call's answer is withheld", voidHint(v))
		d.Header[x402.HeaderResponse] = x402.Encode(s)
		return nil, withPayment(d, h.rec)
	}
	// Submitted, its outcome not known: the recovery pass books it once mined, or voids it.
	pw.d.base.PaidHook("kept")
	pw.d.base.Log.WarnContext(ctx, "an auth-capture payment's capture was submitted and its outcome is not known; its record is kept for the recovery pass",
		"source", "paid", "id", h.rec.ID, "tx", res.Hash, "err", res.Err)
	return nil, withPayment(pw.demand(h.op, h.t, h.resource, h.price, h.tag, "the payment's capture (transaction "+res.Hash+") was submitted and its outcome is not known yet; the call's answer is withheld",
		settlingHint), h.rec)
}

// Release voids the payment: the tool failed, and the escrow gives the caller's money back. The
// error's PAYMENT-RESPONSE names the void (not settled, nothing captured).
func (h *escrowCall) Release(ctx context.Context) map[string]string {
	fctx, cancel := detached(ctx)
	defer cancel()
	v := h.pw.void(fctx, h.rec, h.info)
	s := x402.Settlement{ErrorReason: x402.ReasonACVoided, Transaction: v.Hash, Network: h.t.V2.Network, Payer: h.info.Payer.Hex(), Amount: "0"}
	if !v.Done {
		s.ErrorReason = x402.ReasonACVoidPending
	}
	return map[string]string{x402.HeaderResponse: x402.Encode(s), "Access-Control-Expose-Headers": x402.HeaderResponse}
}

func voidHint(v x402.CallResult) string {
	if v.Done {
		return "the escrow gave the payment back (void " + v.Hash + "); nothing was charged: sign a new payment to call again"
	}
	return "the exchange voids the payment (the escrow gives it back); nothing is charged: sign a new payment to call again"
}

// void sends the escrow's void of rec's payment (info) and books it once mined; when it cannot
// (yet), the recovery pass tries again.
func (pw *Paywall) void(ctx context.Context, rec *axp.PaidCall, info escrow.PaymentInfo) x402.CallResult {
	res := pw.esc.Send(ctx, x402.CallVoid, info, nil, func(hash string) error { return pw.submitEscrow(ctx, rec, axp.PaidVoid, hash) })
	if res.Done {
		if err := pw.bookEscrow(ctx, rec, axp.PaidBookVoid, "paid_call_void", res.Hash); err == nil {
			return res
		}
	}
	pw.d.base.Log.ErrorContext(ctx, "voiding an auth-capture payment did not finish; the recovery pass will", "source", "paid",
		"id", rec.ID, "tx", res.Hash, "err", res.Err)
	return res
}

// submitEscrow moves rec on event (PaidAuthorize, PaidSubmit, PaidVoid) with the hash of the
// escrow's call about to be broadcast, in one transaction.
func (pw *Paywall) submitEscrow(ctx context.Context, rec *axp.PaidCall, event, hash string) error {
	next := *rec
	if err := axp.PaidCallMachine.Move(&next.Status, event); err != nil {
		return err
	}
	if event == axp.PaidAuthorize {
		next.AuthorizeTx = hash
	} else {
		next.TxHash = hash
	}
	_, err := pw.d.base.Mutate(context.WithoutCancel(ctx), "x402:"+next.Payer, func(ch *kernel.Change) (any, error) {
		cur, err := ch.Tx.PaidCall(store.PaidCallKey(next.Payer, next.Nonce))
		if err != nil {
			return nil, err
		}
		if cur == nil || cur.Status != rec.Status {
			return nil, axp.Conflict(fmt.Sprintf("paid call %s changed meanwhile", rec.ID), "")
		}
		return nil, ch.Tx.PutPaidCall(&next)
	})
	if err == nil {
		*rec = next
	}
	return err
}

// bookEscrow books rec's escrow call (tx) on event, with its ledger entry of kind, in one
// transaction: the hold (PaidHold: the caller to the call's contract account), the capture (PaidBook:
// to the paid calls' revenue) or the void (PaidBookVoid: back to the caller). Booked already, it
// does nothing.
func (pw *Paywall) bookEscrow(ctx context.Context, rec *axp.PaidCall, event, kind, tx string) error {
	var out axp.PaidCall
	_, err := pw.d.base.Mutate(context.WithoutCancel(ctx), "x402:"+rec.Payer, func(ch *kernel.Change) (any, error) {
		p, err := ch.Tx.PaidCall(store.PaidCallKey(rec.Payer, rec.Nonce))
		if err != nil || p == nil {
			return nil, err
		}
		out = *p
		if axp.PaidCallMachine.Move(&p.Status, event) != nil {
			return nil, nil // booked already, or never sent: nothing to book
		}
		postings := axp.PaidHoldEntry(p.ID, p.Amount)
		switch event {
		case axp.PaidBook:
			p.SettledAt = ch.Now
			postings = axp.PaidCaptureEntry(p.ID, p.Amount)
		case axp.PaidBookVoid:
			postings = axp.PaidVoidEntry(p.ID, p.Amount)
		}
		if err := ch.Tx.PutPaidCall(p); err != nil {
			return nil, err
		}
		out = *p
		if err := ch.Tx.PutLedger(&axp.LedgerEntry{ID: axp.NewID("led", ch.Now), Kind: kind, Postings: postings, TxHash: tx, At: ch.Now}); err != nil {
			return nil, err
		}
		if event == axp.PaidBook {
			// The capture pays the deposit address: the watcher records that transfer as a paid call.
			if err := markPaidCallTransfers(ch.Tx, tx); err != nil {
				return nil, err
			}
		}
		return nil, ch.Audit("paid_call."+p.Status, "paid_call", p.ID, map[string]any{"tool": p.Tool, "amount_usd": p.Amount,
			"payer": p.Payer, "tx_hash": tx, "scheme": p.Scheme, "payment_hash": p.Escrow.PaymentHash})
	})
	if err == nil && out.ID != "" {
		*rec = out
	}
	return err
}

// letGoOrLog lets go of a payment that was never authorized: its record is deleted, so the same
// authorization may pay a later call.
func (pw *Paywall) letGoOrLog(ctx context.Context, rec *axp.PaidCall) {
	if err := pw.letGo(ctx, rec, axp.PaidLetGo); err != nil {
		pw.d.base.Log.ErrorContext(ctx, "letting go of an auth-capture payment failed; the recovery pass will", "source", "paid", "id", rec.ID, "err", err)
	}
}

// recoverEscrow finishes an auth-capture payment a crash, a slow chain or a failed call left open,
// from what the escrow holds for it and the receipts of the calls stored on it: authorized and not
// captured, it is voided (its caller got no answer, or the tool failed) once no stored capture can
// still be mined; captured by its stored capture, it is booked; voided, the void is booked; never
// collected, it is let go once its authorize reverted or the authorization expired. It reports
// whether it finished the payment.
func (pw *Paywall) recoverEscrow(ctx context.Context, p *axp.PaidCall) bool {
	if pw.esc == nil || p.Escrow == nil {
		return false
	}
	info, err := escrow.ParseTerms(p.Escrow.PaymentInfo)
	if err != nil {
		pw.d.base.Log.ErrorContext(ctx, "an auth-capture payment's stored terms do not parse; the operator must look", "source", "paid", "id", p.ID, "err", err)
		return false
	}
	ch := pw.d.rail.Chain
	st, err := escrow.ReadState(ctx, ch.Eth(), pw.esc.Contracts.Escrow, common.HexToHash(p.Escrow.PaymentHash))
	if err != nil {
		return false
	}
	// receipt is the receipt of the capture or void stored on p; ok is false when it cannot be read.
	receipt := func() (r chainReceipt, ok bool) {
		if p.TxHash == "" {
			return r, true
		}
		rr, err := ch.Receipt(ctx, p.TxHash)
		return chainReceipt{rr.Found, rr.Success, pw.esc.Confirms(rr, x402.CallCapture, info), pw.esc.Confirms(rr, x402.CallVoid, info)}, err == nil
	}
	now := pw.d.base.Now().Unix()
	if p.Status == axp.PaidAuthorizing && st.Collected && pw.bookEscrow(ctx, p, axp.PaidHold, "paid_call_hold", p.AuthorizeTx) != nil {
		return false // the authorize was mined: its hold is booked first
	}
	switch {
	case !st.Collected:
		reverted := false
		if p.AuthorizeTx != "" {
			r, err := ch.Receipt(ctx, p.AuthorizeTx)
			if err != nil {
				return false
			}
			reverted = r.Found && !r.Success
		}
		if reverted || now > p.ValidBefore+60 {
			return pw.letGo(ctx, p, axp.PaidLetGo) == nil
		}
		return false
	case st.Capturable.Sign() > 0:
		r, ok := receipt()
		switch {
		case !ok:
			return false
		case p.Status == axp.PaidSettling && !r.found && now <= int64(info.AuthorizationExpiry):
			return false // the capture may still be mined
		case p.Status == axp.PaidVoiding && !r.found && now < p.CreatedAt.Unix()+int64(lostCall/time.Second):
			return false // the void may still be mined
		}
		pw.d.base.Log.WarnContext(ctx, "an auth-capture payment was authorized and not captured; voided", "source", "paid", "id", p.ID, "payer", p.Payer)
		return pw.void(ctx, p, info).Done
	case st.Refundable.Sign() > 0:
		if r, ok := receipt(); ok && p.Status == axp.PaidSettling && r.captured {
			pw.d.base.Log.WarnContext(ctx, "a paid call's capture was booked after the fact; its answer may not have reached the caller", "source", "paid", "id", p.ID, "tx", p.TxHash)
			return pw.bookEscrow(ctx, p, axp.PaidBook, "paid_call", p.TxHash) == nil
		}
	default: // collected, nothing held, nothing captured: voided, or reclaimed by the payer
		r, ok := receipt()
		if !ok {
			return false
		}
		tx := p.TxHash
		if p.Status != axp.PaidVoiding || !r.voided {
			// Not by the void stored: the payer reclaimed it after the capture deadline.
			tx = ""
			if p.Status != axp.PaidVoiding && pw.submitEscrow(ctx, p, axp.PaidVoid, "") != nil {
				return false
			}
		}
		return pw.bookEscrow(ctx, p, axp.PaidBookVoid, "paid_call_void", tx) == nil
	}
	pw.d.base.Log.WarnContext(ctx, "an auth-capture payment's state on the escrow does not match its record; the operator must look", "source", "paid",
		"id", p.ID, "status", p.Status, "collected", st.Collected, "capturable", st.Capturable.String(), "refundable", st.Refundable.String())
	return false
}

// lostCall is how long after its call a void not found on chain is taken for lost and sent again.
const lostCall = 10 * time.Minute

// chainReceipt is what recoverEscrow reads of a stored call's receipt.
type chainReceipt struct{ found, success, captured, voided bool }
