package axp

import "testing"

// An item's recipients are read from the very entry it will book: a 1% split of 2.01 with a tag
// of 0.00006 refunds the buyer 0.02016, not 0.0201.
func TestApprovalRecipientsFromBooking(t *testing.T) {
	price, tag := USD(2, 1), Money(60)
	refund := price / 100
	booking, err := SplitEntry("tsk_1", price+tag, price, refund, 100)
	if err != nil {
		t.Fatal(err)
	}
	a := &Approval{Booking: booking}
	if got, want := a.Recipients(), "buyer US$0.02016 · fee US$0.019899 · seller US$1.970001"; got != want {
		t.Fatalf("recipients %q, want %q", got, want)
	}
	var sum Money
	for _, p := range a.Booking {
		sum += p.Amount
	}
	if sum != 0 {
		t.Fatalf("booking does not balance: %d", sum)
	}
	if (&Approval{}).Recipients() != "" {
		t.Fatal("an item without a booking names recipients")
	}
}
