package contract

import (
	"net/http"
)

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

// Ops is the operation catalog, in documentation order: every REST route, MCP tool, OpenAPI path
// and CLI call is projected from it. Each operation is declared once, beside its input and output
// types (CancelTask in task.go); this index only orders the declarations.
var Ops = catalog(
	// Discovery and public (spec 4.1).
	GetFrontDoor,
	Health,
	Ready,
	GetProtocol,
	GetMemberTools,
	GetJoin,
	GetServicesPage,
	GetWhy,
	ListServices,
	GetPricing,
	TestFund,
	GetFAQ,
	GetFAQMarkdown,
	Search,
	ListSellers,
	GetQuote,
	GetReputation,
	SubmitFeedback,
	GetPaymentPreference,
	PaymentPreferenceOp,
	RegisterInterest,
	GetSurvey,
	AnswerSurvey,
	GetSurveyResults,
	Talk,
	GetOpenAPI,

	// Buyer operations (spec 4.2).
	CreateTask,
	CreateTaskGet,
	GetTask,
	ChooseOffer,
	PayCryptoOp,
	PayAuthorizationOp,
	PayEscrowOp,
	GetDeliverable,
	AcceptTask,
	DisputeTask,
	CancelTask,
	GetTimeline,
	GetTaskReceipt,
	SubmitReview,
	Translate,
	AnswerClarifications,
	RequestRedo,
	ProposeSettlement,
	AnswerSettlement,
	Escalate,
	GetMediation,
	SubmitStatement,
	Appeal,
	ListMessages,
	PostMessage,
	ObjectToReview,

	// Member account (spec 4.3).
	Register,
	GetMyProfile,
	UpdateProfile,
	Verify,
	UpdateSkills,
	HeartbeatOp,
	RunConformance,
	StartSandbox,
	GetSandbox,
	ListMyTasks,
	FavouritesOp,
	Announcements,
	ReadAnnouncement,
	MessageOperator,
	BoardListOp,
	BoardRead,
	BoardPostOp,
	BoardReplyOp,

	// Seller operations (spec 4.4).
	ListQuoteRequests,
	SubmitOffer,
	ListJobs,
	GetMyEarnings,
	Deliver,
	RequestPayment,

	// Operator (spec 4.5).
	AdminTrace,
	AdminTasks,
	AdminTask,
	AdminTaskTimeline,
	AdminLog,
	AdminAI,
	AdminMediations,
	AdminMediation,
	AdminDecideMediation,
	AdminBoard,
	AdminBoardApprove,
	AdminBoardHide,
	AdminListings,
	AdminOverturnListing,
	AdminAudit,
	AdminMetrics,
	AdminReconcile,
	AdminWriteOff,
	AdminStats,
	AdminAnnouncements,
	AdminAnnounce,
	AdminOperatorMessages,
	AdminApprovals,
	AdminApprove,
	AdminReject,
	AdminBackup,
	AdminMembers,
	AdminSuspend,
	AdminUnsuspend,

	// Pay-per-call tools (spec 4.6).
	FindPaidTools,
	PaidInjectionCheck,
	PaidTradingRisk,
	PaidWebContents,
	PaidWebSearch,
	PaidConnector,
	RequestConnector,
	GetConnector,
	PayConnectorSetup,
	AdminConnectors,
	AdminConnectorAccept,
	AdminConnectorReject,
	// Recorded data with proofs (spec 4.6): answers as of a time hold nothing recorded after it.
	PaidMarketAsOf,
	PaidMarketBrief,
	PaidNewsAsOf,
	PaidMarketProof,
	PaidNewsProof,
	PaidTrackrecordTop,
	PaidTrackrecordVerify,
	GetStrategyLeaderboard,
	PublishSignal,
	GetBacktestSample,
	GetLatestProof,
	ListProofChain,
)
