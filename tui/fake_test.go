package tui

import (
	"context"
	"sync"
	"time"

	"github.com/axp-exchange/axp"
	"github.com/axp-exchange/axp/protocol"
)

// now is the clock of every TUI test.
var now = time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC)

func usd(d, c int64) axp.Money { return axp.USD(d, c) }

func ptr[T any](v T) *T { return &v }

// fixtureOffers are three offers on an open task, ranked by value.
func fixtureOffers() []axp.Offer {
	mk := func(id, seller, name string, price axp.Money, eta int, badges ...string) axp.Offer {
		fee := axp.FeeFor(price, 100)
		return axp.Offer{OfferID: id, Seller: protocol.SellerRef{ID: seller, Name: name}, PriceUSD: price, ETAMinutes: eta, Fee: fee,
			Guarantee: protocol.Guarantee{FreeRedo: 1}, Badges: append([]string{}, badges...), CreatedAt: now.Add(-time.Minute)}
	}
	o1 := mk("ofr_quick", "mem_quick", "Quick Writer", usd(2, 50), 10, "new")
	o1.Reliability = axp.Reliability{OnTimeRate: ptr(0.9), FirstPassRate: ptr(0.8)}
	o2 := mk("ofr_slow", "mem_slow", "Slow Poet", usd(3, 0), 60, "new")
	o3 := mk("ofr_fast", "mem_fast", "Fast Lane", usd(4, 0), 5, "reliable", "first_pass_pro")
	return []axp.Offer{o1, o2, o3}
}

func fixtureTasks() []axp.Task {
	open := axp.Task{ID: "tsk_open", Type: "text-file", Status: axp.TaskOpen, PaymentMethod: "crypto",
		Params: map[string]any{"prompt": "a haiku about the sea", "filename": "output.txt"}, Offers: fixtureOffers(),
		RecommendedOffer: ptr("ofr_quick"), CreatedAt: now.Add(-5 * time.Minute), UpdatedAt: now.Add(-2 * time.Minute)}
	price := usd(2, 50)
	fee := axp.FeeFor(price, 100)
	delivered := axp.Task{ID: "tsk_done", Type: "text-file", Status: axp.TaskDelivered, PaymentMethod: "crypto",
		Params: map[string]any{"prompt": "two lines"}, Offers: []axp.Offer{}, Seller: &protocol.SellerRef{ID: "mem_quick", Name: "Quick Writer"},
		PriceUSD: &price, Fee: &fee, ChosenOfferID: "ofr_q2",
		Payment: &axp.PaymentInfo{Method: "crypto", AmountUSD: price, PayableUSD: price + 2, Currency: "USD", DepositAddress: "0xd0d0d0d0d0d0d0d0d0d0d0d0d0d0d0d0d0d0d0d0",
			TxHash: "0x" + repeat("ab", 32), ReceivedUSD: price + 2, Status: "confirmed"},
		Deliverable: &protocol.DeliverableRef{URL: "http://x/api/tasks/tsk_done/deliverable", SHA256: repeat("e1", 32)},
		Checks:      []axp.CheckResult{{Name: "min_lines", Passed: true}, {Name: "must_contain", Passed: false, Detail: `"sea" missing`}},
		Deliveries:  1, RedosLeft: 1, CreatedAt: now.Add(-3 * time.Hour), UpdatedAt: now.Add(-10 * time.Minute)}
	return []axp.Task{open, delivered}
}

func repeat(s string, n int) string {
	out := ""
	for range n {
		out += s
	}
	return out
}

func fixtureApprovals() []axp.Approval {
	return []axp.Approval{
		{ID: "apr_pay", Kind: axp.ApprovePayment, Status: axp.ApprovalPending, TaskID: "tsk_paid", TaskType: "text-file",
			Amount: usd(2, 50) + 2, PriceUSD: usd(2, 50), BuyerID: "anonymous", SellerID: "mem_quick", SellerName: "Quick Writer",
			TxHash: "0x" + repeat("aa", 32), Reason: "confirm that US$2.500002 of the stablecoin reached the deposit address",
			CreatedAt: now.Add(-2 * time.Minute)},
		{ID: "apr_out", Kind: axp.ApprovePayout, Status: axp.ApprovalPending, TaskID: "tsk_acc", TaskType: "text-file",
			Amount: usd(2, 47) + 5000, PriceUSD: usd(2, 50), FeeUSD: 25000, SellerNetUSD: usd(2, 47) + 5000, BuyerID: "member:mem_b",
			SellerID: "mem_quick", SellerName: "Quick Writer", PayoutAddress: "0x" + repeat("5e", 20),
			Reason: "the buyer accepted the delivery; the seller requests payment",
			Checks: []axp.CheckResult{{Name: "min_lines", Passed: true}, {Name: "regex", Passed: true}}, CreatedAt: now.Add(-3 * time.Hour)},
		{ID: "apr_held", Kind: axp.ApprovePayout, Status: axp.ApprovalHeld, TaskID: "tsk_held", TaskType: "image",
			Amount: usd(1, 98), BuyerID: "anonymous", SellerID: "mem_nowallet", SellerName: "No Wallet", Reason: "waiting for a payout address",
			CreatedAt: now.Add(-26 * time.Hour)},
		{ID: "apr_due", Kind: axp.ApproveReleaseDue, Status: axp.ApprovalPending, TaskID: "tsk_due", TaskType: "video",
			Amount: usd(5, 0), BuyerID: "anonymous", SellerID: "mem_fast", SellerName: "Fast Lane",
			Reason: "the auto-release window passed without an answer from the buyer", CreatedAt: now.Add(-30 * time.Second)},
	}
}

