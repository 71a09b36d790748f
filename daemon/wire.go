package daemon

import (
	"context"
	"strings"
	"time"

	"github.com/axp-exchange/axp"
	"github.com/axp-exchange/axp/daemon/kernel"
	"github.com/axp-exchange/axp/daemon/outbound"
	"github.com/axp-exchange/axp/protocol"
)

// wireOutbound connects the exchange to members: signed MCP calls, the retrying pusher for events,
// and signed callback posts.
func (d *Daemon) wireOutbound() {
	d.Caller = &outbound.Caller{
		Timeout: protocol.ToolCallTimeoutMillis * time.Millisecond,
		Now:     d.Cfg.Now,
		Trace:   axp.TraceID,
		// Private targets are refused at dial time unless the operator allows them.
		AllowPrivate: d.Cfg.OutboundPrivate == "allow",
		// Loopback too, unless the exchange listens on its own machine only (local development).
		DenyLoopback: d.DenyLoopback(),
		// The AI provider, the search backend, the price source, the news feeds and the x402
		// facilitator are the operator's own choice: they may live on a private network.
		Trusted: kernel.TrustedEndpoints(append([]string{d.Cfg.AIBaseURL, d.Cfg.SearchURL, d.Cfg.MarketSourceURL, d.Cfg.X402FacilitatorURL}, d.Cfg.NewsFeeds...)...),
		Observe: d.ObserveOutbound,
	}
	d.CallTool = func(ctx context.Context, m *axp.Member, tool string, in, out any) error {
		t, err := d.Target(m)
		if err != nil {
			return err
		}
		_, err = d.Caller.Call(ctx, t, tool, in, out)
		return err
	}
	d.Pusher = outbound.NewPusher(d.Caller, 4, 5, time.Second, d.pushFailed)
	d.Outbox = d.deliverNotice
}

// deliverNotice sends one committed notice: a callback post, a do_task call (whose answer
// matters), or an event through the pusher. Pull members get nothing pushed: they poll.
func (d *Daemon) deliverNotice(ctx context.Context, n kernel.Notice) {
	trace := axp.TraceID(ctx)
	if n.CallbackURL != "" {
		d.Pusher.Push(outbound.Job{Label: n.TaskID + " callback", CallbackURL: n.CallbackURL, Input: n.Input, TraceID: trace,
			Target: outbound.Target{MemberID: n.SignAs, PlatformKey: n.Key}})
		return
	}
	m, err := d.Member(n.MemberID)
	if err != nil || m.PullMode() {
		return
	}
	t, err := d.Target(m)
	if err != nil {
		d.pushFailed(outbound.Job{Label: n.TaskID + " " + n.Tool + " -> " + m.ID}, err)
		if n.Done != nil {
			n.Done(err)
		}
		return
	}
	switch n.Tool {
	case "do_task":
		go d.doTask(axp.WithTrace(context.Background(), trace), n, m)
		return
	case "mediation", "review":
		// Calls whose answers matter: a statement, a review.
		go d.trust.AskMember(axp.WithTrace(context.Background(), trace), n, m)
		return
	}
	d.Pusher.Push(outbound.Job{Label: n.TaskID + " " + n.Tool + " -> " + m.ID, Target: t, Tool: n.Tool, Input: n.Input, TraceID: trace, Done: n.Done})
}

// pushFailed records an undelivered event on its task's timeline.
func (d *Daemon) pushFailed(job outbound.Job, err error) {
	taskID, rest, _ := strings.Cut(job.Label, " ")
	d.Log.Warn("event not delivered", "source", "outbound", "job", job.Label, "err", err)
	if !strings.HasPrefix(taskID, "tsk_") {
		return
	}
	d.Mutate(context.Background(), "system", func(ch *kernel.Change) (any, error) {
		t, err2 := kernel.LoadTask(ch.Tx, taskID)
		if err2 != nil {
			return nil, err2
		}
		if err := ch.Event(t, "push_failed", map[string]any{"push": rest, "error": err.Error()}); err != nil {
			return nil, err
		}
		return nil, ch.Tx.PutTask(t, t.Status)
	})
}

// doTask asks a push seller to do a funded job and applies its answer: accepted starts the job; a
// refusal returns the task to the buyer's choice (funds already received stay in escrow for the
// next offer). A call that fails is recorded; the job stays in the seller's list.
func (d *Daemon) doTask(ctx context.Context, n kernel.Notice, m *axp.Member) {
	var out protocol.DoTaskOutput
	err := d.CallTool(ctx, m, "do_task", n.Input, &out)
	d.Mutate(ctx, "member:"+m.ID, func(ch *kernel.Change) (any, error) {
		t, lerr := kernel.LoadTask(ch.Tx, n.TaskID)
		if lerr != nil {
			return nil, lerr
		}
		if t.SellerID != m.ID || t.Status != axp.TaskPaid {
			return nil, nil // the job moved on meanwhile (delivered already, or reassigned)
		}
		prev := t.Status
		switch {
		case err != nil:
			if err := ch.Event(t, "do_task_failed", map[string]any{"seller": m.ID, "error": err.Error()}); err != nil {
				return nil, err
			}
			return nil, ch.Tx.PutTask(t, t.Status)
		case out.Accepted:
			if err := t.Move(axp.TrigStart, "", ch.Now); err != nil {
				return nil, err
			}
			if err := ch.Save(t, prev, "start", map[string]any{"seller": m.ID}); err != nil {
				return nil, err
			}
			d.StatusNotices(ch, t)
			return nil, nil
		default:
			return nil, d.sellerDeclined(ch, t, out.Reason)
		}
	})
}

// sellerDeclined returns a funded task to the buyer's choice after the seller refused it.
func (d *Daemon) sellerDeclined(ch *kernel.Change, t *axp.TaskRecord, reason string) error {
	prev, seller := t.Status, t.SellerID
	if err := t.Move(axp.TrigSellerDecline, "", ch.Now); err != nil {
		return err
	}
	if err := ch.Tx.DeleteQuote(t.ID, seller); err != nil {
		return err
	}
	if err := ch.Tx.DropSellerJob(seller, t.ID); err != nil {
		return err
	}
	t.ChosenOfferID, t.SellerID, t.SellerName, t.StartedAt = "", "", "", nil
	t.OpenUntil = ch.Now.Add(d.Cfg.OpenWindow)
	if err := ch.Save(t, prev, "seller_decline", map[string]any{"seller": seller, "reason": reason}); err != nil {
		return err
	}
	d.StatusNotices(ch, t)
	return nil
}
