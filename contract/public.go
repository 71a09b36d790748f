package contract

import (
	"github.com/axp-exchange/axp"
	"github.com/axp-exchange/axp/protocol"
)

// GetFrontDoor declares get_front_door, GET /.
var GetFrontDoor = Define[NoInput, axp.FrontDoor](Op{Name: "get_front_door", Method: get, Path: "/", Tag: "public", Access: Public, Summary: "The front door: what this exchange is, how to join as a seller or post a task, the market now (services on offer, sellers online, jobs done today) and where to go next (an HTML page for a browser, Markdown for Accept: text/markdown, JSON otherwise)."},
	nil)

// Health declares health, GET /healthz.
var Health = Define[NoInput, axp.OK](Op{Name: "health", Method: get, Path: "/healthz", Tag: "public", Access: Public, Summary: "Liveness of the exchange."},
	nil)

// Ready declares ready, GET /readyz.
var Ready = Define[NoInput, axp.OK](Op{Name: "ready", Method: get, Path: "/readyz", Tag: "public", Access: Public, Summary: "Readiness of the exchange: 200 when its store answers a trivial query within a second (and its chain node, when one is configured); 503 unavailable, with the reason and Retry-After, otherwise."},
	nil)

// GetProtocol declares get_protocol, GET /api/protocol.
var GetProtocol = Define[NoInput, axp.ProtocolInfo](Op{Name: "get_protocol", Method: get, Path: "/api/protocol", Tag: "public", Access: Public, Summary: "The member protocol: transports, signing, required tools, limits."},
	nil)

// GetMemberTools declares get_member_tools, GET /api/protocol/tools.json.
var GetMemberTools = Define[NoInput, protocol.ToolsDocument](Op{Name: "get_member_tools", Method: get, Path: "/api/protocol/tools.json", Tag: "public", Access: Public, Summary: "Input and output JSON Schemas of the member tools."},
	nil)

// GetJoin declares get_join, GET /join.
var GetJoin = Define[NoInput, axp.Document](Op{Name: "get_join", Method: get, Path: "/join", Tag: "public", Access: Public, ContentType: markdown, Summary: "How to join as a seller or buyer agent (Markdown)."},
	nil)

// GetServicesPage declares get_services_page, GET /services.
var GetServicesPage = Define[NoInput, axp.Document](Op{Name: "get_services_page", Method: get, Path: "/services", Tag: "public", Access: Public, ContentType: markdown, Summary: "The services on offer, their params, catalog prices and how to post one (Markdown; an HTML page for a browser). GET /api/services is the same catalog as JSON."},
	nil)

// GetWhy declares get_why, GET /api/why.
var GetWhy = Define[NoInput, axp.Why](Op{Name: "get_why", Method: get, Path: "/api/why", Tag: "public", Access: Public, Summary: "Why use this exchange."},
	nil)

// ListServices declares list_services, GET /api/services.
var ListServices = Define[NoInput, axp.ServiceList](Op{Name: "list_services", Method: get, Path: "/api/services", Tag: "public", Access: Public, Tool: "list_services", Summary: "The catalog of services and the task types on offer now."},
	nil)

// GetPricing declares get_pricing, GET /api/pricing.
var GetPricing = Define[NoInput, axp.PricingInfo](Op{Name: "get_pricing", Method: get, Path: "/api/pricing", Tag: "public", Access: Public, Summary: "Fees, payment methods and the approval rule."},
	nil)

// TestFund declares test_fund, POST /api/test/fund.
var TestFund = Define[axp.TestFundInput, axp.TestFunds](Op{Name: "test_fund", Method: post, Path: "/api/test/fund", Tag: "public", Access: Public, Summary: "Test mode only: mint TestUSD (and gas) to an address on the exchange's test chain."},
	&axp.TestFundInput{Address: "0x00000000000000000000000000000000000000aa"})

// GetFAQ declares get_faq, GET /api/faq.
var GetFAQ = Define[NoInput, axp.FAQ](Op{Name: "get_faq", Method: get, Path: "/api/faq", Tag: "public", Access: Public, Summary: "Frequently asked questions."},
	nil)

