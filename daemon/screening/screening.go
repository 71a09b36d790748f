// Package screening cleans the texts one party of the exchange shows another: it withholds
// credentials, removes contact details and hidden characters, screens for prompt injection, counts
// what it removed against the writer (warning, then suspending) and checks public names. The
// detectors are daemon/screen's; what this package adds is the exchange's side: who wrote a text,
// what is recorded and logged of a removal, and what a member is told.
package screening

import (
	"fmt"
	"net/url"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/axp-exchange/axp"
	"github.com/axp-exchange/axp/daemon/checks"
	"github.com/axp-exchange/axp/daemon/kernel"
	"github.com/axp-exchange/axp/daemon/screen"
	"github.com/axp-exchange/axp/daemon/screen/injection"
	"github.com/axp-exchange/axp/daemon/screen/listing"
	"github.com/axp-exchange/axp/protocol"
	"github.com/axp-exchange/axp/store"
)

// Screener screens the texts of the exchange's parties. The services take it in their New, each
// through an interface naming what it uses.
type Screener struct {
	base kernel.Base // the log, the thresholds and own hosts of the configuration, the base URL
	ex   Exchange
}

// Exchange is what screening asks of the rest of the exchange when it warns or suspends a member.
type Exchange interface {
	// Announce stores an announcement and sends it to the members it is for.
	Announce(ch *kernel.Change, a *store.AnnouncementRecord) error
	// Invalidate drops the cached catalog after a member's state changed.
	Invalidate()
}

// New returns the exchange's screener.
func New(base kernel.Base, ex Exchange) *Screener { return &Screener{base: base, ex: ex} }

type removal = screen.Removal

// RedactText removes contact details from a party's text.
func RedactText(text string) (string, []removal) { return screen.Redact(text) }

// RedactKeepLinks removes contact details but keeps links (data-source params such as source_url).
func RedactKeepLinks(text string) (string, []removal) { return screen.RedactKeepLinks(text) }

// StoredCopy is a text kept for the operator only (a rejected listing, a connector request): its
// credentials and contact details removed (links kept when keepLinks), so the store never holds a
// secret someone pasted by mistake.
func StoredCopy(text string, keepLinks bool) string {
	text, _ = redactSecrets(text)
	if keepLinks {
		text, _ = screen.RedactKeepLinks(text)
	} else {
		text, _ = screen.Redact(text)
	}
	return text
}

// redactSecrets replaces the credentials in a party's text with markers naming their kind.
func redactSecrets(text string) (string, []removal) { return screen.RedactSecrets(text) }

// ScreenText is the prompt-injection verdict on a text, as stored and shown.
func ScreenText(text string) *axp.Screening {
	v := injection.Screen(text)
	sc := &axp.Screening{Flagged: v.Flagged, Risk: v.Risk, Verdict: v.Verdict}
	for _, f := range v.Findings {
		sc.Findings = append(sc.Findings, axp.Finding{Rule: f.Rule, Excerpt: f.Excerpt, Weight: f.Weight})
	}
	return sc
}

// ListingPolicy refuses briefs the exchange does not list (spec 7), or answers nil.
func ListingPolicy(typ, description string, params map[string]any) *listing.Policy {
	return listing.Listing(typ, description, params)
}

// Party is who wrote a text.
type Party struct {
	MemberID string // "" for an anonymous buyer
	Actor    string // audit actor: member:<id> or buyer
	TaskID   string
	PostID   string // a board post the text belongs to
	// uncounted removals are logged but not counted against the member: the text was not written
	// for this task (an instant offer's note is the seller's standing skill description).
	Uncounted bool
}

// BuyerParty is the buyer of a task.
func BuyerParty(t *axp.TaskRecord) Party {
	if t.BuyerMemberID != "" {
		return Party{MemberID: t.BuyerMemberID, Actor: "member:" + t.BuyerMemberID, TaskID: t.ID}
	}
	return Party{Actor: "buyer", TaskID: t.ID}
}

// SellerParty is a seller writing on a task.
func SellerParty(t *axp.TaskRecord, sellerID string) Party {
	return Party{MemberID: sellerID, Actor: "member:" + sellerID, TaskID: t.ID}
}

