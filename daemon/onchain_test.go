package daemon_test

import (
	"context"
	"crypto/ecdsa"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/axp-exchange/axp"
	"github.com/axp-exchange/axp/client"
	"github.com/axp-exchange/axp/contract"
	"github.com/axp-exchange/axp/daemon"
	"github.com/axp-exchange/axp/daemon/chain"
	"github.com/axp-exchange/axp/daemon/chain/chaintest"
	"github.com/axp-exchange/axp/store"
)

// chainMarket is an exchange on a real local chain: the evm verifier and watcher read TestUSD
// transfers to the deposit address, and the hot wallet (funded with 100 TUSD) sends payouts.
type chainMarket struct {
	*env
	tb      *testing.T
	c       *chaintest.Chain
	deposit string
	// depositKey holds the deposit address: a test can take money out of it as a thief would.
	depositKey *ecdsa.PrivateKey
	hot        *ecdsa.PrivateKey
	keyFile    string
	dir        string
}

func newChainMarket(t *testing.T, mod ...func(*daemon.Config)) *chainMarket {
	t.Helper()
	return newChainMarketOn(t, chaintest.Start(t), mod...)
}

// newChainMarketOn is newChainMarket on a chain already started.
func newChainMarketOn(t *testing.T, c *chaintest.Chain, mod ...func(*daemon.Config)) *chainMarket {
	t.Helper()
	dk := c.NewKey()
	m := &chainMarket{tb: t, c: c, deposit: chaintest.Addr(dk), depositKey: dk, hot: c.NewKey(), dir: t.TempDir()}
	m.keyFile = filepath.Join(t.TempDir(), "hot.key")
	if err := os.WriteFile(m.keyFile, []byte(chaintest.KeyHex(m.hot)), 0o600); err != nil {
		t.Fatal(err)
	}
	c.Mint(c.Token, chaintest.Addr(m.hot), 100_000_000)
	m.env = m.start(mod...)
	return m
}

// start (re)starts the exchange on the market's data dir.
func (m *chainMarket) start(mod ...func(*daemon.Config)) *env {
	return newMarket(m.tb, append([]func(*daemon.Config){func(cfg *daemon.Config) {
		cfg.DataDir = m.dir
		cfg.ChainRPCURL, cfg.ChainID, cfg.TokenAddress = m.c.URL, m.c.ID, m.c.Token
		cfg.DepositAddress, cfg.Confirmations, cfg.ChainPoll = m.deposit, 2, 50*time.Millisecond
		cfg.PayoutKeyFile = m.keyFile
	}}, mod...)...)
}

// payerSig is key's signature of a task's payer message: it binds key's transfers to the task,
// whatever their amount.
func (m *chainMarket) payerSig(key *ecdsa.PrivateKey, taskID string) string {
	m.tb.Helper()
	sig, err := chain.SignText(key, axp.PayerMessage(taskID, m.c.ID, m.deposit))
	if err != nil {
		m.tb.Fatal(err)
	}
	return sig
}

// reconciled reads admin_reconcile.
func (m *chainMarket) reconciled() axp.Reconciliation {
	m.tb.Helper()
	var r axp.Reconciliation
	if err := m.admin.Call(context.Background(), "admin_reconcile", nil, &r); err != nil {
		m.tb.Fatal(err)
	}
	return r
}

// unknownListed waits until reconcile lists tx among the transfers that fund no task.
func (m *chainMarket) unknownListed(tx string) {
	m.tb.Helper()
	eventually(m.tb, func() error {
		for _, u := range m.reconciled().UnknownTransfers {
			if strings.EqualFold(u.TxHash, tx) {
				return nil
			}
		}
		return fmt.Errorf("transfer %s is not listed as unknown", tx)
	})
}

// buyerWallet is a fresh key holding amount of TUSD.
func (m *chainMarket) buyerWallet(amount axp.Money) *ecdsa.PrivateKey {
	k := m.c.NewKey()
	m.c.Mint(m.c.Token, chaintest.Addr(k), amount)
	return k
}

