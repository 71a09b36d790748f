package talk

import (
	"regexp"
	"strconv"
	"strings"
)

// The patterns of a job's parameters in a message.
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
