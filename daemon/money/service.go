package money

import (
	"github.com/axp-exchange/axp/daemon/kernel"
)

// Service is the money service.
type Service struct {
	*kernel.Kernel
}

// New returns the service over the kernel k and the services it uses.
func New(k *kernel.Kernel) *Service {
	return &Service{Kernel: k}
}
