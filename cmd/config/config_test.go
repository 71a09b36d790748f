package config_test

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/axp-exchange/axp"
	"github.com/axp-exchange/axp/cmd/cmdutil"
	"github.com/axp-exchange/axp/cmd/config"
	"github.com/axp-exchange/axp/cmd/serve"
	"github.com/axp-exchange/axp/daemon"
	"github.com/spf13/pflag"
)

// env is a fake process environment.
type env map[string]string

func (e env) getenv(k string) string { return e[k] }
func (e env) environ() []string {
	var out []string
	for k, v := range e {
		out = append(out, k+"="+v)
	}
	return out
}

// serveFlags parses args with the real `axp serve` flag set.
func serveFlags(t *testing.T, args ...string) *pflag.FlagSet {
	t.Helper()
	c := serve.NewCmd(&cmdutil.Factory{IO: &cmdutil.IOStreams{}, Getenv: func(string) string { return "" }}, nil)
	if err := c.Flags().Parse(args); err != nil {
		t.Fatal(err)
	}
	return c.Flags()
}

func writeFile(t *testing.T, body string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "axp.yaml")
	if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func load(t *testing.T, file string, flags *pflag.FlagSet, e env) daemon.Config {
	t.Helper()
	if e == nil {
		e = env{}
	}
	if _, ok := e["XDG_DATA_HOME"]; !ok {
		e["XDG_DATA_HOME"] = "/xdg/data"
	}
	cfg, err := config.Load(file, flags, e.getenv, e.environ)
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	return cfg
}

func loadErr(t *testing.T, file string, flags *pflag.FlagSet, e env) string {
	t.Helper()
	if e == nil {
		e = env{}
	}
	_, err := config.Load(file, flags, e.getenv, e.environ)
	if err == nil {
		t.Fatal("Load succeeded; want an error")
	}
	return err.Error()
}

func TestDefaults(t *testing.T) {
	cfg := load(t, "", nil, nil)
	want := daemon.Defaults()
	want.DataDir = "/xdg/data/axp"
	if !reflect.DeepEqual(cfg, want) {
		t.Errorf("defaults:\n got %+v\nwant %+v", cfg, want)
	}
}

