package escrowbook_test

import (
	"fmt"
	"testing"

	"github.com/axp-exchange/axp"
	"github.com/axp-exchange/axp/daemon/money/escrowbook"
)

// The capture's booking is the contract's split: the fee rounded down, the seller the rest, the
// contract account emptied. With whole-cent prices and whole basis points it equals FeeFor's;
// where FeeFor would round half a micro-dollar up, the contract does not, and neither does the
// booking.
func TestCaptureEntry(t *testing.T) {
	for _, c := range []struct {
		received axp.Money
		bps      int64
		fee      axp.Money
	}{{4_500_000, 100, 45_000}, {4_510_000, 250, 112_750}, {4_500_050, 100, 45_000}, {1_000_000, 0, 0}} {
		task := &axp.TaskRecord{ID: "tsk_1", Received: c.received}
		task.Fee.FeeBPS = c.bps
		got := escrowbook.Entry(task, axp.ApprovePayout, 0)
		e := axp.LedgerEntry{ID: "x", TaskID: task.ID, Postings: got}
		if err := e.Check(); err != nil {
			t.Fatalf("%v: %v", got, err)
		}
		b := axp.Balances([]axp.LedgerEntry{e})
		if b[axp.ContractAccount("tsk_1")] != -c.received || b[axp.AcctFees] != c.fee || b[axp.AcctSellerPaid] != c.received-c.fee {
			t.Fatalf("received %s at %d bps: %v, want fee %s", c.received, c.bps, got, c.fee)
		}
		if ff := axp.FeeFor(c.received, c.bps).PlatformFee; c.received%10_000 == 0 && ff != c.fee {
			t.Fatalf("a whole-cent price %s: FeeFor %s, the contract %s", c.received, ff, c.fee)
		}
	}
	if axp.FeeFor(4_500_050, 100).PlatformFee != 45_001 {
		t.Fatal("FeeFor no longer rounds half up: the case above tests nothing")
	}
}

// A split of the escrow's money is a capture of the seller's share, fee included and rounded down,
// then a void of the rest: the booking balances, and the plan sends the capture first and the void
// only once the capture is confirmed. A share of 0 is the void alone, a share of everything the
// capture alone.
func TestSplitOfEscrow(t *testing.T) {
	for _, c := range []struct {
		refund, capture, fee, void axp.Money
		bps                        int64
	}{
		{1_125_000, 3_375_000, 33_750, 1_125_000, 100},
		{0, 4_500_000, 45_000, 0, 100},
		{4_500_000, 0, 0, 4_500_000, 100},
		{4_495_000, 5_000, 0, 4_495_000, 1}, // half a micro-dollar of fee: the contract takes none
	} {
		task := &axp.TaskRecord{ID: "tsk_1", Price: 4_500_000, Received: 4_500_000,
			Authorization: &axp.AuthPayment{Escrow: &axp.EscrowPayment{EscrowAddress: "0xe5"}}}
		task.Fee.FeeBPS = c.bps
		e := axp.LedgerEntry{ID: "x", TaskID: task.ID, Postings: escrowbook.Entry(task, axp.ApproveSplit, c.refund)}
		if err := e.Check(); err != nil {
			t.Fatalf("refund %s: %v: %v", c.refund, e.Postings, err)
		}
		b := axp.Balances([]axp.LedgerEntry{e})
		if b[axp.ContractAccount("tsk_1")] != -task.Received || b[axp.AcctFees] != c.fee || b[axp.AcctSellerPaid] != c.capture-c.fee || b[axp.AcctBuyerRefund] != c.void {
			t.Fatalf("refund %s: %v", c.refund, e.Postings)
		}
		a := &axp.Approval{Kind: axp.ApproveSplit, Booking: e.Postings, PriceRefundUSD: c.refund}
		var sent []string
		for range 3 {
			plan, ok := escrowbook.Plan(task, a, c.refund)
			if !ok {
				t.Fatalf("refund %s: the escrow cannot send a split", c.refund)
			}
			if len(plan) == 0 {
				break
			}
			if len(plan) != 1 {
				t.Fatalf("refund %s: the plan sends %+v at once", c.refund, plan)
			}
			x := plan[0]
			sent = append(sent, fmt.Sprintf("%s %d", x.Part, x.Amount))
			x.Status = axp.TransferConfirmed
			a.Transfers = append(a.Transfers, x)
		}
		var want []string
		if c.capture > 0 {
			want = append(want, fmt.Sprintf("capture %d", c.capture))
		}
		if c.void > 0 {
			want = append(want, fmt.Sprintf("void %d", c.void))
		}
		if fmt.Sprint(sent) != fmt.Sprint(want) {
			t.Fatalf("refund %s: sent %v, want %v", c.refund, sent, want)
		}
	}
}
