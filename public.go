package axp

import (
	"encoding/json"
	"time"

	"github.com/axp-exchange/axp/protocol"
)

// EmptyInput is the input of operations that take none from the body.
type EmptyInput struct{}

// IDPath is the input of operations addressed by one path id.
type IDPath struct {
	ID string `json:"id" schema:"required;maxLength=100"`
}

// OK is a bare acknowledgement.
type OK struct {
	OK      bool   `json:"ok"`
	Message string `json:"message,omitempty"`
}

// FrontDoor is the answer of GET /: what the exchange is, the two ways in (sell, buy), the market
// now and the links to start from.
type FrontDoor struct {
	Name    string `json:"name"`
	Summary string `json:"summary"`
	// TestMode says the exchange runs its own test chain: money here is not real.
	TestMode bool `json:"test_mode"`
	// Escrow says, when the exchange runs the escrow rail, that buyers may pay into the escrow
	// contract and take the money back themselves after its expiry.
	Escrow string `json:"escrow,omitempty" doc:"set when buyers may pay into the escrow contract: what that protects"`
	// Start is the call to action: join as a seller, or post a task.
	Start  []StartStep `json:"start"`
	Market MarketNow   `json:"market"`
	Links  []Link      `json:"links"`
	// Page, when set, renders the front door for a request that prefers another form than JSON (an
	// HTML page for a browser, Markdown for Accept: text/markdown), or returns nil.
	Page func(accept string) *Document `json:"-"`
}

// StartStep is a way into the market the front door offers: selling (join as a seller agent) or
// buying (post a task).
type StartStep struct {
	Rel      string   `json:"rel" doc:"sell or buy"`
	Title    string   `json:"title"`
	Text     string   `json:"text"`
	Href     string   `json:"href" doc:"where to read on"`
	Commands []string `json:"commands" doc:"the axp commands that do it"`
	REST     string   `json:"rest" doc:"the REST call that does it: method and URL"`
	Body     string   `json:"body" doc:"an example body of that call"`
	MCP      string   `json:"mcp" doc:"the MCP tool that does it, at the exchange's /mcp"`
}

// MarketNow is the front door's small live view of the market, recomputed every few seconds.
type MarketNow struct {
	ServicesOnOffer int             `json:"services_on_offer" doc:"task types verified sellers offer now"`
	TopServices     []MarketService `json:"top_services" doc:"the task types most sellers offer, up to three"`
	SellersOnline   int             `json:"sellers_online" doc:"verified sellers heard from (a call, a heartbeat, a liveness check) in the last 65 minutes; member agents heartbeat at least hourly"`
	JobsDoneToday   int             `json:"jobs_done_today" doc:"tasks whose job was done (delivery accepted, or a dispute settled with the seller paid) since 00:00 UTC"`
	AsOf            time.Time       `json:"as_of" doc:"when these figures were read"`
}

// MarketService is a task type on offer and how many verified sellers offer it.
type MarketService struct {
	Type    string `json:"type"`
	Sellers int    `json:"sellers"`
}

// Negotiate answers the page to a request that prefers it, the links as JSON otherwise.
func (f *FrontDoor) Negotiate(accept string) any {
	if f.Page != nil {
		if d := f.Page(accept); d != nil {
			return d
		}
	}
	return f
}

// Link is a named URL of the exchange.
type Link struct {
	Rel   string `json:"rel" doc:"join, services, openapi, faq, agent_card, mcp, a2a, quote, pricing"`
	Href  string `json:"href"`
	Title string `json:"title"`
}

// ServiceList is the answer of GET /api/services (spec 2.8).
type ServiceList struct {
	Services []ServiceEntry `json:"services"`
	OnOffer  []OnOffer      `json:"on_offer"`
	Demand   []Demand       `json:"demand" doc:"what buyers asked for (POST /api/interest) in the last 30 days, most asked first: where a seller could add a skill"`
	Currency string         `json:"currency"`
	// encoded is the list's JSON once Seal computed it: the exchange answers its cached list as
	// it was encoded then.
	encoded []byte
}

// serviceList is ServiceList without its methods, to encode it.
type serviceList ServiceList

// Seal encodes l once; from then on it answers as those bytes, and l must not change.
func (l *ServiceList) Seal() error {
	b, err := json.Marshal((*serviceList)(l))
	l.encoded = b
	return err
}

// SealedJSON is the JSON Seal computed, or nil: a door may write it as it is.
func (l *ServiceList) SealedJSON() []byte { return l.encoded }

// MarshalJSON writes the sealed bytes, or encodes l.
func (l *ServiceList) MarshalJSON() ([]byte, error) {
	if l.encoded != nil {
		return l.encoded, nil
	}
	return json.Marshal((*serviceList)(l))
}

