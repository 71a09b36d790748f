// Package completion is `axp completion`: shell completion scripts.
package completion

import (
	"github.com/axp-exchange/axp/cmd/cmdutil"
	"github.com/spf13/cobra"
)

// NewCmd builds `axp completion`.
func NewCmd(f *cmdutil.Factory) *cobra.Command {
	c := &cobra.Command{
		Use:   "completion bash|zsh|fish|powershell",
		Short: "Print the shell completion script",
		Long: `Print the completion script of a shell. Task ids complete from the tasks posted here.

  bash:        eval "$(axp completion bash)"   (or save it in /etc/bash_completion.d/axp)
  zsh:         axp completion zsh > "${fpath[1]}/_axp"
  fish:        axp completion fish > ~/.config/fish/completions/axp.fish
  powershell:  axp completion powershell | Out-String | Invoke-Expression`,
		ValidArgs: []string{"bash", "zsh", "fish", "powershell"},
		Args:      cobra.MatchAll(cobra.ExactArgs(1), cobra.OnlyValidArgs),
		RunE: func(c *cobra.Command, args []string) error {
			root, out := c.Root(), f.IO.Out
			switch args[0] {
			case "bash":
				return root.GenBashCompletionV2(out, true)
			case "zsh":
				return root.GenZshCompletion(out)
			case "fish":
				return root.GenFishCompletion(out, true)
			}
			return root.GenPowerShellCompletionWithDesc(out)
		},
	}
	return c
}
