package daemon_test

import (
	"encoding/json"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/axp-exchange/axp"
	"github.com/axp-exchange/axp/daemon"
	"github.com/axp-exchange/axp/daemon/kernel/kerneltest"
	"github.com/axp-exchange/axp/store"
)

// TestPackedHistoryReadsTheSame runs 260 whole lifecycles (ledger entries and approvals fill a
// block of 512), then lets the hourly pass pack the history a week later: the store then holds it
// in blocks (fewer bytes), and every reader answers as before: the tasks and their timelines, quotes and approvals, the ledger, the audit log and the
// request log, a trace, and the operator's audit query over HTTP. A lifecycle run after packing
// works, and a second pass folds what changed.
func TestPackedHistoryReadsTheSame(t *testing.T) {
	if testing.Short() {
		t.Skip("260 task lifecycles: make test runs it")
	}
	eachStore(t, testPackedHistoryReadsTheSame)
}

func testPackedHistoryReadsTheSame(t *testing.T) {
	t.Parallel()
	clock := kerneltest.NewClock(time.Now().UTC())
	e := newMarket(t, func(c *daemon.Config) { c.Now = clock.Now; c.AdminToken = benchAdminToken })
	lifecycle := lifecycleAt(t, e.d, e.srv.URL, false)
	for range 260 {
		if err := lifecycle(); err != nil {
			t.Fatal(err)
		}
	}
	e.d.FlushLogs()
	before := readHistory(t, e)
	bytesBefore := storedBytes(t, e.d)
	// A week after the newest record: ids are monotonic in a process, so another test's clock run
	// ahead carries this one's ids with it.
	var newest []axp.AuditRecord
	if err := e.d.DB().View(func(tx *store.Tx) (err error) {
		newest, err = tx.AuditRecords(axp.AuditQuery{Limit: 1})
		return err
	}); err != nil || len(newest) != 1 {
		t.Fatal(err)
	}
	made, ok := axp.IDTime(newest[0].ID)
	if !ok {
		t.Fatalf("audit id %s", newest[0].ID)
	}
	clock.Add(max(made.Sub(clock.Now()), 0) + 8*24*time.Hour)
	e.d.Prune()
	if after := readHistory(t, e); after != before {
		t.Fatalf("history read differently after packing:\nbefore %.600s\nafter  %.600s", before, after)
	}
	sizes, err := e.d.DB().BucketBytes()
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"audit", "log", "events", "quotes", "approvals", "ledger"} {
		if sizes[name+"_packed"] == 0 {
			t.Errorf("nothing of %s was packed", name)
		}
	}
	if after := storedBytes(t, e.d); after > bytesBefore*6/10 {
		t.Errorf("stored bytes %d -> %d: packing should save more than 40%%", bytesBefore, after)
	}
	if err := lifecycle(); err != nil {
		t.Fatalf("a lifecycle after packing: %v", err)
	}
	e.d.FlushLogs()
	again := readHistory(t, e)
	e.d.Prune()
	if after := readHistory(t, e); after != again {
		t.Fatal("history read differently after the second pass")
	}
}

func storedBytes(t *testing.T, d *daemon.Daemon) int64 {
	sizes, err := d.DB().BucketBytes()
	if err != nil {
		t.Fatal(err)
	}
	var n int64
	for name, s := range sizes {
		if name != "idempotency" {
			n += s
		}
	}
	return n
}

// readHistory is everything the exchange keeps of its finished work, as its readers answer it.
func readHistory(t *testing.T, e *env) string {
	t.Helper()
	var out []any
	err := e.d.DB().View(func(tx *store.Tx) error {
		audit, err := tx.AuditRecords(axp.AuditQuery{Limit: 1 << 20})
		if err != nil {
			return err
		}
		logs, err := tx.LogEntries(axp.LogQuery{Limit: 1 << 20})
		if err != nil {
			return err
		}
		// Not what the pass itself logs (pruned idempotency records, packed history).
		logs = slices.DeleteFunc(logs, func(e axp.LogEntry) bool { return e.Source == "daemon" })
		ledger, err := tx.Ledger()
		if err != nil {
			return err
		}
		var approvals []axp.Approval
		if err := tx.Approvals(func(a *axp.Approval) bool { approvals = append(approvals, *a); return true }); err != nil {
			return err
		}
		out = append(out, audit, logs, ledger, approvals)
		seen := map[string]bool{}
		for _, a := range audit {
			if a.EntityType != "task" || seen[a.EntityID] {
				continue
			}
			seen[a.EntityID] = true
			task, err := tx.Task(a.EntityID)
			if err != nil {
				return err
			}
			events, err := tx.Events(a.EntityID)
			if err != nil {
				return err
			}
			quotes, err := tx.Quotes(a.EntityID)
			if err != nil {
				return err
			}
			mine, err := tx.TaskApprovals(a.EntityID)
			if err != nil {
				return err
			}
			out = append(out, task, events, quotes, mine)
		}
		if len(seen) < 260 {
			return fmt.Errorf("%d tasks in the audit log", len(seen))
		}
		trace, err := tx.Trace(audit[len(audit)/2].TraceID)
		if err != nil || len(trace.Audit) == 0 || len(trace.Log) == 0 {
			return fmt.Errorf("trace %s: %v, %+v", audit[len(audit)/2].TraceID, err, trace)
		}
		out = append(out, trace)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	var page axp.AuditList
	if err := e.admin.With(benchAdminToken).Call(t.Context(), "admin_audit", map[string]any{"action": "task.release", "limit": 5000}, &page); err != nil {
		t.Fatal(err)
	}
	if len(page.Records) < 260 {
		t.Fatalf("admin_audit found %d releases", len(page.Records))
	}
	out = append(out, page)
	b, err := json.Marshal(out)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
