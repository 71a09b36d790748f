package cmd_test

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/axp-exchange/axp/cmd/cmdtest"
	"github.com/axp-exchange/axp/daemon/chain/chaintest"
	"github.com/ethereum/go-ethereum/accounts/keystore"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/google/uuid"
)

// TestServeChainMisconfig starts the real binary against a real local chain with one chain setting
// wrong at a time: each start stops with exit status 1 and one error line naming the setting and
// what was found, never a panic (a misconfigured chain used to crash in the clean-up of the
// half-built exchange, hiding the cause).
func TestServeChainMisconfig(t *testing.T) {
	c := chaintest.Start(t)
	bin := cmdtest.AxpBinary(t)
	hot := c.NewKey()
	dir := t.TempDir()
	file := func(name, content string, mode os.FileMode) string {
		t.Helper()
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), mode); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(p, mode); err != nil { // the umask may have narrowed it
			t.Fatal(err)
		}
		return p
	}
	ks, err := keystore.EncryptKey(&keystore.Key{Id: uuid.New(), Address: crypto.PubkeyToAddress(hot.PublicKey), PrivateKey: hot},
		"right passphrase", keystore.LightScryptN, keystore.LightScryptP)
	if err != nil {
		t.Fatal(err)
	}
	keystoreFile := file("keystore.json", string(ks), 0o600)
	closed, err := freePort() // nothing listens there
	if err != nil {
		t.Fatal(err)
	}
	deadURL := "http://127.0.0.1:" + strconv.Itoa(closed)
	good := map[string]string{"AXP_CHAIN_RPC_URL": c.URL, "AXP_CHAIN_ID": strconv.Itoa(chaintest.ID), "AXP_TOKEN_ADDRESS": c.Token,
		"AXP_DEPOSIT_ADDRESS": chaintest.Addr(c.NewKey())}

	for _, tc := range []struct {
		name string
		env  map[string]string
		// want are the words the error line must hold: the setting and what was found.
		want []string
	}{
		{"wrong chain id", map[string]string{"AXP_CHAIN_ID": "8453"},
			[]string{"chain_id", "8453", "on chain 31337"}},
		{"unreachable node", map[string]string{"AXP_CHAIN_RPC_URL": deadURL},
			[]string{"chain_rpc_url " + deadURL, "connection refused"}},
		{"unreachable facilitator", map[string]string{"AXP_X402_FACILITATOR_URL": deadURL},
			[]string{"x402_facilitator_url", deadURL, "connection refused"}},
		{"missing key file", map[string]string{"AXP_PAYOUT_KEY_FILE": filepath.Join(dir, "none.key")},
			[]string{"payout_key_file", "none.key", "no such file"}},
		{"key file readable by others", map[string]string{"AXP_PAYOUT_KEY_FILE": file("open.key", chaintest.KeyHex(hot), 0o644)},
			[]string{"payout_key_file", "open.key", "mode 644", "chmod 600"}},
		{"key file not hex", map[string]string{"AXP_PAYOUT_KEY_FILE": file("text.key", "my hot wallet key", 0o600)},
			[]string{"payout_key_file", "text.key", "neither a hex private key nor keystore JSON"}},
		{"key of the wrong length", map[string]string{"AXP_PAYOUT_KEY_FILE": file("short.key", chaintest.KeyHex(hot)[:62], 0o600)},
			[]string{"payout_key_file", "short.key", "62 hex digits", "64"}},
		{"keystore with a wrong passphrase", map[string]string{"AXP_PAYOUT_KEY_FILE": keystoreFile, "AXP_PAYOUT_KEY_PASSPHRASE": "wrong"},
			[]string{"payout_key_file", "keystore.json", "cannot decrypt", "AXP_PAYOUT_KEY_PASSPHRASE"}},
		{"keystore that is no JSON", map[string]string{"AXP_PAYOUT_KEY_FILE": file("broken.json", `{"crypto": `, 0o600)},
			[]string{"payout_key_file", "broken.json", "not a keystore"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			env := []string{"HOME=" + t.TempDir(), "PATH=" + os.Getenv("PATH"), "AXP_ADMIN_TOKEN=axp_admin_chain_0123456789"}
			for k, v := range good {
				if _, ok := tc.env[k]; !ok {
					env = append(env, k+"="+v)
				}
			}
			for k, v := range tc.env {
				env = append(env, k+"="+v)
			}
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			srv := exec.CommandContext(ctx, bin, "serve", "--addr", "127.0.0.1:0", "--data-dir", filepath.Join(t.TempDir(), "data"))
			srv.Env = env
			var stdout, stderr syncBuffer
			srv.Stdout, srv.Stderr = &stdout, &stderr
			err := srv.Run()
			var ee *exec.ExitError
			if !errors.As(err, &ee) || ee.ExitCode() != 1 {
				t.Fatalf("axp serve ended with %v, want exit status 1\nstdout:\n%s\nstderr:\n%s", err, stdout.String(), stderr.String())
			}
			all := stdout.String() + stderr.String()
			if strings.Contains(all, "panic") || strings.Contains(all, "goroutine ") {
				t.Fatalf("axp serve crashed:\n%s", all)
			}
			var errs []string
			for _, line := range strings.Split(stderr.String(), "\n") {
				if strings.HasPrefix(line, "error: ") {
					errs = append(errs, line)
				}
			}
			if len(errs) != 1 {
				t.Fatalf("want one error line, got %d:\n%s", len(errs), stderr.String())
			}
			t.Log(errs[0])
			for _, w := range tc.want {
				if !strings.Contains(errs[0], w) {
					t.Errorf("the error line lacks %q: %s", w, errs[0])
				}
			}
			if strings.Contains(all, chaintest.KeyHex(hot)[:16]) {
				t.Errorf("the output holds the key:\n%s", all)
			}
		})
	}
}
