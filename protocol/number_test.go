package protocol

import (
	"math/big"
	"math/rand/v2"
	"strconv"
	"testing"
)

// shortDecimal reads exactly what big.Rat's SetString reads, in lowest terms.
func TestShortDecimal(t *testing.T) {
	cases := []string{"0", "-0", "0.0", "0.000", "1", "-1", "2.5", "4.50", "4.555", "0.01", "-0.01", "100000",
		"43200", "15", "30.0", "0.125", "999999999999999999", "-999999999999999999", "0.000000000000000001",
		"123456789.123456789", "1.0000000000000000", "20.48", "0.2", "0.200002"}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 2000 {
		n := strconv.FormatInt(rng.Int64N(1e12), 10)
		if k := rng.IntN(len(n) + 1); k > 0 && k < len(n) {
			n = n[:k] + "." + n[k:]
		}
		if rng.IntN(3) == 0 {
			n = "-" + n
		}
		cases = append(cases, n)
	}
	for _, s := range cases {
		if !isJSONNumber(s) {
			continue
		}
		got, ok := shortDecimal(s)
		if !ok {
			if digitCount(s) <= 18 {
				t.Fatalf("%s: not read", s)
			}
			continue
		}
		want, _ := new(big.Rat).SetString(s)
		if got.Cmp(want) != 0 || got.Num().Cmp(want.Num()) != 0 || got.Denom().Cmp(want.Denom()) != 0 || got.IsInt() != want.IsInt() {
			t.Fatalf("%s: %s, want %s", s, got.RatString(), want.RatString())
		}
	}
	for _, s := range []string{"1e5", "1E-2", "1.5e3", "1234567890123456789"} {
		if _, ok := shortDecimal(s); ok {
			t.Fatalf("%s was read as a short decimal", s)
		}
	}
}

func digitCount(s string) int {
	n := 0
	for _, c := range s {
		if c >= '0' && c <= '9' {
			n++
		}
	}
	return n
}
