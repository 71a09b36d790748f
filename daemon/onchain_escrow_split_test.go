package daemon_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/axp-exchange/axp"
	"github.com/axp-exchange/axp/client"
	"github.com/axp-exchange/axp/contract"
	"github.com/axp-exchange/axp/daemon"
	"github.com/axp-exchange/axp/daemon/chain/chaintest"
	"github.com/axp-exchange/axp/daemon/chain/escrow"
	"github.com/ethereum/go-ethereum/common"
)

// escrowSettled is a task paid into the escrow by a fresh wallet of 10.00, delivered, disputed and
// settled at pct percent back to the buyer: its split item waits for the operator.
func (m *escrowMarket) escrowSettled(seller *member, pct int) (buyer *client.Client, task axp.Task, kb string, split axp.Approval) {
	t := m.tb
	t.Helper()
	buyer, task, key := m.paidIntoEscrow(seller, axp.TaskPaid)
	deliverText(t, seller.c, task.ID, "Waves fold the light.")
	retrieve(t, buyer, task.ID)
	callOp(t, buyer, contract.DisputeTask, axp.DisputeInput{TaskRef: axp.TaskRef{ID: task.ID}, Reason: "it is too short"})
	s := callOp(t, seller.c, contract.ProposeSettlement, axp.SettlementBody{TaskRef: axp.TaskRef{ID: task.ID}, RefundPct: pct})
	callOp(t, buyer, contract.AnswerSettlement, axp.SettlementAnswer{TaskRef: axp.TaskRef{ID: task.ID}, SettlementID: s.ID, Accept: true})
	split = m.approvalOf(task.ID, axp.ApproveSplit)
	if split.Status != axp.ApprovalPending {
		t.Fatalf("split item %+v", split)
	}
	return buyer, task, chaintest.Addr(key), split
}

// splitFigures is what a split of task at pct moves on the escrow: the capture of the seller's share
// (fee included), the fee the contract takes of it (rounded down), and the void of the rest.
func splitFigures(task axp.Task, pct int) (capture, fee, void axp.Money) {
	price := task.Payment.AmountUSD
	void = (price*axp.Money(pct) + 50) / 100
	capture = price - void
	return capture, capture * axp.Money(task.Fee.FeeBPS) / 10_000, void
}

// splitDone waits for split item id of task to be confirmed and checks it: its parts are the calls
// of the escrow that move money (a capture of the seller's share, then a void of the rest), each
// sent once and confirmed; the task is released; the seller's address holds the net, the buyer's
// wallet the void, the deposit address the fee on top of dep; the escrow nothing; the hot wallet
// only paid gas; the ledger books one entry per call, with its transaction. paid is what the
// seller's address held before.
func (m *escrowMarket) splitDone(buyer *client.Client, task axp.Task, pct int, payout, kb string, paid, dep, hot axp.Money) {
	t := m.tb
	t.Helper()
	capture, fee, void := splitFigures(task, pct)
	// Confirmed, and the chain shows it: a pass that read a receipt just before a test's reorg
	// marks its transfer confirmed until the next pass finds its block gone and sends it again.
	eventually(t, func() error {
		m.c.Mine(1)
		if a := m.approvalOf(task.ID, axp.ApproveSplit); a.Status != axp.ApprovalConfirmed {
			return fmt.Errorf("split is %s (%s) %+v", a.Status, a.Failure, a.Transfers)
		}
		if got, want := m.c.Balance(m.c.Token, kb), 10_000_000-task.Payment.AmountUSD+void; got != want {
			return fmt.Errorf("the buyer holds %s, want %s", got, want)
		}
		return nil
	})
	waitStatus(t, buyer, task.ID, axp.TaskReleased)
	a := m.approvalOf(task.ID, axp.ApproveSplit)
	var want []axp.OutTransfer
	if capture > 0 {
		want = append(want, axp.OutTransfer{Part: "capture", Amount: capture})
	}
	if void > 0 {
		want = append(want, axp.OutTransfer{Part: "void", Amount: void})
	}
	if len(a.Transfers) != len(want) {
		t.Fatalf("the split sent %+v, want %+v", a.Transfers, want)
	}
	hashes := map[string]string{}
	for i, x := range a.Transfers {
		if x.Part != want[i].Part || x.Amount != want[i].Amount || x.Status != axp.TransferConfirmed || !strings.EqualFold(x.To, m.k.Escrow.Hex()) {
			t.Fatalf("part %d: %+v, want %s of %s", i, x, want[i].Part, want[i].Amount)
		}
		hashes[x.Part] = x.TxHash
	}
	if got := m.c.Balance(m.c.Token, payout) - paid; got != capture-fee {
		t.Fatalf("the seller got %s, want %s", got, capture-fee)
	}
	if got := m.c.Balance(m.c.Token, kb); got != 10_000_000-task.Payment.AmountUSD+void {
		t.Fatalf("the buyer holds %s, want %s", got, 10_000_000-task.Payment.AmountUSD+void)
	}
	if got := m.c.Balance(m.c.Token, m.deposit) - dep; got != fee {
		t.Fatalf("the fee receiver got %s, want %s", got, fee)
	}
	if got := m.c.Balance(m.c.Token, chaintest.Addr(m.hot)); got != hot || m.held() != 0 {
		t.Fatalf("the hot wallet holds %s (had %s), the escrow %s", got, hot, m.held())
	}
	b := map[string]axp.Money{}
	kinds := map[string]string{}
	for _, e := range m.entriesOf(task.ID) {
		for _, p := range e.Postings {
			b[p.Account] += p.Amount
		}
		if e.Kind != "payment" {
			kinds[e.Kind] = e.TxHash
		}
	}
	if b[axp.ContractAccount(task.ID)] != 0 || b[axp.AcctSellerPaid] != capture-fee || b[axp.AcctFees] != fee || b[axp.AcctBuyerRefund] != void {
		t.Fatalf("the task's ledger %v", b)
	}
	wantKinds := map[string]string{}
	if capture > 0 {
		wantKinds[axp.ApproveSplit] = hashes["capture"]
	}
	if void > 0 {
		wantKinds["split_refund"] = hashes["void"]
	}
	if fmt.Sprint(kinds) != fmt.Sprint(wantKinds) {
		t.Fatalf("entries %v, want %v", kinds, wantKinds)
	}
	m.balances()
	if r := m.reconciled(); !r.Covered || r.DepositDifferenceUSD != 0 || len(r.UnknownTransfers) != 0 || len(r.MissingTransfers) != 0 {
		t.Fatalf("reconcile after the split: %+v", r)
	}
}

