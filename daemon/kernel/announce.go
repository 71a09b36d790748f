package kernel

import (
	"context"

	"github.com/axp-exchange/axp"
	"github.com/axp-exchange/axp/protocol"
	"github.com/axp-exchange/axp/store"
)

// Announce stores an announcement and its audience's deliveries, and pushes it to the push members
// of the audience (the pusher retries; each outcome is recorded on the member's delivery). Pull
// members read it with GET /api/members/me/announcements. A role audience leaves suspended members
// out; members named one by one are all reached.
func (k *Kernel) Announce(ch *Change, a *store.AnnouncementRecord) error {
	if err := ch.Tx.PutAnnouncement(a); err != nil {
		return err
	}
	in := protocol.AnnouncementInput{AnnouncementID: a.ID, From: a.From, Severity: a.Severity, Title: a.Title, Body: a.Body, ReplyTo: a.ReplyTo}
	deliver := func(m *axp.Member) error {
		dl := &axp.AnnouncementDelivery{MemberID: m.ID, Via: "pull", Status: "waiting"}
		if !m.PullMode() {
			dl.Via, dl.Status = "push", "pending"
			id, member := a.ID, m.ID
			ch.Notify(Notice{MemberID: m.ID, Msg: Push{Name: "announcement", In: in}, Done: func(err error) { k.Delivered(id, member, err) }})
		}
		return ch.Tx.PutDelivery(a.ID, dl)
	}
	if len(a.MemberIDs) > 0 {
		for _, id := range a.MemberIDs {
			m, err := LoadMember(ch.Tx, id)
			if err != nil {
				return err
			}
			if err := deliver(m); err != nil {
				return err
			}
		}
		return nil
	}
	var err error
	ch.Tx.EachMember(func(m *axp.Member) bool {
		if m.State != axp.MemberSuspended && Addressed(a, m) {
			err = deliver(m)
		}
		return err == nil
	})
	return err
}

// Delivered records the outcome of an announcement's push to a member.
func (k *Kernel) Delivered(annID, memberID string, perr error) {
	k.Mutate(context.Background(), "system", func(ch *Change) (any, error) {
		dl, err := ch.Tx.Delivery(annID, memberID)
		if err != nil || dl == nil {
			return nil, err
		}
		now := ch.Now
		dl.Status, dl.Error, dl.At = "delivered", "", &now
		if perr != nil {
			dl.Status, dl.Error = "failed", perr.Error()
		}
		return nil, ch.Tx.PutDelivery(annID, dl)
	})
}

// Addressed reports whether an announcement reaches a member.
func Addressed(a *store.AnnouncementRecord, m *axp.Member) bool {
	if len(a.MemberIDs) > 0 {
		for _, id := range a.MemberIDs {
			if id == m.ID {
				return true
			}
		}
		return false
	}
	switch a.Audience {
	case "buyers":
		return m.HasRole(protocol.RoleBuyer)
	case "sellers":
		return m.HasRole(protocol.RoleSeller)
	}
	return true
}
