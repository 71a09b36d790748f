// Package config resolves the exchange's configuration: defaults < config file (YAML) < AXP_*
// environment variables < command-line flags, into a plain daemon.Config. Every default of
// DESIGN.md section 8 is a key here.
package config

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"time"

	"github.com/axp-exchange/axp"
	"github.com/axp-exchange/axp/daemon"
	"github.com/knadh/koanf/parsers/yaml"
	"github.com/knadh/koanf/providers/env/v2"
	"github.com/knadh/koanf/providers/file"
	"github.com/knadh/koanf/providers/posflag"
	"github.com/knadh/koanf/v2"
	"github.com/spf13/pflag"
)

// Keys is the configuration as keys; field tags are the key names (flat, so that AXP_QUOTE_WINDOW
// maps to quote_window with no ambiguity).
type Keys struct {
	Addr                   string          `koanf:"addr"`
	DataDir                string          `koanf:"data_dir"`
	BaseURL                string          `koanf:"base_url"`
	AdminToken             string          `koanf:"admin_token"`
	AnonTasksPerMinute     int             `koanf:"anon_tasks_per_minute"`
	RegistrationsPerHour   int             `koanf:"registrations_per_hour"`
	OperatorMessagesPerDay int             `koanf:"operator_messages_per_day"`
	AnonReadsPerMinute     int             `koanf:"anon_reads_per_minute"`
	QuoteWindow            time.Duration   `koanf:"quote_window"`
	OpenWindow             time.Duration   `koanf:"open_window"`
	PaymentWindow          time.Duration   `koanf:"payment_window"`
	AutoRelease            time.Duration   `koanf:"auto_release"`
	ContactWarnAt          int             `koanf:"contact_warn_at"`
	ContactSuspendAt       int             `koanf:"contact_suspend_at"`
	FeeDefaultBPS          int64           `koanf:"fee_default_bps"`
	FeeWindows             []axp.FeeWindow `koanf:"fee_windows"`
	MaxBodyBytes           int64           `koanf:"max_body_bytes"`
	TrustedProxies         []string        `koanf:"trusted_proxies"`
	LogRetention           time.Duration   `koanf:"log_retention"`
	LogLevel               string          `koanf:"log_level"`
	AllowedHosts           []string        `koanf:"allowed_hosts"`
}

// FlagKeys maps command-line flag names to keys.
var FlagKeys = map[string]string{
	"addr": "addr", "data-dir": "data_dir", "base-url": "base_url", "log-level": "log_level",
}

