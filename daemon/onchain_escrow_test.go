package daemon_test

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/axp-exchange/axp"
	"github.com/axp-exchange/axp/client"
	"github.com/axp-exchange/axp/daemon"
	"github.com/axp-exchange/axp/daemon/chain"
	"github.com/axp-exchange/axp/daemon/chain/chaintest"
	"github.com/axp-exchange/axp/daemon/chain/escrow"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/ethclient"
)

// escrowMarket is a chain market whose chain also holds the escrow contract and its collectors,
// named to the exchange by escrow_address and escrow_collector_address.
type escrowMarket struct {
	*chainMarket
	k  escrow.Contracts
	ec *ethclient.Client
}

func newEscrowMarket(t *testing.T, mod ...func(*daemon.Config)) *escrowMarket {
	t.Helper()
	c := chaintest.Start(t)
	ec, err := ethclient.Dial(c.URL)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(ec.Close)
	k, err := escrow.Deploy(context.Background(), ec, c.NewKey())
	if err != nil {
		t.Fatal(err)
	}
	m := newChainMarketOn(t, c, append([]func(*daemon.Config){func(cfg *daemon.Config) {
		cfg.EscrowAddress, cfg.EscrowCollectorAddress = k.Escrow.Hex(), k.Collector.Hex()
	}}, mod...)...)
	return &escrowMarket{chainMarket: m, k: k, ec: ec}
}

// restart starts the exchange again on the same data dir and chain, with the escrow.
func (m *escrowMarket) restart() {
	m.close()
	m.env = m.start(func(cfg *daemon.Config) {
		cfg.EscrowAddress, cfg.EscrowCollectorAddress = m.k.Escrow.Hex(), m.k.Collector.Hex()
	})
}

// signEscrow signs a task's escrow authorization with key, as pay_escrow's input.
// paidIntoEscrow posts a task to seller and pays it into the escrow from a new buyer wallet
// (key kb), then waits for the task to reach status.
func (m *escrowMarket) paidIntoEscrow(seller *member, status string) (buyer *client.Client, task axp.Task, kb *ecdsa.PrivateKey) {
	t := m.tb
	t.Helper()
	buyer, task = m.awaiting(seller)
	kb = m.buyerWallet(10_000_000)
	call(t, buyer, "pay_escrow", m.signEscrow(kb, task), nil)
	m.c.Mine(2)
	waitStatus(t, buyer, task.ID, status)
	return buyer, task, kb
}

func (m *escrowMarket) signEscrow(key *ecdsa.PrivateKey, task axp.Task) map[string]any {
	m.tb.Helper()
	terms := task.Payment.Escrow
	if terms == nil {
		m.tb.Fatalf("task %s offers no escrow: %+v", task.ID, task.Payment)
	}
	sig, err := chain.SignReceive(key, &terms.Authorization)
	if err != nil {
		m.tb.Fatal(err)
	}
	return map[string]any{"id": task.ID, "payer": chaintest.Addr(key), "signature": sig}
}

// held is what the escrow holds for the hot wallet's payments: its token store's balance.
func (m *escrowMarket) held() axp.Money {
	m.tb.Helper()
	store, err := escrow.TokenStore(context.Background(), m.ec, m.k.Escrow, common.HexToAddress(chaintest.Addr(m.hot)))
	if err != nil {
		m.tb.Fatal(err)
	}
	return m.c.Balance(m.c.Token, store.Hex())
}

