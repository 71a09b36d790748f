package daemon

import (
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/axp-exchange/axp"
	"github.com/axp-exchange/axp/daemon/checks"
	"github.com/axp-exchange/axp/protocol"
	"github.com/axp-exchange/axp/store"
)

// Text between parties (DESIGN.md section 10). Every free-text field that crosses from one party
// to another passes cleanText before it is stored: contact details are removed (links survive only
// in data-source params) and the text is screened for prompt injection. The verdict is stored with
// the text and shown wherever the text is shown.
//
// The same filter strips hidden characters: controls (but tab, newline and carriage return),
// bidirectional controls and invisible characters, which could reorder or hide what the other party
// reads. They are stripped before contact details are looked for, so they cannot hide one either.
//
// Each removal is logged (member, field, kind and the fingerprint of the removed text, never the
// text itself). Contact-detail removals are counted per member: one count per text field that had
// contact details removed, however many it held. At contact_warn_at counts within 24 hours the
// member gets a warning announcement; at contact_suspend_at it is suspended (DESIGN.md section 8).
// Anonymous buyers (buyer tokens) are logged but not counted: there is no member to warn or
// suspend. Stripped hidden characters are logged but never counted: they arrive innocently too
// (a byte-order mark, a soft hyphen pasted from a web page), and they are gone from what the
// reader sees.

// party is who wrote a text.
type party struct {
	memberID string // "" for an anonymous buyer
	actor    string // audit actor: member:<id> or buyer
	taskID   string
	postID   string // a board post the text belongs to
	// uncounted removals are logged but not counted against the member: the text was not written
	// for this task (an instant offer's note is the seller's standing skill description).
	uncounted bool
}

// buyerParty is the buyer of a task.
func buyerParty(t *axp.TaskRecord) party {
	if t.BuyerMemberID != "" {
		return party{memberID: t.BuyerMemberID, actor: "member:" + t.BuyerMemberID, taskID: t.ID}
	}
	return party{actor: "buyer", taskID: t.ID}
}

// sellerParty is a seller writing on a task.
func sellerParty(t *axp.TaskRecord, sellerID string) party {
	return party{memberID: sellerID, actor: "member:" + sellerID, taskID: t.ID}
}

// sideParty is the party of a side of a task.
func sideParty(t *axp.TaskRecord, side string) party {
	if side == axp.SideSeller {
		return sellerParty(t, t.SellerID)
	}
	return buyerParty(t)
}

// cleanText removes contact details and hidden characters from a party's text and screens what is
// left (what the reader gets). Blank texts pass unchanged with no verdict.
func (d *Daemon) cleanText(ch *change, p party, field, text string, keepLinks bool) (string, *axp.Screening, error) {
	if strings.TrimSpace(text) == "" {
		return text, nil, nil
	}
	var cleaned string
	var removed []removal
	if keepLinks {
		cleaned, removed = redactKeepLinks(text)
	} else {
		cleaned, removed = redactText(text)
	}
	sc := screenText(cleaned)
	contacts, stripped := 0, 0
	for _, r := range removed {
		if err := ch.tx.PutContactRemoval(&store.ContactRemoval{ID: axp.NewID("rmv", ch.now), MemberID: p.memberID,
			Actor: p.actor, TaskID: p.taskID, PostID: p.postID, Field: field, Kind: r.Kind, Fingerprint: r.Fingerprint, At: ch.now}); err != nil {
			return "", nil, err
		}
		if r.Stripped() {
			stripped++
			sc.Stripped = addKind(sc.Stripped, r.Kind)
		} else {
			contacts++
			sc.Removed = addKind(sc.Removed, r.Kind)
		}
	}
	ctx := ch.ctx
	if contacts > 0 {
		ch.after(func() {
			d.log.InfoContext(ctx, "contact details removed", "source", "trust", "member", p.memberID, "actor", p.actor,
				"task", p.taskID, "post", p.postID, "field", field, "kinds", strings.Join(sc.Removed, ","), "count", contacts)
		})
		if p.memberID != "" && !p.uncounted {
			if err := d.countRemoval(ch, p.memberID); err != nil {
				return "", nil, err
			}
		}
	}
	if stripped > 0 {
		ch.after(func() {
			d.log.InfoContext(ctx, "hidden characters removed", "source", "trust", "member", p.memberID, "actor", p.actor,
				"task", p.taskID, "field", field, "kinds", strings.Join(sc.Stripped, ","), "count", stripped)
		})
	}
	if sc.Flagged {
		ch.after(func() {
			d.log.InfoContext(ctx, "text flagged as possible prompt injection", "source", "trust", "actor", p.actor,
				"task", p.taskID, "field", field, "risk", sc.Risk)
		})
	}
	return cleaned, sc, nil
}

