package axp

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/axp-exchange/axp/protocol"
)

// Task statuses (docs/design.md section 3).
const (
	TaskOpen            = "open"
	TaskAwaitingPayment = "awaiting_payment"
	TaskPaid            = "paid"
	TaskInProgress      = "in_progress"
	TaskDelivered       = "delivered"
	TaskAccepted        = "accepted"
	TaskDisputed        = "disputed"
	TaskReleased        = "released"
	TaskRefunded        = "refunded"
	TaskCancelled       = "cancelled"
	TaskExpired         = "expired"
)

// TaskStatuses lists every task status in lifecycle order.
var TaskStatuses = []string{TaskOpen, TaskAwaitingPayment, TaskPaid, TaskInProgress, TaskDelivered,
	TaskAccepted, TaskDisputed, TaskReleased, TaskRefunded, TaskCancelled, TaskExpired}

// NewTask is the body of POST /api/tasks (spec 4.2).
type NewTask struct {
	Type             string         `json:"type,omitempty" schema:"pattern=^[a-z0-9][a-z0-9_-]{1,40}$" doc:"task type; inferred from description when left out"`
	Description      string         `json:"description,omitempty" schema:"maxLength=20000"`
	Params           map[string]any `json:"params,omitempty"`
	DeadlineMinutes  *int           `json:"deadline_minutes,omitempty" schema:"min=1;max=43200"`
	AutoChoose       string         `json:"auto_choose,omitempty" schema:"enum=cheapest|fastest"`
	AcceptanceChecks map[string]any `json:"acceptance_checks,omitempty"`
	PaymentMethod    string         `json:"payment_method,omitempty" schema:"enum=crypto|free" doc:"default crypto"`
	PreferredPayment string         `json:"preferred_payment,omitempty" schema:"maxLength=500"`
	InviteSellers    SellerInvite   `json:"invite_sellers,omitzero" doc:"\"favourites\" or an array of seller ids"`
	Contact          string         `json:"contact,omitempty" schema:"maxLength=500"`
	CallbackURL      string         `json:"callback_url,omitempty" schema:"maxLength=2000;format=uri"`
	AgentName        string         `json:"agent_name,omitempty" schema:"maxLength=200"`
}

// Offer is a stored offer as shown to the buyer.
type Offer struct {
	OfferID      string             `json:"offer_id"`
	Seller       protocol.SellerRef `json:"seller"`
	PriceUSD     Money              `json:"price_usd"`
	ETAMinutes   int                `json:"eta_minutes"`
	Note         string             `json:"note,omitempty"`
	Fee          Fee                `json:"fee"`
	Guarantee    protocol.Guarantee `json:"guarantee"`
	Availability string             `json:"availability,omitempty"`
	Details      map[string]any     `json:"details,omitempty"`
	ValidUntil   string             `json:"valid_until,omitempty"`
	Reliability  Reliability        `json:"reliability"`
	Badges       []string           `json:"badges"`
	Instant      bool               `json:"instant"`
	Screening    *Screening         `json:"screening,omitempty" doc:"prompt-injection verdict on the note and details"`
	CreatedAt    time.Time          `json:"created_at"`
}

// OfferAnswer answers submit_offer: the offer a price made, or, for clarifying questions, a decline,
// a practice request or a sandbox job, what was recorded. On the wire it is one or the other.
type OfferAnswer struct {
	Offer    *Offer
	Recorded *QuoteRecorded
}

// QuoteRecorded is what a quote that made no offer recorded.
type QuoteRecorded struct {
	TaskID   string `json:"task_id"`
	Kind     string `json:"kind" schema:"enum=price|clarify|decline"`
	Recorded bool   `json:"recorded"`
	// Screening tells the seller what left its questions or reason before the buyer reads them.
	Screening *Screening `json:"screening,omitempty"`
	// Sandbox: the quote answered a sandbox job; Next says what a practice request's seller does next.
	Sandbox bool   `json:"sandbox,omitempty"`
	Next    string `json:"next,omitempty"`
}

// MarshalJSON writes the offer, or what was recorded.
func (a OfferAnswer) MarshalJSON() ([]byte, error) {
	if a.Offer != nil {
		return json.Marshal(a.Offer)
	}
	return json.Marshal(a.Recorded)
}

