package protocol

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"strconv"
	"time"
)

// Headers on every call from the exchange to a member (spec section 5).
const (
	HeaderMemberID  = "X-AX-Member-Id"
	HeaderTimestamp = "X-AX-Timestamp"
	HeaderSignature = "X-AX-Signature"
	HeaderTraceID   = "X-Trace-Id"
)

// Sign returns hex HMAC-SHA256(key, "<timestamp>.<body>").
func Sign(key []byte, timestamp int64, body []byte) string {
	m := hmac.New(sha256.New, key)
	m.Write([]byte(strconv.FormatInt(timestamp, 10)))
	m.Write([]byte{'.'})
	m.Write(body)
	return hex.EncodeToString(m.Sum(nil))
}

// SignRequest sets the member-call headers on h for body, signed at now.
func SignRequest(h http.Header, memberID string, key []byte, authToken string, body []byte, now time.Time) {
	ts := now.Unix()
	h.Set(HeaderMemberID, memberID)
	h.Set(HeaderTimestamp, strconv.FormatInt(ts, 10))
	h.Set(HeaderSignature, Sign(key, ts, body))
	if authToken != "" {
		h.Set("Authorization", "Bearer "+authToken)
	}
}

// VerifyRequest checks the signature headers of a call received by a member. It refuses missing
// headers, another member's id, timestamps more than 300 s from now either way, and wrong
// signatures (compared in constant time).
func VerifyRequest(h http.Header, memberID string, key []byte, body []byte, now time.Time) *Error {
	id, tsText, sig := h.Get(HeaderMemberID), h.Get(HeaderTimestamp), h.Get(HeaderSignature)
	if id == "" || tsText == "" || sig == "" {
		return &Error{Code: CodeUnauthorized, Message: "missing signature headers", Hint: "calls must carry X-AX-Member-Id, X-AX-Timestamp and X-AX-Signature"}
	}
	if memberID != "" && !hmac.Equal([]byte(id), []byte(memberID)) {
		return &Error{Code: CodeUnauthorized, Message: "the call is addressed to another member"}
	}
	ts, err := strconv.ParseInt(tsText, 10, 64)
	if err != nil {
		return &Error{Code: CodeUnauthorized, Message: "X-AX-Timestamp is not unix seconds"}
	}
	if d := now.Unix() - ts; d > SignatureToleranceSec || d < -SignatureToleranceSec {
		return &Error{Code: CodeUnauthorized, Message: "the call's timestamp is more than 300 s from now", Hint: "check the clocks of both machines"}
	}
	want := Sign(key, ts, body)
	if !hmac.Equal([]byte(want), []byte(sig)) {
		return &Error{Code: CodeUnauthorized, Message: "the signature does not match"}
	}
	return nil
}

// ContactTestSignature is the answer to the contact_test handshake:
// hex HMAC-SHA256(platform_key, "contact_test." + nonce).
func ContactTestSignature(key []byte, nonce string) string {
	m := hmac.New(sha256.New, key)
	m.Write([]byte("contact_test."))
	m.Write([]byte(nonce))
	return hex.EncodeToString(m.Sum(nil))
}

// Fingerprint identifies a secret in logs without revealing it: the first 8 hex digits of its SHA-256.
func Fingerprint(secret string) string {
	sum := sha256.Sum256([]byte(secret))
	return hex.EncodeToString(sum[:4])
}
