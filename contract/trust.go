package contract

import (
	"github.com/axp-exchange/axp"
)

// GetMediation declares get_mediation, GET /api/mediations/{id}.
var GetMediation = Define[axp.TaskRef, axp.Mediation](Op{Name: "get_mediation", Method: get, Path: "/api/mediations/{id}", Tag: "buyer", Access: TaskParty, Owner: TaskParties, Tool: "get_mediation", Summary: "Mediation status: statements, decision, appeal."},
	&axp.TaskRef{ID: "med_x"})

// ListMessages declares list_messages, GET /api/tasks/{id}/messages.
var ListMessages = Define[axp.TaskRef, axp.MessageList](Op{Name: "list_messages", Method: get, Path: "/api/tasks/{id}/messages", Tag: "buyer", Access: TaskParty, Owner: TaskAudience, Tool: "messages", Summary: "Messages on a task."},
	&axp.TaskRef{ID: "tsk_x"})

// AdminAI declares admin_ai, GET /api/admin/ai.
var AdminAI = Define[axp.AIQuery, axp.AICallList](Op{Name: "admin_ai", Method: get, Path: "/api/admin/ai", Tag: "admin", Access: AdminAuth, Summary: "AI calls: prompts, responses, tokens, cost; and the configured provider."},
	&axp.AIQuery{TaskID: "tsk_x", Limit: 5})

// AdminMediations declares admin_mediations, GET /api/admin/mediations.
var AdminMediations = Define[axp.MediationsQuery, axp.MediationList](Op{Name: "admin_mediations", Method: get, Path: "/api/admin/mediations", Tag: "admin", Access: AdminAuth, Summary: "Mediations of disputes and review objections, newest first."},
	&axp.MediationsQuery{Status: "open", Kind: "dispute", TaskID: "tsk_x"})

// AdminMediation declares admin_mediation, GET /api/admin/mediations/{id}.
var AdminMediation = Define[axp.IDPath, axp.Mediation](Op{Name: "admin_mediation", Method: get, Path: "/api/admin/mediations/{id}", Tag: "admin", Access: AdminAuth, Summary: "One mediation, with both sides' statements and any decision."},
	&axp.IDPath{ID: "med_x"})

// AdminDecideMediation declares admin_decide_mediation, POST /api/admin/mediations/{id}/decide.
var AdminDecideMediation = Define[axp.DecideMediationBody, axp.Mediation](Op{Name: "admin_decide_mediation", Method: post, Path: "/api/admin/mediations/{id}/decide", Tag: "admin", Access: AdminAuth, Summary: "Decide an appealed mediation (or take over one that waits for statements); a dispute's refund or split goes to the approval queue."},
	&axp.DecideMediationBody{ID: "med_x", RefundPct: ptr(50), Outcome: "keep", Note: "n"})

// AdminListings declares admin_listings, GET /api/admin/listings.
var AdminListings = Define[axp.ListingsQuery, axp.ListingList](Op{Name: "admin_listings", Method: get, Path: "/api/admin/listings", Tag: "admin", Access: AdminAuth, Summary: "Listings the listing policy rejected."},
	&axp.ListingsQuery{Status: "all"})

// AdminOverturnListing declares admin_overturn_listing, POST /api/admin/listings/{id}/overturn.
var AdminOverturnListing = Define[axp.OverturnBody, axp.ListingRejection](Op{Name: "admin_overturn_listing", Method: post, Path: "/api/admin/listings/{id}/overturn", Tag: "admin", Access: AdminAuth, Summary: "Overturn a listing rejection: the same brief then passes when posted again."},
	&axp.OverturnBody{ID: "lst_x", Note: "n"})
