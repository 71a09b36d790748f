package money

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/axp-exchange/axp"
	"github.com/axp-exchange/axp/daemon/chain"
	"github.com/axp-exchange/axp/daemon/kernel"
	"github.com/axp-exchange/axp/daemon/money/escrowbook"
	"github.com/axp-exchange/axp/daemon/pipeline"
	"github.com/axp-exchange/axp/store"
)

// SetupChain connects to the configured chain and checks it; it says what it found in the log.
// Every error names the setting at fault. Once dialled, the chain is the daemon's: Close closes it,
// also after an error here.
func (s *Service) SetupChain() error {
	cfg := *s.base.Cfg()
	if cfg.DepositAddress == "" {
		s.base.Log.Warn("no deposit_address: buyers cannot pay for crypto tasks (choosing a paid offer answers 503); free jobs still run",
			"source", "payments")
	}
	if cfg.ChainRPCURL == "" {
		if cfg.PayoutKeyFile != "" {
			return errors.New("payout_key_file needs chain_rpc_url: the hot wallet sends on the configured chain")
		}
		return nil
	}
	if cfg.TokenAddress == "" {
		return errors.New("chain_rpc_url is set but token_address is not: name the stablecoin's contract")
	}
	if cfg.DepositAddress == "" {
		return errors.New("chain_rpc_url is set but deposit_address is not: name the address buyers pay to")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	c, info, err := chain.Dial(ctx, chain.Config{RPCURL: cfg.ChainRPCURL, ChainID: cfg.ChainID, Token: cfg.TokenAddress,
		Decimals: cfg.TokenDecimals, Deposit: cfg.DepositAddress, Confirmations: cfg.Confirmations})
	if err != nil {
		return err
	}
	s.rail.Chain, s.rail.ChainInfo = c, axp.ChainInfo{ChainID: info.ChainID, TokenAddress: c.Token(), TokenSymbol: info.Symbol,
		TokenDecimals: info.Decimals, DepositAddress: c.Deposit(), Confirmations: c.Confirmations()}
	if d, err := c.Domain(ctx); err == nil {
		s.rail.ChainInfo.TokenName, s.rail.ChainInfo.TokenVersion = d.Name, d.Version
	} else {
		s.base.Log.Info("the stablecoin has no EIP-3009 support: buyers pay by plain transfer only", "source", "payments", "reason", err.Error())
	}
	s.rail.Verifier = evmVerifier{}
	s.base.Log.Info("chain ready: payments are verified and found on chain", "source", "payments", "chain_id", info.ChainID,
		"token", c.Token(), "symbol", info.Symbol, "decimals", info.Decimals, "deposit_address", c.Deposit(),
		"confirmations", c.Confirmations(), "head", info.Head)
	// The watcher's starting point is fixed now, by whichever daemon starts, not at its first pass:
	// on PostgreSQL a daemon watches only once it leads, and transfers made in between count.
	safe, err := c.Safe(ctx)
	if err != nil {
		return fmt.Errorf("chain_rpc_url %s: read the block the payment watcher starts at: %w", cfg.ChainRPCURL, err)
	}
	if _, err := s.startCursor(safe); err != nil {
		return fmt.Errorf("set the payment watcher's first block: %w", err)
	}
	if cfg.PayoutKeyFile == "" {
		s.base.Log.Info("no payout_key_file: the operator sends payouts and records their tx hash (manual rail)", "source", "payments")
		return nil
	}
	key, err := chain.LoadKey(cfg.PayoutKeyFile, cfg.PayoutKeyPassphrase)
	if err != nil {
		return err
	}
	w := chain.NewWallet(c, key)
	if strings.EqualFold(w.Address(), c.Deposit()) {
		// Buyers' money stays at the deposit address, the hot wallet holds the float: a key kept in
		// memory must not hold every payment, and the float the operator sends to the hot wallet
		// must not be read as payments.
		return fmt.Errorf("deposit_address %s is the hot wallet's address (payout_key_file %s): name a deposit address of its own, which the hot wallet's key does not control",
			c.Deposit(), cfg.PayoutKeyFile)
	}
	s.rail.Wallet = w
	// Daemons sharing a PostgreSQL store share the hot wallet too: its lock there keeps two of
	// them from signing with the same nonce (payouts and x402 settlements alike).
	s.rail.Wallet.Share(func(ctx context.Context) (func(), error) { return s.base.Store.Lock(ctx, "hot-wallet") })
	bal, err := c.BalanceOf(ctx, s.rail.Wallet.Address())
	if err != nil {
		return fmt.Errorf("chain_rpc_url %s: read the hot wallet's (%s) balance of token_address %s: %w", cfg.ChainRPCURL, s.rail.Wallet.Address(), c.Token(), err)
	}
	s.base.Log.Info("hot wallet ready: approved payouts are sent by the exchange (evm rail)", "source", "payments",
		"address", s.rail.Wallet.Address(), "balance_usd", c.Money(bal).String())
	return s.escrowSetup(ctx)
}

// evmVerifier names the evm verifier; the work is done by checkReport, checkReported and the watcher.
type evmVerifier struct{}

func (evmVerifier) Name() string { return "evm" }

func (evmVerifier) Verify(context.Context, *axp.TaskRecord, string) (kernel.Verdict, error) {
	return kernel.Verdict{Reason: "verified on chain by the watcher"}, nil
}

// CheckReport looks at a reported transaction before it is recorded: a transaction the chain
// shows as reverted, as moving none of the stablecoin to the deposit address, or as mined before
// the task existed is refused, naming the reason. A transaction the node does not know yet (not
// mined) is accepted and checked again later. It returns the receipt (Found false when unknown).
//
// A mined transfer must name the task: its amount is exactly the task's payable amount, or its
// sender is bound to the task (signer, the address that signed the task's payer message, or an
// earlier part payment); otherwise the report is refused, naming payer_signature.
func (s *Service) CheckReport(ctx context.Context, t *axp.TaskRecord, txHash, signer string) (chain.Receipt, error) {
	r, err := s.rail.Chain.Receipt(ctx, txHash)
	if err != nil {
		s.base.Log.WarnContext(ctx, "cannot read a reported transaction; it is checked again later", "source", "payments",
			"task", t.ID, "tx_hash", txHash, "err", err)
		return chain.Receipt{}, nil
	}
	if !r.Found {
		return r, nil
	}
	if !r.Success {
		return r, axp.Invalid("tx_hash", "transaction "+txHash+" reverted on chain: it moved no money", "send the payment again and report the new transaction")
	}
	var toDeposit []chain.Transfer
	var elsewhere string
	for _, tr := range r.Transfers {
		if strings.EqualFold(tr.To, s.rail.Chain.Deposit()) {
			toDeposit = append(toDeposit, tr)
		} else if elsewhere == "" {
			elsewhere = tr.To
		}
	}
	switch {
	case len(toDeposit) == 0 && elsewhere != "":
		return r, axp.Invalid("tx_hash", fmt.Sprintf("transaction %s sends the stablecoin to %s, not to the deposit address %s", txHash, elsewhere, s.rail.Chain.Deposit()),
			"send payable_usd to the deposit address and report that transaction")
	case len(toDeposit) == 0:
		return r, axp.Invalid("tx_hash", fmt.Sprintf("transaction %s moves none of the stablecoin %s (%s on chain %d)", txHash, s.rail.ChainInfo.TokenSymbol, s.rail.Chain.Token(), s.rail.Chain.ChainID()),
			"pay with the stablecoin named in the task's payment section and report that transaction")
	case (minedAt{r.Block, r.BlockTime}).before(t):
		return r, axp.Invalid("tx_hash", fmt.Sprintf("transaction %s was mined in block %d at %s, before the task was posted (%s, chain head %d)", txHash,
			r.Block, r.BlockTime.Format(time.RFC3339), t.CreatedAt.UTC().Format(time.RFC3339), t.PostedBlock), "one transaction pays one task: send a new payment for this task")
	}
	// A transfer whose amount is another task's payable amount (or carries its tag) is not this
	// task's to claim without its sender's signature: reporting it here would take another
	// buyer's payment.
	var amount axp.Money
	for _, tr := range toDeposit {
		amount += tr.Amount
	}
	from, at := toDeposit[0].From, minedAt{r.Block, r.BlockTime}
	var others bool
	var back *axp.Approval
	var mine *axp.TaskRecord
	err = s.base.Store.View(func(tx *store.Tx) error {
		var err error
		if back, err = returnOf(tx, txHash); err != nil {
			return err
		}
		if mine, err = s.matchPayable(tx, amount, at, txHash); err != nil {
			return err
		}
		others, err = carriedByOthers(tx, t, amount, from, at, txHash)
		return err
	})
	if err == nil && goingBack(back) {
		return r, axp.Invalid("tx_hash", fmt.Sprintf("transaction %s paid no task, and the operator is sending it back to %s (%s)", txHash, back.PayoutAddress, back.Status),
			fmt.Sprintf("send this task's payable_usd (%s), or pay by authorization", t.Payable.Display()))
	}
	if err != nil {
		return r, err
	}
	if others && signer == "" {
		return r, axp.Invalid("tx_hash", fmt.Sprintf("transaction %s sends %s, the payable amount of another task awaiting payment: it pays that task, not this one",
			txHash, amount.Display()), fmt.Sprintf("send this task's payable_usd (%s) and report that transaction", t.Payable.Display()))
	}
	if signer != "" && !chain.SameAddress(signer, from) {
		return r, axp.Invalid("payer_signature", fmt.Sprintf("is signed by %s, but transaction %s comes from %s", signer, txHash, from),
			"sign payment.payer_message with the address the transfer came from")
	}
	if signer == "" && !boundTo(t, from) && (mine == nil || mine.ID != t.ID) {
		return r, axp.Invalid("payer_signature", fmt.Sprintf("is needed: transaction %s sends %s, not this task's payable amount (%s), so the amount does not say which task it pays",
			txHash, amount.Display(), t.Payable.Display()),
			fmt.Sprintf("sign payment.payer_message with %s (the address it came from) and report it again with payer_signature; without it the operator returns the money to that address", from))
	}
	return r, nil
}

// CheckReported credits a reported transaction once the chain shows it with enough confirmations.
func (s *Service) CheckReported(ctx context.Context, taskID, txHash string) {
	r, err := s.rail.Chain.Receipt(ctx, txHash)
	if err != nil || !r.Found || !r.Success || r.Confirmations < s.rail.Chain.Confirmations() {
		return
	}
	if group := depositTransfers(r, s.rail.Chain.Deposit()); len(group) > 0 {
		s.onInbound(ctx, group, "")
	}
}

// onInbound records one chain transaction's transfers to the deposit address and credits the task
// they pay: the task that claimed the hash (a reported payment), else the one task whose payable
// amount they match. Idempotent.
//
// authTask, when set, is the task whose authorization the transaction is known to carry (its
// AuthorizationUsed log names the task's nonce): the transfer pays that task.
func (s *Service) onInbound(ctx context.Context, group []chain.Transfer, authTask string) {
	_, err := s.base.Mutate(ctx, "verifier:evm", func(ch *kernel.Change) (any, error) {
		recs := make([]axp.InboundTransfer, len(group))
		var amount axp.Money
		for i, tr := range group {
			recs[i] = axp.InboundTransfer{TxHash: tr.TxHash, LogIndex: tr.LogIndex, Block: tr.Block, BlockHash: tr.BlockHash,
				BlockTime: tr.BlockTime, From: tr.From, Amount: tr.Amount, SeenAt: ch.Now}
			amount += tr.Amount
		}
		claimed := ch.Tx.TxHashTask(recs[0].TxHash)
		// Seen before under any log index (a transaction mined again after a reorg may carry its
		// transfer under another one).
		all, err := ch.Tx.InboundOf(recs[0].TxHash)
		if err != nil {
			return nil, err
		}
		var seen *axp.InboundTransfer
		if len(all) > 0 {
			seen = &all[0]
		}
		if seen != nil && seen.Outcome == axp.InboundReorged {
			return nil, s.restorePayment(ch, all, recs)
		}
		// A pay-per-call settlement is booked by the paywall, not matched to a task.
		if pc, err := ch.Tx.PaidCallByTx(recs[0].TxHash); err != nil || pc != nil {
			if err != nil || seen != nil {
				return nil, err
			}
			for i := range recs {
				recs[i].Outcome, recs[i].Note = axp.InboundPaidCall, "settled a pay-per-call payment ("+pc.Tool+")"
				if err := ch.Tx.PutInbound(&recs[i]); err != nil {
					return nil, err
				}
			}
			// Re-checked for reorgs like a task's payment.
			return nil, markCredits(ch, recs)
		}
		if seen != nil && seen.Outcome != axp.InboundUnmatched {
			return nil, nil
		}
		// The fee of a capture the hot wallet sent pays no task: it is booked with the capture.
		if id := escrowCallOf(ch.Tx, recs[0].TxHash); id != "" {
			for i := range recs {
				recs[i].Outcome, recs[i].Note = axp.InboundEscrowFee, "the escrow's fee of the capture of approval "+id
				if err := ch.Tx.PutInbound(&recs[i]); err != nil {
					return nil, err
				}
			}
			return nil, nil
		}
		reporters, err := reportersOf(ch.Tx, recs[0].TxHash, claimed)
		if err != nil {
			return nil, err
		}
		// Seen before: done, unless it matched nothing then and a buyer has since reported it, or
		// it turned out to carry a task's authorization.
		if seen != nil && len(reporters) == 0 && authTask == "" {
			return nil, nil
		}
		// The transfer pays the task it names by construction: the one task whose payable amount
		// it is exactly; else the one task its sender is bound to (the sender signed the
		// task's payer message, or paid part of it); else a reporter its sender signed for. A
		// report alone never credits a transfer: whoever reports a hash first gains nothing.
		from := recs[0].From
		t, err := authorized(ch.Tx, recs[0].TxHash, claimed, authTask)
		if err != nil {
			return nil, err
		}
		if t == nil {
			if t, err = s.matchPayable(ch.Tx, amount, minedAt{recs[0].Block, recs[0].BlockTime}, recs[0].TxHash); err != nil {
				return nil, err
			}
		}
		if t == nil {
			bound, err := payerTasks(ch.Tx, from)
			if err != nil {
				return nil, err
			}
			if len(bound) == 1 {
				t = bound[0]
			}
		}
		for _, r := range reporters {
			if t == nil && boundTo(r, from) {
				t = r
			}
		}
		// A transfer the operator is sending back (or sent back) to its sender pays no task.
		back := false
		if t != nil {
			if back, err = returning(ch, recs[0].TxHash, t.ID); err != nil {
				return nil, err
			}
			if back {
				t = nil
			}
		}
		for _, r := range reporters {
			if t != nil && r.ID == t.ID {
				continue
			}
			var why string
			if t != nil {
				why = "transaction " + recs[0].TxHash + " pays another task (" + t.ID + "), whose payable amount or payer it carries; report this task's own payment"
			} else {
				why = fmt.Sprintf("transaction %s sends %s from %s: that is not this task's payable amount (%s), and its sender did not sign this task's payer_message; "+
					"report it again with payer_signature (signed by %s), or the operator returns it to its sender", recs[0].TxHash, amount.Display(), from, r.Payable.Display(), from)
			}
			if err := refuseReport(ch, r, recs[0].TxHash, why); err != nil {
				return nil, err
			}
		}
		outcome, note := axp.InboundUnmatched, "its amount names no task awaiting payment and no sender's signature binds it to one"
		if back {
			note = "it is being sent back to its sender"
		}
		if t != nil {
			if outcome, note, err = s.creditTransfer(ch, t, recs, amount); err != nil {
				return nil, err
			}
		}
		for i := range recs {
			recs[i].Outcome, recs[i].Note = outcome, note
			if t != nil {
				recs[i].TaskID = t.ID
			}
			if err := ch.Tx.PutInbound(&recs[i]); err != nil {
				return nil, err
			}
		}
		if outcome == axp.InboundFunded || outcome == axp.InboundPartial {
			return nil, markCredits(ch, recs)
		}
		// Money that pays no task waits in the operator's queue to go back to its sender.
		if queued, err := returnOf(ch.Tx, recs[0].TxHash); err != nil {
			return nil, err
		} else if queued == nil && ch.Tx.TxHashTask(recs[0].TxHash) == "" {
			taskID := ""
			if t != nil {
				taskID = t.ID
			}
			if err := queueReturn(ch, recs, amount, taskID, note); err != nil {
				return nil, err
			}
		}
		return nil, ch.Audit("payment.unmatched", "transaction", recs[0].TxHash, map[string]any{"amount_usd": amount,
			"from": recs[0].From, "outcome": outcome, "note": note})
	})
	if err != nil {
		s.base.Log.ErrorContext(ctx, "crediting a transfer failed; it is tried again on the next pass", "source", "payments",
			"tx_hash", group[0].TxHash, "err", err)
	}
}

// authorized is the task a transaction pays by the buyer's signed authorization: authTask, whose
// nonce its log carries, or the task that claimed it when the exchange submitted it.
func authorized(tx *store.Tx, txHash, claimed, authTask string) (*axp.TaskRecord, error) {
	id := cmp.Or(authTask, claimed)
	if id == "" {
		return nil, nil
	}
	t, err := tx.Task(id)
	if err != nil || t == nil || t.Authorization == nil || t.Authorization.Status != axp.AuthSubmitted {
		return nil, err
	}
	if authTask == "" && !strings.EqualFold(t.Authorization.TxHash, txHash) {
		return nil, nil
	}
	return t, nil
}

// reportersOf lists the tasks awaiting payment that reported txHash, oldest report first (claimed
// is the task an earlier version recorded as claiming it at report time).
func reportersOf(tx *store.Tx, txHash, claimed string) ([]*axp.TaskRecord, error) {
	var ids []string
	if claimed != "" {
		ids = append(ids, claimed)
	}
	if err := tx.OpenApprovals(func(a *axp.Approval) bool {
		if a.Kind == axp.ApprovePayment && a.Status == axp.ApprovalPending && strings.EqualFold(a.TxHash, txHash) && !slices.Contains(ids, a.TaskID) {
			ids = append(ids, a.TaskID)
		}
		return true
	}); err != nil {
		return nil, err
	}
	var out []*axp.TaskRecord
	for _, id := range ids {
		t, err := tx.Task(id)
		if err != nil {
			return nil, err
		}
		if t != nil && t.Status == axp.TaskAwaitingPayment && strings.EqualFold(t.TxHash, txHash) {
			out = append(out, t)
		}
	}
	return out, nil
}

// refuseReport closes a task's report of a transaction that pays another task: its payment item is
// rejected with the reason, and the buyer may report another transaction.
func refuseReport(ch *kernel.Change, t *axp.TaskRecord, txHash, why string) error {
	list, err := ch.Tx.TaskApprovals(t.ID)
	if err != nil {
		return err
	}
	for i := range list {
		a := &list[i]
		if a.Kind != axp.ApprovePayment || a.Status != axp.ApprovalPending || !strings.EqualFold(a.TxHash, txHash) {
			continue
		}
		if err := a.Close("closed", why, ch.Now); err != nil {
			return err
		}
		if err := ch.Tx.PutApproval(a); err != nil {
			return err
		}
	}
	if ch.Tx.TxHashTask(txHash) == t.ID {
		if err := ch.Tx.ReleaseTxHash(txHash); err != nil {
			return err
		}
	}
	t.TxHash, t.UpdatedAt = "", ch.Now
	return ch.Save(t, t.Status, "payment_refused", map[string]any{"tx_hash": txHash, "reason": why})
}

// minedAt is where a transfer is on the chain: its block and the block's time.
type minedAt struct {
	block uint64
	time  time.Time
}

// before reports whether a transfer was mined before task t was posted: in a block no newer than the
// chain head the exchange had read when t was posted (the chain's own clock, so a server clock a
// little ahead of the chain's refuses nothing), or, for tasks posted without a chain head, at a
// block time before the task's creation.
func (m minedAt) before(t *axp.TaskRecord) bool {
	if t.PostedBlock > 0 && m.block > 0 {
		return m.block <= t.PostedBlock
	}
	return m.time.Before(t.CreatedAt.Truncate(time.Second))
}

// NewTag gives t a new payable tag and amount (axp.PaymentTag), one whose sub-cent part no other
// task awaiting payment has, when one is found within 64 tries: a transfer's tag then names one task.
func NewTag(tx *store.Tx, t *axp.TaskRecord) {
	for range 64 {
		t.Tag = axp.PaymentTag(tx.NextPaymentSeq(), t.Price, t.Fee.FeeBPS)
		t.Payable = t.Due()
		if t.Tag == 0 || t.Payable == 0 {
			return
		}
		exact, tagged := tx.PayableTaskIDs(t.Payable)
		if !slices.ContainsFunc(append(exact, tagged...), func(id string) bool { return id != t.ID }) {
			return
		}
	}
}

// payableMatches lists the tasks awaiting payment whose payable amount a transfer carries: exactly
// its payable amount (exact), or the same sub-cent tag (tagged: an overpayment or a partial
// payment). Tasks posted after the transfer are left out. A task that reported another
// transaction is kept: the amount is its own (the report may be wrong, or another payment).
func payableMatches(tx *store.Tx, amount axp.Money, at minedAt, txHash string) (exact, tagged []*axp.TaskRecord, err error) {
	// Only the tasks whose payable amount has the amount's tag are read (the payable index).
	exactIDs, taggedIDs := tx.PayableTaskIDs(amount)
	for i, id := range append(exactIDs, taggedIDs...) {
		t, err := tx.Task(id)
		if err != nil {
			return nil, nil, err
		}
		if t == nil || t.Status != axp.TaskAwaitingPayment || t.Payable <= 0 || at.before(t) {
			continue
		}
		switch {
		case i < len(exactIDs) && t.Payable == amount:
			exact = append(exact, t)
		case t.Payable%axp.TagLimit != 0 && t.Payable%axp.TagLimit == amount%axp.TagLimit:
			tagged = append(tagged, t)
		}
	}
	return exact, tagged, nil
}

// matchPayable finds the one task a transfer pays by its amount alone: the one task whose payable
// amount it is exactly (nil when none or several).
func (s *Service) matchPayable(tx *store.Tx, amount axp.Money, at minedAt, txHash string) (*axp.TaskRecord, error) {
	exact, _, err := payableMatches(tx, amount, at, txHash)
	switch {
	case err != nil:
		return nil, err
	case len(exact) == 1:
		return exact[0], nil
	}
	// A transfer that only carries a task's sub-cent tag (another amount) does not name it: tags
	// are unique among the tasks awaiting payment now, not among every amount ever asked, so a
	// late or repeated transfer of another task's old amount can carry it. Its sender must be
	// bound to the task (a signature, or a part payment it made).
	return nil, nil
}

// carriedByOthers reports whether a transfer carries the payable amount or the tag of a task
// awaiting payment other than t, or, carrying none, comes from the address that paid part of
// another such task: then it is not t's to claim.
func carriedByOthers(tx *store.Tx, t *axp.TaskRecord, amount axp.Money, from string, at minedAt, txHash string) (bool, error) {
	exact, tagged, err := payableMatches(tx, amount, at, txHash)
	if err != nil {
		return false, err
	}
	all := append(exact, tagged...)
	if len(all) == 0 {
		if all, err = payerTasks(tx, from); err != nil {
			return false, err
		}
	}
	mine := func(o *axp.TaskRecord) bool { return o.ID == t.ID }
	return len(all) > 0 && !slices.ContainsFunc(all, mine), nil
}

// boundTo reports whether a transfer from addr is bound to t by its sender: addr signed t's payer
// message, or already paid part of t.
func boundTo(t *axp.TaskRecord, addr string) bool {
	if addr == "" {
		return false
	}
	if t.Received > 0 && strings.EqualFold(t.PayerAddress, addr) {
		return true
	}
	return slices.ContainsFunc(t.Payers, func(p string) bool { return strings.EqualFold(p, addr) })
}

// payerTasks lists the tasks awaiting payment that a transfer from addr is bound to (boundTo). It
// reads the tasks awaiting payment, and is asked only for transfers that carry no task's amount.
func payerTasks(tx *store.Tx, addr string) ([]*axp.TaskRecord, error) {
	if addr == "" {
		return nil, nil
	}
	var out []*axp.TaskRecord
	for _, id := range tx.TaskIDsByStatus(axp.TaskAwaitingPayment) {
		t, err := tx.Task(id)
		if err != nil {
			return nil, err
		}
		if t != nil && t.Status == axp.TaskAwaitingPayment && boundTo(t, addr) {
			out = append(out, t)
		}
	}
	return out, nil
}

// creditTransfer books a transfer of amount to task t: a payment that covers the price funds the
// task and starts the job (anything beyond the price and its tag goes back to the buyer with the
// task's final booking); less waits for the rest, with a new payable amount for it.
func (s *Service) creditTransfer(ch *kernel.Change, t *axp.TaskRecord, recs []axp.InboundTransfer, amount axp.Money) (string, string, error) {
	hash := recs[0].TxHash
	if (minedAt{recs[0].Block, recs[0].BlockTime}).before(t) {
		return axp.InboundEarly, "mined before task " + t.ID + " was posted", nil
	}
	list, err := ch.Tx.TaskApprovals(t.ID)
	if err != nil {
		return "", "", err
	}
	var item *axp.Approval
	for i := range list {
		a := &list[i]
		if a.Kind != axp.ApprovePayment || !strings.EqualFold(a.TxHash, hash) {
			continue
		}
		if a.Status == axp.ApprovalApproved {
			return axp.InboundFunded, "confirmed by the operator before the watcher saw it", nil
		}
		if a.Status == axp.ApprovalPending {
			item = a
		}
	}
	if t.Status != axp.TaskAwaitingPayment {
		return axp.InboundLate, "task " + t.ID + " is " + t.Status + " and no longer waits for payment: refund the sender by hand", nil
	}
	if other, err := ch.Tx.ClaimTxHash(hash, t.ID); err != nil || other != "" {
		return axp.InboundUnmatched, "the transaction already funds task " + other, err
	}
	if item == nil {
		item = &axp.Approval{ID: axp.NewID("apr", ch.Now), Kind: axp.ApprovePayment, Status: axp.ApprovalPending,
			TaskID: t.ID, TaskType: t.Type, PriceUSD: t.Price, BuyerID: t.BuyerLabel(), SellerID: t.SellerID,
			SellerName: t.SellerName, TxHash: hash, CreatedAt: ch.Now,
			Reason: fmt.Sprintf("%s of the stablecoin reached %s in %s", amount.Display(), s.base.Cfg().DepositAddress, hash)}
	}
	now := ch.Now
	if err := axp.ApprovalMachine.Move(&item.Status, axp.ApprovalApprove); err != nil {
		return "", "", err
	}
	item.DecidedAt, item.Amount = &now, amount
	item.Note = fmt.Sprintf("confirmed on chain by the evm verifier (%d confirmations)", s.rail.Chain.Confirmations())
	if t.PayerAddress == "" {
		t.PayerAddress = recs[0].From
	}
	if a := t.Authorization; a != nil && a.Status == axp.AuthSubmitted && chain.SameAddress(a.From, recs[0].From) && amount == a.Amount {
		a.Status, a.Raw = axp.AuthUsed, ""
		if !strings.EqualFold(a.TxHash, hash) {
			a.Failure = "carried by transaction " + hash
		}
	}
	if t.Received+amount >= t.Price-t.Tag {
		t.TxHash = hash
		if err := s.confirmPayment(ch, t, item, recs[0].From); err != nil {
			return "", "", err
		}
		return axp.InboundFunded, "", ch.Tx.PutApproval(item)
	}
	// A partial payment: booked into escrow; the task waits for the rest, with a new tag.
	t.Received += amount
	t.Paid = append(t.Paid, axp.PaidIn{TxHash: hash, From: recs[0].From, Amount: amount})
	if err := ch.Tx.PutLedger(&axp.LedgerEntry{ID: axp.NewID("led", ch.Now), TaskID: t.ID, Kind: "payment",
		Postings: axp.PaymentEntry(t.ID, amount), ApprovalID: item.ID, TxHash: hash, At: ch.Now}); err != nil {
		return "", "", err
	}
	NewTag(ch.Tx, t)
	t.TxHash, t.UpdatedAt = "", ch.Now
	item.Note = fmt.Sprintf("a partial payment, confirmed on chain; %s is still due", (t.Price - t.Received).Display())
	if err := ch.Save(t, t.Status, "payment_partial", map[string]any{"tx_hash": hash, "received_usd": t.Received,
		"missing_usd": t.Price - t.Received, "payable_usd": t.Payable}); err != nil {
		return "", "", err
	}
	s.tasks.StatusNotices(ch, t)
	return axp.InboundPartial, fmt.Sprintf("%s still due", (t.Price - t.Received).Display()), ch.Tx.PutApproval(item)
}

// WatchChain polls the token's transfers to the deposit address every chain_poll, from the block
// after the last one processed (stored) to the newest with the configured confirmations, and checks
// reported payments still waiting. It runs until the daemon stops.
func (s *Service) WatchChain() {
	defer s.base.Bg.Done()
	every := s.base.Cfg().ChainPoll
	if every <= 0 {
		every = kernel.DefaultChainPoll
	}
	tick := time.NewTicker(every)
	defer tick.Stop()
	for {
		// Only the leader watches: daemons sharing a store read each block once.
		if s.base.Leading() {
			ctx, cancel := context.WithTimeout(context.Background(), 4*every+30*time.Second)
			if err := s.ChainPass(ctx); err != nil {
				s.base.Log.Warn("payment watcher pass failed; it tries again", "source", "payments", "err", err)
			}
			cancel()
		}
		select {
		case <-s.base.Stop:
			return
		case <-tick.C:
		}
	}
}

// watchSpan bounds the blocks asked for in one eth_getLogs call.
const watchSpan = 2000

// startCursor returns the last block the watcher processed, first setting it when there is none:
// to before chain_start_block, or to safe, the newest confirmed block (transfers older than the
// exchange's chain setup are not its business).
func (s *Service) startCursor(safe uint64) (uint64, error) {
	var cursor uint64
	err := s.base.Store.Update(func(tx *store.Tx) error {
		var started bool
		if cursor, started = tx.ChainCursor(); started {
			return nil
		}
		cursor = safe
		if s.base.Cfg().ChainStartBlock > 0 {
			cursor = s.base.Cfg().ChainStartBlock - 1
		}
		return tx.SetChainCursor(cursor)
	})
	return cursor, err
}

// ChainPass is one pass of the watcher: new confirmed blocks, then reported payments, then the
// payout rail's transfers in flight.
func (s *Service) ChainPass(ctx context.Context) error {
	safe, err := s.rail.Chain.Safe(ctx)
	if err != nil {
		return err
	}
	// Payments credited lately, and the cursor, are checked against the canonical chain first: a
	// reorg deeper than the confirmations is marked and the cursor goes back.
	if err := s.checkReorgs(ctx, safe); err != nil {
		return fmt.Errorf("check recent payments for reorgs: %w", err)
	}
	var cursor uint64
	var started bool
	s.base.Store.View(func(tx *store.Tx) error { cursor, started = tx.ChainCursor(); return nil })
	if !started {
		if cursor, err = s.startCursor(safe); err != nil {
			return err
		}
	}
	for cursor < safe {
		to := min(safe, cursor+watchSpan)
		list, err := s.rail.Chain.TransfersTo(ctx, s.rail.Chain.Deposit(), cursor+1, to)
		if err != nil {
			return err
		}
		for i := 0; i < len(list); {
			j := i + 1
			for j < len(list) && list[j].TxHash == list[i].TxHash {
				j++
			}
			s.onInbound(ctx, list[i:j], "")
			i = j
		}
		if err := s.watchReclaims(ctx, cursor+1, to); err != nil {
			return err
		}
		hash, _, err := s.rail.Chain.BlockHash(ctx, to)
		if err != nil {
			return err
		}
		if err := s.base.Store.Update(func(tx *store.Tx) error {
			if err := tx.SetChainCursor(to); err != nil {
				return err
			}
			return tx.SetChainCursorHash(hash)
		}); err != nil {
			return err
		}
		cursor = to
	}
	// Reported payments whose transaction the node did not know, or could not read, at report time.
	var waiting [][2]string
	s.base.Store.View(func(tx *store.Tx) error {
		return tx.OpenApprovals(func(a *axp.Approval) bool {
			if a.Kind == axp.ApprovePayment && a.Status == axp.ApprovalPending && a.TxHash != "" {
				waiting = append(waiting, [2]string{a.TaskID, a.TxHash})
			}
			return true
		})
	})
	for _, w := range waiting {
		s.CheckReported(ctx, w[0], w[1])
	}
	if s.rail.Wallet != nil {
		s.TrackAuthorizations(ctx)
		s.TrackSent(ctx)
		// Read once a pass, never at scrape time: a scraper does not cost the node a call.
		if bal, err := s.rail.Chain.BalanceOf(ctx, s.rail.Wallet.Address()); err == nil {
			s.prom.WalletBalance(s.rail.Chain.Money(bal))
		}
	}
	s.prom.ChainPass(s.rail.Chain.LastHead(), cursor, time.Now())
	return nil
}

// adminReconcile compares the ledger with the chain (axp admin reconcile): the balances of the
// deposit address and the hot wallet against what the ledger says they hold together, transfers to
// the deposit address that fund no task, and ledger movements the chain does not show.
func (s *Service) adminReconcile(ctx context.Context, c *pipeline.Call) (*axp.Reconciliation, error) {
	if s.rail.Chain == nil {
		return nil, axp.Errorf(axp.CodeUnavailable, "this exchange has no chain configured (chain_rpc_url): there is nothing to reconcile").
			WithHint("set chain_rpc_url, token_address and deposit_address")
	}
	r := &axp.Reconciliation{Chain: s.rail.ChainInfo, UnknownTransfers: []axp.InboundTransfer{}, MissingTransfers: []axp.LedgerGap{},
		InFlight: []axp.OutTransfer{}}
	var entries []axp.LedgerEntry
	var escrowTasks map[string]*axp.EscrowPayment // the escrow payment of each task with a contract account
	inbound := map[string]bool{}                  // tx hashes of transfers to the deposit address the watcher saw
	reorged := map[string]uint64{}                // tx hashes of credited transfers whose block left the chain
	senders := map[string]string{}                // the sender of each transfer to the deposit address, by tx hash
	out := outLedger{items: map[string]*axp.Approval{}, payers: map[string]string{}, tasks: map[string]*axp.TaskRecord{},
		receipts: map[string]receiptRead{}}
	err := s.base.Store.View(func(tx *store.Tx) error {
		r.ScannedToBlock, _ = tx.ChainCursor()
		var err error
		if entries, err = tx.Ledger(); err != nil {
			return err
		}
		if err := out.load(tx, entries); err != nil {
			return err
		}
		if escrowTasks, err = contractTasks(tx, entries); err != nil {
			return err
		}
		if err := tx.EachInbound(func(in *axp.InboundTransfer) bool {
			if in.Outcome == axp.InboundReorged {
				reorged[in.TxHash] = in.Block
				return true
			}
			if in.Outcome == axp.InboundWrittenOff {
				return true // not on chain, and out of the books (its write_off entry)
			}
			inbound[in.TxHash] = true
			senders[in.TxHash] = in.From
			if in.Outcome != axp.InboundFunded && in.Outcome != axp.InboundPartial && in.Outcome != axp.InboundPaidCall && in.Outcome != axp.InboundReturned &&
				in.Outcome != axp.InboundEscrowFee {
				r.UnknownTransfers = append(r.UnknownTransfers, *in)
			}
			return true
		}); err != nil {
			return err
		}
		inFlight := func(a *axp.Approval) {
			for _, x := range a.Transfers {
				// A split's capture confirmed while its void is on its way is listed with it: its
				// fee is at the deposit address, booked once the void is confirmed.
				if x.Status == axp.TransferSent || (x.Status == axp.TransferConfirmed && a.Status == axp.ApprovalSent && !a.Booked && escrowbook.IsCall(x.Part)) {
					x.Raw = ""
					r.InFlight = append(r.InFlight, x)
					if !a.Booked && !escrowbook.IsCall(x.Part) {
						// A booked item's transfer sent again after a reorg is in the ledger's
						// payouts already; the chain lacks it (a missing transfer) until it is mined.
						r.InFlightUSD += x.Amount
					}
				}
			}
		}
		if err := tx.OpenApprovals(func(a *axp.Approval) bool {
			r.QueuedUSD += stillToSend(a)
			if a.Status != axp.ApprovalSent {
				// A part on its way of an item still in the queue (the buyer's part of a split
				// whose seller part waits) is in flight too.
				inFlight(a)
			}
			return true
		}); err != nil {
			return err
		}
		return tx.SentApprovals(func(a *axp.Approval) bool {
			inFlight(a)
			return true
		})
	})
	if err != nil {
		return nil, err
	}
	out.payersFrom(entries, senders)
	// A reorged payment the operator wrote off is out of the books: its write_off entry undoes
	// what its payment entry counted received, and neither is a transfer the chain must show.
	writtenOff := map[string]bool{}
	for _, e := range entries {
		if e.Kind == "write_off" && e.TxHash != "" {
			writtenOff[strings.ToLower(e.TxHash)] = true
		}
	}
	booked := map[string]*axp.LedgerEntry{} // the first entry that books each transaction
	counted := map[transferID]spent{}       // transfers a payout, refund or split already counted
	for i := range entries {
		e := &entries[i]
		if held := contractHeld(e); held != nil {
			// Money the escrow contract holds never reached the exchange's addresses, but for
			// the fee a capture pays the fee receiver (the deposit address); the entry's
			// transaction must hold the escrow's event for the task's payment.
			for _, p := range e.Postings {
				if p.Account == axp.AcctFees {
					r.ReceivedUSD += p.Amount
				}
			}
			if gap := s.escrowGap(ctx, e, escrowTasks[e.TaskID]); gap != "" {
				r.MissingTransfers = append(r.MissingTransfers, axp.LedgerGap{EntryID: e.ID, TaskID: e.TaskID, Kind: e.Kind,
					TxHash: e.TxHash, Amount: *held, Why: gap})
			}
			continue
		}
		for _, p := range e.Postings {
			switch p.Account {
			case axp.AcctBuyerFunds, axp.AcctCallers:
				r.ReceivedUSD -= p.Amount
			case axp.AcctSellerPaid, axp.AcctBuyerRefund:
				r.PaidOutUSD += p.Amount
			}
		}
		if e.TxHash == "" || (writtenOff[strings.ToLower(e.TxHash)] && (e.Kind == "payment" || e.Kind == "write_off")) {
			continue
		}
		var amount axp.Money
		for _, p := range e.Postings {
			if p.Amount > 0 {
				amount += p.Amount
			}
		}
		gap := ""
		if block, ok := reorged[e.TxHash]; ok && (e.Kind == "payment" || e.Kind == "paid_call" || e.Kind == "connector_setup") {
			gap = fmt.Sprintf("reorged: the payment's block %d left the canonical chain, so this money is not on chain; the task's payouts, refunds and splits are held until the transfer is back (if it never is: axp admin payments write-off)", block)
		} else if paysOut(e.Kind) {
			amount, gap = s.payoutGap(ctx, e, &out, counted)
		} else {
			gap = s.ledgerGap(ctx, e, inbound)
		}
		// One transaction, one movement: a hash booked twice is listed, with what of this entry
		// the chain does not show (a payout's transfer counts for the first entry only).
		hash := strings.ToLower(e.TxHash)
		if first := booked[hash]; first != nil {
			gap = fmt.Sprintf("transaction %s is also booked by ledger entry %s (%s of task %s): one transaction is one movement", hash, first.ID, first.Kind, first.TaskID)
		} else {
			booked[hash] = e
		}
		if gap != "" {
			r.MissingTransfers = append(r.MissingTransfers, axp.LedgerGap{EntryID: e.ID, TaskID: e.TaskID, Kind: e.Kind,
				TxHash: e.TxHash, Amount: amount, Why: gap})
		}
	}
	r.MissingTransfers = append(r.MissingTransfers, s.escrowDifferences(ctx, entries, escrowTasks)...)
	bal, err := s.rail.Chain.BalanceOf(ctx, s.rail.Chain.Deposit())
	if err != nil {
		return nil, axp.Errorf(axp.CodeUnavailable, "cannot read the deposit address's balance: %v", err)
	}
	r.DepositBalanceUSD = s.rail.Chain.Money(bal)
	onChain := r.DepositBalanceUSD
	if s.rail.Wallet != nil {
		// Never the deposit address (SetupChain refuses it): the two balances add up.
		r.HotWalletAddress = s.rail.Wallet.Address()
		hb, err := s.rail.Chain.BalanceOf(ctx, s.rail.Wallet.Address())
		if err != nil {
			return nil, axp.Errorf(axp.CodeUnavailable, "cannot read the hot wallet's balance: %v", err)
		}
		r.HotWalletBalanceUSD = s.rail.Chain.Money(hb)
		onChain += r.HotWalletBalanceUSD
	}
	if s.rail.Wallet != nil && r.QueuedUSD > r.HotWalletBalanceUSD {
		r.FloatShortUSD = r.QueuedUSD - r.HotWalletBalanceUSD
	}
	var unknown axp.Money
	for _, u := range r.UnknownTransfers {
		unknown += u.Amount
	}
	r.ExpectedUSD = r.ReceivedUSD - r.PaidOutUSD - r.InFlightUSD
	// Stray transfers to the deposit address are listed on their own; what remains beyond the
	// ledger is money the operator put in (the hot wallet's float) or took out (negative).
	r.DifferenceUSD = onChain - r.ExpectedUSD - unknown
	// Address by address, so the float does not hide money missing at the deposit address: every
	// payment lands there, and what the ledger's payouts took from it is known from the chain.
	var fromDeposit, fromHot axp.Money
	for _, u := range counted {
		switch {
		case strings.EqualFold(u.from, s.rail.Chain.Deposit()):
			fromDeposit += u.amount
		case s.rail.Wallet != nil && strings.EqualFold(u.from, s.rail.Wallet.Address()):
			fromHot += u.amount
		}
	}
	r.DepositExpectedUSD = r.ReceivedUSD + unknown - fromDeposit
	r.DepositDifferenceUSD = r.DepositBalanceUSD - r.DepositExpectedUSD
	if s.rail.Wallet != nil {
		r.HotWalletSentUSD = fromHot + r.InFlightUSD
		r.FloatUSD = r.HotWalletBalanceUSD + r.HotWalletSentUSD
	}
	r.Covered = r.DifferenceUSD >= 0 && len(r.UnknownTransfers) == 0 && len(r.MissingTransfers) == 0
	s.prom.Reconciled(r, time.Now())
	return r, nil
}

// stillToSend is what approving an open item would send: its booking's payout and refund, less the
// parts already confirmed on chain.
func stillToSend(a *axp.Approval) axp.Money {
	if !axp.SendsMoney(a.Kind) {
		return 0
	}
	done := a.SentParts()
	var out axp.Money
	for _, p := range a.Booking {
		switch {
		case p.Account == axp.ContractAccount(a.TaskID):
			return 0 // the escrow contract pays it, not the hot wallet
		case p.Account == axp.AcctSellerPaid && !done["seller"]:
			out += p.Amount
		case p.Account == axp.AcctBuyerRefund && a.BuyerPartTxHash == "":
			out += p.Amount
			for _, x := range a.Transfers {
				if (x.Status == axp.TransferConfirmed || x.Status == axp.TransferSent) && axp.IsBuyerPart(x.Part) {
					out -= x.Amount // sent: in flight, not still to send
				}
			}
		}
	}
	return max(out, 0)
}

// minedReceipt reads the receipt of transaction hash, or says why the chain does not show it
// mined and successful.
func (s *Service) minedReceipt(ctx context.Context, hash string) (chain.Receipt, string) {
	r, err := s.rail.Chain.Receipt(ctx, hash)
	switch {
	case err != nil:
		return r, "cannot read the transaction: " + err.Error()
	case !r.Found:
		return r, "the chain has no such transaction"
	case !r.Success:
		return r, "the transaction reverted"
	}
	return r, ""
}

// ledgerGap says why the chain does not confirm a ledger entry's transaction, or "".
func (s *Service) ledgerGap(ctx context.Context, e *axp.LedgerEntry, inbound map[string]bool) string {
	toDeposit := e.Kind == "payment" || e.Kind == "paid_call" || e.Kind == "connector_setup"
	if toDeposit && inbound[e.TxHash] {
		return ""
	}
	r, gap := s.minedReceipt(ctx, e.TxHash)
	switch {
	case gap != "":
		return gap
	case len(r.Transfers) == 0:
		return "the transaction moves none of the stablecoin"
	}
	if toDeposit {
		for _, tr := range r.Transfers {
			if strings.EqualFold(tr.To, s.rail.Chain.Deposit()) {
				return ""
			}
		}
		return "the transaction sends nothing to the deposit address"
	}
	return ""
}

// MatchAmount runs the watcher's matching of an amount received at a time, outside a pass: the id
// of the task it pays, or "" (tests and benchmarks).
func (s *Service) MatchAmount(amount axp.Money, at time.Time) (string, error) {
	var id string
	err := s.base.Store.View(func(tx *store.Tx) error {
		t, err := s.matchPayable(tx, amount, minedAt{time: at}, "")
		if t != nil {
			id = t.ID
		}
		return err
	})
	return id, err
}
