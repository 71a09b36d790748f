package cmd

import "github.com/spf13/cobra"

// exitCodesHelp is `axp help exit-codes`; TestExitCodesDocumented keeps it in step with cmdutil's statuses.
const exitCodesHelp = `axp exits with one of these statuses, so scripts can tell what went wrong:

  0  success, or a confirmation answered "no" (nothing done)
  1  an error that has no status of its own (an internal error, a failed check such as
     verification or conformance)
  2  wrong use: an unknown command or flag, a missing or invalid argument, input the exchange
     refused as invalid, or a step that needs a confirmation run without a terminal (add --yes)
  4  not allowed: no credential saved, or the exchange refused it (axp login)
  5  not found: no such task, member, approval or mediation
  6  conflict: the step does not fit the current state (already approved, not yet delivered, ...),
     or the task watched with --until can no longer reach that status
  7  rate limited: wait for the time the hint gives, then retry
  8  the exchange cannot be reached (is axp serve running? check --exchange or AXP_EXCHANGE)

Errors print "error: <what went wrong>" and, when there is one, "hint: <what to do>" on stderr.
`

// newExitCodesTopic is the help topic `axp help exit-codes`.
func newExitCodesTopic() *cobra.Command {
	return &cobra.Command{
		Use:   "exit-codes",
		Short: "The exit statuses of axp and what each means",
		Long:  exitCodesHelp,
	}
}
