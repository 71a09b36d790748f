package paid

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/axp-exchange/axp"
	"github.com/axp-exchange/axp/contract"
	"github.com/axp-exchange/axp/daemon/chain"
	"github.com/axp-exchange/axp/daemon/kernel"
	"github.com/axp-exchange/axp/daemon/paidtools"
	"github.com/axp-exchange/axp/daemon/pipeline"
	"github.com/axp-exchange/axp/daemon/x402"
	"github.com/axp-exchange/axp/protocol"
	"github.com/axp-exchange/axp/store"
)

// Register binds the operations of the paid service to their handlers.
func (s *Service) Register(r *pipeline.Registry) {
	pipeline.Handle(r, contract.FindPaidTools, s.findPaidTools)
	pipeline.Handle(r, contract.PaidInjectionCheck, s.paidInjectionCheck)
	pipeline.Handle(r, contract.PaidTradingRisk, s.paidTradingRisk)
	pipeline.Precheck(r, contract.PaidTradingRisk, func(in *axp.TradingRiskQuery) error { _, err := paidtools.TradingRisk(in); return err })
	pipeline.Precheck(r, contract.PaidWebContents, func(in *axp.WebContentsInput) error { _, err := paidtools.CheckURLs(in); return err })
	pipeline.Handle(r, contract.PaidWebContents, s.paidWebContents)
	pipeline.Handle(r, contract.PaidWebSearch, s.paidWebSearch)
	pipeline.Handle(r, contract.PaidConnector, s.paidConnector)
	pipeline.Handle(r, contract.RequestConnector, s.requestConnector)
	pipeline.Handle(r, contract.GetConnector, s.getConnector)
	pipeline.Handle(r, contract.PayConnectorSetup, s.payConnectorSetup)
	pipeline.Handle(r, contract.AdminConnectors, s.adminConnectors)
	pipeline.Handle(r, contract.AdminConnectorAccept, s.adminConnectorAccept)
	pipeline.Handle(r, contract.AdminConnectorReject, s.adminConnectorReject)
}

// Paywall takes the payment of pay-per-call tools (docs/design.md section 13): x402 with the exact EVM
// scheme, verified and settled by the exchange's own facilitator or an outside one, or a free
// trial call.
type Paywall struct {
	d *Service
	// fac settles payments; nil when the exchange takes none (why says what is missing).
	fac                x402.Facilitator
	why                string
	domain             chain.Domain
	network, networkV1 string
	asset, payTo       string
	maxTimeout         int
	prices             map[string]axp.Money
	trial              int
	// esc takes auth-capture payments through the escrow contract; nil without an escrow.
	esc *x402.Escrow
}