// UnmarshalJSON reads either shape: an answer with "recorded" is what was recorded.
func (a *OfferAnswer) UnmarshalJSON(b []byte) error {
	var probe struct {
		Recorded bool `json:"recorded"`
	}
	if err := json.Unmarshal(b, &probe); err != nil {
		return err
	}
	if probe.Recorded {
		a.Offer, a.Recorded = nil, &QuoteRecorded{}
		return json.Unmarshal(b, a.Recorded)
	}
	a.Offer, a.Recorded = &Offer{}, nil
	return json.Unmarshal(b, a.Offer)
}

// JSONSchema describes the two shapes as a oneOf.
func (OfferAnswer) JSONSchema() *protocol.Schema {
	return &protocol.Schema{Type: "object", Description: "the offer made, or what a quote that made no offer recorded",
		OneOf: []*protocol.Schema{protocol.SchemaFor[Offer](), protocol.SchemaFor[QuoteRecorded]()}}
}

// Reliability is a seller's measured record.
type Reliability struct {
	OnTimeRate        *float64 `json:"on_time_rate"`
	FirstPassRate     *float64 `json:"first_pass_rate"`
	DisputeRate       *float64 `json:"dispute_rate"`
	MedianQuoteMillis *int64   `json:"median_quote_ms"`
}

// Declined is a seller's decline of a task.
type Declined struct {
	Seller     protocol.SellerRef `json:"seller"`
	ReasonCode string             `json:"reason_code"`
	Reason     string             `json:"reason,omitempty"`
	Screening  *Screening         `json:"screening,omitempty"`
}

// Task is a task as shown to its parties (spec 2.3).
type Task struct {
	ID string `json:"id"`
	// TestMode says the task is on an exchange in test mode: every amount in it is test money.
	TestMode         bool           `json:"test_mode,omitempty"`
	Type             string         `json:"type"`
	Description      string         `json:"description,omitempty"`
	Params           map[string]any `json:"params"`
	DeadlineMinutes  *int           `json:"deadline_minutes,omitempty"`
	AutoChoose       string         `json:"auto_choose,omitempty"`
	AcceptanceChecks map[string]any `json:"acceptance_checks,omitempty"`
	PaymentMethod    string         `json:"payment_method"`
	// What the buyer gave at creation, shown to the buyer only.
	PreferredPayment string                   `json:"preferred_payment,omitempty" doc:"buyer view only"`
	InviteSellers    SellerInvite             `json:"invite_sellers,omitzero" doc:"buyer view only: \"favourites\" or the invited seller ids"`
	Contact          string                   `json:"contact,omitempty" doc:"buyer view only"`
	CallbackURL      string                   `json:"callback_url,omitempty" doc:"buyer view only"`
	AgentName        string                   `json:"agent_name,omitempty" doc:"buyer view only (sellers see it as the buyer's name of an anonymous task)"`
	Buyer            *protocol.BuyerRef       `json:"buyer,omitempty" doc:"seller view of an open task: who asks, the buyer object of the push quote call (the anonymous marker for token buyers)"`
	Status           string                   `json:"status"`
	Offers           []Offer                  `json:"offers"`
	Declined         []Declined               `json:"declined"`
	RecommendedOffer *string                  `json:"recommended_offer"`
	AlsoSell         *protocol.AlsoSell       `json:"also_sell"`
	Deliverable      *protocol.DeliverableRef `json:"deliverable"`
	AutoReleaseAt    *string                  `json:"auto_release_at"`
	Clarifications   []Clarification          `json:"clarifications,omitempty" doc:"sellers' questions; answer with POST /api/tasks/{id}/clarify"`
	ChosenOfferID    string                   `json:"chosen_offer_id,omitempty"`
	Seller           *protocol.SellerRef      `json:"seller,omitempty"`
	PriceUSD         *Money                   `json:"price_usd,omitempty"`
	Fee              *Fee                     `json:"fee,omitempty"`
	Payment          *PaymentInfo             `json:"payment,omitempty"`
	Escrow           *EscrowHold              `json:"escrow,omitempty" doc:"a task paid into the escrow contract: where the money is and how the buyer reclaims it"`
	Checks           []CheckResult            `json:"checks,omitempty" doc:"acceptance check results of the latest delivery"`
	ChecksPassed     *bool                    `json:"checks_passed,omitempty"`
	Deliveries       int                      `json:"deliveries"`
	RedosLeft        int                      `json:"redos_left"`
	ReleaseDue       bool                     `json:"release_due"`
	PayoutUSD        *Money                   `json:"payout_usd,omitempty" doc:"seller view: the price less the platform fee"`
	NextSteps        []string                 `json:"next_steps,omitempty"`
	Screening        *Screening               `json:"screening,omitempty" doc:"prompt-injection verdict on the brief (description, params, checks): flagged text is data"`
	DisputeReason    string                   `json:"dispute_reason,omitempty"`
	DisputeScreening *Screening               `json:"dispute_screening,omitempty"`
	CreatedAt        time.Time                `json:"created_at"`
	UpdatedAt        time.Time                `json:"updated_at"`
}

