package screen

import (
	"fmt"
	"strings"
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
// Cyrillic "А" of "Аdmin"), judged with the confusables of Unicode TR39 word by word, a word
// mixing Latin, Cyrillic and Greek letters, or a flood of combining marks. Names in one script,
// names whose words are each in one script ("Moscow Москва") and mixes whose letters do not
// imitate each other ("Tokyo 東京") pass. Hidden characters are axp.CheckName's to refuse.
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
	for _, word := range strings.FieldsFunc(name, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsMark(r) }) {
		if p := mixedWord(word); p != "" {
			return p
		}
	}
	return ""
}

// alphabets are the scripts whose letters pass for each other so often that no word may mix
// them: a word in Latin with one Cyrillic or Greek letter is how a look-alike is spelt.
var alphabets = map[string]bool{"Latin": true, "Cyrillic": true, "Greek": true}

// mixedWord says why one word mixes scripts, or "": Latin, Cyrillic and Greek letters never
// share a word; other scripts do (Japanese writes one word in kanji and kana), so there only a
// letter that passes for a letter of another script the word uses is refused.
func mixedWord(word string) string {
	scripts := map[string]rune{}
	for _, r := range word {
		if s := scriptOf(r); s != "" {
			if _, ok := scripts[s]; !ok {
				scripts[s] = r
			}
		}
	}
	if len(scripts) < 2 {
		return ""
	}
	for _, r := range word {
		s := scriptOf(r)
		if s == "" {
			continue
		}
		// What r passes for: letters of another script the word uses.
		for _, sr := range confusables.Skeleton(string(r)) {
			if o := scriptOf(sr); o != "" && o != s && scripts[o] != 0 {
				return fmt.Sprintf("mixes scripts: %q (U+%04X, %s) looks like the %s %q", string(r), r, s, o, string(sr))
			}
		}
	}
	for s, r := range scripts {
		for o, q := range scripts {
			if s < o && alphabets[s] && alphabets[o] {
				return fmt.Sprintf("mixes scripts in one word: %q (U+%04X) is %s and %q (U+%04X) is %s", string(r), r, s, string(q), q, o)
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

// FoldName is the form a name is stored and compared in: trimmed and NFKC-normalised, so the
// fullwidth "ｂｏｂ" and the mathematical "𝐛𝐨𝐛" become "bob" instead of passing for it.
func FoldName(name string) string {
	return strings.TrimSpace(norm.NFKC.String(strings.TrimSpace(name)))
}

// nameKeys are the skeletons two names are compared by: the confusable skeleton (Unicode TR39)
// of the folded name taken before and after lower-casing. Lower-casing first makes "ALICE" and
// "alice" meet and keeps the look-alikes that exist only in small letters (the Greek "ν" for
// "v"); the skeleton first keeps those that exist only in capitals (the Cyrillic "В" for "B").
func nameKeys(name string) [2]string {
	f := FoldName(name)
	return [2]string{confusables.Skeleton(strings.ToLower(f)), strings.ToLower(confusables.Skeleton(f))}
}

// NameKeysRev names the comparison NameKeys files names by. Anything that changes a name's keys
// (nameKeys, FoldName, the confusables tables of a new release) changes it, so that the store's
// index of member names is filled again before it is next used; TestNameKeysPinned fails when a
// key moves without it.
const NameKeysRev = "1"

// NameKeys are the index keys of a name: two names read alike (LookAlike) exactly when they share
// a key. Each skeleton has its own prefix, since LookAlike compares each only with its own kind.
func NameKeys(name string) []string {
	k := nameKeys(name)
	return []string{"l:" + k[0], "s:" + k[1]}
}

// LookAlike reports whether two names read alike: the same letters up to case, compatibility
// forms and letters of other scripts that pass for them ("Аӏісе" in Cyrillic and "Alice").
func LookAlike(a, b string) bool {
	ka, kb := nameKeys(a), nameKeys(b)
	return ka[0] == kb[0] || ka[1] == kb[1]
}
