// Package auth holds `axp login` and `axp logout`: the member secret and the admin token saved per
// exchange.
package auth

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/axp-exchange/axp"
	"github.com/axp-exchange/axp/client"
	"github.com/axp-exchange/axp/cmd/cmdutil"
	"github.com/axp-exchange/axp/contract"
	"github.com/axp-exchange/axp/protocol"
	"github.com/spf13/cobra"
	"golang.org/x/term"
)

// LoginOptions are the inputs of `axp login`.
type LoginOptions struct {
	F         *cmdutil.Factory
	IO        *cmdutil.IOStreams
	WithToken bool
	// Secret is the secret read from stdin or the prompt.
	Secret string
}

// NewCmdLogin builds `axp login`.
func NewCmdLogin(f *cmdutil.Factory, runF func(context.Context, *LoginOptions) error) *cobra.Command {
	o := &LoginOptions{F: f, IO: f.IO}
	c := &cobra.Command{
		Use:   "login",
		Short: "Save a member secret or the admin token for the exchange",
		Long: `Save a credential for the exchange (--exchange, AXP_EXCHANGE): a member secret
(ss_<member id>_..., returned at registration) or the operator's admin token (printed by 'axp serve'
at its first start). The credential is checked against the exchange before it is saved in
$XDG_CONFIG_HOME/axp/credentials.json (mode 0600), and the exchange is remembered: later
commands use it when neither --exchange nor AXP_EXCHANGE names one ('axp status' shows which).

On a terminal you are asked for it (input hidden); otherwise pipe it with --with-token. With
--dir, the member 'axp member serve --dir DIR' keeps in DIR is saved, for its own exchange.`,
		Example: `  axp login
  axp login --dir ./member
  echo "$ADMIN_TOKEN" | axp login --with-token --exchange https://exchange.example`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, args []string) error {
			if f.MemberDir != "" {
				if o.WithToken {
					return cmdutil.Usagef("give --dir or --with-token, not both")
				}
				creds, err := f.DirCredentials(f.MemberDir)
				if err != nil {
					return err
				}
				o.Secret = creds.MemberSecret
			} else {
				secret, err := readSecret(o)
				if err != nil {
					return err
				}
				o.Secret = secret
			}
			if runF != nil {
				return runF(c.Context(), o)
			}
			return loginRun(c.Context(), o)
		},
	}
	c.Flags().BoolVar(&o.WithToken, "with-token", false, "read the member secret or admin token from stdin")
	c.Flags().StringVar(&f.MemberDir, "dir", "", "save the member `axp member serve --dir DIR` keeps in DIR")
	return c
}

func readSecret(o *LoginOptions) (string, error) {
	var line string
	switch {
	case o.WithToken:
		b, err := io.ReadAll(io.LimitReader(o.IO.In, 4096))
		if err != nil {
			return "", err
		}
		line = string(b)
	case o.IO.CanPrompt():
		fmt.Fprint(o.IO.ErrOut, "? Paste a member secret or the admin token: ")
		if f, ok := o.IO.In.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
			b, err := term.ReadPassword(int(f.Fd()))
			fmt.Fprintln(o.IO.ErrOut)
			if err != nil {
				return "", err
			}
			line = string(b)
		} else {
			l, err := bufio.NewReader(o.IO.In).ReadString('\n')
			if err != nil && err != io.EOF {
				return "", err
			}
			line = l
		}
	default:
		return "", cmdutil.Usagef("no terminal to ask on: pipe the secret with --with-token")
	}
	s := strings.TrimSpace(line)
	if s == "" {
		return "", cmdutil.Usagef("no secret given")
	}
	if strings.ContainsAny(s, " \t\r\n") {
		return "", cmdutil.Usagef("the secret has spaces in it: give one member secret or admin token")
	}
	return s, nil
}

// IsMemberSecret reports whether s has the form of a member secret (the exchange tells members and
// the operator apart by it).
func IsMemberSecret(s string) bool { return strings.HasPrefix(s, "ss_") }

func loginRun(ctx context.Context, o *LoginOptions) error {
	url := o.F.ExchangeURL()
	if IsMemberSecret(o.Secret) {
		id, ok := axp.MemberIDFromSecret(o.Secret)
		if !ok {
			return cmdutil.Usagef("this is not a member secret (ss_<member id>_<64 hex>)")
		}
		m, _, err := client.Call(ctx, o.F.Client(o.Secret), contract.GetMyProfile, contract.NoInput{})
		if err != nil {
			return refused(err, "check the member secret returned at registration")
		}
		if err := o.F.UpdateCredentials(func(e *cmdutil.ExchangeCredentials) error {
			e.MemberSecret, e.MemberID = o.Secret, id
			return nil
		}); err != nil {
			return err
		}
		if err := o.F.Remember(); err != nil {
			return err
		}
		fmt.Fprintf(o.IO.ErrOut, "✓ Logged in to %s as member %s (%s; %s; %s)\n", url, m.Name, m.ID, strings.Join(m.Roles, ", "), m.State)
		return nil
	}
	if strings.HasPrefix(o.Secret, "bt_") {
		return cmdutil.Usagef("this is a task's buyer token (bt_...), which `axp login` does not keep: pass it with --token to the `axp task` commands of its task")
	}
	// The last hour's metrics: an admin call whose cost does not grow with the exchange (the
	// stats walk every task and ledger entry).
	if _, _, err := client.Call(ctx, o.F.Client(o.Secret), contract.AdminMetrics, axp.MetricsQuery{Hours: 1}); err != nil {
		if client.IsCode(err, axp.CodeUnauthorized) || client.IsCode(err, axp.CodeForbidden) {
			// Not a member secret (ss_...), and the exchange does not take it as its admin token.
			return &axp.Error{Code: axp.CodeUnauthorized,
				Message: "not a valid token: neither a member secret (ss_<member id>_...) nor the admin token of " + url,
				Hint:    "paste the member secret returned at registration, or the admin token `axp serve` printed at its first start (or set with AXP_ADMIN_TOKEN on the exchange)"}
		}
		return err
	}
	if err := o.F.UpdateCredentials(func(e *cmdutil.ExchangeCredentials) error {
		e.AdminToken = o.Secret
		return nil
	}); err != nil {
		return err
	}
	if err := o.F.Remember(); err != nil {
		return err
	}
	fmt.Fprintf(o.IO.ErrOut, "✓ Logged in to %s as the operator (admin token %s)\n", url, protocol.Fingerprint(o.Secret))
	if o.F.Getenv != nil && o.F.Getenv("AXP_ADMIN_TOKEN") != "" {
		fmt.Fprintln(o.IO.ErrOut, "note: AXP_ADMIN_TOKEN is set and overrides the saved token")
	}
	return nil
}

// refused turns an authentication refusal into an error that names what to check.
func refused(err error, hint string) error {
	var e *axp.Error
	if errors.As(err, &e) && (e.Code == axp.CodeUnauthorized || e.Code == axp.CodeForbidden) {
		return &axp.Error{Code: e.Code, Message: "the exchange refused the credential: " + e.Message, Hint: hint}
	}
	return err
}