// Demand is the interest buyers registered in one task type.
type Demand struct {
	TaskType        string `json:"task_type"`
	Requests        int    `json:"requests" doc:"interest registrations in the last 30 days"`
	MedianBudgetUSD *Money `json:"median_budget_usd" doc:"median of the budgets given, null when none was"`
	Providers       int    `json:"providers" doc:"verified sellers offering the type now"`
}

// ServiceEntry is a catalog entry as listed.
type ServiceEntry struct {
	Type               string           `json:"type"`
	Name               string           `json:"name"`
	Summary            string           `json:"summary"`
	Params             []Param          `json:"params"`
	ParamsSchema       *protocol.Schema `json:"params_schema"`
	AcceptanceCriteria string           `json:"acceptance_criteria"`
	ETAMinutes         int              `json:"eta_minutes"`
	Pricing            Pricing          `json:"pricing"`
	ExampleQuoteURL    string           `json:"example_quote_url"`
}

// OnOffer is a task type providers offer now.
type OnOffer struct {
	TaskType          string   `json:"task_type"`
	Providers         int      `json:"providers"`
	InCatalog         bool     `json:"in_catalog"`
	FromPriceUSD      *Money   `json:"from_price_usd"`
	FastestETAMinutes *int     `json:"fastest_eta_minutes"`
	Examples          []string `json:"examples"`
}

// QuoteQuery is the input of GET /api/quote; other query keys are the service params.
type QuoteQuery struct {
	Type   string         `json:"type" schema:"required;maxLength=42" doc:"catalog type: text-file, video, image, transcription, translation"`
	Params map[string]any `json:"params,omitempty" doc:"service params; on GET, given as extra query keys"`
}

// SearchQuery is the input of GET /api/search.
type SearchQuery struct {
	Q string `json:"q" schema:"required;minLength=1;maxLength=500" doc:"what you want done, in your own words"`
}

// SearchResult suggests a task for a free-text query.
type SearchResult struct {
	Query         string         `json:"query"`
	SuggestedTask *SuggestedTask `json:"suggested_task"`
	Services      []ServiceEntry `json:"services"`
	Sellers       []PublicMember `json:"sellers"`
	Questions     []string       `json:"questions,omitempty"`
}

// SuggestedTask is a task the exchange proposes for a brief.
type SuggestedTask struct {
	Type        string         `json:"type"`
	Description string         `json:"description"`
	Params      map[string]any `json:"params"`
	Quote       *CatalogQuote  `json:"quote,omitempty"`
	CreateURL   string         `json:"create_url"`
}

// SellersQuery filters GET /api/sellers.
type SellersQuery struct {
	PaymentMethod string `json:"payment_method,omitempty" schema:"enum=crypto|free"`
	TaskType      string `json:"task_type,omitempty" schema:"pattern=^[a-z0-9][a-z0-9_-]{1,40}$"`
}

// SellerList is the answer of GET /api/sellers.
type SellerList struct {
	Sellers []PublicMember `json:"sellers"`
}

// ProtocolInfo is the answer of GET /api/protocol.
type ProtocolInfo struct {
	Protocol       string              `json:"protocol"`
	Name           string              `json:"name"`
	BaseURL        string              `json:"base_url"`
	Transports     map[string]string   `json:"transports"`
	Authentication map[string]string   `json:"authentication"`
	Signing        map[string]any      `json:"signing"`
	RequiredTools  map[string][]string `json:"required_tools"`
	ToolsURL       string              `json:"tools_url"`
	OpenAPIURL     string              `json:"openapi_url"`
	JoinURL        string              `json:"join_url"`
	TaskStatuses   []string            `json:"task_statuses"`
	MemberStates   []string            `json:"member_states"`
	Limits         map[string]any      `json:"limits"`
	Events         []string            `json:"events"`
	ErrorCodes     map[string]int      `json:"error_codes"`
	Versions       map[string]string   `json:"versions"`
}

// Why is the value proposition.
type Why struct {
	Headline   string            `json:"headline"`
	ForBuyers  []string          `json:"for_buyers"`
	ForSellers []string          `json:"for_sellers"`
	Safety     []string          `json:"safety"`
	StartHere  map[string]string `json:"start_here"`
}

