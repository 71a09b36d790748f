// Package axp is the domain of the Agent Services Exchange: members, skills, tasks, offers, money
// and fees, the ledger's entries, the state machines, the catalog of services, and the input and
// output types of every operation. The operations themselves (their declarations, routes and
// index) are package contract.
//
// It knows nothing of HTTP, MCP or bbolt and imports only the standard library and the protocol
// leaf package.
package axp
