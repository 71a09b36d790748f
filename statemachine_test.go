package axp_test

import (
	"strings"
	"testing"
	"time"

	"github.com/axp-exchange/axp"
)

// want is the whole state machine: for each state, the triggers it allows and where they lead. Any
// pair not listed must be refused with a conflict that names the states that allow the trigger.
var want = map[string]map[axp.Trigger]string{
	axp.TaskOpen: {axp.TrigQuote: axp.TaskOpen, axp.TrigClarify: axp.TaskOpen, axp.TrigChoose: axp.TaskAwaitingPayment,
		axp.TrigCancel: axp.TaskCancelled, axp.TrigExpire: axp.TaskExpired, axp.TrigReclaim: axp.TaskRefunded},
	axp.TaskAwaitingPayment: {axp.TrigPay: axp.TaskPaid, axp.TrigCancel: axp.TaskCancelled, axp.TrigExpire: axp.TaskExpired,
		axp.TrigReclaim: axp.TaskRefunded},
	axp.TaskPaid: {axp.TrigStart: axp.TaskInProgress, axp.TrigSellerDecline: axp.TaskOpen, axp.TrigDeliver: axp.TaskDelivered,
		axp.TrigReclaim: axp.TaskRefunded},
	axp.TaskInProgress: {axp.TrigDeliver: axp.TaskDelivered, axp.TrigReclaim: axp.TaskRefunded},
	axp.TaskDelivered: {axp.TrigAccept: axp.TaskAccepted, axp.TrigDispute: axp.TaskDisputed, axp.TrigRedo: axp.TaskInProgress,
		axp.TrigOperatorAccept: axp.TaskAccepted, axp.TrigReclaim: axp.TaskRefunded},
	axp.TaskAccepted:  {axp.TrigRequestPay: axp.TaskAccepted, axp.TrigRelease: axp.TaskReleased, axp.TrigReclaim: axp.TaskRefunded},
	axp.TaskDisputed:  {axp.TrigRefund: axp.TaskRefunded, axp.TrigSettle: axp.TaskReleased, axp.TrigReclaim: axp.TaskRefunded},
	axp.TaskReleased:  {},
	axp.TaskRefunded:  {},
	axp.TaskCancelled: {axp.TrigRefund: axp.TaskRefunded, axp.TrigReclaim: axp.TaskRefunded},
	axp.TaskExpired:   {axp.TrigRefund: axp.TaskRefunded, axp.TrigReclaim: axp.TaskRefunded},
}

func TestStateMachineEveryStateAndTrigger(t *testing.T) {
	if len(want) != len(axp.TaskStatuses) {
		t.Fatalf("the table covers %d states, the domain has %d", len(want), len(axp.TaskStatuses))
	}
	// Facts that satisfy every guard, so that only the state decides.
	ok := axp.Facts{Retrieved: true, Reason: "wrong output", RedosLeft: 1}
	for _, state := range axp.TaskStatuses {
		for _, trig := range axp.Triggers {
			next, err := axp.Next(state, trig, ok)
			to, allowed := want[state][trig]
			switch {
			case allowed && err != nil:
				t.Errorf("%s --%s--> refused: %v", state, trig, err)
			case allowed && next != to:
				t.Errorf("%s --%s--> %s, want %s", state, trig, next, to)
			case !allowed && err == nil:
				t.Errorf("%s --%s--> %s, want a refusal", state, trig, next)
			case !allowed:
				if err.Code != axp.CodeConflict || !strings.Contains(err.Message, state) || !strings.Contains(err.Hint, "allowed when the task is") {
					t.Errorf("%s --%s--> refusal %+v does not name the state and the allowed ones", state, trig, err)
				}
				if next != state {
					t.Errorf("%s --%s--> refused but moved to %s", state, trig, next)
				}
			}
		}
		if axp.Terminal(state) != (len(want[state]) == 0) {
			t.Errorf("Terminal(%s) = %v", state, axp.Terminal(state))
		}
	}
}

func TestStateMachineGuards(t *testing.T) {
	if next, err := axp.Next(axp.TaskOpen, axp.TrigChoose, axp.Facts{Free: true}); err != nil || next != axp.TaskPaid {
		t.Errorf("free choose: %s %v, want paid (free jobs start at once)", next, err)
	}
	if _, err := axp.Next(axp.TaskDelivered, axp.TrigAccept, axp.Facts{}); err == nil || err.Code != axp.CodeConflict || !strings.Contains(err.Hint, "deliverable") {
		t.Errorf("accept before retrieval: %v, want a conflict pointing at the deliverable", err)
	}
	if _, err := axp.Next(axp.TaskDelivered, axp.TrigDispute, axp.Facts{Reason: "  "}); err == nil || err.Code != axp.CodeInvalidInput || err.Field != "reason" {
		t.Errorf("dispute without reason: %v, want invalid_input on reason", err)
	}
	if _, err := axp.Next(axp.TaskDelivered, axp.TrigRedo, axp.Facts{RedosLeft: 0}); err == nil || err.Code != axp.CodeConflict {
		t.Errorf("redo with none left: %v, want a conflict", err)
	}
	// The operator's release of a quiet buyer's task needs no retrieval.
	if next, err := axp.Next(axp.TaskDelivered, axp.TrigOperatorAccept, axp.Facts{}); err != nil || next != axp.TaskAccepted {
		t.Errorf("operator accept: %s %v", next, err)
	}
}

