package store

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"slices"
	"time"

	"github.com/axp-exchange/axp"
)

// Indexes of schema 12, which keep the remaining request paths and passes flat as tasks and
// members grow: open tasks by type (a seller's quote requests read only the open tasks of its
// skills' types), tasks awaiting payment by the tag and amount they wait for (the chain watcher
// matches a transfer without reading every unpaid task), members by state and by when they were
// last seen (liveness reads only the verified members due for a check, the public seller list
// only verified sellers), and a revision of what verified sellers offer (on_offer is cached
// until it changes).

// indexOpen keeps the task under its type in open_by_type while it is open.
func (t *Tx) indexOpen(r *axp.TaskRecord, prev string) error {
	switch {
	case r.Status == axp.TaskOpen && prev != axp.TaskOpen:
		return t.bucket(bOpenByType).Put(pair(r.Type, r.ID), nil)
	case r.Status != axp.TaskOpen && prev == axp.TaskOpen:
		return t.bucket(bOpenByType).Delete(pair(r.Type, r.ID))
	}
	return nil
}

// OpenTaskIDs calls fn with the open tasks of a type, oldest first; fn returning false stops.
func (t *Tx) OpenTaskIDs(taskType string, fn func(id string) bool) {
	p := []byte(taskType + "\x00")
	c := t.bucket(bOpenByType).Cursor()
	for k, _ := c.Seek(p); k != nil && bytes.HasPrefix(k, p); k, _ = c.Next() {
		if !fn(string(k[len(p):])) {
			return
		}
	}
}

// payableKey is a task's key in the payable index: 8-byte tag, 8-byte payable amount, task id.
func payableKey(payable axp.Money, id string) []byte {
	k := make([]byte, 16, 16+len(id))
	binary.BigEndian.PutUint64(k, uint64(payable%axp.TagLimit))
	binary.BigEndian.PutUint64(k[8:], uint64(payable))
	return append(k, id...)
}

// indexPayable keeps a task awaiting payment of a positive amount in the payable index, under
// the amount it waits for now.
func (t *Tx) indexPayable(r *axp.TaskRecord) error {
	byTask, idx := t.bucket(bPayableAt), t.bucket(bPayable)
	var want []byte
	if r.Status == axp.TaskAwaitingPayment && r.Payable > 0 {
		want = payableKey(r.Payable, r.ID)
	}
	old := byTask.Get([]byte(r.ID))
	if bytes.Equal(old, want) && (old == nil) == (want == nil) {
		return nil
	}
	if old != nil {
		if err := idx.Delete(slices.Clone(old)); err != nil {
			return err
		}
	}
	if want == nil {
		return byTask.Delete([]byte(r.ID))
	}
	if err := idx.Put(want, nil); err != nil {
		return err
	}
	return byTask.Put([]byte(r.ID), want)
}

// PayableTaskIDs lists the tasks awaiting payment whose payable amount has the same tag as
// amount (the amount modulo axp.TagLimit): exact holds those waiting for amount itself, tagged the
// others.
func (t *Tx) PayableTaskIDs(amount axp.Money) (exact, tagged []string) {
	if amount <= 0 {
		return nil, nil
	}
	p := make([]byte, 8)
	binary.BigEndian.PutUint64(p, uint64(amount%axp.TagLimit))
	c := t.bucket(bPayable).Cursor()
	for k, _ := c.Seek(p); k != nil && bytes.HasPrefix(k, p) && len(k) > 16; k, _ = c.Next() {
		if axp.Money(binary.BigEndian.Uint64(k[8:16])) == amount {
			exact = append(exact, string(k[16:]))
		} else {
			tagged = append(tagged, string(k[16:]))
		}
	}
	return exact, tagged
}

// memberIndexed is what the member indexes and the offer revision depend on.
type memberIndexed struct {
	State      string      `json:"state"`
	Roles      []string    `json:"roles"`
	LastSeenAt time.Time   `json:"last_seen_at"`
	Skills     []axp.Skill `json:"skills"`
}

// offers reports whether the member is a verified seller, whose skills are on offer.
func (m *memberIndexed) offers() bool {
	return m.State == axp.MemberVerified && slices.Contains(m.Roles, "seller")
}

// seenKey is a verified member's key in members_seen: 8-byte unix nanos last seen, member id.
func seenKey(m *axp.Member) []byte {
	k := make([]byte, 8, 8+len(m.ID))
	binary.BigEndian.PutUint64(k, uint64(max(m.LastSeenAt.UnixNano(), 0)))
	return append(k, m.ID...)
}

// indexMember keeps the member indexes of schema 12 and raises the offer revision when what a
// verified seller offers changes. old is the stored member (zero for a new one).
func (t *Tx) indexMember(m *axp.Member, old *memberIndexed, existed bool) error {
	st := t.bucket(bMemberState)
	if existed && old.State != m.State {
		if err := st.Delete(pair(old.State, m.ID)); err != nil {
			return err
		}
	}
	if !existed || old.State != m.State {
		if err := st.Put(pair(m.State, m.ID), nil); err != nil {
			return err
		}
	}
	seen := t.bucket(bMemberSeen)
	wasVerified := existed && old.State == axp.MemberVerified
	isVerified := m.State == axp.MemberVerified
	if wasVerified && (!isVerified || !old.LastSeenAt.Equal(m.LastSeenAt)) {
		k := make([]byte, 8, 8+len(m.ID))
		binary.BigEndian.PutUint64(k, uint64(max(old.LastSeenAt.UnixNano(), 0)))
		if err := seen.Delete(append(k, m.ID...)); err != nil {
			return err
		}
	}
	if isVerified && (!wasVerified || !old.LastSeenAt.Equal(m.LastSeenAt)) {
		if err := seen.Put(seenKey(m), nil); err != nil {
			return err
		}
	}
	now := memberIndexed{State: m.State, Roles: m.Roles, Skills: m.Skills}
	if old.offers() != now.offers() || (now.offers() && !sameSkills(old.Skills, m.Skills)) {
		return t.bumpOfferRev()
	}
	return nil
}

