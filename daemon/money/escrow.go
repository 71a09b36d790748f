package money

import (
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"math/big"
	"strings"
	"time"

	"github.com/axp-exchange/axp"
	"github.com/axp-exchange/axp/daemon/chain"
	"github.com/axp-exchange/axp/daemon/chain/escrow"
	"github.com/axp-exchange/axp/daemon/kernel"
	"github.com/axp-exchange/axp/daemon/money/escrowbook"
	"github.com/axp-exchange/axp/store"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
)

// Paying into the escrow contract: the buyer signs a ReceiveWithAuthorization of the task's buyer
// total to the escrow's ERC-3009 collector, under the nonce the collector derives from the
// payment's terms (escrow.Nonce), and the exchange calls the escrow's authorize with it from the hot
// wallet (which pays the gas). The money goes from the buyer's wallet into the contract, never to
// an address of the exchange; the task is funded once that transaction has its confirmations, and
// the ledger books it into the task's contract account (axp.ContractAccount). The transaction is
// signed, stored and broadcast as a payment by authorization is (submit), and followed by
// TrackAuthorizations.

// escrowSetup reads and checks escrow_address and escrow_collector_address once the chain and the
// hot wallet are set up: both must hold code on the chain, and the token must take EIP-3009
// authorizations.
func (s *Service) escrowSetup(ctx context.Context) error {
	cfg := s.base.Cfg()
	if cfg.EscrowAddress == "" && cfg.EscrowCollectorAddress == "" {
		return nil
	}
	switch {
	case cfg.EscrowAddress == "" || cfg.EscrowCollectorAddress == "":
		return errors.New("escrow_address and escrow_collector_address go together: name the escrow contract and its ERC-3009 payment collector, or neither")
	case s.rail.Wallet == nil:
		return errors.New("escrow_address needs payout_key_file: the hot wallet is the escrow's operator")
	case s.rail.ChainInfo.TokenVersion == "":
		return fmt.Errorf("escrow_address: the stablecoin %s has no EIP-3009 support, which the escrow's payment collector needs", s.rail.Chain.Token())
	}
	for _, a := range []struct{ key, v string }{{"escrow_address", cfg.EscrowAddress}, {"escrow_collector_address", cfg.EscrowCollectorAddress}} {
		if !chain.IsAddress(a.v) {
			return fmt.Errorf("%s %q is not an EVM address", a.key, a.v)
		}
		code, err := s.rail.Chain.Eth().CodeAt(ctx, common.HexToAddress(a.v), nil)
		if err != nil {
			return fmt.Errorf("%s %s: read its code: %w", a.key, a.v, err)
		}
		if len(code) == 0 {
			return fmt.Errorf("%s %s holds no contract on chain %d: name the deployed escrow and its collector", a.key, a.v, s.rail.Chain.ChainID())
		}
	}
	s.escrow = &escrow.Contracts{Escrow: common.HexToAddress(cfg.EscrowAddress), Collector: common.HexToAddress(cfg.EscrowCollectorAddress)}
	s.base.Log.Info("escrow ready: tasks may be paid into the escrow contract (pay_escrow)", "source", "payments",
		"escrow", s.escrow.Escrow.Hex(), "collector", s.escrow.Collector.Hex(), "operator", s.rail.Wallet.Address())
	return nil
}

// escrowable reports why the exchange cannot take a payment into the escrow, or "".
func (s *Service) escrowable() string {
	if why := s.authorizable(); why != "" {
		return why
	}
	if s.escrow == nil {
		return "this exchange has no escrow contract (escrow_address)"
	}
	return ""
}

// escrowWindow is how long after the payment window the escrow keeps the money capturable: the
// work (the offer's ETA, or the task's deadline if later) and the buyer's review, once plus once per
// free redo, then the mediation window. Capture must happen before it ends; from then on the payer
// may reclaim.
func (s *Service) escrowWindow(t *axp.TaskRecord) (capture, refund time.Duration) {
	work := time.Duration(t.ETAMinutes) * time.Minute
	if t.DeadlineMinutes != nil {
		work = max(work, time.Duration(*t.DeadlineMinutes)*time.Minute)
	}
	mediation := s.base.Cfg().MediationWindow
	if mediation <= 0 {
		mediation = kernel.DefaultMediationWindow
	}
	capture = time.Duration(1+t.FreeRedo)*(work+s.base.Cfg().AutoRelease) + mediation
	return capture, mediation
}

