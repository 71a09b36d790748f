package daemon_test

import (
	"errors"
	"slices"
	"strings"
	"time"

	"github.com/axp-exchange/axp"
	"github.com/axp-exchange/axp/contract"
	"github.com/axp-exchange/axp/daemon/chain"
	"github.com/axp-exchange/axp/daemon/chain/chaintest"
)

// The money model's adversary: a thief who is the buyer of a task of its own reports other
// parties' transfers on it (pending and mined, with no signature or signed by its own key), while
// honest buyers send amounts that name no task (the price instead of the payable amount, whole
// dollars) and bind them with a signature, or pay by signed authorization. Its invariants:
//
//	credited-to-payer   a transfer the model sent for a task is credited to that task or to none;
//	                    a stray (sent for no task) funds nothing
//	refund-to-sender    every refund part left for an address that paid that task, no more than it
//	                    sent; a transfer that paid no task goes back whole to its sender, once
//	claim-refused       a mined transfer that names another task (or none) reported on the thief's
//	                    task is refused
//	signed-credited     a transfer bound by its sender's signature, and an authorization the
//	                    exchange took, fund their task once confirmed
//	hand-hash-refused   approving a payout, refund or split by hand with a hash that did not send
//	                    its money (a buyer's payment, another item's transfer, one nobody made) is
//	                    refused (400 naming tx_hash) and books nothing

// thief reports a transfer made for another task (or none) on a task of its own.
func (mm *moneyModel) thief() bool {
	t := mm.pick(statusIs(axp.TaskAwaitingPayment))
	if t == nil {
		return false
	}
	var c []*mTransfer
	for _, tr := range mm.sent {
		if tr.task != t && !tr.gone && !strings.HasPrefix(tr.kind, "auth") {
			c = append(c, tr)
		}
	}
	if len(c) == 0 {
		return false
	}
	tr := c[mm.rng.IntN(len(c))]
	in := map[string]any{"id": t.id, "tx_hash": tr.hash}
	signed := mm.chance(0.5)
	if signed {
		sig, err := chain.SignText(mm.wallet(t), axp.PayerMessage(t.id, mm.m.c.ID, mm.m.deposit))
		if err != nil {
			mm.t.Fatal(err)
		}
		in["payer_signature"] = sig
	}
	mined := mm.confirmations(tr) > 0
	_, err := do(mm.buyer(t), "pay_crypto", in)
	owner := "no task"
	if tr.task != nil {
		owner = "task " + tr.task.id
	}
	mm.logf("thief on task %s reports %s (%s, for %s; signed by itself: %v): %v", t.id, short(tr.hash), tr.kind, owner, signed, errText(err))
	// A transfer whose amount is the thief's payable amount (a stray cannot be: whole cents) would
	// name the thief's task; none of the model's transfers for other tasks carries its tag.
	if err == nil && mined && !mm.bookedFor(t.id, tr.hash) {
		mm.violate("claim-refused", t.id, "the thief's task %s took the report of the mined %s transfer %s made for %s", t.id, tr.kind, short(tr.hash), owner)
	}
	var e *axp.Error
	if err != nil && !errors.As(err, &e) {
		mm.violate("claim-refused", t.id, "the report of %s on task %s failed without an API error: %v", short(tr.hash), t.id, err)
	}
	if mm.chance(0.5) {
		mm.confirm()
	}
	return true
}

// rounded sends an amount that names no task for a task awaiting payment (its price, or its
// payable amount rounded to whole cents) and reports it bound by the sender's signature, at once or
// after the thief had its chance: the task is credited once the transfer has its confirmations.
func (mm *moneyModel) rounded() bool {
	x, p := mm.unreported(nil)
	if x == nil || x.buyerTotal == 0 {
		return false
	}
	amount := p.AmountUSD - p.ReceivedUSD // the price's rest: no tag
	if mm.chance(0.5) {
		amount = p.PayableUSD - p.PayableUSD%moneyCent // rounded down to whole cents
	}
	if amount <= 0 || amount%moneyCent == p.PayableUSD%moneyCent {
		return false
	}
	tr := mm.send(mm.wallet(x), amount, x, "rounded")
	if mm.chance(0.5) {
		mm.confirm() // the watcher sees it first: it funds nothing yet
	}
	sig, err := chain.SignText(x.wallet, axp.PayerMessage(x.id, mm.m.c.ID, mm.m.deposit))
	if err != nil {
		mm.t.Fatal(err)
	}
	rerr := mm.do(mm.buyer(x), "pay_crypto", map[string]any{"id": x.id, "tx_hash": tr.hash, "payer_signature": sig}, nil)
	mm.logf("task %s: rounded transfer %s of %s (payable %s, received %s), reported with the sender's signature: %v", x.id, short(tr.hash), amount,
		p.PayableUSD, p.ReceivedUSD, errText(rerr))
	if rerr != nil && mm.bookedFor(x.id, tr.hash) {
		return true // credited before the report: its sender had paid part of the task
	}
	if rerr != nil {
		mm.violate("signed-credited", x.id, "task %s: the signed report of its buyer's transfer %s of %s was refused: %v", x.id, short(tr.hash), amount, rerr)
		return true
	}
	mm.confirm()
	mm.expectCredited(x, tr, p.ReceivedUSD, p.PayableUSD)
	return true
}

