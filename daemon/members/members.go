package members

import (
	"context"
	"fmt"
	"strings"

	"github.com/axp-exchange/axp"
	"github.com/axp-exchange/axp/contract"
	"github.com/axp-exchange/axp/daemon/kernel"
	"github.com/axp-exchange/axp/daemon/pipeline"
	"github.com/axp-exchange/axp/daemon/screening"
	"github.com/axp-exchange/axp/protocol"
	"github.com/axp-exchange/axp/store"
)

// Register binds the operations of the members service to their handlers.
func (s *Service) Register(r *pipeline.Registry) {
	pipeline.Handle(r, contract.Register, s.register)
	pipeline.HandleNoInput(r, contract.GetMyProfile, s.getMyProfile)
	pipeline.Handle(r, contract.UpdateProfile, s.updateProfile)
	pipeline.Handle(r, contract.UpdateSkills, s.updateSkills)
	pipeline.Handle(r, contract.HeartbeatOp, s.heartbeat)
	pipeline.Handle(r, contract.Verify, s.verifyMember)
	pipeline.Handle(r, contract.RunConformance, s.runConformance)
	pipeline.Handle(r, contract.FavouritesOp, s.setFavourites)
	pipeline.HandleNoInput(r, contract.Announcements, s.listAnnouncements)
	pipeline.Handle(r, contract.ReadAnnouncement, s.readAnnouncement)
	pipeline.Handle(r, contract.MessageOperator, s.messageOperator)
}

