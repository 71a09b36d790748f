package daemon_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/axp-exchange/axp"
	"github.com/axp-exchange/axp/contract"
	"github.com/axp-exchange/axp/daemon/chain/chaintest"
	"github.com/axp-exchange/axp/store"
)

// approveTx approves a queue item with a transaction hash, as `axp admin approvals approve --tx`.
func (m *chainMarket) approveTx(id, hash string) (axp.Approval, error) {
	var a axp.Approval
	err := m.admin.Call(context.Background(), "admin_approve", map[string]any{"id": id, "tx_hash": hash}, &a)
	return a, err
}

// ledgerIDs lists the ids of the ledger's entries.
func (m *chainMarket) ledgerIDs() []string {
	var ids []string
	for _, e := range m.ledger() {
		ids = append(ids, e.ID)
	}
	return ids
}

// A payout approved by hand with --tx on an exchange with a chain is checked on chain before
// anything is booked: the buyer's own payment, an unknown hash, a transfer to someone else, too
// small a transfer, one not sent by an exchange wallet and one that reverted are each refused (400
// naming tx_hash, saying what is wrong), the ledger unchanged and the item still pending; a right
// transfer from the hot wallet is refused only until it has its confirmations (409), then booked;
// the same transfer given for a second payout is refused; reconcile is covered. (Any hash used to
// be booked as paid: 2.97 the ledger counted as paid out never left, and reconcile said covered.)
func TestChainManualPayoutCheckedOnChain(t *testing.T) {
	m := newChainMarket(t) // 2 confirmations
	sellerAddr, seller, buyer, task, payout := m.accepted()
	net := payout.SellerNetUSD
	if net != usd(t, "4.50")-feeOf(usd(t, "4.50")) {
		t.Fatalf("payout item %+v", payout)
	}
	payment := m.approvalOf(task.ID, axp.ApprovePayment)
	// A second task of the same seller, paid and accepted: its payout waits too.
	buyer2, task2 := m.awaiting(seller)
	m.c.Transfer(m.buyerWallet(10_000_000), m.c.Token, m.deposit, task2.Payment.PayableUSD)
	m.c.Mine(2)
	waitStatus(t, buyer2, task2.ID, axp.TaskPaid)
	payout2 := m.payoutQueued(seller, buyer2, task2.ID)

	someone := chaintest.Addr(m.c.NewKey())
	outsider := m.buyerWallet(10_000_000)
	refused := []struct {
		name, tx, want string
	}{
		{"the buyer's payment", payment.TxHash, "already records approval " + payment.ID},
		{"an unknown hash", newTxHash(), "has no transaction"},
		{"a transfer to someone else", m.c.Transfer(m.hot, m.c.Token, someone, net), "nothing to the seller's payout address " + sellerAddr},
		{"too little", m.c.Transfer(m.hot, m.c.Token, sellerAddr, net-1), "US$0.000001 short"},
		{"not from an exchange wallet", m.c.Transfer(outsider, m.c.Token, sellerAddr, net), "not from an exchange wallet"},
		{"reverted", m.c.Reverted(m.hot, sellerAddr, 999_000_000), "reverted"},
	}
	m.c.Mine(2)
	before := m.ledgerIDs()
	for _, tc := range refused {
		_, err := m.approveTx(payout.ID, tc.tx)
		e := apiErr(t, err, axp.CodeInvalidInput, "tx_hash")
		if !strings.Contains(e.Message, tc.want) || !strings.Contains(e.Message, tc.tx) {
			t.Errorf("%s: %v; want the hash and %q", tc.name, e, tc.want)
		}
		t.Logf("%s: %s (%s)", tc.name, e.Message, e.Hint)
	}
	if got := m.ledgerIDs(); !slices.Equal(got, before) {
		t.Fatalf("the refused approvals wrote the ledger: %v, was %v", got, before)
	}
	if a := m.approvalOf(task.ID, axp.ApprovePayout); a.Status != axp.ApprovalPending || a.TxHash != "" {
		t.Fatalf("payout after the refusals: %+v", a)
	}

	// The right transfer, from the hot wallet: refused until it has its 2 confirmations.
	paid := m.c.Transfer(m.hot, m.c.Token, sellerAddr, net)
	_, err := m.approveTx(payout.ID, paid)
	if e := apiErr(t, err, axp.CodeConflict, "-"); !strings.Contains(e.Message, "1 of the 2 confirmations") {
		t.Fatalf("a transfer with 1 confirmation: %v", e)
	}
	if got := m.ledgerIDs(); !slices.Equal(got, before) {
		t.Fatalf("an unconfirmed transfer was booked: %v", got)
	}
	m.c.Mine(1)
	a, err := m.approveTx(payout.ID, "0x"+strings.ToUpper(paid[2:]))
	if err != nil || a.Status != axp.ApprovalApproved || a.TxHash != paid || a.Rail != "manual" {
		t.Fatalf("the right transfer: %+v %v", a, err)
	}
	if got := getTask(t, buyer, task.ID); got.Status != axp.TaskReleased {
		t.Fatalf("task after the payout: %s", got.Status)
	}

	// (b) The same transfer for the second payout.
	before = m.ledgerIDs()
	_, err = m.approveTx(payout2.ID, paid)
	if e := apiErr(t, err, axp.CodeInvalidInput, "tx_hash"); !strings.Contains(e.Message, "already records approval "+payout.ID) {
		t.Fatalf("one transfer for two payouts: %v", e)
	}
	if got := m.ledgerIDs(); !slices.Equal(got, before) {
		t.Fatalf("the second use was booked: %v", got)
	}
	// The hot wallet sends the second payout itself.
	m.approve(payout2.ID, false)
	m.c.Mine(2)
	waitStatus(t, buyer2, task2.ID, axp.TaskReleased)
	// The two payouts, the short transfer and the outsider's.
	if bal := m.c.Balance(m.c.Token, sellerAddr); bal != 2*net+(net-1)+net {
		t.Fatalf("seller holds %s", bal)
	}
	b := m.balances()
	if b[axp.AcctSellerPaid] != 2*net {
		t.Fatalf("seller_paid %s, want %s", b[axp.AcctSellerPaid], 2*net)
	}
	r := m.reconciled()
	if !r.Covered || len(r.MissingTransfers) != 0 {
		t.Fatalf("reconcile: %+v", r)
	}
}