func TestPrecedence(t *testing.T) {
	file := writeFile(t, `
addr: 127.0.0.1:1001
data_dir: /from/file
quote_window: 20s
anon_tasks_per_minute: 7
log_level: warn
`)
	tests := []struct {
		name  string
		file  string
		env   env
		flags []string
		check func(daemon.Config) []any // got, want pairs
	}{
		{"file over defaults", file, nil, nil, func(c daemon.Config) []any {
			return []any{c.Addr, "127.0.0.1:1001", c.DataDir, "/from/file", c.QuoteWindow, 20 * time.Second,
				c.AnonTasksPerMinute, 7, c.LogLevel, "warn", c.OpenWindow, 24 * time.Hour}
		}},
		{"env over file", file, env{"AXP_ADDR": "127.0.0.1:1002", "AXP_DATA_DIR": "/from/env", "AXP_QUOTE_WINDOW": "30s",
			"AXP_ANON_TASKS_PER_MINUTE": "9", "AXP_LOG_LEVEL": "error"}, nil, func(c daemon.Config) []any {
			return []any{c.Addr, "127.0.0.1:1002", c.DataDir, "/from/env", c.QuoteWindow, 30 * time.Second,
				c.AnonTasksPerMinute, 9, c.LogLevel, "error"}
		}},
		{"env over defaults without a file", "", env{"AXP_QUOTE_WINDOW": "1m", "AXP_ANON_TASKS_PER_MINUTE": "0"}, nil, func(c daemon.Config) []any {
			return []any{c.QuoteWindow, time.Minute, c.AnonTasksPerMinute, 0, c.Addr, daemon.Defaults().Addr}
		}},
		{"flags over env", file, env{"AXP_ADDR": "127.0.0.1:1002", "AXP_DATA_DIR": "/from/env", "AXP_LOG_LEVEL": "error"},
			[]string{"--addr", "127.0.0.1:1003", "--data-dir", "/from/flag", "--log-level", "debug"}, func(c daemon.Config) []any {
				return []any{c.Addr, "127.0.0.1:1003", c.DataDir, "/from/flag", c.LogLevel, "debug",
					c.QuoteWindow, 20 * time.Second} // no flag for it: the file's value stays
			}},
		{"flags over file", file, nil, []string{"--base-url", "https://axp.example"}, func(c daemon.Config) []any {
			return []any{c.BaseURL, "https://axp.example", c.Addr, "127.0.0.1:1001"}
		}},
		{"unchanged flags do not override", file, env{"AXP_ADDR": "127.0.0.1:1002"}, []string{}, func(c daemon.Config) []any {
			// --addr and --log-level have defaults in the flag set; not given, they must not win.
			return []any{c.Addr, "127.0.0.1:1002", c.LogLevel, "warn"}
		}},
		{"empty variables count as unset", file, env{"AXP_ADDR": "", "AXP_QUOTE_WINDOW": ""}, nil, func(c daemon.Config) []any {
			return []any{c.Addr, "127.0.0.1:1001", c.QuoteWindow, 20 * time.Second}
		}},
		{"AXP_CONFIG names the file", "", env{"AXP_CONFIG": file}, nil, func(c daemon.Config) []any {
			return []any{c.Addr, "127.0.0.1:1001"}
		}},
		{"variables of other commands are not keys", "", env{"AXP_EXCHANGE": "http://x", "AXP_CONFIG": ""}, nil, func(c daemon.Config) []any {
			return []any{c.Addr, daemon.Defaults().Addr}
		}},
		{"lists from the environment", "", env{"AXP_TRUSTED_PROXIES": "10.0.0.1, 10.0.0.2,"}, nil, func(c daemon.Config) []any {
			return []any{c.TrustedProxies, []string{"10.0.0.1", "10.0.0.2"}}
		}},
		{"allowed hosts from the environment", "", env{"AXP_ALLOWED_HOSTS": "exchange.example,127.0.0.2:8420"}, nil, func(c daemon.Config) []any {
			return []any{c.AllowedHosts, []string{"exchange.example", "127.0.0.2:8420"}}
		}},
		{"levels are not case sensitive", "", env{"AXP_LOG_LEVEL": "WARN"}, nil, func(c daemon.Config) []any {
			return []any{c.LogLevel, "warn"}
		}},
		{"admin token from the environment", "", env{"AXP_ADMIN_TOKEN": "tok"}, nil, func(c daemon.Config) []any {
			return []any{c.AdminToken, "tok"}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var fl *pflag.FlagSet
			if tt.flags != nil {
				fl = serveFlags(t, tt.flags...)
			}
			pairs := tt.check(load(t, tt.file, fl, tt.env))
			for i := 0; i < len(pairs); i += 2 {
				if !reflect.DeepEqual(pairs[i], pairs[i+1]) {
					t.Errorf("value %d: got %v, want %v", i/2, pairs[i], pairs[i+1])
				}
			}
		})
	}
}

func TestFeeWindowsFromFile(t *testing.T) {
	file := writeFile(t, `
fee_default_bps: 250
fee_windows:
  - name: summer
    from: 2027-06-01T00:00:00Z
    until: 2027-09-01T00:00:00Z
    bps: 50
  - name: winter
    from: "2027-12-01T00:00:00Z"
    until: "2028-01-01T00:00:00Z"
    bps: 0
    promotional_days: 31
`)
	cfg := load(t, file, nil, nil)
	want := axp.FeeSchedule{DefaultBPS: 250, Windows: []axp.FeeWindow{
		{Name: "summer", From: time.Date(2027, 6, 1, 0, 0, 0, 0, time.UTC), Until: time.Date(2027, 9, 1, 0, 0, 0, 0, time.UTC), BPS: 50},
		{Name: "winter", From: time.Date(2027, 12, 1, 0, 0, 0, 0, time.UTC), Until: time.Date(2028, 1, 1, 0, 0, 0, 0, time.UTC), PromotionalDays: 31},
	}}
	if len(cfg.Fees.Windows) != 2 {
		t.Fatalf("fees: got %+v", cfg.Fees)
	}
	for i, w := range cfg.Fees.Windows {
		ww := want.Windows[i]
		// Fields the file leaves out must be zero, not inherited from the default launch window.
		if w.Name != ww.Name || !w.From.Equal(ww.From) || !w.Until.Equal(ww.Until) || w.BPS != ww.BPS || w.PromotionalDays != ww.PromotionalDays {
			t.Errorf("window %d: got %+v, want %+v", i, w, ww)
		}
	}
	if cfg.Fees.DefaultBPS != 250 {
		t.Errorf("default bps: got %d", cfg.Fees.DefaultBPS)
	}
	if got := daemon.Defaults().Fees; !reflect.DeepEqual(got, axp.LaunchPromotion()) {
		t.Errorf("loading changed the defaults: %+v", got)
	}

	// An empty list turns every window off.
	cfg = load(t, writeFile(t, "fee_windows: []\n"), nil, nil)
	if len(cfg.Fees.Windows) != 0 {
		t.Errorf("fee_windows: [] gave %+v", cfg.Fees.Windows)
	}
}

