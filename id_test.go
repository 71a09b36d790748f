package axp

import (
	"testing"
	"time"
)

// TestIDBytes: an id's bytes come back as the same id, carry the time it was made at, and
// anything that is not an id of NewID's form (wrong length, wrong alphabet, a last character whose
// unused bits are set, no prefix) is refused.
func TestIDBytes(t *testing.T) {
	at := time.Date(2026, 11, 25, 6, 34, 39, 346_000_000, time.UTC)
	for range 200 {
		id := NewID("aud", at)
		prefix, raw, ok := IDBytes(id)
		if !ok || prefix != "aud" || IDFromBytes(prefix, raw[:]) != id {
			t.Fatalf("%s: %q %x %v", id, prefix, raw, ok)
		}
		if got, ok := IDTime(id); !ok || got.Before(at) || got.After(at.Add(time.Second)) {
			t.Fatalf("IDTime(%s) = %v, %v", id, got, ok)
		}
	}
	if got, _ := IDTime(IDFloor("tsk", at)); !got.Equal(at) {
		t.Fatalf("IDTime of the floor: %v", got)
	}
	for _, bad := range []string{"", "aud", "aud_", "aud_06h12tesfcvmz9fqsrwtra22f", "aud_06h12tesfcvmz9fqsrwtra22frr",
		"aud_06h12tesfcvmz9fqsrwtra22fu", "aud_06h12tesfcvmz9fqsrwtra22f1", "06h12tesfcvmz9fqsrwtra22fr0"} {
		if _, _, ok := IDBytes(bad); ok {
			t.Errorf("IDBytes(%q) accepted", bad)
		}
	}
}