// Reconcile checks a payout's transaction for what the entry books: the seller's part to its payout
// address, from an exchange wallet, in full, and one transaction for one movement. Entries as the
// approval used to book them (the buyer's payment, a transfer to someone else, too small a
// transfer, one sent by an outsider, one transfer booked twice) are listed as missing transfers,
// each with the amount that did not leave; reconcile is not covered. (It used to ask only that the transaction exist and move
// some of the token.)
func TestChainReconcileListsPayoutsTheChainDoesNotShow(t *testing.T) {
	m := newChainMarket(t)
	sellerAddr, _, _, task, payout := m.accepted()
	net := payout.SellerNetUSD
	paid := m.c.Transfer(m.hot, m.c.Token, sellerAddr, net)
	m.c.Mine(2)
	if _, err := m.approveTx(payout.ID, paid); err != nil {
		t.Fatal(err)
	}
	r := m.reconciled()
	if !r.Covered || len(r.MissingTransfers) != 0 {
		t.Fatalf("reconcile after a right manual payout: %+v", r)
	}
	var booked, payment axp.LedgerEntry
	for _, e := range m.entriesOf(task.ID) {
		switch e.Kind {
		case axp.ApprovePayout:
			booked = e
		case "payment":
			payment = e
		}
	}
	elsewhere := m.c.Transfer(m.hot, m.c.Token, chaintest.Addr(m.c.NewKey()), net)
	short := m.c.Transfer(m.hot, m.c.Token, sellerAddr, net-10_000)
	outsider := m.c.Transfer(m.buyerWallet(10_000_000), m.c.Token, sellerAddr, net)
	m.c.Mine(2)
	// The entries the old approval booked: copies of the right one, made after it, with other
	// transactions.
	wrong := map[string]string{
		payment.TxHash: "also booked by ledger entry " + payment.ID,
		elsewhere:      "nothing to the seller's payout address " + sellerAddr,
		short:          "US$0.01 short",
		outsider:       "not from an exchange wallet",
		paid:           "also booked by ledger entry " + booked.ID,
	}
	var ids []string
	if err := m.d.DB().Update(func(tx *store.Tx) error {
		for hash := range wrong {
			e := booked
			e.ID, e.TxHash = axp.NewID("led", booked.At.Add(time.Minute)), hash
			ids = append(ids, e.ID)
			if err := tx.PutLedger(&e); err != nil {
				return err
			}
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	r = *callOp(t, m.admin, contract.AdminReconcile, contract.NoInput{})
	if r.Covered || len(r.MissingTransfers) != len(wrong) {
		t.Fatalf("reconcile after the wrong entries: %+v", r)
	}
	want := map[string]axp.Money{}
	for hash := range wrong {
		want[hash] = net
	}
	want[short] = 10_000
	for _, g := range r.MissingTransfers {
		if !slices.Contains(ids, g.EntryID) || g.TaskID != task.ID || g.Amount != want[g.TxHash] || !strings.Contains(g.Why, wrong[g.TxHash]) {
			t.Errorf("missing transfer %+v; want %s missing: %q", g, want[g.TxHash], wrong[g.TxHash])
		}
	}
}

// On an exchange with a chain and no hot wallet, the operator sends a refund by hand from the
// deposit address: it is checked the same way, to the address the buyer paid from. A transfer of
// it from another wallet is refused; the right one is booked, and reconcile is covered.
func TestChainManualRefundFromTheDepositAddress(t *testing.T) {
	c := chaintest.Start(t)
	depositKey := c.NewKey()
	m := &chainMarket{tb: t, c: c, deposit: chaintest.Addr(depositKey), dir: t.TempDir()}
	m.env = m.start() // no payout_key_file: the manual rail
	seller := m.instantSeller("text-file", "4.50", 30, nil, map[string]any{"payout_address": chaintest.Addr(c.NewKey())})
	buyer, task := m.awaiting(seller)
	bk := m.buyerWallet(10_000_000)
	part := usd(t, "1.00")
	paid := c.Transfer(bk, c.Token, m.deposit, part)
	c.Mine(1)
	callOp(t, buyer, contract.PayCryptoOp, axp.PayCryptoInput{TaskRef: axp.TaskRef{ID: task.ID}, TxHash: paid, PayerSignature: m.payerSig(bk, task.ID)})
	eventually(t, func() error {
		if got := getTask(t, buyer, task.ID); got.Payment.ReceivedUSD != part {
			return fmt.Errorf("payment %+v", got.Payment)
		}
		return nil
	})
	callOp(t, buyer, contract.CancelTask, axp.CancelInput{TaskRef: axp.TaskRef{ID: task.ID}})
	refund := m.approvalOf(task.ID, axp.ApproveRefund)

	fromOutsider := c.Transfer(m.buyerWallet(10_000_000), c.Token, chaintest.Addr(bk), part)
	fromDeposit := c.Transfer(depositKey, c.Token, chaintest.Addr(bk), part)
	c.Mine(2)
	_, err := m.approveTx(refund.ID, fromOutsider)
	if e := apiErr(t, err, axp.CodeInvalidInput, "tx_hash"); !strings.Contains(e.Message, "not from an exchange wallet") ||
		!strings.Contains(e.Hint, "from the deposit address "+m.deposit) {
		t.Fatalf("a refund from another wallet: %v (%s)", e, e.Hint)
	}
	a, err := m.approveTx(refund.ID, fromDeposit)
	if err != nil || a.Status != axp.ApprovalApproved || a.TxHash != fromDeposit {
		t.Fatalf("the refund from the deposit address: %+v %v", a, err)
	}
	if got := getTask(t, buyer, task.ID); got.Status != axp.TaskRefunded {
		t.Fatalf("task after the refund: %s", got.Status)
	}
	r := m.reconciled()
	if !r.Covered || len(r.MissingTransfers) != 0 || r.DifferenceUSD != 0 {
		t.Fatalf("reconcile: %+v", r)
	}
}
