// Package escrow is the Go binding of an AuthCaptureEscrow (the commerce-payments escrow interface:
// the audited deployment on Base, or the project's own contract of this directory on a local
// chain) and its ERC-3009 payment collector: the PaymentInfo terms and their hash, the
// ReceiveWithAuthorization a payer signs, the calls an operator sends, the events and the custom
// errors. The bytecode and ABIs are committed, rebuilt by scripts/build-escrow with the pinned solc;
// Deploy puts the local contracts on a test chain. It sends nothing on its own and keeps no state:
// the exchange decides what to call and when.
package escrow

import (
	"context"
	"crypto/ecdsa"
	_ "embed"
	"encoding/binary"
	"errors"
	"fmt"
	"math/big"
	"strings"
	"time"

	"github.com/axp-exchange/axp"
	"github.com/axp-exchange/axp/daemon/chain"
	"github.com/axp-exchange/axp/daemon/chain/testusd"
	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/accounts/abi"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/ethclient"
	"github.com/ethereum/go-ethereum/rpc"
)

var (
	//go:embed AuthCaptureEscrow.bin
	escrowBin string
	//go:embed AuthCaptureEscrow.abi
	escrowABI string
	//go:embed ERC3009PaymentCollector.bin
	collectorBin string
	//go:embed ERC3009PaymentCollector.abi
	collectorABI string
	//go:embed OperatorRefundCollector.bin
	refundBin string
	//go:embed OperatorRefundCollector.abi
	refundABI string
)

var escrowC, collectorC, refundC = parse(escrowABI), parse(collectorABI), parse(refundABI)

func parse(j string) abi.ABI {
	a, err := abi.JSON(strings.NewReader(j))
	if err != nil {
		panic("escrow: a committed ABI does not parse: " + err.Error())
	}
	return a
}

// ABI is the escrow contract's ABI.
func ABI() abi.ABI { return escrowC }

// TypeHash is the EIP-712 type hash of PaymentInfo (the contract's PAYMENT_INFO_TYPEHASH).
var TypeHash = crypto.Keccak256Hash([]byte("PaymentInfo(address operator,address payer,address receiver,address token," +
	"uint120 maxAmount,uint48 preApprovalExpiry,uint48 authorizationExpiry,uint48 refundExpiry," +
	"uint16 minFeeBps,uint16 maxFeeBps,address feeReceiver,uint256 salt)"))

// PaymentInfo is one payment's terms, as the payer signs them and every call names them. Amounts
// are token units; expiries are unix seconds (the contract holds them in 48 bits).
type PaymentInfo struct {
	Operator            common.Address // the only sender of authorize, charge, capture, void and refund
	Payer               common.Address
	Receiver            common.Address
	Token               common.Address
	MaxAmount           *big.Int // at most 2^120-1
	PreApprovalExpiry   uint64   // authorize only before
	AuthorizationExpiry uint64   // capture only before; the payer may reclaim from then on
	RefundExpiry        uint64   // refund only before
	MinFeeBps           uint16
	MaxFeeBps           uint16
	FeeReceiver         common.Address // zero: the operator names it at capture
	Salt                *big.Int       // tells apart payments with equal terms
}

// tuple is PaymentInfo in the shape go-ethereum's abi package packs as the contract's struct.
type tuple struct {
	Operator, Payer, Receiver, Token                     common.Address
	MaxAmount                                            *big.Int
	PreApprovalExpiry, AuthorizationExpiry, RefundExpiry *big.Int
	MinFeeBps, MaxFeeBps                                 uint16
	FeeReceiver                                          common.Address
	Salt                                                 *big.Int
}

func (p PaymentInfo) tuple() tuple {
	u := func(v uint64) *big.Int { return new(big.Int).SetUint64(v) }
	return tuple{p.Operator, p.Payer, p.Receiver, p.Token, orZero(p.MaxAmount), u(p.PreApprovalExpiry),
		u(p.AuthorizationExpiry), u(p.RefundExpiry), p.MinFeeBps, p.MaxFeeBps, p.FeeReceiver, orZero(p.Salt)}
}

func (t tuple) info() PaymentInfo {
	return PaymentInfo{t.Operator, t.Payer, t.Receiver, t.Token, t.MaxAmount, t.PreApprovalExpiry.Uint64(),
		t.AuthorizationExpiry.Uint64(), t.RefundExpiry.Uint64(), t.MinFeeBps, t.MaxFeeBps, t.FeeReceiver, t.Salt}
}