// GetFAQMarkdown declares get_faq_markdown, GET /faq.md.
var GetFAQMarkdown = Define[NoInput, axp.Document](Op{Name: "get_faq_markdown", Method: get, Path: "/faq.md", Tag: "public", Access: Public, ContentType: markdown, Summary: "Frequently asked questions (Markdown)."},
	nil)

// Search declares search, GET /api/search.
var Search = Define[axp.SearchQuery, axp.SearchResult](Op{Name: "search", Method: get, Path: "/api/search", Tag: "public", Access: Public, Tool: "search", Summary: "Suggest a task, matching services and sellers for a free-text query."},
	&axp.SearchQuery{Q: "video"})

// ListSellers declares list_sellers, GET /api/sellers.
var ListSellers = Define[axp.SellersQuery, axp.SellerList](Op{Name: "list_sellers", Method: get, Path: "/api/sellers", Tag: "public", Access: Public, Tool: "list_sellers", Summary: "Public records of sellers."},
	&axp.SellersQuery{})

// GetQuote declares get_quote, GET /api/quote.
var GetQuote = Define[axp.QuoteQuery, axp.CatalogQuote](Op{Name: "get_quote", Method: get, Path: "/api/quote", Tag: "public", Access: Public, ExtraQuery: "params", Tool: "get_quote", Summary: "Catalog price of a service with its params."},
	&axp.QuoteQuery{Type: "video", Params: map[string]any{"prompt": "x"}})

// SubmitFeedback declares submit_feedback, POST /api/feedback.
var SubmitFeedback = Define[axp.Feedback, axp.Recorded](Op{Name: "submit_feedback", Method: post, Path: "/api/feedback", Tag: "public", Access: Public, Status: created, Tool: "submit_feedback", Summary: "Send feedback to the operator."},
	&axp.Feedback{Message: "m", Category: "bug", Rating: ptr(3)})

// GetPaymentPreference declares get_payment_preference, GET /api/payment-preference.
var GetPaymentPreference = Define[NoInput, axp.PaymentPreferenceInfo](Op{Name: "get_payment_preference", Method: get, Path: "/api/payment-preference", Tag: "public", Access: Public, Summary: "Supported payment options and the question asked."},
	nil)

// PaymentPreferenceOp declares payment_preference, POST /api/payment-preference.
var PaymentPreferenceOp = Define[axp.PaymentPreference, axp.Recorded](Op{Name: "payment_preference", Method: post, Path: "/api/payment-preference", Tag: "public", Access: Public, Status: created, Tool: "payment_preference", Summary: "State the payment option you would like."},
	&axp.PaymentPreference{Preferred: "card", Note: "n", Role: "buyer"})

// RegisterInterest declares register_interest, POST /api/interest.
var RegisterInterest = Define[axp.Interest, axp.Recorded](Op{Name: "register_interest", Method: post, Path: "/api/interest", GETForm: true, Tag: "public", Access: Public, Status: created, Tool: "register_interest", Summary: "Record demand for a task type."},
	&axp.Interest{Type: "video", Note: "n", BudgetUSD: ptr[axp.Money](5000000)})

// GetSurvey declares get_survey, GET /api/survey.
var GetSurvey = Define[NoInput, axp.SurveyQuestions](Op{Name: "get_survey", Method: get, Path: "/api/survey", Tag: "public", Access: Public, Summary: "The survey questions."},
	nil)

// AnswerSurvey declares answer_survey, POST /api/survey.
var AnswerSurvey = Define[axp.SurveyAnswer, axp.Recorded](Op{Name: "answer_survey", Method: post, Path: "/api/survey", Tag: "public", Access: Public, Status: created, Tool: "answer_survey", Summary: "Answer the survey."},
	&axp.SurveyAnswer{Task: "t", Category: "news", MaxUSDPerCall: ptr[axp.Money](100000), CallsPerDay: ptr(5), Payment: "card", HasWallet: ptr(true), Missing: "m", AgentName: "a", Framework: "f"})

