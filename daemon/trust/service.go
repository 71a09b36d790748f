package trust

import (
	"context"
	"time"

	"github.com/axp-exchange/axp"
	"github.com/axp-exchange/axp/daemon/kernel"
	"github.com/axp-exchange/axp/daemon/money"
	"github.com/axp-exchange/axp/daemon/outbound"
	"github.com/axp-exchange/axp/daemon/screening"
)

// Service is the trust service: messages, reviews, settlements and mediation between the parties,
// translation, the AI provider and the trust rules.
type Service struct {
	base    kernel.Base
	screen  Screen
	tasks   Tasks
	members MemberTools
	caller  *outbound.Caller // calls the AI provider
	trust   TrustState
	money   *money.Service
}

// Screen is what trust uses of the exchange's text screening.
type Screen interface {
	// CleanText screens a text a party shows another and answers what may be shown.
	CleanText(ch *kernel.Change, p screening.Party, field, text string, keepLinks bool) (string, *axp.Screening, error)
}

// Tasks is what trust does to a task beyond its own records.
type Tasks interface {
	// Finish moves a task to its end state (a settlement, a mediation's decision) and notifies.
	Finish(ch *kernel.Change, t *axp.TaskRecord, tr axp.Trigger, action string, detail map[string]any) error
	// Callback is the notice posting payload to a task's callback URL.
	Callback(ch *kernel.Change, t *axp.TaskRecord, payload map[string]any) kernel.Notice
}

// MemberTools calls a member's MCP tools (a statement, a review) and records outbound calls.
type MemberTools interface {
	CallTool(ctx context.Context, m *axp.Member, tool string, in, out any) error
	ObserveOutbound(call string, elapsed time.Duration, err error)
}

// New returns the trust service.
func New(base kernel.Base, screen Screen, tasks Tasks, members MemberTools, caller *outbound.Caller, money *money.Service) *Service {
	return &Service{base: base, screen: screen, tasks: tasks, members: members, caller: caller, money: money}
}
