package daemon

import (
	"github.com/axp-exchange/axp/daemon/pipeline"
)

// handlers is the registry of every operation: each service registers its own.
func (d *Daemon) handlers() *pipeline.Registry {
	r := pipeline.NewRegistry()
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
	return r
}
