package operator_test

import (
	"testing"
	"time"

	"github.com/axp-exchange/axp"
	"github.com/axp-exchange/axp/contract"
	"github.com/axp-exchange/axp/daemon/kernel/kerneltest"
	"github.com/axp-exchange/axp/daemon/operator"
)

func newOperator(t *testing.T) *kerneltest.Fixture {
	f := kerneltest.New(t)
	operator.New(f.K.Base(), f.K.Sink, f.K.Metrics, f.K.Started, f.K).Register(f.Reg)
	return f
}

func TestAdminStatsCountsMembersAndUptime(t *testing.T) {
	f := newOperator(t)
	f.AddMember(t, axp.Registration{Roles: []string{"seller"}, Name: "Ann"})
	f.AddMember(t, axp.Registration{Roles: []string{"buyer", "seller"}, Name: "Bob"})
	f.Clock.Add(90 * time.Minute)
	st, err := kerneltest.Call(t, f.Reg, contract.AdminStats, kerneltest.Operator, nil)
	if err != nil {
		t.Fatal(err)
	}
	if st.Members[axp.MemberVerified] != 2 || st.MembersByRole["seller"] != 2 || st.MembersByRole["buyer"] != 1 {
		t.Fatalf("members %v by role %v", st.Members, st.MembersByRole)
	}
	if st.Uptime != "1h30m0s" || !st.Leader || st.Money.LedgerSum != 0 || st.Money.Entries != 0 {
		t.Fatalf("stats %+v", st)
	}
	_, err = kerneltest.Call(t, f.Reg, contract.AdminStats, axp.Caller{Kind: axp.Anonymous}, nil)
	kerneltest.Err(t, err, axp.CodeUnauthorized)
}

func TestSuspendThenUnsuspendIsAudited(t *testing.T) {
	f := newOperator(t)
	ann, secret := f.AddMember(t, axp.Registration{Roles: []string{"seller"}, Name: "Ann"})
	m, err := kerneltest.Call(t, f.Reg, contract.AdminSuspend, kerneltest.Operator, &axp.SuspendBody{ID: ann.MemberID, Reason: "asked buyers to pay outside"})
	if err != nil || m.State != axp.MemberSuspended {
		t.Fatalf("suspended %+v, %v", m, err)
	}
	// A suspended member's secret no longer authenticates.
	_, err = f.K.MemberBySecret(secret)
	kerneltest.Err(t, err, axp.CodeForbidden)
	_, err = kerneltest.Call(t, f.Reg, contract.AdminSuspend, kerneltest.Operator, &axp.SuspendBody{ID: ann.MemberID})
	kerneltest.Err(t, err, axp.CodeConflict)

	f.Clock.Add(time.Hour)
	if m, err = kerneltest.Call(t, f.Reg, contract.AdminUnsuspend, kerneltest.Operator, &axp.SuspendBody{ID: ann.MemberID}); err != nil || m.State != axp.MemberRegistered {
		t.Fatalf("unsuspended %+v, %v", m, err)
	}
	audit, err := kerneltest.Call(t, f.Reg, contract.AdminAudit, kerneltest.Operator, &axp.AuditQuery{EntityID: ann.MemberID})
	if err != nil || len(audit.Records) != 2 {
		t.Fatalf("audit %+v, %v", audit, err)
	}
	newest, oldest := audit.Records[0], audit.Records[1]
	if newest.Action != "member.unsuspend" || !newest.Time.Equal(kerneltest.Start.Add(time.Hour)) || newest.Actor != "admin" ||
		oldest.Action != "member.suspend" || oldest.Details["reason"] != "asked buyers to pay outside" {
		t.Fatalf("audit %+v", audit.Records)
	}
	_, err = kerneltest.Call(t, f.Reg, contract.AdminSuspend, kerneltest.Operator, &axp.SuspendBody{ID: "mem_missing"})
	kerneltest.Err(t, err, axp.CodeNotFound)
}
