package axp

import (
	"hash/fnv"
	"time"

	"github.com/axp-exchange/axp/protocol"
)

// Pay-per-call prices (spec 4.6): every tool costs between these per call.
const (
	MinCallPrice Money = 2_000   // US$0.002
	MaxCallPrice Money = 250_000 // US$0.25
	// ConnectorSetupFee is the flat fee an accepted connector costs the member or buyer who asked.
	ConnectorSetupFee Money = 10_000_000
	// TrialCallsPerDay is the default number of free trial calls per caller and UTC day.
	TrialCallsPerDay = 3
)

// An x402 v1 payment names no resource: the reference v1 clients send only the scheme, the network
// and an EIP-3009 authorization, which signs an amount and a recipient but no tool. The exchange binds
// a v1 payment to its tool through the amount: one v1 call costs the price less the tool's tag, and no
// two tools (nor two connectors, nor two connectors' setup fees) share a tag, so the authorization made
// for one tool moves the wrong amount for any other. v2 payments name their resource and pay the
// price.
const (
	// V1TagMax is the largest tag: a v1 payment is at most US$0.000999 below the price.
	V1TagMax Money = 999
	// connectorTagMin is the smallest tag of a connector: the catalog's tools use the tags below.
	connectorTagMin Money = 100
)

// ConnectorV1Tag is the tag of a connector's calls and of its setup fee, read from its tool name:
// 100 to 999. Two accepted or live connectors never share one (accepting a name whose tag is taken
// is refused).
func ConnectorV1Tag(name string) Money {
	h := fnv.New32a()
	h.Write([]byte(name))
	return connectorTagMin + Money(h.Sum32()%uint32(V1TagMax-connectorTagMin+1))
}

// PaidToolsQuery searches the pay-per-call tools.
type PaidToolsQuery struct {
	Q        string `json:"q,omitempty" schema:"maxLength=200" doc:"words to find in a tool's name, path, summary or category"`
	Category string `json:"category,omitempty" schema:"maxLength=60"`
}

// PaidTool is one pay-per-call tool as /paid lists it.
type PaidTool struct {
	Name        string           `json:"name"`
	Method      string           `json:"method"`
	Path        string           `json:"path"`
	URL         string           `json:"url"`
	Summary     string           `json:"summary"`
	Category    string           `json:"category"`
	PriceUSD    Money            `json:"price_usd"`
	V1AmountUSD Money            `json:"v1_amount_usd,omitempty" doc:"what an x402 v1 payment of one call authorizes: the price less the tool's tag of 1 to 999 micro-USD, which binds the payment to this tool (v2 payments pay the price)"`
	Params      *protocol.Schema `json:"params,omitempty" doc:"the input: query keys for GET, the JSON body for POST"`
	Result      *protocol.Schema `json:"result,omitempty"`
	Available   bool             `json:"available"`
	Unavailable string           `json:"unavailable,omitempty" doc:"why not, and the setting that brings it"`
	TrialURL    string           `json:"trial_url,omitempty" doc:"the same call with ?trial=1: free calls a day"`
}

// PaidPaymentInfo says how /paid is paid.
type PaidPaymentInfo struct {
	Protocol    string `json:"protocol"` // x402
	Versions    []int  `json:"versions"`
	Scheme      string `json:"scheme"`
	Network     string `json:"network,omitempty"`
	NetworkV1   string `json:"network_v1,omitempty"`
	Asset       string `json:"asset,omitempty"`
	PayTo       string `json:"pay_to,omitempty"`
	Facilitator string `json:"facilitator,omitempty"`
	Available   bool   `json:"available"`
	Unavailable string `json:"unavailable,omitempty"`
	TrialPerDay int    `json:"trial_calls_per_day"`
	V1Amounts   string `json:"v1_amounts,omitempty" doc:"how x402 v1 amounts differ from the prices"`
}

// BazaarItem is a tool in the x402 Bazaar discovery shape, so that x402 discovery clients can index
// the listing.
type BazaarItem struct {
	Resource    string         `json:"resource"`
	Type        string         `json:"type"` // http
	X402Version int            `json:"x402Version"`
	Accepts     []any          `json:"accepts"`
	LastUpdated time.Time      `json:"lastUpdated"`
	Description string         `json:"description,omitempty"`
	Metadata    map[string]any `json:"metadata,omitempty"`
}

