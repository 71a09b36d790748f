package store

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/axp-exchange/axp"
)

func pair(a, b string) []byte { return []byte(a + "\x00" + b) }

// The status and seller-job indexes (schema 14) hold a task id of NewID's form as 0x01 and its 16
// bytes (axp.IDBytes) after the prefix, and a seller id of that form as 0x01 and its 16 bytes
// before the separator: 14 and 42 bytes less a row than the text. Rows of earlier schemas, and ids
// of other forms, are text. Readers take both, and deletes remove both.

// idPrefix is the prefix rows under a status or member id start with.
func idPrefix(prefix string) []byte {
	if p, raw, ok := axp.IDBytes(prefix); ok && p == "mem" {
		return append(append([]byte{1}, raw[:]...), 0)
	}
	return []byte(prefix + "\x00")
}

// idRow is the row of a task id under prefix.
func idRow(prefix, taskID string) []byte {
	if p, raw, ok := axp.IDBytes(taskID); ok && p == "tsk" {
		return append(append(idPrefix(prefix), 1), raw[:]...)
	}
	return append(idPrefix(prefix), taskID...)
}

// deleteIDRow deletes a task id's rows of either form under prefix.
func deleteIDRow(b bucket, prefix, taskID string) error {
	if err := b.Delete(idRow(prefix, taskID)); err != nil {
		return err
	}
	return b.Delete(pair(prefix, taskID))
}

// Task loads a task, or nil.
func (t *Tx) Task(id string) (*axp.TaskRecord, error) {
	return decodeTask(id, t.bucket(bTasks).Get([]byte(id)))
}

// TaskSeen is a task one transaction read, kept with the stored bytes it was decoded from, so that
// a later transaction that finds the same bytes takes the record instead of decoding it again
// (the owner check before a call and the call's own change read the same task).
type TaskSeen struct {
	raw []byte
	t   *axp.TaskRecord
}

// SeeTask loads a task as Task does and keeps it in seen, to be taken by one later TaskSince. The
// caller must not change the record it gets.
func (t *Tx) SeeTask(id string, seen *TaskSeen) (*axp.TaskRecord, error) {
	raw := t.bucket(bTasks).Get([]byte(id))
	r, err := decodeTask(id, raw)
	if r != nil {
		*seen = TaskSeen{raw: append([]byte(nil), raw...), t: r}
	}
	return r, err
}

// TaskSince loads a task as Task does, answering the record seen kept when the task's stored bytes
// are still the ones it was decoded from. seen gives its record once.
func (t *Tx) TaskSince(id string, seen *TaskSeen) (*axp.TaskRecord, error) {
	kept, was := seen.t, seen.raw
	*seen = TaskSeen{}
	raw := t.bucket(bTasks).Get([]byte(id))
	if kept != nil && kept.ID == id && raw != nil && bytes.Equal(raw, was) {
		return kept, nil
	}
	return decodeTask(id, raw)
}

// decodeTask decodes a task's stored bytes; nil when there are none.
func decodeTask(id string, raw []byte) (*axp.TaskRecord, error) {
	if raw == nil {
		return nil, nil
	}
	var r axp.TaskRecord
	if err := decode(raw, &r); err != nil {
		return nil, fmt.Errorf("decode %s/%s: %w", "value", id, err)
	}
	return &r, nil
}

