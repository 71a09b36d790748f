package daemon_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/axp-exchange/axp"
	"github.com/axp-exchange/axp/contract"
	"github.com/axp-exchange/axp/daemon/chain/chaintest"
)

// A payment paid out and then taken away by a reorg deeper than the confirmations, that never
// comes back: the seller has its net, the exchange never had the buyer's money, and reconcile names
// the payment. The operator writes it off with a note: one balanced write_off entry gives
// external:buyer the payment back and books it to platform:losses (escrow is empty: the payout
// left), reconcile stops naming it and is covered by the hot wallet's float again, the payment
// item is written_off, the audit trail and the task say so. Writing off a payment that is not
// reorged is a conflict; an unknown hash is not found; a bad hash or no note is invalid input.
func TestChainWriteOffReorgedPaymentPaidOut(t *testing.T) {
	m := newChainMarket(t)
	sellerAddr := chaintest.Addr(m.c.NewKey())
	seller := m.instantSeller("text-file", "4.50", 30, nil, map[string]any{"payout_address": sellerAddr})
	buyer, task := m.awaiting(seller)
	wallet := m.buyerWallet(10_000_000)
	paid := task.Payment.PayableUSD
	net := usd(t, "4.50") - feeOf(usd(t, "4.50"))

	snap := m.c.Snapshot()
	txA := m.c.Transfer(wallet, m.c.Token, m.deposit, paid)
	m.c.Mine(2)
	waitStatus(t, buyer, task.ID, axp.TaskPaid)
	payout := m.payoutQueued(seller, buyer, task.ID)
	m.approve(payout.ID, false)
	m.c.Mine(2)
	waitStatus(t, buyer, task.ID, axp.TaskReleased)
	if bal := m.c.Balance(m.c.Token, sellerAddr); bal != net {
		t.Fatalf("seller holds %s before the reorg, want %s", bal, net)
	}

	// The chain goes back below the payment, which is never mined again; the payout is (from the
	// same signed bytes): the money left, the buyer's never came.
	m.c.Revert(snap)
	m.c.DropTransaction(txA)
	eventually(t, func() error {
		m.c.Mine(1)
		if a := m.approvalOf(task.ID, axp.ApprovePayment); a.Status != axp.ApprovalReorged {
			return fmt.Errorf("payment item is %s", a.Status)
		}
		// The payout's transfer left with the reorg too: it is sent again and confirmed again.
		if a := m.approvalOf(task.ID, axp.ApprovePayout); a.Status != axp.ApprovalConfirmed || a.Reorged != 1 {
			return fmt.Errorf("payout is %s, reorged %d (%s)", a.Status, a.Reorged, a.Failure)
		}
		if bal := m.c.Balance(m.c.Token, sellerAddr); bal != net {
			return fmt.Errorf("seller holds %s after the reorg, want %s once", bal, net)
		}
		return nil
	})
	r := m.reconciled()
	if r.Covered || len(r.MissingTransfers) != 1 || r.MissingTransfers[0].TxHash != txA || !strings.Contains(r.MissingTransfers[0].Why, "reorged") {
		t.Fatalf("reconcile after the reorg: %+v", r)
	}

	// Bad input, and nothing to write off.
	_, err := doOp(m.admin, contract.AdminWriteOff, axp.WriteOffInput{TxHash: "0x12", Note: "n"})
	apiErr(t, err, axp.CodeInvalidInput, "tx_hash")
	_, err = doOp(m.admin, contract.AdminWriteOff, axp.WriteOffInput{TxHash: txA, Note: ""})
	apiErr(t, err, axp.CodeInvalidInput, "note")
	_, err = doOp(m.admin, contract.AdminWriteOff, axp.WriteOffInput{TxHash: newTxHash(), Note: "n"})
	apiErr(t, err, axp.CodeNotFound, "")

	note := "the buyer's transfer never came back after the reorg; settled with the buyer by mail"
	var w axp.WriteOff
	w = *callOp(t, m.admin, contract.AdminWriteOff, axp.WriteOffInput{TxHash: txA, Note: note})
	if w.TaskID != task.ID || w.AmountUSD != paid || w.FromEscrowUSD != 0 || w.LossUSD != paid || len(w.Closed) != 0 || w.StillReorged {
		t.Fatalf("write-off: %+v", w)
	}
	e := w.Entry
	if e.Kind != "write_off" || e.Note != note || e.TxHash != txA || e.TaskID != task.ID || len(e.Postings) != 2 ||
		e.Postings[0] != (axp.Posting{Account: axp.AcctBuyerFunds, Amount: paid}) || e.Postings[1] != (axp.Posting{Account: axp.AcctLosses, Amount: -paid}) {
		t.Fatalf("write_off entry: %+v", e)
	}
	b := m.balances()
	if b[axp.AcctBuyerFunds] != 0 || b[axp.AcctLosses] != -paid || b[axp.AcctSellerPaid] != net || b[axp.EscrowAccount(task.ID)] != 0 ||
		b[axp.AcctFees]+b[axp.AcctExcess]+b[axp.AcctLosses] != -net {
		t.Fatalf("balances after the write-off: %v", b)
	}
	var st axp.Stats
	st = *callOp(t, m.admin, contract.AdminStats, contract.NoInput{})
	if st.Money.Losses != paid || st.Money.PaymentsIn != 0 || st.Money.LedgerSum != 0 {
		t.Fatalf("stats after the write-off: %+v", st.Money)
	}
	r = m.reconciled()
	// The hot wallet's 100 TUSD float paid the seller: the ledger now says so.
	if !r.Covered || len(r.MissingTransfers) != 0 || r.ReceivedUSD != 0 || r.PaidOutUSD != net || r.ExpectedUSD != -net ||
		r.DifferenceUSD != 100_000_000 {
		t.Fatalf("reconcile after the write-off: %+v", r)
	}
	if a := m.approvalOf(task.ID, axp.ApprovePayment); a.Status != axp.ApprovalWrittenOff || !strings.Contains(a.Note, note) {
		t.Fatalf("payment item after the write-off: %+v", a)
	}
	if got := getTask(t, buyer, task.ID); got.Payment.Status != "written_off" {
		t.Fatalf("task's payment after the write-off: %+v", got.Payment)
	}
	var al axp.AuditList
	al = *callOp(t, m.admin, contract.AdminAudit, axp.AuditQuery{Action: "payment.written_off"})
	if len(al.Records) != 1 || al.Records[0].EntityID != txA || al.Records[0].Details["note"] != note || al.Records[0].Details["task"] != task.ID {
		t.Fatalf("audit: %+v", al.Records)
	}
	var tl axp.AdminTimeline
	tl = *callOp(t, m.admin, contract.AdminTaskTimeline, axp.IDPath{ID: task.ID})
	found := false
	for _, row := range tl.Rows {
		found = found || strings.HasPrefix(row.Summary, "payment_written_off ")
	}
	if !found {
		t.Fatalf("no payment_written_off on the task's timeline: %+v", tl.Rows)
	}

	// Once is enough; a payment that is on chain is not written off.
	_, err = doOp(m.admin, contract.AdminWriteOff, axp.WriteOffInput{TxHash: txA, Note: "again"})
	if e := apiErr(t, err, axp.CodeConflict, ""); !strings.Contains(e.Message, "written off already") {
		t.Fatalf("writing off twice: %v", e)
	}
	buyerB, taskB := m.awaiting(seller)
	txB := m.c.Transfer(m.buyerWallet(10_000_000), m.c.Token, m.deposit, taskB.Payment.PayableUSD)
	m.c.Mine(2)
	waitStatus(t, buyerB, taskB.ID, axp.TaskPaid)
	_, err = doOp(m.admin, contract.AdminWriteOff, axp.WriteOffInput{TxHash: txB, Note: "n"})
	if e := apiErr(t, err, axp.CodeConflict, ""); !strings.Contains(e.Message, "is not reorged") || e.Hint == "" {
		t.Fatalf("writing off a payment on chain: %v", e)
	}
	if r := m.reconciled(); !r.Covered || len(r.MissingTransfers) != 0 {
		t.Fatalf("reconcile with task B paid: %+v", r)
	}
	m.balances()
}

