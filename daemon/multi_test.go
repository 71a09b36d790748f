package daemon_test

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/axp-exchange/axp"
	"github.com/axp-exchange/axp/client"
	"github.com/axp-exchange/axp/contract"
	"github.com/axp-exchange/axp/daemon"
	"github.com/axp-exchange/axp/daemon/kernel/kerneltest"
	"github.com/axp-exchange/axp/store/pgtest"
)

// cluster is several daemons on one PostgreSQL database (and one data dir, so one sealing key)
// behind one address that hands each request to the next daemon in turn.
type cluster struct {
	*env // serves through the front; env.d is the first daemon
	ds   []*daemon.Daemon
	down []atomic.Bool
	next atomic.Int64
}

// newCluster starts n daemons sharing a new database, configured like newMarket's exchange.
func newCluster(t *testing.T, n int, mod ...func(*daemon.Config)) *cluster {
	t.Helper()
	dsn, dir := pgtest.DSN(t), t.TempDir()
	cl := &cluster{down: make([]atomic.Bool, n)}
	for range n {
		cfg := daemon.Defaults()
		cfg.Addr, cfg.DataDir, cfg.Store, cfg.AdminToken = "127.0.0.1:0", dir, dsn, adminToken
		cfg.RegistrationsPerHour, cfg.AnonTasksPerMinute, cfg.AnonReadsPerMinute = 100000, 100000, 0
		cfg.QuoteWindow, cfg.DepositAddress, cfg.SweepEvery = quoteWindow, depositAddress, time.Hour
		cfg.LeaderEvery = 100 * time.Millisecond
		for _, m := range mod {
			m(&cfg)
		}
		d, _, err := daemon.New(cfg, io.Discard)
		if err != nil {
			t.Fatalf("daemon.New: %v", err)
		}
		cl.ds = append(cl.ds, d)
	}
	front := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		for {
			i := int(cl.next.Add(1) % int64(n))
			if !cl.down[i].Load() {
				cl.ds[i].Handler().ServeHTTP(w, r)
				return
			}
		}
	}))
	for _, d := range cl.ds {
		d.SetBaseURL(front.URL)
	}
	cl.env = &env{t: t, d: cl.ds[0], srv: front, dir: dir, anon: client.New(front.URL, ""), admin: client.New(front.URL, adminToken)}
	t.Cleanup(func() {
		front.Close()
		for i, d := range cl.ds {
			if !cl.down[i].Swap(true) {
				d.Close()
			}
		}
	})
	return cl
}

// leaders lists the daemons that lead now.
func (cl *cluster) leaders() []int {
	var out []int
	for i, d := range cl.ds {
		if !cl.down[i].Load() && d.Leading() {
			out = append(out, i)
		}
	}
	return out
}