// Paying into the escrow: choose_offer answers the payment's terms (the hot wallet operates, the
// seller's payout address receives the buyer total, fees at the exchange's rate go to the deposit
// address) and the ReceiveWithAuthorization to sign; pay_escrow with the buyer's signature has the
// exchange call authorize. The buyer's wallet loses the price, the escrow holds it, the hot wallet
// pays only gas; the task is funded and the ledger books the money into the task's contract
// account. A signature by another key, for another amount or another task, and a payer without the
// money are refused naming the field, and move nothing; the same call again submits nothing more.
func TestChainPayByEscrow(t *testing.T) {
	m := newEscrowMarket(t)
	payout := chaintest.Addr(m.c.NewKey())
	seller := m.instantSeller("text-file", "4.50", 30, nil, map[string]any{"payout_address": payout})
	buyer, task := m.awaiting(seller)
	_, other := m.awaiting(seller)
	kb := m.buyerWallet(10_000_000)
	hotBefore := m.c.Balance(m.c.Token, chaintest.Addr(m.hot))
	terms := task.Payment.Escrow
	if terms == nil || other.Payment.Escrow == nil {
		t.Fatalf("no escrow terms: %+v", task.Payment)
	}
	pi, a := terms.PaymentInfo, terms.Authorization
	switch {
	case !strings.EqualFold(terms.EscrowAddress, m.k.Escrow.Hex()) || !strings.EqualFold(terms.CollectorAddress, m.k.Collector.Hex()):
		t.Fatalf("contracts %s %s", terms.EscrowAddress, terms.CollectorAddress)
	case !strings.EqualFold(pi.Operator, chaintest.Addr(m.hot)) || pi.Payer != "" || !strings.EqualFold(pi.Receiver, payout) ||
		!strings.EqualFold(pi.Token, m.c.Token) || pi.MaxAmount != "4500000" || !strings.EqualFold(pi.FeeReceiver, m.deposit):
		t.Fatalf("payment info %+v", pi)
	case int64(pi.MinFeeBps) != task.Fee.FeeBPS || pi.MaxFeeBps != pi.MinFeeBps:
		t.Fatalf("fee bounds %d-%d, fee %+v", pi.MinFeeBps, pi.MaxFeeBps, task.Fee)
	case pi.PreApprovalExpiry != task.Payment.PayBy.Unix() || pi.AuthorizationExpiry <= pi.PreApprovalExpiry || pi.RefundExpiry <= pi.AuthorizationExpiry:
		t.Fatalf("expiries %d %d %d, pay by %s", pi.PreApprovalExpiry, pi.AuthorizationExpiry, pi.RefundExpiry, task.Payment.PayBy)
	case a.PrimaryType != "ReceiveWithAuthorization" || !strings.EqualFold(a.To, m.k.Collector.Hex()) || a.Value != pi.MaxAmount ||
		a.ValueUSD != task.Payment.AmountUSD || a.ValidAfter != 0 || a.ValidBefore != pi.PreApprovalExpiry:
		t.Fatalf("authorization %+v", a)
	case a.Nonce == other.Payment.Escrow.Authorization.Nonce || pi.Salt == other.Payment.Escrow.PaymentInfo.Salt:
		t.Fatalf("two tasks share a nonce or salt: %s %s", a.Nonce, pi.Salt)
	}
	// get_task answers the same terms while the task waits.
	if got := getTask(t, buyer, task.ID).Payment.Escrow; got == nil || *got != *terms {
		t.Fatalf("get_task answers %+v, choose answered %+v", got, terms)
	}

	bad := m.signEscrow(m.c.NewKey(), task)
	bad["payer"] = chaintest.Addr(kb)
	_, err := do(buyer, "pay_escrow", bad)
	apiErr(t, err, axp.CodeInvalidInput, "signature")
	cheaper := task
	cheaper.Payment = &axp.PaymentInfo{Escrow: &axp.EscrowTerms{Authorization: a}}
	cheaper.Payment.Escrow.Authorization.Value = "4000000"
	_, err = do(buyer, "pay_escrow", m.signEscrow(kb, cheaper))
	apiErr(t, err, axp.CodeInvalidInput, "signature")
	forOther := m.signEscrow(kb, other)
	forOther["id"] = task.ID
	_, err = do(buyer, "pay_escrow", forOther)
	apiErr(t, err, axp.CodeInvalidInput, "signature")
	_, err = do(buyer, "pay_escrow", m.signEscrow(m.buyerWallet(1_000_000), task))
	apiErr(t, err, axp.CodeInvalidInput, "payer")
	if held := m.held(); held != 0 || m.c.Balance(m.c.Token, m.k.Collector.Hex()) != 0 {
		t.Fatalf("refused payments moved %s", held)
	}

	var rep axp.PaymentReport
	in := m.signEscrow(kb, task)
	call(t, buyer, "pay_escrow", in, &rep)
	if rep.Payment == nil || rep.Payment.Status != "reported" || rep.Payment.TxHash == "" {
		t.Fatalf("report %+v", rep)
	}
	// While it waits for the chain, no terms are offered; the same call again (a retry) submits
	// nothing more.
	if p := getTask(t, buyer, task.ID).Payment; p.Escrow != nil || p.Status != "reported" {
		t.Fatalf("while the authorization waits: %+v", p)
	}
	var again axp.PaymentReport
	call(t, buyer, "pay_escrow", in, &again)
	if again.Payment == nil || again.Payment.TxHash != rep.Payment.TxHash {
		t.Fatalf("the retry answered %+v, first %+v", again.Payment, rep.Payment)
	}
	m.c.Mine(2)
	got := waitStatus(t, buyer, task.ID, axp.TaskPaid)
	if got.Payment.ReceivedUSD != task.Payment.AmountUSD || got.Payment.Status != "confirmed" || got.Payment.Escrow != nil {
		t.Fatalf("payment %+v", got.Payment)
	}
	price := task.Payment.AmountUSD
	if bal := m.c.Balance(m.c.Token, chaintest.Addr(kb)); bal != 10_000_000-price {
		t.Fatalf("the buyer holds %s", bal)
	}
	if held := m.held(); held != price {
		t.Fatalf("the escrow holds %s, want %s", held, price)
	}
	if hot := m.c.Balance(m.c.Token, chaintest.Addr(m.hot)); hot != hotBefore {
		t.Fatalf("the hot wallet holds %s, had %s: it pays only gas", hot, hotBefore)
	}
	if dep := m.c.Balance(m.c.Token, m.deposit); dep != 0 {
		t.Fatalf("the deposit address received %s", dep)
	}
	b := m.balances()
	if b[axp.ContractAccount(task.ID)] != price || b[axp.EscrowAccount(task.ID)] != 0 || b[axp.AcctBuyerFunds] != -price {
		t.Fatalf("ledger %v", b)
	}

	// The job runs; its payout leaves the escrow by capture from the hot wallet. Money sent by hand
	// would leave the buyer's money in the contract: refused, nothing moves.
	item := m.payoutQueued(seller, buyer, task.ID)
	_, err = do(m.admin, "admin_approve", map[string]any{"id": item.ID, "tx_hash": "0x" + strings.Repeat("ab", 32)})
	if e := apiErr(t, err, axp.CodeConflict, ""); !strings.Contains(e.Message, "held by the escrow contract") {
		t.Fatalf("approving the payout by hand: %v", e)
	}
	if hot := m.c.Balance(m.c.Token, chaintest.Addr(m.hot)); hot != hotBefore || m.c.Balance(m.c.Token, payout) != 0 || m.held() != price {
		t.Fatalf("the refused payout moved money: hot %s, seller %s, escrow %s", hot, m.c.Balance(m.c.Token, payout), m.held())
	}
	m.captured(seller, buyer, task, item, payout, hotBefore)
}

