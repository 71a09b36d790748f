package store

import (
	"bytes"
	"time"

	"github.com/axp-exchange/axp"
)

// Trust and safety records (schema version 4): messages, settlements, mediations, reviews by task,
// listing rejections, AI calls and contact-detail removals.

// --- messages ---

// PutMessage stores a message under its task.
func (t *Tx) PutMessage(m *axp.Message) error {
	m.V = 1
	return putJSON(t.bucket(bMessages), pair(m.TaskID, m.ID), m)
}

// Messages returns a task's messages, oldest first.
func (t *Tx) Messages(taskID string) ([]axp.Message, error) {
	p := []byte(taskID + "\x00")
	out := []axp.Message{}
	c := t.bucket(bMessages).Cursor()
	for k, raw := c.Seek(p); k != nil && bytes.HasPrefix(k, p); k, raw = c.Next() {
		var m axp.Message
		if err := decode(raw, &m); err != nil {
			return nil, err
		}
		out = append(out, m)
	}
	return out, nil
}

// --- settlements ---

// Settlement loads a settlement proposal, or nil.
func (t *Tx) Settlement(id string) (*axp.Settlement, error) {
	var s axp.Settlement
	ok, err := getJSON(t.bucket(bSettlements), []byte(id), &s)
	if !ok || err != nil {
		return nil, err
	}
	return &s, nil
}

// PutSettlement stores a settlement proposal and indexes it under its task.
func (t *Tx) PutSettlement(s *axp.Settlement) error {
	s.V = 1
	if err := t.bucket(bTaskSettlements).Put(pair(s.TaskID, s.ID), nil); err != nil {
		return err
	}
	return putJSON(t.bucket(bSettlements), []byte(s.ID), s)
}

// TaskSettlements lists a task's settlement proposals, oldest first.
func (t *Tx) TaskSettlements(taskID string) ([]axp.Settlement, error) {
	out := []axp.Settlement{}
	for _, id := range t.idsUnder(bTaskSettlements, taskID) {
		s, err := t.Settlement(id)
		if err != nil {
			return nil, err
		}
		if s != nil {
			out = append(out, *s)
		}
	}
	return out, nil
}

// --- mediations ---

// Mediation loads a mediation, or nil.
func (t *Tx) Mediation(id string) (*axp.Mediation, error) {
	var m axp.Mediation
	ok, err := getJSON(t.bucket(bMediations), []byte(id), &m)
	if !ok || err != nil {
		return nil, err
	}
	return &m, nil
}

// PutMediation stores a mediation, indexes it under its task and keeps the index of mediations that
// wait for statements.
func (t *Tx) PutMediation(m *axp.Mediation) error {
	m.V = 1
	if err := t.bucket(bTaskMediations).Put(pair(m.TaskID, m.ID), nil); err != nil {
		return err
	}
	var err error
	if m.Status == axp.MediationAwaiting {
		err = t.bucket(bOpenMediations).Put([]byte(m.ID), nil)
	} else {
		err = t.bucket(bOpenMediations).Delete([]byte(m.ID))
	}
	if err != nil {
		return err
	}
	return putJSON(t.bucket(bMediations), []byte(m.ID), m)
}

// TaskMediations lists a task's mediations, oldest first.
func (t *Tx) TaskMediations(taskID string) ([]axp.Mediation, error) {
	out := []axp.Mediation{}
	for _, id := range t.idsUnder(bTaskMediations, taskID) {
		m, err := t.Mediation(id)
		if err != nil {
			return nil, err
		}
		if m != nil {
			out = append(out, *m)
		}
	}
	return out, nil
}

// AwaitingMediationIDs lists the mediations that still collect statements, oldest first.
func (t *Tx) AwaitingMediationIDs() []string {
	var ids []string
	c := t.bucket(bOpenMediations).Cursor()
	for k, _ := c.First(); k != nil; k, _ = c.Next() {
		ids = append(ids, string(k))
	}
	return ids
}

// EachMediation calls fn for every mediation, newest first.
func (t *Tx) EachMediation(fn func(*axp.Mediation) bool) error {
	return each(t.bucket(bMediations), true, func(_ []byte, m *axp.Mediation) (bool, error) { return fn(m), nil })
}

