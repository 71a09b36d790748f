package protocol

import (
	"fmt"
	"regexp"
	"strings"
	"unicode"

	"golang.org/x/text/unicode/norm"
)

// taskTypeRe is what a task type is, wherever one comes from outside (a task, a seller's skill,
// interest, a filter): a slug of lowercase ASCII letters, digits, '-' and '_', like the catalog's
// text-file. Struct tags repeat TaskTypePattern literally; the validator answers a mismatch with
// CheckTaskType's message.
var taskTypeRe = regexp.MustCompile(TaskTypePattern)

// taskTypeHint says what a task type looks like.
const taskTypeHint = "a task type is a slug: 2 to 41 lowercase ASCII letters, digits, '-' or '_', starting with a letter or digit, e.g. text-file"

// CheckTaskType refuses s when it is not a task type. Types are published (demand, skills,
// filters) and matched byte for byte, so look-alike letters, fullwidth forms, variation selectors
// and blank fillers would make a type that reads as another and matches nothing. When the
// compatibility-folded lowercase form is a slug ("ｖｉｄｅｏ", "𝐯𝐢𝐝𝐞𝐨"), the hint suggests it.
func CheckTaskType(field, s string) *Error {
	if taskTypeRe.MatchString(s) {
		return nil
	}
	hint := taskTypeHint
	if f := suggestTaskType(s); f != s && taskTypeRe.MatchString(f) {
		hint = fmt.Sprintf("did you mean %q? ", f) + hint
	}
	return Invalid(field, fmt.Sprintf("%q is not a task type", clip(s)), hint)
}

// suggestTaskType is s lower-cased in its compatibility form, without the characters that are
// drawn as nothing (format characters, variation selectors, blank fillers).
func suggestTaskType(s string) string {
	return strings.Map(func(r rune) rune {
		if unicode.In(r, unicode.Cf, unicode.Variation_Selector, unicode.Other_Default_Ignorable_Code_Point) {
			return -1
		}
		return unicode.ToLower(r)
	}, norm.NFKC.String(s))
}
