package cmd

import (
	"fmt"
	"runtime"
	"runtime/debug"

	"github.com/axp-exchange/axp/cmd/cmdutil"
	"github.com/spf13/cobra"
)

// newCmdVersion builds `axp version`.
func newCmdVersion(f *cmdutil.Factory) *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Show the version of axp",
		Long:  "Show the version of axp, the commit it was built from when known, and the Go toolchain and platform.",
		Args:  cobra.NoArgs,
		RunE: func(c *cobra.Command, args []string) error {
			fmt.Fprintln(f.IO.Out, versionText())
			return nil
		},
	}
}

// versionText is the line `axp version` and `axp --version` print.
func versionText() string {
	text := "axp version " + Version
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, s := range bi.Settings {
			if s.Key == "vcs.revision" && len(s.Value) >= 12 {
				text += " (" + s.Value[:12] + ")"
			}
		}
	}
	return text + fmt.Sprintf(" %s %s/%s", runtime.Version(), runtime.GOOS, runtime.GOARCH)
}