// captured approves the payout item of task, paid into the escrow, and checks the capture: the
// item is sent as one call of the escrow and confirmed from its PaymentCaptured event; the seller's
// address receives the net, the fee receiver (the deposit address) the fee, the escrow and the task's
// contract account end at 0, the hot wallet's token balance is untouched (hot), and the ledger books
// what the contract paid.
func (m *escrowMarket) captured(seller *member, buyer *client.Client, task axp.Task, item axp.Approval, payout string, hot axp.Money) {
	t := m.tb
	t.Helper()
	price := task.Payment.AmountUSD
	fee := price * axp.Money(task.Fee.FeeBPS) / 10_000 // the contract rounds down
	if item.SellerNetUSD != price-fee || item.FeeUSD != fee || item.Amount != price-fee {
		t.Fatalf("the payout item shows net %s fee %s amount %s; the capture pays %s and %s", item.SellerNetUSD, item.FeeUSD, item.Amount, price-fee, fee)
	}
	depBefore := m.c.Balance(m.c.Token, m.deposit)
	var sent axp.Approval
	call(t, m.admin, "admin_approve", map[string]any{"id": item.ID}, &sent)
	if sent.Status != axp.ApprovalSent || len(sent.Transfers) != 1 || sent.Transfers[0].Part != "capture" ||
		!strings.EqualFold(sent.Transfers[0].To, m.k.Escrow.Hex()) || sent.Transfers[0].Amount != price {
		t.Fatalf("approved: %+v", sent)
	}
	m.c.Mine(2)
	eventually(t, func() error {
		if a := m.approvalOf(task.ID, axp.ApprovePayout); a.Status != axp.ApprovalConfirmed {
			return fmt.Errorf("payout is %s (%s)", a.Status, a.Failure)
		}
		return nil
	})
	waitStatus(t, buyer, task.ID, axp.TaskReleased)
	if h := escrowView(t, buyer, task.ID); h.State != axp.EscrowCaptured || h.Reclaim != "" {
		t.Fatalf("the escrow view after the capture %+v", h)
	}
	if got := m.c.Balance(m.c.Token, payout); got != price-fee {
		t.Fatalf("the seller holds %s, want %s", got, price-fee)
	}
	if got := m.c.Balance(m.c.Token, m.deposit) - depBefore; got != fee {
		t.Fatalf("the fee receiver got %s, want %s", got, fee)
	}
	if held := m.held(); held != 0 {
		t.Fatalf("the escrow still holds %s", held)
	}
	if got := m.c.Balance(m.c.Token, chaintest.Addr(m.hot)); got != hot {
		t.Fatalf("the hot wallet holds %s, had %s", got, hot)
	}
	b := m.balances()
	if b[axp.ContractAccount(task.ID)] != 0 || b[axp.AcctSellerPaid] != price-fee || b[axp.AcctFees] != fee {
		t.Fatalf("ledger %v", b)
	}
	// Reconcile: the fee the escrow paid the deposit address is the capture's, not a stray
	// transfer; the contract account matches the escrow's state.
	if r := m.reconciled(); !r.Covered || r.DepositDifferenceUSD != 0 || len(r.UnknownTransfers) != 0 || len(r.MissingTransfers) != 0 {
		t.Fatalf("reconcile after the capture: %+v", r)
	}
}