// PutTask stores a task and keeps the status, buyer and seller indexes. prev is the status the
// task had when loaded ("" for a new task).
func (t *Tx) PutTask(r *axp.TaskRecord, prev string) error {
	r.V = 1
	if prev != r.Status {
		if prev != "" {
			if err := deleteIDRow(t.bucket(bTaskStatus), prev, r.ID); err != nil {
				return err
			}
		}
		if err := t.bucket(bTaskStatus).Put(idRow(r.Status, r.ID), nil); err != nil {
			return err
		}
	}
	if prev == "" && r.BuyerMemberID != "" {
		if err := t.bucket(bBuyerTasks).Put(pair(r.BuyerMemberID, r.ID), nil); err != nil {
			return err
		}
	}
	if r.SellerID != "" {
		if err := t.bucket(bSellerJobs).Put(idRow(r.SellerID, r.ID), nil); err != nil {
			return err
		}
		active := t.bucket(bSellerActive)
		var err error
		if axp.ActiveJob(r.Status) {
			err = active.Put(pair(r.SellerID, r.ID), nil)
		} else if axp.ActiveJob(prev) {
			err = active.Delete(pair(r.SellerID, r.ID))
		}
		if err != nil {
			return err
		}
	}
	if err := t.indexDue(r); err != nil {
		return err
	}
	if err := t.indexOpen(r, prev); err != nil {
		return err
	}
	if err := t.indexPayable(r); err != nil {
		return err
	}
	if err := t.indexDone(r, prev); err != nil {
		return err
	}
	if !axp.Terminal(r.Status) {
		return putPlain(t.bucket(bTasks), []byte(r.ID), r) // written again soon (plain.go)
	}
	return putJSON(t.bucket(bTasks), []byte(r.ID), r)
}

// indexDue keeps the task under its sweep deadline (axp.TaskRecord.SweepAt) in task_due.
func (t *Tx) indexDue(r *axp.TaskRecord) error {
	byTask, due := t.bucket(bTaskDueAt), t.bucket(bTaskDue)
	var want []byte
	if at, ok := r.SweepAt(); ok {
		want = u64(uint64(at.UnixNano()))
	}
	old := byTask.Get([]byte(r.ID))
	if bytes.Equal(old, want) && (old == nil) == (want == nil) {
		return nil
	}
	if old != nil {
		if err := due.Delete(append(append([]byte(nil), old...), r.ID...)); err != nil {
			return err
		}
	}
	if want == nil {
		return byTask.Delete([]byte(r.ID))
	}
	if err := due.Put(append(want, r.ID...), nil); err != nil {
		return err
	}
	return byTask.Put([]byte(r.ID), want)
}

// TasksDue lists the tasks whose sweep deadline is at or before now, earliest first.
func (t *Tx) TasksDue(now time.Time) []string {
	limit := u64(uint64(now.UnixNano()))
	var ids []string
	c := t.bucket(bTaskDue).Cursor()
	for k, _ := c.First(); k != nil && len(k) > 8 && bytes.Compare(k[:8], limit) <= 0; k, _ = c.Next() {
		ids = append(ids, string(k[8:]))
	}
	return ids
}

// DropSellerJob removes a task from a seller's jobs (the seller refused it).
func (t *Tx) DropSellerJob(sellerID, taskID string) error {
	if err := t.bucket(bSellerActive).Delete(pair(sellerID, taskID)); err != nil {
		return err
	}
	return deleteIDRow(t.bucket(bSellerJobs), sellerID, taskID)
}

func (t *Tx) idsUnder(bucket []byte, prefix string) []string {
	var ids []string
	short := false
	c := t.bucket(bucket).Cursor()
	prefixes := [][]byte{[]byte(prefix + "\x00")}
	if p := idPrefix(prefix); !bytes.Equal(p, prefixes[0]) {
		prefixes = append(prefixes, p)
	}
	for _, p := range prefixes {
		for k, _ := c.Seek(p); k != nil && bytes.HasPrefix(k, p); k, _ = c.Next() {
			id := k[len(p):]
			if len(id) == 17 && id[0] == 1 {
				ids, short = append(ids, axp.IDFromBytes("tsk", id[1:])), true
			} else {
				ids = append(ids, string(id))
			}
		}
	}
	if short { // rows of both forms sort apart; ids sort in the order they were made
		slices.Sort(ids)
	}
	return ids
}

// TaskIDsByStatus lists the tasks in a status, oldest first.
func (t *Tx) TaskIDsByStatus(status string) []string { return t.idsUnder(bTaskStatus, status) }

// BuyerTaskIDs lists the tasks a buyer member posted, oldest first.
func (t *Tx) BuyerTaskIDs(memberID string) []string { return t.idsUnder(bBuyerTasks, memberID) }

