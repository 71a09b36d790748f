package contract

import (
	"github.com/axp-exchange/axp"
	"github.com/axp-exchange/axp/protocol"
)

// CreateTask declares create_task, POST /api/tasks.
var CreateTask = Define[axp.NewTask, axp.CreatedTask](Op{Name: "create_task", Limit: LimitTaskPosts, Forbids: true, Method: post, Path: "/api/tasks", Tag: "buyer", Access: Public, Status: created, Tool: "create_task", Summary: "Post a task; offers are collected within the quote window."},
	&axp.NewTask{Type: "video", Description: "d", Params: map[string]any{"prompt": "x"}, DeadlineMinutes: ptr(60), AutoChoose: "cheapest", PaymentMethod: "crypto", PreferredPayment: "p", Contact: "c", CallbackURL: "https://cb.example/hook", AgentName: "a"})

// CreateTaskGet declares create_task_get, GET /api/tasks/new.
var CreateTaskGet = Define[axp.NewTask, axp.CreatedTask](Op{Name: "create_task_get", Limit: LimitTaskPosts, Forbids: true, Method: get, Path: "/api/tasks/new", Tag: "buyer", Access: Public, Status: created, ExtraQuery: "params", Summary: "Post a task from query keys; service params as extra keys."},
	&axp.NewTask{Type: "video", Description: "d", DeadlineMinutes: ptr(60), AutoChoose: "fastest"})

// GetTask declares get_task, GET /api/tasks/{id}.
var GetTask = Define[axp.TaskQuery, axp.Task](Op{Name: "get_task", Method: get, Path: "/api/tasks/{id}", Tag: "buyer", Access: TaskParty, Owner: TaskAudience, Tool: "get_task", Summary: "Task status, offers and deliverable."},
	&axp.TaskQuery{TaskRef: axp.TaskRef{ID: "tsk_x"}})

// ChooseOffer declares choose_offer, POST /api/tasks/{id}/choose.
var ChooseOffer = Define[axp.ChooseInput, axp.Task](Op{Name: "choose_offer", Method: post, Path: "/api/tasks/{id}/choose", GETForm: true, Tag: "buyer", Access: BuyerAuth, Owner: TaskBuyer, Tool: "choose_offer", Summary: "Choose an offer; the task then awaits payment (free jobs start)."},
	&axp.ChooseInput{TaskRef: axp.TaskRef{ID: "tsk_x"}, OfferID: "ofr_x"})

// PayCryptoOp declares pay_crypto, POST /api/tasks/{id}/pay/crypto.
var PayCryptoOp = Define[axp.PayCryptoInput, axp.PaymentReport](Op{Name: "pay_crypto", Method: post, Path: "/api/tasks/{id}/pay/crypto", GETForm: true, Tag: "buyer", Access: BuyerAuth, Owner: TaskBuyer, Tool: "pay_crypto", Summary: "Report a stablecoin payment by transaction hash."},
	&axp.PayCryptoInput{TaskRef: axp.TaskRef{ID: "tsk_x"}, TxHash: "0xbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"})

// GetDeliverable declares get_deliverable, GET /api/tasks/{id}/deliverable.
var GetDeliverable = Define[axp.TaskRef, axp.Document](Op{Name: "get_deliverable", Method: get, Path: "/api/tasks/{id}/deliverable", Tag: "buyer", Access: TaskParty, Owner: TaskParties, ContentType: "application/octet-stream", ResponseHeaders: map[string]string{"X-Content-SHA256": "hex SHA-256 of the body"}, Tool: "get_deliverable", Summary: "The deliverable, with header X-Content-SHA256."},
	&axp.TaskRef{ID: "tsk_x"})

