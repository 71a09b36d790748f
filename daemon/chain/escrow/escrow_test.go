package escrow_test

import (
	"context"
	"crypto/ecdsa"
	"errors"
	"math/big"
	"strings"
	"testing"
	"time"

	"github.com/axp-exchange/axp"
	"github.com/axp-exchange/axp/daemon/chain"
	"github.com/axp-exchange/axp/daemon/chain/chaintest"
	"github.com/axp-exchange/axp/daemon/chain/escrow"
	"github.com/axp-exchange/axp/daemon/chain/testusd"
	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/ethclient"
)

// The figures were computed apart from this package, with foundry's cast (cast keccak over cast
// abi-encode of the type hash and the fields, then of chain id, escrow and struct hash).
func TestHashKnownAnswer(t *testing.T) {
	p := escrow.PaymentInfo{
		Operator:  common.HexToAddress("0x1111111111111111111111111111111111111111"),
		Payer:     common.HexToAddress("0x2222222222222222222222222222222222222222"),
		Receiver:  common.HexToAddress("0x3333333333333333333333333333333333333333"),
		Token:     common.HexToAddress("0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913"),
		MaxAmount: big.NewInt(1_000_000), PreApprovalExpiry: 1740758554, AuthorizationExpiry: 1740762154,
		RefundExpiry: 1741276954, MinFeeBps: 100, MaxFeeBps: 250,
		FeeReceiver: common.HexToAddress("0x4444444444444444444444444444444444444444"), Salt: big.NewInt(42),
	}
	base := common.HexToAddress("0xBdEA0D1bcC5966192B070Fdf62aB4EF5b4420cff")
	if got, want := escrow.TypeHash.Hex(), "0xae68ac7ce30c86ece8196b61a7c486d8f0061f575037fbd34e7fe4e2820c6591"; got != want {
		t.Errorf("TypeHash = %s, want %s", got, want)
	}
	if got, want := escrow.Hash(8453, base, p).Hex(), "0x077a8738ea89430cde74278c65470d46df11015e446f1cb91747d9f93e3f16df"; got != want {
		t.Errorf("Hash = %s, want %s", got, want)
	}
	if got, want := common.Hash(escrow.Nonce(8453, base, p)).Hex(), "0x05aee1ce641d19cf1aa16483df5bdb62ddd7668bbd0ec2ac22cf8dd65776de4d"; got != want {
		t.Errorf("Nonce = %s, want %s", got, want)
	}
}

// world is a chain with TestUSD, the escrow and its collectors, an operator, a payer and the two
// payees.
type world struct {
	t               *testing.T
	c               *chaintest.Chain
	ec              *ethclient.Client
	k               escrow.Contracts
	token           common.Address
	operator, payer *ecdsa.PrivateKey
	receiver, feeTo common.Address
	store           common.Address // the operator's token store
	salt            int64
}

func newWorld(t *testing.T) *world {
	c := chaintest.Start(t)
	ec, err := ethclient.Dial(c.URL)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(ec.Close)
	w := &world{t: t, c: c, ec: ec, token: common.HexToAddress(c.Token), operator: c.NewKey(), payer: c.NewKey(),
		receiver: common.HexToAddress("0x00000000000000000000000000000000000000a1"),
		feeTo:    common.HexToAddress("0x00000000000000000000000000000000000000f1")}
	if w.k, err = escrow.Deploy(context.Background(), ec, c.NewKey()); err != nil {
		t.Fatal(err)
	}
	if w.store, err = escrow.TokenStore(context.Background(), ec, w.k.Escrow, addr(w.operator)); err != nil {
		t.Fatal(err)
	}
	c.Mint(c.Token, addr(w.payer).Hex(), 100_000_000)
	return w
}

func addr(k *ecdsa.PrivateKey) common.Address { return crypto.PubkeyToAddress(k.PublicKey) }

