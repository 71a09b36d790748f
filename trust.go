package axp

import (
	"time"

	"github.com/axp-exchange/axp/protocol"
)

// Trust and safety (spec 1.8, 1.9, 2.7, 2.9; docs/design.md sections 10 and 11): messages between the
// parties of a task, settlement proposals, mediations, listing rejections and the record of AI
// calls.

// Screening is the prompt-injection verdict kept with a text from another party.
type Screening = protocol.Screening

// Finding is one reason of a screening verdict.
type Finding = protocol.Finding

// Sides of a task.
const (
	SideBuyer  = "buyer"
	SideSeller = "seller"
)

// OtherSide is the other side of a task: the seller for the buyer, the buyer for the seller.
func OtherSide(side string) string {
	if side == SideBuyer {
		return SideSeller
	}
	return SideBuyer
}

// Message is one message on a task, between the buyer and one seller.
type Message struct {
	V         int        `json:"v"`
	ID        string     `json:"message_id"`
	TaskID    string     `json:"task_id"`
	From      string     `json:"from" doc:"buyer or seller"`
	SellerID  string     `json:"seller_id" doc:"the seller of the conversation"`
	Body      string     `json:"body" doc:"contact details removed"`
	Screening *Screening `json:"screening,omitempty"`
	CreatedAt time.Time  `json:"created_at"`
}

// MessageList is the answer of GET /api/tasks/{id}/messages.
type MessageList struct {
	TaskID   string    `json:"task_id"`
	Messages []Message `json:"messages"`
}

// Settlement states.
const (
	SettlementProposed   = "proposed"
	SettlementAccepted   = "accepted"
	SettlementRejected   = "rejected"
	SettlementSuperseded = "superseded" // a newer proposal, or a decision, replaced it
)

// Settlement is a proposal to end a dispute with a refund split (spec 2.9).
type Settlement struct {
	V          int        `json:"v"`
	ID         string     `json:"settlement_id"`
	TaskID     string     `json:"task_id"`
	ProposedBy string     `json:"proposed_by" doc:"buyer or seller"`
	RefundPct  int        `json:"refund_pct" doc:"share of the price refunded to the buyer, 0-100; the seller is paid the rest"`
	RefundUSD  Money      `json:"refund_usd"`
	Note       string     `json:"note,omitempty"`
	Screening  *Screening `json:"screening,omitempty"`
	Status     string     `json:"status" doc:"proposed, accepted, rejected or superseded"`
	ApprovalID string     `json:"approval_id,omitempty" doc:"the refund or split waiting in the operator's queue once accepted"`
	CreatedAt  time.Time  `json:"created_at"`
	AnsweredAt *time.Time `json:"answered_at,omitempty"`
}

// Mediation kinds and states.
const (
	MediationDispute         = "dispute"
	MediationReviewObjection = "review_objection"

	MediationAwaiting = "awaiting_statements" // statements are collected until both sides stated or the window ends
	MediationDecided  = "decided"             // the Mediator decided; a party may appeal
	MediationAppealed = "appealed"            // the operator decides
	MediationResolved = "resolved"            // the operator decided on appeal
)

// Statement is one side's statement in a mediation.
type Statement struct {
	Side              string     `json:"side" doc:"buyer or seller"`
	Statement         string     `json:"statement" doc:"contact details removed"`
	ProposedRefundPct *int       `json:"proposed_refund_pct"`
	Screening         *Screening `json:"screening,omitempty"`
	Via               string     `json:"via" doc:"rest, or push (the member's mediation tool)"`
	At                time.Time  `json:"at"`
}

// MediationDecision is the Mediator's or the operator's decision.
type MediationDecision struct {
	By         string    `json:"by" doc:"mediator:rules, mediator:ai, or operator"`
	Outcome    string    `json:"outcome" doc:"dispute: refund, split or release; review objection: keep or remove"`
	RefundPct  *int      `json:"refund_pct,omitempty"`
	RefundUSD  *Money    `json:"refund_usd,omitempty"`
	Rule       string    `json:"rule,omitempty" doc:"the built-in rule that decided"`
	Reasoning  string    `json:"reasoning"`
	ApprovalID string    `json:"approval_id,omitempty" doc:"the refund or split waiting in the operator's queue"`
	AICallID   string    `json:"ai_call_id,omitempty"`
	At         time.Time `json:"at"`
}