// SetupPaid readies the paywall after the chain: it needs the chain and either the hot wallet
// (the exchange settles) or an outside facilitator.
func (s *Service) SetupPaid(ctx context.Context) error {
	cfg := *s.base.Cfg()
	pw := &Paywall{d: s, prices: map[string]axp.Money{}, trial: cfg.TrialCallsPerDay,
		maxTimeout: int(cfg.X402MaxTimeout / time.Second)}
	if pw.maxTimeout <= 0 {
		pw.maxTimeout = 300
	}
	for name, price := range cfg.PaidPrices {
		op := contract.Lookup(name)
		if op == nil || op.Access != contract.Paid || op.Category == "" || op.PriceFrom != contract.PriceFixed {
			return fmt.Errorf("paid_prices names %q, which is not a pay-per-call tool (see GET /paid for the names)", name)
		}
		if price < axp.MinCallPrice || price > axp.MaxCallPrice {
			return fmt.Errorf("paid_prices.%s is %s; a call costs between %s and %s", name, price.Display(),
				axp.MinCallPrice.Display(), axp.MaxCallPrice.Display())
		}
		pw.prices[name] = price
	}
	s.paid = pw
	if s.rail.Chain == nil {
		pw.why = "this exchange takes x402 payments on its chain: set chain_rpc_url, token_address and deposit_address"
		s.base.Log.Info("pay-per-call tools answer trial calls only: "+pw.why, "source", "paid")
		return nil
	}
	dom, err := s.rail.Chain.Domain(ctx)
	if err != nil {
		pw.why = "the stablecoin does not support EIP-3009 payment authorizations: " + err.Error()
		s.base.Log.Warn("pay-per-call tools answer trial calls only", "source", "paid", "err", err)
		return nil
	}
	pw.domain = dom
	pw.network, pw.networkV1 = x402.Network(s.rail.Chain.ChainID()), x402.NetworkV1(s.rail.Chain.ChainID())
	pw.asset, pw.payTo = s.rail.Chain.Token(), s.rail.Chain.Deposit()
	switch {
	case cfg.X402FacilitatorURL != "":
		r := &x402.Remote{URL: strings.TrimRight(cfg.X402FacilitatorURL, "/"), HTTP: s.caller.HTTPClient(90 * time.Second)}
		v2, v1, err := r.Supports(ctx, pw.network, pw.networkV1)
		if err != nil {
			return fmt.Errorf("x402_facilitator_url: %w", err)
		}
		if !v2 {
			return fmt.Errorf("x402_facilitator_url %s does not support the exact scheme on %s (its /supported lists no such kind)", r.URL, pw.network)
		}
		if !v1 {
			pw.networkV1 = ""
		}
		pw.fac = r
	case s.rail.Wallet != nil:
		pw.fac = &x402.Local{Chain: s.rail.Chain, Wallet: s.rail.Wallet, Domain: dom, Now: s.base.Now, Sent: func(string) {
			s.base.PaidHook("broadcast")
		}}
	default:
		pw.why = "set payout_key_file (the hot wallet submits x402 payments and pays their gas) or x402_facilitator_url"
		s.base.Log.Info("pay-per-call tools answer trial calls only: "+pw.why, "source", "paid")
		return nil
	}
	pw.setupEscrow()
	s.base.Log.Info("pay-per-call tools take x402 payments", "source", "paid", "facilitator", pw.fac.Name(),
		"network", pw.network, "network_v1", pw.networkV1, "asset", pw.asset, "pay_to", pw.payTo, "auth_capture", pw.esc != nil)
	return nil
}

// price is what one call of op costs.
func (pw *Paywall) price(op *contract.Op) axp.Money {
	if p, ok := pw.prices[op.Name]; ok {
		return p
	}
	return op.Price
}

// terms are what one call costs: the price in v2, the price less the tool's tag in v1 (axp.V1Tag:
// a v1 payment names no resource, so its amount binds it to the tool).
func (pw *Paywall) terms(price, tag axp.Money, resource string, op *contract.Op) x402.Terms {
	extra := map[string]any{"name": pw.domain.Name, "version": pw.domain.Version}
	units := pw.d.rail.Chain.Units(price).String()
	t := x402.Terms{V2: x402.Requirements{Scheme: x402.SchemeExact, Network: pw.network, Amount: units, Asset: pw.asset,
		PayTo: pw.payTo, MaxTimeoutSeconds: pw.maxTimeout, Extra: extra}}
	if pw.networkV1 != "" {
		t.V1 = &x402.RequirementsV1{Scheme: x402.SchemeExact, Network: pw.networkV1, MaxAmountRequired: pw.d.rail.Chain.Units(price - tag).String(), Resource: resource,
			Description: op.Summary, MimeType: "application/json", PayTo: pw.payTo, MaxTimeoutSeconds: pw.maxTimeout,
			Asset: pw.asset, Extra: extra, OutputSchema: bazaarInfo(op)}
	}
	t.AuthCapture = pw.authCaptureTerms(t.V2, op)
	return t
}

// bazaarInfo describes how to call op, in the shape of the x402 Bazaar extension.
func bazaarInfo(op *contract.Op) map[string]any {
	in := map[string]any{"type": "http", "method": op.Method, "discoverable": true}
	if op.In != nil {
		if op.QueryInput(op.Method) {
			in["queryParams"] = protocol.SchemaOf(op.In)
		} else {
			in["bodyType"], in["body"] = "json", protocol.SchemaOf(op.In)
		}
	}
	out := map[string]any{"type": "json"}
	if op.Out != nil {
		out["schema"] = protocol.SchemaOf(op.Out)
	}
	return map[string]any{"input": in, "output": out}
}

