package memberkit

import (
	"context"

	"github.com/axp-exchange/axp"
	"github.com/axp-exchange/axp/contract"
	"github.com/axp-exchange/axp/protocol"
)

// UnknownTaskType is a skill's task_type that is neither in the exchange's catalog nor offered by
// any other seller (see axp.UnknownTaskType).
type UnknownTaskType = axp.UnknownTaskType

// UnknownTaskTypes checks the task types of skills against the exchange's catalog and what
// verified sellers offer (GET /api/services). The member itself, once verified, is among those
// sellers: with a member secret its own skills are not counted.
func (c *Client) UnknownTaskTypes(ctx context.Context, skills []protocol.Skill) ([]UnknownTaskType, error) {
	l, err := call(ctx, c, contract.ListServices, contract.NoInput{})
	if err != nil {
		return nil, err
	}
	mine := map[string]bool{}
	if c.Secret != "" {
		if p, err := c.Profile(ctx); err == nil && p.State == axp.MemberVerified {
			for _, s := range p.Skills {
				mine[s.TaskType] = true
			}
		}
	}
	types := make([]string, len(skills))
	for i, s := range skills {
		types[i] = s.TaskType
	}
	return axp.UnknownTaskTypes(types, l.OnOffer, mine), nil
}
