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

// A sending attempt takes the place of the failed transfer of each part it sends: one transfer
// per part, the attempt in force; a confirmed part is kept.
func TestApprovalAttemptReplacesTheFailedPart(t *testing.T) {
	seller := OutTransfer{Part: "seller", To: "0x5e", Amount: 4_455_000, TxHash: "0xaa", Nonce: 7, Status: TransferSent}
	buyer := OutTransfer{Part: "buyer", To: "0xb0", Amount: 9_000, TxHash: "0xbb", Nonce: 8, Status: TransferConfirmed}
	failed := seller
	failed.Status, failed.Reason = TransferFailed, "the node refused the transaction"

	var a Approval
	a.Attempt([]OutTransfer{seller})
	if len(a.Transfers) != 1 || a.Transfers[0] != seller {
		t.Fatalf("first attempt: %+v", a.Transfers)
	}
	// The same transaction signed again (same nonce and hash), beside a confirmed part.
	a.Transfers = []OutTransfer{failed, buyer}
	a.Attempt([]OutTransfer{seller})
	if len(a.Transfers) != 2 || a.Transfers[0] != buyer || a.Transfers[1] != seller {
		t.Fatalf("retry of the seller's part: %+v", a.Transfers)
	}
	// Duplicates an earlier version appended go too.
	a.Transfers = []OutTransfer{failed, failed}
	a.Attempt([]OutTransfer{seller})
	if len(a.Transfers) != 1 || a.Transfers[0] != seller {
		t.Fatalf("retry over duplicates: %+v", a.Transfers)
	}
	// A failed part that is not sent again stays as it was.
	a.Transfers = []OutTransfer{failed}
	a.Attempt([]OutTransfer{buyer})
	if len(a.Transfers) != 2 || a.Transfers[0] != failed {
		t.Fatalf("another part: %+v", a.Transfers)
	}
}
