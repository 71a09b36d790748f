package daemon

import (
	"context"

	"github.com/axp-exchange/axp/daemon/rest"
)

// typed adapts a handler taking its decoded input.
func typed[T any](fn func(ctx context.Context, c *rest.Call, in *T) (any, error)) rest.Handler {
	return func(ctx context.Context, c *rest.Call) (any, error) { return fn(ctx, c, c.In.(*T)) }
}

// bind maps operation names to handlers. Operations missing here answer "not available yet".
func (d *Daemon) bind() map[string]rest.Handler {
	return map[string]rest.Handler{
		// public
		"health":                 d.health,
		"get_protocol":           d.getProtocol,
		"get_member_tools":       d.getMemberTools,
		"get_join":               d.getJoin,
		"get_why":                d.getWhy,
		"list_services":          d.listServices,
		"get_pricing":            d.getPricing,
		"get_faq":                d.getFAQ,
		"get_faq_markdown":       d.getFAQMarkdown,
		"search":                 typed(d.search),
		"list_sellers":           typed(d.listSellers),
		"get_quote":              typed(d.getQuote),
		"get_reputation":         typed(d.getReputation),
		"submit_feedback":        typed(d.submitFeedback),
		"get_payment_preference": d.getPaymentPreference,
		"payment_preference":     typed(d.paymentPreference),
		"register_interest":      typed(d.registerInterest),
		"get_survey":             d.getSurvey,
		"answer_survey":          typed(d.answerSurvey),
		"get_survey_results":     d.getSurveyResults,
		"get_openapi":            d.getOpenAPI,
		// tasks
		"create_task":           typed(d.createTask),
		"create_task_get":       typed(d.createTask),
		"get_task":              typed(d.getTask),
		"choose_offer":          typed(d.chooseOffer),
		"pay_crypto":            typed(d.payCrypto),
		"get_deliverable":       typed(d.getDeliverable),
		"accept_task":           typed(d.acceptTask),
		"dispute_task":          typed(d.disputeTask),
		"get_timeline":          typed(d.getTimeline),
		"request_redo":          typed(d.requestRedo),
		"answer_clarifications": typed(d.answerClarifications),
		"list_quote_requests":   d.listQuoteRequests,
		"submit_offer":          typed(d.submitOffer),
		"list_jobs":             typed(d.listJobs),
		"deliver":               typed(d.deliver),
		"request_payment":       typed(d.requestPayment),
		"admin_approvals":       typed(d.adminApprovals),
		"admin_approve":         typed(d.adminApprove),
		"admin_reject":          typed(d.adminReject),
		// members
		"register":          typed(d.register),
		"get_my_profile":    d.getMyProfile,
		"update_profile":    typed(d.updateProfile),
		"update_skills":     typed(d.updateSkills),
		"heartbeat":         d.heartbeat,
		"verify":            d.verifyMember,
		"run_conformance":   d.runConformance,
		"start_sandbox":     typed(d.startSandbox),
		"get_sandbox":       typed(d.getSandbox),
		"list_my_tasks":     d.listMyTasks,
		"favourites":        typed(d.setFavourites),
		"announcements":     d.listAnnouncements,
		"read_announcement": typed(d.readAnnouncement),
		"message_operator":  typed(d.messageOperator),
		// operator
		"admin_trace":             typed(d.adminTrace),
		"admin_log":               typed(d.adminLog),
		"admin_audit":             typed(d.adminAudit),
		"admin_metrics":           typed(d.adminMetrics),
		"admin_stats":             d.adminStats,
		"admin_announce":          typed(d.adminAnnounce),
		"admin_announcements":     d.adminAnnouncements,
		"admin_operator_messages": d.adminOperatorMessages,
		"admin_mediation":         typed(d.adminMediation),
		"admin_task_timeline":     typed(d.adminTaskTimeline),
		"admin_backup":            d.adminBackup,
		"admin_members":           typed(d.adminMembers),
		"admin_suspend":           typed(d.adminSuspend),
		"admin_unsuspend":         typed(d.adminUnsuspend),
		// trust and safety
		"submit_review":          typed(d.submitReview),
		"object_to_review":       typed(d.objectToReview),
		"translate":              typed(d.translate),
		"propose_settlement":     typed(d.proposeSettlement),
		"answer_settlement":      typed(d.answerSettlement),
		"escalate":               typed(d.escalate),
		"get_mediation":          typed(d.getMediation),
		"submit_statement":       typed(d.submitStatement),
		"appeal":                 typed(d.appeal),
		"list_messages":          typed(d.listMessages),
		"post_message":           typed(d.postMessage),
		"admin_ai":               typed(d.adminAI),
		"admin_mediations":       typed(d.adminMediations),
		"admin_decide_mediation": typed(d.adminDecideMediation),
		"admin_listings":         typed(d.adminListings),
		"admin_overturn_listing": typed(d.adminOverturnListing),
	}
}
