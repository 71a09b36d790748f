package paid

import (
	"github.com/axp-exchange/axp/daemon/kernel"
	"github.com/axp-exchange/axp/daemon/outbound"
	"github.com/axp-exchange/axp/daemon/paidtools"
	"github.com/axp-exchange/axp/daemon/recorded"
)

// Service is the paid service: the pay-per-call tools, their paywall (x402 and the free trial),
// connectors, and the recovery of paid calls a crash interrupted.
type Service struct {
	base   kernel.Base
	rail   *kernel.Rail     // the chain and the hot wallet that settle x402 payments
	caller *outbound.Caller // fetches pages, searches, reaches connectors and the facilitator
	reach  Reach
	// paid takes the payments of pay-per-call tools; fetcher reads web pages for them.
	paid      *Paywall
	Fetcher   *paidtools.Fetcher
	WebSearch *paidtools.Search
	recorded  *recorded.Service
}

// Reach checks an address the exchange is asked to call.
type Reach interface {
	// CheckTarget refuses a URL the exchange may not call, naming field.
	CheckTarget(field, rawURL string) error
}

// New returns the paid service.
func New(base kernel.Base, rail *kernel.Rail, caller *outbound.Caller, reach Reach, recorded *recorded.Service) *Service {
	return &Service{base: base, rail: rail, caller: caller, reach: reach, recorded: recorded}
}
