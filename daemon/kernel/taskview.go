package kernel

import (
	"time"

	"github.com/axp-exchange/axp"
	"github.com/axp-exchange/axp/protocol"
)

// Audiences of a task view.
const (
	ViewBuyer  = "buyer"
	ViewSeller = "seller"
)

func Rfc3339(t *time.Time) *string {
	if t == nil {
		return nil
	}
	s := t.UTC().Format(time.RFC3339)
	return &s
}

// deliverableRef points at a task's hosted deliverable, with the delivery note and its verdict.
func (k *Kernel) DeliverableRef(t *axp.TaskRecord, dl *axp.Delivery) *protocol.DeliverableRef {
	return &protocol.DeliverableRef{URL: k.BaseURL() + "/api/tasks/" + t.ID + "/deliverable", SHA256: dl.SHA256,
		Note: dl.Note, Screening: dl.Screening}
}