func TestRefused(t *testing.T) {
	tests := []struct {
		name string
		file string // YAML body, "" for none
		env  env
		want []string
	}{
		{"unknown key", "addr: 127.0.0.1:1\nquote_windw: 5s\n", nil,
			append([]string{`unknown key "quote_windw"`, "known keys:"}, keyList()...)},
		{"unknown nested key", "limits:\n  anon: 3\n", nil, []string{`unknown key "limits.anon"`, "known keys:"}},
		{"unknown field in a fee window", "fee_windows:\n  - name: x\n    bsp: 5\n", nil, []string{"fee_windows", "bsp"}},
		{"duration without unit in the environment", "", env{"AXP_QUOTE_WINDOW": "10"}, []string{"quote_window", "AXP_QUOTE_WINDOW", `"10" is not a duration`}},
		{"garbled duration", "", env{"AXP_OPEN_WINDOW": "abc"}, []string{"open_window", "AXP_OPEN_WINDOW", `"abc" is not a duration`}},
		{"bare number as a duration in the file", "quote_window: 10\n", nil, []string{"quote_window", "config file", "no unit"}},
		{"negative duration", "payment_window: -5s\n", nil, []string{"payment_window must be a positive duration", "config file"}},
		{"zero duration", "", env{"AXP_AUTO_RELEASE": "0s"}, []string{"auto_release must be a positive duration", "AXP_AUTO_RELEASE"}},
		{"unknown level", "", env{"AXP_LOG_LEVEL": "verbose"}, []string{`log_level "verbose"`, "debug, info, warn, error", "AXP_LOG_LEVEL"}},
		{"not a number", "", env{"AXP_ANON_TASKS_PER_MINUTE": "many"}, []string{"anon_tasks_per_minute", `"many" is not a valid int`}},
		{"negative limit", "registrations_per_hour: -1\n", nil, []string{"registrations_per_hour must be 0 (no limit) or more"}},
		{"fee window backwards", "fee_windows:\n  - name: x\n    from: 2027-02-01T00:00:00Z\n    until: 2027-01-01T00:00:00Z\n    bps: 5\n", nil,
			[]string{"fee_windows[0] needs from < until"}},
		{"small body limit", "", env{"AXP_MAX_BODY_BYTES": "100"}, []string{"max_body_bytes must be at least 4096"}},
		{"short metrics token", "", env{"AXP_METRICS_TOKEN": "short"}, []string{"metrics_token must be at least 16 characters", "AXP_METRICS_TOKEN"}},
		{"metrics listen without a port", "metrics_listen: 127.0.0.1\n", nil, []string{"metrics_listen must be a host:port"}},
		{"malformed YAML", "addr: [\n", nil, []string{"config file"}},
		{"unknown outbound_private", "", env{"AXP_OUTBOUND_PRIVATE": "maybe"}, []string{`outbound_private "maybe"`, "deny", "allow", "AXP_OUTBOUND_PRIVATE"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			file := ""
			if tt.file != "" {
				file = writeFile(t, tt.file)
			}
			msg := loadErr(t, file, nil, tt.env)
			for _, w := range tt.want {
				if !strings.Contains(msg, w) {
					t.Errorf("error %q does not contain %q", msg, w)
				}
			}
			if strings.Contains(msg, "\n") {
				t.Errorf("error spans lines: %q", msg)
			}
		})
	}
	if msg := loadErr(t, filepath.Join(t.TempDir(), "missing.yaml"), nil, nil); !strings.Contains(msg, "missing.yaml") {
		t.Errorf("missing file: %q", msg)
	}
}

