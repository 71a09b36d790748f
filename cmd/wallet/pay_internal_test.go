package wallet

import (
	"strings"
	"testing"

	"github.com/axp-exchange/axp"
)

// due: what a task is owed, or why nothing is; after a part payment the payable amount is the
// rest, and that is what is owed.
func TestDue(t *testing.T) {
	chained := func(status string, payable, received axp.Money) *axp.PaymentInfo {
		return &axp.PaymentInfo{Status: status, PayableUSD: payable, ReceivedUSD: received, ChainID: 31337, TokenAddress: "0xt",
			DepositAddress: "0xd", PayableUnits: "1", TxHash: "0xabc"}
	}
	for _, c := range []struct {
		name string
		t    axp.Task
		want axp.Money
		err  string
	}{
		{"unpaid", axp.Task{ID: "tsk_1", Status: axp.TaskAwaitingPayment, Payment: chained("unpaid", 2_499_998, 0)}, 2_499_998, ""},
		// After a part payment the payable amount is the rest (less a new tag): that is what is due.
		{"partial", axp.Task{ID: "tsk_1", Status: axp.TaskAwaitingPayment, Payment: chained("partial", 1_499_997, 1_000_000)}, 1_499_997, ""},
		{"open", axp.Task{ID: "tsk_1", Status: axp.TaskOpen}, 0, "axp task choose tsk_1"},
		{"paid", axp.Task{ID: "tsk_1", Status: axp.TaskPaid, Payment: chained("confirmed", 2_499_998, 2_499_998)}, 0, "is already paid"},
		{"cancelled", axp.Task{ID: "tsk_1", Status: axp.TaskCancelled}, 0, "it awaits no payment"},
		{"reported", axp.Task{ID: "tsk_1", Status: axp.TaskAwaitingPayment, Payment: chained("reported", 2_499_998, 0)}, 0, "already sent and reported"},
		{"no chain", axp.Task{ID: "tsk_1", Status: axp.TaskAwaitingPayment, Payment: &axp.PaymentInfo{Status: "unpaid", PayableUSD: 1}}, 0, "names no chain"},
	} {
		got, err := due(&c.t)
		if got != c.want || (err == nil) != (c.err == "") || (err != nil && !strings.Contains(err.Error(), c.err)) {
			t.Errorf("%s: %v %v, want %v %q", c.name, got, err, c.want, c.err)
		}
	}
}

// checkInstructions refuses a task's payment that disagrees with /api/pricing or with itself.
func TestCheckInstructions(t *testing.T) {
	ch := &axp.ChainInfo{ChainID: 31337, TokenAddress: "0x5FbDB2315678afecb367f032d93F642f64180aa3", TokenDecimals: 6,
		DepositAddress: "0x70997970C51812dc3A010C7d01b50e0d17dc79C8"}
	good := func() *axp.PaymentInfo {
		return &axp.PaymentInfo{ChainID: 31337, TokenAddress: strings.ToLower(ch.TokenAddress), TokenDecimals: 6,
			DepositAddress: ch.DepositAddress, PayableUSD: 2_499_998, PayableUnits: "2499998"}
	}
	if err := checkInstructions("tsk_1", good(), ch); err != nil {
		t.Fatalf("good instructions: %v", err)
	}
	for want, change := range map[string]func(*axp.PaymentInfo){
		"names chain 8453":            func(p *axp.PaymentInfo) { p.ChainID = 8453 },
		"names the token 0xdead":      func(p *axp.PaymentInfo) { p.TokenAddress = "0xdead" },
		"goes to 0x1111":              func(p *axp.PaymentInfo) { p.DepositAddress = "0x1111111111111111111111111111111111111111" },
		"in 18 decimals":              func(p *axp.PaymentInfo) { p.TokenDecimals = 18 },
		"payable units (2500000) are": func(p *axp.PaymentInfo) { p.PayableUnits = "2500000" },
	} {
		p := good()
		change(p)
		if err := checkInstructions("tsk_1", p, ch); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v", want, err)
		}
	}
}
