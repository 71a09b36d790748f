// Package admin holds the operator's commands: `axp admin ...`. All but restore need the admin
// token (`axp login`, or AXP_ADMIN_TOKEN).
package admin

import (
	"context"
	"fmt"

	"github.com/axp-exchange/axp"
	"github.com/axp-exchange/axp/cmd/cmdutil"
	"github.com/axp-exchange/axp/protocol"
	"github.com/spf13/cobra"
)

// NewCmd builds `axp admin`.
func NewCmd(f *cmdutil.Factory) *cobra.Command {
	c := &cobra.Command{
		Use:   "admin",
		Short: "Operator commands (need the admin token)",
		Long: `Operator commands. They use the admin token saved by 'axp login' for the exchange, or
AXP_ADMIN_TOKEN when it is set.`,
	}
	c.AddCommand(newApprovalsCmd(f), newPaymentsCmd(f), newMediationsCmd(f), newListingsCmd(f), newMembersCmd(f), NewCmdAnnounce(f, nil), NewCmdAnnouncements(f, nil),
		NewCmdLog(f, nil), NewCmdTrace(f, nil), NewCmdAudit(f, nil), NewCmdMetrics(f, nil), NewCmdStats(f, nil), NewCmdReconcile(f, nil),
		newBackupCmd(f), newRestoreCmd(f))
	return c
}

// call runs an admin operation and returns the exchange's JSON answer (decoded into out too).
func call(ctx context.Context, f *cmdutil.Factory, op string, in, out any) ([]byte, error) {
	cl, err := f.AdminClient()
	if err != nil {
		return nil, err
	}
	body, err := cmdutil.Call(ctx, cl, op, in, out)
	return body, cmdutil.WithHint(err, cmdutil.AdminAuthHint, axp.CodeUnauthorized, axp.CodeForbidden)
}

// allowed lists the values the exchange accepts for a field of an operation's input, read from the
// operation's input schema, so the CLI's checks and completions agree with the exchange by
// construction.
func allowed(op, field string) []string {
	var out []string
	for _, v := range protocol.SchemaOf(axp.Lookup(op).In).Properties[field].Enum {
		out = append(out, fmt.Sprint(v))
	}
	return out
}
