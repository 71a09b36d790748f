package daemon_test

import (
	"context"
	"crypto/ecdsa"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/axp-exchange/axp"
	"github.com/axp-exchange/axp/client"
	"github.com/axp-exchange/axp/contract"
	"github.com/axp-exchange/axp/daemon"
	"github.com/axp-exchange/axp/daemon/chain"
	"github.com/axp-exchange/axp/daemon/chain/chaintest"
	"github.com/axp-exchange/axp/store"
	"github.com/axp-exchange/axp/store/pgtest"
	"github.com/ethereum/go-ethereum/core/types"
)

// The money model: a seeded random walk through the exchange's money paths on a real anvil chain,
// the real daemon on a bbolt file and the real HTTP API. Buyers post tasks, choose paid offers and
// send exact, partial, over-, duplicate and stray transfers to the deposit address, reported or not,
// sometimes reporting another task's transfer; buyers cancel, tasks expire, sellers deliver, buyers
// accept or dispute and the parties settle; the operator approves and rejects, several items at
// once; the chain reorganises below and beyond the confirmations, the node drops pending payouts and
// the daemon restarts on its data dir. After every step the invariants of docs/design.md section 15 are
// checked against the chain itself (its Transfer events, read whole each time) and against what the
// API acknowledged. A broken invariant is recorded with the seed and the step and the walk goes on,
// so one run reports every invariant it can break; -money.failfast stops at the first.
//
// The invariants, by the name a failure gives:
//
//	task-out<=in            what left for a task (hot-wallet transfers on chain, payouts and refunds
//	                        booked) is no more than what canonical transfers credited to it brought
//	ledger-in=chain         what the ledger booked as a task's payments is what those transfers brought
//	one-transfer-one-task   no transaction funds two tasks
//	canonical-funding       a task funded by a transfer that left the chain says its payment is reorged
//	reorged-held            ... and its payout, refund or split waits (held)
//	ledger-balances         every entry, the whole ledger and admin stats sum to zero
//	booking-balances        what a queue item would book balances (it empties exactly the escrow)
//	refund-is-received      a refund for a task that did no job gives back what the task received
//	reconcile-names         reconcile names every difference: ledger movements the chain lacks (with
//	                        their task), confirmed transfers that fund nothing; else its difference is
//	                        exactly the operator's float
//	paid-once               no part of an item twice on chain, no hot-wallet transfer without an item,
//	                        one payout, refund or split per task
//	acked-kept              what the API answered 2xx for is there after a restart
//	buyer-total             a task never asks for more than the offer's buyer total
//	foreign-hash-refused    another task's transfer reported on a task is refused (400, tx_hash, while
//	                        unconfirmed) and own-report-taken: it never blocks its rightful task
//	payment-credited, payout-confirmed, cancel-taken, refund-queued, report-of-credited-hash: what a
//	                        step must lead to (a transfer credited, a payout confirmed, ...)
//
//	go test -run TestMoneyModel ./daemon                                  # one seed from the clock, under a minute
//	go test -run TestMoneyModel ./daemon -money.seed=42 -money.steps=400 -money.time=0
//	go test -run TestMoneyModel ./daemon -money.seeds=5                   # five seeds in a row
//
// A failing seed becomes a regression test in one line, failing only on the invariants it names
// (the others are logged), as the tests at the end of this file do:
//
//	func TestMoneySomething(t *testing.T) { moneyRegression(t, 42, 60, "task-out<=in") }

var (
	moneySeed     = flag.Uint64("money.seed", 0, "TestMoneyModel: seed of the first run (0: from the clock)")
	moneySteps    = flag.Int("money.steps", 600, "TestMoneyModel: steps of each run")
	moneySeeds    = flag.Int("money.seeds", 1, "TestMoneyModel: runs, each with the next seed")
	moneyTime     = flag.Duration("money.time", 45*time.Second, "TestMoneyModel: wall time of each run's steps; a run stops early past it (0: no limit)")
	moneyFailFast = flag.Bool("money.failfast", false, "TestMoneyModel: stop a run at its first broken invariant")
	moneyTrail    = flag.Bool("money.trail", false, "TestMoneyModel: log every step of a run, not only the last ones of a failed run")
	moneyReport   = flag.String("money.report", "", "TestMoneyModel: file to write each run's step count and step time to (BenchmarkMoneyModel)")
	moneyEscrow   = flag.Bool("money.escrow", true, "TestMoneyModel: deploy the escrow contract and pay some tasks into it (pay_escrow)")
)

const (
	moneyConfirmations = 2
	moneyWindow        = time.Hour         // the open and payment windows
	moneyCent          = axp.Money(10_000) // payment tags are below it
	moneyWalletFunds   = axp.Money(40_000_000)
)

func TestMoneyModel(t *testing.T) {
	if testing.Short() {
		t.Skip("the money model (up to 45 s on anvil): make test runs it")
	}
	if pgtest.Selected() && os.Getenv("AXP_MONEY_MODEL_POSTGRES") != "1" {
		// The PostgreSQL half of make test leaves the model out (it ran on bbolt); CI runs it on
		// PostgreSQL on its own (AXP_MONEY_MODEL_POSTGRES=1, .ci/run).
		t.Skip("the money model on PostgreSQL runs with AXP_MONEY_MODEL_POSTGRES=1")
	}
	seed := *moneySeed
	if seed == 0 {
		seed = uint64(time.Now().UnixNano()) % 1_000_000_000
	}
	var runs []moneyRun
	for i := range max(*moneySeeds, 1) {
		s := seed + uint64(i)
		t.Run(fmt.Sprintf("seed=%d", s), func(t *testing.T) {
			runs = append(runs, runMoneyModel(t, s, *moneySteps, *moneyTime, *moneyEscrow))
		})
	}
	if *moneyReport != "" {
		b, _ := json.Marshal(runs)
		if err := os.WriteFile(*moneyReport, b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
}

// BenchmarkMoneyModel reports the model's steps per second (each op is one step, invariant checks
// included). It runs TestMoneyModel in a child process of the test binary with b.N steps and a
// fixed seed, so the model keeps its *testing.T; a broken invariant is logged, not a failure here.
func BenchmarkMoneyModel(b *testing.B) {
	if _, ok := chaintest.Anvil(); !ok {
		b.Skip("anvil is not installed: run scripts/chain-tools")
	}
	report := filepath.Join(b.TempDir(), "report.json")
	// b.N steps, at least enough for a rate: one run takes longer than the bench time.
	cmd := exec.Command(os.Args[0], "-test.run=^TestMoneyModel$", "-money.seed=1", fmt.Sprintf("-money.steps=%d", max(b.N, 100)),
		"-money.time=0", "-money.report="+report)
	out, err := cmd.CombinedOutput()
	var runs []moneyRun
	if raw, rerr := os.ReadFile(report); rerr != nil || json.Unmarshal(raw, &runs) != nil || len(runs) != 1 {
		b.Fatalf("the model's run wrote no report (%v):\n%s", err, out)
	}
	if err != nil {
		b.Logf("the model broke invariants (seed 1); see go test -run TestMoneyModel ./daemon -money.seed=1")
	}
	r := runs[0]
	b.ReportMetric(float64(r.Steps)/r.Seconds, "steps/s")
	b.ReportMetric(r.Seconds*1e9/float64(max(r.Steps, 1)), "ns/op")
}

// moneyRun is what one run did, for the benchmark.
type moneyRun struct {
	Seed    uint64  `json:"seed"`
	Steps   int     `json:"steps"`
	Seconds float64 `json:"seconds"` // the steps with their checks, not the setup
}

// moneyRegression runs the model from seed for steps steps (no time limit) and fails when one of
// the invariants invs broke; the others are logged. The model's choices follow the seed, so a seed
// keeps its walk as long as the model's code does not change (then find the seed again). The seeds
// were found without the escrow rail, and run without it.
func moneyRegression(t *testing.T, seed uint64, steps int, invs ...string) {
	pgtest.BoltOnly(t, "the money model runs the daemon on its bbolt file")
	runMoneyModel(t, seed, steps, 0, false, invs...)
}

// runMoneyModel runs the model from seed for steps steps, stopping early once limit has passed (0:
// no limit), then settles the chain and checks everything once more; withEscrow adds the escrow
// rail. It fails on every broken invariant, or only on those of only when some are named.
func runMoneyModel(t *testing.T, seed uint64, steps int, limit time.Duration, withEscrow bool, only ...string) moneyRun {
	mm := newMoneyModel(t, seed, withEscrow)
	t.Logf("money model: seed %d, up to %d steps (repeat: go test -run TestMoneyModel ./daemon -money.seed=%d -money.steps=%d -money.time=0)",
		seed, steps, seed, steps)
	t.Cleanup(func() {
		switch {
		case *moneyTrail:
			t.Logf("money model seed %d: the steps:\n%s", seed, mm.lastSteps(len(mm.trail)))
		case t.Failed():
			t.Logf("money model seed %d stopped at step %d; the last steps (-money.trail shows them all):\n%s", seed, mm.step, mm.lastSteps(25))
		}
	})
	start := time.Now()
	for mm.step = 1; mm.step <= steps; mm.step++ {
		if limit > 0 && time.Since(start) > limit {
			t.Logf("money model: the time limit (%s) passed after %d steps", limit, mm.step-1)
			break
		}
		head := mm.m.c.Head()
		mm.runStep()
		mm.sync()
		mm.check()
		if mm.m.c.Head() != head || strings.HasPrefix(mm.stepName, "reorg") {
			mm.checkReconcile(false) // at every new confirmed height
		}
	}
	done := mm.step - 1
	took := time.Since(start)
	mm.stepName = "final settle"
	mm.settle()
	mm.check()
	mm.checkReconcile(true)
	t.Logf("money model: seed %d: %d steps in %s (%.1f steps/s); %s", seed, done, took.Round(time.Millisecond),
		float64(done)/took.Seconds(), mm.kindCounts())
	failing := len(mm.broken)
	if len(only) > 0 {
		failing = 0
		for _, inv := range only {
			if mm.broken[inv] != nil {
				failing++
			}
		}
	}
	if failing > 0 {
		t.Errorf("money model seed %d: %d invariants broken (repeat: go test -run TestMoneyModel ./daemon -money.seed=%d -money.steps=%d -money.time=0):\n%s",
			seed, len(mm.broken), seed, done, mm.summary())
	} else if len(mm.broken) > 0 {
		t.Logf("money model seed %d: none of %v broke; others did:\n%s", seed, only, mm.summary())
	}
	return moneyRun{Seed: seed, Steps: done, Seconds: took.Seconds()}
}

// --- the model ---

type moneyModel struct {
	t     *testing.T
	seed  uint64
	rng   *rand.Rand
	m     *chainMarket
	mods  []func(*daemon.Config)
	clock *offsetClock
	float axp.Money // what the operator put in the hot wallet
	esc   *mEscrow  // the escrow rail, nil without it

	sellers  []*mSeller
	tasks    []*mTask
	byID     map[string]*mTask
	sent     []*mTransfer      // every transfer the model made to the deposit address
	stranger *ecdsa.PrivateKey // sends the stray transfers

	// acked holds the status the API answered (2xx) for every approval the model decided.
	acked map[string]string

	step     int
	stepName string
	trail    []string
	kinds    map[string]int

	broken map[string]*violation
	order  []string
}

// mSeller is an instant seller of text-file.
type mSeller struct {
	*member
	payout string // "" until the seller adds one
}

// mTask is a task as the model knows it.
type mTask struct {
	id, token  string
	wallet     *ecdsa.PrivateKey // the buyer's, made at its first payment
	seller     *mSeller
	buyerTotal axp.Money
	transfers  []*mTransfer
	acked      string // the status the API answered for the model's last change of it
	rec        *axp.TaskRecord
	// reorged is set when a transfer the daemon credited to it was removed by a reorg.
	reorged bool
	// escrowKey paid escrowPrice into the escrow for it (pay_escrow); it pays nothing else.
	escrowKey   *ecdsa.PrivateKey
	escrowPrice axp.Money
}

// mTransfer is a transfer the model sent to the deposit address.
type mTransfer struct {
	hash   string
	raw    []byte
	amount axp.Money
	task   *mTask // the task it was made for; nil for a stray
	kind   string // exact, partial, over, duplicate, stray
	gone   bool   // removed by a reorg and not sent again
}

// violation is a broken invariant: the first time it broke, and on how many subjects.
type violation struct {
	inv, first string
	step       int
	stepName   string
	subjects   map[string]bool
}

// offsetClock is the real clock moved forward by the model (expiry); the chain moves with it.
type offsetClock struct{ offset atomic.Int64 }

func (c *offsetClock) Now() time.Time { return time.Now().Add(time.Duration(c.offset.Load())) }

func newMoneyModel(t *testing.T, seed uint64, withEscrow bool) *moneyModel {
	mm := &moneyModel{t: t, seed: seed, rng: rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15)), clock: &offsetClock{},
		byID: map[string]*mTask{}, acked: map[string]string{}, kinds: map[string]int{},
		broken: map[string]*violation{}}
	mm.mods = []func(*daemon.Config){func(cfg *daemon.Config) {
		cfg.Now = mm.clock.Now
		cfg.OpenWindow, cfg.PaymentWindow = moneyWindow, moneyWindow
		cfg.Confirmations = moneyConfirmations
	}}
	c := chaintest.Start(t)
	if withEscrow {
		mm.withEscrow(c)
	}
	mm.m = newChainMarketOn(t, c, mm.mods...)
	mm.alignChainTime()
	mm.float = mm.m.c.Balance(mm.m.c.Token, chaintest.Addr(mm.m.hot))
	mm.stranger = mm.m.buyerWallet(1_000_000_000)
	// Two sellers with a payout address, one without (its payouts are held until it adds one).
	for i, price := range []string{"2.00", "4.50", "3.30"} {
		s := &mSeller{}
		reg := map[string]any{}
		if i < 2 {
			s.payout = chaintest.Addr(mm.m.c.NewKey())
			reg["payout_address"] = s.payout
		}
		s.member = mm.m.instantSeller("text-file", price, 30, nil, reg)
		mm.sellers = append(mm.sellers, s)
	}
	return mm
}