// paymentInfo is the escrow payment of task t to receiver, payer left zero: its expiries follow
// from the task's payment window (pay_by) and escrowWindow, its salt from the task id and the offer
// chosen, so the same task read twice gives the same terms.
func (s *Service) paymentInfo(t *axp.TaskRecord, receiver string) escrow.PaymentInfo {
	capture, refund := s.escrowWindow(t)
	pre := t.PayBy.Unix()
	salt := crypto.Keccak256Hash([]byte(fmt.Sprintf("axp escrow payment\nchain: %d\nescrow: %s\ntask: %s\nround: %s",
		s.rail.Chain.ChainID(), strings.ToLower(s.escrow.Escrow.Hex()), t.ID, authRound(t))))
	bps := uint16(t.Fee.FeeBPS)
	return escrow.PaymentInfo{Operator: common.HexToAddress(s.rail.Wallet.Address()), Receiver: common.HexToAddress(receiver),
		Token: common.HexToAddress(s.rail.Chain.Token()), MaxAmount: s.rail.Chain.Units(t.Price),
		PreApprovalExpiry: uint64(pre), AuthorizationExpiry: uint64(pre + int64(capture/time.Second)),
		RefundExpiry: uint64(pre + int64((capture+refund)/time.Second)), MinFeeBps: bps, MaxFeeBps: bps,
		FeeReceiver: common.HexToAddress(s.rail.Chain.Deposit()), Salt: new(big.Int).SetBytes(salt[:])}
}

// EscrowTerms is what t's buyer signs to pay t into the escrow, or nil when the exchange cannot
// take it (see escrowTerms).
func (s *Service) EscrowTerms(tx *store.Tx, t *axp.TaskRecord) *axp.EscrowTerms {
	terms, _, _ := s.escrowTerms(tx, t)
	return terms
}

// escrowTerms gives t's escrow terms and the payment behind them, or why there are none: the whole
// buyer total is due (no part was paid to the deposit address), within the payment window, and the
// seller has a payout address (the escrow pays the seller there directly).
func (s *Service) escrowTerms(tx *store.Tx, t *axp.TaskRecord) (*axp.EscrowTerms, escrow.PaymentInfo, string) {
	var info escrow.PaymentInfo
	if why := s.escrowable(); why != "" {
		return nil, info, why
	}
	switch {
	case t.Status != axp.TaskAwaitingPayment || t.Free() || t.Price <= 0:
		return nil, info, "the task is " + t.Status + " and waits for no payment"
	case t.Received > 0:
		return nil, info, "the task received part of its price at the deposit address: send the rest there"
	case t.Authorization != nil && t.Authorization.Status == axp.AuthSubmitted:
		return nil, info, "a payment by authorization (" + t.Authorization.TxHash + ") waits for the chain"
	case t.PayBy == nil:
		return nil, info, "the task has no payment window"
	}
	seller, err := kernel.LoadMember(tx, t.SellerID)
	if err != nil || seller.PayoutAddress == "" || !chain.IsAddress(seller.PayoutAddress) {
		return nil, info, "the seller has no payout address for the escrow to pay"
	}
	info = s.paymentInfo(t, seller.PayoutAddress)
	id, esc := s.rail.Chain.ChainID(), s.escrow.Escrow
	nonce := escrow.Nonce(id, esc, info)
	return &axp.EscrowTerms{EscrowAddress: esc.Hex(), CollectorAddress: s.escrow.Collector.Hex(), PaymentInfo: escrow.Terms(info),
		Authorization: axp.EscrowAuthorization{PrimaryType: "ReceiveWithAuthorization",
			Domain: axp.AuthDomain{Name: s.rail.ChainInfo.TokenName, Version: s.rail.ChainInfo.TokenVersion, ChainID: id, VerifyingContract: s.rail.Chain.Token()},
			To:     s.escrow.Collector.Hex(), Value: info.MaxAmount.String(), ValueUSD: t.Price, ValidAfter: 0,
			ValidBefore: int64(info.PreApprovalExpiry), Nonce: "0x" + hex.EncodeToString(nonce[:])}}, info, ""
}

