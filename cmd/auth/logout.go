package auth

import (
	"context"
	"fmt"
	"strings"

	"github.com/axp-exchange/axp/cmd/cmdutil"
	"github.com/spf13/cobra"
)

// LogoutOptions are the inputs of `axp logout`.
type LogoutOptions struct {
	F           *cmdutil.Factory
	IO          *cmdutil.IOStreams
	Admin       bool
	Member      bool
	BuyerTokens bool
}

// NewCmdLogout builds `axp logout`.
func NewCmdLogout(f *cmdutil.Factory, runF func(context.Context, *LogoutOptions) error) *cobra.Command {
	o := &LogoutOptions{F: f, IO: f.IO}
	c := &cobra.Command{
		Use:   "logout",
		Short: "Forget the saved member secret and admin token for the exchange",
		Long: `Forget the member secret and the admin token saved for the exchange (both unless --admin
or --member narrows it). Buyer tokens of your tasks are kept unless --buyer-tokens is given: without
them those tasks can no longer be followed from here.`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, args []string) error {
			if !o.Admin && !o.Member && !o.BuyerTokens {
				o.Admin, o.Member = true, true
			}
			if runF != nil {
				return runF(c.Context(), o)
			}
			return logoutRun(c.Context(), o)
		},
	}
	c.Flags().BoolVar(&o.Admin, "admin", false, "forget the admin token only")
	c.Flags().BoolVar(&o.Member, "member", false, "forget the member secret only")
	c.Flags().BoolVar(&o.BuyerTokens, "buyer-tokens", false, "also forget the buyer tokens of your tasks")
	return c
}

func logoutRun(ctx context.Context, o *LogoutOptions) error {
	var removed []string
	err := o.F.UpdateCredentials(func(e *cmdutil.ExchangeCredentials) error {
		if o.Admin && e.AdminToken != "" {
			e.AdminToken = ""
			removed = append(removed, "the admin token")
		}
		if o.Member && e.MemberSecret != "" {
			removed = append(removed, "the member secret of "+e.MemberID)
			e.MemberSecret, e.MemberID = "", ""
		}
		if o.BuyerTokens && len(e.BuyerTokens) > 0 {
			removed = append(removed, cmdutil.Count(len(e.BuyerTokens), "buyer token", "buyer tokens"))
			e.BuyerTokens = nil
		}
		return nil
	})
	if err != nil {
		return err
	}
	url := o.F.ExchangeURL()
	if len(removed) == 0 {
		fmt.Fprintf(o.IO.ErrOut, "Nothing to forget for %s\n", url)
	} else {
		fmt.Fprintf(o.IO.ErrOut, "✓ Forgot %s for %s\n", strings.Join(removed, ", "), url)
	}
	if o.Admin && o.F.Getenv != nil && o.F.Getenv("AXP_ADMIN_TOKEN") != "" {
		fmt.Fprintln(o.IO.ErrOut, "note: AXP_ADMIN_TOKEN is still set in the environment")
	}
	return nil
}
