package protocol

import (
	"strings"
	"testing"
)

func TestCheckTaskType(t *testing.T) {
	for _, ok := range []string{"video", "text-file", "speech_to_text", "3d-model"} {
		if err := CheckTaskType("type", ok); err != nil {
			t.Errorf("CheckTaskType(%q) = %v", ok, err)
		}
	}
	for bad, suggest := range map[string]string{
		"video\uFE0F":                    "video", // variation selector folds away
		"\u3164":                         "",      // Hangul filler, drawn blank
		"\u0430\u0440\u0435":             "",      // all Cyrillic "аре"
		"\uFF56\uFF49\uFF44\uFF45\uFF4F": "video", // fullwidth
		"\U0001D42F\U0001D422\U0001D41D": "vid",   // mathematical bold
		"Video":                          "video",
		"v":                              "",
		"-video":                         "",
		"a b":                            "",
		strings.Repeat("a", 42):          "",
	} {
		err := CheckTaskType("type", bad)
		if err == nil || err.Field != "type" || !strings.Contains(err.Hint, "slug") {
			t.Errorf("CheckTaskType(%q) = %v, want a refusal of field type with the slug hint", bad, err)
			continue
		}
		if suggest != "" && !strings.Contains(err.Hint, `"`+suggest+`"`) {
			t.Errorf("CheckTaskType(%q) hint %q suggests no %q", bad, err.Hint, suggest)
		}
	}
}
