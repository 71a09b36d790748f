package daemon_test

import (
	"context"
	"crypto/ecdsa"
	"encoding/json"
	"fmt"
	"math/big"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/axp-exchange/axp"
	"github.com/axp-exchange/axp/client"
	"github.com/axp-exchange/axp/daemon/chain/chaintest"
	"github.com/axp-exchange/axp/daemon/chain/escrow"
	"github.com/axp-exchange/axp/store"
	ethereum "github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/ethclient"
)

// sendEscrow signs data to the escrow from key's address and sends it; the node's gas estimate
// answers the escrow's refusal before anything is sent.
func (m *escrowMarket) sendEscrow(key *ecdsa.PrivateKey, data []byte) (common.Hash, error) {
	m.tb.Helper()
	return sendEscrowCall(m.tb, m.ec, m.k.Escrow, key, data)
}

// sendEscrowCall signs data to the escrow at to from key's address, as a wallet does, and sends it;
// the node's gas estimate answers the escrow's refusal before anything is sent.
func sendEscrowCall(tb testing.TB, ec *ethclient.Client, to common.Address, key *ecdsa.PrivateKey, data []byte) (common.Hash, error) {
	tb.Helper()
	ctx := context.Background()
	from := common.HexToAddress(chaintest.Addr(key))
	gas, err := ec.EstimateGas(ctx, ethereum.CallMsg{From: from, To: &to, Data: data})
	if err != nil {
		return common.Hash{}, err
	}
	nonce, err := ec.PendingNonceAt(ctx, from)
	if err != nil {
		tb.Fatal(err)
	}
	price, err := ec.SuggestGasPrice(ctx)
	if err != nil {
		tb.Fatal(err)
	}
	tx, err := types.SignTx(types.NewTx(&types.LegacyTx{Nonce: nonce, To: &to, Gas: gas * 2, GasPrice: new(big.Int).Mul(price, big.NewInt(2)), Data: data}),
		types.LatestSignerForChainID(big.NewInt(int64(chaintest.ID))), key)
	if err != nil {
		tb.Fatal(err)
	}
	if err := ec.SendTransaction(ctx, tx); err != nil {
		tb.Fatal(err)
	}
	return tx.Hash(), nil
}

// paymentOf is the escrow payment task was paid by, payer included, as the reclaim names it.
func paymentOf(t *testing.T, task axp.Task, payer *ecdsa.PrivateKey) escrow.PaymentInfo {
	t.Helper()
	info, err := escrow.ParseTerms(task.Payment.Escrow.PaymentInfo)
	if err != nil {
		t.Fatal(err)
	}
	info.Payer = common.HexToAddress(chaintest.Addr(payer))
	return info
}

// escrowView reads a task's escrow block as c sees it, checking get_task's answer against its
// declared output schema.
func escrowView(t *testing.T, c *client.Client, id string) axp.EscrowHold {
	t.Helper()
	k := newContract(t)
	k.call(c, "get_task", map[string]any{"id": id})
	for key, v := range k.mismatch {
		t.Errorf("get_task does not match its declared output schema: %s (value %s)", key, v)
	}
	got := getTask(t, c, id)
	if got.Escrow == nil {
		t.Fatalf("task %s shows no escrow: %+v", id, got)
	}
	return *got.Escrow
}

