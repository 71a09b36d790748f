package money

import (
	"testing"

	"github.com/axp-exchange/axp"
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
		got := captureEntry(task)
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
