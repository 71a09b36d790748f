package chain

import (
	"context"
	"crypto/ecdsa"
	"encoding/hex"
	"errors"
	"fmt"
	"math/big"
	"os"
	"strings"
	"sync"

	"github.com/axp-exchange/axp"
	"github.com/axp-exchange/axp/internal/atomicfile"
	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/accounts/keystore"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/rpc"
)

// ErrInsufficient says the hot wallet does not hold the token units a transfer needs.
var ErrInsufficient = errors.New("insufficient balance")

// ErrReplaced says a stored transaction can never be mined: its nonce was used by another one.
var ErrReplaced = errors.New("its nonce was used by another transaction")

// ErrUnanswered says the node did not answer a broadcast (a timeout, a dropped connection, an HTTP
// error): the transaction may have reached it, so it must be treated as sent, never as refused.
var ErrUnanswered = errors.New("the node did not answer")

// LoadKey reads the hot wallet's key from path: an Ethereum keystore (JSON, decrypted with
// passphrase) or a file holding the key as hex, which must not be readable by group or others. Each
// error is one line naming the setting (payout_key_file), the file and what is wrong with it; the
// key's bytes never appear in an error.
func LoadKey(path, passphrase string) (*ecdsa.PrivateKey, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("payout_key_file: %w", err)
	}
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("payout_key_file: %w", err)
	}
	text := strings.TrimSpace(string(raw))
	if strings.HasPrefix(text, "{") {
		k, err := keystore.DecryptKey([]byte(text), passphrase)
		switch {
		case errors.Is(err, keystore.ErrDecrypt):
			return nil, fmt.Errorf("payout_key_file %s: cannot decrypt the keystore with AXP_PAYOUT_KEY_PASSPHRASE (wrong or unset)", path)
		case err != nil:
			// The JSON decoder's errors name positions and types, never the file's bytes.
			return nil, fmt.Errorf("payout_key_file %s starts with { but is not a keystore this exchange can read: %v", path, err)
		}
		return k.PrivateKey, nil
	}
	if st.Mode().Perm()&0o077 != 0 {
		return nil, fmt.Errorf("payout_key_file %s is readable by others (mode %o): chmod 600 it", path, st.Mode().Perm())
	}
	digits := strings.TrimPrefix(strings.TrimPrefix(text, "0x"), "0X")
	if !isHex(digits) {
		return nil, fmt.Errorf("payout_key_file %s holds neither a hex private key nor keystore JSON", path)
	}
	if len(digits) != 64 {
		return nil, fmt.Errorf("payout_key_file %s holds %d hex digits; a private key is 64", path, len(digits))
	}
	k, err := crypto.HexToECDSA(digits)
	if err != nil {
		return nil, fmt.Errorf("payout_key_file %s holds 64 hex digits that are no valid secp256k1 private key", path)
	}
	return k, nil
}

// LoadOrMakeKey reads the hex private key in path, or, when there is no such file, makes a key and
// writes it there whole (hex, mode 0600; never over a file written meanwhile). It is for keys the
// project makes itself: test mode's chain keys and a test-mode seller's payout wallet.
func LoadOrMakeKey(path string) (*ecdsa.PrivateKey, error) {
	raw, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		k, err := crypto.GenerateKey()
		if err != nil {
			return nil, err
		}
		if err := atomicfile.WriteNew(path, []byte(hex.EncodeToString(crypto.FromECDSA(k))+"\n"), 0o600); err != nil {
			return nil, err
		}
		return k, nil
	}
	if err != nil {
		return nil, err
	}
	k, err := crypto.HexToECDSA(strings.TrimSpace(string(raw)))
	if err != nil {
		return nil, fmt.Errorf("%s does not hold a hex private key: %w", path, err)
	}
	return k, nil
}

// isHex reports whether s is one or more hex digits.
func isHex(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if !('0' <= r && r <= '9' || 'a' <= r && r <= 'f' || 'A' <= r && r <= 'F') {
			return false
		}
	}
	return true
}

// Wallet signs and sends the token's transfers from the hot wallet. Acquire it around signing,
// storing and broadcasting one transfer: the nonce it signs with is then its own.
type Wallet struct {
	c    *Client
	key  *ecdsa.PrivateKey
	addr common.Address
	mu   sync.Mutex
	// shared, when set, takes the wallet among every process that signs with it (daemons sharing a
	// PostgreSQL store) once this process holds mu.
	shared func(context.Context) (func(), error)
}

// NewWallet returns the hot wallet holding key.
func NewWallet(c *Client, key *ecdsa.PrivateKey) *Wallet {
	return &Wallet{c: c, key: key, addr: crypto.PubkeyToAddress(key.PublicKey)}
}

// Address is the wallet's address, checksummed.
func (w *Wallet) Address() string { return w.addr.Hex() }

// Share makes Acquire also take lock, a lock held among every process signing with this wallet
// (set before the wallet is used).
func (w *Wallet) Share(lock func(context.Context) (unlock func(), err error)) { w.shared = lock }

