package axp

import (
	"strconv"
	"strings"
	"time"
)

// ChainInfo names the chain, the stablecoin and the deposit address buyers pay to (spec 1.3).
type ChainInfo struct {
	ChainID        uint64 `json:"chain_id"`
	TokenAddress   string `json:"token_address"`
	TokenSymbol    string `json:"token_symbol,omitempty"`
	TokenDecimals  uint8  `json:"token_decimals"`
	DepositAddress string `json:"deposit_address"`
	Confirmations  uint64 `json:"confirmations"`
	// TokenName and TokenVersion are the token's EIP-712 domain (EIP-3009 authorizations are
	// signed under it); empty when the token has no EIP-3009 support.
	TokenName    string `json:"token_name,omitempty"`
	TokenVersion string `json:"token_version,omitempty"`
	// RPCURL is the test chain's JSON-RPC URL, on the exchange's own machine; only in test mode
	// (a real chain's node is the operator's business, not the buyers').
	RPCURL string `json:"rpc_url,omitempty"`
}

// TestFundInput is the body of POST /api/test/fund: test mode's faucet.
type TestFundInput struct {
	Address string `json:"address" schema:"required" doc:"the 0x address to fund"`
	USD     *Money `json:"usd,omitempty" schema:"min=0;max=1000" doc:"TestUSD to mint to it (default 100, at most 1000)"`
}

// TestFunds is the answer of the faucet: what it sent and the address's balances after.
type TestFunds struct {
	Address    string `json:"address"`
	USD        Money  `json:"usd"`
	TokenTx    string `json:"token_tx"`
	GasTx      string `json:"gas_tx,omitempty" doc:"the gas sent along, when the address had too little"`
	BalanceUSD Money  `json:"balance_usd"`
	GasWei     string `json:"gas_wei" doc:"the address's gas balance in wei"`
	TestMode   bool   `json:"test_mode"`
}

// Inbound outcomes: what a transfer to the deposit address did.
const (
	InboundFunded     = "funded"      // it paid a task (in full, or beyond: the excess goes back to the buyer)
	InboundPartial    = "partial"     // it paid part of a task; the rest is awaited
	InboundUnmatched  = "unmatched"   // no task waits for it: no reported hash, no payable amount matches
	InboundLate       = "late"        // its task no longer waits for payment (expired, cancelled or paid)
	InboundEarly      = "early"       // it was mined before the task it names existed
	InboundReorged    = "reorged"     // it funded a task, then its block left the canonical chain
	InboundWrittenOff = "written_off" // reorged and never back: the operator wrote it off (admin_write_off)
	InboundPaidCall   = "paid_call"   // it settled a pay-per-call payment (x402)
	InboundReturned   = "returned"    // it paid no task and the operator sent it back to its sender
	InboundEscrowFee  = "escrow_fee"  // the escrow paid the platform's fee of a capture the hot wallet sent
)

// InboundTransfer is one stablecoin transfer to the deposit address, as the watcher or a reported
// transaction found it.
type InboundTransfer struct {
	V        int    `json:"v"`
	TxHash   string `json:"tx_hash"`
	LogIndex uint   `json:"log_index"`
	Block    uint64 `json:"block"`
	// BlockHash is the hash of the block the transfer was found in, re-checked while recent.
	BlockHash string    `json:"block_hash,omitempty"`
	BlockTime time.Time `json:"block_time"`
	From      string    `json:"from"`
	Amount    Money     `json:"amount_usd"`
	Outcome   string    `json:"outcome"`
	TaskID    string    `json:"task_id,omitempty"`
	Note      string    `json:"note,omitempty"`
	// Before is the outcome a reorged transfer had (funded or partial), restored if it comes back.
	Before string    `json:"outcome_before_reorg,omitempty"`
	SeenAt time.Time `json:"seen_at"`
}

