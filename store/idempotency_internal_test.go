package store

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"testing"
	"time"

	"github.com/axp-exchange/axp/store/pgtest"
)

// TestIdempotencyCompact: records are stored with a 32-byte key and a binary value that round-trips
// every field (the exchange's hex hashes as raw bytes, other strings as they are), and records
// written before schema 13 (hex keys, JSON values) are still found, read and pruned.
func TestIdempotencyCompact(t *testing.T) { pgtest.Both(t, testIdempotencyCompact) }

func testIdempotencyCompact(t *testing.T) {
	db := openBackend(t)
	hexOf := func(s string) string { h := sha256.Sum256([]byte(s)); return hex.EncodeToString(h[:]) }
	at := time.Date(2026, 11, 25, 4, 50, 11, 961552861, time.UTC)
	sealed := bytes.Repeat([]byte{0x9c, 0x00, 0xff}, 100)
	recs := map[string]*Idempotency{
		hexOf("new"):   {BodyHash: hexOf("body"), Op: "create_task", Status: 201, Sealed: sealed, At: at, Task: "tsk_06h122hqf6b8yqfhkt41s6gfvg"},
		"plain-key":    {BodyHash: "not-hex", Op: "register", Status: 200, Sealed: nil, At: at.Add(-time.Hour)},
		hexOf("upper"): {BodyHash: "ABCDEF" + hexOf("x")[6:], Op: "choose_offer", Status: 200, Sealed: []byte("s"), At: at},
	}
	old := &Idempotency{V: 1, BodyHash: hexOf("old body"), Op: "accept_task", Status: 200, Sealed: sealed, At: at.Add(-48 * time.Hour)}
	if err := db.Update(func(tx *Tx) error {
		for k, r := range recs {
			if err := tx.PutIdempotency(k, r); err != nil {
				return err
			}
		}
		raw, err := json.Marshal(old) // as schema 12 stored it
		if err != nil {
			return err
		}
		return tx.bucket(bIdempotency).Put([]byte(hexOf("old")), compress(raw))
	}); err != nil {
		t.Fatal(err)
	}
	if err := db.View(func(tx *Tx) error {
		if raw := tx.bucket(bIdempotency).Get(idemKey(hexOf("new"))); len(idemKey(hexOf("new"))) != 32 || raw == nil || raw[0] != idemBinary || len(raw) > len(sealed)+96 {
			t.Errorf("new record stored as %d bytes under a %d-byte key", len(raw), len(idemKey(hexOf("new"))))
		}
		for k, want := range recs {
			got, err := tx.Idempotency(k)
			if err != nil || got == nil || got.BodyHash != want.BodyHash || got.Op != want.Op || got.Status != want.Status ||
				!bytes.Equal(got.Sealed, want.Sealed) || !got.At.Equal(want.At) || got.Task != want.Task || got.V != 1 {
				t.Errorf("%s: got %+v, %v; want %+v", k, got, err, want)
			}
		}
		got, err := tx.Idempotency(hexOf("old"))
		if err != nil || got == nil || got.BodyHash != old.BodyHash || !bytes.Equal(got.Sealed, sealed) || !got.At.Equal(old.At) {
			t.Errorf("schema 12 record: %+v, %v", got, err)
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if err := db.Update(func(tx *Tx) error {
		n, err := tx.PruneIdempotency(at.Add(-30 * time.Minute))
		if n != 2 || err != nil {
			t.Errorf("pruned %d, %v; want the schema 12 record and plain-key", n, err)
		}
		return err
	}); err != nil {
		t.Fatal(err)
	}
	for _, bad := range [][]byte{{idemBinary}, {idemBinary, 200}, {idemBinary, 1, 2, 0, 40, 1}} {
		if _, err := decodeIdempotency(bad); err == nil {
			t.Errorf("%x decoded", bad)
		}
	}
}
