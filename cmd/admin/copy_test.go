package admin_test

import (
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/axp-exchange/axp"
	"github.com/axp-exchange/axp/cmd/admin"
	"github.com/axp-exchange/axp/cmd/cmdtest"
	"github.com/axp-exchange/axp/store"
	"github.com/axp-exchange/axp/store/pgtest"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

// TestCopyAndMigrate: axp admin copy moves a stopped exchange's bbolt file into PostgreSQL and says
// what it verified; axp admin migrate finds the copy at this schema version.
func TestCopyAndMigrate(t *testing.T) {
	path := filepath.Join(t.TempDir(), store.FileName)
	db, err := store.Open(path, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := db.Update(func(tx *store.Tx) error {
		if err := tx.PutMember(&axp.Member{ID: "mem_1", Name: "one"}); err != nil {
			return err
		}
		return tx.PutLedger(&axp.LedgerEntry{ID: "led_1", Kind: "payment", Postings: []axp.Posting{
			{Account: axp.AcctBuyerFunds, Amount: -5}, {Account: "escrow:tsk_1", Amount: 5}}})
	}); err != nil {
		t.Fatal(err)
	}
	db.Close()
	dsn := pgtest.DSN(t)
	f, s := cmdtest.Factory(t, "http://127.0.0.1:1", nil)
	if err := cmdtest.Exec(admin.NewCmd(f), "copy", "--from", "bolt:"+path, "--to", dsn); err != nil {
		t.Fatalf("copy: %v\n%s", err, s.ErrOut)
	}
	if out := s.Out.String(); !strings.Contains(out, "members") || !strings.Contains(out, "ledger") {
		t.Fatalf("copy listed:\n%s", out)
	}
	if !strings.Contains(s.ErrOut.String(), "1 entries summing to") {
		t.Fatalf("copy said: %s", s.ErrOut)
	}
	if err := cmdtest.Exec(admin.NewCmd(f), "copy", "--from", "bolt:"+path, "--to", dsn); err == nil {
		t.Fatal("a second copy into the same database succeeded")
	}
	s.Reset()
	if err := cmdtest.Exec(admin.NewCmd(f), "migrate", "--store", dsn); err != nil {
		t.Fatalf("migrate: %v\n%s", err, s.ErrOut)
	}
	if got := strings.TrimSpace(s.Out.String()); got != strconv.Itoa(store.SchemaVersion) || !strings.Contains(s.ErrOut.String(), "already") {
		t.Fatalf("migrate: %q, %s", got, s.ErrOut)
	}
}