// demand is the 402 answer: the terms in the PAYMENT-REQUIRED header (v2) and the body (v1 where
// the chain has a v1 name, else v2), with the exchange's reason and hint, the price and (v1) the
// amount a v1 payment authorizes. With an escrow, the v2 terms offer auth-capture beside exact.
func (pw *Paywall) demand(op *contract.Op, t x402.Terms, resource string, price, tag axp.Money, msg, hint string) *axp.PaymentDemand {
	req := x402.Required{X402Version: 2, Error: msg, Resource: &x402.Resource{URL: resource, Description: op.Summary,
		MimeType: "application/json"}, Accepts: []x402.Requirements{t.V2},
		Extensions: map[string]any{"bazaar": map[string]any{"info": bazaarInfo(op)}}}
	if t.AuthCapture != nil {
		req.Accepts = append(req.Accepts, *t.AuthCapture)
	}
	var body map[string]any
	if t.V1 != nil {
		body = jsonMap(x402.RequiredV1{X402Version: 1, Error: msg, Accepts: []x402.RequirementsV1{*t.V1}})
	} else {
		body = jsonMap(req)
	}
	body["code"], body["hint"], body["price_usd"] = axp.CodePaymentRequired, hint, price
	if t.V1 != nil {
		body["v1_amount_usd"] = price - tag
	}
	return &axp.PaymentDemand{Err: &axp.Error{Code: axp.CodePaymentRequired, Message: msg, Hint: hint},
		Header: map[string]string{x402.HeaderRequired: x402.Encode(req)}, Body: body}
}

func jsonMap(v any) map[string]any {
	b, _ := json.Marshal(v)
	var m map[string]any
	json.Unmarshal(b, &m)
	return m
}

// Charge takes the payment of a paid call (pipeline.Backend).
func (s *Service) Charge(ctx context.Context, c *pipeline.Call, r *http.Request) (pipeline.Charge, error) {
	return s.paid.charge(ctx, c, r)
}

func (pw *Paywall) charge(ctx context.Context, c *pipeline.Call, r *http.Request) (pipeline.Charge, error) {
	op := c.Op
	price, tag, connector, err := pw.priceOf(c)
	if err != nil {
		return nil, err
	}
	resource := pw.d.base.BaseURL() + r.URL.Path
	header, version := r.Header.Get(x402.HeaderSignature), 2
	if header == "" {
		if header = r.Header.Get(x402.HeaderPaymentV1); header != "" {
			version = 1
		}
	}
	if header == "" && r.URL.Query().Get("trial") == "1" && op.Category != "" {
		return pw.useTrial(ctx, c, resource, price, tag)
	}
	if pw.fac == nil {
		return nil, axp.Errorf(axp.CodeUnavailable, "this exchange takes no payments for pay-per-call tools yet: %s", pw.why).
			WithHint(pw.trialHint(op))
	}
	t := pw.terms(price, tag, resource, op)
	if header == "" {
		return nil, pw.demand(op, t, resource, price, tag, fmt.Sprintf("this call costs %s: pay with x402", price.Display()),
			"sign the terms of PAYMENT-REQUIRED (x402 v2) or of the body (v1) and call again with the PAYMENT-SIGNATURE or X-PAYMENT header; "+pw.trialHint(op))
	}
	field := x402.HeaderSignature
	if version == 1 {
		field = x402.HeaderPaymentV1
	}
	p, err := x402.Decode(header)
	if err != nil {
		return nil, axp.Invalid(field, err.Error(), "send the base64 JSON payment an x402 client builds from this call's 402 answer")
	}
	if p.X402Version != version {
		return nil, axp.Invalid(field, fmt.Sprintf("carries an x402 version %d payment", p.X402Version),
			"send v2 payments in PAYMENT-SIGNATURE and v1 payments in X-PAYMENT")
	}
	if scheme, _ := p.SchemeAndNetwork(); scheme == x402.SchemeAuthCapture {
		h, err := pw.chargeEscrow(ctx, op, t, p, resource, price, tag, connector)
		if err != nil {
			return nil, err
		}
		return h, nil
	}
	if reason, msg := x402.Match(p, t, resource); reason != "" {
		return nil, pw.demand(op, t, resource, price, tag, msg, "pay the terms of this 402 answer ("+reason+")")
	}
	held := &heldPayment{pw: pw, p: p, t: t, op: op, resource: resource, price: price, tag: tag}
	paid := price // what the authorization moves, as Match checked it
	if p.X402Version == 1 {
		paid = price - tag
	}
	now := pw.d.base.Now()
	vb, _ := strconv.ParseInt(p.Payload.Authorization.ValidBefore, 10, 64)
	held.rec = &axp.PaidCall{ID: axp.NewID("pay", now), Tool: op.Name, Resource: resource, Payer: strings.ToLower(p.Payload.Authorization.From),
		Nonce: strings.ToLower(p.Payload.Authorization.Nonce), Amount: paid, Status: axp.PaidClaimed, Facilitator: pw.fac.Name(),
		Version: p.X402Version, ValidBefore: vb, ConnectorID: connector, Block: pw.d.rail.Chain.LastHead(), CreatedAt: now}
	// The authorization is held before anything else: the same payment sent twice, even at once,
	// answers one call.
	if err := pw.hold(ctx, held.rec, op, t, resource, price, tag); err != nil {
		return nil, err
	}
	v, err := pw.fac.Verify(ctx, p, t)
	if err != nil {
		held.Release(ctx)
		pw.d.base.Log.WarnContext(ctx, "the x402 facilitator could not verify a payment", "source", "paid", "facilitator", pw.fac.Name(), "err", err)
		return nil, axp.Errorf(axp.CodeUnavailable, "the payment cannot be verified now: the facilitator did not answer").
			WithHint("call again in a moment with the same payment; nothing was charged")
	}
	if !v.IsValid {
		held.Release(ctx)
		msg := v.Message
		if msg == "" {
			msg = "the facilitator refused the payment"
		}
		return nil, pw.demand(op, t, resource, price, tag, msg+" ("+v.InvalidReason+")", "pay the terms of this 402 answer with a new authorization")
	}
	pw.d.base.PaidHook("held")
	return held, nil
}

