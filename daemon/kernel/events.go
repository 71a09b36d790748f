package kernel

import (
	"reflect"

	"github.com/axp-exchange/axp"
)

// A typed event is recorded inside a change by the service that made it and handled, in the same
// transaction, by the services that subscribed to its type: a service reacts to another's change
// without the other calling back up into it. Handlers run in the order they subscribed; an error
// from one fails the change.
type Subscribers map[reflect.Type][]func(ch *Change, e any) error

// on subscribes fn to the events of type E.
func On[E any](d *Kernel, fn func(ch *Change, e E) error) {
	t := reflect.TypeFor[E]()
	d.Events[t] = append(d.Events[t], func(ch *Change, e any) error { return fn(ch, e.(E)) })
}

// emit hands e to the subscribers of its type, inside the change's transaction.
func Emit[E any](ch *Change, e E) error {
	for _, fn := range ch.Events[reflect.TypeFor[E]()] {
		if err := fn(ch, e); err != nil {
			return err
		}
	}
	return nil
}

// paymentConfirmed: a task's payment was confirmed and the task moved to working; its job starts.
type PaymentConfirmed struct {
	Task   *axp.TaskRecord
	Seller *axp.Member
}

// taskFinished: a task reached an end state through its seller's work (accepted or released,
// settled, refunded); each side is asked for its review.
type TaskFinished struct {
	Task *axp.TaskRecord
}

// payoutAddressSet: a member gave a payout address; payouts held for the lack of one go ahead.
type PayoutAddressSet struct {
	Member *axp.Member
}