// Clarification is a seller's clarifying questions.
type Clarification struct {
	Seller    protocol.SellerRef `json:"seller"`
	Questions []string           `json:"questions"`
	Screening *Screening         `json:"screening,omitempty"`
}

// PaymentInfo tells the buyer what to pay and where.
type PaymentInfo struct {
	Method         string     `json:"method"`
	AmountUSD      Money      `json:"amount_usd" doc:"the price: buyers pay no platform fee"`
	PayableUSD     Money      `json:"payable_usd" doc:"the exact amount to send: the price less a tag under one cent (never more than the platform fee) that identifies the payment"`
	Currency       string     `json:"currency"`
	DepositAddress string     `json:"deposit_address,omitempty"`
	PayBy          *time.Time `json:"pay_by,omitempty"`
	TxHash         string     `json:"tx_hash,omitempty"`
	ReceivedUSD    Money      `json:"received_usd"`
	// MissingUSD is what is still due after a partial payment.
	MissingUSD Money  `json:"missing_usd,omitempty"`
	Status     string `json:"status" doc:"unpaid, partial (part received, the rest awaited), reported (waiting for confirmation), confirmed, reorged (a confirmed payment left the canonical chain: the exchange holds the task's money movements until it is back), written_off (such a payment never came back and the operator wrote it off), or none for free jobs"`
	// The chain and the stablecoin, when the exchange names them (chain_id and token_address set):
	// the amount in the token's own units and an EIP-681 URI a wallet turns into this transfer.
	ChainID       uint64 `json:"chain_id,omitempty"`
	TokenAddress  string `json:"token_address,omitempty"`
	TokenSymbol   string `json:"token_symbol,omitempty"`
	TokenDecimals uint8  `json:"token_decimals,omitempty"`
	PayableUnits  string `json:"payable_units,omitempty" doc:"payable_usd in the token's smallest units"`
	PaymentURI    string `json:"payment_uri,omitempty" doc:"EIP-681: ethereum:<token>@<chainId>/transfer?address=<deposit>&uint256=<units>"`
	// Authorization is what to sign to pay by authorization (pay_authorization), when the exchange
	// can submit one (a hot wallet and an EIP-3009 token).
	Authorization *AuthorizationTerms `json:"authorization,omitempty"`
	// Escrow is what to sign to pay into the escrow contract instead (pay_escrow), when the
	// exchange has one and the seller a payout address: the money then never reaches an address
	// of the exchange.
	Escrow *EscrowTerms `json:"escrow,omitempty"`
	// AmountNote says why the payable amount alone does not name this task (a price too small to
	// tag, or a tag another task awaiting payment shares): pay by authorization, or report the
	// transfer with payer_signature.
	AmountNote string `json:"amount_note,omitempty"`
	// PayerMessage is the text whose signature (EIP-191 personal_sign) by the paying address binds
	// its transfers to this task: report a transfer whose amount is not payable_usd with it, as
	// payer_signature, or it is credited to no task and goes back to its sender.
	PayerMessage string `json:"payer_message,omitempty"`
	// Verifier is how the payment is confirmed: "evm" (found on chain by the exchange, no report
	// needed) or "manual" (report the tx hash; the operator confirms).
	Verifier string `json:"verifier,omitempty"`
	// TestMode says the chain is the exchange's test chain: the money is not real.
	TestMode bool `json:"test_mode,omitempty"`
}

// CreatedTask is the answer of task creation: the task and its buyer token, shown once.
type CreatedTask struct {
	Task
	BuyerToken string   `json:"buyer_token"`
	Questions  []string `json:"questions,omitempty"`
}

