package chain_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/axp-exchange/axp/daemon/chain"
	"github.com/axp-exchange/axp/daemon/chain/chaintest"
	"github.com/ethereum/go-ethereum/accounts/keystore"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/google/uuid"
)

func dial(t *testing.T, c *chaintest.Chain, cfg chain.Config) *chain.Client {
	t.Helper()
	cl, _, err := chain.Dial(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cl.Close)
	return cl
}

func TestDialChecksTheChain(t *testing.T) {
	c := chaintest.Start(t)
	ctx := context.Background()
	deposit := chaintest.Addr(c.NewKey())
	cl, info, err := chain.Dial(ctx, chain.Config{RPCURL: c.URL, ChainID: chaintest.ID, Token: c.Token, Decimals: 6, Deposit: deposit, Confirmations: 2})
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	if info.ChainID != chaintest.ID || info.Decimals != 6 || info.Symbol != "TUSD" || info.Head == 0 {
		t.Fatalf("info = %+v", info)
	}
	for _, tc := range []struct {
		cfg  chain.Config
		want string
	}{
		{chain.Config{RPCURL: c.URL, ChainID: 1, Token: c.Token}, "chain_id is 1 but the node at chain_rpc_url is on chain 31337"},
		{chain.Config{RPCURL: c.URL, Token: c.Token, Decimals: 18}, "token_decimals is 18 but the token"},
		{chain.Config{RPCURL: c.URL, Token: deposit}, "does not answer decimals()"},
		{chain.Config{RPCURL: c.URL, Token: "0x12"}, "token_address \"0x12\" is not an EVM address"},
		{chain.Config{RPCURL: "http://127.0.0.1:1", Token: c.Token}, "chain_rpc_url http://127.0.0.1:1"},
	} {
		if _, _, err := chain.Dial(ctx, tc.cfg); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Dial(%+v) = %v, want %q", tc.cfg, err, tc.want)
		}
	}
	units := cl.Units(4_500_123)
	if got := cl.PaymentURI(4_500_123); got != "ethereum:"+c.Token+"@31337/transfer?address="+deposit+"&uint256="+units.String() {
		t.Fatalf("PaymentURI = %s", got)
	}
}

func TestTransfersReceiptsAndTheWallet(t *testing.T) {
	c := chaintest.Start(t)
	ctx := context.Background()
	buyer, hot := c.NewKey(), c.NewKey()
	deposit := chaintest.Addr(c.NewKey())
	cl := dial(t, c, chain.Config{RPCURL: c.URL, Token: c.Token, Deposit: deposit, Confirmations: 3})
	c.Mint(c.Token, chaintest.Addr(buyer), 10_000_000)
	other := c.Deploy()
	c.Mint(other, chaintest.Addr(buyer), 10_000_000)

	start := c.Head()
	tx := c.Transfer(buyer, c.Token, deposit, 4_500_123)
	c.Transfer(buyer, other, deposit, 4_500_123) // another token: never counted

	r, err := cl.Receipt(ctx, tx)
	if err != nil || !r.Found || !r.Success || len(r.Transfers) != 1 || r.Confirmations != 2 {
		t.Fatalf("receipt = %+v, %v", r, err)
	}
	tr := r.Transfers[0]
	if tr.Amount != 4_500_123 || tr.To != deposit || tr.From != chaintest.Addr(buyer) || tr.TxHash != tx {
		t.Fatalf("transfer = %+v", tr)
	}
	list, err := cl.TransfersTo(ctx, deposit, start, c.Head())
	if err != nil || len(list) != 1 || list[0].TxHash != tx || list[0].BlockTime.IsZero() {
		t.Fatalf("TransfersTo = %+v, %v", list, err)
	}
	if safe, _ := cl.Safe(ctx); safe != c.Head()-2 {
		t.Fatalf("safe = %d, head %d", safe, c.Head())
	}
	if r, err := cl.Receipt(ctx, "0x"+strings.Repeat("ab", 32)); err != nil || r.Found {
		t.Fatalf("unknown tx: %+v, %v", r, err)
	}
	bad := c.Reverted(buyer, deposit, 999_000_000)
	if r, err := cl.Receipt(ctx, bad); err != nil || !r.Found || r.Success {
		t.Fatalf("reverted tx: %+v, %v", r, err)
	}

	// The hot wallet: nothing to send, then a transfer signed, broadcast twice, mined once.
	w := chain.NewWallet(cl, hot)
	seller := chaintest.Addr(c.NewKey())
	if _, err := w.Sign(ctx, seller, 1_000_000, 0); !errors.Is(err, chain.ErrInsufficient) {
		t.Fatalf("Sign with an empty wallet = %v", err)
	}
	c.Mint(c.Token, w.Address(), 5_000_000)
	release, err := w.Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	s, err := w.Sign(ctx, seller, 1_234_567, 0)
	release()
	if err != nil {
		t.Fatal(err)
	}
	if known, _ := w.Known(ctx, s.Hash); known {
		t.Fatal("a signed transaction is known before it is broadcast")
	}
	for range 2 {
		if err := w.Broadcast(ctx, s.Raw); err != nil {
			t.Fatal(err)
		}
	}
	// The node mines it on its own time: wait for its receipt, then read the balance.
	wctx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	if r, err := cl.WaitMined(wctx, s.Hash, 20*time.Millisecond); err != nil || !r.Success {
		t.Fatalf("the transfer was not mined: %+v %v", r, err)
	}
	if got := c.Balance(c.Token, seller); got != 1_234_567 {
		t.Fatalf("seller balance %d", got)
	}
	// A second transfer signed with the same (now used) nonce is replaced.
	s2 := s
	release, _ = w.Acquire(ctx)
	s3, err := w.Sign(ctx, seller, 1, 0)
	release()
	if err != nil || s3.Nonce != s.Nonce+1 {
		t.Fatalf("next nonce %d after %d: %v", s3.Nonce, s2.Nonce, err)
	}
}