// payAuth pays a task awaiting payment by signed authorization; a thief may post the same signed
// authorization on its own task (refused: it names another task's nonce).
func (mm *moneyModel) payAuth() bool {
	x, p := mm.unreported(nil)
	if x == nil || p.Authorization == nil {
		return false
	}
	key := mm.wallet(x)
	mm.fund(key, p.Authorization.ValueUSD)
	before := mm.clock.Now().Add(10 * time.Minute).Unix()
	sig, err := chain.SignTerms(key, p.Authorization, 0, before)
	if err != nil {
		mm.t.Fatal(err)
	}
	in := map[string]any{"id": x.id, "from": chaintest.Addr(key), "valid_before": before, "signature": sig}
	if t := mm.pick(func(o *mTask) bool { return o != x && o.rec.Status == axp.TaskAwaitingPayment }); t != nil && mm.chance(0.3) {
		stolen := map[string]any{"id": t.id, "from": in["from"], "valid_before": before, "signature": sig}
		_, err := do(mm.buyer(t), "pay_authorization", stolen)
		mm.logf("thief on task %s posts task %s's authorization: %v", t.id, x.id, errText(err))
		if err == nil {
			mm.violate("claim-refused", t.id, "task %s took an authorization signed for task %s", t.id, x.id)
		}
	}
	var rep axp.PaymentReport
	if err := mm.do(mm.buyer(x), "pay_authorization", in, &rep); err != nil {
		mm.logf("task %s: pay by authorization refused: %v", x.id, err)
		return true
	}
	if rep.Payment == nil || rep.Payment.TxHash == "" {
		mm.violate("signed-credited", x.id, "task %s: the authorization was taken but no transaction named: %+v", x.id, rep)
		return true
	}
	tr := mm.record(rep.Payment.TxHash, nil, p.Authorization.ValueUSD, x, "auth")
	mm.logf("task %s: paid by authorization %s of %s (payable %s, received %s)", x.id, short(tr.hash), tr.amount, p.PayableUSD, p.ReceivedUSD)
	mm.confirm()
	mm.expectCredited(x, tr, p.ReceivedUSD, p.PayableUSD)
	return true
}

// checkAdversary: transfers are credited only to the task they were made for, and refunds go back
// to the addresses that paid, no more than each sent.
func (mm *moneyModel) checkAdversary(v *moneyView, credited map[string][]string) {
	made := map[string]*mTransfer{}
	for _, tr := range mm.sent {
		made[strings.ToLower(tr.hash)] = tr
	}
	sentBy := map[string]map[string]axp.Money{} // task -> sender -> what canonical credited transfers brought
	for task, hs := range credited {
		for _, h := range hs {
			if tr := made[h]; tr != nil && (tr.task == nil || tr.task.id != task) {
				owner := "no task"
				if tr.task != nil {
					owner = "task " + tr.task.id
				}
				mm.violate("credited-to-payer", task, "task %s was credited with the %s transfer %s made for %s", task, tr.kind, short(h), owner)
			}
			for _, l := range v.deposits[h] {
				if sentBy[task] == nil {
					sentBy[task] = map[string]axp.Money{}
				}
				sentBy[task][strings.ToLower(l.From)] += l.Amount
			}
		}
	}
	hot := strings.ToLower(chaintest.Addr(mm.m.hot))
	sellers := map[string]bool{}
	for _, s := range mm.sellers {
		sellers[strings.ToLower(s.payout)] = true
	}
	got := map[string]map[string]axp.Money{} // task -> address -> refunded on chain
	returned := map[string]axp.Money{}       // incoming transfer -> sent back on chain
	for _, a := range v.items {
		if a.Kind == axp.ApproveReturn {
			in := v.deposits[strings.ToLower(a.ReturnOf)]
			for _, x := range a.Transfers {
				for _, l := range v.hotOut[x.TxHash] {
					if len(in) == 0 || !strings.EqualFold(l.To, in[0].From) {
						mm.violate("refund-to-sender", a.ID, "return %s sent %s to %s; the transfer %s it returns came from %v", a.ID, l.Amount, l.To, short(a.ReturnOf), in)
					}
					returned[strings.ToLower(a.ReturnOf)] += l.Amount
				}
			}
			continue
		}
		for _, x := range a.Transfers {
			if !axp.IsBuyerPart(x.Part) {
				continue
			}
			for _, l := range v.hotOut[x.TxHash] {
				if strings.ToLower(l.From) != hot {
					continue
				}
				if got[a.TaskID] == nil {
					got[a.TaskID] = map[string]axp.Money{}
				}
				got[a.TaskID][strings.ToLower(l.To)] += l.Amount
			}
		}
	}
	for h, amount := range returned {
		if in := sumLogs(v.deposits[h]); amount > in {
			mm.violate("refund-to-sender", h, "the transfer %s of %s was sent back %s", short(h), in, amount)
		}
		for task, hs := range credited {
			if slices.Contains(hs, h) {
				mm.violate("refund-to-sender", h, "the transfer %s was sent back and also credited to task %s", short(h), task)
			}
		}
	}
	for task, per := range got {
		for addr, amount := range per {
			if in := sentBy[task][addr]; amount > in {
				mm.violate("refund-to-sender", task, "task %s refunded %s to %s, which sent it %s", task, amount, addr, in)
			}
		}
	}
}

