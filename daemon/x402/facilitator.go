package x402

import (
	"bytes"
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/big"
	"net/http"
	"strings"
	"time"

	"github.com/axp-exchange/axp/daemon/chain"
	"github.com/axp-exchange/axp/daemon/outbound"
	"github.com/ethereum/go-ethereum/common"
)

// Facilitator verifies and settles payments.
type Facilitator interface {
	// Name says which facilitator it is, for the log and the listing.
	Name() string
	// Verify checks a payment against the terms of its resource without moving money.
	Verify(ctx context.Context, p *Payment, t Terms) (Verification, error)
	// Settle moves the money. onSubmit, when not nil, is called before anything that may move it
	// is sent: with the settling transaction's hash before it is broadcast (the exchange's own
	// facilitator), or with "" before an outside one is asked to settle and again with the hash
	// once it names one; so that a crash, or the caller leaving, in between leaves a trace to
	// reconcile. An error from onSubmit stops Settle with nothing sent. Once onSubmit has returned
	// nil, neither an error nor an unsuccessful settlement proves that nothing moved: only the
	// chain does (the transaction's receipt, or the authorization's nonce).
	Settle(ctx context.Context, p *Payment, t Terms, onSubmit func(txHash string) error) (Settlement, error)
}

// requirementsFor are the terms in the version the payment speaks: what an outside facilitator
// is sent.
func requirementsFor(p *Payment, t Terms) any {
	if p.X402Version == 1 && t.V1 != nil {
		return t.V1
	}
	return t.V2
}

// Match checks that a payment is for these terms: scheme, network, asset, recipient and amount (a v1
// authorization's value is the v1 maxAmountRequired exactly, the v2 one the v2 amount), and the
// resource it names (v2 payments always name one; a v1 payment only when it echoes its
// requirements, see Payment.ResourceV1). The reason is one of the Reason constants.
func Match(p *Payment, t Terms, resourceURL string) (reason, message string) {
	scheme, network := p.SchemeAndNetwork()
	if scheme != SchemeExact {
		return ReasonScheme, fmt.Sprintf("the payment uses scheme %q; this exchange takes %q", scheme, SchemeExact)
	}
	wantNet := t.V2.Network
	if p.X402Version == 1 {
		if t.V1 == nil {
			return ReasonNetwork, "this exchange's chain has no x402 v1 network name; pay with x402 v2 (PAYMENT-SIGNATURE)"
		}
		wantNet = t.V1.Network
	}
	if network != wantNet {
		return ReasonNetwork, fmt.Sprintf("the payment is for network %q; this exchange takes %q", network, wantNet)
	}
	if p.X402Version >= 2 {
		acc := p.Accepted
		if !strings.EqualFold(acc.Asset, t.V2.Asset) {
			return ReasonAsset, fmt.Sprintf("the payment is in asset %s; this tool is paid in %s", acc.Asset, t.V2.Asset)
		}
		if acc.Amount != t.V2.Amount {
			return ReasonValue, fmt.Sprintf("the payment accepted an amount of %s units; this call costs %s", acc.Amount, t.V2.Amount)
		}
		if !strings.EqualFold(acc.PayTo, t.V2.PayTo) {
			return ReasonRecipient, fmt.Sprintf("the payment accepted payTo %s; this exchange is paid at %s", acc.PayTo, t.V2.PayTo)
		}
	}
	if u := p.ResourceURL(); u != "" && resourceURL != "" && !sameResource(u, resourceURL) {
		return ReasonResource, fmt.Sprintf("the payment is for %s, not for %s", u, resourceURL)
	}
	if err := p.CheckShape(); err != nil {
		return ReasonPayload, err.Error()
	}
	a := p.Payload.Authorization
	if !strings.EqualFold(a.To, t.V2.PayTo) {
		return ReasonRecipient, fmt.Sprintf("the authorization pays %s; this exchange is paid at %s", a.To, t.V2.PayTo)
	}
	if p.X402Version == 1 {
		// The v1 amount binds the payment to its resource (see Terms): another amount may be the
		// amount of another resource at the same price.
		if a.Value != t.V1.MaxAmountRequired {
			return ReasonValue, fmt.Sprintf("the authorization moves %s units; an x402 v1 payment for %s moves exactly %s (its maxAmountRequired)",
				a.Value, orThisCall(t.V1.Resource), t.V1.MaxAmountRequired)
		}
	} else if a.Value != t.V2.Amount {
		return ReasonValue, fmt.Sprintf("the authorization moves %s units; this call costs exactly %s", a.Value, t.V2.Amount)
	}
	return "", ""
}

func orThisCall(resource string) string {
	if resource == "" {
		return "this call"
	}
	return resource
}

// sameResource compares resource URLs without their query strings (a trial flag or parameters
// do not change what is paid for).
func sameResource(a, b string) bool {
	cut := func(s string) string {
		if i := strings.IndexAny(s, "?#"); i >= 0 {
			s = s[:i]
		}
		return strings.TrimRight(s, "/")
	}
	return cut(a) == cut(b)
}