// SideParty is the party of a side of a task.
func SideParty(t *axp.TaskRecord, side string) Party {
	if side == axp.SideSeller {
		return SellerParty(t, t.SellerID)
	}
	return BuyerParty(t)
}

// CleanText removes credentials, contact details and hidden characters from a party's text and
// screens what is left (what the reader gets). A text that lost credentials or contact details
// counts once against its writer. Blank texts pass unchanged with no verdict.
func (s *Screener) CleanText(ch *kernel.Change, p Party, field, text string, keepLinks bool) (string, *axp.Screening, error) {
	cleaned, sc, count, err := s.cleanText(ch, p, field, text, keepLinks)
	if err == nil && count {
		err = s.countParty(ch, p)
	}
	return cleaned, sc, err
}

// cleanText is CleanText without the count; count reports whether the text lost credentials or
// contact details (hidden characters do not count).
func (s *Screener) cleanText(ch *kernel.Change, p Party, field, text string, keepLinks bool) (string, *axp.Screening, bool, error) {
	if strings.TrimSpace(text) == "" {
		return text, nil, false, nil
	}
	// Credentials go first, as in deliverables: a credential inside a link goes as a credential.
	var w Withheld
	text = s.WithholdCredentials(ch, p, field, text, &w)
	cleaned, removed := screen.RedactOwn(text, keepLinks, s.OwnHosts())
	sc := ScreenText(cleaned)
	sc.Credentials = w.Kinds
	contacts, stripped := 0, 0
	for _, r := range removed {
		if err := ch.Tx.PutContactRemoval(&store.ContactRemoval{ID: axp.NewID("rmv", ch.Now), MemberID: p.MemberID,
			Actor: p.Actor, TaskID: p.TaskID, PostID: p.PostID, Field: field, Kind: r.Kind, Fingerprint: r.Fingerprint, At: ch.Now}); err != nil {
			return "", nil, false, err
		}
		if r.Stripped() {
			stripped++
			sc.Stripped = addKind(sc.Stripped, r.Kind)
		} else {
			contacts++
			sc.Removed = addKind(sc.Removed, r.Kind)
		}
	}
	ctx := ch.Ctx
	if contacts > 0 {
		ch.After(func() {
			s.base.Log.InfoContext(ctx, "contact details removed", "source", "trust", "member", p.MemberID, "actor", p.Actor,
				"task", p.TaskID, "post", p.PostID, "field", field, "kinds", strings.Join(sc.Removed, ","), "count", contacts)
		})
	}
	if stripped > 0 {
		ch.After(func() {
			s.base.Log.InfoContext(ctx, "hidden characters removed", "source", "trust", "member", p.MemberID, "actor", p.Actor,
				"task", p.TaskID, "field", field, "kinds", strings.Join(sc.Stripped, ","), "count", stripped)
		})
	}
	if sc.Flagged {
		ch.After(func() {
			s.base.Log.InfoContext(ctx, "text flagged as possible prompt injection", "source", "trust", "actor", p.Actor,
				"task", p.TaskID, "field", field, "risk", sc.Risk)
		})
	}
	return cleaned, sc, contacts > 0 || w.Count > 0, nil
}

// countParty counts one text against its writer: members only, and not the uncounted texts.
func (s *Screener) countParty(ch *kernel.Change, p Party) error {
	if p.MemberID == "" || p.Uncounted {
		return nil
	}
	return s.CountRemoval(ch, p.MemberID)
}

// OwnHosts are the exchange's own host names (its base URL's and the allowed_hosts), lowercase and
// without port: a link to them is never a contact detail (the job a seller echoes holds its
// deliver_url, and a text may well point at the exchange's documented endpoints).
func (s *Screener) OwnHosts() []string {
	hosts := make([]string, 0, 1+len(s.base.Cfg().AllowedHosts))
	if u, err := url.Parse(s.base.BaseURL()); err == nil && u.Hostname() != "" {
		hosts = append(hosts, strings.ToLower(u.Hostname()))
	}
	for _, h := range s.base.Cfg().AllowedHosts {
		if u, err := url.Parse("http://" + h); err == nil && u.Hostname() != "" {
			hosts = append(hosts, strings.ToLower(u.Hostname()))
		}
	}
	return hosts
}

