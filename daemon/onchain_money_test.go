package daemon_test

import (
	"bytes"
	"crypto/ecdsa"
	"encoding/hex"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/axp-exchange/axp"
	"github.com/axp-exchange/axp/client"
	"github.com/axp-exchange/axp/contract"
	"github.com/axp-exchange/axp/daemon"
	"github.com/axp-exchange/axp/daemon/chain/chaintest"
	"github.com/axp-exchange/axp/daemon/x402"
	"github.com/axp-exchange/axp/store"
)

// The money of a task paid in part goes back as it came in: a cancelled task that received 1.00 of
// its 4.50 refunds exactly 1.00 on chain, booked in one balanced entry, and the queue shows 1.00.
// (The refund used to be computed from the price: 4.50 left the hot wallet, the booking could not
// balance and the item stayed sent for ever.) A part-paid task that expires queues the same.
func TestChainPartPaidRefundSendsWhatCameIn(t *testing.T) {
	var ahead atomic.Int64 // the clock's lead, to let a payment window pass
	m := newChainMarket(t, func(cfg *daemon.Config) {
		cfg.SweepEvery = 50 * time.Millisecond
		cfg.Now = func() time.Time { return time.Now().Add(time.Duration(ahead.Load())) }
	})
	seller := m.instantSeller("text-file", "4.50", 30, nil, map[string]any{"payout_address": chaintest.Addr(m.c.NewKey())})
	for _, how := range []string{"cancel", "expire"} {
		t.Run(how, func(t *testing.T) {
			buyer, task := m.awaiting(seller)
			bk := m.buyerWallet(10_000_000)
			part := usd(t, "1.00")
			tx := m.c.Transfer(bk, m.c.Token, m.deposit, part)
			m.c.Mine(1)
			callOp(t, buyer, contract.PayCryptoOp, axp.PayCryptoInput{TaskRef: axp.TaskRef{ID: task.ID}, TxHash: tx, PayerSignature: m.payerSig(bk, task.ID)})
			eventually(t, func() error {
				if got := getTask(t, buyer, task.ID); got.Payment.Status != "partial" || got.Payment.ReceivedUSD != part {
					return fmt.Errorf("payment %+v", got.Payment)
				}
				return nil
			})
			if how == "cancel" {
				callOp(t, buyer, contract.CancelTask, axp.CancelInput{TaskRef: axp.TaskRef{ID: task.ID}})
			} else {
				ahead.Store(int64(25 * time.Hour))
				waitStatus(t, buyer, task.ID, axp.TaskExpired)
			}
			refund := m.approvalOf(task.ID, axp.ApproveRefund)
			if refund.Amount != part || refund.RefundUSD != part || refund.SellerNetUSD != 0 || refund.FeeUSD != 0 {
				t.Fatalf("refund item shows %+v, want 1.00 back to the buyer", refund)
			}
			sent := m.approve(refund.ID, false)
			if len(sent.Transfers) != 1 || sent.Transfers[0].Amount != part || sent.Transfers[0].Part != "buyer" {
				t.Fatalf("sent %+v", sent.Transfers)
			}
			m.c.Mine(2)
			eventually(t, func() error {
				if a := m.approvalOf(task.ID, axp.ApproveRefund); a.Status != axp.ApprovalConfirmed {
					return fmt.Errorf("refund is %s (%s)", a.Status, a.Failure)
				}
				return nil
			})
			if bal := m.c.Balance(m.c.Token, chaintest.Addr(bk)); bal != 10_000_000 {
				t.Fatalf("the buyer holds %s after the refund, want the 10.00 it started with", bal)
			}
			b := m.balances()
			if b[axp.EscrowAccount(task.ID)] != 0 {
				t.Fatalf("escrow left %s", b[axp.EscrowAccount(task.ID)])
			}
			var st axp.Stats
			st = *callOp(t, m.admin, contract.AdminStats, contract.NoInput{})
			if st.Money.RefundsSent < part {
				t.Fatalf("stats %+v", st.Money)
			}
		})
	}
}

