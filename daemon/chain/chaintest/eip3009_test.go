package chaintest_test

import (
	"crypto/rand"
	"math/big"
	"testing"
	"time"

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
