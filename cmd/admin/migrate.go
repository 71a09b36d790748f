package admin

import (
	"fmt"
	"path/filepath"

	"github.com/axp-exchange/axp/cmd/cmdutil"
	"github.com/axp-exchange/axp/store"
	"github.com/spf13/cobra"
)

// MigrateOptions are the inputs of `axp admin migrate`.
type MigrateOptions struct {
	IO      *cmdutil.IOStreams
	Store   string
	DataDir string
}

func newMigrateCmd(f *cmdutil.Factory) *cobra.Command {
	o := &MigrateOptions{IO: f.IO}
	c := &cobra.Command{
		Use:   "migrate",
		Short: "Bring the exchange's database to this axp's schema version",
		Long: `Apply the schema migrations shipped in this axp to the database: a PostgreSQL database
(--store postgres://user@host/db) or a bbolt file (--store bolt:PATH, or --data-dir DIR for the file
in a data dir). axp serve applies them at start too, unless store_migrate is false; daemons sharing
a PostgreSQL database migrate once, under a lock. Migrations only add: an older axp refuses a newer
database.`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, args []string) error { return runMigrate(o) },
	}
	c.Flags().StringVar(&o.Store, "store", "", "the database: postgres://... or bolt:PATH")
	c.Flags().StringVar(&o.DataDir, "data-dir", "", "the bbolt file in this data dir (a stopped exchange's)")
	return c
}

func runMigrate(o *MigrateOptions) error {
	loc := o.Store
	switch {
	case loc != "" && o.DataDir != "":
		return cmdutil.Usagef("give --store or --data-dir, not both")
	case loc == "" && o.DataDir == "":
		return cmdutil.Usagef("name the database: --store postgres://user@host/db, --store bolt:PATH or --data-dir DIR")
	case loc == "":
		loc = filepath.Join(o.DataDir, store.FileName)
	}
	before := 0
	if db, err := store.OpenLocation(loc, store.Options{ReadOnly: true}); err == nil {
		before, _ = db.Version()
		db.Close()
	}
	db, err := store.OpenLocation(loc, store.Options{})
	if err != nil {
		return err
	}
	defer db.Close()
	v, err := db.Version()
	if err != nil {
		return err
	}
	if before == v {
		fmt.Fprintf(o.IO.ErrOut, "%s is at schema version %d already\n", store.Redact(loc), v)
	} else {
		fmt.Fprintf(o.IO.ErrOut, "migrated %s from schema version %d to %d\n", store.Redact(loc), before, v)
	}
	fmt.Fprintln(o.IO.Out, v)
	return nil
}
