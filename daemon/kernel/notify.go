package kernel

import (
	"context"

	"github.com/axp-exchange/axp"
)

// Notice is a message to a member's MCP server (tool and input) or to a task's callback URL,
// queued inside a change and sent after it commits.
type Notice struct {
	MemberID    string
	Tool        string
	CallbackURL string
	TaskID      string
	Input       any
	// key and signAs sign a callback post: the buyer member's platform key, or for anonymous
	// buyers the hex SHA-256 of the buyer token (which the buyer can compute).
	Key    []byte
	SignAs string
	// done, when set, is told the outcome of a push (nil: delivered).
	Done func(err error)
}

// Send hands committed notices to the outbound pusher; it never blocks the request.
func (k *Kernel) Send(ctx context.Context, ns []Notice) {
	if k.Outbox == nil {
		return
	}
	for _, n := range ns {
		k.Outbox(ctx, n)
	}
}

// Callback builds the notice posting payload to a task's callback_url. The post is signed like a
// member call (X-AX-Timestamp, X-AX-Signature over "<timestamp>.<body>"): with the buyer member's
// platform key, or, for anonymous buyers, with the hex SHA-256 of the buyer token as the key and
// "buyer:<task id>" as X-AX-Member-Id.
func (k *Kernel) Callback(ch *Change, t *axp.TaskRecord, payload map[string]any) Notice {
	n := Notice{CallbackURL: t.CallbackURL, TaskID: t.ID, Input: payload, Key: []byte(t.BuyerTokenHash), SignAs: "buyer:" + t.ID}
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
