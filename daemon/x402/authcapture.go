package x402

import (
	"context"
	"encoding/json"
	"fmt"
	"math/big"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/axp-exchange/axp"
	"github.com/axp-exchange/axp/daemon/chain"
	"github.com/axp-exchange/axp/daemon/chain/escrow"
	"github.com/ethereum/go-ethereum/common"
)

// The auth-capture scheme on EVM: the payer signs an ERC-3009 ReceiveWithAuthorization of the price
// to the escrow's ERC-3009 collector, under the nonce the collector derives from the payment's
// PaymentInfo (escrow.Nonce); the terms come from the requirements' `extra` and the payload's `salt`.
// The operator (here the hot wallet, the "delegated" operator type) authorizes the payment into the
// escrow before the resource is served, captures it once it was, and voids it when it was not.

// SchemeAuthCapture is the x402 auth-capture scheme.
const SchemeAuthCapture = axp.SchemeAuthCapture

// Invalid reasons of the auth-capture scheme, in the words of its EVM specification.
const (
	ReasonACPayload    = "invalid_auth_capture_evm_payload_format"
	ReasonACExtra      = "invalid_auth_capture_evm_extra"
	ReasonACOperator   = "invalid_auth_capture_evm_operator_not_admitted"
	ReasonACType       = "invalid_auth_capture_evm_unsupported_operator_type"
	ReasonACFlow       = "invalid_auth_capture_evm_unsupported_payment_flow"
	ReasonACMethod     = "invalid_auth_capture_evm_unsupported_asset_transfer_method"
	ReasonACDeadline   = "invalid_auth_capture_evm_deadline_ordering"
	ReasonACCapture    = "invalid_auth_capture_evm_capture_deadline_expired"
	ReasonACExpired    = "invalid_auth_capture_evm_authorization_expired"
	ReasonACNotYet     = "invalid_auth_capture_evm_authorization_not_yet_valid"
	ReasonACCollector  = "invalid_auth_capture_evm_token_collector_mismatch"
	ReasonACAmount     = "invalid_auth_capture_evm_amount_mismatch"
	ReasonACNonce      = "invalid_auth_capture_evm_nonce_mismatch"
	ReasonACSignature  = "invalid_auth_capture_evm_signature"
	ReasonACBalance    = "invalid_auth_capture_evm_insufficient_balance"
	ReasonACCollected  = "invalid_auth_capture_evm_payment_already_collected"
	ReasonACSimulation = "invalid_auth_capture_evm_simulation_failed"
	ReasonACReverted   = "invalid_auth_capture_evm_transaction_reverted"
	// ReasonACVoided says a payment was voided: the escrow gave it back, nothing was charged (the
	// exchange's word; the scheme names none for it).
	ReasonACVoided = "voided"
	// ReasonACVoidPending says the payment is being voided: its void is not mined yet (the
	// recovery pass finishes it); nothing is charged.
	ReasonACVoidPending = "void_pending"
)

// EscrowOffer is what the exchange offers auth-capture payments under: its escrow and collector, the
// operator (the hot wallet), the fee receiver, and the deadlines of a payment made now.
type EscrowOffer struct {
	Escrow, Collector, Operator, FeeReceiver common.Address
	// CaptureDeadline is the payment's authorizationExpiry (and refundExpiry: the exchange refunds no
	// captured call), unix seconds.
	CaptureDeadline int64
}

// AuthCaptureRequirements are the auth-capture requirements of base (the exact requirements of the
// same call: network, amount, asset, payTo, token domain) under offer o. Fees are none
// (minFeeBps = maxFeeBps = 0): the price goes whole to payTo. extra.tokenCollector names the
// ERC-3009 collector, which clients take from the escrow's canonical deployment elsewhere; on a
// chain without it (a test chain) they need it.
func AuthCaptureRequirements(base Requirements, o EscrowOffer) Requirements {
	r := base
	r.Scheme = SchemeAuthCapture
	r.Extra = map[string]any{"name": base.Extra["name"], "version": base.Extra["version"],
		"authCaptureEscrow": o.Escrow.Hex(), "captureAuthorizer": o.Operator.Hex(), "operatorType": "delegated",
		"paymentFlow": "escrow", "captureMode": "sync", "captureDeadline": o.CaptureDeadline, "refundDeadline": o.CaptureDeadline,
		"minFeeBps": 0, "maxFeeBps": 0, "feeRecipient": o.FeeReceiver.Hex(), "assetTransferMethod": "eip3009",
		"tokenCollector": o.Collector.Hex()}
	return r
}

