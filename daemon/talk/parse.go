package talk

import (
	"regexp"
	"strconv"
	"strings"

	"github.com/axp-exchange/axp"
	"github.com/axp-exchange/axp/protocol"
)

// words lower-cases s and splits it into words, keeping digits, '$', '.', ':', '#' and '-'.
func words(s string) []string {
	return strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '$' || r == '.' || r == ':' || r == '#' || r == '-' || r == '\'' || r > 127)
	})
}

// plain is s lower-cased with its punctuation turned into single spaces, padded with a space on
// each side, so phrases match on word boundaries with strings.Contains(" phrase ").
func plain(s string) string {
	return " " + strings.Join(strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '\'' || r > 127)
	}), " ") + " "
}

func hasPhrase(p string, phrases ...string) bool {
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

// isYes reports whether a short answer agrees.
func isYes(s string) bool {
	p := plain(s)
	return len(words(s)) <= 6 && hasPhrase(p, yesPhrases...) && !isNo(s)
}

// isNo reports whether a short answer declines.
func isNo(s string) bool {
	return len(words(s)) <= 6 && hasPhrase(plain(s), noPhrases...)
}

// isStatus reports whether the message asks where things stand.
func isStatus(s string) bool {
	if len(words(s)) > 8 {
		return false
	}
	return hasPhrase(plain(s), "status", "where are we", "what's happening", "whats happening", "what is happening", "progress",
		"any news", "any offers", "what now", "what next", "where do we stand", "what's the status", "how is it going")
}

// isReset reports whether the buyer wants to start the job over.
func isReset(s string) bool {
	return len(words(s)) <= 6 && hasPhrase(plain(s), "start over", "restart", "reset", "new job", "never mind", "nevermind", "start again")
}

// isCancel reports whether the buyer wants to withdraw the listed job.
func isCancel(s string) bool {
	return len(words(s)) <= 8 && hasPhrase(plain(s), "cancel", "withdraw", "call it off", "cancel it", "cancel the job", "cancel the task")
}

var (
	reDollars = regexp.MustCompile(`(?i)(?:us)?\$\s*(\d{1,6}(?:[.,]\d{1,2})?)|(\d{1,6}(?:\.\d{1,2})?)\s*(?:usd|dollars?|bucks|us\$)\b`)
	reNumber  = regexp.MustCompile(`^\s*(?:up to |at most |max(?:imum)? |about |around |under )?(\d{1,6}(?:\.\d{1,2})?)\s*$`)
)

// budget reads an amount the buyer is ready to pay. ok=false: no amount in s. free: a free job
// ("free", "$0"). none: no budget ("no limit", "any"). bare says a plain number counts as dollars
// (the question asked for a budget).
func budget(s string, bare bool) (m axp.Money, free, none, ok bool) {
	p := plain(s)
	if hasPhrase(p, "free", "for free", "nothing", "zero", "no money", "unpaid") && !hasPhrase(p, "free redo") {
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
		if hasPhrase(p, "no limit", "no budget", "any", "anything", "whatever", "don't care", "dont care", "doesn't matter",
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

// deadline reads by when the job is wanted, in minutes. bare says the question asked for a
// deadline, so any amount of time (or "no rush") answers it; otherwise only a phrase that says so
// ("within 2 hours", "by tomorrow", "deadline 3 days") counts.
func deadline(s string, bare bool) (minutes int, none, ok bool) {
	p := plain(s)
	if bare && hasPhrase(p, "no rush", "no deadline", "whenever", "any time", "anytime", "no hurry", "skip", "none", "doesn't matter",
		"dont care", "don't care", "not urgent", "no preference", "take your time") {
		return 0, true, true
	}
	if hasPhrase(p, "asap", "as soon as possible", "urgent", "urgently", "right away", "now") && (bare || hasPhrase(p, "asap", "as soon as possible", "urgently")) {
		return 60, false, true
	}
	if hasPhrase(p, "by tomorrow", "tomorrow", "within a day", "in a day") && (bare || hasPhrase(p, "by tomorrow", "within a day")) {
		return 24 * 60, false, true
	}
	if hasPhrase(p, "next week", "within a week", "by next week") && (bare || hasPhrase(p, "within a week", "by next week")) {
		return 7 * 24 * 60, false, true
	}
	secs, ends := durations(s)
	for i, v := range secs {
		if v < 60 {
			continue
		}
		if bare || deadlineWord(s, ends[i]) {
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

// deadlineWord reports whether the amount of time that ends at end is introduced as a deadline
// ("within 2 hours", "in 3 days", "deadline: 1 hour").
func deadlineWord(s string, end int) bool {
	g := reDuration.FindStringIndex(s[max(0, end-30):end])
	if g == nil {
		return false
	}
	return reDeadlineWord.MatchString(s[:max(0, end-30)+g[0]])
}

var (
	reSeconds  = regexp.MustCompile(`(?i)\b(\d{1,3})\s*-?\s*(?:s|secs?|seconds?)\b`)
	reCount    = regexp.MustCompile(`(?i)\b(\d{1,2}|one|two|three|four|five|six|seven|eight)\s+(?:[a-z]+\s+)?(?:images?|pictures?|photos?|illustrations?|variations?|versions?|drawings?|logos?|icons?|posters?)\b`)
	reWords    = regexp.MustCompile(`(?i)\b(\d{1,3}(?:,\d{3})*|\d+)\s*words?\b`)
	reMinutes  = regexp.MustCompile(`(?i)\b(\d{1,3})\s*-?\s*(?:minutes?|mins?|min)\b`)
	reHours    = regexp.MustCompile(`(?i)\b(\d{1,2}|an?|one|two|three|four)\s*-?\s*(?:hours?|hrs?)\b`)
	reSize     = regexp.MustCompile(`(?i)\b(\d{2,4})\s*[x×]\s*(\d{2,4})\b`)
	reAspect   = regexp.MustCompile(`\b(16:9|9:16|1:1)\b`)
	reLink     = regexp.MustCompile(`(?i)\bhttps?://[^\s<>"']+`)
	reFilename = regexp.MustCompile(`(?i)\b([\w-]{1,100}\.(?:txt|md|csv|json|html|xml|yaml|yml|tsv))\b`)
	reTxHash   = regexp.MustCompile(`\b0x[0-9a-fA-F]{64}\b`)
	reBareInt  = regexp.MustCompile(`^\s*(\d{1,6})\s*$`)
)

var countWords = map[string]int{"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "a": 1, "an": 1}

func atoiWord(s string) int {
	if n, err := strconv.Atoi(strings.ReplaceAll(s, ",", "")); err == nil {
		return n
	}
	return countWords[strings.ToLower(s)]
}

// languages are the languages the assistant recognises by name.
var languages = axp.Languages

// language finds a language named in s: after "into", "to" or "in" (target), or alone when bare.
func language(s string, bare bool) string {
	p := plain(s)
	for _, l := range languages {
		if hasPhrase(p, "into "+l, "to "+l, "in "+l) || bare && hasPhrase(p, l) {
			return l
		}
	}
	if bare {
		w := words(s)
		if len(w) == 1 && len(w[0]) >= 2 && len(w[0]) <= 40 {
			return w[0] // an ISO code ("fr") or a language the list lacks
		}
	}
	return ""
}

// pick reads which presented offer the buyer means: an index into offers (ranked as presented),
// or -1. rec is the index of the recommended offer.
func pick(s string, offers []axp.Offer, rec int) int {
	if len(offers) == 0 {
		return -1
	}
	p := plain(s)
	switch {
	case hasPhrase(p, "cheapest", "cheaper one", "lowest price", "least expensive", "lowest", "cheapest one"):
		best := 0
		for i, o := range offers {
			if o.PriceUSD < offers[best].PriceUSD {
				best = i
			}
		}
		return best
	case hasPhrase(p, "fastest", "quickest", "soonest", "fastest one", "quickest one"):
		best := 0
		for i, o := range offers {
			if o.ETAMinutes < offers[best].ETAMinutes {
				best = i
			}
		}
		return best
	case hasPhrase(p, "recommended", "your recommendation", "your pick", "your choice", "the best", "best one", "you recommend", "your suggestion", "suggested"):
		return rec
	case hasPhrase(p, "last", "last one"):
		return len(offers) - 1
	}
	ordinals := [][]string{{"first", "1st", "#1", "number 1", "option 1", "offer 1", "number one", "option one"},
		{"second", "2nd", "number 2", "option 2", "offer 2", "number two"}, {"third", "3rd", "number 3", "option 3", "offer 3", "number three"},
		{"fourth", "4th", "number 4"}, {"fifth", "5th", "number 5"}, {"sixth", "6th"}, {"seventh", "7th"}, {"eighth", "8th"},
		{"ninth", "9th"}, {"tenth", "10th"}}
	for i, names := range ordinals {
		if i < len(offers) && hasPhrase(p, names...) {
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

// substantive counts the words of s that say what the job is about: not filler, not the
// service's own keywords, not numbers or units.
func substantive(s string, svc *axp.Service) int {
	n := 0
	for _, w := range words(s) {
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

// cutAnswer reads a message that starts with "answer:" (an answer to sellers' questions).
func cutAnswer(msg string) (string, bool) {
	m := strings.TrimSpace(msg)
	if len(m) < 7 || !strings.EqualFold(m[:7], "answer:") {
		return "", false
	}
	rest := strings.TrimSpace(m[7:])
	return rest, rest != ""
}

// isSkip reads "skip", "no", "never mind" and the like as leaving a question unanswered.
func isSkip(s string) bool {
	switch strings.Trim(strings.ToLower(strings.TrimSpace(s)), ".!") {
	case "skip", "no", "nothing", "never mind", "nevermind", "leave it", "pass":
		return true
	}
	return false
}