func orZero(v *big.Int) *big.Int {
	if v == nil {
		return new(big.Int)
	}
	return v
}

// Hash is the payment's identity on the escrow at escrowAddr on chain chainID, computed here as the
// contract's getHash computes it: keccak256(chainID, escrowAddr, structHash), each one 32-byte ABI
// word, where structHash is the EIP-712 hash of the terms under TypeHash.
func Hash(chainID uint64, escrowAddr common.Address, p PaymentInfo) common.Hash {
	words := [][]byte{TypeHash[:], word(p.Operator[:]), word(p.Payer[:]), word(p.Receiver[:]), word(p.Token[:]),
		word(orZero(p.MaxAmount).Bytes()), uword(p.PreApprovalExpiry), uword(p.AuthorizationExpiry), uword(p.RefundExpiry),
		uword(uint64(p.MinFeeBps)), uword(uint64(p.MaxFeeBps)), word(p.FeeReceiver[:]), word(orZero(p.Salt).Bytes())}
	structHash := crypto.Keccak256(words...)
	return crypto.Keccak256Hash(uword(chainID), word(escrowAddr[:]), structHash)
}

// Terms is p as the exchange answers it (axp.EscrowPaymentInfo), the payer left out while it is
// zero.
func Terms(p PaymentInfo) axp.EscrowPaymentInfo {
	out := axp.EscrowPaymentInfo{Operator: p.Operator.Hex(), Receiver: p.Receiver.Hex(), Token: p.Token.Hex(),
		MaxAmount: orZero(p.MaxAmount).String(), PreApprovalExpiry: int64(p.PreApprovalExpiry), AuthorizationExpiry: int64(p.AuthorizationExpiry),
		RefundExpiry: int64(p.RefundExpiry), MinFeeBps: p.MinFeeBps, MaxFeeBps: p.MaxFeeBps, FeeReceiver: p.FeeReceiver.Hex(), Salt: orZero(p.Salt).String()}
	if p.Payer != (common.Address{}) {
		out.Payer = p.Payer.Hex()
	}
	return out
}

// ParseTerms reads terms back into a PaymentInfo, refusing a malformed field by name.
func ParseTerms(t axp.EscrowPaymentInfo) (PaymentInfo, error) {
	var p PaymentInfo
	for _, a := range []struct {
		name, v string
		to      *common.Address
	}{{"operator", t.Operator, &p.Operator}, {"payer", t.Payer, &p.Payer}, {"receiver", t.Receiver, &p.Receiver},
		{"token", t.Token, &p.Token}, {"feeReceiver", t.FeeReceiver, &p.FeeReceiver}} {
		if a.v == "" && a.name == "payer" {
			continue
		}
		if !common.IsHexAddress(a.v) {
			return p, fmt.Errorf("payment_info.%s %q is not an address", a.name, a.v)
		}
		*a.to = common.HexToAddress(a.v)
	}
	var ok bool
	if p.MaxAmount, ok = new(big.Int).SetString(t.MaxAmount, 10); !ok || p.MaxAmount.Sign() < 0 || p.MaxAmount.BitLen() > 120 {
		return p, fmt.Errorf("payment_info.maxAmount %q is not a uint120", t.MaxAmount)
	}
	if p.Salt, ok = new(big.Int).SetString(t.Salt, 10); !ok || p.Salt.Sign() < 0 || p.Salt.BitLen() > 256 {
		return p, fmt.Errorf("payment_info.salt %q is not a uint256", t.Salt)
	}
	for _, e := range []struct {
		name string
		v    int64
		to   *uint64
	}{{"preApprovalExpiry", t.PreApprovalExpiry, &p.PreApprovalExpiry}, {"authorizationExpiry", t.AuthorizationExpiry, &p.AuthorizationExpiry},
		{"refundExpiry", t.RefundExpiry, &p.RefundExpiry}} {
		if e.v < 0 || e.v >= 1<<48 {
			return p, fmt.Errorf("payment_info.%s %d is not a uint48", e.name, e.v)
		}
		*e.to = uint64(e.v)
	}
	p.MinFeeBps, p.MaxFeeBps = t.MinFeeBps, t.MaxFeeBps
	return p, nil
}

// word left-pads b (at most 32 bytes) to one ABI word.
func word(b []byte) []byte { return common.LeftPadBytes(b, 32) }

