package daemon_test

import (
	"crypto/ecdsa"
	"fmt"
	"math/big"
	"strings"
	"testing"
	"time"

	"github.com/axp-exchange/axp"
	"github.com/axp-exchange/axp/client"
	"github.com/axp-exchange/axp/daemon/chain"
	"github.com/axp-exchange/axp/daemon/chain/chaintest"
	"github.com/ethereum/go-ethereum/common"
)

// authorize signs a task's authorization terms with key, valid for ten minutes, as pay_authorization's input.
func (m *chainMarket) authorize(key *ecdsa.PrivateKey, task axp.Task) map[string]any {
	m.tb.Helper()
	terms := task.Payment.Authorization
	if terms == nil {
		m.tb.Fatalf("task %s offers no authorization: %+v", task.ID, task.Payment)
	}
	before := time.Now().Add(10 * time.Minute).Unix()
	sig, err := chain.SignTerms(key, terms, 0, before)
	if err != nil {
		m.tb.Fatal(err)
	}
	return map[string]any{"id": task.ID, "from": chaintest.Addr(key), "valid_before": before, "signature": sig}
}

// Paying by signed authorization: the exchange submits the buyer's EIP-3009 authorization of
// exactly the price (no tag) to the deposit address, under the task's own nonce; the task is funded
// with the offer's buyer total. A signature by another key, terms signed for another task, a window
// past the payment window and too little money are each refused, naming the field, and submit
// nothing.
func TestChainPayByAuthorization(t *testing.T) {
	m := newChainMarket(t)
	seller := m.instantSeller("text-file", "4.50", 30, nil, map[string]any{"payout_address": chaintest.Addr(m.c.NewKey())})
	buyer, task := m.awaiting(seller)
	_, other := m.awaiting(seller)
	kb := m.buyerWallet(10_000_000)
	terms := task.Payment.Authorization
	if terms == nil || terms.ValueUSD != task.Payment.AmountUSD || terms.Value != "4500000" || !strings.EqualFold(terms.To, m.deposit) ||
		terms.Nonce == other.Payment.Authorization.Nonce {
		t.Fatalf("terms %+v (other task's nonce %s)", terms, other.Payment.Authorization.Nonce)
	}

	bad := m.authorize(m.c.NewKey(), task)
	bad["from"] = chaintest.Addr(kb)
	_, err := do(buyer, "pay_authorization", bad)
	apiErr(t, err, axp.CodeInvalidInput, "signature")
	forOther := m.authorize(kb, other)
	forOther["id"] = task.ID
	_, err = do(buyer, "pay_authorization", forOther)
	apiErr(t, err, axp.CodeInvalidInput, "signature")
	late := m.authorize(kb, task)
	late["valid_before"] = time.Now().Add(48 * time.Hour).Unix()
	_, err = do(buyer, "pay_authorization", late)
	apiErr(t, err, axp.CodeInvalidInput, "valid_before")
	_, err = do(buyer, "pay_authorization", m.authorize(m.buyerWallet(1_000_000), task))
	apiErr(t, err, axp.CodeInvalidInput, "from")
	if bal := m.c.Balance(m.c.Token, m.deposit); bal != 0 {
		t.Fatalf("refused authorizations moved %s", bal)
	}

	var rep axp.PaymentReport
	in := m.authorize(kb, task)
	call(t, buyer, "pay_authorization", in, &rep)
	if rep.Payment == nil || rep.Payment.Status != "reported" || rep.Payment.TxHash == "" {
		t.Fatalf("report %+v", rep)
	}
	// The same call again (a retry) submits nothing more.
	call(t, buyer, "pay_authorization", in, nil)
	m.c.Mine(2)
	got := waitStatus(t, buyer, task.ID, axp.TaskPaid)
	if got.Payment.ReceivedUSD != task.Payment.AmountUSD {
		t.Fatalf("received %s, want the buyer total %s", got.Payment.ReceivedUSD, task.Payment.AmountUSD)
	}
	if bal := m.c.Balance(m.c.Token, chaintest.Addr(kb)); bal != 10_000_000-task.Payment.AmountUSD {
		t.Fatalf("the buyer holds %s", bal)
	}
	m.balances()
}

// A copy of the buyer's authorization submitted by someone else (front-running the exchange's own
// transaction) still pays the task whose nonce it carries, and only that task.
func TestChainAuthorizationCarriedByAnotherTransaction(t *testing.T) {
	m := newChainMarket(t)
	seller := m.instantSeller("text-file", "4.50", 30, nil, map[string]any{"payout_address": chaintest.Addr(m.c.NewKey())})
	buyer, task := m.awaiting(seller)
	kb := m.buyerWallet(10_000_000)
	in := m.authorize(kb, task)
	// The watcher sends again what the node lost; here it waits until the relayer's copy is in.
	relayed := make(chan struct{})
	m.d.SetAfterScan(func(what string) {
		if what == "resend" {
			select {
			case <-relayed:
			case <-time.After(10 * time.Second):
			}
		}
	})
	m.c.SetAutomine(false)
	var rep axp.PaymentReport
	call(t, buyer, "pay_authorization", in, &rep)
	m.c.DropTransaction(rep.Payment.TxHash)
	// A relayer submits the same signed authorization first.
	terms := task.Payment.Authorization
	sig := common.FromHex(in["signature"].(string))
	value, _ := new(big.Int).SetString(terms.Value, 10)
	m.c.SetAutomine(true)
	if !m.c.Call(m.c.NewKey(), m.c.Token, "transferWithAuthorization", common.HexToAddress(chaintest.Addr(kb)), common.HexToAddress(terms.To),
		value, big.NewInt(0), big.NewInt(in["valid_before"].(int64)), [32]byte(common.FromHex(terms.Nonce)), sig[64], [32]byte(sig[:32]), [32]byte(sig[32:64])) {
		t.Fatal("the relayer's copy reverted")
	}
	close(relayed)
	m.c.Mine(3)
	waitFunded(t, m, buyer, task.ID)
	m.balances()
}

func waitFunded(t *testing.T, m *chainMarket, buyer *client.Client, id string) {
	t.Helper()
	eventually(t, func() error {
		got := getTask(t, buyer, id)
		if got.Status != axp.TaskPaid {
			m.c.Mine(1)
			return fmt.Errorf("task is %s (%+v)", got.Status, got.Payment)
		}
		return nil
	})
}