// buyer is the task's buyer, as a client of the exchange running now.
func (mm *moneyModel) buyer(x *mTask) *client.Client { return mm.m.anon.With(x.token) }

// as is the seller, as a client of the exchange running now.
func (mm *moneyModel) as(s *mSeller) *client.Client { return mm.m.anon.With(s.MemberSecret) }

func (mm *moneyModel) do(c *client.Client, op string, in, out any) error {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	return c.Call(ctx, op, in, out)
}

// must runs an operation the model expects to succeed (a failure there is the test's own bug, or a
// daemon that cannot serve).
func (mm *moneyModel) must(c *client.Client, op string, in, out any) {
	mm.t.Helper()
	if err := mm.do(c, op, in, out); err != nil {
		mm.t.Fatalf("money model seed %d step %d (%s): %s: %v", mm.seed, mm.step, mm.stepName, op, err)
	}
}

func (mm *moneyModel) chance(p float64) bool { return mm.rng.Float64() < p }

func (mm *moneyModel) logf(format string, args ...any) {
	mm.trail = append(mm.trail, fmt.Sprintf("%4d %-14s %s", mm.step, mm.stepName, fmt.Sprintf(format, args...)))
}

func (mm *moneyModel) lastSteps(n int) string {
	return strings.Join(mm.trail[max(len(mm.trail)-n, 0):], "\n")
}

// violate records a broken invariant about subject (a task, an approval, a transaction).
func (mm *moneyModel) violate(inv, subject, format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	v := mm.broken[inv]
	if v == nil {
		v = &violation{inv: inv, first: msg, step: mm.step, stepName: mm.stepName, subjects: map[string]bool{}}
		mm.broken[inv] = v
		mm.order = append(mm.order, inv)
		mm.t.Logf("money model seed %d step %d (%s): BROKEN %s: %s", mm.seed, mm.step, mm.stepName, inv, msg)
	}
	if !v.subjects[subject] {
		v.subjects[subject] = true
		mm.logf("BROKEN %s: %s", inv, msg)
	}
	if *moneyFailFast {
		mm.t.Fatalf("money model seed %d step %d: %s: %s (repeat: -money.seed=%d -money.steps=%d)", mm.seed, mm.step, inv, msg, mm.seed, mm.step)
	}
}

func (mm *moneyModel) summary() string {
	var b strings.Builder
	for _, inv := range mm.order {
		v := mm.broken[inv]
		fmt.Fprintf(&b, "  %s: first at step %d (%s): %s [%d subjects]\n", inv, v.step, v.stepName, v.first, len(v.subjects))
	}
	return b.String()
}

func (mm *moneyModel) kindCounts() string {
	var names []string
	for k := range mm.kinds {
		names = append(names, k)
	}
	sort.Strings(names)
	var parts []string
	for _, k := range names {
		parts = append(parts, fmt.Sprintf("%s %d", k, mm.kinds[k]))
	}
	return strings.Join(parts, ", ")
}

// --- steps ---

// moneyStep is one kind of step; run reports false when the model holds nothing it applies to.
type moneyStep struct {
	name   string
	weight int
	run    func(*moneyModel) bool
}

var moneyStepKinds = []moneyStep{
	{"post", 10, (*moneyModel).post},
	{"choose", 10, (*moneyModel).choose},
	{"pay", 22, (*moneyModel).pay},
	{"report", 7, (*moneyModel).report},
	{"mine", 6, (*moneyModel).mine},
	{"cancel", 5, (*moneyModel).cancel},
	{"expire", 2, (*moneyModel).expire},
	{"deliver", 8, (*moneyModel).deliver},
	{"accept", 6, (*moneyModel).accept},
	{"dispute", 4, (*moneyModel).dispute},
	{"settle", 4, (*moneyModel).settleDispute},
	{"approve", 12, (*moneyModel).approve},
	{"reject", 3, (*moneyModel).reject},
	{"reorg-shallow", 3, (*moneyModel).reorgShallow},
	{"reorg-deep", 4, (*moneyModel).reorgDeep},
	{"restart", 2, (*moneyModel).restart},
	{"crash", 2, (*moneyModel).crash},
	{"drop-payout", 2, (*moneyModel).dropPayout},
	{"payout-address", 1, (*moneyModel).addPayoutAddress},
	{"thief", 6, (*moneyModel).thief},
	{"rounded", 4, (*moneyModel).rounded},
	{"pay-auth", 6, (*moneyModel).payAuth},
	{"hand-approve", 3, (*moneyModel).handApprove},
	{"stale-pass", 2, (*moneyModel).stalePass},
	{"pay-escrow", 14, (*moneyModel).payEscrow}, // weight 0 without the escrow rail
	{"reclaim", 4, (*moneyModel).reclaim},       // weight 0 without the escrow rail
}

// weight is step s's weight in this model: the escrow's steps weigh nothing without the escrow, so
// a run without it takes the walk it took before the rail existed.
func (mm *moneyModel) weight(s moneyStep) int {
	if (s.name == "pay-escrow" || s.name == "reclaim") && mm.esc == nil {
		return 0
	}
	return s.weight
}

func (mm *moneyModel) runStep() {
	total := 0
	for _, s := range moneyStepKinds {
		total += mm.weight(s)
	}
	for range 20 {
		n := mm.rng.IntN(total)
		for _, s := range moneyStepKinds {
			if n -= mm.weight(s); n < 0 {
				mm.stepName = s.name
				if s.run(mm) {
					mm.kinds[s.name]++
					return
				}
				break
			}
		}
	}
	mm.stepName = "post"
	mm.post()
	mm.kinds["post"]++
}

