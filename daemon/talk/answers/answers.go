// Package answers reads what a person types to the built-in assistant: agreement, a budget, a
// deadline, a language, a pick among offers, a job type or the text of a short brief, each from a
// plain answer ("about 12 dollars", "within 2 hours", "the cheapest", "translate hello world into
// French"). It keeps no state.
package answers

import (
	"regexp"
	"strconv"
	"strings"

	"github.com/axp-exchange/axp"
	"github.com/axp-exchange/axp/protocol"
)

// Words lower-cases s and splits it into words, keeping digits, '$', '.', ':', '#' and '-'.
func Words(s string) []string {
	return strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '$' || r == '.' || r == ':' || r == '#' || r == '-' || r == '\'' || r > 127)
	})
}

// Plain is s lower-cased with its punctuation turned into single spaces, padded with a space on
// each side, so phrases match on word boundaries (HasPhrase).
func Plain(s string) string {
	return " " + strings.Join(strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '\'' || r > 127)
	}), " ") + " "
}

// HasPhrase reports whether p, a Plain answer, holds one of phrases as whole words.
func HasPhrase(p string, phrases ...string) bool {
	for _, x := range phrases {
		if strings.Contains(p, " "+x+" ") {
			return true
		}
	}
	return false
}

var yesPhrases = []string{"yes", "y", "yeah", "yep", "yup", "sure", "ok", "okay", "go ahead", "go for it", "do it", "please do",
	"list it", "post it", "sounds good", "correct", "confirm", "confirmed", "agreed", "fine", "great", "perfect", "assign it",
	"that one", "take it", "let's go", "lets go", "deal", "absolutely", "of course", "why not", "good"}

var noPhrases = []string{"no", "n", "nope", "nah", "not yet", "wait", "hold on", "don't", "do not", "not now", "stop"}

// IsYes reports whether a short answer agrees.
func IsYes(s string) bool {
	p := Plain(s)
	return len(Words(s)) <= 6 && HasPhrase(p, yesPhrases...) && !IsNo(s)
}

// IsNo reports whether a short answer declines.
func IsNo(s string) bool {
	return len(Words(s)) <= 6 && HasPhrase(Plain(s), noPhrases...)
}

// IsStatus reports whether the message asks where things stand.
func IsStatus(s string) bool {
	if len(Words(s)) > 8 {
		return false
	}
	return HasPhrase(Plain(s), "status", "where are we", "what's happening", "whats happening", "what is happening", "progress",
		"any news", "any offers", "what now", "what next", "where do we stand", "what's the status", "how is it going")
}

// IsReset reports whether the buyer wants to start the job over.
func IsReset(s string) bool {
	return len(Words(s)) <= 6 && HasPhrase(Plain(s), "start over", "restart", "reset", "new job", "never mind", "nevermind", "start again")
}

// IsCancel reports whether the buyer wants to withdraw the listed job.
func IsCancel(s string) bool {
	return len(Words(s)) <= 8 && HasPhrase(Plain(s), "cancel", "withdraw", "call it off", "cancel it", "cancel the job", "cancel the task")
}

var (
	reDollars = regexp.MustCompile(`(?i)(?:us)?\$\s*(\d{1,6}(?:[.,]\d{1,2})?)|(\d{1,6}(?:\.\d{1,2})?)\s*(?:usd|dollars?|bucks|us\$)\b`)
	reNumber  = regexp.MustCompile(`^\s*(?:up to |at most |max(?:imum)? |about |around |under )?(\d{1,6}(?:\.\d{1,2})?)\s*$`)
)