// merge folds the verdict on one field into a verdict covering several; findings name the field.
func merge(into **axp.Screening, field string, sc *axp.Screening) {
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

// dataSourceParam reports whether a task param names where data comes from: links survive there
// (spec 1.8), and only there. Such params are source_url and the like: source_* and *_source_url,
// and url or urls.
func dataSourceParam(key string) bool {
	k := strings.ToLower(key)
	return k == "url" || k == "urls" || strings.HasPrefix(k, "source_") || strings.HasSuffix(k, "_source_url") ||
		strings.HasSuffix(k, "_source_urls")
}

// cleanValue cleans every string inside a JSON value (objects and arrays walked), keeping links
// when keepLinks. skip names object keys left as they are (still screened).
func (d *Daemon) cleanValue(ch *change, p party, field string, v any, keepLinks bool, into **axp.Screening, skip func(string) bool) (any, error) {
	switch x := v.(type) {
	case string:
		out, sc, err := d.cleanText(ch, p, field, x, keepLinks)
		merge(into, field, sc)
		return out, err
	case map[string]any:
		out := make(map[string]any, len(x))
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			f := field + "." + k
			if skip != nil && skip(k) {
				if s, ok := x[k].(string); ok {
					merge(into, f, screenOnly(s))
				}
				out[k] = x[k]
				continue
			}
			c, err := d.cleanValue(ch, p, f, x[k], keepLinks || dataSourceParam(k), into, nil)
			if err != nil {
				return nil, err
			}
			out[k] = c
		}
		return out, nil
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			c, err := d.cleanValue(ch, p, fmt.Sprintf("%s[%d]", field, i), e, keepLinks, into, nil)
			if err != nil {
				return nil, err
			}
			out[i] = c
		}
		return out, nil
	case []string:
		out := make([]string, len(x))
		for i, e := range x {
			c, sc, err := d.cleanText(ch, p, fmt.Sprintf("%s[%d]", field, i), e, keepLinks)
			if err != nil {
				return nil, err
			}
			merge(into, field, sc)
			out[i] = c
		}
		return out, nil
	}
	return v, nil
}

// screenOnly screens a text that must stay as it is (a regex check, say).
func screenOnly(text string) *axp.Screening {
	if strings.TrimSpace(text) == "" {
		return nil
	}
	return screenText(text)
}

// cleanBrief filters a new task's texts in place: description, params (links kept in data-source
// params), the string values of acceptance checks (regex, json_schema and mime_type are screened
// but left intact, since a changed pattern would change the check) and agent_name, which sellers
// see as the anonymous buyer's name.
func (d *Daemon) cleanBrief(ch *change, t *axp.TaskRecord) error {
	p := buyerParty(t)
	var sc *axp.Screening
	desc, s, err := d.cleanText(ch, p, "description", t.Description, false)
	if err != nil {
		return err
	}
	t.Description = desc
	merge(&sc, "description", s)
	params, err := d.cleanValue(ch, p, "params", t.Params, false, &sc, nil)
	if err != nil {
		return err
	}
	t.Params = params.(map[string]any)
	if len(t.AcceptanceChecks) > 0 {
		cleaned, err := d.cleanValue(ch, p, "acceptance_checks", t.AcceptanceChecks, false, &sc,
			func(k string) bool { return k == "regex" || k == "json_schema" || k == "mime_type" })
		if err != nil {
			return err
		}
		valid, verr := checks.Validate(cleaned.(map[string]any))
		if verr != nil {
			return axp.Invalid("acceptance_checks", "the checks hold contact details, and without them they are not valid: "+verr.Message,
				"checks must not carry emails, phone numbers, links or handles")
		}
		t.AcceptanceChecks = valid
	}
	name, s, err := d.cleanText(ch, p, "agent_name", t.AgentName, false)
	if err != nil {
		return err
	}
	t.AgentName = name
	merge(&sc, "agent_name", s)
	t.Screening = sc
	return nil
}

