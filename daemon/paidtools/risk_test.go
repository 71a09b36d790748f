package paidtools

import (
	"encoding/json"
	"net/url"
	"strings"
	"testing"

	"github.com/axp-exchange/axp"
	"github.com/axp-exchange/axp/protocol"
)

// fromQuery decodes a query string into a tool's input as the call pipeline does for a GET:
// FromQuery types the text values by the input's schema, DecodeValue validates and decodes them.
func fromQuery[T any](t *testing.T, query string) (*T, error) {
	t.Helper()
	q, err := url.ParseQuery(query)
	if err != nil {
		t.Fatal(err)
	}
	in := new(T)
	if e := protocol.DecodeValue(protocol.FromQuery(protocol.SchemaFor[T](), q, nil, "token"), in); e != nil {
		return nil, e
	}
	return in, nil
}

func TestTradingRisk(t *testing.T) {
	tests := []struct {
		name, query string
		want        axp.TradingRiskResult
	}{
		{"long", "account=10000&risk_pct=1&entry=100&stop=95", axp.TradingRiskResult{Direction: "long", PositionSize: "20",
			RiskAmount: "100", LossAtStop: "100", StopDistance: "5", StopDistancePct: "5", Notional: "2000", NotionalPct: "20", SizeDecimals: 8}},
		{"short with leverage", "account=25000&risk_pct=2&entry=1.1&stop=1.105", axp.TradingRiskResult{Direction: "short", PositionSize: "100000",
			RiskAmount: "500", LossAtStop: "500", StopDistance: "0.005", StopDistancePct: "0.4545", Notional: "110000", NotionalPct: "440", SizeDecimals: 8,
			Note: "the position is worth more than the account: it needs leverage or margin"}},
		{"whole shares", "account=10000&risk_pct=1.5&entry=33.33&stop=31.11&size_decimals=0", axp.TradingRiskResult{Direction: "long", PositionSize: "67",
			RiskAmount: "150", LossAtStop: "148.74", StopDistance: "2.22", StopDistancePct: "6.6607", Notional: "2233.11", NotionalPct: "22.33", SizeDecimals: 0}},
		{"size rounded down", "account=1000&risk_pct=1&entry=7&stop=4", axp.TradingRiskResult{Direction: "long", PositionSize: "3.33333333",
			RiskAmount: "10", LossAtStop: "9.99999999", StopDistance: "3", StopDistancePct: "42.8571", Notional: "23.33333331", NotionalPct: "2.33", SizeDecimals: 8}},
		// 0.3 - 0.1 is 0.19999999999999998 in floats; here it is 0.2 and the size exactly 1.5.
		{"exact where floats are not", "account=0.3&risk_pct=100&entry=0.3&stop=0.1", axp.TradingRiskResult{Direction: "long", PositionSize: "1.5",
			RiskAmount: "0.3", LossAtStop: "0.3", StopDistance: "0.2", StopDistancePct: "66.6667", Notional: "0.45", NotionalPct: "150", SizeDecimals: 8,
			Note: "the position is worth more than the account: it needs leverage or margin"}},
		{"risk buys nothing", "account=100&risk_pct=0.01&entry=60000&stop=59000&size_decimals=0", axp.TradingRiskResult{Direction: "long", PositionSize: "0",
			RiskAmount: "0.01", LossAtStop: "0", StopDistance: "1000", StopDistancePct: "1.6667", Notional: "0", NotionalPct: "0", SizeDecimals: 0,
			Note: "the risk amount buys no position: one unit at 0 decimals loses more than 0.01 at the stop"}},
		{"exponent and small prices", "account=1e3&risk_pct=0.5&entry=0.0000123456&stop=0.0000120000", axp.TradingRiskResult{Direction: "long", PositionSize: "14467592.59259259",
			RiskAmount: "5", LossAtStop: "5", StopDistance: "0.0000003456", StopDistancePct: "2.7994", Notional: "178.61111111", NotionalPct: "17.86", SizeDecimals: 8}},
		{"bounds allowed", "account=1000000000000000&risk_pct=100&entry=1000000000000&stop=0.0000000001", axp.TradingRiskResult{Direction: "long", PositionSize: "1000",
			RiskAmount: "1000000000000000", LossAtStop: "999999999999999.9999999", StopDistance: "999999999999.9999999999", StopDistancePct: "100", Notional: "1000000000000000", NotionalPct: "100", SizeDecimals: 8}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in, err := fromQuery[axp.TradingRiskQuery](t, tt.query)
			if err != nil {
				t.Fatal(err)
			}
			got, err := TradingRisk(in)
			if err != nil {
				t.Fatal(err)
			}
			if *got != tt.want {
				t.Errorf("got  %+v\nwant %+v", *got, tt.want)
			}
		})
	}
}

