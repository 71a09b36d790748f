package site

import (
	"context"
	"sync"
	"time"

	"github.com/axp-exchange/axp"
	"github.com/axp-exchange/axp/daemon/kernel"
	"github.com/axp-exchange/axp/daemon/trust"
	"github.com/axp-exchange/axp/protocol"
)

// Service is the site service: the public pages and documents (front door, protocol, services,
// pricing, FAQ, why, search) and the public submissions (feedback, interest, survey).
type Service struct {
	base    kernel.Base
	catalog Catalog
	members Members
	trust   *trust.Service

	// marketNow is the front door's market view, read at marketAt (market).
	marketMu  sync.Mutex
	marketNow axp.MarketNow
	marketAt  time.Time
}

// Catalog is what the site reads of the market and the chain beyond the store.
type Catalog interface {
	// CachedServices and CacheServices keep the /api/services answer until Invalidate.
	CachedServices() (*axp.ServiceList, time.Time)
	CacheServices(list *axp.ServiceList)
	Invalidate()
	// ChainNames is the chain and token buyers are told about; ChainReady whether its node answers.
	ChainNames() (axp.ChainInfo, bool)
	ChainReady(ctx context.Context) error
}

// Members is what site reads of the members service: what the verified sellers offer, and the
// invitation to join them.
type Members interface {
	// OnOffer summarises the task types verified sellers offer now.
	OnOffer() ([]axp.OnOffer, error)
	// AlsoSell is the invitation to sell, for a caller that is not a seller yet.
	AlsoSell(c axp.Caller) *protocol.AlsoSell
}

// New returns the site service.
func New(base kernel.Base, catalog Catalog, members Members, trust *trust.Service) *Service {
	return &Service{base: base, catalog: catalog, members: members, trust: trust}
}