// pick returns a random task for which ok holds (nil when none does).
func (mm *moneyModel) pick(ok func(*mTask) bool) *mTask {
	var c []*mTask
	for _, x := range mm.tasks {
		if x.rec != nil && ok(x) {
			c = append(c, x)
		}
	}
	if len(c) == 0 {
		return nil
	}
	return c[mm.rng.IntN(len(c))]
}

func statusIs(s ...string) func(*mTask) bool {
	return func(x *mTask) bool { return slices.Contains(s, x.rec.Status) }
}

// view reads the task as its buyer sees it; an awaiting task must never ask for more than the
// offer's buyer total.
func (mm *moneyModel) view(x *mTask) axp.Task {
	var v axp.Task
	mm.must(mm.buyer(x), "get_task", map[string]any{"id": x.id}, &v)
	if v.Status == axp.TaskAwaitingPayment && v.Payment != nil && x.buyerTotal > 0 && v.Payment.ReceivedUSD+v.Payment.PayableUSD > x.buyerTotal {
		mm.violate("buyer-total", x.id, "task %s asks for %s (payable) after %s received: more than the offer's buyer total %s",
			x.id, v.Payment.PayableUSD, v.Payment.ReceivedUSD, x.buyerTotal)
	}
	return v
}

func (mm *moneyModel) post() bool {
	created, _ := createTask(mm.t, mm.m.anon, map[string]any{"type": "text-file", "params": map[string]any{"prompt": fmt.Sprintf("poem %d", len(mm.tasks))}})
	x := &mTask{id: created.ID, token: created.BuyerToken, acked: created.Status}
	mm.tasks = append(mm.tasks, x)
	mm.byID[x.id] = x
	x.rec = &axp.TaskRecord{Status: created.Status}
	mm.logf("task %s posted (%s, %d offers)", x.id, created.Status, len(created.Offers))
	return true
}

func (mm *moneyModel) choose() bool {
	x := mm.pick(statusIs(axp.TaskOpen))
	if x == nil {
		return false
	}
	v := mm.view(x)
	if len(v.Offers) == 0 {
		return false
	}
	o := v.Offers[mm.rng.IntN(len(v.Offers))]
	var chosen axp.Task
	if err := mm.do(mm.buyer(x), "choose_offer", map[string]any{"id": x.id, "offer_id": o.OfferID}, &chosen); err != nil {
		mm.logf("choose %s on %s refused: %v", o.OfferID, x.id, err)
		return true
	}
	for _, s := range mm.sellers {
		if s.MemberID == o.Seller.ID {
			x.seller = s
		}
	}
	x.buyerTotal, x.acked = o.Fee.BuyerTotal, chosen.Status
	mm.logf("task %s: chose %s at %s; payable %s", x.id, o.Seller.ID, o.PriceUSD, chosen.Payment.PayableUSD)
	mm.view(x)
	return true
}

// wallet is the task's buyer wallet, funded at its first use.
func (mm *moneyModel) wallet(x *mTask) *ecdsa.PrivateKey {
	if x.wallet == nil {
		x.wallet = mm.m.buyerWallet(moneyWalletFunds)
	}
	return x.wallet
}

// fund gives a buyer whose wallet holds less than amount more of the stablecoin. The reorg steps
// call it before the blocks they replace: money minted there would go with them.
func (mm *moneyModel) fund(key *ecdsa.PrivateKey, amount axp.Money) {
	if mm.m.c.Balance(mm.m.c.Token, chaintest.Addr(key)) < amount {
		mm.m.c.Mint(mm.m.c.Token, chaintest.Addr(key), moneyWalletFunds)
	}
}

// send transfers amount from key to the deposit address (mined at once) and records it.
func (mm *moneyModel) send(key *ecdsa.PrivateKey, amount axp.Money, x *mTask, kind string) *mTransfer {
	mm.fund(key, amount)
	hash, raw := mm.m.c.SignTransfer(key, mm.m.c.Token, mm.m.deposit, amount)
	mm.m.c.SendRaw(raw)
	return mm.record(hash, raw, amount, x, kind)
}

// record notes a transfer the model made (or signed for a reorg to carry).
func (mm *moneyModel) record(hash string, raw []byte, amount axp.Money, x *mTask, kind string) *mTransfer {
	tr := &mTransfer{hash: hash, raw: raw, amount: amount, task: x, kind: kind}
	mm.sent = append(mm.sent, tr)
	if x != nil {
		x.transfers = append(x.transfers, tr)
	}
	return tr
}

// pay sends a buyer's transfer: the exact payable amount, part of it or more (keeping the tag that
// identifies the task), the same amount once more, or a stray amount nobody asked for. The
// transfer may be reported, or claimed by another task's buyer while it is unconfirmed.
func (mm *moneyModel) pay() bool {
	kind := []string{"exact", "exact", "exact", "exact", "partial", "partial", "over", "duplicate", "stray"}[mm.rng.IntN(9)]
	if kind == "stray" {
		amount := axp.Money(1+mm.rng.IntN(300)) * moneyCent // whole cents: no task's tag
		tr := mm.send(mm.stranger, amount, nil, "stray")
		mm.logf("stray transfer %s of %s", short(tr.hash), amount)
		if mm.chance(0.5) {
			mm.confirm()
		}
		return true
	}
	if kind == "duplicate" {
		x := mm.pick(func(x *mTask) bool { return len(x.transfers) > 0 })
		if x == nil {
			return false
		}
		first := x.transfers[mm.rng.IntN(len(x.transfers))]
		tr := mm.send(mm.wallet(x), first.amount, x, "duplicate")
		mm.logf("task %s: the buyer sends %s again (%s, first %s)", x.id, first.amount, short(tr.hash), short(first.hash))
		if mm.chance(0.3) {
			mm.ownReport(x, tr)
		}
		mm.confirm()
		return true
	}
	x := mm.pick(statusIs(axp.TaskAwaitingPayment))
	if x == nil {
		return false
	}
	v := mm.view(x)
	if v.Status != axp.TaskAwaitingPayment || v.Payment == nil {
		return false
	}
	p := v.Payment
	amount := p.PayableUSD
	switch kind {
	case "partial":
		cents := (p.PayableUSD - p.PayableUSD%moneyCent) / moneyCent
		if cents < 2 {
			kind, amount = "exact", p.PayableUSD
			break
		}
		amount -= axp.Money(1+mm.rng.IntN(int(cents-1))) * moneyCent
	case "over":
		amount += axp.Money(1+mm.rng.IntN(200)) * moneyCent
	}
	// A transfer of this task still without its confirmations may change what is due (a part
	// paid gets a new payable amount): then the model expects nothing of this one.
	earlier := mm.unconfirmed(x)
	tr := mm.send(mm.wallet(x), amount, x, kind)
	mm.logf("task %s: %s transfer %s of %s (payable %s, received %s, reported %q, %d earlier unconfirmed)", x.id, kind, short(tr.hash), amount,
		p.PayableUSD, p.ReceivedUSD, short(p.TxHash), earlier)
	// Another task's buyer reports this transfer as its own before it has its confirmations.
	claimed := false
	if mm.chance(0.35) {
		if other := mm.pick(func(o *mTask) bool { return o != x && o.rec.Status == axp.TaskAwaitingPayment && o.rec.TxHash == "" }); other != nil {
			claimed = mm.foreignReport(other, tr, true)
		}
	}
	reported := mm.chance(0.5)
	if reported {
		mm.ownReport(x, tr)
	}
	if mm.chance(0.7) {
		mm.confirm()
		// With no other report waiting, the transfer is found and credited to its own task (in
		// full, or as a part with the rest still due) when it names the task: its exact payable
		// amount, its sender's signed report, or a sender that paid part of it already. A part
		// or an overpayment that only carries the task's tag names nothing by itself.
		names := kind == "exact" || reported || p.ReceivedUSD > 0
		if names && !claimed && earlier == 0 && (p.TxHash == "" || p.TxHash == tr.hash) {
			mm.expectCredited(x, tr, p.ReceivedUSD, p.PayableUSD)
		}
	}
	return true
}

// unconfirmed counts the task's transfers on the chain still short of their confirmations.
func (mm *moneyModel) unconfirmed(x *mTask) int {
	n := 0
	for _, tr := range x.transfers {
		if c := mm.confirmations(tr); !tr.gone && c > 0 && c < moneyConfirmations {
			n++
		}
	}
	return n
}

// expectCredited checks that transfer tr reached task x, which had received before and asked for
// due: a transfer of at least what was due funds the task, less is a part of it and leaves the task
// waiting for the rest.
func (mm *moneyModel) expectCredited(x *mTask, tr *mTransfer, before, due axp.Money) {
	v := mm.view(x)
	got := axp.Money(0)
	if v.Payment != nil {
		got = v.Payment.ReceivedUSD
	}
	full := tr.amount >= due
	if got != before+tr.amount || full == (v.Status == axp.TaskAwaitingPayment) {
		mm.violate("payment-credited", x.id, "task %s: the %s transfer %s of %s (%s due, %s received before) left it %s with %s received",
			x.id, tr.kind, short(tr.hash), tr.amount, due, before, v.Status, got)
	}
}

