package daemon_test

import (
	"testing"

	"github.com/axp-exchange/axp"
	"github.com/axp-exchange/axp/contract"
)

// TestSellerEarnings: a seller's earnings follow its job's payout item: nothing before the job is
// finished, held without a payout address, pending once it has one, paid when the operator sends
// it; another seller's earnings and a buyer's token see none of it.
func TestSellerEarnings(t *testing.T) { eachStore(t, testSellerEarnings) }

func testSellerEarnings(t *testing.T) {
	t.Parallel()
	e := newMarket(t)
	seller := e.instantSeller("text-file", "3.00", 10, nil, nil)
	other := e.pullSeller("text-file", map[string]any{"payout_address": payoutAddress})
	earnings := func(m *member) axp.Earnings {
		t.Helper()
		var out axp.Earnings
		out = *callOp(t, m.c, contract.GetMyEarnings, contract.NoInput{})
		return out
	}
	if got := earnings(seller); len(got.Jobs) != 0 || got.PaidUSD+got.PendingUSD+got.HeldUSD != 0 || got.PayoutAddress != "" {
		t.Fatalf("earnings before any job %+v", got)
	}

	created, _ := createTask(t, e.anon, map[string]any{"type": "text-file", "params": map[string]any{"prompt": "a haiku about money"}})
	buyer := e.anon.With(created.BuyerToken)
	offer := offerOf(t, created.Offers, seller.MemberID)
	e.fund(buyer, created.ID, offer.OfferID)
	price := usd(t, "3.00")
	net := price - feeOf(price)

	job := func(want string) axp.EarnedJob {
		t.Helper()
		got := earnings(seller)
		if len(got.Jobs) != 1 || got.Jobs[0].TaskID != created.ID || got.Jobs[0].Payout != want || got.Jobs[0].PriceUSD != price || got.Jobs[0].NetUSD != net {
			t.Fatalf("want one job with payout %s (net %d): %+v", want, net, got)
		}
		return got.Jobs[0]
	}
	job("none")

	content := "coins in the fountain\n"
	deliverText(t, seller.c, created.ID, content)
	retrieve(t, buyer, created.ID)
	callOp(t, buyer, contract.AcceptTask, axp.AcceptInput{TaskRef: axp.TaskRef{ID: created.ID}, SHA256: sha256Hex(content)})
	callOp(t, seller.c, contract.RequestPayment, axp.IDPath{ID: created.ID})
	if j := job("held"); j.HeldFor != "payout_address" {
		t.Fatalf("held for %q", j.HeldFor)
	}
	if got := earnings(seller); got.HeldUSD != net || got.PendingUSD != 0 || got.PaidUSD != 0 {
		t.Fatalf("held totals %+v", got)
	}

	callOp(t, seller.c, contract.UpdateProfile, axp.ProfileUpdate{PayoutAddress: given(payoutAddress)})
	job("pending")
	if got := earnings(seller); got.PendingUSD != net || got.HeldUSD != 0 || got.PayoutAddress != payoutAddress {
		t.Fatalf("pending totals %+v", got)
	}

	sent := e.approve(e.approvalOf(created.ID, axp.ApprovePayout).ID, true)
	if j := job("paid"); j.TxHash != sent.TxHash || j.PaidAt == nil || j.Status != axp.TaskReleased {
		t.Fatalf("paid job %+v (sent %s)", j, sent.TxHash)
	}
	if got := earnings(seller); got.PaidUSD != net || got.PendingUSD != 0 || got.HeldUSD != 0 {
		t.Fatalf("paid totals %+v", got)
	}

	// Only the seller sees its own: another seller has none, a buyer token may not ask.
	if got := earnings(other); len(got.Jobs) != 0 || got.PaidUSD != 0 {
		t.Fatalf("another seller's earnings %+v", got)
	}
	_, err := doOp(buyer, contract.GetMyEarnings, contract.NoInput{})
	apiErr(t, err, axp.CodeUnauthorized, "-")
}
