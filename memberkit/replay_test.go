package memberkit

import (
	"fmt"
	"strconv"
	"testing"
	"time"
)

// The replay cache is bounded and fails safe: when it is full the oldest signatures are forgotten,
// and a replay of a forgotten one is refused by the floor, while calls signed now still pass.
func TestReplayCacheBoundedAndSafe(t *testing.T) {
	c := &replayCache{seen: map[string]int64{}}
	start := time.Unix(1_800_000_000, 0)
	ts := func(d time.Duration) string { return strconv.FormatInt(start.Add(d).Unix(), 10) }
	// maxReplayEntries calls spread over 100 s of timestamps, all within the window.
	for i := range maxReplayEntries {
		at := time.Duration(i) * 100 * time.Second / maxReplayEntries
		if !c.first(fmt.Sprint("sig", i), ts(at), start.Add(100*time.Second)) {
			t.Fatalf("call %d refused", i)
		}
	}
	now := start.Add(100 * time.Second)
	if !c.first("fresh-1", ts(100*time.Second), now) {
		t.Fatal("a fresh call was refused when the cache filled up")
	}
	if len(c.seen) > maxReplayEntries {
		t.Fatalf("the cache grew to %d", len(c.seen))
	}
	// The oldest call was forgotten, and its replay is still refused.
	if _, kept := c.seen["sig0"]; kept {
		t.Fatal("the oldest signature was kept")
	}
	if c.first("sig0", ts(0), now) {
		t.Fatal("a replay of a forgotten call was accepted")
	}
	// Remembered ones too.
	if c.first(fmt.Sprint("sig", maxReplayEntries-1), ts(99*time.Second), now) {
		t.Fatal("a replay of a remembered call was accepted")
	}
	// Calls signed now keep passing.
	for i := range 1000 {
		if !c.first(fmt.Sprint("later", i), ts(100*time.Second), now) {
			t.Fatalf("fresh call %d refused", i)
		}
	}
}
