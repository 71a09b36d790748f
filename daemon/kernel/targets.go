package kernel

import (
	"errors"

	"github.com/axp-exchange/axp"
	"github.com/axp-exchange/axp/daemon/outbound"
)

// trustedEndpoints are the host:port of the endpoints the operator configured.
func TrustedEndpoints(urls ...string) []string {
	var out []string
	for _, u := range urls {
		if e := outbound.TrustedEndpoint(u); e != "" {
			out = append(out, e)
		}
	}
	return out
}

// target is how the exchange reaches a member: its MCP URL, platform key and auth token.
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

// checkTarget refuses a callback_url or mcp_url whose host is an IP literal the exchange would
// refuse to dial (outbound_private: deny), so the mistake shows when the URL is given rather than
// at the first call. Host names are judged at dial time only.
func (k *Kernel) CheckTarget(field, rawURL string) error {
	if k.Cfg.OutboundPrivate == "allow" || rawURL == "" {
		return nil
	}
	if rule := outbound.DeniedURL(rawURL); rule != "" {
		return axp.Invalid(field, "points at "+rule+", which the exchange does not call",
			"use a public address; an operator who needs private targets sets "+outbound.PrivateConfigKey+": allow")
	}
	return nil
}
