package screen

import (
	"regexp"
	"strings"
)

// Identifiers that open nothing by themselves are not credentials (docs/decisions.md,
// "Credentials"): an AWS access key id, the apiKey of a Firebase web configuration (every visitor
// of the site reads it), public and publishable keys. They pass alone and beside their secret; the
// secret beside them goes.
var (
	awsKeyID    = regexp.MustCompile(`\b(?:AKIA|ASIA|ABIA|ACCA|A3T[A-Z0-9])[A-Z0-9]{16}\b`)
	googleKeyID = regexp.MustCompile(`\bAIza[0-9A-Za-z_\-]{35}`)
)

// publicID reports whether text[s:e] is such an identifier, perhaps with its label ("apiKey:
// \"AIza...\"") and nothing else.
func publicID(text string, s, e int) bool {
	v := text[s:e]
	if documentedKeys[strings.Trim(v, "\"'` ")] {
		return true
	}
	id := awsKeyID.FindStringIndex(v)
	if id == nil {
		id = googleKeyID.FindStringIndex(v)
		if id == nil || !firebaseWebConfig(text[max(0, s-300):min(len(text), e+300)]) {
			return false
		}
	}
	return alnumRun(v[:id[0]]) < 16 && alnumRun(v[id[1]:]) < 16
}

// alnumRun is the length of the longest run of letters and digits in s.
func alnumRun(s string) int {
	best, n := 0, 0
	for i := 0; i < len(s); i++ {
		if IsAlnum(s[i]) {
			n++
			best = max(best, n)
		} else {
			n = 0
		}
	}
	return best
}

// firebaseWebConfig reports whether the text around a Google key is a Firebase app's
// configuration, which every page of a web app ships and every copy of a mobile app holds
// (google-services.json, GoogleService-Info.plist).
func firebaseWebConfig(around string) bool {
	lo := strings.ToLower(around)
	return strings.Contains(lo, "authdomain") || strings.Contains(lo, "firebaseconfig") ||
		strings.Contains(lo, "messagingsenderid") || strings.Contains(lo, "mobilesdk_app_id") ||
		strings.Contains(lo, "google_app_id")
}