// terms are a new payment of at most max from the payer, its expiries counted from the chain's
// latest block: pre-approval in an hour, authorization in two, refunds for a day; fees 0 to 5%.
func (w *world) terms(max int64) escrow.PaymentInfo {
	w.t.Helper()
	head, err := w.ec.HeaderByNumber(context.Background(), nil)
	if err != nil {
		w.t.Fatal(err)
	}
	w.salt++
	return escrow.PaymentInfo{Operator: addr(w.operator), Payer: addr(w.payer), Receiver: w.receiver, Token: w.token,
		MaxAmount: big.NewInt(max), PreApprovalExpiry: head.Time + 3600, AuthorizationExpiry: head.Time + 7200,
		RefundExpiry: head.Time + 86400, MinFeeBps: 0, MaxFeeBps: 500, FeeReceiver: w.feeTo, Salt: big.NewInt(w.salt)}
}

// sign is the payer's signature of the payment's ReceiveWithAuthorization for the collector.
func (w *world) sign(p escrow.PaymentInfo, key *ecdsa.PrivateKey) []byte {
	w.t.Helper()
	digest, err := escrow.Digest(chain.Domain{Name: testusd.Name, Version: testusd.Version}, w.c.ID, w.k.Escrow, w.k.Collector, p)
	if err != nil {
		w.t.Fatal(err)
	}
	sig, err := crypto.Sign(digest, key)
	if err != nil {
		w.t.Fatal(err)
	}
	sig[64] += 27
	return sig
}

// send sends call data to the escrow from key's address, waits for it to be mined, requires
// success and answers the escrow's events of the transaction.
func (w *world) send(key *ecdsa.PrivateKey, c call) []escrow.Event {
	w.t.Helper()
	if c.err != nil {
		w.t.Fatal(c.err)
	}
	data := c.data
	ctx := context.Background()
	tx, err := testusd.Send(ctx, w.ec, key, &w.k.Escrow, data, nil)
	if err != nil {
		if r, ok := escrow.RevertOf(err); ok {
			w.t.Fatalf("reverted: %v", r)
		}
		w.t.Fatal(err)
	}
	var r *types.Receipt
	for deadline := time.Now().Add(20 * time.Second); r == nil; time.Sleep(20 * time.Millisecond) {
		if r, err = w.ec.TransactionReceipt(ctx, tx.Hash()); err != nil && !errors.Is(err, ethereum.NotFound) {
			w.t.Fatal(err)
		}
		if time.Now().After(deadline) {
			w.t.Fatalf("transaction %s not mined", tx.Hash().Hex())
		}
	}
	if r.Status != types.ReceiptStatusSuccessful {
		w.t.Fatalf("transaction %s failed", tx.Hash().Hex())
	}
	var events []escrow.Event
	for _, l := range r.Logs {
		if l.Address != w.k.Escrow {
			continue
		}
		e, ok, err := escrow.Decode(*l)
		if err != nil {
			w.t.Fatal(err)
		}
		if ok {
			events = append(events, e)
		}
	}
	return events
}

// reverts calls the escrow with data from key's address and requires the custom error name.
func (w *world) reverts(key *ecdsa.PrivateKey, c call, name string) *escrow.Revert {
	w.t.Helper()
	if c.err != nil {
		w.t.Fatal(c.err)
	}
	_, err := w.ec.CallContract(context.Background(), ethereum.CallMsg{From: addr(key), To: &w.k.Escrow, Data: c.data}, nil)
	if err == nil {
		w.t.Fatalf("the call succeeded; want %s", name)
	}
	r, ok := escrow.RevertOf(err)
	if !ok {
		w.t.Fatalf("the call failed with %v; want %s", err, name)
	}
	if r.Name != name {
		w.t.Fatalf("reverted with %v; want %s", r, name)
	}
	return r
}

func (w *world) balance(a common.Address) axp.Money {
	w.t.Helper()
	return w.c.Balance(w.c.Token, a.Hex())
}

func (w *world) state(p escrow.PaymentInfo) escrow.State {
	w.t.Helper()
	s, err := escrow.ReadState(context.Background(), w.ec, w.k.Escrow, escrow.Hash(w.c.ID, w.k.Escrow, p))
	if err != nil {
		w.t.Fatal(err)
	}
	return s
}