// TestReplayPayEscrow: pay_escrow retried with its Idempotency-Key replays the first report; the
// same key with another body is a conflict.
func TestReplayPayEscrow(t *testing.T) {
	m := newEscrowMarket(t)
	seller := m.instantSeller("text-file", "4.50", 30, nil, map[string]any{"payout_address": chaintest.Addr(m.c.NewKey())})
	buyer, task := m.awaiting(seller)
	in := m.signEscrow(m.buyerWallet(10_000_000), task)
	key := client.Options{IdempotencyKey: "pay-escrow-replay-1"}
	first, err := do(buyer, "pay_escrow", in, key)
	if err != nil {
		t.Fatal(err)
	}
	m.c.Mine(2)
	waitStatus(t, buyer, task.ID, axp.TaskPaid)
	again, err := do(buyer, "pay_escrow", in, key)
	if err != nil || again.Status != first.Status || !bytes.Equal(again.Body, first.Body) || again.Header.Get("Idempotent-Replayed") != "true" {
		t.Fatalf("the retry answered %v %s\nfirst: %d %s", err, again.Body, first.Status, first.Body)
	}
	in["payer"] = chaintest.Addr(m.c.NewKey())
	resp, _ := do(buyer, "pay_escrow", in, key)
	checkErrorBody(t, resp, http.StatusConflict, "conflict")
	if held := m.held(); held != task.Payment.AmountUSD {
		t.Fatalf("the escrow holds %s", held)
	}
}