// waitLeader waits (up to within) for exactly one daemon to lead and returns it.
func (cl *cluster) waitLeader(within time.Duration) int {
	cl.t.Helper()
	deadline := time.Now().Add(within)
	for {
		if l := cl.leaders(); len(l) == 1 {
			return l[0]
		}
		if time.Now().After(deadline) {
			cl.t.Fatalf("no single leader within %s: %v", within, cl.leaders())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// stop takes daemon i out of the front and closes it, as a stopped process.
func (cl *cluster) stop(i int) {
	cl.down[i].Store(true)
	cl.ds[i].Close()
}

// TestMultiDaemon: three daemons on one database behave as one exchange. 50-way races on choose,
// payment confirmation, acceptance, request-payment and payout approval, spread over the daemons
// by the round-robin front, each have exactly one winner; an idempotency key is honoured whichever
// daemon answers; the ledger sums to zero. One daemon leads; when it stops, another takes over
// within 10 s and its sweeper expires an overdue task.
func TestMultiDaemon(t *testing.T) {
	clock := kerneltest.NewClock(time.Now().UTC())
	cl := newCluster(t, 3, func(c *daemon.Config) { c.Now = clock.Now; c.SweepEvery = 100 * time.Millisecond })
	cl.waitLeader(10 * time.Second)
	const n = 50

	var sellers []*member
	for i := range 5 {
		sellers = append(sellers, cl.instantSeller("text-file", fmt.Sprintf("1.%02d", i), 10+i, nil, map[string]any{"payout_address": payoutAddress}))
	}
	created, _ := createTask(t, cl.anon, map[string]any{"type": "text-file", "params": map[string]any{"prompt": "three daemons"}})
	if len(created.Offers) != len(sellers) {
		t.Fatalf("want %d offers, got %d", len(sellers), len(created.Offers))
	}
	buyer := cl.anon.With(created.BuyerToken)

	wins, conflicts := race(t, n, func(i int) error {
		_, err := doOp(buyer, contract.ChooseOffer, axp.ChooseInput{TaskRef: axp.TaskRef{ID: created.ID}, OfferID: created.Offers[i%len(created.Offers)].OfferID})
		return err
	})
	if len(wins) != 1 || conflicts != n-1 {
		t.Fatalf("choose: %d wins, %d conflicts", len(wins), conflicts)
	}
	task := getTask(t, buyer, created.ID)
	var winner *member
	for _, s := range sellers {
		if s.MemberID == task.Seller.ID {
			winner = s
		}
	}

	// One transaction hash reported for two tasks funds one: the second report is refused.
	other, _ := createTask(t, cl.anon, map[string]any{"type": "text-file", "params": map[string]any{"prompt": "the other task"}})
	otherBuyer := cl.anon.With(other.BuyerToken)
	callOp(t, otherBuyer, contract.ChooseOffer, axp.ChooseInput{TaskRef: axp.TaskRef{ID: other.ID}, OfferID: other.Offers[0].OfferID})
	hash := newTxHash()
	callOp(t, buyer, contract.PayCryptoOp, axp.PayCryptoInput{TaskRef: axp.TaskRef{ID: created.ID}, TxHash: hash})
	payment := cl.approvalOf(created.ID, axp.ApprovePayment)
	wins, conflicts = race(t, n, func(i int) error {
		_, err := doOp(cl.admin, contract.AdminApprove, axp.ApproveBody{ID: payment.ID})
		return err
	})
	if len(wins) != 1 || conflicts != n-1 {
		t.Fatalf("payment approval: %d wins, %d conflicts", len(wins), conflicts)
	}
	if _, err := doOp(otherBuyer, contract.PayCryptoOp, axp.PayCryptoInput{TaskRef: axp.TaskRef{ID: other.ID}, TxHash: hash}); !client.IsCode(err, axp.CodeConflict) {
		t.Fatalf("a transaction hash already funding a task reported for another: %v, want a conflict", err)
	}
	if st := getTask(t, buyer, created.ID).Status; st != axp.TaskPaid && st != axp.TaskInProgress {
		t.Fatalf("after the payment race the task is %s", st)
	}

	deliverText(t, winner.c, created.ID, "served by three daemons\n")
	retrieve(t, buyer, created.ID)
	wins, conflicts = race(t, n, func(i int) error {
		_, err := doOp(buyer, contract.AcceptTask, axp.AcceptInput{TaskRef: axp.TaskRef{ID: created.ID}})
		return err
	})
	if len(wins) != 1 || conflicts != n-1 {
		t.Fatalf("accept: %d wins, %d conflicts", len(wins), conflicts)
	}
	race(t, n, func(int) error {
		_, err := doOp(winner.c, contract.RequestPayment, axp.IDPath{ID: created.ID})
		return err
	})
	payout := cl.approvalOf(created.ID, axp.ApprovePayout) // exactly one item, or it fails
	wins, conflicts = race(t, n, func(i int) error {
		_, err := doOp(cl.admin, contract.AdminApprove, axp.ApproveBody{ID: payout.ID, TxHash: fmt.Sprintf("0x%064x", 0xfeed00+i)})
		return err
	})
	if len(wins) != 1 || conflicts != n-1 {
		t.Fatalf("payout approval: %d wins, %d conflicts", len(wins), conflicts)
	}
	if st := getTask(t, buyer, created.ID).Status; st != axp.TaskReleased {
		t.Fatalf("after the payout the task is %s", st)
	}
	kinds, _ := timelineKinds(t, buyer, created.ID)
	if c := count(kinds, "accept"); c != 1 {
		t.Fatalf("%d accept events on the timeline", c)
	}

	// One idempotency key, sent ten times at once and so to every daemon: one task.
	got := make([]string, 10)
	race(t, 10, func(i int) error {
		var out axp.CreatedTask
		err := cl.anon.Call(t.Context(), "create_task", map[string]any{"type": "text-file", "params": map[string]any{"prompt": "once"}}, &out,
			client.Options{IdempotencyKey: "multi-daemon-create"})
		got[i] = out.ID
		return err
	})
	var ids []string
	for _, id := range got {
		if id != "" {
			ids = append(ids, id)
		}
	}
	for _, id := range ids {
		if id != ids[0] {
			t.Fatalf("one idempotency key answered with tasks %v", ids)
		}
	}
	if len(ids) == 0 {
		t.Fatal("no create_task with the idempotency key succeeded")
	}

	st := cl.stats()
	if st.Money.LedgerSum != 0 || st.Money.Held != 0 {
		t.Fatalf("ledger sum %v, held %v", st.Money.LedgerSum, st.Money.Held)
	}

	// The leader stops; another daemon takes over and sweeps: an open task past its window expires.
	lead := cl.waitLeader(10 * time.Second)
	stale, _ := createTask(t, cl.anon, map[string]any{"type": "text-file", "params": map[string]any{"prompt": "nobody chooses"}})
	cl.stop(lead)
	start := time.Now()
	next := cl.waitLeader(10 * time.Second)
	if next == lead {
		t.Fatalf("daemon %d still leads after it stopped", lead)
	}
	clock.Add(25 * time.Hour)
	staleBuyer := cl.anon.With(stale.BuyerToken)
	for getTask(t, staleBuyer, stale.ID).Status != axp.TaskExpired {
		if time.Since(start) > 10*time.Second {
			t.Fatalf("the new leader (daemon %d) did not sweep within 10 s", next)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
