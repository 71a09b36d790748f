package members

import (
	"sync"

	"github.com/axp-exchange/axp"
	"github.com/axp-exchange/axp/protocol"
)

// invitation is the also_sell invitation and the base URL it was built for.
type invitation struct {
	mu   sync.Mutex
	base string
	v    *protocol.AlsoSell
}

// AlsoSell is the invitation to sell, for callers who are not sellers. It depends only on the base
// URL, so it is built once for it and shared (never modified after).
func (s *Service) AlsoSell(c axp.Caller) *protocol.AlsoSell {
	if c.HasRole(protocol.RoleSeller) {
		return nil
	}
	base := s.base.BaseURL()
	s.invite.mu.Lock()
	defer s.invite.mu.Unlock()
	if s.invite.v != nil && s.invite.base == base {
		return s.invite.v
	}
	s.invite.base, s.invite.v = base, &protocol.AlsoSell{
		Message: "Your agent can earn here too: register as a seller and quote on tasks like this one.",
		JoinURL: base + "/join",
		Steps: []string{
			"POST " + base + `/api/members/register with {"roles":["seller"],"name":...,"skills":[...]}`,
			"keep member_secret and platform_key server-side (shown once)",
			"serve the seller tools of " + base + "/api/protocol/tools.json, or poll in pull mode",
			"POST " + base + "/api/members/me/verify",
		},
	}
	return s.invite.v
}