// Merge folds the verdict on one field into a verdict covering several; findings name the field.
func Merge(into **axp.Screening, field string, sc *axp.Screening) {
	if sc == nil {
		return
	}
	if *into == nil {
		*into = &axp.Screening{Verdict: "clean"}
	}
	m := *into
	if sc.Flagged && !m.Flagged {
		m.Flagged, m.Verdict = true, sc.Verdict
	}
	if sc.Risk > m.Risk {
		m.Risk = sc.Risk
		if !m.Flagged {
			m.Verdict = sc.Verdict
		}
	}
	for _, f := range sc.Findings {
		if f.Field == "" {
			f.Field = field
		}
		m.Findings = append(m.Findings, f)
	}
	for _, k := range sc.Removed {
		m.Removed = addKind(m.Removed, k)
	}
	for _, k := range sc.Stripped {
		m.Stripped = addKind(m.Stripped, k)
	}
	for _, k := range sc.Credentials {
		m.Credentials = addKind(m.Credentials, k)
	}
}

// addKind adds a kind to a sorted list of kinds, once.
func addKind(kinds []string, k string) []string {
	i, found := slices.BinarySearch(kinds, k)
	if found {
		return kinds
	}
	return slices.Insert(kinds, i, k)
}

// DataSourceParam reports whether a task param names where data comes from: links survive there
// (spec 1.8), and only there. Such params are source_url and the like: source_* and *_source_url,
// and url or urls.
func DataSourceParam(key string) bool {
	k := strings.ToLower(key)
	return k == "url" || k == "urls" || strings.HasPrefix(k, "source_") || strings.HasSuffix(k, "_source_url") ||
		strings.HasSuffix(k, "_source_urls")
}

// CleanValue cleans every string inside a JSON value (objects and arrays walked), keeping links
// when keepLinks. skip names object keys left as they are (still screened). The value is one text
// written in one field: it counts once against its writer however many of its strings lost
// something.
func (s *Screener) CleanValue(ch *kernel.Change, p Party, field string, v any, keepLinks bool, into **axp.Screening, skip func(string) bool) (any, error) {
	var count bool
	out, err := s.cleanValue(ch, p, field, v, keepLinks, into, skip, &count)
	if err == nil && count {
		err = s.countParty(ch, p)
	}
	return out, err
}

func (s *Screener) cleanValue(ch *kernel.Change, p Party, field string, v any, keepLinks bool, into **axp.Screening, skip func(string) bool, count *bool) (any, error) {
	switch x := v.(type) {
	case string:
		out, sc, c, err := s.cleanText(ch, p, field, x, keepLinks)
		*count = *count || c
		Merge(into, field, sc)
		return out, err
	case map[string]any:
		out := make(map[string]any, len(x))
		keys := make([]string, 0, len(x))
		for str := range x {
			keys = append(keys, str)
		}
		sort.Strings(keys)
		for _, strx := range keys {
			f := field + "." + strx
			if skip != nil && skip(strx) {
				if s, ok := x[strx].(string); ok {
					Merge(into, f, ScreenOnly(s))
				}
				out[strx] = x[strx]
				continue
			}
			c, err := s.cleanValue(ch, p, f, x[strx], keepLinks || DataSourceParam(strx), into, nil, count)
			if err != nil {
				return nil, err
			}
			out[strx] = c
		}
		return out, nil
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			c, err := s.cleanValue(ch, p, fmt.Sprintf("%s[%d]", field, i), e, keepLinks, into, nil, count)
			if err != nil {
				return nil, err
			}
			out[i] = c
		}
		return out, nil
	case []string:
		out := make([]string, len(x))
		for i, e := range x {
			c, sc, cnt, err := s.cleanText(ch, p, fmt.Sprintf("%s[%d]", field, i), e, keepLinks)
			if err != nil {
				return nil, err
			}
			*count = *count || cnt
			Merge(into, fmt.Sprintf("%s[%d]", field, i), sc)
			out[i] = c
		}
		return out, nil
	}
	return v, nil
}

