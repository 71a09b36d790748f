package talk

import (
	"sync"

	"github.com/axp-exchange/axp/daemon/kernel"
	"github.com/axp-exchange/axp/daemon/trust"
)

// Service is the talk service.
type Service struct {
	*kernel.Kernel
	// talking holds the ids of conversations whose message is being answered now.
	talking sync.Map
	trust   *trust.Service
}

// New returns the service over the kernel k and the services it uses.
func New(k *kernel.Kernel, trust *trust.Service) *Service {
	return &Service{Kernel: k, trust: trust}
}
