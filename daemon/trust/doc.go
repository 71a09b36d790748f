// Package trust is the trust and safety service: mediation and its rules, settlements, reviews,
// party-to-party messages, listing checks and the AI helpers they use. It queues money through the
// money service and never calls the task flow.
package trust