// Mediation is a dispute or a review objection before the Mediator (spec 2.9).
type Mediation struct {
	V                int                `json:"v"`
	ID               string             `json:"mediation_id"`
	Kind             string             `json:"kind"`
	TaskID           string             `json:"task_id"`
	ReviewID         string             `json:"review_id,omitempty"`
	OpenedBy         string             `json:"opened_by" doc:"buyer or seller"`
	Reason           string             `json:"reason"`
	ReasonScreening  *Screening         `json:"reason_screening,omitempty"`
	Status           string             `json:"status"`
	Statements       []Statement        `json:"statements"`
	StatementsDue    time.Time          `json:"statements_due"`
	Decision         *MediationDecision `json:"decision"`
	AppealedBy       string             `json:"appealed_by,omitempty"`
	AppealReason     string             `json:"appeal_reason,omitempty"`
	OperatorDecision *MediationDecision `json:"operator_decision,omitempty"`
	// PriceUSD is the disputed task's price, of which a refund percentage is taken (the operator's
	// reads; not stored).
	PriceUSD  *Money    `json:"price_usd,omitempty" doc:"the disputed task's price: what a refund percentage is of"`
	CreatedAt time.Time `json:"created_at"`
	UpdatedAt time.Time `json:"updated_at"`
}

// StatementOf returns a side's statement, or nil.
func (m *Mediation) StatementOf(side string) *Statement {
	for i := range m.Statements {
		if m.Statements[i].Side == side {
			return &m.Statements[i]
		}
	}
	return nil
}

// Open reports whether the mediation still waits for statements or the operator.
func (m *Mediation) Open() bool {
	return m.Status == MediationAwaiting || m.Status == MediationAppealed
}

// MediationList is the operator's list of mediations.
type MediationList struct {
	Mediations []Mediation `json:"mediations"`
}

// MediationsQuery filters the operator's list.
type MediationsQuery struct {
	Status string `json:"status,omitempty" schema:"enum=awaiting_statements|decided|appealed|resolved|open|all" doc:"default all; open is awaiting_statements and appealed"`
	Kind   string `json:"kind,omitempty" schema:"enum=dispute|review_objection"`
	TaskID string `json:"task_id,omitempty" schema:"maxLength=100"`
}

// DecideMediationBody is the operator's decision on a mediation.
type DecideMediationBody struct {
	ID        string `json:"id" schema:"required;maxLength=100"`
	RefundPct *int   `json:"refund_pct,omitempty" schema:"min=0;max=100" doc:"disputes: share of the price refunded to the buyer"`
	Outcome   string `json:"outcome,omitempty" schema:"enum=keep|remove" doc:"review objections: keep or remove the review"`
	Note      string `json:"note" schema:"required;minLength=1;maxLength=4000" doc:"the operator's reasoning, shown to both sides"`
}

// ReviewResult is a stored review as its author and the reputation view see it.
type ReviewResult struct {
	ReviewView
	RevieweeID string `json:"reviewee_id,omitempty"`
}

// Translation is the answer of POST /api/tasks/{id}/translate.
type Translation struct {
	TaskID    string     `json:"task_id"`
	What      string     `json:"what"`
	Language  string     `json:"language"`
	Text      string     `json:"text"`
	Screening *Screening `json:"screening,omitempty"`
	AICallID  string     `json:"ai_call_id"`
}

// Listing rejection states.
const (
	ListingRejected   = "rejected"
	ListingOverturned = "overturned"
)

