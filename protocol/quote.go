package protocol

import (
	"fmt"
	"reflect"
	"slices"
	"sort"
	"strings"
	"time"
)

// DeclineReasons are the reason codes of a declined quote.
var DeclineReasons = []string{"cannot_do", "no_capacity", "too_expensive", "deadline", "other"}

// QuoteAnswer is a seller's answer to a quote request: exactly one of the price, clarify and
// decline shapes of spec 2.4.
type QuoteAnswer struct {
	PriceUSD     *Money         `json:"price_usd,omitempty" schema:"min=0;max=100000;decimals=2" doc:"price in USD, >0 (0 only for free jobs), at most 2 decimals"`
	ETAMinutes   *int           `json:"eta_minutes,omitempty" schema:"min=1;max=43200"`
	Note         string         `json:"note,omitempty" schema:"maxLength=2000"`
	Availability string         `json:"availability,omitempty" schema:"enum=high|medium|low"`
	ValidUntil   string         `json:"valid_until,omitempty" schema:"format=date-time"`
	Details      map[string]any `json:"details,omitempty" doc:"flat object of comparable facts"`
	Guarantee    *Guarantee     `json:"guarantee,omitempty"`

	Clarify   bool     `json:"clarify,omitempty"`
	Questions []string `json:"questions,omitempty" schema:"maxItems=5"`

	Decline    bool   `json:"decline,omitempty"`
	ReasonCode string `json:"reason_code,omitempty" schema:"enum=cannot_do|no_capacity|too_expensive|deadline|other"`
	Reason     string `json:"reason,omitempty" schema:"maxLength=2000"`
}

// JSONSchema describes the three shapes as a oneOf.
func (QuoteAnswer) JSONSchema() *Schema {
	price := &Schema{Type: "object", Title: "Price"}
	price.AddProperty("price_usd", &Schema{Type: "number", Minimum: "0", Maximum: "100000", MultipleOf: "0.01", Description: "price in USD, >0 (0 only for free jobs), at most 2 decimals"}, true)
	price.AddProperty("eta_minutes", &Schema{Type: "integer", Minimum: "1", Maximum: "43200"}, true)
	price.AddProperty("note", &Schema{Type: "string", MaxLength: intp(2000)}, false)
	price.AddProperty("availability", &Schema{Type: "string", Enum: []any{"high", "medium", "low"}}, false)
	price.AddProperty("valid_until", &Schema{Type: "string", Format: "date-time"}, false)
	price.AddProperty("details", &Schema{Type: "object", Description: "flat object of comparable facts"}, false)
	price.AddProperty("guarantee", SchemaFor[Guarantee](), false)

	clarify := &Schema{Type: "object", Title: "Clarify"}
	clarify.AddProperty("clarify", &Schema{Type: "boolean", Enum: []any{true}}, true)
	clarify.AddProperty("questions", &Schema{Type: "array", Items: &Schema{Type: "string", MaxLength: intp(500)}, MinItems: intp(1), MaxItems: intp(5)}, true)

	decline := &Schema{Type: "object", Title: "Decline"}
	decline.AddProperty("decline", &Schema{Type: "boolean", Enum: []any{true}}, true)
	codes := make([]any, len(DeclineReasons))
	for i, c := range DeclineReasons {
		codes[i] = c
	}
	decline.AddProperty("reason_code", &Schema{Type: "string", Enum: codes}, true)
	decline.AddProperty("reason", &Schema{Type: "string", MaxLength: intp(2000)}, false)
	return &Schema{Type: "object", Description: "one of: a price, clarifying questions, or a decline",
		OneOf: []*Schema{price, clarify, decline}}
}

// Kind names the shape of the answer: "price", "clarify" or "decline".
func (q QuoteAnswer) Kind() string {
	switch {
	case q.Decline:
		return "decline"
	case q.Clarify:
		return "clarify"
	}
	return "price"
}

