// Package config resolves the exchange's configuration: defaults < config file (YAML) < AXP_*
// environment variables < command-line flags, into a plain daemon.Config. Every default of
// docs/design.md section 8 is a key here. It reads the environment only through the functions it is
// given.
package config

import (
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"time"

	"github.com/axp-exchange/axp"
	"github.com/axp-exchange/axp/daemon"
	"github.com/axp-exchange/axp/daemon/chain"
	"github.com/axp-exchange/axp/protocol"
	"github.com/axp-exchange/axp/store"
	"github.com/go-viper/mapstructure/v2"
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
	Addr                   string            `koanf:"addr"`
	DataDir                string            `koanf:"data_dir"`
	Store                  string            `koanf:"store"`
	StoreMigrate           bool              `koanf:"store_migrate"`
	StoreWait              time.Duration     `koanf:"store_wait"`
	BaseURL                string            `koanf:"base_url"`
	AdminToken             string            `koanf:"admin_token"`
	AnonTasksPerMinute     int               `koanf:"anon_tasks_per_minute"`
	RegistrationsPerHour   int               `koanf:"registrations_per_hour"`
	OperatorMessagesPerDay int               `koanf:"operator_messages_per_day"`
	AnonReadsPerMinute     int               `koanf:"anon_reads_per_minute"`
	BoardPostsPerHour      int               `koanf:"board_posts_per_hour"`
	QuoteWindow            time.Duration     `koanf:"quote_window"`
	OpenWindow             time.Duration     `koanf:"open_window"`
	PaymentWindow          time.Duration     `koanf:"payment_window"`
	AutoRelease            time.Duration     `koanf:"auto_release"`
	ContactWarnAt          int               `koanf:"contact_warn_at"`
	ContactSuspendAt       int               `koanf:"contact_suspend_at"`
	FeeDefaultBPS          int64             `koanf:"fee_default_bps"`
	FeeWindows             []axp.FeeWindow   `koanf:"fee_windows"`
	MaxBodyBytes           int64             `koanf:"max_body_bytes"`
	ReadTimeout            time.Duration     `koanf:"read_timeout"`
	WriteTimeout           time.Duration     `koanf:"write_timeout"`
	IdleTimeout            time.Duration     `koanf:"idle_timeout"`
	MaxConns               int               `koanf:"max_conns"`
	MaxConnsPerIP          int               `koanf:"max_conns_per_ip"`
	TrustedProxies         []string          `koanf:"trusted_proxies"`
	LogRetention           time.Duration     `koanf:"log_retention"`
	LogLevel               string            `koanf:"log_level"`
	DepositAddress         string            `koanf:"deposit_address"`
	ChainRPCURL            string            `koanf:"chain_rpc_url"`
	TestMode               bool              `koanf:"test_mode"`
	TestChainListen        string            `koanf:"test_chain_listen"`
	FaucetUSDPerCallerHour string            `koanf:"faucet_usd_per_caller_hour"`
	FaucetUSDPerHour       string            `koanf:"faucet_usd_per_hour"`
	ChainID                uint64            `koanf:"chain_id"`
	TokenAddress           string            `koanf:"token_address"`
	TokenDecimals          uint8             `koanf:"token_decimals"`
	Confirmations          uint64            `koanf:"confirmations"`
	ChainPoll              time.Duration     `koanf:"chain_poll"`
	ChainStartBlock        uint64            `koanf:"chain_start_block"`
	PayoutKeyFile          string            `koanf:"payout_key_file"`
	EscrowAddress          string            `koanf:"escrow_address"`
	EscrowCollector        string            `koanf:"escrow_collector_address"`
	SweepEvery             time.Duration     `koanf:"sweep_every"`
	SandboxWait            time.Duration     `koanf:"sandbox_wait"`
	MediationWindow        time.Duration     `koanf:"mediation_window"`
	AIBaseURL              string            `koanf:"ai_base_url"`
	AIAPIKey               string            `koanf:"ai_api_key"`
	AIModel                string            `koanf:"ai_model"`
	AIPromptUSDPerMTok     string            `koanf:"ai_prompt_usd_per_mtok"`
	AICompletionUSDPerMTok string            `koanf:"ai_completion_usd_per_mtok"`
	AITimeout              time.Duration     `koanf:"ai_timeout"`
	AllowedHosts           []string          `koanf:"allowed_hosts"`
	MetricsToken           string            `koanf:"metrics_token"`
	MetricsListen          string            `koanf:"metrics_listen"`
	OutboundPrivate        string            `koanf:"outbound_private"`
	X402FacilitatorURL     string            `koanf:"x402_facilitator_url"`
	X402MaxTimeout         time.Duration     `koanf:"x402_max_timeout"`
	PaidPrices             map[string]string `koanf:"paid_prices"`
	PaidTrialPerDay        int               `koanf:"paid_trial_per_day"`
	SearchURL              string            `koanf:"search_url"`
	MarketSourceURL        string            `koanf:"market_source_url"`
	MarketSource           string            `koanf:"market_source"`
	MarketCoins            []string          `koanf:"market_coins"`
	MarketPaths            map[string]string `koanf:"market_paths"`
	MarketPoll             time.Duration     `koanf:"market_poll"`
	MarketRetention        time.Duration     `koanf:"market_retention"`
	NewsFeeds              []string          `koanf:"news_feeds"`
	NewsEntities           []string          `koanf:"news_entities"`
	NewsPoll               time.Duration     `koanf:"news_poll"`
	NewsRetention          time.Duration     `koanf:"news_retention"`
}

