package kernel

import (
	"github.com/axp-exchange/axp"
	"github.com/axp-exchange/axp/daemon/screen"
)

type removal = screen.Removal

// redactText removes contact details from a party's text.
func RedactText(text string) (string, []removal) { return screen.Redact(text) }

// redactKeepLinks removes contact details but keeps links (data-source params such as source_url).
func RedactKeepLinks(text string) (string, []removal) { return screen.RedactKeepLinks(text) }

// redactSecrets replaces the credentials in a party's text with markers naming their kind.
func redactSecrets(text string) (string, []removal) { return screen.RedactSecrets(text) }

// screenText is the prompt-injection verdict on a text, as stored and shown.
func ScreenText(text string) *axp.Screening {
	v := screen.Screen(text)
	sc := &axp.Screening{Flagged: v.Flagged, Risk: v.Risk, Verdict: v.Verdict}
	for _, f := range v.Findings {
		sc.Findings = append(sc.Findings, axp.Finding{Rule: f.Rule, Excerpt: f.Excerpt, Weight: f.Weight})
	}
	return sc
}

// listingPolicy refuses briefs the exchange does not list (spec 7), or answers nil.
func ListingPolicy(typ, description string, params map[string]any) *screen.Policy {
	return screen.Listing(typ, description, params)
}
