package protocol_test

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"regexp"
	"strconv"
	"testing"
	"time"

	"github.com/axp-exchange/axp/protocol"
)

// hmacHex computes hex HMAC-SHA256 independently of the code under test.
func hmacHex(key, msg string) string {
	m := hmac.New(sha256.New, []byte(key))
	m.Write([]byte(msg))
	return hex.EncodeToString(m.Sum(nil))
}

func TestSignVector(t *testing.T) {
	key := []byte("pk_test_key")
	body := []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call"}`)
	const ts = 1791374400 // 2026-10-07T12:00:00Z
	want := hmacHex("pk_test_key", "1791374400."+string(body))
	if got := protocol.Sign(key, ts, body); got != want {
		t.Fatalf("Sign = %s, want %s", got, want)
	}
	// RFC 4231 test case 2 pins the reference helper, so the expected value above comes from a
	// correct HMAC-SHA256.
	if got := hmacHex("Jefe", "what do ya want for nothing?"); got != "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843" {
		t.Fatalf("reference HMAC broken: %s", got)
	}
	// Empty body: the message is "<ts>."
	if got := protocol.Sign(key, 5, nil); got != hmacHex("pk_test_key", "5.") {
		t.Fatalf("empty body: %s", got)
	}
}

func TestSignRequestAndVerify(t *testing.T) {
	key := []byte("platform-key-123")
	body := []byte(`{"nonce":"abc"}`)
	now := time.Unix(1_800_000_000, 0)

	h := http.Header{}
	protocol.SignRequest(h, "mem_1", key, "tok", body, now)
	if h.Get(protocol.HeaderMemberID) != "mem_1" || h.Get(protocol.HeaderTimestamp) != "1800000000" ||
		h.Get(protocol.HeaderSignature) != hmacHex("platform-key-123", "1800000000."+string(body)) ||
		h.Get("Authorization") != "Bearer tok" {
		t.Fatalf("headers %v", h)
	}
	h2 := http.Header{}
	protocol.SignRequest(h2, "mem_1", key, "", body, now)
	if _, ok := h2["Authorization"]; ok {
		t.Fatal("Authorization set without an auth token")
	}

	if err := protocol.VerifyRequest(h, "mem_1", key, body, now); err != nil {
		t.Fatalf("valid request refused: %v", err)
	}
	// Tolerance is 300 s either way, inclusive.
	for _, d := range []int64{-300, 300, -1, 1} {
		if err := protocol.VerifyRequest(h, "mem_1", key, body, now.Add(time.Duration(d)*time.Second)); err != nil {
			t.Errorf("skew %d s refused: %v", d, err)
		}
	}
	for _, d := range []int64{-301, 301, -3600, 86400} {
		err := protocol.VerifyRequest(h, "mem_1", key, body, now.Add(time.Duration(d)*time.Second))
		if err == nil || err.Code != protocol.CodeUnauthorized {
			t.Errorf("skew %d s accepted: %v", d, err)
		}
	}

	refuse := func(name string, h http.Header, member string, key, body []byte) {
		t.Helper()
		err := protocol.VerifyRequest(h, member, key, body, now)
		if err == nil || err.Code != protocol.CodeUnauthorized {
			t.Errorf("%s: accepted (%v)", name, err)
		}
	}
	refuse("other member", h, "mem_2", key, body)
	refuse("wrong key", h, "mem_1", []byte("other-key"), body)
	refuse("changed body", h, "mem_1", key, []byte(`{"nonce":"abd"}`))

	forged := h.Clone()
	forged.Set(protocol.HeaderSignature, hmacHex("guess", "1800000000."+string(body)))
	refuse("forged signature", forged, "mem_1", key, body)

	short := h.Clone()
	short.Set(protocol.HeaderSignature, h.Get(protocol.HeaderSignature)[:63])
	refuse("truncated signature", short, "mem_1", key, body)

	// Re-signing with a moved timestamp but the old signature fails.
	moved := h.Clone()
	moved.Set(protocol.HeaderTimestamp, strconv.FormatInt(now.Unix()+1, 10))
	refuse("timestamp changed", moved, "mem_1", key, body)

	notNum := h.Clone()
	notNum.Set(protocol.HeaderTimestamp, "yesterday")
	refuse("timestamp not a number", notNum, "mem_1", key, body)

	for _, missing := range []string{protocol.HeaderMemberID, protocol.HeaderTimestamp, protocol.HeaderSignature} {
		m := h.Clone()
		m.Del(missing)
		refuse("missing "+missing, m, "mem_1", key, body)
	}
	refuse("no headers", http.Header{}, "mem_1", key, body)
}

func TestContactTestSignature(t *testing.T) {
	key := []byte("pk_abc")
	want := hmacHex("pk_abc", "contact_test.n-123")
	if got := protocol.ContactTestSignature(key, "n-123"); got != want {
		t.Fatalf("ContactTestSignature = %s, want %s", got, want)
	}
	if !regexp.MustCompile(`^[0-9a-f]{64}$`).MatchString(want) {
		t.Fatal("not 64 hex")
	}
	// The answer fits the ContactTestOutput schema.
	out := map[string]any{"nonce": "n-123", "signature": want}
	if err := protocol.Validate(protocol.SchemaFor[protocol.ContactTestOutput](), out, ""); err != nil {
		t.Fatal(err)
	}
}

func TestFingerprint(t *testing.T) {
	fp := protocol.Fingerprint("ss_mem_1_secret")
	if !regexp.MustCompile(`^[0-9a-f]{8}$`).MatchString(fp) {
		t.Fatalf("fingerprint %q", fp)
	}
	sum := sha256.Sum256([]byte("ss_mem_1_secret"))
	if fp != hex.EncodeToString(sum[:])[:8] {
		t.Fatal("not the first 8 hex of SHA-256")
	}
	if protocol.Fingerprint("a") == protocol.Fingerprint("b") {
		t.Fatal("fingerprints collide")
	}
}