// awaiting posts a task, has an instant seller offer it for 4.50 and chooses the offer.
func (m *chainMarket) awaiting(seller *member) (*client.Client, axp.Task) {
	t := m.t
	created, _ := createTask(t, m.anon, map[string]any{"type": "text-file", "params": map[string]any{"prompt": "a poem"}})
	buyer := m.anon.With(created.BuyerToken)
	task := waitStatus(t, buyer, created.ID, axp.TaskOpen)
	var chosen axp.Task
	chosen = *callOp(t, buyer, contract.ChooseOffer, axp.ChooseInput{TaskRef: axp.TaskRef{ID: created.ID}, OfferID: offerOf(t, task.Offers, seller.MemberID).OfferID})
	if chosen.Status != axp.TaskAwaitingPayment {
		t.Fatalf("after choose: %s", chosen.Status)
	}
	return buyer, chosen
}

// accepted runs a task to its payout item: a seller offering 4.50 with a payout address, a buyer
// paying the payable amount from a wallet of 10.00, the delivery accepted.
func (m *chainMarket) accepted() (sellerAddr string, seller *member, buyer *client.Client, task axp.Task, payout axp.Approval) {
	t := m.tb
	t.Helper()
	sellerAddr = chaintest.Addr(m.c.NewKey())
	seller = m.instantSeller("text-file", "4.50", 30, nil, map[string]any{"payout_address": sellerAddr})
	buyer, task = m.awaiting(seller)
	m.c.Transfer(m.buyerWallet(10_000_000), m.c.Token, m.deposit, task.Payment.PayableUSD)
	m.c.Mine(2)
	waitStatus(t, buyer, task.ID, axp.TaskPaid)
	return sellerAddr, seller, buyer, task, m.payoutQueued(seller, buyer, task.ID)
}

// payoutQueued runs a funded task to its payout item: the seller delivers, the buyer retrieves and
// accepts, the seller asks to be paid.
func (m *chainMarket) payoutQueued(seller *member, buyer *client.Client, taskID string) axp.Approval {
	t := m.tb
	t.Helper()
	deliverText(t, seller.c, taskID, "Waves fold the light.")
	retrieve(t, buyer, taskID)
	callOp(t, buyer, contract.AcceptTask, axp.AcceptInput{TaskRef: axp.TaskRef{ID: taskID}})
	callOp(t, seller.c, contract.RequestPayment, axp.IDPath{ID: taskID})
	return m.approvalOf(taskID, axp.ApprovePayout)
}

