// Package admin holds the operator's commands: `axp admin ...`. All but restore need the admin
// token (`axp login`, or AXP_ADMIN_TOKEN).
package admin

import (
	"context"
	"fmt"

	"github.com/axp-exchange/axp/client"
	"github.com/axp-exchange/axp/cmd/cmdutil"
	"github.com/axp-exchange/axp/contract"
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
	c.AddCommand(newApprovalsCmd(f), newPaymentsCmd(f), newMediationsCmd(f), newListingsCmd(f), newBoardCmd(f), newConnectorsCmd(f), newMembersCmd(f), newTasksCmd(f), NewCmdAnnounce(f, nil), NewCmdAnnouncements(f, nil),
		NewCmdLog(f, nil), NewCmdTrace(f, nil), NewCmdAudit(f, nil), NewCmdMetrics(f, nil), NewCmdStats(f, nil), NewCmdReconcile(f, nil),
		newBackupCmd(f), newRestoreCmd(f), newMigrateCmd(f), newCopyCmd(f), newTokenCmd(f))
	return c
}

// call runs an admin operation with the admin token and returns its answer decoded and as the
// exchange sent it (what --json prints).
func call[I, O any](ctx context.Context, f *cmdutil.Factory, def contract.Def[I, O], in I) (*O, []byte, error) {
	cl, err := f.AdminClient()
	if err != nil {
		return nil, nil, err
	}
	out, body, err := client.Call(ctx, cl, def, in)
	return out, body, f.AdminRefused(err)
}

// allowed lists the values the exchange accepts for a field of an operation's input, read from the
// operation's input schema, so the CLI's checks and completions agree with the exchange by
// construction.
func allowed[I, O any](def contract.Def[I, O], field string) []string {
	var out []string
	for _, v := range protocol.SchemaOf(def.Op().In).Properties[field].Enum {
		out = append(out, fmt.Sprint(v))
	}
	return out
}
