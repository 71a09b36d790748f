package screen

import (
	"strings"
	"unicode/utf8"
)

// ScreenView is the normalised lowercase text the patterns run on, with one space between words
// and letters spaced out to dodge filters joined again.
func ScreenView(text string) *view {
	a := FoldCase(text, true)
	v := newView(len(a.B))
	s := a.B
	for i := 0; i < len(s); {
		c := s[i]
		if isBlank(c) || c == '\r' {
			j := i
			for j < len(s) && (isBlank(s[j]) || s[j] == '\r') {
				j++
			}
			if len(v.B) > 0 && v.B[len(v.B)-1] != ' ' && v.B[len(v.B)-1] != '\n' {
				v.push(' ', int(a.start[i]), int(a.end[j-1]), false)
			}
			i = j
			continue
		}
		// "i g n o r e  a l l": single letters separated by one blank, words by more
		if (i == 0 || isSpace(s[i-1])) && isAlpha(c) && i+1 < len(s) && s[i+1] == ' ' && i+3 < len(s) && isAlpha(s[i+2]) && s[i+3] == ' ' {
			j := i
			letters := 0
			for j < len(s) && isAlpha(s[j]) && (j+1 == len(s) || isSpace(s[j+1])) {
				letters++
				if j+2 < len(s) && s[j+1] == ' ' && isAlpha(s[j+2]) && (j+3 == len(s) || isSpace(s[j+3])) {
					j += 2
					continue
				}
				j++
				break
			}
			if letters >= 4 {
				for k := i; k < j; k++ {
					if isAlpha(s[k]) {
						v.push(lower(s[k]), int(a.start[k]), int(a.end[k]), true)
					}
				}
				i = j
				continue
			}
		}
		v.copyFrom(a, i)
		v.B[len(v.B)-1] = lower(c)
		i++
	}
	return v
}

func lower(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

// Leet undoes digit-for-letter spelling inside words ("1gn0r3 pr3v10us"), byte for byte.
func Leet(b []byte) ([]byte, bool) {
	out := make([]byte, len(b))
	copy(out, b)
	changed := false
	for i := 0; i < len(b); {
		if !isWordByte(b[i]) && b[i] != '@' && b[i] != '$' {
			i++
			continue
		}
		j := i
		letters, digits := 0, 0
		for j < len(b) && (isWordByte(b[j]) || b[j] == '@' || b[j] == '$') {
			if isAlpha(b[j]) {
				letters++
			} else if IsDigit(b[j]) && leetMap[b[j]] != 0 {
				digits++
			}
			j++
		}
		// "@" and "$" alone are e-mail addresses and prices, not leet
		if letters >= 2 && digits >= 1 {
			for k := i; k < j; k++ {
				if r := leetMap[b[k]]; r != 0 {
					out[k] = r
					changed = true
				}
			}
		}
		i = j
	}
	return out, changed
}

var leetMap = [256]byte{'0': 'o', '1': 'i', '3': 'e', '4': 'a', '5': 's', '7': 't', '@': 'a', '$': 's'}

// Segments splits the normalised text into lines and sentences; the patterns never need to look
// across them, and trying each only where its trigger words occur keeps Screen fast.
func Segments(str string) [][2]int {
	var segs [][2]int
	st := 0
	for i := 0; i < len(str); i++ {
		c := str[i]
		end := -1
		switch {
		case c == '\n':
			end = i
		case (c == '.' || c == '!' || c == '?') && i+1 < len(str) && str[i+1] == ' ':
			end = i + 1
		}
		if end >= 0 {
			if end > st {
				segs = append(segs, [2]int{st, end})
			}
			st = i + 1
		}
	}
	if st < len(str) {
		segs = append(segs, [2]int{st, len(str)})
	}
	return segs
}

// Excerpt shortens a passage for a finding: blanks collapsed, at most 120 characters.
func Excerpt(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if utf8.RuneCountInString(s) > 120 {
		r := []rune(s)
		s = string(r[:117]) + "..."
	}
	return s
}
