package daemon

import (
	"context"
	"net/http"

	"github.com/axp-exchange/axp/daemon/board"
	"github.com/axp-exchange/axp/daemon/kernel"
	"github.com/axp-exchange/axp/daemon/members"
	"github.com/axp-exchange/axp/daemon/money"
	"github.com/axp-exchange/axp/daemon/operator"
	"github.com/axp-exchange/axp/daemon/paid"
	"github.com/axp-exchange/axp/daemon/pipeline"
	"github.com/axp-exchange/axp/daemon/recorded"
	"github.com/axp-exchange/axp/daemon/screening"
	"github.com/axp-exchange/axp/daemon/site"
	"github.com/axp-exchange/axp/daemon/talk"
	"github.com/axp-exchange/axp/daemon/tasks"
	"github.com/axp-exchange/axp/daemon/trust"
)

// handlers is the registry of every operation: each service registers its own.
func (d *Daemon) handlers(r *pipeline.Registry) {
	d.site.Register(r)
	d.talk.Register(r)
	d.tasks.Register(r)
	d.money.Register(r)
	d.members.Register(r)
	d.operator.Register(r)
	d.trust.Register(r)
	d.board.Register(r)
	d.paid.Register(r)
	d.recorded.Register(r)
}

// noticeAnswers registers, for each member call whose answer matters, the service that applies it.
func (d *Daemon) noticeAnswers() *kernel.Answers {
	a := kernel.NewAnswers()
	d.tasks.Answers(a)
	d.trust.Answers(a)
	return a
}

// services builds the services over the kernel, each after those it uses.
func (d *Daemon) services() {
	k := d.Kernel
	scr := screening.New(k.Base(), k)
	d.members = members.New(k.Base(), scr, k, k, k.Caller, k.Keys)
	life := tasks.NewLifecycle(k.Base(), k)
	d.money = money.New(k.Base(), k.Rail, k.Prom, life)
	d.trust = trust.New(k.Base(), scr, life, k, k.Caller, d.money)
	d.tasks = tasks.New(k.Base(), k.Rail, k.Prom, scr, life, k, d.members, d.money, d.trust)
	d.recorded = recorded.New(k.Base(), k.Caller)
	d.paid = paid.New(k.Base(), k.Rail, k.Caller, k, d.recorded)
	d.site = site.New(k.Base(), k, d.members, d.trust)
	d.talk = talk.New(k.Base(), scr, d.trust, d.Pipe)
	d.board = board.New(k.Base(), scr)
	d.operator = operator.New(k.Base(), k.Sink, k.Metrics, k.Started, k)
}

// Charge takes the payment of a paid call (pipeline.Backend).
func (d *Daemon) Charge(ctx context.Context, c *pipeline.Call, r *http.Request) (pipeline.Charge, error) {
	return d.paid.Charge(ctx, c, r)
}
