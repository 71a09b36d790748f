package store

import (
	"slices"

	"github.com/axp-exchange/axp"
)

// Members by name key (schema 17): member_names files each member under the keys its name is
// compared by when another member registers or renames (the daemon computes them; the store
// only files them), so the look-alike check of a new name reads the members holding one of its
// keys instead of every member. The keys depend on the daemon's comparison, which can change
// with a release: the index carries the revision it was filled with, and a caller holding
// another revision fills it again from every member (MemberNamesRev, RefileMemberNames).

// nameKey is a member's row: the key, a zero byte, the member id.
func nameKey(key, id string) []byte { return pair(key, id) }

// MemberNamesRev is the revision of the keys member_names holds ("" before it was first filled).
func (t *Tx) MemberNamesRev() string { return string(t.bucket(bMeta).Get(kMemberNamesRev)) }

// RefileMemberNames empties member_names and files every member under keys(name), recording
// rev: one pass over the members, in the caller's transaction.
func (t *Tx) RefileMemberNames(rev string, keys func(name string) []string) error {
	b := t.bucket(bMemberNames)
	var old [][]byte
	c := b.Cursor()
	for k, _ := c.First(); k != nil; k, _ = c.Next() {
		old = append(old, slices.Clone(k))
	}
	for _, k := range old {
		if err := b.Delete(k); err != nil {
			return err
		}
	}
	var err error
	if e := t.EachMember(func(m *axp.Member) bool {
		err = t.FileMemberName(m.ID, nil, keys(m.Name))
		return err == nil
	}); e != nil {
		return e
	}
	if err != nil {
		return err
	}
	return t.bucket(bMeta).Put(kMemberNamesRev, []byte(rev))
}

// FileMemberName moves a member from the keys of its old name to those of its new one.
func (t *Tx) FileMemberName(id string, old, keys []string) error {
	b := t.bucket(bMemberNames)
	for _, k := range old {
		if !slices.Contains(keys, k) {
			if err := b.Delete(nameKey(k, id)); err != nil {
				return err
			}
		}
	}
	for _, k := range keys {
		if err := b.Put(nameKey(k, id), nil); err != nil {
			return err
		}
	}
	return nil
}

// MembersNamed lists the ids of the members filed under key.
func (t *Tx) MembersNamed(key string) []string { return t.idsUnder(bMemberNames, key) }
