package money

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/axp-exchange/axp"
	"github.com/axp-exchange/axp/daemon/chain"
	"github.com/axp-exchange/axp/store"
)

// Manual payouts on an exchange with a chain (docs/decisions.md, "Money on chain"): a payout,
// refund or split approved with the hash of a transaction the operator sent (and the buyer's part
// of a split sent alone) is booked only when the chain shows that transaction sending each part
// still due, from an exchange wallet (the hot wallet or the deposit address) to the part's
// recipient, at least its amount, with the exchange's confirmations, and no other record holds
// the hash. Reconcile asks the same of every payout, refund and split in the ledger.

// manualCheck is what a transaction recorded by hand was checked against on chain, before the
// change that books it: that change checks again, in its own transaction, that the item still
// asks for the same transfers and that no record took the hash meanwhile.
type manualCheck struct {
	hash  string
	payer string // where the buyer's part goes when the task records no payer address
	parts []axp.OutTransfer
	from  string // the exchange's wallets, for the hint
}

// checkManual checks on chain the transaction a payout, refund or split is approved with (nil when
// the item sends no money: a payment or a release). The store is read first, in one view; the chain
// after it, outside any transaction.
func (s *Service) checkManual(ctx context.Context, in *axp.ApproveBody) (*manualCheck, error) {
	hash := strings.ToLower(in.TxHash)
	var a *axp.Approval
	var t *axp.TaskRecord
	err := s.base.Store.View(func(tx *store.Tx) error {
		cur, err := tx.Approval(in.ID)
		if err != nil {
			return err
		}
		if cur != nil && buyerPartAlone(cur) {
			a = cur
		} else if a, err = loadApproval(tx, in.ID); err != nil {
			return err
		}
		if !axp.SendsMoney(a.Kind) {
			a = nil
			return nil
		}
		if t, err = taskOf(tx, a); err != nil {
			return err
		}
		return usedElsewhere(tx, hash, a.ID)
	})
	if err != nil || a == nil {
		return nil, err
	}
	payer := a.PayoutAddress // a return goes to the transfer's sender
	if a.Kind != axp.ApproveReturn {
		payer = s.payerOf(ctx, t)
	}
	c := &manualCheck{hash: hash, payer: payer, from: "the deposit address " + s.rail.Chain.Deposit()}
	if s.rail.Wallet != nil {
		c.from = "the hot wallet " + s.rail.Wallet.Address() + " or " + c.from
	}
	if c.parts, err = manualParts(t, a, c.payer); err != nil {
		return nil, err
	}
	r, err := s.rail.Chain.Receipt(ctx, hash)
	if err != nil {
		return nil, axp.Errorf(axp.CodeUnavailable, "cannot read transaction %s from the chain: %v", hash, err).
			WithHint("approve again when the node answers")
	}
	want := s.rail.Chain.Confirmations()
	if !r.Found {
		known, err := s.rail.Chain.Known(ctx, hash)
		switch {
		case err != nil:
			return nil, axp.Errorf(axp.CodeUnavailable, "cannot read transaction %s from the chain: %v", hash, err).
				WithHint("approve again when the node answers")
		case known:
			return nil, axp.Conflict(fmt.Sprintf("transaction %s is not mined yet: nothing is booked before the chain confirms it", hash),
				fmt.Sprintf("approve again once it has %d confirmations", want))
		}
		return nil, axp.Invalid("tx_hash", fmt.Sprintf("chain %d has no transaction %s", s.rail.Chain.ChainID(), hash),
			"check the hash, and that the money was sent on this exchange's chain: "+c.sendWhat())
	}
	if !r.Success {
		return nil, axp.Invalid("tx_hash", fmt.Sprintf("transaction %s reverted on chain (block %d): it sent no money", hash, r.Block),
			c.sendWhat())
	}
	if _, why := shortfall(c.parts, r.Transfers, s.exchangeWallets(), map[transferID]spent{}, ""); why != "" {
		return nil, axp.Invalid("tx_hash", "transaction "+hash+" "+why, c.sendWhat())
	}
	if r.Confirmations < want {
		return nil, axp.Conflict(fmt.Sprintf("transaction %s has %d of the %d confirmations this exchange waits for before it books a transfer", hash, r.Confirmations, want),
			fmt.Sprintf("approve again once it has %d", want))
	}
	return c, nil
}

