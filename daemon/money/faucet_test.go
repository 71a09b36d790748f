package money

import (
	"testing"
	"time"

	"github.com/axp-exchange/axp"
)

// The faucet's limits per address: one gift every 10 s, US$5,000 an hour; a gift the chain did not
// send is forgotten.
func TestFaucetLimit(t *testing.T) {
	var l faucetLimit
	at := time.Date(2026, 11, 27, 10, 0, 0, 0, time.UTC)
	if err := l.take("a", faucetMax, at); err != nil {
		t.Fatal(err)
	}
	if err := l.take("a", faucetMax, at.Add(5*time.Second)); err == nil || err.Code != axp.CodeRateLimited {
		t.Fatalf("a second gift within 10 s: %v", err)
	}
	if err := l.take("b", faucetMax, at.Add(5*time.Second)); err != nil {
		t.Fatalf("another address: %v", err)
	}
	for i := 1; i < 5; i++ {
		if err := l.take("a", faucetMax, at.Add(time.Duration(i)*11*time.Second)); err != nil {
			t.Fatalf("gift %d: %v", i+1, err)
		}
	}
	if err := l.take("a", faucetDefault, at.Add(time.Minute)); err == nil || err.Code != axp.CodeRateLimited || err.RetryAfter < 3500 {
		t.Fatalf("past US$5,000 in the hour: %v", err)
	}
	if err := l.take("a", faucetDefault, at.Add(time.Hour+time.Second)); err != nil {
		t.Fatalf("an hour later: %v", err)
	}
	next := at.Add(time.Hour + 20*time.Second)
	if err := l.take("c", faucetDefault, next); err != nil {
		t.Fatal(err)
	}
	l.undo("c", next)
	if err := l.take("c", faucetDefault, next.Add(time.Second)); err != nil {
		t.Fatalf("after a gift the chain did not send: %v", err)
	}
}
