package daemon

import (
	"github.com/axp-exchange/axp/daemon/kernel"
)

// Config is the exchange's configuration, resolved by cmd (kernel.Config).
type Config = kernel.Config

// Defaults returns the default configuration.
func Defaults() Config { return kernel.Defaults() }

// KeyFile is the name of the data dir's secret key file.
const KeyFile = kernel.KeyFile