// authorize authorizes amount of p with the payer's signature.
func (w *world) authorize(p escrow.PaymentInfo, amount int64) []escrow.Event {
	w.t.Helper()
	return w.send(w.operator, pack(escrow.Authorize(p, big.NewInt(amount), w.k.Collector, w.sign(p, w.payer))))
}

// call is call data for the escrow, or the error of packing it.
type call struct {
	data []byte
	err  error
}

func pack(data []byte, err error) call { return call{data, err} }

func n(v int64) *big.Int { return big.NewInt(v) }

// find is the event named name among events; there must be one.
func find(t *testing.T, events []escrow.Event, name string) escrow.Event {
	t.Helper()
	for _, e := range events {
		if e.Name == name {
			return e
		}
	}
	t.Fatalf("no %s event among %+v", name, events)
	return escrow.Event{}
}

func wantState(t *testing.T, s escrow.State, capturable, refundable int64) {
	t.Helper()
	if !s.Collected || s.Capturable.Int64() != capturable || s.Refundable.Int64() != refundable {
		t.Fatalf("state = collected %v, capturable %v, refundable %v; want true, %d, %d", s.Collected, s.Capturable, s.Refundable, capturable, refundable)
	}
}

func wantMoney(t *testing.T, what string, got, want axp.Money) {
	t.Helper()
	if got != want {
		t.Fatalf("%s = %d, want %d", what, got, want)
	}
}

func TestHashMatchesContract(t *testing.T) {
	w := newWorld(t)
	max120 := new(big.Int).Sub(new(big.Int).Lsh(n(1), 120), n(1))
	max256 := new(big.Int).Sub(new(big.Int).Lsh(n(1), 256), n(1))
	for _, p := range []escrow.PaymentInfo{
		w.terms(1),
		{},
		{Operator: common.HexToAddress("0xffffffffffffffffffffffffffffffffffffffff"), MaxAmount: max120,
			PreApprovalExpiry: 1<<48 - 1, AuthorizationExpiry: 1<<48 - 1, RefundExpiry: 1<<48 - 1, MinFeeBps: 10_000,
			MaxFeeBps: 65_535, Salt: max256},
	} {
		got, err := escrow.GetHash(context.Background(), w.ec, w.k.Escrow, p)
		if err != nil {
			t.Fatal(err)
		}
		if want := escrow.Hash(w.c.ID, w.k.Escrow, p); got != want {
			t.Errorf("getHash = %s, Hash = %s for %+v", got.Hex(), want.Hex(), p)
		}
	}
}

