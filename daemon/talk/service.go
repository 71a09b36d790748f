package talk

import (
	"context"
	"sync"

	"github.com/axp-exchange/axp"
	"github.com/axp-exchange/axp/daemon/kernel"
	"github.com/axp-exchange/axp/daemon/pipeline"
	"github.com/axp-exchange/axp/daemon/screening"
	"github.com/axp-exchange/axp/daemon/trust"
)

// Service is the talk service: the assistant that turns a conversation into a task and steps it
// for its buyer.
type Service struct {
	base   kernel.Base
	screen Screen
	// talking holds the ids of conversations whose message is being answered now.
	talking sync.Map
	trust   *trust.Service
	ops     Operations
}

// New returns the service over the kernel k and the services it uses.
func New(base kernel.Base, screen Screen, trust *trust.Service, ops Operations) *Service {
	return &Service{base: base, screen: screen, trust: trust, ops: ops}
}

// Operations runs the exchange's operations: the assistant posts and steps a task as its buyer,
// through the same pipeline as every door.
type Operations interface {
	Run(ctx context.Context, req pipeline.Request) (pipeline.Answer, error)
}

// Screen is what talk uses of the exchange's text screening.
type Screen interface {
	// CleanText screens a text a party shows another and answers what may be shown.
	CleanText(ch *kernel.Change, p screening.Party, field, text string, keepLinks bool) (string, *axp.Screening, error)
}