// ownReport reports transfer tr on its own task. While the task waits for payment with no other
// report pending, the report of a transfer made for what it asks now (its tag) is taken; a hash the
// task was already credited with must not leave it waiting for that hash again.
func (mm *moneyModel) ownReport(x *mTask, tr *mTransfer) {
	v := mm.view(x)
	credited := mm.bookedFor(x.id, tr.hash)
	// A transfer nobody reported is queued to go back to its sender; once the operator approved
	// that return, the money is on its way back and the report is rightly refused.
	returned := mm.returnApproved(tr.hash)
	var rep axp.PaymentReport
	// An honest buyer's wallet signs the task's payer message (as axp wallet pay does): the report
	// binds its own transfer to its task whatever the amount.
	in := map[string]any{"id": x.id, "tx_hash": tr.hash}
	if x.wallet != nil {
		sig, err := chain.SignText(x.wallet, axp.PayerMessage(x.id, mm.m.c.ID, mm.m.deposit))
		if err != nil {
			mm.t.Fatal(err)
		}
		in["payer_signature"] = sig
	}
	err := mm.do(mm.buyer(x), "pay_crypto", in, &rep)
	mm.logf("task %s: the buyer reports %s: %v", x.id, short(tr.hash), errText(err))
	if v.Status != axp.TaskAwaitingPayment || v.Payment == nil {
		return
	}
	p := v.Payment
	if err != nil && !credited && !returned && (p.TxHash == "" || p.TxHash == tr.hash) && tr.amount%moneyCent == p.PayableUSD%moneyCent &&
		mm.view(x).Status == axp.TaskAwaitingPayment {
		mm.violate("own-report-taken", x.id, "task %s awaits payment with no other report, and its buyer's report of its own transfer %s was refused: %v",
			x.id, short(tr.hash), err)
	}
	if err == nil && credited {
		if after := mm.view(x); after.Status == axp.TaskAwaitingPayment && after.Payment != nil && after.Payment.TxHash == tr.hash {
			mm.violate("report-of-credited-hash", x.id, "task %s was credited with %s already; reporting it again left the task waiting for it (payment %s)",
				x.id, short(tr.hash), after.Payment.Status)
		}
	}
}

// foreignReport reports transfer tr, made for another task, on task x. It must be refused, and
// refused with 400 naming tx_hash while tr is unconfirmed (spec: a hash that matches another task's
// payable is refused for this one and never blocks the rightful task). It reports whether the
// exchange took the claim.
func (mm *moneyModel) foreignReport(x *mTask, tr *mTransfer, pending bool) bool {
	if v := mm.view(x); v.Payment != nil && v.Payment.TxHash != "" {
		pending = false // a report of its own waits: a 409 for that is as good
	}
	_, err := doOp(mm.buyer(x), contract.PayCryptoOp, axp.PayCryptoInput{TaskRef: axp.TaskRef{ID: x.id}, TxHash: tr.hash})
	mm.logf("task %s: its buyer reports %s, the transfer of task %s: %v", x.id, short(tr.hash), tr.task.id, errText(err))
	if err == nil {
		mm.violate("foreign-hash-refused", x.id, "task %s took the report of %s, the %s transfer of %s for task %s",
			x.id, short(tr.hash), tr.kind, tr.amount, tr.task.id)
		return true
	}
	var e *axp.Error
	if errors.As(err, &e) && e.Code == axp.CodeConflict && strings.Contains(e.Message, "already funds another task") {
		pending = false // the watcher credited it to its task meanwhile: the 409 says so
	}
	if pending && (!errors.As(err, &e) || e.Code != axp.CodeInvalidInput || e.Field != "tx_hash") {
		mm.violate("foreign-hash-refused", x.id, "task %s: the report of task %s's unconfirmed transfer %s was refused with %v, want 400 naming tx_hash",
			x.id, tr.task.id, short(tr.hash), err)
	}
	return false
}

// returnApproved reports whether the operator approved sending transaction hash back to its sender.
func (mm *moneyModel) returnApproved(hash string) bool {
	approved := false
	mm.m.d.DB().View(func(tx *store.Tx) error {
		for _, id := range tx.TxHashUses(hash) {
			a, err := tx.Approval(id)
			if err != nil {
				return err
			}
			if a != nil && a.Kind == axp.ApproveReturn && strings.EqualFold(a.ReturnOf, hash) && a.Status != axp.ApprovalPending &&
				a.Status != axp.ApprovalHeld && a.Status != axp.ApprovalRejected && (a.Status != axp.ApprovalFailed || a.PartlySent()) {
				approved = true
			}
		}
		return nil
	})
	return approved
}

// bookedFor reports whether the ledger booked transaction hash as a payment of task id.
func (mm *moneyModel) bookedFor(id, hash string) bool {
	for _, e := range mm.m.ledger() {
		if e.Kind == "payment" && e.TaskID == id && strings.EqualFold(e.TxHash, hash) {
			return true
		}
	}
	return false
}

// report reports a transfer the model sent and did not report yet: on its own task, or on another
// task waiting for payment.
func (mm *moneyModel) report() bool {
	var c []*mTransfer
	for _, tr := range mm.sent {
		if tr.task != nil && !tr.gone {
			c = append(c, tr)
		}
	}
	if len(c) == 0 {
		return false
	}
	tr := c[mm.rng.IntN(len(c))]
	// Another buyer claims it: only a transfer that is plainly its task's (credited to it, or made
	// for what it asks now) must be refused.
	own := tr.task.rec
	plain := mm.bookedFor(tr.task.id, tr.hash) || (own.Status == axp.TaskAwaitingPayment && tr.amount%moneyCent == own.Payable%moneyCent)
	if plain && mm.chance(0.3) {
		if other := mm.pick(func(o *mTask) bool { return o != tr.task && o.rec.Status == axp.TaskAwaitingPayment }); other != nil {
			mm.foreignReport(other, tr, mm.confirmations(tr) < moneyConfirmations)
			return true
		}
	}
	mm.ownReport(tr.task, tr)
	return true
}

// alignChainTime sets the chain's clock to the exchange's, a second ahead (block times are whole
// seconds): a transfer made after a task was posted is never mined "before" it. The model calls it
// after moving the exchange's clock and after every reorg (anvil stamps new blocks from the old
// ones' time).
func (mm *moneyModel) alignChainTime() { mm.m.c.SetTime(mm.clock.Now().Add(time.Second)) }

// confirmations is how many confirmations the transfer has now (0: not on the chain).
func (mm *moneyModel) confirmations(tr *mTransfer) uint64 {
	r := mm.m.c.Receipt(tr.hash)
	if r == nil {
		return 0
	}
	return mm.m.c.Head() - r.BlockNumber.Uint64() + 1
}

func (mm *moneyModel) mine() bool {
	n := 1 + mm.rng.IntN(3)
	mm.m.c.Mine(n)
	mm.logf("mined %d blocks (head %d)", n, mm.m.c.Head())
	return true
}

// confirm mines the confirmations and runs the watcher's pass.
func (mm *moneyModel) confirm() {
	mm.m.c.Mine(moneyConfirmations)
	mm.sync()
}

// sync runs one pass of the payment watcher (as the daemon does every chain_poll): every confirmed
// block is then read, and every payout in flight looked at.
func (mm *moneyModel) sync() {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := mm.m.d.ChainPass(ctx); err != nil {
		mm.logf("watcher pass: %v", err)
	}
}

// settle mines and syncs until nothing is in flight (bounded).
func (mm *moneyModel) settle() {
	for range 5 {
		mm.confirm()
		inFlight := false
		mm.m.d.DB().View(func(tx *store.Tx) error {
			return tx.SentApprovals(func(*axp.Approval) bool { inFlight = true; return false })
		})
		if !inFlight {
			return
		}
	}
}

// cancel withdraws a task that is open or awaiting payment: taken unless a reported payment waits
// for its confirmation. Funds it holds go back in a refund of exactly what it received.
func (mm *moneyModel) cancel() bool {
	// Half the time a task that holds part of its price: the refund path that matters.
	x := mm.pick(func(x *mTask) bool { return x.rec.Status == axp.TaskAwaitingPayment && x.rec.Received > 0 })
	if x == nil || mm.chance(0.5) {
		x = mm.pick(statusIs(axp.TaskOpen, axp.TaskAwaitingPayment))
	}
	if x == nil {
		return false
	}
	v := mm.view(x)
	var out axp.Task
	err := mm.do(mm.buyer(x), "cancel_task", map[string]any{"id": x.id, "reason": "changed my mind"}, &out)
	mm.logf("task %s (%s): the buyer cancels: %v", x.id, v.Status, errText(err))
	waiting := v.Payment != nil && v.Payment.TxHash != ""
	switch {
	case err != nil && (v.Status == axp.TaskOpen || (v.Status == axp.TaskAwaitingPayment && !waiting)):
		mm.violate("cancel-taken", x.id, "task %s was %s with no report waiting and its cancel was refused: %v", x.id, v.Status, err)
	case err == nil:
		x.acked = out.Status
		if v.Payment != nil && v.Payment.ReceivedUSD > 0 {
			mm.expectRefund(x, v.Payment.ReceivedUSD)
		}
	}
	return true
}

// expectRefund checks the refund queued for a task that received what it received and did no job.
func (mm *moneyModel) expectRefund(x *mTask, received axp.Money) {
	var refund *axp.Approval
	for _, a := range mm.m.approvals(x.id) {
		if a.Kind == axp.ApproveRefund && a.Open() {
			refund = &a
		}
	}
	if refund == nil {
		mm.violate("refund-queued", x.id, "task %s ended holding %s and no refund waits for the operator", x.id, received)
		return
	}
	if refund.RefundUSD != received {
		mm.violate("refund-is-received", x.id, "task %s received %s and its refund %s sends the buyer %s",
			x.id, received, refund.ID, refund.RefundUSD)
	}
}

// expire moves the clocks (the exchange's and the chain's) past the windows and runs the sweeper.
func (mm *moneyModel) expire() bool {
	d := moneyWindow + time.Minute
	mm.clock.offset.Add(int64(d))
	mm.alignChainTime()
	mm.m.c.Mine(1)
	before := map[string]axp.Money{}
	for _, x := range mm.tasks {
		if x.rec.Status == axp.TaskAwaitingPayment {
			before[x.id] = x.rec.Received
		}
	}
	n := mm.m.d.Sweep()
	mm.logf("the clocks moved %s; the sweeper changed %d tasks", d, n)
	mm.read() // the tasks' records again
	for id, received := range before {
		if x := mm.byID[id]; x.rec.Status == axp.TaskExpired && received > 0 {
			mm.expectRefund(x, received)
		}
	}
	return true
}