func TestAuthorizeCaptureRefund(t *testing.T) {
	w := newWorld(t)
	p := w.terms(5_000_000)
	hash := escrow.Hash(w.c.ID, w.k.Escrow, p)

	// The payer signs for 5 USD; the operator authorizes 3: 2 go back at once.
	events := w.authorize(p, 3_000_000)
	wantMoney(t, "payer", w.balance(p.Payer), 97_000_000)
	wantMoney(t, "token store", w.balance(w.store), 3_000_000)
	wantMoney(t, "collector", w.balance(w.k.Collector), 0)
	wantState(t, w.state(p), 3_000_000, 0)
	if len(events) != 1 || events[0].Name != "PaymentAuthorized" || events[0].Hash != hash || events[0].Amount.Int64() != 3_000_000 ||
		events[0].TokenCollector != w.k.Collector || events[0].Info == nil || escrow.Hash(w.c.ID, w.k.Escrow, *events[0].Info) != hash {
		t.Fatalf("events = %+v", events)
	}

	// The same authorization, again: the payment is collected once.
	w.reverts(w.operator, pack(escrow.Authorize(p, n(3_000_000), w.k.Collector, w.sign(p, w.payer))), "PaymentAlreadyCollected")

	w.reverts(w.operator, pack(escrow.Capture(p, n(3_000_001), 250, w.feeTo)), "InsufficientAuthorization")
	w.reverts(w.operator, pack(escrow.Capture(p, n(1), 501, w.feeTo)), "FeeBpsOutOfRange")
	w.reverts(w.operator, pack(escrow.Capture(p, n(1), 250, w.receiver)), "InvalidFeeReceiver")
	w.reverts(w.payer, pack(escrow.Capture(p, n(1), 250, w.feeTo)), "InvalidSender")
	w.reverts(w.operator, pack(escrow.Capture(p, n(0), 250, w.feeTo)), "ZeroAmount")

	// Two captures: 1 USD at 2.5%, then the 2 left at 1%.
	events = w.send(w.operator, pack(escrow.Capture(p, n(1_000_000), 250, w.feeTo)))
	wantMoney(t, "receiver", w.balance(w.receiver), 975_000)
	wantMoney(t, "fee receiver", w.balance(w.feeTo), 25_000)
	wantState(t, w.state(p), 2_000_000, 1_000_000)
	// The operator's token store is deployed when money first leaves it.
	created, captured := find(t, events, "TokenStoreCreated"), find(t, events, "PaymentCaptured")
	if len(events) != 2 || created.Operator != p.Operator || created.TokenStore != w.store ||
		captured.Hash != hash || captured.Amount.Int64() != 1_000_000 || captured.FeeBps != 250 || captured.FeeReceiver != w.feeTo {
		t.Fatalf("events = %+v", events)
	}
	w.send(w.operator, pack(escrow.Capture(p, n(2_000_000), 100, w.feeTo)))
	wantMoney(t, "receiver", w.balance(w.receiver), 975_000+1_980_000)
	wantMoney(t, "fee receiver", w.balance(w.feeTo), 25_000+20_000)
	wantMoney(t, "token store", w.balance(w.store), 0)
	wantState(t, w.state(p), 0, 3_000_000)
	w.reverts(w.operator, pack(escrow.Void(p)), "ZeroAuthorization")

	// A refund of 0.5 USD, paid by the operator through the refund collector.
	w.c.Mint(w.c.Token, addr(w.operator).Hex(), 1_000_000)
	if !w.c.Call(w.operator, w.c.Token, "approve", w.k.RefundCollector, n(1_000_000)) {
		t.Fatal("approve failed")
	}
	w.reverts(w.operator, pack(escrow.Refund(p, n(500_000), w.k.Collector, nil)), "InvalidCollectorForOperation")
	w.reverts(w.payer, pack(escrow.Refund(p, n(500_000), w.k.RefundCollector, nil)), "InvalidSender")
	events = w.send(w.operator, pack(escrow.Refund(p, n(500_000), w.k.RefundCollector, nil)))
	wantMoney(t, "payer", w.balance(p.Payer), 97_500_000)
	wantMoney(t, "operator", w.balance(p.Operator), 500_000)
	wantState(t, w.state(p), 0, 2_500_000)
	if len(events) != 1 || events[0].Name != "PaymentRefunded" || events[0].Amount.Int64() != 500_000 || events[0].TokenCollector != w.k.RefundCollector {
		t.Fatalf("events = %+v", events)
	}
	w.reverts(w.operator, pack(escrow.Refund(p, n(2_500_001), w.k.RefundCollector, nil)), "RefundExceedsCapture")
}

func TestVoid(t *testing.T) {
	w := newWorld(t)
	p := w.terms(2_000_000)
	w.authorize(p, 2_000_000)
	wantMoney(t, "payer", w.balance(p.Payer), 98_000_000)
	w.reverts(w.payer, pack(escrow.Void(p)), "InvalidSender")
	events := w.send(w.operator, pack(escrow.Void(p)))
	wantMoney(t, "payer", w.balance(p.Payer), 100_000_000)
	wantMoney(t, "token store", w.balance(w.store), 0)
	wantState(t, w.state(p), 0, 0)
	if e := find(t, events, "PaymentVoided"); e.Amount.Int64() != 2_000_000 {
		t.Fatalf("events = %+v", events)
	}
	w.reverts(w.operator, pack(escrow.Void(p)), "ZeroAuthorization")
	w.reverts(w.operator, pack(escrow.Capture(p, n(1), 0, w.feeTo)), "InsufficientAuthorization")
	// Voided, the payment cannot be authorized again under the same terms.
	w.reverts(w.operator, pack(escrow.Authorize(p, n(1), w.k.Collector, w.sign(p, w.payer))), "PaymentAlreadyCollected")
}