// A split of a task whose money the escrow holds (a settlement at 25%) is a capture of the seller's
// share, fee included, then a void of the rest back to the payer: the item shows what the contract
// pays, approving it sends the capture, the void follows once the capture is confirmed, and the
// item is confirmed and booked only with both. A split of 0% (the seller gets everything) is the
// capture alone. Sending a split by hand stays refused.
func TestChainEscrowSplit(t *testing.T) {
	m := newEscrowMarket(t)
	payout := chaintest.Addr(m.c.NewKey())
	seller := m.instantSeller("text-file", "4.50", 30, nil, map[string]any{"payout_address": payout})
	hot := m.c.Balance(m.c.Token, chaintest.Addr(m.hot))

	buyer, task, kb, split := m.escrowSettled(seller, 25)
	capture, fee, void := splitFigures(task, 25)
	if split.RefundUSD != void || split.SellerNetUSD != capture-fee || split.FeeUSD != fee {
		t.Fatalf("the split shows refund %s net %s fee %s; the escrow moves %s, %s and %s", split.RefundUSD, split.SellerNetUSD, split.FeeUSD, void, capture-fee, fee)
	}
	_, err := do(m.admin, "admin_approve", map[string]any{"id": split.ID, "tx_hash": "0x" + strings.Repeat("ab", 32)})
	if e := apiErr(t, err, axp.CodeConflict, ""); !strings.Contains(e.Message, "held by the escrow contract") {
		t.Fatalf("approving the split by hand: %v", e)
	}
	dep := m.c.Balance(m.c.Token, m.deposit)
	sent := m.approve(split.ID, false)
	if sent.Status != axp.ApprovalSent || len(sent.Transfers) != 1 || sent.Transfers[0].Part != "capture" || sent.Transfers[0].Amount != capture {
		t.Fatalf("approved: %+v", sent)
	}
	m.splitDone(buyer, task, 25, payout, kb, 0, dep, hot)

	// 0%: the seller's share is everything, one capture.
	before := m.c.Balance(m.c.Token, payout)
	buyer, task, kb, split = m.escrowSettled(seller, 0)
	dep = m.c.Balance(m.c.Token, m.deposit)
	m.approve(split.ID, false)
	capture, fee, _ = splitFigures(task, 0)
	eventually(t, func() error {
		m.c.Mine(1)
		if a := m.approvalOf(task.ID, axp.ApproveSplit); a.Status != axp.ApprovalConfirmed {
			return fmt.Errorf("split is %s (%s)", a.Status, a.Failure)
		}
		return nil
	})
	if a := m.approvalOf(task.ID, axp.ApproveSplit); len(a.Transfers) != 1 || a.Transfers[0].Part != "capture" || a.Transfers[0].Amount != capture {
		t.Fatalf("a split of 0%% sent %+v", a.Transfers)
	}
	if got := m.c.Balance(m.c.Token, payout) - before; got != capture-fee || m.c.Balance(m.c.Token, m.deposit)-dep != fee || m.held() != 0 {
		t.Fatalf("a split of 0%%: the seller got %s, the fee receiver %s, the escrow holds %s", got, m.c.Balance(m.c.Token, m.deposit)-dep, m.held())
	}
	if r := m.reconciled(); !r.Covered || len(r.MissingTransfers) != 0 {
		t.Fatalf("reconcile: %+v", r)
	}
}

