package chaintest_test

import (
	"crypto/rand"
	"math/big"
	"testing"
	"time"

	"github.com/axp-exchange/axp/daemon/chain"
	"github.com/axp-exchange/axp/daemon/chain/chaintest"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/math"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/signer/core/apitypes"
)

// TestTransferWithAuthorization checks the committed TestUSD bytecode's EIP-3009: a transfer signed
// off chain (EIP-712) and submitted by a relayer moves the money once; the same authorization sent
// again reverts.
func TestTransferWithAuthorization(t *testing.T) {
	c := chaintest.Start(t)
	payer, relayer := c.NewKey(), c.NewKey()
	payee := chaintest.Addr(c.NewKey())
	c.Mint(c.Token, chaintest.Addr(payer), 5_000_000)
	var nonce [32]byte
	rand.Read(nonce[:])
	now := time.Now().Unix()
	td := apitypes.TypedData{
		Types: apitypes.Types{
			"EIP712Domain": {{Name: "name", Type: "string"}, {Name: "version", Type: "string"}, {Name: "chainId", Type: "uint256"}, {Name: "verifyingContract", Type: "address"}},
			"TransferWithAuthorization": {{Name: "from", Type: "address"}, {Name: "to", Type: "address"}, {Name: "value", Type: "uint256"},
				{Name: "validAfter", Type: "uint256"}, {Name: "validBefore", Type: "uint256"}, {Name: "nonce", Type: "bytes32"}},
		},
		PrimaryType: "TransferWithAuthorization",
		Domain:      apitypes.TypedDataDomain{Name: "Test USD", Version: "2", ChainId: math.NewHexOrDecimal256(chaintest.ID), VerifyingContract: c.Token},
		Message: apitypes.TypedDataMessage{"from": chaintest.Addr(payer), "to": payee, "value": "1250000",
			"validAfter": big.NewInt(now - 60).String(), "validBefore": big.NewInt(now + 600).String(), "nonce": nonce[:]},
	}
	digest, _, err := apitypes.TypedDataAndHash(td)
	if err != nil {
		t.Fatal(err)
	}
	sig, err := crypto.Sign(digest, payer)
	if err != nil {
		t.Fatal(err)
	}
	args := []any{common.HexToAddress(chaintest.Addr(payer)), common.HexToAddress(payee), big.NewInt(1_250_000),
		big.NewInt(now - 60), big.NewInt(now + 600), nonce, sig[64] + 27, [32]byte(sig[:32]), [32]byte(sig[32:64])}
	if ok := c.Call(relayer, c.Token, "transferWithAuthorization", args...); !ok {
		t.Fatal("transferWithAuthorization reverted")
	}
	if got := c.Balance(c.Token, payee); got != 1_250_000 {
		t.Fatalf("payee holds %d", got)
	}
	if ok := c.Call(relayer, c.Token, "transferWithAuthorization", args...); ok {
		t.Fatal("the same authorization moved money twice")
	}
}

// TestReceiveWithAuthorization checks TestUSD's receiveWithAuthorization in its one-signature form
// (bytes: r, s, v), the form the escrow's ERC-3009 collector calls: only the payee may redeem it,
// once.
func TestReceiveWithAuthorization(t *testing.T) {
	c := chaintest.Start(t)
	payer, payee, relayer := c.NewKey(), c.NewKey(), c.NewKey()
	c.Mint(c.Token, chaintest.Addr(payer), 5_000_000)
	a := chain.Authorization{From: common.HexToAddress(chaintest.Addr(payer)), To: common.HexToAddress(chaintest.Addr(payee)),
		Value: big.NewInt(1_250_000), ValidAfter: new(big.Int), ValidBefore: big.NewInt(time.Now().Unix() + 600)}
	rand.Read(a.Nonce[:])
	digest, err := chain.ReceiveAuthorizationDigest(chain.Domain{Name: "Test USD", Version: "2"}, chaintest.ID, common.HexToAddress(c.Token), a)
	if err != nil {
		t.Fatal(err)
	}
	sig, err := crypto.Sign(digest, payer)
	if err != nil {
		t.Fatal(err)
	}
	sig[64] += 27
	// go-ethereum names the bytes overload receiveWithAuthorization, the (v, r, s) one receiveWithAuthorization0.
	args := []any{a.From, a.To, a.Value, a.ValidAfter, a.ValidBefore, a.Nonce, sig}
	if ok := c.Call(relayer, c.Token, "receiveWithAuthorization", args...); ok {
		t.Fatal("someone else than the payee redeemed a receive authorization")
	}
	if ok := c.Call(payee, c.Token, "receiveWithAuthorization", args...); !ok {
		t.Fatal("receiveWithAuthorization reverted")
	}
	if got := c.Balance(c.Token, chaintest.Addr(payee)); got != 1_250_000 {
		t.Fatalf("payee holds %d", got)
	}
	if ok := c.Call(payee, c.Token, "receiveWithAuthorization", args...); ok {
		t.Fatal("the same authorization moved money twice")
	}
}