// AcceptTask declares accept_task, POST /api/tasks/{id}/accept.
var AcceptTask = Define[axp.AcceptInput, axp.Task](Op{Name: "accept_task", Method: post, Path: "/api/tasks/{id}/accept", GETForm: true, Tag: "buyer", Access: BuyerAuth, Owner: TaskBuyer, Tool: "accept_task", Summary: "Accept the delivery (after retrieving it)."},
	&axp.AcceptInput{TaskRef: axp.TaskRef{ID: "tsk_x"}, SHA256: "cccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccc"})

// DisputeTask declares dispute_task, POST /api/tasks/{id}/dispute.
var DisputeTask = Define[axp.DisputeInput, axp.Task](Op{Name: "dispute_task", Method: post, Path: "/api/tasks/{id}/dispute", GETForm: true, Tag: "buyer", Access: BuyerAuth, Owner: TaskBuyer, Tool: "dispute_task", Summary: "Dispute the delivery, with a reason."},
	&axp.DisputeInput{TaskRef: axp.TaskRef{ID: "tsk_x"}, Reason: "r"})

// GetTimeline declares get_timeline, GET /api/tasks/{id}/timeline.
var GetTimeline = Define[axp.TaskRef, axp.Timeline](Op{Name: "get_timeline", Method: get, Path: "/api/tasks/{id}/timeline", Tag: "buyer", Access: TaskParty, Owner: TaskParties, Tool: "get_timeline", Summary: "All events, messages and reviews of a task."},
	&axp.TaskRef{ID: "tsk_x"})

// GetTaskReceipt declares get_task_receipt, GET /api/tasks/{id}/receipt.
var GetTaskReceipt = Define[axp.TaskRef, axp.TaskReceipt](Op{Name: "get_task_receipt", Method: get, Path: "/api/tasks/{id}/receipt", Tag: "buyer", Access: BuyerAuth, Owner: TaskBuyer, Tool: "get_task_receipt", Summary: "What the buyer paid for a task and where the money went: the transfers credited to it and each payout, refund or split with its transactions."},
	&axp.TaskRef{ID: "tsk_x"})

// SubmitReview declares submit_review, POST /api/tasks/{id}/review.
var SubmitReview = Define[axp.ReviewBody, axp.ReviewResult](Op{Name: "submit_review", Method: post, Path: "/api/tasks/{id}/review", GETForm: true, Tag: "buyer", Access: TaskParty, Owner: TaskParties, Status: created, Tool: "submit_review", Summary: "Review the other party of a completed job."},
	&axp.ReviewBody{TaskRef: axp.TaskRef{ID: "tsk_x"}, Rating: 5, Quality: ptr(4), Accuracy: ptr(4), Timeliness: ptr(5), Comment: "c"})

// Translate declares translate, POST /api/tasks/{id}/translate.
var Translate = Define[axp.TranslateBody, axp.Translation](Op{Name: "translate", Method: post, Path: "/api/tasks/{id}/translate", GETForm: true, Tag: "buyer", Access: TaskParty, Owner: TaskAudience, Tool: "translate", Summary: "Translate the brief or the deliverable."},
	&axp.TranslateBody{TaskRef: axp.TaskRef{ID: "tsk_x"}, What: "brief", Language: "fr"})

// AnswerClarifications declares answer_clarifications, POST /api/tasks/{id}/clarify.
var AnswerClarifications = Define[axp.ClarifyBody, axp.Task](Op{Name: "answer_clarifications", Method: post, Path: "/api/tasks/{id}/clarify", GETForm: true, Tag: "buyer", Access: BuyerAuth, Owner: TaskBuyer, Tool: "answer_clarifications", Summary: "Answer sellers' questions; they are asked to quote again."},
	&axp.ClarifyBody{TaskRef: axp.TaskRef{ID: "tsk_x"}, Answers: map[string]string{"q": "a"}})

