package wallet

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/axp-exchange/axp"
	"github.com/axp-exchange/axp/cmd/cmdutil"
	"github.com/axp-exchange/axp/internal/atomicfile"
	"github.com/ethereum/go-ethereum/accounts/keystore"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/google/uuid"
	"github.com/spf13/cobra"
)

// NewOptions are the inputs of `axp wallet new`.
type NewOptions struct {
	F      *cmdutil.Factory
	IO     *cmdutil.IOStreams
	Export cmdutil.Exporter
	Wallet *Flags
	Force  bool
}

// NewCmdNew builds `axp wallet new`.
func NewCmdNew(f *cmdutil.Factory, w *Flags, runF func(context.Context, *NewOptions) error) *cobra.Command {
	o := &NewOptions{F: f, IO: f.IO, Wallet: w}
	c := &cobra.Command{
		Use:   "new [--passphrase-stdin] [--force]",
		Short: "Create a wallet (a new secp256k1 key) and print its address",
		Long: `Create a new secp256k1 key and keep it in the axp config dir: wallet.key (the key as hex, mode
0600) or, with --passphrase-stdin, wallet.json (an Ethereum keystore encrypted with the first line
of stdin). --wallet PATH keeps it there instead. An existing wallet is never replaced without
--force (its key would be lost). The address goes to stdout; the key is never printed.`,
		Example: `  axp wallet new
  printf '%s\n' "$PASSPHRASE" | axp wallet new --passphrase-stdin
  axp wallet new --wallet ./buyer.key`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, args []string) error {
			if runF != nil {
				return runF(c.Context(), o)
			}
			return newRun(o)
		},
	}
	c.Flags().BoolVar(&o.Force, "force", false, "replace an existing wallet (its key is lost unless you kept a copy)")
	cmdutil.AddExportFlags(c, &o.Export)
	return c
}

// created is what `axp wallet new --json` prints.
type created struct {
	Address  string `json:"address"`
	Path     string `json:"path"`
	Keystore bool   `json:"keystore"`
}

func newRun(o *NewOptions) error {
	path, explicit, err := o.Wallet.path(o.F)
	var e *axp.Error
	if errors.As(err, &e) && e.Code == axp.CodeConflict {
		err = nil // both default files exist: the check below refuses unless --force
	}
	if err != nil {
		return err
	}
	ks := o.Wallet.PassphraseStdin
	var others []string // the config dir's other wallet file, which --force removes
	if !explicit {
		dir := o.F.ConfigDir()
		path = filepath.Join(dir, KeyFile)
		others = []string{filepath.Join(dir, KeystoreFile)}
		if ks {
			path, others[0] = others[0], path
		}
	}
	if !o.Force {
		for _, p := range append([]string{path}, others...) {
			if _, err := os.Stat(p); err == nil {
				return exists(p)
			}
		}
	}
	var pass string
	if ks {
		if pass, err = readLine(o.IO.In); err != nil {
			return err
		}
		if pass == "" {
			return cmdutil.Usagef("--passphrase-stdin: the first line of stdin is empty; give the keystore's passphrase there")
		}
	}
	key, err := crypto.GenerateKey()
	if err != nil {
		return err
	}
	addr := crypto.PubkeyToAddress(key.PublicKey)
	content := []byte(hex.EncodeToString(crypto.FromECDSA(key)) + "\n")
	if ks {
		if content, err = keystore.EncryptKey(&keystore.Key{Id: uuid.New(), Address: addr, PrivateKey: key}, pass,
			keystore.LightScryptN, keystore.LightScryptP); err != nil {
			return err
		}
	}
	if err := writeKey(path, content, o.Force); err != nil {
		return err
	}
	for _, p := range others {
		if err := os.Remove(p); err != nil && !errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("remove the replaced wallet %s: %w", p, err)
		}
	}
	if o.Export.Enabled() {
		b, err := json.Marshal(created{Address: addr.Hex(), Path: path, Keystore: ks})
		if err != nil {
			return err
		}
		return o.Export.Write(o.IO, b)
	}
	kind := "a hex key, mode 0600"
	if ks {
		kind = "an encrypted keystore"
	}
	fmt.Fprintf(o.IO.ErrOut, "✓ Created wallet %s (%s)\n", path, kind)
	fmt.Fprintln(o.IO.Out, addr.Hex())
	fmt.Fprintln(o.IO.ErrOut, o.IO.ColorScheme().Gray("next: fund it: axp wallet fund (an exchange in test mode), or send it the stablecoin and gas; then axp wallet balance"))
	return nil
}

// exists is the refusal to overwrite the wallet at path.
func exists(path string) error {
	return &axp.Error{Code: axp.CodeConflict, Message: "a wallet already exists at " + path,
		Hint: "`axp wallet address` shows it; --force replaces it (its key is lost unless you kept a copy), --wallet PATH creates another"}
}

// writeKey writes content to path with mode 0600 (its directory 0700 when it creates it), all at
// once: a reader never sees half a key. Without force an existing file stays as it is.
func writeKey(path string, content []byte, force bool) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("create %s: %w", dir, err)
	}
	if force {
		return atomicfile.Write(path, content, 0o600)
	}
	// Without force a file there (one created meanwhile too) is never replaced.
	if err := atomicfile.WriteNew(path, content, 0o600); err != nil {
		if errors.Is(err, os.ErrExist) {
			return exists(path)
		}
		return err
	}
	return nil
}
