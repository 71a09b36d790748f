package axp

import "time"

// TalkBody is a message to the assistant.
type TalkBody struct {
	Message        string `json:"message" schema:"required;minLength=1;maxLength=4000"`
	ConversationID string `json:"conversation_id,omitempty" schema:"maxLength=100" doc:"continue a conversation; send the token its answers gave as Bearer"`
	// KeepsTokens: the caller saves the tokens the answers give (the axp CLI does), so the
	// replies do not ask the buyer to keep them.
	KeepsTokens bool `json:"keeps_tokens,omitempty" doc:"the caller saves the tokens the answers give (the axp CLI does): replies do not ask to keep them"`
}

// Stages of a talk conversation.
const (
	TalkShaping  = "shaping"    // the job is being described: type, params, budget, deadline
	TalkConfirm  = "confirming" // the summary and catalog quote are shown; the buyer's yes lists the job
	TalkListed   = "listed"     // the task is open: offers are presented, one is chosen
	TalkAssigned = "assigned"   // an offer is chosen: payment, work, delivery
	TalkClosed   = "closed"     // the task ended without a choice (cancelled or expired)
)

// What continues a conversation (TalkReply.ContinueWith): the Bearer token of the next message.
const (
	ContinueConversationToken = "conversation_token" // the token of the first answer, until a task is listed
	ContinueBuyerToken        = "buyer_token"        // the listed task's buyer token
	ContinueMemberSecret      = "member_secret"      // the buyer member's own secret
)

// Assistants that answer a talk turn.
const (
	AssistantBuiltIn = "built-in"
	AssistantModel   = "model"
)

// TalkReply is the assistant's answer to one message.
type TalkReply struct {
	ConversationID string `json:"conversation_id"`
	Reply          string `json:"reply" doc:"the assistant's message to the buyer"`
	Stage          string `json:"stage" schema:"enum=shaping|confirming|listed|assigned|closed"`
	// Asking names what the assistant asked for: a param, budget, deadline, confirm (list the
	// job?) or offer (which one?).
	Asking       string        `json:"asking,omitempty" doc:"what the reply asks for: a param name, budget, deadline, confirm or offer"`
	ContinueWith string        `json:"continue_with" schema:"enum=conversation_token|buyer_token|member_secret" doc:"what to send as Bearer with the next message"`
	Token        string        `json:"token,omitempty" doc:"the token that continues the conversation, shown once whenever it changes: a conversation token first, the task's buyer token once the job is listed"`
	Draft        TalkDraft     `json:"draft"`
	Quote        *CatalogQuote `json:"quote,omitempty" doc:"the catalog price of the job as described"`
	TaskID       string        `json:"task_id,omitempty"`
	TaskStatus   string        `json:"task_status,omitempty"`
	// Offers are ranked as presented: "the second one" is Offers[1].
	Offers           []Offer      `json:"offers,omitempty" doc:"the offers as presented, in order"`
	RecommendedOffer string       `json:"recommended_offer,omitempty"`
	Payment          *PaymentInfo `json:"payment,omitempty" doc:"what to pay and where, once a paid offer is chosen"`
	Assistant        string       `json:"assistant" schema:"enum=built-in|model" doc:"who answered: the built-in assistant or the configured model"`
	Screening        *Screening   `json:"screening,omitempty" doc:"the filters' verdict on the buyer's message"`
}

// TalkDraft is the job as shaped so far.
type TalkDraft struct {
	Type            string         `json:"type,omitempty"`
	Description     string         `json:"description,omitempty"`
	Params          map[string]any `json:"params,omitempty"`
	BudgetUSD       *Money         `json:"budget_usd,omitempty" doc:"the most the buyer wants to pay; 0 is a free job"`
	DeadlineMinutes *int           `json:"deadline_minutes,omitempty"`
	PaymentMethod   string         `json:"payment_method,omitempty"`
	// Missing lists what the assistant still needs, in the order it asks.
	Missing []string `json:"missing,omitempty"`
}

// Conversation is a stored talk conversation: its messages, the job being shaped and the task it
// listed. The token that continues it is stored hashed.
type Conversation struct {
	V        int    `json:"v"`
	ID       string `json:"conversation_id"`
	MemberID string `json:"member_id,omitempty" doc:"the buyer member it belongs to; empty for an anonymous buyer"`
	// TokenHash is the SHA-256 of the conversation token (anonymous buyers, until a task is
	// listed; from then on the task's buyer token continues it).
	TokenHash string    `json:"token_hash,omitempty"`
	Stage     string    `json:"stage"`
	Draft     TalkDraft `json:"draft"`
	// Answered lists the questions answered with no value (no budget, no deadline).
	Answered []string `json:"answered,omitempty"`
	Asking   string   `json:"asking,omitempty"`
	TaskID   string   `json:"task_id,omitempty"`
	// Presented holds the offer ids in the order last shown; Recommended the one recommended.
	Presented   []string `json:"presented,omitempty"`
	Recommended string   `json:"recommended,omitempty"`
	// Questions are sellers' clarifying questions the assistant asked the buyer to answer.
	Questions []string      `json:"questions,omitempty"`
	Turns     int           `json:"turns"`
	Messages  []TalkMessage `json:"messages"`
	CreatedAt time.Time     `json:"created_at"`
	UpdatedAt time.Time     `json:"updated_at"`
}

// TalkMessage is one message of a conversation; the buyer's pass the party-text filters before
// they are stored.
type TalkMessage struct {
	Role      string     `json:"role" doc:"buyer or assistant"`
	Text      string     `json:"text"`
	Assistant string     `json:"assistant,omitempty"`
	Screening *Screening `json:"screening,omitempty"`
	At        time.Time  `json:"at"`
}

// AIToolCall is a function call a model asks for (OpenAI-compatible tool calls).
type AIToolCall struct {
	ID       string         `json:"id"`
	Type     string         `json:"type"`
	Function AIFunctionCall `json:"function"`
}

// AIFunctionCall names the function and its arguments as a JSON text.
type AIFunctionCall struct {
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
}

// The talk operations.
