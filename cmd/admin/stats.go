package admin

import (
	"context"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/axp-exchange/axp/cmd/cmdutil"
	"github.com/axp-exchange/axp/contract"
	"github.com/spf13/cobra"
)

// StatsOptions are the inputs of `axp admin stats`.
type StatsOptions struct {
	F      *cmdutil.Factory
	IO     *cmdutil.IOStreams
	Export cmdutil.Exporter
}

// NewCmdStats builds `axp admin stats`.
func NewCmdStats(f *cmdutil.Factory, runF func(context.Context, *StatsOptions) error) *cobra.Command {
	o := &StatsOptions{F: f, IO: f.IO}
	c := &cobra.Command{
		Use:   "stats",
		Short: "Task counts by status, members by state, money totals",
		Args:  cobra.NoArgs,
		RunE: func(c *cobra.Command, args []string) error {
			if runF != nil {
				return runF(c.Context(), o)
			}
			return statsRun(c.Context(), o)
		},
	}
	cmdutil.AddExportFlags(c, &o.Export)
	return c
}

func statsRun(ctx context.Context, o *StatsOptions) error {
	s, raw, err := call(ctx, o.F, contract.AdminStats, contract.NoInput{})
	if err != nil {
		return err
	}
	if o.Export.Enabled() {
		return o.Export.Write(o.IO, raw)
	}
	m := s.Money
	return cmdutil.KeyValues(o.IO,
		"Tasks", counts(s.Tasks),
		"Members", counts(s.Members),
		"Members by role", counts(s.MembersByRole),
		"Payments in", cmdutil.Money(o.IO, m.PaymentsIn),
		"Fees", cmdutil.Money(o.IO, m.Fees),
		"Payouts sent", cmdutil.Money(o.IO, m.PayoutsSent),
		"Refunds sent", cmdutil.Money(o.IO, m.RefundsSent),
		"Held", cmdutil.Money(o.IO, m.Held),
		"Losses (written off)", nonZeroMoney(o.IO, m.Losses),
		"Ledger sum", cmdutil.Money(o.IO, m.LedgerSum),
		"Ledger entries", strconv.Itoa(m.Entries),
		"Submissions", counts(s.Submissions),
		"Uptime", s.Uptime,
		"Schema version", strconv.Itoa(s.SchemaVersion),
		"Leader", leader(s.Leader),
	)
}

// leader says whether the daemon that answered runs the sweeper and the other once-only work.
func leader(yes bool) string {
	if yes {
		return "yes (this daemon runs the sweeper and the payment watcher)"
	}
	return "no (another daemon on the database does)"
}

// counts lists the non-zero counts by key, sorted.
func counts(m map[string]int) string {
	keys := make([]string, 0, len(m))
	for k, n := range m {
		if n != 0 {
			keys = append(keys, k)
		}
	}
	if len(keys) == 0 {
		return "none"
	}
	sort.Strings(keys)
	parts := make([]string, 0, len(keys))
	for _, k := range keys {
		parts = append(parts, fmt.Sprintf("%s %d", k, m[k]))
	}
	return strings.Join(parts, ", ")
}
