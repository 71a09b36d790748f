package daemon

import (
	"context"
	"errors"
	"strings"
	"time"

	"github.com/axp-exchange/axp"
	"github.com/axp-exchange/axp/daemon/outbound"
	"github.com/axp-exchange/axp/protocol"
)

// wireOutbound connects the exchange to members: signed MCP calls, the retrying pusher for events,
// and signed callback posts.
func (d *Daemon) wireOutbound() {
	d.caller = &outbound.Caller{
		Timeout: protocol.ToolCallTimeoutMillis * time.Millisecond,
		Now:     d.cfg.Now,
		Trace:   axp.TraceID,
		// Private targets are refused at dial time unless the operator allows them.
		AllowPrivate: d.cfg.OutboundPrivate == "allow",
		// The AI provider, the search backend, the price source and the news feeds are the
		// operator's own choice: they may live on a private network.
		Trusted: trustedEndpoints(append([]string{d.cfg.AIBaseURL, d.cfg.SearchURL, d.cfg.MarketSourceURL}, d.cfg.NewsFeeds...)...),
		Observe: func(op string, elapsed time.Duration, err error) {
			d.metrics.observe("out:"+op, elapsed, err != nil, d.now())
		},
	}
	d.callTool = func(ctx context.Context, m *axp.Member, tool string, in, out any) error {
		t, err := d.target(m)
		if err != nil {
			return err
		}
		_, err = d.caller.Call(ctx, t, tool, in, out)
		return err
	}
	d.pusher = outbound.NewPusher(d.caller, 4, 5, time.Second, d.pushFailed)
	d.outbox = d.deliverNotice
}

// trustedEndpoints are the host:port of the endpoints the operator configured.
func trustedEndpoints(urls ...string) []string {
	var out []string
	for _, u := range urls {
		if e := outbound.TrustedEndpoint(u); e != "" {
			out = append(out, e)
		}
	}
	return out
}

// target is how the exchange reaches a member: its MCP URL, platform key and auth token.
func (d *Daemon) target(m *axp.Member) (outbound.Target, error) {
	key, err := d.keys.open(m.PlatformKeyEnc)
	if err != nil {
		return outbound.Target{}, errors.New("the member's platform key cannot be unsealed (is secret.key the one of this database?)")
	}
	t := outbound.Target{MemberID: m.ID, MCPURL: m.MCPURL, PlatformKey: key}
	if len(m.AuthTokenEnc) > 0 {
		tok, err := d.keys.open(m.AuthTokenEnc)
		if err != nil {
			return t, errors.New("the member's auth token cannot be unsealed")
		}
		t.AuthToken = string(tok)
	}
	return t, nil
}

// deliverNotice sends one committed notice: a callback post, a do_task call (whose answer
// matters), or an event through the pusher. Pull members get nothing pushed: they poll.
func (d *Daemon) deliverNotice(ctx context.Context, n notice) {
	trace := axp.TraceID(ctx)
	if n.callbackURL != "" {
		d.pusher.Push(outbound.Job{Label: n.taskID + " callback", CallbackURL: n.callbackURL, Input: n.input, TraceID: trace,
			Target: outbound.Target{MemberID: n.signAs, PlatformKey: n.key}})
		return
	}
	m, err := d.member(n.memberID)
	if err != nil || m.PullMode() {
		return
	}
	t, err := d.target(m)
	if err != nil {
		d.pushFailed(outbound.Job{Label: n.taskID + " " + n.tool + " -> " + m.ID}, err)
		if n.done != nil {
			n.done(err)
		}
		return
	}
	switch n.tool {
	case "do_task":
		go d.doTask(axp.WithTrace(context.Background(), trace), n, m)
		return
	case "mediation", "review":
		// Calls whose answers matter: a statement, a review.
		go d.askMember(axp.WithTrace(context.Background(), trace), n, m)
		return
	}
	d.pusher.Push(outbound.Job{Label: n.taskID + " " + n.tool + " -> " + m.ID, Target: t, Tool: n.tool, Input: n.input, TraceID: trace, Done: n.done})
}

