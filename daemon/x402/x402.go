// Package x402 speaks the x402 payment protocol of the pay-per-call tools: the wire shapes of both
// versions in use (v2: the PAYMENT-REQUIRED, PAYMENT-SIGNATURE and PAYMENT-RESPONSE headers; v1: the
// 402 JSON body and the X-PAYMENT and X-PAYMENT-RESPONSE headers) and the facilitators that verify
// and settle the `exact` EVM scheme (an EIP-712 signed EIP-3009 transferWithAuthorization): the
// exchange's own, on its configured chain, or an outside one over HTTP (/verify, /settle,
// /supported); and the `auth-capture` EVM scheme (a payment held by an AuthCaptureEscrow, then
// captured or voided), which the exchange's own facilitator alone handles. It takes no decision
// about prices, trials or the ledger, and touches no store.
package x402

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// Headers of both versions.
const (
	HeaderRequired   = "PAYMENT-REQUIRED"   // v2: the requirements, base64 JSON, on a 402
	HeaderSignature  = "PAYMENT-SIGNATURE"  // v2: the payment, base64 JSON
	HeaderResponse   = "PAYMENT-RESPONSE"   // v2: the settlement, base64 JSON
	HeaderPaymentV1  = "X-PAYMENT"          // v1: the payment
	HeaderResponseV1 = "X-PAYMENT-RESPONSE" // v1: the settlement
)

// SchemeExact is the scheme every paid call takes; SchemeAuthCapture is offered beside it where the
// exchange has an escrow.
const SchemeExact = "exact"

// Resource describes what a payment buys (v2).
type Resource struct {
	URL         string `json:"url"`
	Description string `json:"description,omitempty"`
	MimeType    string `json:"mimeType,omitempty"`
}

// UnmarshalJSON reads a resource as an object (v2) or as its URL alone, as the v1 requirements name
// it (and a v1 payment echoing them carries it).
func (r *Resource) UnmarshalJSON(b []byte) error {
	var url string
	if json.Unmarshal(b, &url) == nil {
		*r = Resource{URL: url}
		return nil
	}
	type plain Resource
	return json.Unmarshal(b, (*plain)(r))
}

// Requirements is one way to pay for a resource (v2).
type Requirements struct {
	Scheme            string         `json:"scheme"`
	Network           string         `json:"network"` // CAIP-2, eip155:<chain id>
	Amount            string         `json:"amount"`  // token units
	Asset             string         `json:"asset"`
	PayTo             string         `json:"payTo"`
	MaxTimeoutSeconds int            `json:"maxTimeoutSeconds"`
	Extra             map[string]any `json:"extra,omitempty"`
}

// RequirementsV1 is one way to pay for a resource (v1).
type RequirementsV1 struct {
	Scheme            string         `json:"scheme"`
	Network           string         `json:"network"` // a name, e.g. base-sepolia
	MaxAmountRequired string         `json:"maxAmountRequired"`
	Resource          string         `json:"resource"`
	Description       string         `json:"description"`
	MimeType          string         `json:"mimeType"`
	OutputSchema      any            `json:"outputSchema,omitempty"`
	PayTo             string         `json:"payTo"`
	MaxTimeoutSeconds int            `json:"maxTimeoutSeconds"`
	Asset             string         `json:"asset"`
	Extra             map[string]any `json:"extra,omitempty"`
}

// Required is the v2 answer to a call without a valid payment (the PAYMENT-REQUIRED header).
type Required struct {
	X402Version int            `json:"x402Version"`
	Error       string         `json:"error,omitempty"`
	Resource    *Resource      `json:"resource,omitempty"`
	Accepts     []Requirements `json:"accepts"`
	Extensions  map[string]any `json:"extensions,omitempty"`
}

// RequiredV1 is the v1 answer to a call without a valid payment (the 402 body).
type RequiredV1 struct {
	X402Version int              `json:"x402Version"`
	Error       string           `json:"error,omitempty"`
	Accepts     []RequirementsV1 `json:"accepts"`
}

// Terms are the requirements of one resource in both versions; V1 is nil where the chain has no
// v1 network name. The two amounts may differ: a v1 payment names no resource, so the exchange
// binds it to one through V1.MaxAmountRequired, which Match takes as the exact value to authorize.
type Terms struct {
	V2 Requirements
	V1 *RequirementsV1
	// AuthCapture is the auth-capture way to pay (v2 only), or nil where the exchange has no escrow.
	AuthCapture *Requirements
}

