package daemon_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/axp-exchange/axp"
	"github.com/axp-exchange/axp/contract"
	"github.com/axp-exchange/axp/daemon"
	"github.com/axp-exchange/axp/daemon/chain/chaintest"
)

// These tests play a thief (T) against other buyers (victims V) on a real local chain. A transfer
// whose amount is not exactly a task's payable amount used to go to whichever task reported its
// hash first; now a report alone credits nothing: the amount names the task, or the sender signed
// for it (payer_signature), or the transfer is listed for the operator and goes back to its sender.

// Front-run: V sends the price (not the payable amount) for its task; before it is mined T reports
// V's hash on T's own task. T's task is not funded (its report is closed with the reason), V's
// signed report credits V's task, and T's later report of the mined hash is refused.
func TestTheftFrontRunReportOfAnotherBuyersTransfer(t *testing.T) {
	m := newChainMarket(t, func(cfg *daemon.Config) { cfg.Confirmations = 3 })
	seller := m.instantSeller("text-file", "4.50", 30, nil, map[string]any{"payout_address": chaintest.Addr(m.c.NewKey())})
	buyerV, taskV := m.awaiting(seller)
	buyerT, taskT := m.awaiting(seller)
	kv := m.buyerWallet(10_000_000)

	m.c.SetAutomine(false)
	tx := m.c.TransferPending(kv, m.c.Token, m.deposit, taskV.Payment.AmountUSD) // 4.50, not payable_usd
	callOp(t, buyerT, contract.PayCryptoOp, axp.PayCryptoInput{TaskRef: axp.TaskRef{ID: taskT.ID}, TxHash: tx})
	m.c.SetAutomine(true)
	m.c.Mine(3)
	eventually(t, func() error {
		if a := m.approvalOf(taskT.ID, axp.ApprovePayment); a.Status != axp.ApprovalRejected {
			return fmt.Errorf("T's report is %s", a.Status)
		}
		return nil
	})
	if got := getTask(t, buyerT, taskT.ID); got.Status != axp.TaskAwaitingPayment || got.Payment.ReceivedUSD != 0 {
		t.Fatalf("T's task after reporting V's transfer: %s %+v", got.Status, got.Payment)
	}
	m.unknownListed(tx)

	// T reports it again now that it is mined: refused, naming payer_signature.
	_, err := doOp(buyerT, contract.PayCryptoOp, axp.PayCryptoInput{TaskRef: axp.TaskRef{ID: taskT.ID}, TxHash: tx})
	apiErr(t, err, axp.CodeInvalidInput, "payer_signature")
	// T cannot sign for V's address: a signature by T's own key is refused.
	kt := m.buyerWallet(0)
	_, err = doOp(buyerT, contract.PayCryptoOp, axp.PayCryptoInput{TaskRef: axp.TaskRef{ID: taskT.ID}, TxHash: tx, PayerSignature: m.payerSig(kt, taskT.ID)})
	apiErr(t, err, axp.CodeInvalidInput, "payer_signature")
	// V's own signature for T's task is worthless for V's task and vice versa: V signs its own.
	_, err = doOp(buyerV, contract.PayCryptoOp, axp.PayCryptoInput{TaskRef: axp.TaskRef{ID: taskV.ID}, TxHash: tx, PayerSignature: m.payerSig(kv, taskT.ID)})
	apiErr(t, err, axp.CodeInvalidInput, "payer_signature")
	callOp(t, buyerV, contract.PayCryptoOp, axp.PayCryptoInput{TaskRef: axp.TaskRef{ID: taskV.ID}, TxHash: tx, PayerSignature: m.payerSig(kv, taskV.ID)})
	got := waitStatus(t, buyerV, taskV.ID, axp.TaskPaid)
	if got.Payment.ReceivedUSD != taskV.Payment.AmountUSD {
		t.Fatalf("V's task received %s, want %s", got.Payment.ReceivedUSD, taskV.Payment.AmountUSD)
	}
	if got := getTask(t, buyerT, taskT.ID); got.Status != axp.TaskAwaitingPayment || got.Payment.ReceivedUSD != 0 {
		t.Fatalf("T's task: %s %+v", got.Status, got.Payment)
	}
	eventually(t, func() error {
		if r := m.reconciled(); len(r.UnknownTransfers) != 0 || !r.Covered {
			return fmt.Errorf("reconcile: covered %v, unknown %+v", r.Covered, r.UnknownTransfers)
		}
		return nil
	})
	m.balances()
}