// A choice moves the task through the machine: a paid task awaits payment, unless the daemon tells
// it that funds already received cover the offer; a refused choice leaves the task as it was.
func TestTaskChooseMoves(t *testing.T) {
	then, now := time.Unix(1_700_000_000, 0), time.Unix(1_700_000_100, 0)
	task := &axp.TaskRecord{Status: axp.TaskOpen, PaymentMethod: axp.PayCrypto, UpdatedAt: then}
	if err := task.Move(axp.TrigChoose, "", now); err != nil || task.Status != axp.TaskAwaitingPayment || !task.UpdatedAt.Equal(now) {
		t.Errorf("choose: %s %s %v, want awaiting_payment at %s", task.Status, task.UpdatedAt, err, now)
	}
	covered := &axp.TaskRecord{Status: axp.TaskOpen, PaymentMethod: axp.PayCrypto, UpdatedAt: then}
	f := covered.Facts()
	f.Free = true
	if err := covered.MoveWith(axp.TrigChoose, f, now); err != nil || covered.Status != axp.TaskPaid {
		t.Errorf("covered choose: %s %v, want paid", covered.Status, err)
	}
	again := &axp.TaskRecord{Status: axp.TaskPaid, UpdatedAt: then}
	if err := again.MoveWith(axp.TrigChoose, f, now); err == nil || err.Code != axp.CodeConflict || again.Status != axp.TaskPaid || !again.UpdatedAt.Equal(then) {
		t.Errorf("choose on a paid task: %s %s %v, want a conflict that changes nothing", again.Status, again.UpdatedAt, err)
	}
}

// split is axp.SplitEntry at 1%, which must balance.
func split(t *testing.T, task string, received, price, refund axp.Money) []axp.Posting {
	t.Helper()
	ps, err := axp.SplitEntry(task, received, price, refund, 100)
	if err != nil {
		t.Fatalf("split of %s received, price %s, refund %s: %v", received, price, refund, err)
	}
	return ps
}

// What leaves a task's escrow is computed from what it received, never from the price: a task paid
// in part refunds what it received (a refund of the price would send more than came in and could
// not balance), a task paid the price less its payable tag books the tag out of the platform fee,
// and a seller's part the task never received cannot be booked at all.
func TestSplitEntryFromWhatWasReceived(t *testing.T) {
	price := axp.USD(2, 0)
	for _, tc := range []struct {
		name                      string
		received, refund          axp.Money
		buyer, fees, seller, kept axp.Money
	}{
		{"part-paid, cancelled", axp.USD(1, 0), price, axp.USD(1, 0), 0, 0, 0},
		{"paid less the tag, released", price - 37, 0, 0, axp.USD(0, 2) - 37, axp.USD(1, 98), 0},
		{"paid less the tag, refunded", price - 37, price, price - 37, 0, 0, 0},
		{"paid less the tag, split half", price - 37, axp.USD(1, 0), axp.USD(1, 0) - 37, axp.USD(0, 1), axp.USD(0, 99), 0},
		{"overpaid by a tag, released", price + 37, 0, 0, axp.USD(0, 2), axp.USD(1, 98), 37},
		{"overpaid by a tag, refunded", price + 37, price, price + 37, 0, 0, 0},
	} {
		ps := split(t, "t", tc.received, price, tc.refund)
		b := axp.Balances([]axp.LedgerEntry{{Postings: axp.PaymentEntry("t", tc.received)}, {Postings: ps}})
		if b[axp.AcctBuyerRefund] != tc.buyer || b[axp.AcctFees] != tc.fees || b[axp.AcctSellerPaid] != tc.seller ||
			b[axp.AcctExcess] != tc.kept || b[axp.EscrowAccount("t")] != 0 {
			t.Errorf("%s: balances %v", tc.name, b)
		}
		if out := b[axp.AcctBuyerRefund] + b[axp.AcctSellerPaid]; out > tc.received {
			t.Errorf("%s: %s sent out of %s received", tc.name, out, tc.received)
		}
	}
	// A payout or a split of a task that received less than the seller's part and its fee cannot be booked.
	for _, refund := range []axp.Money{0, axp.USD(0, 50)} {
		if ps, err := axp.SplitEntry("t", axp.USD(1, 0), price, refund, 100); err == nil {
			t.Errorf("refund %s of a part-paid task booked %v", refund, ps)
		}
	}
	if _, err := axp.SplitEntry("t", price, price, price+1, 100); err == nil {
		t.Error("a refund beyond the price was booked")
	}
}