func TestLoadKey(t *testing.T) {
	dir := t.TempDir()
	k, _ := crypto.GenerateKey()
	hexFile := filepath.Join(dir, "key.hex")
	os.WriteFile(hexFile, []byte("0x"+chaintest.KeyHex(k)+"\n"), 0o644)
	if _, err := chain.LoadKey(hexFile, ""); err == nil || !strings.Contains(err.Error(), "chmod 600") {
		t.Fatalf("a world-readable key file: %v", err)
	}
	os.Chmod(hexFile, 0o600)
	got, err := chain.LoadKey(hexFile, "")
	if err != nil || !got.Equal(k) {
		t.Fatalf("hex key: %v", err)
	}
	ks, err := keystore.EncryptKey(&keystore.Key{Id: uuid.New(), Address: crypto.PubkeyToAddress(k.PublicKey), PrivateKey: k}, "pass phrase", keystore.LightScryptN, keystore.LightScryptP)
	if err != nil {
		t.Fatal(err)
	}
	ksFile := filepath.Join(dir, "key.json")
	os.WriteFile(ksFile, ks, 0o600)
	if got, err := chain.LoadKey(ksFile, "pass phrase"); err != nil || !got.Equal(k) {
		t.Fatalf("keystore: %v", err)
	}
	_, err = chain.LoadKey(ksFile, "wrong")
	if err == nil || !strings.Contains(err.Error(), "cannot decrypt") {
		t.Fatalf("wrong passphrase: %v", err)
	}
	garbage := filepath.Join(dir, "garbage")
	os.WriteFile(garbage, []byte("not a key "+chaintest.KeyHex(k)[:10]), 0o600)
	if _, err := chain.LoadKey(garbage, ""); err == nil || strings.Contains(err.Error(), chaintest.KeyHex(k)[:10]) {
		t.Fatalf("garbage: %v", err)
	}
}

func TestIsAddress(t *testing.T) {
	for s, want := range map[string]bool{
		"0x5aaeb6053f3e94c9b9a09f33669435e7ef1beaed": true,
		"0x5AAEB6053F3E94C9B9A09F33669435E7EF1BEAED": true,
		"0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed": true,  // EIP-55
		"0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAeD": false, // one letter's case wrong
		"0x5aaeb6053f3e94c9b9a09f33669435e7ef1beae":  false,
		"5aaeb6053f3e94c9b9a09f33669435e7ef1beaed":   false,
	} {
		if got := chain.IsAddress(s); got != want {
			t.Errorf("IsAddress(%s) = %v", s, got)
		}
	}
}

// TestWalletShared: Acquire takes the shared lock after the process's own, releases both, and
// gives the process's lock back when the shared one cannot be taken.
func TestWalletShared(t *testing.T) {
	key, _ := crypto.GenerateKey()
	w := chain.NewWallet(nil, key)
	var held, taken int
	fail := false
	w.Share(func(context.Context) (func(), error) {
		if fail {
			return nil, errors.New("database gone")
		}
		held++
		taken++
		return func() { held-- }, nil
	})
	ctx := context.Background()
	release, err := w.Acquire(ctx)
	if err != nil || held != 1 {
		t.Fatalf("Acquire: held %d, %v", held, err)
	}
	release()
	fail = true
	if _, err := w.Acquire(ctx); err == nil || !strings.Contains(err.Error(), "database gone") {
		t.Fatalf("a failed shared lock gave %v", err)
	}
	fail = false
	release, err = w.Acquire(ctx) // the process's lock was given back
	if err != nil || held != 1 || taken != 2 {
		t.Fatalf("after a failure: held %d taken %d, %v", held, taken, err)
	}
	release()
	if held != 0 {
		t.Fatalf("held %d after release", held)
	}
}