// AuthCaptureWindow bounds an auth-capture payment's capture deadline, as the exchange accepts it.
type AuthCaptureWindow struct {
	// Now is the time of the check.
	Now time.Time
	// MinLeft is how long the payment must still be capturable: the tool's run and the capture.
	MinLeft time.Duration
	// MaxAhead is how far ahead the deadline may lie (the terms of a 402 answered at most this
	// long ago, and no later).
	MaxAhead time.Duration
}

var saltRe = regexp.MustCompile(`^0x[0-9a-fA-F]{64}$`)

// MatchAuthCapture checks that an auth-capture payment p is for the requirements want (as
// AuthCaptureRequirements built them for this call) of resource resourceURL, within window w,
// and rebuilds the PaymentInfo the payer's signature covers. The reason is one of the Reason
// constants.
func MatchAuthCapture(p *Payment, want Requirements, resourceURL string, chainID uint64, w AuthCaptureWindow) (info escrow.PaymentInfo, reason, message string) {
	fail := func(r, format string, a ...any) (escrow.PaymentInfo, string, string) {
		return info, r, fmt.Sprintf(format, a...)
	}
	acc := p.Accepted
	switch {
	case p.X402Version != 2 || acc == nil:
		return fail(ReasonScheme, "the %s scheme is paid with x402 v2 (PAYMENT-SIGNATURE)", SchemeAuthCapture)
	case acc.Scheme != SchemeAuthCapture:
		return fail(ReasonScheme, "the payment uses scheme %q, not %q", acc.Scheme, SchemeAuthCapture)
	case acc.Network != want.Network:
		return fail(ReasonNetwork, "the payment is for network %q; this exchange takes %q", acc.Network, want.Network)
	case !strings.EqualFold(acc.Asset, want.Asset):
		return fail(ReasonAsset, "the payment is in asset %s; this tool is paid in %s", acc.Asset, want.Asset)
	case acc.Amount != want.Amount:
		return fail(ReasonACAmount, "the payment accepted an amount of %s units; this call costs %s", acc.Amount, want.Amount)
	case !strings.EqualFold(acc.PayTo, want.PayTo):
		return fail(ReasonRecipient, "the payment accepted payTo %s; this exchange is paid at %s", acc.PayTo, want.PayTo)
	}
	if u := p.ResourceURL(); u != "" && resourceURL != "" && !sameResource(u, resourceURL) {
		return fail(ReasonResource, "the payment is for %s, not for %s", u, resourceURL)
	}
	x, wx := acc.Extra, want.Extra
	for _, k := range []string{"authCaptureEscrow", "captureAuthorizer", "feeRecipient"} {
		got, _ := x[k].(string)
		if !common.IsHexAddress(got) || !strings.EqualFold(got, wx[k].(string)) {
			r := ReasonACExtra
			if k == "captureAuthorizer" {
				r = ReasonACOperator
			}
			return fail(r, "extra.%s is %q; this exchange's is %s", k, got, wx[k])
		}
	}
	for _, c := range []struct{ key, want, reason string }{{"operatorType", "delegated", ReasonACType}, {"paymentFlow", "escrow", ReasonACFlow},
		{"assetTransferMethod", "eip3009", ReasonACMethod}} {
		if v, ok := x[c.key]; ok && v != c.want {
			return fail(c.reason, "extra.%s is %v; this exchange takes %q", c.key, v, c.want)
		}
	}
	for _, k := range []string{"receiverAuthorizer", "policy"} {
		if v, ok := x[k]; ok && v != nil && v != "" && !(isAddr(v) && common.HexToAddress(v.(string)) == (common.Address{})) {
			return fail(ReasonACExtra, "extra.%s is %v; this exchange takes none (the zero address)", k, v)
		}
	}
	minFee, ok1 := uintOf(x["minFeeBps"])
	maxFee, ok2 := uintOf(x["maxFeeBps"])
	capture, ok3 := uintOf(x["captureDeadline"])
	refund, ok4 := uintOf(x["refundDeadline"])
	switch {
	case !ok1 || !ok2 || minFee != 0 || maxFee != 0:
		return fail(ReasonACExtra, "extra.minFeeBps and maxFeeBps must both be 0: the price goes whole to payTo")
	case !ok3 || !ok4:
		return fail(ReasonACExtra, "extra.captureDeadline and refundDeadline must be unix seconds")
	case refund != capture:
		return fail(ReasonACDeadline, "extra.refundDeadline must equal captureDeadline: this exchange refunds no answered call")
	case int64(capture) < w.Now.Add(w.MinLeft).Unix():
		return fail(ReasonACCapture, "extra.captureDeadline %d leaves less than %s to run the tool and capture; ask for new terms", capture, w.MinLeft)
	case int64(capture) > w.Now.Add(w.MaxAhead).Unix():
		return fail(ReasonACDeadline, "extra.captureDeadline %d is further ahead than this exchange's terms (at most %s)", capture, w.MaxAhead)
	}
	pl := p.Payload
	if err := p.CheckShape(); err != nil {
		return fail(ReasonACPayload, "%s", err.Error())
	}
	if !saltRe.MatchString(pl.Salt) {
		return fail(ReasonACPayload, "payload.salt must be 32 bytes of 0x hex")
	}
	if pl.SaltNonce != "" {
		return fail(ReasonACPayload, "payload.saltNonce is for bound payments (a receiver authorizer or a policy); this exchange takes unbound ones")
	}
	a := pl.Authorization
	vb, _ := strconv.ParseUint(a.ValidBefore, 10, 64)
	switch {
	case !strings.EqualFold(a.To, wx["tokenCollector"].(string)):
		return fail(ReasonACCollector, "the authorization pays %s; the escrow's ERC-3009 collector is %s", a.To, wx["tokenCollector"])
	case a.Value != want.Amount:
		return fail(ReasonACAmount, "the authorization moves %s units; this call costs exactly %s", a.Value, want.Amount)
	case a.ValidAfter != "0":
		return fail(ReasonACNotYet, "the authorization's validAfter must be 0 (the collector signs from 0)")
	case vb > capture:
		return fail(ReasonACDeadline, "the authorization's validBefore %d is after extra.captureDeadline %d", vb, capture)
	case int64(vb) < w.Now.Add(MinValidity).Unix():
		return fail(ReasonACExpired, "the authorization has expired (validBefore has passed or is too close to authorize)")
	}
	amount, _ := new(big.Int).SetString(want.Amount, 10)
	salt, _ := new(big.Int).SetString(pl.Salt[2:], 16)
	info = escrow.PaymentInfo{Operator: common.HexToAddress(wx["captureAuthorizer"].(string)), Payer: common.HexToAddress(a.From),
		Receiver: common.HexToAddress(want.PayTo), Token: common.HexToAddress(want.Asset), MaxAmount: amount,
		PreApprovalExpiry: vb, AuthorizationExpiry: capture, RefundExpiry: refund,
		FeeReceiver: common.HexToAddress(wx["feeRecipient"].(string)), Salt: salt}
	nonce := escrow.Nonce(chainID, common.HexToAddress(wx["authCaptureEscrow"].(string)), info)
	if !strings.EqualFold(a.Nonce, common.Hash(nonce).Hex()) {
		return fail(ReasonACNonce, "the authorization's nonce is not the payment's (keccak of the chain, the escrow and the PaymentInfo with the payer zeroed)")
	}
	return info, "", ""
}