// cleanAnswer filters a seller's quote answer: the note, the details' strings, clarifying questions
// and a decline's reason.
func (d *Daemon) cleanAnswer(ch *change, t *axp.TaskRecord, sellerID string, a *protocol.QuoteAnswer, instant bool) (*axp.Screening, error) {
	p := sellerParty(t, sellerID)
	p.uncounted = instant
	a.Questions = append([]string(nil), a.Questions...)
	var sc *axp.Screening
	var s *axp.Screening
	var err error
	if a.Note, s, err = d.cleanText(ch, p, "note", a.Note, false); err != nil {
		return nil, err
	}
	merge(&sc, "note", s)
	if a.Reason, s, err = d.cleanText(ch, p, "reason", a.Reason, false); err != nil {
		return nil, err
	}
	merge(&sc, "reason", s)
	if len(a.Details) > 0 {
		v, err := d.cleanValue(ch, p, "details", a.Details, false, &sc, nil)
		if err != nil {
			return nil, err
		}
		a.Details = v.(map[string]any)
	}
	for i, q := range a.Questions {
		field := fmt.Sprintf("questions[%d]", i)
		if a.Questions[i], s, err = d.cleanText(ch, p, field, q, false); err != nil {
			return nil, err
		}
		merge(&sc, field, s)
	}
	return sc, nil
}