// The loss at the stop never exceeds the risk amount, and one more step of size would.
func TestTradingRiskNeverOverRisks(t *testing.T) {
	for _, q := range []string{"account=1000&risk_pct=1&entry=7&stop=4", "account=12345.67&risk_pct=0.75&entry=101.37&stop=98.11&size_decimals=2",
		"account=500&risk_pct=3&entry=0.3333&stop=0.3334&size_decimals=0"} {
		in, err := fromQuery[axp.TradingRiskQuery](t, q)
		if err != nil {
			t.Fatal(err)
		}
		got, err := TradingRisk(in)
		if err != nil {
			t.Fatal(err)
		}
		size, _ := got.PositionSize.Rat()
		loss, _ := got.LossAtStop.Rat()
		risk, _ := got.RiskAmount.Rat()
		dist, _ := got.StopDistance.Rat()
		if loss.Cmp(risk) > 0 {
			t.Errorf("%s: loss %s above risk %s", q, got.LossAtStop, got.RiskAmount)
		}
		step := pow10(got.SizeDecimals)
		step.Inv(step)
		more := size.Add(size, step)
		if more.Mul(more, dist).Cmp(risk) <= 0 {
			t.Errorf("%s: size %s is not the largest that fits", q, got.PositionSize)
		}
	}
}

// Bad query values are refused by the pipeline's decoder or by the tool, always naming the field.
func TestTradingRiskRefuses(t *testing.T) {
	tests := []struct {
		name, query, field, message string
	}{
		{"missing account", "risk_pct=1&entry=100&stop=95", "account", "is required"},
		{"missing stop", "account=10000&risk_pct=1&entry=100", "stop", "is required"},
		{"account not a number", "account=ten&risk_pct=1&entry=100&stop=95", "account", "must be a number"},
		{"hex is not a number", "account=0x10&risk_pct=1&entry=100&stop=95", "account", "must be a number"},
		{"infinity", "account=10000&risk_pct=1&entry=Inf&stop=95", "entry", "must be a number"},
		{"account zero", "account=0&risk_pct=1&entry=100&stop=95", "account", "greater than 0"},
		{"account negative", "account=-5&risk_pct=1&entry=100&stop=95", "account", "greater than 0"},
		{"account too large", "account=1e16&risk_pct=1&entry=100&stop=95", "account", "maximum"},
		{"risk zero", "account=10000&risk_pct=0&entry=100&stop=95", "risk_pct", "greater than 0"},
		{"risk above 100", "account=10000&risk_pct=100.5&entry=100&stop=95", "risk_pct", "maximum is 100"},
		{"risk too many decimals", "account=10000&risk_pct=0.00001&entry=100&stop=95", "risk_pct", "too many decimals"},
		{"entry negative", "account=10000&risk_pct=1&entry=-100&stop=95", "entry", "greater than 0"},
		{"entry too many decimals", "account=10000&risk_pct=1&entry=1.00000000001&stop=95", "entry", "too many decimals"},
		{"stop zero", "account=10000&risk_pct=1&entry=100&stop=0", "stop", "greater than 0"},
		{"stop above the bound", "account=10000&risk_pct=1&entry=100&stop=2e12", "stop", "maximum"},
		{"huge exponent", "account=1e99999&risk_pct=1&entry=100&stop=95", "account", "out of range"},
		{"stop equals entry", "account=10000&risk_pct=1&entry=100&stop=100.0", "stop", "equals entry"},
		{"size decimals", "account=10000&risk_pct=1&entry=100&stop=95&size_decimals=9", "size_decimals", "maximum"},
		{"unknown key", "account=10000&risk_pct=1&entry=100&stop=95&leverage=3", "leverage", "not a known field"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in, err := fromQuery[axp.TradingRiskQuery](t, tt.query)
			if err == nil {
				_, err = TradingRisk(in)
			}
			invalid(t, err, tt.field, tt.message)
		})
	}
}

