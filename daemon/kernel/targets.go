package kernel

import (
	"context"
	"errors"
	"net"
	"net/netip"
	"net/url"
	"strings"

	"github.com/axp-exchange/axp"
	"github.com/axp-exchange/axp/daemon/outbound"
)

// TrustedEndpoints are the host:port of the endpoints the operator configured.
func TrustedEndpoints(urls ...string) []string {
	var out []string
	for _, u := range urls {
		if e := outbound.TrustedEndpoint(u); e != "" {
			out = append(out, e)
		}
	}
	return out
}

// Target is how the exchange reaches a member: its MCP URL, platform key and auth token.
// CallTool calls a member's MCP tool, signed, and decodes its answer into out.
func (k *Kernel) CallTool(ctx context.Context, m *axp.Member, tool string, in, out any) error {
	t, err := k.Target(m)
	if err != nil {
		return err
	}
	_, err = k.Caller.Call(ctx, t, tool, in, out)
	return err
}

func (k *Kernel) Target(m *axp.Member) (outbound.Target, error) {
	key, err := k.Keys.open(m.PlatformKeyEnc)
	if err != nil {
		return outbound.Target{}, errors.New("the member's platform key cannot be unsealed (is secret.key the one of this database?)")
	}
	t := outbound.Target{MemberID: m.ID, MCPURL: m.MCPURL, PlatformKey: key}
	if len(m.AuthTokenEnc) > 0 {
		tok, err := k.Keys.open(m.AuthTokenEnc)
		if err != nil {
			return t, errors.New("the member's auth token cannot be unsealed")
		}
		t.AuthToken = string(tok)
	}
	return t, nil
}

// CheckTarget refuses a callback_url or mcp_url whose host is an IP literal the exchange would
// refuse to dial (outbound_private: deny), so the mistake shows when the URL is given rather than
// at the first call. Host names are judged at dial time only.
func (k *Kernel) CheckTarget(field, rawURL string) error {
	if rawURL == "" {
		return nil
	}
	if rule := k.Guard().URLRule(rawURL); rule != "" {
		return axp.Invalid(field, "points at "+rule+", which the exchange does not call",
			"use a public address; an operator who needs private targets sets "+outbound.PrivateConfigKey+": allow")
	}
	return nil
}

// Guard is what the exchange refuses to call at the URLs third parties give it (see
// DenyLoopback); the outbound Caller dials with the same rules.
func (k *Kernel) Guard() outbound.Guard {
	return outbound.Guard{AllowPrivate: k.Cfg.OutboundPrivate == "allow", DenyLoopback: k.DenyLoopback()}
}

// DenyLoopback says whether loopback targets are refused like private ones: yes, unless the
// exchange listens on its own machine only (its listen address and its base URL, when set, are
// loopback) -- local development, where members and callback sinks run beside it. An exchange
// others reach must not let a member's mcp_url read or scan the services of its own machine.
// outbound_private: allow lifts this rule too.
func (k *Kernel) DenyLoopback() bool {
	if k.Cfg.OutboundPrivate == "allow" {
		return false
	}
	return !LoopbackOnly(k.Cfg.Addr, k.Cfg.BaseURL)
}

// LoopbackOnly reports whether an exchange listening on addr (host:port) with the public base
// URL baseURL ("": none) is reachable from its own machine only.
func LoopbackOnly(addr, baseURL string) bool {
	host, _, err := net.SplitHostPort(strings.TrimSpace(addr))
	if err != nil || !loopbackHost(host) {
		return false
	}
	if strings.TrimSpace(baseURL) == "" {
		return true
	}
	u, err := url.Parse(strings.TrimSpace(baseURL))
	return err == nil && loopbackHost(u.Hostname())
}

func loopbackHost(host string) bool {
	host = strings.ToLower(strings.TrimSuffix(host, "."))
	if host == "localhost" || strings.HasSuffix(host, ".localhost") {
		return true
	}
	ip, err := netip.ParseAddr(host)
	return err == nil && ip.Unmap().IsLoopback()
}
