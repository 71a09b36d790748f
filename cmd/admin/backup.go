package admin

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/axp-exchange/axp/client"
	"github.com/axp-exchange/axp/cmd/cmdutil"
	"github.com/axp-exchange/axp/contract"
	"github.com/axp-exchange/axp/store"
	"github.com/spf13/cobra"
)

// BackupOptions are the inputs of `axp admin backup`.
type BackupOptions struct {
	F       *cmdutil.Factory
	IO      *cmdutil.IOStreams
	File    string
	DataDir string
	Yes     bool
}

func newBackupCmd(f *cmdutil.Factory) *cobra.Command {
	o := &BackupOptions{F: f, IO: f.IO}
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
			return runBackup(c.Context(), o)
		},
	}
	c.Flags().StringVar(&o.DataDir, "data-dir", "", "copy the database of a stopped exchange from this data dir instead")
	cmdutil.AddYesFlag(c, &o.Yes)
	return c
}

func runBackup(ctx context.Context, o *BackupOptions) error {
	if st, err := os.Stat(o.File); err == nil {
		if st.IsDir() {
			return cmdutil.Usagef("%s is a directory; name the backup file", o.File)
		}
		err := cmdutil.ConfirmStep(o.IO, o.Yes, "overwrite "+o.File, func() ([]string, error) {
			return []string{fmt.Sprintf("%s exists (%d bytes, written %s); the backup replaces it", o.File, st.Size(), st.ModTime().Local().Format(cmdutil.TimeLayout))}, nil
		})
		if err != nil {
			return err
		}
	}
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
	cl, err := o.F.AdminClient()
	if err != nil {
		return err
	}
	// A backup may take long: no client timeout, the context bounds it.
	hc := *cl.HTTP
	hc.Timeout = 0
	cl.HTTP = &hc
	_, body, err := client.Call(ctx, cl, contract.AdminBackup, contract.NoInput{})
	if err != nil {
		return o.F.AdminRefused(err)
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
	fmt.Fprintf(o.IO.ErrOut, "wrote %s (%d bytes) from %s\n", o.File, len(body), cl.BaseURL)
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