// ScreenOnly screens a text that must stay as it is (a regex check, say).
func ScreenOnly(text string) *axp.Screening {
	if strings.TrimSpace(text) == "" {
		return nil
	}
	return ScreenText(text)
}

// CleanBrief filters a new task's texts in place: description, params (links kept in data-source
// params), the string values of acceptance checks (regex, json_schema and mime_type are screened
// but left intact, since a changed pattern would change the check) and agent_name, which sellers
// see as the anonymous buyer's name.
func (s *Screener) CleanBrief(ch *kernel.Change, t *axp.TaskRecord) error {
	p := BuyerParty(t)
	var sc *axp.Screening
	desc, v, err := s.CleanText(ch, p, "description", t.Description, false)
	if err != nil {
		return err
	}
	t.Description = desc
	Merge(&sc, "description", v)
	params, err := s.CleanValue(ch, p, "params", t.Params, false, &sc, nil)
	if err != nil {
		return err
	}
	t.Params = params.(map[string]any)
	if len(t.AcceptanceChecks) > 0 {
		cleaned, err := s.CleanValue(ch, p, "acceptance_checks", t.AcceptanceChecks, false, &sc,
			func(str string) bool { return str == "regex" || str == "json_schema" || str == "mime_type" })
		if err != nil {
			return err
		}
		valid, verr := checks.Validate(cleaned.(map[string]any))
		if verr != nil {
			return axp.Invalid("acceptance_checks", "the checks hold contact details or credentials, and without them they are not valid: "+verr.Message,
				"checks must not carry emails, phone numbers, links, handles, keys or passwords")
		}
		t.AcceptanceChecks = valid
	}
	name, v, err := s.CleanText(ch, p, "agent_name", t.AgentName, false)
	if err != nil {
		return err
	}
	t.AgentName = name
	Merge(&sc, "agent_name", v)
	t.Screening = sc
	return nil
}

// CleanAnswer filters a seller's quote answer: the note, the details' strings, clarifying questions
// and a decline's reason.
func (s *Screener) CleanAnswer(ch *kernel.Change, t *axp.TaskRecord, sellerID string, a *protocol.QuoteAnswer, instant bool) (*axp.Screening, error) {
	p := SellerParty(t, sellerID)
	p.Uncounted = instant
	a.Questions = append([]string(nil), a.Questions...)
	var sc *axp.Screening
	var v *axp.Screening
	var err error
	if a.Note, v, err = s.CleanText(ch, p, "note", a.Note, false); err != nil {
		return nil, err
	}
	Merge(&sc, "note", v)
	if a.Reason, v, err = s.CleanText(ch, p, "reason", a.Reason, false); err != nil {
		return nil, err
	}
	Merge(&sc, "reason", v)
	if len(a.Details) > 0 {
		v, err := s.CleanValue(ch, p, "details", a.Details, false, &sc, nil)
		if err != nil {
			return nil, err
		}
		a.Details = v.(map[string]any)
	}
	if len(a.Questions) > 0 {
		// The questions are one field: they count once.
		v, err := s.CleanValue(ch, p, "questions", a.Questions, false, &sc, nil)
		if err != nil {
			return nil, err
		}
		a.Questions = v.([]string)
	}
	return sc, nil
}

// CleanClarifications filters a buyer's answers to clarifying questions: questions and answers
// alike reach sellers with the brief. They are one field written in one call and count once.
func (s *Screener) CleanClarifications(ch *kernel.Change, p Party, answers map[string]string) (map[string]string, *axp.Screening, error) {
	qs := make([]string, 0, len(answers))
	for q := range answers {
		qs = append(qs, q)
	}
	sort.Strings(qs)
	out := make(map[string]string, len(answers))
	var sc *axp.Screening
	var count bool
	for _, q := range qs {
		cq, vx, c1, err := s.cleanText(ch, p, "answers", q, false)
		if err != nil {
			return nil, nil, err
		}
		Merge(&sc, "answers", vx)
		ca, vx, c2, err := s.cleanText(ch, p, "answers."+q, answers[q], false)
		if err != nil {
			return nil, nil, err
		}
		Merge(&sc, "answers", vx)
		out[cq] = ca
		count = count || c1 || c2
	}
	if count {
		if err := s.countParty(ch, p); err != nil {
			return nil, nil, err
		}
	}
	return out, sc, nil
}

