package admin

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/axp-exchange/axp/client"
	"github.com/axp-exchange/axp/cmd/cmdutil"
	"github.com/axp-exchange/axp/store"
	"github.com/spf13/cobra"
)

// BackupOptions are the inputs of `axp admin backup`.
type BackupOptions struct {
	IO       *cmdutil.IOStreams
	File     string
	Exchange string
	Token    string
	DataDir  string
}

func newBackupCmd(f *cmdutil.Factory) *cobra.Command {
	o := &BackupOptions{IO: f.IO}
	c := &cobra.Command{
		Use:   "backup FILE",
		Short: "Write a consistent copy of the exchange's database to FILE",
		Long: `Write a consistent copy of the database to FILE while the exchange keeps running (a hot
backup through the admin API). With --data-dir, copy a stopped exchange's database directly.

To restore: stop the exchange, run 'axp admin restore FILE --data-dir DIR', start it again.
The data dir's secret.key is not in the database: back it up once, separately.`,
		Args: cobra.ExactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			o.File = args[0]
			if o.Exchange == "" {
				o.Exchange = exchangeURL(f)
			}
			if o.Token == "" {
				o.Token = f.Getenv("AXP_ADMIN_TOKEN")
			}
			return runBackup(c.Context(), o)
		},
	}
	c.Flags().StringVar(&o.Exchange, "exchange", "", "exchange URL (default $AXP_EXCHANGE or http://127.0.0.1:8420)")
	c.Flags().StringVar(&o.DataDir, "data-dir", "", "copy the database of a stopped exchange from this data dir instead")
	return c
}

func exchangeURL(f *cmdutil.Factory) string {
	if u := f.Getenv("AXP_EXCHANGE"); u != "" {
		return u
	}
	return "http://127.0.0.1:8420"
}

func runBackup(ctx context.Context, o *BackupOptions) error {
	if o.DataDir != "" {
		db, err := store.Open(filepath.Join(o.DataDir, store.FileName), store.Options{ReadOnly: true})
		if err != nil {
			return err
		}
		defer db.Close()
		n, err := db.BackupFile(o.File)
		if err != nil {
			return err
		}
		fmt.Fprintf(o.IO.ErrOut, "wrote %s (%d bytes) from %s\n", o.File, n, db.Path())
		return nil
	}
	if o.Token == "" {
		return &cmdutil.UsageError{Err: errors.New("no admin token: set AXP_ADMIN_TOKEN")}
	}
	cl := client.New(o.Exchange, o.Token)
	cl.HTTP.Timeout = 0
	var body []byte
	if err := cl.Call(ctx, "admin_backup", nil, &body); err != nil {
		return err
	}
	if err := checkBackup(body); err != nil {
		return err
	}
	tmp := o.File + ".tmp"
	if err := os.WriteFile(tmp, body, 0o600); err != nil {
		return err
	}
	if err := os.Rename(tmp, o.File); err != nil {
		return err
	}
	fmt.Fprintf(o.IO.ErrOut, "wrote %s (%d bytes) from %s\n", o.File, len(body), o.Exchange)
	return nil
}

// checkBackup opens a copy of the bytes as a database to prove the backup is whole.
func checkBackup(body []byte) error {
	dir, err := os.MkdirTemp("", "axp-backup-check")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, store.FileName)
	if err := os.WriteFile(path, body, 0o600); err != nil {
		return err
	}
	db, err := store.Open(path, store.Options{ReadOnly: true})
	if err != nil {
		return fmt.Errorf("the backup does not open as a database: %w", err)
	}
	return db.Close()
}