// A transfer pays the task whose payable amount it carries. Buyer A pays task A exactly; before the
// transfer has its confirmations, buyer B reports A's transaction on task B: B is refused (400
// naming tx_hash), and A is funded by it, with or without A's own report. B's report of a transfer
// not yet mined is accepted, but when the transfer turns out to carry A's amount, A is funded and
// B's report is closed, so B can report its own payment. (B used to be funded with A's money.)
func TestChainReportedHashOfAnotherTaskIsRefused(t *testing.T) {
	m := newChainMarket(t, func(cfg *daemon.Config) { cfg.Confirmations = 3 })
	seller := m.instantSeller("text-file", "4.50", 30, nil, map[string]any{"payout_address": chaintest.Addr(m.c.NewKey())})

	t.Run("mined", func(t *testing.T) {
		buyerA, taskA := m.awaiting(seller)
		buyerB, taskB := m.awaiting(seller)
		ka := m.buyerWallet(10_000_000)
		tx := m.c.Transfer(ka, m.c.Token, m.deposit, taskA.Payment.PayableUSD)
		_, err := doOp(buyerB, contract.PayCryptoOp, axp.PayCryptoInput{TaskRef: axp.TaskRef{ID: taskB.ID}, TxHash: tx})
		if e := apiErr(t, err, axp.CodeInvalidInput, "tx_hash"); !strings.Contains(e.Message, "another task") {
			t.Fatalf("B's report of A's payment: %v", e)
		}
		callOp(t, buyerA, contract.PayCryptoOp, axp.PayCryptoInput{TaskRef: axp.TaskRef{ID: taskA.ID}, TxHash: tx})
		m.c.Mine(3)
		waitStatus(t, buyerA, taskA.ID, axp.TaskPaid)
		if got := getTask(t, buyerB, taskB.ID); got.Status != axp.TaskAwaitingPayment || got.Payment.ReceivedUSD != 0 || got.Payment.TxHash != "" {
			t.Fatalf("task B after A's payment: %s %+v", got.Status, got.Payment)
		}
	})

	t.Run("pending", func(t *testing.T) {
		buyerA, taskA := m.awaiting(seller)
		buyerB, taskB := m.awaiting(seller)
		ka := m.buyerWallet(10_000_000)
		m.c.SetAutomine(false)
		tx := m.c.TransferPending(ka, m.c.Token, m.deposit, taskA.Payment.PayableUSD)
		callOp(t, buyerB, contract.PayCryptoOp, axp.PayCryptoInput{TaskRef: axp.TaskRef{ID: taskB.ID}, TxHash: tx})
		// A's own report is not blocked by B's.
		callOp(t, buyerA, contract.PayCryptoOp, axp.PayCryptoInput{TaskRef: axp.TaskRef{ID: taskA.ID}, TxHash: tx})
		m.c.SetAutomine(true)
		m.c.Mine(3)
		waitStatus(t, buyerA, taskA.ID, axp.TaskPaid)
		eventually(t, func() error {
			got := getTask(t, buyerB, taskB.ID)
			if got.Status != axp.TaskAwaitingPayment || got.Payment.ReceivedUSD != 0 || got.Payment.TxHash != "" {
				return fmt.Errorf("task B: %s %+v", got.Status, got.Payment)
			}
			return nil
		})
		if a := m.approvalOf(taskB.ID, axp.ApprovePayment); a.Status != axp.ApprovalRejected || !strings.Contains(a.Note, "pays another task") {
			t.Fatalf("B's payment item %+v", a)
		}
		// B pays its own and is funded.
		kb := m.buyerWallet(10_000_000)
		own := m.c.Transfer(kb, m.c.Token, m.deposit, taskB.Payment.PayableUSD)
		callOp(t, buyerB, contract.PayCryptoOp, axp.PayCryptoInput{TaskRef: axp.TaskRef{ID: taskB.ID}, TxHash: own})
		m.c.Mine(3)
		waitStatus(t, buyerB, taskB.ID, axp.TaskPaid)
	})
	m.balances()
}

// A buyer never pays more than the offer's buyer total: the payable amount is the price less a tag
// under one cent (at most the platform fee), the task is funded by it, and the seller still gets its
// whole net; the platform gives up the tag out of its fee.
func TestChainPayableNeverAboveTheBuyerTotal(t *testing.T) {
	m := newChainMarket(t)
	sellerAddr := chaintest.Addr(m.c.NewKey())
	seller := m.instantSeller("text-file", "0.80", 30, nil, map[string]any{"payout_address": sellerAddr})
	buyer, task := m.awaiting(seller)
	price, fee := usd(t, "0.80"), feeOf(usd(t, "0.80"))
	p := task.Payment
	if p.PayableUSD > price || p.PayableUSD < price-fee || p.PayableUSD == price {
		t.Fatalf("payable %s for a buyer total of %s (fee %s)", p.PayableUSD, price, fee)
	}
	bk := m.buyerWallet(price)
	m.c.Transfer(bk, m.c.Token, m.deposit, p.PayableUSD)
	m.c.Mine(2)
	waitStatus(t, buyer, task.ID, axp.TaskPaid)
	m.payoutQueued(seller, buyer, task.ID)
	m.approve(m.approvalOf(task.ID, axp.ApprovePayout).ID, false)
	m.c.Mine(2)
	waitStatus(t, buyer, task.ID, axp.TaskReleased)
	if bal := m.c.Balance(m.c.Token, sellerAddr); bal != price-fee {
		t.Fatalf("seller holds %s, want its net %s", bal, price-fee)
	}
	if bal := m.c.Balance(m.c.Token, chaintest.Addr(bk)); bal != price-p.PayableUSD {
		t.Fatalf("buyer holds %s: it paid more than %s", bal, p.PayableUSD)
	}
	if b := m.balances(); b[axp.AcctFees] != fee-(price-p.PayableUSD) {
		t.Fatalf("fees %s, want the fee less the tag", b[axp.AcctFees])
	}
}