func isAddr(v any) bool {
	s, ok := v.(string)
	return ok && common.IsHexAddress(s)
}

// uintOf reads a whole number of extra, as JSON decodes it (a float64), or as a number or a decimal
// string.
func uintOf(v any) (uint64, bool) {
	switch n := v.(type) {
	case float64:
		if n < 0 || n != float64(uint64(n)) || n >= 1<<48 {
			return 0, false
		}
		return uint64(n), true
	case int:
		return uint64(n), n >= 0
	case int64:
		return uint64(n), n >= 0
	case json.Number:
		u, err := strconv.ParseUint(string(n), 10, 48)
		return u, err == nil
	case string:
		u, err := strconv.ParseUint(n, 10, 48)
		return u, err == nil
	}
	return 0, false
}

// Escrow is the exchange's own facilitator of auth-capture payments: it verifies the payer's
// signature of the payment's ReceiveWithAuthorization, and sends the escrow's authorize, capture
// and void from the hot wallet, the payments' operator.
type Escrow struct {
	Chain     *chain.Client
	Wallet    *chain.Wallet
	Domain    chain.Domain
	Contracts escrow.Contracts
	// Wait bounds how long a call's receipt is waited for.
	Wait time.Duration
	// Sent, when not nil, is called once a call was broadcast (tests stop a call there).
	Sent func(txHash string)
}