// TextMime reports whether delivered content is text whose contact details are removed (binary
// content is left alone).
func TextMime(mime string) bool {
	m := strings.ToLower(strings.TrimSpace(mime))
	if i := strings.IndexByte(m, ';'); i >= 0 {
		m = strings.TrimSpace(m[:i])
	}
	switch {
	case strings.HasPrefix(m, "text/"), m == "application/json", m == "application/xml", m == "application/yaml",
		m == "application/x-yaml", m == "application/csv", strings.HasSuffix(m, "+json"), strings.HasSuffix(m, "+xml"):
		return true
	}
	return false
}

// CountRemoval counts one text with removed contact details or credentials against a member and
// warns or suspends at the configured thresholds.
func (s *Screener) CountRemoval(ch *kernel.Change, memberID string) error {
	m, err := ch.Tx.Member(memberID)
	if err != nil || m == nil {
		return err
	}
	cutoff := ch.Now.Add(-24 * time.Hour)
	var recent []time.Time
	for _, at := range m.ContactRemovals {
		if at.After(cutoff) {
			recent = append(recent, at)
		}
	}
	prev := len(recent)
	m.ContactRemovals = append(recent, ch.Now)
	n := len(m.ContactRemovals)
	warnAt, suspendAt := s.base.Cfg().ContactWarnAt, s.base.Cfg().ContactSuspendAt
	if warnAt <= 0 {
		warnAt = kernel.Defaults().ContactWarnAt
	}
	if suspendAt <= 0 {
		suspendAt = kernel.Defaults().ContactSuspendAt
	}
	switch {
	case prev < suspendAt && n >= suspendAt && m.State != axp.MemberSuspended:
		m.State, m.UpdatedAt = axp.MemberSuspended, ch.Now
		if err := ch.Audit("member.suspend", "member", m.ID, map[string]any{"reason": "contact_details",
			"removals_24h": n, "threshold": suspendAt}); err != nil {
			return err
		}
		if err := s.PersonalNotice(ch, m, "action_required", "Your membership is suspended",
			fmt.Sprintf("Contact details or credentials were removed from %d of your texts or deliveries within 24 hours. Neither crosses between parties on this exchange; after %d attempts in 24 hours a member is suspended. Write to the operator to be reinstated.", n, suspendAt)); err != nil {
			return err
		}
		ch.After(s.ex.Invalidate)
		ctx := ch.Ctx
		ch.After(func() {
			s.base.Log.WarnContext(ctx, "member suspended for repeated contact details", "source", "trust", "member", m.ID, "removals_24h", n)
		})
	case prev < warnAt && n >= warnAt && n < suspendAt:
		if err := ch.Audit("member.warn", "member", m.ID, map[string]any{"reason": "contact_details",
			"removals_24h": n, "threshold": warnAt}); err != nil {
			return err
		}
		if err := s.PersonalNotice(ch, m, "important", "Contact details or credentials were removed from your texts",
			fmt.Sprintf("Contact details or credentials were removed from %d of your texts or deliveries within 24 hours. Contact details (emails, phone numbers, links, handles, wallets, endpoints) and credentials (passwords, keys, tokens) never cross between parties here: deliver results, not access. At %d removals within 24 hours your membership is suspended.", n, suspendAt)); err != nil {
			return err
		}
	}
	return ch.Tx.PutMember(m)
}

// PersonalNotice stores an announcement addressed to one member and pushes it to a push member.
func (s *Screener) PersonalNotice(ch *kernel.Change, m *axp.Member, severity, title, body string) error {
	a := &store.AnnouncementRecord{Announcement: axp.Announcement{ID: axp.NewID("ann", ch.Now), From: "operator",
		Severity: severity, Title: title, Body: body, ReplyTo: s.base.BaseURL() + "/api/members/me/operator-messages",
		Audience: "members", CreatedAt: ch.Now}, MemberIDs: []string{m.ID}}
	return s.ex.Announce(ch, a)
}

