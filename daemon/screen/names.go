package screen

import (
	"fmt"
	"unicode"

	"github.com/mtibben/confusables"
	"golang.org/x/text/unicode/norm"
)

// MaxMarkRun is the most combining marks a name may stack on one character: Vietnamese needs
// two, pointed Hebrew and Indic scripts three or four; a flood ("Zalgo" text) is a way to
// overdraw the names around it.
const MaxMarkRun = 4

// NameProblem says why name is not fit to be read by others as a name, or "" when it is:
// letters of one script that pass for letters of another script the name also uses (the
// Cyrillic "А" of "Аdmin"), judged with the confusables of Unicode TR39, or a flood of combining
// marks. Names in one script, and mixes whose letters do not imitate each other ("Tokyo 東京"),
// pass. Hidden characters are axp.CheckName's to refuse.
func NameProblem(name string) string {
	d := norm.NFD.String(name)
	run, marks, bases := 0, 0, 0
	for _, r := range d {
		if unicode.In(r, unicode.Mn, unicode.Me) {
			run++
			marks++
			if run > MaxMarkRun {
				return fmt.Sprintf("stacks more than %d combining marks on one character", MaxMarkRun)
			}
			continue
		}
		run = 0
		bases++
	}
	if marks > 2*bases {
		return "holds more combining marks than it can carry"
	}
	scripts := map[string]bool{}
	for _, r := range name {
		if s := scriptOf(r); s != "" {
			scripts[s] = true
		}
	}
	if len(scripts) < 2 {
		return ""
	}
	for _, r := range name {
		s := scriptOf(r)
		if s == "" {
			continue
		}
		// What r passes for: letters of another script the name uses.
		for _, sr := range confusables.Skeleton(string(r)) {
			if o := scriptOf(sr); o != "" && o != s && scripts[o] {
				return fmt.Sprintf("mixes scripts: %q (U+%04X, %s) looks like the %s %q", string(r), r, s, o, string(sr))
			}
		}
	}
	return ""
}

// scriptOf is the script of a letter, "" for what belongs to no one script (digits, spaces,
// punctuation, marks).
func scriptOf(r rune) string {
	if !unicode.IsLetter(r) {
		return ""
	}
	for name, table := range unicode.Scripts {
		if name == "Common" || name == "Inherited" {
			continue
		}
		if unicode.Is(table, r) {
			return name
		}
	}
	return ""
}