// --- reviews ---

// Review loads a review, or nil.
func (t *Tx) Review(id string) (*ReviewRecord, error) {
	var r ReviewRecord
	ok, err := getJSON(t.bucket(bReviews), []byte(id), &r)
	if !ok || err != nil {
		return nil, err
	}
	return &r, nil
}

// TaskReviewID returns the review a side wrote on a task, or "".
func (t *Tx) TaskReviewID(taskID, side string) string {
	return string(t.bucket(bTaskReviews).Get(pair(taskID, side)))
}

// PutTaskReview stores a new review and records it as the one review of its side on the task.
func (t *Tx) PutTaskReview(r *ReviewRecord) error {
	if err := t.PutReview(r); err != nil {
		return err
	}
	return t.bucket(bTaskReviews).Put(pair(r.TaskID, r.Role), []byte(r.ReviewID))
}

// --- listing rejections ---

// ListingRejection loads a rejection, or nil.
func (t *Tx) ListingRejection(id string) (*axp.ListingRejection, error) {
	var r axp.ListingRejection
	ok, err := getJSON(t.bucket(bListings), []byte(id), &r)
	if !ok || err != nil {
		return nil, err
	}
	return &r, nil
}

// ListingByHash finds the rejection of a brief by its hash, or nil.
func (t *Tx) ListingByHash(hash string) (*axp.ListingRejection, error) {
	id := t.bucket(bListingHashes).Get([]byte(hash))
	if id == nil {
		return nil, nil
	}
	return t.ListingRejection(string(id))
}

// PutListingRejection stores a rejection and indexes it by its brief hash.
func (t *Tx) PutListingRejection(r *axp.ListingRejection) error {
	r.V = 1
	if err := t.bucket(bListingHashes).Put([]byte(r.BriefHash), []byte(r.ID)); err != nil {
		return err
	}
	return putJSON(t.bucket(bListings), []byte(r.ID), r)
}

// EachListingRejection calls fn for every rejection, newest first.
func (t *Tx) EachListingRejection(fn func(*axp.ListingRejection) bool) error {
	return each(t.bucket(bListings), true, func(_ []byte, r *axp.ListingRejection) (bool, error) { return fn(r), nil })
}

// --- AI calls ---

// PutAICall records a call to the AI provider.
func (t *Tx) PutAICall(c *axp.AICall) error {
	c.V = 1
	return putJSON(t.bucket(bAICalls), []byte(c.ID), c)
}

// EachAICall calls fn for every recorded AI call, newest first.
func (t *Tx) EachAICall(fn func(*axp.AICall) bool) error {
	return each(t.bucket(bAICalls), true, func(_ []byte, c *axp.AICall) (bool, error) { return fn(c), nil })
}

// --- contact-detail removals ---

// ContactRemoval is one contact detail removed from a party's text: who, where, what kind and the
// fingerprint of the removed text (never the text itself).
type ContactRemoval struct {
	V           int       `json:"v"`
	ID          string    `json:"id"`
	MemberID    string    `json:"member_id,omitempty"` // empty for anonymous buyers
	Actor       string    `json:"actor"`
	TaskID      string    `json:"task_id,omitempty"`
	PostID      string    `json:"post_id,omitempty"` // a board post
	Field       string    `json:"field"`
	Kind        string    `json:"kind"`
	Fingerprint string    `json:"fingerprint"`
	At          time.Time `json:"at"`
}

// PutContactRemoval logs a removal.
func (t *Tx) PutContactRemoval(r *ContactRemoval) error {
	r.V = 1
	return putJSON(t.bucket(bRemovals), []byte(r.ID), r)
}

// ContactRemovals returns removals newest first (of one member when memberID is not empty), at
// most limit (0: all).
func (t *Tx) ContactRemovals(memberID string, limit int) ([]ContactRemoval, error) {
	out := []ContactRemoval{}
	err := each(t.bucket(bRemovals), true, func(_ []byte, r *ContactRemoval) (bool, error) {
		if memberID == "" || r.MemberID == memberID {
			out = append(out, *r)
		}
		return limit <= 0 || len(out) < limit, nil
	})
	return out, err
}
