// Package money is the money service: payments reported and found on chain, the operator's approval
// queue, payouts and refunds sent on approval, reorg handling and reconciliation. Nothing leaves
// without an approval; it knows no task flow beyond the kernel's task records.
package money