// ChainMark is a transfer the watcher credited, with the block it was found in: re-checked on every
// pass while recent, so a reorg deeper than the confirmations is noticed.
type ChainMark struct {
	TxHash    string `json:"tx_hash"`
	LogIndex  uint   `json:"log_index"`
	Block     uint64 `json:"block"`
	BlockHash string `json:"block_hash"`
	TaskID    string `json:"task_id"`
	Amount    Money  `json:"amount_usd"`
	// ApprovalID is set for a transfer the exchange sent (a payout, refund or split part): a
	// reorg then sends it again, where an incoming one marks the payment reorged.
	ApprovalID string `json:"approval_id,omitempty"`
}

// Reconciliation compares the ledger with the chain (axp admin reconcile).
type Reconciliation struct {
	Chain ChainInfo `json:"chain"`
	// DepositBalanceUSD and HotWalletBalanceUSD are what the chain says the two addresses hold
	// (one figure when they are the same address).
	DepositBalanceUSD   Money  `json:"deposit_balance_usd"`
	HotWalletAddress    string `json:"hot_wallet_address,omitempty"`
	HotWalletBalanceUSD Money  `json:"hot_wallet_balance_usd"`
	// QueuedUSD is what approving every open payout, refund and split would send. Payouts leave
	// from the hot wallet's own balance while payments stay at the deposit address, so the
	// operator keeps the hot wallet funded; FloatShortUSD is what it lacks to cover the queue.
	QueuedUSD     Money `json:"queued_usd"`
	FloatShortUSD Money `json:"float_short_usd,omitempty"`
	// ReceivedUSD is every payment the ledger booked; PaidOutUSD every payout and refund it booked;
	// ExpectedUSD = ReceivedUSD - PaidOutUSD - InFlightUSD is what the exchange's addresses must
	// hold together (escrow, fees, tags); DifferenceUSD is what they hold beyond it and beyond the
	// unknown transfers: positive is money the operator put in (the hot wallet's float), negative
	// is money missing.
	ReceivedUSD   Money `json:"received_usd"`
	PaidOutUSD    Money `json:"paid_out_usd"`
	InFlightUSD   Money `json:"in_flight_usd"`
	ExpectedUSD   Money `json:"expected_usd"`
	DifferenceUSD Money `json:"difference_usd"`
	// Address by address, so the hot wallet's float does not hide money missing at the deposit
	// address. DepositExpectedUSD is what the deposit address must hold: every payment and stray
	// transfer it received, less what the ledger's payouts and refunds took from it on chain;
	// DepositDifferenceUSD is its balance beyond that (negative: money left it that the ledger
	// does not know of). HotWalletSentUSD is what the ledger's payouts, refunds and returns took
	// from the hot wallet (in flight included), and FloatUSD what the operator put into it in all:
	// its balance plus what it sent.
	DepositExpectedUSD   Money `json:"deposit_expected_usd"`
	DepositDifferenceUSD Money `json:"deposit_difference_usd"`
	HotWalletSentUSD     Money `json:"hot_wallet_sent_usd,omitempty"`
	FloatUSD             Money `json:"float_usd,omitempty"`
	// UnknownTransfers reached the deposit address and fund no task.
	UnknownTransfers []InboundTransfer `json:"unknown_transfers"`
	// MissingTransfers are ledger movements whose transaction the chain does not show as a
	// successful transfer of the token (to the deposit address for payments).
	MissingTransfers []LedgerGap   `json:"missing_transfers"`
	InFlight         []OutTransfer `json:"in_flight"`
	Covered          bool          `json:"covered" doc:"the chain holds at least what the ledger says, with no unknown transfer and no missing one"`
	ScannedToBlock   uint64        `json:"scanned_to_block"`
}

// LedgerGap is a ledger movement the chain does not confirm.
type LedgerGap struct {
	EntryID string `json:"entry_id"`
	TaskID  string `json:"task_id"`
	Kind    string `json:"kind"`
	TxHash  string `json:"tx_hash"`
	Amount  Money  `json:"amount_usd"`
	Why     string `json:"why"`
}

// The chain payment operations.