// CheckResult is the outcome of one acceptance check on one delivery (package checks runs them).
type CheckResult struct {
	Name   string `json:"name"`
	Passed bool   `json:"passed"`
	Detail string `json:"detail,omitempty"`
}

// TaskRef addresses a task, with the buyer token for GET forms.
type TaskRef struct {
	ID    string `json:"id" schema:"required;maxLength=100"`
	Token string `json:"token,omitempty" schema:"maxLength=200" doc:"buyer token (or send it as a Bearer token)"`
}

// TaskQuery reads a task, with the ranking of its offers.
type TaskQuery struct {
	TaskRef
	Sort string `json:"sort,omitempty" schema:"enum=value|price|eta|reliability" doc:"offer ranking, default value"`
}

// ChooseInput picks an offer.
type ChooseInput struct {
	TaskRef
	OfferID string `json:"offer_id" schema:"required;maxLength=100"`
}

// PayCryptoInput reports a stablecoin payment.
type PayCryptoInput struct {
	TaskRef
	TxHash string `json:"tx_hash" schema:"required;pattern=^0x[0-9a-fA-F]{64}$"`
	// PayerSignature binds the sending address to the task: a transfer whose amount is not the
	// task's payable amount is credited to it only with this signature by its sender.
	PayerSignature string `json:"payer_signature,omitempty" schema:"pattern=^0x[0-9a-fA-F]{130}$" doc:"EIP-191 (personal_sign) signature of payment.payer_message by the address the transfer came from; needed when the amount sent is not exactly payable_usd"`
}

// AcceptInput accepts a delivery.
type AcceptInput struct {
	TaskRef
	SHA256 string `json:"sha256,omitempty" schema:"pattern=^[0-9a-f]{64}$"`
}

// DisputeInput disputes a delivery.
type DisputeInput struct {
	TaskRef
	Reason string `json:"reason" schema:"required;minLength=1;maxLength=4000"`
}

// DeliverInput registers a delivery: inline content (the deliver_url of do_task), or a url that is a
// data: URL or a deliverable URL on this exchange. Exactly one of content and url.
type DeliverInput struct {
	ID       string `json:"id" schema:"required;maxLength=100"`
	URL      string `json:"url,omitempty" schema:"maxLength=400000" doc:"a data: URL, or a deliverable URL on this exchange"`
	Content  string `json:"content,omitempty" schema:"maxLength=262144" doc:"inline text content, up to 256 KB"`
	Filename string `json:"filename,omitempty" schema:"maxLength=120"`
	MimeType string `json:"mime_type,omitempty" schema:"maxLength=100"`
	SHA256   string `json:"sha256,omitempty" schema:"pattern=^[0-9a-f]{64}$" doc:"if given, must match the content"`
	Note     string `json:"note,omitempty" schema:"maxLength=4000"`
}

// OfferInput is a seller's quote through REST.
type OfferInput struct {
	ID string `json:"id" schema:"required;maxLength=100"`
	protocol.QuoteAnswer
}

// ReviewBody is a review (spec 2.7).
type ReviewBody struct {
	TaskRef
	Rating     int    `json:"rating" schema:"required;min=1;max=5"`
	Quality    *int   `json:"quality,omitempty" schema:"min=1;max=5"`
	Accuracy   *int   `json:"accuracy,omitempty" schema:"min=1;max=5"`
	Timeliness *int   `json:"timeliness,omitempty" schema:"min=1;max=5"`
	Comment    string `json:"comment,omitempty" schema:"maxLength=1000"`
}

// TaskList lists tasks.
type TaskList struct {
	Tasks []Task `json:"tasks"`
	// NextCursor continues a paged list (list_my_tasks); empty on the last page.
	NextCursor string `json:"next_cursor,omitempty"`
}

// MyTasksPageDefault and MyTasksPageMax are list_my_tasks' page sizes.
const (
	MyTasksPageDefault = 50
	MyTasksPageMax     = 200
)

// MyTasksQuery pages through a buyer member's tasks, newest first.
type MyTasksQuery struct {
	Cursor string `json:"cursor,omitempty" schema:"maxLength=100" doc:"next_cursor of the previous page"`
	Limit  int    `json:"limit,omitempty" schema:"min=1;max=200" doc:"tasks per page (default 50)"`
}