// sendWhat is the hint of a refused transaction: what to send, from where, to whom.
func (c *manualCheck) sendWhat() string {
	var each []string
	for _, p := range c.parts {
		each = append(each, fmt.Sprintf("%s to %s %s", p.Amount.Display(), partLabel(p.Part), chain.Checksummed(p.To)))
	}
	if len(each) == 0 {
		return "give the transaction that sent this item's money"
	}
	return "send " + strings.Join(each, " and ") + " from " + c.from + " (in one transaction), and approve with its hash once it has its confirmations"
}

// recheck repeats, inside the change that books a, what does not need the chain: the item asks for
// the transfers that were checked, and no record took the hash since. Nil (no chain) checks nothing.
func (c *manualCheck) recheck(tx *store.Tx, t *axp.TaskRecord, a *axp.Approval) error {
	if c == nil {
		return nil
	}
	if err := usedElsewhere(tx, c.hash, a.ID); err != nil {
		return err
	}
	parts, err := manualParts(t, a, cmp.Or(t.PayerAddress, c.payer))
	if err != nil {
		return err
	}
	if !slices.Equal(parts, c.parts) {
		return axp.Conflict("approval "+a.ID+" changed while its transaction was checked on chain", "look at it again and approve")
	}
	return nil
}

// manualParts are the transfers a transaction recorded by hand for a must show: the buyer's part
// alone when it goes before the seller's (the seller has no payout address yet), else each part
// of its booking whose money has not left yet (a part the evm rail confirmed, or the buyer's part
// sent alone, is not asked again).
func manualParts(t *axp.TaskRecord, a *axp.Approval, payer string) ([]axp.OutTransfer, error) {
	if a.Kind == axp.ApproveReturn {
		if a.SentParts()["buyer"] {
			return nil, nil
		}
		return []axp.OutTransfer{{Part: "buyer", To: a.PayoutAddress, Amount: a.Amount}}, nil
	}
	var postings []axp.Posting
	done := a.SentParts()
	if buyerPartAlone(a) {
		postings, _ = splitParts(a.Booking)
		done = map[string]bool{}
	} else {
		_, refund, _ := sendSpec(t, a)
		var err error
		if postings, err = bookingOf(t, a, refund); err != nil {
			return nil, err
		}
	}
	var out []axp.OutTransfer
	for _, p := range postings {
		var part, to string
		switch p.Account {
		case axp.AcctSellerPaid:
			part, to = "seller", a.PayoutAddress
		case axp.AcctBuyerRefund:
			// Each part of the refund to the address that sent the transfer it returns.
			if p.Amount <= 0 || done["buyer"] {
				continue
			}
			for _, x := range refundSplit(t, p.Amount, payer) {
				if x.To == "" {
					return nil, axp.Invalid("tx_hash", "cannot be checked: the address the buyer paid from is unknown, so the refund's recipient is too",
						"reject the item and settle with the buyer outside the exchange")
				}
				out = addPart(out, x.Part, x.To, x.Amount)
			}
			continue
		default:
			continue
		}
		if p.Amount <= 0 || done[part] {
			continue
		}
		switch {
		case to == "" && part == "seller":
			return nil, axp.Conflict("the seller has no payout address", "the item waits for one; the seller sets it with axp member payout-address")
		case to == "":
			return nil, axp.Invalid("tx_hash", "cannot be checked: the address the buyer paid from is unknown, so the refund's recipient is too",
				"reject the item and settle with the buyer outside the exchange")
		}
		out = addPart(out, part, to, p.Amount)
	}
	return out, nil
}

// addPart adds amount to part's transfer in parts, or a transfer for it.
func addPart(parts []axp.OutTransfer, part, to string, amount axp.Money) []axp.OutTransfer {
	if i := slices.IndexFunc(parts, func(x axp.OutTransfer) bool { return x.Part == part }); i >= 0 {
		parts[i].Amount += amount
		return parts
	}
	return append(parts, axp.OutTransfer{Part: part, To: to, Amount: amount})
}

