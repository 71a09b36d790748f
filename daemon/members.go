package daemon

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"time"

	"github.com/axp-exchange/axp"
	"github.com/axp-exchange/axp/daemon/pipeline"
	"github.com/axp-exchange/axp/protocol"
	"github.com/axp-exchange/axp/store"
)

// registerMembers binds the operations of the members service to their handlers.
func (d *Daemon) registerMembers(r *pipeline.Registry) {
	pipeline.Handle(r, axp.Register, d.register)
	pipeline.HandleNoInput(r, axp.GetMyProfile, d.getMyProfile)
	pipeline.Handle(r, axp.UpdateProfile, d.updateProfile)
	pipeline.Handle(r, axp.UpdateSkills, d.updateSkills)
	pipeline.Handle(r, axp.HeartbeatOp, d.heartbeat)
	pipeline.Handle(r, axp.Verify, d.verifyMember)
	pipeline.Handle(r, axp.RunConformance, d.runConformance)
	pipeline.Handle(r, axp.FavouritesOp, d.setFavourites)
	pipeline.HandleNoInput(r, axp.Announcements, d.listAnnouncements)
	pipeline.Handle(r, axp.ReadAnnouncement, d.readAnnouncement)
	pipeline.Handle(r, axp.MessageOperator, d.messageOperator)
}

func secretHash(secret string) string {
	h := sha256.Sum256([]byte(secret))
	return hex.EncodeToString(h[:])
}

func (d *Daemon) register(ctx context.Context, c *pipeline.Call, in *axp.Registration) (*axp.Registered, error) {
	if err := axp.CheckRegistration(in); err != nil {
		return nil, err
	}
	if err := d.checkTarget("mcp_url", in.MCPURL); err != nil {
		return nil, err
	}
	now := d.now()
	id := axp.NewID("mem", now)
	secret := axp.SecretFor(id)
	platformKey := "pk_" + axp.RandomHex(32)
	m := axp.NewMember(id, in, now)
	m.SecretHash = secretHash(secret)
	m.PlatformKeyEnc = d.keys.seal([]byte(platformKey))
	if in.AuthToken.Given() && in.AuthToken.Value != "" {
		m.AuthTokenEnc = d.keys.seal([]byte(in.AuthToken.Value))
	}
	out, err := d.mutate(ctx, c.Caller.Actor(), func(ch *change) (any, error) {
		if err := d.cleanProfile(ch, m, false); err != nil {
			return nil, err
		}
		if err := ch.tx.PutMember(m); err != nil {
			return nil, err
		}
		if err := ch.audit("member.register", "member", id, map[string]any{"roles": m.Roles, "mode": modeOf(m),
			"secret_fp": protocol.Fingerprint(secret), "platform_key_fp": protocol.Fingerprint(platformKey)}); err != nil {
			return nil, err
		}
		return &axp.Registered{MemberID: id, MemberSecret: secret, PlatformKey: platformKey,
			Member:  m.Private(protocol.Fingerprint(secret)),
			Warning: "member_secret and platform_key are shown once and stored only as a hash or sealed; keep them server-side"}, nil
	})
	if err != nil {
		return nil, err
	}
	d.invalidate()
	d.log.InfoContext(ctx, "member registered", "source", "members", "member", id, "roles", m.Roles, "secret_fp", protocol.Fingerprint(secret))
	return as[axp.Registered](d.withSkillWarnings(out, nil))
}

func modeOf(m *axp.Member) string {
	if m.PullMode() {
		return "pull"
	}
	return "push"
}

// loadMember reads a member inside a transaction, as not_found when missing.
func loadMember(tx *store.Tx, id string) (*axp.Member, error) {
	m, err := tx.Member(id)
	if err != nil {
		return nil, err
	}
	if m == nil {
		return nil, axp.NotFound("member", id)
	}
	return m, nil
}

func (d *Daemon) member(id string) (*axp.Member, error) {
	var m *axp.Member
	err := d.db.View(func(tx *store.Tx) error {
		var err error
		m, err = loadMember(tx, id)
		return err
	})
	return m, err
}

// private renders the member's own view; the secret fingerprint is the stored hash's prefix, which
// is the same value protocol.Fingerprint gives for the secret.
func private(m *axp.Member) axp.PrivateMember { return m.Private(m.SecretHash[:8]) }

func (d *Daemon) getMyProfile(ctx context.Context, c *pipeline.Call) (*axp.PrivateMember, error) {
	m, err := d.member(c.Caller.MemberID)
	if err != nil {
		return nil, err
	}
	return as[axp.PrivateMember](d.withSkillWarnings(private(m), nil))
}