// A reorg deeper than the confirmations is noticed. Task A is paid, confirmed and delivered, and its
// payout is queued; then the chain goes back before the payment (evm_revert). The watcher marks the
// payment reorged, holds the payout (approving it is refused, nothing leaves the hot wallet), lists
// the gap with the task in reconcile and puts the payment first in the queue; it reads the blocks
// again, so task B's transfer mined right after the revert, below the old cursor, is found without
// a report. When the node mines A's transaction again, the payment is restored, the payout pending
// again, and the seller is paid once. (The reorg used to go unnoticed and the seller was paid from
// the hot wallet's float.)
func TestChainDeepReorgHoldsTheTasksMoney(t *testing.T) {
	m := newChainMarket(t)
	sellerAddr := chaintest.Addr(m.c.NewKey())
	seller := m.instantSeller("text-file", "4.50", 30, nil, map[string]any{"payout_address": sellerAddr})
	buyerA, taskA := m.awaiting(seller)
	buyerB, taskB := m.awaiting(seller)
	ka, kb := m.buyerWallet(10_000_000), m.buyerWallet(10_000_000)

	snap := m.c.Snapshot()
	txA := m.c.Transfer(ka, m.c.Token, m.deposit, taskA.Payment.PayableUSD)
	m.c.Mine(6)
	waitStatus(t, buyerA, taskA.ID, axp.TaskPaid)
	payout := m.payoutQueued(seller, buyerA, taskA.ID)
	if payout.Status != axp.ApprovalPending {
		t.Fatalf("payout before the reorg: %+v", payout)
	}

	m.c.Revert(snap)
	txB := m.c.Transfer(kb, m.c.Token, m.deposit, taskB.Payment.PayableUSD)
	m.c.Mine(2)
	eventually(t, func() error {
		if got := getTask(t, buyerA, taskA.ID); got.Payment.Status != "reorged" {
			return fmt.Errorf("task A's payment is %s", got.Payment.Status)
		}
		return nil
	})
	if a := m.approvalOf(taskA.ID, axp.ApprovePayment); a.Status != axp.ApprovalReorged {
		t.Fatalf("payment item after the reorg: %+v", a)
	}
	if a := m.approvalOf(taskA.ID, axp.ApprovePayout); a.Status != axp.ApprovalHeld || a.HeldFor != axp.HoldReorg {
		t.Fatalf("payout after the reorg: %+v", a)
	}
	_, err := doOp(m.admin, contract.AdminApprove, axp.ApproveBody{ID: payout.ID})
	if e := apiErr(t, err, axp.CodeConflict, ""); !strings.Contains(e.Message, "left the canonical chain") {
		t.Fatalf("approving the held payout: %v", e)
	}
	var q axp.ApprovalList
	q = *callOp(t, m.admin, contract.AdminApprovals, axp.ApprovalsQuery{})
	if len(q.Approvals) == 0 || q.Approvals[0].TaskID != taskA.ID || q.Approvals[0].Status != axp.ApprovalReorged {
		t.Fatalf("the queue does not start with the reorged payment: %+v", q.Approvals)
	}
	var r axp.Reconciliation
	r = *callOp(t, m.admin, contract.AdminReconcile, contract.NoInput{})
	if r.Covered || len(r.MissingTransfers) != 1 || r.MissingTransfers[0].TaskID != taskA.ID || r.MissingTransfers[0].TxHash != txA ||
		!strings.Contains(r.MissingTransfers[0].Why, "reorged") {
		t.Fatalf("reconcile after the reorg: %+v", r)
	}
	// B's transfer, mined below the watcher's old cursor, is found by itself.
	got := waitStatus(t, buyerB, taskB.ID, axp.TaskPaid)
	if got.Payment.TxHash != "" && got.Payment.TxHash != txB {
		t.Fatalf("task B paid by %s", got.Payment.TxHash)
	}
	if bal := m.c.Balance(m.c.Token, sellerAddr); bal != 0 {
		t.Fatalf("the seller was paid %s while the payment was off the chain", bal)
	}

	// The node mines A's transaction again: the payment is restored and the payout released.
	m.c.Resend(txA)
	m.c.Mine(2)
	eventually(t, func() error {
		if a := m.approvalOf(taskA.ID, axp.ApprovePayout); a.Status != axp.ApprovalPending {
			return fmt.Errorf("payout is %s (%s)", a.Status, a.HeldFor)
		}
		return nil
	})
	if got := getTask(t, buyerA, taskA.ID); got.Payment.Status != "confirmed" {
		t.Fatalf("task A's payment after the restore: %+v", got.Payment)
	}
	m.approve(payout.ID, false)
	m.c.Mine(2)
	waitStatus(t, buyerA, taskA.ID, axp.TaskReleased)
	if bal, net := m.c.Balance(m.c.Token, sellerAddr), usd(t, "4.50")-feeOf(usd(t, "4.50")); bal != net {
		t.Fatalf("seller holds %s, want %s once", bal, net)
	}
	r = *callOp(t, m.admin, contract.AdminReconcile, contract.NoInput{})
	if !r.Covered || len(r.MissingTransfers) != 0 {
		t.Fatalf("reconcile after the restore: %+v", r)
	}
	m.balances()
}

// Whether a transfer was mined before its task is decided by the chain's clock (the head the
// exchange had read when the task was posted), not the server's: with the server's clock 30 s ahead
// of the chain's, a payment sent after the task was posted still funds it, reported or not. (It used
// to be refused as "mined before the task was posted".) A transfer mined before still is refused.
func TestChainServerClockAheadOfTheChain(t *testing.T) {
	m := newChainMarket(t, func(cfg *daemon.Config) {
		cfg.Now = func() time.Time { return time.Now().Add(30 * time.Second) }
	})
	seller := m.instantSeller("text-file", "4.50", 30, nil, map[string]any{"payout_address": chaintest.Addr(m.c.NewKey())})
	bk := m.buyerWallet(20_000_000)
	early := m.c.Transfer(bk, m.c.Token, m.deposit, 1_000_000)
	m.c.Mine(1)
	eventually(t, func() error { // the watcher has read a head past the early transfer
		if head, block := m.d.ChainHead(), m.c.Receipt(early).BlockNumber.Uint64(); head <= block {
			return fmt.Errorf("head %d, early transfer in %d", head, block)
		}
		return nil
	})
	for _, report := range []bool{true, false} {
		buyer, task := m.awaiting(seller)
		if report {
			_, err := doOp(buyer, contract.PayCryptoOp, axp.PayCryptoInput{TaskRef: axp.TaskRef{ID: task.ID}, TxHash: early})
			if e := apiErr(t, err, axp.CodeInvalidInput, "tx_hash"); !strings.Contains(e.Message, "before the task was posted") {
				t.Fatalf("a transfer mined before the task: %v", e)
			}
		}
		tx := m.c.Transfer(bk, m.c.Token, m.deposit, task.Payment.PayableUSD)
		if report {
			callOp(t, buyer, contract.PayCryptoOp, axp.PayCryptoInput{TaskRef: axp.TaskRef{ID: task.ID}, TxHash: tx})
		}
		m.c.Mine(2)
		waitStatus(t, buyer, task.ID, axp.TaskPaid)
	}
}

// flakyRPC forwards JSON-RPC calls to the chain; while drop is set, the answers to the methods it
// names are lost after the node did the work (a 502 from a proxy, a dropped connection).
type flakyRPC struct {
	url     string
	methods []string
	drop    atomic.Bool
}

func (f *flakyRPC) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	resp, err := http.Post(f.url, "application/json", bytes.NewReader(body))
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	defer resp.Body.Close()
	out, _ := io.ReadAll(resp.Body)
	if f.drop.Load() && slices.ContainsFunc(f.methods, func(m string) bool { return bytes.Contains(body, []byte(`"`+m+`"`)) }) {
		http.Error(w, "the answer was lost", http.StatusBadGateway)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(resp.StatusCode)
	w.Write(out)
}

