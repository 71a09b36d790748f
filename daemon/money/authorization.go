package money

import (
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"math/big"
	"strconv"
	"strings"
	"time"

	"github.com/axp-exchange/axp"
	"github.com/axp-exchange/axp/daemon/chain"
	"github.com/axp-exchange/axp/daemon/kernel"
	"github.com/axp-exchange/axp/store"
	"github.com/ethereum/go-ethereum/common"
)

// Paying by signed authorization: the buyer signs an EIP-3009 TransferWithAuthorization of exactly
// what the task waits for to the deposit address, under a nonce derived from the task id, and the
// exchange submits it from the hot wallet (which pays the gas). The transfer is credited to that
// task by construction: the exchange knows the transaction it submitted, and a copy submitted by
// anyone else carries the task's nonce in its AuthorizationUsed log.

// authMinLife is how long an authorization must stay valid when it is posted: long enough to be
// mined.
const authMinLife = 60 * time.Second

// authRound names the state an authorization's nonce is derived from: the offer chosen and what the
// task had received.
func authRound(t *axp.TaskRecord) string {
	return t.ChosenOfferID + "/" + strconv.FormatInt(int64(t.Received), 10)
}

// authorizable reports why the exchange cannot take a payment by authorization, or "".
func (s *Service) authorizable() string {
	switch {
	case s.rail.Chain == nil:
		return "this exchange has no chain configured"
	case s.rail.Wallet == nil:
		return "this exchange has no hot wallet (payout_key_file) to submit authorizations"
	case s.rail.ChainInfo.TokenVersion == "":
		return "the stablecoin does not support EIP-3009 authorizations"
	}
	return ""
}

// AuthorizationTerms is what t's buyer signs to pay t by authorization, or nil when the exchange
// cannot take one or t waits for nothing.
func (s *Service) AuthorizationTerms(t *axp.TaskRecord) *axp.AuthorizationTerms {
	if s.authorizable() != "" || t.Status != axp.TaskAwaitingPayment || t.Price <= t.Received || t.Free() {
		return nil
	}
	nonce := chain.TaskNonce(s.rail.Chain.ChainID(), s.rail.Chain.Deposit(), t.ID, authRound(t))
	max := s.base.Now().Add(24 * time.Hour)
	if t.PayBy != nil {
		max = *t.PayBy
	}
	return &axp.AuthorizationTerms{PrimaryType: "TransferWithAuthorization",
		Domain: axp.AuthDomain{Name: s.rail.ChainInfo.TokenName, Version: s.rail.ChainInfo.TokenVersion, ChainID: s.rail.Chain.ChainID(),
			VerifyingContract: s.rail.Chain.Token()},
		To: s.rail.Chain.Deposit(), Value: s.rail.Chain.Units(t.Price - t.Received).String(), ValueUSD: t.Price - t.Received,
		Nonce: "0x" + hex.EncodeToString(nonce[:]), ValidBeforeMax: max.Unix()}
}