// Late sweep: two victims send amounts that name no task and report nothing; later T reports both
// on its own task. Both reports are refused, T's task receives nothing, and reconcile lists both
// transfers for the operator.
func TestTheftLateSweepOfUnreportedTransfers(t *testing.T) {
	m := newChainMarket(t)
	seller := m.instantSeller("text-file", "4.50", 30, nil, map[string]any{"payout_address": chaintest.Addr(m.c.NewKey())})
	_, taskV1 := m.awaiting(seller)
	_, taskV2 := m.awaiting(seller)
	buyerT, taskT := m.awaiting(seller)
	tx1 := m.c.Transfer(m.buyerWallet(10_000_000), m.c.Token, m.deposit, taskV1.Payment.AmountUSD)
	tx2 := m.c.Transfer(m.buyerWallet(10_000_000), m.c.Token, m.deposit, usd(t, "3.00"))
	m.c.Mine(2)
	m.unknownListed(tx1)
	m.unknownListed(tx2)
	for _, tx := range []string{tx1, tx2} {
		_, err := doOp(buyerT, contract.PayCryptoOp, axp.PayCryptoInput{TaskRef: axp.TaskRef{ID: taskT.ID}, TxHash: tx})
		apiErr(t, err, axp.CodeInvalidInput, "payer_signature")
	}
	m.c.Mine(2)
	for _, id := range []string{taskT.ID} {
		if got := getTask(t, buyerT, id); got.Status != axp.TaskAwaitingPayment || got.Payment.ReceivedUSD != 0 {
			t.Fatalf("T's task: %s %+v", got.Status, got.Payment)
		}
	}
	r := m.reconciled()
	if len(r.UnknownTransfers) != 2 || r.Covered {
		t.Fatalf("reconcile lists %+v (covered %v), want both victims' transfers", r.UnknownTransfers, r.Covered)
	}
	m.balances()
	_ = taskV2
}

// No seller account needed: T pays part of its own task from its own address, reports a victim's
// transfer on it too, then cancels. The victim's transfer is refused and never credited; the
// refund returns exactly T's own part, to T's own address.
func TestTheftCancelRefundsOnlyWhatTheSenderSent(t *testing.T) {
	m := newChainMarket(t)
	seller := m.instantSeller("text-file", "4.50", 30, nil, map[string]any{"payout_address": chaintest.Addr(m.c.NewKey())})
	buyerT, taskT := m.awaiting(seller)
	_, taskV := m.awaiting(seller)
	kt := m.buyerWallet(1_000_000)
	kv := m.buyerWallet(10_000_000)
	part := m.c.Transfer(kt, m.c.Token, m.deposit, usd(t, "0.50"))
	victim := m.c.Transfer(kv, m.c.Token, m.deposit, usd(t, "4.00"))
	m.c.Mine(2)
	callOp(t, buyerT, contract.PayCryptoOp, axp.PayCryptoInput{TaskRef: axp.TaskRef{ID: taskT.ID}, TxHash: part, PayerSignature: m.payerSig(kt, taskT.ID)})
	eventually(t, func() error {
		if got := getTask(t, buyerT, taskT.ID); got.Payment.Status != "partial" || got.Payment.ReceivedUSD != usd(t, "0.50") {
			return fmt.Errorf("T's payment %+v", got.Payment)
		}
		return nil
	})
	_, err := doOp(buyerT, contract.PayCryptoOp, axp.PayCryptoInput{TaskRef: axp.TaskRef{ID: taskT.ID}, TxHash: victim})
	apiErr(t, err, axp.CodeInvalidInput, "payer_signature")
	_, err = doOp(buyerT, contract.PayCryptoOp, axp.PayCryptoInput{TaskRef: axp.TaskRef{ID: taskT.ID}, TxHash: victim, PayerSignature: m.payerSig(kt, taskT.ID)})
	apiErr(t, err, axp.CodeInvalidInput, "payer_signature")
	callOp(t, buyerT, contract.CancelTask, axp.CancelInput{TaskRef: axp.TaskRef{ID: taskT.ID}})
	refund := m.approvalOf(taskT.ID, axp.ApproveRefund)
	if refund.RefundUSD != usd(t, "0.50") {
		t.Fatalf("refund item %+v, want 0.50", refund)
	}
	sent := m.approve(refund.ID, false)
	if len(sent.Transfers) != 1 || !strings.EqualFold(sent.Transfers[0].To, chaintest.Addr(kt)) || sent.Transfers[0].Amount != usd(t, "0.50") ||
		!strings.EqualFold(sent.Transfers[0].Returns, part) {
		t.Fatalf("refund sends %+v, want 0.50 back to T's own address for %s", sent.Transfers, part)
	}
	m.c.Mine(2)
	eventually(t, func() error {
		if a := m.approvalOf(taskT.ID, axp.ApproveRefund); a.Status != axp.ApprovalConfirmed {
			return fmt.Errorf("refund is %s", a.Status)
		}
		return nil
	})
	if bal := m.c.Balance(m.c.Token, chaintest.Addr(kt)); bal != 1_000_000 {
		t.Fatalf("T holds %s after its refund, want the 1.00 it started with", bal)
	}
	m.unknownListed(victim)
	_ = taskV
	m.balances()
}