// FlagKeys maps command-line flag names to keys.
var FlagKeys = map[string]string{
	"addr": "addr", "data-dir": "data_dir", "base-url": "base_url", "log-level": "log_level", "store": "store",
	"test-mode": "test_mode",
}

// listKeys are the keys whose environment value is a comma-separated list.
var listKeys = map[string]bool{"trusted_proxies": true, "allowed_hosts": true, "market_coins": true, "news_feeds": true, "news_entities": true}

// Load resolves the configuration. configFile may be empty (then AXP_CONFIG is consulted). flags may
// be nil; only flags the user set override. Errors name the key and where its value came from.
func Load(configFile string, flags *pflag.FlagSet, getenv func(string) string, environ func() []string) (daemon.Config, error) {
	def := daemon.Defaults()
	k := koanf.New(".")
	origin := map[string]string{} // key -> where its value came from, for messages
	known := map[string]bool{}
	for _, key := range keyNames() {
		known[key] = true
	}

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
		for _, key := range k.Keys() {
			top, _, _ := strings.Cut(key, ".")
			if !known[top] {
				return def, fmt.Errorf("config file %s: unknown key %q (known keys: %s)", configFile, key, strings.Join(keyNames(), ", "))
			}
			origin[top] = "config file " + configFile
		}
	}

	if err := k.Load(env.Provider(".", env.Opt{Prefix: "AXP_", EnvironFunc: environ,
		TransformFunc: func(name, v string) (string, any) {
			key := strings.ToLower(strings.TrimPrefix(name, "AXP_"))
			if !known[key] {
				return "", nil // AXP_CONFIG, AXP_EXCHANGE and the like belong to other commands
			}
			if v == "" {
				return "", nil // set but empty counts as unset, as in most tools
			}
			origin[key] = name
			if listKeys[key] {
				return key, splitList(v)
			}
			if key == "paid_prices" || key == "market_paths" {
				// AXP_PAID_PRICES=paid_web_search=0.02,paid_trading_risk=0.005;
				// AXP_MARKET_PATHS=bitcoin=data.btc.usd,ethereum=data.eth.usd
				m := map[string]any{}
				for _, pair := range splitList(v) {
					name, price, _ := strings.Cut(pair, "=")
					m[strings.TrimSpace(name)] = strings.TrimSpace(price)
				}
				return key, m
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
			origin[key] = "--" + f.Name
			return key, posflag.FlagVal(flags, f)
		}), nil); err != nil {
			return def, err
		}
	}

	keys := fromDefaults(def)
	if err := decode(k, &keys, origin); err != nil {
		return def, err
	}
	cfg := def
	cfg.Addr, cfg.DataDir, cfg.BaseURL, cfg.AdminToken = keys.Addr, keys.DataDir, keys.BaseURL, keys.AdminToken
	cfg.Store, cfg.StoreNoMigrate, cfg.StoreWait = strings.TrimSpace(keys.Store), !keys.StoreMigrate, keys.StoreWait
	cfg.AnonTasksPerMinute, cfg.RegistrationsPerHour = keys.AnonTasksPerMinute, keys.RegistrationsPerHour
	cfg.OperatorMessagesPerDay, cfg.AnonReadsPerMinute = keys.OperatorMessagesPerDay, keys.AnonReadsPerMinute
	cfg.BoardPostsPerHour = keys.BoardPostsPerHour
	cfg.QuoteWindow, cfg.OpenWindow, cfg.PaymentWindow, cfg.AutoRelease = keys.QuoteWindow, keys.OpenWindow, keys.PaymentWindow, keys.AutoRelease
	cfg.ContactWarnAt, cfg.ContactSuspendAt = keys.ContactWarnAt, keys.ContactSuspendAt
	cfg.Fees = axp.FeeSchedule{Windows: keys.FeeWindows, DefaultBPS: keys.FeeDefaultBPS}
	cfg.DepositAddress, cfg.SweepEvery, cfg.SandboxWait = strings.TrimSpace(keys.DepositAddress), keys.SweepEvery, keys.SandboxWait
	cfg.MaxBodyBytes, cfg.TrustedProxies, cfg.LogRetention = keys.MaxBodyBytes, keys.TrustedProxies, keys.LogRetention
	cfg.ReadTimeout, cfg.WriteTimeout, cfg.IdleTimeout = keys.ReadTimeout, keys.WriteTimeout, keys.IdleTimeout
	cfg.MaxConns, cfg.MaxConnsPerIP = keys.MaxConns, keys.MaxConnsPerIP
	cfg.ChainRPCURL, cfg.ChainID, cfg.TokenAddress = strings.TrimSpace(keys.ChainRPCURL), keys.ChainID, strings.TrimSpace(keys.TokenAddress)
	cfg.TokenDecimals, cfg.Confirmations, cfg.ChainPoll = keys.TokenDecimals, keys.Confirmations, keys.ChainPoll
	cfg.ChainStartBlock, cfg.PayoutKeyFile = keys.ChainStartBlock, strings.TrimSpace(keys.PayoutKeyFile)
	cfg.EscrowAddress, cfg.EscrowCollectorAddress = strings.TrimSpace(keys.EscrowAddress), strings.TrimSpace(keys.EscrowCollector)
	cfg.TestMode, cfg.TestChainListen = keys.TestMode, strings.TrimSpace(keys.TestChainListen)
	if cfg.TestMode {
		// The test chain seals a block a second; a block is read once another is sealed on it (two
		// confirmations), when it is surely on disk: a payment is found within about two seconds.
		if !k.Exists("confirmations") {
			cfg.Confirmations = 2
		}
		if !k.Exists("chain_poll") {
			cfg.ChainPoll = time.Second
		}
	}
	// The hot wallet's passphrase is read from the environment only: never from a file or a flag.
	cfg.PayoutKeyPassphrase = getenv("AXP_PAYOUT_KEY_PASSPHRASE")
	cfg.LogLevel = strings.ToLower(strings.TrimSpace(keys.LogLevel))
	cfg.AllowedHosts = keys.AllowedHosts
	cfg.MetricsToken, cfg.MetricsListen = strings.TrimSpace(keys.MetricsToken), strings.TrimSpace(keys.MetricsListen)
	cfg.OutboundPrivate = strings.ToLower(strings.TrimSpace(keys.OutboundPrivate))
	cfg.MediationWindow, cfg.AITimeout = keys.MediationWindow, keys.AITimeout
	cfg.AIBaseURL, cfg.AIAPIKey, cfg.AIModel = strings.TrimSpace(keys.AIBaseURL), strings.TrimSpace(keys.AIAPIKey), strings.TrimSpace(keys.AIModel)
	cfg.X402FacilitatorURL, cfg.X402MaxTimeout = strings.TrimSpace(keys.X402FacilitatorURL), keys.X402MaxTimeout
	cfg.TrialCallsPerDay, cfg.SearchURL = keys.PaidTrialPerDay, strings.TrimSpace(keys.SearchURL)
	cfg.MarketSourceURL, cfg.MarketSource = strings.TrimSpace(keys.MarketSourceURL), strings.ToLower(strings.TrimSpace(keys.MarketSource))
	cfg.MarketCoins, cfg.MarketPaths, cfg.MarketPoll, cfg.MarketRetention = keys.MarketCoins, keys.MarketPaths, keys.MarketPoll, keys.MarketRetention
	cfg.NewsFeeds, cfg.NewsEntities, cfg.NewsPoll, cfg.NewsRetention = keys.NewsFeeds, keys.NewsEntities, keys.NewsPoll, keys.NewsRetention
	if len(keys.PaidPrices) > 0 {
		cfg.PaidPrices = map[string]axp.Money{}
		for name, v := range keys.PaidPrices {
			m, err := protocol.ParseMoney(strings.TrimSpace(v))
			if err != nil || m < axp.MinCallPrice || m > axp.MaxCallPrice {
				return def, &keyError{"paid_prices", fmt.Sprintf("paid_prices.%s must be US dollars between %s and %s, e.g. 0.01",
					name, axp.MinCallPrice.Display(), axp.MaxCallPrice.Display())}
			}
			cfg.PaidPrices[name] = m
		}
	}
	for _, p := range []struct {
		key, v string
		dst    *axp.Money
	}{{"ai_prompt_usd_per_mtok", keys.AIPromptUSDPerMTok, &cfg.AIPromptPrice}, {"ai_completion_usd_per_mtok", keys.AICompletionUSDPerMTok, &cfg.AICompletionPrice}} {
		if strings.TrimSpace(p.v) == "" {
			continue
		}
		m, err := protocol.ParseMoney(p.v)
		if err != nil || m < 0 {
			return def, &keyError{p.key, p.key + " must be a non-negative amount of US dollars, e.g. 0.15"}
		}
		*p.dst = m
	}
	for _, p := range []struct {
		key, v string
		dst    *axp.Money
	}{{"faucet_usd_per_caller_hour", keys.FaucetUSDPerCallerHour, &cfg.FaucetPerCaller}, {"faucet_usd_per_hour", keys.FaucetUSDPerHour, &cfg.FaucetPerHour}} {
		if strings.TrimSpace(p.v) == "" {
			continue
		}
		m, err := protocol.ParseMoney(p.v)
		if err != nil || m <= 0 {
			return def, &keyError{p.key, p.key + " must be a positive amount of US dollars, e.g. 5000"}
		}
		*p.dst = m
	}

	home := getenv("HOME")
	if home == "" {
		home, _ = os.UserHomeDir()
	}
	if cfg.DataDir == "" {
		// The XDG spec says a relative $XDG_DATA_HOME is invalid and must be ignored.
		xdg := getenv("XDG_DATA_HOME")
		if !filepath.IsAbs(xdg) {
			xdg = ""
		}
		cfg.DataDir = daemon.DataDirDefault(xdg, home)
		if cfg.TestMode {
			// Test money keeps a data dir of its own: the default one may hold real money.
			cfg.DataDir += "-test"
		}
	} else if rest, ok := strings.CutPrefix(cfg.DataDir, "~/"); ok && home != "" {
		cfg.DataDir = filepath.Join(home, rest)
	}
	if abs, err := filepath.Abs(cfg.DataDir); err == nil {
		cfg.DataDir = abs
	}
	if err := validate(cfg); err != nil {
		var ke *keyError
		if errors.As(err, &ke) && origin[ke.key] != "" {
			return def, fmt.Errorf("config: %s (from %s)", ke.msg, origin[ke.key])
		}
		return def, fmt.Errorf("config: %w", err)
	}
	return cfg, nil
}

