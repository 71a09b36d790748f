// Package admin holds the operator's commands: `axp admin ...`.
package admin

import (
	"github.com/axp-exchange/axp/cmd/cmdutil"
	"github.com/spf13/cobra"
)

// NewCmd builds `axp admin`.
func NewCmd(f *cmdutil.Factory) *cobra.Command {
	c := &cobra.Command{
		Use:   "admin",
		Short: "Operator commands (need the admin token)",
	}
	c.AddCommand(newBackupCmd(f), newRestoreCmd(f))
	return c
}
