package cmdutil

import (
	"io"
	"os"
	"strings"
	"unicode/utf8"
)

// ReadText resolves a text flag: its value, or with file set, the file's content ("-" for stdin).
// flag names the flag in messages (its file flag is flag + "-file").
func ReadText(s *IOStreams, flag, value, file string) (string, error) {
	if file == "" {
		return value, nil
	}
	if value != "" {
		return "", Usagef("give %s or %s-file, not both", flag, flag)
	}
	var b []byte
	var err error
	if file == "-" {
		b, err = io.ReadAll(s.In)
	} else {
		b, err = os.ReadFile(file)
	}
	if err != nil {
		return "", Usagef("%s-file: %v", flag, err)
	}
	return strings.TrimRight(string(b), "\n"), nil
}

// MaxChars checks a text's length in characters before it is sent.
func MaxChars(flag, v string, n int) error {
	if c := utf8.RuneCountInString(v); c > n {
		return Usagef("%s is %d characters; at most %d", flag, c, n)
	}
	return nil
}
