package x402_test

import (
	"strings"
	"testing"
	"time"

	"github.com/axp-exchange/axp/daemon/chain"
	"github.com/axp-exchange/axp/daemon/chain/escrow"
	"github.com/axp-exchange/axp/daemon/x402"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
)

// MatchAuthCapture takes a payment signed for the call's auth-capture terms and rebuilds the
// PaymentInfo whose nonce the payer signed (its signature recovers to the payer); every term that
// differs (amount, operator, escrow, collector, fees, deadlines, salt, a bound payload) is refused
// with the scheme's reason.
func TestX402AuthCaptureMatch(t *testing.T) {
	key, _ := crypto.GenerateKey()
	now := time.Now()
	addr := func(b byte) common.Address { return common.BytesToAddress([]byte{b}) }
	exact := x402.Requirements{Scheme: x402.SchemeExact, Network: "eip155:31337", Amount: "5000", Asset: addr(1).Hex(), PayTo: addr(2).Hex(),
		MaxTimeoutSeconds: 300, Extra: map[string]any{"name": "Test USD", "version": "2"}}
	offer := x402.EscrowOffer{Escrow: addr(3), Collector: addr(4), Operator: addr(5), FeeReceiver: addr(2), CaptureDeadline: now.Add(10 * time.Minute).Unix()}
	want := x402.AuthCaptureRequirements(exact, offer)
	const resource = "http://127.0.0.1/paid/text/injection-check"
	w := x402.AuthCaptureWindow{Now: now, MinLeft: 3 * time.Minute, MaxAhead: 11 * time.Minute}
	pay := func(mod func(*x402.Requirements)) *x402.Payment {
		t.Helper()
		r := x402.AuthCaptureRequirements(exact, offer)
		if mod != nil {
			mod(&r)
		}
		h, err := x402.PayAuthCapture(key, r, resource, now)
		if err != nil {
			t.Fatal(err)
		}
		p, err := x402.Decode(h)
		if err != nil {
			t.Fatal(err)
		}
		return p
	}

	p := pay(nil)
	info, reason, msg := x402.MatchAuthCapture(p, want, resource, 31337, w)
	if reason != "" {
		t.Fatalf("refused: %s %s", reason, msg)
	}
	if info.Payer != crypto.PubkeyToAddress(key.PublicKey) || info.Operator != addr(5) || info.Receiver != addr(2) ||
		info.MaxAmount.String() != "5000" || info.AuthorizationExpiry != uint64(offer.CaptureDeadline) || info.MaxFeeBps != 0 {
		t.Fatalf("payment info %+v", info)
	}
	digest, err := escrow.Digest(chain.Domain{Name: "Test USD", Version: "2"}, 31337, addr(3), addr(4), info)
	if err != nil {
		t.Fatal(err)
	}
	if signer, err := chain.Signer(digest, common.FromHex(p.Payload.Signature)); err != nil || signer != info.Payer {
		t.Fatalf("the signature recovers to %s (%v), not the payer", signer.Hex(), err)
	}

	for _, c := range []struct {
		name   string
		mod    func(*x402.Requirements)
		change func(*x402.Payment)
		want   string
	}{
		{"amount", func(r *x402.Requirements) { r.Amount = "4000" }, nil, x402.ReasonACAmount},
		{"operator", func(r *x402.Requirements) { r.Extra["captureAuthorizer"] = addr(9).Hex() }, nil, x402.ReasonACOperator},
		{"escrow", func(r *x402.Requirements) { r.Extra["authCaptureEscrow"] = addr(9).Hex() }, nil, x402.ReasonACExtra},
		{"collector", func(r *x402.Requirements) { r.Extra["tokenCollector"] = addr(9).Hex() }, nil, x402.ReasonACCollector},
		{"fee", func(r *x402.Requirements) { r.Extra["maxFeeBps"] = 100 }, nil, x402.ReasonACExtra},
		{"far deadline", func(r *x402.Requirements) {
			r.Extra["captureDeadline"], r.Extra["refundDeadline"] = now.Add(time.Hour).Unix(), now.Add(time.Hour).Unix()
		}, nil, x402.ReasonACDeadline},
		{"near deadline", func(r *x402.Requirements) {
			r.Extra["captureDeadline"], r.Extra["refundDeadline"] = now.Add(time.Minute).Unix(), now.Add(time.Minute).Unix()
		}, nil, x402.ReasonACCapture},
		{"other salt", nil, func(p *x402.Payment) { p.Payload.Salt = "0x" + strings.Repeat("ab", 32) }, x402.ReasonACNonce},
		{"bound", nil, func(p *x402.Payment) { p.Payload.SaltNonce = "0x" + strings.Repeat("01", 32) }, x402.ReasonACPayload},
		{"exact", func(r *x402.Requirements) { r.Scheme = x402.SchemeExact }, nil, x402.ReasonScheme},
	} {
		p := pay(c.mod)
		if c.change != nil {
			c.change(p)
		}
		if _, reason, msg := x402.MatchAuthCapture(p, want, resource, 31337, w); reason != c.want {
			t.Errorf("%s: %q (%s), want %q", c.name, reason, msg, c.want)
		}
	}
}
