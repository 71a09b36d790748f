package protocol

import (
	"fmt"
	"math/big"
	"strconv"
	"strings"
)

// Money is an amount of US dollars in integer micro-USD (1 USD = 1,000,000), the unit of a
// 6-decimal stablecoin. It travels in JSON as a decimal USD number (4.25), parsed exactly from the
// number's text: money never passes through a float.
type Money int64

// Micro is the number of micro-USD in one US dollar.
const Micro Money = 1_000_000

// USD builds an amount from whole dollars and cents.
func USD(dollars, cents int64) Money { return Money(dollars)*Micro + Money(cents)*10_000 }

// ParseMoney reads a decimal USD amount written as a JSON number, such as "4", "0.25" or "1e2".
// More than six decimals is an error rather than a silent rounding; so are fractions ("1/2") and
// other bases ("0x10"), which are not JSON numbers.
func ParseMoney(s string) (Money, error) {
	s = strings.TrimSpace(s)
	if m, ok := parsePlainDecimal(s); ok {
		return m, nil
	}
	r, problem := parseNumber(s)
	if problem != "" {
		if problem == notANumber {
			return 0, fmt.Errorf("%q is not a number", s)
		}
		return 0, fmt.Errorf("%s is out of range", clip(s))
	}
	r.Mul(r, big.NewRat(int64(Micro), 1))
	if !r.IsInt() {
		return 0, fmt.Errorf("%s has more than 6 decimals", s)
	}
	n := r.Num()
	if !n.IsInt64() || n.Int64() > 1e15 || n.Int64() < -1e15 {
		return 0, fmt.Errorf("%s is out of range", s)
	}
	return Money(n.Int64()), nil
}

// String renders the amount as a decimal USD number with no trailing zeros ("4", "0.2", "1.25").
func (m Money) String() string {
	var buf [24]byte
	return string(m.append(buf[:0]))
}

// append appends the amount as String renders it. (A quote round writes thousands of amounts: in
// its quotes, its events and its answer.)
func (m Money) append(b []byte) []byte {
	u := uint64(m) // two's complement: -m as uint64 is right even for the most negative value
	if m < 0 {
		u = -u
		b = append(b, '-')
	}
	whole, frac := u/uint64(Micro), u%uint64(Micro)
	b = strconv.AppendUint(b, whole, 10)
	if frac != 0 {
		var digits [6]byte
		for i := len(digits) - 1; i >= 0; i-- {
			digits[i] = byte('0' + frac%10)
			frac /= 10
		}
		n := len(digits)
		for digits[n-1] == '0' {
			n--
		}
		b = append(append(b, '.'), digits[:n]...)
	}
	return b
}

// Display renders the amount for people: "US$4.00", "US$1,250.50", "-US$0.005": two decimals,
// more only when sub-cent amounts matter, thousands separated.
func (m Money) Display() string {
	s, sign := m.String(), ""
	if rest, ok := strings.CutPrefix(s, "-"); ok {
		s, sign = rest, "-"
	}
	whole, frac, _ := strings.Cut(s, ".")
	for len(frac) < 2 {
		frac += "0"
	}
	var b strings.Builder
	for i, r := range whole {
		if i > 0 && (len(whole)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(r)
	}
	return sign + "US$" + b.String() + "." + frac
}

// Cents rounds the amount to whole cents, half away from zero.
func (m Money) Cents() int64 {
	c := int64(m) / 10_000
	rem := int64(m) % 10_000
	if rem >= 5_000 {
		c++
	} else if rem <= -5_000 {
		c--
	}
	return c
}

// Decimals is the number of decimals needed to write the amount exactly (0 to 6).
func (m Money) Decimals() int {
	if m < 0 {
		m = -m
	}
	frac := int64(m % Micro)
	if frac == 0 {
		return 0
	}
	d := 6
	for frac%10 == 0 {
		frac /= 10
		d--
	}
	return d
}

// MarshalJSON writes the amount as a JSON number of USD.
func (m Money) MarshalJSON() ([]byte, error) { return m.append(make([]byte, 0, 16)), nil }

// UnmarshalJSON reads a JSON number of USD exactly.
func (m *Money) UnmarshalJSON(b []byte) error {
	s := string(b)
	if s == "null" {
		return nil
	}
	if strings.HasPrefix(s, `"`) {
		return fmt.Errorf("an amount must be a JSON number, not a string")
	}
	v, err := ParseMoney(s)
	if err != nil {
		return err
	}
	*m = v
	return nil
}

// JSONSchema describes Money in JSON Schema terms.
func (Money) JSONSchema() *Schema { return &Schema{Type: "number", Description: "US dollars"} }

// MulDiv returns m * num / den rounded half away from zero (half-up on the magnitude, so that
// rounding is symmetric for negative amounts), computed in integers (no floats). den must not be 0.
func (m Money) MulDiv(num, den int64) Money {
	p := new(big.Int).Mul(big.NewInt(int64(m)), big.NewInt(num))
	d := big.NewInt(den)
	q, r := new(big.Int).QuoRem(p, d, new(big.Int))
	r2 := new(big.Int).Mul(new(big.Int).Abs(r), big.NewInt(2))
	if r2.Cmp(new(big.Int).Abs(d)) >= 0 {
		// QuoRem truncates toward zero: step one further away from zero, in the sign of the
		// exact quotient (the sign of p times the sign of d, not of p alone).
		if p.Sign()*d.Sign() >= 0 {
			q.Add(q, big.NewInt(1))
		} else {
			q.Sub(q, big.NewInt(1))
		}
	}
	return Money(q.Int64())
}

// parsePlainDecimal reads the common form of an amount, -?digits(.digits)? with at most 9 whole
// digits and 6 decimals, in integers; anything else takes the exact general path.
func parsePlainDecimal(s string) (Money, bool) {
	neg := strings.HasPrefix(s, "-")
	if neg {
		s = s[1:]
	}
	whole, frac, dot := strings.Cut(s, ".")
	if len(whole) == 0 || len(whole) > 9 || (len(whole) > 1 && whole[0] == '0') || (dot && (len(frac) == 0 || len(frac) > 6)) {
		return 0, false
	}
	var m int64
	for _, c := range whole {
		if c < '0' || c > '9' {
			return 0, false
		}
		m = m*10 + int64(c-'0')
	}
	m *= int64(Micro)
	scale := int64(Micro) / 10
	for _, c := range frac {
		if c < '0' || c > '9' {
			return 0, false
		}
		m += int64(c-'0') * scale
		scale /= 10
	}
	if neg {
		m = -m
	}
	return Money(m), true
}
