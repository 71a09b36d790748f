// Package serve is `axp serve`: it runs the exchange daemon.
package serve

import (
	"context"
	"fmt"
	"net"
	"os/signal"
	"syscall"
	"time"

	"github.com/axp-exchange/axp/cmd/cmdutil"
	"github.com/axp-exchange/axp/cmd/config"
	"github.com/axp-exchange/axp/daemon"
	"github.com/axp-exchange/axp/protocol"
	"github.com/axp-exchange/axp/store"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// Options are the resolved inputs of `axp serve`.
type Options struct {
	IO         *cmdutil.IOStreams
	ConfigFile string
	Flags      *pflag.FlagSet
	Getenv     func(string) string
	Environ    func() []string
	// Grace bounds how long in-flight requests may take at shutdown.
	Grace time.Duration
	// Ready, if set, receives the base URL once the exchange listens (tests).
	Ready func(baseURL string)
	// Listening, if set, receives the listen address as soon as it is open, before the exchange
	// is built (tests of a start that waits for its store).
	Listening func(addr string)
}

// NewCmd builds `axp serve`.
func NewCmd(f *cmdutil.Factory, environ func() []string) *cobra.Command {
	o := &Options{IO: f.IO, Getenv: f.Getenv, Environ: environ, Grace: 15 * time.Second}
	c := &cobra.Command{
		Use:   "serve",
		Short: "Run the exchange (REST, MCP and A2A over one marketplace)",
		Long: `Run the exchange daemon on its embedded bbolt database in the data dir, or on PostgreSQL
(--store postgres://user@host/db, key store), where several daemons may serve one exchange.

Configuration, each overriding the one before: defaults, the YAML file given by --config (or
AXP_CONFIG), AXP_* environment variables (AXP_QUOTE_WINDOW=5s, AXP_ADMIN_TOKEN=...), flags.
Without an admin token configured, one is generated on first start, printed once and stored hashed.`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, args []string) error {
			o.Flags = c.Flags()
			return Run(c.Context(), o)
		},
	}
	fl := c.Flags()
	fl.String("addr", daemon.Defaults().Addr, "listen address (port 0 picks a free port)")
	fl.String("data-dir", "", "data directory (default $XDG_DATA_HOME/axp)")
	fl.String("store", "", "the database: a postgres:// URL (several daemons may share it), or bolt:PATH (default: the bbolt file in the data dir)")
	fl.StringVar(&o.ConfigFile, "config", "", "YAML config file")
	fl.String("base-url", "", "public base URL of the exchange (default http://<addr>)")
	fl.String("log-level", "info", "log level: debug, info, warn or error")
	fl.Bool("test-mode", false, "run the exchange on its own test chain in the data dir: money here is not real (key test_mode)")
	return c
}

// Run serves until SIGINT or SIGTERM.
func Run(ctx context.Context, o *Options) error {
	cfg, err := config.Load(o.ConfigFile, o.Flags, o.Getenv, o.Environ)
	if err != nil {
		return &cmdutil.UsageError{Err: err}
	}
	ln, err := net.Listen("tcp", cfg.Addr)
	if err != nil {
		return fmt.Errorf("listen on %s: %w (is another exchange running? use --addr to pick another port)", cfg.Addr, err)
	}
	if o.Listening != nil {
		o.Listening(ln.Addr().String())
	}
	ctx, stop := signal.NotifyContext(ctx, syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	d, generated, ln, err := start(ctx, cfg, o.IO, ln)
	if err != nil {
		if ln != nil {
			ln.Close()
		}
		return err
	}
	if cfg.BaseURL == "" {
		d.SetBaseURL("http://" + ln.Addr().String())
	}
	base := d.BaseURL()
	fmt.Fprintf(o.IO.Out, "axp exchange serving at %s\n", base)
	fmt.Fprintf(o.IO.Out, "data dir: %s\n", cfg.DataDir)
	if tc, ok := d.TestChain(); ok {
		fmt.Fprintf(o.IO.Out, "TEST MODE: money here is not real.\n")
		fmt.Fprintf(o.IO.Out, "  test chain %d at %s (a block a second; its state lives in the data dir)\n", tc.ChainID, tc.URL)
		fmt.Fprintf(o.IO.Out, "  TestUSD %s, deposit address %s, hot wallet %s\n", tc.Token, tc.Deposit, tc.HotWallet)
		fmt.Fprintf(o.IO.Out, "  buyers: axp wallet new, axp wallet fund, axp wallet pay TASK\n")
	}
	if cfg.Store != "" {
		fmt.Fprintf(o.IO.Out, "store: %s\n", store.Redact(cfg.Store))
	}
	if generated != "" {
		fmt.Fprintf(o.IO.Out, "admin token (shown once, stored hashed; fingerprint %s):\n  %s\n", protocol.Fingerprint(generated), generated)
	}
	if o.Ready != nil {
		o.Ready(base)
	}
	go func() {
		// Once shutdown has begun, a second signal stops the process at once (bbolt stays
		// consistent) instead of waiting out the grace period.
		<-ctx.Done()
		stop()
	}()
	if err := d.Serve(ctx, ln, o.Grace); err != nil {
		return fmt.Errorf("the exchange stopped with an error: %w", err)
	}
	fmt.Fprintln(o.IO.ErrOut, "axp exchange stopped; database closed")
	return nil
}
