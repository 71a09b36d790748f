package escrow

import (
	"math/big"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
)

// Emitted reports whether logs (a transaction's) hold the escrow's event (PaymentAuthorized,
// PaymentCaptured, PaymentVoided...) of payment hash for amount, emitted by the escrow at
// escrowAddr.
func Emitted(logs []types.Log, escrowAddr common.Address, event string, hash common.Hash, amount *big.Int) bool {
	for _, l := range logs {
		if l.Address != escrowAddr {
			continue
		}
		e, ok, err := Decode(l)
		if err == nil && ok && e.Name == event && e.Hash == hash && e.Amount != nil && e.Amount.Cmp(amount) == 0 {
			return true
		}
	}
	return false
}