// SellerJobIDs lists the tasks a seller was chosen for, oldest first.
func (t *Tx) SellerJobIDs(sellerID string) []string { return t.idsUnder(bSellerJobs, sellerID) }

// SellerActiveJobIDs lists a seller's active jobs (axp.ActiveJob), oldest first.
func (t *Tx) SellerActiveJobIDs(sellerID string) []string { return t.idsUnder(bSellerActive, sellerID) }

// CountByStatus counts tasks per status.
func (t *Tx) CountByStatus() map[string]int {
	out := map[string]int{}
	c := t.bucket(bTaskStatus).Cursor()
	for k, _ := c.First(); k != nil; k, _ = c.Next() {
		status, _, _ := strings.Cut(string(k), "\x00")
		out[status]++
	}
	return out
}

// --- quotes ---

// Quote loads a seller's live answer on a task, or nil.
func (t *Tx) Quote(taskID, sellerID string) (*axp.QuoteRecord, error) {
	var q axp.QuoteRecord
	ok, err := getJSON(t.bucket(bQuotes), pair(taskID, sellerID), &q)
	if !ok || err != nil {
		return nil, err
	}
	return &q, nil
}

// PutQuote stores a seller's answer, replacing (and unindexing) the previous one.
func (t *Tx) PutQuote(q *axp.QuoteRecord) error {
	q.V = 1
	old, err := t.Quote(q.TaskID, q.SellerID)
	if err != nil {
		return err
	}
	if old != nil && old.OfferID != "" && old.OfferID != q.OfferID {
		if err := t.bucket(bOfferIndex).Delete([]byte(old.OfferID)); err != nil {
			return err
		}
	}
	if q.OfferID != "" {
		if err := t.bucket(bOfferIndex).Put([]byte(q.OfferID), pair(q.TaskID, q.SellerID)); err != nil {
			return err
		}
	}
	return putPlain(t.bucket(bQuotes), pair(q.TaskID, q.SellerID), q)
}

// DeleteQuote removes a seller's answer on a task.
func (t *Tx) DeleteQuote(taskID, sellerID string) error {
	old, err := t.Quote(taskID, sellerID)
	if err != nil || old == nil {
		return err
	}
	if old.OfferID != "" {
		if err := t.bucket(bOfferIndex).Delete([]byte(old.OfferID)); err != nil {
			return err
		}
	}
	return t.bucket(bQuotes).Delete(pair(taskID, sellerID))
}

// Quotes lists every live answer on a task, in seller id order.
func (t *Tx) Quotes(taskID string) ([]axp.QuoteRecord, error) {
	p := []byte(taskID + "\x00")
	var out []axp.QuoteRecord
	c := t.bucket(bQuotes).Cursor()
	for k, raw := c.Seek(p); k != nil && bytes.HasPrefix(k, p); k, raw = c.Next() {
		var q axp.QuoteRecord
		if err := decode(raw, &q); err != nil {
			return nil, err
		}
		out = append(out, q)
	}
	return out, nil
}

// OfferByID finds the answer holding an offer id, or nil.
func (t *Tx) OfferByID(offerID string) (*axp.QuoteRecord, error) {
	ref := t.bucket(bOfferIndex).Get([]byte(offerID))
	if ref == nil {
		return nil, nil
	}
	task, seller, _ := strings.Cut(string(ref), "\x00")
	return t.Quote(task, seller)
}

// --- timeline ---

// AppendEvent adds an event to a task's timeline; the task's sequence counter advances (the caller
// stores the task in the same transaction).
func (t *Tx) AppendEvent(task *axp.TaskRecord, e axp.Event) error {
	return t.appendEvent(task, e, putJSON)
}

// AppendPlainEvent is AppendEvent storing the event as plain JSON (see plain.go): for the events a
// quote round writes by the thousand, one per seller.
func (t *Tx) AppendPlainEvent(task *axp.TaskRecord, e axp.Event) error {
	return t.appendEvent(task, e, putPlain)
}