func TestChainPaymentFoundAndPayoutSent(t *testing.T) {
	m := newChainMarket(t)
	sellerAddr := chaintest.Addr(m.c.NewKey())
	seller := m.instantSeller("text-file", "4.50", 30, nil, map[string]any{"payout_address": sellerAddr})
	buyer, task := m.awaiting(seller)

	// The buyer is told exactly how to pay.
	p := task.Payment
	if p == nil || p.ChainID != chaintest.ID || !strings.EqualFold(p.TokenAddress, m.c.Token) || p.TokenSymbol != "TUSD" || p.TokenDecimals != 6 ||
		!strings.EqualFold(p.DepositAddress, m.deposit) || p.PayBy == nil || p.Verifier != "evm" {
		t.Fatalf("payment = %+v", p)
	}
	if p.PayableUnits != strconv.FormatInt(int64(p.PayableUSD), 10) {
		t.Fatalf("payable units %s for %s", p.PayableUnits, p.PayableUSD)
	}
	if want := "ethereum:" + m.c.Token + "@31337/transfer?address=" + m.deposit + "&uint256=" + strconv.FormatInt(int64(p.PayableUSD), 10); p.PaymentURI != want {
		t.Fatalf("payment_uri %s, want %s", p.PaymentURI, want)
	}

	// The buyer overpays by one dollar: another amount than payable_usd names no task by itself,
	// so the buyer reports it with its signature of the task's payer message.
	bk := m.buyerWallet(10_000_000)
	over := m.c.Transfer(bk, m.c.Token, m.deposit, p.PayableUSD+1_000_000)
	m.c.Mine(1)
	callOp(t, buyer, contract.PayCryptoOp, axp.PayCryptoInput{TaskRef: axp.TaskRef{ID: task.ID}, TxHash: over, PayerSignature: m.payerSig(bk, task.ID)})
	got := waitStatus(t, buyer, task.ID, axp.TaskPaid)
	if got.Payment.ReceivedUSD != p.PayableUSD+1_000_000 {
		t.Fatalf("received %s", got.Payment.ReceivedUSD)
	}
	if a := m.approvalOf(task.ID, axp.ApprovePayment); a.Status != axp.ApprovalApproved || !strings.Contains(a.Note, "evm verifier") {
		t.Fatalf("payment item %+v", a)
	}

	// The job runs; the buyer accepts; the seller asks to be paid; the operator approves with no
	// tx hash: the hot wallet sends the seller's net and the buyer's excess.
	payout := m.payoutQueued(seller, buyer, task.ID)
	sent := m.approve(payout.ID, false)
	if sent.Status != axp.ApprovalSent || sent.Rail != "evm" || len(sent.Transfers) != 2 || sent.TxHash == "" {
		t.Fatalf("approved: %+v", sent)
	}
	for _, x := range sent.Transfers {
		if x.Raw != "" || x.Status != axp.TransferSent {
			t.Fatalf("transfer in the answer: %+v", x)
		}
	}
	m.c.Mine(2)
	eventually(t, func() error {
		if a := m.approvalOf(task.ID, axp.ApprovePayout); a.Status != axp.ApprovalConfirmed {
			return fmt.Errorf("payout is %s", a.Status)
		}
		return nil
	})
	waitStatus(t, buyer, task.ID, axp.TaskReleased)
	net := usd(t, "4.50") - feeOf(usd(t, "4.50"))
	if bal := m.c.Balance(m.c.Token, sellerAddr); bal != net {
		t.Fatalf("seller holds %s, want its net %s", bal, net)
	}
	// The seller's earnings show the payout paid and its address's balance on the chain.
	var earned axp.Earnings
	earned = *callOp(t, seller.c, contract.GetMyEarnings, contract.NoInput{})
	if earned.PaidUSD != net || earned.PayoutBalanceUSD == nil || *earned.PayoutBalanceUSD != net || earned.PayoutAddress != sellerAddr {
		t.Fatalf("earnings after the payout: %+v", earned)
	}
	// Everything beyond the price (the dollar and the tag) went back to the buyer's address.
	if bal := m.c.Balance(m.c.Token, chaintest.Addr(bk)); bal != 10_000_000-usd(t, "4.50") {
		t.Fatalf("buyer holds %s after the refund of the excess", bal)
	}
	b := m.balances()
	if b[axp.AcctSellerPaid] != net || b[axp.AcctBuyerRefund] != p.PayableUSD+1_000_000-usd(t, "4.50") {
		t.Fatalf("balances %v", b)
	}

	// Reconcile: the chain and the ledger agree.
	var r axp.Reconciliation
	r = *callOp(t, m.admin, contract.AdminReconcile, contract.NoInput{})
	// The hot wallet's 100 TUSD float is the only difference.
	if !r.Covered || r.DifferenceUSD != 100_000_000 || len(r.UnknownTransfers) != 0 || len(r.MissingTransfers) != 0 || len(r.InFlight) != 0 {
		t.Fatalf("reconcile: %+v", r)
	}
}