// A crash between signing the escrow's authorize and storing it sends nothing: after a restart the
// same signature pays the task, once. A crash between storing it and broadcasting it loses nothing:
// after a restart the watcher broadcasts the stored transaction, and the task is funded once.
func TestChainEscrowCrash(t *testing.T) {
	m := newEscrowMarket(t)
	seller := m.instantSeller("text-file", "4.50", 30, nil, map[string]any{"payout_address": chaintest.Addr(m.c.NewKey())})
	kb := m.buyerWallet(20_000_000)
	price := usd(t, "4.50")
	crashAt := func(stage string) {
		m.d.SetAfterScan(func(what string) {
			if what == stage {
				panic("the exchange stops here")
			}
		})
	}

	// Signed, not stored.
	buyer, task := m.awaiting(seller)
	in := m.signEscrow(kb, task)
	crashAt("escrow-signed")
	if resp, _ := do(buyer, "pay_escrow", in); resp == nil || resp.Status != http.StatusInternalServerError {
		t.Fatalf("crashed call: %+v", resp)
	}
	m.restart()
	buyer = m.anon.With(buyer.Token)
	m.c.Mine(3)
	if got := getTask(t, buyer, task.ID); got.Status != axp.TaskAwaitingPayment || got.Payment.Status != "unpaid" {
		t.Fatalf("after the crash: %s, payment %+v", got.Status, got.Payment)
	}
	if held := m.held(); held != 0 {
		t.Fatalf("a transaction never stored moved %s", held)
	}
	var rep axp.PaymentReport
	call(t, buyer, "pay_escrow", in, &rep)
	m.c.Mine(2)
	waitStatus(t, buyer, task.ID, axp.TaskPaid)
	if held := m.held(); held != price {
		t.Fatalf("the escrow holds %s, want %s", held, price)
	}

	// Stored, not broadcast.
	buyer, task = m.awaiting(seller)
	in = m.signEscrow(kb, task)
	// The crashed daemon's watcher would send the stored transaction on its next pass; it waits
	// here until the state after the crash is read, as a daemon that really stopped would.
	looked := make(chan struct{})
	m.d.SetAfterScan(func(what string) {
		switch what {
		case "submitted":
			panic("the exchange stops here")
		case "resend":
			select {
			case <-looked:
			case <-time.After(10 * time.Second):
			}
		}
	})
	if resp, _ := do(buyer, "pay_escrow", in); resp == nil || resp.Status != http.StatusInternalServerError {
		t.Fatalf("crashed call: %+v", resp)
	}
	stored := getTask(t, buyer, task.ID).Payment
	known := stored.TxHash != "" && m.c.Known(stored.TxHash)
	close(looked)
	if stored.Status != "reported" || stored.TxHash == "" || known {
		t.Fatalf("after the crash: %+v (known to the node: %v)", stored, known)
	}
	m.restart()
	buyer = m.anon.With(buyer.Token)
	// The same call again is the same payment: nothing new is signed.
	call(t, buyer, "pay_escrow", in, &rep)
	if rep.Payment.TxHash != stored.TxHash {
		t.Fatalf("the retry names %s, stored %s", rep.Payment.TxHash, stored.TxHash)
	}
	waitFunded(t, m.chainMarket, buyer, task.ID)
	if held := m.held(); held != 2*price {
		t.Fatalf("the escrow holds %s, want %s", held, 2*price)
	}
	if bal := m.c.Balance(m.c.Token, chaintest.Addr(kb)); bal != 20_000_000-2*price {
		t.Fatalf("the buyer holds %s", bal)
	}
	b := m.balances()
	if b[axp.ContractAccount(task.ID)] != price || b[axp.AcctBuyerFunds] != -2*price {
		t.Fatalf("ledger %v", b)
	}
}

// A crash between recording the signed capture and broadcasting it loses nothing: after a restart
// the watcher broadcasts the stored transaction, and the payout is captured once.
func TestChainEscrowCaptureCrash(t *testing.T) {
	m := newEscrowMarket(t)
	payout := chaintest.Addr(m.c.NewKey())
	seller := m.instantSeller("text-file", "4.50", 30, nil, map[string]any{"payout_address": payout})
	buyer, task := m.awaiting(seller)
	hot := m.c.Balance(m.c.Token, chaintest.Addr(m.hot))
	call(t, buyer, "pay_escrow", m.signEscrow(m.buyerWallet(10_000_000), task), nil)
	m.c.Mine(2)
	waitStatus(t, buyer, task.ID, axp.TaskPaid)
	item := m.payoutQueued(seller, buyer, task.ID)

	m.d.SetAfterScan(func(what string) {
		if what == "send" {
			panic("the exchange stops here")
		}
	})
	if resp, _ := do(m.admin, "admin_approve", map[string]any{"id": item.ID}); resp == nil || resp.Status != http.StatusInternalServerError {
		t.Fatalf("crashed call: %+v", resp)
	}
	if held := m.held(); held != task.Payment.AmountUSD {
		t.Fatalf("before the restart the escrow holds %s", held)
	}
	m.restart()
	buyer = m.anon.With(buyer.Token)
	eventually(t, func() error {
		m.c.Mine(1)
		if a := m.approvalOf(task.ID, axp.ApprovePayout); a.Status != axp.ApprovalConfirmed {
			return fmt.Errorf("payout is %s (%s)", a.Status, a.Failure)
		}
		return nil
	})
	waitStatus(t, buyer, task.ID, axp.TaskReleased)
	fee := task.Payment.AmountUSD * axp.Money(task.Fee.FeeBPS) / 10_000
	if got := m.c.Balance(m.c.Token, payout); got != task.Payment.AmountUSD-fee || m.held() != 0 || m.c.Balance(m.c.Token, chaintest.Addr(m.hot)) != hot {
		t.Fatalf("after the restart: seller %s, escrow %s, hot %s", got, m.held(), m.c.Balance(m.c.Token, chaintest.Addr(m.hot)))
	}
	if a := m.approvalOf(task.ID, axp.ApprovePayout); len(a.Transfers) != 1 {
		t.Fatalf("the capture was sent %d times: %+v", len(a.Transfers), a.Transfers)
	}
	if b := m.balances(); b[axp.ContractAccount(task.ID)] != 0 || b[axp.AcctSellerPaid] != task.Payment.AmountUSD-fee {
		t.Fatalf("ledger %v", b)
	}

}