func (mm *moneyModel) deliver() bool {
	x := mm.pick(statusIs(axp.TaskPaid, axp.TaskInProgress))
	if x == nil || x.seller == nil {
		return false
	}
	var out axp.Task
	err := mm.do(mm.as(x.seller), "deliver", map[string]any{"id": x.id, "content": "Waves fold the light.", "filename": "result.txt",
		"mime_type": "text/plain"}, &out)
	mm.logf("task %s: the seller delivers: %v", x.id, errText(err))
	if err == nil {
		x.acked = out.Status
	}
	return true
}

// accept has the buyer accept a delivery and the seller ask to be paid.
func (mm *moneyModel) accept() bool {
	x := mm.pick(func(x *mTask) bool {
		return x.rec.Status == axp.TaskDelivered || (x.rec.Status == axp.TaskAccepted && !mm.hasLiveItem(x.id, axp.ApprovePayout))
	})
	if x == nil {
		return false
	}
	if x.rec.Status == axp.TaskDelivered {
		if _, err := doOp(mm.buyer(x), contract.GetDeliverable, axp.TaskRef{ID: x.id}); err != nil {
			mm.t.Fatalf("get_deliverable: %v", err)
		}
		var out axp.Task
		err := mm.do(mm.buyer(x), "accept_task", map[string]any{"id": x.id}, &out)
		mm.logf("task %s: the buyer accepts: %v", x.id, errText(err))
		if err != nil {
			return true
		}
		x.acked = out.Status
	}
	var pr axp.PaymentRequested
	err := mm.do(mm.as(x.seller), "request_payment", map[string]any{"id": x.id}, &pr)
	mm.logf("task %s: the seller requests payment: %v", x.id, errText(err))
	return true
}

// hasLiveItem reports whether the task has a queue item of kind that is not rejected.
func (mm *moneyModel) hasLiveItem(id, kind string) bool {
	for _, a := range mm.m.approvals(id) {
		if a.Kind == kind && a.Status != axp.ApprovalRejected {
			return true
		}
	}
	return false
}

func (mm *moneyModel) dispute() bool {
	x := mm.pick(statusIs(axp.TaskDelivered))
	if x == nil {
		return false
	}
	var out axp.Task
	err := mm.do(mm.buyer(x), "dispute_task", map[string]any{"id": x.id, "reason": "it is too short"}, &out)
	mm.logf("task %s: the buyer disputes: %v", x.id, errText(err))
	if err == nil {
		x.acked = out.Status
	}
	return true
}

// settleDispute has the seller propose a refund share of a disputed task and the buyer accept it: a
// refund or split then waits for the operator.
func (mm *moneyModel) settleDispute() bool {
	x := mm.pick(statusIs(axp.TaskDisputed))
	if x == nil {
		return false
	}
	pct := []int{0, 25, 50, 100}[mm.rng.IntN(4)]
	var s axp.Settlement
	if err := mm.do(mm.as(x.seller), "propose_settlement", map[string]any{"id": x.id, "refund_pct": pct}, &s); err != nil {
		mm.logf("task %s: the seller proposes %d%%: %v", x.id, pct, err)
		return true
	}
	err := mm.do(mm.buyer(x), "answer_settlement", map[string]any{"id": x.id, "settlement_id": s.ID, "accept": true}, nil)
	mm.logf("task %s: settled at %d%% refunded: %v", x.id, pct, errText(err))
	return true
}

// moneyItem reports whether the operator's approving a sends money from the hot wallet.
func moneyItem(a *axp.Approval) bool {
	return a.Kind == axp.ApprovePayout || a.Kind == axp.ApproveRefund || a.Kind == axp.ApproveSplit
}

// openItems lists the queue items (from the store) for which ok holds.
func (mm *moneyModel) openItems(ok func(*axp.Approval) bool) []axp.Approval {
	var out []axp.Approval
	mm.m.d.DB().View(func(tx *store.Tx) error {
		return tx.OpenApprovals(func(a *axp.Approval) bool {
			if ok(a) {
				out = append(out, *a)
			}
			return true
		})
	})
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out
}

// topUp refills the hot wallet when it runs low (the operator's float grows by as much).
func (mm *moneyModel) topUp() {
	hot := chaintest.Addr(mm.m.hot)
	if mm.m.c.Balance(mm.m.c.Token, hot) < 30_000_000 {
		mm.m.c.Mint(mm.m.c.Token, hot, 100_000_000)
		mm.float += 100_000_000
		mm.logf("the operator tops the hot wallet up by 100.00")
	}
}

// approve approves up to three open items at once (sometimes the same one twice); the hot wallet
// sends the payouts, refunds and splits. Mostly the chain then confirms them.
func (mm *moneyModel) approve() bool {
	items := mm.openItems(func(a *axp.Approval) bool {
		// A split held for the seller's payout address is approved too: the hot wallet sends the
		// buyer's part.
		return (moneyItem(a) || a.Kind == axp.ApproveReleaseDue || a.Kind == axp.ApproveReturn) &&
			(a.Status != axp.ApprovalHeld || (a.Kind == axp.ApproveSplit && a.HeldFor != axp.HoldReorg))
	})
	if len(items) == 0 {
		return false
	}
	mm.topUp()
	mm.rng.Shuffle(len(items), func(i, j int) { items[i], items[j] = items[j], items[i] })
	ids := []string{}
	for _, a := range items[:min(len(items), 1+mm.rng.IntN(3))] {
		ids = append(ids, a.ID)
	}
	if mm.chance(0.2) {
		ids = append(ids, ids[0]) // the operator clicks twice
	}
	results := mm.approveAll(ids)
	sent := map[string][]string{}
	for i, id := range ids {
		r := results[i]
		mm.logf("approve %s: %s", id, r.describe())
		if r.err != nil {
			continue
		}
		if prev := sent[id]; prev != nil && r.a.Status == axp.ApprovalSent {
			mm.violate("paid-once", id, "approval %s was answered sent twice at once (transfers %v and %v)", id, prev, hashes(r.a.Transfers))
		}
		sent[id] = hashes(r.a.Transfers)
		mm.acked[id] = r.a.Status
	}
	if mm.chance(0.7) {
		mm.confirm()
		mm.expectConfirmed(ids, results)
	}
	return true
}

type approveResult struct {
	a   axp.Approval
	err error
}

func (r approveResult) describe() string {
	if r.err != nil {
		return r.err.Error()
	}
	return fmt.Sprintf("%s %s %v", r.a.Kind, r.a.Status, hashes(r.a.Transfers))
}

func hashes(l []axp.OutTransfer) []string {
	var out []string
	for _, x := range l {
		out = append(out, x.Part+":"+short(x.TxHash))
	}
	return out
}

// approveAll approves the items concurrently, as several operators (or clicks) would.
func (mm *moneyModel) approveAll(ids []string) []approveResult {
	results := make([]approveResult, len(ids))
	var wg sync.WaitGroup
	for i, id := range ids {
		wg.Add(1)
		go func() {
			defer wg.Done()
			results[i].err = mm.do(mm.m.admin, "admin_approve", map[string]any{"id": id}, &results[i].a)
		}()
	}
	wg.Wait()
	return results
}

// expectConfirmed checks that the items answered sent are confirmed once the chain confirmed their
// transfers (a pass or two of the watcher after the blocks).
func (mm *moneyModel) expectConfirmed(ids []string, results []approveResult) {
	for i, id := range ids {
		if results[i].err != nil || results[i].a.Status != axp.ApprovalSent {
			continue
		}
		a := mm.approvalNow(id)
		for try := 0; a != nil && a.Status == axp.ApprovalSent && try < 3; try++ {
			mm.confirm()
			a = mm.approvalNow(id)
		}
		if a == nil {
			mm.violate("acked-kept", id, "approval %s, answered sent, is gone", id)
		} else if a.Status != axp.ApprovalConfirmed {
			mm.violate("payout-confirmed", id, "approval %s (%s of task %s) sent %v is still %s after its transfers were confirmed (%s)",
				id, a.Kind, a.TaskID, hashes(a.Transfers), a.Status, a.Failure)
		}
	}
}

// approvalNow reads a queue item from the store (nil when there is none).
func (mm *moneyModel) approvalNow(id string) *axp.Approval {
	var a *axp.Approval
	if err := mm.m.d.DB().View(func(tx *store.Tx) error {
		var err error
		a, err = tx.Approval(id)
		return err
	}); err != nil {
		mm.t.Fatalf("read approval %s: %v", id, err)
	}
	return a
}

// reject rejects an open item.
func (mm *moneyModel) reject() bool {
	items := mm.openItems(func(a *axp.Approval) bool { return moneyItem(a) || a.Kind == axp.ApprovePayment })
	if len(items) == 0 {
		return false
	}
	a := items[mm.rng.IntN(len(items))]
	var out axp.Approval
	err := mm.do(mm.m.admin, "admin_reject", map[string]any{"id": a.ID, "reason": "not now"}, &out)
	mm.logf("reject %s (%s of %s): %v", a.ID, a.Kind, a.TaskID, errText(err))
	if err == nil {
		mm.acked[a.ID] = out.Status
	}
	return true
}

