package daemon

import (
	"reflect"

	"github.com/axp-exchange/axp"
)

// A typed event is recorded inside a change by the service that made it and handled, in the same
// transaction, by the services that subscribed to its type: a service reacts to another's change
// without the other calling back up into it. Handlers run in the order they subscribed; an error
// from one fails the change.
type subscribers map[reflect.Type][]func(ch *change, e any) error

// on subscribes fn to the events of type E.
func on[E any](d *Daemon, fn func(ch *change, e E) error) {
	t := reflect.TypeFor[E]()
	d.events[t] = append(d.events[t], func(ch *change, e any) error { return fn(ch, e.(E)) })
}

// emit hands e to the subscribers of its type, inside the change's transaction.
func emit[E any](ch *change, e E) error {
	for _, fn := range ch.events[reflect.TypeFor[E]()] {
		if err := fn(ch, e); err != nil {
			return err
		}
	}
	return nil
}

// paymentConfirmed: a task's payment was confirmed and the task moved to working; its job starts.
type paymentConfirmed struct {
	task   *axp.TaskRecord
	seller *axp.Member
}

// taskFinished: a task reached an end state through its seller's work (accepted or released,
// settled, refunded); each side is asked for its review.
type taskFinished struct {
	task *axp.TaskRecord
}

// payoutAddressSet: a member gave a payout address; payouts held for the lack of one go ahead.
type payoutAddressSet struct {
	member *axp.Member
}
