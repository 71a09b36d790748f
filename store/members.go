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

// PutMember stores a member.
func (t *Tx) PutMember(m *axp.Member) error {
	m.V = 1
	return putJSON(t.bucket(bMembers), []byte(m.ID), m)
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