// Hash is the payment's identity on the escrow.
func (e *Escrow) Hash(info escrow.PaymentInfo) common.Hash {
	return escrow.Hash(e.Chain.ChainID(), e.Contracts.Escrow, info)
}

// Verify checks on chain that the payer signed the payment's authorization, that its nonce is unused
// and that the payer holds the amount.
func (e *Escrow) Verify(ctx context.Context, p *Payment, info escrow.PaymentInfo) (Verification, error) {
	v := Verification{Payer: info.Payer.Hex()}
	digest, err := escrow.Digest(e.Domain, e.Chain.ChainID(), e.Contracts.Escrow, e.Contracts.Collector, info)
	if err != nil {
		return v, err
	}
	if signer, err := chain.Signer(digest, common.FromHex(p.Payload.Signature)); err != nil || signer != info.Payer {
		v.InvalidReason, v.Message = ReasonACSignature, "the signature is not the payer's ReceiveWithAuthorization of this payment to the escrow's collector on this token and chain"
		return v, nil
	}
	err = payable(ctx, e.Chain, &v, info.Payer, escrow.Nonce(e.Chain.ChainID(), e.Contracts.Escrow, info), info.MaxAmount,
		"this payment's authorization was already used on chain", ReasonACBalance)
	return v, err
}

// Call is one call of the escrow an auth-capture payment goes through.
type Call string

// The calls, named by the escrow's function and the event that confirms them.
const (
	CallAuthorize Call = "authorize"
	CallCapture   Call = "capture"
	CallVoid      Call = "void"
)

var callEvents = map[Call]string{CallAuthorize: "PaymentAuthorized", CallCapture: "PaymentCaptured", CallVoid: "PaymentVoided"}

// CallResult is what became of a call of the escrow. Hash is "" when nothing was sent (Err says
// why); Done when it was mined and its receipt holds the escrow's event of the payment for the
// whole amount; Reverted when it was mined and reverted. Neither, with a hash, its outcome is not
// known (not mined in time, or mined without the event): the escrow's state tells.
type CallResult struct {
	Hash           string
	Done, Reverted bool
	Err            error
}

// Send sends call c of the payment info (sig, the payer's signature, for authorize) from the hot
// wallet: the node's gas estimate refuses a call the escrow would revert, nothing sent, its custom
// error named; onSubmit stores the hash before the broadcast (see sender).
func (e *Escrow) Send(ctx context.Context, c Call, info escrow.PaymentInfo, sig []byte, onSubmit func(string) error) CallResult {
	var data []byte
	var err error
	switch c {
	case CallAuthorize:
		data, err = escrow.Authorize(info, info.MaxAmount, e.Contracts.Collector, sig)
	case CallCapture:
		data, err = escrow.Capture(info, info.MaxAmount, info.MinFeeBps, info.FeeReceiver)
	case CallVoid:
		data, err = escrow.Void(info)
	default:
		err = fmt.Errorf("no such call of the escrow: %s", c)
	}
	if err != nil {
		return CallResult{Err: err}
	}
	s := &sender{Chain: e.Chain, Wallet: e.Wallet, Wait: e.Wait, Sent: e.Sent}
	out := s.send(ctx, func(ctx context.Context) (chain.Signed, error) {
		signed, err := e.Wallet.SignCall(ctx, e.Contracts.Escrow, data, "the escrow's "+string(c))
		if r, ok := escrow.RevertOf(err); ok {
			return signed, fmt.Errorf("the escrow refuses the %s: %w", c, r)
		}
		return signed, err
	}, onSubmit)
	res := CallResult{Hash: out.Hash, Err: out.Err}
	if out.Err == nil {
		res.Done = e.Confirms(out.Receipt, c, info)
		res.Reverted = !out.Receipt.Success
	}
	return res
}

// Confirms reports whether receipt r holds the escrow's event of call c for the whole payment.
func (e *Escrow) Confirms(r chain.Receipt, c Call, info escrow.PaymentInfo) bool {
	return r.Found && r.Success && escrow.Emitted(r.Logs, e.Contracts.Escrow, callEvents[c], e.Hash(info), info.MaxAmount)
}