// validateTestMode keeps real and test money apart: test mode brings its own chain, token, deposit
// address and hot wallet, so a setting naming real ones is refused with it, and its chain lives in
// one daemon's data dir, so it runs on the embedded store only.
func validateTestMode(c daemon.Config) error {
	if !c.TestMode {
		if c.TestChainListen != "" {
			return &keyError{"test_chain_listen", "test_chain_listen is for test mode: add --test-mode (test_mode: true), or remove it"}
		}
		return nil
	}
	for _, s := range []struct{ key, v string }{{"chain_rpc_url", c.ChainRPCURL}, {"token_address", c.TokenAddress},
		{"deposit_address", c.DepositAddress}, {"payout_key_file", c.PayoutKeyFile}, {"x402_facilitator_url", c.X402FacilitatorURL},
		{"escrow_address", c.EscrowAddress}, {"escrow_collector_address", c.EscrowCollectorAddress}} {
		if s.v != "" {
			return &keyError{s.key, s.key + " names real money, and test mode runs its own test chain: real and test money never mix; remove " + s.key + " or test_mode"}
		}
	}
	if c.ChainID != 0 || c.ChainStartBlock != 0 {
		return &keyError{"chain_id", "chain_id and chain_start_block name a real chain, and test mode runs its own: remove them or test_mode"}
	}
	if strings.HasPrefix(c.Store, "postgres") {
		return &keyError{"store", "test mode runs on the embedded store: its chain lives in one daemon's data dir; remove store or test_mode"}
	}
	if c.TestChainListen != "" {
		host, _, err := net.SplitHostPort(c.TestChainListen)
		if ip := net.ParseIP(host); err != nil || (host != "localhost" && (ip == nil || !ip.IsLoopback())) {
			return &keyError{"test_chain_listen", "test_chain_listen must be a loopback host:port such as 127.0.0.1:8545"}
		}
	}
	return nil
}

