package daemon

import (
	"context"

	"github.com/axp-exchange/axp"
)

// notice is a message to a member's MCP server (tool and input) or to a task's callback URL,
// queued inside a change and sent after it commits.
type notice struct {
	memberID    string
	tool        string
	callbackURL string
	taskID      string
	input       any
	// key and signAs sign a callback post: the buyer member's platform key, or for anonymous
	// buyers the hex SHA-256 of the buyer token (which the buyer can compute).
	key    []byte
	signAs string
	// done, when set, is told the outcome of a push (nil: delivered).
	done func(err error)
}

// send hands committed notices to the outbound pusher; it never blocks the request.
func (d *Daemon) send(ctx context.Context, ns []notice) {
	if d.outbox == nil {
		return
	}
	for _, n := range ns {
		d.outbox(ctx, n)
	}
}

// callback builds the notice posting payload to a task's callback_url. The post is signed like a
// member call (X-AX-Timestamp, X-AX-Signature over "<timestamp>.<body>"): with the buyer member's
// platform key, or, for anonymous buyers, with the hex SHA-256 of the buyer token as the key and
// "buyer:<task id>" as X-AX-Member-Id.
func (d *Daemon) callback(ch *change, t *axp.TaskRecord, payload map[string]any) notice {
	n := notice{callbackURL: t.CallbackURL, taskID: t.ID, input: payload, key: []byte(t.BuyerTokenHash), signAs: "buyer:" + t.ID}
	if t.BuyerMemberID != "" {
		if m, err := ch.tx.Member(t.BuyerMemberID); err == nil && m != nil {
			if key, err := d.keys.open(m.PlatformKeyEnc); err == nil {
				n.key, n.signAs = key, m.ID
			}
		}
	}
	payload["task_id"] = t.ID
	return n
}
