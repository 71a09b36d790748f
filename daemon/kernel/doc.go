// Package kernel is what every service of the exchange shares: the store handle, configuration, clock,
// logging, metrics, rate limits, keys, the change transaction (audit, idempotency, notices and typed
// events handled in the same transaction), loading and saving tasks and members, and authentication.
// It knows no service: a service reacts to another's change through a typed event
// (change.go), never by calling up.
package kernel