func TestCharge(t *testing.T) {
	w := newWorld(t)
	p := w.terms(1_000_000)
	p.MinFeeBps = 100
	w.reverts(w.operator, pack(escrow.Charge(p, n(1_000_000), w.k.Collector, w.sign(p, w.payer), 50, w.feeTo)), "FeeBpsOutOfRange")
	events := w.send(w.operator, pack(escrow.Charge(p, n(1_000_000), w.k.Collector, w.sign(p, w.payer), 100, w.feeTo)))
	wantMoney(t, "payer", w.balance(p.Payer), 99_000_000)
	wantMoney(t, "receiver", w.balance(w.receiver), 990_000)
	wantMoney(t, "fee receiver", w.balance(w.feeTo), 10_000)
	wantState(t, w.state(p), 0, 1_000_000)
	if e := find(t, events, "PaymentCharged"); e.Info == nil || escrow.Hash(w.c.ID, w.k.Escrow, *e.Info) != escrow.Hash(w.c.ID, w.k.Escrow, p) || e.FeeBps != 100 || e.Amount.Int64() != 1_000_000 {
		t.Fatalf("events = %+v", events)
	}
}

func TestAuthorizeRefused(t *testing.T) {
	w := newWorld(t)
	p := w.terms(1_000_000)
	sig := w.sign(p, w.payer)
	stranger := w.c.NewKey()
	w.reverts(stranger, pack(escrow.Authorize(p, n(1_000_000), w.k.Collector, sig)), "InvalidSender")
	w.reverts(w.operator, pack(escrow.Authorize(p, n(1_000_001), w.k.Collector, sig)), "ExceedsMaxAmount")
	w.reverts(w.operator, pack(escrow.Authorize(p, n(1_000_000), w.k.RefundCollector, sig)), "InvalidCollectorForOperation")
	bad := p
	bad.RefundExpiry = bad.AuthorizationExpiry - 1
	w.reverts(w.operator, pack(escrow.Authorize(bad, n(1), w.k.Collector, w.sign(bad, w.payer))), "InvalidExpiries")
	bad = p
	bad.MinFeeBps, bad.MaxFeeBps = 300, 200
	w.reverts(w.operator, pack(escrow.Authorize(bad, n(1), w.k.Collector, w.sign(bad, w.payer))), "InvalidFeeBpsRange")
	bad.MinFeeBps, bad.MaxFeeBps = 0, 10_001
	w.reverts(w.operator, pack(escrow.Authorize(bad, n(1), w.k.Collector, w.sign(bad, w.payer))), "FeeBpsOverflow")

	// A signature by someone else than the payer, or for other terms, is refused by the token.
	for _, s := range [][]byte{w.sign(p, stranger), w.sign(w.terms(1_000_000), w.payer)} {
		data, _ := escrow.Authorize(p, n(1_000_000), w.k.Collector, s)
		_, err := w.ec.CallContract(context.Background(), ethereum.CallMsg{From: addr(w.operator), To: &w.k.Escrow, Data: data}, nil)
		if err == nil || !strings.Contains(err.Error(), "invalid signature") {
			t.Fatalf("authorize with a wrong signature: %v", err)
		}
	}
	wantMoney(t, "payer", w.balance(p.Payer), 100_000_000)
}