// PayByAuthorization checks a buyer's signed authorization for task t (as the caller read it,
// having checked that the caller is its buyer) against the task's terms and the chain, stores it
// with the transaction that submits it, and broadcasts that transaction.
func (s *Service) PayByAuthorization(ctx context.Context, t *axp.TaskRecord, in *axp.PayAuthorizationInput) error {
	if why := s.authorizable(); why != "" {
		return axp.Errorf(axp.CodeUnavailable, "%s: a task cannot be paid by authorization here", why).
			WithHint("send payable_usd to the deposit address (payment.payment_uri) and report the transaction with pay_crypto")
	}
	if sameSubmission(t, in) {
		return nil
	}
	terms := s.AuthorizationTerms(t)
	if terms == nil {
		return axp.Conflict("the task is "+t.Status+" and waits for no payment", "")
	}
	now := s.base.Now()
	switch {
	case in.ValidAfter > now.Unix():
		return axp.Invalid("valid_after", fmt.Sprintf("is %s, in the future: the exchange submits the authorization now", time.Unix(in.ValidAfter, 0).UTC().Format(time.RFC3339)),
			"sign with valid_after 0")
	case in.ValidBefore < now.Add(authMinLife).Unix():
		return axp.Invalid("valid_before", fmt.Sprintf("leaves less than %s to submit the authorization", authMinLife),
			fmt.Sprintf("sign with a valid_before between %d and %d", now.Add(authMinLife).Unix(), terms.ValidBeforeMax))
	case in.ValidBefore > terms.ValidBeforeMax:
		return axp.Invalid("valid_before", fmt.Sprintf("is after the end of the payment window (%d)", terms.ValidBeforeMax),
			fmt.Sprintf("sign with a valid_before of at most %d", terms.ValidBeforeMax))
	}
	value, _ := new(big.Int).SetString(terms.Value, 10)
	nonce := common.HexToHash(terms.Nonce)
	auth := chain.Authorization{From: common.HexToAddress(in.From), To: common.HexToAddress(terms.To), Value: value,
		ValidAfter: big.NewInt(in.ValidAfter), ValidBefore: big.NewInt(in.ValidBefore), Nonce: nonce}
	digest, err := chain.AuthorizationDigest(chain.Domain{Name: terms.Domain.Name, Version: terms.Domain.Version}, terms.Domain.ChainID,
		common.HexToAddress(terms.Domain.VerifyingContract), auth)
	if err != nil {
		return err
	}
	sig := common.FromHex(in.Signature)
	if signer, err := chain.Signer(digest, sig); err != nil || signer != auth.From {
		return axp.Invalid("signature", fmt.Sprintf("is not %s's signature of this task's authorization (TransferWithAuthorization of %s units to %s, nonce %s)",
			in.From, terms.Value, terms.To, terms.Nonce),
			"sign payment.authorization exactly as given (EIP-712, the token's domain) with the paying address")
	}
	if used, err := s.rail.Chain.AuthorizationUsed(ctx, auth.From, nonce); err != nil {
		return axp.Errorf(axp.CodeUnavailable, "cannot read the authorization's state on chain: %v", err)
	} else if used {
		return axp.Conflict("this authorization was already used on chain", "the task is funded once its transfer has its confirmations; see the task's payment")
	}
	if bal, err := s.rail.Chain.BalanceOf(ctx, in.From); err != nil {
		return axp.Errorf(axp.CodeUnavailable, "cannot read the payer's balance: %v", err)
	} else if bal.Cmp(value) < 0 {
		return axp.Invalid("from", fmt.Sprintf("holds %s of the stablecoin; the task needs %s", s.rail.Chain.Money(bal).Display(), terms.ValueUSD.Display()),
			"fund the address and sign again")
	}
	release, err := s.rail.Wallet.Acquire(ctx)
	if err != nil {
		return axp.Errorf(axp.CodeUnavailable, "the hot wallet is busy: %v", err)
	}
	defer release()
	signed, err := s.rail.Wallet.SignAuthorization(ctx, auth, sig)
	if err != nil {
		if errors.Is(err, chain.ErrUnanswered) {
			return axp.Errorf(axp.CodeUnavailable, "the chain's node did not answer: %v", err)
		}
		return axp.Invalid("signature", "the token refuses this authorization: "+err.Error(), "check the payer's balance and sign again")
	}
	rec := &axp.AuthPayment{From: auth.From.Hex(), Nonce: strings.ToLower(terms.Nonce), Amount: terms.ValueUSD, ValidBefore: in.ValidBefore}
	return s.submit(ctx, t, signed, rec, "payment_authorized", map[string]any{"from": auth.From.Hex(), "amount_usd": terms.ValueUSD,
		"tx_hash": signed.Hash})
}