func (t *Tx) appendEvent(task *axp.TaskRecord, e axp.Event, put func(bucket, []byte, any) error) error {
	task.Events++
	e.Seq = task.Events
	key := make([]byte, 0, len(task.ID)+9)
	key = append(append([]byte(task.ID), 0), u64(e.Seq)...)
	return put(t.bucket(bEvents), key, e)
}

// Events returns a task's timeline in order.
func (t *Tx) Events(taskID string) ([]axp.Event, error) {
	p := append([]byte(taskID), 0)
	out := []axp.Event{}
	c := t.bucket(bEvents).Cursor()
	for k, raw := c.Seek(p); k != nil && bytes.HasPrefix(k, p) && len(k) == len(p)+8; k, raw = c.Next() {
		var e axp.Event
		if err := decode(raw, &e); err != nil {
			return nil, err
		}
		out = append(out, e)
	}
	return out, nil
}

// --- content ---

// PutBlob stores content under its SHA-256 (hex); identical content is stored once.
func (t *Tx) PutBlob(sha string, content []byte) error {
	b := t.bucket(bBlobs)
	if b.Get([]byte(sha)) != nil {
		return nil
	}
	return b.Put([]byte(sha), content)
}

// Blob returns a copy of stored content, or nil.
func (t *Tx) Blob(sha string) []byte {
	v := t.bucket(bBlobs).Get([]byte(sha))
	if v == nil {
		return nil
	}
	return append([]byte(nil), v...)
}

// --- approvals ---

// Approval loads a queue item, or nil.
func (t *Tx) Approval(id string) (*axp.Approval, error) {
	var a axp.Approval
	ok, err := getJSON(t.bucket(bApprovals), []byte(id), &a)
	if !ok || err != nil {
		return nil, err
	}
	return &a, nil
}

// PutApproval stores a queue item and indexes it under its task and its transaction hashes.
func (t *Tx) PutApproval(a *axp.Approval) error {
	a.V = 1
	if err := t.bucket(bTaskApproval).Put(pair(a.TaskID, a.ID), nil); err != nil {
		return err
	}
	if err := t.indexTxUses(a.ID, approvalHashes(a)...); err != nil {
		return err
	}
	for _, ix := range []struct {
		b  []byte
		in bool
	}{{bOpenApproval, a.Open()}, {bSentApproval, a.Status == axp.ApprovalSent}} {
		var err error
		if ix.in {
			err = t.bucket(ix.b).Put([]byte(a.ID), nil)
		} else {
			err = t.bucket(ix.b).Delete([]byte(a.ID))
		}
		if err != nil {
			return err
		}
	}
	if a.Open() || a.Status == axp.ApprovalSent {
		return putPlain(t.bucket(bApprovals), []byte(a.ID), a) // decided soon (plain.go)
	}
	return putJSON(t.bucket(bApprovals), []byte(a.ID), a)
}

// OpenApprovals calls fn for every pending, held or failed queue item, oldest first.
func (t *Tx) OpenApprovals(fn func(*axp.Approval) bool) error {
	return t.indexedApprovals(bOpenApproval, fn)
}

// SentApprovals calls fn for every item whose transfers await confirmation, oldest first.
func (t *Tx) SentApprovals(fn func(*axp.Approval) bool) error {
	return t.indexedApprovals(bSentApproval, fn)
}

func (t *Tx) indexedApprovals(index []byte, fn func(*axp.Approval) bool) error {
	c := t.bucket(index).Cursor()
	for k, _ := c.First(); k != nil; k, _ = c.Next() {
		a, err := t.Approval(string(k))
		if err != nil {
			return err
		}
		if a != nil && !fn(a) {
			return nil
		}
	}
	return nil
}

// Approvals calls fn for every queue item, oldest first.
func (t *Tx) Approvals(fn func(*axp.Approval) bool) error {
	return each(t.bucket(bApprovals), false, func(_ []byte, a *axp.Approval) (bool, error) { return fn(a), nil })
}

