package kernel

import (
	"context"
	"reflect"

	"github.com/axp-exchange/axp"
	"github.com/axp-exchange/axp/protocol"
)

// Notice is a message to a member's MCP server or to a task's callback URL, queued inside a change
// and sent after it commits.
type Notice struct {
	MemberID    string
	CallbackURL string
	TaskID      string
	// Msg is what is sent: a Push, whose answer does not matter, or a call whose answer a service
	// handles (DoTask, AskStatement, AskReview; see Answers).
	Msg Message
	// key and signAs sign a callback post: the buyer member's platform key, or for anonymous
	// buyers the hex SHA-256 of the buyer token (which the buyer can compute).
	Key    []byte
	SignAs string
	// done, when set, is told the outcome of a push (nil: delivered).
	Done func(err error)
}

// Message is what a notice carries: the member tool it calls, with its input.
type Message interface {
	Tool() string
	Input() any
}

// Push is an event pushed through the retrying pusher: task_update, receive_offers, announcement,
// or a callback's payload. Nothing is done with the answer.
type Push struct {
	Name string
	In   any
}

func (p Push) Tool() string { return p.Name }
func (p Push) Input() any   { return p.In }

// DoTask asks a push seller to do a funded job; the tasks service applies its answer.
type DoTask struct{ In protocol.DoTaskInput }

func (DoTask) Tool() string { return "do_task" }
func (m DoTask) Input() any { return m.In }

// AskStatement asks a side of a mediation for its statement; the trust service records it.
type AskStatement struct{ In protocol.MediationInput }

func (AskStatement) Tool() string { return "mediation" }
func (m AskStatement) Input() any { return m.In }

// AskReview asks a party of a completed job for its review; the trust service records it.
type AskReview struct{ In protocol.ReviewInput }

func (AskReview) Tool() string { return "review" }
func (m AskReview) Input() any { return m.In }

// Answers holds, by message type, the handlers of the notices whose answer matters: each is
// registered by the service that owns the call, as operations are. A notice without a handler is
// a push.
type Answers struct {
	h map[reflect.Type]func(ctx context.Context, n Notice, m *axp.Member)
}

// NewAnswers returns an empty set of handlers.
func NewAnswers() *Answers {
	return &Answers{h: map[reflect.Type]func(context.Context, Notice, *axp.Member){}}
}

// Answer registers fn as the handler of notices carrying a T; it calls the member (m) and applies
// its answer. A second handler for one type panics when the exchange starts.
func Answer[T Message](a *Answers, fn func(ctx context.Context, n Notice, msg T, m *axp.Member)) {
	t := reflect.TypeFor[T]()
	if _, dup := a.h[t]; dup {
		panic("kernel: a second handler for notices of " + t.String())
	}
	a.h[t] = func(ctx context.Context, n Notice, m *axp.Member) { fn(ctx, n, n.Msg.(T), m) }
}

// For returns the handler of n's message, or nil when n is a push.
func (a *Answers) For(n Notice) func(ctx context.Context, n Notice, m *axp.Member) {
	if a == nil || n.Msg == nil {
		return nil
	}
	return a.h[reflect.TypeOf(n.Msg)]
}

// Outbox delivers a committed notice: a callback post, a call whose answer a service applies, or
// an event through the retrying pusher.
type Outbox interface {
	Deliver(ctx context.Context, n Notice)
}

// Send hands committed notices to the outbound pusher; it never blocks the request.
func (k *Kernel) Send(ctx context.Context, ns []Notice) {
	if k.Outbox == nil {
		return
	}
	for _, n := range ns {
		k.Outbox.Deliver(ctx, n)
	}
}

// Callback builds the notice posting payload to a task's callback_url. The post is signed like a
// member call (X-AX-Timestamp, X-AX-Signature over "<timestamp>.<body>"): with the buyer member's
// platform key, or, for anonymous buyers, with the hex SHA-256 of the buyer token as the key and
// "buyer:<task id>" as X-AX-Member-Id.
func (k *Kernel) Callback(ch *Change, t *axp.TaskRecord, payload map[string]any) Notice {
	n := Notice{CallbackURL: t.CallbackURL, TaskID: t.ID, Msg: Push{Name: "callback", In: payload}, Key: []byte(t.BuyerTokenHash), SignAs: "buyer:" + t.ID}
	if t.BuyerMemberID != "" {
		if m, err := ch.Tx.Member(t.BuyerMemberID); err == nil && m != nil {
			if key, err := k.Keys.open(m.PlatformKeyEnc); err == nil {
				n.Key, n.SignAs = key, m.ID
			}
		}
	}
	payload["task_id"] = t.ID
	return n
}
