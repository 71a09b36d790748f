package daemon_test

import (
	"context"
	"crypto/ecdsa"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/axp-exchange/axp"
	"github.com/axp-exchange/axp/client"
	"github.com/axp-exchange/axp/contract"
	"github.com/axp-exchange/axp/daemon"
	"github.com/axp-exchange/axp/daemon/chain/chaintest"
	"github.com/axp-exchange/axp/daemon/x402"
)

// acTerms decodes a 402's PAYMENT-REQUIRED: the requirements and their auth-capture way, or nil.
func acTerms(t *testing.T, resp *client.Response) (x402.Required, *x402.Requirements) {
	t.Helper()
	r, raw := required(t, resp)
	if len(r.Accepts) == 0 || r.Accepts[0].Scheme != x402.SchemeExact {
		t.Fatalf("PAYMENT-REQUIRED %s does not offer exact first", raw)
	}
	for _, a := range r.Accepts[1:] {
		if a.Scheme == x402.SchemeAuthCapture {
			return r, &a
		}
	}
	return r, nil
}

// payAC signs an auth-capture payment of ac (of the 402 answer r) with key.
func payAC(t *testing.T, key *ecdsa.PrivateKey, r x402.Required, ac x402.Requirements) string {
	t.Helper()
	h, err := x402.PayAuthCapture(key, ac, r.Resource.URL, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// contractHeld is what the ledger's contract accounts hold together.
func contractHeld(b map[string]axp.Money) axp.Money {
	var n axp.Money
	for acct, v := range b {
		if strings.HasPrefix(acct, "contract:") {
			n += v
		}
	}
	return n
}

// Without an escrow, the 402 answer offers the exact scheme alone, and an auth-capture payment is
// refused, naming the scheme the exchange takes.
func TestPaidAuthCaptureAbsentWithoutEscrow(t *testing.T) {
	m := newChainMarket(t)
	resp := paidCall(t, m.anon, "POST", "/paid/text/injection-check", injectionText, nil)
	req, ac := acTerms(t, resp)
	if ac != nil || len(req.Accepts) != 1 {
		t.Fatalf("auth-capture offered without an escrow: %+v", req.Accepts)
	}
	fake := x402.AuthCaptureRequirements(req.Accepts[0], x402.EscrowOffer{CaptureDeadline: time.Now().Add(10 * time.Minute).Unix()})
	payer := m.buyerWallet(1_000_000)
	resp = paidCall(t, m.anon, "POST", "/paid/text/injection-check", injectionText, map[string]string{x402.HeaderSignature: payAC(t, payer, req, fake)})
	if resp.Status != 402 || !strings.Contains(string(resp.Body), "exact scheme only") {
		t.Fatalf("auth-capture payment without an escrow: %d %s", resp.Status, resp.Body)
	}
}

// Paying with auth-capture: the 402 answer offers it beside exact (the hot wallet operates, the
// deposit address receives the price, no fee, a capture deadline minutes away); a paid call is
// authorized into the escrow, answered, then captured: the caller's wallet loses the price, the
// deposit address gains it, the escrow holds nothing, the ledger books it through the call's
// contract account, and PAYMENT-RESPONSE names the capture. A call whose tool fails is voided: the
// caller is whole. The same payment again and a payment of another amount are refused, moving
// nothing; reconcile covers it all.
func TestChainPaidAuthCapture(t *testing.T) {
	m := newEscrowMarket(t)
	payer := m.buyerWallet(1_000_000)
	payerAddr := chaintest.Addr(payer)
	depositBefore := m.c.Balance(m.c.Token, m.deposit)
	const path = "/paid/text/injection-check"

	req, ac := acTerms(t, paidCall(t, m.anon, "POST", path, injectionText, nil))
	if ac == nil {
		t.Fatalf("no auth-capture terms: %+v", req.Accepts)
	}
	x := ac.Extra
	deadline, _ := x["captureDeadline"].(float64)
	left := time.Until(time.Unix(int64(deadline), 0))
	if ac.Amount != "5000" || !strings.EqualFold(ac.PayTo, m.deposit) || !strings.EqualFold(ac.Asset, m.c.Token) ||
		!strings.EqualFold(x["authCaptureEscrow"].(string), m.k.Escrow.Hex()) || !strings.EqualFold(x["tokenCollector"].(string), m.k.Collector.Hex()) ||
		!strings.EqualFold(x["captureAuthorizer"].(string), chaintest.Addr(m.hot)) || x["minFeeBps"] != float64(0) || x["maxFeeBps"] != float64(0) ||
		left < 5*time.Minute || left > 15*time.Minute || x["refundDeadline"] != x["captureDeadline"] {
		t.Fatalf("auth-capture terms %+v (capturable for %s)", ac, left)
	}

	header := payAC(t, payer, req, *ac)
	resp := paidCall(t, m.anon, "POST", path, injectionText, map[string]string{x402.HeaderSignature: header})
	if resp.Status != 200 {
		t.Fatalf("paid call: %d %s", resp.Status, resp.Body)
	}
	s := settlement(t, resp, x402.HeaderResponse)
	if !strings.EqualFold(s.Payer, payerAddr) || s.Amount != "5000" {
		t.Fatalf("settlement %+v", s)
	}
	if r := m.c.Receipt(s.Transaction); r == nil || len(r.Logs) == 0 {
		t.Fatalf("the capture %s is not mined", s.Transaction)
	}
	check := func(when string, payerHolds, deposit, callers axp.Money) {
		t.Helper()
		b := m.balances()
		switch {
		case m.c.Balance(m.c.Token, payerAddr) != payerHolds:
			t.Fatalf("%s: the payer holds %d, want %d", when, m.c.Balance(m.c.Token, payerAddr), payerHolds)
		case m.c.Balance(m.c.Token, m.deposit) != depositBefore+deposit:
			t.Fatalf("%s: the deposit address holds %d, want %d", when, m.c.Balance(m.c.Token, m.deposit), depositBefore+deposit)
		case m.held() != 0:
			t.Fatalf("%s: the escrow holds %d", when, m.held())
		case b[axp.AcctPaidCalls] != deposit || b[axp.AcctCallers] != callers || contractHeld(b) != 0:
			t.Fatalf("%s: balances %v", when, b)
		}
	}
	check("captured", 1_000_000-5_000, 5_000, -5_000)

	// The same payment again: refused, nothing moves.
	resp = paidCall(t, m.anon, "POST", path, injectionText, map[string]string{x402.HeaderSignature: header})
	if resp.Status != 402 || !strings.Contains(string(resp.Body), "already used") {
		t.Fatalf("replay: %d %s", resp.Status, resp.Body)
	}
	// Another amount: refused naming it, nothing moves.
	other := *ac
	other.Amount = "4000"
	resp = paidCall(t, m.anon, "POST", path, injectionText, map[string]string{x402.HeaderSignature: payAC(t, payer, req, other)})
	if resp.Status != 402 || !strings.Contains(string(resp.Body), "costs 5000") {
		t.Fatalf("another amount: %d %s", resp.Status, resp.Body)
	}
	check("refused", 1_000_000-5_000, 5_000, -5_000)

	// A tool that fails (no search backend): authorized, then voided; the caller is whole.
	req, ac = acTerms(t, paidCall(t, m.anon, "GET", "/paid/web/search?q=x402", "", nil))
	failed := payAC(t, payer, req, *ac)
	resp = paidCall(t, m.anon, "GET", "/paid/web/search?q=x402", "", map[string]string{x402.HeaderSignature: failed})
	if resp.Status == 200 || resp.Status == 402 {
		t.Fatalf("failing tool: %d %s", resp.Status, resp.Body)
	}
	// The error carries the void in PAYMENT-RESPONSE: not settled, the void's transaction mined.
	var void x402.Settlement
	raw, _ := base64.StdEncoding.DecodeString(resp.Header.Get(x402.HeaderResponse))
	if err := json.Unmarshal(raw, &void); err != nil || void.Success || void.ErrorReason != x402.ReasonACVoided || void.Amount != "0" {
		t.Fatalf("PAYMENT-RESPONSE of a failed call: %q (%v)", raw, err)
	}
	if r := m.c.Receipt(void.Transaction); r == nil || r.Status != 1 {
		t.Fatalf("the void %s is not mined", void.Transaction)
	}
	check("voided", 1_000_000-5_000, 5_000, -5_000)
	kinds := map[string]int{}
	for _, e := range m.ledger() {
		kinds[e.Kind]++
	}
	if kinds["paid_call_hold"] != 2 || kinds["paid_call"] != 1 || kinds["paid_call_void"] != 1 {
		t.Fatalf("ledger entries %v: want two holds, one capture, one void", kinds)
	}
	resp = paidCall(t, m.anon, "GET", "/paid/web/search?q=x402", "", map[string]string{x402.HeaderSignature: failed})
	if resp.Status != 402 || !strings.Contains(string(resp.Body), "voided") {
		t.Fatalf("the voided payment again: %d %s", resp.Status, resp.Body)
	}

	// Reconcile: the capture's transfer is a paid call, and the ledger covers the chain.
	eventually(t, func() error {
		m.c.Mine(1)
		r := *callOp(t, m.admin, contract.AdminReconcile, contract.NoInput{})
		if !r.Covered || len(r.UnknownTransfers) != 0 || r.ReceivedUSD != 5_000 {
			return fmt.Errorf("reconcile %+v", r)
		}
		return nil
	})
}

// A daemon killed during an auth-capture call: once its payment was authorized (the tool never
// answered), the recovery pass voids it and the caller is whole; once its capture was mined but not
// booked, the recovery pass books it, once. Neither is captured twice.
func TestChainPaidAuthCaptureCrash(t *testing.T) {
	clk := &clock{}
	// The sweeper's own recovery pass stays out of the way: the test runs it itself.
	m := newEscrowMarket(t, func(cfg *daemon.Config) { cfg.Now, cfg.SweepEvery = clk.Now, time.Hour })
	payer := m.buyerWallet(1_000_000)
	payerAddr := chaintest.Addr(payer)
	const path = "/paid/text/injection-check"
	crashAt := func(stage string) {
		m.d.SetPaidHook(func(s string) {
			if s == stage {
				panic("the exchange stops here")
			}
		})
	}

	// Killed once the payment is authorized, before the tool answers.
	req, ac := acTerms(t, paidCall(t, m.anon, "POST", path, injectionText, nil))
	header := payAC(t, payer, req, *ac)
	crashAt("authorized")
	if resp := paidCall(t, m.anon, "POST", path, injectionText, map[string]string{x402.HeaderSignature: header}); resp.Status != 500 {
		t.Fatalf("crashed call: %d %s", resp.Status, resp.Body)
	}
	m.d.SetPaidHook(nil)
	if m.held() != 5_000 || m.c.Balance(m.c.Token, payerAddr) != 1_000_000-5_000 || contractHeld(m.balances()) != 5_000 {
		t.Fatalf("authorized: escrow %d, payer %d, balances %v", m.held(), m.c.Balance(m.c.Token, payerAddr), m.balances())
	}
	if n := m.d.RecoverPaidCalls(context.Background()); n != 0 {
		t.Fatalf("recovered %d calls being answered", n)
	}
	clk.Advance(3 * time.Minute)
	if n := m.d.RecoverPaidCalls(context.Background()); n != 1 {
		t.Fatalf("recovered %d, want 1", n)
	}
	if n := m.d.RecoverPaidCalls(context.Background()); n != 0 {
		t.Fatalf("recovered again: %d", n)
	}
	b := m.balances()
	if m.held() != 0 || m.c.Balance(m.c.Token, payerAddr) != 1_000_000 || contractHeld(b) != 0 || b[axp.AcctCallers] != 0 || b[axp.AcctPaidCalls] != 0 {
		t.Fatalf("voided: escrow %d, payer %d, balances %v", m.held(), m.c.Balance(m.c.Token, payerAddr), b)
	}
	resp := paidCall(t, m.anon, "POST", path, injectionText, map[string]string{x402.HeaderSignature: header})
	if resp.Status != 402 || !strings.Contains(string(resp.Body), "voided") {
		t.Fatalf("the voided payment again: %d %s", resp.Status, resp.Body)
	}

	// Killed once the capture is mined, before it is booked.
	req, ac = acTerms(t, paidCall(t, m.anon, "POST", path, injectionText, nil))
	header = payAC(t, payer, req, *ac)
	crashAt("settled")
	if resp := paidCall(t, m.anon, "POST", path, injectionText, map[string]string{x402.HeaderSignature: header}); resp.Status != 500 {
		t.Fatalf("crashed call: %d %s", resp.Status, resp.Body)
	}
	m.d.SetPaidHook(nil)
	clk.Advance(3 * time.Minute)
	if n := m.d.RecoverPaidCalls(context.Background()); n != 1 {
		t.Fatalf("recovered %d, want 1", n)
	}
	if n := m.d.RecoverPaidCalls(context.Background()); n != 0 {
		t.Fatalf("recovered again: %d", n)
	}
	b = m.balances()
	if m.held() != 0 || m.c.Balance(m.c.Token, payerAddr) != 1_000_000-5_000 || contractHeld(b) != 0 || b[axp.AcctPaidCalls] != 5_000 || b[axp.AcctCallers] != -5_000 {
		t.Fatalf("captured: escrow %d, payer %d, balances %v", m.held(), m.c.Balance(m.c.Token, payerAddr), b)
	}
	// Killed once the authorize is broadcast, before its receipt is read: the recovery pass books
	// the hold it finds on the escrow, then voids it.
	req, ac = acTerms(t, paidCall(t, m.anon, "POST", path, injectionText, nil))
	broadcast, err := x402.PayAuthCapture(payer, *ac, req.Resource.URL, clk.Now())
	if err != nil {
		t.Fatal(err)
	}
	crashAt("broadcast")
	if resp := paidCall(t, m.anon, "POST", path, injectionText, map[string]string{x402.HeaderSignature: broadcast}); resp.Status != 500 {
		t.Fatalf("crashed call: %d %s", resp.Status, resp.Body)
	}
	m.d.SetPaidHook(nil)
	eventually(t, func() error {
		if m.held() != 5_000 {
			return fmt.Errorf("the escrow holds %d", m.held())
		}
		return nil
	})
	clk.Advance(3 * time.Minute)
	if n := m.d.RecoverPaidCalls(context.Background()); n != 1 {
		t.Fatalf("recovered %d, want 1", n)
	}
	b = m.balances()
	if m.held() != 0 || m.c.Balance(m.c.Token, payerAddr) != 1_000_000-5_000 || contractHeld(b) != 0 || b[axp.AcctPaidCalls] != 5_000 || b[axp.AcctCallers] != -5_000 {
		t.Fatalf("voided after the broadcast: escrow %d, payer %d, balances %v", m.held(), m.c.Balance(m.c.Token, payerAddr), b)
	}

	// The same payment again (its authorization expired meanwhile on the exchange's clock): refused,
	// nothing moves.
	if resp := paidCall(t, m.anon, "POST", path, injectionText, map[string]string{x402.HeaderSignature: header}); resp.Status != 402 {
		t.Fatalf("the recovered payment again: %d %s", resp.Status, resp.Body)
	}
	if m.held() != 0 || m.c.Balance(m.c.Token, payerAddr) != 1_000_000-5_000 || m.balances()[axp.AcctPaidCalls] != 5_000 {
		t.Fatalf("after the replay: escrow %d, payer %d, balances %v", m.held(), m.c.Balance(m.c.Token, payerAddr), m.balances())
	}
}

// A connector's setup fee takes the exact scheme only: its booking is what makes the connector
// live.
func TestChainPaidAuthCaptureNotForSetupFees(t *testing.T) {
	m := newEscrowMarket(t)
	var cn axp.Connector
	resp, err := doOp(m.anon, contract.RequestConnector, axp.ConnectorRequest{URL: "https://example.com/price", Wants: "stablecoin prices by coin"})
	if err != nil || resp.Status != 201 {
		t.Fatalf("request: %v %v", resp, err)
	}
	json.Unmarshal(resp.Body, &cn)
	call(t, m.admin, "admin_connector_accept", map[string]any{"id": cn.ID, "name": "stable-prices", "price_usd": 0.02, "category": "market"}, &cn)
	if _, ac := acTerms(t, paidCall(t, m.anon, "POST", "/api/connectors/"+cn.ID+"/setup", "", nil)); ac != nil {
		t.Fatalf("auth-capture offered for a setup fee: %+v", ac)
	}
}