// TaskApprovals lists the queue items of a task, oldest first.
func (t *Tx) TaskApprovals(taskID string) ([]axp.Approval, error) {
	var out []axp.Approval
	for _, id := range t.idsUnder(bTaskApproval, taskID) {
		a, err := t.Approval(id)
		if err != nil {
			return nil, err
		}
		if a != nil {
			out = append(out, *a)
		}
	}
	return out, nil
}

// --- ledger ---

// PutLedger appends a ledger entry, indexed by its transaction hash; an unbalanced entry is refused.
func (t *Tx) PutLedger(e *axp.LedgerEntry) error {
	if err := e.Check(); err != nil {
		return err
	}
	e.V = 1
	if err := t.indexTxUses(e.ID, e.TxHash); err != nil {
		return err
	}
	return putJSON(t.bucket(bLedger), []byte(e.ID), e)
}

// LedgerEntry loads one ledger entry, or nil.
func (t *Tx) LedgerEntry(id string) (*axp.LedgerEntry, error) {
	var e axp.LedgerEntry
	ok, err := getJSON(t.bucket(bLedger), []byte(id), &e)
	if !ok || err != nil {
		return nil, err
	}
	return &e, nil
}

// Ledger returns every entry, oldest first.
func (t *Tx) Ledger() ([]axp.LedgerEntry, error) {
	var out []axp.LedgerEntry
	err := each(t.bucket(bLedger), false, func(_ []byte, e *axp.LedgerEntry) (bool, error) {
		out = append(out, *e)
		return true, nil
	})
	return out, err
}

// --- payments ---

// Transaction hashes are indexed (schema 14) by their 32 bytes where they are 0x and 64 hex digits,
// with the task id's 16 bytes (axp.IDBytes) as the value; rows of earlier schemas (the hash's
// text, the id's text), and hashes or ids of other shapes, are text, and read as well.

// txHashKeys are the rows a hash may have: the binary one (nil when the hash has another shape) and
// the textual one.
func txHashKeys(hash string) (bin, text []byte) {
	text = []byte(strings.ToLower(hash))
	if h, ok := strings.CutPrefix(string(text), "0x"); ok && len(h) == 64 {
		if raw, ok := lowerHex(h); ok {
			bin = raw
		}
	}
	return bin, text
}

// TxHashTask is the task a transaction funds (the task its row names), or "".
func (t *Tx) TxHashTask(hash string) string {
	bin, text := txHashKeys(hash)
	b := t.bucket(bTxHashes)
	if bin != nil {
		if v := b.Get(bin); len(v) == 16 {
			return axp.IDFromBytes("tsk", v)
		} else if v != nil {
			return string(v)
		}
	}
	return string(b.Get(text))
}

// ClaimTxHash records that a transaction funds a task. It returns the task already holding it, if
// another one does (one transaction funds one task).
func (t *Tx) ClaimTxHash(hash, taskID string) (string, error) {
	if cur := t.TxHashTask(hash); cur != "" && cur != taskID {
		return cur, nil
	}
	bin, text := txHashKeys(hash)
	prefix, raw, ok := axp.IDBytes(taskID)
	if bin == nil || !ok || prefix != "tsk" {
		return "", t.bucket(bTxHashes).Put(text, []byte(taskID))
	}
	return "", t.bucket(bTxHashes).Put(bin, raw[:])
}

// ClaimEscrowPayment records that the escrow payment hash (its getHash) funds taskID, so that the
// escrow's events, which name the payment by its hash only, find their task. Its rows share the
// transaction hashes' bucket as text under the prefix "escrow-payment:", apart from any hash's row.
func (t *Tx) ClaimEscrowPayment(hash, taskID string) error {
	_, err := t.ClaimTxHash(escrowPaymentKey(hash), taskID)
	return err
}

// EscrowPaymentTask is the task the escrow payment hash funds, or "".
func (t *Tx) EscrowPaymentTask(hash string) string { return t.TxHashTask(escrowPaymentKey(hash)) }

