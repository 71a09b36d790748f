package kernel

import (
	"context"

	"github.com/axp-exchange/axp"
)

// Verdict is a payment verifier's answer on a reported transaction.
type Verdict struct {
	// Confirmed says the transaction pays the task: Amount reached the deposit address.
	Confirmed bool
	Amount    axp.Money
	// Reason explains a verdict that is not a confirmation (pending, too small, failed).
	Reason string
}

// PaymentVerifier checks reported payments (docs/design.md section 5). The manual verifier leaves every
// payment to the operator's confirmation; a chain verifier confirms on its own.
type PaymentVerifier interface {
	// Name is "manual", "evm", ...
	Name() string
	// Verify looks at a transaction reported for a task. It is called outside any store
	// transaction and may use the network.
	Verify(ctx context.Context, t *axp.TaskRecord, txHash string) (Verdict, error)
}

// ManualVerifier confirms nothing itself: the payment waits in the operator's approval queue.
type ManualVerifier struct{}

func (ManualVerifier) Name() string { return "manual" }

func (ManualVerifier) Verify(context.Context, *axp.TaskRecord, string) (Verdict, error) {
	return Verdict{Reason: "the operator confirms payments on this exchange"}, nil
}
