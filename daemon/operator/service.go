package operator

import (
	"time"

	"github.com/axp-exchange/axp/daemon/kernel"
	"github.com/axp-exchange/axp/store"
)

// Service is the operator's service: stats, metrics, the log, the audit trail, announcements,
// members' states and the store's backups.
type Service struct {
	base    kernel.Base
	sink    *kernel.LogSink // the stored log, flushed before it is read
	metrics *kernel.Metrics
	started time.Time // when this daemon started (uptime)
	ex      Exchange
}

// Exchange is what the operator's service asks of the running exchange.
type Exchange interface {
	// Leading tells whether this daemon leads those sharing its store.
	Leading() bool
	// Announce stores an announcement and sends it to the members it is for.
	Announce(ch *kernel.Change, a *store.AnnouncementRecord) error
	// Invalidate drops the cached catalog after a member's state changed.
	Invalidate()
}

// New returns the operator's service.
func New(base kernel.Base, sink *kernel.LogSink, metrics *kernel.Metrics, started time.Time, ex Exchange) *Service {
	return &Service{base: base, sink: sink, metrics: metrics, started: started, ex: ex}
}
