package trust

import (
	"github.com/axp-exchange/axp/daemon/kernel"
	"github.com/axp-exchange/axp/daemon/money"
)

// Service is the trust service.
type Service struct {
	*kernel.Kernel
	trust TrustState
	money *money.Service
}

// New returns the service over the kernel k and the services it uses.
func New(k *kernel.Kernel, money *money.Service) *Service {
	return &Service{Kernel: k, money: money}
}