// Authorization is the EIP-3009 authorization of an exact EVM payment, as sent (decimal strings,
// 0x hex).
type Authorization struct {
	From        string `json:"from"`
	To          string `json:"to"`
	Value       string `json:"value"`
	ValidAfter  string `json:"validAfter"`
	ValidBefore string `json:"validBefore"`
	Nonce       string `json:"nonce"`
}

// ExactPayload is the payload of an exact EVM payment, and of an auth-capture one, which adds the
// payment's salt (and, bound to a receiver authorizer or a policy, its saltNonce, which the exchange
// does not take).
type ExactPayload struct {
	Signature     string        `json:"signature"`
	Authorization Authorization `json:"authorization"`
	Salt          string        `json:"salt,omitempty"`
	SaltNonce     string        `json:"saltNonce,omitempty"`
}

// Payment is a decoded payment header of either version.
type Payment struct {
	X402Version int            `json:"x402Version"`
	Scheme      string         `json:"scheme,omitempty"`   // v1
	Network     string         `json:"network,omitempty"`  // v1
	Resource    *Resource      `json:"resource,omitempty"` // v2
	Accepted    *Requirements  `json:"accepted,omitempty"` // v2
	Payload     ExactPayload   `json:"payload"`
	Extensions  map[string]any `json:"extensions,omitempty"`
	// ResourceV1 is the resource a v1 payment says it was made for, when it says so: the
	// requirements' resource echoed as `resource`, or in the requirements carried back as
	// `accepted` or `paymentRequirements`. The v1 payload of the x402 reference clients
	// (x402-fetch) carries none, and the signed authorization names no resource either. Decode
	// reads it and leaves the payment in the v1 shape, which is what facilitators are sent.
	ResourceV1 string `json:"-"`
}

// ResourceURL is the resource the payment names (v2: its resource; v1: ResourceV1), or "" when it
// names none.
func (p *Payment) ResourceURL() string {
	if p.X402Version == 1 {
		return p.ResourceV1
	}
	if p.Resource != nil {
		return p.Resource.URL
	}
	return ""
}

// SchemeAndNetwork are the scheme and network the payment says it uses.
func (p *Payment) SchemeAndNetwork() (string, string) {
	if p.X402Version >= 2 && p.Accepted != nil {
		return p.Accepted.Scheme, p.Accepted.Network
	}
	return p.Scheme, p.Network
}

// Settlement is the outcome of settling a payment (the PAYMENT-RESPONSE header and the
// facilitator's /settle answer).
type Settlement struct {
	Success     bool   `json:"success"`
	ErrorReason string `json:"errorReason,omitempty"`
	Transaction string `json:"transaction"`
	Network     string `json:"network"`
	Payer       string `json:"payer,omitempty"`
	Amount      string `json:"amount,omitempty"` // auth-capture: the amount captured, in token units
}

// Verification is the outcome of verifying a payment (the facilitator's /verify answer).
type Verification struct {
	IsValid       bool   `json:"isValid"`
	InvalidReason string `json:"invalidReason,omitempty"`
	Message       string `json:"invalidMessage,omitempty"`
	Payer         string `json:"payer,omitempty"`
}

// Invalid reasons, in the words of the x402 reference facilitator where it has them.
const (
	ReasonScheme      = "unsupported_scheme"
	ReasonNetwork     = "invalid_network"
	ReasonPayload     = "invalid_payload"
	ReasonSignature   = "invalid_exact_evm_payload_signature"
	ReasonRecipient   = "invalid_exact_evm_payload_recipient_mismatch"
	ReasonValue       = "invalid_exact_evm_payload_authorization_value"
	ReasonValidBefore = "invalid_exact_evm_payload_authorization_valid_before"
	ReasonValidAfter  = "invalid_exact_evm_payload_authorization_valid_after"
	ReasonNonceUsed   = "invalid_exact_evm_payload_nonce_already_used"
	ReasonFunds       = "insufficient_funds"
	ReasonResource    = "invalid_resource"
	ReasonAsset       = "invalid_exact_evm_payload_asset"
	ReasonSettle      = "settlement_failed"
)

