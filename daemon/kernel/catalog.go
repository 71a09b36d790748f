package kernel

import (
	"context"
	"time"

	"github.com/axp-exchange/axp"
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