// The payable tag is a discount under one cent and never more than the platform fee: a buyer never
// pays more than the buyer total, and the seller's net stays whole.
func TestPaymentTag(t *testing.T) {
	for _, tc := range []struct {
		price axp.Money
		bps   int64
		max   axp.Money
	}{{axp.USD(0, 80), 100, 8_000}, {axp.USD(50, 0), 100, 9_999}, {axp.USD(0, 1), 100, 100}, {axp.USD(3, 0), 0, 0}} {
		for seq := range uint64(20_000) {
			tag := axp.PaymentTag(seq, tc.price, tc.bps)
			if tag < 0 || tag > tc.max || (tc.max > 0 && tag == 0) {
				t.Fatalf("price %s at %d bps, seq %d: tag %d, want 1..%d", tc.price, tc.bps, seq, tag, tc.max)
			}
		}
	}
}

func TestSplitEntriesBalance(t *testing.T) {
	price := axp.USD(4, 0)
	received := price + 1234 // the payable tag
	for _, refund := range []axp.Money{0, axp.USD(1, 0), axp.USD(2, 33), price} {
		ps := split(t, "tsk_1", received, price, refund)
		e := axp.LedgerEntry{ID: "l", Kind: "split", Postings: ps}
		if err := e.Check(); err != nil {
			t.Errorf("refund %s: %v", refund, err)
		}
		b := axp.Balances([]axp.LedgerEntry{{Postings: axp.PaymentEntry("tsk_1", received)}, e})
		if b[axp.EscrowAccount("tsk_1")] != 0 {
			t.Errorf("refund %s: escrow left %s", refund, b[axp.EscrowAccount("tsk_1")])
		}
		fee := axp.FeeFor(price-refund, 100)
		if b[axp.AcctFees] != fee.PlatformFee || b[axp.AcctSellerPaid] != fee.SellerNet {
			t.Errorf("refund %s: fees %s seller %s, want %s and %s", refund, b[axp.AcctFees], b[axp.AcctSellerPaid], fee.PlatformFee, fee.SellerNet)
		}
		var total axp.Money
		for _, v := range b {
			total += v
		}
		if total != 0 {
			t.Errorf("refund %s: ledger sums to %s", refund, total)
		}
	}
	// A plain payout of 4.00 at 1%: fee 0.04, seller 3.96, the tag kept as excess.
	b := axp.Balances([]axp.LedgerEntry{{Postings: split(t, "t", received, price, 0)}})
	if b[axp.AcctFees] != axp.USD(0, 4) || b[axp.AcctSellerPaid] != axp.USD(3, 96) || b[axp.AcctExcess] != 1234 {
		t.Errorf("payout balances %v", b)
	}
	// A full refund returns everything received, tag included, and earns no fee.
	b = axp.Balances([]axp.LedgerEntry{{Postings: split(t, "t", received, price, price)}})
	if b[axp.AcctBuyerRefund] != received || b[axp.AcctFees] != 0 {
		t.Errorf("refund balances %v", b)
	}
}

func TestOwedExcessGoesBackToTheBuyer(t *testing.T) {
	// 5.00 received, then a cheaper offer of 3.25 chosen: 1.75 is the buyer's, not the platform's.
	ps := split(t, "t", axp.USD(5, 0), axp.USD(3, 25), 0)
	b := axp.Balances([]axp.LedgerEntry{{Postings: axp.PaymentEntry("t", axp.USD(5, 0))}, {Postings: ps}})
	if b[axp.AcctBuyerRefund] != axp.USD(1, 75) || b[axp.AcctExcess] != 0 {
		t.Errorf("balances %v: want 1.75 back to the buyer and nothing kept", b)
	}
	if b[axp.AcctSellerPaid]+b[axp.AcctFees] != axp.USD(3, 25) || b[axp.EscrowAccount("t")] != 0 {
		t.Errorf("balances %v", b)
	}
	if tag, owed := axp.Excess(axp.USD(1, 0)+9_999, axp.USD(1, 0)); tag != 9_999 || owed != 0 {
		t.Errorf("a tag under one cent: %s %s", tag, owed)
	}
}

func TestReachable(t *testing.T) {
	for _, tt := range []struct {
		from, to string
		want     bool
	}{
		{axp.TaskOpen, axp.TaskDelivered, true}, {axp.TaskDelivered, axp.TaskDelivered, true}, {axp.TaskPaid, axp.TaskOpen, true},
		{axp.TaskDelivered, axp.TaskInProgress, true}, {axp.TaskCancelled, axp.TaskRefunded, true},
		{axp.TaskCancelled, axp.TaskDelivered, false}, {axp.TaskReleased, axp.TaskDelivered, false},
		{axp.TaskInProgress, axp.TaskPaid, false}, {axp.TaskAccepted, axp.TaskDelivered, false}, {axp.TaskExpired, axp.TaskOpen, false},
	} {
		if got := axp.Reachable(tt.from, tt.to); got != tt.want {
			t.Errorf("Reachable(%s, %s) = %v, want %v", tt.from, tt.to, got, tt.want)
		}
	}
}