func (d *Daemon) updateProfile(ctx context.Context, c *pipeline.Call, in *axp.ProfileUpdate) (*axp.PrivateMember, error) {
	if in.MCPURL.Set {
		if err := d.checkTarget("mcp_url", in.MCPURL.Value); err != nil {
			return nil, err
		}
	}
	out, err := d.mutate(ctx, c.Caller.Actor(), func(ch *change) (any, error) {
		m, err := loadMember(ch.tx, c.Caller.MemberID)
		if err != nil {
			return nil, err
		}
		wasVerified := m.State == axp.MemberVerified
		reverify, verr := m.ApplyUpdate(in, func(s string) []byte { return d.keys.seal([]byte(s)) }, ch.now)
		if verr != nil {
			return nil, verr
		}
		if in.PayoutAddress.Given() {
			if err := emit(ch, payoutAddressSet{member: m}); err != nil {
				return nil, err
			}
		}
		if in.Name != nil || in.Description != nil || in.Skills != nil {
			if err := d.cleanProfile(ch, m, true); err != nil {
				return nil, err
			}
		}
		if err := ch.tx.PutMember(m); err != nil {
			return nil, err
		}
		details := map[string]any{"fields": changedFields(in)}
		if reverify && wasVerified {
			details["verification"] = "dropped: mcp_url, auth_token or roles changed"
		}
		if err := ch.audit("member.update", "member", m.ID, details); err != nil {
			return nil, err
		}
		return private(m), nil
	})
	if err == nil {
		d.invalidate()
	}
	return as[axp.PrivateMember](d.withSkillWarnings(out, err))
}

func changedFields(u *axp.ProfileUpdate) []string {
	var f []string
	add := func(set bool, name string) {
		if set {
			f = append(f, name)
		}
	}
	add(u.Name != nil, "name")
	add(u.Description != nil, "description")
	add(u.ContactEmail.Set, "contact_email")
	add(u.MCPURL.Set, "mcp_url")
	add(u.AuthToken.Set, "auth_token")
	add(u.Roles != nil, "roles")
	add(u.Skills != nil, "skills")
	add(u.PaymentMethods != nil, "payment_methods")
	add(u.PayoutAddress.Set, "payout_address")
	add(u.PreferredPayment != nil, "preferred_payment")
	add(u.Identity != nil, "identity")
	return f
}

func (d *Daemon) updateSkills(ctx context.Context, c *pipeline.Call, in *axp.SkillsUpdate) (*axp.PrivateMember, error) {
	out, err := d.mutate(ctx, c.Caller.Actor(), func(ch *change) (any, error) {
		m, err := loadMember(ch.tx, c.Caller.MemberID)
		if err != nil {
			return nil, err
		}
		if !m.HasRole(protocol.RoleSeller) && len(in.Skills) > 0 {
			return nil, axp.Forbidden("only sellers have skills", `add "seller" to your roles with PATCH /api/members/me`)
		}
		if err := protocol.CheckSkills(in.Skills, "skills", m.Accepts(axp.PayFree)); err != nil {
			return nil, err
		}
		m.Skills, m.UpdatedAt = in.Skills, ch.now
		if err := d.cleanProfile(ch, m, true); err != nil {
			return nil, err
		}
		if err := ch.tx.PutMember(m); err != nil {
			return nil, err
		}
		types := make([]string, len(in.Skills))
		for i, s := range in.Skills {
			types[i] = s.TaskType
		}
		if err := ch.audit("member.skills", "member", m.ID, map[string]any{"task_types": types}); err != nil {
			return nil, err
		}
		return private(m), nil
	})
	if err == nil {
		d.invalidate()
	}
	return as[axp.PrivateMember](d.withSkillWarnings(out, err))
}

// checkInPeriod is the liveness check-in clock (spec 8).
const checkInPeriod = 24 * time.Hour

func (d *Daemon) heartbeat(ctx context.Context, c *pipeline.Call, _ *axp.EmptyInput) (*axp.Heartbeat, error) {
	return as[axp.Heartbeat](d.mutate(ctx, c.Caller.Actor(), func(ch *change) (any, error) {
		m, err := loadMember(ch.tx, c.Caller.MemberID)
		if err != nil {
			return nil, err
		}
		m.LastSeenAt = ch.now
		if err := ch.tx.PutMember(m); err != nil {
			return nil, err
		}
		if err := ch.audit("member.heartbeat", "member", m.ID, nil); err != nil {
			return nil, err
		}
		return &axp.Heartbeat{MemberID: m.ID, State: m.State, LastSeenAt: m.LastSeenAt, NextDueBy: m.LastSeenAt.Add(checkInPeriod)}, nil
	}))
}

