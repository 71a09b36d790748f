package screen

import (
	"slices"
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
		ka, kb := NameKeys(c.a), NameKeys(c.b)
		if shared := ka[0] == kb[0] || ka[1] == kb[1] || ka[0] == kb[1] || ka[1] == kb[0]; shared != c.same {
			t.Errorf("NameKeys(%q) = %q and NameKeys(%q) = %q: a key shared is %v, want %v", c.a, ka, c.b, kb, shared, c.same)
		}
	}
}

// The store files member names under NameKeys with the revision NameKeysRev. A change that moves
// a key (to nameKeys, FoldName or the confusables tables of a new release) must change the
// revision too, or names filed before it would be compared by the old keys: update the keys
// below and NameKeysRev together.
func TestNameKeysPinned(t *testing.T) {
	const rev = "1"
	for name, want := range map[string][]string{
		"Alice":              {"l:alice", "s:alice"},
		"\u0412\u041E\u0412": {"l:\u0299o\u0299", "s:bob"},
		"\u03BDideo":         {"l:video", "s:video"},
		"\uFF42\uFF4F\uFF42": {"l:bob", "s:bob"},
		"Tide Reader 7":      {"l:tide reader 7", "s:tide reader 7"},
		"rn Inc":             {"l:rn inc", "s:rn lnc"},
	} {
		if got := NameKeys(name); !slices.Equal(got, want) || NameKeysRev != rev {
			t.Errorf("NameKeys(%q) = %q (revision %s), pinned %q (revision %s): a change of keys needs a new NameKeysRev", name, got, NameKeysRev, want, rev)
		}
	}
}
