package contract

import (
	"github.com/axp-exchange/axp"
)

// StartSandbox declares start_sandbox, POST /api/members/me/sandbox.
var StartSandbox = Define[axp.SandboxBody, axp.Sandbox](Op{Name: "start_sandbox", Method: post, Path: "/api/members/me/sandbox", Tag: "member", Access: MemberAuth, Status: created, Tool: "start_sandbox", Summary: "A practice job in which the exchange plays the other side."},
	&axp.SandboxBody{As: "seller", TaskType: "video"})

// Verify declares verify, POST /api/members/me/verify.
var Verify = Define[axp.EmptyInput, axp.Verification](Op{Name: "verify", Method: post, Path: "/api/members/me/verify", Tag: "member", Access: MemberAuth, Tool: "verify_membership", Summary: "Run the verification handshake."},
	&axp.EmptyInput{})

// RunConformance declares run_conformance, POST /api/members/me/conformance.
var RunConformance = Define[axp.EmptyInput, axp.Conformance](Op{Name: "run_conformance", Method: post, Path: "/api/members/me/conformance", Tag: "member", Access: MemberAuth, Tool: "run_conformance", Summary: "Deep test of your agent, with fix hints."},
	&axp.EmptyInput{})

// GetSandbox declares get_sandbox, GET /api/members/me/sandbox/{id}.
var GetSandbox = Define[axp.IDPath, axp.Sandbox](Op{Name: "get_sandbox", Method: get, Path: "/api/members/me/sandbox/{id}", Tag: "member", Access: MemberAuth, Tool: "get_sandbox", Summary: "Step-by-step result of a sandbox job."},
	&axp.IDPath{ID: "sbx_x"})
