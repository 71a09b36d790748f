package axp

import (
	"fmt"
	"strings"
	"time"

	"github.com/axp-exchange/axp/protocol"
)

// Skill is one kind of task a seller does (spec 2.2).
type Skill = protocol.Skill

// Guarantee is what a seller promises beyond delivery.
type Guarantee = protocol.Guarantee

// Member states (docs/design.md section 6).
const (
	MemberRegistered  = "registered"
	MemberVerified    = "verified"
	MemberUnreachable = "unreachable"
	MemberSuspended   = "suspended"
)

// Payment methods.
const (
	PayCrypto = "crypto"
	PayFree   = "free"
)

// Identity tells who runs an agent. Only agent_framework and agent_model are public.
type Identity struct {
	OperatorName    string `json:"operator_name,omitempty" schema:"maxLength=200"`
	OperatorWebsite string `json:"operator_website,omitempty" schema:"maxLength=2000;format=uri"`
	AgentFramework  string `json:"agent_framework,omitempty" schema:"maxLength=200"`
	AgentModel      string `json:"agent_model,omitempty" schema:"maxLength=200"`
	AgentCardURL    string `json:"agent_card_url,omitempty" schema:"maxLength=2000;format=uri"`
}

// Registration is the body of POST /api/members/register (spec 2.1).
type Registration struct {
	Roles            []string                  `json:"roles" schema:"required;minItems=1;maxItems=2;enum=buyer|seller" doc:"buyer, seller, or both"`
	Name             string                    `json:"name" schema:"required;minLength=1;maxLength=100"`
	Description      string                    `json:"description,omitempty" schema:"maxLength=2000"`
	Skills           []Skill                   `json:"skills,omitempty" schema:"maxItems=50" doc:"sellers: the task types offered"`
	MCPURL           string                    `json:"mcp_url,omitempty" schema:"maxLength=2000;format=uri" doc:"the member's MCP server; leave out for pull mode"`
	ContactEmail     string                    `json:"contact_email,omitempty" schema:"maxLength=254;format=email" doc:"private; seen by the operator only"`
	AuthToken        protocol.Nullable[string] `json:"auth_token,omitzero" schema:"maxLength=512" doc:"sent back as a Bearer token on every exchange call"`
	PaymentMethods   []string                  `json:"payment_methods,omitempty" schema:"maxItems=2;enum=crypto|free" doc:"default [\"crypto\"]; add free to accept unpaid jobs"`
	PayoutAddress    string                    `json:"payout_address,omitempty" schema:"format=evm-address" doc:"stablecoin wallet (EVM address); private"`
	PreferredPayment string                    `json:"preferred_payment,omitempty" schema:"maxLength=500"`
	Identity         *Identity                 `json:"identity,omitempty"`
}

// ProfileUpdate is the body of PATCH /api/members/me: every field optional.
type ProfileUpdate struct {
	Name             *string                   `json:"name,omitempty" schema:"minLength=1;maxLength=100"`
	Description      *string                   `json:"description,omitempty" schema:"maxLength=2000"`
	ContactEmail     protocol.Nullable[string] `json:"contact_email,omitzero" schema:"maxLength=254;format=email"`
	MCPURL           protocol.Nullable[string] `json:"mcp_url,omitzero" schema:"maxLength=2000;format=uri" doc:"null switches to pull mode; a change requires verification again"`
	AuthToken        protocol.Nullable[string] `json:"auth_token,omitzero" schema:"maxLength=512" doc:"a change requires verification again"`
	Roles            []string                  `json:"roles,omitempty" schema:"minItems=1;maxItems=2;enum=buyer|seller" doc:"a change requires verification again"`
	Skills           []Skill                   `json:"skills,omitempty" schema:"maxItems=50"`
	PaymentMethods   []string                  `json:"payment_methods,omitempty" schema:"minItems=1;maxItems=2;enum=crypto|free"`
	PayoutAddress    protocol.Nullable[string] `json:"payout_address,omitzero" schema:"format=evm-address"`
	PreferredPayment *string                   `json:"preferred_payment,omitempty" schema:"maxLength=500"`
	Identity         *Identity                 `json:"identity,omitempty"`
}

// SkillsUpdate is the body of PUT /api/members/me/skills.
type SkillsUpdate struct {
	Skills []Skill `json:"skills" schema:"required;maxItems=50"`
}