func TestChainReportsRefusedPartialAndUnknown(t *testing.T) {
	m := newChainMarket(t)
	seller := m.instantSeller("text-file", "4.50", 30, nil, map[string]any{"payout_address": chaintest.Addr(m.c.NewKey())})
	bk := m.buyerWallet(50_000_000)
	early := m.c.Transfer(bk, m.c.Token, m.deposit, 1_000_000) // before the task exists
	time.Sleep(1100 * time.Millisecond)                        // block times are whole seconds
	buyer, task := m.awaiting(seller)
	payable := task.Payment.PayableUSD

	other := m.c.Deploy()
	m.c.Mint(other, chaintest.Addr(bk), 10_000_000)
	for _, tc := range []struct {
		name, tx, want string
	}{
		{"another token", m.c.Transfer(bk, other, m.deposit, payable), "moves none of the stablecoin"},
		{"another recipient", m.c.Transfer(bk, m.c.Token, chaintest.Addr(m.c.NewKey()), payable), "not to the deposit address"},
		{"reverted", m.c.Reverted(bk, m.deposit, 999_000_000), "reverted on chain"},
		{"before the task", early, "before the task was posted"},
	} {
		_, err := doOp(buyer, contract.PayCryptoOp, axp.PayCryptoInput{TaskRef: axp.TaskRef{ID: task.ID}, TxHash: tc.tx})
		if e := apiErr(t, err, axp.CodeInvalidInput, "tx_hash"); !strings.Contains(e.Message, tc.want) {
			t.Errorf("%s: %v", tc.name, e)
		}
	}
	if got := getTask(t, buyer, task.ID); got.Status != axp.TaskAwaitingPayment || got.Payment.TxHash != "" {
		t.Fatalf("after refused reports: %s %+v", got.Status, got.Payment)
	}

	// Half is paid and reported: the task waits for the rest and says what is missing.
	half := m.c.Transfer(bk, m.c.Token, m.deposit, 2_250_000)
	m.c.Mine(1)
	var res map[string]any
	call(t, buyer, "pay_crypto", map[string]any{"id": task.ID, "tx_hash": half, "payer_signature": m.payerSig(bk, task.ID)}, &res)
	got := getTask(t, buyer, task.ID)
	if got.Status != axp.TaskAwaitingPayment || got.Payment.Status != "partial" || got.Payment.MissingUSD != 2_250_000 ||
		got.Payment.ReceivedUSD != 2_250_000 || got.Payment.PayableUSD >= 2_250_000 || got.Payment.PayableUSD <= 2_240_000 {
		t.Fatalf("after half: %+v (%v)", got.Payment, res)
	}
	if !strings.Contains(res["message"].(string), "US$2.25 is still due") {
		t.Fatalf("message %v", res["message"])
	}
	// The rest, sent without a report, is found by its payable amount.
	m.c.Transfer(bk, m.c.Token, m.deposit, got.Payment.PayableUSD)
	m.c.Mine(1)
	waitStatus(t, buyer, task.ID, axp.TaskPaid)
	// A stray transfer funds nothing and is listed for the operator.
	stray := m.c.Transfer(bk, m.c.Token, m.deposit, 777_000)
	m.c.Mine(2)
	eventually(t, func() error {
		var r axp.Reconciliation
		if err := m.admin.Call(context.Background(), "admin_reconcile", nil, &r); err != nil {
			return err
		}
		for _, u := range r.UnknownTransfers {
			if u.TxHash == stray && u.Outcome == axp.InboundUnmatched {
				return nil
			}
		}
		return fmt.Errorf("stray transfer not listed: %+v", r.UnknownTransfers)
	})
	m.balances()
}

// A payout stored as sent whose transaction the node lost (as after a crash between storing and
// broadcasting) is broadcast again after a restart from the stored bytes: paid once.
func TestChainPayoutSurvivesRestart(t *testing.T) {
	m := newChainMarket(t)
	sellerAddr, _, buyer, task, _ := m.accepted()

	m.c.SetAutomine(false)
	sent := m.approve(m.approvalOf(task.ID, axp.ApprovePayout).ID, false)
	if sent.Status != axp.ApprovalSent || len(sent.Transfers) != 1 {
		t.Fatalf("approved: %+v", sent)
	}
	m.close()
	m.c.DropTransaction(sent.Transfers[0].TxHash)
	m.c.SetAutomine(true)

	m.env = m.start()
	buyer = m.anon.With(buyer.Token)
	m.c.Mine(2)
	eventually(t, func() error {
		if a := m.approvalOf(task.ID, axp.ApprovePayout); a.Status != axp.ApprovalConfirmed {
			return fmt.Errorf("payout is %s", a.Status)
		}
		return nil
	})
	net := usd(t, "4.50") - feeOf(usd(t, "4.50"))
	if bal := m.c.Balance(m.c.Token, sellerAddr); bal != net {
		t.Fatalf("seller holds %s, want %s once", bal, net)
	}
	// The approval cannot be sent a second time.
	_, err := doOp(m.admin, contract.AdminApprove, axp.ApproveBody{ID: sent.ID})
	apiErr(t, err, axp.CodeConflict, "")
	waitStatus(t, buyer, task.ID, axp.TaskReleased)
	m.balances()
}