// priceOf is the price of the call, the tag an x402 v1 payment takes off it, and the connector it
// concerns, if any.
func (pw *Paywall) priceOf(c *pipeline.Call) (price, tag axp.Money, connector string, err error) {
	switch c.Op.PriceFrom {
	case contract.PriceConnector:
		conn, err := pw.d.liveConnector(c.Path["name"])
		if err != nil {
			return 0, 0, "", err
		}
		return conn.PriceUSD, axp.ConnectorV1Tag(conn.Name), conn.ID, nil
	case contract.PriceConnectorSetup:
		conn, err := pw.d.loadConnector(c.Path["id"])
		if err != nil {
			return 0, 0, "", err
		}
		if conn.Status != axp.ConnectorAccepted {
			return 0, 0, "", axp.Conflict("the connector is "+conn.Status+"; its setup fee is paid once the operator has accepted it", "")
		}
		return conn.SetupFeeUSD, axp.ConnectorV1Tag(conn.Name), conn.ID, nil
	}
	return pw.price(c.Op), contract.V1Tag(c.Op.Name), "", nil
}

func (pw *Paywall) trialHint(op *contract.Op) string {
	if op.Category == "" || pw.trial <= 0 {
		return "this call has no free trial"
	}
	return fmt.Sprintf("or add ?trial=1 for one of %d free calls a day", pw.trial)
}

// useTrial counts a free trial call of the caller (member, else address) for today (UTC).
func (pw *Paywall) useTrial(ctx context.Context, c *pipeline.Call, resource string, price, tag axp.Money) (pipeline.Charge, error) {
	who := "ip:" + protocol.Fingerprint(c.Caller.IP)
	if c.Caller.Kind == axp.MemberCall {
		who = "member:" + c.Caller.MemberID
	}
	day := pw.d.base.Now().UTC().Format(time.DateOnly)
	var ok bool
	var n int
	_, err := pw.d.base.Mutate(ctx, "trial:"+who, func(ch *kernel.Change) (any, error) {
		var err error
		ok, n, err = ch.Tx.UseTrial(day, who, pw.trial)
		return nil, err
	})
	if err != nil {
		return nil, err
	}
	if !ok {
		msg := fmt.Sprintf("the free trial is used up: %d calls a day (UTC), across tools", pw.trial)
		if pw.fac == nil {
			return nil, axp.Errorf(axp.CodePaymentRequired, "%s; this exchange takes no payments yet (%s)", msg, pw.why).
				WithHint("try again tomorrow (UTC)")
		}
		return nil, pw.demand(c.Op, pw.terms(price, tag, resource, c.Op), resource, price, tag, msg,
			"pay for this call with x402 (PAYMENT-SIGNATURE or X-PAYMENT), or try the trial again tomorrow (UTC)")
	}
	pw.d.base.Log.InfoContext(ctx, "trial call", "source", "paid", "tool", c.Op.Name, "caller", who, "calls_today", n, "of", pw.trial)
	return &trialCall{pw: pw, day: day, who: who}, nil
}