func escrowPaymentKey(hash string) string { return "escrow-payment:" + strings.ToLower(hash) }

// ReleaseTxHash forgets a claim (a rejected payment).
func (t *Tx) ReleaseTxHash(hash string) error {
	bin, text := txHashKeys(hash)
	if bin != nil {
		if err := t.bucket(bTxHashes).Delete(bin); err != nil {
			return err
		}
	}
	return t.bucket(bTxHashes).Delete(text)
}

// ChainCursor is the last block the payment watcher processed (0, false before its first pass).
func (t *Tx) ChainCursor() (uint64, bool) {
	raw := t.bucket(bMeta).Get(kChainCursor)
	if len(raw) != 8 {
		return 0, false
	}
	return binary.BigEndian.Uint64(raw), true
}

// SetChainCursor records the last block the payment watcher processed.
func (t *Tx) SetChainCursor(block uint64) error { return t.bucket(bMeta).Put(kChainCursor, u64(block)) }

// ChainCursorHash is the hash of the cursor's block when it was processed ("" when unknown).
func (t *Tx) ChainCursorHash() string { return string(t.bucket(bMeta).Get(kChainCursorHash)) }

// SetChainCursorHash records the hash of the cursor's block.
func (t *Tx) SetChainCursorHash(hash string) error {
	return t.bucket(bMeta).Put(kChainCursorHash, []byte(hash))
}

// MoneyMode is what money the ledger holds: "test:<genesis hash>" when it was made in test mode
// on the chain of that genesis, "real", or "" in a store made before the mode was recorded.
func (t *Tx) MoneyMode() string { return string(t.bucket(bMeta).Get(kMoneyMode)) }

// SetMoneyMode records what money the ledger holds.
func (t *Tx) SetMoneyMode(mode string) error { return t.bucket(bMeta).Put(kMoneyMode, []byte(mode)) }

// FaucetGift is a gift of test mode's faucet: to whom, how much, when, and the keys of the caller
// who asked (its IP, and its member or token when it gave one) that its budgets count it against.
type FaucetGift struct {
	ID      string    `json:"id"`
	At      time.Time `json:"at"`
	Address string    `json:"address"`
	USD     axp.Money `json:"usd"`
	Callers []string  `json:"callers"`
}

// FaucetGifts lists the faucet's recorded gifts, oldest first.
func (t *Tx) FaucetGifts() ([]FaucetGift, error) {
	var out []FaucetGift
	_, err := getJSON(t.bucket(bMeta), kFaucetGifts, &out)
	return out, err
}

// SetFaucetGifts replaces the faucet's recorded gifts.
func (t *Tx) SetFaucetGifts(gifts []FaucetGift) error {
	return putJSON(t.bucket(bMeta), kFaucetGifts, gifts)
}

// HasTasks reports whether any task was ever posted.
func (t *Tx) HasTasks() bool {
	k, _ := t.bucket(bTasks).Cursor().First()
	return k != nil
}

// RecentCredits lists the transfers the watcher credited lately, with their blocks' hashes.
func (t *Tx) RecentCredits() ([]axp.ChainMark, error) {
	var out []axp.ChainMark
	_, err := getJSON(t.bucket(bMeta), kChainRecent, &out)
	return out, err
}

// SetRecentCredits replaces the list of recent credited transfers.
func (t *Tx) SetRecentCredits(marks []axp.ChainMark) error {
	return putJSON(t.bucket(bMeta), kChainRecent, marks)
}

func inboundKey(txHash string, logIndex uint) []byte {
	return append(append([]byte(strings.ToLower(txHash)), 0), u64(uint64(logIndex))...)
}

// Inbound loads a transfer to the deposit address already seen, or nil.
func (t *Tx) Inbound(txHash string, logIndex uint) (*axp.InboundTransfer, error) {
	var r axp.InboundTransfer
	ok, err := getJSON(t.bucket(bInbound), inboundKey(txHash, logIndex), &r)
	if !ok || err != nil {
		return nil, err
	}
	return &r, nil
}