// Budget reads an amount the buyer is ready to pay. ok=false: no amount in s. free: a free job
// ("free", "$0"). none: no budget ("no limit", "any"). bare says a plain number counts as dollars
// (the question asked for a budget).
func Budget(s string, bare bool) (m axp.Money, free, none, ok bool) {
	p := Plain(s)
	if HasPhrase(p, "free", "for free", "nothing", "zero", "no money", "unpaid") && !HasPhrase(p, "free redo") {
		return 0, true, false, true
	}
	if g := reDollars.FindStringSubmatch(s); g != nil {
		v := g[1]
		if v == "" {
			v = g[2]
		}
		m, err := protocol.ParseMoney(strings.ReplaceAll(v, ",", "."))
		if err == nil {
			return m, m == 0, false, true
		}
	}
	if bare {
		if g := reNumber.FindStringSubmatch(strings.ToLower(s)); g != nil {
			if m, err := protocol.ParseMoney(g[1]); err == nil {
				return m, m == 0, false, true
			}
		}
		if HasPhrase(p, "no limit", "no budget", "any", "anything", "whatever", "don't care", "dont care", "doesn't matter",
			"no preference", "skip", "none", "not sure", "unlimited", "you decide", "market price", "whatever it costs") {
			return 0, false, true, true
		}
	}
	return 0, false, false, false
}

var reDuration = regexp.MustCompile(`(?i)\b(\d{1,5}(?:\.\d+)?|an?|one|two|three|four|five|six|ten|twelve|half an?)\s*-?\s*(seconds?|secs?|s|minutes?|mins?|m|hours?|hrs?|h|days?|d|weeks?|wks?|w)\b`)

var numberWords = map[string]float64{"a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "ten": 10, "twelve": 12,
	"half a": 0.5, "half an": 0.5}

// durations finds the amounts of time in s, in seconds, with the position each ends at.
func durations(s string) (secs []float64, ends []int) {
	for _, g := range reDuration.FindAllStringSubmatchIndex(s, -1) {
		n := strings.ToLower(s[g[2]:g[3]])
		v, err := strconv.ParseFloat(n, 64)
		if err != nil {
			v = numberWords[n]
		}
		unit := strings.ToLower(s[g[4]:g[5]])
		switch unit[0] {
		case 's':
			// "s" alone is also a plural ending ("5 images"): only with the number joined ("10s").
		case 'm':
			v *= 60
		case 'h':
			v *= 3600
		case 'd':
			v *= 86400
		case 'w':
			v *= 7 * 86400
		}
		secs = append(secs, v)
		ends = append(ends, g[1])
	}
	return secs, ends
}

// Deadline reads by when the job is wanted, in minutes. bare says the question asked for a
// Deadline, so any amount of time (or "no rush") answers it; otherwise only a phrase that says so
// ("within 2 hours", "by tomorrow", "deadline 3 days") counts.
func Deadline(s string, bare bool) (minutes int, none, ok bool) {
	p := Plain(s)
	if bare && HasPhrase(p, "no rush", "no deadline", "whenever", "any time", "anytime", "no hurry", "skip", "none", "doesn't matter",
		"dont care", "don't care", "not urgent", "no preference", "take your time") {
		return 0, true, true
	}
	if HasPhrase(p, "asap", "as soon as possible", "urgent", "urgently", "right away", "now") && (bare || HasPhrase(p, "asap", "as soon as possible", "urgently")) {
		return 60, false, true
	}
	if HasPhrase(p, "by tomorrow", "tomorrow", "within a day", "in a day") && (bare || HasPhrase(p, "by tomorrow", "within a day")) {
		return 24 * 60, false, true
	}
	if HasPhrase(p, "next week", "within a week", "by next week") && (bare || HasPhrase(p, "within a week", "by next week")) {
		return 7 * 24 * 60, false, true
	}
	secs, ends := durations(s)
	for i, v := range secs {
		if v < 60 {
			continue
		}
		if bare || DeadlineWord(s, ends[i]) {
			m := int(v / 60)
			return m, false, m >= 1
		}
	}
	if bare {
		if g := regexp.MustCompile(`^\s*(\d{1,5})\s*$`).FindStringSubmatch(s); g != nil {
			n, _ := strconv.Atoi(g[1])
			return n, false, n >= 1 // a bare number for a deadline: minutes, as deadline_minutes
		}
	}
	return 0, false, false
}