// A payout whose broadcast got no answer may have reached the node: it stays sent, the watcher
// finds it mined and confirms it, and it can never be approved (and signed with a new nonce) again.
// (It used to be marked failed; approving it again signed a second transfer while the first was
// mined: the seller was paid twice.)
func TestChainUnansweredBroadcastPaysOnce(t *testing.T) {
	c := chaintest.Start(t)
	rpc := &flakyRPC{url: c.URL, methods: []string{"eth_sendRawTransaction", "eth_getTransactionByHash"}}
	proxy := httptest.NewServer(rpc)
	t.Cleanup(proxy.Close)
	m := newChainMarketOn(t, c, func(cfg *daemon.Config) { cfg.ChainRPCURL = proxy.URL })
	sellerAddr, _, buyer, task, payout := m.accepted()

	rpc.drop.Store(true)
	var a axp.Approval
	a = *callOp(t, m.admin, contract.AdminApprove, axp.ApproveBody{ID: payout.ID})
	if a.Status != axp.ApprovalSent {
		t.Fatalf("a payout whose broadcast got no answer is %s (%s)", a.Status, a.Failure)
	}
	_, err := doOp(m.admin, contract.AdminApprove, axp.ApproveBody{ID: payout.ID})
	apiErr(t, err, axp.CodeConflict, "")
	rpc.drop.Store(false)
	m.c.Mine(2)
	waitStatus(t, buyer, task.ID, axp.TaskReleased)
	if bal, net := m.c.Balance(m.c.Token, sellerAddr), usd(t, "4.50")-feeOf(usd(t, "4.50")); bal != net {
		t.Fatalf("seller holds %s, want %s once", bal, net)
	}
}

// The rest of a part-paid task, sent from the address that paid the part but without the task's
// current tag (sent before the part was confirmed, it carried the tag of then), pays that task:
// another buyer reporting it is refused, and the watcher credits it to the task whose payer sent
// it. (Carrying no task's amount, it used to go to whichever task reported it.)
func TestChainRestFromThePayerPaysItsTask(t *testing.T) {
	m := newChainMarket(t)
	seller := m.instantSeller("text-file", "4.50", 30, nil, map[string]any{"payout_address": chaintest.Addr(m.c.NewKey())})
	buyerA, taskA := m.awaiting(seller)
	buyerB, taskB := m.awaiting(seller)
	ka := m.buyerWallet(10_000_000)
	part := m.c.Transfer(ka, m.c.Token, m.deposit, usd(t, "2.00"))
	callOp(t, buyerA, contract.PayCryptoOp, axp.PayCryptoInput{TaskRef: axp.TaskRef{ID: taskA.ID}, TxHash: part, PayerSignature: m.payerSig(ka, taskA.ID)})
	m.c.Mine(2)
	eventually(t, func() error {
		if got := getTask(t, buyerA, taskA.ID); got.Payment.Status != "partial" {
			return fmt.Errorf("task A's payment is %s", got.Payment.Status)
		}
		return nil
	})
	rest := m.c.Transfer(ka, m.c.Token, m.deposit, usd(t, "2.50")) // the rest, without A's new tag
	_, err := doOp(buyerB, contract.PayCryptoOp, axp.PayCryptoInput{TaskRef: axp.TaskRef{ID: taskB.ID}, TxHash: rest})
	if e := apiErr(t, err, axp.CodeInvalidInput, "tx_hash"); !strings.Contains(e.Message, "another task") {
		t.Fatalf("B's report of A's rest: %v", e)
	}
	m.c.Mine(2)
	waitStatus(t, buyerA, taskA.ID, axp.TaskPaid)
	if got := getTask(t, buyerB, taskB.ID); got.Status != axp.TaskAwaitingPayment || got.Payment.ReceivedUSD != 0 {
		t.Fatalf("task B: %s %+v", got.Status, got.Payment)
	}
	m.balances()
}

// heldSplit is a task paid from wallet bk, delivered, disputed and settled at 25% while its seller
// has no payout address: its split item is held for the seller's part.
func (m *chainMarket) heldSplit() (seller *member, buyer *client.Client, task axp.Task, bk *ecdsa.PrivateKey, split axp.Approval) {
	t := m.tb
	t.Helper()
	seller = m.instantSeller("text-file", "4.50", 30, nil, nil) // no payout address
	buyer, task = m.awaiting(seller)
	bk = m.buyerWallet(10_000_000)
	m.c.Transfer(bk, m.c.Token, m.deposit, task.Payment.PayableUSD)
	m.c.Mine(2)
	waitStatus(t, buyer, task.ID, axp.TaskPaid)
	deliverText(t, seller.c, task.ID, "Waves fold the light.")
	retrieve(t, buyer, task.ID)
	callOp(t, buyer, contract.DisputeTask, axp.DisputeInput{TaskRef: axp.TaskRef{ID: task.ID}, Reason: "it is too short"})
	var s axp.Settlement
	s = *callOp(t, seller.c, contract.ProposeSettlement, axp.SettlementBody{TaskRef: axp.TaskRef{ID: task.ID}, RefundPct: 25})
	callOp(t, buyer, contract.AnswerSettlement, axp.SettlementAnswer{TaskRef: axp.TaskRef{ID: task.ID}, SettlementID: s.ID, Accept: true})
	split = m.approvalOf(task.ID, axp.ApproveSplit)
	if split.Status != axp.ApprovalHeld {
		t.Fatalf("split without a payout address: %+v", split)
	}
	return seller, buyer, task, bk, split
}