// CleanProfile removes contact details from the public texts of a member's profile (name,
// description, skill descriptions): other parties read them. Removals made at registration are
// logged but not counted (the member does not exist yet); later ones count like any other.
func (s *Screener) CleanProfile(ch *kernel.Change, m *axp.Member, counted bool) error {
	p := Party{MemberID: m.ID, Actor: "member:" + m.ID, Uncounted: !counted}
	var err error
	if m.Name, _, err = s.CleanText(ch, p, "member.name", m.Name, false); err != nil {
		return err
	}
	if m.Description, _, err = s.CleanText(ch, p, "member.description", m.Description, false); err != nil {
		return err
	}
	for i := range m.Skills {
		if m.Skills[i].Description, _, err = s.CleanText(ch, p, fmt.Sprintf("member.skills[%d].description", i), m.Skills[i].Description, false); err != nil {
			return err
		}
	}
	if counted {
		// countRemoval updated the stored record (removal times, perhaps a suspension); the caller
		// stores m next, so carry those over rather than lose them.
		cur, err := ch.Tx.Member(m.ID)
		if err != nil || cur == nil {
			return err
		}
		m.ContactRemovals = cur.ContactRemovals
		if cur.State == axp.MemberSuspended {
			m.State = axp.MemberSuspended
		}
	}
	return nil
}

// Withheld is what withholdCredentials took out of a delivery's texts.
type Withheld struct {
	Kinds  []string // sorted, once each
	Count  int      // credentials replaced
	Fields []string // content, note
}

// WithholdCredentials replaces the credentials in a party's text (private keys, service keys and
// tokens, passwords, connection strings with a password) with markers naming their kind: the
// exchange passes work, never access (issue 31, seed 1.8). It runs before contact-detail removal,
// so a credential inside a link goes as a credential. Nothing of a secret is kept: the
// log line names member, task, field, kinds and fingerprints.
func (s *Screener) WithholdCredentials(ch *kernel.Change, p Party, field, text string, w *Withheld) string {
	cleaned, found := redactSecrets(text)
	if len(found) == 0 {
		return text
	}
	w.Fields = append(w.Fields, field)
	var kinds, fps []string
	for _, r := range found {
		kinds = addKind(kinds, r.Kind)
		w.Kinds = addKind(w.Kinds, r.Kind)
		fps = append(fps, r.Fingerprint)
	}
	w.Count += len(found)
	ctx := ch.Ctx
	ch.After(func() {
		s.base.Log.InfoContext(ctx, "credentials withheld", "source", "trust", "member", p.MemberID, "actor", p.Actor,
			"task", p.TaskID, "field", field, "kinds", strings.Join(kinds, ","), "count", len(found), "fingerprints", strings.Join(fps, ","))
	})
	return cleaned
}

// CheckName refuses a name other parties read (see axp.CheckName) that holds hidden characters,
// mixes scripts whose letters imitate each other, or floods combining marks (screen.NameProblem).
func CheckName(field, name string) *axp.Error {
	if err := axp.CheckName(field, name); err != nil {
		return err
	}
	if p := screen.NameProblem(name); p != "" {
		return axp.Invalid(field, p, "write the name in one script, without stacked marks: a name must not pass for another")
	}
	return nil
}

// CheckPublicName is CheckName for a name shown to everyone (a member's name, a task's
// agent_name): it also refuses contact details, which a name would carry past every filter that
// cleans texts between parties. name is already folded (screen.FoldName).
func CheckPublicName(field, name string) *axp.Error {
	if err := CheckName(field, name); err != nil {
		return err
	}
	_, removed := screen.Redact(name)
	for _, r := range removed {
		if !r.Stripped() {
			return axp.Invalid(field, "holds a contact detail ("+r.Kind+")",
				"a public name carries no email, phone number, link or handle: contact goes through the exchange")
		}
	}
	return nil
}

// FoldName is the form a public name is checked and stored in (screen.FoldName: trimmed, NFKC).
func FoldName(name string) string { return screen.FoldName(name) }

// NameKeys are the keys a member's name is filed under; names read alike when they share one
// (screen.NameKeys). NameKeysRev names the comparison.
func NameKeys(name string) []string { return screen.NameKeys(name) }

// NameKeysRev is the revision of NameKeys (screen.NameKeysRev).
const NameKeysRev = screen.NameKeysRev