// A confirmed capture whose block leaves the canonical chain (a reorg deeper than the
// confirmations, the transaction lost) is sent again from the same signed bytes, as a payout
// transfer is: the seller is paid once, the ledger books the capture once.
func TestChainEscrowCaptureReorg(t *testing.T) {
	m := newEscrowMarket(t)
	payout := chaintest.Addr(m.c.NewKey())
	seller := m.instantSeller("text-file", "4.50", 30, nil, map[string]any{"payout_address": payout})
	buyer, task := m.awaiting(seller)
	call(t, buyer, "pay_escrow", m.signEscrow(m.buyerWallet(10_000_000), task), nil)
	m.c.Mine(2)
	waitStatus(t, buyer, task.ID, axp.TaskPaid)
	item := m.payoutQueued(seller, buyer, task.ID)
	snap := m.c.Snapshot()
	sent := m.approve(item.ID, false)
	m.c.Mine(2)
	waitStatus(t, buyer, task.ID, axp.TaskReleased)
	price := task.Payment.AmountUSD
	net := price - price*axp.Money(task.Fee.FeeBPS)/10_000
	if bal := m.c.Balance(m.c.Token, payout); bal != net || m.held() != 0 {
		t.Fatalf("before the reorg: seller %s, escrow %s", bal, m.held())
	}

	m.c.Revert(snap)
	m.c.DropTransaction(sent.Transfers[0].TxHash)
	m.c.Mine(4)
	eventually(t, func() error {
		if a := m.approvalOf(task.ID, axp.ApprovePayout); a.Reorged != 1 {
			return fmt.Errorf("payout %s, reorged %d", a.Status, a.Reorged)
		}
		return nil
	})
	eventually(t, func() error {
		m.c.Mine(1)
		if a := m.approvalOf(task.ID, axp.ApprovePayout); a.Status != axp.ApprovalConfirmed {
			return fmt.Errorf("payout %s (%s)", a.Status, a.Failure)
		}
		return nil
	})
	if bal := m.c.Balance(m.c.Token, payout); bal != net || m.held() != 0 {
		t.Fatalf("after the capture was sent again: seller %s (want %s once), escrow %s", bal, net, m.held())
	}
	if a := m.approvalOf(task.ID, axp.ApprovePayout); a.Transfers[0].TxHash != sent.Transfers[0].TxHash {
		t.Fatalf("sent again as %s, not the same transaction %s", a.Transfers[0].TxHash, sent.Transfers[0].TxHash)
	}
	payouts := 0
	for _, e := range m.entriesOf(task.ID) {
		if e.Kind == axp.ApprovePayout {
			payouts++
		}
	}
	if b := m.balances(); payouts != 1 || b[axp.ContractAccount(task.ID)] != 0 || b[axp.AcctSellerPaid] != net {
		t.Fatalf("%d payouts booked, ledger %v", payouts, b)
	}
}

