package member

import (
	"context"
	"fmt"

	"github.com/axp-exchange/axp"
	"github.com/axp-exchange/axp/cmd/cmdutil"
	"github.com/axp-exchange/axp/memberkit"
	"github.com/axp-exchange/axp/protocol"
	"github.com/spf13/cobra"
)

// PayoutOptions are the inputs of `axp member payout-address`.
type PayoutOptions struct {
	IO       *cmdutil.IOStreams
	Getenv   func(string) string
	Exchange string
	Dir      string
	Address  string
}

func newPayoutCmd(f *cmdutil.Factory) *cobra.Command {
	o := &PayoutOptions{IO: f.IO, Getenv: f.Getenv}
	c := &cobra.Command{
		Use:   "payout-address [ADDR]",
		Short: "Show or set the stablecoin address the member in --dir is paid at",
		Long: `Without ADDR, show the seller's payout address. With ADDR (an EVM address; one that mixes upper and
lower case must carry a valid EIP-55 checksum), set it: payouts held for want of an address
become pending for the operator's approval.`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			o.Exchange = exchangeGiven(f)
			if len(args) == 1 {
				o.Address = args[0]
			}
			return runPayout(c.Context(), o)
		},
	}
	dirFlag(c, &o.Dir)
	return c
}

func runPayout(ctx context.Context, o *PayoutOptions) error {
	if o.Address != "" && !protocol.IsEVMAddress(o.Address) {
		return &cmdutil.UsageError{Err: fmt.Errorf("%q is not an EVM address (0x and 40 hex digits; mixed case must be a valid EIP-55 checksum)", o.Address)}
	}
	creds, err := loadCreds(memberDir(o.Dir, o.Getenv), o.Exchange)
	if err != nil {
		return err
	}
	cl := memberkit.NewClient(creds.Exchange, creds.MemberSecret)
	var p *axp.PrivateMember
	if o.Address == "" {
		p, err = cl.Profile(ctx)
	} else {
		p, err = cl.UpdateProfile(ctx, axp.ProfileUpdate{PayoutAddress: protocol.Nullable[string]{Set: true, Value: o.Address}})
	}
	if err != nil {
		return exchangeErr(err)
	}
	switch {
	case p.PayoutAddress == "":
		fmt.Fprintf(o.IO.Out, "%s has no payout address: payouts are held until one is set (axp member payout-address ADDR)\n", p.ID)
	case o.Address != "":
		fmt.Fprintf(o.IO.Out, "payout address of %s set to %s\n", p.ID, p.PayoutAddress)
	default:
		fmt.Fprintln(o.IO.Out, p.PayoutAddress)
	}
	return nil
}