// Check is the outcome of one verification, liveness or conformance step.
type Check struct {
	Name   string    `json:"name"`
	OK     bool      `json:"ok"`
	Detail string    `json:"detail,omitempty"`
	Hint   string    `json:"hint,omitempty"`
	At     time.Time `json:"at"`
}

// Member is the stored member record. Secrets are never kept in clear: SecretHash is the SHA-256 of
// the member secret, PlatformKey and AuthToken are sealed by the daemon's key.
type Member struct {
	V                int         `json:"v"`
	ID               string      `json:"id"`
	Roles            []string    `json:"roles"`
	Name             string      `json:"name"`
	Description      string      `json:"description,omitempty"`
	Skills           []Skill     `json:"skills,omitempty"`
	MCPURL           string      `json:"mcp_url,omitempty"`
	ContactEmail     string      `json:"contact_email,omitempty"`
	PaymentMethods   []string    `json:"payment_methods"`
	PayoutAddress    string      `json:"payout_address,omitempty"`
	PreferredPayment string      `json:"preferred_payment,omitempty"`
	Identity         Identity    `json:"identity"`
	State            string      `json:"state"`
	Favourites       []string    `json:"favourites,omitempty"`
	LastChecks       []Check     `json:"last_checks,omitempty"`
	LivenessFailures int         `json:"liveness_failures,omitempty"`
	Practice         *Practice   `json:"practice,omitempty"`
	ContactRemovals  []time.Time `json:"contact_removals,omitempty"`
	CreatedAt        time.Time   `json:"created_at"`
	UpdatedAt        time.Time   `json:"updated_at"`
	VerifiedAt       *time.Time  `json:"verified_at,omitempty"`
	LastSeenAt       time.Time   `json:"last_seen_at"`

	SecretHash     string `json:"secret_hash"`
	PlatformKeyEnc []byte `json:"platform_key_enc"`
	AuthTokenEnc   []byte `json:"auth_token_enc,omitempty"`
}

// Practice is a pull member's practice quote request (verification), and its answer.
type Practice struct {
	TaskID    string                `json:"task_id"`
	TaskType  string                `json:"task_type"`
	ExpiresAt time.Time             `json:"expires_at"`
	Answer    *protocol.QuoteAnswer `json:"answer,omitempty"`
}

// HasRole reports whether the member has role r.
func (m *Member) HasRole(r string) bool { return contains(m.Roles, r) }

// Accepts reports whether the member accepts payment method p.
func (m *Member) Accepts(p string) bool { return contains(m.PaymentMethods, p) }

// PullMode reports whether the member has no server and polls for work.
func (m *Member) PullMode() bool { return m.MCPURL == "" }

// Matchable reports whether a member takes part in matching: a verified seller (docs/design.md
// section 4).
func (m *Member) Matchable() bool {
	return m.HasRole(protocol.RoleSeller) && m.State == MemberVerified
}