// Called directly (not through the decoder), the tool checks its input itself.
func TestTradingRiskChecksDirectCalls(t *testing.T) {
	six := 6
	tests := []struct {
		in             axp.TradingRiskQuery
		field, message string
	}{
		{axp.TradingRiskQuery{RiskPct: "1", Entry: "100", Stop: "95"}, "account", "is required"},
		{axp.TradingRiskQuery{Account: "1/2", RiskPct: "1", Entry: "100", Stop: "95"}, "account", "not a number"},
		{axp.TradingRiskQuery{Account: "1_000", RiskPct: "1", Entry: "100", Stop: "95"}, "account", "not a number"},
		{axp.TradingRiskQuery{Account: "1000", RiskPct: "101", Entry: "100", Stop: "95"}, "risk_pct", "maximum is 100"},
		{axp.TradingRiskQuery{Account: "1000", RiskPct: "1", Entry: "100", Stop: "95.00000000001"}, "stop", "too many decimals"},
		{axp.TradingRiskQuery{Account: "1000", RiskPct: "1", Entry: "1e2", Stop: "100"}, "stop", "equals entry"},
		{axp.TradingRiskQuery{Account: "1000", RiskPct: "1", Entry: "100", Stop: "95", SizeDecimals: &[]int{-1}[0]}, "size_decimals", "0 to 8"},
	}
	for _, tt := range tests {
		_, err := TradingRisk(&tt.in)
		invalid(t, err, tt.field, tt.message)
	}
	if _, err := TradingRisk(&axp.TradingRiskQuery{Account: "1000", RiskPct: "1", Entry: "100", Stop: "95", SizeDecimals: &six}); err != nil {
		t.Fatal(err)
	}
}

// A JSON body (MCP, the CLI) carries the same inputs as JSON numbers, and the answer's numbers are
// JSON numbers written exactly.
func TestTradingRiskJSON(t *testing.T) {
	var in axp.TradingRiskQuery
	if err := protocol.Decode([]byte(`{"account": 10000, "risk_pct": 1, "entry": 100.10, "stop": 95}`), &in); err != nil {
		t.Fatal(err)
	}
	if in.Entry != "100.10" {
		t.Fatalf("entry read as %q", in.Entry)
	}
	invalid(t, protocol.Decode([]byte(`{"account": "10000", "risk_pct": 1, "entry": 100, "stop": 95}`), &in), "account", "must be a number")
	got, err := TradingRisk(&in)
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(got)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"direction":"long"`, `"position_size":19.60784313`, `"risk_amount":100`, `"stop_distance":5.1`, `"notional":1962.74509731`} {
		if !strings.Contains(string(b), want) {
			t.Errorf("%s lacks %s", b, want)
		}
	}
	if strings.Contains(string(b), `"note"`) {
		t.Errorf("no note expected: %s", b)
	}
	if s := protocol.SchemaFor[axp.TradingRiskResult]().Properties["position_size"]; s.PrimaryType() != "number" {
		t.Errorf("position_size is described as %v, want number", s.Type)
	}
}
