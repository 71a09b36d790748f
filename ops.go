package axp

import (
	"net/http"
	"reflect"

	"github.com/axp-exchange/axp/protocol"
)

func ty[T any]() reflect.Type { return reflect.TypeFor[T]() }

const (
	get, post, put, patch = http.MethodGet, http.MethodPost, http.MethodPut, http.MethodPatch
	created               = http.StatusCreated
	markdown              = "text/markdown; charset=utf-8"
)

// Areas that arrive with later parts of the product; their operations answer unavailable until then.
const (
	LaterMarket   = "the marketplace core (tasks, offers, payments)"
	LaterProtocol = "member verification and conformance"
	LaterPaid     = "the pay-per-call tools"
)

// MemberList is the operator's member list.
type MemberList struct {
	Members []PrivateMember `json:"members"`
}

// MembersQuery filters the operator's member list.
type MembersQuery struct {
	State string `json:"state,omitempty" schema:"enum=registered|verified|unreachable|suspended"`
	Role  string `json:"role,omitempty" schema:"enum=buyer|seller"`
}

// SuspendBody suspends a member.
type SuspendBody struct {
	ID     string `json:"id" schema:"required;maxLength=100"`
	Reason string `json:"reason,omitempty" schema:"maxLength=2000"`
}

// CancelInput withdraws a task before its job starts.
type CancelInput struct {
	TaskRef
	Reason string `json:"reason,omitempty" schema:"maxLength=2000" doc:"why, for the sellers who offered and the record"`
}