// ListingRejection is a task refused by the listing policy (spec 7). When the operator overturns it,
// the same brief (same type, description and params) passes on its next post.
type ListingRejection struct {
	V            int            `json:"v"`
	ID           string         `json:"rejection_id"`
	BriefHash    string         `json:"brief_hash"`
	Type         string         `json:"type"`
	Description  string         `json:"description,omitempty" doc:"credentials and contact details removed"`
	Params       map[string]any `json:"params,omitempty"`
	Category     string         `json:"category"`
	Reason       string         `json:"reason"`
	Actor        string         `json:"actor"`
	Status       string         `json:"status"`
	Posts        int            `json:"posts" doc:"how many times this brief was refused"`
	OverturnNote string         `json:"overturn_note,omitempty"`
	CreatedAt    time.Time      `json:"created_at"`
	OverturnedAt *time.Time     `json:"overturned_at,omitempty"`
}

// ListingList is the operator's list of rejected listings.
type ListingList struct {
	Listings []ListingRejection `json:"listings"`
}

// ListingsQuery filters the operator's list of rejected listings.
type ListingsQuery struct {
	Status string `json:"status,omitempty" schema:"enum=rejected|overturned|all" doc:"default all"`
}

// OverturnBody overturns a listing rejection.
type OverturnBody struct {
	ID   string `json:"id" schema:"required;maxLength=100"`
	Note string `json:"note" schema:"required;minLength=1;maxLength=2000"`
}

// AICall is one recorded call to the AI provider (spec 4.5: prompts, responses, tokens, cost).
type AICall struct {
	V                int       `json:"v"`
	ID               string    `json:"ai_call_id"`
	Purpose          string    `json:"purpose" doc:"mediation, translation or talk"`
	TaskID           string    `json:"task_id,omitempty"`
	MediationID      string    `json:"mediation_id,omitempty"`
	ConversationID   string    `json:"conversation_id,omitempty" doc:"the talk conversation the call served"`
	Provider         string    `json:"provider" doc:"the endpoint's base URL"`
	Model            string    `json:"model"`
	KeyFingerprint   string    `json:"key_fp,omitempty" doc:"first 8 hex of the SHA-256 of the API key"`
	Prompt           []AITurn  `json:"prompt"`
	Response         string    `json:"response"`
	PromptTokens     int       `json:"prompt_tokens"`
	CompletionTokens int       `json:"completion_tokens"`
	CostUSD          Money     `json:"cost_usd"`
	Millis           int64     `json:"ms"`
	Error            string    `json:"error,omitempty"`
	At               time.Time `json:"at"`
}

// AITurn is one chat message of a prompt.
type AITurn struct {
	Role    string `json:"role"`
	Content string `json:"content"`
	// ToolCalls are the calls a model's turn asks for; ToolCallID names the call a "tool" turn
	// answers (the talk assistant's model path).
	ToolCalls  []AIToolCall `json:"tool_calls,omitempty"`
	ToolCallID string       `json:"tool_call_id,omitempty"`
}

// AIQuery filters GET /api/admin/ai.
type AIQuery struct {
	TaskID string `json:"task_id,omitempty" schema:"maxLength=100"`
	Limit  int    `json:"limit,omitempty" schema:"min=1;max=1000" doc:"default 200"`
}

// AIProviderInfo describes the configured AI provider (the API key only as a fingerprint).
type AIProviderInfo struct {
	Configured     bool   `json:"configured"`
	BaseURL        string `json:"base_url,omitempty"`
	Model          string `json:"model,omitempty"`
	KeyFingerprint string `json:"key_fp,omitempty"`
	Mediator       string `json:"mediator" doc:"ai, or rules (the built-in deterministic Mediator)"`
	Translation    bool   `json:"translation"`
}

// AICallList is the answer of GET /api/admin/ai.
type AICallList struct {
	Provider         AIProviderInfo `json:"provider"`
	Calls            []AICall       `json:"calls"`
	PromptTokens     int            `json:"prompt_tokens"`
	CompletionTokens int            `json:"completion_tokens"`
	CostUSD          Money          `json:"cost_usd"`
}

// The trust and safety operations.
