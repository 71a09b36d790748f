// Package paid is the pay-per-call service: the x402 paywall with free trial calls, the paid tools
// that are not recorded data (web contents and search, injection check, trading risk) and connectors.
package paid
