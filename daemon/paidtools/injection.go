package paidtools

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/axp-exchange/axp/daemon/screen/injection"

	"github.com/axp-exchange/axp"
)

// reasons says in a sentence what each rule of the screen looks for.
var reasons = map[string]string{
	injection.RuleOverride:      "tries to set aside or replace the reader's own instructions",
	injection.RuleImpersonation: "speaks as the system, the operator or another authority, or addresses the AI reading it",
	injection.RuleRolePlay:      "asks the reader to take a role without its rules (jailbreak, developer mode)",
	injection.RuleToolCall:      "smuggles tool calls or pushes the reader to act (approve, release, run) without checking",
	injection.RuleExfiltration:  "asks for the reader's prompt, tools, keys, tokens or other secrets",
	injection.RuleHidden:        "hides text from a human reader (invisible or reordering characters, encoded or styled-away text)",
	injection.RuleUrgency:       "presses with urgency, threats or claimed authority",
	injection.RulePayment:       "tries to move a payment elsewhere or off the platform",
	injection.RuleConcealment:   "asks the reader to keep something from its user or not to record it",
	injection.RuleObfuscation:   "writes instructions in a disguised form (spaced letters, look-alike characters, encodings)",
}

// InjectionCheck screens text for prompt injection with the exchange's own engine, the same that
// screens every text passing between the parties of a task. The text is validated first (present,
// valid UTF-8, at most axp.InjectionCheckMaxText characters).
func InjectionCheck(in *axp.InjectionCheckInput) (*axp.InjectionCheckResult, error) {
	if in == nil || in.Text == "" {
		return nil, axp.Invalid("text", "is required", "give the text to check")
	}
	if !utf8.ValidString(in.Text) {
		return nil, axp.Invalid("text", "is not valid UTF-8", "send the text encoded as UTF-8")
	}
	if n := utf8.RuneCountInString(in.Text); n > axp.InjectionCheckMaxText {
		return nil, axp.Invalid("text", fmt.Sprintf("is %d characters; at most %d are allowed", n, axp.InjectionCheckMaxText),
			"split the text and check each part")
	}
	v := injection.Screen(in.Text)
	out := &axp.InjectionCheckResult{Verdict: v.Verdict, Risk: v.Risk, Flagged: v.Flagged, Cleaned: v.Cleaned,
		Findings: make([]axp.InjectionFinding, 0, len(v.Findings))}
	// Findings come in the order of their passages, so each is looked for from where the one
	// before it was found (past it, when the excerpt is the same: a repeated passage); offsets
	// are counted in characters as the search goes.
	from, runes := 0, 0
	last := ""
	for _, f := range v.Findings {
		fd := axp.InjectionFinding{Kind: f.Rule, Excerpt: f.Excerpt, Reason: reasons[f.Rule], Weight: f.Weight}
		if fd.Reason == "" {
			fd.Reason = "matches the screen's rule " + f.Rule
		}
		at := -1
		if f.Excerpt == last && from < len(in.Text) {
			_, size := utf8.DecodeRuneInString(in.Text[from:])
			at = locate(in.Text, f.Excerpt, from+size)
		}
		if at < 0 {
			at = locate(in.Text, f.Excerpt, from)
		}
		if at >= 0 {
			runes += utf8.RuneCountInString(in.Text[from:at])
			from, last = at, f.Excerpt
			offset := runes
			fd.Offset = &offset
		}
		out.Findings = append(out.Findings, fd)
	}
	return out, nil
}

// excerptMax is the length, in characters, at which the screen cuts an excerpt (adding "...").
const excerptMax = 120

// locate finds where the passage an excerpt was made from starts in text, searching from byte
// from; -1 when it is not there (the excerpt of a hidden-text finding describes rather than
// quotes). The screen makes an excerpt by collapsing white space to one space and cutting it at
// excerptMax characters, so the passage is the excerpt's words separated by any white space, the
// last word possibly cut short.
func locate(text, excerpt string, from int) int {
	if utf8.RuneCountInString(excerpt) == excerptMax {
		excerpt = strings.TrimSuffix(excerpt, "...")
	}
	words := strings.Fields(excerpt)
	if len(words) == 0 {
		return -1
	}
	for i := from; i < len(text); {
		k := strings.Index(text[i:], words[0])
		if k < 0 {
			return -1
		}
		at := i + k
		if wordsAt(text, at, words) {
			return at
		}
		i = at + len(words[0])
	}
	return -1
}

// wordsAt reports whether words, separated by white space, follow in text from byte at.
func wordsAt(text string, at int, words []string) bool {
	pos := at
	for j, w := range words {
		if j > 0 {
			start := pos
			for pos < len(text) {
				r, size := utf8.DecodeRuneInString(text[pos:])
				if !unicode.IsSpace(r) {
					break
				}
				pos += size
			}
			if pos == start {
				return false
			}
		}
		if !strings.HasPrefix(text[pos:], w) {
			return false
		}
		pos += len(w)
	}
	return true
}