// call is one call the fake source received.
type call struct {
	op   string
	args []string
}

// fakeSource answers from fixtures and records the calls.
type fakeSource struct {
	mu        sync.Mutex
	buy, op   bool
	tasks     []axp.Task
	approvals []axp.Approval
	calls     []call
	err       error // returned by every call when set
}

func newFake() *fakeSource {
	return &fakeSource{buy: true, op: true, tasks: fixtureTasks(), approvals: fixtureApprovals()}
}

func (f *fakeSource) record(op string, args ...string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls = append(f.calls, call{op, args})
	return f.err
}

func (f *fakeSource) called(op string) []call {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []call
	for _, c := range f.calls {
		if c.op == op {
			out = append(out, c)
		}
	}
	return out
}

func (f *fakeSource) Exchange() string { return "http://127.0.0.1:8420" }
func (f *fakeSource) CanBuy() bool     { return f.buy }
func (f *fakeSource) CanOperate() bool { return f.op }

func (f *fakeSource) Tasks(context.Context) ([]axp.Task, []string, error) {
	if err := f.record("tasks"); err != nil {
		return nil, nil, err
	}
	return f.tasks, nil, nil
}

func (f *fakeSource) find(id string) *axp.Task {
	for i := range f.tasks {
		if f.tasks[i].ID == id {
			t := f.tasks[i]
			return &t
		}
	}
	return nil
}

func (f *fakeSource) Task(_ context.Context, id, sort string) (*axp.Task, error) {
	if err := f.record("task", id, sort); err != nil {
		return nil, err
	}
	t := f.find(id)
	if t == nil {
		return nil, axp.NotFound("task", id)
	}
	t.Offers = append([]axp.Offer(nil), t.Offers...)
	axp.RankOffers(t.Offers, sort)
	return t, nil
}

func (f *fakeSource) Choose(_ context.Context, id, offer string) (*axp.Task, error) {
	if err := f.record("choose", id, offer); err != nil {
		return nil, err
	}
	t := f.find(id)
	t.Status = axp.TaskAwaitingPayment
	return t, nil
}

func (f *fakeSource) Deliverable(_ context.Context, id string) (*Deliverable, error) {
	if err := f.record("deliverable", id); err != nil {
		return nil, err
	}
	return &Deliverable{Body: []byte("the sea is wide\nthe sea is deep\n"), SHA256: repeat("e1", 32)}, nil
}

func (f *fakeSource) Accept(_ context.Context, id, sha string) (*axp.Task, error) {
	if err := f.record("accept", id, sha); err != nil {
		return nil, err
	}
	t := f.find(id)
	t.Status = axp.TaskAccepted
	return t, nil
}

func (f *fakeSource) Dispute(_ context.Context, id, reason string) (*axp.Task, error) {
	if err := f.record("dispute", id, reason); err != nil {
		return nil, err
	}
	t := f.find(id)
	t.Status = axp.TaskDisputed
	return t, nil
}

func (f *fakeSource) Approvals(context.Context) ([]axp.Approval, error) {
	if err := f.record("approvals"); err != nil {
		return nil, err
	}
	return f.approvals, nil
}

func (f *fakeSource) Approve(_ context.Context, id, tx, note string) (*axp.Approval, error) {
	if err := f.record("approve", id, tx, note); err != nil {
		return nil, err
	}
	for _, a := range f.approvals {
		if a.ID == id {
			a.Status = axp.ApprovalApproved
			return &a, nil
		}
	}
	return nil, axp.NotFound("approval", id)
}

func (f *fakeSource) Reject(_ context.Context, id, reason string) (*axp.Approval, error) {
	if err := f.record("reject", id, reason); err != nil {
		return nil, err
	}
	for _, a := range f.approvals {
		if a.ID == id {
			a.Status = axp.ApprovalRejected
			return &a, nil
		}
	}
	return nil, axp.NotFound("approval", id)
}