// MinValidity is how long an authorization must still be valid when it is verified: enough to
// settle it.
const MinValidity = 6 * time.Second

// Local is the exchange's own facilitator on its configured chain: it checks the signature, the
// amount, the recipient, the validity window, the nonce and the payer's balance, and settles by
// submitting the authorization from the hot wallet (which pays the gas).
type Local struct {
	Chain  *chain.Client
	Wallet *chain.Wallet
	Domain chain.Domain
	// Wait bounds how long Settle waits for the transaction to be mined.
	Wait time.Duration
	Now  func() time.Time
	// Sent, when not nil, is called once a settlement was broadcast, before it is waited for
	// (tests stop a call there).
	Sent func(txHash string)
}

// broadcastWait bounds the broadcast of a settlement whose hash was stored: it is finished even when
// the call's context ends meanwhile.
const broadcastWait = 30 * time.Second

// Name is "exchange".
func (l *Local) Name() string { return "exchange" }

func (l *Local) parse(p *Payment) (chain.Authorization, []byte, error) {
	var a chain.Authorization
	pa := p.Payload.Authorization
	a.From, a.To = common.HexToAddress(pa.From), common.HexToAddress(pa.To)
	a.Value, _ = new(big.Int).SetString(pa.Value, 10)
	a.ValidAfter, _ = new(big.Int).SetString(pa.ValidAfter, 10)
	a.ValidBefore, _ = new(big.Int).SetString(pa.ValidBefore, 10)
	n, err := hex.DecodeString(pa.Nonce[2:])
	if err != nil {
		return a, nil, err
	}
	copy(a.Nonce[:], n)
	sig, err := hex.DecodeString(p.Payload.Signature[2:])
	return a, sig, err
}

// Verify checks a payment on the chain without moving money.
func (l *Local) Verify(ctx context.Context, p *Payment, t Terms) (Verification, error) {
	v := Verification{Payer: p.Payload.Authorization.From}
	if reason, msg := Match(p, t, ""); reason != "" {
		v.InvalidReason, v.Message = reason, msg
		return v, nil
	}
	a, sig, err := l.parse(p)
	if err != nil {
		v.InvalidReason, v.Message = ReasonPayload, err.Error()
		return v, nil
	}
	now := l.now().Unix()
	if a.ValidAfter.Cmp(big.NewInt(now)) > 0 {
		v.InvalidReason, v.Message = ReasonValidAfter, "the authorization is not valid yet (validAfter is in the future)"
		return v, nil
	}
	if a.ValidBefore.Cmp(big.NewInt(now+int64(MinValidity/time.Second))) < 0 {
		v.InvalidReason, v.Message = ReasonValidBefore, "the authorization has expired (validBefore has passed or is too close to settle)"
		return v, nil
	}
	digest, err := l.Chain.AuthorizationDigest(l.Domain, a)
	if err != nil {
		return v, err
	}
	signer, err := chain.Signer(digest, sig)
	if err != nil || signer != a.From {
		v.InvalidReason, v.Message = ReasonSignature, "the signature is not the payer's signature of this authorization on this token and chain"
		return v, nil
	}
	err = payable(ctx, l.Chain, &v, a.From, a.Nonce, a.Value, "this authorization's nonce was already used on chain", ReasonFunds)
	return v, err
}

// payable checks on chain that payer's authorization nonce is unused (refused with usedMsg) and
// that payer holds amount (refused as fundsReason), and marks v valid when both hold; a refusal is
// answered in v, a failed read as the error.
func payable(ctx context.Context, c *chain.Client, v *Verification, payer common.Address, nonce [32]byte, amount *big.Int, usedMsg, fundsReason string) error {
	used, err := c.AuthorizationUsed(ctx, payer, nonce)
	if err != nil {
		return fmt.Errorf("read the authorization's state: %w", err)
	}
	if used {
		v.InvalidReason, v.Message = ReasonNonceUsed, usedMsg
		return nil
	}
	bal, err := c.BalanceOf(ctx, payer.Hex())
	if err != nil {
		return fmt.Errorf("read the payer's balance: %w", err)
	}
	if bal.Cmp(amount) < 0 {
		v.InvalidReason, v.Message = fundsReason, "the payer's balance is smaller than the payment"
		return nil
	}
	v.IsValid = true
	return nil
}

// Settle submits the authorization from the hot wallet and waits for it to be mined.
func (l *Local) Settle(ctx context.Context, p *Payment, t Terms, onSubmit func(string) error) (Settlement, error) {
	s := Settlement{Network: t.V2.Network, Payer: p.Payload.Authorization.From}
	if p.X402Version == 1 && t.V1 != nil {
		s.Network = t.V1.Network
	}
	a, sig, err := l.parse(p)
	if err != nil {
		s.ErrorReason = ReasonPayload
		return s, nil
	}
	out := l.sender().send(ctx, func(ctx context.Context) (chain.Signed, error) {
		signed, err := l.Wallet.SignAuthorization(ctx, a, sig)
		if err != nil {
			return signed, fmt.Errorf("the chain refuses the authorization: %w", err)
		}
		return signed, nil
	}, onSubmit)
	s.Transaction = out.Hash
	switch {
	case out.Err != nil:
		s.ErrorReason = ReasonSettle
		return s, fmt.Errorf("the settlement: %w", out.Err)
	case !out.Receipt.Success:
		s.ErrorReason = ReasonSettle
		return s, nil
	}
	s.Success = true
	return s, nil
}

