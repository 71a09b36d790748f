package admin

import (
	"fmt"
	"sort"
	"strings"

	"github.com/axp-exchange/axp/cmd/cmdutil"
	"github.com/axp-exchange/axp/store"
	"github.com/spf13/cobra"
)

// CopyOptions are the inputs of `axp admin copy`.
type CopyOptions struct {
	IO       *cmdutil.IOStreams
	From, To string
}

func newCopyCmd(f *cmdutil.Factory) *cobra.Command {
	o := &CopyOptions{IO: f.IO}
	c := &cobra.Command{
		Use:   "copy --from bolt:PATH --to postgres://user@host/db",
		Short: "Copy a stopped exchange's database into an empty one, verified",
		Long: `Copy every record of a database into an empty one, typically a bbolt file into PostgreSQL
(the other way works too). Stop the exchange first: the source is read in one transaction, and
a bbolt file in use is refused. The destination is migrated to this axp's schema version. The copy
is verified: every bucket holds as many keys in both, and the ledger still sums to zero. The data
dir's secret.key is not in the database: daemons serving the copy need that same file.`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, args []string) error { return runCopy(o) },
	}
	c.Flags().StringVar(&o.From, "from", "", "the source: bolt:PATH (or postgres://...)")
	c.Flags().StringVar(&o.To, "to", "", "the destination: postgres://... (or bolt:PATH), empty")
	return c
}

func runCopy(o *CopyOptions) error {
	if o.From == "" || o.To == "" {
		return cmdutil.Usagef("name both databases: --from bolt:PATH --to postgres://user@host/db")
	}
	for _, loc := range []string{o.From, o.To} {
		if !store.IsPostgres(loc) && !strings.HasPrefix(loc, "bolt:") {
			return cmdutil.Usagef("%s: give bolt:PATH or a postgres:// URL", store.Redact(loc))
		}
	}
	src, err := store.OpenLocation(o.From, store.Options{ReadOnly: true})
	if err != nil {
		return err
	}
	defer src.Close()
	dst, err := store.OpenLocation(o.To, store.Options{})
	if err != nil {
		return err
	}
	defer dst.Close()
	rep, err := store.Copy(dst, src)
	if err != nil {
		return err
	}
	names := make([]string, 0, len(rep.Counts))
	total := 0
	for n, c := range rep.Counts {
		names = append(names, n)
		total += c
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(o.IO.Out, "%-22s %d\n", n, rep.Counts[n])
	}
	fmt.Fprintf(o.IO.ErrOut, "copied %d keys in %d buckets from %s to %s; ledger: %d entries summing to %s\n",
		total, len(names), store.Redact(o.From), store.Redact(o.To), rep.Entries, rep.LedgerSum.Display())
	return nil
}
