package contract

import (
	"github.com/axp-exchange/axp"
)

// AdminApprovals declares admin_approvals, GET /api/admin/approvals.
var AdminApprovals = Define[axp.ApprovalsQuery, axp.ApprovalList](Op{Name: "admin_approvals", Method: get, Path: "/api/admin/approvals", Tag: "admin", Access: AdminAuth, Summary: "The approval queue: every payment, payout, refund and split waits here for the operator."},
	&axp.ApprovalsQuery{Status: "open", Kind: "payout", TaskID: "tsk_x"})

// AdminApprove declares admin_approve, POST /api/admin/approvals/{id}/approve.
var AdminApprove = Define[axp.ApproveBody, axp.Approval](Op{Name: "admin_approve", Method: post, Path: "/api/admin/approvals/{id}/approve", Tag: "admin", Access: AdminAuth, Summary: "Approve a queue item: confirm a payment, or record the transaction that sent a payout, refund or split."},
	&axp.ApproveBody{ID: "apr_x", TxHash: "0xdddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddd", Note: "n"})

// AdminReject declares admin_reject, POST /api/admin/approvals/{id}/reject.
var AdminReject = Define[axp.RejectBody, axp.Approval](Op{Name: "admin_reject", Method: post, Path: "/api/admin/approvals/{id}/reject", Tag: "admin", Access: AdminAuth, Summary: "Reject a queue item with a reason; nothing moves."},
	&axp.RejectBody{ID: "apr_x", Reason: "r"})

var GetMyEarnings = Define[NoInput, axp.Earnings](Op{Name: "get_my_earnings", Method: get, Path: "/api/members/me/earnings", Tag: "seller", Access: SellerAuth, Tool: "get_my_earnings", Summary: "What your jobs paid, what waits for approval or is held and why, and where payouts go."},
	nil)
