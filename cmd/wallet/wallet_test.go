package wallet_test

import (
	"context"
	"crypto/ecdsa"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/axp-exchange/axp"
	"github.com/axp-exchange/axp/cmd"
	"github.com/axp-exchange/axp/cmd/cmdtest"
	"github.com/axp-exchange/axp/cmd/cmdtest/inproc"
	"github.com/axp-exchange/axp/cmd/wallet"
	"github.com/axp-exchange/axp/daemon"
	"github.com/axp-exchange/axp/daemon/chain"
	"github.com/axp-exchange/axp/daemon/chain/chaintest"
	"github.com/axp-exchange/axp/daemon/chain/escrow"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/ethclient"
)

// cli runs the real axp command tree in process for one user: one config dir across runs.
type cli struct {
	t   *testing.T
	url string
	env map[string]string
	// tty makes the streams a terminal (prompts are asked).
	tty bool
}

func newCLI(t *testing.T, url string) *cli {
	return &cli{t: t, url: url, env: map[string]string{"XDG_CONFIG_HOME": t.TempDir(), "AXP_EXCHANGE": url}}
}

// run runs axp with args and stdin and returns the exit status, stdout and stderr.
func (c *cli) run(stdin string, args ...string) (int, string, string) {
	c.t.Helper()
	f, s := cmdtest.Factory(c.t, c.url, c.env)
	s.In.WriteString(stdin)
	if c.tty {
		f.IO.StdinTTY, f.IO.StdoutTTY, f.IO.StderrTTY = true, true, true
		f.IO.NoColor = true
	}
	status := cmd.Run(context.Background(), f, args, func() []string { return nil })
	return status, s.Out.String(), s.ErrOut.String()
}

