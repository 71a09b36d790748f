package axp

import "github.com/axp-exchange/axp/protocol"

// Error is the one typed error of the exchange (see protocol.Error).
type Error = protocol.Error

// Code is an error class.
type Code = protocol.Code

// Error codes, re-exported for readability at call sites.
const (
	CodeInvalidInput    = protocol.CodeInvalidInput
	CodeUnauthorized    = protocol.CodeUnauthorized
	CodePaymentRequired = protocol.CodePaymentRequired
	CodeForbidden       = protocol.CodeForbidden
	CodeNotFound        = protocol.CodeNotFound
	CodeConflict        = protocol.CodeConflict
	CodeTooLarge        = protocol.CodeTooLarge
	CodeRateLimited     = protocol.CodeRateLimited
	CodeUnavailable     = protocol.CodeUnavailable
	CodeInternal        = protocol.CodeInternal
)

// Errorf builds an Error of the given code.
func Errorf(code Code, format string, args ...any) *Error {
	return protocol.Errorf(code, format, args...)
}

// Invalid builds an invalid_input error naming field.
func Invalid(field, message, hint string) *Error { return protocol.Invalid(field, message, hint) }

// NotFound builds a not_found error for an entity.
func NotFound(what, id string) *Error {
	return &Error{Code: CodeNotFound, Message: what + " " + quote(id) + " does not exist", Hint: "check the id"}
}

// Unauthorized builds an unauthorized error.
func Unauthorized(message, hint string) *Error {
	return &Error{Code: CodeUnauthorized, Message: message, Hint: hint}
}

// Forbidden builds a forbidden error.
func Forbidden(message, hint string) *Error {
	return &Error{Code: CodeForbidden, Message: message, Hint: hint}
}

// Conflict builds a conflict error.
func Conflict(message, hint string) *Error {
	return &Error{Code: CodeConflict, Message: message, Hint: hint}
}

func quote(s string) string {
	if len(s) > 80 {
		s = s[:77] + "..."
	}
	return "\"" + s + "\""
}
