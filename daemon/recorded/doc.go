// Package recorded is the recorded-data service: prices and news recorded with proofs, published
// signals and their track record, and the paid tools that read them.
package recorded