// With no platform fee there are no tags: two tasks await the same amount. V pays it exactly and T
// reports V's hash first: nothing is credited on T's report; V's signed report funds V's task.
func TestTheftZeroFeeSameAmountGoesToTheSigner(t *testing.T) {
	m := newChainMarket(t, func(cfg *daemon.Config) { cfg.Fees = axp.FeeSchedule{DefaultBPS: 0} })
	seller := m.instantSeller("text-file", "2.00", 30, nil, map[string]any{"payout_address": chaintest.Addr(m.c.NewKey())})
	buyerV, taskV := m.awaiting(seller)
	buyerT, taskT := m.awaiting(seller)
	if taskV.Payment.PayableUSD != taskT.Payment.PayableUSD {
		t.Fatalf("payable %s and %s: want the same untagged amount", taskV.Payment.PayableUSD, taskT.Payment.PayableUSD)
	}
	// The payment section says the amount names no task, and how to pay instead.
	if note := taskT.Payment.AmountNote; !strings.Contains(note, "no room for a payment tag") || !strings.Contains(note, "payer_signature") {
		t.Fatalf("amount note %q", note)
	}
	kv := m.buyerWallet(10_000_000)
	tx := m.c.Transfer(kv, m.c.Token, m.deposit, taskV.Payment.PayableUSD)
	_, err := doOp(buyerT, contract.PayCryptoOp, axp.PayCryptoInput{TaskRef: axp.TaskRef{ID: taskT.ID}, TxHash: tx})
	apiErr(t, err, axp.CodeInvalidInput, "payer_signature")
	m.c.Mine(2)
	m.unknownListed(tx)
	callOp(t, buyerV, contract.PayCryptoOp, axp.PayCryptoInput{TaskRef: axp.TaskRef{ID: taskV.ID}, TxHash: tx, PayerSignature: m.payerSig(kv, taskV.ID)})
	waitStatus(t, buyerV, taskV.ID, axp.TaskPaid)
	if got := getTask(t, buyerT, taskT.ID); got.Status != axp.TaskAwaitingPayment || got.Payment.ReceivedUSD != 0 {
		t.Fatalf("T's task: %s %+v", got.Status, got.Payment)
	}
	m.balances()
}

// returnItem waits for the return item of incoming transfer hash and answers it.
func (m *chainMarket) returnItem(hash string) axp.Approval {
	m.tb.Helper()
	var ret axp.Approval
	eventually(m.tb, func() error {
		for _, a := range m.approvals("") {
			if a.Kind == axp.ApproveReturn && strings.EqualFold(a.ReturnOf, hash) {
				ret = a
				return nil
			}
		}
		return fmt.Errorf("no return item for %s", hash)
	})
	return ret
}