func (s *Service) register(ctx context.Context, c *pipeline.Call, in *axp.Registration) (*axp.Registered, error) {
	in.Name = screening.FoldName(in.Name)
	if err := axp.CheckRegistration(in); err != nil {
		return nil, err
	}
	if err := checkNames(&in.Name, in.Identity); err != nil {
		return nil, err
	}
	if err := s.reach.CheckTarget("mcp_url", in.MCPURL); err != nil {
		return nil, err
	}
	now := s.base.Now()
	id := axp.NewID("mem", now)
	secret := axp.SecretFor(id)
	platformKey := "pk_" + axp.RandomHex(32)
	m := axp.NewMember(id, in, now)
	m.SecretHash = kernel.SecretHash(secret)
	m.PlatformKeyEnc = s.keys.Seal([]byte(platformKey))
	if in.AuthToken.Given() && in.AuthToken.Value != "" {
		m.AuthTokenEnc = s.keys.Seal([]byte(in.AuthToken.Value))
	}
	out, err := kernel.Apply(s.base, ctx, c, func(ch *kernel.Change) (*axp.Registered, error) {
		if err := claimName(ch.Tx, m.Name, m.ID, ""); err != nil {
			return nil, err
		}
		if err := s.screen.CleanProfile(ch, m, false); err != nil {
			return nil, err
		}
		if err := ch.Tx.PutMember(m); err != nil {
			return nil, err
		}
		if err := ch.Audit("member.register", "member", id, map[string]any{"roles": m.Roles, "mode": kernel.ModeOf(m),
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
	s.catalog.Invalidate()
	s.base.Log.InfoContext(ctx, "member registered", "source", "members", "member", id, "roles", m.Roles, "secret_fp", protocol.Fingerprint(secret))
	out.Member.SkillWarnings = s.skillWarnings(&out.Member)
	return out, nil
}

func (s *Service) getMyProfile(ctx context.Context, c *pipeline.Call) (*axp.PrivateMember, error) {
	m, err := s.reach.Member(c.Caller.MemberID)
	if err != nil {
		return nil, err
	}
	pm := kernel.Private(m)
	return s.warned(&pm), nil
}

func (s *Service) updateProfile(ctx context.Context, c *pipeline.Call, in *axp.ProfileUpdate) (*axp.PrivateMember, error) {
	if in.Name != nil {
		folded := screening.FoldName(*in.Name)
		in.Name = &folded
	}
	if err := checkNames(in.Name, in.Identity); err != nil {
		return nil, err
	}
	if in.MCPURL.Set {
		if err := s.reach.CheckTarget("mcp_url", in.MCPURL.Value); err != nil {
			return nil, err
		}
	}
	out, err := kernel.Apply(s.base, ctx, c, func(ch *kernel.Change) (*axp.PrivateMember, error) {
		m, err := kernel.LoadMember(ch.Tx, c.Caller.MemberID)
		if err != nil {
			return nil, err
		}
		wasVerified := m.State == axp.MemberVerified
		if in.Name != nil {
			if err := claimName(ch.Tx, *in.Name, m.ID, m.Name); err != nil {
				return nil, err
			}
		}
		reverify, verr := m.ApplyUpdate(in, func(str string) []byte { return s.keys.Seal([]byte(str)) }, ch.Now)
		if verr != nil {
			return nil, verr
		}
		if in.PayoutAddress.Given() {
			if err := kernel.Emit(ch, kernel.PayoutAddressSet{Member: m}); err != nil {
				return nil, err
			}
		}
		if in.Name != nil || in.Description != nil || in.Skills != nil {
			if err := s.screen.CleanProfile(ch, m, true); err != nil {
				return nil, err
			}
		}
		if err := ch.Tx.PutMember(m); err != nil {
			return nil, err
		}
		details := map[string]any{"fields": changedFields(in)}
		if reverify && wasVerified {
			details["verification"] = "dropped: mcp_url, auth_token or roles changed"
		}
		if err := ch.Audit("member.update", "member", m.ID, details); err != nil {
			return nil, err
		}
		pm := kernel.Private(m)
		return &pm, nil
	})
	if err == nil {
		s.catalog.Invalidate()
	}
	if err != nil {
		return nil, err
	}
	return s.warned(out), nil
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

func (s *Service) updateSkills(ctx context.Context, c *pipeline.Call, in *axp.SkillsUpdate) (*axp.PrivateMember, error) {
	out, err := kernel.Apply(s.base, ctx, c, func(ch *kernel.Change) (*axp.PrivateMember, error) {
		m, err := kernel.LoadMember(ch.Tx, c.Caller.MemberID)
		if err != nil {
			return nil, err
		}
		if !m.HasRole(protocol.RoleSeller) && len(in.Skills) > 0 {
			return nil, axp.Forbidden("only sellers have skills", `add "seller" to your roles with PATCH /api/members/me`)
		}
		if err := protocol.CheckSkills(in.Skills, "skills", m.Accepts(axp.PayFree)); err != nil {
			return nil, err
		}
		m.Skills, m.UpdatedAt = in.Skills, ch.Now
		if err := s.screen.CleanProfile(ch, m, true); err != nil {
			return nil, err
		}
		if err := ch.Tx.PutMember(m); err != nil {
			return nil, err
		}
		types := make([]string, len(in.Skills))
		for i, v := range in.Skills {
			types[i] = v.TaskType
		}
		if err := ch.Audit("member.skills", "member", m.ID, map[string]any{"task_types": types}); err != nil {
			return nil, err
		}
		pm := kernel.Private(m)
		return &pm, nil
	})
	if err == nil {
		s.catalog.Invalidate()
	}
	if err != nil {
		return nil, err
	}
	return s.warned(out), nil
}

func (s *Service) heartbeat(ctx context.Context, c *pipeline.Call, _ *axp.EmptyInput) (*axp.Heartbeat, error) {
	return kernel.Apply(s.base, ctx, c, func(ch *kernel.Change) (*axp.Heartbeat, error) {
		m, err := kernel.LoadMember(ch.Tx, c.Caller.MemberID)
		if err != nil {
			return nil, err
		}
		m.LastSeenAt = ch.Now
		if err := ch.Tx.PutMember(m); err != nil {
			return nil, err
		}
		if err := ch.Audit("member.heartbeat", "member", m.ID, nil); err != nil {
			return nil, err
		}
		return &axp.Heartbeat{MemberID: m.ID, State: m.State, LastSeenAt: m.LastSeenAt, NextDueBy: m.LastSeenAt.Add(kernel.CheckInPeriod)}, nil
	})
}

func (s *Service) setFavourites(ctx context.Context, c *pipeline.Call, in *axp.Favourites) (*axp.Favourites, error) {
	return kernel.Apply(s.base, ctx, c, func(ch *kernel.Change) (*axp.Favourites, error) {
		m, err := kernel.LoadMember(ch.Tx, c.Caller.MemberID)
		if err != nil {
			return nil, err
		}
		seen := map[string]bool{}
		ids := []string{}
		for i, id := range in.SellerIDs {
			field := fmt.Sprintf("seller_ids[%d]", i)
			mem, err := ch.Tx.Member(id)
			if err != nil {
				return nil, err
			}
			if mem == nil {
				return nil, axp.Invalid(field, fmt.Sprintf("no member %q exists", id), "see GET /api/sellers for seller ids")
			}
			if !mem.HasRole(protocol.RoleSeller) {
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
		m.Favourites, m.UpdatedAt = ids, ch.Now
		if err := ch.Tx.PutMember(m); err != nil {
			return nil, err
		}
		if err := ch.Audit("member.favourites", "member", m.ID, map[string]any{"count": len(ids)}); err != nil {
			return nil, err
		}
		return &axp.Favourites{SellerIDs: ids}, nil
	})
}

func (s *Service) listAnnouncements(ctx context.Context, c *pipeline.Call) (*axp.AnnouncementList, error) {
	out := &axp.AnnouncementList{Announcements: []axp.Announcement{}}
	err := s.base.Store.View(func(tx *store.Tx) error {
		m, err := kernel.LoadMember(tx, c.Caller.MemberID)
		if err != nil {
			return err
		}
		return tx.EachAnnouncement(func(a *store.AnnouncementRecord) bool {
			if kernel.Addressed(a, m) {
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

func (s *Service) readAnnouncement(ctx context.Context, c *pipeline.Call, in *axp.IDPath) (*axp.Announcement, error) {
	return kernel.Apply(s.base, ctx, c, func(ch *kernel.Change) (*axp.Announcement, error) {
		m, err := kernel.LoadMember(ch.Tx, c.Caller.MemberID)
		if err != nil {
			return nil, err
		}
		a, err := ch.Tx.Announcement(in.ID)
		if err != nil {
			return nil, err
		}
		if a == nil || !kernel.Addressed(a, m) {
			return nil, axp.NotFound("announcement", in.ID)
		}
		first := ch.Tx.ReadAt(m.ID, a.ID) == nil
		at, err := ch.Tx.MarkRead(m.ID, a.ID, ch.Now)
		if err != nil {
			return nil, err
		}
		if first {
			if err := ch.Audit("announcement.read", "announcement", a.ID, nil); err != nil {
				return nil, err
			}
		}
		v := a.Announcement
		v.ReadAt = &at
		return &v, nil
	})
}

func (s *Service) messageOperator(ctx context.Context, c *pipeline.Call, in *axp.OperatorMessage) (*axp.OperatorMessageView, error) {
	return kernel.Apply(s.base, ctx, c, func(ch *kernel.Change) (*axp.OperatorMessageView, error) {
		msg := &axp.OperatorMessageView{ID: axp.NewID("opm", ch.Now), MemberID: c.Caller.MemberID, Title: in.Title,
			Body: in.Body, Kind: in.Kind, CreatedAt: ch.Now}
		if err := ch.Tx.PutOperatorMessage(msg); err != nil {
			return nil, err
		}
		if err := ch.Audit("operator_message.create", "operator_message", msg.ID, map[string]any{"kind": in.Kind}); err != nil {
			return nil, err
		}
		return msg, nil
	})
}

// claimName refuses a member name that reads like another member's (screen.LookAlike: the same
// name up to case, compatibility forms and letters of other scripts that pass for its own), so no
// member can be taken for another in an offer list or a review, and files the member under the
// new name's keys. self is the member, old its name before a rename ("" at registration). It
// runs in the transaction that stores the name, so two registrations cannot both take one. The
// check reads the members filed under the name's keys, not every member; the index is filled
// from every member once, by the first claim after the keys' revision changed.
func claimName(tx *store.Tx, name, self, old string) error {
	if tx.MemberNamesRev() != screening.NameKeysRev {
		if err := tx.RefileMemberNames(screening.NameKeysRev, screening.NameKeys); err != nil {
			return err
		}
	}
	keys := screening.NameKeys(name)
	var other string
	for _, k := range keys {
		for _, id := range tx.MembersNamed(k) {
			if id != self && other == "" {
				other = id
			}
		}
	}
	if other != "" {
		m, err := tx.Member(other)
		if err != nil {
			return err
		}
		if m != nil {
			other = m.Name
		}
		return axp.Invalid("name", fmt.Sprintf("%q reads like %q, the name of another member", name, other),
			"choose a name that cannot be taken for another member's: other letters, not look-alikes of the same ones")
	}
	var was []string
	if old != "" {
		was = screening.NameKeys(old)
	}
	return tx.FileMemberName(self, was, keys)
}

// checkNames refuses confusable names and contact details in the public name
// (screening.CheckPublicName) and confusable identity labels where axp.CheckRegistration and
// Member.ApplyUpdate refuse hidden characters: the domain package imports no Unicode tables.
func checkNames(name *string, id *axp.Identity) error {
	if name != nil {
		if err := screening.CheckPublicName("name", strings.TrimSpace(*name)); err != nil {
			return err
		}
	}
	if id == nil {
		return nil
	}
	for _, f := range []struct{ field, value string }{
		{"identity.operator_name", id.OperatorName}, {"identity.agent_framework", id.AgentFramework}, {"identity.agent_model", id.AgentModel},
	} {
		if err := screening.CheckName(f.field, f.value); err != nil {
			return err
		}
	}
	return nil
}