// fromDefaults is the configuration as keys before any source is applied.
func fromDefaults(def daemon.Config) Keys {
	return Keys{
		Addr: def.Addr, StoreMigrate: !def.StoreNoMigrate, StoreWait: def.StoreWait, AnonTasksPerMinute: def.AnonTasksPerMinute, RegistrationsPerHour: def.RegistrationsPerHour,
		OperatorMessagesPerDay: def.OperatorMessagesPerDay, AnonReadsPerMinute: def.AnonReadsPerMinute, BoardPostsPerHour: def.BoardPostsPerHour,
		QuoteWindow: def.QuoteWindow, OpenWindow: def.OpenWindow, PaymentWindow: def.PaymentWindow, AutoRelease: def.AutoRelease,
		ContactWarnAt: def.ContactWarnAt, ContactSuspendAt: def.ContactSuspendAt,
		FeeDefaultBPS: def.Fees.DefaultBPS, FeeWindows: def.Fees.Windows, MaxBodyBytes: def.MaxBodyBytes,
		LogRetention: def.LogRetention, LogLevel: def.LogLevel, SweepEvery: def.SweepEvery, SandboxWait: def.SandboxWait,
		OutboundPrivate: def.OutboundPrivate, ReadTimeout: def.ReadTimeout, WriteTimeout: def.WriteTimeout, IdleTimeout: def.IdleTimeout,
		MaxConns: def.MaxConns, MaxConnsPerIP: def.MaxConnsPerIP,
		Confirmations: def.Confirmations, ChainPoll: def.ChainPoll,
		X402MaxTimeout: def.X402MaxTimeout, PaidTrialPerDay: def.TrialCallsPerDay,
		MarketSource: def.MarketSource, MarketCoins: def.MarketCoins, MarketPoll: def.MarketPoll, MarketRetention: def.MarketRetention,
		NewsPoll: def.NewsPoll, NewsRetention: def.NewsRetention,
	}
}