// payerOf is where a task's refund goes: the address its payments came from. A payment the
// operator confirmed by hand records none on the task; the watcher's record of the transfer, or the
// chain's receipt of it, tells.
func (s *Service) payerOf(ctx context.Context, t *axp.TaskRecord) string {
	if t.PayerAddress != "" {
		return t.PayerAddress
	}
	var from string
	var hashes []string
	s.base.Store.View(func(tx *store.Tx) error {
		list, err := tx.TaskApprovals(t.ID)
		for _, a := range list {
			if a.Kind != axp.ApprovePayment || a.Status != axp.ApprovalApproved || a.TxHash == "" {
				continue
			}
			if in, _ := tx.InboundOf(a.TxHash); len(in) > 0 && from == "" {
				from = in[0].From
			}
			hashes = append(hashes, a.TxHash)
		}
		return err
	})
	if from != "" {
		return from
	}
	for _, h := range hashes {
		r, err := s.rail.Chain.Receipt(ctx, h)
		if err != nil || !r.Found || !r.Success {
			continue
		}
		for _, tr := range r.Transfers {
			if strings.EqualFold(tr.To, s.rail.Chain.Deposit()) {
				return tr.From
			}
		}
	}
	return ""
}

// usedElsewhere refuses a transaction another record holds: an approval item or a ledger entry (the
// store's index of transaction hashes), a transfer to the deposit address, a funded task, a
// pay-per-call settlement. One transfer pays one item. A payment report not confirmed (pending, or
// rejected) is only a buyer's claim and holds nothing: a buyer reporting the operator's payout as
// its payment cannot block it.
func usedElsewhere(tx *store.Tx, hash, self string) error {
	refuse := func(what string) error {
		return axp.Invalid("tx_hash", "transaction "+hash+" already records "+what+": one transfer pays one item",
			"send this item's money in a transaction of its own and approve with that hash")
	}
	for _, id := range tx.TxHashUses(hash) {
		if strings.HasPrefix(id, "led_") {
			e, err := tx.LedgerEntry(id)
			if err != nil {
				return err
			}
			if e != nil {
				return refuse(fmt.Sprintf("ledger entry %s (%s of task %s)", e.ID, e.Kind, e.TaskID))
			}
			continue
		}
		a, err := tx.Approval(id)
		if err != nil {
			return err
		}
		switch {
		case a == nil || (a.Kind == axp.ApprovePayment && a.Status != axp.ApprovalApproved):
		case a.ID == self:
			return refuse("an earlier transfer of this item, approval " + a.ID)
		default:
			return refuse(fmt.Sprintf("approval %s (the %s of task %s)", a.ID, a.Kind, a.TaskID))
		}
	}
	in, err := tx.InboundOf(hash)
	if err != nil {
		return err
	}
	if len(in) > 0 {
		if in[0].TaskID != "" {
			return refuse("the payment of task " + in[0].TaskID)
		}
		return refuse("a transfer to the deposit address (" + in[0].Outcome + ")")
	}
	if id := tx.TxHashTask(hash); id != "" {
		return refuse("the payment of task " + id)
	}
	if pc, err := tx.PaidCallByTx(hash); err != nil || pc != nil {
		if err != nil {
			return err
		}
		return refuse("the settlement of a pay-per-call payment (" + pc.Tool + ")")
	}
	return nil
}

// exchangeWallets are the addresses money leaves the exchange from: the deposit address and the
// hot wallet.
func (s *Service) exchangeWallets() []string {
	out := []string{s.rail.Chain.Deposit()}
	if s.rail.Wallet != nil {
		out = append(out, s.rail.Wallet.Address())
	}
	return out
}

// partLabel names a part's recipient.
func partLabel(part string) string {
	if part == "buyer" {
		return "the buyer's address"
	}
	return "the seller's payout address"
}

// transferID names one transfer: its transaction and log index.
type transferID struct {
	hash  string
	index uint
}