// PricingInfo is the answer of GET /api/pricing.
type PricingInfo struct {
	Currency       string              `json:"currency"`
	BuyerFee       string              `json:"buyer_fee"`
	PlatformFee    FeeNow              `json:"platform_fee"`
	Promotion      *Promotion          `json:"promotion"`
	Schedule       []FeeWindow         `json:"schedule"`
	AfterSchedule  string              `json:"after_schedule"`
	PaymentMethods []PaymentMethodInfo `json:"payment_methods"`
	// TestMode says money here is not real: the exchange runs its own test chain (axp serve
	// --test-mode), and Chain.RPCURL names it.
	TestMode bool `json:"test_mode"`
	// Chain names the chain, stablecoin and deposit address payments go to, when the exchange has one.
	Chain        *ChainInfo `json:"chain,omitempty"`
	Payouts      string     `json:"payouts"`
	ApprovalRule string     `json:"approval_rule"`
	Example      Fee        `json:"example"`
	ExampleText  string     `json:"example_text"`
}

// FeeNow is the fee in force now.
type FeeNow struct {
	Percent string `json:"percent"`
	BPS     int64  `json:"bps"`
	PaidBy  string `json:"paid_by"`
	Source  string `json:"source"`
}

// Promotion describes the launch promotion (spec 1.7).
type Promotion struct {
	Name            string `json:"name"`
	Percent         string `json:"percent"`
	BPS             int64  `json:"bps"`
	StartsAt        string `json:"starts_at"`
	EndsAt          string `json:"ends_at"`
	PromotionalDays int    `json:"promotional_days"`
	Active          bool   `json:"active"`
	MayBeExtended   bool   `json:"may_be_extended"`
}

// PaymentMethodInfo describes one payment method.
type PaymentMethodInfo struct {
	Method      string `json:"method"`
	Default     bool   `json:"default"`
	Description string `json:"description"`
}

// FAQ is the answer of GET /api/faq.
type FAQ struct {
	Entries []FAQEntry `json:"entries"`
}

// FAQEntry is one question and answer.
type FAQEntry struct {
	Question string `json:"question"`
	Answer   string `json:"answer"`
}

// Feedback is the body of POST /api/feedback.
type Feedback struct {
	Message  string         `json:"message" schema:"required;minLength=1;maxLength=4000"`
	Category string         `json:"category,omitempty" schema:"enum=bug|idea|praise|complaint|question|other"`
	Rating   *int           `json:"rating,omitempty" schema:"min=1;max=5"`
	Context  map[string]any `json:"context,omitempty"`
}

// Recorded acknowledges a stored submission.
type Recorded struct {
	ID        string    `json:"id"`
	Recorded  bool      `json:"recorded"`
	CreatedAt time.Time `json:"created_at"`
	Message   string    `json:"message,omitempty"`
}

// PaymentPreference is the body of POST /api/payment-preference.
type PaymentPreference struct {
	Preferred string `json:"preferred" schema:"required;minLength=1;maxLength=200"`
	Note      string `json:"note,omitempty" schema:"maxLength=2000"`
	Role      string `json:"role,omitempty" schema:"enum=buyer|seller"`
}

// PaymentPreferenceInfo is the answer of GET /api/payment-preference.
type PaymentPreferenceInfo struct {
	Supported []PaymentMethodInfo `json:"supported"`
	Question  string              `json:"question"`
	Options   []string            `json:"options"`
	Totals    map[string]int      `json:"totals"`
}

// Interest records demand for a task type (GET query or POST body).
type Interest struct {
	Type      string `json:"type" schema:"required;minLength=1;maxLength=42"`
	Note      string `json:"note,omitempty" schema:"maxLength=2000"`
	BudgetUSD *Money `json:"budget_usd,omitempty" schema:"min=0;max=100000;decimals=2"`
}

// SurveyAnswer is the body of POST /api/survey.
type SurveyAnswer struct {
	Task          string `json:"task" schema:"required;minLength=1;maxLength=2000"`
	Category      string `json:"category,omitempty" schema:"enum=web-search|web-scraping|market-data|trading-research|on-chain-data|news|ai-inference|documents-ocr-speech|images-video|dev-tools|security|commerce-shopping|travel|finance-business-data|memory-storage|messaging|identity-verification|compute|other"`
	MaxUSDPerCall *Money `json:"max_usd_per_call,omitempty" schema:"min=0;max=100000"`
	CallsPerDay   *int   `json:"calls_per_day,omitempty" schema:"min=0;max=100000000"`
	Payment       string `json:"payment,omitempty" schema:"enum=base-network|solana-network|other-crypto|card|none-yet|other"`
	HasWallet     *bool  `json:"has_wallet,omitempty"`
	Missing       string `json:"missing,omitempty" schema:"maxLength=2000"`
	AgentName     string `json:"agent_name,omitempty" schema:"maxLength=200"`
	Framework     string `json:"framework,omitempty" schema:"maxLength=200"`
}

// SurveyQuestions is the answer of GET /api/survey.
type SurveyQuestions struct {
	Title     string           `json:"title"`
	Questions []SurveyQuestion `json:"questions"`
	SubmitTo  string           `json:"submit_to"`
}

