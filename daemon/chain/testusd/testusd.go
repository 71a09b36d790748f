// Package testusd holds TestUSD, the project's test stablecoin (TestUSD.sol: 6 decimals, EIP-3009,
// a mint open to anyone): the token of the anvil chains tests run and of test mode's own chain. Its
// bytecode and ABI are committed, rebuilt by scripts/build-test-token with the pinned solc.
package testusd

import (
	"context"
	"crypto/ecdsa"
	_ "embed"
	"math/big"
	"strings"

	"github.com/axp-exchange/axp"
	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/accounts/abi"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/ethclient"
	"github.com/ethereum/go-ethereum/params"
)

//go:embed TestUSD.bin
var bin string

//go:embed TestUSD.abi
var abiJSON string

// Name and Version are the token's EIP-712 domain (EIP-3009 authorizations are signed over them).
const (
	Name     = "Test USD"
	Symbol   = "TUSD"
	Version  = "2"
	Decimals = 6
)

// Code is the contract's creation bytecode.
func Code() []byte { return common.FromHex(strings.TrimSpace(bin)) }

// ABI is the contract's ABI.
func ABI() abi.ABI {
	a, err := abi.JSON(strings.NewReader(abiJSON))
	if err != nil {
		panic("testusd: the committed ABI does not parse: " + err.Error())
	}
	return a
}

// Transfer signs and sends a transfer of amount (micro-USD: a unit of TestUSD) of the token at
// token from key's address to to, and answers the transaction without waiting for it to be mined.
// Tests pay with it.
func Transfer(ctx context.Context, ec *ethclient.Client, key *ecdsa.PrivateKey, token, to common.Address, amount axp.Money) (*types.Transaction, error) {
	data, err := ABI().Pack("transfer", to, big.NewInt(int64(amount)))
	if err != nil {
		return nil, err
	}
	return Send(ctx, ec, key, &token, data, nil)
}

// Send signs and sends a transaction from key's address (EIP-1559, a tip of 1 gwei, its gas
// estimated with a margin; a plain value transfer takes 21,000) calling to with data and value
// (nil: none; to nil deploys data), and answers it without waiting for it to be mined.
func Send(ctx context.Context, ec *ethclient.Client, key *ecdsa.PrivateKey, to *common.Address, data []byte, value *big.Int) (*types.Transaction, error) {
	nonce, err := ec.PendingNonceAt(ctx, crypto.PubkeyToAddress(key.PublicKey))
	if err != nil {
		return nil, err
	}
	return SendNonce(ctx, ec, key, nonce, to, data, value)
}

// SendNonce is Send with the nonce given: a sender that keeps its own count sends several
// transactions one after another without waiting for the node's pool to count the earlier ones.
func SendNonce(ctx context.Context, ec *ethclient.Client, key *ecdsa.PrivateKey, nonce uint64, to *common.Address, data []byte, value *big.Int) (*types.Transaction, error) {
	if value == nil {
		value = new(big.Int)
	}
	from := crypto.PubkeyToAddress(key.PublicKey)
	chainID, err := ec.ChainID(ctx)
	if err != nil {
		return nil, err
	}
	head, err := ec.HeaderByNumber(ctx, nil)
	if err != nil {
		return nil, err
	}
	gas := uint64(21_000)
	if len(data) > 0 {
		if gas, err = ec.EstimateGas(ctx, ethereum.CallMsg{From: from, To: to, Data: data, Value: value}); err != nil {
			return nil, err
		}
		gas += gas / 4
	}
	tip := big.NewInt(params.GWei)
	tx, err := types.SignNewTx(key, types.LatestSignerForChainID(chainID), &types.DynamicFeeTx{ChainID: chainID, Nonce: nonce,
		GasTipCap: tip, GasFeeCap: new(big.Int).Add(new(big.Int).Mul(head.BaseFee, big.NewInt(2)), tip),
		Gas: gas, To: to, Value: value, Data: data})
	if err != nil {
		return nil, err
	}
	return tx, ec.SendTransaction(ctx, tx)
}