// The buyer's protection: once the escrow payment's authorization expiry has passed, the exchange
// refuses to sign a capture (naming the expiry, nothing sent) and the buyer reclaims the money from
// the escrow with no exchange involved. The watcher notices the escrow's PaymentReclaimed: the
// ledger books contract:<task> to external:refund, the queued payout is closed, the task ends
// refunded with a timeline entry saying the buyer reclaimed the escrowed money, and reconcile
// agrees with the chain. The blocks read again (a crash before the cursor moved) book nothing more.
func TestChainEscrowReclaim(t *testing.T) {
	m := newEscrowMarket(t)
	// The front door says that buyers may pay into the escrow and take the money back themselves.
	browser := "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"
	for _, accept := range []string{browser, "text/markdown", "application/json"} {
		if _, body := get(t, m.srv.URL+"/", accept); !strings.Contains(body, "escrow contract "+m.k.Escrow.Hex()) || !strings.Contains(body, "axp wallet reclaim TASK") {
			t.Fatalf("the front door (%s) does not say the exchange runs the escrow rail:\n%s", accept, body)
		}
	}
	payout := chaintest.Addr(m.c.NewKey())
	p := m.newPushSeller("text-file", nil, nil, map[string]any{"payout_address": payout,
		"skills": []map[string]any{{"task_type": "text-file", "instant_price_usd": json.Number("4.50"), "instant_eta_minutes": 30}}})
	seller := p.member
	buyer, task, kb := m.paidIntoEscrow(seller, axp.TaskInProgress) // paid, then started by the seller
	price := task.Payment.AmountUSD
	item := m.payoutQueued(seller, buyer, task.ID)

	info := paymentOf(t, task, kb)
	// The task shows the buyer where the money is and how to take it back.
	h := escrowView(t, buyer, task.ID)
	if !strings.EqualFold(h.EscrowAddress, m.k.Escrow.Hex()) || h.State != axp.EscrowHeld || h.AmountUSD != price ||
		h.AuthorizationExpiry.Unix() != int64(info.AuthorizationExpiry) || h.Reclaim != "axp wallet reclaim "+task.ID ||
		!strings.EqualFold(h.PaymentHash, escrow.Hash(chaintest.ID, m.k.Escrow, info).Hex()) || !strings.EqualFold(h.PaymentInfo.Payer, chaintest.Addr(kb)) {
		t.Fatalf("the buyer's escrow view %+v", h)
	}
	if s := escrowView(t, seller.c, task.ID); s.State != axp.EscrowHeld || s.Reclaim != "" {
		t.Fatalf("the seller's escrow view %+v", s)
	}
	data, err := escrow.Reclaim(info)
	if err != nil {
		t.Fatal(err)
	}
	// Before the expiry the escrow refuses the buyer's reclaim.
	if _, err := m.sendEscrow(kb, data); err == nil {
		t.Fatal("the escrow took a reclaim before the authorization expiry")
	} else if r, ok := escrow.RevertOf(err); !ok || r.Name != "BeforeAuthorizationExpiry" {
		t.Fatalf("early reclaim refused with %v", err)
	}

	m.c.SetTime(time.Unix(int64(info.AuthorizationExpiry)+1, 0))
	m.c.Mine(1)
	_, err = do(m.admin, "admin_approve", map[string]any{"id": item.ID})
	e := apiErr(t, err, axp.CodeConflict, "")
	if want := "authorization expiry passed at " + time.Unix(int64(info.AuthorizationExpiry), 0).UTC().Format(time.RFC3339); !strings.Contains(e.Message, want) {
		t.Fatalf("a payout after the expiry refused with %q; want it to say %q", e.Message, want)
	}
	if a := m.approvalOf(task.ID, axp.ApprovePayout); a.Status != axp.ApprovalPending || len(a.Transfers) != 0 || m.held() != price {
		t.Fatalf("after the refused capture: item %+v, escrow holds %s", a, m.held())
	}

	hash, err := m.sendEscrow(kb, data)
	if err != nil {
		t.Fatalf("the buyer's reclaim after the expiry: %v", err)
	}
	eventually(t, func() error {
		if r := m.c.Receipt(hash.Hex()); r == nil || r.Status != types.ReceiptStatusSuccessful {
			return fmt.Errorf("reclaim receipt %+v", r)
		}
		return nil
	})
	m.c.Mine(2)
	got := waitStatus(t, buyer, task.ID, axp.TaskRefunded)
	if bal := m.c.Balance(m.c.Token, chaintest.Addr(kb)); bal != 10_000_000 || m.held() != 0 || m.c.Balance(m.c.Token, payout) != 0 {
		t.Fatalf("after the reclaim: buyer %s, escrow %s, seller %s", bal, m.held(), m.c.Balance(m.c.Token, payout))
	}
	if a := m.approvalOf(task.ID, axp.ApprovePayout); a.Status != axp.ApprovalRejected || a.ClosedAs != "closed" || !strings.Contains(a.Note, "reclaimed") {
		t.Fatalf("the payout item after the reclaim: %+v", a)
	}
	kinds, events := timelineKinds(t, buyer, task.ID)
	i := slices.Index(kinds, "escrow_reclaimed")
	msg := ""
	if i >= 0 {
		msg, _ = events[i].Detail["message"].(string)
	}
	if !strings.Contains(msg, "the buyer reclaimed the escrowed") || !strings.Contains(msg, strings.ToLower(hash.Hex())) {
		t.Fatalf("timeline %v; reclaim event %+v", kinds, events)
	}
	if s := getTask(t, seller.c, task.ID); s.Status != axp.TaskRefunded {
		t.Fatalf("the seller reads %s", s.Status)
	}
	// The seller is told, as of any other ending.
	eventually(t, func() error {
		for _, u := range p.received("task_update", task.ID) {
			if u["status"] == axp.TaskRefunded {
				return nil
			}
		}
		return fmt.Errorf("the seller was not told: %v", p.received("task_update", task.ID))
	})
	b := m.balances()
	if b[axp.ContractAccount(task.ID)] != 0 || b[axp.AcctBuyerRefund] != price || b[axp.AcctSellerPaid] != 0 {
		t.Fatalf("ledger %v", b)
	}
	if r := m.reconciled(); !r.Covered || len(r.MissingTransfers) != 0 {
		t.Fatalf("reconcile after the reclaim: %+v", r)
	}
	if got.Payment == nil || got.Payment.Status != "confirmed" {
		t.Fatalf("payment after the reclaim %+v", got.Payment)
	}
	if h := escrowView(t, buyer, task.ID); h.State != axp.EscrowReclaimed || h.Reclaim != "" || !strings.EqualFold(h.ReclaimTxHash, hash.Hex()) {
		t.Fatalf("the escrow view after the reclaim %+v", h)
	}

	// The watcher reads the blocks again, as after a crash before its cursor moved: booked once.
	m.close()
	db, err := store.Open(filepath.Join(m.dir, store.FileName), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := db.Update(func(tx *store.Tx) error { return tx.SetChainCursor(1) }); err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	m.restart()
	head := m.c.Head()
	eventually(t, func() error {
		var cursor uint64
		m.d.DB().View(func(tx *store.Tx) error { cursor, _ = tx.ChainCursor(); return nil })
		if cursor+2 < head {
			return fmt.Errorf("the watcher read up to block %d of %d", cursor, head)
		}
		return nil
	})
	reclaims := 0
	for _, en := range m.entriesOf(task.ID) {
		if en.Kind == "reclaim" {
			reclaims++
		}
	}
	if b := m.balances(); reclaims != 1 || b[axp.AcctBuyerRefund] != price {
		t.Fatalf("%d reclaims booked after reading the blocks again; ledger %v", reclaims, b)
	}
}

// A capture sent before the authorization expiry but mined after it reverts: the payout item fails
// once, cleanly (no resend, no loop), and stays failed in the queue; approving it again is refused
// before anything is signed, naming the expiry. The buyer's reclaim then closes it and refunds the
// task.
func TestChainEscrowCaptureAfterExpiry(t *testing.T) {
	m := newEscrowMarket(t)
	payout := chaintest.Addr(m.c.NewKey())
	seller := m.instantSeller("text-file", "4.50", 30, nil, map[string]any{"payout_address": payout})
	buyer, task, kb := m.paidIntoEscrow(seller, axp.TaskPaid)
	item := m.payoutQueued(seller, buyer, task.ID)
	info := paymentOf(t, task, kb)

	m.c.SetAutomine(false)
	sent := m.approve(item.ID, false)
	if sent.Status != axp.ApprovalSent || len(sent.Transfers) != 1 || sent.Transfers[0].Part != "capture" {
		t.Fatalf("approved: %+v", sent)
	}
	m.c.SetTime(time.Unix(int64(info.AuthorizationExpiry)+1, 0))
	m.c.Mine(1)
	m.c.SetAutomine(true)
	failed := waitFor(t, func() (axp.Approval, error) {
		a := m.approvalOf(task.ID, axp.ApprovePayout)
		if a.Status != axp.ApprovalFailed {
			return a, fmt.Errorf("payout is %s", a.Status)
		}
		return a, nil
	})
	if len(failed.Transfers) != 1 || failed.Transfers[0].Status != axp.TransferFailed || !strings.Contains(failed.Failure, "reverted") || m.held() != task.Payment.AmountUSD {
		t.Fatalf("the failed capture: %+v; escrow holds %s", failed, m.held())
	}
	m.c.Mine(3)
	if a := m.approvalOf(task.ID, axp.ApprovePayout); a.Status != axp.ApprovalFailed || len(a.Transfers) != 1 || a.Transfers[0].TxHash != failed.Transfers[0].TxHash {
		t.Fatalf("the failed capture moved on: %+v", a)
	}
	_, err := do(m.admin, "admin_approve", map[string]any{"id": item.ID})
	if e := apiErr(t, err, axp.CodeConflict, ""); !strings.Contains(e.Message, "authorization expiry passed") {
		t.Fatalf("approving the failed capture again: %v", e)
	}

	data, err := escrow.Reclaim(info)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := m.sendEscrow(kb, data); err != nil {
		t.Fatalf("reclaim: %v", err)
	}
	m.c.Mine(2)
	waitStatus(t, buyer, task.ID, axp.TaskRefunded)
	if a := m.approvalOf(task.ID, axp.ApprovePayout); a.Status != axp.ApprovalRejected || a.ClosedAs != "closed" {
		t.Fatalf("the failed payout after the reclaim: %+v", a)
	}
	if b := m.balances(); b[axp.ContractAccount(task.ID)] != 0 || b[axp.AcctBuyerRefund] != task.Payment.AmountUSD || b[axp.AcctSellerPaid] != 0 {
		t.Fatalf("ledger %v", b)
	}
}

// A capture still waiting in the node's pool when the buyer's reclaim is seen stays sent (the
// reclaim closes only what is not on its way); once mined it reverts, and its item, failed, is
// closed at once: the contract holds nothing for it any more.
func TestChainEscrowCaptureAfterReclaim(t *testing.T) {
	m := newEscrowMarket(t)
	payout := chaintest.Addr(m.c.NewKey())
	seller := m.instantSeller("text-file", "4.50", 30, nil, map[string]any{"payout_address": payout})
	buyer, task, kb := m.paidIntoEscrow(seller, axp.TaskPaid)
	item := m.payoutQueued(seller, buyer, task.ID)
	info := paymentOf(t, task, kb)

	// The capture is signed before the expiry at today's fees, then the fees rise above what it
	// offers: it waits in the pool while the buyer, paying more, reclaims.
	m.c.SetAutomine(false)
	m.approve(item.ID, false)
	baseFee := func(wei *big.Int) {
		if err := m.ec.Client().Call(nil, "anvil_setNextBlockBaseFeePerGas", hexutil.EncodeBig(wei)); err != nil {
			t.Fatal(err)
		}
	}
	baseFee(big.NewInt(1_000_000_000_000)) // 1,000 gwei
	m.c.SetTime(time.Unix(int64(info.AuthorizationExpiry)+1, 0))
	m.c.Mine(1)
	data, err := escrow.Reclaim(info)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := m.sendEscrow(kb, data); err != nil {
		t.Fatalf("reclaim: %v", err)
	}
	m.c.Mine(3)
	waitStatus(t, buyer, task.ID, axp.TaskRefunded)
	if a := m.approvalOf(task.ID, axp.ApprovePayout); a.Status != axp.ApprovalSent {
		t.Fatalf("the capture on its way after the reclaim: %+v", a)
	}
	baseFee(big.NewInt(1))
	m.c.Mine(1)
	m.c.SetAutomine(true)
	eventually(t, func() error {
		if a := m.approvalOf(task.ID, axp.ApprovePayout); a.Status != axp.ApprovalRejected || a.ClosedAs != "closed" || !strings.Contains(a.Note, "reclaimed") {
			return fmt.Errorf("the payout item is %s (%s): %s", a.Status, a.Failure, a.Note)
		}
		return nil
	})
	if b := m.balances(); b[axp.ContractAccount(task.ID)] != 0 || b[axp.AcctBuyerRefund] != task.Payment.AmountUSD || b[axp.AcctSellerPaid] != 0 {
		t.Fatalf("ledger %v", b)
	}
}