// PayByEscrow checks a buyer's signature of task t's escrow terms (t as the caller read it, having
// checked that the caller is its buyer), signs the escrow's authorize with it from the hot wallet,
// stores that transaction on the task and broadcasts it. The same payer again (a retried call)
// submits nothing more.
func (s *Service) PayByEscrow(ctx context.Context, t *axp.TaskRecord, in *axp.PayEscrowInput) error {
	if why := s.escrowable(); why != "" {
		return axp.Errorf(axp.CodeUnavailable, "%s: a task cannot be paid into escrow here", why).
			WithHint("send payable_usd to the deposit address (payment.payment_uri) and report the transaction with pay_crypto")
	}
	if a := t.Authorization; a != nil && a.Escrow != nil && a.Status != axp.AuthFailed && chain.SameAddress(a.From, in.Payer) {
		return nil
	}
	var terms *axp.EscrowTerms
	var info escrow.PaymentInfo
	var why string
	if err := s.base.Store.View(func(tx *store.Tx) error {
		terms, info, why = s.escrowTerms(tx, t)
		return nil
	}); err != nil {
		return err
	}
	if terms == nil {
		return axp.Conflict(why+": the task cannot be paid into escrow", "read the task's payment for the ways it can be paid")
	}
	now := s.base.Now()
	if terms.Authorization.ValidBefore < now.Add(authMinLife).Unix() {
		return axp.Conflict(fmt.Sprintf("the payment window ends at %s, too soon to authorize the payment", time.Unix(terms.Authorization.ValidBefore, 0).UTC().Format(time.RFC3339)),
			"send payable_usd to the deposit address instead")
	}
	info.Payer = common.HexToAddress(in.Payer)
	chainID := s.rail.Chain.ChainID()
	digest, err := escrow.Digest(chain.Domain{Name: terms.Authorization.Domain.Name, Version: terms.Authorization.Domain.Version}, chainID,
		s.escrow.Escrow, s.escrow.Collector, info)
	if err != nil {
		return err
	}
	sig := common.FromHex(in.Signature)
	if signer, err := chain.Signer(digest, sig); err != nil || signer != info.Payer {
		a := terms.Authorization
		return axp.Invalid("signature", fmt.Sprintf("is not %s's signature of this task's escrow authorization (ReceiveWithAuthorization of %s units to %s, valid after 0 and before %d, nonce %s)",
			in.Payer, a.Value, a.To, a.ValidBefore, a.Nonce),
			"sign payment.escrow.authorization exactly as given (EIP-712, the token's domain) with the paying address")
	}
	nonce := escrow.Nonce(chainID, s.escrow.Escrow, info)
	if used, err := s.rail.Chain.AuthorizationUsed(ctx, info.Payer, nonce); err != nil {
		return axp.Errorf(axp.CodeUnavailable, "cannot read the authorization's state on chain: %v", err)
	} else if used {
		return axp.Conflict("this escrow authorization was already used on chain", "the task is funded once its transaction has its confirmations; see the task's payment")
	}
	if bal, err := s.rail.Chain.BalanceOf(ctx, in.Payer); err != nil {
		return axp.Errorf(axp.CodeUnavailable, "cannot read the payer's balance: %v", err)
	} else if bal.Cmp(info.MaxAmount) < 0 {
		return axp.Invalid("payer", fmt.Sprintf("holds %s of the stablecoin; the task needs %s", s.rail.Chain.Money(bal).Display(), t.Price.Display()),
			"fund the address and sign again")
	}
	data, err := escrow.Authorize(info, info.MaxAmount, s.escrow.Collector, sig)
	if err != nil {
		return err
	}
	release, err := s.rail.Wallet.Acquire(ctx)
	if err != nil {
		return axp.Errorf(axp.CodeUnavailable, "the hot wallet is busy: %v", err)
	}
	defer release()
	signed, err := s.rail.Wallet.SignCall(ctx, s.escrow.Escrow, data, "the escrow's authorize")
	s.base.AfterScan("escrow-signed") // tests: between signing the transaction and storing it
	if err != nil {
		if errors.Is(err, chain.ErrUnanswered) {
			return axp.Errorf(axp.CodeUnavailable, "the chain's node did not answer: %v", err)
		}
		if r, ok := escrow.RevertOf(err); ok {
			return axp.Invalid("signature", "the escrow refuses this payment: "+r.Error(), "check the payer's balance and sign the task's current terms again")
		}
		return axp.Invalid("signature", "the escrow refuses this payment: "+err.Error(), "check the payer's balance and sign the task's current terms again")
	}
	hash := escrow.Hash(chainID, s.escrow.Escrow, info)
	rec := &axp.AuthPayment{From: info.Payer.Hex(), Nonce: strings.ToLower(terms.Authorization.Nonce), Amount: t.Price,
		ValidBefore: terms.Authorization.ValidBefore, Escrow: &axp.EscrowPayment{EscrowAddress: terms.EscrowAddress,
			CollectorAddress: terms.CollectorAddress, PaymentInfo: escrow.Terms(info), PaymentHash: strings.ToLower(hash.Hex())}}
	return s.submit(ctx, t, signed, rec, "payment_escrow_authorized", map[string]any{"from": rec.From, "amount_usd": rec.Amount,
		"tx_hash": signed.Hash, "escrow": terms.EscrowAddress, "payment_hash": rec.Escrow.PaymentHash})
}

