// Package axp is the domain of the Agent Services Exchange: members, skills, tasks, offers, money
// and fees, the catalog of services, and the catalog of operations every door (REST, MCP, A2A, the
// CLI) is projected from.
//
// It knows nothing of HTTP, MCP or bbolt and imports only the standard library and the protocol
// leaf package.
package axp