func TestChainFailedPayoutReturnsToTheQueue(t *testing.T) {
	m := newChainMarket(t)
	sellerAddr, _, buyer, task, payout := m.accepted()

	// The hot wallet is emptied: approving says so and nothing is sent.
	m.c.Transfer(m.hot, m.c.Token, m.deposit, m.c.Balance(m.c.Token, chaintest.Addr(m.hot)))
	_, err := doOp(m.admin, contract.AdminApprove, axp.ApproveBody{ID: payout.ID})
	if e := apiErr(t, err, axp.CodeConflict, ""); !strings.Contains(e.Message, "insufficient balance") {
		t.Fatalf("empty wallet: %v", e)
	}
	if a := m.approvalOf(task.ID, axp.ApprovePayout); a.Status != axp.ApprovalPending || len(a.Transfers) != 0 {
		t.Fatalf("after a refused send: %+v", a)
	}
	// The queue and reconcile say the hot wallet cannot cover the queue, and by how much.
	net := usd(t, "4.50") - feeOf(usd(t, "4.50"))
	var q axp.ApprovalList
	q = *callOp(t, m.admin, contract.AdminApprovals, axp.ApprovalsQuery{})
	if f := q.Float; f == nil || f.BalanceUSD != 0 || f.QueuedUSD != net || f.ShortUSD != net || !strings.EqualFold(f.HotWalletAddress, chaintest.Addr(m.hot)) {
		t.Fatalf("float in the queue: %+v", q.Float)
	}
	var r axp.Reconciliation
	r = *callOp(t, m.admin, contract.AdminReconcile, contract.NoInput{})
	if r.QueuedUSD != net || r.FloatShortUSD != net {
		t.Fatalf("reconcile: queued %s short %s", r.QueuedUSD, r.FloatShortUSD)
	}
	// Funded again, it is sent and confirmed.
	m.c.Mint(m.c.Token, chaintest.Addr(m.hot), 10_000_000)
	m.approve(payout.ID, false)
	m.c.Mine(2)
	waitStatus(t, buyer, task.ID, axp.TaskReleased)
	if bal := m.c.Balance(m.c.Token, sellerAddr); bal != usd(t, "4.50")-feeOf(usd(t, "4.50")) {
		t.Fatalf("seller holds %s", bal)
	}
}

// A payout the node refused (the hot wallet has no ETH for gas) is approved again: the retry signs
// the same transaction (the first never reached the chain: same nonce, same hash) and it takes the
// place of the failed transfer, so the item lists one transfer for its one part, not one per
// attempt. Once the wallet has gas, the retry is sent and confirmed, still as one transfer.
func TestChainRetriedPayoutReplacesTheFailedTransfer(t *testing.T) {
	m := newChainMarket(t)
	sellerAddr, _, buyer, task, payout := m.accepted()

	m.c.SetETH(chaintest.Addr(m.hot), 0)
	first := m.approve(payout.ID, false)
	if first.Status != axp.ApprovalFailed || len(first.Transfers) != 1 || first.Transfers[0].Status != axp.TransferFailed {
		t.Fatalf("a payout the node refuses: %+v", first)
	}
	again := m.approve(payout.ID, false)
	if again.Status != axp.ApprovalFailed || len(again.Transfers) != 1 || again.Transfers[0].Status != axp.TransferFailed ||
		again.Transfers[0].TxHash != first.Transfers[0].TxHash || again.Transfers[0].Nonce != first.Transfers[0].Nonce {
		t.Fatalf("approved again: %+v\nthe first attempt: %+v", again.Transfers, first.Transfers)
	}

	m.c.SetETH(chaintest.Addr(m.hot), 1)
	sent := m.approve(payout.ID, false)
	if sent.Status != axp.ApprovalSent || len(sent.Transfers) != 1 || sent.Transfers[0].Status != axp.TransferSent || sent.Transfers[0].Part != "seller" {
		t.Fatalf("approved with gas: %+v", sent)
	}
	m.c.Mine(2)
	waitStatus(t, buyer, task.ID, axp.TaskReleased)
	if a := m.approvalOf(task.ID, axp.ApprovePayout); a.Status != axp.ApprovalConfirmed || len(a.Transfers) != 1 || a.Transfers[0].TxHash != sent.Transfers[0].TxHash {
		t.Fatalf("confirmed: %+v", a)
	}
	if bal := m.c.Balance(m.c.Token, sellerAddr); bal != usd(t, "4.50")-feeOf(usd(t, "4.50")) {
		t.Fatalf("seller holds %s", bal)
	}
}

