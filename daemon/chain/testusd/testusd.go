// Package testusd holds TestUSD, the project's test stablecoin (TestUSD.sol: 6 decimals, EIP-3009,
// a mint open to anyone): the token of the anvil chains tests run and of test mode's own chain. Its
// bytecode and ABI are committed, rebuilt by scripts/build-test-token with the pinned solc.
package testusd

import (
	_ "embed"
	"strings"

	"github.com/ethereum/go-ethereum/accounts/abi"
	"github.com/ethereum/go-ethereum/common"
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