type trialCall struct {
	pw       *Paywall
	day, who string
}

func (t *trialCall) Settle(context.Context) (map[string]string, error) { return nil, nil }

// Release gives the trial call back: a refused call does not use up the trial.
func (t *trialCall) Release(ctx context.Context) map[string]string {
	t.pw.d.base.Mutate(ctx, "trial:"+t.who, func(ch *kernel.Change) (any, error) {
		return nil, ch.Tx.ReturnTrial(t.day, t.who)
	})
	return nil
}

// heldPayment is a verified payment held for one call.
type heldPayment struct {
	pw       *Paywall
	p        *x402.Payment
	t        x402.Terms
	op       *contract.Op
	rec      *axp.PaidCall
	resource string
	price    axp.Money
	tag      axp.Money
}

// Release forgets the held authorization: the call failed and nothing is charged; the same
// authorization may pay a later call.
func (h *heldPayment) Release(ctx context.Context) map[string]string {
	ctx, cancel := detached(ctx)
	defer cancel()
	if err := h.pw.letGo(ctx, h.rec, axp.PaidRelease); err != nil {
		h.pw.d.base.Log.ErrorContext(ctx, "releasing a held payment failed; the recovery pass will", "source", "paid", "id", h.rec.ID, "err", err)
	}
	return nil
}

// followUp bounds what is done for a call's payment once the call's own context may be over (the
// caller left, or the wait for the chain ran out): the record's writes and one look at the chain.
const followUp = 20 * time.Second

// detached is ctx without its cancellation, bounded by followUp: the record of a payment is kept in
// step with the chain whether or not the caller is still there.
func detached(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.WithoutCancel(ctx), followUp)
}

// Settle moves the money and books it; the answer goes out only once it is booked. Once the
// settlement was submitted (the record is settling), the payment is let go only when the chain
// shows that nothing moved; otherwise the record is kept and the recovery pass books it once it is
// mined, whether or not the caller is still there.
func (h *heldPayment) Settle(ctx context.Context) (map[string]string, error) {
	pw := h.pw
	keep := context.WithoutCancel(ctx) // the record's writes do not depend on the caller
	s, err := pw.fac.Settle(ctx, h.p, h.t, func(hash string) error {
		next := *h.rec
		if next.Status == axp.PaidClaimed {
			if err := axp.PaidCallMachine.Move(&next.Status, axp.PaidSubmit); err != nil {
				return err
			}
		}
		if hash != "" {
			next.TxHash = hash
		}
		_, err := pw.d.base.Mutate(keep, "x402:"+next.Payer, func(ch *kernel.Change) (any, error) {
			return nil, ch.Tx.PutPaidCall(&next)
		})
		if err == nil {
			*h.rec = next
		}
		return err
	})
	fctx, cancel := detached(ctx)
	defer cancel()
	if err == nil && s.Success {
		return h.booked(fctx, s)
	}
	if err != nil {
		pw.d.base.Log.WarnContext(ctx, "settling an x402 payment failed", "source", "paid", "id", h.rec.ID, "tx", h.rec.TxHash, "err", err)
	}
	reason := s.ErrorReason
	if reason == "" {
		reason = x402.ReasonSettle
	}
	outcome, txHash := settleUnsent, ""
	if h.rec.Status == axp.PaidSettling {
		// Submitted: an error says nothing of what moved (the caller may just have left, a
		// facilitator's answer may be lost); the chain does.
		outcome, txHash = pw.outcome(fctx, h.rec, err == nil)
	}
	switch outcome {
	case settleMined:
		pw.d.base.Log.InfoContext(ctx, "an x402 settlement whose wait failed is mined; booked", "source", "paid", "id", h.rec.ID, "tx", txHash)
		return h.booked(fctx, x402.Settlement{Success: true, Transaction: txHash, Network: h.network(), Payer: h.p.Payload.Authorization.From})
	case settleUnsent:
		if err := pw.letGo(fctx, h.rec, axp.PaidLetGo); err != nil {
			pw.d.base.Log.ErrorContext(ctx, "letting go of an unsettled payment failed; the recovery pass will", "source", "paid", "id", h.rec.ID, "err", err)
		}
		return nil, pw.demand(h.op, h.t, h.resource, h.price, h.tag, "the payment could not be settled ("+reason+"); the call's answer is withheld and nothing was charged",
			"check the payer's balance and sign a new authorization")
	}
	// Not known yet: the record stays, and the recovery pass books it if it is mined.
	pw.d.base.PaidHook("kept")
	pw.d.base.Log.WarnContext(ctx, "an x402 settlement's outcome is not known yet; its record is kept for the recovery pass", "source", "paid",
		"id", h.rec.ID, "tx", h.rec.TxHash, "payer", h.rec.Payer, "amount_usd", h.rec.Amount.String())
	tx := "the payment's settlement"
	if h.rec.TxHash != "" {
		tx += " (transaction " + h.rec.TxHash + ")"
	}
	return nil, withPayment(pw.demand(h.op, h.t, h.resource, h.price, h.tag, tx+" was submitted and its outcome is not known yet; the call's answer is withheld",
		settlingHint), h.rec)
}