// Matches reports whether a seller takes part in the quote round of a task, and with which of its
// skills (docs/design.md section 4).
func (m *Member) Matches(t *TaskRecord) (*Skill, bool) {
	if !m.Matchable() || m.ID == t.BuyerMemberID || !m.Accepts(t.PaymentMethod) {
		return nil, false
	}
	if t.InviteMode != "" && !contains(t.Invited, m.ID) {
		return nil, false
	}
	for i := range m.Skills {
		if m.Skills[i].TaskType == t.Type {
			return &m.Skills[i], true
		}
	}
	return nil, false
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// NewMember builds a member from a validated registration. The caller sets the secrets.
func NewMember(id string, r *Registration, now time.Time) *Member {
	m := &Member{
		V: 1, ID: id, Roles: dedupe(r.Roles), Name: strings.TrimSpace(r.Name), Description: r.Description,
		Skills: r.Skills, MCPURL: r.MCPURL, ContactEmail: r.ContactEmail, PaymentMethods: dedupe(r.PaymentMethods),
		PayoutAddress: r.PayoutAddress, PreferredPayment: r.PreferredPayment,
		State: MemberRegistered, CreatedAt: now, UpdatedAt: now, LastSeenAt: now,
	}
	if len(m.PaymentMethods) == 0 {
		m.PaymentMethods = []string{PayCrypto}
	}
	if r.Identity != nil {
		m.Identity = *r.Identity
	}
	return m
}

func dedupe(list []string) []string {
	var out []string
	for _, x := range list {
		if !contains(out, x) {
			out = append(out, x)
		}
	}
	return out
}

// CheckRegistration applies the rules the schema cannot express.
func CheckRegistration(r *Registration) *Error {
	if strings.TrimSpace(r.Name) == "" {
		return Invalid("name", "must not be blank", "give the agent a name")
	}
	if err := CheckName("name", strings.TrimSpace(r.Name)); err != nil {
		return err
	}
	if err := r.Identity.check(); err != nil {
		return err
	}
	return checkSkillsFor(dedupe(r.Roles), r.Skills, r.PaymentMethods, "skills")
}

// check refuses hidden characters in the identity's names: agent_framework and agent_model are
// public, operator_name is read by the operator.
func (id *Identity) check() *Error {
	if id == nil {
		return nil
	}
	for _, f := range []struct{ field, value string }{
		{"identity.operator_name", id.OperatorName}, {"identity.agent_framework", id.AgentFramework},
		{"identity.agent_model", id.AgentModel},
	} {
		if err := CheckName(f.field, f.value); err != nil {
			return err
		}
	}
	return nil
}

func checkSkillsFor(roles []string, skills []Skill, payment []string, field string) *Error {
	if len(skills) > 0 && !contains(roles, "seller") {
		return Invalid(field, "only sellers have skills", `add "seller" to roles, or leave skills out`)
	}
	return protocol.CheckSkills(skills, field, contains(payment, PayFree))
}

// ApplyUpdate applies a validated profile update and reports whether verification must be redone
// (mcp_url, auth_token or roles changed). sealToken seals a new auth token.
func (m *Member) ApplyUpdate(u *ProfileUpdate, sealToken func(string) []byte, now time.Time) (reverify bool, err *Error) {
	roles := m.Roles
	if u.Roles != nil {
		roles = dedupe(u.Roles)
	}
	payment := m.PaymentMethods
	if u.PaymentMethods != nil {
		payment = dedupe(u.PaymentMethods)
	}
	skills := m.Skills
	if u.Skills != nil {
		skills = u.Skills
	}
	if !contains(roles, "seller") && u.Roles != nil && u.Skills == nil {
		skills = nil // dropping the seller role drops the skills
	}
	if err := checkSkillsFor(roles, skills, payment, "skills"); err != nil {
		return false, err
	}
	if u.Name != nil {
		if strings.TrimSpace(*u.Name) == "" {
			return false, Invalid("name", "must not be blank", "")
		}
		if err := CheckName("name", strings.TrimSpace(*u.Name)); err != nil {
			return false, err
		}
	}
	if err := u.Identity.check(); err != nil {
		return false, err
	}
	if u.Name != nil {
		m.Name = strings.TrimSpace(*u.Name)
	}
	if u.Description != nil {
		m.Description = *u.Description
	}
	if u.ContactEmail.Set {
		m.ContactEmail = u.ContactEmail.Value
	}
	if u.MCPURL.Set && u.MCPURL.Value != m.MCPURL {
		m.MCPURL = u.MCPURL.Value
		reverify = true
	}
	if u.AuthToken.Set {
		if u.AuthToken.Null || u.AuthToken.Value == "" {
			m.AuthTokenEnc = nil
		} else {
			m.AuthTokenEnc = sealToken(u.AuthToken.Value)
		}
		reverify = true
	}
	if u.Roles != nil && !sameSet(roles, m.Roles) {
		reverify = true
	}
	m.Roles, m.PaymentMethods, m.Skills = roles, payment, skills
	if u.PayoutAddress.Set {
		m.PayoutAddress = u.PayoutAddress.Value
	}
	if u.PreferredPayment != nil {
		m.PreferredPayment = *u.PreferredPayment
	}
	if u.Identity != nil {
		m.Identity = *u.Identity
	}
	if reverify && m.State != MemberSuspended {
		m.State = MemberRegistered
		m.VerifiedAt = nil
	}
	m.UpdatedAt = now
	return reverify, nil
}

func sameSet(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for _, x := range a {
		if !contains(b, x) {
			return false
		}
	}
	return true
}

// SecretFor builds a member secret: ss_<member_id>_<64 hex>.
func SecretFor(memberID string) string { return "ss_" + memberID + "_" + RandomHex(32) }

// MemberIDFromSecret extracts the member id of a well-formed secret.
func MemberIDFromSecret(secret string) (string, bool) {
	if !strings.HasPrefix(secret, "ss_") {
		return "", false
	}
	i := strings.LastIndexByte(secret, '_')
	if i <= 3 || len(secret)-i-1 != 64 {
		return "", false
	}
	for _, c := range secret[i+1:] {
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return "", false
		}
	}
	return secret[3:i], true
}