// PaidToolList is the listing at /paid.
type PaidToolList struct {
	Tools       []PaidTool      `json:"tools"`
	Payment     PaidPaymentInfo `json:"payment"`
	X402Version int             `json:"x402Version"`
	Items       []BazaarItem    `json:"items" doc:"the same tools in the x402 Bazaar discovery shape"`
	Categories  []string        `json:"categories"`
}

// Paid call statuses.
const (
	PaidClaimed  = "claimed"  // the authorization is held for a call being answered
	PaidSettling = "settling" // its settlement was submitted, or asked of an outside facilitator, and is not booked yet
	PaidSettled  = "settled"  // booked in the ledger
	// PaidReleased is never stored: a payment let go is deleted, so that its authorization may pay a
	// later call.
	PaidReleased = "released"

	// A payment in the auth-capture scheme goes through the escrow contract: authorized (held by the
	// contract) before the tool runs, then captured (settling, settled) or voided.
	PaidAuthorizing = "authorizing" // the escrow's authorize was submitted (its hash stored) and is not mined yet
	PaidAuthorized  = "authorized"  // the escrow holds the payment, booked into the call's contract account
	PaidVoiding     = "voiding"     // the escrow's void was submitted (its hash stored)
	PaidVoided      = "voided"      // the escrow gave the payment back to the payer; booked
)

// SchemeAuthCapture is the x402 scheme of a paid call whose payment the escrow contract holds while
// the tool runs (PaidCall.Scheme; "" is the exact scheme).
const SchemeAuthCapture = "auth-capture"

// PaidCall is one paid call's payment: its authorization, held once per (payer, nonce), then
// settled and booked.
type PaidCall struct {
	V           int       `json:"v"`
	ID          string    `json:"id"`
	Tool        string    `json:"tool"`
	Resource    string    `json:"resource"`
	Payer       string    `json:"payer"`
	Nonce       string    `json:"nonce"`
	Amount      Money     `json:"amount_usd"`
	Status      string    `json:"status"`
	TxHash      string    `json:"tx_hash,omitempty"`
	Facilitator string    `json:"facilitator"`
	Version     int       `json:"x402_version"`
	ValidBefore int64     `json:"valid_before"`
	ConnectorID string    `json:"connector_id,omitempty"`
	Block       uint64    `json:"block,omitempty"` // the chain's head when it was held: its settlement is looked for from there
	Note        string    `json:"note,omitempty"`
	CreatedAt   time.Time `json:"created_at"`
	SettledAt   time.Time `json:"settled_at,omitzero"`
	// Scheme is SchemeAuthCapture for a payment through the escrow contract, else "" (exact). Such a
	// payment's Escrow holds its terms and hash; AuthorizeTx is the escrow's authorize, and TxHash
	// the capture or, for a call whose tool failed, the void.
	Scheme      string         `json:"scheme,omitempty"`
	Escrow      *EscrowPayment `json:"escrow,omitempty"`
	AuthorizeTx string         `json:"authorize_tx,omitempty"`
}

// PaidCallState is what a 402 answer says of a payment whose authorization was already used: what
// became of its money.
type PaidCallState struct {
	Status    string `json:"status" doc:"claimed: held by a call being answered; settling: submitted, its outcome not known yet (booked once if mined, released if the chain shows it unused after it expires); settled: booked"`
	Tool      string `json:"tool"`
	AmountUSD Money  `json:"amount_usd"`
	TxHash    string `json:"tx_hash,omitempty" doc:"the settling transaction, once known"`
}

// Ledger accounts of pay-per-call tools.
const (
	AcctCallers   = "external:caller"     // what pay-per-call callers sent in, negative
	AcctPaidCalls = "platform:paid_calls" // revenue of pay-per-call tools and connector setup fees
)

// PaidCallEntry books a settled paid call as revenue.
func PaidCallEntry(amount Money) []Posting {
	return []Posting{{AcctCallers, -amount}, {AcctPaidCalls, amount}}
}

// PaidHoldEntry books an auth-capture payment the escrow contract holds for paid call callID.
func PaidHoldEntry(callID string, amount Money) []Posting {
	return []Posting{{AcctCallers, -amount}, {ContractAccount(callID), amount}}
}

