// Package wallet holds `axp wallet ...`: a buyer's own EVM key kept in the axp config dir, its
// balances on the chain the exchange names, test money from the faucet of an exchange in test mode,
// and paying a task's payment instructions from it. The key never leaves this machine: it signs
// here and only the signed transaction reaches the chain. The package is also how `axp paid call`
// finds the wallet it pays with.
package wallet

import (
	"crypto/ecdsa"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/axp-exchange/axp"
	"github.com/axp-exchange/axp/cmd/cmdutil"
	"github.com/ethereum/go-ethereum/accounts/keystore"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/spf13/cobra"
)

// Files of the wallet in the config dir: a hex key, or an Ethereum keystore (encrypted).
const (
	KeyFile      = "wallet.key"
	KeystoreFile = "wallet.json"
)

// NewCmd builds `axp wallet`.
func NewCmd(f *cmdutil.Factory) *cobra.Command {
	w := &Flags{}
	c := &cobra.Command{
		Use:   "wallet",
		Short: "Your own EVM wallet: create it, see its balance, fund it in test mode, pay a task from it",
		Long: `A wallet of your own for the chain the exchange takes payments on (GET /api/pricing names it):
'axp wallet new' creates a key in the axp config dir (wallet.key, a hex key of mode 0600, or with
--passphrase-stdin an encrypted Ethereum keystore, wallet.json); 'axp wallet pay TASK' sends a
task's payable amount from it and follows the task until the exchange has it funded; 'axp paid
call' pays the pay-per-call tools from it.

--wallet PATH (or AXP_WALLET) picks another key file, hex or keystore. A keystore needs its
passphrase: the first line of stdin with --passphrase-stdin, or AXP_WALLET_PASSPHRASE. The key
never leaves this machine and is never printed.`,
	}
	AddFlags(c, w)
	c.AddCommand(NewCmdNew(f, w, nil), NewCmdAddress(f, w, nil), NewCmdBalance(f, w, nil), NewCmdFund(f, w, nil), NewCmdPay(f, w, nil), NewCmdReclaim(f, w, nil))
	return c
}

// Flags name the wallet a command uses: --wallet and --passphrase-stdin.
type Flags struct {
	Path            string
	PassphraseStdin bool
}

// AddFlags adds --wallet and --passphrase-stdin to c and its subcommands.
func AddFlags(c *cobra.Command, w *Flags) {
	c.PersistentFlags().StringVar(&w.Path, "wallet", "", "the wallet's key `file`, hex or keystore JSON (default $AXP_WALLET, else wallet.key or wallet.json in the axp config dir)")
	c.PersistentFlags().BoolVar(&w.PassphraseStdin, "passphrase-stdin", false, "read the keystore's passphrase from the first line of stdin (default $AXP_WALLET_PASSPHRASE)")
}

// Wallet is a loaded key.
type Wallet struct {
	Key *ecdsa.PrivateKey
	// Path is the file it was read from.
	Path string
}

// Address is the wallet's address, checksummed.
func (w *Wallet) Address() string { return crypto.PubkeyToAddress(w.Key.PublicKey).Hex() }

// noWalletHint says how to get a wallet.
const noWalletHint = "create one with `axp wallet new`, or point --wallet (or AXP_WALLET) at a key file"

// path is the wallet file the flags name: --wallet, else $AXP_WALLET, else the keystore or the hex
// key in the config dir (the keystore when only it exists). explicit says the first two named it.
func (w *Flags) path(f *cmdutil.Factory) (path string, explicit bool, err error) {
	if w.Path != "" {
		return w.Path, true, nil
	}
	if p := getenv(f, "AXP_WALLET"); p != "" {
		return p, true, nil
	}
	dir := f.ConfigDir()
	if dir == "" {
		return "", false, &axp.Error{Code: axp.CodeNotFound, Message: "no axp config dir for the wallet: neither HOME nor XDG_CONFIG_HOME is set",
			Hint: "set HOME, or point --wallet (or AXP_WALLET) at a key file"}
	}
	keyPath, ksPath := filepath.Join(dir, KeyFile), filepath.Join(dir, KeystoreFile)
	_, keyErr := os.Stat(keyPath)
	_, ksErr := os.Stat(ksPath)
	switch {
	case keyErr == nil && ksErr == nil:
		return "", false, &axp.Error{Code: axp.CodeConflict, Message: "both " + keyPath + " and " + ksPath + " exist: which is the wallet?",
			Hint: "move one away, or pick one with --wallet PATH"}
	case ksErr == nil:
		return ksPath, false, nil
	}
	return keyPath, false, nil
}