// Acquire serialises the wallet's transfers, in this process and, when shared, among processes,
// and returns the release. Every path that signs or broadcasts from the wallet takes it: payouts,
// x402 settlements and re-sent transfers alike.
func (w *Wallet) Acquire(ctx context.Context) (release func(), err error) {
	w.mu.Lock()
	if w.shared == nil {
		return w.mu.Unlock, nil
	}
	unlock, err := w.shared(ctx)
	if err != nil {
		w.mu.Unlock()
		return nil, fmt.Errorf("take the hot wallet's lock: %w", err)
	}
	return func() { unlock(); w.mu.Unlock() }, nil
}

// Signed is a signed transfer.
type Signed struct {
	Hash  string // lower-case 0x hex
	Nonce uint64
	Raw   []byte
}

// Sign signs a transfer of amount to to with the wallet's next nonce plus skip (the transfers
// signed before it and not yet broadcast), after checking that the wallet holds the units and that
// the transfer would not revert. Hold Acquire until the transfers are stored and broadcast.
func (w *Wallet) Sign(ctx context.Context, to string, amount axp.Money, skip uint64) (Signed, error) {
	var s Signed
	if !common.IsHexAddress(to) {
		return s, fmt.Errorf("%q is not an EVM address", to)
	}
	units := w.c.Units(amount)
	bal, err := w.c.BalanceOf(ctx, w.addr.Hex())
	if err != nil {
		return s, fmt.Errorf("read the hot wallet's balance: %w", err)
	}
	if bal.Cmp(units) < 0 {
		return s, fmt.Errorf("%w: the hot wallet %s holds %s of the token, the transfer needs %s", ErrInsufficient,
			w.addr.Hex(), w.c.Money(bal).Display(), amount.Display())
	}
	data, err := erc20.Pack("transfer", common.HexToAddress(to), units)
	if err != nil {
		return s, err
	}
	return w.signCall(ctx, w.c.token, data, skip, "the transfer")
}

// SignCall signs a call of the contract at to with data from the wallet (which pays the gas), with
// its next nonce, after estimating its gas: a call that would revert is refused here, naming what,
// and the error carries the revert data. Hold Acquire until it is stored and broadcast.
func (w *Wallet) SignCall(ctx context.Context, to common.Address, data []byte, what string) (Signed, error) {
	return w.signCall(ctx, to, data, 0, what)
}

// signCall signs a call of the contract at to with data, with the wallet's next nonce plus skip,
// after estimating its gas (a call that would revert is refused here, naming what).
func (w *Wallet) signCall(ctx context.Context, to common.Address, data []byte, skip uint64, what string) (Signed, error) {
	var s Signed
	ec := w.c.ec
	nonce, err := ec.PendingNonceAt(ctx, w.addr)
	if err != nil {
		return s, fmt.Errorf("read the hot wallet's nonce: %w", err)
	}
	nonce += skip
	gas, err := ec.EstimateGas(ctx, ethereum.CallMsg{From: w.addr, To: &to, Data: data})
	if err != nil {
		return s, fmt.Errorf("%s would fail: %w", what, err)
	}
	gas += gas / 5
	tip, err := ec.SuggestGasTipCap(ctx)
	if err != nil {
		return s, fmt.Errorf("read the gas tip: %w", err)
	}
	head, err := ec.HeaderByNumber(ctx, nil)
	if err != nil {
		return s, fmt.Errorf("read the latest block: %w", err)
	}
	feeCap := new(big.Int).Add(tip, new(big.Int).Mul(big.NewInt(2), baseFee(head)))
	tx := types.NewTx(&types.DynamicFeeTx{ChainID: new(big.Int).SetUint64(w.c.cfg.ChainID), Nonce: nonce,
		GasTipCap: tip, GasFeeCap: feeCap, Gas: gas, To: &to, Value: new(big.Int), Data: data})
	signed, err := types.SignTx(tx, types.LatestSignerForChainID(tx.ChainId()), w.key)
	if err != nil {
		return s, err
	}
	raw, err := signed.MarshalBinary()
	if err != nil {
		return s, err
	}
	return Signed{Hash: strings.ToLower(signed.Hash().Hex()), Nonce: nonce, Raw: raw}, nil
}

func baseFee(h *types.Header) *big.Int {
	if h.BaseFee == nil {
		return new(big.Int)
	}
	return h.BaseFee
}

// Broadcast sends a signed transaction (again). A transaction the node already knows, pending or
// mined, is not an error; one whose nonce another transaction used is ErrReplaced.
func (w *Wallet) Broadcast(ctx context.Context, raw []byte) error {
	tx := new(types.Transaction)
	if err := tx.UnmarshalBinary(raw); err != nil {
		return err
	}
	err := w.c.ec.SendTransaction(ctx, tx)
	if err == nil {
		return nil
	}
	if known, kerr := w.Known(ctx, tx.Hash().Hex()); kerr == nil && known {
		return nil
	}
	var refused rpc.Error
	if !errors.As(err, &refused) {
		return fmt.Errorf("%w: %v", ErrUnanswered, err)
	}
	if strings.Contains(strings.ToLower(err.Error()), "nonce too low") {
		return fmt.Errorf("%w (%v)", ErrReplaced, err)
	}
	return err
}

// Known reports whether the node knows the transaction, pending or mined.
func (w *Wallet) Known(ctx context.Context, txHash string) (bool, error) {
	return w.c.Known(ctx, txHash)
}