// Load resolves the configuration. configFile may be empty (then AXP_CONFIG is consulted). flags may
// be nil; only flags the user set override.
func Load(configFile string, flags *pflag.FlagSet, getenv func(string) string, environ func() []string) (daemon.Config, error) {
	def := daemon.Defaults()
	keys := Keys{
		Addr: def.Addr, AnonTasksPerMinute: def.AnonTasksPerMinute, RegistrationsPerHour: def.RegistrationsPerHour,
		OperatorMessagesPerDay: def.OperatorMessagesPerDay, AnonReadsPerMinute: def.AnonReadsPerMinute,
		QuoteWindow: def.QuoteWindow, OpenWindow: def.OpenWindow, PaymentWindow: def.PaymentWindow, AutoRelease: def.AutoRelease,
		ContactWarnAt: def.ContactWarnAt, ContactSuspendAt: def.ContactSuspendAt,
		FeeDefaultBPS: def.Fees.DefaultBPS, FeeWindows: def.Fees.Windows, MaxBodyBytes: def.MaxBodyBytes,
		LogRetention: def.LogRetention, LogLevel: def.LogLevel,
	}
	k := koanf.New(".")
	if configFile == "" {
		configFile = getenv("AXP_CONFIG")
	}
	if configFile != "" {
		if _, err := os.Stat(configFile); err != nil {
			return def, fmt.Errorf("config file: %w", err)
		}
		if err := k.Load(file.Provider(configFile), yaml.Parser()); err != nil {
			return def, fmt.Errorf("config file %s: %w", configFile, err)
		}
	}
	known := map[string]bool{}
	for _, key := range keyNames() {
		known[key] = true
	}
	if err := k.Load(env.Provider(".", env.Opt{Prefix: "AXP_", EnvironFunc: environ,
		TransformFunc: func(name, v string) (string, any) {
			key := strings.ToLower(strings.TrimPrefix(name, "AXP_"))
			if !known[key] {
				return "", nil
			}
			if key == "trusted_proxies" || key == "allowed_hosts" {
				return key, strings.Split(v, ",")
			}
			return key, v
		}}), nil); err != nil {
		return def, err
	}
	if flags != nil {
		if err := k.Load(posflag.ProviderWithFlag(flags, ".", k, func(f *pflag.Flag) (string, any) {
			key, ok := FlagKeys[f.Name]
			if !ok || !f.Changed {
				return "", nil
			}
			return key, posflag.FlagVal(flags, f)
		}), nil); err != nil {
			return def, err
		}
	}
	for _, key := range k.Keys() {
		if !known[strings.SplitN(key, ".", 2)[0]] {
			return def, fmt.Errorf("config: unknown key %q (known keys: %s)", key, strings.Join(keyNames(), ", "))
		}
	}
	if err := k.Unmarshal("", &keys); err != nil {
		return def, fmt.Errorf("config: %w", err)
	}
	cfg := def
	cfg.Addr, cfg.DataDir, cfg.BaseURL, cfg.AdminToken = keys.Addr, keys.DataDir, keys.BaseURL, keys.AdminToken
	cfg.AnonTasksPerMinute, cfg.RegistrationsPerHour = keys.AnonTasksPerMinute, keys.RegistrationsPerHour
	cfg.OperatorMessagesPerDay, cfg.AnonReadsPerMinute = keys.OperatorMessagesPerDay, keys.AnonReadsPerMinute
	cfg.QuoteWindow, cfg.OpenWindow, cfg.PaymentWindow, cfg.AutoRelease = keys.QuoteWindow, keys.OpenWindow, keys.PaymentWindow, keys.AutoRelease
	cfg.ContactWarnAt, cfg.ContactSuspendAt = keys.ContactWarnAt, keys.ContactSuspendAt
	cfg.Fees = axp.FeeSchedule{Windows: keys.FeeWindows, DefaultBPS: keys.FeeDefaultBPS}
	cfg.MaxBodyBytes, cfg.TrustedProxies, cfg.LogRetention, cfg.LogLevel = keys.MaxBodyBytes, keys.TrustedProxies, keys.LogRetention, keys.LogLevel
	cfg.AllowedHosts = keys.AllowedHosts
	if cfg.DataDir == "" {
		cfg.DataDir = daemon.DataDirDefault(getenv("XDG_DATA_HOME"), getenv("HOME"))
	}
	if abs, err := filepath.Abs(cfg.DataDir); err == nil {
		cfg.DataDir = abs
	}
	return cfg, validate(cfg)
}

func validate(c daemon.Config) error {
	for name, d := range map[string]time.Duration{"quote_window": c.QuoteWindow, "open_window": c.OpenWindow,
		"payment_window": c.PaymentWindow, "auto_release": c.AutoRelease, "log_retention": c.LogRetention} {
		if d <= 0 {
			return fmt.Errorf("config: %s must be a positive duration such as 10s or 24h", name)
		}
	}
	if c.MaxBodyBytes < 4096 {
		return fmt.Errorf("config: max_body_bytes must be at least 4096")
	}
	if c.Fees.DefaultBPS < 0 || c.Fees.DefaultBPS > 10_000 {
		return fmt.Errorf("config: fee_default_bps must be 0 to 10000")
	}
	for i, w := range c.Fees.Windows {
		if !w.Until.After(w.From) || w.BPS < 0 || w.BPS > 10_000 {
			return fmt.Errorf("config: fee_windows[%d] needs from < until and bps 0 to 10000", i)
		}
	}
	switch c.LogLevel {
	case "debug", "info", "warn", "error":
	default:
		return fmt.Errorf("config: log_level must be debug, info, warn or error")
	}
	return nil
}

// keyNames lists the keys, read from the tags of Keys so the two cannot drift apart.
func keyNames() []string {
	t := reflect.TypeFor[Keys]()
	out := make([]string, t.NumField())
	for i := range out {
		out[i] = t.Field(i).Tag.Get("koanf")
	}
	return out
}