// must runs axp and fails the test unless it exits 0; it returns stdout.
func (c *cli) must(stdin string, args ...string) string {
	c.t.Helper()
	status, out, errOut := c.run(stdin, args...)
	if status != 0 {
		c.t.Fatalf("axp %s: exit %d\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), status, out, errOut)
	}
	return out
}

// refused runs axp, wants exit status want with every one of words on stderr, and returns stderr.
func (c *cli) refused(want int, words []string, args ...string) string {
	c.t.Helper()
	status, out, errOut := c.run("", args...)
	if status != want {
		c.t.Errorf("axp %s: exit %d, want %d\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), status, want, out, errOut)
	}
	for _, w := range words {
		if !strings.Contains(errOut, w) {
			c.t.Errorf("axp %s: stderr lacks %q:\n%s", strings.Join(args, " "), w, errOut)
		}
	}
	if !strings.Contains(errOut, "hint: ") {
		c.t.Errorf("axp %s: no hint:\n%s", strings.Join(args, " "), errOut)
	}
	return errOut
}

var addrLine = regexp.MustCompile(`^0x[0-9a-fA-F]{40}\n$`)

func TestNewAndAddress(t *testing.T) {
	c := newCLI(t, "http://127.0.0.1:1")
	dir := filepath.Join(c.env["XDG_CONFIG_HOME"], "axp")

	// A hex key of mode 0600 in the config dir; the address on stdout, the key nowhere.
	status, out, errOut := c.run("", "wallet", "new")
	if status != 0 || !addrLine.MatchString(out) {
		t.Fatalf("wallet new: exit %d\nstdout %q\nstderr %s", status, out, errOut)
	}
	addr := strings.TrimSpace(out)
	path := filepath.Join(dir, "wallet.key")
	st, err := os.Stat(path)
	if err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("wallet.key: %v, mode %v", err, st.Mode())
	}
	raw, _ := os.ReadFile(path)
	hexKey := strings.TrimSpace(string(raw))
	key, err := crypto.HexToECDSA(hexKey)
	if err != nil || crypto.PubkeyToAddress(key.PublicKey).Hex() != addr {
		t.Fatalf("wallet.key holds %v, not the key of %s", err, addr)
	}
	if strings.Contains(out+errOut, hexKey) {
		t.Fatal("wallet new printed the key")
	}
	if got := c.must("", "wallet", "address"); got != addr+"\n" {
		t.Fatalf("wallet address: %q, want %s", got, addr)
	}

	// Never replaced without --force; with it, a new key.
	c.refused(6, []string{"a wallet already exists at " + path, "--force"}, "wallet", "new")
	if again, _ := os.ReadFile(path); string(again) != string(raw) {
		t.Fatal("the refused wallet new changed the key")
	}
	var made struct {
		Address  string `json:"address"`
		Path     string `json:"path"`
		Keystore bool   `json:"keystore"`
	}
	if err := json.Unmarshal([]byte(c.must("", "wallet", "new", "--force", "--json")), &made); err != nil || made.Address == addr ||
		made.Path != path || made.Keystore {
		t.Fatalf("wallet new --force --json: %+v %v", made, err)
	}

	// A keystore elsewhere: encrypted with the first line of stdin, read with the passphrase from
	// stdin or AXP_WALLET_PASSPHRASE, refused without it or with a wrong one.
	ks := filepath.Join(t.TempDir(), "buyer.json")
	out = c.must("correct horse\nmore input\n", "wallet", "new", "--wallet", ks, "--passphrase-stdin")
	ksAddr := strings.TrimSpace(out)
	st, err = os.Stat(ks)
	if err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("keystore: %v, mode %v", err, st.Mode())
	}
	var doc map[string]any
	if b, _ := os.ReadFile(ks); json.Unmarshal(b, &doc) != nil || doc["crypto"] == nil || !strings.EqualFold("0x"+doc["address"].(string), ksAddr) {
		t.Fatalf("the keystore is not one: %v", doc)
	}
	if got := c.must("correct horse\n", "wallet", "address", "--wallet", ks, "--passphrase-stdin"); got != ksAddr+"\n" {
		t.Fatalf("keystore address via stdin: %q, want %s", got, ksAddr)
	}
	c.env["AXP_WALLET"] = ks
	c.refused(4, []string{"encrypted keystore", "AXP_WALLET_PASSPHRASE"}, "wallet", "address")
	c.env["AXP_WALLET_PASSPHRASE"] = "wrong"
	c.refused(4, []string{"cannot decrypt the keystore " + ks}, "wallet", "address")
	c.env["AXP_WALLET_PASSPHRASE"] = "correct horse"
	if got := c.must("", "wallet", "address"); got != ksAddr+"\n" {
		t.Fatalf("AXP_WALLET keystore address: %q, want %s", got, ksAddr)
	}
	if status, _, errOut := c.run("\n", "wallet", "new", "--wallet", filepath.Join(t.TempDir(), "empty.json"), "--passphrase-stdin"); status != 2 ||
		!strings.Contains(errOut, "the first line of stdin is empty") {
		t.Errorf("an empty passphrase: exit %d\n%s", status, errOut)
	}
	delete(c.env, "AXP_WALLET")
	delete(c.env, "AXP_WALLET_PASSPHRASE")

	// A keystore in the config dir replaces the hex key only with --force, and then is the wallet.
	c.refused(6, []string{"a wallet already exists at " + path}, "wallet", "new", "--passphrase-stdin")
	out = c.must("pass\n", "wallet", "new", "--passphrase-stdin", "--force")
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Errorf("the replaced wallet.key is still there: %v", err)
	}
	if got := c.must("pass\n", "wallet", "address", "--passphrase-stdin"); got != out {
		t.Errorf("wallet.json address %q, want %q", got, out)
	}

	// No wallet, and a hex key others can read.
	other := newCLI(t, c.url)
	other.refused(5, []string{"no wallet at " + filepath.Join(other.env["XDG_CONFIG_HOME"], "axp", "wallet.key"), "axp wallet new"}, "wallet", "address")
	other.must("", "wallet", "new")
	open := filepath.Join(other.env["XDG_CONFIG_HOME"], "axp", "wallet.key")
	if err := os.Chmod(open, 0o644); err != nil {
		t.Fatal(err)
	}
	other.refused(4, []string{"readable by others (mode 644)", "chmod 600"}, "wallet", "address")
}

// A chain market: a real anvil with TestUSD, an exchange on it reading the chain (one confirmation
// funds a task) and a seller of text-file at US$2.50.
type market struct {
	c       *chaintest.Chain
	x       *cmdtest.Exchange
	deposit string
	ec      *ethclient.Client
}

func newMarket(t *testing.T, testMode bool, confirmations uint64, mod ...func(*daemon.Config)) *market {
	t.Helper()
	return newMarketOn(t, chaintest.Start(t), append([]func(*daemon.Config){func(cfg *daemon.Config) {
		cfg.Confirmations, cfg.TestMode = confirmations, testMode
	}}, mod...)...)
}

