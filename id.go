package axp

import (
	"bytes"
	"crypto/rand"
	"encoding/base32"
	"encoding/binary"
	"encoding/hex"
	"strings"
	"sync"
	"time"
)

var idEncoding = base32.NewEncoding("0123456789abcdefghjkmnpqrstvwxyz").WithPadding(base32.NoPadding)

var (
	idMu   sync.Mutex
	idLast [16]byte
)

// NewID returns a prefixed, time-sortable id: prefix + "_" + 26 characters (48-bit milliseconds,
// 80 random bits), e.g. "mem_06bz...". Ids are monotonic within this process: one made in the same
// millisecond as the previous one (or while the clock stepped back) is the previous one plus one, so
// ids of one prefix sort in creation order.
func NewID(prefix string, now time.Time) string {
	var b [16]byte
	binary.BigEndian.PutUint64(b[:8], uint64(now.UnixMilli())<<16)
	if _, err := rand.Read(b[6:]); err != nil {
		panic(err)
	}
	idMu.Lock()
	if bytes.Compare(b[:6], idLast[:6]) <= 0 {
		b = idLast
		for i := 15; i >= 0; i-- { // add one, carrying
			b[i]++
			if b[i] != 0 {
				break
			}
		}
	}
	idLast = b
	idMu.Unlock()
	return prefix + "_" + idEncoding.EncodeToString(b[:])
}

// NewTraceID returns a trace id: 12 bytes in lower-case hex, the first 6 the millisecond it was made
// at, the other 6 random. The time in front lets the store keep a trace's index rows in time order
// (and pack them with the history); within a millisecond 48 random bits keep ids apart.
func NewTraceID(now time.Time) string {
	var b [12]byte
	binary.BigEndian.PutUint64(b[:8], uint64(now.UnixMilli())<<16)
	if _, err := rand.Read(b[6:]); err != nil {
		panic(err)
	}
	return hex.EncodeToString(b[:])
}

// RandomHex returns n random bytes as hex.
func RandomHex(n int) string {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		panic(err)
	}
	const digits = "0123456789abcdef"
	var sb strings.Builder
	for _, c := range b {
		sb.WriteByte(digits[c>>4])
		sb.WriteByte(digits[c&15])
	}
	return sb.String()
}

// IDFloor is the smallest id of prefix made at t: ids made at or after t sort at or after it.
func IDFloor(prefix string, t time.Time) string {
	var b [16]byte
	binary.BigEndian.PutUint64(b[:8], uint64(t.UnixMilli())<<16)
	return prefix + "_" + idEncoding.EncodeToString(b[:])
}

// IDBytes splits an id made by NewID into its prefix and its 16 bytes (48-bit milliseconds, 80
// random bits); ok is false for anything else, including a text that would not come back the same
// from IDFromBytes.
func IDBytes(id string) (prefix string, raw [16]byte, ok bool) {
	prefix, enc, found := strings.Cut(id, "_")
	if !found || len(enc) != 26 {
		return "", raw, false
	}
	n, err := idEncoding.Decode(raw[:], []byte(enc))
	if err != nil || n != 16 || idEncoding.EncodeToString(raw[:]) != enc {
		return "", raw, false
	}
	return prefix, raw, true
}

// IDFromBytes is the id of prefix and raw (the inverse of IDBytes).
func IDFromBytes(prefix string, raw []byte) string {
	return prefix + "_" + idEncoding.EncodeToString(raw)
}

// IDTime is the millisecond an id made by NewID carries.
func IDTime(id string) (time.Time, bool) {
	_, raw, ok := IDBytes(id)
	if !ok {
		return time.Time{}, false
	}
	return time.UnixMilli(int64(binary.BigEndian.Uint64(raw[:8]) >> 16)).UTC(), true
}