// reorgShallow pays a task and takes the block back before it has its confirmations (evm_revert of
// a snapshot taken just before). Half the time the same transaction comes back in a later block,
// as after most reorgs.
func (mm *moneyModel) reorgShallow() bool {
	x, p := mm.unreported(nil)
	if x == nil {
		return false
	}
	key := mm.wallet(x)
	mm.fund(key, p.PayableUSD)
	c := mm.m.c
	from := c.Head()
	snap := c.Snapshot()
	tr := mm.send(key, p.PayableUSD, x, "exact")
	if mm.chance(0.5) {
		mm.ownReport(x, tr)
	}
	// The exchange's own transactions (a payout sent again) may have been mined meanwhile: then
	// the transfer had its confirmations and this reorg is a deep one.
	depth := c.Head() - from
	c.Revert(snap)
	mm.alignChainTime()
	c.DropTransaction(tr.hash) // anvil may put a reverted transaction back in its pool
	back := mm.chance(0.5)
	if back {
		c.SendRaw(tr.raw)
	}
	tr.gone = !back
	deep := depth >= moneyConfirmations
	x.reorged = x.reorged || (deep && !back)
	mm.logf("task %s: transfer %s of %s reverted (depth %d); sent again: %v", x.id, short(tr.hash), tr.amount, depth, back)
	mm.confirm()
	v := mm.view(x)
	switch {
	case back:
		mm.expectCredited(x, tr, p.ReceivedUSD, p.PayableUSD)
	case deep:
	case v.Status != axp.TaskAwaitingPayment || (v.Payment != nil && v.Payment.ReceivedUSD != p.ReceivedUSD):
		mm.violate("canonical-funding", x.id, "task %s is %s after its transfer %s was reverted before its confirmations (received before: %s)",
			x.id, v.Status, short(tr.hash), p.ReceivedUSD)
	}
	return true
}

// unreported picks a task awaiting payment with no report waiting, other than not.
func (mm *moneyModel) unreported(not *mTask) (*mTask, *axp.PaymentInfo) {
	x := mm.pick(func(x *mTask) bool { return x != not && x.rec.Status == axp.TaskAwaitingPayment })
	if x == nil {
		return nil, nil
	}
	v := mm.view(x)
	if v.Status != axp.TaskAwaitingPayment || v.Payment == nil || v.Payment.TxHash != "" || mm.unconfirmed(x) > 0 {
		return nil, nil
	}
	return x, v.Payment
}

// reorgDeep pays a task, lets the exchange credit it with its confirmations, then replaces the
// blocks from before the transfer on: anvil_reorg (the chain keeps its height), or evm_revert and
// new blocks to the same height. It is a reorg deeper than the confirmations. Sometimes the
// transaction comes back (in the new blocks, or later), and sometimes the new blocks carry another
// buyer's payment, below the height the watcher had read to. The task must not stay quietly funded
// by a transfer that is gone (its payment becomes reorged, its money movements held, reconcile
// lists it: the invariants check it), and the newcomer must be found.
func (mm *moneyModel) reorgDeep() bool {
	x, p := mm.unreported(nil)
	if x == nil {
		return false
	}
	c := mm.m.c
	key := mm.wallet(x)
	mm.fund(key, p.PayableUSD)
	useRevert := mm.chance(0.5)
	var y *mTask
	var yp *axp.PaymentInfo
	if !useRevert && mm.chance(0.4) {
		if y, yp = mm.unreported(x); y != nil {
			mm.fund(mm.wallet(y), yp.PayableUSD)
		}
	}
	var snap string
	if useRevert {
		snap = c.Snapshot()
	}
	extra := mm.rng.IntN(3)
	c.Mine(extra) // blocks before the transfer, replaced too
	tr := mm.send(key, p.PayableUSD, x, "exact")
	block := c.Receipt(tr.hash).BlockNumber.Uint64()
	if mm.chance(0.5) {
		mm.ownReport(x, tr)
	}
	mm.confirm()
	if v := mm.view(x); v.Status == axp.TaskAwaitingPayment {
		mm.violate("payment-credited", x.id, "task %s: the exact transfer %s of %s with its confirmations left it awaiting payment", x.id, short(tr.hash), tr.amount)
		return true
	}
	head := c.Head()
	depth := head - block + 1 + uint64(extra)
	back := mm.chance(0.3)
	var ytr *mTransfer
	if useRevert {
		c.Revert(snap)
		mm.alignChainTime()
		c.DropTransaction(tr.hash) // anvil may put a reverted transaction back in its pool
		c.Mine(int(head - c.Head()))
		if back {
			c.SendRaw(tr.raw)
		}
	} else {
		var carried [][]byte
		if back {
			carried = append(carried, tr.raw)
		}
		if y != nil {
			hash, raw := c.SignTransfer(y.wallet, c.Token, mm.m.deposit, yp.PayableUSD)
			ytr = mm.record(hash, raw, yp.PayableUSD, y, "exact")
			carried = append(carried, raw)
		}
		c.Reorg(depth, carried...)
		mm.alignChainTime()
		if !back {
			c.DropTransaction(tr.hash)
		}
	}
	tr.gone, x.reorged = !back, !back
	mm.logf("task %s: funded by %s (block %d), then a reorg of depth %d (revert: %v; %d confirmations); back: %v; carries task %v's payment",
		x.id, short(tr.hash), block, depth, useRevert, moneyConfirmations, back, y != nil)
	mm.confirm()
	mm.sync()
	if ytr != nil {
		// The model's own check: a carried transfer the chain reverted (out of gas in the new
		// blocks' state) pays nothing, and expecting it credited would blame the exchange.
		if r := c.Receipt(ytr.hash); r == nil || r.Status != types.ReceiptStatusSuccessful {
			why := "not mined"
			if r != nil {
				why = fmt.Sprintf("reverted in block %d, %d gas used", r.BlockNumber, r.GasUsed)
			}
			mm.t.Fatalf("money model seed %d step %d: the reorg's carried transfer %s is not a success on chain (%s)", mm.seed, mm.step, short(ytr.hash), why)
		}
		mm.expectCredited(y, ytr, yp.ReceivedUSD, yp.PayableUSD)
	}
	return true
}

// restart stops the exchange and starts it again on its data dir.
func (mm *moneyModel) restart() bool {
	mm.m.close()
	mm.m.env = mm.m.start(mm.mods...)
	mm.logf("restarted")
	mm.checkAcked()
	return true
}

// crash stops the exchange while a call that moves money is under way, and starts it again: what
// the call acknowledged must be there after the restart.
func (mm *moneyModel) crash() bool {
	var run func() (string, error)
	switch mm.rng.IntN(3) {
	case 0:
		items := mm.openItems(func(a *axp.Approval) bool { return moneyItem(a) && a.Status != axp.ApprovalHeld })
		if len(items) == 0 {
			return false
		}
		mm.topUp()
		id := items[mm.rng.IntN(len(items))].ID
		run = func() (string, error) {
			var a axp.Approval
			err := mm.do(mm.m.admin, "admin_approve", map[string]any{"id": id}, &a)
			if err == nil {
				mm.acked[id] = a.Status
			}
			return "approve " + id, err
		}
	case 1:
		x := mm.pick(statusIs(axp.TaskOpen, axp.TaskAwaitingPayment))
		if x == nil {
			return false
		}
		run = func() (string, error) {
			var out axp.Task
			err := mm.do(mm.buyer(x), "cancel_task", map[string]any{"id": x.id}, &out)
			if err == nil {
				x.acked = out.Status
			}
			return "cancel " + x.id, err
		}
	default:
		x := mm.pick(statusIs(axp.TaskDelivered))
		if x == nil {
			return false
		}
		run = func() (string, error) {
			var out axp.Task
			err := mm.do(mm.buyer(x), "accept_task", map[string]any{"id": x.id}, &out)
			if err == nil {
				x.acked = out.Status
			}
			return "accept " + x.id, err
		}
	}
	done := make(chan string, 1)
	go func() {
		what, err := run()
		done <- what + ": " + errText(err)
	}()
	for range mm.rng.IntN(50) {
		runtime.Gosched()
	}
	mm.m.close()
	mm.logf("stopped during %s", <-done)
	mm.m.env = mm.m.start(mm.mods...)
	mm.checkAcked()
	return true
}

// dropPayout approves a payout, refund or split while the chain mines nothing; the node then loses
// its transactions (anvil_dropTransaction), sometimes across a restart. The exchange sends the very
// same transactions again: the money arrives once.
func (mm *moneyModel) dropPayout() bool {
	items := mm.openItems(func(a *axp.Approval) bool { return moneyItem(a) && a.Status != axp.ApprovalHeld })
	if len(items) == 0 {
		return false
	}
	mm.topUp()
	id := items[mm.rng.IntN(len(items))].ID
	c := mm.m.c
	c.SetAutomine(false)
	var a axp.Approval
	err := mm.do(mm.m.admin, "admin_approve", map[string]any{"id": id}, &a)
	if err != nil || a.Status != axp.ApprovalSent {
		c.SetAutomine(true)
		mm.logf("approve %s with the chain paused: %s", id, approveResult{a, err}.describe())
		return true
	}
	mm.acked[id] = a.Status
	for _, x := range a.Transfers {
		c.DropTransaction(x.TxHash)
	}
	restart := mm.chance(0.5)
	if restart {
		mm.m.close()
		mm.m.env = mm.m.start(mm.mods...)
	}
	c.SetAutomine(true)
	mm.logf("approve %s: sent %v, dropped by the node; restarted: %v", id, hashes(a.Transfers), restart)
	mm.expectConfirmed([]string{id}, []approveResult{{a: a}})
	return true
}

// addPayoutAddress gives the seller without a payout address one: its held items become pending.
func (mm *moneyModel) addPayoutAddress() bool {
	for _, s := range mm.sellers {
		if s.payout == "" {
			s.payout = chaintest.Addr(mm.m.c.NewKey())
			mm.must(mm.as(s), "update_profile", map[string]any{"payout_address": s.payout}, nil)
			mm.logf("seller %s adds a payout address", s.MemberID)
			return true
		}
	}
	return false
}

// --- invariants ---

// moneyView is what the chain and the store say at one moment: the chain read first, so that
// every payout the chain shows is already stored as sent (the exchange stores before it sends).
type moneyView struct {
	deposits map[string][]chaintest.Log // transfers to the deposit address, by tx hash
	hotOut   map[string][]chaintest.Log // transfers from the hot wallet, by tx hash
	ledger   []axp.LedgerEntry
	items    []axp.Approval
	inbound  []axp.InboundTransfer
}

