package kernel

import (
	"context"
	"time"

	"github.com/axp-exchange/axp"
	"github.com/axp-exchange/axp/protocol"
)

// Invalidate drops cached documents that depend on members (the services list's on_offer).
func (k *Kernel) Invalidate() {
	k.CacheMu.Lock()
	k.Services = nil
	k.CacheMu.Unlock()
}

// CachedServices is the cached /api/services answer and when it was built (nil when none).
func (k *Kernel) CachedServices() (*axp.ServiceList, time.Time) {
	k.CacheMu.Lock()
	defer k.CacheMu.Unlock()
	return k.Services, k.ServicesAt
}

// CacheServices keeps list as the /api/services answer until Invalidate.
func (k *Kernel) CacheServices(list *axp.ServiceList) {
	k.CacheMu.Lock()
	k.Services, k.ServicesAt = list, k.Now()
	k.CacheMu.Unlock()
}

// ChainReady says whether the chain's node answers (nil without a chain).
func (k *Kernel) ChainReady(ctx context.Context) error {
	if k.Chain == nil {
		return nil
	}
	_, err := k.Chain.Head(ctx)
	return err
}

// AlsoSell is the invitation to sell, for callers who are not sellers. It depends only on the base
// URL, so it is built once and shared (never modified after).
func (k *Kernel) AlsoSell(c axp.Caller) *protocol.AlsoSell {
	if c.HasRole(protocol.RoleSeller) {
		return nil
	}
	k.CacheMu.Lock()
	defer k.CacheMu.Unlock()
	if k.Invite != nil {
		return k.Invite
	}
	base := k.BaseURL()
	k.Invite = &protocol.AlsoSell{
		Message: "Your agent can earn here too: register as a seller and quote on tasks like this one.",
		JoinURL: base + "/join",
		Steps: []string{
			"POST " + base + `/api/members/register with {"roles":["seller"],"name":...,"skills":[...]}`,
			"keep member_secret and platform_key server-side (shown once)",
			"serve the seller tools of " + base + "/api/protocol/tools.json, or poll in pull mode",
			"POST " + base + "/api/members/me/verify",
		},
	}
	return k.Invite
}