// A split whose buyer's part the operator sent by hand while the seller had no payout address
// (checked on chain: the transfer goes to the address the buyer paid from) sends only the seller's
// part from the hot wallet once the seller adds one, and books only that part: the buyer is
// refunded once; reconcile is covered.
func TestChainSplitAfterBuyerPartSendsTheSellerPartOnly(t *testing.T) {
	m := newChainMarket(t)
	seller, buyer, task, bk, split := m.heldSplit()
	// The buyer's part is sent by hand, from the hot wallet; a transfer of it to another address is
	// refused.
	elsewhere := m.c.Transfer(m.hot, m.c.Token, chaintest.Addr(m.c.NewKey()), split.RefundUSD)
	sentByHand := m.c.Transfer(m.hot, m.c.Token, chaintest.Addr(bk), split.RefundUSD)
	m.c.Mine(2)
	_, err := m.approveTx(split.ID, elsewhere)
	if e := apiErr(t, err, axp.CodeInvalidInput, "tx_hash"); !strings.Contains(e.Message, "nothing to the buyer's address "+chaintest.Addr(bk)) {
		t.Fatalf("the buyer's part sent elsewhere: %v", e)
	}
	part, err := m.approveTx(split.ID, sentByHand)
	if err != nil || part.BuyerPartTxHash != sentByHand {
		t.Fatalf("the buyer's part was not recorded: %+v %v", part, err)
	}
	sellerAddr := chaintest.Addr(m.c.NewKey())
	callOp(t, seller.c, contract.UpdateProfile, axp.ProfileUpdate{PayoutAddress: given(sellerAddr)})
	buyerBefore := m.c.Balance(m.c.Token, chaintest.Addr(bk))
	sent := m.approve(split.ID, false)
	if len(sent.Transfers) != 1 || sent.Transfers[0].Part != "seller" || sent.Transfers[0].Amount != split.SellerNetUSD {
		t.Fatalf("the seller's part sends %+v, want the seller's %s only", sent.Transfers, split.SellerNetUSD)
	}
	m.c.Mine(2)
	waitStatus(t, buyer, task.ID, axp.TaskReleased)
	if bal := m.c.Balance(m.c.Token, chaintest.Addr(bk)); bal != buyerBefore {
		t.Fatalf("the buyer received %s more from the hot wallet after its part was sent by hand", bal-buyerBefore)
	}
	if bal := m.c.Balance(m.c.Token, sellerAddr); bal != split.SellerNetUSD {
		t.Fatalf("seller holds %s, want %s", bal, split.SellerNetUSD)
	}
	if b := m.balances(); b[axp.EscrowAccount(task.ID)] != 0 || b[axp.AcctBuyerRefund] != split.RefundUSD {
		t.Fatalf("balances %v (refund %s)", b, split.RefundUSD)
	}
	r := m.reconciled()
	if !r.Covered || len(r.MissingTransfers) != 0 {
		t.Fatalf("reconcile: %+v", r)
	}
}

// On an exchange with a hot wallet, approving a split whose seller has no payout address sends the
// buyer's part from the wallet (no transaction hash asked): the item stays held for the seller's
// part, a second approval or a rejection while the part is on its way is refused, a part the node
// refused is noted and sent on the next approval, and the part is booked once confirmed. Once the
// seller adds a payout address, approving sends the seller's part only; the buyer is refunded
// once; reconcile is covered.
func TestChainHeldSplitSendsTheBuyerPartFromTheHotWallet(t *testing.T) {
	m := newChainMarket(t)
	seller, buyer, task, bk, split := m.heldSplit()
	buyerBefore := m.c.Balance(m.c.Token, chaintest.Addr(bk))

	// The node refuses the part (no gas): noted, still held, nothing booked.
	m.c.SetETH(chaintest.Addr(m.hot), 0)
	refused := m.approve(split.ID, false)
	if refused.Status != axp.ApprovalHeld || len(refused.Transfers) != 1 || refused.Transfers[0].Status != axp.TransferFailed || refused.Failure == "" {
		t.Fatalf("a buyer's part the node refuses: %+v", refused)
	}
	m.c.SetETH(chaintest.Addr(m.hot), 1)
	part := m.approve(split.ID, false)
	if part.Status != axp.ApprovalHeld || len(part.Transfers) != 1 || part.Transfers[0].Part != "buyer" || part.Transfers[0].Status != axp.TransferSent ||
		!strings.EqualFold(part.Transfers[0].To, chaintest.Addr(bk)) || part.Transfers[0].Amount != split.RefundUSD || part.BuyerPartTxHash != "" {
		t.Fatalf("the buyer's part sent from the hot wallet: %+v", part)
	}
	_, err := doOp(m.admin, contract.AdminApprove, axp.ApproveBody{ID: split.ID})
	apiErr(t, err, axp.CodeConflict, "")
	_, err = doOp(m.admin, contract.AdminReject, axp.RejectBody{ID: split.ID, Reason: "changed my mind"})
	apiErr(t, err, axp.CodeConflict, "")
	if b := m.balances(); b[axp.AcctBuyerRefund] != 0 {
		t.Fatalf("the buyer's part was booked before its confirmations: %v", b)
	}
	// Reconcile lists the part in flight, not as queued too. (It was neither in flight nor
	// explained: the hot wallet held less than the ledger said.)
	if r := m.reconciled(); len(r.InFlight) != 1 || !strings.EqualFold(r.InFlight[0].TxHash, part.Transfers[0].TxHash) || r.InFlightUSD != split.RefundUSD ||
		r.QueuedUSD != split.SellerNetUSD {
		t.Fatalf("reconcile while the buyer's part is on its way: in flight %+v (%s), queued %s; part %s, seller %s", r.InFlight, r.InFlightUSD, r.QueuedUSD, split.RefundUSD, split.SellerNetUSD)
	}

	m.c.Mine(2)
	eventually(t, func() error {
		if a := m.approvalOf(task.ID, axp.ApproveSplit); !strings.EqualFold(a.BuyerPartTxHash, part.Transfers[0].TxHash) || a.Status != axp.ApprovalHeld {
			return fmt.Errorf("split %s, buyer part %q", a.Status, a.BuyerPartTxHash)
		}
		return nil
	})
	if bal := m.c.Balance(m.c.Token, chaintest.Addr(bk)); bal != buyerBefore+split.RefundUSD {
		t.Fatalf("the buyer received %s, want its part %s", bal-buyerBefore, split.RefundUSD)
	}
	if b := m.balances(); b[axp.AcctBuyerRefund] != split.RefundUSD {
		t.Fatalf("balances after the buyer's part: %v (refund %s)", b, split.RefundUSD)
	}
	if got := getTask(t, buyer, task.ID); got.Status != axp.TaskDisputed {
		t.Fatalf("the task is %s while the seller's part waits", got.Status)
	}

	sellerAddr := chaintest.Addr(m.c.NewKey())
	callOp(t, seller.c, contract.UpdateProfile, axp.ProfileUpdate{PayoutAddress: given(sellerAddr)})
	sent := m.approve(split.ID, false)
	var parts []string
	for _, x := range sent.Transfers {
		if x.Status == axp.TransferSent {
			parts = append(parts, x.Part)
		}
	}
	if len(parts) != 1 || parts[0] != "seller" {
		t.Fatalf("the seller's part sends %+v, want the seller's %s only", sent.Transfers, split.SellerNetUSD)
	}
	m.c.Mine(2)
	waitStatus(t, buyer, task.ID, axp.TaskReleased)
	if bal := m.c.Balance(m.c.Token, chaintest.Addr(bk)); bal != buyerBefore+split.RefundUSD {
		t.Fatalf("the buyer holds %s more, want its part %s once", bal-buyerBefore, split.RefundUSD)
	}
	if bal := m.c.Balance(m.c.Token, sellerAddr); bal != split.SellerNetUSD {
		t.Fatalf("seller holds %s, want %s", bal, split.SellerNetUSD)
	}
	if b := m.balances(); b[axp.EscrowAccount(task.ID)] != 0 || b[axp.AcctBuyerRefund] != split.RefundUSD {
		t.Fatalf("balances %v (refund %s)", b, split.RefundUSD)
	}
	eventually(t, func() error {
		if r := m.reconciled(); !r.Covered || len(r.MissingTransfers) != 0 {
			return fmt.Errorf("reconcile: %+v", r)
		}
		return nil
	})
}