func uword(v uint64) []byte {
	w := make([]byte, 32)
	binary.BigEndian.PutUint64(w[24:], v)
	return w
}

// Nonce is the EIP-3009 nonce of the payer's authorization for the payment: its Hash with the
// payer zeroed, as the ERC-3009 payment collector derives it. An authorization is thereby good for
// this payment's terms on this escrow only.
func Nonce(chainID uint64, escrowAddr common.Address, p PaymentInfo) [32]byte {
	p.Payer = common.Address{}
	return Hash(chainID, escrowAddr, p)
}

// Authorization is the ReceiveWithAuthorization the payer signs for the payment to be collected by
// the ERC-3009 payment collector at collectorAddr: all of MaxAmount from the payer to the collector,
// valid from 0 until the pre-approval expiry, under Nonce. The collector returns at once what the
// operator does not authorize.
func Authorization(chainID uint64, escrowAddr, collectorAddr common.Address, p PaymentInfo) chain.Authorization {
	return chain.Authorization{From: p.Payer, To: collectorAddr, Value: orZero(p.MaxAmount), ValidAfter: new(big.Int),
		ValidBefore: new(big.Int).SetUint64(p.PreApprovalExpiry), Nonce: Nonce(chainID, escrowAddr, p)}
}

// Digest is the EIP-712 hash the payer signs (under the token's domain d) for the payment to be
// collected by the collector at collectorAddr; its 65-byte signature is authorize's collectorData.
func Digest(d chain.Domain, chainID uint64, escrowAddr, collectorAddr common.Address, p PaymentInfo) ([]byte, error) {
	return chain.ReceiveAuthorizationDigest(d, chainID, p.Token, Authorization(chainID, escrowAddr, collectorAddr, p))
}

// Authorize is the call data of authorize: collect amount (at most MaxAmount) from the payer into
// escrow through tokenCollector, with collectorData (the payer's signature for the ERC-3009 one).
func Authorize(p PaymentInfo, amount *big.Int, tokenCollector common.Address, collectorData []byte) ([]byte, error) {
	return escrowC.Pack("authorize", p.tuple(), amount, tokenCollector, nonNil(collectorData))
}

// Charge is the call data of charge: authorize and capture amount in one call.
func Charge(p PaymentInfo, amount *big.Int, tokenCollector common.Address, collectorData []byte, feeBps uint16, feeReceiver common.Address) ([]byte, error) {
	return escrowC.Pack("charge", p.tuple(), amount, tokenCollector, nonNil(collectorData), feeBps, feeReceiver)
}

// Capture is the call data of capture: pay amount of what is held to the receiver, feeBps of it
// (rounded down) to feeReceiver.
func Capture(p PaymentInfo, amount *big.Int, feeBps uint16, feeReceiver common.Address) ([]byte, error) {
	return escrowC.Pack("capture", p.tuple(), amount, feeBps, feeReceiver)
}

// Void is the call data of void: return everything held to the payer (the operator's call).
func Void(p PaymentInfo) ([]byte, error) { return escrowC.Pack("void", p.tuple()) }

// Reclaim is the call data of reclaim: return everything held to the payer (the payer's call, from
// the authorization expiry on).
func Reclaim(p PaymentInfo) ([]byte, error) { return escrowC.Pack("reclaim", p.tuple()) }

// Refund is the call data of refund: send amount of what was captured back to the payer, the money
// collected by tokenCollector (the operator refund collector takes it from the operator, who must
// have approved that collector for the token).
func Refund(p PaymentInfo, amount *big.Int, tokenCollector common.Address, collectorData []byte) ([]byte, error) {
	return escrowC.Pack("refund", p.tuple(), amount, tokenCollector, nonNil(collectorData))
}

func nonNil(b []byte) []byte {
	if b == nil {
		return []byte{}
	}
	return b
}

// State is a payment's state on the escrow (its paymentState).
type State struct {
	Collected  bool     // authorized or charged once: it cannot be again
	Capturable *big.Int // held, capturable
	Refundable *big.Int // captured, not yet refunded
}