// A seller's share whose fee the contract rounds to nothing (1 bp of 0.005 is half a micro-dollar,
// which FeeFor would round up): the capture pays the seller all of it, the item shows and the ledger
// books no fee, and the void returns the rest.
func TestChainEscrowSplitFeeRoundsToZero(t *testing.T) {
	m := newEscrowMarket(t, func(cfg *daemon.Config) { cfg.Fees = axp.FeeSchedule{DefaultBPS: 1} })
	payout := chaintest.Addr(m.c.NewKey())
	seller := m.instantSeller("text-file", "0.50", 30, nil, map[string]any{"payout_address": payout})
	hot := m.c.Balance(m.c.Token, chaintest.Addr(m.hot))
	buyer, task, kb, split := m.escrowSettled(seller, 99)
	capture, fee, void := splitFigures(task, 99)
	if task.Fee.FeeBPS != 1 || capture != 5_000 || fee != 0 || axp.FeeFor(capture, 1).PlatformFee != 1 {
		t.Fatalf("the case tests nothing: bps %d, capture %s, fee %s", task.Fee.FeeBPS, capture, fee)
	}
	if split.FeeUSD != 0 || split.SellerNetUSD != capture || split.RefundUSD != void {
		t.Fatalf("the split shows %+v", split)
	}
	dep := m.c.Balance(m.c.Token, m.deposit)
	m.approve(split.ID, false)
	m.splitDone(buyer, task, 99, payout, kb, 0, dep, hot)
}

// A split interrupted between its two calls loses nothing and sends nothing twice: a crash between
// recording the signed capture and broadcasting it, a stop after the capture was broadcast, and a
// crash between recording the signed void and broadcasting it each end, after a restart, with one
// capture and one void, the seller paid once and the buyer refunded once.
func TestChainEscrowSplitCrash(t *testing.T) {
	m := newEscrowMarket(t)
	payout := chaintest.Addr(m.c.NewKey())
	seller := m.instantSeller("text-file", "4.50", 30, nil, map[string]any{"payout_address": payout})
	hot := m.c.Balance(m.c.Token, chaintest.Addr(m.hot))
	var paid axp.Money // what the seller's address held before each split
	// A restart answers on another port: the next task goes to a seller of the restarted exchange,
	// paid to the same address.
	restart := func(buyer *client.Client) *client.Client {
		m.restart()
		seller = m.instantSeller("text-file", "4.50", 30, nil, map[string]any{"payout_address": payout})
		return m.anon.With(buyer.Token)
	}

	// Recorded, not broadcast.
	buyer, task, kb, split := m.escrowSettled(seller, 40)
	dep := m.c.Balance(m.c.Token, m.deposit)
	m.d.SetAfterScan(func(what string) {
		if what == "send" {
			panic("the exchange stops here")
		}
	})
	if resp, _ := do(m.admin, "admin_approve", map[string]any{"id": split.ID}); resp == nil || resp.Status != http.StatusInternalServerError {
		t.Fatalf("crashed call: %+v", resp)
	}
	buyer = restart(buyer)
	m.splitDone(buyer, task, 40, payout, kb, paid, dep, hot)
	paid = m.c.Balance(m.c.Token, payout)

	// The capture broadcast, the exchange stopped before it was confirmed: the restarted exchange
	// confirms it and sends only the void.
	buyer, task, kb, split = m.escrowSettled(seller, 40)
	dep = m.c.Balance(m.c.Token, m.deposit)
	sent := m.approve(split.ID, false)
	m.close()
	m.c.Mine(3)
	buyer = restart(buyer)
	m.splitDone(buyer, task, 40, payout, kb, paid, dep, hot)
	if a := m.approvalOf(task.ID, axp.ApproveSplit); a.Transfers[0].TxHash != sent.Transfers[0].TxHash {
		t.Fatalf("the capture was signed again: %s, first %s", a.Transfers[0].TxHash, sent.Transfers[0].TxHash)
	}
	paid = m.c.Balance(m.c.Token, payout)

	// The void recorded, not broadcast: the watcher's pass stops there.
	buyer, task, kb, split = m.escrowSettled(seller, 40)
	dep = m.c.Balance(m.c.Token, m.deposit)
	// The next pass would send the stored void again; it waits until the state after the stop is
	// read, as a daemon that really stopped would.
	stopped, looked := make(chan struct{}), make(chan struct{})
	m.d.SetAfterScan(func(what string) {
		switch what {
		case "send-rest":
			close(stopped)
			runtime.Goexit() // the pass ends here, as if the process stopped
		case "resend":
			select {
			case <-looked:
			case <-time.After(10 * time.Second):
			}
		}
	})
	m.approve(split.ID, false)
	m.c.Mine(2)
	<-stopped
	stored := m.approvalOf(task.ID, axp.ApproveSplit)
	known := len(stored.Transfers) == 2 && m.c.Known(stored.Transfers[1].TxHash)
	close(looked)
	if len(stored.Transfers) != 2 || stored.Transfers[1].Part != "void" || stored.Transfers[1].Status != axp.TransferSent || known {
		t.Fatalf("after the stop: %+v", stored.Transfers)
	}
	buyer = restart(buyer)
	m.splitDone(buyer, task, 40, payout, kb, paid, dep, hot)
	if a := m.approvalOf(task.ID, axp.ApproveSplit); a.Transfers[1].TxHash != stored.Transfers[1].TxHash {
		t.Fatalf("the void was signed again: %s, stored %s", a.Transfers[1].TxHash, stored.Transfers[1].TxHash)
	}
}