// spent is a transfer out of an exchange wallet that a ledger record counted: whose, from where
// and how much.
type spent struct {
	by, from string
	amount   axp.Money
}

// shortfall counts the transfers from an exchange wallet (wallets) to each part's recipient
// towards the part's amount (parts to one address together), each transfer whole and once: one
// that another record counted (in used, with that record's name) is not counted again, and the
// ones counted here are marked used by owner. It answers how much of the parts the transfers do not
// cover and, when something is missing, why.
func shortfall(parts []axp.OutTransfer, transfers []chain.Transfer, wallets []string, used map[transferID]spent, owner string) (axp.Money, string) {
	type want struct {
		to, label string
		amount    axp.Money
	}
	var wants []want
	for _, p := range parts {
		if i := slices.IndexFunc(wants, func(w want) bool { return strings.EqualFold(w.to, p.To) }); i >= 0 {
			wants[i].amount += p.Amount
			continue
		}
		wants = append(wants, want{p.To, partLabel(p.Part), p.Amount})
	}
	fromWallet := func(tr chain.Transfer) bool {
		return slices.ContainsFunc(wallets, func(w string) bool { return strings.EqualFold(w, tr.From) })
	}
	var missing axp.Money
	why := ""
	for _, w := range wants {
		var got axp.Money
		countedBy := ""
		for _, tr := range transfers {
			if got >= w.amount {
				break
			}
			if !fromWallet(tr) || !strings.EqualFold(tr.To, w.to) {
				continue
			}
			id := transferID{strings.ToLower(tr.TxHash), tr.LogIndex}
			if u, ok := used[id]; ok {
				countedBy = u.by
				continue
			}
			got += tr.Amount
			used[id] = spent{by: owner, from: strings.ToLower(tr.From), amount: tr.Amount}
		}
		if got >= w.amount {
			continue
		}
		missing += w.amount - got
		if why != "" {
			continue
		}
		to := chain.Checksummed(w.to)
		switch {
		case len(transfers) == 0:
			why = "moves none of the stablecoin"
		case !slices.ContainsFunc(transfers, fromWallet):
			why = "is not from an exchange wallet: its transfers come from " + addresses(transfers, func(tr chain.Transfer) string { return tr.From })
		case got == 0 && countedBy != "":
			why = "was already counted for " + countedBy
		case got == 0:
			why = fmt.Sprintf("sends nothing to %s %s from an exchange wallet (it sends to %s)", w.label, to,
				addresses(transfers, func(tr chain.Transfer) string {
					if fromWallet(tr) {
						return tr.To
					}
					return ""
				}))
		default:
			why = fmt.Sprintf("sends %s to %s %s: %s short of %s", got.Display(), w.label, to, (w.amount - got).Display(), w.amount.Display())
		}
	}
	return missing, why
}

// addresses lists the distinct addresses of, checksummed.
func addresses(transfers []chain.Transfer, of func(chain.Transfer) string) string {
	var out []string
	for _, tr := range transfers {
		if a := of(tr); a != "" && !slices.Contains(out, chain.Checksummed(a)) {
			out = append(out, chain.Checksummed(a))
		}
	}
	return strings.Join(out, ", ")
}

// paysOut reports whether a ledger entry of kind books money leaving the exchange.
func paysOut(kind string) bool {
	switch kind {
	case axp.ApprovePayout, axp.ApproveRefund, axp.ApproveSplit, "split_refund":
		return true
	}
	return false
}

// outLedger is what reconcile reads for the ledger's payouts, refunds and splits besides the
// entries: their items, the address each task was paid from, and the chain's receipts.
type outLedger struct {
	items    map[string]*axp.Approval   // by id (nil: not found)
	payers   map[string]string          // by task id ("" unknown)
	tasks    map[string]*axp.TaskRecord // by task id (nil: not found)
	receipts map[string]receiptRead     // by tx hash
}

type receiptRead struct {
	r   chain.Receipt
	err error
}

