package daemon

import (
	"github.com/axp-exchange/axp/daemon/pipeline"
)

// handlers is the registry of every operation: each service registers its own.
func (d *Daemon) handlers() *pipeline.Registry {
	r := pipeline.NewRegistry()
	d.registerSite(r)
	d.registerTalk(r)
	d.registerTasks(r)
	d.registerMoney(r)
	d.registerMembers(r)
	d.registerOperator(r)
	d.registerTrust(r)
	d.registerBoard(r)
	d.registerPaid(r)
	d.registerRecorded(r)
	return r
}