func keyList() []string {
	return []string{"addr", "data_dir", "base_url", "admin_token", "anon_tasks_per_minute", "registrations_per_hour",
		"operator_messages_per_day", "anon_reads_per_minute", "quote_window", "open_window", "payment_window",
		"auto_release", "contact_warn_at", "contact_suspend_at", "fee_default_bps", "fee_windows", "max_body_bytes",
		"trusted_proxies", "log_retention", "log_level", "allowed_hosts", "outbound_private"}
}

// Every key can be set from a file: the list of keys is the struct, and a file naming each of them
// loads.
func TestEveryKeyFromFile(t *testing.T) {
	file := writeFile(t, `
addr: 127.0.0.1:9
data_dir: /d
store: postgres://axp@db.example/axp
store_migrate: false
base_url: https://x.example
admin_token: t
anon_tasks_per_minute: 1
registrations_per_hour: 2
operator_messages_per_day: 3
anon_reads_per_minute: 4
board_posts_per_hour: 11
quote_window: 5s
open_window: 6h
payment_window: 7h
auto_release: 8h
contact_warn_at: 2
contact_suspend_at: 9
fee_default_bps: 10
fee_windows: []
max_body_bytes: 8192
trusted_proxies: [10.0.0.1]
log_retention: 240h
log_level: debug
deposit_address: "0x00000000000000000000000000000000000000aa"
sweep_every: 2s
sandbox_wait: 3m
allowed_hosts: [x.example, "localhost:9"]
outbound_private: allow
read_timeout: 20s
write_timeout: 90s
idle_timeout: 45s
max_conns: 5000
max_conns_per_ip: 100
metrics_token: "0123456789abcdef0123"
metrics_listen: 127.0.0.1:9464
chain_rpc_url: http://127.0.0.1:8545
chain_id: 31337
token_address: "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed"
token_decimals: 6
confirmations: 2
chain_poll: 1s
chain_start_block: 12
payout_key_file: /keys/hot.json
escrow_address: "0x00000000000000000000000000000000000000e1"
escrow_collector_address: "0x00000000000000000000000000000000000000c1"
x402_facilitator_url: http://127.0.0.1:9402
x402_max_timeout: 2m
paid_prices:
  paid_trading_risk: "0.05"
paid_trial_per_day: 5
search_url: http://127.0.0.1:8888
market_source_url: http://127.0.0.1:8889/api
market_source: jsonpath
market_coins: [bitcoin]
market_paths:
  bitcoin: data.btc.usd
market_poll: 30s
market_retention: 720h
news_feeds: [http://127.0.0.1:8890/rss]
news_entities: ["Bitcoin=BTC"]
news_poll: 10m
news_retention: 240h
faucet_usd_per_caller_hour: "250"
faucet_usd_per_hour: 2500.5
`)
	cfg := load(t, file, nil, nil)
	want := daemon.Config{FaucetPerCaller: axp.USD(250, 0), FaucetPerHour: axp.USD(2500, 50), Addr: "127.0.0.1:9", DataDir: "/d", Store: "postgres://axp@db.example/axp", StoreNoMigrate: true, BaseURL: "https://x.example", AdminToken: "t",
		AnonTasksPerMinute: 1, RegistrationsPerHour: 2, OperatorMessagesPerDay: 3, AnonReadsPerMinute: 4, BoardPostsPerHour: 11,
		QuoteWindow: 5 * time.Second, OpenWindow: 6 * time.Hour, PaymentWindow: 7 * time.Hour, AutoRelease: 8 * time.Hour,
		ContactWarnAt: 2, ContactSuspendAt: 9, Fees: axp.FeeSchedule{Windows: []axp.FeeWindow{}, DefaultBPS: 10},
		MaxBodyBytes: 8192, TrustedProxies: []string{"10.0.0.1"}, LogRetention: 240 * time.Hour, LogLevel: "debug",
		DepositAddress: "0x00000000000000000000000000000000000000aa", SweepEvery: 2 * time.Second, SandboxWait: 3 * time.Minute,
		AllowedHosts: []string{"x.example", "localhost:9"}, OutboundPrivate: "allow",
		ReadTimeout: 20 * time.Second, WriteTimeout: 90 * time.Second, IdleTimeout: 45 * time.Second, MaxConns: 5000, MaxConnsPerIP: 100,
		MetricsToken: "0123456789abcdef0123", MetricsListen: "127.0.0.1:9464",
		ChainRPCURL: "http://127.0.0.1:8545", ChainID: 31337, TokenAddress: "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed", TokenDecimals: 6,
		Confirmations: 2, ChainPoll: time.Second, ChainStartBlock: 12, PayoutKeyFile: "/keys/hot.json",
		EscrowAddress: "0x00000000000000000000000000000000000000e1", EscrowCollectorAddress: "0x00000000000000000000000000000000000000c1",
		X402FacilitatorURL: "http://127.0.0.1:9402", X402MaxTimeout: 2 * time.Minute, PaidPrices: map[string]axp.Money{"paid_trading_risk": 50_000},
		TrialCallsPerDay: 5, SearchURL: "http://127.0.0.1:8888",
		MarketSourceURL: "http://127.0.0.1:8889/api", MarketSource: "jsonpath", MarketCoins: []string{"bitcoin"},
		MarketPaths: map[string]string{"bitcoin": "data.btc.usd"}, MarketPoll: 30 * time.Second, MarketRetention: 720 * time.Hour,
		NewsFeeds: []string{"http://127.0.0.1:8890/rss"}, NewsEntities: []string{"Bitcoin=BTC"}, NewsPoll: 10 * time.Minute, NewsRetention: 240 * time.Hour}
	if !reflect.DeepEqual(cfg, want) {
		t.Errorf("\n got %+v\nwant %+v", cfg, want)
	}
}