// decode sets each field of keys whose key is present in k. Each value is decoded into a fresh
// value of the field's type and then assigned, so that a configured list replaces the default
// rather than being merged into it element by element.
func decode(k *koanf.Koanf, keys *Keys, origin map[string]string) error {
	v := reflect.ValueOf(keys).Elem()
	t := v.Type()
	for i := range t.NumField() {
		key := t.Field(i).Tag.Get("koanf")
		if !k.Exists(key) {
			continue
		}
		fresh := reflect.New(t.Field(i).Type)
		dec, err := mapstructure.NewDecoder(&mapstructure.DecoderConfig{
			DecodeHook: mapstructure.ComposeDecodeHookFunc(durationHook, mapstructure.TextUnmarshallerHookFunc()),
			// Strings from the environment must become numbers; YAML values already have types.
			WeaklyTypedInput: true,
			ErrorUnused:      true,
			TagName:          "koanf",
			Result:           fresh.Interface(),
		})
		if err != nil {
			return err
		}
		if err := dec.Decode(k.Get(key)); err != nil {
			return fmt.Errorf("config: %s (from %s): %s", key, origin[key], decodeMessage(err))
		}
		v.Field(i).Set(fresh.Elem())
	}
	return nil
}

var durationType = reflect.TypeFor[time.Duration]()

