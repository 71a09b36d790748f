package site

import (
	"sync"
	"time"

	"github.com/axp-exchange/axp"
	"github.com/axp-exchange/axp/daemon/kernel"
	"github.com/axp-exchange/axp/daemon/trust"
)

// Service is the site service.
type Service struct {
	*kernel.Kernel
	trust *trust.Service

	// marketNow is the front door's market view, read at marketAt (market).
	marketMu  sync.Mutex
	marketNow axp.MarketNow
	marketAt  time.Time
}

// New returns the service over the kernel k and the services it uses.
func New(k *kernel.Kernel, trust *trust.Service) *Service {
	return &Service{Kernel: k, trust: trust}
}
