package admin

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/axp-exchange/axp"
	"github.com/axp-exchange/axp/cmd/cmdutil"
	"github.com/axp-exchange/axp/daemon"
	"github.com/axp-exchange/axp/protocol"
	"github.com/axp-exchange/axp/store"
	"github.com/spf13/cobra"
)

// TokenRotateOptions are the inputs of `axp admin token rotate`.
type TokenRotateOptions struct {
	IO       *cmdutil.IOStreams
	Store    string
	DataDir  string
	TestMode bool
	Getenv   func(string) string
}

func newTokenCmd(f *cmdutil.Factory) *cobra.Command {
	c := &cobra.Command{
		Use:   "token",
		Short: "The admin token: make a new one when it is lost",
	}
	c.AddCommand(newTokenRotateCmd(f))
	return c
}

func newTokenRotateCmd(f *cmdutil.Factory) *cobra.Command {
	o := &TokenRotateOptions{IO: f.IO, Getenv: os.Getenv}
	c := &cobra.Command{
		Use:   "rotate",
		Short: "Make a new admin token in the exchange's database (the old one stops working)",
		Long: `Make a new admin token and store its hash in the exchange's database, in place of the
one generated on first start: for an operator who lost the token printed then. It works on the
database itself, so it needs no token: stop the exchange first (a bbolt file is locked while axp
serve runs), rotate, start it again and log in with the new token. The token is printed once, on
standard output; only its hash is stored.

Which database: --data-dir DIR (the bbolt file in a data dir), --store postgres://... or
bolt:PATH, or --test-mode for the default test-mode data dir; without any, the default data dir
($XDG_DATA_HOME/axp). A token set in the configuration (admin_token, AXP_ADMIN_TOKEN) takes
precedence over the stored one: rotate that one in the configuration instead.`,
		Example: `  axp admin token rotate --test-mode      # the exchange make run serves
  axp admin token rotate --data-dir /var/lib/axp`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, args []string) error { return runTokenRotate(o) },
	}
	c.Flags().StringVar(&o.Store, "store", "", "the database: postgres://... or bolt:PATH")
	c.Flags().StringVar(&o.DataDir, "data-dir", "", "the bbolt file in this data dir (a stopped exchange's)")
	c.Flags().BoolVar(&o.TestMode, "test-mode", false, "the default test-mode data dir ($XDG_DATA_HOME/axp-test)")
	return c
}

func runTokenRotate(o *TokenRotateOptions) error {
	loc := o.Store
	switch {
	case loc != "" && o.DataDir != "":
		return cmdutil.Usagef("give --store or --data-dir, not both")
	case loc == "" && o.DataDir != "":
		loc = filepath.Join(o.DataDir, store.FileName)
	case loc == "":
		home := o.Getenv("HOME")
		if home == "" {
			home, _ = os.UserHomeDir()
		}
		xdg := o.Getenv("XDG_DATA_HOME")
		if !filepath.IsAbs(xdg) {
			xdg = ""
		}
		dir := daemon.DataDirDefault(xdg, home)
		if o.TestMode {
			dir += "-test"
		}
		loc = filepath.Join(dir, store.FileName)
	}
	if !store.IsPostgres(loc) {
		path := strings.TrimPrefix(loc, "bolt:")
		if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
			return cmdutil.Usagef("no exchange database at %s: name the data dir the exchange runs on with --data-dir (or --test-mode for the one make run uses)", path)
		}
	}
	db, err := store.OpenLocation(loc, store.Options{NoMigrate: true})
	if err != nil {
		return err
	}
	defer db.Close()
	token := "axp_admin_" + axp.RandomHex(24)
	sum := sha256.Sum256([]byte(token))
	now := time.Now().UTC()
	err = db.Update(func(tx *store.Tx) error {
		if err := tx.SetAdminTokenHash(hex.EncodeToString(sum[:])); err != nil {
			return err
		}
		return tx.Audit(&axp.AuditRecord{ID: axp.NewID("aud", now), Time: now, Actor: "operator:cli", Action: "admin_token.rotate",
			EntityType: "admin_token", EntityID: protocol.Fingerprint(token)})
	})
	if err != nil {
		return err
	}
	fmt.Fprintf(o.IO.ErrOut, "✓ New admin token for %s (shown once, stored hashed; fingerprint %s); the old one no longer works\n",
		store.Redact(loc), protocol.Fingerprint(token))
	fmt.Fprintln(o.IO.Out, token)
	if o.Getenv("AXP_ADMIN_TOKEN") != "" {
		fmt.Fprintln(o.IO.ErrOut, "! AXP_ADMIN_TOKEN is set here: an exchange started with it uses that token, not the stored one")
	}
	fmt.Fprintln(o.IO.ErrOut, "next: start the exchange again (make run, or axp serve), then axp login with this token")
	return nil
}