// reDeadlineWord says that the amount of time after it is a deadline.
var reDeadlineWord = regexp.MustCompile(`(?i)\b(?:within|in|by|under|deadline|less than|next|before|due)\b[^.,;!?]{0,12}$`)

// DeadlineWord reports whether the amount of time that ends at end is introduced as a deadline
// ("within 2 hours", "in 3 days", "deadline: 1 hour").
func DeadlineWord(s string, end int) bool {
	g := reDuration.FindStringIndex(s[max(0, end-30):end])
	if g == nil {
		return false
	}
	return reDeadlineWord.MatchString(s[:max(0, end-30)+g[0]])
}

// languages are the languages the assistant recognises by name.
var languages = axp.Languages

// Language finds a language named in s: after "into", "to" or "in" (target), or alone when bare.
func Language(s string, bare bool) string {
	p := Plain(s)
	for _, l := range languages {
		if HasPhrase(p, "into "+l, "to "+l, "in "+l) || bare && HasPhrase(p, l) {
			return l
		}
	}
	if bare {
		w := Words(s)
		if len(w) == 1 && len(w[0]) >= 2 && len(w[0]) <= 40 {
			return w[0] // an ISO code ("fr") or a language the list lacks
		}
	}
	return ""
}

// Pick reads which presented offer the buyer means: an index into offers (ranked as presented),
// or -1. rec is the index of the recommended offer.
func Pick(s string, offers []axp.Offer, rec int) int {
	if len(offers) == 0 {
		return -1
	}
	p := Plain(s)
	switch {
	case HasPhrase(p, "cheapest", "cheaper one", "lowest price", "least expensive", "lowest", "cheapest one"):
		best := 0
		for i, o := range offers {
			if o.PriceUSD < offers[best].PriceUSD {
				best = i
			}
		}
		return best
	case HasPhrase(p, "fastest", "quickest", "soonest", "fastest one", "quickest one"):
		best := 0
		for i, o := range offers {
			if o.ETAMinutes < offers[best].ETAMinutes {
				best = i
			}
		}
		return best
	case HasPhrase(p, "recommended", "your recommendation", "your pick", "your choice", "the best", "best one", "you recommend", "your suggestion", "suggested"):
		return rec
	case HasPhrase(p, "last", "last one"):
		return len(offers) - 1
	}
	ordinals := [][]string{{"first", "1st", "#1", "number 1", "option 1", "offer 1", "number one", "option one"},
		{"second", "2nd", "number 2", "option 2", "offer 2", "number two"}, {"third", "3rd", "number 3", "option 3", "offer 3", "number three"},
		{"fourth", "4th", "number 4"}, {"fifth", "5th", "number 5"}, {"sixth", "6th"}, {"seventh", "7th"}, {"eighth", "8th"},
		{"ninth", "9th"}, {"tenth", "10th"}}
	for i, names := range ordinals {
		if i < len(offers) && HasPhrase(p, names...) {
			return i
		}
	}
	if g := regexp.MustCompile(`(?:^|#|\bno\.?\s*|\bnumber\s*|\boption\s*|\boffer\s*)(\d{1,2})\b`).FindStringSubmatch(strings.TrimSpace(strings.ToLower(s))); g != nil {
		if n, _ := strconv.Atoi(g[1]); n >= 1 && n <= len(offers) {
			return n - 1
		}
	}
	for i, o := range offers {
		if name := strings.ToLower(strings.TrimSpace(o.Seller.Name)); len(name) >= 3 && strings.Contains(strings.ToLower(s), name) {
			return i
		}
	}
	return -1
}

