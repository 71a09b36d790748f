package members

import (
	"sort"
	"sync"

	"github.com/axp-exchange/axp"
	"github.com/axp-exchange/axp/store"
)

// offerCache is the last on_offer summary and the offer revision it was made at
// (store.Tx.OfferRev): it stays valid until a member becomes or stops being a verified seller, or a
// verified seller's skills change, however the change is made.
type offerCache struct {
	mu   sync.Mutex
	ok   bool
	rev  uint64
	list []axp.OnOffer
}

// OnOffer summarises the task types verified sellers offer now. The summary is rebuilt, from the
// verified members only, when the offer revision has changed; callers must not modify it.
func (s *Service) OnOffer() ([]axp.OnOffer, error) {
	var out []axp.OnOffer
	err := s.base.Store.View(func(tx *store.Tx) error {
		rev := tx.OfferRev()
		s.offers.mu.Lock()
		defer s.offers.mu.Unlock()
		if s.offers.ok && s.offers.rev == rev {
			out = s.offers.list
			return nil
		}
		list, err := buildOnOffer(tx)
		if err != nil {
			return err
		}
		s.offers.ok, s.offers.rev, s.offers.list = true, rev, list
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