// durationHook parses durations from strings only: a bare number (quote_window: 10) would
// otherwise be read as nanoseconds.
func durationHook(from, to reflect.Type, data any) (any, error) {
	if to != durationType {
		return data, nil
	}
	switch x := data.(type) {
	case string:
		d, err := time.ParseDuration(strings.TrimSpace(x))
		if err != nil {
			return nil, fmt.Errorf("%q is not a duration; write a number with a unit such as 10s, 5m or 24h", x)
		}
		return d, nil
	case time.Duration:
		return x, nil
	default:
		return nil, fmt.Errorf("%v has no unit; write a duration such as 10s, 5m or 24h", data)
	}
}

// decodeMessage turns a decoding error into one line without mapstructure's framing.
func decodeMessage(err error) string {
	var pe *mapstructure.ParseError
	if errors.As(err, &pe) {
		return fmt.Sprintf("%q is not a valid %s", fmt.Sprint(pe.Value), pe.Expected.Type())
	}
	var de *mapstructure.DecodeError
	if errors.As(err, &de) {
		msg := de.Unwrap().Error()
		if de.Name() != "" {
			msg = de.Name() + ": " + msg
		}
		return msg
	}
	return strings.ReplaceAll(strings.TrimPrefix(err.Error(), "decoding failed due to the following error(s):\n\n"), "\n", "; ")
}

func splitList(v string) []string {
	var out []string
	for _, s := range strings.Split(v, ",") {
		if s = strings.TrimSpace(s); s != "" {
			out = append(out, s)
		}
	}
	return out
}

// keyError is a validation failure of one key.
type keyError struct{ key, msg string }

func (e *keyError) Error() string { return e.msg }

