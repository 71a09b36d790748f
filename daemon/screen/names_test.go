package screen

import (
	"strings"
	"testing"
)

func TestNameProblem(t *testing.T) {
	for name, bad := range map[string]bool{
		"\u0410dmin":  true, // Cyrillic А, Latin dmin
		"p\u0430ypal": true, // Cyrillic а inside Latin
		"G\u03BFogle": true, // Greek omicron
		"Z" + strings.Repeat("\u0301", 5) + "algo": true,
		"a\u0301b\u0301c\u0301d\u0301e\u0301":      false, // one mark per letter
		"Vi\u1EC7t Nam":                            false, // two marks in NFD
		"Admin":                                    false,
		"\u0410\u0434\u043C\u0438\u043D":           false, // all Cyrillic
		"Tokyo \u6771\u4EAC":                       false,
		"\u03A3\u03BF\u03C6\u03AF\u03B1":           false, // all Greek
		"agent 42":                                 false,
		"":                                         false,
	} {
		if got := NameProblem(name) != ""; got != bad {
			t.Errorf("NameProblem(%q) = %q, want refused %v", name, NameProblem(name), bad)
		}
	}
}

// A word mixing Latin, Cyrillic and Greek is refused even when the odd letter imitates nothing;
// words each in one script are not.
func TestNameProblemMixedWord(t *testing.T) {
	for name, bad := range map[string]bool{
		"\u0416ohn":  true, // Cyrillic Ж before Latin ohn
		"Smit\u03C9": true, // Greek ω at the end of a Latin word
		"Moscow \u041C\u043E\u0441\u043A\u0432\u0430": false, // Latin word, Cyrillic word
		"\u0410\u043B\u0438\u0441\u0430":              false, // Алиса
	} {
		if got := NameProblem(name) != ""; got != bad {
			t.Errorf("NameProblem(%q) = %q, want refused %v", name, NameProblem(name), bad)
		}
	}
}

func TestFoldName(t *testing.T) {
	for in, want := range map[string]string{
		" \uFF42\uFF4F\uFF42 ":           "bob", // fullwidth
		"\U0001D41B\U0001D428\U0001D41B": "bob", // mathematical bold
		"\u0410\u043B\u0438\u0441\u0430": "\u0410\u043B\u0438\u0441\u0430",
		"Vie\u0323\u0302t":               "Vi\u1EC7t", // composed
	} {
		if got := FoldName(in); got != want {
			t.Errorf("FoldName(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestLookAlike(t *testing.T) {
	for _, c := range []struct {
		a, b string
		same bool
	}{
		{"Alice", "alice", true},
		{"Alice", "ALICE", true},
		{"Alice", "\u0410lice", true},                      // Cyrillic А
		{"ape", "\u0430\u0440\u0435", true},                // all Cyrillic а р е
		{"BOB", "\u0412\u041E\u0412", true},                // capitals only: В О В
		{"video", "\u03BDideo", true},                      // Greek ν
		{"bob", "\uFF42\uFF4F\uFF42", true},                // fullwidth
		{"bob", "\U0001D41B\U0001D428\U0001D41B", true},    // mathematical bold
		{"Alice", "\u0410\u043B\u0438\u0441\u0430", false}, // Алиса is another name
		{"Alice", "Alicia", false},
		{"agent 1", "agent 2", false},
	} {
		if got := LookAlike(c.a, c.b); got != c.same {
			t.Errorf("LookAlike(%q, %q) = %v, want %v", c.a, c.b, got, c.same)
		}
	}
}