// A seller who refuses a job paid into the escrow cannot be replaced by another offer while the
// escrow holds the money: the payment's receiver is the refusing seller's address, so a capture
// would pay it, not the new seller. Choosing again is refused naming the escrow's payment and
// moves nothing; cancelling queues the void for the operator, and approving it returns the money
// to the payer. The buyer then posts again and authorizes a new payment for the offer it chooses.
func TestChainEscrowDeclinedSeller(t *testing.T) {
	m := newEscrowMarket(t)
	refuser := m.newPushSeller("text-file", map[string]func(map[string]any) any{
		"do_task": func(map[string]any) any { return map[string]any{"accepted": false, "reason": "no"} },
	}, nil, map[string]any{"payout_address": chaintest.Addr(m.c.NewKey()),
		"skills": []map[string]any{{"task_type": "text-file", "instant_price_usd": json.Number("4.50"), "instant_eta_minutes": 30}}})
	otherPayout := chaintest.Addr(m.c.NewKey())
	other := m.instantSeller("text-file", "4.50", 30, nil, map[string]any{"payout_address": otherPayout})
	buyer, task := m.awaiting(refuser.member)
	kb := m.buyerWallet(10_000_000)
	call(t, buyer, "pay_escrow", m.signEscrow(kb, task), nil)
	m.c.Mine(2)
	open := waitStatus(t, buyer, task.ID, axp.TaskOpen) // paid, then refused by the seller
	price := task.Payment.AmountUSD

	_, err := do(buyer, "choose_offer", map[string]any{"id": task.ID, "offer_id": offerOf(t, open.Offers, other.MemberID).OfferID})
	if e := apiErr(t, err, axp.CodeConflict, ""); !strings.Contains(e.Message, "escrow") || !strings.Contains(e.Hint, "cancel") {
		t.Fatalf("choosing another seller: %v", e)
	}
	if got := getTask(t, buyer, task.ID); got.Status != axp.TaskOpen || m.held() != price {
		t.Fatalf("after the refused choice: %s, the escrow holds %s", got.Status, m.held())
	}

	call(t, buyer, "cancel_task", map[string]any{"id": task.ID}, nil)
	refund := m.approvalOf(task.ID, axp.ApproveRefund)
	if sent := m.approve(refund.ID, false); len(sent.Transfers) != 1 || sent.Transfers[0].Part != "void" {
		t.Fatalf("the refund sends %+v", sent.Transfers)
	}
	eventually(t, func() error {
		m.c.Mine(1)
		if a := m.approvalOf(task.ID, axp.ApproveRefund); a.Status != axp.ApprovalConfirmed {
			return fmt.Errorf("refund is %s (%s)", a.Status, a.Failure)
		}
		return nil
	})
	if got := m.c.Balance(m.c.Token, chaintest.Addr(kb)); got != 10_000_000 || m.held() != 0 {
		t.Fatalf("after the void: the buyer holds %s, the escrow %s", got, m.held())
	}

	// Posted again, the other seller's offer asks for a new authorization, and is paid by it.
	buyer, again := m.awaiting(other)
	if again.Payment.Escrow == nil || again.Payment.Escrow.PaymentInfo.Salt == task.Payment.Escrow.PaymentInfo.Salt ||
		!strings.EqualFold(again.Payment.Escrow.PaymentInfo.Receiver, otherPayout) {
		t.Fatalf("the new choice's terms: %+v", again.Payment.Escrow)
	}
	call(t, buyer, "pay_escrow", m.signEscrow(kb, again), nil)
	m.c.Mine(2)
	waitStatus(t, buyer, again.ID, axp.TaskPaid)
	if m.held() != price {
		t.Fatalf("the escrow holds %s", m.held())
	}
	m.balances()
}

