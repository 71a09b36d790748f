// Package members is the member service: registration, profile and skills, check-ins, favourites,
// announcements, messages to the operator, verification and conformance runs, and liveness.
package members
