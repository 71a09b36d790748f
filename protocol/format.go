package protocol

import (
	"net/mail"
	"net/url"
	"strings"
	"time"
)

func checkFormat(format, s, field string) *Error {
	switch format {
	case "":
		return nil
	case "uri", "http-url":
		u, err := url.Parse(s)
		if err != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https") {
			return Invalid(field, "must be an absolute http or https URL", "for example https://agent.example.com/mcp")
		}
	case "email":
		a, err := mail.ParseAddress(s)
		if err != nil || a.Address != s || !strings.Contains(s[strings.LastIndexByte(s, '@'):], ".") {
			return Invalid(field, "must be a plain email address", "for example ops@example.com")
		}
	case "date-time":
		if _, err := time.Parse(time.RFC3339, s); err != nil {
			return Invalid(field, "must be an RFC 3339 time", "for example 2026-11-21T12:00:00Z")
		}
	case "evm-address":
		if !isEVMAddress(s) {
			return Invalid(field, "must be an EVM address: 0x followed by 40 hex digits", "")
		}
	}
	return nil
}

// IsEVMAddress reports whether s is 0x followed by 40 hex digits.
func IsEVMAddress(s string) bool { return isEVMAddress(s) }

func isEVMAddress(s string) bool {
	if len(s) != 42 || !strings.HasPrefix(s, "0x") {
		return false
	}
	for _, c := range s[2:] {
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F') {
			return false
		}
	}
	return true
}