// settlingHint is what a caller may do about a payment whose settlement's outcome is not known yet.
const settlingHint = "the exchange keeps the payment: it is booked once if it is mined (it pays no second call), and released if the chain shows it unused after it expires; " +
	"send the same payment again later to learn which, or sign a new authorization (a new nonce) to call again now"

// withPayment adds to a 402 answer what became of the payment rec.
func withPayment(d *axp.PaymentDemand, rec *axp.PaidCall) *axp.PaymentDemand {
	if b, ok := d.Body.(map[string]any); ok {
		b["payment"] = axp.PaidCallState{Status: rec.Status, Tool: rec.Tool, AmountUSD: rec.Amount, TxHash: rec.TxHash}
	}
	return d
}

// booked books a settlement that moved the money and answers its headers.
func (h *heldPayment) booked(ctx context.Context, s x402.Settlement) (map[string]string, error) {
	pw := h.pw
	pw.d.base.PaidHook("settled")
	if err := pw.book(ctx, h.rec, s.Transaction); err != nil {
		return nil, err
	}
	name := x402.HeaderResponse
	if h.p.X402Version == 1 {
		name = x402.HeaderResponseV1
	}
	return map[string]string{name: x402.Encode(s), "Access-Control-Expose-Headers": name}, nil
}

// network is the network the payment was made on, in its version's spelling.
func (h *heldPayment) network() string {
	if h.p.X402Version == 1 && h.t.V1 != nil {
		return h.t.V1.Network
	}
	return h.t.V2.Network
}

// settleOutcome is what the chain says of a submitted settlement that did not report success.
type settleOutcome int

const (
	settleOpen   settleOutcome = iota // not known yet: the record is kept
	settleMined                       // mined and successful: booked
	settleUnsent                      // nothing moved and nothing will: let go
)

// outcome reads on chain what became of a payment whose settlement may have been submitted (rec):
//   - settleMined: its transaction is mined, or another used the authorization (the money moved);
//     txHash names the transaction ("" when the authorization is used but its transaction was not
//     found);
//   - settleUnsent: nothing moved and nothing will: its transaction reverted, or none is known and
//     either refused (a facilitator answered without naming one) or the authorization expired,
//     and the authorization's nonce is unused on chain;
//   - settleOpen: not known yet (also when the chain cannot be read).
func (pw *Paywall) outcome(ctx context.Context, rec *axp.PaidCall, refused bool) (o settleOutcome, txHash string) {
	ch := pw.d.rail.Chain
	expired := pw.d.base.Now().Unix() > rec.ValidBefore+60
	if rec.TxHash != "" {
		r, err := ch.Receipt(ctx, rec.TxHash)
		switch {
		case err != nil:
			return settleOpen, ""
		case r.Found && r.Success:
			return settleMined, rec.TxHash
		case !r.Found && !expired:
			return settleOpen, "" // it may still be mined
		}
		// Reverted, or never mined and expired.
	}
	used, err := ch.AuthorizationUsedHex(ctx, rec.Payer, rec.Nonce)
	switch {
	case err != nil:
		return settleOpen, ""
	case used:
		// By a transaction not known here: an outside facilitator's whose answer was lost, or
		// another submitter's.
		from := rec.Block - min(rec.Block, reorgMargin)
		if txHash, err = ch.AuthorizationTx(ctx, rec.Payer, rec.Nonce, from); err != nil {
			txHash = ""
		}
		return settleMined, txHash
	case rec.TxHash == "" && !refused && !expired:
		return settleOpen, "" // it may still be submitted
	}
	return settleUnsent, ""
}

