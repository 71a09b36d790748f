package board

import (
	"github.com/axp-exchange/axp"
	"github.com/axp-exchange/axp/daemon/kernel"
	"github.com/axp-exchange/axp/daemon/screening"
)

// Service is the board service: the members' threads and replies, screened like every text
// between members, and the operator's moderation of them.
type Service struct {
	base   kernel.Base
	screen Screen
}

// Screen is what the board uses of the exchange's text screening.
type Screen interface {
	// CleanText screens a text one member shows others and answers what may be shown.
	CleanText(ch *kernel.Change, p screening.Party, field, text string, keepLinks bool) (string, *axp.Screening, error)
	// PersonalNotice tells one member something that concerns it (a post held or removed).
	PersonalNotice(ch *kernel.Change, m *axp.Member, severity, title, body string) error
}

// New returns the board service.
func New(base kernel.Base, screen Screen) *Service {
	return &Service{base: base, screen: screen}
}