func TestNoDepositAddressAnswers503(t *testing.T) {
	e := newMarket(t, func(c *daemon.Config) { c.DepositAddress = "" })
	seller := e.instantSeller("text-file", "4.50", 30, nil, nil)
	created, _ := createTask(t, e.anon, map[string]any{"type": "text-file", "params": map[string]any{"prompt": "a poem"}})
	buyer := e.anon.With(created.BuyerToken)
	task := waitStatus(t, buyer, created.ID, axp.TaskOpen)
	_, err := doOp(buyer, contract.ChooseOffer, axp.ChooseInput{TaskRef: axp.TaskRef{ID: created.ID}, OfferID: offerOf(t, task.Offers, seller.MemberID).OfferID})
	if e := apiErr(t, err, axp.CodeUnavailable, ""); !strings.Contains(e.Message, "deposit_address") {
		t.Fatalf("choose without a deposit address: %v", e)
	}
	if got := getTask(t, buyer, created.ID); got.Status != axp.TaskOpen {
		t.Fatalf("task %s after the refusal", got.Status)
	}
	var cursor bool
	e.d.DB().View(func(tx *store.Tx) error { _, cursor = tx.ChainCursor(); return nil })
	if cursor {
		t.Fatal("a watcher ran without a chain")
	}
}

// Two payouts approved at the same moment take different nonces and both arrive.
func TestChainConcurrentApprovalsTakeTheirOwnNonces(t *testing.T) {
	m := newChainMarket(t)
	sellerAddr := chaintest.Addr(m.c.NewKey())
	seller := m.instantSeller("text-file", "4.50", 30, nil, map[string]any{"payout_address": sellerAddr})
	bk := m.buyerWallet(50_000_000)
	var items []string
	var buyers []*client.Client
	var ids []string
	for range 3 {
		buyer, task := m.awaiting(seller)
		m.c.Transfer(bk, m.c.Token, m.deposit, task.Payment.PayableUSD)
		buyers, ids = append(buyers, buyer), append(ids, task.ID)
	}
	m.c.Mine(1)
	for i, id := range ids {
		waitStatus(t, buyers[i], id, axp.TaskPaid)
		deliverText(t, seller.c, id, "Waves fold the light.")
		retrieve(t, buyers[i], id)
		callOp(t, buyers[i], contract.AcceptTask, axp.AcceptInput{TaskRef: axp.TaskRef{ID: id}})
		callOp(t, seller.c, contract.RequestPayment, axp.IDPath{ID: id})
		items = append(items, m.approvalOf(id, axp.ApprovePayout).ID)
	}
	var wg sync.WaitGroup
	sent := make([]axp.Approval, len(items))
	for i, id := range items {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := m.admin.Call(context.Background(), "admin_approve", map[string]any{"id": id}, &sent[i]); err != nil {
				t.Errorf("approve %s: %v", id, err)
			}
		}()
	}
	wg.Wait()
	nonces := map[uint64]bool{}
	for _, a := range sent {
		if len(a.Transfers) != 1 || nonces[a.Transfers[0].Nonce] {
			t.Fatalf("transfers %+v (nonces so far %v)", a.Transfers, nonces)
		}
		nonces[a.Transfers[0].Nonce] = true
	}
	m.c.Mine(2)
	for i, id := range ids {
		waitStatus(t, buyers[i], id, axp.TaskReleased)
	}
	net := usd(t, "4.50") - feeOf(usd(t, "4.50"))
	if bal := m.c.Balance(m.c.Token, sellerAddr); bal != 3*net {
		t.Fatalf("seller holds %s, want %s", bal, 3*net)
	}
	m.balances()
}
