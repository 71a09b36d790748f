// Package site is the public face of the exchange: the front door, the catalog of services and
// sellers, pricing, content pages, search and the public submissions (feedback, interest, survey).
package site
