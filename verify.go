package axp

import (
	"time"

	"github.com/axp-exchange/axp/protocol"
)

// Step is one step of a verification, conformance test or sandbox job, with a fix hint when it
// failed.
type Step struct {
	Name      string `json:"name"`
	OK        bool   `json:"ok"`
	Detail    string `json:"detail,omitempty"`
	Hint      string `json:"hint,omitempty"`
	LatencyMS int64  `json:"latency_ms,omitempty"`
	// Level says whether a failure fails the run. The exchange sets it on every step it answers;
	// a step without one counts as required, so a check nobody classed cannot pass a run by omission.
	Level string `json:"level" schema:"enum=required|warning" doc:"required: a failure fails the run; warning: reported with its hint, the run still passes"`
}

// Step levels.
const (
	LevelRequired = "required"
	LevelWarning  = "warning"
)

// Required says whether the step's failure fails the run: every step but a warning.
func (s Step) Required() bool { return s.Level != LevelWarning }

// Leveled sets the level of every step that has none to required.
func Leveled(steps []Step) []Step {
	for i := range steps {
		if steps[i].Level == "" {
			steps[i].Level = LevelRequired
		}
	}
	return steps
}

// Verification is the result of POST /api/members/me/verify.
type Verification struct {
	MemberID  string    `json:"member_id"`
	Mode      string    `json:"mode" doc:"push (the exchange called your MCP server) or pull"`
	Passed    bool      `json:"passed"`
	State     string    `json:"state" doc:"your member state after the handshake"`
	Steps     []Step    `json:"steps"`
	CheckedAt time.Time `json:"checked_at"`
	// Practice is the practice quote request a pull member answers to verify.
	Practice  *PracticeRequest `json:"practice,omitempty"`
	NextSteps []string         `json:"next_steps,omitempty"`
}

// PracticeRequest is the quote request a pull-mode member answers to verify.
type PracticeRequest struct {
	TaskID    string    `json:"task_id" doc:"answer with POST /api/tasks/{task_id}/offers (a price, clarify or decline), then POST /api/members/me/verify again"`
	TaskType  string    `json:"task_type"`
	ExpiresAt time.Time `json:"expires_at"`
}

// Conformance is the report of POST /api/members/me/conformance.
type Conformance struct {
	MemberID  string    `json:"member_id"`
	Passed    bool      `json:"passed" doc:"true when every required check passed; warnings do not fail the run"`
	Checks    []Step    `json:"checks"`
	Failed    int       `json:"failed" doc:"required checks that did not pass"`
	Warnings  int       `json:"warnings" doc:"warning-level checks that did not pass"`
	Summary   string    `json:"summary"`
	CheckedAt time.Time `json:"checked_at"`
}

// Sandbox is a practice job in which the exchange plays the other side (nothing is booked).
type Sandbox struct {
	SandboxID string     `json:"sandbox_id"`
	MemberID  string     `json:"member_id"`
	As        string     `json:"as"`
	TaskType  string     `json:"task_type"`
	TaskID    string     `json:"task_id,omitempty"`
	Status    string     `json:"status" doc:"running, passed or failed"`
	Steps     []Step     `json:"steps"`
	CreatedAt time.Time  `json:"created_at"`
	EndedAt   *time.Time `json:"ended_at,omitempty"`
}

// Sandbox stages.
const (
	SandboxQuote   = "quote" // waiting for the seller's quote
	SandboxWork    = "work"  // waiting for the seller's delivery
	SandboxDone    = "done"
	SandboxRunning = "running"
	SandboxPassed  = "passed"
	SandboxFailed  = "failed"
)

// SandboxRecord is a stored sandbox job.
type SandboxRecord struct {
	V int `json:"v"`
	Sandbox
	Pull      bool                  `json:"pull"`
	Stage     string                `json:"stage"`
	Quote     *protocol.QuoteAnswer `json:"quote,omitempty"`
	Delivered *Delivery             `json:"delivered,omitempty"`
	Content   []byte                `json:"content,omitempty"`
	Deadline  time.Time             `json:"deadline"`
}

// The verification and sandbox operations.
