package x402_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/axp-exchange/axp/daemon/chain"
	"github.com/axp-exchange/axp/daemon/chain/chaintest"
	"github.com/axp-exchange/axp/daemon/x402"
	"github.com/ethereum/go-ethereum/crypto"
)

func TestDecodeRefusesWhatIsNotAPayment(t *testing.T) {
	for _, c := range []struct{ header, want string }{
		{"", "empty"},
		{"%%%", "not base64"},
		{base64.StdEncoding.EncodeToString([]byte("[1]")), "not a JSON payment"},
		{base64.StdEncoding.EncodeToString([]byte(`{"x402Version":3}`)), "versions 1 and 2"},
		{base64.StdEncoding.EncodeToString([]byte(`{"x402Version":1}`)), "without scheme or network"},
		{base64.StdEncoding.EncodeToString([]byte(`{"x402Version":2}`)), "without `accepted`"},
	} {
		if _, err := x402.Decode(c.header); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: %v, want %q", c.header, err, c.want)
		}
	}
	// URL-safe base64 without padding is read too.
	raw, _ := json.Marshal(x402.Payment{X402Version: 1, Scheme: "exact", Network: "base"})
	if _, err := x402.Decode(base64.RawURLEncoding.EncodeToString(raw)); err != nil {
		t.Fatal(err)
	}
}

// A v1 payment names no resource: its authorization's value must be the v1 amount of the terms
// exactly, which may differ from the v2 amount (the exchange binds v1 payments to a tool by it).
func TestMatchV1Amount(t *testing.T) {
	key, err := crypto.GenerateKey()
	if err != nil {
		t.Fatal(err)
	}
	const resource = "https://x.example/paid/b"
	extra := map[string]any{"name": "Test USD", "version": "2"}
	payTo, asset := "0x00000000000000000000000000000000000000d0", "0x00000000000000000000000000000000000000a5"
	terms := x402.Terms{V2: x402.Requirements{Scheme: "exact", Network: "eip155:84532", Amount: "5000", Asset: asset, PayTo: payTo,
		MaxTimeoutSeconds: 120, Extra: extra}}
	terms.V1 = &x402.RequirementsV1{Scheme: "exact", Network: "base-sepolia", MaxAmountRequired: "4998", Resource: resource,
		PayTo: payTo, Asset: asset, MaxTimeoutSeconds: 120, Extra: extra}
	pay := func(amount string, version int) *x402.Payment {
		t.Helper()
		r := terms.V2
		r.Amount = amount
		h, err := x402.Pay(key, r, "", version, "base-sepolia", time.Now())
		if err != nil {
			t.Fatal(err)
		}
		return payment(t, h)
	}
	for _, c := range []struct {
		amount  string
		version int
		want    string
	}{
		{"4998", 1, ""},
		{"4999", 1, x402.ReasonValue}, // another tool's v1 amount at the same price
		{"5000", 1, x402.ReasonValue}, // the price itself
		{"5000", 2, ""},
		{"4998", 2, x402.ReasonValue},
	} {
		reason, msg := x402.Match(pay(c.amount, c.version), terms, resource)
		if reason != c.want {
			t.Errorf("v%d moving %s: %q %s, want %q", c.version, c.amount, reason, msg, c.want)
		}
		if c.want != "" && c.version == 1 && (!strings.Contains(msg, resource) || !strings.Contains(msg, "exactly 4998")) {
			t.Errorf("v1 moving %s: %s names neither the resource nor its amount", c.amount, msg)
		}
	}
}

