package outbound

import (
	"context"
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/axp-exchange/axp/protocol"
)

func TestDeniedRule(t *testing.T) {
	for addr, denied := range map[string]bool{
		"10.255.255.1": true, "172.16.0.1": true, "172.31.255.255": true, "192.168.1.1": true,
		"169.254.169.254": true, "100.64.0.1": true, "0.0.0.0": true, "::": true, "fd00::1": true,
		"fe80::1": true, "::ffff:169.254.169.254": true, "::ffff:10.0.0.1": true,
		"64:ff9b::a9fe:a9fe": true, "64:ff9b::a00:1": true, "64:ff9b::808:808": true, "64:ff9b:1::a00:1": true,
		"127.0.0.1": false, "127.8.9.1": false, "::1": false, "::ffff:127.0.0.1": false,
		"8.8.8.8": false, "172.32.0.1": false, "100.128.0.1": false, "2001:db8::1": false,
	} {
		if got := DeniedRule(netip.MustParseAddr(addr)) != ""; got != denied {
			t.Errorf("DeniedRule(%s) denied=%v, want %v", addr, got, denied)
		}
	}
}

func TestDeniedURL(t *testing.T) {
	for u, denied := range map[string]bool{
		"http://169.254.169.254/latest/meta-data": true, "https://10.0.0.5:8443/mcp": true,
		"http://[fd12::1]:80/cb": true, "http://[fe80::1%25eth0]/x": true,
		"http://127.0.0.1:9000/cb": false, "http://localhost/cb": false, "https://example.com/mcp": false,
		"http://internal.example/": false, "not a url": false, "": false,
	} {
		if got := DeniedURL(u) != ""; got != denied {
			t.Errorf("DeniedURL(%q) denied=%v, want %v", u, got, denied)
		}
	}
}

// The dialer's Control func sees the address after DNS, so a host name that resolves to a private
// address is refused like a literal.
func TestRefuseDeniedAtDial(t *testing.T) {
	if err := refuseDenied("tcp", "10.1.2.3:443", nil); err == nil || refused(err) == nil {
		t.Fatalf("10.1.2.3 was not refused: %v", err)
	}
	if err := refuseDenied("tcp6", "[fd00::1]:80", nil); refused(err) == nil {
		t.Fatalf("fd00::1 was not refused: %v", err)
	}
	for _, ok := range []string{"127.0.0.1:8420", "[::1]:80", "93.184.216.34:443"} {
		if err := refuseDenied("tcp", ok, nil); err != nil {
			t.Fatalf("%s was refused: %v", ok, err)
		}
	}
}

// A private literal is refused before any packet is sent: 10.255.255.1 would otherwise hang
// until the call's timeout.
func TestCallRefusesPrivateTarget(t *testing.T) {
	c := &Caller{Timeout: 5 * time.Second}
	start := time.Now()
	_, err := c.Call(context.Background(), Target{MemberID: "m", MCPURL: "http://10.255.255.1:9/mcp", PlatformKey: []byte("k")}, "quote", quoteInput(), nil)
	ce := callError(t, err, KindRefusedTarget)
	if !strings.Contains(ce.Message, "outbound_private") || !strings.Contains(ce.Message, "10.0.0.0/8") {
		t.Fatalf("message names neither the rule nor the key: %s", ce.Message)
	}
	if Retryable(err) {
		t.Fatal("a refused target must not be retried")
	}
	err = c.PostJSON(context.Background(), "http://169.254.169.254/latest", []byte("k"), "buyer:t", map[string]any{"a": 1})
	ce = callError(t, err, KindRefusedTarget)
	if !strings.Contains(ce.Message, "169.254.0.0/16") || !strings.Contains(ce.Message, "callback URL") {
		t.Fatalf("callback message: %s", ce.Message)
	}
	if el := time.Since(start); el > 2*time.Second {
		t.Fatalf("refusals took %s: the address was dialed", el)
	}
}

// Loopback stays reachable under the default, for local development and tests.
func TestCallAllowsLoopbackByDefault(t *testing.T) {
	m := newMember(t, mcpServer(t, nil))
	if !strings.Contains(m.target().MCPURL, "127.0.0.1") {
		t.Skip("test member is not on 127.0.0.1")
	}
	var q protocol.QuoteAnswer
	if _, err := (&Caller{}).Call(context.Background(), m.target(), "quote", quoteInput(), &q); err != nil {
		t.Fatal(err)
	}
}

// The operator's own endpoints (Trusted) may be private; every other address is judged.
func TestDialerTrustsOperatorEndpoints(t *testing.T) {
	dial := dialer(false, []string{TrustedEndpoint("http://10.255.255.1:9/v1")})
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	if _, err := dial(ctx, "tcp", "10.255.255.2:9"); refused(err) == nil {
		t.Fatalf("an untrusted private address was not refused: %v", err)
	}
	// Dialed (whether anything answers there depends on the network): not refused.
	if conn, err := dial(ctx, "tcp", "10.255.255.1:9"); refused(err) != nil {
		t.Fatalf("the trusted endpoint was refused instead of dialed: %v", err)
	} else if conn != nil {
		conn.Close()
	}
	for in, want := range map[string]string{"https://AI.example:8443/v1": "ai.example:8443", "http://10.0.0.5/v1": "10.0.0.5:80",
		"https://models.internal": "models.internal:443", "not a url": ""} {
		if got := TrustedEndpoint(in); got != want {
			t.Errorf("TrustedEndpoint(%q) = %q, want %q", in, got, want)
		}
	}
}
