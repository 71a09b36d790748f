package recorded

import (
	"github.com/axp-exchange/axp/daemon/kernel"
	"github.com/axp-exchange/axp/daemon/outbound"
)

// Service is the recorded service: the prices and news the exchange records, the signals scored
// against them and the pay-per-call tools that read them.
type Service struct {
	base   kernel.Base
	caller *outbound.Caller // reads the price source and the news feeds
	// rec records prices and news and keeps the cached backtest (recorded.go).
	rec *Recorders
}

// New returns the recorded service.
func New(base kernel.Base, caller *outbound.Caller) *Service {
	return &Service{base: base, caller: caller}
}
