package cmd_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/axp-exchange/axp"
	"github.com/axp-exchange/axp/store"
)

// axp verify-proof checks a saved proof offline: 0 when it holds, 1 with a clear message when the
// item or the entry was changed.
func TestVerifyProof(t *testing.T) {
	dir := t.TempDir()
	db, err := store.Open(filepath.Join(dir, store.FileName), store.Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	at := time.Date(2026, 10, 12, 9, 30, 0, 0, time.UTC)
	var ids []string
	var p *axp.Proof
	err = db.Update(func(tx *store.Tx) error {
		if _, err := tx.RecordPrices(at, map[string]string{"bitcoin": "64000.5", "ethereum": "2500"}); err != nil {
			return err
		}
		var items []axp.NewsItem
		for _, title := range []string{"BTC rallies", "ETH upgrade", "Quiet day"} {
			id := axp.NewID("nws", at)
			ids = append(ids, id)
			items = append(items, axp.NewsItem{Kind: "news", ID: id, Feed: "https://desk.example/rss", GUID: title, Title: title,
				FirstSeen: at, Entities: []string{}, ContentHash: "ab"})
		}
		if _, _, err := tx.RecordNews(at, items); err != nil {
			return err
		}
		p, err = tx.Proof(ids[1])
		return err
	})
	if err != nil || p == nil {
		t.Fatalf("proof: %v", err)
	}
	good, _ := json.MarshalIndent(p, "", "  ")
	file := filepath.Join(dir, "proof.json")
	os.WriteFile(file, good, 0o600)
	status, out, errOut := run(t, "verify-proof", file)
	if status != 0 || !strings.Contains(out, "proof holds: "+ids[1]+" is item 1 of chain entry 2") {
		t.Fatalf("a good proof: %d %q %q", status, out, errOut)
	}
	// The answer of /paid/trackrecord/verify holds its proof under "proof".
	wrapped, _ := json.Marshal(map[string]any{"signal": map[string]any{}, "proof": p, "verdict": "x"})
	os.WriteFile(file, wrapped, 0o600)
	if status, _, errOut := run(t, "verify-proof", file); status != 0 {
		t.Fatalf("a wrapped proof: %d %s", status, errOut)
	}

	for _, c := range []struct {
		name, from, to, want string
	}{
		{"item", "ETH upgrade", "ETH downgrade", "does not hash to leaf_hash"},
		{"entry", `"count": 3`, `"count": 2`, "the entry hashes to"},
		{"path", `"side": "left"`, `"side": "right"`, "the path leads to"},
	} {
		bad := strings.Replace(string(good), c.from, c.to, 1)
		if bad == string(good) {
			t.Fatalf("%s: nothing to change", c.name)
		}
		os.WriteFile(file, []byte(bad), 0o600)
		status, out, errOut := run(t, "verify-proof", file)
		if status != 1 || out != "" || !strings.Contains(errOut, "does NOT hold") || !strings.Contains(errOut, c.want) {
			t.Errorf("%s changed: %d %q %q", c.name, status, out, errOut)
		}
	}
	os.WriteFile(file, []byte(`{"hello": 1}`), 0o600)
	if status, _, errOut := run(t, "verify-proof", file); status != 1 || !strings.Contains(errOut, "is not a proof") {
		t.Errorf("not a proof: %d %s", status, errOut)
	}
}
