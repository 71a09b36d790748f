package recorded

import (
	"github.com/axp-exchange/axp/daemon/kernel"
)

// Service is the recorded service.
type Service struct {
	*kernel.Kernel
	// rec records prices and news and keeps the cached backtest (recorded.go).
	rec *Recorders
}

// New returns the service over the kernel k and the services it uses.
func New(k *kernel.Kernel) *Service {
	return &Service{Kernel: k}
}