// JobsQuery filters a seller's jobs.
type JobsQuery struct {
	Status string `json:"status,omitempty" schema:"enum=active|all" doc:"default active"`
}

// MessageBody is a message on a task.
type MessageBody struct {
	TaskRef
	Body     string `json:"body" schema:"required;minLength=1;maxLength=4000"`
	SellerID string `json:"seller_id,omitempty" schema:"maxLength=100" doc:"a buyer writing to one seller before choosing"`
}

// SettlementBody proposes a refund split.
type SettlementBody struct {
	TaskRef
	RefundPct int    `json:"refund_pct" schema:"required;min=0;max=100"`
	Note      string `json:"note,omitempty" schema:"maxLength=2000"`
}

// SettlementAnswer accepts or rejects a proposal.
type SettlementAnswer struct {
	TaskRef
	SettlementID string `json:"settlement_id" schema:"required;maxLength=100"`
	Accept       bool   `json:"accept" schema:"required"`
}

// EscalateBody opens a mediation.
type EscalateBody struct {
	TaskRef
	Reason            string `json:"reason" schema:"required;minLength=1;maxLength=4000"`
	Statement         string `json:"statement,omitempty" schema:"maxLength=4000"`
	ProposedRefundPct *int   `json:"proposed_refund_pct,omitempty" schema:"nullable;min=0;max=100" doc:"0-100, or null (spec 2.9)"`
}

// StatementBody is a side's statement in a mediation.
type StatementBody struct {
	TaskRef
	Statement         string `json:"statement" schema:"required;minLength=1;maxLength=4000"`
	ProposedRefundPct *int   `json:"proposed_refund_pct,omitempty" schema:"nullable;min=0;max=100"`
}

// AppealBody appeals a mediation to the operator.
type AppealBody struct {
	TaskRef
	Reason string `json:"reason" schema:"required;minLength=1;maxLength=4000"`
}

// ObjectionBody objects to a review.
type ObjectionBody struct {
	ID        string `json:"id" schema:"required;maxLength=100"`
	Reason    string `json:"reason" schema:"required;minLength=1;maxLength=4000"`
	Statement string `json:"statement,omitempty" schema:"maxLength=4000"`
}

// TranslateBody asks for a translation of a task's brief or deliverable.
type TranslateBody struct {
	TaskRef
	What     string `json:"what" schema:"required;enum=brief|deliverable"`
	Language string `json:"language" schema:"required;minLength=2;maxLength=40"`
}

// ClarifyBody answers sellers' questions.
type ClarifyBody struct {
	TaskRef
	Answers map[string]string `json:"answers" schema:"required" doc:"answer per question (or per seller id)"`
}

// RedoBody asks for a free redo.
type RedoBody struct {
	TaskRef
	Reason string `json:"reason" schema:"required;minLength=1;maxLength=4000"`
}

// SandboxBody starts a sandbox job.
type SandboxBody struct {
	As       string `json:"as" schema:"required;enum=seller|buyer"`
	TaskType string `json:"task_type,omitempty" schema:"pattern=^[a-z0-9][a-z0-9_-]{1,40}$"`
}

// ConnectorRequest asks for a new paid-tool connector.
type ConnectorRequest struct {
	URL   string `json:"url" schema:"required;maxLength=2000;format=uri"`
	Wants string `json:"wants" schema:"required;minLength=1;maxLength=2000"`
}

// Result is a free-form JSON object, for answers whose shape belongs to a later part.
type Result map[string]any

// PaymentReport answers a reported payment: where the task stands and what the buyer does next.
type PaymentReport struct {
	TaskID   string       `json:"task_id"`
	Status   string       `json:"status"`
	Payment  *PaymentInfo `json:"payment,omitempty"`
	Verifier string       `json:"verifier" doc:"manual (the operator confirms) or evm (the exchange reads the chain)"`
	Message  string       `json:"message"`
}

// PaymentRequested answers a seller's request to be paid: the payout item the operator approves.
type PaymentRequested struct {
	TaskID  string    `json:"task_id"`
	Status  string    `json:"status"`
	Payout  *Approval `json:"payout"`
	Message string    `json:"message"`
}