// WriteOffInput names a reorged payment to write off, with the operator's reason.
type WriteOffInput struct {
	TxHash string `json:"tx_hash" schema:"required;pattern=^0x[0-9a-fA-F]{64}$" doc:"the transaction of the reorged payment"`
	Note   string `json:"note" schema:"required;minLength=1;maxLength=2000" doc:"why it is written off (kept in the ledger entry, the audit trail and the task's timeline)"`
}

// WriteOff is what writing off a reorged payment booked and closed.
type WriteOff struct {
	TxHash string `json:"tx_hash"`
	TaskID string `json:"task_id"`
	// AmountUSD is the payment written off: FromEscrowUSD came out of what the task still held,
	// LossUSD had left already (paid out on money that never came) and is booked to platform:losses.
	AmountUSD     Money       `json:"amount_usd"`
	FromEscrowUSD Money       `json:"from_escrow_usd"`
	LossUSD       Money       `json:"loss_usd"`
	Entry         LedgerEntry `json:"entry"`
	// Closed are the task's payouts, refunds and splits rejected with the note: they were computed
	// on money the task never received.
	Closed []string `json:"closed_approvals"`
	// StillReorged is set when another payment of the task is still off the chain: its holds stay.
	StillReorged bool   `json:"still_reorged,omitempty"`
	Note         string `json:"note"`
}

// PayerMessage is the text (EIP-191 personal_sign) whose signature by an address binds that
// address's transfers to the deposit address to one task: a transfer whose amount does not name
// its task is credited to the task its sender signed for, never to a task that only reported its
// hash. It names the exchange's chain and deposit address, so it is worth nothing elsewhere.
func PayerMessage(taskID string, chainID uint64, deposit string) string {
	return "axp payment\nI pay task " + taskID + " from this address.\nchain: " + strconv.FormatUint(chainID, 10) + "\ndeposit: " + strings.ToLower(deposit)
}

// PaidIn is one transfer credited to a task: its hash, sender and amount. A refund of the task
// goes back per transfer, to the address that sent it.
type PaidIn struct {
	TxHash string `json:"tx_hash"`
	From   string `json:"from,omitempty"`
	Amount Money  `json:"amount_usd"`
}

// Refunds divides a refund of amount among the transfers that paid a task, the latest first (the
// money that came last goes back first): each part names the transfer it returns and its sender.
// Parts of transfers with no sender known (confirmed by hand) are summed in byHand; what the
// transfers do not cover at all is in rest.
func Refunds(paid []PaidIn, amount Money) (parts []PaidIn, byHand, rest Money) {
	rest = amount
	for i := len(paid) - 1; i >= 0 && rest > 0; i-- {
		p := paid[i]
		take := min(max(p.Amount, 0), rest)
		if take == 0 {
			continue
		}
		rest -= take
		if p.From == "" {
			byHand += take
			continue
		}
		parts = append(parts, PaidIn{TxHash: p.TxHash, From: p.From, Amount: take})
	}
	return parts, byHand, rest
}

// AuthorizationTerms is what a buyer signs to pay a task by authorization: an EIP-3009
// TransferWithAuthorization (EIP-712 typed data under the token's domain) of exactly value to the
// deposit address, under a nonce derived from the task id. The exchange submits it, so the money is
// for this task and no other, at the exact price, with no tag. The signer picks valid_after (0 is
// fine) and valid_before (at most valid_before_max).
type AuthorizationTerms struct {
	PrimaryType    string     `json:"primary_type" doc:"TransferWithAuthorization"`
	Domain         AuthDomain `json:"domain"`
	To             string     `json:"to" doc:"the deposit address"`
	Value          string     `json:"value" doc:"token units: what the task still waits for, the offer's buyer total less what it received"`
	ValueUSD       Money      `json:"value_usd"`
	Nonce          string     `json:"nonce" doc:"0x, 32 bytes, derived from the task id"`
	ValidBeforeMax int64      `json:"valid_before_max" doc:"the latest valid_before accepted (unix seconds): the end of the payment window"`
}

