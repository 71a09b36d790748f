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

// newCaller builds the exchange's outbound client (signed MCP calls, callback posts, the
// operator's chosen providers); the services that call out take it when they are built.
func (d *Daemon) newCaller() {
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
}

// wireOutbound connects the exchange to members: signed MCP calls, the retrying pusher for events,
// and signed callback posts.
func (d *Daemon) wireOutbound() {
	d.Pusher = outbound.NewPusher(d.Caller, 4, 5, time.Second, d.pushFailed)
	d.Outbox = d // notices of changes made before this point (the start's own passes) are dropped
}

// Deliver sends one committed notice (the kernel's Outbox): a callback post, a call whose answer a service
// handles (registered in d.answers), or an event through the pusher. Pull members get nothing
// pushed: they poll.
func (d *Daemon) Deliver(ctx context.Context, n kernel.Notice) {
	trace := axp.TraceID(ctx)
	if n.CallbackURL != "" {
		d.Pusher.Push(outbound.Job{Label: n.TaskID + " callback", CallbackURL: n.CallbackURL, Input: n.Msg.Input(), TraceID: trace,
			Target: outbound.Target{MemberID: n.SignAs, PlatformKey: n.Key}})
		return
	}
	m, err := d.Member(n.MemberID)
	if err != nil || m.PullMode() {
		return
	}
	label := n.TaskID + " " + n.Msg.Tool() + " -> " + m.ID
	t, err := d.Target(m)
	if err != nil {
		d.pushFailed(outbound.Job{Label: label}, err)
		if n.Done != nil {
			n.Done(err)
		}
		return
	}
	if answer := d.answers.For(n); answer != nil {
		go answer(axp.WithTrace(context.Background(), trace), n, m)
		return
	}
	d.Pusher.Push(outbound.Job{Label: label, Target: t, Tool: n.Msg.Tool(), Input: n.Msg.Input(), TraceID: trace, Done: n.Done})
}

// pushFailed logs an undelivered event and records it on its task's timeline.
func (d *Daemon) pushFailed(job outbound.Job, err error) {
	d.Log.Warn("event not delivered", "source", "outbound", "job", job.Label, "err", err)
	taskID, rest, _ := strings.Cut(job.Label, " ")
	d.tasks.PushFailed(taskID, rest, err)
}