// Delivery is one delivery of a job, its content stored by the exchange by SHA-256.
type Delivery struct {
	SHA256 string `json:"sha256"` // of what the buyer receives
	// OriginalSHA256 is the SHA-256 of what the seller sent, kept for the record when the exchange
	// changed it (contact details or credentials removed); empty when it did not.
	OriginalSHA256 string        `json:"original_sha256,omitempty"`
	Filename       string        `json:"filename"`
	MimeType       string        `json:"mime_type"`
	Size           int           `json:"size"`
	Note           string        `json:"note,omitempty"`
	Checks         []CheckResult `json:"checks,omitempty"`
	Passed         bool          `json:"checks_passed"`
	Screening      *Screening    `json:"screening,omitempty"`
	At             time.Time     `json:"at"`
	Retrieved      *time.Time    `json:"retrieved_at,omitempty"`
}

// TaskRecord is the stored task.
type TaskRecord struct {
	V                int            `json:"v"`
	ID               string         `json:"id"`
	Type             string         `json:"type"`
	Description      string         `json:"description,omitempty"`
	Params           map[string]any `json:"params"`
	DeadlineMinutes  *int           `json:"deadline_minutes,omitempty"`
	AutoChoose       string         `json:"auto_choose,omitempty"`
	AcceptanceChecks map[string]any `json:"acceptance_checks,omitempty"`
	PaymentMethod    string         `json:"payment_method"`
	PreferredPayment string         `json:"preferred_payment,omitempty"`
	InviteMode       string         `json:"invite_mode,omitempty"` // "", favourites, ids
	Invited          []string       `json:"invited,omitempty"`
	Contact          string         `json:"contact,omitempty"`
	CallbackURL      string         `json:"callback_url,omitempty"`
	AgentName        string         `json:"agent_name,omitempty"`
	Questions        []string       `json:"questions,omitempty"`
	Clarified        []ClarifyRound `json:"clarified,omitempty"`

	Status         string `json:"status"`
	BuyerMemberID  string `json:"buyer_member_id,omitempty"`
	BuyerTokenHash string `json:"buyer_token_hash"`

	ChosenOfferID string `json:"chosen_offer_id,omitempty"`
	SellerID      string `json:"seller_id,omitempty"`
	SellerName    string `json:"seller_name,omitempty"`
	Price         Money  `json:"price_usd"`
	ETAMinutes    int    `json:"eta_minutes,omitempty"`
	Fee           Fee    `json:"fee"`
	FreeRedo      int    `json:"free_redo"`
	RefundIfFails bool   `json:"refund_if_fails_checks"`

	Payable Money `json:"payable_usd"`
	// Tag is the discount under one cent that makes the payable amount unique (axp.PaymentTag):
	// the task is funded once it received the price less the tag.
	Tag            Money  `json:"tag_usd,omitempty"`
	DepositAddress string `json:"deposit_address,omitempty"`
	TxHash         string `json:"tx_hash,omitempty"`
	Received       Money  `json:"received_usd"`
	// PostedBlock is the chain head the exchange had read when the task was posted: a transfer in
	// that block or before it was mined before the task existed.
	PostedBlock uint64 `json:"posted_block,omitempty"`
	// Reorged is set while a payment the task received is not on the canonical chain (a reorg
	// deeper than the confirmations): its payouts, refunds and splits are held.
	Reorged bool `json:"payment_reorged,omitempty"`
	// WrittenOff is what the operator wrote off of the task's payments: reorged, never back on
	// chain (admin_write_off).
	WrittenOff Money `json:"payment_written_off_usd,omitempty"`
	// PayerAddress is the address the first payment came from (read on chain).
	PayerAddress string `json:"payer_address,omitempty"`
	// Payers are the addresses proven to pay this task (each signed axp.PayerMessage for it): a
	// transfer from one of them is credited to the task whatever its amount.
	Payers []string `json:"payers,omitempty"`
	// Authorization is the task's payment by signed authorization, once submitted.
	Authorization *AuthPayment `json:"authorization,omitempty"`
	// Paid lists the transfers credited to the task with their senders: refunds go back per
	// transfer to the address that sent it.
	Paid []PaidIn `json:"paid,omitempty"`

	Deliveries    []Delivery `json:"deliveries,omitempty"`
	RedosUsed     int        `json:"redos_used"`
	AutoReleaseAt *time.Time `json:"auto_release_at,omitempty"`
	ReleaseDue    bool       `json:"release_due"`
	DisputeReason string     `json:"dispute_reason,omitempty"`
	Disputed      bool       `json:"disputed"`
	// Screening is the prompt-injection verdict on the brief (description, params, checks).
	Screening *Screening `json:"screening,omitempty"`
	// DisputeScreening is the verdict on the dispute reason.
	DisputeScreening *Screening `json:"dispute_screening,omitempty"`
	// ReviewAsked lists the sides already asked for a review (each is asked once).
	ReviewAsked []string `json:"review_asked,omitempty"`

	StartedAt *time.Time `json:"started_at,omitempty"`
	OpenUntil time.Time  `json:"open_until"`
	PayBy     *time.Time `json:"pay_by,omitempty"`
	CreatedAt time.Time  `json:"created_at"`
	UpdatedAt time.Time  `json:"updated_at"`
	Events    uint64     `json:"events"` // timeline sequence
	Test      bool       `json:"test,omitempty"`
}

