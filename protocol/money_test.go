package protocol_test

import (
	"encoding/json"
	"math"
	"strings"
	"testing"

	"github.com/axp-exchange/axp/protocol"
)

func TestUSD(t *testing.T) {
	if got := protocol.USD(4, 25); got != 4_250_000 {
		t.Fatalf("USD(4, 25) = %d, want 4250000", got)
	}
	if protocol.Micro != 1_000_000 {
		t.Fatalf("Micro = %d", protocol.Micro)
	}
}

func TestParseMoney(t *testing.T) {
	ok := []struct {
		in   string
		want protocol.Money
	}{
		{"4", 4_000_000},
		{"0.25", 250_000},
		{"0.2", 200_000},
		{"1e2", 100_000_000},
		{"1E2", 100_000_000},
		{"2.5e-1", 250_000},
		{"0.000001", 1},
		{"0", 0},
		{"-0", 0},
		{"-1.5", -1_500_000},
		{" 3.10 ", 3_100_000},
		{"100000", 100_000_000_000},
		{"1000000000", 1e15},
		{"-1000000000", -1e15},
	}
	for _, c := range ok {
		got, err := protocol.ParseMoney(c.in)
		if err != nil || got != c.want {
			t.Errorf("ParseMoney(%q) = %d, %v; want %d", c.in, got, err, c.want)
		}
	}
	bad := []struct{ in, msg string }{
		{"", "not a number"},
		{"abc", "not a number"},
		{"0.0000001", "more than 6 decimals"},
		{"1.2345678", "more than 6 decimals"},
		{"1/2", "not a number"},   // big.Rat would read a fraction
		{"0x10", "not a number"},  // ... and hexadecimal
		{"1_000", "not a number"}, // ... and underscores
		{"Inf", "not a number"},   //
		{"NaN", "not a number"},   //
		{".5", "not a number"},    // not JSON number grammar
		{"+5", "not a number"},    //
		{"05", "not a number"},    //
		{"1e", "not a number"},    //
		{"1000000000.000001", "out of range"},
		{"1e16", "out of range"},
		{"1e9999999", "out of range"}, // refused quickly, not expanded
		{"1e-9999999", "out of range"},
	}
	for _, c := range bad {
		got, err := protocol.ParseMoney(c.in)
		if err == nil || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("ParseMoney(%q) = %d, %v; want an error containing %q", c.in, got, err, c.msg)
		}
	}
}

func TestMoneyString(t *testing.T) {
	cases := []struct {
		m    protocol.Money
		want string
	}{
		{0, "0"},
		{protocol.USD(4, 0), "4"},
		{protocol.USD(0, 20), "0.2"},
		{protocol.USD(1, 25), "1.25"},
		{1, "0.000001"},
		{1_234_567, "1.234567"},
		{-protocol.USD(1, 50), "-1.5"},
		{-1, "-0.000001"},
		{protocol.Money(math.MinInt64), "-9223372036854.775808"},
		{protocol.Money(math.MaxInt64), "9223372036854.775807"},
	}
	for _, c := range cases {
		if got := c.m.String(); got != c.want {
			t.Errorf("Money(%d).String() = %q, want %q", int64(c.m), got, c.want)
		}
		if got, err := c.m.MarshalJSON(); string(got) != c.want || err != nil {
			t.Errorf("Money(%d).MarshalJSON() = %q, %v, want %q", int64(c.m), got, err, c.want)
		}
		if c.m > -1e15 && c.m < 1e15 {
			back, err := protocol.ParseMoney(c.m.String())
			if err != nil || back != c.m {
				t.Errorf("ParseMoney(String(%d)) = %d, %v", int64(c.m), back, err)
			}
		}
	}
}

// TestMoneyRendersInOneAllocation: an amount is rendered without scratch strings (a quote round
// renders thousands: in its quotes, its events and its answer).
func TestMoneyRendersInOneAllocation(t *testing.T) {
	m := -protocol.USD(1234, 56) - 7
	if n := testing.AllocsPerRun(100, func() { _ = m.String() }); n > 1 {
		t.Errorf("String allocates %.0f times, want 1", n)
	}
	if n := testing.AllocsPerRun(100, func() { m.MarshalJSON() }); n > 1 {
		t.Errorf("MarshalJSON allocates %.0f times, want 1", n)
	}
}

func TestMoneyDisplay(t *testing.T) {
	cases := []struct {
		m    protocol.Money
		want string
	}{
		{0, "US$0.00"},
		{protocol.USD(4, 0), "US$4.00"},
		{protocol.USD(0, 20), "US$0.20"},
		{protocol.USD(1, 25), "US$1.25"},
		{1_234_500, "US$1.2345"},
		{-protocol.USD(3, 50), "-US$3.50"},
		{protocol.USD(1250, 50), "US$1,250.50"},
		{protocol.USD(1_000_000, 0), "US$1,000,000.00"},
		{protocol.USD(999, 0), "US$999.00"},
		{-5_000, "-US$0.005"},
	}
	for _, c := range cases {
		if got := c.m.Display(); got != c.want {
			t.Errorf("Money(%d).Display() = %q, want %q", int64(c.m), got, c.want)
		}
	}
}

