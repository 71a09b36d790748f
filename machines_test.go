package axp_test

import (
	"testing"

	"github.com/axp-exchange/axp"
)

// TestMachines: for every machine, every (status, event) pair either enters exactly the status of
// the table or is refused with a conflict that leaves the status as it was.
func TestMachines(t *testing.T) {
	cases := []struct {
		m        *axp.Machine
		statuses []string
		want     map[string]map[string]string // status -> event -> next
	}{
		{axp.ApprovalMachine, []string{axp.ApprovalPending, axp.ApprovalHeld, axp.ApprovalApproved, axp.ApprovalRejected,
			axp.ApprovalSent, axp.ApprovalConfirmed, axp.ApprovalFailed, axp.ApprovalReorged, axp.ApprovalWrittenOff},
			map[string]map[string]string{
				axp.ApprovalPending: {axp.ApprovalHold: axp.ApprovalHeld, axp.ApprovalApprove: axp.ApprovalApproved, axp.ApprovalReject: axp.ApprovalRejected,
					axp.ApprovalSend: axp.ApprovalSent},
				axp.ApprovalHeld: {axp.ApprovalUnhold: axp.ApprovalPending, axp.ApprovalReject: axp.ApprovalRejected},
				axp.ApprovalSent: {axp.ApprovalConfirm: axp.ApprovalConfirmed, axp.ApprovalFail: axp.ApprovalFailed},
				axp.ApprovalFailed: {axp.ApprovalSend: axp.ApprovalSent, axp.ApprovalApprove: axp.ApprovalApproved, axp.ApprovalReject: axp.ApprovalRejected,
					axp.ApprovalHold: axp.ApprovalHeld},
				axp.ApprovalApproved:  {axp.ApprovalReorg: axp.ApprovalReorged},
				axp.ApprovalReorged:   {axp.ApprovalRestore: axp.ApprovalApproved, axp.ApprovalWriteOff: axp.ApprovalWrittenOff},
				axp.ApprovalConfirmed: {axp.ApprovalUnconfirm: axp.ApprovalSent},
			}},
		{axp.MediationMachine, []string{axp.MediationAwaiting, axp.MediationDecided, axp.MediationAppealed, axp.MediationResolved},
			map[string]map[string]string{
				axp.MediationAwaiting: {axp.MediationDecide: axp.MediationDecided, axp.MediationResolve: axp.MediationResolved},
				axp.MediationDecided:  {axp.MediationAppeal: axp.MediationAppealed},
				axp.MediationAppealed: {axp.MediationResolve: axp.MediationResolved},
			}},
		{axp.SettlementMachine, []string{axp.SettlementProposed, axp.SettlementAccepted, axp.SettlementRejected, axp.SettlementSuperseded},
			map[string]map[string]string{
				axp.SettlementProposed: {axp.SettlementAccept: axp.SettlementAccepted, axp.SettlementReject: axp.SettlementRejected,
					axp.SettlementSupersede: axp.SettlementSuperseded},
			}},
		{axp.PaidCallMachine, []string{axp.PaidClaimed, axp.PaidSettling, axp.PaidSettled, axp.PaidReleased,
			axp.PaidAuthorizing, axp.PaidAuthorized, axp.PaidVoiding, axp.PaidVoided},
			map[string]map[string]string{
				axp.PaidClaimed: {axp.PaidSubmit: axp.PaidSettling, axp.PaidBook: axp.PaidSettled, axp.PaidRelease: axp.PaidReleased,
					axp.PaidLetGo: axp.PaidReleased, axp.PaidAuthorize: axp.PaidAuthorizing},
				axp.PaidSettling:    {axp.PaidBook: axp.PaidSettled, axp.PaidLetGo: axp.PaidReleased, axp.PaidVoid: axp.PaidVoiding},
				axp.PaidAuthorizing: {axp.PaidHold: axp.PaidAuthorized, axp.PaidLetGo: axp.PaidReleased},
				axp.PaidAuthorized:  {axp.PaidSubmit: axp.PaidSettling, axp.PaidVoid: axp.PaidVoiding},
				axp.PaidVoiding:     {axp.PaidVoid: axp.PaidVoiding, axp.PaidBookVoid: axp.PaidVoided},
			}},
	}
	for _, c := range cases {
		for _, s := range c.statuses {
			for ev := range c.m.Edges {
				got := s
				err := c.m.Move(&got, ev)
				want, allowed := c.want[s][ev]
				switch {
				case allowed && (err != nil || got != want):
					t.Errorf("%s %s on %s: got %s %v, want %s", c.m.Entity, s, ev, got, err, want)
				case !allowed && (err == nil || err.Code != axp.CodeConflict || got != s):
					t.Errorf("%s %s on %s: got %s %v, want a conflict", c.m.Entity, s, ev, got, err)
				}
			}
		}
		if _, err := c.m.Next(c.statuses[0], "no_such_event"); err == nil || err.Code != axp.CodeInternal {
			t.Errorf("%s: an unknown event answered %v", c.m.Entity, err)
		}
	}
}