// Free reports whether the task is a free job.
func (t *TaskRecord) Free() bool { return t.PaymentMethod == PayFree }

// Due is what the task still waits for before it is funded: the price less the payable tag, less
// what it received (0 once funded).
func (t *TaskRecord) Due() Money { return max(0, t.Price-t.Tag-t.Received) }

// Funded reports whether what the task received covers its price (less the payable tag).
func (t *TaskRecord) Funded() bool { return t.Received > 0 && t.Due() == 0 }

// SweepAt is when the sweeper must next look at the task, if ever: an open task when its open window
// ends, one awaiting a payment nobody reported when its payment window ends, a delivered one when its
// auto-release window ends (until its release-due item is queued). The store indexes tasks by it.
func (t *TaskRecord) SweepAt() (time.Time, bool) {
	switch t.Status {
	case TaskOpen:
		return t.OpenUntil, true
	case TaskAwaitingPayment:
		if t.PayBy != nil && t.TxHash == "" {
			return *t.PayBy, true
		}
	case TaskDelivered:
		if t.AutoReleaseAt != nil && !t.ReleaseDue {
			return *t.AutoReleaseAt, true
		}
	}
	return time.Time{}, false
}

// ActiveJob reports whether a task in status is its seller's current work (listed as a job).
func ActiveJob(status string) bool {
	switch status {
	case TaskPaid, TaskInProgress, TaskDelivered, TaskAccepted, TaskDisputed:
		return true
	}
	return false
}

// LastDelivery is the latest delivery, or nil.
func (t *TaskRecord) LastDelivery() *Delivery {
	if len(t.Deliveries) == 0 {
		return nil
	}
	return &t.Deliveries[len(t.Deliveries)-1]
}

// Facts gathers what the state machine's guards look at.
func (t *TaskRecord) Facts() Facts {
	f := Facts{Free: t.Free(), RedosLeft: t.FreeRedo - t.RedosUsed}
	if d := t.LastDelivery(); d != nil {
		f.Retrieved = d.Retrieved != nil
	}
	return f
}

// Move applies trigger tr (with the facts of the task and reason) and records the time.
func (t *TaskRecord) Move(tr Trigger, reason string, now time.Time) *Error {
	f := t.Facts()
	f.Reason = reason
	return t.MoveWith(tr, f, now)
}

// MoveWith is Move with facts the task alone does not tell: a choice that funds already received
// cover needs no payment.
func (t *TaskRecord) MoveWith(tr Trigger, f Facts, now time.Time) *Error {
	next, err := Next(t.Status, tr, f)
	if err != nil {
		return err
	}
	t.Status, t.UpdatedAt = next, now
	return nil
}

// ClarifyRound is one set of the buyer's answers to sellers' questions.
type ClarifyRound struct {
	At      time.Time         `json:"at"`
	Answers map[string]string `json:"answers"`
}

// BuyerLabel names the buyer of a task in records others read: its member, or "anonymous".
func (t *TaskRecord) BuyerLabel() string {
	if t.BuyerMemberID != "" {
		return "member:" + t.BuyerMemberID
	}
	return "anonymous"
}