func TestMoneyCentsHalfUp(t *testing.T) {
	cases := []struct {
		m    protocol.Money
		want int64
	}{
		{0, 0},
		{protocol.USD(4, 0), 400},
		{4_004_999, 400},
		{4_005_000, 401}, // half a cent rounds up
		{4_005_001, 401},
		{4_009_999, 401},
		{4_999, 0},
		{5_000, 1},
		{-4_999, 0},
		{-5_000, -1}, // symmetric: half away from zero
		{-4_005_000, -401},
		{-4_004_999, -400},
	}
	for _, c := range cases {
		if got := c.m.Cents(); got != c.want {
			t.Errorf("Money(%d).Cents() = %d, want %d", int64(c.m), got, c.want)
		}
	}
}

func TestMoneyDecimals(t *testing.T) {
	cases := []struct {
		m    protocol.Money
		want int
	}{
		{0, 0},
		{protocol.USD(7, 0), 0},
		{protocol.USD(0, 50), 1},
		{protocol.USD(1, 25), 2},
		{1_001_000, 3},
		{1_000_100, 4},
		{1_000_010, 5},
		{1_000_001, 6},
		{-1_250_000, 2},
		{-1, 6},
	}
	for _, c := range cases {
		if got := c.m.Decimals(); got != c.want {
			t.Errorf("Money(%d).Decimals() = %d, want %d", int64(c.m), got, c.want)
		}
	}
}

func TestMoneyMulDiv(t *testing.T) {
	cases := []struct {
		m        protocol.Money
		num, den int64
		want     protocol.Money
	}{
		{protocol.USD(4, 0), 100, 10_000, protocol.USD(0, 4)}, // 1% of 4.00
		{50, 100, 10_000, 1}, // 0.5 micro rounds up
		{49, 100, 10_000, 0}, // 0.49 rounds down
		{150, 1, 100, 2},     // 1.5 -> 2
		{149, 1, 100, 1},
		{protocol.USD(2, 0), 500, 1000, protocol.USD(1, 0)},
		{protocol.USD(0, 2), 26, 1, protocol.USD(0, 52)},
		{7, 1, 3, 2},           // 2.33 -> 2
		{5, 1, 3, 2},           // 1.67 -> 2
		{1, 1, 2, 1},           // 0.5 -> 1
		{-50, 100, 10_000, -1}, // -0.5 -> -1 (half away from zero)
		{-49, 100, 10_000, 0},  // -0.49 -> 0
		{-150, 1, 100, -2},     // -1.5 -> -2
		{150, -1, 100, -2},     // negative numerator
		{150, 1, -100, -2},     // negative denominator: the quotient is -1.5
		{3, 1, -2, -2},         // -1.5 -> -2, not -1
		{-3, 1, -2, 2},         // +1.5 -> 2
		{-7, 1, -3, 2},         // 2.33 -> 2
		{protocol.Money(math.MaxInt64 / 2), 2, 2, protocol.Money(math.MaxInt64 / 2)}, // no overflow in between
	}
	for _, c := range cases {
		if got := c.m.MulDiv(c.num, c.den); got != c.want {
			t.Errorf("Money(%d).MulDiv(%d, %d) = %d, want %d", int64(c.m), c.num, c.den, got, c.want)
		}
	}
}

func TestMoneyJSON(t *testing.T) {
	type box struct {
		Price protocol.Money  `json:"price"`
		Opt   *protocol.Money `json:"opt,omitempty"`
	}
	b, err := json.Marshal(box{Price: protocol.USD(4, 25)})
	if err != nil || string(b) != `{"price":4.25}` {
		t.Fatalf("Marshal = %s, %v", b, err)
	}

	var got box
	if err := json.Unmarshal([]byte(`{"price":0.1,"opt":19.99}`), &got); err != nil {
		t.Fatal(err)
	}
	if got.Price != 100_000 || got.Opt == nil || *got.Opt != 19_990_000 {
		t.Fatalf("Unmarshal = %+v (opt %v)", got, got.Opt)
	}

	// Round trip of awkward values, never through a float.
	for _, m := range []protocol.Money{0, 1, 999_999, 123_456_789_012, -2_500_000} {
		b, err := json.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		var back protocol.Money
		if err := json.Unmarshal(b, &back); err != nil || back != m {
			t.Errorf("round trip %d -> %s -> %d, %v", int64(m), b, int64(back), err)
		}
	}

	// A JSON string is refused, even when it holds a number.
	var m protocol.Money
	err = json.Unmarshal([]byte(`"4.25"`), &m)
	if err == nil || !strings.Contains(err.Error(), "JSON number, not a string") {
		t.Fatalf("string accepted: %d, %v", m, err)
	}
	// null leaves the value alone.
	m = 7
	if err := json.Unmarshal([]byte(`null`), &m); err != nil || m != 7 {
		t.Fatalf("null: %d, %v", m, err)
	}
	// More than six decimals is an error, not a rounding.
	if err := json.Unmarshal([]byte(`1.0000001`), &m); err == nil {
		t.Fatal("7 decimals accepted")
	}
	// The schema says number.
	if s := (protocol.Money(0)).JSONSchema(); s.Type != "number" {
		t.Fatalf("schema type %v", s.Type)
	}
}
