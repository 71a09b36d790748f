package paid

import (
	"github.com/axp-exchange/axp/daemon/kernel"
	"github.com/axp-exchange/axp/daemon/paidtools"
	"github.com/axp-exchange/axp/daemon/recorded"
)

// Service is the paid service.
type Service struct {
	*kernel.Kernel
	// paid takes the payments of pay-per-call tools; fetcher reads web pages for them.
	paid      *Paywall
	Fetcher   *paidtools.Fetcher
	WebSearch *paidtools.Search
	recorded  *recorded.Service
}

// New returns the service over the kernel k and the services it uses.
func New(k *kernel.Kernel, recorded *recorded.Service) *Service {
	return &Service{Kernel: k, recorded: recorded}
}
