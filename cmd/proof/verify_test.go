//go:build !shorttier

// This test writes the exchange's store, so it runs the exchange in the test's process and its binary
// links the daemon; make test-short (tag shorttier) leaves it out.

package proof_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/axp-exchange/axp"
	"github.com/axp-exchange/axp/cmd/cmdtest"
	"github.com/axp-exchange/axp/cmd/cmdtest/inproc"
	"github.com/axp-exchange/axp/cmd/proof"
	"github.com/axp-exchange/axp/store"
)

// TestVerifyAgainstChain: a proof from a real exchange's store holds offline and against the
// exchange's chain read over HTTP; a copied head holds too; a head whose link was changed (a chain
// rewritten since it was copied) and a head beyond the chain's end are refused, naming the entry.
func TestVerifyAgainstChain(t *testing.T) {
	x := inproc.NewExchange(t)
	f, s := cmdtest.Factory(t, x.URL, nil)
	t0 := time.Date(2026, 11, 25, 5, 0, 0, 0, time.UTC)
	var p *axp.Proof
	var head axp.ChainEntry
	if err := x.D.DB().Update(func(tx *store.Tx) error {
		for i := range 3 {
			e, err := tx.RecordPrices(t0.Add(time.Duration(i)*time.Minute), map[string]string{"bitcoin": "97000.5", "ethereum": "3100"})
			if err != nil {
				return err
			}
			head = *e
		}
		var err error
		p, err = tx.Proof(store.PriceID("bitcoin", t0.UnixMilli()))
		return err
	}); err != nil || p == nil {
		t.Fatalf("proof %v, %v", p, err)
	}
	dir := t.TempDir()
	save := func(name string, v any) string {
		raw, _ := json.Marshal(v)
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, raw, 0o600); err != nil {
			t.Fatal(err)
		}
		return path
	}
	proofFile := save("proof.json", p)
	headFile := save("head.json", axp.ProofHead{Head: &head, Algorithm: "sha256"})
	run := func(args ...string) (string, error) {
		s.Reset()
		err := cmdtest.Exec(proof.NewCmdVerify(f, nil), args...)
		return s.Out.String(), err
	}

	if out, err := run(proofFile); err != nil || !strings.Contains(out, "proof holds") || strings.Contains(out, "chain holds") {
		t.Fatalf("offline: %q, %v", out, err)
	}
	if out, err := run(proofFile, "--chain", "--head", headFile); err != nil || !strings.Contains(out, "chain holds: 3 entries") {
		t.Fatalf("against the chain: %q, %v", out, err)
	}
	if out, err := run(headFile, "--chain"); err != nil || !strings.Contains(out, "chain holds: 3 entries") {
		t.Fatalf("a copied head: %q, %v", out, err)
	}
	rewritten := head
	rewritten.Link = axp.ZeroLink
	if _, err := run(proofFile, "--chain", "--head", save("old.json", axp.ProofHead{Head: &rewritten})); err == nil ||
		!strings.Contains(err.Error(), "does NOT hold") || !strings.Contains(err.Error(), "entry 3 has link") {
		t.Fatalf("a rewritten head: %v", err)
	}
	beyond := head
	beyond.Seq = 7
	if _, err := run(save("beyond.json", axp.ProofHead{Head: &beyond}), "--chain"); err == nil || !strings.Contains(err.Error(), "entry 7 is pinned") {
		t.Fatalf("a head beyond the chain: %v", err)
	}
	if _, err := run(proofFile, "--head", headFile); err == nil || !strings.Contains(err.Error(), "--head needs --chain") {
		t.Fatalf("--head alone: %v", err)
	}
}
