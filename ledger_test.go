package axp_test

import (
	"slices"
	"testing"

	"github.com/axp-exchange/axp"
)

// A write-off undoes the buyer's side of a payment: what escrow still holds of it comes out of
// escrow, the rest is the platform's loss, and the entry balances.
func TestWriteOffEntry(t *testing.T) {
	esc := axp.EscrowAccount("tsk_1")
	for _, tt := range []struct {
		amount, escrow, from, loss axp.Money
		want                       []axp.Posting
	}{
		{4_499_998, 0, 0, 4_499_998, []axp.Posting{{axp.AcctBuyerFunds, 4_499_998}, {axp.AcctLosses, -4_499_998}}},
		{4_499_998, 4_499_998, 4_499_998, 0, []axp.Posting{{axp.AcctBuyerFunds, 4_499_998}, {esc, -4_499_998}}},
		{3_000_000, 1_000_000, 1_000_000, 2_000_000, []axp.Posting{{axp.AcctBuyerFunds, 3_000_000}, {esc, -1_000_000}, {axp.AcctLosses, -2_000_000}}},
		{1_000_000, 5_000_000, 1_000_000, 0, []axp.Posting{{axp.AcctBuyerFunds, 1_000_000}, {esc, -1_000_000}}},
		{1_000_000, -3, 0, 1_000_000, []axp.Posting{{axp.AcctBuyerFunds, 1_000_000}, {axp.AcctLosses, -1_000_000}}},
	} {
		ps, from, loss := axp.WriteOffEntry("tsk_1", tt.amount, tt.escrow)
		e := axp.LedgerEntry{ID: "led_x", Kind: "write_off", Postings: ps}
		if !slices.Equal(ps, tt.want) || from != tt.from || loss != tt.loss || e.Check() != nil {
			t.Errorf("WriteOffEntry(%s, escrow %s) = %v, %s, %s; want %v, %s, %s", tt.amount, tt.escrow, ps, from, loss, tt.want, tt.from, tt.loss)
		}
	}
}