// stalePass holds a watcher pass at the hot wallet (the test hooks around the wallet's sends): the
// next approval, once it has recorded its signed transfers, waits until a pass has read them and
// stopped before taking the wallet to send them again; that pass goes on at resume.
type stalePass struct {
	armed                  atomic.Bool
	reached, resumed, done chan struct{}
	hold, finish           sync.Once
	wait                   time.Duration
}

// holdStalePass arms a stalePass on d; each wait is bounded by wait.
func holdStalePass(d *daemon.Daemon, wait time.Duration) *stalePass {
	p := &stalePass{reached: make(chan struct{}), resumed: make(chan struct{}), done: make(chan struct{}), wait: wait}
	d.SetAfterScan(func(what string) {
		if !p.armed.Load() {
			return
		}
		switch what {
		case "send":
			// The approval has recorded its signed transfers: a pass reads them before the broadcast.
			select {
			case <-p.reached:
			case <-time.After(p.wait):
			}
		case "resend":
			p.hold.Do(func() { close(p.reached); <-p.resumed })
		case "resent":
			p.finish.Do(func() { close(p.done) })
		}
	})
	p.armed.Store(true)
	return p
}

// raced reports whether a pass stopped at the wallet with the approval's transfers read.
func (p *stalePass) raced() bool {
	select {
	case <-p.reached:
		return true
	default:
		return false
	}
}

// resume lets the held pass go on and disarms the hooks; it reports whether the pass, if one was
// held, finished within the wait.
func (p *stalePass) resume() bool {
	close(p.resumed)
	defer p.armed.Store(false)
	if !p.raced() {
		return true
	}
	select {
	case <-p.done:
		return true
	case <-time.After(p.wait):
		return false
	}
}

// A watcher pass that read a transfer as on its way, and then waited for the hot wallet while the
// approval that signed it learnt the node had refused it, does not broadcast it once it has the
// wallet: the transfer is failed, and the operator's next approval signs its replacement. (The
// pass used to broadcast the refused bytes once the node would take them, under the nonce the
// replacement then skipped: the buyer received its part of the split twice.)
func TestChainRefusedTransferIsNotSentByAWaitingPass(t *testing.T) {
	m := newChainMarket(t)
	_, _, _, bk, split := m.heldSplit()
	buyerBefore := m.c.Balance(m.c.Token, chaintest.Addr(bk))

	m.c.SetETH(chaintest.Addr(m.hot), 0)
	pass := holdStalePass(m.d, 10*time.Second)
	refused := m.approve(split.ID, false)
	if !pass.raced() {
		t.Fatal("no watcher pass read the transfer before its broadcast")
	}
	if len(refused.Transfers) != 1 || refused.Transfers[0].Status != axp.TransferFailed {
		t.Fatalf("a buyer's part the node refused: %+v", refused)
	}
	m.c.SetETH(chaintest.Addr(m.hot), 1) // the node would take the refused bytes now
	if !pass.resume() {
		t.Fatal("the waiting pass did not finish")
	}
	if m.c.Known(refused.Transfers[0].TxHash) {
		t.Fatal("the refused transfer reached the node")
	}

	part := m.approve(split.ID, false)
	if len(part.Transfers) != 1 || part.Transfers[0].Status != axp.TransferSent {
		t.Fatalf("the buyer's part sent again: %+v", part)
	}
	m.c.Mine(2)
	eventually(t, func() error {
		if a := m.approvalOf(split.TaskID, axp.ApproveSplit); a.BuyerPartTxHash == "" {
			return fmt.Errorf("buyer part not booked: %+v", a.Transfers)
		}
		return nil
	})
	m.c.Mine(3)
	if bal := m.c.Balance(m.c.Token, chaintest.Addr(bk)); bal != buyerBefore+split.RefundUSD {
		t.Fatalf("the buyer received %s, want its part %s once", bal-buyerBefore, split.RefundUSD)
	}
}