// AuthDomain is an EIP-712 domain.
type AuthDomain struct {
	Name              string `json:"name"`
	Version           string `json:"version"`
	ChainID           uint64 `json:"chainId"`
	VerifyingContract string `json:"verifyingContract"`
}

// AuthPayment is a task's payment by authorization, from the moment the exchange signed the
// transaction that submits it (stored before it is broadcast) until the chain decides.
type AuthPayment struct {
	From        string    `json:"from"`
	Nonce       string    `json:"nonce"`
	Amount      Money     `json:"amount_usd"`
	ValidBefore int64     `json:"valid_before"`
	TxHash      string    `json:"tx_hash"`
	Raw         string    `json:"raw_tx,omitempty"`
	SubmittedAt time.Time `json:"submitted_at"`
	// Block is the chain head when it was submitted: a copy of it is looked for from there on.
	Block uint64 `json:"block,omitempty"`
	// Status is submitted (waiting for the chain), used (the watcher credited it) or failed (the
	// chain refused it and its nonce is unused: the buyer may sign again).
	Status  string `json:"status"`
	Failure string `json:"failure,omitempty"`
	// Escrow is set when the authorization pays into the escrow contract (pay_escrow): the
	// transaction calls the escrow's authorize, and the task is funded from its receipt.
	Escrow *EscrowPayment `json:"escrow,omitempty"`
}

// Authorization payment states.
const (
	AuthSubmitted = "submitted"
	AuthUsed      = "used"
	AuthFailed    = "failed"
)

// PayAuthorizationInput pays a task by a signed EIP-3009 authorization (payment.authorization
// gives the terms to sign).
type PayAuthorizationInput struct {
	TaskRef
	From        string `json:"from" schema:"required;format=evm-address" doc:"the paying address, which signed"`
	ValidAfter  int64  `json:"valid_after,omitempty" schema:"min=0" doc:"unix seconds; 0 for at once"`
	ValidBefore int64  `json:"valid_before" schema:"required;min=1" doc:"unix seconds; at most payment.authorization.valid_before_max"`
	Signature   string `json:"signature" schema:"required;pattern=^0x[0-9a-fA-F]{130}$" doc:"65-byte EIP-712 signature of the TransferWithAuthorization"`
}

// EscrowTerms is what a buyer signs to pay a task into the escrow contract (pay_escrow): the
// payment's terms (the contract's PaymentInfo, payer left out: it is the address that signs) and
// the EIP-712 ReceiveWithAuthorization of the whole amount to the escrow's ERC-3009 collector,
// under the nonce the collector derives from the terms. The exchange calls authorize with it from
// its hot wallet; the money then sits in the escrow contract, not at an address of the exchange,
// until the exchange captures it for the seller or returns it, or, once authorizationExpiry has
// passed, the buyer reclaims it.
type EscrowTerms struct {
	EscrowAddress    string              `json:"escrow_address"`
	CollectorAddress string              `json:"collector_address" doc:"the ERC-3009 payment collector the authorization pays"`
	PaymentInfo      EscrowPaymentInfo   `json:"payment_info"`
	Authorization    EscrowAuthorization `json:"authorization"`
}

// EscrowPaymentInfo is the escrow contract's PaymentInfo, with its field names: addresses as 0x
// hex, amounts in token units as decimal strings, expiries in unix seconds.
type EscrowPaymentInfo struct {
	Operator            string `json:"operator" doc:"the exchange's hot wallet: the only sender of authorize, capture, void and refund"`
	Payer               string `json:"payer,omitempty" doc:"the paying address; left out of the terms offered (the signer is the payer)"`
	Receiver            string `json:"receiver" doc:"the seller's payout address"`
	Token               string `json:"token"`
	MaxAmount           string `json:"maxAmount" doc:"token units: the offer's buyer total"`
	PreApprovalExpiry   int64  `json:"preApprovalExpiry" doc:"the end of the payment window"`
	AuthorizationExpiry int64  `json:"authorizationExpiry" doc:"the latest capture; from then on the payer may reclaim"`
	RefundExpiry        int64  `json:"refundExpiry"`
	MinFeeBps           uint16 `json:"minFeeBps"`
	MaxFeeBps           uint16 `json:"maxFeeBps"`
	FeeReceiver         string `json:"feeReceiver"`
	Salt                string `json:"salt" doc:"decimal, derived from the task id and the chosen offer"`
}