// A refund of a task whose money the escrow holds is the escrow's void, sent by the hot wallet:
// the seller refused the paid job, the buyer cancels, the operator approves the refund; the buyer's
// wallet is whole again, the escrow and the task's contract account end at 0, the hot wallet's
// token balance is untouched, and the ledger books the buyer's refund.
func TestChainEscrowVoid(t *testing.T) {
	m := newEscrowMarket(t)
	p := m.newPushSeller("text-file", map[string]func(map[string]any) any{
		"do_task": func(map[string]any) any { return map[string]any{"accepted": false, "reason": "no"} },
	}, nil, map[string]any{"payout_address": chaintest.Addr(m.c.NewKey()),
		"skills": []map[string]any{{"task_type": "text-file", "instant_price_usd": json.Number("4.50"), "instant_eta_minutes": 30}}})
	buyer, task := m.awaiting(p.member)
	kb := m.buyerWallet(10_000_000)
	hot := m.c.Balance(m.c.Token, chaintest.Addr(m.hot))
	call(t, buyer, "pay_escrow", m.signEscrow(kb, task), nil)
	m.c.Mine(2)
	waitStatus(t, buyer, task.ID, axp.TaskOpen) // paid, then refused by the seller
	price := task.Payment.AmountUSD
	if m.held() != price {
		t.Fatalf("the escrow holds %s", m.held())
	}
	call(t, buyer, "cancel_task", map[string]any{"id": task.ID}, nil)
	refund := m.approvalOf(task.ID, axp.ApproveRefund)
	if refund.Amount != price || refund.RefundUSD != price || refund.SellerNetUSD != 0 || refund.FeeUSD != 0 {
		t.Fatalf("refund item %+v", refund)
	}
	_, err := do(m.admin, "admin_approve", map[string]any{"id": refund.ID, "tx_hash": "0x" + strings.Repeat("cd", 32)})
	if e := apiErr(t, err, axp.CodeConflict, ""); !strings.Contains(e.Message, "held by the escrow contract") {
		t.Fatalf("approving the refund by hand: %v", e)
	}
	sent := m.approve(refund.ID, false)
	if sent.Status != axp.ApprovalSent || len(sent.Transfers) != 1 || sent.Transfers[0].Part != "void" || sent.Transfers[0].Amount != price {
		t.Fatalf("approved: %+v", sent)
	}
	m.c.Mine(2)
	eventually(t, func() error {
		if a := m.approvalOf(task.ID, axp.ApproveRefund); a.Status != axp.ApprovalConfirmed {
			return fmt.Errorf("refund is %s (%s)", a.Status, a.Failure)
		}
		return nil
	})
	if h := escrowView(t, buyer, task.ID); h.State != axp.EscrowVoided {
		t.Fatalf("the escrow view after the void %+v", h)
	}
	if got := m.c.Balance(m.c.Token, chaintest.Addr(kb)); got != 10_000_000 || m.held() != 0 || m.c.Balance(m.c.Token, chaintest.Addr(m.hot)) != hot {
		t.Fatalf("after the void: buyer %s, escrow %s, hot %s (had %s)", got, m.held(), m.c.Balance(m.c.Token, chaintest.Addr(m.hot)), hot)
	}
	if b := m.balances(); b[axp.ContractAccount(task.ID)] != 0 || b[axp.AcctBuyerRefund] != price {
		t.Fatalf("ledger %v", b)
	}
	if r := m.reconciled(); !r.Covered || len(r.MissingTransfers) != 0 {
		t.Fatalf("reconcile after the void: %+v", r)
	}
}

// admin_reconcile counts each task's contract account against the escrow's own state: after
// pay_escrow they agree, nothing is listed and the money summary counts the contract's money as
// held; once the payment is voided behind the exchange's back (the operator's key used outside
// it), the difference is named with its task.
func TestChainEscrowReconcile(t *testing.T) {
	m := newEscrowMarket(t)
	seller := m.instantSeller("text-file", "4.50", 30, nil, map[string]any{"payout_address": chaintest.Addr(m.c.NewKey())})
	_, task, kb := m.paidIntoEscrow(seller, axp.TaskPaid)
	if r := m.reconciled(); !r.Covered || len(r.MissingTransfers) != 0 || r.DepositDifferenceUSD != 0 {
		t.Fatalf("reconcile after pay_escrow: %+v", r)
	}
	if st := m.stats(); st.Money.Held != task.Payment.AmountUSD {
		t.Fatalf("the money summary holds %s, want the escrow's %s", st.Money.Held, task.Payment.AmountUSD)
	}

	m.voidOutside(task, chaintest.Addr(kb))
	if m.held() != 0 {
		t.Fatalf("the void left %s in the escrow", m.held())
	}
	r := m.reconciled()
	if r.Covered || len(r.MissingTransfers) != 1 || r.MissingTransfers[0].TaskID != task.ID || r.MissingTransfers[0].Kind != "escrow" ||
		!strings.Contains(r.MissingTransfers[0].Why, axp.ContractAccount(task.ID)) {
		t.Fatalf("reconcile after the void behind the exchange's back: %+v", r)
	}
}