// textMime reports whether delivered content is text whose contact details are removed (binary
// content is left alone).
func textMime(mime string) bool {
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

// countRemoval counts one text with removed contact details or credentials against a member and
// warns or suspends at the configured thresholds.
func (d *Daemon) countRemoval(ch *change, memberID string) error {
	m, err := ch.tx.Member(memberID)
	if err != nil || m == nil {
		return err
	}
	cutoff := ch.now.Add(-24 * time.Hour)
	var recent []time.Time
	for _, at := range m.ContactRemovals {
		if at.After(cutoff) {
			recent = append(recent, at)
		}
	}
	prev := len(recent)
	m.ContactRemovals = append(recent, ch.now)
	n := len(m.ContactRemovals)
	warnAt, suspendAt := d.cfg.ContactWarnAt, d.cfg.ContactSuspendAt
	if warnAt <= 0 {
		warnAt = Defaults().ContactWarnAt
	}
	if suspendAt <= 0 {
		suspendAt = Defaults().ContactSuspendAt
	}
	switch {
	case prev < suspendAt && n >= suspendAt && m.State != axp.MemberSuspended:
		m.State, m.UpdatedAt = axp.MemberSuspended, ch.now
		if err := ch.audit("member.suspend", "member", m.ID, map[string]any{"reason": "contact_details",
			"removals_24h": n, "threshold": suspendAt}); err != nil {
			return err
		}
		if err := d.personalNotice(ch, m, "action_required", "Your membership is suspended",
			fmt.Sprintf("Contact details or credentials were removed from %d of your texts or deliveries within 24 hours. Neither crosses between parties on this exchange; after %d attempts in 24 hours a member is suspended. Write to the operator to be reinstated.", n, suspendAt)); err != nil {
			return err
		}
		ch.after(d.invalidate)
		ctx := ch.ctx
		ch.after(func() {
			d.log.WarnContext(ctx, "member suspended for repeated contact details", "source", "trust", "member", m.ID, "removals_24h", n)
		})
	case prev < warnAt && n >= warnAt && n < suspendAt:
		if err := ch.audit("member.warn", "member", m.ID, map[string]any{"reason": "contact_details",
			"removals_24h": n, "threshold": warnAt}); err != nil {
			return err
		}
		if err := d.personalNotice(ch, m, "important", "Contact details or credentials were removed from your texts",
			fmt.Sprintf("Contact details or credentials were removed from %d of your texts or deliveries within 24 hours. Contact details (emails, phone numbers, links, handles, wallets, endpoints) and credentials (passwords, keys, tokens) never cross between parties here: deliver results, not access. At %d removals within 24 hours your membership is suspended.", n, suspendAt)); err != nil {
			return err
		}
	}
	return ch.tx.PutMember(m)
}

// personalNotice stores an announcement addressed to one member and pushes it to a push member.
func (d *Daemon) personalNotice(ch *change, m *axp.Member, severity, title, body string) error {
	a := &store.AnnouncementRecord{Announcement: axp.Announcement{ID: axp.NewID("ann", ch.now), From: "operator",
		Severity: severity, Title: title, Body: body, ReplyTo: d.BaseURL() + "/api/members/me/operator-messages",
		Audience: "members", CreatedAt: ch.now}, MemberIDs: []string{m.ID}}
	return d.announce(ch, a)
}

// cleanProfile removes contact details from the public texts of a member's profile (name,
// description, skill descriptions): other parties read them. Removals made at registration are
// logged but not counted (the member does not exist yet); later ones count like any other.
func (d *Daemon) cleanProfile(ch *change, m *axp.Member, counted bool) error {
	p := party{memberID: m.ID, actor: "member:" + m.ID, uncounted: !counted}
	var err error
	if m.Name, _, err = d.cleanText(ch, p, "member.name", m.Name, false); err != nil {
		return err
	}
	if m.Description, _, err = d.cleanText(ch, p, "member.description", m.Description, false); err != nil {
		return err
	}
	for i := range m.Skills {
		if m.Skills[i].Description, _, err = d.cleanText(ch, p, fmt.Sprintf("member.skills[%d].description", i), m.Skills[i].Description, false); err != nil {
			return err
		}
	}
	if counted {
		// countRemoval updated the stored record (removal times, perhaps a suspension); the caller
		// stores m next, so carry those over rather than lose them.
		cur, err := ch.tx.Member(m.ID)
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

// withheld is what withholdCredentials took out of a delivery's texts.
type withheld struct {
	kinds  []string // sorted, once each
	count  int      // credentials replaced
	fields []string // content, note
}

// withholdCredentials replaces the credentials in a seller's deliverable text (private keys,
// service keys and tokens, passwords, connection strings with a password) with markers naming
// their kind: the exchange passes work, never access (issue 31, seed 1.8). It runs before
// cleanText, so a credential inside a link goes as a credential. Nothing of a secret is kept: the
// log line names member, task, field, kinds and fingerprints.
func (d *Daemon) withholdCredentials(ch *change, p party, field, text string, w *withheld) string {
	cleaned, found := redactSecrets(text)
	if len(found) == 0 {
		return text
	}
	w.fields = append(w.fields, field)
	var kinds, fps []string
	for _, r := range found {
		kinds = addKind(kinds, r.Kind)
		w.kinds = addKind(w.kinds, r.Kind)
		fps = append(fps, r.Fingerprint)
	}
	w.count += len(found)
	ctx := ch.ctx
	ch.after(func() {
		d.log.InfoContext(ctx, "credentials withheld", "source", "trust", "member", p.memberID, "actor", p.actor,
			"task", p.taskID, "field", field, "kinds", strings.Join(kinds, ","), "count", len(found), "fingerprints", strings.Join(fps, ","))
	})
	return cleaned
}