// pushFailed records an undelivered event on its task's timeline.
func (d *Daemon) pushFailed(job outbound.Job, err error) {
	taskID, rest, _ := strings.Cut(job.Label, " ")
	d.log.Warn("event not delivered", "source", "outbound", "job", job.Label, "err", err)
	if !strings.HasPrefix(taskID, "tsk_") {
		return
	}
	d.mutate(context.Background(), "system", func(ch *change) (any, error) {
		t, err2 := loadTask(ch.tx, taskID)
		if err2 != nil {
			return nil, err2
		}
		if err := ch.event(t, "push_failed", map[string]any{"push": rest, "error": err.Error()}); err != nil {
			return nil, err
		}
		return nil, ch.tx.PutTask(t, t.Status)
	})
}

// doTask asks a push seller to do a funded job and applies its answer: accepted starts the job; a
// refusal returns the task to the buyer's choice (funds already received stay in escrow for the
// next offer). A call that fails is recorded; the job stays in the seller's list.
func (d *Daemon) doTask(ctx context.Context, n notice, m *axp.Member) {
	var out protocol.DoTaskOutput
	err := d.callTool(ctx, m, "do_task", n.input, &out)
	d.mutate(ctx, "member:"+m.ID, func(ch *change) (any, error) {
		t, lerr := loadTask(ch.tx, n.taskID)
		if lerr != nil {
			return nil, lerr
		}
		if t.SellerID != m.ID || t.Status != axp.TaskPaid {
			return nil, nil // the job moved on meanwhile (delivered already, or reassigned)
		}
		prev := t.Status
		switch {
		case err != nil:
			if err := ch.event(t, "do_task_failed", map[string]any{"seller": m.ID, "error": err.Error()}); err != nil {
				return nil, err
			}
			return nil, ch.tx.PutTask(t, t.Status)
		case out.Accepted:
			if err := t.Move(axp.TrigStart, "", ch.now); err != nil {
				return nil, err
			}
			if err := ch.save(t, prev, "start", map[string]any{"seller": m.ID}); err != nil {
				return nil, err
			}
			d.statusNotices(ch, t)
			return nil, nil
		default:
			return nil, d.sellerDeclined(ch, t, out.Reason)
		}
	})
}

// sellerDeclined returns a funded task to the buyer's choice after the seller refused it.
func (d *Daemon) sellerDeclined(ch *change, t *axp.TaskRecord, reason string) error {
	prev, seller := t.Status, t.SellerID
	if err := t.Move(axp.TrigSellerDecline, "", ch.now); err != nil {
		return err
	}
	if err := ch.tx.DeleteQuote(t.ID, seller); err != nil {
		return err
	}
	if err := ch.tx.DropSellerJob(seller, t.ID); err != nil {
		return err
	}
	t.ChosenOfferID, t.SellerID, t.SellerName, t.StartedAt = "", "", "", nil
	t.OpenUntil = ch.now.Add(d.cfg.OpenWindow)
	if err := ch.save(t, prev, "seller_decline", map[string]any{"seller": seller, "reason": reason}); err != nil {
		return err
	}
	d.statusNotices(ch, t)
	return nil
}

// checkTarget refuses a callback_url or mcp_url whose host is an IP literal the exchange would
// refuse to dial (outbound_private: deny), so the mistake shows when the URL is given rather than
// at the first call. Host names are judged at dial time only.
func (d *Daemon) checkTarget(field, rawURL string) error {
	if d.cfg.OutboundPrivate == "allow" || rawURL == "" {
		return nil
	}
	if rule := outbound.DeniedURL(rawURL); rule != "" {
		return axp.Invalid(field, "points at "+rule+", which the exchange does not call",
			"use a public address; an operator who needs private targets sets "+outbound.PrivateConfigKey+": allow")
	}
	return nil
}
