package screen_test

import (
	"strings"
	"testing"

	"github.com/axp-exchange/axp/daemon/screen/listing"

	"github.com/axp-exchange/axp/daemon/screen"
	"github.com/axp-exchange/axp/daemon/screen/injection"
)

// message4KB is a realistic 4 KB message: prose, numbers, code, a few contact details.
var message4KB = func() string {
	parts := []string{
		"Hi! Thanks for choosing my offer. Here is the plan for the translation job, step by step.",
		"1. I will translate the 12 pages (about 4,200 words) into German by Friday 17:00 UTC.",
		"2. The glossary has 85 terms; I keep your product names (Acme Flow, Acme Sync) untranslated.",
		"3. Prices follow the quote: US$0.04 per word, so the total is US$168.00, one free redo included.",
		"The file output.txt has the raw text and summary.md the notes; version v1.2.3 of the script made them.",
		"If anything is unclear, write to me at anna.schmidt@example.de or call +49 30 1234 5678.",
		"Code sample: if err != nil { return fmt.Errorf(\"load %s: %w\", path, err) } // see main.go line 42",
		"The dataset covers 2019-2023 with 48,000 rows; accuracy was 94.7% on 2,500 validation samples.",
		"Meeting notes from 2026-10-07 10:30: agreed on British spelling, tone friendly, 16:9 slides.",
		"My portfolio is at annaschmidt-translations.com and my Telegram is @anna_translates.",
	}
	var b strings.Builder
	for b.Len() < 4096 {
		for _, p := range parts {
			if b.Len() >= 4096 {
				break
			}
			b.WriteString(p)
			b.WriteString("\n")
		}
	}
	return b.String()[:4096]
}()

func BenchmarkRedact4KB(b *testing.B) {
	b.SetBytes(int64(len(message4KB)))
	b.ReportAllocs()
	for b.Loop() {
		screen.Redact(message4KB)
	}
}

func BenchmarkRedactClean4KB(b *testing.B) {
	clean := strings.Repeat("Please summarise the attached report in 300 words; prices are US$4.50, v1.2.3, 10:30 on 2026-10-07. ", 42)[:4096]
	b.SetBytes(int64(len(clean)))
	b.ReportAllocs()
	for b.Loop() {
		screen.Redact(clean)
	}
}

func BenchmarkScreen4KB(b *testing.B) {
	b.SetBytes(int64(len(message4KB)))
	b.ReportAllocs()
	for b.Loop() {
		injection.Screen(message4KB)
	}
}

// BenchmarkContactCorpus redacts the whole contact corpus per iteration and reports its recall and
// false-positive rate (share of clean texts changed).
func BenchmarkContactCorpus(b *testing.B) {
	st := measureContacts(b)
	texts := loadCorpus(b, "contact_*.txt")
	texts = append(texts, loadCorpus(b, "clean*.txt")...)
	b.ResetTimer()
	for b.Loop() {
		for _, s := range texts {
			screen.Redact(s.text)
		}
	}
	b.ReportMetric(st.recall(), "recall")
	b.ReportMetric(st.fpRate(), "fp-rate")
	b.ReportMetric(float64(st.positives), "positives")
	b.ReportMetric(float64(st.cleans), "cleans")
}

// BenchmarkInjectionCorpus screens the injection corpus per iteration and reports the share of
// injections flagged and of benign texts flagged.
func BenchmarkInjectionCorpus(b *testing.B) {
	st := measureInjections(b)
	texts := append(loadCorpus(b, "injection*.txt"), loadCorpus(b, "clean*.txt")...)
	b.ResetTimer()
	for b.Loop() {
		for _, s := range texts {
			injection.Screen(s.text)
		}
	}
	b.ReportMetric(st.recall(), "recall")
	b.ReportMetric(st.fpRate(), "fp-rate")
	b.ReportMetric(float64(st.positives), "positives")
	b.ReportMetric(float64(st.benign), "benign")
}

