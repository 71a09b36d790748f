package protocol

import (
	"encoding/json"
	"testing"
)

func TestPairs(t *testing.T) {
	var d map[string]any
	json.Unmarshal([]byte(`{"reason":null,"amount":2500000,"refund":{"pct":50,"usd":"1.25"},"tags":["a","b"],"note":"paid in full","list":[{"x":1}]}`), &d)
	got := Pairs(d)
	want := "amount=2500000 list={x=1} note=paid in full refund.pct=50 refund.usd=1.25 tags=a,b"
	if got != want {
		t.Errorf("Pairs\n got %s\nwant %s", got, want)
	}
	if Pairs(nil) != "" {
		t.Errorf("nil: %q", Pairs(nil))
	}
}
