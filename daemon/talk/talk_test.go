package talk_test

import (
	"strings"
	"testing"

	"github.com/axp-exchange/axp"
	"github.com/axp-exchange/axp/contract"
	"github.com/axp-exchange/axp/daemon/kernel/kerneltest"
	"github.com/axp-exchange/axp/daemon/money"
	"github.com/axp-exchange/axp/daemon/screening"
	"github.com/axp-exchange/axp/daemon/talk"
	"github.com/axp-exchange/axp/daemon/tasks"
	"github.com/axp-exchange/axp/daemon/trust"
	"github.com/axp-exchange/axp/store"
)

// newTalk builds talk over the trust service it uses, as daemon/services.go does; without an AI
// provider the built-in assistant answers.
func newTalk(t *testing.T) *kerneltest.Fixture {
	f := kerneltest.New(t)
	scr := screening.New(f.K.Base(), f.K)
	life := tasks.NewLifecycle(f.K.Base(), f.K)
	talk.New(f.K.Base(), scr, trust.New(f.K.Base(), scr, life, f.K, f.K.Caller, money.New(f.K.Base(), f.K.Rail, f.K.Prom, life)), nil).Register(f.Reg)
	return f
}

var anonymous = axp.Caller{Kind: axp.Anonymous, IP: "192.0.2.1"}

func TestTalkFirstTurnShapesTheJobAndHandsAConversationToken(t *testing.T) {
	f := newTalk(t)
	r, err := kerneltest.Call(t, f.Reg, contract.Talk, anonymous, &axp.TalkBody{Message: "I need a short poem about the tides, as a text file"})
	if err != nil {
		t.Fatal(err)
	}
	if r.ConversationID == "" || !strings.HasPrefix(r.Token, "ct_") || r.ContinueWith != axp.ContinueConversationToken || r.Reply == "" {
		t.Fatalf("reply %+v", r)
	}
	// The built-in assistant reads the type from the words and asks for the budget next.
	if r.Stage != axp.TalkShaping || r.Draft.Type != "text-file" || r.Asking != "budget" {
		t.Fatalf("stage %s, draft %+v, asking %q", r.Stage, r.Draft, r.Asking)
	}
	var conv *axp.Conversation
	f.View(t, func(tx *store.Tx) (err error) { conv, err = tx.Conversation(r.ConversationID); return err })
	if conv == nil || conv.MemberID != "" || conv.TokenHash == "" || len(conv.Messages) != 2 {
		t.Fatalf("stored %+v", conv)
	}
}

func TestTalkContinuesOnlyWithTheConversationToken(t *testing.T) {
	f := newTalk(t)
	first, err := kerneltest.Call(t, f.Reg, contract.Talk, anonymous, &axp.TalkBody{Message: "I need a short poem about the tides"})
	if err != nil {
		t.Fatal(err)
	}
	next := &axp.TalkBody{Message: "free", ConversationID: first.ConversationID}
	// Without the token, with another one, or for an unknown conversation: 403 alike.
	for _, c := range []struct {
		caller axp.Caller
		body   *axp.TalkBody
	}{
		{anonymous, next},
		{axp.Caller{Kind: axp.BuyerToken, Token: "ct_" + strings.Repeat("0", 48)}, next},
		{axp.Caller{Kind: axp.BuyerToken, Token: first.Token}, &axp.TalkBody{Message: "free", ConversationID: "cnv_missing"}},
	} {
		_, err = kerneltest.Call(t, f.Reg, contract.Talk, c.caller, c.body)
		if e := kerneltest.Err(t, err, axp.CodeForbidden); e.Field != "conversation_id" {
			t.Fatalf("refusal names %q", e.Field)
		}
	}

	r, err := kerneltest.Call(t, f.Reg, contract.Talk, axp.Caller{Kind: axp.BuyerToken, Token: first.Token}, next)
	if err != nil || r.ConversationID != first.ConversationID || r.Asking == "budget" {
		t.Fatalf("second turn %+v, %v", r, err)
	}
	var conv *axp.Conversation
	f.View(t, func(tx *store.Tx) (err error) { conv, err = tx.Conversation(r.ConversationID); return err })
	if len(conv.Messages) != 4 {
		t.Fatalf("%d messages stored after two turns", len(conv.Messages))
	}
}

func TestTalkRefusesABlankMessage(t *testing.T) {
	f := newTalk(t)
	_, err := kerneltest.Call(t, f.Reg, contract.Talk, anonymous, &axp.TalkBody{Message: "   "})
	if e := kerneltest.Err(t, err, axp.CodeInvalidInput); e.Field != "message" {
		t.Fatalf("refusal names %q", e.Field)
	}
}