// load reads the items and tasks of the entries that pay out.
func (o *outLedger) load(tx *store.Tx, entries []axp.LedgerEntry) error {
	for i := range entries {
		e := &entries[i]
		if !paysOut(e.Kind) || e.TxHash == "" {
			continue
		}
		if _, ok := o.items[e.ApprovalID]; !ok && e.ApprovalID != "" {
			a, err := tx.Approval(e.ApprovalID)
			if err != nil {
				return err
			}
			o.items[e.ApprovalID] = a
		}
		if _, ok := o.payers[e.TaskID]; !ok {
			t, err := tx.Task(e.TaskID)
			if err != nil {
				return err
			}
			o.payers[e.TaskID] = ""
			o.tasks[e.TaskID] = t
			if t != nil {
				o.payers[e.TaskID] = t.PayerAddress
			}
		}
	}
	return nil
}

// payersFrom gives a task that records no payer address (a payment confirmed by hand) the sender of
// its payment, as the watcher recorded the transfer (senders, by tx hash).
func (o *outLedger) payersFrom(entries []axp.LedgerEntry, senders map[string]string) {
	for _, e := range entries {
		if payer, ok := o.payers[e.TaskID]; ok && payer == "" && e.Kind == "payment" && senders[e.TxHash] != "" {
			o.payers[e.TaskID] = senders[e.TxHash]
		}
	}
}

// payoutGap is how much of a payout, refund or split entry the chain does not show, and why ("" when
// all of it is there): each part it books (the seller's to its item's payout address, the buyer's
// to the address the task was paid from) sent from an exchange wallet by the entry's transaction or
// by a confirmed transfer of its item (the evm rail sends each part in a transaction of its own),
// each transfer counted for one entry only (counted).
func (s *Service) payoutGap(ctx context.Context, e *axp.LedgerEntry, o *outLedger, counted map[transferID]spent) (axp.Money, string) {
	a := o.items[e.ApprovalID]
	var parts []axp.OutTransfer
	for _, p := range e.Postings {
		switch {
		case p.Amount <= 0:
		case p.Account == axp.AcctSellerPaid:
			to := ""
			if a != nil {
				to = a.PayoutAddress
			}
			parts = addPart(parts, "seller", to, p.Amount)
		case p.Account == axp.AcctBuyerRefund && o.tasks[e.TaskID] != nil:
			for _, x := range refundSplit(o.tasks[e.TaskID], p.Amount, o.payers[e.TaskID]) {
				parts = addPart(parts, x.Part, x.To, x.Amount)
			}
		case p.Account == axp.AcctBuyerRefund:
			parts = addPart(parts, "buyer", o.payers[e.TaskID], p.Amount)
		}
	}
	var need axp.Money
	for _, p := range parts {
		need += p.Amount
	}
	for _, p := range parts {
		if p.To == "" {
			return need, "the " + p.Part + "'s part cannot be checked: the ledger does not say where it was due"
		}
	}
	hashes := []string{strings.ToLower(e.TxHash)}
	if a != nil {
		for _, x := range a.Transfers {
			if h := strings.ToLower(x.TxHash); x.Status == axp.TransferConfirmed && !slices.Contains(hashes, h) {
				hashes = append(hashes, h)
			}
		}
	}
	var transfers []chain.Transfer
	for i, h := range hashes {
		rd, ok := o.receipts[h]
		if !ok {
			rd.r, rd.err = s.rail.Chain.Receipt(ctx, h)
			o.receipts[h] = rd
		}
		which := "the transaction"
		if i > 0 {
			which = "transaction " + h + " (a transfer of approval " + a.ID + ")"
		}
		switch {
		case rd.err != nil:
			return need, "cannot read " + which + ": " + rd.err.Error()
		case !rd.r.Found:
			return need, "the chain does not have " + which
		case !rd.r.Success:
			return need, which + " reverted"
		}
		transfers = append(transfers, rd.r.Transfers...)
	}
	missing, why := shortfall(parts, transfers, s.exchangeWallets(), counted, fmt.Sprintf("ledger entry %s (%s of task %s)", e.ID, e.Kind, e.TaskID))
	if why != "" {
		why = "the transaction " + why
	}
	return missing, why
}
