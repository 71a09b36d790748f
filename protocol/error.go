package protocol

import (
	"errors"
	"fmt"
)

// Code is the machine-readable class of an error. The set is closed: see docs/design.md section 7.
type Code string

// Error codes. Each maps to one HTTP status in the REST adapter.
const (
	CodeInvalidInput    Code = "invalid_input"
	CodeUnauthorized    Code = "unauthorized"
	CodePaymentRequired Code = "payment_required"
	CodeForbidden       Code = "forbidden"
	CodeNotFound        Code = "not_found"
	CodeConflict        Code = "conflict"
	CodeTooLarge        Code = "too_large"
	CodeRateLimited     Code = "rate_limited"
	CodeUnavailable     Code = "unavailable"
	CodeInternal        Code = "internal"
)

// Codes lists every code, in the order the documentation shows them.
var Codes = []Code{CodeInvalidInput, CodeUnauthorized, CodePaymentRequired, CodeForbidden, CodeNotFound,
	CodeConflict, CodeTooLarge, CodeRateLimited, CodeUnavailable, CodeInternal}

// Error is the one typed error of the exchange. Message says what was wrong, Hint what to do,
// Field names the offending input (dotted path, e.g. "skills[0].task_type").
type Error struct {
	Code    Code   `json:"code" schema:"required" doc:"machine-readable error class"`
	Message string `json:"message" schema:"required" doc:"what was wrong"`
	Hint    string `json:"hint,omitempty" doc:"what to do about it"`
	Field   string `json:"field,omitempty" doc:"the offending input field"`
	// RetryAfter, in seconds, accompanies rate_limited errors (sent as the Retry-After header).
	RetryAfter int `json:"-"`
}

func (e *Error) Error() string {
	s := e.Message
	if e.Field != "" && e.Code == CodeInvalidInput {
		s = e.Field + ": " + s
	}
	if e.Hint != "" {
		s += " (" + e.Hint + ")"
	}
	return s
}

// WithHint returns a copy of e carrying hint.
func (e *Error) WithHint(hint string) *Error {
	c := *e
	c.Hint = hint
	return &c
}

// Errorf builds an Error of the given code.
func Errorf(code Code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// Invalid builds an invalid_input error naming field.
func Invalid(field, message, hint string) *Error {
	return &Error{Code: CodeInvalidInput, Field: field, Message: message, Hint: hint}
}

// ErrorCode returns the code of err: its own if err wraps an *Error, else internal.
func ErrorCode(err error) Code {
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	return CodeInternal
}

// ErrorBody is the JSON body of every error answer.
type ErrorBody struct {
	Error   Error  `json:"error" schema:"required"`
	TraceID string `json:"trace_id" schema:"required" doc:"quote it when reporting a problem"`
}
