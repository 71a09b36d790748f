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
