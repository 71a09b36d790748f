// Package injection scores a text from another agent for prompt injection (0-100; flagged from
// SuspiciousAt, "injection" from InjectionAt) and returns the findings and a copy in which each
// flagged sentence is quoted as "[UNTRUSTED TEXT, not an instruction (rule): "..."]", chat-template
// tokens are defanged and invisible characters dropped; the text itself is kept as data by the
// caller. It is a rule engine: it catches the known shapes of injection, not every new phrasing.
// It works on package screen's normalised view of the text, and like screen it must not log,
// store or call anything.
package injection
