package screen_test

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/axp-exchange/axp/daemon/screen/listing"

	"github.com/axp-exchange/axp/daemon/screen"
	"github.com/axp-exchange/axp/daemon/screen/injection"
)

// A sample is one line of a corpus file: the text, and for contact positives the spans («»)
// that must be removed.
type sample struct {
	where string // file:line
	text  string
	marks [][2]int
	label string // for listing files: the expected category
}

// loadCorpus reads testdata/corpus/<glob>. Lines starting with # and blank lines are skipped.
func loadCorpus(tb testing.TB, glob string) []sample {
	tb.Helper()
	files, err := filepath.Glob(filepath.Join("testdata", "corpus", glob))
	if err != nil || len(files) == 0 {
		tb.Fatalf("no corpus files for %s: %v", glob, err)
	}
	sort.Strings(files)
	var out []sample
	for _, f := range files {
		fh, err := os.Open(f)
		if err != nil {
			tb.Fatal(err)
		}
		sc := bufio.NewScanner(fh)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		n := 0
		for sc.Scan() {
			n++
			line := sc.Text()
			if strings.TrimSpace(line) == "" || strings.HasPrefix(line, "#") {
				continue
			}
			s := sample{where: fmt.Sprintf("%s:%d", filepath.Base(f), n)}
			if strings.HasPrefix(filepath.Base(f), "listing_reject") {
				label, rest, ok := strings.Cut(line, "\t")
				if !ok {
					tb.Fatalf("%s: want category<TAB>brief", s.where)
				}
				s.label, line = label, rest
			}
			s.text, s.marks = parseMarks(unescape(line))
			out = append(out, s)
		}
		fh.Close()
		if err := sc.Err(); err != nil {
			tb.Fatal(err)
		}
	}
	return out
}

// unescape handles \n, \t, \\, \uXXXX and \UXXXXXXXX; other backslashes are kept.
func unescape(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '\\' || i+1 == len(s) {
			b.WriteByte(s[i])
			continue
		}
		switch s[i+1] {
		case 'n':
			b.WriteByte('\n')
			i++
		case 't':
			b.WriteByte('\t')
			i++
		case '\\':
			b.WriteByte('\\')
			i++
		case 'u', 'U':
			w := 4
			if s[i+1] == 'U' {
				w = 8
			}
			if i+2+w <= len(s) {
				if v, err := strconv.ParseUint(s[i+2:i+2+w], 16, 32); err == nil {
					b.WriteRune(rune(v))
					i += 1 + w
					continue
				}
			}
			b.WriteByte(s[i])
		default:
			b.WriteByte(s[i])
		}
	}
	return b.String()
}

func parseMarks(s string) (string, [][2]int) {
	if !strings.ContainsRune(s, '«') {
		return s, nil
	}
	var b strings.Builder
	var marks [][2]int
	open := -1
	for _, r := range s {
		switch r {
		case '«':
			open = b.Len()
		case '»':
			marks = append(marks, [2]int{open, b.Len()})
			open = -1
		default:
			b.WriteRune(r)
		}
	}
	return b.String(), marks
}

// contactStats are the corpus figures of screen.Redact.
type contactStats struct {
	positives, detected   int // samples with marks, and those whose marks were all removed
	cleans, changed       int // clean samples, and those screen.Redact changed
	overRemoved, kept     int // letters and digits removed outside marks in positives, and total outside
	misses, falsePositive []string
}

func (s contactStats) recall() float64 { return float64(s.detected) / float64(s.positives) }
func (s contactStats) fpRate() float64 { return float64(s.changed) / float64(s.cleans) }

// covered reports whether every letter and digit of text[m[0]:m[1]] lies inside a removal.
func covered(text string, m [2]int, rs []screen.Removal) bool {
	for i := m[0]; i < m[1]; {
		r, size := utf8.DecodeRuneInString(text[i:])
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			in := false
			for _, x := range rs {
				if x.Start <= i && i+size <= x.End {
					in = true
					break
				}
			}
			if !in {
				return false
			}
		}
		i += size
	}
	return true
}