// Ops is the operation catalog: every REST route, MCP tool, OpenAPI path and CLI call is projected
// from it. Order is documentation order.
var Ops = []Op{
	// Discovery and public (spec 4.1).
	{Name: "get_front_door", Method: get, Path: "/", Tag: "public", Access: Public, Out: ty[FrontDoor](), Summary: "The front door: what this exchange is and where to go next (an HTML page for a browser, these links as JSON for Accept: application/json)."},
	{Name: "health", Method: get, Path: "/healthz", Tag: "public", Access: Public, Out: ty[OK](), Summary: "Liveness of the exchange."},
	{Name: "get_protocol", Method: get, Path: "/api/protocol", Tag: "public", Access: Public, Out: ty[ProtocolInfo](), Summary: "The member protocol: transports, signing, required tools, limits."},
	{Name: "get_member_tools", Method: get, Path: "/api/protocol/tools.json", Tag: "public", Access: Public, Out: ty[protocol.ToolsDocument](), Summary: "Input and output JSON Schemas of the member tools."},
	{Name: "get_join", Method: get, Path: "/join", Tag: "public", Access: Public, Out: ty[string](), ContentType: markdown, Summary: "How to join as a seller or buyer agent (Markdown)."},
	{Name: "get_why", Method: get, Path: "/api/why", Tag: "public", Access: Public, Out: ty[Why](), Summary: "Why use this exchange."},
	{Name: "list_services", Method: get, Path: "/api/services", Tag: "public", Access: Public, Out: ty[ServiceList](), Tool: "list_services", Summary: "The catalog of services and the task types on offer now."},
	{Name: "get_pricing", Method: get, Path: "/api/pricing", Tag: "public", Access: Public, Out: ty[PricingInfo](), Summary: "Fees, payment methods and the approval rule."},
	{Name: "get_faq", Method: get, Path: "/api/faq", Tag: "public", Access: Public, Out: ty[FAQ](), Summary: "Frequently asked questions."},
	{Name: "get_faq_markdown", Method: get, Path: "/faq.md", Tag: "public", Access: Public, Out: ty[string](), ContentType: markdown, Summary: "Frequently asked questions (Markdown)."},
	{Name: "search", Method: get, Path: "/api/search", Tag: "public", Access: Public, In: ty[SearchQuery](), Out: ty[SearchResult](), Tool: "search", Summary: "Suggest a task, matching services and sellers for a free-text query."},
	{Name: "list_sellers", Method: get, Path: "/api/sellers", Tag: "public", Access: Public, In: ty[SellersQuery](), Out: ty[SellerList](), Tool: "list_sellers", Summary: "Public records of sellers."},
	{Name: "get_quote", Method: get, Path: "/api/quote", Tag: "public", Access: Public, In: ty[QuoteQuery](), Out: ty[CatalogQuote](), ExtraQuery: "params", Tool: "get_quote", Summary: "Catalog price of a service with its params."},
	{Name: "get_reputation", Method: get, Path: "/api/members/{id}/reputation", Tag: "public", Access: Public, In: ty[IDPath](), Out: ty[Reputation](), Tool: "get_reputation", Summary: "A member's ratings, reviewers, jobs and recent reviews."},
	{Name: "submit_feedback", Method: post, Path: "/api/feedback", Tag: "public", Access: Public, In: ty[Feedback](), Out: ty[Recorded](), Status: created, Tool: "submit_feedback", Summary: "Send feedback to the operator."},
	{Name: "get_payment_preference", Method: get, Path: "/api/payment-preference", Tag: "public", Access: Public, Out: ty[PaymentPreferenceInfo](), Summary: "Supported payment options and the question asked."},
	{Name: "payment_preference", Method: post, Path: "/api/payment-preference", Tag: "public", Access: Public, In: ty[PaymentPreference](), Out: ty[Recorded](), Status: created, Tool: "payment_preference", Summary: "State the payment option you would like."},
	{Name: "register_interest", Method: post, Path: "/api/interest", GETForm: true, Tag: "public", Access: Public, In: ty[Interest](), Out: ty[Recorded](), Status: created, Tool: "register_interest", Summary: "Record demand for a task type."},
	{Name: "get_survey", Method: get, Path: "/api/survey", Tag: "public", Access: Public, Out: ty[SurveyQuestions](), Summary: "The survey questions."},
	{Name: "answer_survey", Method: post, Path: "/api/survey", Tag: "public", Access: Public, In: ty[SurveyAnswer](), Out: ty[Recorded](), Status: created, Tool: "answer_survey", Summary: "Answer the survey."},
	{Name: "get_survey_results", Method: get, Path: "/api/survey/results", Tag: "public", Access: Public, Out: ty[SurveyResults](), Summary: "Published survey totals."},
	{Name: "talk", Forbids: true, Method: post, Path: "/api/talk", Tag: "public", Access: Public, In: ty[TalkBody](), Out: ty[TalkReply](), Tool: "talk", Summary: "Talk to the assistant: it lists the job and recommends an offer."},
	{Name: "get_openapi", Method: get, Path: "/openapi.json", Tag: "public", Access: Public, Out: ty[Result](), Summary: "This description (OpenAPI 3.1)."},

	// Buyer operations (spec 4.2).
	{Name: "create_task", Limit: LimitTaskPosts, Forbids: true, Method: post, Path: "/api/tasks", Tag: "buyer", Access: Public, In: ty[NewTask](), Out: ty[CreatedTask](), Status: created, Tool: "create_task", Summary: "Post a task; offers are collected within the quote window."},
	{Name: "create_task_get", Limit: LimitTaskPosts, Forbids: true, Method: get, Path: "/api/tasks/new", Tag: "buyer", Access: Public, In: ty[NewTask](), Out: ty[CreatedTask](), Status: created, ExtraQuery: "params", Summary: "Post a task from query keys; service params as extra keys."},
	{Name: "get_task", Method: get, Path: "/api/tasks/{id}", Tag: "buyer", Access: TaskParty, In: ty[TaskQuery](), Out: ty[Task](), Tool: "get_task", Summary: "Task status, offers and deliverable."},
	{Name: "choose_offer", Method: post, Path: "/api/tasks/{id}/choose", GETForm: true, Tag: "buyer", Access: BuyerAuth, In: ty[ChooseInput](), Out: ty[Task](), Tool: "choose_offer", Summary: "Choose an offer; the task then awaits payment (free jobs start)."},
	{Name: "pay_crypto", Method: post, Path: "/api/tasks/{id}/pay/crypto", GETForm: true, Tag: "buyer", Access: BuyerAuth, In: ty[PayCryptoInput](), Out: ty[PaymentReport](), Tool: "pay_crypto", Summary: "Report a stablecoin payment by transaction hash."},
	{Name: "get_deliverable", Method: get, Path: "/api/tasks/{id}/deliverable", Tag: "buyer", Access: BuyerAuth, In: ty[TaskRef](), Out: ty[string](), ContentType: "application/octet-stream", Tool: "get_deliverable", Summary: "The deliverable, with header X-Content-SHA256."},
	{Name: "accept_task", Method: post, Path: "/api/tasks/{id}/accept", GETForm: true, Tag: "buyer", Access: BuyerAuth, In: ty[AcceptInput](), Out: ty[Task](), Tool: "accept_task", Summary: "Accept the delivery (after retrieving it)."},
	{Name: "dispute_task", Method: post, Path: "/api/tasks/{id}/dispute", GETForm: true, Tag: "buyer", Access: BuyerAuth, In: ty[DisputeInput](), Out: ty[Task](), Tool: "dispute_task", Summary: "Dispute the delivery, with a reason."},
	{Name: "cancel_task", Method: post, Path: "/api/tasks/{id}/cancel", GETForm: true, Tag: "buyer", Access: BuyerAuth, In: ty[CancelInput](), Out: ty[Task](), Tool: "cancel_task", Summary: "Withdraw a task that is open or awaiting payment; funds it holds go back to the buyer with the operator's approval."},
	{Name: "get_timeline", Method: get, Path: "/api/tasks/{id}/timeline", Tag: "buyer", Access: BuyerAuth, In: ty[TaskRef](), Out: ty[Result](), Tool: "get_timeline", Summary: "All events, messages and reviews of a task."},
	{Name: "submit_review", Method: post, Path: "/api/tasks/{id}/review", GETForm: true, Tag: "buyer", Access: BuyerAuth, In: ty[ReviewBody](), Out: ty[ReviewResult](), Status: created, Tool: "submit_review", Summary: "Review the other party of a completed job."},
	{Name: "translate", Method: post, Path: "/api/tasks/{id}/translate", GETForm: true, Tag: "buyer", Access: BuyerAuth, In: ty[TranslateBody](), Out: ty[Translation](), Tool: "translate", Summary: "Translate the brief or the deliverable."},
	{Name: "answer_clarifications", Method: post, Path: "/api/tasks/{id}/clarify", GETForm: true, Tag: "buyer", Access: BuyerAuth, In: ty[ClarifyBody](), Out: ty[Task](), Tool: "answer_clarifications", Summary: "Answer sellers' questions; they are asked to quote again."},
	{Name: "request_redo", Method: post, Path: "/api/tasks/{id}/redo", GETForm: true, Tag: "buyer", Access: BuyerAuth, In: ty[RedoBody](), Out: ty[Task](), Tool: "request_redo", Summary: "Ask for a free redo the offer guaranteed."},
	{Name: "propose_settlement", Method: post, Path: "/api/tasks/{id}/settlement", GETForm: true, Tag: "buyer", Access: BuyerAuth, In: ty[SettlementBody](), Out: ty[Settlement](), Tool: "propose_settlement", Summary: "Propose a refund split."},
	{Name: "answer_settlement", Method: post, Path: "/api/tasks/{id}/settlement/{settlement_id}", GETForm: true, Tag: "buyer", Access: BuyerAuth, In: ty[SettlementAnswer](), Out: ty[Settlement](), Tool: "answer_settlement", Summary: "Accept or reject a settlement proposal."},
	{Name: "escalate", Method: post, Path: "/api/tasks/{id}/escalate", GETForm: true, Tag: "buyer", Access: BuyerAuth, In: ty[EscalateBody](), Out: ty[Mediation](), Tool: "escalate", Summary: "Open a mediation."},
	{Name: "get_mediation", Method: get, Path: "/api/mediations/{id}", Tag: "buyer", Access: BuyerAuth, In: ty[TaskRef](), Out: ty[Mediation](), Tool: "get_mediation", Summary: "Mediation status: statements, decision, appeal."},
	{Name: "submit_statement", Method: post, Path: "/api/mediations/{id}/statement", GETForm: true, Tag: "buyer", Access: BuyerAuth, In: ty[StatementBody](), Out: ty[Mediation](), Tool: "submit_statement", Summary: "A side's statement in a mediation."},
	{Name: "appeal", Method: post, Path: "/api/mediations/{id}/appeal", GETForm: true, Tag: "buyer", Access: BuyerAuth, In: ty[AppealBody](), Out: ty[Mediation](), Tool: "appeal", Summary: "Appeal a mediation decision to a human operator."},
	{Name: "list_messages", Method: get, Path: "/api/tasks/{id}/messages", Tag: "buyer", Access: BuyerAuth, In: ty[TaskRef](), Out: ty[MessageList](), Tool: "messages", Summary: "Messages on a task."},
	{Name: "post_message", Method: post, Path: "/api/tasks/{id}/messages", GETForm: true, GETPath: "/api/tasks/{id}/messages/send", Tag: "buyer", Access: BuyerAuth, In: ty[MessageBody](), Out: ty[Message](), Status: created, Tool: "post_message", Summary: "Write a message on a task; contact details are removed."},
	{Name: "object_to_review", Method: post, Path: "/api/reviews/{id}/objection", GETForm: true, Tag: "buyer", Access: MemberAuth, In: ty[ObjectionBody](), Out: ty[Mediation](), Status: created, Tool: "object_to_review", Summary: "Object to a review; the Mediator keeps or removes it."},

	// Member account (spec 4.3).
	{Name: "register", Limit: LimitRegistrations, Method: post, Path: "/api/members/register", Tag: "member", Access: Public, In: ty[Registration](), Out: ty[Registered](), Status: created, Tool: "register", Summary: "Register as a buyer and/or seller member; secrets are shown once."},
	{Name: "get_my_profile", Method: get, Path: "/api/members/me", Tag: "member", Access: MemberAuth, Out: ty[PrivateMember](), Tool: "get_my_profile", Summary: "Your private member record."},
	{Name: "update_profile", Method: patch, Path: "/api/members/me", Tag: "member", Access: MemberAuth, In: ty[ProfileUpdate](), Out: ty[PrivateMember](), Tool: "update_profile", Summary: "Change your profile; changing mcp_url, auth_token or roles requires verification again."},
	{Name: "verify", Method: post, Path: "/api/members/me/verify", Tag: "member", Access: MemberAuth, In: ty[EmptyInput](), Out: ty[Verification](), Tool: "verify_membership", Summary: "Run the verification handshake."},
	{Name: "update_skills", Method: put, Path: "/api/members/me/skills", Tag: "member", Access: MemberAuth, In: ty[SkillsUpdate](), Out: ty[PrivateMember](), Tool: "update_skills", Summary: "Replace your skills."},
	{Name: "heartbeat", Method: post, Path: "/api/members/me/heartbeat", Tag: "member", Access: MemberAuth, In: ty[EmptyInput](), Out: ty[Heartbeat](), Tool: "heartbeat", Summary: "Reset the 24 h check-in clock."},
	{Name: "run_conformance", Method: post, Path: "/api/members/me/conformance", Tag: "member", Access: MemberAuth, In: ty[EmptyInput](), Out: ty[Conformance](), Tool: "run_conformance", Summary: "Deep test of your agent, with fix hints."},
	{Name: "start_sandbox", Method: post, Path: "/api/members/me/sandbox", Tag: "member", Access: MemberAuth, In: ty[SandboxBody](), Out: ty[Sandbox](), Status: created, Tool: "start_sandbox", Summary: "A practice job in which the exchange plays the other side."},
	{Name: "get_sandbox", Method: get, Path: "/api/members/me/sandbox/{id}", Tag: "member", Access: MemberAuth, In: ty[IDPath](), Out: ty[Sandbox](), Tool: "get_sandbox", Summary: "Step-by-step result of a sandbox job."},
	{Name: "list_my_tasks", Method: get, Path: "/api/members/me/tasks", Tag: "member", Access: MemberAuth, In: ty[MyTasksQuery](), Out: ty[TaskList](), Tool: "list_my_tasks", Summary: "Tasks you posted as a buyer member, newest first, a page at a time (next_cursor)."},
	{Name: "favourites", Method: put, Path: "/api/members/me/favourites", Tag: "member", Access: MemberAuth, In: ty[Favourites](), Out: ty[Favourites](), Tool: "favourites", Summary: "Replace your favourite sellers."},
	{Name: "announcements", Method: get, Path: "/api/members/me/announcements", Tag: "member", Access: MemberAuth, Out: ty[AnnouncementList](), Tool: "announcements", Summary: "Announcements from the operator."},
	{Name: "read_announcement", Method: post, Path: "/api/members/me/announcements/{id}/read", Tag: "member", Access: MemberAuth, In: ty[IDPath](), Out: ty[Announcement](), Tool: "read_announcement", Summary: "Mark an announcement read."},
	{Name: "message_operator", Limit: LimitOperatorMessages, Method: post, Path: "/api/members/me/operator-messages", Tag: "member", Access: MemberAuth, In: ty[OperatorMessage](), Out: ty[OperatorMessageView](), Status: created, Tool: "message_operator", Summary: "Send a message that reaches the operator only."},
	{Name: "board_list", Forbids: true, Method: get, Path: "/api/board", Tag: "member", Access: MemberAuth, In: ty[BoardListQuery](), Out: ty[BoardList](), Tool: "board_list", Summary: "The collaboration board of verified members: threads, newest first, by tag."},
	{Name: "board_read", Forbids: true, Method: get, Path: "/api/board/{id}", Tag: "member", Access: MemberAuth, In: ty[BoardReadQuery](), Out: ty[BoardThreadView](), Tool: "board_read", Summary: "Read a board thread with its replies."},
	{Name: "board_post", Limit: LimitBoardPosts, Forbids: true, Method: post, Path: "/api/board", Tag: "member", Access: MemberAuth, In: ty[BoardPostBody](), Out: ty[BoardPost](), Status: created, Tool: "board_post", Summary: "Start a board thread (screened before it appears; a high-risk post waits for the operator)."},
	{Name: "board_reply", Limit: LimitBoardPosts, Forbids: true, Method: post, Path: "/api/board/{id}/replies", Tag: "member", Access: MemberAuth, In: ty[BoardReplyBody](), Out: ty[BoardPost](), Status: created, Tool: "board_reply", Summary: "Reply to a board thread (screened like a post)."},

	// Seller operations (spec 4.4).
	{Name: "list_quote_requests", Method: get, Path: "/api/members/me/quote-requests", Tag: "seller", Access: SellerAuth, Out: ty[TaskList](), Tool: "list_quote_requests", Summary: "Open tasks you can quote on, each naming its buyer as the push quote call does."},
	{Name: "submit_offer", Method: post, Path: "/api/tasks/{id}/offers", Tag: "seller", Access: SellerAuth, In: ty[OfferInput](), Out: ty[Offer](), Status: created, Tool: "submit_offer", Summary: "Quote on a task."},
	{Name: "list_jobs", Method: get, Path: "/api/members/me/jobs", Tag: "seller", Access: SellerAuth, In: ty[JobsQuery](), Out: ty[TaskList](), Tool: "list_jobs", Summary: "Tasks assigned to you, with payout after the platform fee."},
	{Name: "deliver", Method: post, Path: "/api/members/me/jobs/{id}/deliver", Tag: "seller", Access: SellerAuth, In: ty[DeliverInput](), Out: ty[Task](), Tool: "deliver", Summary: "Register a delivery; starts the buyer's auto-release window."},
	{Name: "request_payment", Method: post, Path: "/api/members/me/jobs/{id}/request-payment", Tag: "seller", Access: SellerAuth, In: ty[IDPath](), Out: ty[PaymentRequested](), Tool: "request_payment", Summary: "Request payment after the buyer accepted; the operator approves."},

	// Operator (spec 4.5).
	{Name: "admin_trace", Method: get, Path: "/api/admin/trace/{traceId}", Tag: "admin", Access: AdminAuth, In: ty[TraceQuery](), Out: ty[Trace](), Summary: "Every row caused by one trace id."},
	{Name: "admin_task_timeline", Method: get, Path: "/api/admin/tasks/{id}/timeline", Tag: "admin", Access: AdminAuth, In: ty[IDPath](), Out: ty[AdminTimeline](), Summary: "Requests, events, messages, AI calls and reviews of a task in time order."},
	{Name: "admin_log", Method: get, Path: "/api/admin/log", Tag: "admin", Access: AdminAuth, In: ty[LogQuery](), Out: ty[LogList](), Summary: "The application log."},
	{Name: "admin_ai", Method: get, Path: "/api/admin/ai", Tag: "admin", Access: AdminAuth, In: ty[AIQuery](), Out: ty[AICallList](), Summary: "AI calls: prompts, responses, tokens, cost; and the configured provider."},
	{Name: "admin_mediations", Method: get, Path: "/api/admin/mediations", Tag: "admin", Access: AdminAuth, In: ty[MediationsQuery](), Out: ty[MediationList](), Summary: "Mediations of disputes and review objections, newest first."},
	{Name: "admin_mediation", Method: get, Path: "/api/admin/mediations/{id}", Tag: "admin", Access: AdminAuth, In: ty[IDPath](), Out: ty[Mediation](), Summary: "One mediation, with both sides' statements and any decision."},
	{Name: "admin_decide_mediation", Method: post, Path: "/api/admin/mediations/{id}/decide", Tag: "admin", Access: AdminAuth, In: ty[DecideMediationBody](), Out: ty[Mediation](), Summary: "Decide an appealed mediation (or take over one that waits for statements); a dispute's refund or split goes to the approval queue."},
	{Name: "admin_board", Method: get, Path: "/api/admin/board", Tag: "admin", Access: AdminAuth, In: ty[BoardAdminQuery](), Out: ty[BoardPostList](), Summary: "Board posts by status: by default the queue of posts waiting for the operator, oldest first; the others newest first."},
	{Name: "admin_board_approve", Method: post, Path: "/api/admin/board/{id}/approve", Tag: "admin", Access: AdminAuth, In: ty[BoardApproveBody](), Out: ty[BoardPost](), Summary: "Let a pending or hidden board post appear."},
	{Name: "admin_board_hide", Method: post, Path: "/api/admin/board/{id}/hide", Tag: "admin", Access: AdminAuth, In: ty[BoardHideBody](), Out: ty[BoardPost](), Summary: "Hide a board post; its author sees the reason."},
	{Name: "admin_listings", Method: get, Path: "/api/admin/listings", Tag: "admin", Access: AdminAuth, In: ty[ListingsQuery](), Out: ty[ListingList](), Summary: "Listings the listing policy rejected."},
	{Name: "admin_overturn_listing", Method: post, Path: "/api/admin/listings/{id}/overturn", Tag: "admin", Access: AdminAuth, In: ty[OverturnBody](), Out: ty[ListingRejection](), Summary: "Overturn a listing rejection: the same brief then passes when posted again."},
	{Name: "admin_audit", Method: get, Path: "/api/admin/audit", Tag: "admin", Access: AdminAuth, In: ty[AuditQuery](), Out: ty[AuditList](), Summary: "Who changed what."},
	{Name: "admin_metrics", Method: get, Path: "/api/admin/metrics", Tag: "admin", Access: AdminAuth, In: ty[MetricsQuery](), Out: ty[Metrics](), Summary: "Latency p50/p95 and error rates per endpoint and outbound operation."},
	{Name: "admin_reconcile", Method: get, Path: "/api/admin/reconcile", Tag: "admin", Access: AdminAuth, Out: ty[Reconciliation](), Summary: "Compare the ledger with the chain: balances, transfers the ledger does not know, movements with no transfer."},
	{Name: "admin_stats", Method: get, Path: "/api/admin/stats", Tag: "admin", Access: AdminAuth, Out: ty[Stats](), Summary: "Task counts by status, members by state, money totals."},
	{Name: "admin_announcements", Method: get, Path: "/api/admin/announcements", Tag: "admin", Access: AdminAuth, Out: ty[AnnouncementStatusList](), Summary: "Announcements with their delivery to each member: pushed, failed, waiting, read."},
	{Name: "admin_announce", Method: post, Path: "/api/admin/announcements", Tag: "admin", Access: AdminAuth, In: ty[NewAnnouncement](), Out: ty[Announcement](), Status: created, Summary: "Publish an announcement to members."},
	{Name: "admin_operator_messages", Method: get, Path: "/api/admin/operator-messages", Tag: "admin", Access: AdminAuth, Out: ty[OperatorMessageList](), Summary: "Messages members sent to the operator."},
	{Name: "admin_approvals", Method: get, Path: "/api/admin/approvals", Tag: "admin", Access: AdminAuth, In: ty[ApprovalsQuery](), Out: ty[ApprovalList](), Summary: "The approval queue: every payment, payout, refund and split waits here for the operator."},
	{Name: "admin_approve", Method: post, Path: "/api/admin/approvals/{id}/approve", Tag: "admin", Access: AdminAuth, In: ty[ApproveBody](), Out: ty[Approval](), Summary: "Approve a queue item: confirm a payment, or record the transaction that sent a payout, refund or split."},
	{Name: "admin_reject", Method: post, Path: "/api/admin/approvals/{id}/reject", Tag: "admin", Access: AdminAuth, In: ty[RejectBody](), Out: ty[Approval](), Summary: "Reject a queue item with a reason; nothing moves."},
	{Name: "admin_backup", Method: get, Path: "/api/admin/backup", Tag: "admin", Access: AdminAuth, Out: ty[string](), ContentType: "application/octet-stream", Summary: "A consistent hot copy of the database file, taken while the exchange runs."},
	{Name: "admin_members", Method: get, Path: "/api/admin/members", Tag: "admin", Access: AdminAuth, In: ty[MembersQuery](), Out: ty[MemberList](), Summary: "Every member, with private fields."},
	{Name: "admin_suspend", Method: post, Path: "/api/admin/members/{id}/suspend", Tag: "admin", Access: AdminAuth, In: ty[SuspendBody](), Out: ty[PrivateMember](), Summary: "Suspend a member: out of matching, calls refused."},
	{Name: "admin_unsuspend", Method: post, Path: "/api/admin/members/{id}/unsuspend", Tag: "admin", Access: AdminAuth, In: ty[SuspendBody](), Out: ty[PrivateMember](), Summary: "Lift a suspension; the member verifies again."},

	// Pay-per-call tools (spec 4.6).
	{Name: "find_paid_tools", Method: get, Path: "/paid", Tag: "paid", Access: Public, In: ty[PaidToolsQuery](), Out: ty[PaidToolList](), Tool: "find_paid_tools", Summary: "The pay-per-call tools: path, parameters, result, price, availability; q and category search them. Also in the x402 Bazaar discovery shape."},
	{Name: "paid_injection_check", Method: post, Path: "/paid/text/injection-check", Tag: "paid", Access: Paid, Category: "text", Price: 5_000, In: ty[InjectionCheckInput](), Out: ty[InjectionCheckResult](), Summary: "Check a text for prompt injection: verdict, risk score, findings and a cleaned copy, from the exchange's own screening."},
	{Name: "paid_trading_risk", Method: get, Path: "/paid/trading/risk", Tag: "paid", Access: Paid, Category: "trading", Price: 2_000, In: ty[TradingRiskQuery](), Out: ty[TradingRiskResult](), Summary: "Size a position from account, risk percent, entry and stop: units, risk amount, stop distance, exact decimals."},
	{Name: "paid_web_contents", Method: post, Path: "/paid/web/contents", Tag: "paid", Access: Paid, Category: "web", Price: 10_000, In: ty[WebContentsInput](), Out: ty[WebContentsResult](), Summary: "Fetch up to 10 web pages as readable text with title and final URL; a page that fails does not fail the others."},
	{Name: "paid_web_search", Method: get, Path: "/paid/web/search", Tag: "paid", Access: Paid, Category: "web", Price: 10_000, Needs: "search_url", In: ty[WebSearchQuery](), Out: ty[WebSearchResult](), Summary: "Search the web through the exchange's search backend: titles, links and snippets."},
	{Name: "paid_connector", Method: get, Path: "/paid/connectors/{name}", Tag: "paid", Access: Paid, Category: "connectors", In: ty[ConnectorCall](), Out: ty[ConnectorAnswer](), ExtraQuery: "params", Summary: "Call a live connector: its data source answers, through the exchange's guarded caller. Priced per connector."},
	{Name: "request_connector", Method: post, Path: "/api/connectors/request", Tag: "paid", Access: Public, In: ty[ConnectorRequest](), Out: ty[Connector](), Status: created, Tool: "request_connector", Forbids: true, Summary: "Ask for a connector to a new data source (free); an accepted one costs a flat US$10 setup fee, then pay per call."},
	{Name: "get_connector", Method: get, Path: "/api/connectors/{id}", Tag: "paid", Access: Public, In: ty[IDPath](), Out: ty[Connector](), Tool: "get_connector", Summary: "A connector request: its status, price and where to pay its setup fee."},
	{Name: "pay_connector_setup", Method: post, Path: "/api/connectors/{id}/setup", Tag: "paid", Access: Paid, In: ty[IDPath](), Out: ty[Connector](), Summary: "Pay an accepted connector's US$10 setup fee with x402; it goes live as a pay-per-call tool."},
	{Name: "admin_connectors", Method: get, Path: "/api/admin/connectors", Tag: "admin", Access: AdminAuth, In: ty[ConnectorsQuery](), Out: ty[ConnectorList](), Summary: "Connector requests, newest first."},
	{Name: "admin_connector_accept", Method: post, Path: "/api/admin/connectors/{id}/accept", Tag: "admin", Access: AdminAuth, In: ty[ConnectorAccept](), Out: ty[Connector](), Summary: "Accept a connector request with its tool name and price per call; it goes live once the setup fee is paid."},
	{Name: "admin_connector_reject", Method: post, Path: "/api/admin/connectors/{id}/reject", Tag: "admin", Access: AdminAuth, In: ty[ConnectorReject](), Out: ty[Connector](), Summary: "Reject a connector request with a reason."},
	// Recorded data with proofs (spec 4.6): answers as of a time hold nothing recorded after it.
	{Name: "paid_market_as_of", Method: get, Path: "/paid/market/as-of", Tag: "paid", Access: Paid, Category: "market", Price: 10_000, Needs: "market_source_url", In: ty[MarketAsOfQuery](), Out: ty[MarketAsOf](), Summary: "Prices as the exchange recorded them at or before as_of, each with its own time (up to 5 coins; series=1: the per-minute series of one coin, up to 6 hours); never anything recorded later."},
	{Name: "paid_market_brief", Method: get, Path: "/paid/market/brief", Tag: "paid", Access: Paid, Category: "market", Price: 5_000, Needs: "market_source_url", In: ty[MarketBriefQuery](), Out: ty[MarketBrief](), Summary: "24-hour change, high, low and top movers computed from the exchange's recorded prices, with the time it was computed at."},
	{Name: "paid_news_as_of", Method: get, Path: "/paid/news/as-of", Tag: "paid", Access: Paid, Category: "news", Price: 10_000, Needs: "news_feeds", In: ty[NewsAsOfQuery](), Out: ty[NewsAsOf](), Summary: "News naming an entity that the exchange first saw at or before as_of, newest first, each with its proof id."},
	{Name: "paid_market_proof", Method: get, Path: "/paid/market/proof", Tag: "paid", Access: Paid, Category: "market", Price: 2_000, Needs: "market_source_url", In: ty[ProofQuery](), Out: ty[Proof](), Summary: "Inclusion proof of a recorded price (its proof_id in market/as-of): the item, its hash, the path to its batch's root and the chained root (check it offline with axp verify-proof)."},
	{Name: "paid_news_proof", Method: get, Path: "/paid/news/proof", Tag: "paid", Access: Paid, Category: "news", Price: 2_000, Needs: "news_feeds", In: ty[ProofQuery](), Out: ty[Proof](), Summary: "Inclusion proof of a recorded news item: the item, its hash, the path to its batch's root and the chained root (check it offline with axp verify-proof)."},
	{Name: "paid_trackrecord_top", Method: get, Path: "/paid/trackrecord/top", Tag: "paid", Access: Paid, Category: "trading", Price: 20_000, Needs: "market_source_url", In: ty[TrackRecordTopQuery](), Out: ty[TrackRecordTop](), Summary: "The top strategies of a market over a window, scored against recorded prices, with their signals."},
	{Name: "paid_trackrecord_verify", Method: get, Path: "/paid/trackrecord/verify", Tag: "paid", Access: Paid, Category: "trading", Price: 5_000, Needs: "market_source_url", In: ty[ProofQuery](), Out: ty[SignalVerification](), Summary: "Prove a strategy signal existed before the move it claims: its chained proof and the first price recorded after it."},
	{Name: "get_strategy_leaderboard", Method: get, Path: "/trackrecord", Tag: "paid", Access: Public, In: ty[TrackRecordQuery](), Out: ty[TrackRecordBoard](), Tool: "get_strategy_leaderboard", Summary: "Strategy track-record leaderboard (free): members' published signals scored against recorded prices."},
	{Name: "publish_signal", Method: post, Path: "/api/members/me/signals", Tag: "paid", Access: MemberAuth, In: ty[PublishSignalInput](), Out: ty[Signal](), Status: created, Tool: "publish_signal", Summary: "Publish a strategy signal (market, side, entry, stop, target, horizon): recorded and chained at once, scored against recorded prices when its horizon passes."},
	{Name: "get_backtest_sample", Method: get, Path: "/backtest/sample.json", Tag: "paid", Access: Public, Out: ty[BacktestSample](), Summary: "A small backtest of a documented reference strategy over the exchange's recorded prices (free), regenerated daily."},
	{Name: "get_latest_proof", Method: get, Path: "/proofs/latest", Tag: "paid", Access: Public, Out: ty[ProofHead](), Summary: "The newest entry of the exchange's hash chain of recorded data (free): copy it elsewhere to hold the exchange to its history."},
	{Name: "list_proof_chain", Method: get, Path: "/proofs/chain", Tag: "paid", Access: Public, In: ty[ProofChainQuery](), Out: ty[ProofChain](), Summary: "The hash chain of recorded data, oldest first (free): every link recomputes from its entry."},
}