// A split's capture confirmed, then taken back by a reorg deeper than the confirmations while its
// void is on its way, is sent again from the same signed bytes, and the void after it: the seller
// is paid once, the buyer refunded once, the split booked once.
func TestChainEscrowSplitReorg(t *testing.T) {
	m := newEscrowMarket(t)
	payout := chaintest.Addr(m.c.NewKey())
	seller := m.instantSeller("text-file", "4.50", 30, nil, map[string]any{"payout_address": payout})
	hot := m.c.Balance(m.c.Token, chaintest.Addr(m.hot))
	buyer, task, kb, split := m.escrowSettled(seller, 25)
	dep := m.c.Balance(m.c.Token, m.deposit)
	snap := m.c.Snapshot()
	sent := m.approve(split.ID, false)
	m.c.Mine(2)
	var void axp.OutTransfer
	eventually(t, func() error {
		a := m.approvalOf(task.ID, axp.ApproveSplit)
		if len(a.Transfers) != 2 || a.Transfers[0].Status != axp.TransferConfirmed {
			return fmt.Errorf("split %s: %+v", a.Status, a.Transfers)
		}
		void = a.Transfers[1]
		return nil
	})
	m.c.Revert(snap)
	m.c.DropTransaction(sent.Transfers[0].TxHash)
	m.c.DropTransaction(void.TxHash)
	m.c.Mine(4)
	eventually(t, func() error {
		if a := m.approvalOf(task.ID, axp.ApproveSplit); a.Reorged != 1 {
			return fmt.Errorf("split %s, reorged %d: %+v", a.Status, a.Reorged, a.Transfers)
		}
		return nil
	})
	m.splitDone(buyer, task, 25, payout, kb, 0, dep, hot)
	a := m.approvalOf(task.ID, axp.ApproveSplit)
	if a.Transfers[0].TxHash != sent.Transfers[0].TxHash || a.Transfers[1].TxHash != void.TxHash {
		t.Fatalf("sent again as %v, not the same transactions %s and %s", hashes(a.Transfers), sent.Transfers[0].TxHash, void.TxHash)
	}
}

// A split whose payment was voided behind the exchange's back (the operator's key used outside it)
// after its capture was mined: the escrow would revert the void, so the item goes back to the queue
// failed, with the reason, instead of being tried on every pass; nothing is booked.
func TestChainEscrowSplitVoidRefused(t *testing.T) {
	m := newEscrowMarket(t)
	seller := m.instantSeller("text-file", "4.50", 30, nil, map[string]any{"payout_address": chaintest.Addr(m.c.NewKey())})
	_, task, kb, split := m.escrowSettled(seller, 25)
	before := len(m.entriesOf(task.ID))
	m.approve(split.ID, false)
	m.voidOutside(task, kb)
	eventually(t, func() error {
		m.c.Mine(1)
		if a := m.approvalOf(task.ID, axp.ApproveSplit); a.Status != axp.ApprovalFailed || !strings.Contains(a.Failure, "void") {
			return fmt.Errorf("split %s (%s) %+v", a.Status, a.Failure, a.Transfers)
		}
		return nil
	})
	if n := len(m.entriesOf(task.ID)); n != before {
		t.Fatalf("the refused split booked %d entries", n-before)
	}
}

// voidOutside voids task's escrow payment (paid by payer) with the hot wallet's key outside the
// exchange, and mines it.
func (m *escrowMarket) voidOutside(task axp.Task, payer string) {
	t := m.tb
	t.Helper()
	info, err := escrow.ParseTerms(task.Payment.Escrow.PaymentInfo)
	if err != nil {
		t.Fatal(err)
	}
	info.Payer = common.HexToAddress(payer)
	data, err := escrow.Void(info)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := sendEscrowCall(t, m.ec, m.k.Escrow, m.hot, data); err != nil {
		t.Fatal(err)
	}
	m.c.Mine(1)
}
