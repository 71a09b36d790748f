// Package paidtools implements the pay-per-call tools of /paid that need no outside data of the
// exchange's own (spec 1.11 and 4.6): the prompt-injection check, the trading risk calculator,
// readable web contents and web search through a configured SearxNG-compatible backend.
//
// Each tool is a function or a small type that takes the typed input of package axp and answers
// its typed output or an *axp.Error naming the offending field. Inputs are validated here too, so
// a tool is safe to call directly, not only through the call pipeline.
//
// The package must not take payment, know HTTP doors (routes, headers, status codes, x402), log,
// or touch the store: the daemon wires the tools into the call pipeline, which does all that.
// Outbound web requests go only through the exchange's guarded caller (daemon/outbound), so
// private addresses are refused as they are for every other outbound call.
package paidtools