func validate(c daemon.Config) error {
	if c.Store != "" && !store.IsPostgres(c.Store) && !strings.HasPrefix(c.Store, "bolt:") {
		return &keyError{"store", "store must be a postgres:// (or postgresql://) URL, or bolt:PATH for a bbolt file; leave it empty for the file in the data dir"}
	}
	if c.StoreWait < 0 {
		return &keyError{"store_wait", "store_wait must be 0 (wait for ever) or a positive duration such as 2m"}
	}
	for _, d := range []struct {
		key string
		v   time.Duration
	}{{"quote_window", c.QuoteWindow}, {"open_window", c.OpenWindow}, {"payment_window", c.PaymentWindow}, {"sweep_every", c.SweepEvery}, {"sandbox_wait", c.SandboxWait},
		{"auto_release", c.AutoRelease}, {"log_retention", c.LogRetention}, {"read_timeout", c.ReadTimeout}, {"idle_timeout", c.IdleTimeout}} {
		if d.v <= 0 {
			return &keyError{d.key, d.key + " must be a positive duration such as 10s or 24h"}
		}
	}
	for _, n := range []struct {
		key string
		v   int
	}{{"anon_tasks_per_minute", c.AnonTasksPerMinute}, {"registrations_per_hour", c.RegistrationsPerHour},
		{"operator_messages_per_day", c.OperatorMessagesPerDay}, {"anon_reads_per_minute", c.AnonReadsPerMinute}, {"board_posts_per_hour", c.BoardPostsPerHour},
		{"max_conns", c.MaxConns}, {"max_conns_per_ip", c.MaxConnsPerIP}} {
		if n.v < 0 {
			return &keyError{n.key, n.key + " must be 0 (no limit) or more"}
		}
	}
	if c.ContactWarnAt < 1 {
		return &keyError{"contact_warn_at", "contact_warn_at must be at least 1"}
	}
	if c.ContactSuspendAt < c.ContactWarnAt {
		return &keyError{"contact_suspend_at", "contact_suspend_at must be at least contact_warn_at"}
	}
	if c.MaxBodyBytes < 4096 {
		return &keyError{"max_body_bytes", "max_body_bytes must be at least 4096"}
	}
	if c.Fees.DefaultBPS < 0 || c.Fees.DefaultBPS > 10_000 {
		return &keyError{"fee_default_bps", "fee_default_bps must be 0 to 10000"}
	}
	for i, w := range c.Fees.Windows {
		if !w.Until.After(w.From) || w.BPS < 0 || w.BPS > 10_000 {
			return &keyError{"fee_windows", fmt.Sprintf("fee_windows[%d] needs from < until and bps 0 to 10000", i)}
		}
	}
	if (c.AIBaseURL == "") != (c.AIModel == "") {
		return &keyError{"ai_base_url", "ai_base_url and ai_model go together: set both to use an AI provider, or neither"}
	}
	if c.AIBaseURL != "" {
		if u, err := url.Parse(c.AIBaseURL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return &keyError{"ai_base_url", "ai_base_url must be an http(s) URL such as https://api.example/v1"}
		}
	}
	if c.MediationWindow < 0 || c.AITimeout < 0 {
		return &keyError{"mediation_window", "mediation_window and ai_timeout must be positive durations"}
	}
	if err := validateTestMode(c); err != nil {
		return err
	}
	for _, a := range []struct{ key, v string }{{"deposit_address", c.DepositAddress}, {"token_address", c.TokenAddress},
		{"escrow_address", c.EscrowAddress}, {"escrow_collector_address", c.EscrowCollectorAddress}} {
		if a.v != "" && !chain.IsAddress(a.v) {
			return &keyError{a.key, a.key + " must be an EVM address: 0x followed by 40 hex digits, with a valid EIP-55 checksum if it mixes cases"}
		}
	}
	if c.ChainRPCURL != "" {
		if u, err := url.Parse(c.ChainRPCURL); err != nil || (u.Scheme != "http" && u.Scheme != "https" && u.Scheme != "ws" && u.Scheme != "wss") || u.Host == "" {
			return &keyError{"chain_rpc_url", "chain_rpc_url must be an http(s) or ws(s) URL of an EVM JSON-RPC node"}
		}
		if c.TokenAddress == "" || c.DepositAddress == "" {
			return &keyError{"token_address", "chain_rpc_url needs token_address (the stablecoin's contract) and deposit_address (where buyers pay)"}
		}
	}
	if c.TokenDecimals != 0 && c.TokenDecimals < 6 {
		return &keyError{"token_decimals", "token_decimals must be at least 6 (amounts are micro-USD)"}
	}
	if c.Confirmations == 0 || c.Confirmations > 1000 {
		return &keyError{"confirmations", "confirmations must be 1 to 1000"}
	}
	if c.ChainPoll < 100*time.Millisecond {
		return &keyError{"chain_poll", "chain_poll must be at least 100ms"}
	}
	for _, u := range []struct{ key, v string }{{"x402_facilitator_url", c.X402FacilitatorURL}, {"search_url", c.SearchURL}} {
		if u.v == "" {
			continue
		}
		if pu, err := url.Parse(u.v); err != nil || (pu.Scheme != "http" && pu.Scheme != "https") || pu.Host == "" {
			return &keyError{u.key, u.key + " must be an http(s) URL"}
		}
	}
	if err := validateRecorders(c); err != nil {
		return err
	}
	if c.X402FacilitatorURL != "" && c.ChainRPCURL == "" {
		return &keyError{"x402_facilitator_url", "x402_facilitator_url needs chain_rpc_url: the exchange names its chain and token in the terms it offers"}
	}
	if c.TrialCallsPerDay < 0 {
		return &keyError{"paid_trial_per_day", "paid_trial_per_day must be 0 (no trial) or more"}
	}
	if c.X402MaxTimeout < 10*time.Second || c.X402MaxTimeout > 24*time.Hour {
		return &keyError{"x402_max_timeout", "x402_max_timeout must be between 10s and 24h"}
	}
	if c.PayoutKeyFile != "" && c.ChainRPCURL == "" {
		return &keyError{"payout_key_file", "payout_key_file needs chain_rpc_url: the hot wallet sends on the configured chain"}
	}
	if (c.EscrowAddress == "") != (c.EscrowCollectorAddress == "") {
		return &keyError{"escrow_address", "escrow_address and escrow_collector_address go together: name the escrow contract and its ERC-3009 payment collector, or neither"}
	}
	if c.EscrowAddress != "" && (c.ChainRPCURL == "" || c.PayoutKeyFile == "") {
		return &keyError{"escrow_address", "escrow_address needs chain_rpc_url and payout_key_file: the hot wallet calls the escrow on the configured chain"}
	}
	if c.MetricsToken != "" && len(c.MetricsToken) < 16 {
		return &keyError{"metrics_token", "metrics_token must be at least 16 characters (a random secret, e.g. from openssl rand -hex 24)"}
	}
	if c.MetricsListen != "" {
		if _, _, err := net.SplitHostPort(c.MetricsListen); err != nil {
			return &keyError{"metrics_listen", "metrics_listen must be a host:port such as 127.0.0.1:9464"}
		}
	}
	switch c.OutboundPrivate {
	case "deny", "allow":
	default:
		return &keyError{"outbound_private", fmt.Sprintf("outbound_private %q is not one of deny (refuse private addresses, and loopback unless the exchange listens on loopback only) or allow", c.OutboundPrivate)}
	}
	switch c.LogLevel {
	case "debug", "info", "warn", "error":
	default:
		return &keyError{"log_level", fmt.Sprintf("log_level %q is not one of debug, info, warn, error", c.LogLevel)}
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

// validateRecorders checks the keys of the market and news recorders.
func validateRecorders(c daemon.Config) error {
	for _, d := range []struct {
		key      string
		v, least time.Duration
	}{{"market_poll", c.MarketPoll, 10 * time.Second}, {"news_poll", c.NewsPoll, time.Minute},
		{"market_retention", c.MarketRetention, 24 * time.Hour}, {"news_retention", c.NewsRetention, 24 * time.Hour}} {
		if d.v < d.least {
			return &keyError{d.key, fmt.Sprintf("%s must be a duration of at least %s", d.key, d.least)}
		}
	}
	if c.MarketSource != "coingecko" && c.MarketSource != "jsonpath" {
		return &keyError{"market_source", fmt.Sprintf("market_source %q is not coingecko (the simple-price API) or jsonpath (market_paths)", c.MarketSource)}
	}
	urls := append([]string{c.MarketSourceURL}, c.NewsFeeds...)
	for i, u := range urls {
		key := "market_source_url"
		if i > 0 {
			key = "news_feeds"
		}
		if u == "" && i == 0 {
			continue
		}
		if pu, err := url.Parse(u); err != nil || (pu.Scheme != "http" && pu.Scheme != "https") || pu.Host == "" {
			return &keyError{key, fmt.Sprintf("%s: %q is not an http(s) URL", key, u)}
		}
	}
	if c.MarketSourceURL != "" && len(c.MarketCoins) == 0 {
		return &keyError{"market_coins", "market_source_url needs market_coins: the coins to record (the source's ids)"}
	}
	if c.MarketSource == "jsonpath" && c.MarketSourceURL != "" {
		for _, coin := range c.MarketCoins {
			if strings.TrimSpace(c.MarketPaths[coin]) == "" {
				return &keyError{"market_paths", fmt.Sprintf("market_source jsonpath needs market_paths.%s: the dotted path to its price in the answer", coin)}
			}
		}
	}
	if len(c.NewsFeeds) > 0 && len(c.NewsEntities) == 0 {
		return &keyError{"news_entities", "news_feeds needs news_entities: the names (Name=alias|alias) news is recorded about"}
	}
	return nil
}