// fillerWords say that a job is wanted without saying what it is about.
var fillerWords = map[string]bool{"i": true, "need": true, "want": true, "would": true, "like": true, "a": true, "an": true, "the": true,
	"some": true, "please": true, "can": true, "could": true, "you": true, "make": true, "me": true, "for": true, "get": true,
	"create": true, "generate": true, "do": true, "to": true, "have": true, "produce": true, "my": true, "of": true, "with": true,
	"hi": true, "hello": true, "hey": true, "someone": true, "somebody": true, "new": true, "short": true, "quick": true, "one": true,
	"it": true, "is": true, "be": true, "should": true, "and": true, "in": true, "on": true, "by": true, "up": true, "into": true,
	"help": true, "job": true, "task": true, "order": true, "buy": true, "looking": true, "im": true, "i'm": true, "we": true, "us": true,
	"our": true, "let's": true, "lets": true, "will": true, "pay": true}

// Substantive counts the words of s that say what the job is about: not filler, not the
// service's own keywords, not numbers or units.
func Substantive(s string, svc *axp.Service) int {
	n := 0
	for _, w := range Words(s) {
		w = strings.Trim(w, ".:-'#$")
		if w == "" || fillerWords[w] || svc != nil && svc.HasKeyword(w) {
			continue
		}
		if _, err := strconv.ParseFloat(w, 64); err == nil {
			continue
		}
		n++
	}
	return n
}

// CutAnswer reads a message that starts with "answer:" (an answer to sellers' questions).
func CutAnswer(msg string) (string, bool) {
	m := strings.TrimSpace(msg)
	if len(m) < 7 || !strings.EqualFold(m[:7], "answer:") {
		return "", false
	}
	rest := strings.TrimSpace(m[7:])
	return rest, rest != ""
}

// IsSkip reads "skip", "no", "never mind" and the like as leaving a question unanswered.
func IsSkip(s string) bool {
	switch strings.Trim(strings.ToLower(strings.TrimSpace(s)), ".!") {
	case "skip", "no", "nothing", "never mind", "nevermind", "leave it", "pass":
		return true
	}
	return false
}

// CustomType is the type of a job outside the catalog named in an answer: a short name that fits
// the type pattern ("data-cleaning", "web research"), else "custom".
func CustomType(m string) string {
	w := Words(m)
	if len(w) >= 1 && len(w) <= 3 {
		name := strings.Trim(strings.Join(w, "-"), "-.:'#$")
		for _, p := range []string{"a-", "an-", "some-"} {
			name = strings.TrimPrefix(name, p)
		}
		name = strings.TrimSuffix(strings.TrimSuffix(name, "-job"), "-task")
		if typePattern.MatchString(name) && !HasPhrase(Plain(m), "something else", "other", "else", "custom", "not sure", "no idea") {
			return name
		}
	}
	return "custom"
}

var typePattern = regexp.MustCompile(`^[a-z0-9][a-z0-9_-]{1,40}$`)

// OnlyTerms reports whether a short answer only gives terms, a budget ("free", "$5") or a deadline
// ("tomorrow"): it is then not also the text or prompt that was asked for.
func OnlyTerms(m string) bool {
	if len(strings.Fields(m)) > 3 {
		return false
	}
	_, _, _, isBudget := Budget(m, false)
	_, _, isDeadline := Deadline(m, true)
	return isBudget || isDeadline
}

// reTranslate reads the text of a short brief such as "translate hello world into French".
var reTranslate = regexp.MustCompile(`(?i)^\s*(?:please\s+)?translate\s+(.+?)\s+(?:in)?to\s+\p{L}+[.!]?\s*$`)

// BriefText is the text to translate named in a short brief ("translate hello world into
// French"), or "" when the brief names a document instead ("translate my README into French").
func BriefText(m string) string {
	g := reTranslate.FindStringSubmatch(m)
	if g == nil {
		return ""
	}
	first := strings.ToLower(strings.Fields(g[1])[0])
	switch first {
	case "my", "our", "this", "that", "these", "those", "the", "a", "an", "some", "it", "your", "his", "her", "their":
		return ""
	}
	return g[1]
}
