package protocol

import (
	"encoding/json"
	"fmt"
	"math/big"
	"strconv"
)

// Limits on number text. No field of the exchange needs more; without them an exact reading of a
// number such as 1e9999999 costs seconds of CPU and megabytes of memory.
const (
	maxNumberLen = 100
	maxExponent  = 1000
)

// notANumber is the problem parseNumber reports for text outside the JSON number grammar.
const notANumber = "is not a number"

// isJSONNumber reports whether s follows the JSON number grammar (RFC 8259 section 6). math/big and
// strconv also accept fractions ("1/2"), other bases ("0x10"), underscores, "Inf" and "NaN", none of
// which is a JSON number.
func isJSONNumber(s string) bool {
	i := 0
	if i < len(s) && s[i] == '-' {
		i++
	}
	switch {
	case i >= len(s):
		return false
	case s[i] == '0':
		i++
	case s[i] >= '1' && s[i] <= '9':
		i = digits(s, i)
	default:
		return false
	}
	if i < len(s) && s[i] == '.' {
		j := digits(s, i+1)
		if j == i+1 {
			return false
		}
		i = j
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		j := digits(s, i)
		if j == i {
			return false
		}
		i = j
	}
	return i == len(s)
}

func digits(s string, i int) int {
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	return i
}

// parseNumber reads JSON number text exactly. problem is empty on success, else says what is wrong.
func parseNumber(s string) (r *big.Rat, problem string) {
	if !isJSONNumber(s) {
		return nil, notANumber
	}
	if len(s) > maxNumberLen {
		return nil, "has too many digits"
	}
	for i := 0; i < len(s); i++ {
		if s[i] == 'e' || s[i] == 'E' {
			e, err := strconv.Atoi(s[i+1:])
			if err != nil || e > maxExponent || e < -maxExponent {
				return nil, "is out of range"
			}
			break
		}
	}
	if r, ok := shortDecimal(s); ok {
		return r, ""
	}
	r, ok := new(big.Rat).SetString(s)
	if !ok {
		return nil, notANumber
	}
	return r, ""
}

// shortDecimal reads JSON number text without an exponent and with at most 18 digits (prices,
// minutes, counts: nearly every number the exchange reads) exactly, as SetString would, but
// without its general normalization: m/10^k is reduced by cancelling the factors 2 and 5 that m
// shares with 10^k, which leaves it in lowest terms. A quote round reads a thousand answers.
func shortDecimal(s string) (*big.Rat, bool) {
	var m int64
	digits, scale, frac := 0, 0, false
	neg := len(s) > 0 && s[0] == '-'
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c >= '0' && c <= '9':
			m = m*10 + int64(c-'0')
			digits++
			if frac {
				scale++
			}
			if digits > 18 {
				return nil, false
			}
		case c == '.':
			frac = true
		case c == '-' && i == 0:
		default:
			return nil, false // an exponent
		}
	}
	twos, fives := scale, scale
	if m == 0 {
		twos, fives = 0, 0
	}
	for twos > 0 && m%2 == 0 {
		m, twos = m/2, twos-1
	}
	for fives > 0 && m%5 == 0 {
		m, fives = m/5, fives-1
	}
	den := int64(1)
	for range twos {
		den *= 2
	}
	for range fives {
		den *= 5
	}
	if neg {
		m = -m
	}
	r := new(big.Rat).SetInt64(m)
	r.Denom().SetInt64(den) // in lowest terms already; Denom is r's own denominator
	return r, true
}

// numberOf reads a decoded JSON number exactly: a json.Number, or a Go number put into a value by
// code rather than by the JSON parser. ok is false when v is not a number at all.
func numberOf(v any) (r *big.Rat, text string, problem string, ok bool) {
	switch x := v.(type) {
	case json.Number:
		text = x.String()
	case int:
		text = strconv.FormatInt(int64(x), 10)
	case int8, int16, int32, int64, uint, uint8, uint16, uint32, uint64:
		text = fmt.Sprint(x)
	case float64:
		text = strconv.FormatFloat(x, 'g', -1, 64)
	case float32:
		text = strconv.FormatFloat(float64(x), 'g', -1, 32)
	default:
		return nil, "", "", false
	}
	r, problem = parseNumber(text)
	return r, text, problem, true
}