// handApprove approves an open payout, refund or split by hand with a hash that did not send its
// money: a buyer's payment to the deposit address, a transfer the hot wallet sent for another item,
// or a hash nobody made.
func (mm *moneyModel) handApprove() bool {
	items := mm.openItems(func(a *axp.Approval) bool { return moneyItem(a) && a.Status == axp.ApprovalPending })
	if len(items) == 0 {
		return false
	}
	a := items[mm.rng.IntN(len(items))]
	var hash, what string
	switch mm.rng.IntN(3) {
	case 0:
		if len(mm.sent) == 0 {
			return false
		}
		tr := mm.sent[mm.rng.IntN(len(mm.sent))]
		hash, what = tr.hash, "a "+tr.kind+" payment to the deposit address"
	case 1:
		for _, o := range mm.read().items {
			for _, x := range o.Transfers {
				if o.ID != a.ID && x.Status == axp.TransferConfirmed {
					hash, what = x.TxHash, "the "+x.Part+" transfer of approval "+o.ID
				}
			}
		}
		if hash == "" {
			return false
		}
	default:
		hash, what = newTxHash(), "a hash nobody made"
	}
	before := len(mm.m.ledger())
	_, err := doOp(mm.m.admin, contract.AdminApprove, axp.ApproveBody{ID: a.ID, TxHash: hash})
	mm.logf("approve %s (%s of task %s) by hand with %s (%s): %v", a.ID, a.Kind, a.TaskID, short(hash), what, errText(err))
	var e *axp.Error
	// Money the escrow holds is never recorded by hand: 409 naming the escrow.
	x := mm.byID[a.TaskID]
	inEscrow := x != nil && x.escrowKey != nil && errors.As(err, &e) && e.Code == axp.CodeConflict
	if !inEscrow && (err == nil || !errors.As(err, &e) || e.Code != axp.CodeInvalidInput || e.Field != "tx_hash") {
		mm.violate("hand-hash-refused", a.ID, "approving %s by hand with %s (%s) answered %v, want 400 naming tx_hash", a.ID, short(hash), what, err)
	}
	if after := len(mm.m.ledger()); after != before {
		mm.violate("hand-hash-refused", a.ID, "approving %s by hand with %s (%s) booked %d ledger entries", a.ID, short(hash), what, after-before)
	}
	return true
}

// stalePass approves an item while the node refuses the hot wallet's transactions (no gas), with a
// watcher pass that read the transfer on its way before the refusal was recorded and then waits
// for the wallet; the node takes transactions again before that pass goes on. The refused bytes
// must never reach the chain: the next approval signs the part again, and paid-once (no hot-wallet
// transfer outside the queue's items, each part once) says whether it paid twice.
func (mm *moneyModel) stalePass() bool {
	items := mm.openItems(func(a *axp.Approval) bool {
		return moneyItem(a) && (a.Status != axp.ApprovalHeld || (a.Kind == axp.ApproveSplit && a.HeldFor != axp.HoldReorg))
	})
	if len(items) == 0 {
		return false
	}
	mm.topUp()
	id := items[mm.rng.IntN(len(items))].ID
	hot := chaintest.Addr(mm.m.hot)
	d := mm.m.d
	defer d.SetAfterScan(nil)
	mm.m.c.SetETH(hot, 0)
	pass := holdStalePass(d, 5*time.Second)
	var a axp.Approval
	err := mm.do(mm.m.admin, "admin_approve", map[string]any{"id": id}, &a)
	mm.m.c.SetETH(hot, 100)
	raced := pass.raced()
	if !pass.resume() {
		mm.violate("stale-pass", id, "the watcher pass held at the wallet did not finish")
	}
	mm.logf("approve %s while the node refuses, a pass waiting (raced: %v): %s", id, raced, approveResult{a, err}.describe())
	return true
}
