package outbound

import (
	"errors"
	"fmt"
)

// Kinds of CallError. The set is closed.
const (
	KindTimeout     = "timeout"     // no answer within the call timeout (or the caller gave up)
	KindHTTP        = "http"        // the member's server answered with an HTTP error or a redirect
	KindRPC         = "rpc"         // a JSON-RPC error answer
	KindToolError   = "tool_error"  // the tool answered with isError: true
	KindBadAnswer   = "bad_answer"  // an answer that is not JSON, too large, or fails the tool's output schema
	KindUnreachable = "unreachable" // no HTTP answer at all: bad URL, DNS, refused connection, TLS
	// KindRefusedTarget: the exchange refused to dial the address (a private or internal one,
	// see outbound_private); not retried.
	KindRefusedTarget = "refused_target"
)

// CallError is the one error of a failed outbound call. Message is written for the member: it says
// what went wrong and, where it can, what to fix. Status is the HTTP status of the answer, 0 when
// there was none. Field names the offending answer field of a bad_answer, when known.
type CallError struct {
	Tool    string
	Kind    string
	Message string
	Status  int
	Field   string

	cause error
}

func (e *CallError) Error() string {
	return fmt.Sprintf("%s call failed (%s): %s", e.Tool, e.Kind, e.Message)
}

// Unwrap gives the underlying cause, such as context.DeadlineExceeded, when there is one.
func (e *CallError) Unwrap() error { return e.cause }

// Retryable reports whether a failed push is worth trying again: timeouts, unreachable servers,
// HTTP 408, 425, 429 and 5xx, and errors the member's tool reported itself. A refused signature,
// another 4xx, a JSON-RPC error or a malformed answer will fail the same way next time.
func Retryable(err error) bool {
	var ce *CallError
	if !errors.As(err, &ce) {
		return false
	}
	switch ce.Kind {
	case KindTimeout, KindUnreachable, KindToolError:
		return true
	case KindHTTP:
		switch {
		case ce.Status == 408, ce.Status == 425, ce.Status == 429, ce.Status >= 500:
			return true
		}
	}
	return false
}
