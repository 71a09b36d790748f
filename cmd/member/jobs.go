package member

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/axp-exchange/axp"
	"github.com/axp-exchange/axp/cmd/cmdutil"
	"github.com/axp-exchange/axp/memberkit"
	"github.com/spf13/cobra"
)

// JobsOptions are the inputs of `axp member jobs`.
type JobsOptions struct {
	IO       *cmdutil.IOStreams
	Getenv   func(string) string
	Exchange string
	Dir      string
	Export   cmdutil.Exporter
}

// job is one of the seller's jobs with its money, as `axp member jobs --json` writes it.
type job struct {
	TaskID    string     `json:"task_id"`
	TaskType  string     `json:"task_type"`
	Status    string     `json:"status"`
	PriceUSD  *axp.Money `json:"price_usd,omitempty"`
	NetUSD    *axp.Money `json:"net_usd,omitempty"`
	Payout    string     `json:"payout"`
	HeldFor   string     `json:"held_for,omitempty"`
	TxHash    string     `json:"tx_hash,omitempty"`
	UpdatedAt time.Time  `json:"updated_at"`
}

func newJobsCmd(f *cmdutil.Factory) *cobra.Command {
	o := &JobsOptions{IO: f.IO, Getenv: f.Getenv}
	c := &cobra.Command{
		Use:   "jobs",
		Short: "List the seller's jobs with their amounts and payouts",
		Long: `List the jobs of the seller in --dir, newest first: active (paid, in progress), delivered,
accepted and finished, each with its price, the seller's net part and where its payout stands
(none, pending approval, held and why, paid with its transaction). axp member earnings sums them.`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, args []string) error {
			o.Exchange = exchangeGiven(f)
			return runJobs(c.Context(), o)
		},
	}
	dirFlag(c, &o.Dir)
	cmdutil.AddExportFlags(c, &o.Export)
	return c
}

func runJobs(ctx context.Context, o *JobsOptions) error {
	creds, err := loadCreds(memberDir(o.Dir, o.Getenv), o.Exchange)
	if err != nil {
		return err
	}
	c := memberkit.NewClient(creds.Exchange, creds.MemberSecret)
	tasks, err := c.Jobs(ctx, true)
	if err != nil {
		return exchangeErr(err)
	}
	e, err := c.Earnings(ctx)
	if err != nil {
		return exchangeErr(err)
	}
	earned := make(map[string]axp.EarnedJob, len(e.Jobs))
	for _, j := range e.Jobs {
		earned[j.TaskID] = j
	}
	jobs := make([]job, 0, len(tasks))
	for _, t := range tasks {
		j := job{TaskID: t.ID, TaskType: t.Type, Status: t.Status, PriceUSD: t.PriceUSD, Payout: "none", UpdatedAt: t.UpdatedAt}
		if m, ok := earned[t.ID]; ok {
			net := m.NetUSD
			j.NetUSD, j.Payout, j.HeldFor, j.TxHash = &net, m.Payout, m.HeldFor, m.TxHash
			if j.PriceUSD == nil {
				price := m.PriceUSD
				j.PriceUSD = &price
			}
		}
		jobs = append(jobs, j)
	}
	if o.Export.Enabled() {
		raw, err := json.Marshal(map[string]any{"jobs": jobs})
		if err != nil {
			return err
		}
		return o.Export.Write(o.IO, raw)
	}
	if len(jobs) == 0 {
		fmt.Fprintln(o.IO.ErrOut, "No jobs yet")
		return nil
	}
	cs := o.IO.ColorScheme()
	tp := cmdutil.Table(o.IO)
	tp.AddHeader([]string{"TASK", "TYPE", "STATUS", "PRICE", "NET", "PAYOUT", "TX"})
	amount := func(m *axp.Money) string {
		if m == nil {
			return ""
		}
		return money(*m)
	}
	for _, j := range jobs {
		payout := j.Payout
		if j.HeldFor != "" {
			payout += " (" + j.HeldFor + ")"
		}
		tp.AddField(j.TaskID, cmdutil.WithTruncate(nil))
		tp.AddField(j.TaskType)
		tp.AddField(j.Status)
		tp.AddField(amount(j.PriceUSD))
		tp.AddField(amount(j.NetUSD))
		tp.AddField(payout, cmdutil.WithColor(payoutColor(cs, j.Payout)))
		tp.AddField(j.TxHash, cmdutil.WithTruncate(nil))
		tp.EndRow()
	}
	if err := tp.Render(); err != nil {
		return err
	}
	if e.TestMode {
		fmt.Fprintln(o.IO.ErrOut, "Amounts are test money: this exchange runs in test mode, none of it is real")
	}
	return nil
}
