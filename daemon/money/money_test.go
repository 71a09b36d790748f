package money_test

import (
	"strings"
	"testing"
	"time"

	"github.com/axp-exchange/axp"
	"github.com/axp-exchange/axp/contract"
	"github.com/axp-exchange/axp/daemon/kernel"
	"github.com/axp-exchange/axp/daemon/kernel/kerneltest"
	"github.com/axp-exchange/axp/daemon/members"
	"github.com/axp-exchange/axp/daemon/money"
	"github.com/axp-exchange/axp/daemon/screening"
	"github.com/axp-exchange/axp/daemon/tasks"
	"github.com/axp-exchange/axp/daemon/trust"
	"github.com/axp-exchange/axp/protocol"
	"github.com/axp-exchange/axp/store"
)

const deposit = "0x1111111111111111111111111111111111111111"

// market builds money with the services a paid task goes through (as daemon/services.go does) on
// an exchange whose operator confirms payments (the manual rail).
func market(t *testing.T) *kerneltest.Fixture {
	f := kerneltest.New(t, func(c *kernel.Config) { c.DepositAddress = deposit })
	scr := screening.New(f.K.Base(), f.K)
	mem := members.New(f.K.Base(), scr, f.K, f.K, f.K.Caller, f.K.Keys)
	life := tasks.NewLifecycle(f.K.Base(), f.K)
	mon := money.New(f.K.Base(), f.K.Rail, f.K.Prom, life)
	tr := trust.New(f.K.Base(), scr, life, f.K, f.K.Caller, mon)
	mem.Register(f.Reg)
	mon.Register(f.Reg)
	tr.Register(f.Reg)
	tasks.New(f.K.Base(), f.K.Rail, f.K.Prom, scr, life, f.K, mem, mon, tr).Register(f.Reg)
	return f
}

// reported is a task a seller quoted US$2 on, chosen by its buyer, who then reported paying it.
type reported struct {
	task, token string
	seller      axp.Caller
	txHash      string
}

func paidTask(t *testing.T, f *kerneltest.Fixture) reported {
	t.Helper()
	anon := axp.Caller{Kind: axp.Anonymous, IP: "192.0.2.1"}
	// Registration and verification are the members service's; here the seller is simply stored verified.
	seller, _ := f.AddMember(t, axp.Registration{Roles: []string{"seller"}, Name: "Haiku Works",
		Skills: []protocol.Skill{{TaskType: "text-file"}}, PayoutAddress: "0x2222222222222222222222222222222222222222"})
	created, err := kerneltest.Call(t, f.Reg, contract.CreateTask, anon, &axp.NewTask{Type: "text-file", Params: map[string]any{"prompt": "a haiku"}})
	if err != nil {
		t.Fatal(err)
	}
	price, eta := axp.Money(2_000_000), 30
	offer, err := kerneltest.Call(t, f.Reg, contract.SubmitOffer, seller, &axp.OfferInput{ID: created.ID,
		QuoteAnswer: protocol.QuoteAnswer{PriceUSD: &price, ETAMinutes: &eta}})
	if err != nil {
		t.Fatal(err)
	}
	buyer := axp.Caller{Kind: axp.BuyerToken, Token: created.BuyerToken, IP: "192.0.2.1"}
	if _, err := kerneltest.Call(t, f.Reg, contract.ChooseOffer, buyer, &axp.ChooseInput{TaskRef: axp.TaskRef{ID: created.ID}, OfferID: offer.Offer.OfferID}); err != nil {
		t.Fatal(err)
	}
	tx := "0x" + strings.Repeat("ab", 32)
	rep, err := kerneltest.Call(t, f.Reg, contract.PayCryptoOp, buyer, &axp.PayCryptoInput{TaskRef: axp.TaskRef{ID: created.ID}, TxHash: tx})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Verifier != "manual" {
		t.Fatalf("reported %+v", rep)
	}
	return reported{task: created.ID, token: created.BuyerToken, seller: seller, txHash: tx}
}

func TestAdminApprovalsListsAReportedPaymentWithItsAge(t *testing.T) {
	f := market(t)
	p := paidTask(t, f)
	f.Clock.Add(90 * time.Second)
	list, err := kerneltest.Call(t, f.Reg, contract.AdminApprovals, kerneltest.Operator, &axp.ApprovalsQuery{})
	if err != nil {
		t.Fatal(err)
	}
	if list.Rail != "manual" || len(list.Approvals) != 1 {
		t.Fatalf("queue %+v", list)
	}
	a := list.Approvals[0]
	if a.Kind != axp.ApprovePayment || a.Status != axp.ApprovalPending || a.TaskID != p.task || a.AgeSeconds != 90 {
		t.Fatalf("item %+v", a)
	}
	_, err = kerneltest.Call(t, f.Reg, contract.AdminApprovals, p.seller, &axp.ApprovalsQuery{})
	kerneltest.Err(t, err, axp.CodeUnauthorized)
}

func TestApprovingAPaymentStartsTheJob(t *testing.T) {
	f := market(t)
	p := paidTask(t, f)
	list, err := kerneltest.Call(t, f.Reg, contract.AdminApprovals, kerneltest.Operator, &axp.ApprovalsQuery{TaskID: p.task})
	if err != nil || len(list.Approvals) != 1 {
		t.Fatalf("queue %+v, %v", list, err)
	}
	before := len(f.Sent())
	a, err := kerneltest.Call(t, f.Reg, contract.AdminApprove, kerneltest.Operator, &axp.ApproveBody{ID: list.Approvals[0].ID, Note: "seen on the explorer"})
	if err != nil {
		t.Fatal(err)
	}
	if a.Status != axp.ApprovalApproved {
		t.Fatalf("approved item %+v", a)
	}
	var task *axp.TaskRecord
	f.View(t, func(tx *store.Tx) (err error) { task, err = tx.Task(p.task); return err })
	if task.Status != axp.TaskPaid {
		t.Fatalf("task is %s after its payment was approved", task.Status)
	}
	// The seller is told to do the job, after the change committed.
	var doTask bool
	for _, n := range f.Sent()[before:] {
		_, isDoTask := n.Msg.(kernel.DoTask)
		doTask = doTask || (isDoTask && n.TaskID == p.task && n.MemberID == p.seller.MemberID)
	}
	if !doTask {
		t.Fatalf("no do_task notice to the seller after the approval: %+v", f.Sent()[before:])
	}
	// A second approval of the same item is refused.
	_, err = kerneltest.Call(t, f.Reg, contract.AdminApprove, kerneltest.Operator, &axp.ApproveBody{ID: a.ID})
	kerneltest.Err(t, err, axp.CodeConflict)
}

func TestRejectNeedsAReasonAndKnownItem(t *testing.T) {
	f := market(t)
	_, err := kerneltest.Call(t, f.Reg, contract.AdminReject, kerneltest.Operator, &axp.RejectBody{ID: "apr_missing", Reason: "no such transfer"})
	kerneltest.Err(t, err, axp.CodeNotFound)
	_, err = kerneltest.Call(t, f.Reg, contract.AdminReject, kerneltest.Operator, &axp.RejectBody{ID: "apr_missing"})
	if e := kerneltest.Err(t, err, axp.CodeInvalidInput); e.Field != "reason" {
		t.Fatalf("refusal names %q", e.Field)
	}
}