// A transfer recorded as refused that reaches the chain after all (a node behind a balancer
// answered for another, or someone broadcast the bytes) is not signed again: the next approval is
// refused, the transfer is followed as sent, and once confirmed the buyer holds its part once.
func TestChainRefusedTransferFoundOnChainIsNotSignedAgain(t *testing.T) {
	m := newChainMarket(t)
	_, _, _, bk, split := m.heldSplit()
	buyerBefore := m.c.Balance(m.c.Token, chaintest.Addr(bk))
	m.c.SetETH(chaintest.Addr(m.hot), 0)
	refused := m.approve(split.ID, false)
	if len(refused.Transfers) != 1 || refused.Transfers[0].Status != axp.TransferFailed {
		t.Fatalf("a buyer's part the node refused: %+v", refused)
	}
	var raw string
	if err := m.d.DB().View(func(tx *store.Tx) error {
		a, err := tx.Approval(split.ID)
		if err == nil {
			raw = a.Transfers[0].Raw
		}
		return err
	}); err != nil || raw == "" {
		t.Fatalf("the refused transfer's bytes: %q, %v", raw, err)
	}
	m.c.SetETH(chaintest.Addr(m.hot), 1)
	b, _ := hex.DecodeString(raw)
	m.c.SendRaw(b)

	_, err := doOp(m.admin, contract.AdminApprove, axp.ApproveBody{ID: split.ID})
	apiErr(t, err, axp.CodeConflict, "")
	if a := m.approvalOf(split.TaskID, axp.ApproveSplit); len(a.Transfers) != 1 || a.Transfers[0].Status != axp.TransferSent {
		t.Fatalf("the refused transfer found on chain: %+v", a.Transfers)
	}
	m.c.Mine(2)
	eventually(t, func() error {
		if a := m.approvalOf(split.TaskID, axp.ApproveSplit); !strings.EqualFold(a.BuyerPartTxHash, refused.Transfers[0].TxHash) {
			return fmt.Errorf("buyer part %q: %+v", a.BuyerPartTxHash, a.Transfers)
		}
		return nil
	})
	if bal := m.c.Balance(m.c.Token, chaintest.Addr(bk)); bal != buyerBefore+split.RefundUSD {
		t.Fatalf("the buyer received %s, want its part %s once", bal-buyerBefore, split.RefundUSD)
	}
	if b := m.balances(); b[axp.AcctBuyerRefund] != split.RefundUSD {
		t.Fatalf("balances %v (refund %s)", b, split.RefundUSD)
	}
}

// A refused transaction's nonce stays free, so the next item sending the same amount to the same
// address signs the very same bytes (same nonce, same hash). The node then knows that hash, but as
// the second item's transfer: approving the first item again sends a transfer of its own. (The
// check for a refused transfer that reached the chain after all would otherwise have followed the
// other item's transaction as the first item's: booked twice, the seller paid once.)
func TestChainRefusedBytesSignedAgainForAnotherItem(t *testing.T) {
	m := newChainMarket(t)
	sellerAddr := chaintest.Addr(m.c.NewKey())
	seller := m.instantSeller("text-file", "4.50", 30, nil, map[string]any{"payout_address": sellerAddr})
	var payouts []axp.Approval
	var buyers []*client.Client
	var tasks []string
	for range 2 {
		buyer, task := m.awaiting(seller)
		m.c.Transfer(m.buyerWallet(10_000_000), m.c.Token, m.deposit, task.Payment.PayableUSD)
		m.c.Mine(2)
		waitStatus(t, buyer, task.ID, axp.TaskPaid)
		payouts = append(payouts, m.payoutQueued(seller, buyer, task.ID))
		buyers, tasks = append(buyers, buyer), append(tasks, task.ID)
	}
	m.c.SetETH(chaintest.Addr(m.hot), 0)
	refused := m.approve(payouts[0].ID, false)
	if len(refused.Transfers) != 1 || refused.Transfers[0].Status != axp.TransferFailed {
		t.Fatalf("a payout the node refused: %+v", refused)
	}
	m.c.SetETH(chaintest.Addr(m.hot), 1)
	other := m.approve(payouts[1].ID, false)
	if len(other.Transfers) != 1 || other.Transfers[0].TxHash != refused.Transfers[0].TxHash {
		t.Fatalf("the second payout was meant to sign the refused bytes again: %+v, refused %+v", other.Transfers, refused.Transfers)
	}
	m.c.Mine(2)
	waitStatus(t, buyers[1], tasks[1], axp.TaskReleased)

	again := m.approve(payouts[0].ID, false)
	if again.Status != axp.ApprovalSent || len(again.Transfers) != 1 || again.Transfers[0].TxHash == refused.Transfers[0].TxHash {
		t.Fatalf("the first payout approved again: %+v", again)
	}
	m.c.Mine(2)
	waitStatus(t, buyers[0], tasks[0], axp.TaskReleased)
	if bal, want := m.c.Balance(m.c.Token, sellerAddr), 2*payouts[0].Amount; bal != want {
		t.Fatalf("the seller holds %s for two payouts of %s", bal, payouts[0].Amount)
	}
}

