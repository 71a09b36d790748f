package kernel

import (
	"context"
	"sort"
	"sync"
	"time"

	"github.com/axp-exchange/axp"
	"github.com/axp-exchange/axp/protocol"
	"github.com/axp-exchange/axp/store"
)

func SchemaOf[T any]() *protocol.Schema { return protocol.SchemaFor[T]() }

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

// OfferCache is the last on_offer summary and the offer revision it was made at
// (store.Tx.OfferRev): it stays valid until a member becomes or stops being a verified seller, or a
// verified seller's skills change, however the change is made.
type OfferCache struct {
	mu   sync.Mutex
	ok   bool
	rev  uint64
	list []axp.OnOffer
}

// OnOffer summarises the task types verified sellers offer now. The summary is rebuilt, from the
// verified members only, when the offer revision has changed; callers must not modify it.
func (k *Kernel) OnOffer() ([]axp.OnOffer, error) {
	var out []axp.OnOffer
	err := k.Store.View(func(tx *store.Tx) error {
		rev := tx.OfferRev()
		k.Offers.mu.Lock()
		defer k.Offers.mu.Unlock()
		if k.Offers.ok && k.Offers.rev == rev {
			out = k.Offers.list
			return nil
		}
		list, err := buildOnOffer(tx)
		if err != nil {
			return err
		}
		k.Offers.ok, k.Offers.rev, k.Offers.list = true, rev, list
		out = list
		return nil
	})
	return out, err
}

// buildOnOffer summarises the skills of the verified sellers.
func buildOnOffer(tx *store.Tx) ([]axp.OnOffer, error) {
	by := map[string]*axp.OnOffer{}
	err := tx.MembersInState(axp.MemberVerified, func(m *axp.Member) bool {
		if m.Matchable() {
			for _, s := range m.Skills {
				o := by[s.TaskType]
				if o == nil {
					o = &axp.OnOffer{TaskType: s.TaskType, InCatalog: axp.ServiceFor(s.TaskType) != nil, Examples: []string{}}
					by[s.TaskType] = o
				}
				o.Providers++
				for _, p := range []*axp.Money{s.MinPriceUSD, s.InstantPriceUSD} {
					if p != nil && (o.FromPriceUSD == nil || *p < *o.FromPriceUSD) {
						v := *p
						o.FromPriceUSD = &v
					}
				}
				for _, e := range []*int{s.TypicalETAMinutes, s.InstantETAMinutes} {
					if e != nil && (o.FastestETAMinutes == nil || *e < *o.FastestETAMinutes) {
						v := *e
						o.FastestETAMinutes = &v
					}
				}
				if s.Description != "" && len(o.Examples) < 3 {
					o.Examples = append(o.Examples, s.Description)
				}
			}
		}
		return true
	})
	out := make([]axp.OnOffer, 0, len(by))
	for _, o := range by {
		out = append(out, *o)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Providers != out[j].Providers {
			return out[i].Providers > out[j].Providers
		}
		return out[i].TaskType < out[j].TaskType
	})
	return out, err
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

// ParamsField is the field prefix of service params: bare query keys on GET, "params" in a body.
func ParamsField(fromQuery bool) string {
	if fromQuery {
		return ""
	}
	return "params"
}

func HasParam(s *axp.Service, name string) bool {
	for _, p := range s.Params {
		if p.Name == name {
			return true
		}
	}
	return false
}