func (mm *moneyModel) read() *moneyView {
	c := mm.m.c
	v := &moneyView{deposits: map[string][]chaintest.Log{}, hotOut: map[string][]chaintest.Log{}}
	hot := chaintest.Addr(mm.m.hot)
	for _, l := range c.Transfers(c.Token) {
		if strings.EqualFold(l.To, mm.m.deposit) {
			v.deposits[l.TxHash] = append(v.deposits[l.TxHash], l)
		}
		if strings.EqualFold(l.From, hot) {
			v.hotOut[l.TxHash] = append(v.hotOut[l.TxHash], l)
		}
	}
	err := mm.m.d.DB().View(func(tx *store.Tx) error {
		var err error
		if v.ledger, err = tx.Ledger(); err != nil {
			return err
		}
		if err := tx.Approvals(func(a *axp.Approval) bool { v.items = append(v.items, *a); return true }); err != nil {
			return err
		}
		if err := tx.EachInbound(func(in *axp.InboundTransfer) bool { v.inbound = append(v.inbound, *in); return true }); err != nil {
			return err
		}
		for _, x := range mm.tasks {
			if x.rec, err = tx.Task(x.id); err != nil {
				return err
			}
			if x.rec == nil {
				return fmt.Errorf("task %s is not stored", x.id)
			}
		}
		return nil
	})
	if err != nil {
		mm.t.Fatalf("read the store: %v", err)
	}
	return v
}

func sumLogs(l []chaintest.Log) axp.Money {
	var s axp.Money
	for _, x := range l {
		s += x.Amount
	}
	return s
}

// check runs the invariants that hold after every step (reconcile runs after the steps that
// mined blocks).
func (mm *moneyModel) check() {
	v := mm.read()
	mm.checkLedger(v)
	credited := mm.checkFunding(v)
	mm.checkTaskMoney(v, credited)
	mm.checkAdversary(v, credited)
	mm.checkPaidOnce(v)
	mm.checkBookings(v)
	mm.checkEscrow(v)
}

// checkLedger: every entry and the whole ledger sum to zero, as the store and admin stats say.
func (mm *moneyModel) checkLedger(v *moneyView) {
	var total axp.Money
	for _, e := range v.ledger {
		if s := e.Sum(); s != 0 {
			mm.violate("ledger-balances", e.ID, "ledger entry %s (%s of task %s) sums to %s", e.ID, e.Kind, e.TaskID, s)
		}
		total += e.Sum()
	}
	var st axp.Stats
	mm.must(mm.m.admin, "admin_stats", nil, &st)
	if total != 0 || st.Money.LedgerSum != 0 {
		mm.violate("ledger-balances", "ledger", "the ledger sums to %s (admin stats: %s)", total, st.Money.LedgerSum)
	}
}

// checkFunding: a transfer funds at most one task, and a task is funded only by canonical
// transfers, or its payment says it was reorged, its money movements wait, and reconcile names it.
// It returns the transactions credited to each task.
func (mm *moneyModel) checkFunding(v *moneyView) map[string][]string {
	tasksOf := map[string]map[string]bool{}
	credited := map[string][]string{}
	add := func(hash, task string) {
		hash = strings.ToLower(hash)
		if tasksOf[hash] == nil {
			tasksOf[hash] = map[string]bool{}
		}
		if !tasksOf[hash][task] {
			tasksOf[hash][task] = true
			credited[task] = append(credited[task], hash)
		}
	}
	for _, e := range v.ledger {
		if e.Kind == "payment" && e.TxHash != "" && !escrowPaid(&e) { // the escrow's: checkEscrow
			add(e.TxHash, e.TaskID)
		}
	}
	for _, in := range v.inbound {
		if (in.Outcome == axp.InboundFunded || in.Outcome == axp.InboundPartial) && in.TaskID != "" {
			add(in.TxHash, in.TaskID)
		}
	}
	for hash, ts := range tasksOf {
		if len(ts) > 1 {
			mm.violate("one-transfer-one-task", hash, "transaction %s funds %d tasks: %v", short(hash), len(ts), keys(ts))
		}
	}
	var gone []string
	for task, hs := range credited {
		for _, h := range hs {
			if len(v.deposits[h]) == 0 {
				gone = append(gone, task+" "+h)
			}
		}
	}
	sort.Strings(gone)
	for _, g := range gone {
		task, hash, _ := strings.Cut(g, " ")
		mm.expectReorged(v, task, hash)
	}
	return credited
}

// expectReorged checks what the spec asks of a task funded by a transfer that left the chain.
func (mm *moneyModel) expectReorged(v *moneyView, task, hash string) {
	x := mm.byID[task]
	if x == nil {
		mm.violate("canonical-funding", task, "task %s, unknown to the model, is funded by %s, which the chain does not show", task, short(hash))
		return
	}
	tv := mm.view(x)
	if tv.Payment == nil || tv.Payment.Status != "reorged" {
		status := ""
		if tv.Payment != nil {
			status = tv.Payment.Status
		}
		mm.violate("canonical-funding", task, "task %s (%s, payment %q) is funded by %s, which a reorg removed from the chain; its payment must say reorged",
			task, tv.Status, status, short(hash))
	}
	for _, a := range v.items {
		if a.TaskID == task && moneyItem(&a) && (a.Status == axp.ApprovalPending || a.Status == axp.ApprovalFailed) {
			mm.violate("reorged-held", task, "task %s is funded by a reorged transfer %s and its %s %s is %s, not held",
				task, short(hash), a.Kind, a.ID, a.Status)
		}
	}
}

// checkTaskMoney: what the ledger booked as a task's payments is what canonical transfers brought
// it, and what left for it (on chain from the hot wallet, and as booked) is no more than that.
func (mm *moneyModel) checkTaskMoney(v *moneyView, credited map[string][]string) {
	type flows struct{ ledgerIn, ledgerOut, chainOut axp.Money }
	per := map[string]*flows{}
	of := func(id string) *flows {
		if per[id] == nil {
			per[id] = &flows{}
		}
		return per[id]
	}
	for _, e := range v.ledger {
		if e.Kind == axp.ApproveReturn {
			continue // a transfer that paid no task, sent back (checkAdversary)
		}
		if escrowPaid(&e) {
			continue // the escrow's money, never at the exchange's addresses (checkEscrow)
		}
		f := of(e.TaskID)
		for _, p := range e.Postings {
			switch {
			case e.Kind == "payment" && p.Account == axp.EscrowAccount(e.TaskID):
				f.ledgerIn += p.Amount
			case p.Account == axp.AcctSellerPaid || p.Account == axp.AcctBuyerRefund:
				f.ledgerOut += p.Amount
			}
		}
	}
	live := liveTransfers(v)
	for _, a := range v.items {
		if a.Kind == axp.ApproveReturn {
			continue // it sends back a transfer that paid no task (checkAdversary)
		}
		seen := map[string]bool{}
		for _, x := range a.Transfers {
			if x.Status == axp.TransferFailed && live[x.TxHash] {
				continue // refused, then signed again byte for byte by another item: that item's
			}
			if !seen[x.TxHash] {
				seen[x.TxHash] = true
				of(a.TaskID).chainOut += sumLogs(v.hotOut[x.TxHash])
			}
		}
	}
	ids := keys(per)
	for _, id := range ids {
		f := per[id]
		var chainIn axp.Money
		for _, h := range credited[id] {
			chainIn += sumLogs(v.deposits[h])
		}
		if f.chainOut > chainIn {
			mm.violate("task-out<=in", id, "the hot wallet sent %s for task %s, which canonical transfers brought %s", f.chainOut, id, chainIn)
		}
		if f.ledgerOut > chainIn {
			mm.violate("task-out<=in", id, "the ledger booked %s paid out for task %s, which canonical transfers brought %s", f.ledgerOut, id, chainIn)
		}
		if x := mm.byID[id]; f.ledgerIn != chainIn && (x == nil || !x.reorged) {
			mm.violate("ledger-in=chain", id, "the ledger booked %s received for task %s; its canonical transfers brought %s", f.ledgerIn, id, chainIn)
		}
	}
}

// checkPaidOnce: every transfer from the hot wallet belongs to a queue item, no part of an item is
// paid twice on chain, and no task's escrow is emptied twice.
func (mm *moneyModel) checkPaidOnce(v *moneyView) {
	owner := map[string]bool{}
	emptied := map[string][]string{}
	live := liveTransfers(v)
	for _, a := range v.items {
		parts := map[string]int{}
		for _, x := range a.Transfers {
			if x.Status == axp.TransferFailed && len(v.hotOut[x.TxHash]) > 0 {
				if live[x.TxHash] {
					continue // the same bytes, signed again by another item, which holds them
				}
				mm.violate("paid-once", a.ID, "the %s transfer %s of %s %s (task %s) is recorded failed and is on the chain", x.Part, short(x.TxHash), a.Kind, a.ID, a.TaskID)
			}
			if !owner[x.TxHash] && len(v.hotOut[x.TxHash]) > 0 {
				parts[x.Part]++
			}
			owner[x.TxHash] = true
		}
		for part, n := range parts {
			if n > 1 {
				mm.violate("paid-once", a.ID, "the %s part of %s %s (task %s) is on the chain %d times", part, a.Kind, a.ID, a.TaskID, n)
			}
		}
		if moneyItem(&a) && (a.Status == axp.ApprovalSent || a.Status == axp.ApprovalConfirmed) {
			emptied[a.TaskID] = append(emptied[a.TaskID], a.ID)
		}
	}
	for hash := range v.hotOut {
		if !owner[hash] {
			mm.violate("paid-once", hash, "the hot wallet sent %s (%s) for no queue item", short(hash), sumLogs(v.hotOut[hash]))
		}
	}
	for task, ids := range emptied {
		if len(ids) > 1 {
			mm.violate("paid-once", task, "task %s has %d payouts, refunds or splits sent: %v", task, len(ids), ids)
		}
	}
}