// reorgMargin is how many blocks before the head a payment was held at its settlement is looked for
// (a reorg may have shortened the chain since).
const reorgMargin = 64

// used answers a payment whose authorization is already held (rec): by a call being answered, by a
// settlement whose outcome is not known yet, or by a booked call. Each says what became of the
// hold stores rec, the record of a payment by its payer and nonce, unless that payment is stored
// already: then the call is refused as used (pw.used), naming what became of it.
func (pw *Paywall) hold(ctx context.Context, rec *axp.PaidCall, op *contract.Op, t x402.Terms, resource string, price, tag axp.Money) error {
	_, err := pw.d.base.Mutate(ctx, "x402:"+rec.Payer, func(ch *kernel.Change) (any, error) {
		old, err := ch.Tx.PaidCall(store.PaidCallKey(rec.Payer, rec.Nonce))
		if err != nil {
			return nil, err
		}
		if old != nil {
			return nil, pw.used(op, t, resource, price, tag, old)
		}
		return nil, ch.Tx.PutPaidCall(rec)
	})
	return err
}

// money; none charges again.
func (pw *Paywall) used(op *contract.Op, t x402.Terms, resource string, price, tag axp.Money, rec *axp.PaidCall) *axp.PaymentDemand {
	tx := "its settlement"
	if rec.TxHash != "" {
		tx += " (transaction " + rec.TxHash + ")"
	}
	var msg, hint string
	switch rec.Status {
	case axp.PaidSettled:
		msg = fmt.Sprintf("this payment authorization was already used: %s moved %s and was booked for a call of %s; it pays no other call and nothing more was charged",
			tx, rec.Amount.Display(), rec.Tool)
		hint = "the exchange keeps no copy of a call's answer (if that call was cut off, its answer is lost); sign a new authorization (a new nonce) for another call"
	case axp.PaidSettling:
		msg = fmt.Sprintf("this payment authorization was already used: %s of %s for a call of %s was submitted and its outcome is not known yet; the answer is withheld",
			tx, rec.Amount.Display(), rec.Tool)
		hint = settlingHint
	case axp.PaidVoiding, axp.PaidVoided:
		msg = fmt.Sprintf("this payment authorization was already used: the escrow held %s for a call of %s that was not answered, and the exchange voided it (transaction %s): nothing was charged",
			rec.Amount.Display(), rec.Tool, rec.TxHash)
		hint = "sign a new payment (a new salt and nonce) for another call"
	default:
		msg = "this payment authorization was already used: a call being answered now holds it"
		hint = "wait for that call's answer; sign a new authorization (a new nonce) for each call"
	}
	return withPayment(pw.demand(op, t, resource, price, tag, msg, hint), rec)
}

// letGo forgets a payment that pays for nothing (its record is deleted, so the authorization may
// pay a later call) on event (axp.PaidRelease or axp.PaidLetGo), unless it was booked meanwhile.
func (pw *Paywall) letGo(ctx context.Context, rec *axp.PaidCall, event string) error {
	_, err := pw.d.base.Mutate(ctx, "x402:"+rec.Payer, func(ch *kernel.Change) (any, error) {
		p, err := ch.Tx.PaidCall(store.PaidCallKey(rec.Payer, rec.Nonce))
		if err != nil || p == nil || p.Status == axp.PaidSettled {
			return nil, err
		}
		if err := axp.PaidCallMachine.Move(&p.Status, event); err != nil {
			return nil, err
		}
		return nil, ch.Tx.DeletePaidCall(p)
	})
	return err
}

