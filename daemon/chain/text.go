package chain

import (
	"crypto/ecdsa"
	"fmt"

	"github.com/ethereum/go-ethereum/accounts"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
)

// TextSigner recovers the address that signed msg the way wallets sign text (EIP-191
// personal_sign: the hash of "\x19Ethereum Signed Message:\n" + length + msg), from a 0x-hex
// 65-byte signature.
func TextSigner(msg, sigHex string) (string, error) {
	sig, err := hexutil.Decode(sigHex)
	if err != nil {
		return "", fmt.Errorf("the signature is not 0x hex: %w", err)
	}
	addr, err := Signer(accounts.TextHash([]byte(msg)), sig)
	if err != nil {
		return "", err
	}
	return addr.Hex(), nil
}

// SignText signs msg as a wallet's personal_sign does (v as 27 or 28), as 0x hex.
func SignText(key *ecdsa.PrivateKey, msg string) (string, error) {
	sig, err := SignDigest(key, accounts.TextHash([]byte(msg)))
	if err != nil {
		return "", err
	}
	return hexutil.Encode(sig), nil
}

// SameAddress reports whether two 0x addresses are the same (any case).
func SameAddress(a, b string) bool {
	return common.IsHexAddress(a) && common.IsHexAddress(b) && common.HexToAddress(a) == common.HexToAddress(b)
}