// submit stores rec, a buyer's authorization that signed (the hot wallet's transaction, held by the
// caller under Acquire) carries, on task t (as the caller checked it) and claims the transaction
// for the task, in one change recorded as action with detail; then it broadcasts the transaction.
// The task must still wait for the same payment, with no other authorization submitted. A node that
// refuses the transaction fails the authorization (the buyer may sign again); one that does not
// answer leaves it to TrackAuthorizations, which sends it again. A crash before the change leaves
// nothing sent; after it, the stored transaction is sent again.
func (s *Service) submit(ctx context.Context, t *axp.TaskRecord, signed chain.Signed, rec *axp.AuthPayment, action string, detail map[string]any) error {
	id := t.ID
	_, err := s.base.Mutate(ctx, "buyer", func(ch *kernel.Change) (any, error) {
		cur, err := kernel.LoadTask(ch.Tx, id)
		if err != nil {
			return nil, err
		}
		if cur.Status != axp.TaskAwaitingPayment || authRound(cur) != authRound(t) {
			return nil, axp.Conflict("the task's payment changed while the authorization was checked", "read the task and sign its new terms")
		}
		if a := cur.Authorization; a != nil && a.Status == axp.AuthSubmitted {
			return nil, axp.Conflict("an authorization ("+a.TxHash+") was submitted for this task and waits for the chain", "wait for it")
		}
		if other, err := ch.Tx.ClaimTxHash(signed.Hash, cur.ID); err != nil {
			return nil, err
		} else if other != "" {
			return nil, axp.Conflict("the submitting transaction already funds task "+other, "")
		}
		a := *rec
		a.TxHash, a.Raw, a.SubmittedAt, a.Block, a.Status = signed.Hash, hex.EncodeToString(signed.Raw), ch.Now, s.rail.Chain.LastHead(), axp.AuthSubmitted
		cur.Authorization = &a
		cur.UpdatedAt = ch.Now
		return nil, ch.Save(cur, cur.Status, action, detail)
	})
	if err != nil {
		return err
	}
	s.base.AfterScan("submitted") // tests: between storing the transaction and broadcasting it
	if berr := s.rail.Wallet.Broadcast(ctx, signed.Raw); berr != nil && !errors.Is(berr, chain.ErrUnanswered) {
		s.failAuthorization(ctx, id, signed.Hash, "the node refused the transaction: "+berr.Error())
		return axp.Conflict("the chain's node refused the authorization's transaction: "+berr.Error(), "sign again")
	} else if berr != nil {
		s.base.Log.WarnContext(ctx, "the node did not answer an authorization's transaction; it is sent again on every pass",
			"source", "payments", "task", id, "tx_hash", signed.Hash, "err", berr)
	}
	return nil
}

// sameSubmission reports whether in is the authorization the task already holds (a retried call):
// then nothing is submitted again.
func sameSubmission(t *axp.TaskRecord, in *axp.PayAuthorizationInput) bool {
	a := t.Authorization
	return a != nil && a.Escrow == nil && a.Status != axp.AuthFailed && chain.SameAddress(a.From, in.From) && a.ValidBefore == in.ValidBefore
}

// failAuthorization marks a task's submitted authorization failed: the buyer may sign again.
func (s *Service) failAuthorization(ctx context.Context, id, txHash, reason string) {
	_, err := s.base.Mutate(context.WithoutCancel(ctx), "rail:evm", func(ch *kernel.Change) (any, error) {
		t, err := kernel.LoadTask(ch.Tx, id)
		if err != nil {
			return nil, err
		}
		a := t.Authorization
		if a == nil || a.Status != axp.AuthSubmitted || a.TxHash != txHash {
			return nil, nil
		}
		a.Status, a.Failure, a.Raw = axp.AuthFailed, reason, ""
		if ch.Tx.TxHashTask(txHash) == t.ID {
			if err := ch.Tx.ReleaseTxHash(txHash); err != nil {
				return nil, err
			}
		}
		t.UpdatedAt = ch.Now
		return nil, ch.Save(t, t.Status, "payment_authorization_failed", map[string]any{"tx_hash": txHash, "reason": reason})
	})
	if err != nil {
		s.base.Log.ErrorContext(ctx, "recording a failed authorization failed; the next pass looks again", "source", "payments", "task", id, "err", err)
	}
}