// book records a settled payment as revenue, in one transaction with what it pays for (a
// connector's setup) and the watcher's record of its transfer.
func (pw *Paywall) book(ctx context.Context, rec *axp.PaidCall, txHash string) error {
	_, err := pw.d.base.Mutate(ctx, "x402:"+rec.Payer, func(ch *kernel.Change) (any, error) {
		p, err := ch.Tx.PaidCall(store.PaidCallKey(rec.Payer, rec.Nonce))
		if err != nil {
			return nil, err
		}
		if p == nil {
			p = rec
		}
		if p.Status == axp.PaidSettled {
			return nil, nil // booked already
		}
		if err := axp.PaidCallMachine.Move(&p.Status, axp.PaidBook); err != nil {
			return nil, err
		}
		p.SettledAt = ch.Now
		if txHash != "" {
			p.TxHash = strings.ToLower(txHash)
		}
		if err := ch.Tx.PutPaidCall(p); err != nil {
			return nil, err
		}
		kind := "paid_call"
		if p.Tool == "pay_connector_setup" {
			kind = "connector_setup"
			conn, err := ch.Tx.Connector(p.ConnectorID)
			if err != nil {
				return nil, err
			}
			if conn != nil && conn.Status == axp.ConnectorAccepted {
				conn.Status, conn.SetupTx, conn.UpdatedAt = axp.ConnectorLive, p.TxHash, ch.Now
				if err := ch.Tx.PutConnector(conn); err != nil {
					return nil, err
				}
			}
		}
		if err := ch.Tx.PutLedger(&axp.LedgerEntry{ID: axp.NewID("led", ch.Now), Kind: kind, Postings: axp.PaidCallEntry(p.Amount),
			TxHash: p.TxHash, At: ch.Now}); err != nil {
			return nil, err
		}
		// The watcher may have seen the transfer first and found no task for it.
		if p.TxHash != "" {
			if err := markPaidCallTransfers(ch.Tx, p.TxHash); err != nil {
				return nil, err
			}
		}
		return nil, ch.Audit("paid_call.settled", "paid_call", p.ID, map[string]any{"tool": p.Tool, "amount_usd": p.Amount,
			"payer": p.Payer, "tx_hash": p.TxHash, "facilitator": p.Facilitator})
	})
	return err
}

// markPaidCallTransfers marks the watcher's records of a settlement's transfers as paid calls.
func markPaidCallTransfers(tx *store.Tx, txHash string) error {
	for i := uint(0); i < 8; i++ {
		in, err := tx.Inbound(txHash, i)
		if err != nil {
			return err
		}
		if in != nil && in.Outcome == axp.InboundUnmatched {
			in.Outcome, in.Note = axp.InboundPaidCall, "settled a pay-per-call payment"
			if err := tx.PutInbound(in); err != nil {
				return err
			}
		}
	}
	return nil
}

// RecoverPaidCalls finishes payments a crash, a caller who left or a slow chain left open: a
// settlement that was mined (or an authorization found used on chain) is booked; one that
// reverted, or an authorization whose settlement is not known that has expired unused, is let go.
// Nothing is booked twice: the token takes each authorization once and the record says when it was
// booked.
func (s *Service) RecoverPaidCalls(ctx context.Context) int {
	if s.rail.Chain == nil {
		return 0
	}
	var open []axp.PaidCall
	s.base.Store.View(func(tx *store.Tx) error {
		var err error
		open, err = tx.OpenPaidCalls(200)
		return err
	})
	now := s.base.Now()
	n := 0
	for i := range open {
		p := &open[i]
		if now.Sub(p.CreatedAt) < 2*time.Minute {
			continue // a call being answered now
		}
		if p.Scheme == axp.SchemeAuthCapture {
			if s.paid.recoverEscrow(ctx, p) {
				n++
			}
			continue
		}
		switch o, txHash := s.paid.outcome(ctx, p, false); o {
		case settleMined:
			if txHash != "" && txHash == p.TxHash {
				s.base.Log.Warn("a paid call's settlement was booked after the fact; its answer may not have reached the caller",
					"source", "paid", "id", p.ID, "tx", p.TxHash, "payer", p.Payer, "amount_usd", p.Amount.String())
			} else {
				s.base.Log.Warn("an x402 authorization was used on chain by a transaction not known here; booked", "source", "paid",
					"id", p.ID, "tx", txHash, "payer", p.Payer, "amount_usd", p.Amount.String())
			}
			if s.paid.book(ctx, p, txHash) == nil {
				n++
			}
		case settleUnsent:
			if s.paid.letGo(ctx, p, axp.PaidLetGo) == nil {
				n++
			}
		}
	}
	return n
}