func (l *Local) sender() *sender {
	return &sender{Chain: l.Chain, Wallet: l.Wallet, Wait: l.Wait, Sent: l.Sent}
}

func (l *Local) now() time.Time {
	if l.Now != nil {
		return l.Now()
	}
	return time.Now()
}

// remoteSettleWait bounds how long an outside facilitator's /settle is waited for.
const remoteSettleWait = 90 * time.Second

// Remote is an outside facilitator reached over HTTP.
type Remote struct {
	URL  string
	HTTP *http.Client
}

// Name is the facilitator's URL.
func (r *Remote) Name() string { return r.URL }

// Supported is the answer of GET /supported.
type Supported struct {
	Kinds []struct {
		X402Version int    `json:"x402Version"`
		Scheme      string `json:"scheme"`
		Network     string `json:"network"`
	} `json:"kinds"`
}

// Supports asks the facilitator whether it verifies and settles the exact scheme on network in
// version 2 (and reports whether it also does v1 on networkV1).
func (r *Remote) Supports(ctx context.Context, network, networkV1 string) (v2, v1 bool, err error) {
	var s Supported
	if err := r.do(ctx, http.MethodGet, "/supported", nil, &s); err != nil {
		return false, false, err
	}
	for _, k := range s.Kinds {
		if k.Scheme != SchemeExact {
			continue
		}
		if k.X402Version == 2 && k.Network == network {
			v2 = true
		}
		if k.X402Version == 1 && networkV1 != "" && k.Network == networkV1 {
			v1 = true
		}
	}
	return v2, v1, nil
}

type facilitatorRequest struct {
	X402Version         int      `json:"x402Version"`
	PaymentPayload      *Payment `json:"paymentPayload"`
	PaymentRequirements any      `json:"paymentRequirements"`
}

// Verify asks the facilitator's /verify.
func (r *Remote) Verify(ctx context.Context, p *Payment, t Terms) (Verification, error) {
	var v Verification
	err := r.do(ctx, http.MethodPost, "/verify", facilitatorRequest{p.X402Version, p, requirementsFor(p, t)}, &v)
	return v, err
}

// Settle asks the facilitator's /settle. Once asked, the facilitator may have settled whatever
// becomes of the request: so the question is recorded first (onSubmit("")), it is asked to the end
// even when ctx ends meanwhile (for at most remoteSettleWait), and a transaction named in any answer,
// even an error, is recorded.
func (r *Remote) Settle(ctx context.Context, p *Payment, t Terms, onSubmit func(string) error) (Settlement, error) {
	var s Settlement
	if onSubmit != nil {
		if err := onSubmit(""); err != nil {
			return s, err
		}
	}
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), remoteSettleWait)
	defer cancel()
	err := r.do(sctx, http.MethodPost, "/settle", facilitatorRequest{p.X402Version, p, requirementsFor(p, t)}, &s)
	if s.Transaction != "" && onSubmit != nil {
		if serr := onSubmit(strings.ToLower(s.Transaction)); serr != nil && err == nil {
			err = serr
		}
	}
	return s, err
}

// do calls the facilitator. An answer with an error status that still carries the expected body
// (isValid / success false) is that answer, as the reference facilitator sends them.
func (r *Remote) do(ctx context.Context, method, path string, in, out any) error {
	var body io.Reader
	if in != nil {
		b, err := json.Marshal(in)
		if err != nil {
			return err
		}
		body = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, strings.TrimRight(r.URL, "/")+path, body)
	if err != nil {
		return err
	}
	if in != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	hc := r.HTTP
	if hc == nil {
		hc = outbound.NewClient(outbound.NewTransport(outbound.Guard{AllowPrivate: true}), 90*time.Second)
	}
	resp, err := hc.Do(req)
	if err != nil {
		return fmt.Errorf("the facilitator at %s: %w", r.URL, err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return fmt.Errorf("the facilitator at %s: %w", r.URL, err)
	}
	if err := json.Unmarshal(raw, out); err != nil {
		return fmt.Errorf("the facilitator's %s answered %d with no readable body", path, resp.StatusCode)
	}
	if resp.StatusCode >= 300 && !bytes.Contains(raw, []byte(`"isValid"`)) && !bytes.Contains(raw, []byte(`"success"`)) {
		return fmt.Errorf("the facilitator's %s answered %d", path, resp.StatusCode)
	}
	return nil
}

// ErrNotSettled says a settlement failed.
var ErrNotSettled = errors.New("the payment was not settled")
