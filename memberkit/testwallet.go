package memberkit

import (
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/axp-exchange/axp/internal/atomicfile"
	"github.com/ethereum/go-ethereum/crypto"
)

// TestWalletFile is the key of the payout wallet a seller of an exchange in test mode gets, in
// the member's directory.
const TestWalletFile = "wallet.key"

// TestWallet is the payout address of the test wallet in dir: the address of the key an earlier
// start made there, else of a new one it writes (hex, mode 0600), and the key's path. Agent.Run
// gives it to a new seller of an exchange in test mode; on an exchange with real money a payout
// address is the seller's to give (Agent.PayoutAddress).
func TestWallet(dir string) (address, path string, err error) {
	path = filepath.Join(dir, TestWalletFile)
	raw, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return "", "", err
		}
		k, err := crypto.GenerateKey()
		if err != nil {
			return "", "", err
		}
		if err := atomicfile.WriteNew(path, []byte(hex.EncodeToString(crypto.FromECDSA(k))+"\n"), 0o600); err != nil {
			return "", "", fmt.Errorf("the seller's test wallet: %w", err)
		}
		return crypto.PubkeyToAddress(k.PublicKey).Hex(), path, nil
	}
	if err != nil {
		return "", "", fmt.Errorf("the seller's test wallet: %w", err)
	}
	k, err := crypto.HexToECDSA(strings.TrimSpace(string(raw)))
	if err != nil {
		return "", "", fmt.Errorf("the seller's test wallet: %s does not hold a hex private key: %w", path, err)
	}
	return crypto.PubkeyToAddress(k.PublicKey).Hex(), path, nil
}