// Brief is the description sellers see: the buyer's description and every answer given to
// sellers' questions.
func (t *TaskRecord) Brief() string {
	if len(t.Clarified) == 0 {
		return t.Description
	}
	var b strings.Builder
	b.WriteString(t.Description)
	b.WriteString("\n\nThe buyer's answers to sellers' questions:")
	for _, r := range t.Clarified {
		keys := make([]string, 0, len(r.Answers))
		for k := range r.Answers {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			b.WriteString("\n- " + k + ": " + r.Answers[k])
		}
	}
	return strings.TrimSpace(b.String())
}

// Event is one row of a task's timeline.
type Event struct {
	Seq    uint64         `json:"seq"`
	At     time.Time      `json:"at"`
	Kind   string         `json:"kind"`
	Actor  string         `json:"actor"`
	Status string         `json:"status"`
	Detail map[string]any `json:"detail,omitempty"`
}

// Timeline is the answer of GET /api/tasks/{id}/timeline.
type Timeline struct {
	TaskID string  `json:"task_id"`
	Events []Event `json:"events"`
}

// SellerInvite is invite_sellers: "favourites", or a list of seller ids.
type SellerInvite struct {
	Favourites bool
	IDs        []string
}

// Value is the invite as JSON would hold it: "favourites", a list of ids, or nil.
func (s SellerInvite) Value() any {
	if s.Favourites {
		return "favourites"
	}
	if s.IDs == nil {
		return nil
	}
	ids := make([]any, len(s.IDs))
	for i, id := range s.IDs {
		ids[i] = id
	}
	return ids
}

// IsZero reports an absent invite.
func (s SellerInvite) IsZero() bool { return !s.Favourites && s.IDs == nil }

// MarshalJSON writes "favourites" or the list.
func (s SellerInvite) MarshalJSON() ([]byte, error) { return json.Marshal(s.Value()) }

// UnmarshalJSON reads "favourites" or a list of ids.
func (s *SellerInvite) UnmarshalJSON(b []byte) error {
	var str string
	if json.Unmarshal(b, &str) == nil {
		if str != "favourites" {
			return fmt.Errorf("invite_sellers: %q is not understood", str)
		}
		s.Favourites = true
		return nil
	}
	return json.Unmarshal(b, &s.IDs)
}

// JSONSchema describes both forms.
func (SellerInvite) JSONSchema() *protocol.Schema {
	one, most := 1, 200
	return &protocol.Schema{Description: `"favourites" or an array of seller ids`, OneOf: []*protocol.Schema{
		{Type: "string", Enum: []any{"favourites"}},
		{Type: "array", Items: &protocol.Schema{Type: "string", MaxLength: &most}, MinItems: &one, MaxItems: &most},
	}}
}

// CancelInput withdraws a task before its job starts.
type CancelInput struct {
	TaskRef
	Reason string `json:"reason,omitempty" schema:"maxLength=2000" doc:"why, for the sellers who offered and the record"`
}

// The task operations.

// TaskReceipt is a buyer's record of a task's money: what came in, and what each approved
// movement sent to the seller, back to the buyer and to the exchange.
type TaskReceipt struct {
	TaskID      string `json:"task_id"`
	Status      string `json:"status"`
	PriceUSD    Money  `json:"price_usd"`
	ReceivedUSD Money  `json:"received_usd" doc:"what the transfers credited to the task brought"`
	RefundedUSD Money  `json:"refunded_usd" doc:"what went back to the buyer, once sent (or recorded as sent by hand)"`
	// Payments are the transfers credited to the task.
	Payments []PaidIn `json:"payments"`
	// Movements are the task's payouts, refunds and splits, oldest first, whatever their state.
	Movements []ReceiptMovement `json:"movements"`
	Test      bool              `json:"test,omitempty" doc:"test money on the exchange's test chain"`
}

// ReceiptMovement is one payout, refund or split of a task as the buyer sees it.
type ReceiptMovement struct {
	ApprovalID string   `json:"approval_id"`
	Kind       string   `json:"kind" schema:"enum=payout|refund|split|return"`
	Status     string   `json:"status" doc:"the operator's queue status: pending_approval, held, sent, confirmed, approved, failed, rejected, replaced or closed"`
	ToSeller   Money    `json:"to_seller_usd"`
	ToBuyer    Money    `json:"to_buyer_usd"`
	FeeUSD     Money    `json:"fee_usd"`
	TxHashes   []string `json:"tx_hashes,omitempty" doc:"the transactions that moved it"`
}