// TrackAuthorizations follows submitted authorizations: broadcast again what the node lost; a
// transaction that reverted or can no longer be mined fails the authorization unless the chain shows
// its nonce used (a copy someone else submitted first: that transfer is then credited to the task).
func (s *Service) TrackAuthorizations(ctx context.Context) {
	type open struct {
		task string
		a    axp.AuthPayment
	}
	var list []open
	s.base.Store.View(func(tx *store.Tx) error {
		for _, id := range tx.TaskIDsByStatus(axp.TaskAwaitingPayment) {
			t, err := tx.Task(id)
			if err == nil && t != nil && t.Authorization != nil && t.Authorization.Status == axp.AuthSubmitted {
				list = append(list, open{t.ID, *t.Authorization})
			}
		}
		return nil
	})
	for _, o := range list {
		r, err := s.rail.Chain.Receipt(ctx, o.a.TxHash)
		if err != nil {
			continue
		}
		switch {
		case r.Found && r.Success && o.a.Escrow != nil:
			// Its money went into the escrow contract, not to the deposit address: the receipt
			// funds the task once it has its confirmations.
			if r.Confirmations >= s.rail.Chain.Confirmations() {
				s.creditEscrow(ctx, o.task, o.a, r)
			}
			continue
		case r.Found && r.Success:
			continue // the watcher credits its transfer once it has its confirmations
		case !r.Found && s.base.Now().Unix() <= o.a.ValidBefore:
			tried, berr := s.resend(ctx, o.a.TxHash, o.a.Raw, func(tx *store.Tx) bool {
				t, err := tx.Task(o.task)
				return err == nil && t != nil && t.Authorization != nil && t.Authorization.Status == axp.AuthSubmitted && t.Authorization.TxHash == o.a.TxHash
			})
			if !tried || berr == nil || errors.Is(berr, chain.ErrUnanswered) {
				continue
			}
			if !errors.Is(berr, chain.ErrReplaced) {
				s.base.Log.WarnContext(ctx, "sending an authorization's transaction again failed", "source", "payments", "task", o.task, "err", berr)
				continue
			}
		case !r.Found:
			// Expired: it can no longer be mined; the nonce decides below.
		}
		// Reverted, replaced or expired: used on chain means another transaction carried it.
		used, err := s.rail.Chain.AuthorizationUsedHex(ctx, o.a.From, o.a.Nonce)
		if err != nil {
			continue
		}
		if used && o.a.Escrow != nil {
			// Only the operator authorizes into the escrow: another transaction of the hot wallet
			// used the payment's nonce. Logged for the operator; the task stays as it is.
			s.base.Log.ErrorContext(ctx, "an escrow authorization's nonce was used by another transaction than the one stored", "source", "payments",
				"task", o.task, "tx_hash", o.a.TxHash, "payment_hash", o.a.Escrow.PaymentHash)
			continue
		}
		if used {
			s.findCarrier(ctx, o.task, o.a)
			continue
		}
		why := "the authorization expired before it was mined"
		if r.Found {
			why = fmt.Sprintf("the transaction reverted in block %d", r.Block)
		}
		s.failAuthorization(ctx, o.task, o.a.TxHash, why)
	}
}

// findCarrier credits a task whose authorization another transaction used (a copy submitted by
// someone else): the token's AuthorizationUsed log names the transaction, read from the block the
// authorization was stored at (less the reorg window).
func (s *Service) findCarrier(ctx context.Context, taskID string, a axp.AuthPayment) {
	from := a.Block - min(a.Block, reorgWindow)
	hash, err := s.rail.Chain.AuthorizationTx(ctx, a.From, a.Nonce, from)
	if err != nil || hash == "" {
		return
	}
	r, err := s.rail.Chain.Receipt(ctx, hash)
	if err != nil || !r.Found || !r.Success || r.Confirmations < s.rail.Chain.Confirmations() {
		return
	}
	s.onInbound(ctx, depositTransfers(r, s.rail.Chain.Deposit()), taskID)
}

// depositTransfers are a receipt's transfers to the deposit address.
func depositTransfers(r chain.Receipt, deposit string) []chain.Transfer {
	var out []chain.Transfer
	for _, tr := range r.Transfers {
		if strings.EqualFold(tr.To, deposit) {
			out = append(out, tr)
		}
	}
	return out
}
