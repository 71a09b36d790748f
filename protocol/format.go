package protocol

import (
	"net/mail"
	"net/url"
	"strings"
	"time"

	"golang.org/x/crypto/sha3"
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
			if len(s) == 42 && strings.HasPrefix(s, "0x") && isHex(s[2:]) {
				return Invalid(field, "has a wrong EIP-55 checksum: a letter's case does not match the address", "copy the address again from the wallet, or give it in lower case")
			}
			return Invalid(field, "must be an EVM address: 0x followed by 40 hex digits", "")
		}
	}
	return nil
}

// IsEVMAddress reports whether s is 0x followed by 40 hex digits, and, when the digits mix upper
// and lower case, whether the case is a valid EIP-55 checksum (a mistyped letter is caught).
func IsEVMAddress(s string) bool { return isEVMAddress(s) }

func isEVMAddress(s string) bool {
	if len(s) != 42 || !strings.HasPrefix(s, "0x") || !isHex(s[2:]) {
		return false
	}
	body := s[2:]
	lower := strings.ToLower(body)
	if body == lower || body == strings.ToUpper(body) {
		return true
	}
	return ChecksumAddress(s) == s
}

func isHex(s string) bool {
	for _, c := range s {
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F') {
			return false
		}
	}
	return true
}

// ChecksumAddress returns a 0x-prefixed 40-hex-digit address in its EIP-55 mixed-case form: a
// letter is upper case where the matching nibble of keccak256(lower-case hex) is 8 or more.
func ChecksumAddress(s string) string {
	lower := strings.ToLower(s[2:])
	h := sha3.NewLegacyKeccak256()
	h.Write([]byte(lower))
	sum := h.Sum(nil)
	out := []byte(lower)
	for i, c := range out {
		nibble := sum[i/2]
		if i%2 == 0 {
			nibble >>= 4
		}
		if c >= 'a' && nibble&0xf >= 8 {
			out[i] = c - 'a' + 'A'
		}
	}
	return "0x" + string(out)
}