// Check enforces the rules of spec 2.4 and 8 on a quote answer. free says whether the task is a
// free job, where the price must be 0; now bounds valid_until.
func (q QuoteAnswer) Check(free bool, now time.Time) *Error {
	shapes := 0
	if q.PriceUSD != nil || q.ETAMinutes != nil {
		shapes++
	}
	if q.Clarify {
		shapes++
	}
	if q.Decline {
		shapes++
	}
	if shapes != 1 {
		return Invalid("body", "must be exactly one of a price (price_usd, eta_minutes), clarify or decline", "send {price_usd, eta_minutes}, {clarify: true, questions}, or {decline: true, reason_code}")
	}
	switch q.Kind() {
	case "decline":
		if q.ReasonCode == "" {
			return Invalid("reason_code", "is required when declining", "use one of: "+strings.Join(DeclineReasons, ", "))
		}
		if !slices.Contains(DeclineReasons, q.ReasonCode) {
			return Invalid("reason_code", fmt.Sprintf("%q is not a decline reason code", clip(q.ReasonCode)), "use one of: "+strings.Join(DeclineReasons, ", "))
		}
	case "clarify":
		if len(q.Questions) == 0 {
			return Invalid("questions", "must hold at least one question", "")
		}
		if len(q.Questions) > MaxClarifyQuestions {
			return Invalid("questions", fmt.Sprintf("has %d questions; at most %d are allowed", len(q.Questions), MaxClarifyQuestions), "")
		}
	default:
		if q.PriceUSD == nil {
			return Invalid("price_usd", "is required", "give the price in USD, e.g. 4.5")
		}
		if q.ETAMinutes == nil {
			return Invalid("eta_minutes", "is required", "give whole minutes from 1 to 43200")
		}
		p := *q.PriceUSD
		switch {
		case free && p != 0:
			return Invalid("price_usd", "must be 0 for a free job", "quote 0 or decline")
		case !free && p <= 0:
			return Invalid("price_usd", "must be greater than 0", "quote a price, or decline")
		case p > MaxPriceUSD*Micro:
			return Invalid("price_usd", "is above the maximum of 100000", "")
		case p.Decimals() > 2:
			return Invalid("price_usd", "has more than 2 decimals", "round to whole cents")
		}
		if *q.ETAMinutes < 1 || *q.ETAMinutes > MaxETAMinutes {
			return Invalid("eta_minutes", "must be from 1 to 43200", "")
		}
		if q.ValidUntil != "" {
			t, err := time.Parse(time.RFC3339, q.ValidUntil)
			if err != nil {
				return Invalid("valid_until", "must be an RFC 3339 time", "")
			}
			if !t.After(now) {
				return Invalid("valid_until", "is in the past", "give a time after now, or leave it out")
			}
		}
		switch q.Availability {
		case "", "high", "medium", "low":
		default:
			return Invalid("availability", fmt.Sprintf("%q is not one of the allowed values", clip(q.Availability)), "use one of: high, medium, low")
		}
		keys := make([]string, 0, len(q.Details))
		for k := range q.Details {
			keys = append(keys, k)
		}
		sort.Strings(keys) // the first offending key, the same on every call
		for _, k := range keys {
			v := reflect.ValueOf(q.Details[k])
			for v.Kind() == reflect.Pointer || v.Kind() == reflect.Interface {
				v = v.Elem()
			}
			switch v.Kind() {
			case reflect.Map, reflect.Slice, reflect.Array, reflect.Struct:
				return Invalid("details."+k, "must be a plain value (string, number or boolean)", "details is a flat object of comparable facts")
			}
		}
		if q.Guarantee != nil && (q.Guarantee.FreeRedo < 0 || q.Guarantee.FreeRedo > MaxFreeRedo) {
			return Invalid("guarantee.free_redo", "must be from 0 to 3", "")
		}
	}
	return nil
}