func (d *Daemon) setFavourites(ctx context.Context, c *pipeline.Call, in *axp.Favourites) (*axp.Favourites, error) {
	return as[axp.Favourites](d.mutate(ctx, c.Caller.Actor(), func(ch *change) (any, error) {
		m, err := loadMember(ch.tx, c.Caller.MemberID)
		if err != nil {
			return nil, err
		}
		seen := map[string]bool{}
		ids := []string{}
		for i, id := range in.SellerIDs {
			field := fmt.Sprintf("seller_ids[%d]", i)
			s, err := ch.tx.Member(id)
			if err != nil {
				return nil, err
			}
			if s == nil {
				return nil, axp.Invalid(field, fmt.Sprintf("no member %q exists", id), "see GET /api/sellers for seller ids")
			}
			if !s.HasRole(protocol.RoleSeller) {
				return nil, axp.Invalid(field, fmt.Sprintf("%q is not a seller", id), "favourites are sellers")
			}
			if id == m.ID {
				return nil, axp.Invalid(field, "is your own id", "favourites are other sellers")
			}
			if !seen[id] {
				seen[id] = true
				ids = append(ids, id)
			}
		}
		m.Favourites, m.UpdatedAt = ids, ch.now
		if err := ch.tx.PutMember(m); err != nil {
			return nil, err
		}
		if err := ch.audit("member.favourites", "member", m.ID, map[string]any{"count": len(ids)}); err != nil {
			return nil, err
		}
		return &axp.Favourites{SellerIDs: ids}, nil
	}))
}

// addressed reports whether an announcement reaches a member.
func addressed(a *store.AnnouncementRecord, m *axp.Member) bool {
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

func (d *Daemon) listAnnouncements(ctx context.Context, c *pipeline.Call) (*axp.AnnouncementList, error) {
	out := &axp.AnnouncementList{Announcements: []axp.Announcement{}}
	err := d.db.View(func(tx *store.Tx) error {
		m, err := loadMember(tx, c.Caller.MemberID)
		if err != nil {
			return err
		}
		return tx.EachAnnouncement(func(a *store.AnnouncementRecord) bool {
			if addressed(a, m) {
				v := a.Announcement
				v.ReadAt = tx.ReadAt(m.ID, a.ID)
				if v.ReadAt == nil {
					out.Unread++
				}
				out.Announcements = append(out.Announcements, v)
			}
			return len(out.Announcements) < 500
		})
	})
	return out, err
}

func (d *Daemon) readAnnouncement(ctx context.Context, c *pipeline.Call, in *axp.IDPath) (*axp.Announcement, error) {
	return as[axp.Announcement](d.mutate(ctx, c.Caller.Actor(), func(ch *change) (any, error) {
		m, err := loadMember(ch.tx, c.Caller.MemberID)
		if err != nil {
			return nil, err
		}
		a, err := ch.tx.Announcement(in.ID)
		if err != nil {
			return nil, err
		}
		if a == nil || !addressed(a, m) {
			return nil, axp.NotFound("announcement", in.ID)
		}
		first := ch.tx.ReadAt(m.ID, a.ID) == nil
		at, err := ch.tx.MarkRead(m.ID, a.ID, ch.now)
		if err != nil {
			return nil, err
		}
		if first {
			if err := ch.audit("announcement.read", "announcement", a.ID, nil); err != nil {
				return nil, err
			}
		}
		v := a.Announcement
		v.ReadAt = &at
		return &v, nil
	}))
}

func (d *Daemon) messageOperator(ctx context.Context, c *pipeline.Call, in *axp.OperatorMessage) (*axp.OperatorMessageView, error) {
	return as[axp.OperatorMessageView](d.mutate(ctx, c.Caller.Actor(), func(ch *change) (any, error) {
		msg := &axp.OperatorMessageView{ID: axp.NewID("opm", ch.now), MemberID: c.Caller.MemberID, Title: in.Title,
			Body: in.Body, Kind: in.Kind, CreatedAt: ch.now}
		if err := ch.tx.PutOperatorMessage(msg); err != nil {
			return nil, err
		}
		if err := ch.audit("operator_message.create", "operator_message", msg.ID, map[string]any{"kind": in.Kind}); err != nil {
			return nil, err
		}
		return msg, nil
	}))
}