// ReadState reads the payment's state (by its Hash) from the escrow at escrowAddr.
func ReadState(ctx context.Context, ec *ethclient.Client, escrowAddr common.Address, hash common.Hash) (State, error) {
	out, err := call(ctx, ec, escrowAddr, "paymentState", hash)
	if err != nil {
		return State{}, err
	}
	v, err := escrowC.Unpack("paymentState", out)
	if err != nil {
		return State{}, fmt.Errorf("the escrow at %s answered paymentState with %d bytes: %w", escrowAddr.Hex(), len(out), err)
	}
	return State{Collected: v[0].(bool), Capturable: v[1].(*big.Int), Refundable: v[2].(*big.Int)}, nil
}

// GetHash asks the escrow at escrowAddr for the payment's hash (its getHash), to check Hash against.
func GetHash(ctx context.Context, ec *ethclient.Client, escrowAddr common.Address, p PaymentInfo) (common.Hash, error) {
	out, err := callWord(ctx, ec, escrowAddr, "getHash", p.tuple())
	return common.BytesToHash(out), err
}

// TokenStore asks the escrow at escrowAddr for the address of operator's token store, where the
// money it holds for the operator's payments sits (the address is fixed before the store exists).
func TokenStore(ctx context.Context, ec *ethclient.Client, escrowAddr, operator common.Address) (common.Address, error) {
	out, err := callWord(ctx, ec, escrowAddr, "getTokenStore", operator)
	if err != nil {
		return common.Address{}, err
	}
	return common.BytesToAddress(out), nil
}

// call calls method of the escrow at escrowAddr with args (a read, at the newest block) and
// answers the returned bytes.
func call(ctx context.Context, ec *ethclient.Client, escrowAddr common.Address, method string, args ...any) ([]byte, error) {
	data, err := escrowC.Pack(method, args...)
	if err != nil {
		return nil, err
	}
	return ec.CallContract(ctx, ethereum.CallMsg{To: &escrowAddr, Data: data}, nil)
}

// callWord calls method as call does and answers its one 32-byte word, or an error naming the
// method when the escrow answered anything else.
func callWord(ctx context.Context, ec *ethclient.Client, escrowAddr common.Address, method string, args ...any) ([]byte, error) {
	out, err := call(ctx, ec, escrowAddr, method, args...)
	if err != nil {
		return nil, err
	}
	if len(out) != 32 {
		return nil, fmt.Errorf("the escrow at %s answered %s with %d bytes, not 32", escrowAddr.Hex(), method, len(out))
	}
	return out, nil
}

// Event is one event of the escrow, decoded. Fields an event does not carry are zero.
type Event struct {
	Name           string      // PaymentAuthorized, PaymentCharged, PaymentCaptured, PaymentVoided, PaymentReclaimed, PaymentRefunded, TokenStoreCreated
	Hash           common.Hash // the payment's (not for TokenStoreCreated)
	Info           *PaymentInfo
	Amount         *big.Int
	TokenCollector common.Address
	FeeBps         uint16
	FeeReceiver    common.Address
	Operator       common.Address // TokenStoreCreated
	TokenStore     common.Address // TokenStoreCreated
	Log            types.Log
}

// Decode decodes a log of the escrow. ok is false for a log that is none of its events.
func Decode(l types.Log) (e Event, ok bool, err error) {
	if len(l.Topics) == 0 {
		return e, false, nil
	}
	ev, err := escrowC.EventByID(l.Topics[0])
	if err != nil {
		return e, false, nil
	}
	e = Event{Name: ev.Name, Log: l}
	if len(l.Topics) != 2 {
		return e, false, fmt.Errorf("%s log with %d topics; it has 2", ev.Name, len(l.Topics))
	}
	v := map[string]any{}
	if err := ev.Inputs.UnpackIntoMap(v, l.Data); err != nil {
		return e, false, fmt.Errorf("%s log: %w", ev.Name, err)
	}
	if ev.Name == "TokenStoreCreated" {
		e.Operator = common.BytesToAddress(l.Topics[1].Bytes())
	} else {
		e.Hash = l.Topics[1]
	}
	if t, ok := v["paymentInfo"]; ok {
		// The abi package unpacks the tuple into a struct of its own with the same fields.
		pi := abi.ConvertType(t, new(tuple)).(*tuple).info()
		e.Info = &pi
	}
	e.Amount, _ = v["amount"].(*big.Int)
	e.TokenCollector, _ = v["tokenCollector"].(common.Address)
	e.FeeBps, _ = v["feeBps"].(uint16)
	e.FeeReceiver, _ = v["feeReceiver"].(common.Address)
	e.TokenStore, _ = v["tokenStore"].(common.Address)
	return e, true, nil
}

