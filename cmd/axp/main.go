// Command axp runs the Agent Services Exchange and talks to it.
package main

import (
	"os"

	"github.com/axp-exchange/axp/cmd"
)

func main() { os.Exit(cmd.Main()) }
