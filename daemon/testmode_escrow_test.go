package daemon_test

import (
	"context"
	"crypto/ecdsa"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/axp-exchange/axp"
	"github.com/axp-exchange/axp/client"
	"github.com/axp-exchange/axp/contract"
	"github.com/axp-exchange/axp/daemon/chain"
	"github.com/axp-exchange/axp/daemon/chain/escrow"
	"github.com/axp-exchange/axp/daemon/chain/testusd"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/ethclient"
)

// TestTestModeEscrow takes paid jobs through the escrow on test mode's own chain, with nothing else
// running, and counts the money on that chain. A job paid out: the buyer's wallet loses the price,
// the seller's address gets the net, the deposit address (the fee receiver) the fee, the escrow
// ends holding nothing and the hot wallet's TestUSD is untouched. A job refunded: the buyer is
// whole, the escrow holds nothing. A job whose authorization expiry passes (the chain's clock moved
// on): the payout is refused, the buyer reclaims the money without the exchange, the task ends
// refunded and the payout item closed.
func TestTestModeEscrow(t *testing.T) {
	m := testModeMarket(t, t.TempDir())
	ctx := context.Background()
	info, _ := m.d.TestChain()
	ec, err := ethclient.Dial(info.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer ec.Close()
	token, escrowAddr := common.HexToAddress(info.Token), common.HexToAddress(info.Escrow)
	store, err := escrow.TokenStore(ctx, ec, escrowAddr, common.HexToAddress(info.HotWallet))
	if err != nil {
		t.Fatal(err)
	}
	// held is what the escrow holds: its own balance and its token store's for the hot wallet.
	held := func() axp.Money {
		return balanceOf(t, ec, token, info.Escrow) + balanceOf(t, ec, token, store.Hex())
	}
	hot := balanceOf(t, ec, token, info.HotWallet)
	const gift = 10_000_000 // 10 TUSD from the faucet
	// paid posts a task to seller, has a fresh wallet funded by the faucet pay it into the escrow
	// and waits until the task is funded.
	paid := func(seller *member, funded string) (*client.Client, axp.Task, *ecdsa.PrivateKey) {
		t.Helper()
		kb, _ := crypto.GenerateKey()
		callOp(t, m.anon, contract.TestFund, axp.TestFundInput{Address: crypto.PubkeyToAddress(kb.PublicKey).Hex(), USD: ptr(axp.Money(gift))})
		created, _ := createTask(t, m.anon, map[string]any{"type": "text-file", "params": map[string]any{"prompt": "a poem"}})
		buyer := m.anon.With(created.BuyerToken)
		open := waitStatus(t, buyer, created.ID, axp.TaskOpen)
		task := *callOp(t, buyer, contract.ChooseOffer, axp.ChooseInput{TaskRef: axp.TaskRef{ID: created.ID}, OfferID: offerOf(t, open.Offers, seller.MemberID).OfferID})
		if task.Payment == nil || !task.Payment.TestMode || task.Payment.Escrow == nil || !strings.EqualFold(task.Payment.Escrow.EscrowAddress, info.Escrow) {
			t.Fatalf("test mode's escrow terms: %+v", task.Payment)
		}
		sig, err := chain.SignReceive(kb, &task.Payment.Escrow.Authorization)
		if err != nil {
			t.Fatal(err)
		}
		call(t, buyer, "pay_escrow", map[string]any{"id": task.ID, "payer": crypto.PubkeyToAddress(kb.PublicKey).Hex(), "signature": sig}, nil)
		within(t, 30*time.Second, func() error {
			if got := getTask(t, buyer, task.ID); got.Status != funded {
				return fmt.Errorf("task is %s", got.Status)
			}
			return nil
		})
		return buyer, task, kb
	}
	// queued runs a funded task to its payout item.
	queued := func(seller *member, buyer *client.Client, taskID string) axp.Approval {
		t.Helper()
		deliverText(t, seller.c, taskID, "Waves fold the light.")
		retrieve(t, buyer, taskID)
		callOp(t, buyer, contract.AcceptTask, axp.AcceptInput{TaskRef: axp.TaskRef{ID: taskID}})
		callOp(t, seller.c, contract.RequestPayment, axp.IDPath{ID: taskID})
		return m.approvalOf(taskID, axp.ApprovePayout)
	}
	confirmed := func(taskID, kind string) {
		t.Helper()
		within(t, 30*time.Second, func() error {
			if a := m.approvalOf(taskID, kind); a.Status != axp.ApprovalConfirmed {
				return fmt.Errorf("%s is %s (%s)", kind, a.Status, a.Failure)
			}
			return nil
		})
	}

	// Paid out: the capture pays the seller its net and the deposit address the fee.
	payout := freshAddress()
	seller := m.instantSeller("text-file", "4.50", 30, nil, map[string]any{"payout_address": payout})
	buyer, task, kb := paid(seller, axp.TaskPaid)
	price := task.Payment.AmountUSD
	if got := balanceOf(t, ec, token, crypto.PubkeyToAddress(kb.PublicKey).Hex()); got != gift-price || held() != price {
		t.Fatalf("after pay_escrow: the buyer holds %s (want %s), the escrow %s (want %s)", got, gift-price, held(), price)
	}
	depBefore := balanceOf(t, ec, token, info.Deposit)
	item := queued(seller, buyer, task.ID)
	if sent := m.approve(item.ID, false); sent.Status != axp.ApprovalSent || len(sent.Transfers) != 1 || sent.Transfers[0].Part != "capture" {
		t.Fatalf("approved: %+v", sent)
	}
	confirmed(task.ID, axp.ApprovePayout)
	waitStatus(t, buyer, task.ID, axp.TaskReleased)
	fee := price * axp.Money(task.Fee.FeeBPS) / 10_000 // the contract rounds down
	switch {
	case balanceOf(t, ec, token, crypto.PubkeyToAddress(kb.PublicKey).Hex()) != gift-price:
		t.Fatalf("the buyer holds %s, want %s", balanceOf(t, ec, token, crypto.PubkeyToAddress(kb.PublicKey).Hex()), gift-price)
	case balanceOf(t, ec, token, payout) != price-fee:
		t.Fatalf("the seller holds %s, want its net %s", balanceOf(t, ec, token, payout), price-fee)
	case balanceOf(t, ec, token, info.Deposit)-depBefore != fee:
		t.Fatalf("the fee receiver got %s, want %s", balanceOf(t, ec, token, info.Deposit)-depBefore, fee)
	case held() != 0:
		t.Fatalf("the escrow still holds %s", held())
	case balanceOf(t, ec, token, info.HotWallet) != hot:
		t.Fatalf("the hot wallet holds %s, had %s", balanceOf(t, ec, token, info.HotWallet), hot)
	}
	if h := getTask(t, buyer, task.ID).Escrow; h == nil || h.State != axp.EscrowCaptured {
		t.Fatalf("the escrow view after the capture: %+v", h)
	}

	// Refunded: the seller refuses the paid job, the buyer cancels, the void returns the money.
	p := m.newPushSeller("text-file", map[string]func(map[string]any) any{
		"do_task": func(map[string]any) any { return map[string]any{"accepted": false, "reason": "no"} },
	}, nil, map[string]any{"payout_address": freshAddress(),
		"skills": []map[string]any{{"task_type": "text-file", "instant_price_usd": json.Number("4.60"), "instant_eta_minutes": 30}}})
	buyer, task, kb = paid(p.member, axp.TaskOpen) // paid, then refused by the seller
	if held() != task.Payment.AmountUSD {
		t.Fatalf("the escrow holds %s, want %s", held(), task.Payment.AmountUSD)
	}
	call(t, buyer, "cancel_task", map[string]any{"id": task.ID}, nil)
	refund := m.approvalOf(task.ID, axp.ApproveRefund)
	if sent := m.approve(refund.ID, false); sent.Status != axp.ApprovalSent || len(sent.Transfers) != 1 || sent.Transfers[0].Part != "void" {
		t.Fatalf("approved: %+v", sent)
	}
	confirmed(task.ID, axp.ApproveRefund)
	if got := balanceOf(t, ec, token, crypto.PubkeyToAddress(kb.PublicKey).Hex()); got != gift || held() != 0 || balanceOf(t, ec, token, info.HotWallet) != hot {
		t.Fatalf("after the void: the buyer holds %s (want %s), the escrow %s, the hot wallet %s (had %s)", got, axp.Money(gift), held(), balanceOf(t, ec, token, info.HotWallet), hot)
	}

	// Reclaimed: the chain's clock passes the authorization expiry; the exchange refuses the
	// capture and the buyer takes the money back from the escrow itself.
	buyer, task, kb = paid(seller, axp.TaskPaid)
	item = queued(seller, buyer, task.ID)
	pay, err := escrow.ParseTerms(task.Payment.Escrow.PaymentInfo)
	if err != nil {
		t.Fatal(err)
	}
	pay.Payer = crypto.PubkeyToAddress(kb.PublicKey)
	head, err := ec.HeaderByNumber(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	wait, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	if err := m.d.AdjustTestChainTime(wait, time.Duration(pay.AuthorizationExpiry-head.Time+1)*time.Second); err != nil {
		t.Fatal(err)
	}
	_, err = do(m.admin, "admin_approve", map[string]any{"id": item.ID})
	if e := apiErr(t, err, axp.CodeConflict, ""); !strings.Contains(e.Message, "authorization expiry passed") {
		t.Fatalf("a payout after the expiry: %v", e)
	}
	data, err := escrow.Reclaim(pay)
	if err != nil {
		t.Fatal(err)
	}
	tx, err := testusd.Send(ctx, ec, kb, &escrowAddr, data, nil)
	if err != nil {
		t.Fatalf("the buyer's reclaim: %v", err)
	}
	within(t, 30*time.Second, func() error {
		r, err := ec.TransactionReceipt(ctx, tx.Hash())
		if err == nil && r.Status != types.ReceiptStatusSuccessful {
			t.Fatalf("the reclaim %s reverted", tx.Hash())
		}
		return err
	})
	waitStatus(t, buyer, task.ID, axp.TaskRefunded)
	if got := balanceOf(t, ec, token, crypto.PubkeyToAddress(kb.PublicKey).Hex()); got != gift || held() != 0 {
		t.Fatalf("after the reclaim: the buyer holds %s (want %s), the escrow %s", got, axp.Money(gift), held())
	}
	if a := m.approvalOf(task.ID, axp.ApprovePayout); a.Status != axp.ApprovalRejected || a.ClosedAs != "closed" {
		t.Fatalf("the payout item after the reclaim: %+v", a)
	}
	if h := getTask(t, buyer, task.ID).Escrow; h == nil || h.State != axp.EscrowReclaimed {
		t.Fatalf("the escrow view after the reclaim: %+v", h)
	}
	if r := *callOp(t, m.admin, contract.AdminReconcile, contract.NoInput{}); !r.Covered || len(r.MissingTransfers) != 0 {
		t.Fatalf("reconcile: %+v", r)
	}
}
