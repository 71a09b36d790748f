package outbound

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
	"syscall"
	"time"
)

// PrivateConfigKey is the configuration key that decides whether the exchange may call private
// addresses; messages name it so a refused operator knows what to change.
const PrivateConfigKey = "outbound_private"

// deniedRanges are the address ranges the exchange refuses to call unless private targets are
// allowed: what an outsider must not reach through a task's callback_url or a member's mcp_url
// (the operator's internal network, cloud metadata at 169.254.169.254). Loopback is not here: it
// is the exchange's own machine, where local development runs its members and callback sinks.
var deniedRanges = []struct {
	prefix netip.Prefix
	rule   string
}{
	{netip.MustParsePrefix("0.0.0.0/8"), "\"this network\" addresses (0.0.0.0/8)"},
	{netip.MustParsePrefix("10.0.0.0/8"), "private addresses (10.0.0.0/8)"},
	{netip.MustParsePrefix("100.64.0.0/10"), "shared carrier-grade NAT addresses (100.64.0.0/10)"},
	{netip.MustParsePrefix("169.254.0.0/16"), "link-local addresses (169.254.0.0/16, cloud metadata included)"},
	{netip.MustParsePrefix("172.16.0.0/12"), "private addresses (172.16.0.0/12)"},
	{netip.MustParsePrefix("192.168.0.0/16"), "private addresses (192.168.0.0/16)"},
	{netip.MustParsePrefix("::/128"), "the unspecified address (::)"},
	{netip.MustParsePrefix("fc00::/7"), "unique local addresses (fc00::/7)"},
	{netip.MustParsePrefix("fe80::/10"), "link-local addresses (fe80::/10)"},
	// NAT64 prefixes carry an IPv4 address inside an IPv6 one: through a NAT64 gateway
	// 64:ff9b::a00:1 is 10.0.0.1. The embedded address is not judged; the whole prefix is refused.
	{netip.MustParsePrefix("64:ff9b::/96"), "NAT64 addresses (64:ff9b::/96)"},
	{netip.MustParsePrefix("64:ff9b:1::/48"), "local-use NAT64 addresses (64:ff9b:1::/48)"},
}

// loopbackRule names loopback when the exchange refuses it.
const loopbackRule = "loopback addresses (127.0.0.0/8, ::1: the exchange's own machine)"

// Guard says which addresses the exchange's outbound transport refuses to dial. The zero value
// refuses the denied ranges and allows loopback.
type Guard struct {
	// AllowPrivate lifts the rule (key outbound_private: allow).
	AllowPrivate bool
	// DenyLoopback refuses loopback as well, unless AllowPrivate: the exchange is reachable
	// from elsewhere, so a member's mcp_url on loopback would reach the exchange's own services.
	DenyLoopback bool
	// Trusted lists endpoints the operator configured (host:port, as TrustedEndpoint gives
	// them), which are dialed whatever their address: no third party chose them.
	Trusted []string
}

// Rule says which rule refuses ip under g, or "" when ip may be called. IPv4-mapped IPv6
// addresses are judged as the IPv4 address they carry.
func (g Guard) Rule(ip netip.Addr) string {
	if g.AllowPrivate {
		return ""
	}
	ip = ip.Unmap()
	if g.DenyLoopback && ip.IsLoopback() {
		return loopbackRule
	}
	return DeniedRule(ip)
}

// URLRule says which rule refuses rawURL under g when its host is an IP literal, or ""
// otherwise (host names are judged only when dialed, after DNS).
func (g Guard) URLRule(rawURL string) string {
	ip, ok := literal(rawURL)
	if !ok {
		return ""
	}
	return g.Rule(ip)
}

func literal(rawURL string) (netip.Addr, bool) {
	u, err := url.Parse(strings.TrimSpace(rawURL))
	if err != nil {
		return netip.Addr{}, false
	}
	ip, err := netip.ParseAddr(strings.TrimSuffix(strings.TrimPrefix(u.Hostname(), "["), "]"))
	if err != nil {
		return netip.Addr{}, false
	}
	return ip.WithZone(""), true
}

