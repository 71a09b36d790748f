package members

import (
	"github.com/axp-exchange/axp"
	"github.com/axp-exchange/axp/daemon/kernel"
	"github.com/axp-exchange/axp/daemon/outbound"
)

// Service is the members service: registration, profiles, verification and conformance,
// liveness, announcements and messages to the operator.
type Service struct {
	base    kernel.Base
	screen  Screen
	catalog Catalog
	reach   Reach
	caller  *outbound.Caller // calls members' MCP servers (verification, liveness)
	keys    *kernel.Sealer   // seals members' platform keys and auth tokens
	offers  offerCache       // on_offer, until what verified sellers offer changes
	invite  invitation       // also_sell, for the current base URL
}

// Screen is what members use of the exchange's text screening.
type Screen interface {
	// CleanProfile screens a member's public texts (name, description, skills).
	CleanProfile(ch *kernel.Change, m *axp.Member, counted bool) error
}

// Catalog is the market's cached view of the verified sellers.
type Catalog interface {
	// Invalidate drops what a member's change makes stale.
	Invalidate()
}

// Reach is how the exchange finds and reaches a member.
type Reach interface {
	Member(id string) (*axp.Member, error)
	// Target is where and how a member's MCP server is called.
	Target(m *axp.Member) (outbound.Target, error)
	// CheckTarget refuses an MCP URL the exchange may not call, naming field.
	CheckTarget(field, rawURL string) error
}

// New returns the members service.
func New(base kernel.Base, screen Screen, catalog Catalog, reach Reach, caller *outbound.Caller, keys *kernel.Sealer) *Service {
	return &Service{base: base, screen: screen, catalog: catalog, reach: reach, caller: caller, keys: keys}
}