// RequestRedo declares request_redo, POST /api/tasks/{id}/redo.
var RequestRedo = Define[axp.RedoBody, axp.Task](Op{Name: "request_redo", Method: post, Path: "/api/tasks/{id}/redo", GETForm: true, Tag: "buyer", Access: BuyerAuth, Owner: TaskBuyer, Tool: "request_redo", Summary: "Ask for a free redo the offer guaranteed."},
	&axp.RedoBody{TaskRef: axp.TaskRef{ID: "tsk_x"}, Reason: "r"})

// ProposeSettlement declares propose_settlement, POST /api/tasks/{id}/settlement.
var ProposeSettlement = Define[axp.SettlementBody, axp.Settlement](Op{Name: "propose_settlement", Method: post, Path: "/api/tasks/{id}/settlement", GETForm: true, Tag: "buyer", Access: TaskParty, Owner: TaskParties, Tool: "propose_settlement", Summary: "Propose a refund split."},
	&axp.SettlementBody{TaskRef: axp.TaskRef{ID: "tsk_x"}, RefundPct: 50, Note: "n"})

// AnswerSettlement declares answer_settlement, POST /api/tasks/{id}/settlement/{settlement_id}.
var AnswerSettlement = Define[axp.SettlementAnswer, axp.Settlement](Op{Name: "answer_settlement", Method: post, Path: "/api/tasks/{id}/settlement/{settlement_id}", GETForm: true, Tag: "buyer", Access: TaskParty, Owner: TaskParties, Tool: "answer_settlement", Summary: "Accept or reject a settlement proposal."},
	&axp.SettlementAnswer{TaskRef: axp.TaskRef{ID: "tsk_x"}, SettlementID: "stl_x", Accept: true})

// Escalate declares escalate, POST /api/tasks/{id}/escalate.
var Escalate = Define[axp.EscalateBody, axp.Mediation](Op{Name: "escalate", Method: post, Path: "/api/tasks/{id}/escalate", GETForm: true, Tag: "buyer", Access: TaskParty, Owner: TaskParties, Tool: "escalate", Summary: "Open a mediation."},
	&axp.EscalateBody{TaskRef: axp.TaskRef{ID: "tsk_x"}, Reason: "r", Statement: "s", ProposedRefundPct: ptr(50)})

// SubmitStatement declares submit_statement, POST /api/mediations/{id}/statement.
var SubmitStatement = Define[axp.StatementBody, axp.Mediation](Op{Name: "submit_statement", Method: post, Path: "/api/mediations/{id}/statement", GETForm: true, Tag: "buyer", Access: TaskParty, Owner: TaskParties, Tool: "submit_statement", Summary: "A side's statement in a mediation."},
	&axp.StatementBody{TaskRef: axp.TaskRef{ID: "med_x"}, Statement: "s", ProposedRefundPct: ptr(50)})

// Appeal declares appeal, POST /api/mediations/{id}/appeal.
var Appeal = Define[axp.AppealBody, axp.Mediation](Op{Name: "appeal", Method: post, Path: "/api/mediations/{id}/appeal", GETForm: true, Tag: "buyer", Access: TaskParty, Owner: TaskParties, Tool: "appeal", Summary: "Appeal a mediation decision to a human operator."},
	&axp.AppealBody{TaskRef: axp.TaskRef{ID: "med_x"}, Reason: "r"})

// PostMessage declares post_message, POST /api/tasks/{id}/messages.
var PostMessage = Define[axp.MessageBody, axp.Message](Op{Name: "post_message", Method: post, Path: "/api/tasks/{id}/messages", GETForm: true, GETPath: "/api/tasks/{id}/messages/send", Tag: "buyer", Access: TaskParty, Owner: TaskAudience, Status: created, Tool: "post_message", Summary: "Write a message on a task; contact details are removed."},
	&axp.MessageBody{TaskRef: axp.TaskRef{ID: "tsk_x"}, Body: "b", SellerID: "mem_x"})