// newMarketOn is a chain market (one confirmation, no test mode unless mod says) on a chain
// already started.
func newMarketOn(t *testing.T, c *chaintest.Chain, mod ...func(*daemon.Config)) *market {
	t.Helper()
	m := &market{c: c, deposit: chaintest.Addr(c.NewKey())}
	m.x = inproc.NewExchange(t, append([]func(*daemon.Config){func(cfg *daemon.Config) {
		cfg.ChainRPCURL, cfg.ChainID, cfg.TokenAddress, cfg.DepositAddress = c.URL, c.ID, c.Token, m.deposit
		cfg.Confirmations, cfg.ChainPoll = 1, 100*time.Millisecond
	}}, mod...)...).Exchange
	m.x.MustSeller(cmdtest.SellerSpec{Name: "Chain Writer", TaskType: "text-file", Price: "2.50", ETA: 10, Payout: cmdtest.PayoutAddress})
	var err error
	if m.ec, err = ethclient.Dial(c.URL); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(m.ec.Close)
	return m
}

// nonce is addr's next nonce, pending transactions counted.
func (m *market) nonce(t *testing.T, addr string) uint64 {
	t.Helper()
	n, err := m.ec.PendingNonceAt(context.Background(), common.HexToAddress(addr))
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// awaiting posts a task with the CLI (which keeps its buyer token) and chooses the offer.
func (m *market) awaiting(t *testing.T, c *cli) *axp.Task {
	t.Helper()
	id := strings.TrimSpace(c.must("", "task", "create", "--type", "text-file", "--param", "prompt=a haiku"))
	c.must("", "task", "choose", id, "--yes")
	var tk axp.Task
	if err := json.Unmarshal([]byte(c.must("", "task", "view", id, "--json")), &tk); err != nil || tk.Status != axp.TaskAwaitingPayment || tk.Payment == nil {
		t.Fatalf("task %s: %+v %v", id, tk, err)
	}
	return &tk
}

func TestBalance(t *testing.T) {
	m := newMarket(t, false, 1)
	c := newCLI(t, m.x.URL)
	addr := strings.TrimSpace(c.must("", "wallet", "new"))
	m.c.Mint(m.c.Token, addr, 12_500_000)
	m.c.SetETH(addr, 3)

	// Off test mode the exchange publishes no node: --rpc-url is needed.
	c.refused(2, []string{"--rpc-url: no node of chain 31337", "pass --rpc-url"}, "wallet", "balance")
	out := c.must("", "wallet", "balance", "--rpc-url", m.c.URL)
	for _, want := range []string{"address:\t" + addr + "\n", "chain:\t31337\n", "token:\tTUSD " + m.c.Token + "\n", "balance:\t12.5\n", "gas:\t3\n"} {
		if !strings.Contains(out, want) {
			t.Errorf("wallet balance lacks %q:\n%s", want, out)
		}
	}
	var b struct {
		Address       string    `json:"address"`
		ChainID       uint64    `json:"chain_id"`
		TestMode      bool      `json:"test_mode"`
		TokenAddress  string    `json:"token_address"`
		TokenDecimals uint8     `json:"token_decimals"`
		TokenUnits    string    `json:"token_units"`
		BalanceUSD    axp.Money `json:"balance_usd"`
		GasWei        string    `json:"gas_wei"`
	}
	if err := json.Unmarshal([]byte(c.must("", "wallet", "balance", "--rpc-url", m.c.URL, "--json")), &b); err != nil {
		t.Fatal(err)
	}
	if b.Address != addr || b.ChainID != chaintest.ID || b.TestMode || b.TokenAddress != m.c.Token || b.TokenDecimals != 6 ||
		b.TokenUnits != "12500000" || b.BalanceUSD != 12_500_000 || b.GasWei != "3000000000000000000" {
		t.Errorf("wallet balance --json: %+v", b)
	}

	// A node of another chain is refused, naming both chains.
	other := chaintest.StartID(t, 31338)
	c.refused(2, []string{"the node at " + other.URL + " is on chain 31338, but the exchange takes payments on chain 31337"},
		"wallet", "balance", "--rpc-url", other.URL)
}

// The faucet of an exchange not in test mode: its 503 with the message and the hint, exit 1.
func TestFundOffTestMode(t *testing.T) {
	x := cmdtest.NewExchange(t)
	c := newCLI(t, x.URL)
	c.must("", "wallet", "new")
	c.refused(1, []string{"error: this exchange is not in test mode", "hint: ", "--test-mode"}, "wallet", "fund")
	c.refused(1, []string{"error: this exchange is not in test mode"}, "wallet", "fund", "--usd", "25")
	if status, _, errOut := c.run("", "wallet", "fund", "--usd", "lots"); status != 2 || !strings.Contains(errOut, `--usd "lots"`) {
		t.Errorf("--usd lots: exit %d\n%s", status, errOut)
	}
}

// wallet pay: every refusal sends nothing; then a payment funds the task with exactly its payable
// units, once; paying it again is refused.
func TestPay(t *testing.T) {
	m := newMarket(t, false, 1)
	c := newCLI(t, m.x.URL)
	c.env["AXP_RPC_URL"] = m.c.URL
	tk := m.awaiting(t, c)

	// No wallet yet.
	c.refused(5, []string{"no wallet at ", "(nothing was sent)", "axp wallet new"}, "wallet", "pay", tk.ID, "--yes")
	addr := strings.TrimSpace(c.must("", "wallet", "new"))

	// Unknown tasks: none saved here, and one the exchange does not have.
	c.refused(4, []string{"no buyer token for task tsk_nope is saved here, or ", "(nothing was sent)"}, "wallet", "pay", "tsk_nope", "--yes")
	c.refused(5, []string{"tsk_nope", "(nothing was sent)"}, "wallet", "pay", "tsk_nope", "--yes", "--token", "bt_nope")

	// Not enough money, then no gas: the hint says what to send where (test mode's names the
	// faucet: testdata/script/quickstart.txtar).
	c.refused(6, []string{"the wallet " + addr + " holds US$0.00 of TUSD; task " + tk.ID + " needs " + tk.Payment.PayableUSD.Display(),
		"(nothing was sent)", "send TUSD and ETH for gas on chain 31337 to " + addr}, "wallet", "pay", tk.ID, "--yes")
	m.c.Mint(m.c.Token, addr, 10_000_000)
	c.refused(6, []string{"holds no ETH", "ETH for gas on chain 31337"}, "wallet", "pay", tk.ID, "--yes")
	m.c.SetETH(addr, 1)

	// A node on another chain.
	other := chaintest.StartID(t, 31338)
	c.refused(2, []string{"is on chain 31338, but the exchange takes payments on chain 31337", "(nothing was sent)"},
		"wallet", "pay", tk.ID, "--yes", "--rpc-url", other.URL)

	// No terminal and no --yes; on a terminal, "no".
	c.refused(2, []string{"needs a confirmation", "--yes"}, "wallet", "pay", tk.ID)
	c.tty = true
	status, _, errOut := c.run("n\n", "wallet", "pay", tk.ID)
	c.tty = false
	if status != 0 || !strings.Contains(errOut, "cancelled: nothing done") || !strings.Contains(errOut, "send "+tk.Payment.PayableUnits+" units of TUSD") ||
		!strings.Contains(errOut, "to the deposit address "+m.deposit) || !strings.Contains(errOut, "chain 31337") {
		t.Errorf("answering no: exit %d\n%s", status, errOut)
	}
	if n := m.nonce(t, addr); n != 0 {
		t.Fatalf("the refusals sent %d transactions", n)
	}
	if got := m.c.Balance(m.c.Token, addr); got != 10_000_000 {
		t.Fatalf("the refusals moved money: the wallet holds %s", got)
	}

	// The payment: sent, reported, followed until the task is funded.
	status, out, errOut := c.run("", "wallet", "pay", tk.ID, "--yes")
	if status != 0 {
		t.Fatalf("wallet pay: exit %d\nstdout:\n%s\nstderr:\n%s", status, out, errOut)
	}
	for _, want := range []string{"✓ Sent " + tk.Payment.PayableUSD.Display() + " of TUSD to " + m.deposit, "✓ Task " + tk.ID + " is funded", "confirmations"} {
		if !strings.Contains(errOut, want) {
			t.Errorf("wallet pay: stderr lacks %q:\n%s", want, errOut)
		}
	}
	if !strings.Contains(out, "task:\t"+tk.ID+"\n") || !strings.Contains(out, "transaction:\t0x") {
		t.Errorf("wallet pay: stdout:\n%s", out)
	}
	var after axp.Task
	if err := json.Unmarshal([]byte(c.must("", "task", "view", tk.ID, "--json")), &after); err != nil || after.Status == axp.TaskAwaitingPayment ||
		after.Payment == nil || after.Payment.Status != "confirmed" || after.Payment.ReceivedUSD != tk.Payment.PayableUSD {
		t.Fatalf("after wallet pay: %+v %v", after, err)
	}
	var sent []chaintest.Log
	for _, l := range m.c.Transfers(m.c.Token) {
		if l.From == addr {
			sent = append(sent, l)
		}
	}
	// TestUSD has 6 decimals: its units are micro-USD.
	if len(sent) != 1 || sent[0].To != m.deposit || strconv.FormatInt(int64(sent[0].Amount), 10) != tk.Payment.PayableUnits {
		t.Fatalf("the wallet's transfers: %+v (payable units %s)", sent, tk.Payment.PayableUnits)
	}
	if got := m.c.Balance(m.c.Token, addr); got != 10_000_000-tk.Payment.PayableUSD {
		t.Fatalf("the wallet holds %s after paying %s", got, tk.Payment.PayableUSD)
	}

	// Paying it again: refused, nothing sent.
	nonce := m.nonce(t, addr)
	c.refused(6, []string{"task " + tk.ID + " is already paid", "(nothing was sent)", "do not pay it again"}, "wallet", "pay", tk.ID, "--yes")
	if n := m.nonce(t, addr); n != nonce {
		t.Fatalf("paying twice sent a transaction (nonce %d -> %d)", nonce, n)
	}
	if got := m.c.Balance(m.c.Token, addr); got != 10_000_000-tk.Payment.PayableUSD {
		t.Fatalf("paying twice moved money: the wallet holds %s", got)
	}
}

// wallet pay waits for the confirmations the exchange needs, showing them; past --timeout it says
// what it last saw and that the money left (exit 1), and a later block funds the task all the same.
func TestPayWaits(t *testing.T) {
	m := newMarket(t, false, 2)
	c := newCLI(t, m.x.URL)
	c.env["AXP_RPC_URL"] = m.c.URL
	addr := strings.TrimSpace(c.must("", "wallet", "new"))
	m.c.Mint(m.c.Token, addr, 10_000_000)
	m.c.SetETH(addr, 1)

	// Nothing mines a second block: the wait ends at --timeout.
	tk := m.awaiting(t, c)
	status, _, errOut := c.run("", "wallet", "pay", tk.ID, "--yes", "--timeout", "1500ms")
	if status != 1 {
		t.Fatalf("wallet pay past its timeout: exit %d\n%s", status, errOut)
	}
	for _, want := range []string{"mined in block", "1/2 confirmations · task awaiting_payment, payment reported\n",
		"error: the exchange has not reported task " + tk.ID + " funded after 1.5s; last seen: tx 0x", "hint: the transfer was sent: do not pay again"} {
		if !strings.Contains(errOut, want) {
			t.Errorf("wallet pay past its timeout: stderr lacks %q:\n%s", want, errOut)
		}
	}
	m.c.Mine(1)
	waitStatus(t, c, tk.ID)

	// The next block arrives while it waits: it follows the task until it is funded.
	tk = m.awaiting(t, c)
	nonce := m.nonce(t, addr)
	done := make(chan string)
	go func() {
		status, out, errOut := c.run("", "wallet", "pay", tk.ID, "--yes", "--json")
		done <- strconv.Itoa(status) + "\n" + out + "\n" + errOut
	}()
	deadline := time.Now().Add(30 * time.Second)
	for m.nonce(t, addr) == nonce {
		if time.Now().After(deadline) {
			t.Fatal("wallet pay sent nothing")
		}
		time.Sleep(20 * time.Millisecond)
	}
	m.c.Mine(1)
	got := <-done
	if !strings.HasPrefix(got, "0\n") || !strings.Contains(got, `"id":"`+tk.ID+`"`) || !strings.Contains(got, "2/2 confirmations") {
		t.Fatalf("wallet pay --json: %s", got)
	}
}

// waitStatus polls the task until its payment is confirmed.
func waitStatus(t *testing.T, c *cli, id string) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		var tk axp.Task
		if json.Unmarshal([]byte(c.must("", "task", "view", id, "--json")), &tk) == nil && tk.Payment != nil && tk.Payment.Status == "confirmed" {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("task %s is not funded: %+v", id, tk)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// After a part payment the task asks for the rest with a new payable amount (the price less its
// new tag and what came in): wallet pay sends exactly that, once, and the task is funded.
func TestPayTheRestAfterAPartPayment(t *testing.T) {
	m := newMarket(t, false, 1)
	c := newCLI(t, m.x.URL)
	c.env["AXP_RPC_URL"] = m.c.URL
	tk := m.awaiting(t, c)
	addr := strings.TrimSpace(c.must("", "wallet", "new"))
	m.c.Mint(m.c.Token, addr, 10_000_000)
	m.c.SetETH(addr, 1)

	// A dollar less than asked, carrying the task's tag: a part payment.
	other := m.c.NewKey()
	m.c.Mint(m.c.Token, chaintest.Addr(other), 10_000_000)
	part := tk.Payment.PayableUSD - 1_000_000
	hash := m.c.Transfer(other, m.c.Token, m.deposit, part)
	m.c.Mine(1)
	// Another amount than payable_usd names no task by itself: its sender's signature binds it.
	sig, err := chain.SignText(other, tk.Payment.PayerMessage)
	if err != nil {
		t.Fatal(err)
	}
	c.must("", "task", "pay", tk.ID, "--tx", hash, "--payer-signature", sig, "--yes")
	var partial axp.Task
	deadline := time.Now().Add(30 * time.Second)
	for {
		if err := json.Unmarshal([]byte(c.must("", "task", "view", tk.ID, "--json")), &partial); err != nil {
			t.Fatal(err)
		}
		if partial.Payment != nil && partial.Payment.Status == "partial" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the part payment was not credited: %+v", partial.Payment)
		}
		time.Sleep(50 * time.Millisecond)
	}
	rest := partial.Payment.PayableUSD
	if partial.Payment.ReceivedUSD != part || rest <= 0 || rest >= 1_000_000 {
		t.Fatalf("after the part payment: %+v", partial.Payment)
	}

	status, out, errOut := c.run("", "wallet", "pay", tk.ID, "--yes")
	if status != 0 {
		t.Fatalf("wallet pay of the rest: exit %d\nstdout:\n%s\nstderr:\n%s", status, out, errOut)
	}
	var sent []chaintest.Log
	for _, l := range m.c.Transfers(m.c.Token) {
		if l.From == addr {
			sent = append(sent, l)
		}
	}
	if len(sent) != 1 || sent[0].Amount != rest {
		t.Fatalf("the wallet's transfers: %+v; want one of the rest, %s", sent, rest)
	}
	var after axp.Task
	if err := json.Unmarshal([]byte(c.must("", "task", "view", tk.ID, "--json")), &after); err != nil || after.Payment == nil || after.Payment.Status != "confirmed" {
		t.Fatalf("after paying the rest: %+v %v", after.Payment, err)
	}
}

// An exchange with a hot wallet takes a signed authorization: wallet pay signs one for exactly the
// price, the exchange submits it and pays the gas (the wallet needs no ETH and sends no
// transaction), and the task is funded with the offer's buyer total. --transfer sends a plain
// transfer instead.
func TestPayByAuthorization(t *testing.T) {
	c0 := chaintest.Start(t)
	hot := c0.NewKey()
	keyFile := hotKeyFile(t, hot)
	c0.SetETH(chaintest.Addr(hot), 1)
	m := newMarketOn(t, c0, func(cfg *daemon.Config) { cfg.PayoutKeyFile = keyFile })
	c := newCLI(t, m.x.URL)
	c.env["AXP_RPC_URL"] = m.c.URL
	tk := m.awaiting(t, c)
	if tk.Payment.Authorization == nil {
		t.Fatalf("the task offers no authorization: %+v", tk.Payment)
	}
	addr := strings.TrimSpace(c.must("", "wallet", "new"))
	m.c.Mint(m.c.Token, addr, 10_000_000)

	status, out, errOut := c.run("", "wallet", "pay", tk.ID, "--yes")
	if status != 0 {
		t.Fatalf("wallet pay: exit %d\nstdout:\n%s\nstderr:\n%s", status, out, errOut)
	}
	for _, want := range []string{"✓ Authorized " + tk.Payment.AmountUSD.Display() + " of TUSD to " + m.deposit, "✓ Task " + tk.ID + " is funded"} {
		if !strings.Contains(errOut, want) {
			t.Errorf("wallet pay: stderr lacks %q:\n%s", want, errOut)
		}
	}
	if n := m.nonce(t, addr); n != 0 {
		t.Fatalf("the wallet sent %d transactions; the exchange submits the authorization", n)
	}
	if got := m.c.Balance(m.c.Token, addr); got != 10_000_000-tk.Payment.AmountUSD {
		t.Fatalf("the wallet holds %s after paying %s", got, tk.Payment.AmountUSD)
	}
	var after axp.Task
	if err := json.Unmarshal([]byte(c.must("", "task", "view", tk.ID, "--json")), &after); err != nil || after.Payment == nil ||
		after.Payment.Status != "confirmed" || after.Payment.ReceivedUSD != tk.Payment.AmountUSD {
		t.Fatalf("after wallet pay: %+v %v", after.Payment, err)
	}

	// --transfer: a plain transfer, which needs gas.
	tk = m.awaiting(t, c)
	c.refused(6, []string{"holds no ETH"}, "wallet", "pay", tk.ID, "--yes", "--transfer")
	m.c.SetETH(addr, 1)
	if status, _, errOut := c.run("", "wallet", "pay", tk.ID, "--yes", "--transfer"); status != 0 || !strings.Contains(errOut, "✓ Sent "+tk.Payment.PayableUSD.Display()) {
		t.Fatalf("wallet pay --transfer: exit %d\n%s", status, errOut)
	}
}

// hotKeyFile writes key to a file, as an operator's hot wallet key is kept, and answers its path.
func hotKeyFile(t *testing.T, key *ecdsa.PrivateKey) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "hot.key")
	if err := os.WriteFile(path, []byte(chaintest.KeyHex(key)), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// newEscrowMarket starts a market on anvil whose exchange runs the escrow rail: an escrow and its
// collector deployed, the hot wallet (hot) its operator; ec reads the chain until the test ends.
func newEscrowMarket(t *testing.T) (*market, escrow.Contracts, *ethclient.Client, *ecdsa.PrivateKey) {
	t.Helper()
	c0 := chaintest.Start(t)
	hot := c0.NewKey()
	keyFile := hotKeyFile(t, hot)
	ec, err := ethclient.Dial(c0.URL)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(ec.Close)
	k, err := escrow.Deploy(context.Background(), ec, c0.NewKey())
	if err != nil {
		t.Fatal(err)
	}
	m := newMarketOn(t, c0, func(cfg *daemon.Config) {
		cfg.PayoutKeyFile, cfg.EscrowAddress, cfg.EscrowCollectorAddress = keyFile, k.Escrow.Hex(), k.Collector.Hex()
	})
	return m, k, ec, hot
}

// wallet pay --escrow: the wallet signs the task's escrow authorization (checked against its
// terms), the exchange calls the escrow's authorize; the wallet sends no transaction, loses the
// price, and the escrow holds it. Without an escrow the flag is refused with nothing sent; with
// --transfer it is a usage error.
func TestPayIntoEscrow(t *testing.T) {
	m, k, ec, hot := newEscrowMarket(t)
	c := newCLI(t, m.x.URL)
	c.env["AXP_RPC_URL"] = m.c.URL
	tk := m.awaiting(t, c)
	if tk.Payment.Escrow == nil {
		t.Fatalf("the task offers no escrow: %+v", tk.Payment)
	}
	if view := c.must("", "task", "view", tk.ID); !strings.Contains(view, "into_escrow:\t"+tk.Payment.AmountUSD.String()+" to "+k.Escrow.Hex()) {
		t.Fatalf("task view does not offer the escrow:\n%s", view)
	}
	addr := strings.TrimSpace(c.must("", "wallet", "new"))
	m.c.Mint(m.c.Token, addr, 10_000_000)
	if status, _, errOut := c.run("", "wallet", "pay", tk.ID, "--yes", "--escrow", "--transfer"); status == 0 || !strings.Contains(errOut, "give one") {
		t.Fatalf("--escrow --transfer: exit %d\n%s", status, errOut)
	}

	status, out, errOut := c.run("", "wallet", "pay", tk.ID, "--yes", "--escrow")
	if status != 0 {
		t.Fatalf("wallet pay --escrow: exit %d\nstdout:\n%s\nstderr:\n%s", status, out, errOut)
	}
	for _, want := range []string{"✓ Authorized " + tk.Payment.AmountUSD.Display() + " of TUSD into the escrow " + k.Escrow.Hex(), "✓ Task " + tk.ID + " is funded"} {
		if !strings.Contains(errOut, want) {
			t.Errorf("wallet pay --escrow: stderr lacks %q:\n%s", want, errOut)
		}
	}
	if n := m.nonce(t, addr); n != 0 {
		t.Fatalf("the wallet sent %d transactions; the exchange calls the escrow", n)
	}
	if got := m.c.Balance(m.c.Token, addr); got != 10_000_000-tk.Payment.AmountUSD {
		t.Fatalf("the wallet holds %s after paying %s", got, tk.Payment.AmountUSD)
	}
	store, err := escrow.TokenStore(context.Background(), ec, k.Escrow, common.HexToAddress(chaintest.Addr(hot)))
	if err != nil {
		t.Fatal(err)
	}
	if held := m.c.Balance(m.c.Token, store.Hex()); held != tk.Payment.AmountUSD {
		t.Fatalf("the escrow holds %s", held)
	}

	// An exchange without an escrow: refused, nothing sent.
	m2 := newMarketOn(t, m.c, func(cfg *daemon.Config) { cfg.PayoutKeyFile = hotKeyFile(t, hot) })
	c2 := newCLI(t, m2.x.URL)
	c2.env["AXP_RPC_URL"] = m2.c.URL
	tk = m2.awaiting(t, c2)
	addr = strings.TrimSpace(c2.must("", "wallet", "new"))
	m.c.Mint(m.c.Token, addr, 10_000_000)
	c2.refused(6, []string{"cannot be paid into escrow", "nothing was sent"}, "wallet", "pay", tk.ID, "--yes", "--escrow")
}

// The Payer the terminal UI pays with is `axp wallet pay` without the question and the wait: the
// preview checks and describes and sends nothing; Pay sends exactly the payable units once and
// reports them, so the exchange funds the task; paying again is refused with nothing sent.
func TestPayer(t *testing.T) {
	m := newMarket(t, false, 1)
	c := newCLI(t, m.x.URL)
	c.env["AXP_RPC_URL"] = m.c.URL
	tk := m.awaiting(t, c)
	addr := strings.TrimSpace(c.must("", "wallet", "new"))
	f, _ := cmdtest.Factory(t, m.x.URL, c.env)
	payer := &wallet.Payer{F: f}
	ctx := context.Background()

	if _, err := payer.Preview(ctx, tk.ID); err == nil || !strings.Contains(err.Error(), "holds US$0.00 of TUSD") || !strings.Contains(err.Error(), "(nothing was sent)") {
		t.Errorf("preview of an empty wallet: %v", err)
	}
	m.c.Mint(m.c.Token, addr, 10_000_000)
	m.c.SetETH(addr, 1)
	lines, err := payer.Preview(ctx, tk.ID)
	if err != nil {
		t.Fatal(err)
	}
	text := strings.Join(lines, "\n")
	for _, want := range []string{"send " + tk.Payment.PayableUSD.Display() + " of TUSD to ", "send " + tk.Payment.PayableUnits + " units of TUSD",
		"to the deposit address " + m.deposit, "from your wallet " + addr} {
		if !strings.Contains(text, want) {
			t.Errorf("the preview lacks %q:\n%s", want, text)
		}
	}
	if n := m.nonce(t, addr); n != 0 {
		t.Fatalf("the preview sent %d transactions", n)
	}

	hash, err := payer.Pay(ctx, tk.ID)
	if err != nil || !strings.HasPrefix(hash, "0x") {
		t.Fatalf("pay: %q %v", hash, err)
	}
	m.c.Mine(1)
	deadline := time.Now().Add(30 * time.Second)
	for {
		var after axp.Task
		if err := json.Unmarshal([]byte(c.must("", "task", "view", tk.ID, "--json")), &after); err == nil && after.Payment != nil && after.Payment.Status == "confirmed" {
			if after.Payment.TxHash != hash || after.Payment.ReceivedUSD != tk.Payment.PayableUSD {
				t.Errorf("funded by %s with %s; paid %s with %s", after.Payment.TxHash, after.Payment.ReceivedUSD.Display(), hash, tk.Payment.PayableUSD.Display())
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the task is not funded after the payer paid: %+v", after.Payment)
		}
		time.Sleep(100 * time.Millisecond)
	}
	if got := m.c.Balance(m.c.Token, addr); got != 10_000_000-tk.Payment.PayableUSD {
		t.Errorf("the wallet holds %s after paying %s", got, tk.Payment.PayableUSD)
	}
	if _, err := payer.Pay(ctx, tk.ID); err == nil || !strings.Contains(err.Error(), "(nothing was sent)") {
		t.Errorf("paying again: %v", err)
	}
	if n := m.nonce(t, addr); n != 1 {
		t.Errorf("the wallet sent %d transactions, want 1", n)
	}
}