func TestDataDirDefault(t *testing.T) {
	home := t.TempDir()
	tests := []struct {
		name string
		env  env
		want string
	}{
		{"XDG_DATA_HOME", env{"XDG_DATA_HOME": "/xdg", "HOME": home}, "/xdg/axp"},
		{"no XDG_DATA_HOME", env{"XDG_DATA_HOME": "", "HOME": home}, filepath.Join(home, ".local/share/axp")},
		{"relative XDG_DATA_HOME is ignored", env{"XDG_DATA_HOME": "rel", "HOME": home}, filepath.Join(home, ".local/share/axp")},
		{"~ in data_dir", env{"AXP_DATA_DIR": "~/exchange", "HOME": home}, filepath.Join(home, "exchange")},
		{"relative data_dir is made absolute", env{"AXP_DATA_DIR": "rel/dir"}, mustAbs(t, "rel/dir")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := load(t, "", nil, tt.env).DataDir; got != tt.want {
				t.Errorf("got %s, want %s", got, tt.want)
			}
		})
	}
}

func mustAbs(t *testing.T, p string) string {
	a, err := filepath.Abs(p)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

func TestAIAndMediationKeys(t *testing.T) {
	file := writeFile(t, `
mediation_window: 12h
ai_base_url: http://127.0.0.1:9/v1
ai_model: mediator-1
ai_prompt_usd_per_mtok: 0.15
ai_completion_usd_per_mtok: "0.6"
ai_timeout: 30s
`)
	cfg := load(t, file, nil, env{"AXP_AI_API_KEY": "sk-secret"})
	if cfg.MediationWindow != 12*time.Hour || cfg.AIBaseURL != "http://127.0.0.1:9/v1" || cfg.AIModel != "mediator-1" ||
		cfg.AIAPIKey != "sk-secret" || cfg.AITimeout != 30*time.Second {
		t.Errorf("keys: %+v", cfg)
	}
	if cfg.AIPromptPrice != axp.USD(0, 15) || cfg.AICompletionPrice != axp.USD(0, 60) {
		t.Errorf("prices %s %s", cfg.AIPromptPrice, cfg.AICompletionPrice)
	}
	for body, key := range map[string]string{
		"ai_base_url: http://127.0.0.1:9/v1\n": "ai_base_url",
		"ai_base_url: ftp://x\nai_model: m\n":  "ai_base_url",
		"ai_prompt_usd_per_mtok: -1\n":         "ai_prompt_usd_per_mtok",
		"ai_completion_usd_per_mtok: cheap\n":  "ai_completion_usd_per_mtok",
		"faucet_usd_per_hour: 0\n":             "faucet_usd_per_hour",
		"faucet_usd_per_caller_hour: -5\n":     "faucet_usd_per_caller_hour",
	} {
		if msg := loadErr(t, writeFile(t, body), nil, nil); !strings.Contains(msg, key) {
			t.Errorf("%q: error %q does not name %s", body, msg, key)
		}
	}
}

// outbound_private defaults to deny, takes allow from the environment, and is case-insensitive.
func TestOutboundPrivate(t *testing.T) {
	if cfg := load(t, "", nil, nil); cfg.OutboundPrivate != "deny" {
		t.Errorf("default outbound_private = %q, want deny", cfg.OutboundPrivate)
	}
	if cfg := load(t, "", nil, env{"AXP_OUTBOUND_PRIVATE": " Allow "}); cfg.OutboundPrivate != "allow" {
		t.Errorf("AXP_OUTBOUND_PRIVATE=Allow gave %q", cfg.OutboundPrivate)
	}
	if cfg := load(t, writeFile(t, "outbound_private: deny\n"), nil, nil); cfg.OutboundPrivate != "deny" {
		t.Errorf("file deny gave %q", cfg.OutboundPrivate)
	}
}

// The escrow's two addresses go together, on a configured chain with a hot wallet, and never in
// test mode (its chain has its own).
func TestEscrowKeys(t *testing.T) {
	chainEnv := env{"AXP_CHAIN_RPC_URL": "http://127.0.0.1:8545", "AXP_TOKEN_ADDRESS": "0x00000000000000000000000000000000000000aa",
		"AXP_DEPOSIT_ADDRESS": "0x00000000000000000000000000000000000000bb", "AXP_PAYOUT_KEY_FILE": "/k"}
	with := func(kv ...string) env {
		e := env{}
		for k, v := range chainEnv {
			e[k] = v
		}
		for i := 0; i < len(kv); i += 2 {
			e[kv[i]] = kv[i+1]
		}
		return e
	}
	cfg := load(t, "", nil, with("AXP_ESCROW_ADDRESS", " 0x00000000000000000000000000000000000000e1 ", "AXP_ESCROW_COLLECTOR_ADDRESS", "0x00000000000000000000000000000000000000c1"))
	if cfg.EscrowAddress != "0x00000000000000000000000000000000000000e1" || cfg.EscrowCollectorAddress != "0x00000000000000000000000000000000000000c1" {
		t.Fatalf("escrow %q collector %q", cfg.EscrowAddress, cfg.EscrowCollectorAddress)
	}
	for _, c := range []struct {
		e    env
		want string
	}{
		{with("AXP_ESCROW_ADDRESS", "0x00000000000000000000000000000000000000e1"), "escrow_address and escrow_collector_address go together"},
		{with("AXP_ESCROW_ADDRESS", "0xe1", "AXP_ESCROW_COLLECTOR_ADDRESS", "0x00000000000000000000000000000000000000c1"), "escrow_address must be an EVM address"},
		{env{"AXP_ESCROW_ADDRESS": "0x00000000000000000000000000000000000000e1", "AXP_ESCROW_COLLECTOR_ADDRESS": "0x00000000000000000000000000000000000000c1"}, "needs chain_rpc_url and payout_key_file"},
		{env{"AXP_TEST_MODE": "true", "AXP_ESCROW_ADDRESS": "0x00000000000000000000000000000000000000e1"}, "escrow_address names real money"},
	} {
		if msg := loadErr(t, "", nil, c.e); !strings.Contains(msg, c.want) {
			t.Errorf("%v: %q does not say %q", c.e, msg, c.want)
		}
	}
}

// The recorders' keys from the environment (lists and the coin -> path map), and their mistakes
// named with where they came from.
func TestRecorderKeys(t *testing.T) {
	cfg := load(t, "", nil, env{"AXP_MARKET_SOURCE_URL": "http://127.0.0.1:1/prices", "AXP_MARKET_SOURCE": "jsonpath",
		"AXP_MARKET_COINS": "bitcoin, ethereum", "AXP_MARKET_PATHS": "bitcoin=data.0.p,ethereum=data.1.p",
		"AXP_NEWS_FEEDS": "http://127.0.0.1:1/rss", "AXP_NEWS_ENTITIES": "Bitcoin=BTC|XBT,Ethereum"})
	if len(cfg.MarketCoins) != 2 || cfg.MarketPaths["ethereum"] != "data.1.p" || len(cfg.NewsEntities) != 2 || cfg.MarketPoll != time.Minute ||
		cfg.MarketRetention != 60*24*time.Hour {
		t.Fatalf("%+v", cfg)
	}
	for _, c := range []struct {
		e    env
		want string
	}{
		{env{"AXP_MARKET_SOURCE_URL": "http://127.0.0.1:1/p", "AXP_MARKET_SOURCE": "jsonpath", "AXP_MARKET_COINS": "bitcoin"}, "market_paths.bitcoin"},
		{env{"AXP_MARKET_SOURCE": "yahoo"}, "market_source"},
		{env{"AXP_MARKET_SOURCE_URL": "ftp://x"}, "market_source_url"},
		{env{"AXP_NEWS_FEEDS": "http://127.0.0.1:1/rss"}, "news_entities"},
		{env{"AXP_MARKET_POLL": "1s"}, "market_poll"},
	} {
		if msg := loadErr(t, "", nil, c.e); !strings.Contains(msg, c.want) {
			t.Errorf("%v: %s", c.e, msg)
		}
	}
}

// Test mode brings its own chain: it takes one confirmation and a one-second poll unless set, and
// refuses every setting that names real money, PostgreSQL and a listen address off loopback.
func TestTestMode(t *testing.T) {
	cfg := load(t, "", nil, env{"AXP_TEST_MODE": "1", "XDG_DATA_HOME": "/xdg"})
	if !cfg.TestMode || cfg.Confirmations != 2 || cfg.ChainPoll != time.Second || cfg.DataDir != "/xdg/axp-test" {
		t.Errorf("AXP_TEST_MODE=1: test mode %v, %d confirmations, poll %s, data dir %s; want true, 2, 1s, /xdg/axp-test",
			cfg.TestMode, cfg.Confirmations, cfg.ChainPoll, cfg.DataDir)
	}
	cfg = load(t, writeFile(t, "test_mode: true\nconfirmations: 3\ntest_chain_listen: 127.0.0.1:8545\n"), nil, nil)
	if !cfg.TestMode || cfg.Confirmations != 3 || cfg.TestChainListen != "127.0.0.1:8545" {
		t.Errorf("from a file: %+v", cfg)
	}
	for _, tt := range []struct {
		env  env
		want []string
	}{
		{env{"AXP_TEST_MODE": "true", "AXP_CHAIN_RPC_URL": "http://127.0.0.1:8545"}, []string{"chain_rpc_url names real money", "never mix", "AXP_CHAIN_RPC_URL"}},
		{env{"AXP_TEST_MODE": "true", "AXP_PAYOUT_KEY_FILE": "/k"}, []string{"payout_key_file names real money"}},
		{env{"AXP_TEST_MODE": "true", "AXP_DEPOSIT_ADDRESS": "0x00000000000000000000000000000000000000aa"}, []string{"deposit_address names real money"}},
		{env{"AXP_TEST_MODE": "true", "AXP_CHAIN_ID": "8453"}, []string{"chain_id"}},
		{env{"AXP_TEST_MODE": "true", "AXP_STORE": "postgres://axp@db/axp"}, []string{"embedded store"}},
		{env{"AXP_TEST_MODE": "true", "AXP_TEST_CHAIN_LISTEN": "0.0.0.0:8545"}, []string{"test_chain_listen must be a loopback host:port"}},
		{env{"AXP_TEST_CHAIN_LISTEN": "127.0.0.1:8545"}, []string{"test_chain_listen is for test mode"}},
	} {
		msg := loadErr(t, "", nil, tt.env)
		for _, w := range tt.want {
			if !strings.Contains(msg, w) {
				t.Errorf("%v: error %q does not contain %q", tt.env, msg, w)
			}
		}
	}
}
