package listing

import (
	"math/rand/v2"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/axp-exchange/axp/daemon/screen"
)

// TestLiteralsFilterRules: rules too wide to try sentence by sentence skip texts that hold none of
// their leading literals; only a rule whose matches may start with a digit is still tried on every
// text. Plain briefs try no expression at all.
func TestLiteralsFilterRules(t *testing.T) {
	var unfiltered []string
	for _, r := range policyRules {
		if r.prefixes == nil && r.anyOf == nil {
			unfiltered = append(unfiltered, r.category)
		}
	}
	if !slices.Equal(unfiltered, []string{PolicyFakeReviews}) {
		t.Errorf("rules tried on every text: %v, want only the fake reviews rule that starts with a number", unfiltered)
	}
	text := normalForPolicy("text file.\n\nprompt a haiku about autumn\nfilename output.txt\n")
	for _, r := range policyRules {
		if r.anyOf != nil && r.lits.in(text) {
			t.Errorf("%s rule %.40q is tried on a plain haiku brief", r.category, r.re.String())
		}
	}
}

// TestLiteralsKeepMatches: on texts made of the rules' own words, every rule whose literals are
// looked for in the whole text finds what its expression finds there, and the index of literals
// answers as a search for each does.
func TestLiteralsKeepMatches(t *testing.T) {
	var words []string
	seen := map[string]bool{}
	word := regexp.MustCompile(`[a-z][a-z'-]+|\d+`)
	for _, r := range policyRules {
		for _, w := range word.FindAllString(r.re.String(), -1) {
			if !seen[w] {
				seen[w] = true
				words = append(words, w)
			}
		}
	}
	seps := []string{" ", " ", " ", ", ", ". ", "! ", "\n", " the ", " my ", " of "}
	rng := rand.New(rand.NewPCG(41, 1))
	matched := 0
	for range 3000 {
		var b strings.Builder
		for range 2 + rng.IntN(10) {
			b.WriteString(words[rng.IntN(len(words))])
			b.WriteString(seps[rng.IntN(len(seps))])
		}
		text := b.String()
		segs := screen.Segments(text)
		for _, r := range policyRules {
			for _, lits := range [][]string{r.prefixes, r.anyOf} {
				if lits == nil {
					continue
				}
				search := slices.ContainsFunc(lits, func(l string) bool { return strings.Contains(text, l) })
				if r.lits.in(text) != search {
					t.Fatalf("%s rule on %q: the index of literals says %v, a search for each %v", r.category, text, !search, search)
				}
			}
			if r.anyOf == nil {
				continue
			}
			want := r.re.FindAllStringIndex(text, 8)
			if got := r.find(text, segs); !slices.EqualFunc(got, want, slices.Equal) {
				t.Fatalf("%s rule on %q: %v, the expression finds %v", r.category, text, got, want)
			}
			if want != nil {
				matched++
			}
		}
	}
	if matched < 100 {
		t.Errorf("only %d matches: the texts do not exercise the rules", matched)
	}
}