// Load reads the wallet the flags name (in is stdin, for --passphrase-stdin). A missing wallet is
// a not_found error that says how to create one; the key's bytes never appear in an error.
func Load(f *cmdutil.Factory, in io.Reader, w *Flags) (*Wallet, error) {
	path, _, err := w.path(f)
	if err != nil {
		return nil, err
	}
	raw, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, &axp.Error{Code: axp.CodeNotFound, Message: "no wallet at " + path, Hint: noWalletHint}
	}
	if err != nil {
		return nil, fmt.Errorf("read the wallet: %w", err)
	}
	text := strings.TrimSpace(string(raw))
	if strings.HasPrefix(text, "{") {
		pass, err := w.passphrase(f, in)
		if err != nil {
			return nil, err
		}
		if pass == "" {
			return nil, &axp.Error{Code: axp.CodeUnauthorized, Message: path + " is an encrypted keystore and no passphrase was given",
				Hint: "give its passphrase on the first line of stdin with --passphrase-stdin, or in AXP_WALLET_PASSPHRASE"}
		}
		k, err := keystore.DecryptKey([]byte(text), pass)
		switch {
		case errors.Is(err, keystore.ErrDecrypt):
			return nil, &axp.Error{Code: axp.CodeUnauthorized, Message: "cannot decrypt the keystore " + path + " with the passphrase given",
				Hint: "check the passphrase (--passphrase-stdin or AXP_WALLET_PASSPHRASE)"}
		case err != nil:
			// The JSON decoder's errors name positions and types, never the file's bytes.
			return nil, fmt.Errorf("the wallet %s starts with { but is not a keystore axp can read: %v", path, err)
		}
		return &Wallet{Key: k.PrivateKey, Path: path}, nil
	}
	if st, err := os.Stat(path); err == nil && st.Mode().Perm()&0o077 != 0 {
		return nil, &axp.Error{Code: axp.CodeForbidden, Message: fmt.Sprintf("the wallet %s is readable by others (mode %o)", path, st.Mode().Perm()),
			Hint: "chmod 600 " + path + " (and move the money to a new wallet if others could read it)"}
	}
	digits := strings.TrimPrefix(strings.TrimPrefix(text, "0x"), "0X")
	k, err := crypto.HexToECDSA(digits)
	if err != nil || len(digits) != 64 {
		return nil, &axp.Error{Code: axp.CodeInvalidInput, Message: "the wallet " + path + " holds neither a hex private key (64 hex digits) nor keystore JSON",
			Hint: noWalletHint}
	}
	return &Wallet{Key: k, Path: path}, nil
}

// passphrase is the keystore's passphrase: the first line of stdin with --passphrase-stdin, else
// $AXP_WALLET_PASSPHRASE.
func (w *Flags) passphrase(f *cmdutil.Factory, in io.Reader) (string, error) {
	if !w.PassphraseStdin {
		return getenv(f, "AXP_WALLET_PASSPHRASE"), nil
	}
	return readLine(in)
}

// readLine reads one line of in a byte at a time, so that what follows it (the answer to a
// confirmation) stays unread for the next reader.
func readLine(in io.Reader) (string, error) {
	var b []byte
	one := make([]byte, 1)
	for {
		n, err := in.Read(one)
		if n == 1 {
			if one[0] == '\n' {
				break
			}
			b = append(b, one[0])
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			return "", fmt.Errorf("read the passphrase from stdin: %w", err)
		}
	}
	return strings.TrimRight(string(b), "\r"), nil
}

// getenv reads the environment through the factory (only cmd reads it).
func getenv(f *cmdutil.Factory, k string) string {
	if f.Getenv == nil {
		return ""
	}
	return f.Getenv(k)
}
