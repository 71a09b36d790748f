package store

import (
	"bytes"
	"strings"

	"github.com/axp-exchange/axp"
)

// Transaction hashes by record (schema 16): tx_uses files every transaction hash an approval item
// (its tx_hash, its buyer's part sent alone, its transfers) or a ledger entry carries, under the
// record's id, so that whether a hash already records some movement is one prefix scan, not a read
// of every item and entry ever written. A manual payout's transaction is refused when another
// record holds it: one transfer cannot pay two items. Rows are never removed: a hash once recorded
// stays recorded, and a record changed later only adds its new hashes.

// txUseKey is a record's row in tx_uses: the lower-case hash, a zero byte, the record's id.
func txUseKey(hash, id string) []byte {
	return append(append([]byte(strings.ToLower(hash)), 0), id...)
}

// indexTxUses files the hashes a record carries (empty ones skipped) under its id.
func (t *Tx) indexTxUses(id string, hashes ...string) error {
	b := t.bucket(bTxUses)
	for _, h := range hashes {
		if h == "" {
			continue
		}
		if err := b.Put(txUseKey(h, id), nil); err != nil {
			return err
		}
	}
	return nil
}

// approvalHashes are the transaction hashes an approval item carries (a return item's incoming
// transfer too).
func approvalHashes(a *axp.Approval) []string {
	out := []string{a.TxHash, a.BuyerPartTxHash, a.ReturnOf}
	for _, x := range a.Transfers {
		out = append(out, x.TxHash)
	}
	return out
}

// TxHashUses lists the ids of the approval items and ledger entries that carry a transaction hash
// (any case), in id order: apr_ ids, then led_ ids.
func (t *Tx) TxHashUses(hash string) []string {
	var ids []string
	p := append([]byte(strings.ToLower(hash)), 0)
	c := t.bucket(bTxUses).Cursor()
	for k, _ := c.Seek(p); k != nil && bytes.HasPrefix(k, p); k, _ = c.Next() {
		ids = append(ids, string(k[len(p):]))
	}
	return ids
}

// migrateTxUses (schema 16) creates tx_uses and files the hashes of every approval item and ledger
// entry already written.
func migrateTxUses(tx *Tx) error {
	if err := tx.createBucket(bTxUses); err != nil {
		return err
	}
	if err := each(tx.bucket(bApprovals), false, func(_ []byte, a *axp.Approval) (bool, error) {
		return true, tx.indexTxUses(a.ID, approvalHashes(a)...)
	}); err != nil {
		return err
	}
	return each(tx.bucket(bLedger), false, func(_ []byte, e *axp.LedgerEntry) (bool, error) {
		return true, tx.indexTxUses(e.ID, e.TxHash)
	})
}