// A transfer that pays no task waits in the operator's queue as a return item: approving it sends
// the amount back to the address that sent it (the hot wallet sends it), the ledger books it as
// received and returned, and reconcile stops listing it. A report of it after that credits nothing.
func TestReturnOfAnUnmatchedTransferGoesToItsSender(t *testing.T) {
	m := newChainMarket(t)
	seller := m.instantSeller("text-file", "4.50", 30, nil, map[string]any{"payout_address": chaintest.Addr(m.c.NewKey())})
	buyer, task := m.awaiting(seller)
	kv := m.buyerWallet(10_000_000)
	stray := m.c.Transfer(kv, m.c.Token, m.deposit, usd(t, "3.00"))
	m.c.Mine(2)
	m.unknownListed(stray)
	ret := m.returnItem(stray)
	if ret.Amount != usd(t, "3.00") || !strings.EqualFold(ret.PayoutAddress, chaintest.Addr(kv)) || ret.Status != axp.ApprovalPending {
		t.Fatalf("return item %+v", ret)
	}
	sent := m.approve(ret.ID, false)
	if len(sent.Transfers) != 1 || !strings.EqualFold(sent.Transfers[0].To, chaintest.Addr(kv)) || sent.Transfers[0].Amount != usd(t, "3.00") {
		t.Fatalf("the return sends %+v", sent.Transfers)
	}
	m.c.Mine(2)
	eventually(t, func() error {
		for _, a := range m.approvals("") {
			if a.ID == ret.ID && a.Status != axp.ApprovalConfirmed {
				return fmt.Errorf("return is %s (%s)", a.Status, a.Failure)
			}
		}
		return nil
	})
	if bal := m.c.Balance(m.c.Token, chaintest.Addr(kv)); bal != 10_000_000 {
		t.Fatalf("the sender holds %s after the return, want its 10.00 back", bal)
	}
	// Signed now for the task, the returned transfer credits nothing.
	_, err := doOp(buyer, contract.PayCryptoOp, axp.PayCryptoInput{TaskRef: axp.TaskRef{ID: task.ID}, TxHash: stray, PayerSignature: m.payerSig(kv, task.ID)})
	if err == nil {
		m.c.Mine(2)
	}
	if got := getTask(t, buyer, task.ID); got.Payment.ReceivedUSD != 0 {
		t.Fatalf("a returned transfer was credited: %+v", got.Payment)
	}
	eventually(t, func() error {
		if r := m.reconciled(); !r.Covered || len(r.UnknownTransfers) != 0 {
			return fmt.Errorf("reconcile: covered %v, unknown %+v, missing %+v", r.Covered, r.UnknownTransfers, r.MissingTransfers)
		}
		return nil
	})
	m.balances()
}

// A return that failed before sending anything (the node refused it), or one the operator
// rejected, is no return: the sender's signed report then binds the transfer to its task, which is
// credited with it. Only a return the operator approved and the wallet may have sent refuses it.
func TestUnsentReturnLeavesTheTransferToItsReport(t *testing.T) {
	m := newChainMarket(t)
	seller := m.instantSeller("text-file", "4.50", 30, nil, map[string]any{"payout_address": chaintest.Addr(m.c.NewKey())})
	buyer, task := m.awaiting(seller)
	kv := m.buyerWallet(10_000_000)
	credited := func(want string) {
		eventually(t, func() error {
			if got := getTask(t, buyer, task.ID); got.Payment == nil || got.Payment.ReceivedUSD != usd(t, want) {
				return fmt.Errorf("payment %+v, want %s received", got.Payment, want)
			}
			return nil
		})
	}

	// The node refuses the return (no gas): nothing left, so the signed report still credits it.
	first := m.c.Transfer(kv, m.c.Token, m.deposit, usd(t, "1.00"))
	m.c.Mine(2)
	m.unknownListed(first)
	m.c.SetETH(chaintest.Addr(m.hot), 0)
	if a := m.approve(m.returnItem(first).ID, false); a.Status != axp.ApprovalFailed {
		t.Fatalf("a return the node refuses: %+v", a)
	}
	m.c.SetETH(chaintest.Addr(m.hot), 1)
	if _, err := doOp(buyer, contract.PayCryptoOp, axp.PayCryptoInput{TaskRef: axp.TaskRef{ID: task.ID}, TxHash: first, PayerSignature: m.payerSig(kv, task.ID)}); err != nil {
		t.Fatalf("the signed report of a transfer whose return failed unsent: %v", err)
	}
	credited("1.00")
	if a := m.returnItem(first); a.Status != axp.ApprovalRejected {
		t.Fatalf("the failed return of a transfer that paid its task is %s, want closed", a.Status)
	}

	// The operator rejects the return of a part from another wallet of the buyer's (the first
	// one is bound to the task now): the report credits it too.
	kv2 := m.buyerWallet(10_000_000)
	second := m.c.Transfer(kv2, m.c.Token, m.deposit, usd(t, "2.00"))
	m.c.Mine(2)
	m.unknownListed(second)
	if _, err := doOp(m.admin, contract.AdminReject, axp.RejectBody{ID: m.returnItem(second).ID, Reason: "the buyer says it is a part of its task"}); err != nil {
		t.Fatal(err)
	}
	if _, err := doOp(buyer, contract.PayCryptoOp, axp.PayCryptoInput{TaskRef: axp.TaskRef{ID: task.ID}, TxHash: second, PayerSignature: m.payerSig(kv2, task.ID)}); err != nil {
		t.Fatalf("the signed report of a transfer whose return was rejected: %v", err)
	}
	credited("3.00")
	m.balances()
}
