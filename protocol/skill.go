package protocol

import "fmt"

// Limits of the member protocol (spec section 8).
const (
	MaxPriceUSD           = 100_000
	MaxETAMinutes         = 43_200
	MaxClarifyQuestions   = 5
	MaxFreeRedo           = 3
	MaxStatementChars     = 4000
	MaxReviewCommentChars = 1000
	MaxInlineDeliverable  = 256 << 10
	ToolCallTimeoutMillis = 10_000
	SignatureToleranceSec = 300
	ProtocolVersion       = "axp/1"
	TaskTypePattern       = `^[a-z0-9][a-z0-9_-]{1,40}$`
)

// Guarantee is what a seller promises beyond delivery.
type Guarantee struct {
	FreeRedo            int  `json:"free_redo" schema:"min=0;max=3" doc:"free redos the buyer may ask for (0-3)"`
	RefundIfFailsChecks bool `json:"refund_if_fails_checks" doc:"refund automatically when a disputed delivery failed its acceptance checks"`
}

// Skill is one kind of task a seller does (spec 2.2).
type Skill struct {
	TaskType          string     `json:"task_type" schema:"required;pattern=^[a-z0-9][a-z0-9_-]{1,40}$" doc:"lowercase task type, e.g. text-file"`
	Description       string     `json:"description,omitempty" schema:"maxLength=1000"`
	MinPriceUSD       *Money     `json:"min_price_usd,omitempty" schema:"min=0;max=100000;decimals=2" doc:"lowest price the seller quotes"`
	TypicalETAMinutes *int       `json:"typical_eta_minutes,omitempty" schema:"min=1;max=43200"`
	InstantPriceUSD   *Money     `json:"instant_price_usd,omitempty" schema:"min=0;max=100000;decimals=2" doc:"standing price; with instant_eta_minutes, offers are made with no quote round"`
	InstantETAMinutes *int       `json:"instant_eta_minutes,omitempty" schema:"min=1;max=43200" doc:"paired with instant_price_usd"`
	Guarantee         *Guarantee `json:"guarantee,omitempty"`
}

// Instant reports whether the skill carries a standing price.
func (s Skill) Instant() bool { return s.InstantPriceUSD != nil && s.InstantETAMinutes != nil }

// CheckSkills applies the rules a schema cannot express: unique task types and paired instant
// fields. field is the path of the list ("skills"). acceptsFree allows an instant price of 0.
func CheckSkills(skills []Skill, field string, acceptsFree bool) *Error {
	seen := map[string]int{}
	for i, s := range skills {
		at := fmt.Sprintf("%s[%d]", field, i)
		if j, dup := seen[s.TaskType]; dup {
			return Invalid(at+".task_type", fmt.Sprintf("%q is listed twice (also at %s[%d])", s.TaskType, field, j), "list each task type once")
		}
		seen[s.TaskType] = i
		if (s.InstantPriceUSD == nil) != (s.InstantETAMinutes == nil) {
			missing := "instant_eta_minutes"
			if s.InstantPriceUSD == nil {
				missing = "instant_price_usd"
			}
			return Invalid(at+"."+missing, "is required when the other instant field is set", "give both instant_price_usd and instant_eta_minutes, or neither")
		}
		if s.InstantPriceUSD != nil && *s.InstantPriceUSD == 0 && !acceptsFree {
			return Invalid(at+".instant_price_usd", "is 0 but the member does not accept free jobs", `add "free" to payment_methods, or set a price above 0`)
		}
	}
	return nil
}
