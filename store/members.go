package store

import (
	"github.com/axp-exchange/axp"
)

// Member loads a member, or nil if there is none with that id.
func (t *Tx) Member(id string) (*axp.Member, error) {
	var m axp.Member
	ok, err := getJSON(t.bucket(bMembers), []byte(id), &m)
	if !ok || err != nil {
		return nil, err
	}
	return &m, nil
}

// PutMember stores a member and keeps the index of sellers by the task types of their skills.
func (t *Tx) PutMember(m *axp.Member) error {
	m.V = 1
	var old memberIndexed
	existed, err := getJSON(t.bucket(bMembers), []byte(m.ID), &old)
	if err != nil {
		return err
	}
	if err := t.indexMember(m, &old, existed); err != nil {
		return err
	}
	types := map[string]bool{}
	for _, s := range m.Skills {
		types[s.TaskType] = true
	}
	idx := t.bucket(bSkillSellers)
	for _, s := range old.Skills {
		if !types[s.TaskType] {
			if err := idx.Delete(pair(s.TaskType, m.ID)); err != nil {
				return err
			}
		}
	}
	for typ := range types {
		if err := idx.Put(pair(typ, m.ID), nil); err != nil {
			return err
		}
	}
	return putPlain(t.bucket(bMembers), []byte(m.ID), m)
}

// SellersFor calls fn for every member listing a skill of taskType, in id order (the caller still
// checks state, role and the rest of matching); fn returning false stops.
func (t *Tx) SellersFor(taskType string, fn func(*axp.Member) bool) error {
	return t.eachMemberOf(t.idsUnder(bSkillSellers, taskType), fn)
}

// EachMember calls fn for every member in id (creation) order; fn returning false stops.
func (t *Tx) EachMember(fn func(*axp.Member) bool) error {
	return each(t.bucket(bMembers), false, func(_ []byte, m *axp.Member) (bool, error) { return fn(m), nil })
}

// AdminTokenHash returns the stored hash of the generated admin token ("" when none).
func (t *Tx) AdminTokenHash() string { return string(t.bucket(bMeta).Get(kAdminTokenHash)) }

// SetAdminTokenHash stores the hash of a generated admin token.
func (t *Tx) SetAdminTokenHash(h string) error {
	return t.bucket(bMeta).Put(kAdminTokenHash, []byte(h))
}

// CreatedAt is when the database was created (RFC 3339).
func (t *Tx) CreatedAt() string { return string(t.bucket(bMeta).Get(kCreatedAt)) }