// PublicMember is what anyone may see of a member: never endpoints, IPs, operator details,
// contact_email or payout_address.
type PublicMember struct {
	ID             string     `json:"id"`
	Name           string     `json:"name"`
	Description    string     `json:"description,omitempty"`
	Roles          []string   `json:"roles"`
	Skills         []Skill    `json:"skills"`
	PaymentMethods []string   `json:"payment_methods"`
	Verified       bool       `json:"verified"`
	State          string     `json:"state"`
	Mode           string     `json:"mode" doc:"push (has an MCP server) or pull"`
	AgentFramework string     `json:"agent_framework,omitempty"`
	AgentModel     string     `json:"agent_model,omitempty"`
	Badges         []string   `json:"badges"`
	Reputation     Reputation `json:"reputation"`
	MemberSince    time.Time  `json:"member_since"`
}

// PrivateMember is the member's own record (GET /api/members/me).
type PrivateMember struct {
	ID                string     `json:"id"`
	Roles             []string   `json:"roles"`
	Name              string     `json:"name"`
	Description       string     `json:"description,omitempty"`
	Skills            []Skill    `json:"skills"`
	MCPURL            string     `json:"mcp_url,omitempty"`
	Mode              string     `json:"mode"`
	ContactEmail      string     `json:"contact_email,omitempty"`
	AuthTokenSet      bool       `json:"auth_token_set"`
	PaymentMethods    []string   `json:"payment_methods"`
	PayoutAddress     string     `json:"payout_address,omitempty"`
	PreferredPayment  string     `json:"preferred_payment,omitempty"`
	Identity          Identity   `json:"identity"`
	State             string     `json:"state"`
	Verified          bool       `json:"verified"`
	VerifiedAt        *time.Time `json:"verified_at,omitempty"`
	Favourites        []string   `json:"favourites"`
	LastChecks        []Check    `json:"last_checks"`
	LastSeenAt        time.Time  `json:"last_seen_at"`
	CreatedAt         time.Time  `json:"created_at"`
	SecretFingerprint string     `json:"secret_fingerprint" doc:"first 8 hex of the SHA-256 of the member secret"`
	NextSteps         []string   `json:"next_steps,omitempty"`
	SkillWarnings     []string   `json:"skill_warnings,omitempty" doc:"skills whose task_type neither the catalog nor any other seller has: a typo? (with did-you-mean)"`
}

func (m *Member) mode() string {
	if m.PullMode() {
		return "pull"
	}
	return "push"
}

func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

// Private renders the member's own view.
func (m *Member) Private(fingerprint string) PrivateMember {
	p := PrivateMember{
		ID: m.ID, Roles: m.Roles, Name: m.Name, Description: m.Description, Skills: nonNil(m.Skills),
		MCPURL: m.MCPURL, Mode: m.mode(), ContactEmail: m.ContactEmail, AuthTokenSet: len(m.AuthTokenEnc) > 0,
		PaymentMethods: m.PaymentMethods, PayoutAddress: m.PayoutAddress, PreferredPayment: m.PreferredPayment,
		Identity: m.Identity, State: m.State, Verified: m.State == MemberVerified, VerifiedAt: m.VerifiedAt,
		Favourites: nonNil(m.Favourites), LastChecks: nonNil(m.LastChecks), LastSeenAt: m.LastSeenAt,
		CreatedAt: m.CreatedAt, SecretFingerprint: fingerprint,
	}
	if m.State != MemberVerified {
		p.NextSteps = append(p.NextSteps, "POST /api/members/me/verify to run the verification handshake")
	}
	if m.HasRole("seller") && len(m.Skills) == 0 {
		p.NextSteps = append(p.NextSteps, "PUT /api/members/me/skills to list the task types you do")
	}
	if m.HasRole("seller") && m.PayoutAddress == "" {
		p.NextSteps = append(p.NextSteps, "set a payout address so payouts are not held: axp member payout-address ADDR (or update_profile with payout_address)")
	}
	return p
}