// A reorged payment whose task still holds it (the payout waits, held by the reorg) is written off
// out of the task's escrow: no loss, and the held payout is closed with the note.
func TestChainWriteOffReorgedPaymentStillInEscrow(t *testing.T) {
	m := newChainMarket(t)
	seller := m.instantSeller("text-file", "4.50", 30, nil, map[string]any{"payout_address": chaintest.Addr(m.c.NewKey())})
	buyer, task := m.awaiting(seller)
	wallet := m.buyerWallet(10_000_000)
	paid := task.Payment.PayableUSD

	snap := m.c.Snapshot()
	txA := m.c.Transfer(wallet, m.c.Token, m.deposit, paid)
	m.c.Mine(2)
	waitStatus(t, buyer, task.ID, axp.TaskPaid)
	payout := m.payoutQueued(seller, buyer, task.ID)
	m.c.Revert(snap)
	m.c.DropTransaction(txA)
	eventually(t, func() error {
		m.c.Mine(1)
		if a := m.approvalOf(task.ID, axp.ApprovePayout); a.Status != axp.ApprovalHeld || a.HeldFor != axp.HoldReorg {
			return fmt.Errorf("payout is %s (%s)", a.Status, a.HeldFor)
		}
		return nil
	})

	note := "never came back"
	var w axp.WriteOff
	w = *callOp(t, m.admin, contract.AdminWriteOff, axp.WriteOffInput{TxHash: "0x" + strings.ToUpper(txA[2:]), Note: note})
	if w.AmountUSD != paid || w.FromEscrowUSD != paid || w.LossUSD != 0 || len(w.Closed) != 1 || w.Closed[0] != payout.ID {
		t.Fatalf("write-off: %+v", w)
	}
	if e := w.Entry; len(e.Postings) != 2 || e.Postings[1] != (axp.Posting{Account: axp.EscrowAccount(task.ID), Amount: -paid}) {
		t.Fatalf("write_off entry: %+v", e)
	}
	if a := m.approvalOf(task.ID, axp.ApprovePayout); a.Status != axp.ApprovalRejected || !strings.Contains(a.Note, note) {
		t.Fatalf("payout after the write-off: %+v", a)
	}
	b := m.balances()
	if b[axp.AcctBuyerFunds] != 0 || b[axp.AcctLosses] != 0 || b[axp.EscrowAccount(task.ID)] != 0 {
		t.Fatalf("balances after the write-off: %v", b)
	}
	if got := getTask(t, buyer, task.ID); got.Payment.Status != "written_off" || got.Payment.ReceivedUSD != 0 {
		t.Fatalf("task's payment after the write-off: %+v", got.Payment)
	}
	if r := m.reconciled(); !r.Covered || len(r.MissingTransfers) != 0 || r.ReceivedUSD != 0 || r.DifferenceUSD != 100_000_000 {
		t.Fatalf("reconcile after the write-off: %+v", r)
	}
}