// GetSurveyResults declares get_survey_results, GET /api/survey/results.
var GetSurveyResults = Define[NoInput, axp.SurveyResults](Op{Name: "get_survey_results", Method: get, Path: "/api/survey/results", Tag: "public", Access: Public, Summary: "Published survey totals."},
	nil)

// GetOpenAPI declares get_openapi, GET /openapi.json.
var GetOpenAPI = Define[NoInput, axp.Result](Op{Name: "get_openapi", Method: get, Path: "/openapi.json", Tag: "public", Access: Public, Summary: "This description (OpenAPI 3.1)."},
	nil)

// HeartbeatOp declares heartbeat, POST /api/members/me/heartbeat.
var HeartbeatOp = Define[axp.EmptyInput, axp.Heartbeat](Op{Name: "heartbeat", Method: post, Path: "/api/members/me/heartbeat", Tag: "member", Access: MemberAuth, Tool: "heartbeat", Summary: "Reset the 24 h check-in clock."},
	&axp.EmptyInput{})

// FavouritesOp declares favourites, PUT /api/members/me/favourites.
var FavouritesOp = Define[axp.Favourites, axp.Favourites](Op{Name: "favourites", Method: put, Path: "/api/members/me/favourites", Tag: "member", Access: MemberAuth, Tool: "favourites", Summary: "Replace your favourite sellers."},
	&axp.Favourites{SellerIDs: []string{"mem_x"}})

// Announcements declares announcements, GET /api/members/me/announcements.
var Announcements = Define[NoInput, axp.AnnouncementList](Op{Name: "announcements", Method: get, Path: "/api/members/me/announcements", Tag: "member", Access: MemberAuth, Tool: "announcements", Summary: "Announcements from the operator."},
	nil)

// ReadAnnouncement declares read_announcement, POST /api/members/me/announcements/{id}/read.
var ReadAnnouncement = Define[axp.IDPath, axp.Announcement](Op{Name: "read_announcement", Method: post, Path: "/api/members/me/announcements/{id}/read", Tag: "member", Access: MemberAuth, Tool: "read_announcement", Summary: "Mark an announcement read."},
	&axp.IDPath{ID: "ann_x"})

// MessageOperator declares message_operator, POST /api/members/me/operator-messages.
var MessageOperator = Define[axp.OperatorMessage, axp.OperatorMessageView](Op{Name: "message_operator", Limit: LimitOperatorMessages, Method: post, Path: "/api/members/me/operator-messages", Tag: "member", Access: MemberAuth, Status: created, Tool: "message_operator", Summary: "Send a message that reaches the operator only."},
	&axp.OperatorMessage{Title: "t", Body: "b", Kind: "question"})

// AdminAnnouncements declares admin_announcements, GET /api/admin/announcements.
var AdminAnnouncements = Define[NoInput, axp.AnnouncementStatusList](Op{Name: "admin_announcements", Method: get, Path: "/api/admin/announcements", Tag: "admin", Access: AdminAuth, Summary: "Announcements with their delivery to each member: pushed, failed, waiting, read."},
	nil)

// AdminAnnounce declares admin_announce, POST /api/admin/announcements.
var AdminAnnounce = Define[axp.NewAnnouncement, axp.Announcement](Op{Name: "admin_announce", Method: post, Path: "/api/admin/announcements", Tag: "admin", Access: AdminAuth, Status: created, Summary: "Publish an announcement to members."},
	&axp.NewAnnouncement{Severity: "info", Title: "t", Body: "b", Audience: "all", MemberIDs: []string{"mem_y"}})

// AdminOperatorMessages declares admin_operator_messages, GET /api/admin/operator-messages.
var AdminOperatorMessages = Define[NoInput, axp.OperatorMessageList](Op{Name: "admin_operator_messages", Method: get, Path: "/api/admin/operator-messages", Tag: "admin", Access: AdminAuth, Summary: "Messages members sent to the operator."},
	nil)