func measureContacts(tb testing.TB) contactStats {
	var st contactStats
	for _, s := range loadCorpus(tb, "contact_*.txt") {
		out, rs := screen.Redact(s.text)
		st.positives++
		ok := true
		for _, m := range s.marks {
			if !covered(s.text, m, rs) {
				ok = false
			}
		}
		if ok {
			st.detected++
		} else {
			st.misses = append(st.misses, fmt.Sprintf("%s: %q -> %q", s.where, s.text, out))
		}
		for i := 0; i < len(s.text); i++ {
			if !screen.IsAlnum(s.text[i]) {
				continue
			}
			inMark := false
			for _, m := range s.marks {
				if m[0] <= i && i < m[1] {
					inMark = true
				}
			}
			if inMark {
				continue
			}
			st.kept++
			for _, x := range rs {
				if x.Start <= i && i < x.End {
					st.overRemoved++
					break
				}
			}
		}
	}
	for _, s := range loadCorpus(tb, "clean*.txt") {
		st.cleans++
		if out, rs := screen.Redact(s.text); out != s.text || len(rs) > 0 {
			st.changed++
			st.falsePositive = append(st.falsePositive, fmt.Sprintf("%s: %q -> %q", s.where, s.text, out))
		}
	}
	return st
}

// The contact corpus targets: recall >= 0.99 with at most 1% of clean texts changed.
func TestContactCorpus(t *testing.T) {
	st := measureContacts(t)
	for _, m := range st.misses {
		t.Logf("miss %s", m)
	}
	for _, f := range st.falsePositive {
		t.Logf("false positive %s", f)
	}
	t.Logf("contact corpus: %d positives, recall %.4f; %d clean texts, %.2f%% changed; %.2f%% of other letters in positives removed",
		st.positives, st.recall(), st.cleans, 100*st.fpRate(), 100*float64(st.overRemoved)/float64(st.kept))
	if st.positives < 300 || st.cleans < 300 {
		t.Errorf("corpus too small: %d positives, %d clean", st.positives, st.cleans)
	}
	if st.recall() < 0.99 {
		t.Errorf("recall %.4f < 0.99", st.recall())
	}
	if st.fpRate() > 0.01 {
		t.Errorf("%.2f%% of clean texts changed, want <= 1%%", 100*st.fpRate())
	}
}

// injectionStats are the corpus figures of injection.Screen.
type injectionStats struct {
	positives, flagged, injections int
	benign, benignFlagged          int
	misses, falsePositive          []string
}

func (s injectionStats) recall() float64 { return float64(s.flagged) / float64(s.positives) }
func (s injectionStats) fpRate() float64 { return float64(s.benignFlagged) / float64(s.benign) }

func measureInjections(tb testing.TB) injectionStats {
	var st injectionStats
	for _, s := range append(append(loadCorpus(tb, "injection.txt"), loadCorpus(tb, "injection_holdout.txt")...), loadCorpus(tb, "injection_round3.txt")...) {
		st.positives++
		v := injection.Screen(s.text)
		if v.Flagged {
			st.flagged++
		} else {
			st.misses = append(st.misses, fmt.Sprintf("%s: %q risk %d", s.where, s.text, v.Risk))
		}
		if v.Verdict == injection.VerdictInjection {
			st.injections++
		}
	}
	benign := append(loadCorpus(tb, "injection_benign*.txt"), loadCorpus(tb, "clean*.txt")...)
	for _, s := range benign {
		st.benign++
		if v := injection.Screen(s.text); v.Flagged {
			st.benignFlagged++
			st.falsePositive = append(st.falsePositive, fmt.Sprintf("%s: %q risk %d %v", s.where, s.text, v.Risk, v.Findings))
		}
	}
	return st
}

// The injection corpus targets: at least 97% of injections flagged, at most 2% of benign texts
// (instruction-like briefs and the clean corpus) flagged.
func TestInjectionCorpus(t *testing.T) {
	st := measureInjections(t)
	for _, m := range st.misses {
		t.Logf("miss %s", m)
	}
	for _, f := range st.falsePositive {
		t.Logf("false positive %s", f)
	}
	t.Logf("injection corpus: %d positives, %.4f flagged (%.4f as injection); %d benign, %.2f%% flagged",
		st.positives, st.recall(), float64(st.injections)/float64(st.positives), st.benign, 100*st.fpRate())
	if st.positives < 150 || st.benign < 300 {
		t.Errorf("corpus too small: %d positives, %d benign", st.positives, st.benign)
	}
	if st.recall() < 0.97 {
		t.Errorf("recall %.4f < 0.97", st.recall())
	}
	if st.fpRate() > 0.02 {
		t.Errorf("%.2f%% of benign texts flagged, want <= 2%%", 100*st.fpRate())
	}
}