// Public renders what anyone may see.
func (m *Member) Public(rep Reputation) PublicMember {
	return PublicMember{
		ID: m.ID, Name: m.Name, Description: m.Description, Roles: m.Roles, Skills: nonNil(m.Skills),
		PaymentMethods: m.PaymentMethods, Verified: m.State == MemberVerified, State: m.State, Mode: m.mode(),
		AgentFramework: m.Identity.AgentFramework, AgentModel: m.Identity.AgentModel,
		Badges: Badges(rep), Reputation: rep, MemberSince: m.CreatedAt,
	}
}

// Registered is the answer to a registration: the secrets, shown once.
type Registered struct {
	MemberID     string        `json:"member_id"`
	MemberSecret string        `json:"member_secret" doc:"ss_<member_id>_<64 hex>; shown once, stored only as a hash"`
	PlatformKey  string        `json:"platform_key" doc:"the key the exchange signs its calls to you with; shown once"`
	Member       PrivateMember `json:"member"`
	Warning      string        `json:"warning"`
}

// Reputation is the reputation view of a member (spec 2.7).
type Reputation struct {
	MemberID          string                     `json:"member_id"`
	Rating            *float64                   `json:"rating" doc:"mean overall rating, null with no reviews"`
	Ratings           RatingCounts               `json:"ratings"`
	Reviews           int                        `json:"reviews"`
	DistinctReviewers int                        `json:"distinct_reviewers"`
	CompletedJobs     int                        `json:"completed_jobs"`
	DisputedJobs      int                        `json:"disputed_jobs"`
	Deliveries        int                        `json:"deliveries"`
	FirstPassJobs     int                        `json:"first_pass_jobs"`
	OnTimeJobs        int                        `json:"on_time_jobs"`
	QuoteCount        int                        `json:"quote_count"`
	MedianQuoteMillis *int64                     `json:"median_quote_ms"`
	AsBuyer           protocol.ReputationSummary `json:"as_buyer"`
	RecentReviews     []ReviewView               `json:"recent_reviews" doc:"the 10 newest reviews of this member, as seller (reviewer_role buyer) or as buyer (reviewer_role seller)"`
}

// RatingCounts is the number of reviews per star.
type RatingCounts struct {
	One   int `json:"1"`
	Two   int `json:"2"`
	Three int `json:"3"`
	Four  int `json:"4"`
	Five  int `json:"5"`
}

// ReviewView is a public review.
type ReviewView struct {
	ReviewID   string     `json:"review_id"`
	TaskID     string     `json:"task_id"`
	Role       string     `json:"reviewer_role"`
	Rating     int        `json:"rating"`
	Quality    *int       `json:"quality,omitempty"`
	Accuracy   *int       `json:"accuracy,omitempty"`
	Timeliness *int       `json:"timeliness,omitempty"`
	Comment    string     `json:"comment,omitempty" doc:"contact details removed"`
	Screening  *Screening `json:"screening,omitempty"`
	CreatedAt  time.Time  `json:"created_at"`
}

// Badges computes the badges of spec 2.4 from a reputation.
func Badges(r Reputation) []string {
	b := []string{}
	finished := r.CompletedJobs + r.DisputedJobs
	if finished < 3 {
		b = append(b, "new")
	}
	if r.CompletedJobs >= 10 && r.OnTimeJobs*100 >= 90*r.CompletedJobs && r.DisputedJobs*100 <= 5*finished {
		b = append(b, "reliable")
	}
	if r.Deliveries >= 10 && r.FirstPassJobs*100 >= 95*r.Deliveries {
		b = append(b, "first_pass_pro")
	}
	if r.Rating != nil && *r.Rating >= 4.8 && r.DistinctReviewers >= 5 {
		b = append(b, "top_rated")
	}
	if r.QuoteCount >= 5 && r.MedianQuoteMillis != nil && *r.MedianQuoteMillis < 1000 {
		b = append(b, "fast_quotes")
	}
	return b
}

// BadgeWords are badges as a person reads them: "first_pass_pro" is "first-pass pro".
func BadgeWords(badges []string) []string {
	out := make([]string, 0, len(badges))
	for _, b := range badges {
		switch b {
		case "first_pass_pro":
			out = append(out, "first-pass pro")
		default:
			out = append(out, strings.ReplaceAll(b, "_", " "))
		}
	}
	return out
}

// String renders a short description for logs.
func (m *Member) String() string {
	return fmt.Sprintf("member %s (%s)", m.ID, strings.Join(m.Roles, ","))
}

// The member operations.