// Topic is the topic of the escrow's event name, for a log filter.
func Topic(name string) common.Hash { return escrowC.Events[name].ID }

// Revert is one of the escrow's custom errors (or a collector's or token store's), decoded.
type Revert struct {
	Name string
	Args []any
}

func (r *Revert) Error() string { return fmt.Sprintf("the escrow reverted with %s%v", r.Name, r.Args) }

// DecodeRevert decodes revert data as one of the contracts' custom errors; ok is false for anything
// else (a token's string revert, empty data).
func DecodeRevert(data []byte) (*Revert, bool) {
	if len(data) < 4 {
		return nil, false
	}
	for _, a := range []abi.ABI{escrowC, collectorC, refundC} {
		for _, e := range a.Errors {
			if [4]byte(e.ID[:4]) != [4]byte(data[:4]) {
				continue
			}
			args, err := e.Inputs.Unpack(data[4:])
			if err != nil {
				return nil, false
			}
			return &Revert{Name: e.Name, Args: args}, true
		}
	}
	return nil, false
}

// RevertOf finds the custom error in an error from a node's eth_call or eth_estimateGas (the revert
// data it carries); ok is false when there is none.
func RevertOf(err error) (*Revert, bool) {
	var de rpc.DataError
	if !errors.As(err, &de) {
		return nil, false
	}
	s, _ := de.ErrorData().(string)
	return DecodeRevert(common.FromHex(s))
}

// Contracts are the addresses of a deployment.
type Contracts struct {
	Escrow          common.Address
	Collector       common.Address // ERC3009PaymentCollector
	RefundCollector common.Address // OperatorRefundCollector
}

// Deploy deploys the project's local escrow and its two collectors from key's address (which pays
// the gas): the three transactions are sent at once with consecutive nonces (the collectors are
// given the escrow's address, which follows from the sender and its nonce), then each is waited
// for. For tests and test mode only: on Base the exchange uses the audited deployment.
func Deploy(ctx context.Context, ec *ethclient.Client, key *ecdsa.PrivateKey) (Contracts, error) {
	from := crypto.PubkeyToAddress(key.PublicKey)
	nonce, err := ec.PendingNonceAt(ctx, from)
	if err != nil {
		return Contracts{}, err
	}
	c := Contracts{Escrow: crypto.CreateAddress(from, nonce), Collector: crypto.CreateAddress(from, nonce+1),
		RefundCollector: crypto.CreateAddress(from, nonce+2)}
	address, _ := abi.NewType("address", "", nil)
	arg, _ := abi.Arguments{{Type: address}}.Pack(c.Escrow)
	var sent []*types.Transaction
	for i, d := range []struct {
		what, bin string
		args      []byte
	}{{"the escrow", escrowBin, nil}, {"the ERC-3009 payment collector", collectorBin, arg}, {"the operator refund collector", refundBin, arg}} {
		code := append(common.FromHex(strings.TrimSpace(d.bin)), d.args...)
		tx, err := testusd.SendNonce(ctx, ec, key, nonce+uint64(i), nil, code, nil)
		if err != nil {
			return c, fmt.Errorf("deploy %s: %w", d.what, err)
		}
		sent = append(sent, tx)
	}
	for i, want := range []common.Address{c.Escrow, c.Collector, c.RefundCollector} {
		got, err := mined(ctx, ec, sent[i])
		if err != nil {
			return c, fmt.Errorf("deploy the escrow's contracts: %w", err)
		}
		if got != want {
			return c, fmt.Errorf("deploy the escrow's contracts: transaction %s made %s, not %s", sent[i].Hash().Hex(), got.Hex(), want.Hex())
		}
	}
	return c, nil
}

// mined waits for a deployment to be mined and answers the contract's address.
func mined(ctx context.Context, ec *ethclient.Client, tx *types.Transaction) (common.Address, error) {
	for {
		r, err := ec.TransactionReceipt(ctx, tx.Hash())
		if err == nil {
			if r.Status != types.ReceiptStatusSuccessful {
				return common.Address{}, fmt.Errorf("transaction %s reverted", tx.Hash().Hex())
			}
			return r.ContractAddress, nil
		}
		if !errors.Is(err, ethereum.NotFound) {
			return common.Address{}, err
		}
		select {
		case <-ctx.Done():
			return common.Address{}, ctx.Err()
		case <-time.After(20 * time.Millisecond):
		}
	}
}
