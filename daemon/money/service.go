package money

import (
	"github.com/axp-exchange/axp"
	"github.com/axp-exchange/axp/daemon/chain/escrow"
	"github.com/axp-exchange/axp/daemon/kernel"
)

// Service is the money service: payments in (reported, found on chain, by authorization), the
// operator's approval queue and the payout rails, returns, reorgs, reconciliation and the faucet.
type Service struct {
	base  kernel.Base
	rail  *kernel.Rail // the chain, the hot wallet, the payment verifier and the faucet (set up by SetupChain)
	prom  *kernel.Prom
	tasks Tasks
	// escrow is the escrow contract and its payment collector (escrow_address), nil without one.
	escrow *escrow.Contracts
}

// Tasks is what the money service does to a task when its money moves.
type Tasks interface {
	// Finish moves a task to its end state (a payout, refund or split booked) and notifies.
	Finish(ch *kernel.Change, t *axp.TaskRecord, tr axp.Trigger, action string, detail map[string]any) error
	// StatusNotices tells the task's parties and callback URL its new status.
	StatusNotices(ch *kernel.Change, t *axp.TaskRecord)
}

// New returns the money service.
func New(base kernel.Base, rail *kernel.Rail, prom *kernel.Prom, tasks Tasks) *Service {
	return &Service{base: base, rail: rail, prom: prom, tasks: tasks}
}
