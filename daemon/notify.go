package daemon

import (
	"context"
)

// notice is a message to a member's MCP server (tool and input) or to a task's callback URL,
// queued inside a change and sent after it commits.
type notice struct {
	memberID    string
	tool        string
	callbackURL string
	taskID      string
	input       any
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
