package wallet

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/axp-exchange/axp/cmd/cmdutil"
	"github.com/spf13/cobra"
)

// AddressOptions are the inputs of `axp wallet address`.
type AddressOptions struct {
	F      *cmdutil.Factory
	IO     *cmdutil.IOStreams
	Export cmdutil.Exporter
	Wallet *Flags
}

// NewCmdAddress builds `axp wallet address`.
func NewCmdAddress(f *cmdutil.Factory, w *Flags, runF func(context.Context, *AddressOptions) error) *cobra.Command {
	o := &AddressOptions{F: f, IO: f.IO, Wallet: w}
	c := &cobra.Command{
		Use:   "address",
		Short: "Print the wallet's address",
		Long:  `Print the wallet's address (EIP-55 checksummed): where to send it the stablecoin and gas.`,
		Args:  cobra.NoArgs,
		RunE: func(c *cobra.Command, args []string) error {
			if runF != nil {
				return runF(c.Context(), o)
			}
			return addressRun(o)
		},
	}
	cmdutil.AddExportFlags(c, &o.Export)
	return c
}

func addressRun(o *AddressOptions) error {
	w, err := Load(o.F, o.IO.In, o.Wallet)
	if err != nil {
		return err
	}
	if o.Export.Enabled() {
		b, err := json.Marshal(map[string]string{"address": w.Address(), "path": w.Path})
		if err != nil {
			return err
		}
		return o.Export.Write(o.IO, b)
	}
	_, err = fmt.Fprintln(o.IO.Out, w.Address())
	return err
}
