package daemon_test

import (
	"context"
	"slices"
	"sync/atomic"
	"testing"

	"github.com/axp-exchange/axp"
	"github.com/axp-exchange/axp/daemon"
)

// TestCreateTaskTransactions counts the write transactions (the exchange's changes) of one
// create_task call: the creation with the instant offers (and, without a quote round, the
// automatic choice), then, when push sellers are asked, one more holding their answers and the
// automatic choice. The quote round runs between the two: its calls go out only once the task
// is stored, and no transaction waits on the network.
func TestCreateTaskTransactions(t *testing.T) {
	t.Parallel()
	e := newMarket(t)
	e.instantSeller("text-file", "2.00", 10, nil, nil)
	e.instantSeller("web-research", "3.00", 10, nil, nil)
	sellers := newQuoteSellers(t, func(context.Context, string) any { return map[string]any{"price_usd": 1.5, "eta_minutes": 30} })
	sellers.add(e)
	var changes atomic.Int64
	e.d.SetChangeHook(func(string) { changes.Add(1) })
	for _, c := range []struct {
		name, typ, auto, status string
		want                    int64
	}{
		{"instant offers", "web-research", "", axp.TaskOpen, 1},
		{"instant offers, auto_choose", "web-research", "cheapest", axp.TaskAwaitingPayment, 1},
		{"quote round", "text-file", "", axp.TaskOpen, 2},
		{"quote round, auto_choose", "text-file", "cheapest", axp.TaskAwaitingPayment, 2},
	} {
		body := map[string]any{"type": c.typ, "params": map[string]any{"prompt": "count my writes please"}}
		if c.auto != "" {
			body["auto_choose"] = c.auto
		}
		before := changes.Load()
		created, _ := createTask(t, e.anon, body)
		after := changes.Load()
		if created.Status != c.status {
			t.Fatalf("%s: task %s, want %s", c.name, created.Status, c.status)
		}
		if n := after - before; n != c.want {
			t.Errorf("%s: %d write transactions, want %d", c.name, n, c.want)
		}
		// The automatic choice is the exchange's, made in whichever change.
		_, events := timelineKinds(t, e.anon.With(created.BuyerToken), created.ID)
		for _, ev := range events {
			if want := "system"; ev.Kind == "choose" && ev.Actor != want {
				t.Errorf("%s: the choice is made by %q, want %q", c.name, ev.Actor, want)
			}
		}
	}
}

// TestCreateTaskAutoChooseRefused: an automatic choice the exchange refuses (crypto without a
// deposit address) leaves the task created and open with its offers, instant or quoted, and its
// timeline as if no choice had been tried: the creation, then one quote event per offer, numbered
// from 1.
func TestCreateTaskAutoChooseRefused(t *testing.T) {
	t.Parallel()
	e := newMarket(t, func(c *daemon.Config) { c.DepositAddress = "" })
	e.instantSeller("web-research", "3.00", 10, nil, nil)
	sellers := newQuoteSellers(t, func(context.Context, string) any { return map[string]any{"price_usd": 1.5, "eta_minutes": 30} })
	sellers.add(e)
	for _, typ := range []string{"web-research", "text-file"} {
		created, _ := createTask(t, e.anon, map[string]any{"type": typ, "params": map[string]any{"prompt": "choose if you can"},
			"auto_choose": "cheapest"})
		if created.Status != axp.TaskOpen || len(created.Offers) != 1 {
			t.Fatalf("%s: task %s with %d offers, want open with 1", typ, created.Status, len(created.Offers))
		}
		kinds, events := timelineKinds(t, e.anon.With(created.BuyerToken), created.ID)
		for i, ev := range events {
			if ev.Seq != uint64(i+1) {
				t.Fatalf("%s: timeline %v numbered %d at %d", typ, kinds, ev.Seq, i)
			}
		}
		// An instant offer is stored before the creation event; a quoted one after it.
		want := []string{"quote", "create"}
		if typ == "text-file" {
			want = []string{"create", "quote"}
		}
		if !slices.Equal(kinds, want) {
			t.Fatalf("%s: timeline %v, want %v", typ, kinds, want)
		}
	}
}