func sameSkills(a, b []axp.Skill) bool {
	x, err1 := json.Marshal(a)
	y, err2 := json.Marshal(b)
	return err1 == nil && err2 == nil && bytes.Equal(x, y)
}

func (t *Tx) bumpOfferRev() error {
	b := t.bucket(bMeta)
	var n uint64
	if raw := b.Get(kOfferRev); len(raw) == 8 {
		n = binary.BigEndian.Uint64(raw)
	}
	return b.Put(kOfferRev, u64(n+1))
}

// OfferRev is a revision of what verified sellers offer: it changes whenever a member becomes or
// stops being a verified seller, or a verified seller's skills change.
func (t *Tx) OfferRev() uint64 {
	if raw := t.bucket(bMeta).Get(kOfferRev); len(raw) == 8 {
		return binary.BigEndian.Uint64(raw)
	}
	return 0
}

// MemberIDsByState lists the members in a state, in id (creation) order.
func (t *Tx) MemberIDsByState(state string) []string { return t.idsUnder(bMemberState, state) }

// MembersInState calls fn for every member in a state, in id (creation) order; fn returning false
// stops.
func (t *Tx) MembersInState(state string, fn func(*axp.Member) bool) error {
	return t.eachMemberOf(t.MemberIDsByState(state), fn)
}

// eachMemberOf calls fn for each of the members ids names (skipping ids with no member); fn
// returning false stops.
func (t *Tx) eachMemberOf(ids []string, fn func(*axp.Member) bool) error {
	for _, id := range ids {
		m, err := t.Member(id)
		if err != nil {
			return err
		}
		if m != nil && !fn(m) {
			return nil
		}
	}
	return nil
}

// VerifiedSeenSince calls fn with the verified members last seen at or after a time, the most
// recently seen last; fn returning false stops.
func (t *Tx) VerifiedSeenSince(since time.Time, fn func(*axp.Member) bool) error {
	c := t.bucket(bMemberSeen).Cursor()
	for k, _ := c.Seek(u64(uint64(max(since.UnixNano(), 0)))); k != nil && len(k) > 8; k, _ = c.Next() {
		m, err := t.Member(string(k[8:]))
		if err != nil {
			return err
		}
		if m != nil && !fn(m) {
			return nil
		}
	}
	return nil
}

// VerifiedSeenBefore calls fn with the verified members last seen before a time, longest unseen
// first; fn returning false stops.
func (t *Tx) VerifiedSeenBefore(before time.Time, fn func(*axp.Member) bool) error {
	end := u64(uint64(max(before.UnixNano(), 0)))
	c := t.bucket(bMemberSeen).Cursor()
	for k, _ := c.First(); k != nil && len(k) > 8 && bytes.Compare(k[:8], end) < 0; k, _ = c.Next() {
		m, err := t.Member(string(k[8:]))
		if err != nil {
			return err
		}
		if m != nil && !fn(m) {
			return nil
		}
	}
	return nil
}

// migrateIndexes12 (schema 12) creates and fills the indexes above: the open and awaiting-payment
// tasks are read through the status index, and every member once.
func migrateIndexes12(tx *Tx) error {
	if err := tx.createBucket(bOpenByType, bPayable, bPayableAt, bMemberState, bMemberSeen); err != nil {
		return err
	}
	for _, status := range []string{axp.TaskOpen, axp.TaskAwaitingPayment} {
		for _, id := range tx.TaskIDsByStatus(status) {
			r, err := tx.Task(id)
			if err != nil {
				return err
			}
			if r == nil {
				continue
			}
			if err := tx.indexOpen(r, ""); err != nil {
				return err
			}
			if err := tx.indexPayable(r); err != nil {
				return err
			}
		}
	}
	return each(tx.bucket(bMembers), false, func(_ []byte, m *axp.Member) (bool, error) {
		return true, tx.indexMember(m, &memberIndexed{}, false)
	})
}

// BuyerTaskIDsPage lists up to limit of the tasks a buyer member posted, newest first, starting
// after the task before (all from the newest when ""); more says that older ones remain.
func (t *Tx) BuyerTaskIDsPage(memberID, before string, limit int) (ids []string, more bool) {
	p := []byte(memberID + "\x00")
	c := t.bucket(bBuyerTasks).Cursor()
	var k []byte
	if before == "" {
		// The last key under the prefix: seek past it and step back.
		end := append(bytes.Clone(p[:len(p)-1]), 1)
		if k, _ = c.Seek(end); k == nil {
			k, _ = c.Last()
		} else {
			k, _ = c.Prev()
		}
	} else {
		k, _ = c.Seek(append(bytes.Clone(p), before...))
		k, _ = c.Prev()
	}
	for ; k != nil && bytes.HasPrefix(k, p); k, _ = c.Prev() {
		if len(ids) == limit {
			return ids, true
		}
		ids = append(ids, string(k[len(p):]))
	}
	return ids, false
}