func TestExpiries(t *testing.T) {
	w := newWorld(t)
	p := w.terms(1_000_000)
	captured := w.terms(1_000_000)
	late := w.terms(1_000_000)
	lateSig := w.sign(late, w.payer)
	w.authorize(p, 1_000_000)
	w.authorize(captured, 1_000_000)
	w.send(w.operator, pack(escrow.Capture(captured, n(1_000_000), 0, w.feeTo)))
	wantMoney(t, "payer", w.balance(p.Payer), 98_000_000)
	w.reverts(w.payer, pack(escrow.Reclaim(p)), "BeforeAuthorizationExpiry")

	// Past the pre-approval expiry: nothing more can be authorized under it.
	w.setTime(p.PreApprovalExpiry)
	r := w.reverts(w.operator, pack(escrow.Authorize(late, n(1), w.k.Collector, lateSig)), "AfterPreApprovalExpiry")
	if r.Args[1].(*big.Int).Uint64() != late.PreApprovalExpiry {
		t.Fatalf("revert = %v", r)
	}

	// Past the authorization expiry: no capture; the payer (only) reclaims.
	w.setTime(p.AuthorizationExpiry)
	w.reverts(w.operator, pack(escrow.Capture(p, n(1), 0, w.feeTo)), "AfterAuthorizationExpiry")
	w.reverts(w.operator, pack(escrow.Reclaim(p)), "InvalidSender")
	events := w.send(w.payer, pack(escrow.Reclaim(p)))
	wantMoney(t, "payer", w.balance(p.Payer), 99_000_000)
	wantState(t, w.state(p), 0, 0)
	if e := find(t, events, "PaymentReclaimed"); e.Amount.Int64() != 1_000_000 {
		t.Fatalf("events = %+v", events)
	}
	w.reverts(w.payer, pack(escrow.Reclaim(p)), "ZeroAuthorization")

	// Past the refund expiry: no refund.
	w.setTime(captured.RefundExpiry)
	w.reverts(w.operator, pack(escrow.Refund(captured, n(1), w.k.RefundCollector, nil)), "AfterRefundExpiry")
}

// setTime mines a block stamped at unix second at.
func (w *world) setTime(at uint64) {
	w.c.SetTime(time.Unix(int64(at), 0))
	w.c.Mine(1)
}

// Terms and ParseTerms carry a payment through the exchange's answer and back: the same hash; a
// malformed field is refused by its name.
func TestTermsRoundTrip(t *testing.T) {
	p := escrow.PaymentInfo{Operator: common.HexToAddress("0x1111111111111111111111111111111111111111"),
		Receiver: common.HexToAddress("0x3333333333333333333333333333333333333333"), Token: common.HexToAddress("0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913"),
		MaxAmount: big.NewInt(4_500_000), PreApprovalExpiry: 1740758554, AuthorizationExpiry: 1740762154, RefundExpiry: 1741276954,
		MinFeeBps: 100, MaxFeeBps: 100, FeeReceiver: common.HexToAddress("0x4444444444444444444444444444444444444444"),
		Salt: new(big.Int).Lsh(big.NewInt(1), 255)}
	base := common.HexToAddress("0xBdEA0D1bcC5966192B070Fdf62aB4EF5b4420cff")
	terms := escrow.Terms(p)
	if terms.Payer != "" || terms.MaxAmount != "4500000" {
		t.Fatalf("terms %+v", terms)
	}
	back, err := escrow.ParseTerms(terms)
	if err != nil || escrow.Hash(8453, base, back) != escrow.Hash(8453, base, p) {
		t.Fatalf("back %+v (%v)", back, err)
	}
	p.Payer = common.HexToAddress("0x2222222222222222222222222222222222222222")
	if back, err = escrow.ParseTerms(escrow.Terms(p)); err != nil || back.Payer != p.Payer || escrow.Hash(8453, base, back) != escrow.Hash(8453, base, p) {
		t.Fatalf("with the payer: %+v (%v)", back, err)
	}
	bad := terms
	bad.MaxAmount = new(big.Int).Lsh(big.NewInt(1), 120).String()
	if _, err := escrow.ParseTerms(bad); err == nil || !strings.Contains(err.Error(), "maxAmount") {
		t.Fatalf("a maxAmount over 120 bits: %v", err)
	}
	bad = terms
	bad.Receiver = "0x12"
	if _, err := escrow.ParseTerms(bad); err == nil || !strings.Contains(err.Error(), "receiver") {
		t.Fatalf("a bad receiver: %v", err)
	}
}
