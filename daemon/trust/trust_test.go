package trust_test

import (
	"strings"
	"testing"

	"github.com/axp-exchange/axp"
	"github.com/axp-exchange/axp/contract"
	"github.com/axp-exchange/axp/daemon/kernel/kerneltest"
	"github.com/axp-exchange/axp/daemon/members"
	"github.com/axp-exchange/axp/daemon/money"
	"github.com/axp-exchange/axp/daemon/screening"
	"github.com/axp-exchange/axp/daemon/tasks"
	"github.com/axp-exchange/axp/daemon/trust"
	"github.com/axp-exchange/axp/protocol"
)

var anonymous = axp.Caller{Kind: axp.Anonymous, IP: "192.0.2.1"}

// quoted is an open task with one verified seller's offer on it.
type quoted struct {
	f      *kerneltest.Fixture
	task   string
	buyer  axp.Caller
	seller axp.Caller
}

// newQuoted builds trust with the services a task conversation goes through, as
// daemon/services.go does, and a task quoted by one seller.
func newQuoted(t *testing.T) quoted {
	f := kerneltest.New(t)
	scr := screening.New(f.K.Base(), f.K)
	mem := members.New(f.K.Base(), scr, f.K, f.K, f.K.Caller, f.K.Keys)
	life := tasks.NewLifecycle(f.K.Base(), f.K)
	mon := money.New(f.K.Base(), f.K.Rail, f.K.Prom, life)
	tr := trust.New(f.K.Base(), scr, life, f.K, f.K.Caller, mon)
	mem.Register(f.Reg)
	mon.Register(f.Reg)
	tr.Register(f.Reg)
	tasks.New(f.K.Base(), f.K.Rail, f.K.Prom, scr, life, f.K, mem, mon, tr).Register(f.Reg)

	seller, _ := f.AddMember(t, axp.Registration{Roles: []string{"seller"}, Name: "Haiku Works",
		Skills: []protocol.Skill{{TaskType: "text-file"}}, PaymentMethods: []string{"crypto", "free"}})
	created, err := kerneltest.Call(t, f.Reg, contract.CreateTask, anonymous, &axp.NewTask{Type: "text-file", PaymentMethod: "free",
		Params: map[string]any{"prompt": "a haiku"}})
	if err != nil {
		t.Fatal(err)
	}
	eta := 30
	if _, err := kerneltest.Call(t, f.Reg, contract.SubmitOffer, seller, &axp.OfferInput{ID: created.ID,
		QuoteAnswer: protocol.QuoteAnswer{PriceUSD: new(axp.Money), ETAMinutes: &eta}}); err != nil {
		t.Fatal(err)
	}
	return quoted{f: f, task: created.ID, seller: seller,
		buyer: axp.Caller{Kind: axp.BuyerToken, Token: created.BuyerToken, IP: "192.0.2.1"}}
}

func TestPostMessageRemovesContactDetails(t *testing.T) {
	q := newQuoted(t)
	msg, err := kerneltest.Call(t, q.f.Reg, contract.PostMessage, q.buyer, &axp.MessageBody{TaskRef: axp.TaskRef{ID: q.task},
		SellerID: q.seller.MemberID, Body: "Can you make it rhyme? Mail me at tides.reader@example.com or call +1 415 555 0134"})
	if err != nil {
		t.Fatal(err)
	}
	if msg.From != axp.SideBuyer || msg.SellerID != q.seller.MemberID {
		t.Fatalf("message %+v", msg)
	}
	if want := "Can you make it rhyme? Mail me at [email removed] or call [phone removed]"; msg.Body != want {
		t.Fatalf("body %q, want %q", msg.Body, want)
	}
	if msg.Screening == nil || strings.Join(msg.Screening.Removed, ",") != "email,phone" {
		t.Fatalf("screening %+v", msg.Screening)
	}
	list, err := kerneltest.Call(t, q.f.Reg, contract.ListMessages, q.seller, &axp.TaskRef{ID: q.task})
	if err != nil || len(list.Messages) != 1 || list.Messages[0].Body != msg.Body {
		t.Fatalf("the seller reads %+v, %v", list, err)
	}
}

func TestPostMessageNeedsASellerBeforeOneIsChosen(t *testing.T) {
	q := newQuoted(t)
	_, err := kerneltest.Call(t, q.f.Reg, contract.PostMessage, q.buyer, &axp.MessageBody{TaskRef: axp.TaskRef{ID: q.task}, Body: "hello"})
	if e := kerneltest.Err(t, err, axp.CodeInvalidInput); e.Field != "seller_id" {
		t.Fatalf("refusal names %q", e.Field)
	}
	// The seller speaks only once the buyer wrote to it.
	_, err = kerneltest.Call(t, q.f.Reg, contract.PostMessage, q.seller, &axp.MessageBody{TaskRef: axp.TaskRef{ID: q.task}, Body: "hello"})
	kerneltest.Err(t, err, axp.CodeForbidden)
	if _, err := kerneltest.Call(t, q.f.Reg, contract.PostMessage, q.buyer, &axp.MessageBody{TaskRef: axp.TaskRef{ID: q.task},
		SellerID: q.seller.MemberID, Body: "hello"}); err != nil {
		t.Fatal(err)
	}
	if _, err := kerneltest.Call(t, q.f.Reg, contract.PostMessage, q.seller, &axp.MessageBody{TaskRef: axp.TaskRef{ID: q.task}, Body: "hi, on it"}); err != nil {
		t.Fatal(err)
	}
}