// local is the exchange's own facilitator on a fresh anvil chain, with its terms.
func local(t *testing.T) (*chaintest.Chain, *x402.Local, x402.Terms) {
	c := chaintest.Start(t)
	deposit := chaintest.Addr(c.NewKey())
	ctx := context.Background()
	cl, _, err := chain.Dial(ctx, chain.Config{RPCURL: c.URL, Token: c.Token, Deposit: deposit, Confirmations: 1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cl.Close)
	dom, err := cl.Domain(ctx)
	if err != nil || dom.Name != "Test USD" || dom.Version != "2" {
		t.Fatalf("domain %+v %v", dom, err)
	}
	l := &x402.Local{Chain: cl, Wallet: chain.NewWallet(cl, c.NewKey()), Domain: dom}
	terms := x402.Terms{V2: x402.Requirements{Scheme: "exact", Network: x402.Network(chaintest.ID), Amount: "250000", Asset: cl.Token(),
		PayTo: deposit, MaxTimeoutSeconds: 120, Extra: map[string]any{"name": dom.Name, "version": dom.Version}}}
	return c, l, terms
}

func payment(t *testing.T, h string) *x402.Payment {
	p, err := x402.Decode(h)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestLocalVerifyAndSettle(t *testing.T) {
	c, l, terms := local(t)
	ctx := context.Background()
	payer := c.NewKey()
	c.Mint(c.Token, chaintest.Addr(payer), 1_000_000)
	h, err := x402.Pay(payer, terms.V2, "https://x.example/paid/a", 2, "", time.Now())
	if err != nil {
		t.Fatal(err)
	}
	p := payment(t, h)
	if v, err := l.Verify(ctx, p, terms); err != nil || !v.IsValid {
		t.Fatalf("verify: %+v %v", v, err)
	}
	var submitted string
	s, err := l.Settle(ctx, p, terms, func(hash string) error { submitted = hash; return nil })
	if err != nil || !s.Success || s.Transaction != submitted || !strings.EqualFold(s.Payer, chaintest.Addr(payer)) {
		t.Fatalf("settle: %+v %v (submitted %s)", s, err, submitted)
	}
	if got := c.Balance(c.Token, terms.V2.PayTo); got != 250_000 {
		t.Fatalf("deposit holds %d", got)
	}
	// Once settled, the nonce is used: verifying again says so.
	if v, _ := l.Verify(ctx, p, terms); v.IsValid || v.InvalidReason != x402.ReasonNonceUsed {
		t.Fatalf("after settle: %+v", v)
	}

	for _, bad := range []struct {
		name   string
		key    bool // signed by another key
		mod    func(*x402.Requirements)
		reason string
	}{
		{"another signer", true, nil, x402.ReasonSignature},
		{"too little", false, func(r *x402.Requirements) { r.Amount = "1" }, x402.ReasonValue},
		{"expired", false, func(r *x402.Requirements) { r.MaxTimeoutSeconds = 2 }, x402.ReasonValidBefore},
		{"another token", false, func(r *x402.Requirements) { r.Asset = chaintest.Addr(c.NewKey()) }, x402.ReasonAsset},
	} {
		r := terms.V2
		if bad.mod != nil {
			bad.mod(&r)
		}
		k := payer
		if bad.key {
			k = c.NewKey()
		}
		h, err := x402.Pay(k, r, "", 2, "", time.Now())
		if err != nil {
			t.Fatal(err)
		}
		p := payment(t, h)
		if bad.key {
			// Claim the payer's address with another key's signature.
			p.Payload.Authorization.From = chaintest.Addr(payer)
		}
		v, err := l.Verify(ctx, p, terms)
		if err != nil || v.IsValid || v.InvalidReason != bad.reason {
			t.Errorf("%s: %+v %v, want %s", bad.name, v, err, bad.reason)
		}
	}
	// A payer without the money.
	poor := c.NewKey()
	h, _ = x402.Pay(poor, terms.V2, "", 2, "", time.Now())
	if v, _ := l.Verify(ctx, payment(t, h), terms); v.IsValid || v.InvalidReason != x402.ReasonFunds {
		t.Fatalf("no funds: %+v", v)
	}
}

// An outside facilitator speaks /supported, /verify and /settle; here a loopback one that runs the
// exchange's own logic behind the HTTP API shape.
func TestRemoteFacilitator(t *testing.T) {
	c, l, terms := local(t)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		if r.URL.Path == "/supported" {
			json.NewEncoder(w).Encode(map[string]any{"kinds": []map[string]any{{"x402Version": 2, "scheme": "exact", "network": terms.V2.Network}}})
			return
		}
		var req struct {
			X402Version         int               `json:"x402Version"`
			PaymentPayload      *x402.Payment     `json:"paymentPayload"`
			PaymentRequirements x402.Requirements `json:"paymentRequirements"`
		}
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil || req.PaymentRequirements.Amount != terms.V2.Amount {
			http.Error(w, "bad request", 400)
			return
		}
		switch r.URL.Path {
		case "/verify":
			v, _ := l.Verify(r.Context(), req.PaymentPayload, terms)
			if !v.IsValid {
				w.WriteHeader(400) // as the reference facilitator answers an invalid payment
			}
			json.NewEncoder(w).Encode(v)
		case "/settle":
			s, _ := l.Settle(r.Context(), req.PaymentPayload, terms, nil)
			json.NewEncoder(w).Encode(s)
		}
	}))
	defer srv.Close()
	rem := &x402.Remote{URL: srv.URL}
	ctx := context.Background()
	v2, v1, err := rem.Supports(ctx, terms.V2.Network, "base")
	if err != nil || !v2 || v1 {
		t.Fatalf("supports: %v %v %v", v2, v1, err)
	}
	payer := c.NewKey()
	c.Mint(c.Token, chaintest.Addr(payer), 1_000_000)
	h, _ := x402.Pay(payer, terms.V2, "", 2, "", time.Now())
	p := payment(t, h)
	if v, err := rem.Verify(ctx, p, terms); err != nil || !v.IsValid {
		t.Fatalf("verify: %+v %v", v, err)
	}
	var submitted string
	s, err := rem.Settle(ctx, p, terms, func(hash string) error { submitted = hash; return nil })
	if err != nil || !s.Success || submitted != strings.ToLower(s.Transaction) {
		t.Fatalf("settle: %+v %v", s, err)
	}
	// An invalid payment comes back as the facilitator's answer, with its reason.
	v, err := rem.Verify(ctx, p, terms)
	if err != nil || v.IsValid || v.InvalidReason != x402.ReasonNonceUsed {
		t.Fatalf("verify used: %+v %v", v, err)
	}
}
