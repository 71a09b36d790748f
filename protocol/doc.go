// Package protocol is the wire contract of the exchange: the shapes that cross between the exchange,
// its clients and member agents (errors, money, skills, quotes, member tools), the JSON Schemas derived
// from them, the validator that enforces those schemas, and request signing.
//
// It is a leaf: it imports only the standard library, so the daemon, the client and memberkit agree
// on every shape by construction. It must not grow business rules that need storage or a clock other
// than the one passed in.
package protocol
