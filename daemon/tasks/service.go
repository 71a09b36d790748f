package tasks

import (
	"context"

	"github.com/axp-exchange/axp"
	"github.com/axp-exchange/axp/daemon/kernel"
	"github.com/axp-exchange/axp/daemon/members"
	"github.com/axp-exchange/axp/daemon/money"
	"github.com/axp-exchange/axp/daemon/screening"
	"github.com/axp-exchange/axp/daemon/trust"
	"github.com/axp-exchange/axp/protocol"
)

// Service is the tasks service: posting tasks, quote rounds and offers, choosing and paying,
// the job (do_task, delivery, redo), acceptance and release, the sweeps of what is due, the
// sandbox, and the operator's view of tasks.
type Service struct {
	base    kernel.Base
	rail    *kernel.Rail // the chain buyers pay on, and the payment verifier
	prom    *kernel.Prom
	screen  Screen
	notices *Lifecycle
	market  Market
	members *members.Service
	money   *money.Service
	trust   *trust.Service
}

// Screen is what tasks use of the exchange's text screening.
type Screen interface {
	CleanText(ch *kernel.Change, p screening.Party, field, text string, keepLinks bool) (string, *axp.Screening, error)
	CleanBrief(ch *kernel.Change, t *axp.TaskRecord) error
	CleanAnswer(ch *kernel.Change, t *axp.TaskRecord, sellerID string, a *protocol.QuoteAnswer, instant bool) (*axp.Screening, error)
	CleanClarifications(ch *kernel.Change, p screening.Party, answers map[string]string) (map[string]string, *axp.Screening, error)
	WithholdCredentials(ch *kernel.Change, p screening.Party, field, text string, w *screening.Withheld) string
	// CountRemoval counts a removal of contact details against a member.
	CountRemoval(ch *kernel.Change, memberID string) error
}

// Market is what tasks ask of the rest of the exchange: its members and their tools, and what
// buyers are told of the market and the chain.
type Market interface {
	Member(id string) (*axp.Member, error)
	CallTool(ctx context.Context, m *axp.Member, tool string, in, out any) error
	// CheckTarget refuses a URL the exchange may not call, naming field.
	CheckTarget(field, rawURL string) error
	ChainNames() (axp.ChainInfo, bool)
}

// New returns the tasks service.
func New(base kernel.Base, rail *kernel.Rail, prom *kernel.Prom, screen Screen, notices *Lifecycle, market Market,
	members *members.Service, money *money.Service, trust *trust.Service) *Service {
	return &Service{base: base, rail: rail, prom: prom, screen: screen, notices: notices, market: market,
		members: members, money: money, trust: trust}
}
