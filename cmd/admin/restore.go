package admin

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/axp-exchange/axp/cmd/cmdutil"
	"github.com/axp-exchange/axp/daemon"
	"github.com/axp-exchange/axp/store"
	"github.com/spf13/cobra"
)

// RestoreOptions are the inputs of `axp admin restore`.
type RestoreOptions struct {
	IO      *cmdutil.IOStreams
	File    string
	DataDir string
}

func newRestoreCmd(f *cmdutil.Factory) *cobra.Command {
	o := &RestoreOptions{IO: f.IO}
	c := &cobra.Command{
		Use:   "restore FILE --data-dir DIR",
		Short: "Put a backup in place as the database of a stopped exchange",
		Long: `Check that FILE is a whole database this axp can read, keep the current database as
axp.db.before-restore-<time>, and put FILE in its place. The exchange must be stopped: a running one
holds the database lock and the restore refuses.`,
		Args: cobra.ExactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			o.File = args[0]
			if o.DataDir == "" {
				return &cmdutil.UsageError{Err: errors.New("--data-dir is required: the data dir of the stopped exchange")}
			}
			return runRestore(c.Context(), o)
		},
	}
	c.Flags().StringVar(&o.DataDir, "data-dir", "", "data dir of the stopped exchange")
	return c
}

func runRestore(ctx context.Context, o *RestoreOptions) error {
	src, err := store.Open(o.File, store.Options{ReadOnly: true})
	if err != nil {
		return fmt.Errorf("%s is not a usable backup: %w", o.File, err)
	}
	src.Close()
	target := filepath.Join(o.DataDir, store.FileName)
	if _, err := os.Stat(target); err == nil {
		// Taking the write lock proves no exchange is running on this data dir.
		cur, err := store.Open(target, store.Options{LockTimeout: time.Second})
		if err != nil {
			return err
		}
		cur.Close()
		keep := fmt.Sprintf("%s.before-restore-%s", target, time.Now().UTC().Format("20060102T150405Z"))
		if err := os.Rename(target, keep); err != nil {
			return err
		}
		fmt.Fprintf(o.IO.ErrOut, "kept the previous database as %s\n", keep)
	} else if err := os.MkdirAll(o.DataDir, 0o700); err != nil {
		return err
	}
	if err := copyFile(o.File, target); err != nil {
		return err
	}
	fmt.Fprintf(o.IO.ErrOut, "restored %s to %s; start the exchange with --data-dir %s\n", o.File, target, o.DataDir)
	if _, err := os.Stat(filepath.Join(o.DataDir, daemon.KeyFile)); errors.Is(err, os.ErrNotExist) {
		// The sealing key is not in the database: without the old one, a new key is generated at
		// start and the sealed platform keys and auth tokens in the backup cannot be read.
		fmt.Fprintf(o.IO.ErrOut, "note: %s has no %s; copy it from the backed-up exchange's data dir before starting\n", o.DataDir, daemon.KeyFile)
	}
	return nil
}

func copyFile(from, to string) error {
	in, err := os.Open(from)
	if err != nil {
		return err
	}
	defer in.Close()
	tmp := to + ".tmp"
	out, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	if err := out.Sync(); err != nil {
		out.Close()
		return err
	}
	if err := out.Close(); err != nil {
		return err
	}
	return os.Rename(tmp, to)
}
