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
	b, err := ReadFile(s.In, file)
	if err != nil {
		return "", Usagef("%s-file: %v", flag, err)
	}
	return strings.TrimRight(string(b), "\n"), nil
}

// ReadFile reads the file name, or in when name is "-".
func ReadFile(in io.Reader, name string) ([]byte, error) {
	if name == "-" {
		return io.ReadAll(in)
	}
	return os.ReadFile(name)
}

// MaxChars checks a text's length in characters before it is sent.
func MaxChars(flag, v string, n int) error {
	if c := utf8.RuneCountInString(v); c > n {
		return Usagef("%s is %d characters; at most %d", flag, c, n)
	}
	return nil
}
