package pipeline

import (
	"errors"

	"github.com/axp-exchange/axp"
	"github.com/axp-exchange/axp/store"
)

// RetryAfterOutage is the Retry-After, in seconds, of a call refused while the store is out of
// reach: soon enough to notice the database's return, late enough not to hammer it.
const RetryAfterOutage = 1

// Unavailable is the answer to every call that needed the store while it could not be reached.
func Unavailable() *axp.Error {
	return &axp.Error{Code: axp.CodeUnavailable, Message: "the store is unreachable: the exchange cannot serve this call now",
		Hint: "retry shortly; nothing was changed unless the retry with the same Idempotency-Key says so", RetryAfter: RetryAfterOutage}
}

// Outage is where a store outage becomes the exchange's error: an error that is (or wraps)
// store.ErrUnavailable is answered as Unavailable (503 with Retry-After on every door), never as
// internal. The result still wraps the cause, so the log can say what failed; any other error is
// returned as it is. The pipeline applies it to every call, the kernel to authentication.
func Outage(err error) error {
	if err == nil || !errors.Is(err, store.ErrUnavailable) {
		return err
	}
	var o *outage
	if errors.As(err, &o) {
		return err
	}
	return &outage{e: Unavailable(), cause: err}
}

// outage is an Unavailable answer with its cause: errors.As finds the *axp.Error, errors.Is the
// store's sentinel.
type outage struct {
	e     *axp.Error
	cause error
}

func (o *outage) Error() string   { return o.cause.Error() }
func (o *outage) Unwrap() []error { return []error{o.e, o.cause} }

// NotReady is a readiness check's refusal: unavailable with message (which says what did not
// answer) and Retry-After, wrapping cause.
func NotReady(message string, cause error) error {
	e := Unavailable()
	e.Message, e.Hint = message, "the exchange takes calls again once it answers; see /healthz for liveness"
	return &outage{e: e, cause: cause}
}
