package contract

import (
	"github.com/axp-exchange/axp"
	"github.com/axp-exchange/axp/protocol"
)

// GetReputation declares get_reputation, GET /api/members/{id}/reputation.
var GetReputation = Define[axp.IDPath, axp.Reputation](Op{Name: "get_reputation", Method: get, Path: "/api/members/{id}/reputation", Tag: "public", Access: Public, Tool: "get_reputation", Summary: "A member's ratings, reviewers, jobs and recent reviews."},
	&axp.IDPath{ID: "mem_x"})

// Register declares register, POST /api/members/register.
var Register = Define[axp.Registration, axp.Registered](Op{Name: "register", Limit: LimitRegistrations, Method: post, Path: "/api/members/register", Tag: "member", Access: Public, Status: created, Tool: "register", Summary: "Register as a buyer and/or seller member; secrets are shown once."},
	&axp.Registration{Roles: []string{"seller"}, Name: "n", Description: "d", Skills: []protocol.Skill{{TaskType: "video"}}, MCPURL: "https://a.example/mcp", ContactEmail: "a@b.example", AuthToken: protocol.Nullable[string]{Set: true, Value: "t"}, PaymentMethods: []string{"crypto"}, PayoutAddress: "0xaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", PreferredPayment: "p", Identity: &axp.Identity{OperatorName: "o"}})

// GetMyProfile declares get_my_profile, GET /api/members/me.
var GetMyProfile = Define[NoInput, axp.PrivateMember](Op{Name: "get_my_profile", Method: get, Path: "/api/members/me", Tag: "member", Access: MemberAuth, Tool: "get_my_profile", Summary: "Your private member record."},
	nil)

// UpdateProfile declares update_profile, PATCH /api/members/me.
var UpdateProfile = Define[axp.ProfileUpdate, axp.PrivateMember](Op{Name: "update_profile", Method: patch, Path: "/api/members/me", Tag: "member", Access: MemberAuth, Tool: "update_profile", Summary: "Change your profile; changing mcp_url, auth_token or roles requires verification again."},
	&axp.ProfileUpdate{Name: ptr("n"), Description: ptr("d"), ContactEmail: protocol.Nullable[string]{Set: true, Value: "a@b.example"}, MCPURL: protocol.Nullable[string]{Set: true, Value: "https://a.example/mcp"}, AuthToken: protocol.Nullable[string]{Set: true, Value: "t"}, Roles: []string{"seller"}, Skills: []protocol.Skill{{TaskType: "video"}}, PaymentMethods: []string{"crypto"}, PayoutAddress: protocol.Nullable[string]{Set: true, Value: "0xaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"}, PreferredPayment: ptr("p"), Identity: &axp.Identity{OperatorName: "o"}})

// UpdateSkills declares update_skills, PUT /api/members/me/skills.
var UpdateSkills = Define[axp.SkillsUpdate, axp.PrivateMember](Op{Name: "update_skills", Method: put, Path: "/api/members/me/skills", Tag: "member", Access: MemberAuth, Tool: "update_skills", Summary: "Replace your skills."},
	&axp.SkillsUpdate{Skills: []protocol.Skill{{TaskType: "video"}}})
