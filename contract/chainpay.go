package contract

import (
	"strings"

	"github.com/axp-exchange/axp"
)

// AdminReconcile declares admin_reconcile, GET /api/admin/reconcile.
var AdminReconcile = Define[NoInput, axp.Reconciliation](Op{Name: "admin_reconcile", Method: get, Path: "/api/admin/reconcile", Tag: "admin", Access: AdminAuth, Summary: "Compare the ledger with the chain: balances, transfers the ledger does not know, movements with no transfer."},
	nil)

// AdminWriteOff declares admin_write_off, POST /api/admin/payments/{tx_hash}/write-off.
var AdminWriteOff = Define[axp.WriteOffInput, axp.WriteOff](Op{Name: "admin_write_off", Method: post, Path: "/api/admin/payments/{tx_hash}/write-off", Tag: "admin", Access: AdminAuth, Summary: "Write off a reorged payment that never came back: the ledger stops counting it received, what left already is booked as the platform's loss, and the task's open payouts, refunds and splits are closed."},
	&axp.WriteOffInput{TxHash: "0x" + strings.Repeat("ab", 32), Note: "the buyer's transfer never came back after the reorg; settled with the buyer outside the exchange"})

// PayAuthorizationOp declares pay_authorization, POST /api/tasks/{id}/pay/authorization.
var PayAuthorizationOp = Define[axp.PayAuthorizationInput, axp.PaymentReport](Op{Name: "pay_authorization", Method: post, Path: "/api/tasks/{id}/pay/authorization", Tag: "buyer", Access: BuyerAuth, Owner: TaskBuyer, Tool: "pay_authorization", Summary: "Pay by a signed EIP-3009 authorization of exactly the task's price to the deposit address; the exchange submits it."},
	&axp.PayAuthorizationInput{TaskRef: axp.TaskRef{ID: "tsk_x"}, From: "0x52908400098527886E0F7030069857D2E4169EE7", ValidBefore: 1900000000,
		Signature: "0x" + strings.Repeat("ab", 65)})

// PayEscrowOp declares pay_escrow, POST /api/tasks/{id}/pay/escrow.
var PayEscrowOp = Define[axp.PayEscrowInput, axp.PaymentReport](Op{Name: "pay_escrow", Method: post, Path: "/api/tasks/{id}/pay/escrow", Tag: "buyer", Access: BuyerAuth, Owner: TaskBuyer, Tool: "pay_escrow", Summary: "Pay into the escrow contract by a signed ReceiveWithAuthorization of the task's payment.escrow terms; the exchange calls the escrow's authorize, and the money stays in the contract until it is captured for the seller or returned."},
	&axp.PayEscrowInput{TaskRef: axp.TaskRef{ID: "tsk_x"}, Payer: "0x52908400098527886E0F7030069857D2E4169EE7",
		Signature: "0x" + strings.Repeat("ab", 65)})