// ObjectToReview declares object_to_review, POST /api/reviews/{id}/objection.
var ObjectToReview = Define[axp.ObjectionBody, axp.Mediation](Op{Name: "object_to_review", Method: post, Path: "/api/reviews/{id}/objection", GETForm: true, Tag: "buyer", Access: MemberAuth, Status: created, Tool: "object_to_review", Summary: "Object to a review; the Mediator keeps or removes it."},
	&axp.ObjectionBody{ID: "rev_x", Reason: "r", Statement: "s"})

// ListMyTasks declares list_my_tasks, GET /api/members/me/tasks.
var ListMyTasks = Define[axp.MyTasksQuery, axp.TaskList](Op{Name: "list_my_tasks", Method: get, Path: "/api/members/me/tasks", Tag: "member", Access: MemberAuth, Tool: "list_my_tasks", Summary: "Tasks you posted as a buyer member, newest first, a page at a time (next_cursor)."},
	&axp.MyTasksQuery{Cursor: "tsk_x", Limit: 5})

// ListQuoteRequests declares list_quote_requests, GET /api/members/me/quote-requests.
var ListQuoteRequests = Define[NoInput, axp.TaskList](Op{Name: "list_quote_requests", Method: get, Path: "/api/members/me/quote-requests", Tag: "seller", Access: SellerAuth, Tool: "list_quote_requests", Summary: "Open tasks you can quote on, each naming its buyer as the push quote call does."},
	nil)

// SubmitOffer declares submit_offer, POST /api/tasks/{id}/offers.
var SubmitOffer = Define[axp.OfferInput, axp.OfferAnswer](Op{Name: "submit_offer", Method: post, Path: "/api/tasks/{id}/offers", Tag: "seller", Access: SellerAuth, Status: created, Tool: "submit_offer", Summary: "Quote on a task."},
	&axp.OfferInput{ID: "tsk_x", QuoteAnswer: protocol.QuoteAnswer{PriceUSD: ptr[axp.Money](1500000), ETAMinutes: ptr(10), Note: "n"}})

// ListJobs declares list_jobs, GET /api/members/me/jobs.
var ListJobs = Define[axp.JobsQuery, axp.TaskList](Op{Name: "list_jobs", Method: get, Path: "/api/members/me/jobs", Tag: "seller", Access: SellerAuth, Tool: "list_jobs", Summary: "Tasks assigned to you, with payout after the platform fee."},
	&axp.JobsQuery{Status: "all"})

// Deliver declares deliver, POST /api/members/me/jobs/{id}/deliver.
var Deliver = Define[axp.DeliverInput, axp.Task](Op{Name: "deliver", Method: post, Path: "/api/members/me/jobs/{id}/deliver", Tag: "seller", Access: SellerAuth, Owner: JobSeller, Tool: "deliver", Summary: "Register a delivery; starts the buyer's auto-release window."},
	&axp.DeliverInput{ID: "tsk_x", Content: "c", Filename: "f.txt", MimeType: "text/plain", Note: "n"})

// RequestPayment declares request_payment, POST /api/members/me/jobs/{id}/request-payment.
var RequestPayment = Define[axp.IDPath, axp.PaymentRequested](Op{Name: "request_payment", Method: post, Path: "/api/members/me/jobs/{id}/request-payment", Tag: "seller", Access: SellerAuth, Owner: JobSeller, Tool: "request_payment", Summary: "Request payment after the buyer accepted; the operator approves."},
	&axp.IDPath{ID: "tsk_x"})

// CancelTask declares cancel_task, POST /api/tasks/{id}/cancel.
var CancelTask = Define[axp.CancelInput, axp.Task](Op{Name: "cancel_task", Method: post, Path: "/api/tasks/{id}/cancel", GETForm: true, Tag: "buyer", Access: BuyerAuth, Owner: TaskBuyer, Tool: "cancel_task", Summary: "Withdraw a task that is open or awaiting payment; funds it holds go back to the buyer with the operator's approval."},
	&axp.CancelInput{TaskRef: axp.TaskRef{ID: "tsk_x"}})