// Encode is the base64 of v's JSON, as headers carry it.
func Encode(v any) string {
	b, _ := json.Marshal(v)
	return base64.StdEncoding.EncodeToString(b)
}

// Decode reads a payment header: base64 (standard or URL alphabet, padded or not) of a JSON
// payment of version 1 or 2. The error says what is wrong with it.
func Decode(header string) (*Payment, error) {
	h := strings.TrimSpace(header)
	if h == "" {
		return nil, fmt.Errorf("is empty")
	}
	var raw []byte
	var err error
	for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.RawStdEncoding, base64.URLEncoding, base64.RawURLEncoding} {
		if raw, err = enc.DecodeString(h); err == nil {
			break
		}
	}
	if err != nil {
		return nil, fmt.Errorf("is not base64")
	}
	var p Payment
	if err := json.Unmarshal(raw, &p); err != nil {
		return nil, fmt.Errorf("is not a JSON payment: %v", err)
	}
	switch p.X402Version {
	case 1:
		if p.Scheme == "" || p.Network == "" {
			return nil, fmt.Errorf("is an x402 v1 payment without scheme or network")
		}
		if p.Resource != nil {
			p.ResourceV1 = p.Resource.URL
		}
		if p.ResourceV1 == "" {
			type requirements struct {
				Resource Resource `json:"resource"`
			}
			var echoed struct {
				Accepted            requirements `json:"accepted"`
				PaymentRequirements requirements `json:"paymentRequirements"`
			}
			json.Unmarshal(raw, &echoed) // the payment itself decoded: these are objects or absent
			if p.ResourceV1 = echoed.Accepted.Resource.URL; p.ResourceV1 == "" {
				p.ResourceV1 = echoed.PaymentRequirements.Resource.URL
			}
		}
		p.Resource, p.Accepted = nil, nil
	case 2:
		if p.Accepted == nil {
			return nil, fmt.Errorf("is an x402 v2 payment without `accepted` requirements")
		}
	default:
		return nil, fmt.Errorf("has x402Version %d; versions 1 and 2 are taken", p.X402Version)
	}
	return &p, nil
}

var (
	addrRe  = regexp.MustCompile(`^0x[0-9a-fA-F]{40}$`)
	nonceRe = regexp.MustCompile(`^0x[0-9a-fA-F]{64}$`)
	sigRe   = regexp.MustCompile(`^0x[0-9a-fA-F]{130}$`)
)

// CheckShape refuses an exact EVM payload whose fields are not well formed, naming the field.
func (p *Payment) CheckShape() error {
	a := p.Payload.Authorization
	switch {
	case !addrRe.MatchString(a.From):
		return fmt.Errorf("payload.authorization.from is not an EVM address")
	case !addrRe.MatchString(a.To):
		return fmt.Errorf("payload.authorization.to is not an EVM address")
	case !isUint(a.Value):
		return fmt.Errorf("payload.authorization.value is not a whole number of token units")
	case !isUint(a.ValidAfter) || !isUint(a.ValidBefore):
		return fmt.Errorf("payload.authorization.validAfter and validBefore must be unix seconds")
	case !nonceRe.MatchString(a.Nonce):
		return fmt.Errorf("payload.authorization.nonce is not 32 bytes of hex")
	case !sigRe.MatchString(p.Payload.Signature):
		return fmt.Errorf("payload.signature is not a 65-byte hex signature")
	}
	return nil
}

func isUint(s string) bool {
	if s == "" || len(s) > 78 {
		return false
	}
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}

// Network is the CAIP-2 name of an EVM chain.
func Network(chainID uint64) string { return "eip155:" + strconv.FormatUint(chainID, 10) }

// NetworkV1 is the v1 name of an EVM chain, or "" where v1 clients know none.
func NetworkV1(chainID uint64) string {
	for name, id := range v1Networks {
		if id == chainID {
			return name
		}
	}
	return ""
}

// v1Networks are the EVM networks the x402 v1 clients name.
var v1Networks = map[string]uint64{
	"base-sepolia": 84532, "base": 8453, "avalanche-fuji": 43113, "avalanche": 43114, "iotex": 4689,
	"sei": 1329, "sei-testnet": 1328, "polygon": 137, "polygon-amoy": 80002, "peaq": 3338, "story": 1514,
	"educhain": 41923, "abstract": 2741, "abstract-testnet": 11124, "skale-base-sepolia": 324705682,
}