// BenchmarkListingCorpus checks the listing corpus per iteration and reports the share of
// forbidden briefs rejected and of allowed briefs rejected.
func BenchmarkListingCorpus(b *testing.B) {
	st := measureListing(b)
	texts := append(loadCorpus(b, "listing_reject.txt"), loadCorpus(b, "listing_allow.txt")...)
	b.ResetTimer()
	for b.Loop() {
		for _, s := range texts {
			listing.Listing("task", s.text, nil)
		}
	}
	b.ReportMetric(float64(st.caught)/float64(st.rejects), "recall")
	b.ReportMetric(float64(st.wronglyRejected)/float64(st.allows), "fp-rate")
}

// BenchmarkInjectionHeldout measures injection screening on texts written after the rules and never
// used to tune them: the honest figure of how the screen generalises (heldout-recall of attacks
// flagged, heldout-fp-rate of benign texts flagged). Not asserted: it is a tripwire, and texts are
// always kept as data.
func BenchmarkInjectionHeldout(b *testing.B) {
	attacks, benign := loadCorpus(b, "heldout_injection.txt"), loadCorpus(b, "heldout_benign.txt")
	var flagged, fp int
	for _, s := range attacks {
		if injection.Screen(s.text).Flagged {
			flagged++
		}
	}
	for _, s := range benign {
		if injection.Screen(s.text).Flagged {
			fp++
		}
	}
	b.ResetTimer()
	for b.Loop() {
		for _, s := range attacks {
			injection.Screen(s.text)
		}
	}
	b.ReportMetric(float64(flagged)/float64(len(attacks)), "heldout-recall")
	b.ReportMetric(float64(fp)/float64(len(benign)), "heldout-fp-rate")
	b.ReportMetric(float64(len(attacks)), "attacks")
	b.ReportMetric(float64(len(benign)), "benign")
}

// BenchmarkSecretCorpus looks for credentials in the credential corpus (deliverables with secrets,
// look-alikes) and the clean corpus per iteration and reports recall, false-positive rate (share
// of look-alikes and clean texts changed) and, through SetBytes, MB/s.
func BenchmarkSecretCorpus(b *testing.B) {
	st := measureSecrets(b)
	texts := append(loadCorpus(b, "credential_*.txt"), loadCorpus(b, "clean*.txt")...)
	n := 0
	for _, s := range texts {
		n += len(s.text)
	}
	b.SetBytes(int64(n))
	b.ResetTimer()
	for b.Loop() {
		for _, s := range texts {
			screen.FindSecrets(s.text)
		}
	}
	b.ReportMetric(st.recall(), "recall")
	b.ReportMetric(st.fpRate(), "fp-rate")
	b.ReportMetric(float64(st.positives), "positives")
	b.ReportMetric(float64(st.cleans), "cleans")
	b.ReportMetric(float64(len(st.kinds)), "kinds")
}

// BenchmarkSecretHeldout looks for credentials in each held-out set (texts and look-alikes
// written apart from the rules) and reports its recall and false-positive rate. Not asserted.
func BenchmarkSecretHeldout(b *testing.B) {
	for _, h := range heldoutSecrets {
		b.Run(h.name, func(b *testing.B) {
			st := measureSecretsIn(b, h.secrets, h.lookalikes)
			texts := append(loadCorpus(b, h.secrets), loadCorpus(b, h.lookalikes)...)
			b.ResetTimer()
			for b.Loop() {
				for _, s := range texts {
					screen.FindSecrets(s.text)
				}
			}
			b.ReportMetric(st.recall(), "recall")
			b.ReportMetric(st.fpRate(), "fp-rate")
			b.ReportMetric(float64(st.positives), "positives")
			b.ReportMetric(float64(st.cleans), "cleans")
		})
	}
}

func BenchmarkRedactSecrets4KB(b *testing.B) {
	b.SetBytes(int64(len(message4KB)))
	b.ReportAllocs()
	for b.Loop() {
		screen.RedactSecrets(message4KB)
	}
}

// BenchmarkNameKeys is the cost of a name's index keys, which a registration or rename pays once.
func BenchmarkNameKeys(b *testing.B) {
	for b.Loop() {
		screen.NameKeys("\u0410lice Writer")
	}
}