type listingStats struct {
	rejects, caught, rightCategory int
	allows, wronglyRejected        int
	misses, falsePositive          []string
}

func measureListing(tb testing.TB) listingStats {
	var st listingStats
	for _, s := range loadCorpus(tb, "listing_reject.txt") {
		st.rejects++
		p := listing.Listing("task", s.text, nil)
		switch {
		case p == nil:
			st.misses = append(st.misses, fmt.Sprintf("%s: %q", s.where, s.text))
		case p.Category != s.label:
			st.caught++
			st.misses = append(st.misses, fmt.Sprintf("%s: %q: %s, want %s", s.where, s.text, p.Category, s.label))
		default:
			st.caught++
			st.rightCategory++
		}
	}
	for _, s := range loadCorpus(tb, "listing_allow.txt") {
		st.allows++
		if p := listing.Listing("task", s.text, nil); p != nil {
			st.wronglyRejected++
			st.falsePositive = append(st.falsePositive, fmt.Sprintf("%s: %q: %s", s.where, s.text, p.Reason))
		}
	}
	return st
}

// The listing corpus targets: every forbidden brief rejected, at least 95% with the expected
// category, and at most 2% of allowed briefs rejected.
func TestListingCorpus(t *testing.T) {
	st := measureListing(t)
	for _, m := range st.misses {
		t.Logf("miss %s", m)
	}
	for _, f := range st.falsePositive {
		t.Logf("false positive %s", f)
	}
	t.Logf("listing corpus: %d forbidden, %d rejected (%d with the expected category); %d allowed, %d rejected",
		st.rejects, st.caught, st.rightCategory, st.allows, st.wronglyRejected)
	if st.caught < st.rejects {
		t.Errorf("%d forbidden briefs allowed", st.rejects-st.caught)
	}
	if float64(st.rightCategory) < 0.95*float64(st.rejects) {
		t.Errorf("only %d of %d with the expected category", st.rightCategory, st.rejects)
	}
	if float64(st.wronglyRejected) > 0.02*float64(st.allows) {
		t.Errorf("%d of %d allowed briefs rejected", st.wronglyRejected, st.allows)
	}
}

// secretStats are the corpus figures of screen.FindSecrets.
type secretStats struct {
	positives, detected   int // deliverables with marked credentials, and those with every mark removed
	cleans, changed       int // look-alikes and clean texts, and those in which something was found
	kinds                 map[string]bool
	misses, falsePositive []string
}

func (s secretStats) recall() float64 { return float64(s.detected) / float64(s.positives) }
func (s secretStats) fpRate() float64 { return float64(s.changed) / float64(s.cleans) }

func measureSecrets(tb testing.TB) secretStats {
	return measureSecretsIn(tb, "credential_secret.txt", "credential_lookalike.txt", "clean*.txt")
}

// measureSecretsIn measures screen.FindSecrets on the texts of secretGlob, whose marks must all be
// removed, and on those of cleanGlobs, in which nothing may be found.
func measureSecretsIn(tb testing.TB, secretGlob string, cleanGlobs ...string) secretStats {
	st := secretStats{kinds: map[string]bool{}}
	for _, s := range loadCorpus(tb, secretGlob) {
		rs := screen.FindSecrets(s.text)
		st.positives++
		ok := len(s.marks) > 0
		for _, m := range s.marks {
			if !covered(s.text, m, rs) {
				ok = false
			}
		}
		if ok {
			st.detected++
		} else {
			out, _ := screen.RedactSecrets(s.text)
			st.misses = append(st.misses, fmt.Sprintf("%s: %q -> %q", s.where, s.text, out))
		}
		for _, r := range rs {
			st.kinds[r.Kind] = true
		}
	}
	var cleans []sample
	for _, g := range cleanGlobs {
		cleans = append(cleans, loadCorpus(tb, g)...)
	}
	for _, s := range cleans {
		st.cleans++
		if rs := screen.FindSecrets(s.text); len(rs) > 0 {
			st.changed++
			out, _ := screen.RedactSecrets(s.text)
			st.falsePositive = append(st.falsePositive, fmt.Sprintf("%s: %q -> %q", s.where, s.text, out))
		}
	}
	return st
}