// EscrowAuthorization is the ReceiveWithAuthorization to sign (EIP-712 under the token's domain):
// from the payer to the collector, exactly value, valid_after 0 and valid_before the terms'
// preApprovalExpiry, as the collector checks them.
type EscrowAuthorization struct {
	PrimaryType string     `json:"primary_type" doc:"ReceiveWithAuthorization"`
	Domain      AuthDomain `json:"domain"`
	To          string     `json:"to" doc:"the collector"`
	Value       string     `json:"value" doc:"token units: payment_info.maxAmount"`
	ValueUSD    Money      `json:"value_usd"`
	ValidAfter  int64      `json:"valid_after"`
	ValidBefore int64      `json:"valid_before"`
	Nonce       string     `json:"nonce" doc:"0x, 32 bytes: the payment's hash with the payer zeroed"`
}

// EscrowPayment is what a task paid into the escrow contract holds beside its AuthPayment: the
// payment's full terms (payer included) and their hash, which every later call names.
type EscrowPayment struct {
	EscrowAddress    string            `json:"escrow_address"`
	CollectorAddress string            `json:"collector_address"`
	PaymentInfo      EscrowPaymentInfo `json:"payment_info"`
	PaymentHash      string            `json:"payment_hash"`
	// ReclaimTxHash is the payer's reclaim of the payment, once the watcher found it: the money
	// went back to the payer from the contract, and the task ended refunded.
	ReclaimTxHash string `json:"reclaim_tx_hash,omitempty"`
}

// EscrowHold is, in the view of a task paid into the escrow contract (pay_escrow), where the
// buyer's money is and how the buyer takes it back when the exchange neither pays it out nor
// refunds it: from authorization_expiry on, the payer's reclaim returns everything the contract
// still holds, with no exchange involved.
type EscrowHold struct {
	EscrowAddress string `json:"escrow_address"`
	PaymentHash   string `json:"payment_hash" doc:"the payment's identity on the escrow (its getHash)"`
	AmountUSD     Money  `json:"amount_usd" doc:"what the buyer paid into the contract"`
	State         string `json:"state" schema:"enum=held|captured|voided|reclaimed" doc:"held (the contract holds the money), captured (paid to the seller), voided (returned to the buyer by the exchange) or reclaimed (taken back by the buyer)"`
	// AuthorizationExpiry is the latest capture; from then on the buyer may reclaim.
	AuthorizationExpiry time.Time `json:"authorization_expiry"`
	// Reclaim is the command that reclaims the money once the expiry has passed, while it is held.
	Reclaim       string `json:"reclaim,omitempty" doc:"buyer view, while held: the command that reclaims the money once authorization_expiry has passed"`
	ReclaimTxHash string `json:"reclaim_tx_hash,omitempty" doc:"the buyer's reclaim, once seen on chain"`
	// PaymentInfo is the payment's terms, payer included: what a reclaim names.
	PaymentInfo EscrowPaymentInfo `json:"payment_info"`
}

// Escrow states of a task's payment (EscrowHold.State).
const (
	EscrowHeld      = "held"
	EscrowCaptured  = "captured"
	EscrowVoided    = "voided"
	EscrowReclaimed = "reclaimed"
)

// PayEscrowInput pays a task into the escrow contract by the payer's signature of
// payment.escrow.authorization.
type PayEscrowInput struct {
	TaskRef
	Payer     string `json:"payer" schema:"required;format=evm-address" doc:"the paying address, which signed"`
	Signature string `json:"signature" schema:"required;pattern=^0x[0-9a-fA-F]{130}$" doc:"65-byte EIP-712 signature of payment.escrow.authorization"`
}