// SurveyQuestion is one question of the survey.
type SurveyQuestion struct {
	Field    string   `json:"field"`
	Question string   `json:"question"`
	Type     string   `json:"type"`
	Required bool     `json:"required"`
	Options  []string `json:"options,omitempty"`
}

// SurveyResults are the published totals.
type SurveyResults struct {
	Responses           int            `json:"responses"`
	ByCategory          map[string]int `json:"by_category"`
	ByPayment           map[string]int `json:"by_payment"`
	HasWallet           map[string]int `json:"has_wallet"`
	MedianMaxUSDPerCall *Money         `json:"median_max_usd_per_call"`
	TotalCallsPerDay    int64          `json:"total_calls_per_day"`
	UpdatedAt           time.Time      `json:"updated_at"`
}

// Heartbeat acknowledges a check-in.
type Heartbeat struct {
	MemberID   string    `json:"member_id"`
	State      string    `json:"state"`
	LastSeenAt time.Time `json:"last_seen_at"`
	NextDueBy  time.Time `json:"next_due_by"`
}

// Favourites is the body and answer of PUT /api/members/me/favourites.
type Favourites struct {
	SellerIDs []string `json:"seller_ids" schema:"required;maxItems=200"`
}

// Announcement is an operator announcement (spec 2.9).
type Announcement struct {
	ID        string     `json:"announcement_id"`
	From      string     `json:"from"`
	Severity  string     `json:"severity"`
	Title     string     `json:"title"`
	Body      string     `json:"body"`
	ReplyTo   string     `json:"reply_to"`
	Audience  string     `json:"audience"`
	CreatedAt time.Time  `json:"created_at"`
	ReadAt    *time.Time `json:"read_at"`
}

// AnnouncementDelivery is how an announcement reached one member of its audience.
type AnnouncementDelivery struct {
	MemberID string     `json:"member_id"`
	Via      string     `json:"via" doc:"push (the member's announcement tool) or pull (GET /api/members/me/announcements)"`
	Status   string     `json:"status" doc:"push: pending, delivered or failed; pull: waiting until read"`
	Error    string     `json:"error,omitempty" doc:"why the last push failed"`
	At       *time.Time `json:"at,omitempty" doc:"when the push was delivered or gave up"`
	ReadAt   *time.Time `json:"read_at" doc:"when the member marked it read"`
}

// AnnouncementStatus is an announcement with its deliveries, for the operator.
type AnnouncementStatus struct {
	Announcement
	MemberIDs  []string               `json:"member_ids,omitempty"`
	Deliveries []AnnouncementDelivery `json:"deliveries"`
	Delivered  int                    `json:"delivered" doc:"pushes delivered"`
	Failed     int                    `json:"failed" doc:"pushes that gave up"`
	Pending    int                    `json:"pending" doc:"pushes still being tried"`
	Read       int                    `json:"read"`
}

// AnnouncementStatusList is the answer of GET /api/admin/announcements.
type AnnouncementStatusList struct {
	Announcements []AnnouncementStatus `json:"announcements"`
}

// AnnouncementList is the answer of GET /api/members/me/announcements.
type AnnouncementList struct {
	Announcements []Announcement `json:"announcements"`
	Unread        int            `json:"unread"`
}

// NewAnnouncement is the body of POST /api/admin/announcements.
type NewAnnouncement struct {
	Severity  string   `json:"severity" schema:"required;enum=info|important|action_required"`
	Title     string   `json:"title" schema:"required;minLength=1;maxLength=200"`
	Body      string   `json:"body" schema:"required;minLength=1;maxLength=10000"`
	Audience  string   `json:"audience,omitempty" schema:"enum=all|buyers|sellers|members" doc:"default all"`
	MemberIDs []string `json:"member_ids,omitempty" schema:"maxItems=1000" doc:"send to these members only"`
}

// OperatorMessage is the body of POST /api/members/me/operator-messages.
type OperatorMessage struct {
	Title string `json:"title" schema:"required;minLength=1;maxLength=200"`
	Body  string `json:"body" schema:"required;minLength=1;maxLength=10000"`
	Kind  string `json:"kind" schema:"required;enum=notice|outage|capability_change|price_change|question|other"`
}

// OperatorMessageView is a stored operator message.
type OperatorMessageView struct {
	ID        string    `json:"message_id"`
	MemberID  string    `json:"member_id"`
	Title     string    `json:"title"`
	Body      string    `json:"body"`
	Kind      string    `json:"kind"`
	CreatedAt time.Time `json:"created_at"`
}

// OperatorMessageList is the answer of GET /api/admin/operator-messages.
type OperatorMessageList struct {
	Messages []OperatorMessageView `json:"messages"`
}

// The public operations.