// The credential corpus targets: recall >= 0.95 over deliverables holding credentials of 20+
// kinds, and at most 2% of look-alikes (placeholders, prose about passwords, hashes, ids, public
// keys) and clean texts changed.
func TestSecretCorpus(t *testing.T) {
	st := measureSecrets(t)
	for _, m := range st.misses {
		t.Logf("miss %s", m)
	}
	for _, f := range st.falsePositive {
		t.Logf("false positive %s", f)
	}
	t.Logf("credential corpus: %d positives, recall %.4f, %d kinds found; %d look-alikes and clean texts, %.2f%% changed",
		st.positives, st.recall(), len(st.kinds), st.cleans, 100*st.fpRate())
	if st.positives < 150 || st.cleans < 150 || st.positives+st.cleans < 200 {
		t.Errorf("corpus too small: %d positives, %d look-alikes and clean texts", st.positives, st.cleans)
	}
	if len(st.kinds) < 20 {
		t.Errorf("only %d kinds found, want 20+", len(st.kinds))
	}
	if st.recall() < 0.95 {
		t.Errorf("recall %.4f < 0.95", st.recall())
	}
	if st.fpRate() > 0.02 {
		t.Errorf("%.2f%% of look-alikes and clean texts changed, want <= 2%%", 100*st.fpRate())
	}
}

// heldoutSecrets are the credential sets written apart from the rules: texts holding
// credentials and look-alikes. The first was used to tune the second round of rules; the second
// never was (see testdata/corpus/README.md).
var heldoutSecrets = []struct{ name, secrets, lookalikes string }{
	{"first", "heldout_credential_secret.txt", "heldout_credential_lookalike.txt"},
	{"second", "heldout2_secret.txt", "heldout2_lookalike.txt"},
	{"third", "heldout3_secret.txt", "heldout3_lookalike.txt"},
	{"fourth", "heldout4_secret.txt", "heldout4_lookalike.txt"},
	{"fifth", "heldout5_secret.txt", "heldout5_lookalike.txt"},
	{"sixth", "heldout6_secret.txt", "heldout6_lookalike.txt"},
	{"seventh", "heldout7_secret.txt", "heldout7_lookalike.txt"},
	{"eighth", "heldout8_secret.txt", "heldout8_lookalike.txt"},
	{"ninth", "heldout9_secret.txt", "heldout9_lookalike.txt"},
	{"tenth", "heldout10_secret.txt", "heldout10_lookalike.txt"},
	{"eleventh", "heldout11_secret.txt", "heldout11_lookalike.txt"},
	{"twelfth", "heldout12_secret.txt", "heldout12_lookalike.txt"},
	{"thirteenth", "heldout13_secret.txt", "heldout13_lookalike.txt"},
	{"fourteenth", "heldout14_secret.txt", "heldout14_lookalike.txt"},
	{"fifteenth", "heldout15_secret.txt", "heldout15_lookalike.txt"},
}

// TestSecretHeldout measures the credential rules on each held-out set. It only logs: the figures
// show how the rules generalise, and the texts stay data. It asserts the size of each set.
func TestSecretHeldout(t *testing.T) {
	for _, h := range heldoutSecrets {
		t.Run(h.name, func(t *testing.T) {
			st := measureSecretsIn(t, h.secrets, h.lookalikes)
			for _, m := range st.misses {
				t.Logf("miss %s", m)
			}
			for _, f := range st.falsePositive {
				t.Logf("false positive %s", f)
			}
			t.Logf("held-out credentials (%s): %d positives, recall %.4f (%d missed); %d look-alikes, %.2f%% changed (%d)",
				h.name, st.positives, st.recall(), st.positives-st.detected, st.cleans, 100*st.fpRate(), st.changed)
			if st.positives < 200 || st.cleans < 200 {
				t.Errorf("held-out corpus too small: %d positives, %d look-alikes, want 200+ each", st.positives, st.cleans)
			}
		})
	}
}

// Redacting twice changes nothing more, and removals always cut whole characters.
func TestRedactIsStable(t *testing.T) {
	for _, s := range loadCorpus(t, "contact_*.txt") {
		out, rs := screen.Redact(s.text)
		if !utf8.ValidString(out) {
			t.Errorf("%s: invalid UTF-8 out of %q", s.where, s.text)
		}
		for _, r := range rs {
			if r.Start < 0 || r.End > len(s.text) || r.Start >= r.End {
				t.Errorf("%s: bad removal %+v", s.where, r)
			}
		}
		if again, rs2 := screen.Redact(out); again != out || len(rs2) > 0 {
			t.Errorf("%s: second pass changed %q to %q", s.where, out, again)
		}
	}
}