// liveTransfers are the hashes of the items' transfers not recorded failed. A refused transfer's
// nonce stays free, so another item sending the same amount to the same address may sign the very
// same bytes: the mined transaction is then that item's.
func liveTransfers(v *moneyView) map[string]bool {
	live := map[string]bool{}
	for _, a := range v.items {
		for _, x := range a.Transfers {
			if x.Status != axp.TransferFailed {
				live[x.TxHash] = true
			}
		}
	}
	return live
}

// checkBookings: what an item shows (and approving it books) balances and empties exactly the
// escrow it holds: a booking that cannot balance is never signed or sent.
func (mm *moneyModel) checkBookings(v *moneyView) {
	for _, a := range v.items {
		if a.Booking == nil {
			continue
		}
		var sum, out axp.Money
		for _, p := range a.Booking {
			sum += p.Amount
			if p.Amount > 0 {
				out += p.Amount
			}
		}
		if sum != 0 {
			mm.violate("booking-balances", a.ID, "the booking of %s %s (task %s, %s) sums to %s: it moves %s out of an escrow of %s",
				a.Kind, a.ID, a.TaskID, a.Status, sum, out, out-sum)
		}
	}
}

// checkReconcile: reconcile names every difference between the ledger and the chain: each ledger
// movement the chain does not show (with its task), each confirmed transfer to the deposit address
// that funds no task; with nothing in flight or missing, what the exchange's addresses hold beyond
// the ledger is exactly the operator's float.
func (mm *moneyModel) checkReconcile(final bool) {
	// Reconcile is read before the model's view: the watcher credits a transfer before it moves
	// its cursor, so a transfer reconcile counts as scanned is in the ledger the view reads after.
	// (Read the other way round, a transfer credited in between was in neither.)
	resp, err := doOp(mm.m.admin, contract.AdminReconcile, contract.NoInput{})
	if err != nil {
		mm.t.Fatalf("admin_reconcile: %v", err)
	}
	var r axp.Reconciliation
	if err := json.Unmarshal(resp.Body, &r); err != nil {
		mm.t.Fatalf("reconcile answer %s: %v", resp.Body, err)
	}
	v := mm.read()
	mm.checkReconcileEscrow(&r, v)
	// A difference is named when its transaction appears in reconcile's answer, wherever: the
	// missing transfers today, or a list of reorged payments.
	body := strings.ToLower(string(resp.Body))
	named := func(hash string) bool { return strings.Contains(body, strings.ToLower(hash)) }
	booked := map[string]bool{}
	for _, a := range v.items {
		if a.Kind == axp.ApproveReturn && (a.Status == axp.ApprovalConfirmed || a.Status == axp.ApprovalApproved) {
			booked[strings.ToLower(a.ReturnOf)] = true // sent back to its sender
		}
	}
	gaps := 0
	for _, e := range v.ledger {
		if e.TxHash == "" {
			continue
		}
		h := strings.ToLower(e.TxHash)
		var onChain bool
		if escrowPaid(&e) {
			// The escrow's calls: reconcile checks their events; a capture's fee reaches the
			// deposit address in the same transaction.
			booked[h] = true
			continue
		}
		if e.Kind == "payment" {
			booked[h] = true
			onChain = len(v.deposits[h]) > 0
		} else {
			onChain = len(v.hotOut[h]) > 0
		}
		if !onChain {
			gaps++
			if !named(h) {
				mm.violate("reconcile-names", e.TaskID, "reconcile does not list the %s of task %s: the chain has no transfer %s (covered: %v)",
					e.Kind, e.TaskID, short(h), r.Covered)
			}
		}
	}
	settled := true
	for h, l := range v.deposits {
		if l[0].Block > r.ScannedToBlock {
			settled = false
			continue
		}
		if !booked[h] && !named(h) && !mm.isPaidCall(v, h) {
			mm.violate("reconcile-names", h, "reconcile does not list the confirmed transfer %s of %s (block %d) to the deposit address, which funds no task",
				short(h), sumLogs(l), l[0].Block)
		}
	}
	if settled && gaps == 0 && len(r.InFlight) == 0 && r.DifferenceUSD != mm.float {
		mm.violate("reconcile-names", "difference", "reconcile finds %s beyond the ledger (covered: %v) with nothing in flight or missing; the operator's float is %s",
			r.DifferenceUSD, r.Covered, mm.float)
	}
	if final {
		mm.logf("reconcile: covered %v, difference %s, %d unknown, %d missing, %d in flight", r.Covered, r.DifferenceUSD,
			len(r.UnknownTransfers), len(r.MissingTransfers), len(r.InFlight))
	}
}

func (mm *moneyModel) isPaidCall(v *moneyView, hash string) bool {
	for _, in := range v.inbound {
		if in.TxHash == hash && in.Outcome == axp.InboundPaidCall {
			return true
		}
	}
	return false
}

// taskRank orders task statuses along the lifecycle, for the check that nothing acknowledged went
// back after a restart (a cancelled or expired task that held money becomes refunded once its
// refund is approved).
var taskRank = map[string]int{axp.TaskOpen: 0, axp.TaskAwaitingPayment: 1, axp.TaskPaid: 2, axp.TaskInProgress: 3,
	axp.TaskDelivered: 4, axp.TaskAccepted: 5, axp.TaskDisputed: 5, axp.TaskCancelled: 5, axp.TaskExpired: 5,
	axp.TaskReleased: 6, axp.TaskRefunded: 6}

// checkAcked: after a restart, every task the API created is there, no acknowledged change of it
// went back, and every queue item the operator decided keeps its decision.
func (mm *moneyModel) checkAcked() {
	for _, x := range mm.tasks {
		var v axp.Task
		if err := mm.do(mm.buyer(x), "get_task", map[string]any{"id": x.id}, &v); err != nil {
			mm.violate("acked-kept", x.id, "task %s, created with a 201, cannot be read after a restart: %v", x.id, err)
			continue
		}
		if x.reorged || x.acked == "" {
			continue
		}
		if taskRank[v.Status] < taskRank[x.acked] || (taskRank[x.acked] == 6 && v.Status != x.acked) {
			mm.violate("acked-kept", x.id, "task %s was acknowledged %s and is %s after a restart", x.id, x.acked, v.Status)
		}
	}
	for _, id := range keys(mm.acked) {
		status := mm.acked[id]
		a := mm.approvalNow(id)
		if a == nil {
			mm.violate("acked-kept", id, "approval %s was acknowledged %s and is gone after a restart", id, status)
			continue
		}
		// A held split approved answers held (the buyer's part is sent, the seller's waits for a
		// payout address): it may stay held, or wait for the operator again once the seller has
		// an address.
		heldPart := status == axp.ApprovalHeld && (a.Status == axp.ApprovalHeld || a.Status == axp.ApprovalPending)
		if !heldPart && (a.Status == axp.ApprovalPending || a.Status == axp.ApprovalHeld || (status == axp.ApprovalRejected && a.Status != status)) {
			mm.violate("acked-kept", id, "approval %s was acknowledged %s and is %s after a restart", id, status, a.Status)
		}
	}
}

// --- small helpers ---

func keys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// short is a transaction hash cut for reading.
func short(h string) string {
	if len(h) > 12 {
		return h[:10] + ".."
	}
	return h
}

func errText(err error) string {
	if err == nil {
		return "ok"
	}
	return err.Error()
}

// Seeds that broke invariants of the faults, kept as tests: each fails while its fault is
// there and passes once it is fixed (whatever else the walk finds is logged).

// A part-paid task cancelled or expired refunds its whole price, not what it received.
func TestMoneyPartPaidRefund(t *testing.T) {
	moneyRegression(t, 12, 16, "refund-is-received", "booking-balances", "task-out<=in", "payout-confirmed")
}

// Another task's buyer claims a transfer before its confirmations and is funded by it.
func TestMoneyForeignHashClaim(t *testing.T) {
	moneyRegression(t, 2, 10, "foreign-hash-refused", "own-report-taken")
}

// A reorg deeper than the confirmations leaves the task funded, its payout free to go, and
// reconcile silent.
func TestMoneyDeepReorg(t *testing.T) {
	moneyRegression(t, 25, 22, "canonical-funding", "reconcile-names", "reorged-held")
}

// The payable amount (price plus the matching tag) is more than the offer's buyer total.
func TestMoneyBuyerTotal(t *testing.T) {
	moneyRegression(t, 1, 4, "buyer-total")
}

// A buyer reports again a transfer its task was already credited with (a part paid): the task then
// waits for that hash for good, and the rest it is sent is matched to nothing.
func TestMoneyReportOfCreditedHash(t *testing.T) {
	moneyRegression(t, 2, 10, "report-of-credited-hash")
}

// A reorg deeper than the confirmations whose new blocks carry another buyer's payment: the watcher,
// past those heights already, never reads it, and reconcile does not list it.
func TestMoneyReorgCarriedPayment(t *testing.T) {
	moneyRegression(t, 70, 12, "payment-credited", "reconcile-names")
}

// A buyer's repeated transfer of its finished task's amount carried the sub-cent tag a task posted
// since was given: it was credited to that task (seed 689983084, CI). Only an exact payable
// amount, or a sender bound to the task, names a task now.
func TestMoneyStaleTagIsNoName(t *testing.T) { moneyRegression(t, 689983084, 120, "credited-to-payer") }

// A partial transfer nobody reported was queued to go back to its sender, and the operator
// approved the return before the buyer reported it: the report was then rightly refused, which
// the model counted as a taken report (CI seed 430868576). A return that failed before sending
// anything is no return: TestUnsentReturnLeavesTheTransferToItsReport.
func TestMoneyReturnedBeforeItsReport(t *testing.T) {
	moneyRegression(t, 430868576, 20, "own-report-taken")
}