// DeniedRule says which rule refuses ip when private targets are denied, or "" when ip may be
// called. IPv4-mapped IPv6 addresses are judged as the IPv4 address they carry.
func DeniedRule(ip netip.Addr) string {
	ip = ip.Unmap()
	if !ip.IsValid() || ip.IsLoopback() {
		return ""
	}
	for _, r := range deniedRanges {
		if r.prefix.Contains(ip) {
			return r.rule
		}
	}
	return ""
}

// DeniedURL says which rule refuses rawURL when its host is an IP literal in a denied range, or
// "" otherwise (host names are judged only when dialed, after DNS).
func DeniedURL(rawURL string) string {
	return Guard{}.URLRule(rawURL)
}

// RefusedError is the dial-time refusal of a denied address.
type RefusedError struct {
	Addr string // the address dialed, ip:port
	Rule string
}

func (e *RefusedError) Error() string {
	return "the exchange does not call " + e.Rule + " (" + e.Addr + "); the operator can allow private targets with " + PrivateConfigKey + ": allow"
}

// NewTransport is the transport of every outbound HTTP request the exchange makes (member calls,
// callbacks, conformance probes, the AI provider, search, feeds, connectors): dial and TLS
// timeouts and HTTP/2 as http.DefaultTransport, a pool sized for quote rounds, and a dialer that
// refuses what g refuses. It never uses a proxy from the environment (HTTP_PROXY, HTTPS_PROXY):
// through a proxy the guard would judge the proxy's address, and the proxy would reach the
// addresses the exchange must not.
func NewTransport(g Guard) *http.Transport {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.Proxy = nil
	t.DialContext = g.dialer()
	t.MaxIdleConns = maxIdleConns
	t.MaxIdleConnsPerHost = maxIdleConnsPerHost
	t.IdleConnTimeout = idleTimeout
	t.MaxConnsPerHost = MaxParallel
	return t
}

// NewClient is a client over rt (nil: NewTransport of the zero Guard) that follows no redirects
// (a 3xx is answered as it is) and bounds each request by timeout (0: no bound).
func NewClient(rt http.RoundTripper, timeout time.Duration) *http.Client {
	if rt == nil {
		rt = NewTransport(Guard{})
	}
	return &http.Client{Transport: rt, CheckRedirect: noRedirect, Timeout: timeout}
}

// refuseDenied is the dialer's Control func when private targets are denied: it sees the address
// after DNS, just before the connection is made, so a host name resolving to a private address is
// refused as well (DNS rebinding included), and no packet is sent to it.
func refuseDenied(network, address string, c syscall.RawConn) error {
	return Guard{}.control(network, address, c)
}

func (g Guard) control(_, address string, _ syscall.RawConn) error {
	ap, err := netip.ParseAddrPort(address)
	if err != nil {
		return &RefusedError{Addr: address, Rule: "addresses it cannot parse"}
	}
	if rule := g.Rule(ap.Addr()); rule != "" {
		return &RefusedError{Addr: address, Rule: rule}
	}
	return nil
}

// dialer is the dial function of the Caller's own transport: http.DefaultTransport's dialer
// settings, refusing denied addresses unless allowPrivate or the address asked for (host:port,
// before DNS) is one of the operator's trusted endpoints.
func dialer(allowPrivate bool, trusted []string) func(ctx context.Context, network, addr string) (net.Conn, error) {
	return Guard{AllowPrivate: allowPrivate, Trusted: trusted}.dialer()
}

func (g Guard) dialer() func(ctx context.Context, network, addr string) (net.Conn, error) {
	open := &net.Dialer{Timeout: 30 * time.Second, KeepAlive: 30 * time.Second}
	if g.AllowPrivate {
		return open.DialContext
	}
	guarded := &net.Dialer{Timeout: open.Timeout, KeepAlive: open.KeepAlive, Control: g.control}
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		for _, t := range g.Trusted {
			if strings.EqualFold(t, addr) {
				return open.DialContext(ctx, network, addr)
			}
		}
		return guarded.DialContext(ctx, network, addr)
	}
}

// refused finds a RefusedError in err.
func refused(err error) *RefusedError {
	var re *RefusedError
	if errors.As(err, &re) {
		return re
	}
	return nil
}