// InboundOf lists the transfers of one transaction already seen, by log index (a transaction mined
// again after a reorg may carry its transfer under another log index).
func (t *Tx) InboundOf(txHash string) ([]axp.InboundTransfer, error) {
	var out []axp.InboundTransfer
	p := append([]byte(strings.ToLower(txHash)), 0)
	c := t.bucket(bInbound).Cursor()
	for k, v := c.Seek(p); k != nil && bytes.HasPrefix(k, p); k, v = c.Next() {
		var r axp.InboundTransfer
		if err := decode(v, &r); err != nil {
			return nil, fmt.Errorf("decode inbound %s: %w", k, err)
		}
		out = append(out, r)
	}
	return out, nil
}

// PutInbound records a transfer to the deposit address and what it did.
func (t *Tx) PutInbound(r *axp.InboundTransfer) error {
	r.V = 1
	return putJSON(t.bucket(bInbound), inboundKey(r.TxHash, r.LogIndex), r)
}

// EachInbound calls fn for every transfer to the deposit address seen, by transaction hash.
func (t *Tx) EachInbound(fn func(*axp.InboundTransfer) bool) error {
	return each(t.bucket(bInbound), false, func(_ []byte, r *axp.InboundTransfer) (bool, error) { return fn(r), nil })
}

// NextPaymentSeq returns a counter for payable-amount tags.
func (t *Tx) NextPaymentSeq() uint64 {
	b := t.bucket(bMeta)
	var n uint64
	if raw := b.Get(kPaymentSeq); len(raw) == 8 {
		n = binary.BigEndian.Uint64(raw)
	}
	n++
	b.Put(kPaymentSeq, u64(n))
	return n
}

// --- seller stats ---

// SellerStats loads a seller's history (zero when none).
func (t *Tx) SellerStats(id string) (*axp.SellerStats, error) {
	s := &axp.SellerStats{SellerID: id}
	_, err := getJSON(t.bucket(bSellerStats), []byte(id), s)
	return s, err
}

// PutSellerStats stores a seller's history.
func (t *Tx) PutSellerStats(s *axp.SellerStats) error {
	s.V = 1
	return putPlain(t.bucket(bSellerStats), []byte(s.SellerID), s)
}

// --- sandbox jobs ---

// Sandbox loads a sandbox job, or nil.
func (t *Tx) Sandbox(id string) (*axp.SandboxRecord, error) {
	var r axp.SandboxRecord
	ok, err := getJSON(t.bucket(bSandboxes), []byte(id), &r)
	if !ok || err != nil {
		return nil, err
	}
	return &r, nil
}

// PutSandbox stores a sandbox job.
func (t *Tx) PutSandbox(r *axp.SandboxRecord) error {
	r.V = 1
	return putJSON(t.bucket(bSandboxes), []byte(r.SandboxID), r)
}

// EachSandbox calls fn for every sandbox job, newest first.
func (t *Tx) EachSandbox(fn func(*axp.SandboxRecord) bool) error {
	return each(t.bucket(bSandboxes), true, func(_ []byte, r *axp.SandboxRecord) (bool, error) { return fn(r), nil })
}

// TasksNewestFirst calls fn with each task, newest first, starting after the task id before (all
// tasks when before is empty), until fn answers false.
func (t *Tx) TasksNewestFirst(before string, fn func(*axp.TaskRecord) (bool, error)) error {
	c := t.bucket(bTasks).Cursor()
	var k, v []byte
	if before == "" {
		k, v = c.Last()
	} else if k, _ = c.Seek([]byte(before)); k == nil {
		k, v = c.Last()
	} else {
		k, v = c.Prev()
	}
	for ; k != nil; k, v = c.Prev() {
		var r axp.TaskRecord
		if err := decode(v, &r); err != nil {
			return fmt.Errorf("decode task %s: %w", k, err)
		}
		if more, err := fn(&r); err != nil || !more {
			return err
		}
	}
	return nil
}