// A payout whose transfer was confirmed, then removed by a reorg deeper than the confirmations (the
// node lost it too), is sent again: the item goes back to sent, first in the operator's queue, the
// next pass broadcasts the same signed bytes (same nonce), and once confirmed again the seller holds
// its net once and the ledger booked the payout once. (The item used to stay confirmed with the
// seller unpaid.)
func TestChainReorgedPayoutIsSentAgainOnce(t *testing.T) {
	m := newChainMarket(t)
	sellerAddr, _, buyer, task, payout := m.accepted()
	snap := m.c.Snapshot()
	sent := m.approve(payout.ID, false)
	if sent.Status != axp.ApprovalSent || len(sent.Transfers) != 1 {
		t.Fatalf("approve: %+v", sent)
	}
	m.c.Mine(2)
	waitStatus(t, buyer, task.ID, axp.TaskReleased)
	net := usd(t, "4.50") - feeOf(usd(t, "4.50"))
	if bal := m.c.Balance(m.c.Token, sellerAddr); bal != net {
		t.Fatalf("seller holds %s before the reorg", bal)
	}

	m.c.Revert(snap)
	m.c.DropTransaction(sent.Transfers[0].TxHash)
	m.c.Mine(4)
	eventually(t, func() error {
		a := m.approvalOf(task.ID, axp.ApprovePayout)
		if a.Reorged != 1 {
			return fmt.Errorf("payout %s, reorged %d", a.Status, a.Reorged)
		}
		return nil
	})
	var q axp.ApprovalList
	q = *callOp(t, m.admin, contract.AdminApprovals, axp.ApprovalsQuery{})
	if len(q.Approvals) == 0 || q.Approvals[0].ID != payout.ID {
		t.Fatalf("the queue does not start with the reorged payout: %+v", q.Approvals)
	}
	eventually(t, func() error {
		m.c.Mine(1)
		if a := m.approvalOf(task.ID, axp.ApprovePayout); a.Status != axp.ApprovalConfirmed {
			return fmt.Errorf("payout %s (%s)", a.Status, a.Failure)
		}
		return nil
	})
	if bal := m.c.Balance(m.c.Token, sellerAddr); bal != net {
		t.Fatalf("seller holds %s after the payout was sent again, want %s once", bal, net)
	}
	payouts := 0
	for _, e := range m.entriesOf(task.ID) {
		if e.Kind == axp.ApprovePayout {
			payouts++
		}
	}
	if payouts != 1 {
		t.Fatalf("the ledger booked %d payouts", payouts)
	}
	if a := m.approvalOf(task.ID, axp.ApprovePayout); a.Transfers[0].TxHash != sent.Transfers[0].TxHash {
		t.Fatalf("sent again as %s, not the same transaction %s", a.Transfers[0].TxHash, sent.Transfers[0].TxHash)
	}
	m.balances()
}

// A pay-per-call settlement is re-checked for reorgs like a task's payment: once its block leaves
// the canonical chain (deeper than the confirmations, the transaction lost), reconcile names the
// booked call's money missing, with its transaction; when the transfer is back, it is covered again.
// (Settlements used to be left out of the re-check.)
func TestChainReorgedPaidCallIsNamed(t *testing.T) {
	m := newChainMarket(t)
	payer := m.buyerWallet(1_000_000)
	snap := m.c.Snapshot()
	resp := paidCall(t, m.anon, "POST", "/paid/text/injection-check", injectionText, nil)
	resp = paidCall(t, m.anon, "POST", "/paid/text/injection-check", injectionText, map[string]string{x402.HeaderSignature: pay(t, payer, terms(t, resp))})
	if resp.Status != 200 {
		t.Fatalf("paid call: %d %s", resp.Status, resp.Body)
	}
	hash := settlement(t, resp, x402.HeaderResponse).Transaction
	m.c.Mine(3)
	rc := m.c.Receipt(hash)
	if rc == nil {
		t.Fatal("the settlement is not mined")
	}
	// The watcher has read the settlement's block (and recorded its transfer as a paid call).
	eventually(t, func() error {
		if r := m.reconciled(); !r.Covered || r.ScannedToBlock < rc.BlockNumber.Uint64() {
			return fmt.Errorf("before the reorg: scanned to %d, covered %v", r.ScannedToBlock, r.Covered)
		}
		return nil
	})
	m.c.Revert(snap)
	m.c.DropTransaction(hash)
	m.c.Mine(5)
	eventually(t, func() error {
		r := m.reconciled()
		for _, g := range r.MissingTransfers {
			if strings.EqualFold(g.TxHash, hash) && g.Kind == "paid_call" && strings.Contains(g.Why, "reorged") {
				return nil
			}
		}
		return fmt.Errorf("reconcile does not name the reorged settlement %s: %+v", hash, r.MissingTransfers)
	})
	m.balances()
}

// Reconcile reads address by address, so the hot wallet's float does not hide money missing at
// the deposit address: after a paid job and its payout, the deposit address holds what the ledger
// expects and the float is what the operator put into the hot wallet; 1.00 taken from the deposit
// address shows as missing there, though the total difference (the float) stays positive.
func TestReconcileByAddress(t *testing.T) {
	m := newChainMarket(t)
	sellerAddr, _, buyer, task, payout := m.accepted()
	m.approve(payout.ID, false)
	m.c.Mine(2)
	waitStatus(t, buyer, task.ID, axp.TaskReleased)
	net := usd(t, "4.50") - feeOf(usd(t, "4.50"))
	if bal := m.c.Balance(m.c.Token, sellerAddr); bal != net {
		t.Fatalf("seller holds %s", bal)
	}
	var r axp.Reconciliation
	eventually(t, func() error {
		r = m.reconciled()
		if !r.Covered || r.DepositDifferenceUSD != 0 || r.DepositExpectedUSD != r.ReceivedUSD || r.DepositExpectedUSD != r.DepositBalanceUSD {
			return fmt.Errorf("deposit %s, expected %s, difference %s (received %s; covered %v)", r.DepositBalanceUSD, r.DepositExpectedUSD,
				r.DepositDifferenceUSD, r.ReceivedUSD, r.Covered)
		}
		return nil
	})
	if r.FloatUSD != 100_000_000 || r.HotWalletSentUSD != net || r.HotWalletBalanceUSD != 100_000_000-net {
		t.Fatalf("hot wallet: balance %s, sent %s, float %s; want 100.00 put in and %s sent", r.HotWalletBalanceUSD, r.HotWalletSentUSD, r.FloatUSD, net)
	}
	m.c.SetETH(m.deposit, 1)
	m.c.Transfer(m.depositKey, m.c.Token, chaintest.Addr(m.c.NewKey()), usd(t, "1.00"))
	m.c.Mine(2)
	r = m.reconciled()
	if r.DepositDifferenceUSD != -usd(t, "1.00") || r.DifferenceUSD <= 0 {
		t.Fatalf("after 1.00 left the deposit address: deposit difference %s, total %s", r.DepositDifferenceUSD, r.DifferenceUSD)
	}
}
