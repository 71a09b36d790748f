package member

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/axp-exchange/axp"
	"github.com/axp-exchange/axp/cmd/cmdutil"
	"github.com/axp-exchange/axp/memberkit"
	"github.com/spf13/cobra"
)

// EarningsOptions are the inputs of `axp member earnings`.
type EarningsOptions struct {
	IO       *cmdutil.IOStreams
	Getenv   func(string) string
	Exchange string
	Dir      string
	Export   cmdutil.Exporter
}

func newEarningsCmd(f *cmdutil.Factory) *cobra.Command {
	o := &EarningsOptions{IO: f.IO, Getenv: f.Getenv}
	c := &cobra.Command{
		Use:   "earnings",
		Short: "Show what the seller's jobs paid, what waits for approval and what is held",
		Long: `Show the seller in --dir's money: what its jobs paid (sent), what waits for the operator's
approval or for its transfer to confirm, and what is held and why (no payout address yet, or a
payment whose block left the chain), with each of its newest jobs.`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, args []string) error {
			o.Exchange = exchangeGiven(f)
			return runEarnings(c.Context(), o)
		},
	}
	dirFlag(c, &o.Dir)
	cmdutil.AddExportFlags(c, &o.Export)
	return c
}

func runEarnings(ctx context.Context, o *EarningsOptions) error {
	creds, err := loadCreds(memberDir(o.Dir, o.Getenv), o.Exchange)
	if err != nil {
		return err
	}
	e, err := memberkit.NewClient(creds.Exchange, creds.MemberSecret).Earnings(ctx)
	if err != nil {
		return exchangeErr(err)
	}
	if o.Export.Enabled() {
		raw, err := json.Marshal(e)
		if err != nil {
			return err
		}
		return o.Export.Write(o.IO, raw)
	}
	address := e.PayoutAddress
	if address == "" {
		address = "none: payouts are held until you set one (axp member payout-address ADDR)"
	}
	balance := ""
	if e.PayoutBalanceUSD != nil {
		balance = money(*e.PayoutBalanceUSD) + " (on the exchange's chain now)"
	}
	testMoney := ""
	if e.TestMode {
		testMoney = "test money: this exchange runs in test mode, none of it is real"
	}
	if err := cmdutil.KeyValues(o.IO, "Money", testMoney, "Paid", money(e.PaidUSD), "Pending", money(e.PendingUSD),
		"Held", money(e.HeldUSD), "Payout address", address, "Balance", balance); err != nil {
		return err
	}
	if len(e.Jobs) == 0 {
		fmt.Fprintln(o.IO.ErrOut, "No jobs yet")
		return nil
	}
	fmt.Fprintln(o.IO.Out)
	cs := o.IO.ColorScheme()
	tp := cmdutil.Table(o.IO)
	tp.AddHeader([]string{"TASK", "TYPE", "STATUS", "NET", "PAYOUT", "TX"})
	for _, j := range e.Jobs {
		payout := j.Payout
		if j.HeldFor != "" {
			payout += " (" + j.HeldFor + ")"
		}
		tp.AddField(j.TaskID, cmdutil.WithTruncate(nil))
		tp.AddField(j.TaskType)
		tp.AddField(j.Status)
		tp.AddField(money(j.NetUSD))
		tp.AddField(payout, cmdutil.WithColor(payoutColor(cs, j.Payout)))
		tp.AddField(j.TxHash, cmdutil.WithTruncate(nil))
		tp.EndRow()
	}
	return tp.Render()
}

// money writes an amount as people read it: US$0.50, more decimals only when sub-cent matters.
func money(m axp.Money) string { return m.Display() }

func payoutColor(cs cmdutil.ColorScheme, payout string) func(string) string {
	switch payout {
	case "paid":
		return cs.Green
	case "held", "rejected":
		return cs.Yellow
	}
	return func(s string) string { return s }
}
