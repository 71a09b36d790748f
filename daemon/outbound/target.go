package outbound

import (
	"context"
	"errors"
	"net"
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
	u, err := url.Parse(strings.TrimSpace(rawURL))
	if err != nil {
		return ""
	}
	ip, err := netip.ParseAddr(strings.TrimSuffix(strings.TrimPrefix(u.Hostname(), "["), "]"))
	if err != nil {
		return ""
	}
	return DeniedRule(ip.WithZone(""))
}

// RefusedError is the dial-time refusal of a denied address.
type RefusedError struct {
	Addr string // the address dialed, ip:port
	Rule string
}

func (e *RefusedError) Error() string {
	return "the exchange does not call " + e.Rule + " (" + e.Addr + "); the operator can allow private targets with " + PrivateConfigKey + ": allow"
}

// refuseDenied is the dialer's Control func when private targets are denied: it sees the address
// after DNS, just before the connection is made, so a host name resolving to a private address is
// refused as well (DNS rebinding included), and no packet is sent to it.
func refuseDenied(network, address string, _ syscall.RawConn) error {
	ap, err := netip.ParseAddrPort(address)
	if err != nil {
		return &RefusedError{Addr: address, Rule: "addresses it cannot parse"}
	}
	if rule := DeniedRule(ap.Addr()); rule != "" {
		return &RefusedError{Addr: address, Rule: rule}
	}
	return nil
}

// dialer is the dial function of the Caller's own transport: http.DefaultTransport's dialer
// settings, refusing denied addresses unless allowPrivate or the address asked for (host:port,
// before DNS) is one of the operator's trusted endpoints.
func dialer(allowPrivate bool, trusted []string) func(ctx context.Context, network, addr string) (net.Conn, error) {
	open := &net.Dialer{Timeout: 30 * time.Second, KeepAlive: 30 * time.Second}
	if allowPrivate {
		return open.DialContext
	}
	guarded := &net.Dialer{Timeout: open.Timeout, KeepAlive: open.KeepAlive, Control: refuseDenied}
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		for _, t := range trusted {
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
