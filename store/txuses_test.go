package store_test

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/axp-exchange/axp"
	"github.com/axp-exchange/axp/store"
)

// Hashes of the records putTxUses writes.
var (
	hashPay    = "0x" + strings.Repeat("a1", 32)
	hashOut    = "0x" + strings.Repeat("b2", 32)
	hashBuyer  = "0x" + strings.Repeat("c3", 32)
	hashFailed = "0x" + strings.Repeat("d4", 32)
)

// putTxUses stores a payment item and its ledger entry, a split whose buyer's part was sent alone
// and whose seller's transfer failed, and a payout approved with a hash in upper case.
func putTxUses(t *testing.T, db *store.DB) {
	t.Helper()
	now := time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)
	update(t, db, func(tx *store.Tx) error {
		for _, a := range []*axp.Approval{
			{ID: "apr_pay", Kind: axp.ApprovePayment, Status: axp.ApprovalApproved, TaskID: "tsk_1", TxHash: hashPay, CreatedAt: now},
			{ID: "apr_split", Kind: axp.ApproveSplit, Status: axp.ApprovalFailed, TaskID: "tsk_2", BuyerPartTxHash: hashBuyer,
				TxHash: hashFailed, Transfers: []axp.OutTransfer{{Part: "seller", TxHash: hashFailed, Status: axp.TransferFailed}}, CreatedAt: now},
			{ID: "apr_none", Kind: axp.ApprovePayout, Status: axp.ApprovalPending, TaskID: "tsk_3", CreatedAt: now},
		} {
			if err := tx.PutApproval(a); err != nil {
				return err
			}
		}
		a, err := tx.Approval("apr_none")
		if err != nil {
			return err
		}
		a.Status, a.TxHash = axp.ApprovalApproved, "0x"+strings.ToUpper(hashOut[2:])
		if err := tx.PutApproval(a); err != nil {
			return err
		}
		return tx.PutLedger(&axp.LedgerEntry{ID: "led_pay", TaskID: "tsk_1", Kind: "payment", TxHash: hashPay, At: now,
			Postings: axp.PaymentEntry("tsk_1", 1_000_000)})
	})
}

func checkTxUses(t *testing.T, db *store.DB) {
	t.Helper()
	view(t, db, func(tx *store.Tx) error {
		for hash, want := range map[string][]string{
			hashPay:                         {"apr_pay", "led_pay"},
			strings.ToUpper(hashPay):        {"apr_pay", "led_pay"},
			hashOut:                         {"apr_none"},
			hashBuyer:                       {"apr_split"},
			hashFailed:                      {"apr_split"},
			"0x" + strings.Repeat("e5", 32): nil,
		} {
			if got := tx.TxHashUses(hash); !slices.Equal(got, want) {
				t.Errorf("uses of %s: %v, want %v", hash[:10], got, want)
			}
		}
		e, err := tx.LedgerEntry("led_pay")
		if err != nil || e == nil || e.TxHash != hashPay {
			t.Errorf("ledger entry led_pay: %+v %v", e, err)
		}
		if e, err := tx.LedgerEntry("led_none"); e != nil || err != nil {
			t.Errorf("ledger entry led_none: %+v %v", e, err)
		}
		return nil
	})
}

// TestTxHashUses: every hash an approval item or a ledger entry carries names it, in any case; a
// hash an item no longer shows (a failed transfer replaced) still names it.
func TestTxHashUses(t *testing.T) { eachBackend(t, testTxHashUses) }

func testTxHashUses(t *testing.T) {
	db := open(t)
	putTxUses(t, db)
	checkTxUses(t, db)
	update(t, db, func(tx *store.Tx) error {
		a, err := tx.Approval("apr_split")
		if err != nil {
			return err
		}
		a.Transfers, a.TxHash = nil, ""
		return tx.PutApproval(a)
	})
	view(t, db, func(tx *store.Tx) error {
		if got := tx.TxHashUses(hashFailed); !slices.Equal(got, []string{"apr_split"}) {
			t.Errorf("uses of the replaced transfer %v", got)
		}
		return nil
	})
}

// TestMigrateToTxUses opens a database as version 15 wrote it (no tx_uses) and checks that
// migration 16 files the hashes of the items and entries already written.
func TestMigrateToTxUses(t *testing.T) {
	path := filepath.Join(t.TempDir(), store.FileName)
	db, err := store.Open(path, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	putTxUses(t, db)
	db.Close()
	downgrade(t, path, 15, "tx_uses")
	db, err = store.Open(path, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if v, err := db.Version(); err != nil || v != store.SchemaVersion {
		t.Fatalf("version after migration %d %v", v, err)
	}
	checkTxUses(t, db)
}