// PaidCaptureEntry books the capture of paid call callID's payment as revenue: the escrow pays the
// deposit address.
func PaidCaptureEntry(callID string, amount Money) []Posting {
	return []Posting{{ContractAccount(callID), -amount}, {AcctPaidCalls, amount}}
}

// PaidVoidEntry books the void of paid call callID's payment: the escrow gives it back to the caller.
func PaidVoidEntry(callID string, amount Money) []Posting {
	return []Posting{{ContractAccount(callID), -amount}, {AcctCallers, amount}}
}

// PaymentDemand is the answer to a paid call without a valid payment: HTTP 402 with the x402
// requirements in the header and the body. Err says why, in the exchange's words.
type PaymentDemand struct {
	Err    *Error
	Header map[string]string
	Body   any
}

func (d *PaymentDemand) Error() string { return d.Err.Error() }

// Unwrap gives the typed error, so that the status and the log see payment_required.
func (d *PaymentDemand) Unwrap() error { return d.Err }

// Connector states.
const (
	ConnectorPending  = "pending"  // asked for; the operator decides
	ConnectorAccepted = "accepted" // the operator accepted it; waits for the setup fee
	ConnectorLive     = "live"     // set up: a pay-per-call tool
	ConnectorRejected = "rejected"
)

// Connector is a requested connector to a new data source.
type Connector struct {
	V           int       `json:"v"`
	ID          string    `json:"id"`
	URL         string    `json:"url"`
	Wants       string    `json:"wants"`
	Status      string    `json:"status"`
	Requester   string    `json:"requester,omitempty" doc:"member id, or anonymous"`
	Name        string    `json:"name,omitempty"`
	Category    string    `json:"category,omitempty"`
	PriceUSD    Money     `json:"price_usd,omitempty" doc:"the price per call once live"`
	SetupFeeUSD Money     `json:"setup_fee_usd"`
	Path        string    `json:"path,omitempty" doc:"the tool's path once live"`
	SetupURL    string    `json:"setup_url,omitempty" doc:"where the setup fee is paid (x402) once accepted"`
	Reason      string    `json:"reason,omitempty" doc:"why it was rejected"`
	Flagged     bool      `json:"flagged,omitempty" doc:"the request text was flagged by injection screening"`
	Flags       []string  `json:"flags,omitempty"`
	SetupTx     string    `json:"setup_tx,omitempty"`
	CreatedAt   time.Time `json:"created_at"`
	UpdatedAt   time.Time `json:"updated_at"`
}

// ConnectorList lists connectors.
type ConnectorList struct {
	Connectors []Connector `json:"connectors"`
}

// ConnectorsQuery filters the operator's connector list.
type ConnectorsQuery struct {
	Status string `json:"status,omitempty" schema:"enum=pending|accepted|live|rejected"`
}

// ConnectorAccept accepts a connector request: it becomes a tool once the setup fee is paid.
type ConnectorAccept struct {
	ID          string `json:"id" schema:"required;maxLength=100"`
	Name        string `json:"name" schema:"required;pattern=^[a-z0-9][a-z0-9-]{1,40}$" doc:"the tool's name: its path is /paid/connectors/<name>"`
	PriceUSD    Money  `json:"price_usd" schema:"required" doc:"the price per call, US$0.002 to US$0.25"`
	Category    string `json:"category,omitempty" schema:"maxLength=60"`
	Description string `json:"description,omitempty" schema:"maxLength=500"`
}

// ConnectorReject rejects a connector request.
type ConnectorReject struct {
	ID     string `json:"id" schema:"required;maxLength=100"`
	Reason string `json:"reason" schema:"required;minLength=1;maxLength=2000"`
}

// ConnectorCall calls a live connector: extra query keys are passed on to the data source.
type ConnectorCall struct {
	Name   string            `json:"name" schema:"required;maxLength=41"`
	Params map[string]string `json:"params,omitempty" doc:"query keys passed on to the data source"`
}

// ConnectorAnswer is what a connector's data source answered.
type ConnectorAnswer struct {
	Connector   string `json:"connector"`
	Status      int    `json:"status"`
	ContentType string `json:"content_type"`
	Bytes       int    `json:"bytes"`
	Truncated   bool   `json:"truncated,omitempty"`
	JSON        any    `json:"json,omitempty" doc:"the answer, when it is JSON"`
	Text        string `json:"text,omitempty" doc:"the answer, when it is text"`
}

// The connector operations.