// creditEscrow funds a task whose escrow authorization is mined with its confirmations: the
// receipt's PaymentAuthorized event must name the task's payment and its whole amount. The money is
// booked into the task's contract account, and the job starts.
func (s *Service) creditEscrow(ctx context.Context, taskID string, a axp.AuthPayment, r chain.Receipt) {
	units := s.rail.Chain.Units(a.Amount)
	found := false
	for _, l := range r.Logs {
		e, ok, err := escrow.Decode(l)
		if err != nil || !ok || e.Name != "PaymentAuthorized" || !chain.SameAddress(l.Address.Hex(), a.Escrow.EscrowAddress) {
			continue
		}
		if strings.EqualFold(e.Hash.Hex(), a.Escrow.PaymentHash) && e.Amount != nil && e.Amount.Cmp(units) == 0 {
			found = true
		}
	}
	if !found {
		s.base.Log.ErrorContext(ctx, "an escrow authorization's transaction succeeded without authorizing the task's payment; the operator must look",
			"source", "payments", "task", taskID, "tx_hash", a.TxHash, "payment_hash", a.Escrow.PaymentHash)
		return
	}
	_, err := s.base.Mutate(context.WithoutCancel(ctx), "verifier:evm", func(ch *kernel.Change) (any, error) {
		t, err := kernel.LoadTask(ch.Tx, taskID)
		if err != nil {
			return nil, err
		}
		cur := t.Authorization
		if t.Status != axp.TaskAwaitingPayment || cur == nil || cur.Escrow == nil || cur.Status != axp.AuthSubmitted || cur.TxHash != a.TxHash {
			return nil, nil
		}
		now := ch.Now
		item := &axp.Approval{ID: axp.NewID("apr", now), Kind: axp.ApprovePayment, Status: axp.ApprovalPending,
			TaskID: t.ID, TaskType: t.Type, PriceUSD: t.Price, BuyerID: t.BuyerLabel(), SellerID: t.SellerID,
			SellerName: t.SellerName, TxHash: a.TxHash, CreatedAt: now,
			Reason: fmt.Sprintf("%s of the stablecoin authorized into the escrow contract %s in %s", a.Amount.Display(), a.Escrow.EscrowAddress, a.TxHash)}
		if err := axp.ApprovalMachine.Move(&item.Status, axp.ApprovalApprove); err != nil {
			return nil, err
		}
		item.DecidedAt, item.Amount = &now, a.Amount
		item.Note = fmt.Sprintf("confirmed on chain by the evm verifier (%d confirmations of the escrow's PaymentAuthorized)", s.rail.Chain.Confirmations())
		cur.Status, cur.Raw = axp.AuthUsed, ""
		if t.PayerAddress == "" {
			t.PayerAddress = a.From
		}
		t.TxHash = a.TxHash
		// The escrow's later events name the payment by its hash only (a reclaim: watchReclaims).
		if err := ch.Tx.ClaimEscrowPayment(a.Escrow.PaymentHash, t.ID); err != nil {
			return nil, err
		}
		if err := s.confirmPayment(ch, t, item, a.From); err != nil {
			return nil, err
		}
		return nil, ch.Tx.PutApproval(item)
	})
	if err != nil {
		s.base.Log.ErrorContext(ctx, "crediting an escrow payment failed; it is tried again on the next pass", "source", "payments",
			"task", taskID, "tx_hash", a.TxHash, "err", err)
	}
}

// inContract reports whether t's money is held by the escrow contract (paid by pay_escrow).
func inContract(t *axp.TaskRecord) bool {
	a := t.Authorization
	return a != nil && a.Escrow != nil && a.Status == axp.AuthUsed
}

// refuseContractMoney refuses to approve an item that sends money of a task whose money the escrow
// contract holds, unless the hot wallet sends it by calls of the escrow (a payout's capture, a
// refund's void, a split's capture then void): money sent by hand would leave the buyer's money in
// the contract.
func (s *Service) refuseContractMoney(in *axp.ApproveBody) error {
	var t *axp.TaskRecord
	var kind string
	s.base.Store.View(func(tx *store.Tx) error {
		a, err := tx.Approval(in.ID)
		if err != nil || a == nil || a.TaskID == "" {
			return err
		}
		kind = a.Kind
		t, err = tx.Task(a.TaskID)
		return err
	})
	return s.refuseContractTask(t, kind, in)
}

// refuseContractTask is refuseContractMoney's check on the item's kind and task as read (nil: none).
func (s *Service) refuseContractTask(t *axp.TaskRecord, kind string, in *axp.ApproveBody) error {
	if t == nil || !axp.SendsMoney(kind) || !inContract(t) || (escrowbook.Entry(t, kind, 0) != nil && in.TxHash == "" && s.rail.Wallet != nil) {
		return nil
	}
	return contractRefusal(t)
}
